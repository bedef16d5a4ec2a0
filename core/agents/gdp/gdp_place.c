/* gdp_place: placing a graph with a trained GDP placer (gdp_place.h). */
#include "gdp_place.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "episode.h"
#include "gdp_io.h"
#include "place.h"

/* A decode of the network for oneshot_place_decodes: the placements do not
 * change the network's output, so one forward serves the greedy placement
 * and every sample (gdp_work_pick: the bits of a forward per decode). */
typedef struct GdpDecode {
    const GdpNet *net;
    const GdpInput *in;
    GdpWork *w;
    int ready; /* w holds the forward */
} GdpDecode;

static void decode(void *ctx, int greedy, Rng *rng, int *place)
{
    GdpDecode *d = ctx;
    if (!d->ready)
        gdp_forward(d->net, d->in, d->w, GDP_PROBS, NULL, NULL, NULL, NULL);
    d->ready = 1;
    gdp_work_pick(d->w, greedy ? GDP_GREEDY : GDP_SAMPLE, rng, place, NULL, NULL);
}

int64_t gdp_place(const GdpNet *net, const Graph *g, const Grouping *gr, const Cluster *c, int samples,
                  uint64_t seed, int *group_device, double *runtime_us, Err *e)
{
    if (net->arch.n_devices != c->n_devices)
        return err_set(e, "the gdp policy is for %d devices but the cluster has %d", net->arch.n_devices,
                       c->n_devices);
    GdpInput *in = gdp_input_new(g, gr, &net->vocab, e);
    if (!in)
        return -1;
    GdpDecode d = {net, in, gdp_work_new(&net->arch, gr->n_groups), 0};
    int64_t sims = oneshot_place_decodes(decode, &d, g, gr, c, samples, seed, group_device, runtime_us);
    gdp_work_free(d.w);
    gdp_input_free(in);
    return sims;
}

int gdp_place_runs(const AgentKind *k, const Problem *p, const char *path, const void *net, const TrainState *ts,
                   const AgentPlaceOpts *o, PlaceRun rows[2], const char **start_name, Err *e)
{
    if (o->start != AGENT_START_HEURISTIC)
        return oneshot_place_runs(k, p, path, net, ts, o, rows, start_name, e);
    int G = p->gr->n_groups;
    int *gd = xnew_array((size_t)G, sizeof *gd), *heur = xnew_array((size_t)G, sizeof *heur);
    double rt = 0, t0 = util_now();
    int64_t sims = gdp_place(net, p->g, p->gr, p->c, o->samples, o->seed, gd, &rt, e);
    if (sims < 0) {
        err_prefix(e, path);
        free(heur);
        free(gd);
        return -1;
    }
    PlaceCtx ctx = {.g = p->g, .gr = p->gr, .c = p->c, .seed = o->seed};
    double heur_score;
    const char *name;
    sims += place_best_heuristic(&ctx, heur, &heur_score, &name);
    PlaceEval *pe = place_eval_new(p->g, p->gr, p->c);
    double gdp_score = place_eval(pe, gd); /* on the heuristic's scale (memory included): one more placement */
    sims++;
    if (heur_score < gdp_score) /* the heuristic only when strictly better */
        memcpy(gd, heur, (size_t)G * sizeof *gd);
    place_eval_free(pe);
    if (start_name)
        *start_name = name;
    double seconds = util_now() - t0;
    int n = agent_trained_row(ts, p, k->place.trained_row, rows);
    place_run_groups(p, "gdp-or-heuristic", gd, seconds, &rows[n]);
    rows[n++].placements = sims;
    free(heur);
    free(gd);
    return n;
}
