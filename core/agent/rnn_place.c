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

int rnn_place_runs(const Problem *p, const char *path, int samples, uint64_t seed, PolicyStart start,
                   PlaceRun rows[2], Err *e)
{
    if (start != POLICY_START_DEFAULT)
        return err_set(e, "%s: an rnn policy decodes a whole placement: --start heuristic does not apply", path);
    TrainState ts;
    RnnNet *net = rnn_policy_load(path, &ts, e);
    if (!net) {
        train_state_done(&ts);
        return -1;
    }
    int *gd = xnew_array((size_t)p->gr->n_groups, sizeof *gd);
    double rt = 0, t0 = util_now();
    int n = 0;
    int64_t sims = rnn_place(net, p->g, p->gr, p->c, samples, seed, gd, &rt, e);
    if (sims < 0) {
        err_prefix(e, path);
        n = -1;
        goto done;
    }
    n = policy_place_decoded_rows(p, "rnn", "rnn-trained", &ts, gd, sims, util_now() - t0, rows);
done:
    free(gd);
    rnn_free(net);
    train_state_done(&ts);
    return n;
}
