/* gdp_place: placing a graph with a trained GDP placer (gdp_place.h). */
#include "gdp_place.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "episode.h"
#include "gdp_io.h"

int64_t gdp_place(const GdpNet *net, const Graph *g, const Grouping *gr, const Cluster *c, int samples,
                  uint64_t seed, int *group_device, double *runtime_us, Err *e)
{
    if (net->arch.n_devices != c->n_devices)
        return err_set(e, "the gdp policy is for %d devices but the cluster has %d", net->arch.n_devices,
                       c->n_devices);
    GdpInput *in = gdp_input_new(g, gr, &net->vocab, e);
    if (!in)
        return -1;
    GdpWork *w = gdp_work_new(&net->arch, gr->n_groups);
    Sim *sim = sim_new(g, c);
    EpisodeConfig env;
    episode_config_default(&env);
    int *place = xnew_array((size_t)gr->n_groups, sizeof *place);
    int *op = xnew_array((size_t)g->n_nodes, sizeof *op);
    Rng rng;
    rng_seed(&rng, seed);
    double best = INFINITY;
    for (int k = 0; k <= samples; k++) {
        gdp_forward(net, in, w, k == 0 ? GDP_GREEDY : GDP_SAMPLE, &rng, place, NULL, NULL);
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
    gdp_work_free(w);
    gdp_input_free(in);
    return 1 + (int64_t)samples;
}

int gdp_place_runs(const Problem *p, const char *path, int samples, uint64_t seed, PolicyStart start,
                   PlaceRun rows[2], Err *e)
{
    if (start != POLICY_START_DEFAULT)
        return err_set(e, "%s: a gdp policy places every group at once: --start heuristic does not apply", path);
    TrainState ts;
    GdpNet *net = gdp_policy_load(path, &ts, e);
    if (!net) {
        train_state_done(&ts);
        return -1;
    }
    int *gd = xnew_array((size_t)p->gr->n_groups, sizeof *gd);
    double rt = 0, t0 = util_now();
    int n = 0;
    int64_t sims = gdp_place(net, p->g, p->gr, p->c, samples, seed, gd, &rt, e);
    if (sims < 0) {
        err_prefix(e, path);
        n = -1;
        goto done;
    }
    double seconds = util_now() - t0;
    const TrainBest *b = train_best_find(&ts, p->g, p->gr->n_groups);
    if (b && isfinite(b->runtime_us)) {
        place_run_groups(p, "gdp-trained", b->group_device, NAN, &rows[n]);
        rows[n++].placements = b->found_after;
    }
    place_run_groups(p, "gdp", gd, seconds, &rows[n]);
    rows[n++].placements = sims;
done:
    free(gd);
    gdp_free(net);
    train_state_done(&ts);
    return n;
}
