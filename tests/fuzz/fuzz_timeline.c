/* libFuzzer target: the timeline (layouts/timeline.h) over extreme ranges.
 * The input bytes describe a small graph, its placement and a sequence of
 * view changes:
 *
 *   byte 0      op count n, 1 .. 40
 *   byte 1      device count, 1 .. 8
 *   then per op one cost byte c (cost 10^(c / 17) µs, up to 1e15) and one
 *               device byte; op i depends on op i - 1 - (its device byte % 4)
 *   bytes       the grid size and the lane-name width
 *   the rest    commands, 9 bytes each: a kind, then a double (raw bits, so
 *               NaN, infinities and extremes occur): zoom by the factor,
 *               pan by the amount, set the window's start or end, render,
 *               probe a cell
 *
 * No drawing loop may depend on a floating-point increment: every command
 * must finish, and the grid is never written out of bounds (ASan). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "grid.h"
#include "sim.h"
#include "timeline.h"

typedef struct Bytes {
    const uint8_t *p;
    size_t n, i;
} Bytes;

static int next(Bytes *b)
{
    return b->i < b->n ? b->p[b->i++] : 0;
}

static double next_double(Bytes *b)
{
    uint64_t u = 0;
    for (int k = 0; k < 8; k++)
        u |= (uint64_t)next(b) << (8 * k);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Bytes b = {data, size, 0};
    int n = 1 + next(&b) % 40, nd = 1 + next(&b) % 8;
    Graph *g = graph_new("fuzz");
    int *dev = calloc((size_t)n, sizeof *dev);
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "o%d", i);
        int c = next(&b), d = next(&b);
        int64_t bytes = 1024;
        graph_add_node(g, name, "op", pow(10, c / 17.0), &bytes, 1);
        dev[i] = d % nd;
        if (i > 0)
            graph_add_edge(g, i - 1 - (d % 4 < i ? d % 4 : 0), i, 0);
    }
    Err e = {{0}};
    if (graph_finish(g, &e) != 0) {
        graph_free(g);
        free(dev);
        return 0;
    }
    Cluster *c = cluster_default(nd);
    Sim *s = sim_new(g, c);
    const SimResult *r = sim_run(s, dev);
    Timeline *t = tl_new(g, c, r);
    int gw = 1 + next(&b) % 200, gh = 1 + next(&b) % 60;
    Grid *grid = grid_new(gw, gh);
    TlView v = tl_view_default(t, (GridRect){0, 0, gw, gh});
    v.label_w = next(&b) % 12;
    double limit = r->makespan_us;
    for (int cmd = 0; cmd < 64 && b.i < b.n; cmd++) {
        int kind = next(&b) % 6;
        double x = next_double(&b);
        switch (kind) {
        case 0: tl_zoom(&v.t0, &v.t1, isfinite(x) && x > 0 ? x : 0.5, v.t0, limit); break;
        case 1: tl_pan(&v.t0, &v.t1, isfinite(x) ? x : 0, limit); break;
        case 2: v.t0 = x; break; /* raw windows too: the renderer must cope */
        case 3: v.t1 = x; break;
        case 4: tl_render(t, &v, grid); break;
        default:
            (void)tl_op_at(t, &v, (int)(fabs(x) < 1e6 ? x : 0), gh / 2);
            (void)tl_time_at(t, &v, gw / 2);
            break;
        }
    }
    tl_render(t, &v, grid);
    char buf[64];
    tl_format_tick(buf, sizeof buf, v.t0, tl_tick_step(v.t1 - v.t0, gw, 10));
    grid_free(grid);
    tl_free(t);
    sim_free(s);
    cluster_free(c);
    graph_free(g);
    free(dev);
    return 0;
}
