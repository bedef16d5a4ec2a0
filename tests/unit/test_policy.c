/* policy: the Placeto policy network of core/agent/policy.h.
 *
 * - PolicyGraph: parent/child CSR equal to the grouping's pred/succ, and
 *   ancestor/descendant bit sets equal to brute-force reachability on random
 *   DAGs (one and several 64-bit words per row, and a coarse grouping).
 * - policy_new: the default architecture, the parameter count the spec's
 *   layer shapes give, named tensors, determinism, rejected architectures.
 * - forward: normalised probabilities, BLAS = plain loops, float = double,
 *   determinism, work-space reuse.
 * - float backward = double backward; backward accumulates (+=).
 * The gradient check and the edge cases are in test_policy_grad.c, the
 * shared fixtures in policy_fixture.c. */
#include <stdlib.h>

#include "gen.h"
#include "graph.h"
#include "group.h"
#include "policy.h"
#include "policy_fixture.h"
#include "test.h"
#include "util.h"

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
