/* placeto_place: placing a graph with a trained policy (see placeto_place.h). */
#include "placeto_place.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placeto_episode.h"

int64_t placeto_place(const Policy *pol, const Graph *g, const Grouping *gr, const Cluster *c,
                     const EpisodeConfig *cfg, int samples, int64_t budget, uint64_t seed, const int *init_device,
                     int *group_device, double *runtime_us, Err *e)
{
    EpisodeConfig given = *cfg;
    if (init_device) {
        given.init = EPISODE_INIT_GIVEN;
        cfg = &given;
    }
    if (placeto_episode_check(cfg, &pol->arch, c->n_devices, e) != 0)
        return -1;
    PolicyGraph *pg = policy_graph_new(gr, e);
    if (!pg)
        return -1;
    Episode *ep = episode_new(g, gr, c, pg, cfg, seed, init_device, e);
    if (!ep) {
        policy_graph_free(pg);
        return -1;
    }
    if (budget > 0) /* a search: every episode after the first starts from a given placement */
        ep->cfg.init = EPISODE_INIT_GIVEN;
    PolicyWork *w = policy_work_new(&pol->arch, pg);
    double best = INFINITY;
    int64_t sims = 0;
    int n = gr->n_groups, *from = budget > 0 ? xnew_array((size_t)n, sizeof *from) : NULL;
    Rng kick;
    rng_seed(&kick, seed ^ PLACETO_SEARCH_KICK_SEED);
    /* with a budget, a search: the greedy episode, then sampled ones, each
     * from the best placement so far, or from a kick of it when the episode
     * before kept no move (a local optimum for the policy), until the budget
     * is spent; the last one stopped where it runs out (every episode's
     * start is one of its placements). Without one: the greedy episode and
     * `samples` sampled ones, each from the start. */
    for (int k = 0; budget > 0 ? sims < budget : k <= samples; k++) {
        if (k > 0 && from) {
            memcpy(from, group_device, (size_t)n * sizeof *from);
            if (!(ep->best_score < ep->init_score))
                place_kick(from, n, c->n_devices, &kick);
            episode_reset(ep, seed + (uint64_t)k, from);
        } else if (k > 0) {
            episode_reset(ep, seed + (uint64_t)k, init_device);
        }
        while (!episode_done(ep) && (budget <= 0 || sims + ep->simulations < budget))
            placeto_episode_step(ep, pol, w, k == 0, NULL);
        sims += ep->simulations;
        if (ep->best_score < best) {
            best = ep->best_score;
            *runtime_us = ep->best_runtime_us;
            memcpy(group_device, ep->best_device, (size_t)n * sizeof *group_device);
        }
    }
    free(from);
    policy_work_free(w);
    episode_free(ep);
    policy_graph_free(pg);
    return sims;
}

int64_t placeto_place_procedure(const Policy *pol, const Graph *g, const Grouping *gr, const Cluster *c,
                               AgentStart start, int samples, int64_t budget, uint64_t seed, int *group_device,
                               double *runtime_us, int64_t *heuristics, const char **start_name, Err *e)
{
    if (pol->arch.start_heuristic) { /* trained as a search: it searches from the best heuristic's placement */
        start = AGENT_START_HEURISTIC;
        if (budget <= 0)
            budget = PLACETO_SEARCH_BUDGET;
    }
    EpisodeConfig cfg;
    episode_config_default(&cfg);
    placeto_episode_config(&cfg, &pol->arch);
    int n = gr->n_groups, *init = NULL;
    int64_t pre = 0, sims;
    *runtime_us = NAN;
    if (start == AGENT_START_HEURISTIC) {
        PlaceCtx ctx = {.g = g, .gr = gr, .c = c, .seed = seed, .budget = budget};
        double score;
        const char *name;
        init = xnew_array((size_t)n, sizeof *init);
        pre = budget > 0 ? place_search_start(&ctx, init, &score, &name) : place_best_heuristic(&ctx, init, &score, &name);
        if (start_name)
            *start_name = name;
    }
    if (budget > 0 && pre >= budget) { /* the budget went on the heuristics: the best of them */
        memcpy(group_device, init, (size_t)n * sizeof *group_device);
        sims = 0;
    } else {
        sims = placeto_place(pol, g, gr, c, &cfg, samples, budget > 0 ? budget - pre : 0, seed, init, group_device,
                            runtime_us, e);
    }
    free(init);
    if (heuristics)
        *heuristics = pre;
    return sims;
}

int placeto_place_runs(const AgentKind *k, const Problem *p, const char *path, const void *net,
                       const TrainState *ts, const AgentPlaceOpts *o, PlaceRun rows[2], const char **start_name,
                       Err *e)
{
    (void)k;
    const Policy *pol = net;
    const char *sname = NULL;
    int *gd = xnew_array((size_t)p->gr->n_groups, sizeof *gd);
    double rt, t0 = util_now();
    int n = 0;
    int64_t pre = 0;
    int64_t sims = placeto_place_procedure(pol, p->g, p->gr, p->c, o->start, o->samples, o->budget, o->seed, gd, &rt,
                                          &pre, &sname, e);
    if (sims < 0) {
        err_prefix(e, path);
        free(gd);
        return -1;
    }
    if (start_name && sname)
        *start_name = sname;
    double seconds = util_now() - t0;
    if (pol->arch.n_devices == p->c->n_devices)
        n += agent_trained_row(ts, p, "placeto-trained", &rows[n]);
    place_run_groups(p, sname ? "placeto-refine" : "placeto", gd, seconds, &rows[n]);
    rows[n++].placements = pre + sims;
    free(gd);
    return n;
}
