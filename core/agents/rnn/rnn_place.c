/* rnn_place: placing a graph with a trained RNN placer (rnn_place.h). */
#include "rnn_place.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "episode.h"
#include "rnn_io.h"

/* A decode of the network for oneshot_place_decodes. */
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
    int64_t sims = oneshot_place_decodes(decode, &d, g, gr, c, samples, seed, group_device, runtime_us);
    rnn_work_free(d.w);
    rnn_input_free(in);
    return sims;
}
