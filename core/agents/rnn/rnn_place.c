/* rnn_place: placing a graph with a trained RNN placer (rnn_place.h). */
#include "rnn_place.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "episode.h"
#include "rnn_hdp.h"
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

/* A hierarchical decode (a grouping, then the placer) for oneshot_place_decodes. */
typedef struct HdpDecode {
    RnnHdpDecoder *d;
    const Graph *g;
    const Grouping *gr;
    const RnnHdpInput *in;
} HdpDecode;

static void decode_hdp(void *ctx, int greedy, Rng *rng, int *place)
{
    HdpDecode *h = ctx;
    rnn_hdp_decode(h->d, h->g, h->gr, h->in, greedy, rng, place);
}

int rnn_place_grouping(const RnnNet *net, const Graph *g, const Grouping *gr, GroupClusterStats *s)
{
    if (net->arch.grouper != RNN_GROUPER_HDP)
        return 0;
    RnnHdpInput *in = rnn_hdp_input_new(g, gr, &net->vocab);
    RnnHdpWork *w = rnn_hdp_work_new(&net->arch, gr->n_groups);
    int *grp = xnew_array((size_t)gr->n_groups, sizeof *grp);
    rnn_hdp_forward(net, in, w, RNN_GREEDY, NULL, grp);
    rnn_hdp_stats(gr, grp, net->arch.n_groups, s);
    free(grp);
    rnn_hdp_work_free(w);
    rnn_hdp_input_free(in);
    return net->arch.n_groups;
}

int64_t rnn_place(const RnnNet *net, const Graph *g, const Grouping *gr, const Cluster *c, int samples,
                  uint64_t seed, int *group_device, double *runtime_us, Err *e)
{
    if (net->arch.n_devices != c->n_devices)
        return err_set(e, "the rnn policy is for %d devices but the cluster has %d", net->arch.n_devices,
                       c->n_devices);
    if (net->arch.grouper == RNN_GROUPER_HDP) { /* any number of groups: the grouper maps them to its learned groups */
        HdpDecode h = {rnn_hdp_decoder_new(net, gr->n_groups), g, gr, rnn_hdp_input_new(g, gr, &net->vocab)};
        int64_t sims = oneshot_place_decodes(decode_hdp, &h, g, gr, c, samples, seed, group_device, runtime_us);
        rnn_hdp_input_free((RnnHdpInput *)h.in);
        rnn_hdp_decoder_free(h.d);
        return sims;
    }
    RnnInput *in = rnn_input_new(g, gr, &net->vocab, net->arch.n_groups, e);
    if (!in)
        return -1;
    RnnDecode d = {net, in, rnn_work_new(&net->arch)};
    int64_t sims = oneshot_place_decodes(decode, &d, g, gr, c, samples, seed, group_device, runtime_us);
    rnn_work_free(d.w);
    rnn_input_free(in);
    return sims;
}
