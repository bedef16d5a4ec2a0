/* The GDP placer's network (core/agent/gdp.h): the input features on a
 * hand-checkable graph; the gradient check of gdp_backward_d against
 * central differences of J = sum_v w_v log p_v(a_v) + beta sum_v H_v on
 * EVERY entry of every tensor, in double, for several small architectures
 * (one segment; several segments, so that the memory is exercised; the
 * superposition off; one and two GraphSAGE layers, one and two blocks;
 * a single group),
 * with the proof that it can fail (the same comparison must reject, for
 * each tensor, its analytic gradient with one entry scaled by 1.01 and with
 * one entry's sign flipped), and the same for the backward from given
 * logit gradients (gdp_backward_logits_d on J = sum r l); K placements
 * drawn from one forward (gdp_work_pick: the bits of K sampled forwards)
 * with one backward of their summed logit gradient equal to the K
 * backwards summed; the layer norm and the max aggregator checked
 * alone; the float path (BLAS and plain loops) against the double one;
 * sampling determinism, greedy = argmax, probabilities and attention rows
 * summing to 1; the fixed-seed reference tests/data/gdp_reference.json
 * (relative 1e-4; regenerate after an intended change with
 * PLACETO_UPDATE_REFERENCE=1 build/unit gdp_reference, and review the
 * diff). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "gdp.h"
#include "gen.h"
#include "gradref.h"
#include "test.h"

#define REF_PATH "tests/data/gdp_reference.json"
#define GRAD_TOL 1e-5
#define GRAD_FLOOR 1e-4

/* A graph grouped into about `target` groups, its vocabulary built from
 * vocab_graph (so that ops outside it map to the "other" column). */
typedef struct GFix {
    Graph *g, *vg;
    Grouping *gr;
    OpVocab voc;
    GdpInput *in;
} GFix;

static int gfix_new(GFix *f, int n_ops, int target, uint64_t seed, int vocab_ops)
{
    Err e = {{0}};
    memset(f, 0, sizeof *f);
    f->g = gen_random_dag(n_ops, 2.0, seed);
    f->vg = gen_random_dag(vocab_ops, 2.0, seed + 1);
    f->gr = group_build(f->g, target, &e);
    REQUIRE_OR(f->gr != NULL, -1, "group_build: %s", e.msg);
    const Graph *gs[1] = {f->vg};
    vocab_build(&f->voc, gs, 1);
    f->in = gdp_input_new(f->g, f->gr, &f->voc, &e);
    REQUIRE_OR(f->in != NULL, -1, "gdp_input_new: %s", e.msg);
    return 0;
}

static void gfix_done(GFix *f)
{
    gdp_input_free(f->in);
    vocab_done(&f->voc);
    group_free(f->gr);
    graph_free(f->g);
    graph_free(f->vg);
}

typedef struct GCase {
    int n, h, heads, Lg, Lp, S, sup;
} GCase;

static GdpNet *small_net(const GFix *f, const GCase *c, uint64_t seed)
{
    GdpArch a;
    gdp_arch_default(&a, c->n, f->voc.n);
    a.hidden = c->h;
    a.heads = c->heads;
    a.gnn_layers = c->Lg;
    a.blocks = c->Lp;
    a.segment = c->S;
    a.superposition = c->sup;
    Err err = {{0}};
    GdpNet *net = gdp_new(&a, &f->voc, seed, &err);
    CHECK_MSG(net != NULL, "gdp_new: %s", err.msg);
    return net;
}

/* --- inputs ----------------------------------------------------------------------- */

TEST(gdp_inputs)
{
    /* a diamond a -> b, a -> c, b -> d, c -> d and a lone e; the vocabulary
     * {Add, Conv}: b's Relu and e's MatMul are "other" */
    Graph *g = graph_new("diamond");
    int64_t by[5] = {100, 1000, 10, 0, 50};
    const char *ops[5] = {"Conv", "Relu", "Conv", "Add", "MatMul"};
    double cost[5] = {10, 20, 40, 0, 5};
    const char *names[5] = {"a", "b", "c", "d", "e"};
    for (int i = 0; i < 5; i++)
        CHECK_INT(graph_add_node(g, names[i], ops[i], cost[i], &by[i], 1), i);
    graph_add_edge(g, 0, 1, 0);
    graph_add_edge(g, 0, 2, 0);
    graph_add_edge(g, 1, 3, 0);
    graph_add_edge(g, 2, 3, 0);
    Err e = {{0}};
    REQUIRE_MSG(graph_finish(g, &e) == 0, "%s", e.msg);
    Graph *vg = graph_new("vocab");
    graph_add_node(vg, "x", "Conv", 1, NULL, 0);
    graph_add_node(vg, "y", "Add", 1, NULL, 0);
    REQUIRE_MSG(graph_finish(vg, &e) == 0, "%s", e.msg);
    OpVocab voc;
    const Graph *gs[1] = {vg};
    vocab_build(&voc, gs, 1);
    Grouping *gr = group_build(g, 5, &e);
    REQUIRE_MSG(gr != NULL, "%s", e.msg);
    GdpInput *in = gdp_input_new(g, gr, &voc, &e);
    REQUIRE_MSG(in != NULL, "%s", e.msg);
    CHECK_INT(voc.n, 2);
    CHECK_INT(in->F, 8);
    if (gr->n_groups == 5) {
        /* columns: Add, Conv, other, log1p(bytes)/max, cost/max, in/max deg, out/max deg, k/G */
        double want[5][7] = {{0, 1, 0, log1p(100), 10, 0, 2}, {0, 0, 1, log1p(1000), 20, 1, 1},
                             {0, 1, 0, log1p(10), 40, 1, 1},   {1, 0, 0, 0, 0, 2, 0},
                             {0, 0, 1, log1p(50), 5, 0, 0}};
        for (int op = 0; op < 5; op++) {
            int k = gr->op_group[op];
            const double *x = in->xd + (size_t)k * 8;
            for (int c = 0; c < 3; c++)
                CHECK_NEAR(x[c], want[op][c], 1e-15);
            CHECK_NEAR(x[3], want[op][3] / log1p(1000), 1e-15);
            CHECK_NEAR(x[4], want[op][4] / 40, 1e-15);
            CHECK_NEAR(x[5], want[op][5] / 2, 1e-15);
            CHECK_NEAR(x[6], want[op][6] / 2, 1e-15);
            CHECK_NEAR(x[7], (double)k / 5, 1e-15);
            for (int c = 0; c < 8; c++)
                CHECK(in->xf[(size_t)k * 8 + (size_t)c] == (float)x[c]);
            /* neighbours: pred then succ, sorted */
            int deg = in->nb_off[k + 1] - in->nb_off[k];
            CHECK_INT(deg, (int)(want[op][5] + want[op][6]));
            for (int q = in->nb_off[k] + 1; q < in->nb_off[k + 1]; q++)
                CHECK(in->nb[q - 1] < in->nb[q]);
        }
        int ka = gr->op_group[0], kd = gr->op_group[3];
        CHECK_INT(in->nb[in->nb_off[kd]], gr->op_group[1] < gr->op_group[2] ? gr->op_group[1] : gr->op_group[2]);
        CHECK_INT(in->nb_off[ka + 1] - in->nb_off[ka], 2);
    } else {
        CHECK_MSG(0, "the diamond was grouped into %d groups, expected 5", gr->n_groups);
    }
    gdp_input_free(in);
    group_free(gr);
    vocab_done(&voc);
    graph_free(vg);
    graph_free(g);
    /* groups of several ops: shares are count / ops, the rest "other" */
    GFix f;
    if (gfix_new(&f, 60, 8, 3, 3) == 0) {
        int T = f.voc.n, F = T + 6, other = 0;
        CHECK_INT(f.in->F, F);
        for (int k = 0; k < f.in->G; k++) {
            const double *x = f.in->xd + (size_t)k * (size_t)F;
            double sum = 0;
            for (int c = 0; c <= T; c++)
                sum += x[c];
            CHECK_NEAR(sum, 1, 1e-12);
            other += x[T] > 0;
            int nops = f.gr->member_off[k + 1] - f.gr->member_off[k], cnt = 0;
            for (int q = f.gr->member_off[k]; q < f.gr->member_off[k + 1]; q++)
                cnt += vocab_find(&f.voc, f.g->nodes[f.gr->members[q]].op) == T;
            CHECK_NEAR(x[T], (double)cnt / nops, 1e-12);
            for (int c = T + 1; c < F; c++)
                CHECK(x[c] >= 0 && x[c] <= 1);
        }
        CHECK(other > 0);
    }
    gfix_done(&f);
}

/* --- the kernels alone ------------------------------------------------------------- */

TEST(gdp_layer_norm_gradient)
{
    enum { N = 3, Hd = 6 };
    double x[N * Hd], gam[Hd], b[Hd], r[N * Hd], y[N * Hd], xh[N * Hd], sg[N];
    Rng rng;
    rng_seed(&rng, 5);
    for (int i = 0; i < N * Hd; i++) {
        x[i] = 4 * rng_uniform(&rng) - 2;
        r[i] = 2 * rng_uniform(&rng) - 1;
    }
    for (int c = 0; c < Hd; c++) {
        gam[c] = 0.5 + rng_uniform(&rng);
        b[c] = rng_uniform(&rng) - 0.5;
    }
    /* J = sum r y */
    double dx[N * Hd], dg[Hd] = {0}, db[Hd] = {0}, nx[N * Hd], ng[Hd], nb[Hd];
    gdp_layer_norm_d(N, Hd, x, gam, b, y, xh, sg);
    gdp_layer_norm_bwd_d(N, Hd, r, gam, xh, sg, dx, dg, db);
    double *vars[3] = {x, gam, b}, *nums[3] = {nx, ng, nb};
    int sizes[3] = {N * Hd, Hd, Hd};
    const double hs = 1e-6;
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < sizes[k]; i++) {
            double v0 = vars[k][i], J[2];
            for (int s = 0; s < 2; s++) {
                vars[k][i] = v0 + (s ? -hs : hs);
                gdp_layer_norm_d(N, Hd, x, gam, b, y, xh, sg);
                J[s] = 0;
                for (int j = 0; j < N * Hd; j++)
                    J[s] += r[j] * y[j];
            }
            vars[k][i] = v0;
            nums[k][i] = (J[0] - J[1]) / (2 * hs);
        }
    CHECK(gradref_check_tensor("layer norm", "x", dx, nx, N * Hd, GRAD_FLOOR, GRAD_TOL));
    CHECK(gradref_check_tensor("layer norm", "gamma", dg, ng, Hd, GRAD_FLOOR, GRAD_TOL));
    CHECK(gradref_check_tensor("layer norm", "beta", db, nb, Hd, GRAD_FLOOR, GRAD_TOL));
    /* every row of x-hat has mean 0 and variance var / (var + eps) */
    gdp_layer_norm_d(N, Hd, x, gam, b, y, xh, sg);
    for (int i = 0; i < N; i++) {
        double m = 0, v = 0;
        for (int c = 0; c < Hd; c++)
            m += xh[i * Hd + c];
        for (int c = 0; c < Hd; c++)
            v += xh[i * Hd + c] * xh[i * Hd + c];
        CHECK_NEAR(m / Hd, 0, 1e-12);
        CHECK_NEAR(v / Hd, 1 - GDP_LN_EPS / (sg[i] * sg[i]), 1e-9);
    }
}

TEST(gdp_max_aggregate_gradient)
{
    /* 5 nodes: 0 - {1, 2}, 1 - {0, 3}, 2 - {0, 3, 4}, 3 - {1, 2}, 4 - {2}, and a lone node 5 */
    enum { G = 6, Hd = 4 };
    int off[G + 1] = {0, 2, 4, 7, 9, 10, 10}, nb[10] = {1, 2, 0, 3, 0, 3, 4, 1, 2, 2};
    double P[G * Hd], M[G * Hd], r[G * Hd], dP[G * Hd] = {0}, num[G * Hd];
    int arg[G * Hd];
    Rng rng;
    rng_seed(&rng, 9);
    for (int i = 0; i < G * Hd; i++) {
        P[i] = rng_uniform(&rng);
        r[i] = 2 * rng_uniform(&rng) - 1;
    }
    gdp_max_aggregate_d(G, Hd, off, nb, P, M, arg);
    for (int c = 0; c < Hd; c++) {
        CHECK_EXACT(M[5 * Hd + c], 0);
        CHECK_INT(arg[5 * Hd + c], -1);
        CHECK_EXACT(M[4 * Hd + c], P[2 * Hd + c]);
        CHECK_EXACT(M[0 * Hd + c], fmax(P[1 * Hd + c], P[2 * Hd + c]));
    }
    gdp_max_aggregate_bwd_d(G, Hd, arg, r, dP);
    const double hs = 1e-6;
    for (int i = 0; i < G * Hd; i++) {
        double v0 = P[i], J[2];
        for (int s = 0; s < 2; s++) {
            P[i] = v0 + (s ? -hs : hs);
            gdp_max_aggregate_d(G, Hd, off, nb, P, M, arg);
            J[s] = 0;
            for (int j = 0; j < G * Hd; j++)
                J[s] += r[j] * M[j];
        }
        P[i] = v0;
        num[i] = (J[0] - J[1]) / (2 * hs);
    }
    CHECK(gradref_check_tensor("max aggregate", "P", dP, num, G * Hd, GRAD_FLOOR, GRAD_TOL));
    /* ties: the first neighbour in the list takes the gradient */
    for (int c = 0; c < Hd; c++)
        P[1 * Hd + c] = P[2 * Hd + c] = 2;
    memset(dP, 0, sizeof dP);
    gdp_max_aggregate_d(G, Hd, off, nb, P, M, arg);
    gdp_max_aggregate_bwd_d(G, Hd, arg, r, dP);
    for (int c = 0; c < Hd; c++) {
        CHECK_INT(arg[0 * Hd + c], 1);
        CHECK_INT(arg[3 * Hd + c], 1);
        CHECK_NEAR(dP[2 * Hd + c], r[4 * Hd + c], 1e-15);
    }
}

/* --- the gradient check ------------------------------------------------------------ */

typedef struct GProb {
    const GdpNet *net;
    const GdpInput *in;
    GdpWorkD *w;
    double *wd, *wt, beta;
    int *place;
} GProb;

static double objective(GProb *p)
{
    int G = p->in->G;
    double *lp = XMALLOC(double, G), *H = XMALLOC(double, G);
    gdp_forward_d(p->net, p->wd, p->in, p->w, GDP_SCORE, NULL, p->place, lp, H);
    double J = 0;
    for (int v = 0; v < G; v++)
        J += p->wt[v] * lp[v] + p->beta * H[v];
    free(lp);
    free(H);
    return J;
}

/* J = sum_{v,i} r[v,i] l[v,i] (the logits of a GDP_PROBS forward on w, the memory frozen). */
static double logit_objective(const GdpNet *net, const double *wd, const GdpInput *in, GdpWorkD *w, const double *r)
{
    gdp_forward_d(net, wd, in, w, GDP_PROBS, NULL, NULL, NULL, NULL);
    const double *l = gdp_work_logits_d(w);
    double J = 0;
    for (int i = 0; i < in->G * net->arch.n_devices; i++)
        J += r[i] * l[i];
    return J;
}

/* Checks every entry of every tensor of net on in for the placement a
 * sample of seed gives; marks the tensors with a gradient to check in
 * covered (by name, into names[*n_names]). */
static void grad_check(const char *label, const GdpNet *net, const GdpInput *in, uint64_t seed, char (*names)[32],
                       int *n_names)
{
    const NnParams *P = &net->p;
    int G = in->G;
    double *wd = XMALLOC(double, P->n), *grad = XNEW(double, P->n), *num = XMALLOC(double, P->n);
    double *wt = XMALLOC(double, G);
    int *place = XMALLOC(int, G);
    Rng r, r0;
    rng_seed(&r, seed);
    rng_seed(&r0, seed + 1000);
    /* the weights at 1.5 times Glorot (a less uniform attention), biases,
     * gains and the superposition's beta moved off their 0 and 1 */
    for (int k = 0; k < P->n_tensors; k++) {
        const NnTensor *t = &P->t[k];
        for (size_t i = t->off; i < t->off + (size_t)t->rows * (size_t)t->cols; i++)
            wd[i] = t->rows > 1 ? 1.5 * P->w[i] : P->w[i] + 0.6 * rng_uniform(&r) - 0.3;
    }
    for (int v = 0; v < G; v++)
        wt[v] = 2 * rng_uniform(&r) - 1;
    GdpWorkD *w = gdp_work_new_d(&net->arch, G);
    GProb p = {net, in, w, wd, wt, 0.3, place};
    gdp_forward_d(net, wd, in, w, GDP_SAMPLE, &r, place, NULL, NULL);
    gdp_work_freeze_memory_d(w, 1); /* the memory is a constant to the gradient */
    double J0 = objective(&p);
    gdp_backward_d(net, wd, in, w, wt, p.beta, grad);
    double floor = GRAD_FLOOR * fmax(1, fabs(J0));
    const double hstep = 1e-6;
    for (size_t i = 0; i < P->n; i++) {
        double w0 = wd[i];
        wd[i] = w0 + hstep;
        double jp = objective(&p);
        wd[i] = w0 - hstep;
        double jm = objective(&p);
        wd[i] = w0;
        num[i] = (jp - jm) / (2 * hstep);
    }
    for (int k = 0; k < P->n_tensors; k++) {
        const NnTensor *t = &P->t[k];
        size_t m = (size_t)t->rows * (size_t)t->cols;
        if (gradref_check_tensor(label, t->name, grad + t->off, num + t->off, m, floor, GRAD_TOL)) {
            int known = 0;
            for (int j = 0; j < *n_names; j++)
                known |= strcmp(names[j], t->name) == 0;
            if (!known && *n_names < 64)
                snprintf(names[(*n_names)++], 32, "%s", t->name);
        }
    }
    if (getenv("TEST_VERBOSE"))
        fprintf(stderr, "  %s: %zu entries checked, J = %g\n", label, P->n, J0);
    /* gdp_backward_logits_d: the gradient of J = sum_{v,i} r[v,i] l[v,i] from dJ/dlogits = r */
    int n = net->arch.n_devices;
    double *rl = XMALLOC(double, (size_t)G * (size_t)n);
    for (int i = 0; i < G * n; i++)
        rl[i] = 2 * rng_uniform(&r0) - 1;
    memset(grad, 0, P->n * sizeof *grad);
    gdp_forward_d(net, wd, in, w, GDP_PROBS, NULL, NULL, NULL, NULL);
    double L0 = logit_objective(net, wd, in, w, rl);
    gdp_backward_logits_d(net, wd, in, w, rl, grad);
    for (size_t i = 0; i < P->n; i++) {
        double w0 = wd[i];
        wd[i] = w0 + hstep;
        double jp = logit_objective(net, wd, in, w, rl);
        wd[i] = w0 - hstep;
        double jm = logit_objective(net, wd, in, w, rl);
        wd[i] = w0;
        num[i] = (jp - jm) / (2 * hstep);
    }
    char llabel[128];
    snprintf(llabel, sizeof llabel, "%s (from the logits)", label);
    int nonzero = 0;
    for (int k = 0; k < P->n_tensors; k++) {
        const NnTensor *t = &P->t[k];
        nonzero += gradref_check_tensor(llabel, t->name, grad + t->off, num + t->off,
                                        (size_t)t->rows * (size_t)t->cols, GRAD_FLOOR * fmax(1, fabs(L0)), GRAD_TOL);
    }
    CHECK_MSG(nonzero > 0, "%s: no tensor had a gradient", llabel);
    free(rl);
    gdp_work_free_d(w);
    free(wd);
    free(grad);
    free(num);
    free(wt);
    free(place);
}

TEST(gdp_gradient_check)
{
    struct {
        int ops, target, vocab_ops;
        GCase c;
        uint64_t seed;
    } cases[] = {
        /* G = 6, one segment, superposition, two GraphSAGE layers */
        {14, 6, 5, {2, 8, 2, 2, 1, 256, 1}, 1},
        /* G = 9, segments of 4 (the memory), two blocks, one GraphSAGE layer */
        {20, 9, 8, {3, 8, 2, 1, 2, 4, 1}, 2},
        /* G = 7, segments of 3, no superposition, one head */
        {16, 7, 6, {2, 4, 1, 2, 1, 3, 0}, 3},
        /* one group: no neighbours, one key */
        {3, 1, 3, {2, 4, 2, 1, 1, 256, 1}, 4},
    };
    char names[64][32];
    int n_names = 0;
    char all[64][32];
    int n_all = 0;
    char label[96];
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        GFix f;
        if (gfix_new(&f, cases[c].ops, cases[c].target, cases[c].seed, cases[c].vocab_ops) == 0) {
            CHECK_INT(f.gr->n_groups, cases[c].target);
            GdpNet *net = small_net(&f, &cases[c].c, 40 + cases[c].seed);
            if (net) {
                const GCase *k = &cases[c].c;
                snprintf(label, sizeof label, "G=%d n=%d h=%d H=%d Lg=%d Lp=%d S=%d sup=%d T=%d", f.gr->n_groups,
                         k->n, k->h, k->heads, k->Lg, k->Lp, k->S, k->sup, f.voc.n);
                net->blas = c % 2 ? 0 : 1;
                grad_check(label, net, f.in, 100 + cases[c].seed, names, &n_names);
                for (int t = 0; t < net->p.n_tensors; t++) {
                    int known = 0;
                    for (int j = 0; j < n_all; j++)
                        known |= strcmp(all[j], net->p.t[t].name) == 0;
                    if (!known && n_all < 64)
                        snprintf(all[n_all++], 32, "%s", net->p.t[t].name);
                }
            }
            gdp_free(net);
        }
        gfix_done(&f);
    }
    /* every tensor (by name) had a nonzero gradient in some case */
    CHECK(n_all >= 30);
    for (int j = 0; j < n_all; j++) {
        int seen = 0;
        for (int i = 0; i < n_names; i++)
            seen |= strcmp(names[i], all[j]) == 0;
        CHECK_MSG(seen, "tensor %s: no case checked a nonzero gradient", all[j]);
    }
}

/* Freezing the memory only matters with several segments: with one, the
 * frozen forward is the ordinary one, and with several the ordinary
 * gradient differs from the full derivative (the memory's share is cut). */
TEST(gdp_memory_stop_gradient)
{
    GFix f;
    if (gfix_new(&f, 20, 9, 2, 8) == 0) {
        GCase c = {2, 8, 2, 1, 1, 4, 1};
        GdpNet *net = small_net(&f, &c, 7);
        if (net) {
            int G = f.in->G;
            GdpWorkD *w = gdp_work_new_d(&net->arch, G);
            double *wd = XMALLOC(double, net->p.n);
            for (size_t i = 0; i < net->p.n; i++)
                wd[i] = net->p.w[i];
            int *place = XMALLOC(int, G);
            Rng r;
            rng_seed(&r, 3);
            double l0 = gdp_forward_d(net, wd, f.in, w, GDP_SAMPLE, &r, place, NULL, NULL);
            gdp_work_freeze_memory_d(w, 1);
            double l1 = gdp_forward_d(net, wd, f.in, w, GDP_SCORE, NULL, place, NULL, NULL);
            CHECK_NEAR(l1, l0, 1e-12 * fmax(1, fabs(l0)));
            /* moving the input weights moves the frozen forward less than the free one */
            size_t at = net->p.t[nn_params_find(&net->p, "in.W")].off;
            wd[at] += 0.5;
            double lf = gdp_forward_d(net, wd, f.in, w, GDP_SCORE, NULL, place, NULL, NULL);
            gdp_work_freeze_memory_d(w, 0);
            double lu = gdp_forward_d(net, wd, f.in, w, GDP_SCORE, NULL, place, NULL, NULL);
            CHECK_MSG(lf != lu, "the frozen memory changed nothing (%.17g)", lf);
            gdp_work_free_d(w);
            free(wd);
            free(place);
        }
        gdp_free(net);
    }
    gfix_done(&f);
}

/* --- K placements from one forward ----------------------------------------------------- */

/* K placements of one graph: gdp_work_pick after one forward draws the same
 * bits as K sampled forwards (each with its own stream); gdp_logit_grad_d +
 * gdp_backward_logits_d (one backward) equals the sum of the K placements'
 * gdp_backward_d in double (to rounding), and the float twins the double
 * ones; for the memory crossed and not. */
TEST(gdp_k_placements_one_backward)
{
    GFix f;
    if (gfix_new(&f, 40, 14, 11, 30) == 0) {
        GCase cases[2] = {{3, 8, 2, 2, 1, 5, 1}, {2, 8, 2, 1, 2, 256, 0}};
        for (int c = 0; c < 2; c++) {
            GdpNet *net = small_net(&f, &cases[c], 20 + (uint64_t)c);
            if (!net)
                continue;
            enum { K = 4 };
            int G = f.in->G, n = net->arch.n_devices;
            const NnParams *P = &net->p;
            double *wd = XMALLOC(double, P->n), *gsum = XNEW(double, P->n), *gone = XNEW(double, P->n);
            double *dl = XMALLOC(double, (size_t)G * (size_t)n);
            float *gf = XNEW(float, P->n), *dlf = XMALLOC(float, (size_t)G * (size_t)n);
            int *pl[K], *pf = XMALLOC(int, G);
            double *wt[K], *lp = XMALLOC(double, G), *lpf = XMALLOC(double, G), *en = XMALLOC(double, G),
                   *enf = XMALLOC(double, G);
            for (size_t i = 0; i < P->n; i++)
                wd[i] = P->w[i];
            GdpWork *w = gdp_work_new(&net->arch, G), *w1 = gdp_work_new(&net->arch, G);
            GdpWorkD *wdk = gdp_work_new_d(&net->arch, G);
            gdp_forward(net, f.in, w, GDP_PROBS, NULL, NULL, NULL, NULL);
            for (int k = 0; k < K; k++) {
                pl[k] = XMALLOC(int, G);
                wt[k] = XMALLOC(double, G);
                Rng r1, r2;
                rng_seed(&r1, 100 + (uint64_t)k);
                rng_seed(&r2, 100 + (uint64_t)k);
                double a = gdp_work_pick(w, GDP_SAMPLE, &r1, pl[k], lp, en);
                double b = gdp_forward(net, f.in, w1, GDP_SAMPLE, &r2, pf, lpf, enf);
                CHECK(a == b);
                CHECK(memcmp(pl[k], pf, (size_t)G * sizeof *pf) == 0);
                CHECK(memcmp(lp, lpf, (size_t)G * sizeof *lp) == 0);
                CHECK(memcmp(en, enf, (size_t)G * sizeof *en) == 0);
                CHECK(memcmp(&r1, &r2, sizeof r1) == 0);
                for (int v = 0; v < G; v++)
                    wt[k][v] = (v + k) % 3 ? 0.3 * (k + 1) : -0.7;
            }
            /* greedy and score picks as the forward's own */
            int *pg = XMALLOC(int, G);
            double a = gdp_work_pick(w, GDP_GREEDY, NULL, pg, lp, NULL);
            CHECK(a == gdp_forward(net, f.in, w1, GDP_GREEDY, NULL, pf, lpf, NULL));
            CHECK(memcmp(pg, pf, (size_t)G * sizeof *pf) == 0 && memcmp(lp, lpf, (size_t)G * sizeof *lp) == 0);
            CHECK(a == gdp_work_pick(w, GDP_SCORE, NULL, pg, NULL, NULL));
            free(pg);
            /* double: one backward of the summed logit gradient = the K backwards summed */
            const double beta = 0.07;
            for (int k = 0; k < K; k++) {
                gdp_forward_d(net, wd, f.in, wdk, GDP_SCORE, NULL, pl[k], NULL, NULL);
                gdp_backward_d(net, wd, f.in, wdk, wt[k], beta, gsum);
            }
            gdp_forward_d(net, wd, f.in, wdk, GDP_PROBS, NULL, NULL, NULL, NULL);
            gdp_logit_grad_d(wdk, K, (const int *const *)pl, (const double *const *)wt, beta, dl);
            gdp_backward_logits_d(net, wd, f.in, wdk, dl, gone);
            double mx = 0, err = 0;
            for (size_t i = 0; i < P->n; i++) {
                mx = fmax(mx, fabs(gsum[i]));
                err = fmax(err, fabs(gsum[i] - gone[i]));
            }
            CHECK_MSG(mx > 0 && err <= 1e-12 * mx, "case %d: one backward of K differs by %g (max %g)", c, err, mx);
            /* float: the same logit gradient and backward as the double ones */
            gdp_logit_grad(w, K, (const int *const *)pl, (const double *const *)wt, beta, dlf);
            size_t off = 0;
            for (int i = 0; i < G * n; i++)
                off += fabs((double)dlf[i] - dl[i]) > 1e-5 * (1 + fabs(dl[i]));
            CHECK_MSG(off == 0, "case %d: %zu logit gradients differ from double", c, off);
            gdp_backward_logits(net, f.in, w, dlf, gf);
            CHECK_MSG(gradref_float_off(gf, gone, P->n, 1e-3) == 0, "case %d: float backward of K differs", c);
            for (int k = 0; k < K; k++) {
                free(pl[k]);
                free(wt[k]);
            }
            gdp_work_free(w);
            gdp_work_free(w1);
            gdp_work_free_d(wdk);
            free(wd);
            free(gsum);
            free(gone);
            free(dl);
            free(gf);
            free(dlf);
            free(pf);
            free(lp);
            free(lpf);
            free(en);
            free(enf);
            gdp_free(net);
        }
    }
    gfix_done(&f);
}

/* --- float against double ---------------------------------------------------------- */

TEST(gdp_float_matches_double)
{
    GFix f;
    if (gfix_new(&f, 60, 20, 7, 60) == 0) {
        GCase c = {3, 16, 4, 2, 2, 8, 1};
        GdpNet *net = small_net(&f, &c, 9);
        if (net) {
            int G = f.in->G;
            const NnParams *P = &net->p;
            double *wd = XMALLOC(double, P->n), *gd = XNEW(double, P->n), *wt = XMALLOC(double, G);
            float *gf = XNEW(float, P->n);
            int *place = XMALLOC(int, G), *pd = XMALLOC(int, G);
            for (size_t i = 0; i < P->n; i++)
                wd[i] = P->w[i];
            for (int v = 0; v < G; v++)
                wt[v] = v % 3 ? 0.5 : -1;
            for (int blas = 0; blas < 2; blas++) {
                net->blas = blas;
                GdpWork *w = gdp_work_new(&net->arch, G);
                GdpWorkD *w2 = gdp_work_new_d(&net->arch, G);
                Rng r;
                rng_seed(&r, 5);
                double lf = gdp_forward(net, f.in, w, GDP_SAMPLE, &r, place, NULL, NULL);
                memcpy(pd, place, (size_t)G * sizeof *pd);
                double ld = gdp_forward_d(net, wd, f.in, w2, GDP_SCORE, NULL, pd, NULL, NULL);
                CHECK_MSG(fabs(lf - ld) <= 1e-4 * fmax(1, fabs(ld)), "blas %d: log pi %.9g (float), %.9g (double)",
                          blas, lf, ld);
                memset(gf, 0, P->n * sizeof *gf);
                memset(gd, 0, P->n * sizeof *gd);
                gdp_backward(net, f.in, w, wt, 0.05, gf);
                gdp_backward_d(net, wd, f.in, w2, wt, 0.05, gd);
                size_t off = gradref_float_off(gf, gd, P->n, 1e-3);
                CHECK_MSG(off == 0, "blas %d: %zu gradient entries differ from double", blas, off);
                gdp_work_free(w);
                gdp_work_free_d(w2);
            }
            free(wd);
            free(gd);
            free(gf);
            free(wt);
            free(place);
            free(pd);
        }
        gdp_free(net);
    }
    gfix_done(&f);
}

/* --- sampling ------------------------------------------------------------------------- */

TEST(gdp_sampling)
{
    GFix f;
    if (gfix_new(&f, 60, 20, 11, 60) == 0) {
        enum { N = 4 };
        GCase c = {N, 16, 4, 2, 2, 6, 1};
        GdpNet *net = small_net(&f, &c, 12);
        if (net) {
            int G = f.in->G;
            int *a = XMALLOC(int, G), *b = XMALLOC(int, G);
            double *lpa = XMALLOC(double, G), *lpb = XMALLOC(double, G), *ent = XMALLOC(double, G);
            /* a work space larger than the graph */
            GdpWork *w = gdp_work_new(&net->arch, G + 5);
            Rng r1, r2;
            rng_seed(&r1, 77);
            rng_seed(&r2, 77);
            double la = gdp_forward(net, f.in, w, GDP_SAMPLE, &r1, a, lpa, NULL);
            double lb = gdp_forward(net, f.in, w, GDP_SAMPLE, &r2, b, lpb, NULL);
            CHECK_EXACT(la, lb);
            CHECK(memcmp(a, b, (size_t)G * sizeof *a) == 0);
            double ls = gdp_forward(net, f.in, w, GDP_SCORE, NULL, a, lpb, ent);
            CHECK_EXACT(ls, la);
            double sum = 0;
            for (int v = 0; v < G; v++)
                sum += lpb[v];
            CHECK_NEAR(sum, la, 1e-9 * fmax(1, fabs(la)));
            int differs = 0;
            for (uint64_t s = 1; s <= 4 && !differs; s++) {
                rng_seed(&r1, 77 + s);
                gdp_forward(net, f.in, w, GDP_SAMPLE, &r1, b, NULL, NULL);
                differs = memcmp(a, b, (size_t)G * sizeof *a) != 0;
            }
            CHECK_MSG(differs, "four other seeds gave the same placement");
            double lg = gdp_forward(net, f.in, w, GDP_GREEDY, NULL, a, lpa, ent);
            for (int v = 0; v < G; v++) {
                const float *p = gdp_work_probs(w, v);
                float psum = 0;
                double H = 0;
                int first = 0;
                for (int d = 0; d < N; d++) {
                    CHECK(p[a[v]] >= p[d]);
                    psum += p[d];
                    H -= (double)p[d] * log((double)p[d]);
                    if (p[d] > p[first])
                        first = d;
                }
                CHECK_INT(a[v], first);
                CHECK_NEAR(psum, 1, 1e-5);
                CHECK_NEAR(lpa[v], log(p[a[v]]), 1e-5);
                CHECK_NEAR(ent[v], H, 1e-5);
                for (int l = 0; l < 2; l++)
                    for (int hd = 0; hd < 4; hd++) {
                        int k0, nk;
                        const float *al = gdp_work_attention(w, l, hd, v, &k0, &nk);
                        int start = v / 6 * 6;
                        CHECK_INT(k0, start ? start - 6 : 0);
                        CHECK_INT(nk, (start + 6 < G ? start + 6 : G) - k0);
                        float asum = 0;
                        for (int j = 0; j < nk; j++)
                            asum += al[j];
                        CHECK_NEAR(asum, 1, 1e-5);
                    }
            }
            CHECK(lg >= la - 1e-9);
            gdp_work_free(w);
            free(a);
            free(b);
            free(lpa);
            free(lpb);
            free(ent);
        }
        gdp_free(net);
    }
    gfix_done(&f);
}

/* --- the fixed-seed reference ------------------------------------------------------------ */

TEST(gdp_reference)
{
    GFix f;
    if (gfix_new(&f, 40, 12, 5, 40) == 0) {
        GCase c = {3, 16, 4, 2, 1, 8, 1};
        GdpNet *net = small_net(&f, &c, 42);
        if (net) {
            int G = f.in->G, nt = net->p.n_tensors;
            int *place = XMALLOC(int, G);
            double *wt = XMALLOC(double, G), *lp = XMALLOC(double, 2 * G), *gplace = XMALLOC(double, 2 * G);
            double *norms = XMALLOC(double, nt), out[2];
            GdpWork *w = gdp_work_new(&net->arch, G);
            Rng r;
            rng_seed(&r, 7);
            out[0] = gdp_forward(net, f.in, w, GDP_GREEDY, NULL, place, lp, NULL);
            for (int v = 0; v < G; v++)
                gplace[v] = place[v];
            out[1] = gdp_forward(net, f.in, w, GDP_SAMPLE, &r, place, lp + G, NULL);
            for (int v = 0; v < G; v++) {
                gplace[G + v] = place[v];
                wt[v] = 1 + 0.1 * v;
            }
            nn_params_zero_grad(&net->p);
            gdp_backward(net, f.in, w, wt, 0.01, net->p.g);
            for (int k = 0; k < nt; k++) {
                const NnTensor *t = &net->p.t[k];
                double s = 0;
                for (size_t i = 0; i < (size_t)t->rows * (size_t)t->cols; i++)
                    s += (double)net->p.g[t->off + i] * (double)net->p.g[t->off + i];
                norms[k] = sqrt(s);
            }
            if (getenv("PLACETO_UPDATE_REFERENCE")) {
                FILE *fp = fopen(REF_PATH, "w");
                CHECK(fp != NULL);
                if (fp) {
                    fputs("{\n", fp);
                    gradref_write_array(fp, "log_pi_greedy_sampled", out, 2, 0);
                    gradref_write_array(fp, "log_p_greedy_sampled", lp, 2 * G, 0);
                    gradref_write_array(fp, "placements_greedy_sampled", gplace, 2 * G, 0);
                    gradref_write_array(fp, "grad_norms", norms, nt, 1);
                    fputs("}\n", fp);
                    fclose(fp);
                }
            } else {
                cJSON *root = gradref_load(REF_PATH);
                if (root) {
                    gradref_check_array(root, REF_PATH, "log_pi_greedy_sampled", out, 2, 1e-4, 1e-3);
                    gradref_check_array(root, REF_PATH, "log_p_greedy_sampled", lp, 2 * G, 1e-4, 1e-3);
                    gradref_check_array(root, REF_PATH, "placements_greedy_sampled", gplace, 2 * G, 1e-4, 1e-3);
                    gradref_check_array(root, REF_PATH, "grad_norms", norms, nt, 1e-4, 1e-3);
                }
                cJSON_Delete(root);
            }
            gdp_work_free(w);
            free(place);
            free(wt);
            free(lp);
            free(gplace);
            free(norms);
        }
        gdp_free(net);
    }
    gfix_done(&f);
}

/* --- architecture and work spaces ---------------------------------------------------- */

TEST(gdp_arch_and_work_space)
{
    GFix f;
    if (gfix_new(&f, 50, 15, 13, 50) == 0) {
        int T = f.voc.n, G = f.in->G;
        GdpArch a;
        gdp_arch_default(&a, 2, T);
        /* the parameter count: projection, GraphSAGE, superposition, block, head */
        size_t h = 128, F = (size_t)T + 6;
        size_t want = F * h + h + 2 * (h * h + h + 2 * h * h + h) + (h * h + h) +
                      (4 * h * h + 4 * h + h * 4 * h + 4 * h + 4 * h * h + h) + h * 2 + 2;
        CHECK_INT(gdp_param_count(&a), want);
        a.superposition = 0;
        CHECK_INT(gdp_param_count(&a), want - h * h - h);
        Err e = {{0}};
        GdpArch bad[5];
        for (int i = 0; i < 5; i++)
            gdp_arch_default(&bad[i], 2, T);
        bad[0].heads = 3;            /* does not divide 128 */
        bad[1].n_devices = 0;
        bad[2].n_types = T + 1;      /* not the vocabulary's size */
        bad[3].blocks = 0;
        bad[4].segment = 0;
        for (int i = 0; i < 5; i++) {
            GdpNet *net = gdp_new(&bad[i], &f.voc, 1, &e);
            CHECK_MSG(net == NULL && strncmp(e.msg, "gdp: ", 5) == 0, "arch %d accepted (%s)", i, e.msg);
            gdp_free(net);
        }
        /* a larger work space gives the same placement and log-probabilities */
        GCase c = {3, 16, 4, 2, 1, 4, 1};
        GdpNet *net = small_net(&f, &c, 3);
        if (net) {
            CHECK_INT(net->p.n, gdp_param_count(&net->arch));
            GdpWork *w1 = gdp_work_new(&net->arch, G), *w2 = gdp_work_new(&net->arch, 3 * G);
            int *p1 = XMALLOC(int, G), *p2 = XMALLOC(int, G);
            double *l1 = XMALLOC(double, G), *l2 = XMALLOC(double, G);
            Rng r1, r2;
            rng_seed(&r1, 4);
            rng_seed(&r2, 4);
            double a1 = gdp_forward(net, f.in, w1, GDP_SAMPLE, &r1, p1, l1, NULL);
            double a2 = gdp_forward(net, f.in, w2, GDP_SAMPLE, &r2, p2, l2, NULL);
            CHECK_NEAR(a1, a2, 1e-5 * fmax(1, fabs(a1)));
            CHECK(memcmp(p1, p2, (size_t)G * sizeof *p1) == 0);
            for (int v = 0; v < G; v++)
                CHECK_NEAR(l1[v], l2[v], 1e-5);
            gdp_work_free(w1);
            gdp_work_free(w2);
            free(p1);
            free(p2);
            free(l1);
            free(l2);
        }
        gdp_free(net);
    }
    gfix_done(&f);
}
