/* place: the method table and the simple baselines (single device, random,
 * round-robin). The list-scheduling methods live in place_list.c, the
 * partitioners in place_part.c. */
#include "place.h"

#include <stdlib.h>
#include <string.h>

#include "place_methods.h"

int place_fastest_device(const Cluster *c)
{
    int best = 0;
    for (int d = 1; d < c->n_devices; d++)
        if (c->devices[d].speed > c->devices[best].speed)
            best = d;
    return best;
}

int64_t place_default_budget(const Graph *g)
{
    int64_t n = g->n_nodes > 0 ? g->n_nodes : 1, b = PLACE_DEFAULT_WORK / n / 100 * 100;
    return b > PLACE_DEFAULT_BUDGET ? PLACE_DEFAULT_BUDGET : b < PLACE_MIN_DEFAULT_BUDGET ? PLACE_MIN_DEFAULT_BUDGET : b;
}

double place_group_cost(const PlaceCtx *ctx, int k, int d)
{
    double s = 0;
    const Grouping *gr = ctx->gr;
    for (int j = gr->member_off[k]; j < gr->member_off[k + 1]; j++)
        s += cluster_op_cost(ctx->c, ctx->g, gr->members[j], d);
    return s;
}

/* Everything on the fastest device. */
static int place_single(const PlaceCtx *ctx, int *op_device, Err *e)
{
    (void)e;
    int d = place_fastest_device(ctx->c);
    for (int i = 0; i < ctx->g->n_nodes; i++)
        op_device[i] = d;
    return 0;
}

/* Every group on a device drawn uniformly (seeded). */
static int place_random(const PlaceCtx *ctx, int *op_device, Err *e)
{
    (void)e;
    Rng r;
    rng_seed(&r, ctx->seed);
    int *gd = xmalloc_array((size_t)ctx->gr->n_groups, sizeof *gd);
    for (int k = 0; k < ctx->gr->n_groups; k++)
        gd[k] = (int)rng_below(&r, (uint64_t)ctx->c->n_devices);
    group_expand(ctx->gr, gd, op_device);
    free(gd);
    return 0;
}

/* Groups in topological order dealt to the devices in turn. */
static int place_round_robin(const PlaceCtx *ctx, int *op_device, Err *e)
{
    (void)e;
    int *gd = xmalloc_array((size_t)ctx->gr->n_groups, sizeof *gd);
    for (int k = 0; k < ctx->gr->n_groups; k++) /* group ids are a topological order */
        gd[k] = k % ctx->c->n_devices;
    group_expand(ctx->gr, gd, op_device);
    free(gd);
    return 0;
}

static const PlaceMethod methods[] = {
    {"single", "every op on the fastest device", place_single},
    {"random", "every group on a random device (seeded)", place_random},
    {"round-robin", "groups in topological order dealt to the devices in turn", place_round_robin},
    PLACE_LIST_METHODS
    PLACE_PART_METHODS
    PLACE_SEARCH_METHODS
};

const PlaceMethod *place_methods(int *count)
{
    *count = (int)(sizeof methods / sizeof methods[0]);
    return methods;
}

const PlaceMethod *place_find(const char *name)
{
    int n;
    const PlaceMethod *m = place_methods(&n);
    for (int k = 0; k < n; k++)
        if (strcmp(m[k].name, name) == 0)
            return &m[k];
    return NULL;
}
