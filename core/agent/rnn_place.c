/* rnn_place: placing a graph with a trained RNN placer (rnn_place.h). */
#include "rnn_place.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "episode.h"
#include "rnn_io.h"

/* A decode of the network for policy_place_decodes. */
typedef struct RnnDecode {
    const RnnNet *net;
    const RnnInput *in;
    RnnWork *w;
} RnnDecode;

static void decode(void *ctx, int greedy, Rng *rng, int *place)
{
    RnnDecode *d = ctx;
    rnn_forward(d->net, d->in, d->w, greedy ? RNN_GREEDY : RNN_SAMPLE, rng, place, NULL, NULL);
}

int64_t rnn_place(const RnnNet *net, const Graph *g, const Grouping *gr, const Cluster *c, int samples,
                  uint64_t seed, int *group_device, double *runtime_us, Err *e)
{
    if (net->arch.n_devices != c->n_devices)
        return err_set(e, "the rnn policy is for %d devices but the cluster has %d", net->arch.n_devices,
                       c->n_devices);
    RnnInput *in = rnn_input_new(g, gr, &net->vocab, net->arch.n_groups, e);
    if (!in)
        return -1;
    RnnDecode d = {net, in, rnn_work_new(&net->arch)};
    int64_t sims = policy_place_decodes(decode, &d, g, gr, c, samples, seed, group_device, runtime_us);
    rnn_work_free(d.w);
    rnn_input_free(in);
    return sims;
}

static void *load(const char *path, TrainState *ts, Err *e) { return rnn_policy_load(path, ts, e); }
static int64_t place(const void *net, const Graph *g, const Grouping *gr, const Cluster *c, int samples,
                     uint64_t seed, int *group_device, double *runtime_us, Err *e)
{
    return rnn_place(net, g, gr, c, samples, seed, group_device, runtime_us, e);
}
static void net_free(void *net) { rnn_free(net); }

int rnn_place_runs(const Problem *p, const char *path, int samples, uint64_t seed, PolicyStart start,
                   PlaceRun rows[2], Err *e)
{
    if (start != POLICY_START_DEFAULT)
        return err_set(e, "%s: an rnn policy decodes a whole placement: --start heuristic does not apply", path);
    static const PolicyOneShot agent = {"rnn", "rnn-trained", load, place, net_free};
    return policy_place_oneshot_runs(p, path, &agent, samples, seed, rows, e);
}
