/* policy_place: placing a graph with a trained policy (see policy_place.h). */
#include "policy_place.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdp_io.h"
#include "gdp_place.h"
#include "hsdag_io.h"
#include "hsdag_place.h"
#include "policy_io.h"
#include "rnn_io.h"
#include "rnn_place.h"
#include "train.h"

int64_t policy_place(const Policy *pol, const Graph *g, const Grouping *gr, const Cluster *c,
                     const EpisodeConfig *cfg, int samples, uint64_t seed, const int *init_device,
                     int *group_device, double *runtime_us, Err *e)
{
    EpisodeConfig given = *cfg;
    if (init_device) {
        given.init = EPISODE_INIT_GIVEN;
        cfg = &given;
    }
    if (episode_check_policy(cfg, &pol->arch, c->n_devices, e) != 0)
        return -1;
    PolicyGraph *pg = policy_graph_new(gr, e);
    if (!pg)
        return -1;
    Episode *ep = episode_new(g, gr, c, pg, cfg, seed, init_device, e);
    if (!ep) {
        policy_graph_free(pg);
        return -1;
    }
    PolicyWork *w = policy_work_new(&pol->arch, pg);
    double best = INFINITY;
    int64_t sims = 0;
    for (int k = 0; k <= samples; k++) {
        if (k > 0)
            episode_reset(ep, seed + (uint64_t)k, init_device);
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

int policy_agent_peek(const char *path, Err *e)
{
    int r = rnn_policy_peek(path, NULL, NULL, NULL, e);
    if (r != 0)
        return r < 0 ? -1 : POLICY_AGENT_RNN;
    if ((r = gdp_policy_peek(path, NULL, NULL, e)) != 0)
        return r < 0 ? -1 : POLICY_AGENT_GDP;
    if ((r = hsdag_policy_peek(path, NULL, NULL, e)) != 0)
        return r < 0 ? -1 : POLICY_AGENT_HSDAG;
    return POLICY_AGENT_PLACETO;
}

int policy_place_runs(const Problem *p, const char *path, int samples, uint64_t seed, PolicyStart start,
                      PlaceRun rows[2], const char **start_name, Err *e)
{
    switch (policy_agent_peek(path, e)) {
    case -1:
        return -1;
    case POLICY_AGENT_RNN:
        return rnn_place_runs(p, path, samples, seed, start, rows, e);
    case POLICY_AGENT_GDP:
        return gdp_place_runs(p, path, samples, seed, start, rows, e);
    case POLICY_AGENT_HSDAG:
        return hsdag_place_runs(p, path, samples, seed, start, rows, e);
    default:
        break;
    }
    TrainState ts;
    Policy *pol = policy_load(path, &ts, e);
    if (!pol)
        return -1;
    EpisodeConfig cfg;
    episode_config_default(&cfg);
    episode_config_features(&cfg, &pol->arch);
    int *gd = xnew_array((size_t)p->gr->n_groups, sizeof *gd), *init = NULL;
    double rt = 0, t0 = util_now();
    int n = 0;
    int64_t pre = 0;
    if (start == POLICY_START_HEURISTIC) {
        PlaceCtx ctx = {p->g, p->gr, p->c, seed, 0, NULL};
        double score;
        const char *name;
        init = xnew_array((size_t)p->gr->n_groups, sizeof *init);
        pre = place_best_heuristic(&ctx, init, &score, &name);
        if (start_name)
            *start_name = name;
    }
    int64_t sims = policy_place(pol, p->g, p->gr, p->c, &cfg, samples, seed, init, gd, &rt, e);
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
    place_run_groups(p, start == POLICY_START_HEURISTIC ? "placeto-refine" : "placeto", gd, seconds, &rows[n]);
    rows[n++].placements = pre + sims;
done:
    free(init);
    free(gd);
    policy_free(pol);
    train_state_done(&ts);
    return n;
}

int64_t policy_place_decodes(PolicyDecode decode, void *ctx, const Graph *g, const Grouping *gr,
                             const Cluster *c, int samples, uint64_t seed, int *group_device, double *runtime_us)
{
    Sim *sim = sim_new(g, c);
    EpisodeConfig env;
    episode_config_default(&env);
    int *place = xnew_array((size_t)gr->n_groups, sizeof *place);
    int *op = xnew_array((size_t)g->n_nodes, sizeof *op);
    Rng rng;
    rng_seed(&rng, seed);
    double best = INFINITY;
    for (int k = 0; k <= samples; k++) {
        decode(ctx, k == 0, &rng, place);
        group_expand(gr, place, op);
        const SimResult *r = sim_run(sim, op);
        double score = episode_score(&env, c, r);
        if (score < best) {
            best = score;
            *runtime_us = r->makespan_us;
            memcpy(group_device, place, (size_t)gr->n_groups * sizeof *group_device);
        }
    }
    free(op);
    free(place);
    sim_free(sim);
    return 1 + (int64_t)samples;
}

int policy_place_oneshot_runs(const Problem *p, const char *path, const PolicyOneShot *a, int samples,
                              uint64_t seed, PlaceRun rows[2], Err *e)
{
    TrainState ts;
    void *net = a->load(path, &ts, e);
    if (!net) {
        train_state_done(&ts);
        return -1;
    }
    int *gd = xnew_array((size_t)p->gr->n_groups, sizeof *gd);
    double rt = 0, t0 = util_now();
    int n = 0;
    int64_t sims = a->place(net, p->g, p->gr, p->c, samples, seed, gd, &rt, e);
    if (sims < 0) {
        err_prefix(e, path);
        n = -1;
        goto done;
    }
    double seconds = util_now() - t0;
    const TrainBest *b = train_best_find(&ts, p->g, p->gr->n_groups);
    if (b && isfinite(b->runtime_us)) {
        place_run_groups(p, a->trained, b->group_device, NAN, &rows[n]);
        rows[n++].placements = b->found_after;
    }
    place_run_groups(p, a->name, gd, seconds, &rows[n]);
    rows[n++].placements = sims;
done:
    free(gd);
    a->free(net);
    train_state_done(&ts);
    return n;
}
