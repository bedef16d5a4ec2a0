/* hsdag_place: placing a graph with a trained HSDAG placer (hsdag_place.h). */
#include "hsdag_place.h"

#include <stdlib.h>
#include <string.h>

#include "hsdag_io.h"

void hsdag_place_state(const HsdagNet *net, const HsdagInput *in, HsdagWork *w, float *x)
{
    size_t GF = (size_t)in->G * (size_t)in->F;
    float *out = xnew_array(GF, sizeof *out);
    int *place = xnew_array((size_t)in->G, sizeof *place);
    memcpy(x, in->xf, GF * sizeof *x);
    for (int t = 0; t + 1 < net->arch.steps; t++) {
        hsdag_forward(net, in, x, w, HSDAG_GREEDY, NULL, place, out);
        for (size_t i = 0; i < GF; i++)
            x[i] += out[i];
    }
    free(place);
    free(out);
}

/* A decode of the network for oneshot_place_decodes, on the last step's state. */
typedef struct HsdagDecode {
    const HsdagNet *net;
    const HsdagInput *in;
    HsdagWork *w;
    float *x;
} HsdagDecode;

static void decode(void *ctx, int greedy, Rng *rng, int *place)
{
    HsdagDecode *d = ctx;
    hsdag_forward(d->net, d->in, d->x, d->w, greedy ? HSDAG_GREEDY : HSDAG_SAMPLE, rng, place, NULL);
}

int64_t hsdag_place(const HsdagNet *net, const Graph *g, const Grouping *gr, const Cluster *c, int samples,
                    uint64_t seed, int *group_device, double *runtime_us, Err *e)
{
    if (net->arch.n_devices != c->n_devices)
        return err_set(e, "the hsdag policy is for %d devices but the cluster has %d", net->arch.n_devices,
                       c->n_devices);
    HsdagInput *in = hsdag_input_new(net, g, gr, c, e);
    if (!in)
        return -1;
    HsdagDecode d = {net, in, hsdag_work_new(&net->arch, in), xnew_array((size_t)in->G * (size_t)in->F, sizeof(float))};
    hsdag_place_state(net, in, d.w, d.x);
    int64_t sims = oneshot_place_decodes(decode, &d, g, gr, c, samples, seed, group_device, runtime_us);
    free(d.x);
    hsdag_work_free(d.w);
    hsdag_input_free(in);
    return sims;
}
