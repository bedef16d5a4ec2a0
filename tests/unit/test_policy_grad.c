/* The gradient check of the policy network (docs/agent.md, "Network"):
 * policy_backward_d against central differences of L = sum_j c_j logits_j
 * on every parameter tensor, in double, on small random graphs, with the
 * default and reduced rounds, d = F and d != F; entries that straddle a ReLU
 * kink are skipped (rule at grad_check). The check proves it can fail: the
 * same comparison with the analytic gradient scaled by 1.01 must fail on
 * every tensor. Also the edge cases: a source, a sink, an isolated node and
 * a one-node graph give finite outputs and pass the gradient check. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "policy_fixture.h"
#include "test.h"

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
