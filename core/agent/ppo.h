/* ppo: the clipped surrogate of proximal policy optimisation (Schulman et
 * al. 2017) for placements, shared by the learned placers that train with
 * PPO (GDP, docs/comparators.md). A placement is a one-step episode, so each
 * sampled placement has one advantage; its decisions (one device per node)
 * share it.
 *
 * The network's backward passes take per-decision weights w_v and
 * accumulate the gradient of J = sum_v w_v log p_v(a_v); the functions here
 * return the loss and the w_v that make that gradient the loss's. */
#ifndef PLACETO_PPO_H
#define PLACETO_PPO_H

/* Per-decision ratios rho_v = exp(lp_v - lp_old_v), each decision v with
 * advantage adv_v:
 *   L = -(1/n) sum_v min(rho_v adv_v, clip(rho_v, 1 - eps, 1 + eps) adv_v)
 * Returns L; writes w[v] = dL/dlp_v: -(1/n) rho_v adv_v where the
 * unclipped term is the minimum (on a tie too), 0 where the clipped one is
 * (its gradient is zero). *clipped (when not NULL) gets the number of
 * decisions whose clipped term was taken. */
double ppo_surrogate(int n, const double *lp, const double *lp_old, const double *adv, double eps, double *w,
                     int *clipped);

/* One ratio for the whole placement, rho = exp(sum_v lp_v - sum_v lp_old_v),
 * and one advantage:  L = -min(rho adv, clip(rho, 1 - eps, 1 + eps) adv).
 * Returns L; every w[v] = dL/dlp_v = -rho adv when the unclipped term is
 * the minimum, else 0. *clipped gets 1 when the clipped term was taken. */
double ppo_surrogate_joint(int n, const double *lp, const double *lp_old, double adv, double eps, double *w,
                           int *clipped);

/* Advantages of k placements of one graph from their rewards r: r minus
 * their mean, divided by their standard deviation (population; nothing
 * when it is below 1e-12 times the rewards' scale, so that k equal
 * rewards give advantages 0 rather than noise). k = 1 gives 0. */
void ppo_advantages(int k, const double *r, double *adv);

#endif
