/* The HSDAG placer's network (core/agent/hsdag.h): the input features, the
 * normalised adjacency and the structural features on a hand-checkable
 * graph; the parse on hand-made scores; the gradient check of
 * hsdag_backward_d against central differences of J = weight log pi on
 * EVERY entry of every tensor, in double, on several small nets and graphs
 * (a parse that merges groups, the cost family on a two-device cluster of
 * two kinds and speeds, a single group; n = 2 and 3) with the parse frozen,
 * and the proof that the comparison can fail (for each tensor it must
 * reject the analytic gradient with one entry scaled by 1.01 and with one
 * entry sign-flipped); the strided layer norm alone; the float path
 * against the double one; BLAS against the plain loops (the same bits on
 * narrow layers); sampling determinism, greedy = argmax per cluster, the
 * score of a sampled placement; the fixed-seed reference
 * tests/data/hsdag_reference.json (relative 1e-6; regenerate after an
 * intended change with PLACETO_UPDATE_REFERENCE=1 build/unit hsdag_reference,
 * and review the diff). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "gen.h"
#include "gradref.h"
#include "hsdag.h"
#include "test.h"

#define REF_PATH "tests/data/hsdag_reference.json"
#define GRAD_TOL 1e-5
#define GRAD_FLOOR 1e-4

/* two devices of other kinds and speeds: costs x4 on the CPU, x0.5 on the GPU */
static const char MIXED2[] =
    "{\"format\": \"placeto-cluster\", \"version\": 1, \"name\": \"mixed\", \"devices\": ["
    "{\"name\": \"/CPU:0\", \"kind\": \"cpu\", \"speed\": 0.25},"
    " {\"name\": \"/GPU:0\", \"kind\": \"gpu\", \"speed\": 2}],"
    " \"op_gap_us\": 1, \"transfer_overhead_us\": 0, \"bandwidth_bytes_per_us\": 100}";

typedef struct HCase {
    int ops, target, vocab_ops, n, h, features, min_clusters, mixed; /* min_clusters 0: the default */
    uint64_t seed;
} HCase;

typedef struct HFix {
    Graph *g, *vg;
    Grouping *gr;
    Cluster *c;
    OpVocab voc;
    HsdagNet *net;
    HsdagInput *in;
} HFix;

static int hfix_new(HFix *f, const HCase *k)
{
    Err e = {{0}};
    memset(f, 0, sizeof *f);
    f->g = gen_random_dag(k->ops, 2.0, k->seed);
    f->vg = gen_random_dag(k->vocab_ops, 2.0, k->seed + 1);
    f->gr = group_build(f->g, k->target, &e);
    REQUIRE_OR(f->gr != NULL, -1, "group_build: %s", e.msg);
    const Graph *gs[1] = {f->vg};
    vocab_build(&f->voc, gs, 1);
    if (k->mixed) {
        f->c = cluster_load_text("mixed.json", MIXED2, strlen(MIXED2), &e);
        REQUIRE_OR(f->c != NULL, -1, "cluster: %s", e.msg);
    }
    HsdagArch a;
    hsdag_arch_default(&a, k->n, f->voc.n);
    a.hidden = k->h;
    a.features = k->features;
    a.min_clusters = k->min_clusters ? k->min_clusters : a.min_clusters;
    f->net = hsdag_new(&a, &f->voc, 40 + k->seed, &e);
    REQUIRE_OR(f->net != NULL, -1, "hsdag_new: %s", e.msg);
    f->in = hsdag_input_new(f->net, f->g, f->gr, f->c, &e);
    REQUIRE_OR(f->in != NULL, -1, "hsdag_input_new: %s", e.msg);
    return 0;
}

static void hfix_done(HFix *f)
{
    hsdag_input_free(f->in);
    hsdag_free(f->net);
    cluster_free(f->c);
    vocab_done(&f->voc);
    group_free(f->gr);
    graph_free(f->g);
    graph_free(f->vg);
}

/* --- inputs -------------------------------------------------------------------------- */

/* a -> b -> c -> d -> g, a -> c, and e -> f apart: seven groups of one op */
static Graph *hand_graph(void)
{
    Graph *g = graph_new("hand");
    const char *names[7] = {"a", "b", "c", "d", "g", "e", "f"};
    const char *ops[7] = {"Conv", "Relu", "Conv", "Add", "Add", "MatMul", "Conv"};
    double cost[7] = {10, 20, 40, 0, 5, 8, 1};
    int64_t by[7] = {100, 1000, 10, 0, 50, 7, 3};
    for (int i = 0; i < 7; i++)
        graph_add_node(g, names[i], ops[i], cost[i], &by[i], 1);
    static const int E[6][2] = {{0, 1}, {1, 2}, {2, 3}, {0, 2}, {3, 4}, {5, 6}};
    for (int k = 0; k < 6; k++)
        graph_add_edge(g, E[k][0], E[k][1], 0);
    Err e = {{0}};
    if (graph_finish(g, &e) != 0) {
        test_fail(__FILE__, __LINE__, "%s", e.msg);
        graph_free(g);
        return NULL;
    }
    return g;
}

TEST(hsdag_structural_features)
{
    Graph *g = hand_graph();
    REQUIRE(g != NULL);
    Err e = {{0}};
    Grouping *gr = group_build(g, 7, &e);
    REQUIRE_MSG(gr != NULL && gr->n_groups == 7, "%s", e.msg);
    int id[7];
    const char *names[7] = {"a", "b", "c", "d", "g", "e", "f"};
    for (int i = 0; i < 7; i++)
        id[i] = group_find(gr, names[i]);
    double fd[7], cc[7];
    hsdag_fractal_dimension(gr, fd);
    hsdag_closeness(gr, cc);
    /* Fractal dimension (directed). a reaches b, c at 1, d at 2, g at 3:
     * N = 3, 4, 5 at r = 1, 2, 3; with x = log r, y = log N the slope
     * sum (x - xm)(y - ym) / sum (x - xm)^2 = 0.459596308...; b: c at 1,
     * d at 2, g at 3, N = 2, 3, 4: 0.625979906...; c: d at 1, g at 2,
     * N = 2, 3: (log 3 - log 2) / log 2 = 0.584962501; d, g, e (one radius)
     * and f (none): 0. */
    double x[3] = {0, log(2), log(3)}, ya[3] = {log(3), log(4), log(5)}, yb[3] = {log(2), log(3), log(4)};
    double xm = (x[0] + x[1] + x[2]) / 3, sxx = 0, sa = 0, sb = 0;
    for (int i = 0; i < 3; i++) {
        sxx += (x[i] - xm) * (x[i] - xm);
        sa += (x[i] - xm) * (ya[i] - (ya[0] + ya[1] + ya[2]) / 3);
        sb += (x[i] - xm) * (yb[i] - (yb[0] + yb[1] + yb[2]) / 3);
    }
    double want_fd[7] = {sa / sxx, sb / sxx, log(1.5) / log(2), 0, 0, 0, 0};
    CHECK_NEAR(want_fd[0], 0.45959630825664516, 1e-15);
    CHECK_NEAR(want_fd[1], 0.62597990619246546, 1e-15);
    /* Closeness (undirected, G = 7): a: b 1, c 1, d 2, g 3, sum 7 over 4
     * reached: (4/6)(4/7) = 0.380952; b: a 1, c 1, d 2, g 3: the same; c:
     * a, b, d 1, g 2, sum 5: (4/6)(4/5); d: c, g 1, a, b 2, sum 6:
     * (4/6)(4/6); g: d 1, c 2, a, b 3, sum 9: (4/6)(4/9); e, f: (1/6)(1/1). */
    double want_cc[7] = {16.0 / 42, 16.0 / 42, 16.0 / 30, 16.0 / 36, 16.0 / 54, 1.0 / 6, 1.0 / 6};
    for (int i = 0; i < 7; i++) {
        CHECK_MSG(fabs(fd[id[i]] - want_fd[i]) < 1e-12, "fractal dimension of %s: %.15g, expected %.15g", names[i],
                  fd[id[i]], want_fd[i]);
        CHECK_MSG(fabs(cc[id[i]] - want_cc[i]) < 1e-12, "closeness of %s: %.15g, expected %.15g", names[i], cc[id[i]],
                  want_cc[i]);
    }
    /* the features and A through an input: vocabulary {Add, Conv} */
    OpVocab voc = {2, (char *[]){"Add", "Conv"}}; /* sorted, as vocab_build leaves it */
    Cluster *c = cluster_load_text("mixed.json", MIXED2, strlen(MIXED2), &e);
    for (int with_cluster = 0; with_cluster < 2 && c; with_cluster++) {
        HsdagArch a;
        hsdag_arch_default(&a, 2, voc.n);
        a.hidden = 4;
        a.features = HSDAG_F_PARITY;
        HsdagNet *net = hsdag_new(&a, &voc, 1, &e);
        HsdagInput *in = net ? hsdag_input_new(net, g, gr, with_cluster ? c : NULL, &e) : NULL;
        REQUIRE_MSG(in != NULL && in->F == 3 + 1 + 1 + 2 + 2, "%s", e.msg);
        /* columns: Add, Conv, other, shape, id, fractal, closeness, cost on the two devices */
        double cost[7] = {10, 20, 40, 0, 5, 8, 1}, by[7] = {100, 1000, 10, 0, 50, 7, 3};
        int type[7] = {1, 2, 1, 0, 0, 2, 1};
        for (int i = 0; i < 7; i++) {
            const double *row = in->xd + (size_t)id[i] * 9;
            for (int k = 0; k < 3; k++)
                CHECK_EXACT(row[k], k == type[i] ? 1 : 0);
            CHECK_NEAR(row[3], log1p(by[i]) / log1p(1000), 1e-15);
            CHECK_NEAR(row[4], id[i] / 7.0, 1e-15);
            CHECK_EXACT(row[5], fd[id[i]]);
            CHECK_EXACT(row[6], cc[id[i]]);
            /* with the cluster: cost / 0.25 and cost / 2 over the largest, 40 / 0.25 */
            CHECK_NEAR(row[7], cost[i] / 40, 1e-15);
            CHECK_NEAR(row[8], with_cluster ? cost[i] / 2 / 160 : cost[i] / 40, 1e-15);
            for (int k = 0; k < 9; k++)
                CHECK(in->xf[(size_t)id[i] * 9 + (size_t)k] == (float)row[k]);
        }
        /* A: degrees of S + I: a 3, b 3, c 4, d 3, g 2, e 2, f 2 */
        int deg[7] = {3, 3, 4, 3, 2, 2, 2}, nnz = 0;
        for (int v = 0; v < 7; v++) {
            int self = 0;
            for (int k = in->a_off[v]; k < in->a_off[v + 1]; k++) {
                int u = in->a_col[k], iu = 0, iv = 0;
                CHECK(k == in->a_off[v] || in->a_col[k - 1] < u);
                self += u == v;
                for (int j = 0; j < 7; j++) {
                    iu = id[j] == u ? j : iu;
                    iv = id[j] == v ? j : iv;
                }
                CHECK_NEAR(in->a_val[k], 1 / sqrt((double)deg[iu] * deg[iv]), 1e-15);
                CHECK(in->a_valf[k] == (float)in->a_val[k]);
                nnz++;
            }
            CHECK_INT(self, 1);
        }
        CHECK_INT(nnz, 7 + 2 * 6);
        CHECK_INT(in->n_edges, 6);
        for (int q = 0; q < in->n_edges; q++) {
            CHECK(in->eu[q] < in->ev[q]);
            CHECK(q == 0 || in->eu[q - 1] < in->eu[q] || (in->eu[q - 1] == in->eu[q] && in->ev[q - 1] < in->ev[q]));
        }
        hsdag_input_free(in);
        hsdag_free(net);
    }
    CHECK(c != NULL);
    cluster_free(c);
    group_free(gr);
    graph_free(g);
}

/* --- the parse ----------------------------------------------------------------------- */

TEST(hsdag_parse_hand_scores)
{
    /* the chain a0 -> a1 -> ... -> a6 and a0 -> a2: undirected edges
     * e0 (0,1), e1 (0,2), e2 (1,2), e3 (2,3), e4 (3,4), e5 (4,5), e6 (5,6) */
    Graph *g = graph_new("chain");
    char nm[16];
    for (int i = 0; i < 7; i++) {
        snprintf(nm, sizeof nm, "a%d", i);
        graph_add_node(g, nm, "Conv", 1, NULL, 0);
    }
    for (int i = 0; i < 6; i++)
        graph_add_edge(g, i, i + 1, 0);
    graph_add_edge(g, 0, 2, 0);
    Err e = {{0}};
    REQUIRE_MSG(graph_finish(g, &e) == 0, "%s", e.msg);
    Grouping *gr = group_build(g, 7, &e);
    REQUIRE_MSG(gr != NULL && gr->n_groups == 7, "%s", e.msg);
    for (int i = 0; i < 7; i++) {
        snprintf(nm, sizeof nm, "a%d", i);
        CHECK_INT(group_find(gr, nm), i);
    }
    OpVocab voc = {0, NULL};
    HsdagArch a;
    hsdag_arch_default(&a, 2, 0);
    a.hidden = 4;
    HsdagNet *net = hsdag_new(&a, &voc, 1, &e);
    HsdagInput *in = net ? hsdag_input_new(net, g, gr, NULL, &e) : NULL;
    REQUIRE_MSG(in != NULL && in->n_edges == 7, "%s", e.msg);
    static const int EU[7] = {0, 0, 1, 2, 3, 4, 5}, EV[7] = {1, 2, 2, 3, 4, 5, 6};
    for (int q = 0; q < 7; q++)
        CHECK(in->eu[q] == EU[q] && in->ev[q] == EV[q]);
    /* edges e0..e6, then the self-loops of 0..6. Dominant pairs: 0 and 1
     * e0 (0.9), 2 e2 (0.5), 3 its self-loop (0.95: alone, and nobody
     * reaches it over e3 or e4), 4 and 5 e5 (0.8), 6 e6 (0.4) */
    double s1[14] = {0.9, 0.2, 0.5, 0.3, 0.1, 0.8, 0.4, 0.1, 0.1, 0.1, 0.95, 0.2, 0.1, 0.1};
    int cl[7];
    struct {
        const double *s;
        int floor, nc, cl[7];
    } cases[] = {
        {s1, 1, 3, {0, 0, 0, 1, 2, 2, 2}},
        /* the floor 5: e0 (0.9) and e5 (0.8) merge, e2 and e6 would go below it */
        {s1, 5, 5, {0, 0, 1, 2, 3, 3, 4}},
        {s1, 8, 7, {0, 1, 2, 3, 4, 5, 6}},
        {NULL, 1, 1, {0, 0, 0, 0, 0, 0, 0}},
        /* all scores equal: edges beat self-loops, lower edges win: 0, 1 e0,
         * 2 e1, 3 e3, 4 e4, 5 e5, 6 e6; merged in edge order e0 e1 e3 e4
         * down to the floor 3 */
        {NULL, 3, 3, {0, 0, 0, 0, 0, 1, 2}},
    };
    double flat[14];
    for (int q = 0; q < 14; q++)
        flat[q] = 0.5;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        int nc = hsdag_parse_d(in, cases[k].s ? cases[k].s : flat, cases[k].floor, cl);
        CHECK_MSG(nc == cases[k].nc, "case %zu: %d clusters, expected %d", k, nc, cases[k].nc);
        for (int v = 0; v < 7; v++)
            CHECK_MSG(cl[v] == cases[k].cl[v], "case %zu: group %d in cluster %d, expected %d", k, v, cl[v],
                      cases[k].cl[v]);
    }
    hsdag_input_free(in);
    hsdag_free(net);
    group_free(gr);
    graph_free(g);
}

TEST(hsdag_layer_norm_strided)
{
    /* nn_layer_norm on rows of stride 9 and width 6: the pad columns are
     * left alone, the gradient matches central differences */
    enum { N = 3, Hd = 6, LD = 9 };
    double x[N * LD], gam[Hd], b[Hd], r[N * LD], y[N * LD], xh[N * LD], sg[N];
    double dx[N * LD], dg[Hd] = {0}, db[Hd] = {0}, nx[N * LD] = {0}, ng[Hd], nb[Hd];
    Rng rng;
    rng_seed(&rng, 6);
    for (int i = 0; i < N * LD; i++) {
        x[i] = 4 * rng_uniform(&rng) - 2;
        r[i] = i % LD < Hd ? 2 * rng_uniform(&rng) - 1 : 0;
        y[i] = xh[i] = dx[i] = -7;
    }
    for (int c = 0; c < Hd; c++) {
        gam[c] = 0.5 + rng_uniform(&rng);
        b[c] = rng_uniform(&rng) - 0.5;
    }
    nn_layer_norm_d(N, Hd, LD, HSDAG_LN_EPS, x, gam, b, y, xh, sg);
    nn_layer_norm_bwd_d(N, Hd, LD, r, gam, xh, sg, dx, dg, db);
    for (int i = 0; i < N * LD; i++)
        if (i % LD >= Hd)
            CHECK(y[i] == -7 && xh[i] == -7 && dx[i] == -7);
    double *vars[3] = {x, gam, b}, *nums[3] = {nx, ng, nb};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < (k ? Hd : N * LD); i++) {
            if (!k && i % LD >= Hd)
                continue;
            double v0 = vars[k][i], J[2];
            for (int s = 0; s < 2; s++) {
                vars[k][i] = v0 + (s ? -1e-6 : 1e-6);
                nn_layer_norm_d(N, Hd, LD, HSDAG_LN_EPS, x, gam, b, y, xh, sg);
                J[s] = 0;
                for (int j = 0; j < N * LD; j++)
                    J[s] += j % LD < Hd ? r[j] * y[j] : 0;
            }
            vars[k][i] = v0;
            nums[k][i] = (J[0] - J[1]) / 2e-6;
        }
    for (int i = 0; i < N * LD; i++)
        dx[i] = i % LD < Hd ? dx[i] : 0;
    CHECK(gradref_check_tensor("strided layer norm", "x", dx, nx, N * LD, GRAD_FLOOR, GRAD_TOL));
    CHECK(gradref_check_tensor("strided layer norm", "gamma", dg, ng, Hd, GRAD_FLOOR, GRAD_TOL));
    CHECK(gradref_check_tensor("strided layer norm", "beta", db, nb, Hd, GRAD_FLOOR, GRAD_TOL));
}

/* --- the gradient check -------------------------------------------------------------- */

/* Moves the net's weights off their start (matrices at 1.5 times Glorot,
 * biases and gains by up to 0.3) in float, and returns them in double:
 * both paths then run on the same numbers. */
static double *moved_weights(HsdagNet *net, uint64_t seed)
{
    NnParams *P = &net->p;
    double *wd = XMALLOC(double, P->n);
    Rng r;
    rng_seed(&r, seed);
    for (int k = 0; k < P->n_tensors; k++) {
        const NnTensor *t = &P->t[k];
        for (size_t i = t->off; i < t->off + (size_t)t->rows * (size_t)t->cols; i++) {
            P->w[i] = t->rows > 1 ? 1.5f * P->w[i] : P->w[i] + (float)(0.6 * rng_uniform(&r) - 0.3);
            wd[i] = P->w[i];
        }
    }
    return wd;
}

/* The largest cluster of the float forward's greedy parse. */
static int largest_cluster(const HsdagNet *net, const HsdagInput *in, int *n_clusters)
{
    HsdagWork *w = hsdag_work_new(&net->arch, in);
    int *place = XMALLOC(int, in->G), *size = XNEW(int, in->G), big = 0;
    hsdag_forward(net, in, in->xf, w, HSDAG_GREEDY, NULL, place, NULL);
    const int *cl = hsdag_work_clusters(w, n_clusters);
    for (int v = 0; v < in->G; v++)
        big = ++size[cl[v]] > big ? size[cl[v]] : big;
    hsdag_work_free(w);
    free(place);
    free(size);
    return big;
}

/* Checks every entry of every tensor for the placement a sample of seed
 * gives, the parse frozen; adds the names of the tensors with a gradient
 * to check to seen (a list of NN_NAME_MAX strings). want_merge: the
 * parse (read on the float path, the same weights) must join groups. */
static void grad_check(HsdagNet *net, const HsdagInput *in, uint64_t seed, int want_merge,
                       char (*seen)[NN_NAME_MAX], int *n_seen)
{
    const NnParams *P = &net->p;
    double *wd = moved_weights(net, seed), *grad = XNEW(double, P->n), *num = XMALLOC(double, P->n);
    int *place = XMALLOC(int, in->G), nc, big = largest_cluster(net, in, &nc);
    char label[128];
    snprintf(label, sizeof label, "G=%d E=%d n=%d h=%d F=%d: %d clusters, the largest of %d", in->G, in->n_edges,
             net->arch.n_devices, net->arch.hidden, in->F, nc, big);
    CHECK_MSG(!want_merge || big >= 2, "%s: no groups merged", label);
    Rng r;
    rng_seed(&r, seed + 1);
    const double weight = -1.3;
    HsdagWorkD *w = hsdag_work_new_d(&net->arch, in);
    hsdag_forward_d(net, wd, in, in->xd, w, HSDAG_SAMPLE, &r, place, NULL);
    hsdag_work_freeze_parse_d(w, 1);
    double J0 = weight * hsdag_forward_d(net, wd, in, in->xd, w, HSDAG_SCORE, NULL, place, NULL);
    hsdag_backward_d(net, wd, in, in->xd, w, weight, grad);
    for (size_t i = 0; i < P->n; i++) {
        double w0 = wd[i], J[2];
        for (int side = 0; side < 2; side++) {
            wd[i] = w0 + (side ? -1e-6 : 1e-6);
            J[side] = weight * hsdag_forward_d(net, wd, in, in->xd, w, HSDAG_SCORE, NULL, place, NULL);
        }
        wd[i] = w0;
        num[i] = (J[0] - J[1]) / 2e-6;
    }
    double floor = GRAD_FLOOR * fmax(1, fabs(J0));
    for (int k = 0; k < P->n_tensors; k++) {
        const NnTensor *t = &P->t[k];
        size_t m = (size_t)t->rows * (size_t)t->cols;
        if (!gradref_check_tensor(label, t->name, grad + t->off, num + t->off, m, floor, GRAD_TOL))
            continue;
        int j = 0;
        while (j < *n_seen && strcmp(seen[j], t->name) != 0)
            j++;
        if (j == *n_seen)
            snprintf(seen[(*n_seen)++], NN_NAME_MAX, "%s", t->name);
    }
    if (getenv("TEST_VERBOSE"))
        fprintf(stderr, "  %s: %zu entries checked, J = %g\n", label, P->n, J0);
    hsdag_work_free_d(w);
    free(wd);
    free(grad);
    free(num);
    free(place);
}

TEST(hsdag_gradient_check)
{
    struct {
        HCase k;
        int want_merge; /* the parse must join groups (sigma over inside edges) */
    } cases[] = {
        /* G = 8, n = 2, floor 2: a parse that merges */
        {{18, 8, 6, 2, 8, HSDAG_F_FAITHFUL, 2, 0, 1}, 1},
        /* G = 7, n = 2: the cost family on two devices of two kinds and speeds */
        {{16, 7, 16, 2, 6, HSDAG_F_PARITY, 0, 1, 2}, 1},
        /* one group, n = 3 */
        {{3, 1, 3, 3, 5, HSDAG_F_FAITHFUL | HSDAG_F_COST, 0, 0, 3}, 0},
        /* G = 9, n = 3, two families, floor 3 */
        {{20, 9, 20, 3, 7, HSDAG_F_TYPE | HSDAG_F_ID, 3, 0, 4}, 1},
    };
    char seen[64][NN_NAME_MAX];
    int n_seen = 0, n_tensors = 0;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        HFix f;
        const HCase *k = &cases[c].k;
        if (hfix_new(&f, k) == 0) {
            CHECK_INT(f.gr->n_groups, k->target);
            f.net->blas = c % 2 ? 0 : 1;
            grad_check(f.net, f.in, 100 + k->seed, cases[c].want_merge, seen, &n_seen);
            n_tensors = f.net->p.n_tensors;
        }
        hfix_done(&f);
    }
    /* every tensor had a nonzero gradient in some case */
    CHECK_INT(n_tensors, 38);
    CHECK_MSG(n_seen == n_tensors, "only %d of %d tensors had a gradient to check", n_seen, n_tensors);
}

/* --- float against double, BLAS against the plain loops ------------------------------ */

TEST(hsdag_float_matches_double)
{
    HFix f;
    HCase k = {60, 20, 60, 3, 16, HSDAG_F_PARITY, 0, 0, 7};
    if (hfix_new(&f, &k) == 0) {
        HsdagNet *net = f.net;
        const NnParams *P = &net->p;
        int G = f.in->G, F = f.in->F, n = k.n;
        double *wd = XMALLOC(double, P->n), *gd = XNEW(double, P->n), *od = XMALLOC(double, (size_t)G * (size_t)F);
        float *gf = XNEW(float, P->n), *of = XMALLOC(float, (size_t)G * (size_t)F);
        int *place = XMALLOC(int, G), *pd = XMALLOC(int, G);
        for (size_t i = 0; i < P->n; i++)
            wd[i] = P->w[i];
        for (int blas = 0; blas < 2; blas++) {
            net->blas = blas;
            HsdagWork *w = hsdag_work_new(&net->arch, f.in);
            HsdagWorkD *w2 = hsdag_work_new_d(&net->arch, f.in);
            Rng r;
            rng_seed(&r, 5);
            double lf = hsdag_forward(net, f.in, f.in->xf, w, HSDAG_SAMPLE, &r, place, of);
            memcpy(pd, place, (size_t)G * sizeof *pd);
            double ld = hsdag_forward_d(net, wd, f.in, f.in->xd, w2, HSDAG_SCORE, NULL, pd, od);
            CHECK_MSG(fabs(lf - ld) <= 1e-4 * fmax(1, fabs(ld)), "blas %d: log pi %.9g (float), %.9g (double)", blas,
                      lf, ld);
            CHECK(memcmp(pd, place, (size_t)G * sizeof *pd) == 0);
            for (size_t i = 0; i < (size_t)G * (size_t)F; i++)
                CHECK_MSG(fabs(of[i] - od[i]) <= 1e-4 * fmax(1, fabs(od[i])), "blas %d: out[%zu] %.9g, %.9g", blas,
                          i, (double)of[i], od[i]);
            /* the probabilities: moving cluster c to device d moves log pi by
             * log p_c(d) - log p_c(a_c), in float and in double */
            int nc;
            const int *cl = hsdag_work_clusters(w, &nc);
            CHECK(nc >= 2 * n && nc < G);
            for (int c = 0; c < nc; c++) {
                const float *p = hsdag_work_probs(w, c);
                int ac = -1;
                for (int v = 0; v < G; v++)
                    ac = cl[v] == c ? place[v] : ac;
                for (int d = 0; d < n; d++) {
                    for (int v = 0; v < G; v++)
                        pd[v] = cl[v] == c ? d : place[v];
                    double moved = hsdag_forward_d(net, wd, f.in, f.in->xd, w2, HSDAG_SCORE, NULL, pd, NULL) - ld;
                    double want = log((double)p[d]) - log((double)p[ac]);
                    CHECK_MSG(fabs(moved - want) <= 1e-4, "blas %d: cluster %d device %d: %.9g (double), %.9g (float)",
                              blas, c, d, moved, want);
                }
            }
            memcpy(pd, place, (size_t)G * sizeof *pd);
            hsdag_forward_d(net, wd, f.in, f.in->xd, w2, HSDAG_SCORE, NULL, pd, NULL);
            memset(gf, 0, P->n * sizeof *gf);
            memset(gd, 0, P->n * sizeof *gd);
            hsdag_backward(net, f.in, f.in->xf, w, 0.7, gf);
            hsdag_backward_d(net, wd, f.in, f.in->xd, w2, 0.7, gd);
            size_t off = gradref_float_off(gf, gd, P->n, 1e-3);
            CHECK_MSG(off == 0, "blas %d: %zu gradient entries differ from double", blas, off);
            hsdag_work_free(w);
            hsdag_work_free_d(w2);
        }
        free(wd);
        free(gd);
        free(od);
        free(gf);
        free(of);
        free(place);
        free(pd);
    }
    hfix_done(&f);
}

/* Narrow layers (h, F, n at most 16) run on the vector kernels with BLAS
 * on or off: the same bits. */
TEST(hsdag_blas_plain_same_bits)
{
    HFix f;
    HCase k = {50, 16, 50, 3, 8, HSDAG_F_PARITY, 0, 1, 11};
    k.n = 2;
    if (hfix_new(&f, &k) == 0) {
        HsdagNet *net = f.net;
        int G = f.in->G, F = f.in->F;
        CHECK(F <= 16);
        size_t np = net->p.n;
        float *g[2], *o[2];
        int *pl[2], nc[2];
        double lp[2];
        float pr[2][64];
        for (int blas = 0; blas < 2; blas++) {
            net->blas = blas;
            g[blas] = XNEW(float, np);
            o[blas] = XNEW(float, (size_t)G * (size_t)F);
            pl[blas] = XMALLOC(int, G);
            HsdagWork *w = hsdag_work_new(&net->arch, f.in);
            Rng r;
            rng_seed(&r, 9);
            lp[blas] = hsdag_forward(net, f.in, f.in->xf, w, HSDAG_SAMPLE, &r, pl[blas], o[blas]);
            hsdag_backward(net, f.in, f.in->xf, w, -0.4, g[blas]);
            hsdag_work_clusters(w, &nc[blas]);
            for (int c = 0; c < nc[blas] && c < 32; c++)
                memcpy(pr[blas] + 2 * c, hsdag_work_probs(w, c), 2 * sizeof(float));
            hsdag_work_free(w);
        }
        CHECK_EXACT(lp[0], lp[1]);
        CHECK(nc[0] == nc[1]);
        CHECK(memcmp(pl[0], pl[1], (size_t)G * sizeof(int)) == 0);
        CHECK(memcmp(o[0], o[1], (size_t)G * (size_t)F * sizeof(float)) == 0);
        CHECK(memcmp(pr[0], pr[1], 2 * (size_t)(nc[0] < 32 ? nc[0] : 32) * sizeof(float)) == 0);
        int differ = 0;
        for (size_t i = 0; i < np; i++)
            differ += memcmp(&g[0][i], &g[1][i], sizeof(float)) != 0;
        CHECK_MSG(differ == 0, "%d gradient entries differ between BLAS and the plain loops", differ);
        for (int b = 0; b < 2; b++) {
            free(g[b]);
            free(o[b]);
            free(pl[b]);
        }
    }
    hfix_done(&f);
}

/* --- sampling ----------------------------------------------------------------------------- */

TEST(hsdag_sampling)
{
    HFix f;
    HCase k = {60, 24, 60, 4, 16, HSDAG_F_FAITHFUL, 0, 0, 13};
    if (hfix_new(&f, &k) == 0) {
        HsdagNet *net = f.net;
        int G = f.in->G, F = f.in->F, n = k.n;
        int *a = XMALLOC(int, G), *b = XMALLOC(int, G);
        float *out = XMALLOC(float, (size_t)G * (size_t)F);
        HsdagWork *w = hsdag_work_new(&net->arch, f.in);
        Rng r1, r2;
        rng_seed(&r1, 77);
        rng_seed(&r2, 77);
        double la = hsdag_forward(net, f.in, f.in->xf, w, HSDAG_SAMPLE, &r1, a, NULL);
        double lb = hsdag_forward(net, f.in, f.in->xf, w, HSDAG_SAMPLE, &r2, b, NULL);
        CHECK_EXACT(la, lb);
        CHECK(memcmp(a, b, (size_t)G * sizeof *a) == 0);
        CHECK(rng_next(&r1) == rng_next(&r2));
        /* scoring the sampled placement gives its log pi */
        memcpy(b, a, (size_t)G * sizeof *b);
        CHECK_EXACT(hsdag_forward(net, f.in, f.in->xf, w, HSDAG_SCORE, NULL, b, NULL), la);
        CHECK(memcmp(a, b, (size_t)G * sizeof *a) == 0);
        int differs = 0;
        for (uint64_t s = 1; s <= 6 && !differs; s++) {
            rng_seed(&r1, 77 + s);
            hsdag_forward(net, f.in, f.in->xf, w, HSDAG_SAMPLE, &r1, b, NULL);
            differs = memcmp(a, b, (size_t)G * sizeof *a) != 0;
        }
        CHECK_MSG(differs, "six other seeds gave the same placement");
        /* greedy: the first argmax of every cluster, for all its groups */
        double lg = hsdag_forward(net, f.in, f.in->xf, w, HSDAG_GREEDY, NULL, a, out), sum = 0;
        int nc;
        const int *cl = hsdag_work_clusters(w, &nc);
        CHECK(nc >= 2 * n && nc <= G);
        for (int v = 0, top = -1; v < G; v++) {
            CHECK(cl[v] >= 0 && cl[v] < nc && cl[v] <= top + 1); /* numbered by their first groups */
            top = cl[v] > top ? cl[v] : top;
            const float *p = hsdag_work_probs(w, cl[v]);
            int first = 0;
            for (int d = 1; d < n; d++)
                first = p[d] > p[first] ? d : first;
            CHECK_INT(a[v], first);
            for (int u = 0; u < v; u++)
                if (cl[u] == cl[v])
                    CHECK(memcmp(out + (size_t)u * (size_t)F, out + (size_t)v * (size_t)F, (size_t)F * sizeof *out) ==
                          0);
        }
        for (int c = 0; c < nc; c++) {
            const float *p = hsdag_work_probs(w, c);
            float psum = 0;
            int first = -1;
            for (int v = 0; v < G && first < 0; v++)
                first = cl[v] == c ? v : -1;
            CHECK(first >= 0 && (c == 0 || first > 0));
            for (int d = 0; d < n; d++)
                psum += p[d];
            CHECK_NEAR(psum, 1, 1e-5);
            sum += log((double)p[a[first]]);
            CHECK(hsdag_work_sigma(w, c) > 0);
        }
        CHECK_NEAR(lg, sum, 1e-5 * fmax(1, fabs(lg)));
        CHECK(lg >= la - 1e-9);
        hsdag_work_free(w);
        free(a);
        free(b);
        free(out);
    }
    hfix_done(&f);
}

/* --- architecture ---------------------------------------------------------------------- */

TEST(hsdag_arch_and_params)
{
    HsdagArch a;
    hsdag_arch_default(&a, 3, 10);
    CHECK(a.hidden == 128 && a.features == HSDAG_F_FAITHFUL && a.min_clusters == 6);
    CHECK_INT(hsdag_n_inputs(&a), 11 + 1 + 1 + 2);
    a.features = HSDAG_F_PARITY;
    size_t h = 128, F = 18, n = 3;
    CHECK_INT(hsdag_n_inputs(&a), (int)F);
    /* in1, in2 (+ norms), gcn1, gcn2, norm, edge1 (+ norm), edge2, gcn3, norm, pool, out1, out2, cls1, cls2 */
    size_t want = (F * h + 3 * h) + (h * h + 3 * h) + 2 * (h * h + h) + 2 * h + (h * h + 3 * h) + (h + 1) +
                  (h * h + h) + 2 * h + 2 * (h * h + 2 * h) + (h * h + h) + (h * F + F) + (F * h + h) + (h * n + n);
    CHECK_INT(hsdag_param_count(&a), want);
    char buf[64];
    hsdag_features_name(HSDAG_F_PARITY, buf, sizeof buf);
    CHECK(strcmp(buf, "type,shape,id,struct,cost") == 0);
    hsdag_features_name(HSDAG_F_ID | HSDAG_F_COST, buf, sizeof buf);
    CHECK(strcmp(buf, "id,cost") == 0);
    CHECK_INT(hsdag_features_parse("faithful"), HSDAG_F_FAITHFUL);
    CHECK_INT(hsdag_features_parse("parity"), HSDAG_F_PARITY);
    CHECK_INT(hsdag_features_parse("cost,type"), HSDAG_F_COST | HSDAG_F_TYPE);
    const char *bad_names[] = {"", "typ", "type,", "type,,id", "shape,bogus"};
    for (size_t i = 0; i < sizeof bad_names / sizeof *bad_names; i++)
        CHECK_MSG(hsdag_features_parse(bad_names[i]) == 0, "\"%s\" parsed", bad_names[i]);
    OpVocab voc = {0, NULL};
    Err e = {{0}};
    HsdagArch bad[5];
    for (int i = 0; i < 5; i++)
        hsdag_arch_default(&bad[i], 2, 0);
    bad[0].n_devices = 0;
    bad[1].features = 0;
    bad[2].min_clusters = 0;
    bad[3].n_types = 1; /* not the vocabulary's size */
    bad[4].features = 64;
    for (int i = 0; i < 5; i++) {
        HsdagNet *net = hsdag_new(&bad[i], &voc, 1, &e);
        CHECK_MSG(net == NULL && strncmp(e.msg, "hsdag: ", 7) == 0, "arch %d accepted (%s)", i, e.msg);
        hsdag_free(net);
    }
    /* names, sizes and the start: gains 1, biases 0, matrices Glorot */
    hsdag_arch_default(&a, 2, 0);
    a.hidden = 4;
    a.features = HSDAG_F_ID;
    HsdagNet *net = hsdag_new(&a, &voc, 3, &e);
    REQUIRE_MSG(net != NULL, "%s", e.msg);
    CHECK_INT(net->p.n, hsdag_param_count(&a));
    const NnTensor *t = net->p.t;
    CHECK(strcmp(t[net->i1W].name, "in1.W") == 0 && t[net->i1W].rows == 1 && t[net->i1W].cols == 4);
    CHECK(strcmp(t[net->pog].name, "pool.post.ln.g") == 0 && strcmp(t[net->c2b].name, "cls2.b") == 0);
    CHECK(t[net->e2W].rows == 4 && t[net->e2W].cols == 1 && t[net->e2b].rows == 1 && t[net->e2b].cols == 1);
    for (int k = 0; k < net->p.n_tensors; k++) {
        const float *x = net->p.w + t[k].off;
        int gain = strstr(t[k].name, ".ln.g") != NULL, bias = !gain && (strstr(t[k].name, ".b") != NULL);
        float lim = (float)sqrt(6.0 / (t[k].rows + t[k].cols)), mx = 0;
        for (int i = 0; i < t[k].rows * t[k].cols; i++) {
            CHECK(gain ? x[i] == 1 : bias ? x[i] == 0 : fabsf(x[i]) <= lim);
            mx = fmaxf(mx, fabsf(x[i]));
        }
        CHECK_MSG(gain || bias || mx > 0, "tensor %s starts at 0", t[k].name);
        CHECK_INT(k, nn_params_find(&net->p, t[k].name));
    }
    hsdag_free(net);
}

/* --- the fixed-seed reference ------------------------------------------------------------ */

TEST(hsdag_reference)
{
    Err e = {{0}};
    Graph *g = graph_load("graphs/resnet18.json", &e);
    REQUIRE_MSG(g != NULL, "%s", e.msg);
    Grouping *gr = group_build(g, 30, &e);
    Cluster *c = cluster_load("graphs/clusters/cpu_gpu.json", &e);
    REQUIRE_MSG(gr != NULL && c != NULL, "%s", e.msg);
    OpVocab voc;
    const Graph *gs[1] = {g};
    vocab_build(&voc, gs, 1);
    HsdagArch a;
    hsdag_arch_default(&a, c->n_devices, voc.n);
    a.hidden = 16;
    a.features = HSDAG_F_PARITY;
    HsdagNet *net = hsdag_new(&a, &voc, 42, &e);
    HsdagInput *in = net ? hsdag_input_new(net, g, gr, c, &e) : NULL;
    REQUIRE_MSG(in != NULL, "%s", e.msg);
    net->blas = 0; /* the plain double loops: the same numbers on every machine */
    int G = in->G, nt = net->p.n_tensors;
    const NnParams *P = &net->p;
    double *wd = XMALLOC(double, P->n), *grad = XNEW(double, P->n), out[3], feat = 0;
    double *cls = XMALLOC(double, 2 * (size_t)G), *gsel = XMALLOC(double, 2 * (size_t)nt);
    int *place = XMALLOC(int, G);
    for (size_t i = 0; i < P->n; i++)
        wd[i] = P->w[i];
    for (size_t i = 0; i < (size_t)G * (size_t)in->F; i++)
        feat += in->xd[i] * (double)(i % 7 + 1);
    HsdagWorkD *w = hsdag_work_new_d(&a, in);
    HsdagWork *wf = hsdag_work_new(&a, in);
    Rng r;
    rng_seed(&r, 7);
    out[0] = hsdag_forward_d(net, wd, in, in->xd, w, HSDAG_GREEDY, NULL, place, NULL);
    for (int v = 0; v < G; v++)
        cls[G + v] = place[v];
    out[1] = hsdag_forward_d(net, wd, in, in->xd, w, HSDAG_SAMPLE, &r, place, NULL);
    hsdag_backward_d(net, wd, in, in->xd, w, 1.5, grad);
    /* the clusters of the float path (the double one gives the same: the same log pi) */
    double lf = hsdag_forward(net, in, in->xf, wf, HSDAG_GREEDY, NULL, place, NULL);
    CHECK_NEAR(lf, out[0], 1e-4 * fmax(1, fabs(out[0])));
    int nc;
    const int *cl = hsdag_work_clusters(wf, &nc);
    out[2] = nc;
    for (int v = 0; v < G; v++)
        cls[v] = cl[v];
    /* per tensor: its first entry and its norm */
    for (int k = 0; k < nt; k++) {
        const NnTensor *t = &P->t[k];
        double s = 0;
        for (size_t i = 0; i < (size_t)t->rows * (size_t)t->cols; i++)
            s += grad[t->off + i] * grad[t->off + i];
        gsel[2 * k] = grad[t->off];
        gsel[2 * k + 1] = sqrt(s);
    }
    if (getenv("PLACETO_UPDATE_REFERENCE")) {
        FILE *fp = fopen(REF_PATH, "w");
        CHECK(fp != NULL);
        if (fp) {
            fputs("{\n", fp);
            gradref_write_array(fp, "features_weighted_sum", &feat, 1, 0);
            gradref_write_array(fp, "log_pi_greedy_sampled_n_clusters", out, 3, 0);
            gradref_write_array(fp, "clusters_greedy_placement", cls, 2 * G, 0);
            gradref_write_array(fp, "grad_first_norm", gsel, 2 * nt, 1);
            fputs("}\n", fp);
            fclose(fp);
        }
    } else {
        cJSON *root = gradref_load(REF_PATH);
        if (root) {
            gradref_check_array(root, REF_PATH, "features_weighted_sum", &feat, 1, 1e-6, 1e-3);
            gradref_check_array(root, REF_PATH, "log_pi_greedy_sampled_n_clusters", out, 3, 1e-6, 1e-3);
            gradref_check_array(root, REF_PATH, "clusters_greedy_placement", cls, 2 * G, 1e-6, 1e-3);
            gradref_check_array(root, REF_PATH, "grad_first_norm", gsel, 2 * nt, 1e-6, 1e-3);
        }
        cJSON_Delete(root);
    }
    hsdag_work_free_d(w);
    hsdag_work_free(wf);
    free(wd);
    free(grad);
    free(cls);
    free(gsel);
    free(place);
    hsdag_input_free(in);
    hsdag_free(net);
    vocab_done(&voc);
    cluster_free(c);
    group_free(gr);
    graph_free(g);
}
