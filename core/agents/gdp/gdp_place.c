/* gdp_place: placing a graph with a trained GDP placer (gdp_place.h). */
#include "gdp_place.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "episode.h"
#include "gdp_io.h"

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
