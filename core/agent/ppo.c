/* ppo: the clipped surrogate and the advantages (ppo.h). */
#include "ppo.h"

#include <math.h>

/* min(rho a, clip(rho) a): 1 when the clipped term is strictly smaller
 * (the gradient then vanishes), 0 when the unclipped one is taken. */
static int takes_clipped(double rho, double a, double eps, double *term)
{
    double lo = 1 - eps, hi = 1 + eps, c = rho < lo ? lo : rho > hi ? hi : rho;
    double u = rho * a, v = c * a;
    *term = u <= v ? u : v;
    return v < u;
}

double ppo_surrogate(int n, const double *lp, const double *lp_old, const double *adv, double eps, double *w,
                     int *clipped)
{
    double sum = 0;
    int nc = 0;
    for (int v = 0; v < n; v++) {
        double rho = exp(lp[v] - lp_old[v]), term;
        int c = takes_clipped(rho, adv[v], eps, &term);
        sum += term;
        nc += c;
        w[v] = c ? 0 : -rho * adv[v] / n;
    }
    if (clipped)
        *clipped = nc;
    return n > 0 ? -sum / n : 0;
}

double ppo_surrogate_joint(int n, const double *lp, const double *lp_old, double adv, double eps, double *w,
                           int *clipped)
{
    double d = 0;
    for (int v = 0; v < n; v++)
        d += lp[v] - lp_old[v];
    double rho = exp(d), term;
    int c = takes_clipped(rho, adv, eps, &term);
    for (int v = 0; v < n; v++)
        w[v] = c ? 0 : -rho * adv;
    if (clipped)
        *clipped = c;
    return -term;
}

void ppo_advantages(int k, const double *r, double *adv)
{
    double mean = 0, scale = 0;
    for (int i = 0; i < k; i++) {
        mean += r[i];
        scale = fmax(scale, fabs(r[i]));
    }
    mean = k > 0 ? mean / k : 0;
    double var = 0;
    for (int i = 0; i < k; i++)
        var += (r[i] - mean) * (r[i] - mean);
    double sd = k > 0 ? sqrt(var / k) : 0;
    for (int i = 0; i < k; i++)
        adv[i] = sd > 1e-12 * scale && sd > 0 ? (r[i] - mean) / sd : 0;
}
