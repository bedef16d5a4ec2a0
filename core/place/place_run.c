/* place_run: run, time, check and simulate a placement method (see place_run.h). */
#include "place_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Simulates out->op_device and records the result. */
static void score(const Problem *p, PlaceRun *out)
{
    const SimResult *r = sim_run(p->sim, out->op_device);
    size_t nd = (size_t)p->c->n_devices;
    out->runtime_us = r->makespan_us;
    out->oom = r->any_oom;
    out->peak_memory_bytes = xnew_array(nd, sizeof *out->peak_memory_bytes);
    memcpy(out->peak_memory_bytes, r->peak_memory_bytes, nd * sizeof *out->peak_memory_bytes);
    out->group_device = xnew_array((size_t)p->gr->n_groups, sizeof *out->group_device);
    group_collapse(p->gr, out->op_device, out->group_device);
}

int place_run(const Problem *p, const PlaceMethod *m, uint64_t seed, int64_t budget, PlaceRun *out, Err *e)
{
    return place_run_from(p, m, seed, budget, NULL, out, e);
}

int place_run_from(const Problem *p, const PlaceMethod *m, uint64_t seed, int64_t budget, const PlaceStart *start,
                   PlaceRun *out, Err *e)
{
    memset(out, 0, sizeof *out);
    const Graph *g = p->g;
    int64_t simulated = 0;
    PlaceCtx ctx = {.g = g, .gr = p->gr, .c = p->c, .seed = seed, .budget = budget, .simulated = &simulated,
                    .start = start};
    int *dev = xnew_array((size_t)g->n_nodes, sizeof *dev);
    double t0 = util_now();
    if (m->fn(&ctx, dev, e) != 0) {
        free(dev);
        err_prefix(e, m->name);
        return -1;
    }
    double seconds = util_now() - t0;
    for (int i = 0; i < g->n_nodes; i++)
        if (dev[i] < 0 || dev[i] >= p->c->n_devices) {
            err_set(e, "%s: placed op %s on device %d of %d", m->name, g->nodes[i].name, dev[i], p->c->n_devices);
            free(dev);
            return -1;
        }
    out->method = m->name;
    out->seconds = seconds;
    out->placements = simulated;
    out->op_device = dev;
    score(p, out);
    return 0;
}

void place_run_groups(const Problem *p, const char *name, const int *group_device, double seconds,
                      PlaceRun *out)
{
    memset(out, 0, sizeof *out);
    out->method = name;
    out->seconds = seconds;
    out->op_device = xnew_array((size_t)p->g->n_nodes, sizeof *out->op_device);
    group_expand(p->gr, group_device, out->op_device);
    score(p, out);
}

int place_run_kind(const Problem *p, const char *kind, PlaceRun *out, Err *e)
{
    const Cluster *c = p->c;
    int best = -1;
    for (int d = 0; d < c->n_devices; d++) /* the kind's fastest device, the first on ties */
        if (strcmp(c->devices[d].kind, kind) == 0 && (best < 0 || c->devices[d].speed > c->devices[best].speed))
            best = d;
    if (best < 0) {
        char kinds[256] = "";
        size_t used = 0;
        for (int d = 0; d < c->n_devices && used < sizeof kinds; d++) {
            int seen = 0;
            for (int k = 0; k < d; k++)
                seen |= strcmp(c->devices[k].kind, c->devices[d].kind) == 0;
            if (!seen)
                used += (size_t)snprintf(kinds + used, sizeof kinds - used, "%s'%s'", used ? ", " : "",
                                         c->devices[d].kind);
        }
        return err_set(e, "%s-only: cluster '%s' has no device of kind '%s' (its kinds: %s)", kind, c->name, kind,
                       kinds);
    }
    int *gd = xnew_array((size_t)p->gr->n_groups, sizeof *gd);
    for (int k = 0; k < p->gr->n_groups; k++)
        gd[k] = best;
    size_t len = strlen(kind) + sizeof "-only";
    char *name = xmalloc_array(len, 1);
    snprintf(name, len, "%s-only", kind);
    place_run_groups(p, name, gd, 0.0, out);
    out->owned_name = name;
    free(gd);
    return 0;
}

int place_run_kinds(const Problem *p, PlaceRun *rows)
{
    const Cluster *c = p->c;
    int n = 0;
    for (int d = 0; d < c->n_devices; d++) {
        int first = 1;
        for (int k = 0; k < d; k++) /* a kind's row comes with its first device */
            if (strcmp(c->devices[k].kind, c->devices[d].kind) == 0)
                first = 0;
        if (first && place_run_kind(p, c->devices[d].kind, &rows[n], NULL) == 0)
            n++;
    }
    if (n == 1) { /* one kind: the row would repeat `single` */
        place_run_free(&rows[0]);
        n = 0;
    }
    return n;
}

void place_run_free(PlaceRun *r)
{
    free(r->owned_name);
    free(r->peak_memory_bytes);
    free(r->op_device);
    free(r->group_device);
    memset(r, 0, sizeof *r);
}

static int by_runtime(const void *x, const void *y)
{
    const PlaceRun *a = x, *b = y;
    if (a->runtime_us != b->runtime_us)
        return a->runtime_us < b->runtime_us ? -1 : 1;
    return strcmp(a->method, b->method);
}

void place_run_sort(PlaceRun *rows, int n)
{
    qsort(rows, (size_t)n, sizeof *rows, by_runtime);
}
