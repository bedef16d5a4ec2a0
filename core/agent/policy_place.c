/* policy_place: placing a graph with a trained policy (see policy_place.h). */
#include "policy_place.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policy_io.h"
#include "train.h"

int64_t policy_place(const Policy *pol, const Graph *g, const Grouping *gr, const Cluster *c,
                     const EpisodeConfig *cfg, int samples, uint64_t seed, int *group_device,
                     double *runtime_us, Err *e)
{
    if (pol->arch.n_devices != c->n_devices)
        return err_set(e, "the policy is for %d devices but the cluster has %d", pol->arch.n_devices,
                       c->n_devices);
    if (pol->arch.mem_feature != cfg->mem_feature)
        return err_set(e, "the policy was trained %s the memory feature",
                       pol->arch.mem_feature ? "with" : "without");
    PolicyGraph *pg = policy_graph_new(gr, e);
    if (!pg)
        return -1;
    Episode *ep = episode_new(g, gr, c, pg, cfg, seed, NULL, e);
    if (!ep) {
        policy_graph_free(pg);
        return -1;
    }
    PolicyWork *w = policy_work_new(&pol->arch, pg);
    double best = INFINITY;
    int64_t sims = 0;
    for (int k = 0; k <= samples; k++) {
        if (k > 0)
            episode_reset(ep, seed + (uint64_t)k, NULL);
        while (!episode_done(ep))
            episode_step_policy(ep, pol, w, k == 0, NULL);
        sims += ep->simulations;
        if (ep->best_score < best) {
            best = ep->best_score;
            *runtime_us = ep->best_runtime_us;
            memcpy(group_device, ep->best_device, (size_t)gr->n_groups * sizeof *group_device);
        }
    }
    policy_work_free(w);
    episode_free(ep);
    policy_graph_free(pg);
    return sims;
}

int policy_place_runs(const Problem *p, const char *path, int samples, uint64_t seed, PlaceRun rows[2],
                      Err *e)
{
    TrainState ts;
    Policy *pol = policy_load(path, &ts, e);
    if (!pol)
        return -1;
    EpisodeConfig cfg;
    episode_config_default(&cfg);
    cfg.mem_feature = pol->arch.mem_feature;
    int *gd = xnew_array((size_t)p->gr->n_groups, sizeof *gd);
    double rt = 0, t0 = util_now();
    int n = 0;
    int64_t sims = policy_place(pol, p->g, p->gr, p->c, &cfg, samples, seed, gd, &rt, e);
    if (sims < 0) {
        err_prefix(e, path);
        n = -1;
        goto done;
    }
    double seconds = util_now() - t0;
    const TrainBest *b = train_best_find(&ts, p->g, p->gr->n_groups);
    if (b && isfinite(b->runtime_us) && pol->arch.n_devices == p->c->n_devices) {
        place_run_groups(p, "placeto-trained", b->group_device, NAN, &rows[n]);
        rows[n++].placements = b->found_after; /* what training had simulated when it found it */
    }
    place_run_groups(p, "placeto", gd, seconds, &rows[n]);
    rows[n++].placements = sims;
done:
    free(gd);
    policy_free(pol);
    train_state_done(&ts);
    return n;
}
