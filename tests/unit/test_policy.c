/* policy: the Placeto policy network of core/policy.h.
 *
 * - PolicyGraph: parent/child CSR equal to the grouping's pred/succ, and
 *   ancestor/descendant bit sets equal to brute-force reachability on random
 *   DAGs (one and several 64-bit words per row, and a coarse grouping).
 * - policy_new: the default architecture, the parameter count the spec's
 *   layer shapes give, named tensors, determinism, rejected architectures.
 * - forward: normalised probabilities, BLAS = plain loops, float = double,
 *   determinism, work-space reuse.
 * - the gradient check (docs/agent.md, "Network"): policy_backward_d against
 *   central differences of L = sum_j c_j logits_j on every parameter tensor,
 *   in double, on small random graphs, with the default and reduced rounds,
 *   d = F and d != F; entries that straddle a ReLU kink are skipped (rule at
 *   grad_check). The check proves it can fail: the same comparison with the
 *   analytic gradient scaled by 1.01 must fail on every tensor.
 * - float backward = double backward; backward accumulates (+=).
 * - edge cases: a source, a sink, an isolated node, a one-node graph. */
#include <stdlib.h>

#include "gen.h"
#include "graph.h"
#include "group.h"
#include "policy.h"
#include "test.h"
#include "util.h"

/* --- fixtures ------------------------------------------------------------ */

typedef struct Fix {
    Graph *g;
    Grouping *gr;
    PolicyGraph *pg;
} Fix;

/* Groups g (every op its own group up to 200 ops, or down to target) and
 * builds its PolicyGraph; takes ownership of g. Returns 0 on success. */
static int fix_from_graph(Fix *f, Graph *g, int target)
{
    Err e = {{0}};
    f->g = g;
    f->gr = g ? group_build(g, target, &e) : NULL;
    f->pg = f->gr ? policy_graph_new(f->gr, &e) : NULL;
    CHECK_MSG(f->pg != NULL, "fixture: %s", e.msg);
    return f->pg ? 0 : -1;
}

/* A graph of n ops "n0".. with the given edges. */
static Graph *make_graph(int n, const int (*edges)[2], int m)
{
    Graph *g = graph_new("policy_test");
    char name[16];
    for (int i = 0; i < n; i++) {
        int64_t bytes = 1000 * (int64_t)(i + 1);
        snprintf(name, sizeof name, "n%d", i);
        graph_add_node(g, name, "op", 10.0 * (i + 1), &bytes, 1);
    }
    for (int j = 0; j < m; j++)
        graph_add_edge(g, edges[j][0], edges[j][1], 0);
    Err e = {{0}};
    if (graph_finish(g, &e) != 0) {
        test_fail(__FILE__, __LINE__, "make_graph: %s", e.msg);
        graph_free(g);
        return NULL;
    }
    return g;
}

static void fix_done(Fix *f)
{
    policy_graph_free(f->pg);
    group_free(f->gr);
    graph_free(f->g);
}

/* Features as the environment would give them: cost, bytes, visits and start
 * in [0, 1), the current-node flag on v, a valid one-hot device per node, the
 * optional memory column in [0, 1). */
static void make_feats(Rng *r, const PolicyArch *a, int n, int v, double *fd, float *ff)
{
    int F = a->n_features;
    for (int i = 0; i < n; i++) {
        double *row = fd + (size_t)i * (size_t)F;
        for (int c = 0; c < F; c++)
            row[c] = 0;
        row[POLICY_F_COST] = rng_uniform(r);
        row[POLICY_F_BYTES] = rng_uniform(r);
        row[POLICY_F_VISITS] = (double)rng_below(r, 3);
        row[POLICY_F_CURRENT] = i == v;
        row[POLICY_F_START] = rng_uniform(r);
        row[POLICY_F_DEVICE + (int)rng_below(r, (uint64_t)a->n_devices)] = 1;
        if (a->mem_feature)
            row[POLICY_F_DEVICE + a->n_devices] = rng_uniform(r);
    }
    if (ff)
        for (size_t q = 0; q < (size_t)n * (size_t)F; q++)
            ff[q] = (float)fd[q];
}

/* The parameter count of docs/agent.md, "Network": T F->d->d->d; per
 * direction f, g each d->d->d; per pooled set f, g each 2d->2d->2d; head
 * 8d->16d->8d->D; every layer with a bias. */
static size_t spec_param_count(const PolicyArch *a)
{
    size_t F = (size_t)a->n_features, d = (size_t)a->d, d2 = 2 * d, D = (size_t)a->n_devices;
    size_t t = F * d + d + 2 * (d * d + d);
    size_t mp = 2 * 4 * (d * d + d);
    size_t pool = 3 * 4 * (d2 * d2 + d2);
    size_t head = 8 * d * 16 * d + 16 * d + 16 * d * 8 * d + 8 * d + 8 * d * D + D;
    return t + mp + pool + head;
}

/* Sets every bias (tensors with one row) to uniform values in [-0.1, 0.1),
 * in float and in the double copy: zero biases would put pre-activations at
 * exactly 0 (on empty pooled sets), a ReLU kink at the point of the check. */
static void randomize_biases(Policy *pol, double *wd, uint64_t seed)
{
    Rng r;
    rng_seed(&r, seed);
    for (int k = 0; k < pol->p.n_tensors; k++) {
        const NnTensor *t = &pol->p.t[k];
        if (t->rows > 1)
            continue;
        for (size_t i = 0; i < (size_t)t->cols; i++) {
            float b = (float)(0.2 * rng_uniform(&r) - 0.1);
            pol->p.w[t->off + i] = b;
            if (wd)
                wd[t->off + i] = b;
        }
    }
}

static double *weights_d(const Policy *pol)
{
    double *wd = XMALLOC(double, pol->p.n);
    for (size_t i = 0; i < pol->p.n; i++)
        wd[i] = pol->p.w[i];
    return wd;
}

static Policy *new_policy(const PolicyArch *a, uint64_t seed)
{
    Err e = {{0}};
    Policy *pol = policy_new(a, seed, &e);
    CHECK_MSG(pol != NULL, "policy_new: %s", e.msg);
    return pol;
}

/* --- PolicyGraph --------------------------------------------------------- */

/* reach[i * n + j] = 1 when j is reachable from i along succ (j != i). */
static unsigned char *brute_reach(const Grouping *gr)
{
    int n = gr->n_groups;
    unsigned char *reach = XNEW(unsigned char, xmul((size_t)n, (size_t)n));
    int *stack = XMALLOC(int, n + 1); /* s, and each group once */
    for (int s = 0; s < n; s++) {
        unsigned char *row = reach + (size_t)s * (size_t)n;
        int top = 0;
        stack[top++] = s;
        while (top) {
            int u = stack[--top];
            for (int q = gr->succ_off[u]; q < gr->succ_off[u + 1]; q++) {
                int c = gr->succ[q];
                if (!row[c]) {
                    row[c] = 1;
                    stack[top++] = c;
                }
            }
        }
    }
    free(stack);
    return reach;
}

/* Compares pg with gr; returns the number of mismatches (the first few
 * reported with label). */
static int check_policy_graph(const PolicyGraph *pg, const Grouping *gr, const char *label)
{
    int n = gr->n_groups, bad = 0;
    if (pg->n != n) {
        test_fail(__FILE__, __LINE__, "%s: pg->n %d, groups %d", label, pg->n, n);
        return 1;
    }
    CHECK_MSG(pg->words == (n + 63) / 64 || (pg->words >= (n + 63) / 64 && n == 0),
              "%s: words %d for %d nodes", label, pg->words, n);
    for (int i = 0; i <= n; i++) {
        bad += pg->par_off[i] != gr->pred_off[i];
        bad += pg->ch_off[i] != gr->succ_off[i];
    }
    if (bad) {
        test_fail(__FILE__, __LINE__, "%s: CSR offsets differ from the grouping's", label);
        return bad;
    }
    for (int q = 0; q < gr->pred_off[n]; q++)
        bad += pg->par[q] != gr->pred[q];
    for (int q = 0; q < gr->succ_off[n]; q++)
        bad += pg->ch[q] != gr->succ[q];
    CHECK_MSG(bad == 0, "%s: %d CSR neighbours differ from the grouping's", label, bad);
    unsigned char *reach = brute_reach(gr);
    int bits_bad = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            int want_desc = reach[(size_t)i * (size_t)n + (size_t)j];
            int want_anc = reach[(size_t)j * (size_t)n + (size_t)i];
            int got_desc = policy_graph_is_desc(pg, i, j), got_anc = policy_graph_is_anc(pg, i, j);
            if (got_desc != want_desc || got_anc != want_anc) {
                if (bits_bad++ < 3)
                    test_fail(__FILE__, __LINE__,
                              "%s: node %d, other %d: anc %d (want %d), desc %d (want %d)", label,
                              i, j, got_anc, want_anc, got_desc, want_desc);
            }
        }
    for (int i = 0; i < n; i++)
        CHECK_MSG(!policy_graph_is_anc(pg, i, i) && !policy_graph_is_desc(pg, i, i),
                  "%s: node %d is its own ancestor or descendant", label, i);
    free(reach);
    return bad + bits_bad;
}

TEST(policy_graph_matches_grouping)
{
    static const int SIZES[] = {1, 2, 7, 30, 64, 65, 130};
    static const double DEG[] = {0.5, 1.5, 3};
    char label[64];
    for (int si = 0; si < 7; si++)
        for (int di = 0; di < 3; di++)
            for (uint64_t seed = 1; seed <= 2; seed++) {
                Fix f;
                if (fix_from_graph(&f, gen_random_dag(SIZES[si], DEG[di], seed), 0) == 0) {
                    snprintf(label, sizeof label, "n=%d deg=%g seed=%d", SIZES[si], DEG[di],
                             (int)seed);
                    CHECK_INT(f.gr->n_groups, SIZES[si]);
                    check_policy_graph(f.pg, f.gr, label);
                }
                fix_done(&f);
            }
    /* a coarse grouping: the group graph, not the op graph */
    for (uint64_t seed = 1; seed <= 3; seed++) {
        Fix f;
        if (fix_from_graph(&f, gen_random_dag(90, 2, seed), 12) == 0) {
            snprintf(label, sizeof label, "90 ops in %d groups, seed %d", f.gr->n_groups, (int)seed);
            CHECK(f.gr->n_groups < 90);
            check_policy_graph(f.pg, f.gr, label);
        }
        fix_done(&f);
    }
    /* a diamond with an isolated node: exact sets */
    static const int E[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
    Fix f;
    if (fix_from_graph(&f, make_graph(5, E, 4), 0) == 0) {
        check_policy_graph(f.pg, f.gr, "diamond");
        int g0 = group_find(f.gr, "n0"), g3 = group_find(f.gr, "n3"), g1 = group_find(f.gr, "n1");
        int g2 = group_find(f.gr, "n2"), g4 = group_find(f.gr, "n4");
        CHECK(policy_graph_is_anc(f.pg, g3, g0) && policy_graph_is_desc(f.pg, g0, g3));
        CHECK(!policy_graph_is_anc(f.pg, g2, g1) && !policy_graph_is_desc(f.pg, g2, g1));
        for (int j = 0; j < 5; j++)
            CHECK(!policy_graph_is_anc(f.pg, g4, j) && !policy_graph_is_desc(f.pg, g4, j));
    }
    fix_done(&f);
}

/* --- construction -------------------------------------------------------- */

TEST(policy_new_default_arch)
{
    static const int DEVS[] = {2, 4};
    for (int di = 0; di < 2; di++) {
        int D = DEVS[di];
        PolicyArch a;
        policy_arch_default(&a, D);
        CHECK_INT(a.n_devices, D);
        CHECK_INT(a.n_features, 5 + D);
        CHECK_INT(a.d, a.n_features);
        CHECK_INT(a.rounds, 8);
        CHECK_INT(a.mem_feature, 0);
        Policy *p1 = new_policy(&a, 7), *p2 = new_policy(&a, 7), *p3 = new_policy(&a, 8);
        if (!p1 || !p2 || !p3) {
            policy_free(p1);
            policy_free(p2);
            policy_free(p3);
            continue;
        }
        CHECK_INT(p1->arch.n_devices, D);
        CHECK_INT(p1->arch.rounds, 8);
        CHECK_MSG(p1->p.n == spec_param_count(&a), "%d devices: %zu parameters, the spec gives %zu",
                  D, p1->p.n, spec_param_count(&a));
        size_t total = 0;
        for (int k = 0; k < p1->p.n_tensors; k++) {
            const NnTensor *t = &p1->p.t[k];
            CHECK_MSG(t->name[0] != 0, "tensor %d has no name", k);
            CHECK_MSG(nn_params_find(&p1->p, t->name) == k, "tensor name %s not unique", t->name);
            CHECK(t->rows >= 1 && t->cols >= 1);
            total += (size_t)t->rows * (size_t)t->cols;
        }
        CHECK_INT(total, p1->p.n);
        /* one weight and one bias per layer: 3 + 2*4 + 3*4 + 3 layers */
        CHECK_INT(p1->p.n_tensors, 2 * (3 + 8 + 12 + 3));
        CHECK_MSG(memcmp(p1->p.w, p2->p.w, p1->p.n * sizeof *p1->p.w) == 0,
                  "same seed, different weights");
        CHECK_MSG(memcmp(p1->p.w, p3->p.w, p1->p.n * sizeof *p1->p.w) != 0,
                  "another seed, same weights");
        int gzero = 1;
        for (size_t i = 0; i < p1->p.n; i++)
            gzero &= p1->p.g[i] == 0 && p1->p.m[i] == 0 && p1->p.v[i] == 0;
        CHECK_MSG(gzero, "gradients or Adam moments not zero in a new policy");
        policy_free(p1);
        policy_free(p2);
        policy_free(p3);
    }
    policy_free(NULL);
}

TEST(policy_new_rejects_bad_arch)
{
    PolicyArch a;
    Err e = {{0}};
    policy_arch_default(&a, 0);
    CHECK(policy_new(&a, 1, &e) == NULL);
    CHECK(e.msg[0] != 0);
    policy_arch_default(&a, POLICY_MAX_DEVICES + 1);
    e.msg[0] = 0;
    CHECK(policy_new(&a, 1, &e) == NULL);
    CHECK(e.msg[0] != 0);
    policy_arch_default(&a, 3);
    a.n_features = 7; /* should be 8 */
    e.msg[0] = 0;
    CHECK(policy_new(&a, 1, &e) == NULL);
    CHECK(e.msg[0] != 0);
    /* the memory column: F = 5 + D + 1 is accepted */
    policy_arch_default(&a, 3);
    a.mem_feature = 1;
    a.n_features = 9;
    Policy *pol = policy_new(&a, 1, &e);
    CHECK(pol != NULL);
    if (pol)
        CHECK_INT(pol->p.n, spec_param_count(&a));
    policy_free(pol);
}

/* --- forward ------------------------------------------------------------- */

static int rel_close(double a, double b, double tol)
{
    return fabs(a - b) <= tol * fmax(1e-3, fabs(a) + fabs(b));
}

/* A policy and a graph with its work spaces and feature buffers, for the
 * forward checks. */
typedef struct FwdCase {
    Policy *pol;
    const PolicyGraph *pg;
    PolicyWork *w, *w2;
    PolicyWorkD *wdk;
    double *wd, *fd; /* the weights and the features in double */
    float *ff;
} FwdCase;

/* policy_forward at node v on the features in fc: finite logits whose
 * softmax are the probabilities; the same again, on a fresh work space
 * (and NULL outputs allowed); close to the plain loops and to double. */
static void check_forward_at(FwdCase *fc, int v)
{
    Policy *pol = fc->pol;
    int D = pol->arch.n_devices;
    float lb[POLICY_MAX_DEVICES], pb[POLICY_MAX_DEVICES], ll[POLICY_MAX_DEVICES];
    float pl[POLICY_MAX_DEVICES], l2[POLICY_MAX_DEVICES], p2[POLICY_MAX_DEVICES];
    double ld[POLICY_MAX_DEVICES];
    pol->blas = 1;
    policy_forward(pol, fc->pg, fc->w, fc->ff, v, lb, pb);
    double sum = 0;
    for (int j = 0; j < D; j++) {
        CHECK_MSG(isfinite(lb[j]), "v=%d logit %d = %g", v, j, lb[j]);
        CHECK(pb[j] >= 0 && pb[j] <= 1);
        sum += pb[j];
    }
    CHECK_NEAR(sum, 1, 1e-5);
    /* probs = softmax(logits) */
    float sp[POLICY_MAX_DEVICES];
    nn_softmax_f(lb, D, sp, NULL);
    for (int j = 0; j < D; j++)
        CHECK_NEAR(pb[j], sp[j], 1e-6);
    /* deterministic, also on a fresh work space, and NULL outputs allowed */
    policy_forward(pol, fc->pg, fc->w, fc->ff, v, NULL, NULL);
    policy_forward(pol, fc->pg, fc->w2, fc->ff, v, l2, p2);
    CHECK_MSG(memcmp(lb, l2, (size_t)D * sizeof *lb) == 0 && memcmp(pb, p2, (size_t)D * sizeof *pb) == 0,
              "v=%d: forward not deterministic", v);
    /* plain loops */
    pol->blas = 0;
    policy_forward(pol, fc->pg, fc->w, fc->ff, v, ll, pl);
    pol->blas = 1;
    for (int j = 0; j < D; j++)
        CHECK_MSG(rel_close(ll[j], lb[j], 1e-4), "v=%d logit %d: blas %.9g loops %.9g", v, j, lb[j], ll[j]);
    /* double */
    policy_forward_d(pol, fc->wd, fc->pg, fc->wdk, fc->fd, v, ld);
    for (int j = 0; j < D; j++)
        CHECK_MSG(rel_close(lb[j], ld[j], 1e-3), "v=%d logit %d: float %.9g double %.12g", v, j, lb[j], ld[j]);
}

/* The logits depend on v (the pooled sets and v's own embedding): node 0
 * and node n - 1 as the current node give different logits. */
static void check_logits_depend_on_v(FwdCase *fc, const PolicyArch *a, Rng *r)
{
    int n = fc->pg->n;
    float la[POLICY_MAX_DEVICES], lz[POLICY_MAX_DEVICES];
    make_feats(r, a, n, 0, fc->fd, fc->ff);
    policy_forward(fc->pol, fc->pg, fc->w, fc->ff, 0, la, NULL);
    fc->ff[POLICY_F_CURRENT] = 0;
    fc->ff[(size_t)(n - 1) * (size_t)a->n_features + POLICY_F_CURRENT] = 1;
    policy_forward(fc->pol, fc->pg, fc->w, fc->ff, n - 1, lz, NULL);
    CHECK_MSG(memcmp(la, lz, (size_t)a->n_devices * sizeof *la) != 0, "logits do not depend on v");
}

TEST(policy_forward_consistency)
{
    static const int DEVS[] = {2, 4};
    for (int di = 0; di < 2; di++) {
        PolicyArch a;
        policy_arch_default(&a, DEVS[di]);
        Fix f;
        if (fix_from_graph(&f, gen_random_dag(14, 1.8, 30 + (uint64_t)di), 0) != 0) {
            fix_done(&f);
            continue;
        }
        Policy *pol = new_policy(&a, 11);
        if (!pol) {
            fix_done(&f);
            continue;
        }
        int n = f.pg->n, F = a.n_features;
        Rng r;
        rng_seed(&r, 99);
        FwdCase fc = {pol, f.pg, policy_work_new(&pol->arch, f.pg), policy_work_new(&pol->arch, f.pg),
                      policy_work_new_d(&pol->arch, f.pg), weights_d(pol), XMALLOC(double, n * F),
                      XMALLOC(float, n * F)};
        for (int v = 0; v < n; v += 3) {
            make_feats(&r, &a, n, v, fc.fd, fc.ff);
            check_forward_at(&fc, v);
        }
        check_logits_depend_on_v(&fc, &a, &r);
        free(fc.fd);
        free(fc.ff);
        free(fc.wd);
        policy_work_free(fc.w);
        policy_work_free(fc.w2);
        policy_work_free_d(fc.wdk);
        policy_free(pol);
        fix_done(&f);
    }
}

/* --- the gradient check -------------------------------------------------- */

typedef struct GradCase {
    const char *label;
    PolicyArch arch;
    const PolicyGraph *pg;
    int v;
    uint64_t seed;
} GradCase;

typedef struct GradStats {
    int checked, skipped, failed, mutant_caught, vacuous;
} GradStats;

static double loss_d(const Policy *pol, const double *wd, const PolicyGraph *pg, PolicyWorkD *w,
                     const double *feats, int v, const double *c)
{
    double logits[POLICY_MAX_DEVICES];
    policy_forward_d(pol, wd, pg, w, feats, v, logits);
    double L = 0;
    for (int j = 0; j < pol->arch.n_devices; j++)
        L += c[j] * logits[j];
    return L;
}

/* Relative error with a floor: rounding makes a central difference at
 * h = 1e-6 noisy by up to 2e-10 on these networks (measured against h = 1e-5
 * on every case below, |L| < 1), so entries below the floor
 * GRAD_FLOOR max(1, |L|) compare in absolute terms, allowed
 * GRAD_TOL GRAD_FLOOR = 1e-9 for |L| <= 1. */
static double rel_err(double a, double num, double floor)
{
    return fabs(a - num) / fmax(floor, fabs(a) + fabs(num));
}

#define GRAD_TOL 1e-5
#define GRAD_FLOOR 1e-4
#define GRAD_PER_TENSOR 20
#define GRAD_MAX_TENSORS 64

/* One case's network at its weights, ready for differences of L. */
typedef struct GradProblem {
    const char *label;
    const Policy *pol;
    const PolicyGraph *pg;
    PolicyWorkD *w;
    double *wd; /* the weights in double: perturbed one at a time, restored */
    const double *feats, *c, *grad; /* grad: policy_backward_d at wd */
    int v;
    double L0, floor;
} GradProblem;

/* What the sampled entries of one tensor gave. */
typedef struct TensorGrad {
    int cnt, skipped, live, mutant_caught;
    double worst, worst_a, worst_n;
    size_t worst_i;
} TensorGrad;

/* Compares up to GRAD_PER_TENSOR entries of tensor t (see grad_check for
 * which, and for the kink rule); counts them into *checked. */
static TensorGrad sample_tensor(GradProblem *p, const NnTensor *t, Rng *pick, int *checked)
{
    const double h = 1e-6;
    size_t m = (size_t)t->rows * (size_t)t->cols;
    TensorGrad tg = {m < GRAD_PER_TENSOR ? (int)m : GRAD_PER_TENSOR, 0, 0, 0, 0, 0, 0, 0};
    for (int s = 0; s < tg.cnt; s++) {
        size_t i = (size_t)tg.cnt == m ? (size_t)s
                                       : (size_t)s * m / (size_t)tg.cnt +
                                             (size_t)rng_below(pick, (uint64_t)(m / (size_t)tg.cnt));
        size_t q = t->off + i;
        double w0 = p->wd[q];
        p->wd[q] = w0 + h;
        double lp = loss_d(p->pol, p->wd, p->pg, p->w, p->feats, p->v, p->c);
        p->wd[q] = w0 - h;
        double lm = loss_d(p->pol, p->wd, p->pg, p->w, p->feats, p->v, p->c);
        p->wd[q] = w0;
        double num = (lp - lm) / (2 * h), fwd = (lp - p->L0) / h, bwd = (p->L0 - lm) / h;
        double kink = fabs(fwd - bwd), a = p->grad[q];
        double err = rel_err(a, num, p->floor);
        (*checked)++;
        if (err >= GRAD_TOL && fabs(a - num) <= kink) {
            tg.skipped++;
            continue;
        }
        if (fabs(a) >= 1e-6) /* large enough for 1% to exceed the tolerance */
            tg.live++;
        if (err > tg.worst) {
            tg.worst = err;
            tg.worst_i = i;
            tg.worst_a = a;
            tg.worst_n = num;
        }
        /* the same rule on a gradient 1% too large */
        if (rel_err(1.01 * a, num, p->floor) >= GRAD_TOL && fabs(1.01 * a - num) > kink)
            tg.mutant_caught = 1;
    }
    return tg;
}

/* The verdict on tensor k: every checked entry within the tolerance, and
 * (when it has an entry large enough) the 1.01 mutant caught. */
static void judge_tensor(const char *label, const NnTensor *t, int k, const TensorGrad *tg, GradStats *st,
                         int *covered)
{
    st->skipped += tg->skipped;
    CHECK_MSG(tg->worst < GRAD_TOL,
              "%s: tensor %s [%dx%d]: max relative error %.3g at entry %zu (analytic %.12g, "
              "numeric %.12g), %d of %d skipped as kinks",
              label, t->name, t->rows, t->cols, tg->worst, tg->worst_i, tg->worst_a, tg->worst_n, tg->skipped,
              tg->cnt);
    if (tg->worst >= GRAD_TOL)
        st->failed++;
    if (tg->live == 0) {
        st->vacuous++;
        if (getenv("TEST_VERBOSE"))
            fprintf(stderr, "  %s: no gradient in %s\n", label, t->name);
    } else if (tg->mutant_caught) {
        st->mutant_caught++;
        if (covered && k < GRAD_MAX_TENSORS)
            covered[k] = 1;
    } else
        test_fail(__FILE__, __LINE__, "%s: tensor %s: a gradient scaled by 1.01 passes the check", label, t->name);
}

/* The analytic gradient is finite and not all zero, and so is L. */
static void check_analytic_gradient(const char *label, const double *grad, size_t n, double L0)
{
    double gmax = 0;
    for (size_t i = 0; i < n; i++) {
        CHECK_MSG(isfinite(grad[i]), "%s: gradient entry %zu = %g", label, i, grad[i]);
        gmax = fmax(gmax, fabs(grad[i]));
    }
    CHECK_MSG(isfinite(L0) && gmax > 0, "%s: L = %g, max |grad| = %g", label, L0, gmax);
}

/* Gradient check of one case. For each tensor up to GRAD_PER_TENSOR entries
 * (all when fewer; else one drawn from each of GRAD_PER_TENSOR equal strata,
 * from a fixed seed) are compared: analytic a = policy_backward_d with
 * dlogits = c, numeric num = (L(w+h) - L(w-h)) / 2h with h = 1e-6.
 *
 * ReLU kinks. A kink at distance t < h from w makes the central difference
 * wrong by about |s+ - s-| (h - t) / 2h, s+- the slopes on its two sides,
 * while the one-sided differences (L(w+h) - L(w)) / h and (L(w) - L(w-h)) / h
 * then differ by |s+ - s-| (h - t) / h, twice that. Smooth points give
 * one-sided differences within h |L''| of each other. So an entry that fails
 * is skipped, as a kink, when its disagreement |a - num| is at most the gap
 * between its one-sided differences; anything else fails. Skips are counted
 * and must stay under 10%. The same rule applied to 1.01 a must fail each
 * tensor with a checked entry |a| >= 1e-6 (so the check can fail); tensors
 * with such an entry are marked in covered[]. Biases are randomised first
 * (randomize_biases). */
static GradStats grad_check(const GradCase *gc, int *covered)
{
    GradStats st = {0};
    REQUIRE_OR(gc->pg != NULL, st, "%s: no policy graph", gc->label);
    Err e = {{0}};
    Policy *pol = policy_new(&gc->arch, gc->seed, &e);
    REQUIRE_OR(pol != NULL, st, "%s: policy_new: %s", gc->label, e.msg);
    CHECK(pol->p.n_tensors <= GRAD_MAX_TENSORS);
    const PolicyGraph *pg = gc->pg;
    int n = pg->n, F = gc->arch.n_features, D = gc->arch.n_devices;
    Rng r;
    rng_seed(&r, gc->seed * 7919 + 1);
    double *wd = weights_d(pol);
    randomize_biases(pol, wd, gc->seed + 100);
    double *feats = XMALLOC(double, n * F);
    make_feats(&r, &gc->arch, n, gc->v, feats, NULL);
    double c[POLICY_MAX_DEVICES];
    for (int j = 0; j < D; j++)
        c[j] = 2 * rng_uniform(&r) - 1;
    PolicyWorkD *w = policy_work_new_d(&pol->arch, pg);
    double *grad = XNEW(double, pol->p.n);
    double L0 = loss_d(pol, wd, pg, w, feats, gc->v, c);
    policy_backward_d(pol, wd, pg, w, c, grad);
    check_analytic_gradient(gc->label, grad, pol->p.n, L0);
    GradProblem p = {gc->label, pol, pg, w, wd, feats, c, grad, gc->v, L0, GRAD_FLOOR * fmax(1, fabs(L0))};
    Rng pick;
    rng_seed(&pick, 12345);
    for (int k = 0; k < pol->p.n_tensors; k++) {
        TensorGrad tg = sample_tensor(&p, &pol->p.t[k], &pick, &st.checked);
        judge_tensor(gc->label, &pol->p.t[k], k, &tg, &st, covered);
    }
    CHECK_MSG(st.skipped * 10 <= st.checked, "%s: %d of %d entries skipped as ReLU kinks",
              gc->label, st.skipped, st.checked);
    if (getenv("TEST_VERBOSE"))
        fprintf(stderr, "  %s: %d entries, %d kinks skipped, %d/%d tensors sensitive, L = %g\n",
                gc->label, st.checked, st.skipped, st.mutant_caught, pol->p.n_tensors, L0);
    free(grad);
    free(feats);
    free(wd);
    policy_work_free_d(w);
    policy_free(pol);
    return st;
}

/* A middle node of pg: one with both ancestors and descendants if any. */
static int middle_node(const PolicyGraph *pg)
{
    for (int i = pg->n / 2; i < pg->n; i++)
        if (pg->par_off[i + 1] > pg->par_off[i] && pg->ch_off[i + 1] > pg->ch_off[i])
            return i;
    return pg->n / 2;
}

TEST(policy_gradient_check)
{
    Fix f1, f2, f3;
    int ok = fix_from_graph(&f1, gen_random_dag(8, 1.5, 3), 0) == 0;
    ok &= fix_from_graph(&f2, gen_random_dag(10, 2, 4), 0) == 0;
    ok &= fix_from_graph(&f3, gen_random_dag(6, 1.5, 5), 0) == 0;
    if (ok) {
        GradCase cases[5];
        memset(cases, 0, sizeof cases);
        cases[0] = (GradCase){"8 nodes, 2 devices, 2 rounds", {0}, f1.pg, middle_node(f1.pg), 1};
        policy_arch_default(&cases[0].arch, 2);
        cases[0].arch.rounds = 2;
        cases[1] = (GradCase){"10 nodes, 3 devices, 2 rounds", {0}, f2.pg, middle_node(f2.pg), 2};
        policy_arch_default(&cases[1].arch, 3);
        cases[1].arch.rounds = 2;
        cases[2] = (GradCase){"6 nodes, 2 devices, 8 rounds", {0}, f3.pg, middle_node(f3.pg), 3};
        policy_arch_default(&cases[2].arch, 2);
        /* d != F and the memory column: catches F and d mixed up */
        cases[3] = (GradCase){"10 nodes, 3 devices, mem, d=4, 3 rounds", {0}, f2.pg, 1, 4};
        policy_arch_default(&cases[3].arch, 3);
        cases[3].arch.mem_feature = 1;
        cases[3].arch.n_features = 5 + 3 + 1;
        cases[3].arch.d = 4;
        cases[3].arch.rounds = 3;
        /* another node of the same graph: other pooled sets */
        cases[4] = (GradCase){"8 nodes, 4 devices, 2 rounds, v=0", {0}, f1.pg, 0, 5};
        policy_arch_default(&cases[4].arch, 4);
        cases[4].arch.rounds = 2;
        /* every tensor must carry a gradient, checked, in some case (an empty
         * pooled set leaves its f layers without one, legitimately) */
        int covered[GRAD_MAX_TENSORS] = {0};
        for (int i = 0; i < 5; i++)
            grad_check(&cases[i], covered);
        Policy *pol = new_policy(&cases[0].arch, 1);
        for (int k = 0; pol && k < pol->p.n_tensors && k < GRAD_MAX_TENSORS; k++)
            CHECK_MSG(covered[k], "tensor %s: no case checked a nonzero gradient", pol->p.t[k].name);
        policy_free(pol);
    }
    fix_done(&f1);
    fix_done(&f2);
    fix_done(&f3);
}

/* --- float backward, accumulation ---------------------------------------- */

static double max_abs_d(const double *x, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(x[i]));
    return m;
}

static double max_abs_f(const float *x, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(x[i]));
    return m;
}

/* The float gradient gf (BLAS) against the double one gd, and the loops'
 * gl against gf: entries above 1e-3 of the largest relative, the rest
 * absolute. */
static void check_float_gradient(const float *gf, const float *gl, const double *gd, size_t n, int rounds)
{
    double gmax = max_abs_d(gd, n);
    CHECK(gmax > 0);
    int bad = 0, bad_loop = 0, large = 0;
    double worst = 0;
    size_t worst_i = 0;
    for (size_t i = 0; i < n; i++) {
        /* entries above 1e-3 of the largest: relative; the rest: absolute */
        double tol = 1e-3 * fmax(fabs(gd[i]), 1e-3 * gmax);
        double err = fabs(gf[i] - gd[i]);
        large += fabs(gd[i]) >= 1e-3 * gmax;
        if (err > tol) {
            bad++;
            if (err / tol > worst) {
                worst = err / tol;
                worst_i = i;
            }
        }
        bad_loop += !(fabs(gl[i] - gf[i]) <= 1e-4 * fmax(fabs(gf[i]), 1e-3 * gmax));
    }
    CHECK_MSG(bad == 0, "rounds %d: %d of %zu float gradient entries (%d large) off the double ones; "
              "worst entry %zu: float %.9g double %.12g",
              rounds, bad, n, large, worst_i, gf[worst_i], gd[worst_i]);
    CHECK_MSG(bad_loop == 0, "rounds %d: %d gradient entries differ between BLAS and loops", rounds, bad_loop);
}

TEST(policy_backward_float_vs_double)
{
    Fix f;
    if (fix_from_graph(&f, gen_random_dag(12, 2, 8), 0) != 0) {
        fix_done(&f);
        return;
    }
    static const int ROUNDS[] = {2, 8};
    for (int ri = 0; ri < 2; ri++) {
        PolicyArch a;
        policy_arch_default(&a, 3);
        a.rounds = ROUNDS[ri];
        Policy *pol = new_policy(&a, 21);
        if (!pol)
            break;
        randomize_biases(pol, NULL, 77);
        double *wd = weights_d(pol);
        int n = f.pg->n, F = a.n_features, v = middle_node(f.pg);
        Rng r;
        rng_seed(&r, 5);
        double *fd = XMALLOC(double, n * F);
        float *ff = XMALLOC(float, n * F);
        make_feats(&r, &a, n, v, fd, ff);
        double c[3], logits[3];
        float cf[3];
        for (int j = 0; j < 3; j++)
            cf[j] = (float)(c[j] = 2 * rng_uniform(&r) - 1);
        PolicyWork *w = policy_work_new(&a, f.pg);
        PolicyWorkD *wdk = policy_work_new_d(&a, f.pg);
        float *gf = XNEW(float, pol->p.n), *gl = XNEW(float, pol->p.n);
        double *gd = XNEW(double, pol->p.n);
        policy_forward(pol, f.pg, w, ff, v, NULL, NULL);
        policy_backward(pol, f.pg, w, cf, gf);
        pol->blas = 0;
        policy_forward(pol, f.pg, w, ff, v, NULL, NULL);
        policy_backward(pol, f.pg, w, cf, gl);
        pol->blas = 1;
        policy_forward_d(pol, wd, f.pg, wdk, fd, v, logits);
        policy_backward_d(pol, wd, f.pg, wdk, c, gd);
        check_float_gradient(gf, gl, gd, pol->p.n, a.rounds);
        free(fd);
        free(ff);
        free(wd);
        free(gf);
        free(gl);
        free(gd);
        policy_work_free(w);
        policy_work_free_d(wdk);
        policy_free(pol);
    }
    fix_done(&f);
}

/* Backward accumulates into grad and leaves the work space reusable: two
 * backward passes after one forward give twice the gradient, in float and in
 * double; a forward at another node in between does not leak into the next. */
TEST(policy_backward_accumulates)
{
    Fix f;
    if (fix_from_graph(&f, gen_random_dag(9, 2, 12), 0) != 0) {
        fix_done(&f);
        return;
    }
    PolicyArch a;
    policy_arch_default(&a, 2);
    a.rounds = 3;
    Policy *pol = new_policy(&a, 5);
    if (!pol) {
        fix_done(&f);
        return;
    }
    randomize_biases(pol, NULL, 6);
    double *wd = weights_d(pol);
    int n = f.pg->n, F = a.n_features, v = middle_node(f.pg);
    Rng r;
    rng_seed(&r, 8);
    double *fd = XMALLOC(double, n * F), *fd0 = XMALLOC(double, n * F);
    float *ff = XMALLOC(float, n * F), *ff0 = XMALLOC(float, n * F);
    make_feats(&r, &a, n, 0, fd0, ff0);
    make_feats(&r, &a, n, v, fd, ff);
    float cf[2] = {0.75f, -1.25f};
    double c[2] = {0.75, -1.25};
    size_t N = pol->p.n;
    float *g1 = XNEW(float, N), *g2 = XNEW(float, N), *g3 = XNEW(float, N);
    double *d1 = XNEW(double, N), *d2 = XNEW(double, N);
    PolicyWork *w = policy_work_new(&a, f.pg);
    PolicyWorkD *wdk = policy_work_new_d(&a, f.pg);
    policy_forward(pol, f.pg, w, ff, v, NULL, NULL);
    policy_backward(pol, f.pg, w, cf, g1);
    policy_forward(pol, f.pg, w, ff, v, NULL, NULL);
    policy_backward(pol, f.pg, w, cf, g2);
    policy_backward(pol, f.pg, w, cf, g2);
    /* another node first, then v again on the same work space */
    policy_forward(pol, f.pg, w, ff0, 0, NULL, NULL);
    policy_backward(pol, f.pg, w, cf, g3);
    memset(g3, 0, N * sizeof *g3);
    policy_forward(pol, f.pg, w, ff, v, NULL, NULL);
    policy_backward(pol, f.pg, w, cf, g3);
    policy_forward_d(pol, wd, f.pg, wdk, fd, v, NULL);
    policy_backward_d(pol, wd, f.pg, wdk, c, d1);
    policy_backward_d(pol, wd, f.pg, wdk, c, d2);
    policy_backward_d(pol, wd, f.pg, wdk, c, d2);
    double gmax = max_abs_f(g1, N);
    CHECK(gmax > 0);
    int bad_f = 0, bad_d = 0, bad_reuse = 0;
    for (size_t i = 0; i < N; i++) {
        bad_f += !(fabs(g2[i] - 2 * g1[i]) <= 1e-6 * fmax(fabs(g1[i]), 1e-3 * gmax));
        bad_d += !(fabs(d2[i] - 2 * d1[i]) <= 1e-12 * fmax(fabs(d1[i]), 1e-6));
        bad_reuse += !(fabs(g3[i] - g1[i]) <= 1e-6 * fmax(fabs(g1[i]), 1e-3 * gmax));
    }
    CHECK_MSG(bad_f == 0, "float: %d entries of two backward passes are not twice one", bad_f);
    CHECK_MSG(bad_d == 0, "double: %d entries of two backward passes are not twice one", bad_d);
    CHECK_MSG(bad_reuse == 0, "%d gradient entries change when the work space was used for another node",
              bad_reuse);
    free(fd);
    free(fd0);
    free(ff);
    free(ff0);
    free(g1);
    free(g2);
    free(g3);
    free(d1);
    free(d2);
    free(wd);
    policy_work_free(w);
    policy_work_free_d(wdk);
    policy_free(pol);
    fix_done(&f);
}

/* --- edge cases ---------------------------------------------------------- */

/* Forward and backward at v in float and double: finite logits and
 * gradients, normalised probabilities. */
static void check_finite_at(const Policy *pol, const PolicyGraph *pg, int v, const char *label)
{
    int n = pg->n, F = pol->arch.n_features, D = pol->arch.n_devices;
    Rng r;
    rng_seed(&r, 3);
    double *fd = XMALLOC(double, n * F);
    float *ff = XMALLOC(float, n * F);
    make_feats(&r, &pol->arch, n, v, fd, ff);
    float logits[POLICY_MAX_DEVICES], probs[POLICY_MAX_DEVICES], df[POLICY_MAX_DEVICES];
    double ld[POLICY_MAX_DEVICES], dd[POLICY_MAX_DEVICES];
    PolicyWork *w = policy_work_new(&pol->arch, pg);
    PolicyWorkD *wdk = policy_work_new_d(&pol->arch, pg);
    float *g = XNEW(float, pol->p.n);
    double *gd = XNEW(double, pol->p.n), *wd = weights_d(pol);
    policy_forward(pol, pg, w, ff, v, logits, probs);
    double sum = 0;
    int finite = 1;
    for (int j = 0; j < D; j++) {
        finite &= isfinite(logits[j]) && isfinite(probs[j]);
        sum += probs[j];
        df[j] = (float)(dd[j] = j % 2 ? -1 : 1);
    }
    CHECK_MSG(finite, "%s: non-finite logits", label);
    CHECK_NEAR(sum, 1, 1e-5);
    policy_backward(pol, pg, w, df, g);
    policy_forward_d(pol, wd, pg, wdk, fd, v, ld);
    policy_backward_d(pol, wd, pg, wdk, dd, gd);
    for (size_t i = 0; i < pol->p.n; i++)
        finite &= isfinite(g[i]) && isfinite(gd[i]);
    for (int j = 0; j < D; j++)
        finite &= isfinite(ld[j]);
    CHECK_MSG(finite, "%s: non-finite gradient", label);
    free(fd);
    free(ff);
    free(g);
    free(gd);
    free(wd);
    policy_work_free(w);
    policy_work_free_d(wdk);
}

TEST(policy_edge_cases)
{
    /* a chain 0 -> 1 -> 2, a fork 2 -> 3, 2 -> 4, and an isolated node 5 */
    static const int E[][2] = {{0, 1}, {1, 2}, {2, 3}, {2, 4}};
    Fix f, one;
    PolicyArch a;
    policy_arch_default(&a, 3);
    Policy *pol = new_policy(&a, 4);
    PolicyArch a2 = a;
    a2.rounds = 2;
    if (!pol)
        return;
    if (fix_from_graph(&f, make_graph(6, E, 4), 0) == 0) {
        int src = group_find(f.gr, "n0"), sink = group_find(f.gr, "n3"), iso = group_find(f.gr, "n5");
        check_finite_at(pol, f.pg, src, "source");
        check_finite_at(pol, f.pg, sink, "sink");
        check_finite_at(pol, f.pg, iso, "isolated node");
        /* the gradient check where pooled sets are empty */
        GradCase gc[3] = {{"source of a chain", a2, f.pg, src, 31},
                          {"sink of a chain", a2, f.pg, sink, 32},
                          {"isolated node", a2, f.pg, iso, 33}};
        for (int i = 0; i < 3; i++)
            grad_check(&gc[i], NULL);
    }
    fix_done(&f);
    if (fix_from_graph(&one, make_graph(1, NULL, 0), 0) == 0) {
        CHECK_INT(one.pg->n, 1);
        CHECK(!policy_graph_is_anc(one.pg, 0, 0) && !policy_graph_is_desc(one.pg, 0, 0));
        check_finite_at(pol, one.pg, 0, "one-node graph");
        GradCase gc = {"one-node graph", a2, one.pg, 0, 34};
        grad_check(&gc, NULL);
    }
    fix_done(&one);
    policy_free(pol);
}
