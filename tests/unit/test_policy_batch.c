/* Every node's head at once (policy_forward_all, policy_backward_all): row
 * v of the batched logits is policy_forward's for v from the same features
 * (bit for bit with the plain kernels, within float rounding with BLAS),
 * and the batched gradient for dlogits [n x D] is the sum over v of
 * policy_backward's for row v (in double, where policy_backward passes the
 * gradient check): on random graphs with 2 and 8 rounds, the extended
 * features, and the edge cases of one node and isolated nodes. The check
 * proves it can fail: leaving one node's row out of the sum must be
 * caught. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "policy_fixture.h"
#include "test.h"

static void batch_case(const char *label, Fix *f, const PolicyArch *a, uint64_t seed)
{
    int n = f->pg->n, F = a->n_features, D = a->n_devices;
    Policy *pol = new_policy(a, seed);
    if (!pol)
        return;
    double *wd = weights_d(pol);
    randomize_biases(pol, wd, seed + 1);
    Rng r;
    rng_seed(&r, seed + 2);
    double *fd = XMALLOC(double, (size_t)n * (size_t)F);
    float *ff = XMALLOC(float, (size_t)n * (size_t)F);
    make_feats(&r, a, n, -1, fd, ff);
    float *all = XMALLOC(float, (size_t)n * (size_t)D), one[POLICY_MAX_DEVICES];
    PolicyWork *w = policy_work_new(a, f->pg);
    PolicyBatch *b = policy_batch_new(a, f->pg);
    /* plain kernels: the same bits */
    pol->blas = 0;
    policy_forward_all(pol, f->pg, b, ff, all);
    int same = 1;
    for (int v = 0; v < n; v++) {
        policy_forward(pol, f->pg, w, ff, v, one, NULL);
        same &= memcmp(one, all + (size_t)v * (size_t)D, (size_t)D * sizeof *one) == 0;
    }
    CHECK_MSG(same, "%s: batched logits differ from policy_forward's bits (plain kernels)", label);
    /* BLAS: within rounding */
    pol->blas = nn_default_blas();
    policy_forward_all(pol, f->pg, b, ff, all);
    double worst = 0;
    for (int v = 0; v < n; v++) {
        policy_forward(pol, f->pg, w, ff, v, one, NULL);
        for (int j = 0; j < D; j++)
            worst = fmax(worst, fabs(one[j] - all[(size_t)v * (size_t)D + (size_t)j]) / fmax(1, fabs(one[j])));
    }
    CHECK_MSG(worst < 1e-5, "%s: batched logits off by %g", label, worst);
    /* double: the batched gradient is the sum of the per-node ones */
    PolicyWorkD *wk = policy_work_new_d(a, f->pg);
    PolicyBatchD *bd = policy_batch_new_d(a, f->pg);
    double *c = XMALLOC(double, (size_t)n * (size_t)D), *ld = XMALLOC(double, (size_t)n * (size_t)D);
    for (int q = 0; q < n * D; q++)
        c[q] = 2 * rng_uniform(&r) - 1;
    double *gb = XNEW(double, pol->p.n), *gs = XNEW(double, pol->p.n), *gm = XNEW(double, pol->p.n);
    policy_forward_all_d(pol, wd, f->pg, bd, fd, ld);
    policy_backward_all_d(pol, wd, f->pg, bd, c, gb);
    double lw = 0;
    for (int v = 0; v < n; v++) {
        double lv[POLICY_MAX_DEVICES];
        policy_forward_d(pol, wd, f->pg, wk, fd, v, lv);
        for (int j = 0; j < D; j++)
            lw = fmax(lw, fabs(lv[j] - ld[(size_t)v * (size_t)D + (size_t)j]));
        policy_backward_d(pol, wd, f->pg, wk, c + (size_t)v * (size_t)D, gs);
        if (v != n / 2) /* the mutant: one node's gradient left out */
            policy_backward_d(pol, wd, f->pg, wk, c + (size_t)v * (size_t)D, gm);
    }
    CHECK_MSG(lw < 1e-12, "%s: double batched logits off by %g", label, lw);
    double err = 0, merr = 0, scale = 0;
    for (size_t i = 0; i < pol->p.n; i++) {
        scale = fmax(scale, fabs(gs[i]));
        err = fmax(err, fabs(gb[i] - gs[i]));
        merr = fmax(merr, fabs(gb[i] - gm[i]));
    }
    CHECK_MSG(scale > 0 && err <= 1e-10 * scale, "%s: batched gradient off by %g (scale %g)", label, err, scale);
    CHECK_MSG(merr > 1e-6 * scale, "%s: leaving a node out went unnoticed (%g)", label, merr);
    free(fd);
    free(ff);
    free(all);
    free(c);
    free(ld);
    free(gb);
    free(gs);
    free(gm);
    free(wd);
    policy_work_free(w);
    policy_batch_free(b);
    policy_work_free_d(wk);
    policy_batch_free_d(bd);
    policy_free(pol);
}

TEST(policy_batch_matches_per_node)
{
    Fix f;
    if (fix_from_graph(&f, gen_random_dag(14, 2, 9), 0) == 0) {
        PolicyArch a;
        policy_arch_default(&a, 3);
        a.rounds = 2;
        batch_case("random dag, 3 devices, 2 rounds", &f, &a, 31);
        policy_arch_for(&a, 2, 0, 1);
        batch_case("random dag, extended, 2 devices, 8 rounds", &f, &a, 41);
        policy_arch_for(&a, 4, 0, 1);
        batch_case("random dag, extended, 4 devices (d 16)", &f, &a, 51);
    }
    fix_done(&f);
    static const int E[][2] = {{0, 1}, {1, 2}, {0, 3}};
    if (fix_from_graph(&f, make_graph(6, E, 3), 0) == 0) { /* nodes 4 and 5 isolated */
        PolicyArch a;
        policy_arch_default(&a, 2);
        batch_case("isolated nodes", &f, &a, 61);
    }
    fix_done(&f);
    if (fix_from_graph(&f, make_graph(2, NULL, 0), 0) == 0) {
        PolicyArch a;
        policy_arch_default(&a, 2);
        batch_case("two isolated nodes", &f, &a, 71);
    }
    fix_done(&f);
}
