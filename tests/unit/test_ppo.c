/* The clipped PPO surrogate (core/agent/ppo.h): its weights are the
 * surrogate's derivatives by each log-probability (central differences,
 * away from the clip's corners), zero where the clipped term is taken, the
 * plain policy gradient -adv/n at the first epoch (rho = 1); the joint
 * ratio's; and the advantages' mean, scale and degenerate cases. */
#include <math.h>
#include <stdlib.h>

#include "ppo.h"
#include "test.h"
#include "util.h"

#define N 12

static void setup(Rng *r, double *lp, double *lp_old, double *adv)
{
    for (int v = 0; v < N; v++) {
        lp_old[v] = -2 * rng_uniform(r) - 0.05;
        lp[v] = lp_old[v] + 0.6 * (rng_uniform(r) - 0.5); /* ratios about 0.74 .. 1.35: some clipped */
        adv[v] = 2 * rng_uniform(r) - 1;
    }
}

TEST(ppo_surrogate_weights_are_its_derivatives)
{
    Rng r;
    rng_seed(&r, 3);
    double lp[N], lp_old[N], adv[N], w[N], w2[N];
    int any_clipped = 0, any_open = 0;
    for (int rep = 0; rep < 20; rep++) {
        setup(&r, lp, lp_old, adv);
        int clipped;
        ppo_surrogate(N, lp, lp_old, adv, 0.2, w, &clipped);
        any_clipped |= clipped > 0;
        any_open |= clipped < N;
        for (int v = 0; v < N; v++) {
            double rho = exp(lp[v] - lp_old[v]);
            if (fabs(rho - 0.8) < 1e-4 || fabs(rho - 1.2) < 1e-4)
                continue; /* a corner: no derivative */
            double h = 1e-6, keep = lp[v];
            lp[v] = keep + h;
            double up = ppo_surrogate(N, lp, lp_old, adv, 0.2, w2, NULL);
            lp[v] = keep - h;
            double dn = ppo_surrogate(N, lp, lp_old, adv, 0.2, w2, NULL);
            lp[v] = keep;
            double fd = (up - dn) / (2 * h);
            CHECK_MSG(fabs(fd - w[v]) < 1e-7, "rep %d node %d: w %.10g, differences %.10g", rep, v, w[v], fd);
            /* the clipped side of the min has a zero derivative */
            int outside = (adv[v] > 0 && rho > 1.2) || (adv[v] < 0 && rho < 0.8);
            if (outside)
                CHECK_EXACT(w[v], 0.0);
            else
                CHECK_NEAR(w[v], -rho * adv[v] / N, 1e-15);
        }
    }
    CHECK_MSG(any_clipped && any_open, "the cases never reached both sides of the clip");
}

TEST(ppo_first_epoch_is_the_policy_gradient)
{
    double lp[N], adv[N], w[N];
    Rng r;
    rng_seed(&r, 8);
    for (int v = 0; v < N; v++) {
        lp[v] = -rng_uniform(&r);
        adv[v] = rng_uniform(&r) - 0.5;
    }
    int clipped;
    double L = ppo_surrogate(N, lp, lp, adv, 0.2, w, &clipped);
    double want = 0;
    for (int v = 0; v < N; v++) {
        CHECK_NEAR(w[v], -adv[v] / N, 1e-15);
        want -= adv[v] / N;
    }
    CHECK_INT(clipped, 0);
    CHECK_NEAR(L, want, 1e-15);
}

TEST(ppo_joint_ratio)
{
    double lp[N], lp_old[N], adv[N], w[N];
    Rng r;
    rng_seed(&r, 5);
    setup(&r, lp, lp_old, adv);
    /* a small step: inside the clip, the gradient -rho adv for every node */
    for (int v = 0; v < N; v++)
        lp[v] = lp_old[v] + 0.01;
    int clipped;
    double L = ppo_surrogate_joint(N, lp, lp_old, 0.7, 0.2, w, &clipped);
    double rho = exp(0.01 * N);
    CHECK_INT(clipped, 0);
    CHECK_NEAR(L, -rho * 0.7, 1e-12);
    for (int v = 0; v < N; v++)
        CHECK_NEAR(w[v], -rho * 0.7, 1e-12);
    /* a large step with a positive advantage: clipped, no gradient */
    for (int v = 0; v < N; v++)
        lp[v] = lp_old[v] + 0.1;
    L = ppo_surrogate_joint(N, lp, lp_old, 0.7, 0.2, w, &clipped);
    CHECK_INT(clipped, 1);
    CHECK_NEAR(L, -1.2 * 0.7, 1e-12);
    for (int v = 0; v < N; v++)
        CHECK_EXACT(w[v], 0.0);
    /* the same step with a negative advantage: the unclipped (worse) term */
    L = ppo_surrogate_joint(N, lp, lp_old, -0.7, 0.2, w, &clipped);
    CHECK_INT(clipped, 0);
    CHECK_NEAR(L, exp(0.1 * N) * 0.7, 1e-12);
}

TEST(ppo_advantages_are_centred_and_scaled)
{
    double r[5] = {-1.2, -0.9, -1.0, -1.5, -0.4}, a[5];
    ppo_advantages(5, r, a);
    double m = 0, s = 0;
    for (int i = 0; i < 5; i++)
        m += a[i];
    for (int i = 0; i < 5; i++)
        s += a[i] * a[i];
    CHECK_NEAR(m, 0, 1e-12);
    CHECK_NEAR(s / 5, 1, 1e-12);
    CHECK(a[4] > 0 && a[3] < 0); /* the cheapest placement (highest reward) is reinforced */
    double same[3] = {-2, -2, -2};
    ppo_advantages(3, same, a);
    for (int i = 0; i < 3; i++)
        CHECK_EXACT(a[i], 0.0);
    ppo_advantages(1, r, a);
    CHECK_EXACT(a[0], 0.0);
}
