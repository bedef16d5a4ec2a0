/* timeline: the index, the critical path, the window arithmetic and the
 * axis ticks (timeline.h). Drawing is in timeline_render.c. */
#include "timeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "critpath.h"
#include "util.h"

typedef struct ByStart {
    double t, end;
    int i;
} ByStart;

/* Start, then end (an instant op at t runs before one that starts at t and
 * lasts), then index. */
static int by_start_cmp(const void *a, const void *b)
{
    const ByStart *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return x->i - y->i;
}

/* Buckets items 0..n-1 by key[i] (a device) in (start, end) order, as CSR. */
static void bucket(int n, int nd, const int *key, const double *start, const double *end, int **off_out,
                   int **items_out)
{
    int *off = XNEW(int, nd + 2), *items = XMALLOC(int, n); /* off: shifted by one while filled */
    ByStart *tmp = XMALLOC(ByStart, n);
    for (int i = 0; i < n; i++)
        off[key[i] + 2]++;
    for (int d = 0; d < nd; d++)
        off[d + 2] += off[d + 1];
    for (int i = 0; i < n; i++)
        tmp[off[key[i] + 1]++] = (ByStart){start[i], end[i], i};
    for (int d = 0; d < nd; d++)
        qsort(tmp + off[d], (size_t)(off[d + 1] - off[d]), sizeof *tmp, by_start_cmp);
    for (int i = 0; i < n; i++)
        items[i] = tmp[i].i;
    free(tmp);
    *off_out = off;
    *items_out = items;
}

/* The critical path (core/sim/critpath.c, the same walk the DOT export
 * marks). */
static void critical_path(Timeline *t)
{
    int *path = XMALLOC(int, t->r->n_ops), n_path = 0;
    sim_critical_path(t->g, t->c, t->r, path, &n_path, t->op_crit, t->tr_crit);
    free(path);
}

Timeline *tl_new(const Graph *g, const Cluster *c, const SimResult *r)
{
    Timeline *t = xcalloc(1, sizeof *t);
    t->g = g;
    t->c = c;
    t->r = r;
    t->n_devices = r->n_devices;
    t->end_us = r->makespan_us;
    bucket(r->n_ops, r->n_devices, r->device, r->start_us, r->end_us, &t->dev_off, &t->dev_ops);
    int nt = r->n_transfers;
    int *from = XMALLOC(int, nt);
    double *start = XMALLOC(double, nt), *end = XMALLOC(double, nt);
    for (int k = 0; k < r->n_transfers; k++) {
        from[k] = r->transfers[k].from;
        start[k] = r->transfers[k].start_us;
        end[k] = r->transfers[k].end_us;
    }
    bucket(r->n_transfers, r->n_devices, from, start, end, &t->bus_off, &t->bus_tr);
    free(from);
    free(start);
    free(end);
    t->op_crit = XNEW(uint8_t, r->n_ops);
    t->tr_crit = XNEW(uint8_t, r->n_transfers);
    critical_path(t);
    return t;
}

void tl_free(Timeline *t)
{
    if (!t)
        return;
    free(t->dev_off);
    free(t->dev_ops);
    free(t->bus_off);
    free(t->bus_tr);
    free(t->op_crit);
    free(t->tr_crit);
    free(t);
}

/* ---- window arithmetic ---- */

static void clamp_window(double *t0, double *t1, double limit)
{
    double span = *t1 - *t0;
    if (limit < span)
        limit = span;
    if (*t0 < 0) {
        *t0 = 0;
        *t1 = span;
    }
    if (*t1 > limit) {
        *t1 = limit;
        *t0 = limit - span;
    }
}

void tl_zoom(double *t0, double *t1, double factor, double anchor, double limit)
{
    double span = *t1 - *t0, ns = span * factor;
    /* at least 1 µs, and wide enough that the window's ends stay distinct
       doubles (a window of 1 µs at 1e18 µs would have t1 == t0) */
    double min_span = fmax(1.0, fmax(fabs(anchor), fabs(limit)) * 1e-12);
    if (!(ns >= min_span))
        ns = min_span;
    if (limit > 0 && ns > limit)
        ns = limit;
    double rel = span > 0 ? (anchor - *t0) / span : 0.5;
    rel = rel < 0 ? 0 : rel > 1 ? 1 : rel;
    *t0 = anchor - rel * ns;
    *t1 = *t0 + ns;
    clamp_window(t0, t1, limit);
}

void tl_pan(double *t0, double *t1, double dt, double limit)
{
    *t0 += dt;
    *t1 += dt;
    clamp_window(t0, t1, limit);
}

/* ---- ticks ---- */

double tl_tick_step(double span, int width, int min_cols)
{
    if (!(span > 0) || width <= 0)
        return 1;
    double want = span * (min_cols > 0 ? min_cols : 1) / width, p = pow(10, floor(log10(want)));
    static const double mult[] = {1, 2, 5, 10};
    for (int i = 0; i < 4; i++)
        if (mult[i] * p >= want * (1 - 1e-12))
            return mult[i] * p;
    return 10 * p;
}

int tl_format_tick(char *buf, size_t cap, double us, double step)
{
    if (us == 0)
        return snprintf(buf, cap, "0");
    const char *unit = "\xC2\xB5s"; /* µs */
    double scale = 1;
    if (step >= 1e6) {
        unit = "s";
        scale = 1e6;
    } else if (step >= 1e3) {
        unit = "ms";
        scale = 1e3;
    }
    double v = us / scale;
    int dec = 0; /* as few decimals as show the value exactly */
    while (dec < 6 && fabs(v * pow(10, dec) - nearbyint(v * pow(10, dec))) > 1e-6)
        dec++;
    return snprintf(buf, cap, "%.*f %s", dec, v, unit);
}
