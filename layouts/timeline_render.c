/* timeline_render: drawing a Timeline through a TlView, and the reverse
 * mapping from grid cells to times and ops (timeline.h). Column c of the
 * lane area shows [t0 + c*dt, t0 + (c+1)*dt). */
#include <math.h>
#include <stdio.h>

#include "timeline.h"

typedef struct Ctx {
    const Timeline *t;
    const TlView *v;
    Grid *g;
    int x0, w;  /* the lane area: grid columns x0 .. x0 + w - 1 */
    double dt;  /* µs per column */
} Ctx;

/* Columns an interval occupies: 1 with [*a, *b] for the columns whose middle
 * it covers, 2 with *a == *b for the column of its middle when it covers
 * none, 0 when it is outside the window. */
static int span_of(const Ctx *c, double s, double e, int *a, int *b)
{
    double fa = ceil((s - c->v->t0) / c->dt - 0.5), fb = ceil((e - c->v->t0) / c->dt - 0.5) - 1;
    fa = fa < 0 ? 0 : fa;
    fb = fb > c->w - 1 ? c->w - 1 : fb;
    if (fa <= fb && fa < c->w && fb >= 0) { /* finite: clamped to the columns */
        *a = (int)fa;
        *b = (int)fb;
        return 1;
    }
    double m = floor(((s + e) / 2 - c->v->t0) / c->dt);
    if (!(m >= 0 && m < c->w) || e < c->v->t0 || s > c->v->t1) /* NaN too */
        return 0;
    *a = *b = (int)m;
    return 2;
}

static int label_width(const Timeline *t, const TlView *v)
{
    if (v->label_w > 0)
        return v->label_w;
    int w = 6;
    for (int d = 0; d < t->n_devices; d++) {
        int n = grid_text_width(t->c->devices[d].name) + 1;
        w = n > w ? n : w;
    }
    w = w > 14 ? 14 : w;
    return w > v->dst.w / 3 ? v->dst.w / 3 : w;
}

/* v with a window that can be drawn: a window that is not finite, or not
 * wider than zero, is the whole run instead (the explorer never sets one,
 * but a view is plain data and every drawing loop must end). */
static TlView sane_view(const Timeline *t, const TlView *v)
{
    TlView s = *v;
    if (!(isfinite(s.t0) && isfinite(s.t1) && s.t1 > s.t0 && isfinite(s.t1 - s.t0))) {
        double end = t->r->makespan_us;
        s.t0 = 0;
        s.t1 = isfinite(end) && end > 0 ? end : 1;
    }
    return s;
}

static Ctx make_ctx(const Timeline *t, const TlView *v, Grid *g)
{
    int lw = label_width(t, v), w = v->dst.w - lw;
    Ctx c = {t, v, g, v->dst.x + lw, w > 0 ? w : 0, 1};
    if (c.w > 0 && v->t1 > v->t0)
        c.dt = (v->t1 - v->t0) / c.w;
    return c;
}

static void draw_axis(const Ctx *c)
{
    int y = c->v->dst.y, next = 0;
    grid_hline(c->g, c->x0, y + 1, c->w, GS_AXIS);
    double step = tl_tick_step(c->v->t1 - c->v->t0, c->w, 10);
    double k0 = ceil(c->v->t0 / step - 1e-9);
    /* an integer count of ticks, at most one per column: no loop here
       depends on a floating-point increment (k0 + i may not change near 2^53) */
    for (int i = 0; i <= c->w; i++) {
        double tk = (k0 + i) * step;
        double fcol = floor((tk - c->v->t0) / c->dt + 1e-9);
        if (!(fcol < c->w)) /* past the end, or NaN */
            break;
        int col = fcol < 0 ? 0 : (int)fcol;
        char buf[32];
        tl_format_tick(buf, sizeof buf, tk, step);
        int len = grid_text_width(buf);
        grid_line(c->g, c->x0 + col, y + 1, GRID_S, GS_AXIS);
        if (col >= next && col + len <= c->w) {
            grid_text(c->g, c->x0 + col, y, buf, GS_AXIS);
            next = col + len + 1;
        }
    }
}

static int op_pen(const Ctx *c, int op)
{
    int group = c->v->op_group ? c->v->op_group[op] : -1, dev = c->t->r->device[op];
    if (group >= 0 && group == c->v->selected_group)
        return GRID_PEN(GS_SELECTED, dev);
    if (c->v->by_group && group >= 0)
        return GRID_PEN(GS_GROUP, group);
    return GRID_PEN(GS_DEVICE, dev);
}

static const char *op_label(const Ctx *c, int op)
{
    int group = c->v->op_group ? c->v->op_group[op] : -1;
    if (group >= 0 && c->v->group_names)
        return c->v->group_names[group];
    return c->t->g->nodes[op].name;
}

/* A block over columns [a, b]: ends where the op starts/ends inside the
 * window, the label inside, filled. */
static void draw_block(const Ctx *c, int y, int a, int b, int op, int pen)
{
    const SimResult *r = c->t->r;
    if (a == b) {
        grid_put(c->g, c->x0 + a, y, GRID_FULL, pen);
        return;
    }
    int ia = a, ib = b;
    if (r->start_us[op] >= c->v->t0)
        grid_put(c->g, c->x0 + ia++, y, GRID_BLOCK_L, pen);
    if (r->end_us[op] <= c->v->t1)
        grid_put(c->g, c->x0 + ib--, y, GRID_BLOCK_R, pen);
    /* a label only where at least 3 of its characters (or all) fit */
    const char *label = op_label(c, op);
    int room = ib - ia + 1, len = grid_text_width(label);
    int used = room >= 4 || (room >= 1 && len <= room) ? grid_text_fit(c->g, c->x0 + ia, y, label, room, pen) : 0;
    for (int x = ia + used; x <= ib; x++)
        grid_put(c->g, c->x0 + x, y, GRID_FULL, pen);
}

/* Is the lane cell at column col still free (idle or blank)? */
static int cell_free(const Ctx *c, int col, int y)
{
    const GridCell *cell = grid_at(c->g, c->x0 + col, y);
    return cell && (cell->ch == ' ' || cell->ch == GRID_SHADE);
}

static void draw_ops(const Ctx *c, int d, int y)
{
    const Timeline *t = c->t;
    const SimResult *r = t->r;
    const uint8_t *crit = c->v->critical ? c->v->critical : t->op_crit;
    int a, b;
    if (span_of(c, 0, t->end_us, &a, &b) == 1)
        grid_fill(c->g, (GridRect){c->x0 + a, y, b - a + 1, 1}, GRID_SHADE, GS_IDLE);
    for (int pass = 1; pass <= 2; pass++) /* blocks first, then narrow ops in free cells */
        for (int i = t->dev_off[d]; i < t->dev_off[d + 1]; i++) {
            int op = t->dev_ops[i];
            if (r->end_us[op] <= r->start_us[op] || span_of(c, r->start_us[op], r->end_us[op], &a, &b) != pass)
                continue;
            if (pass == 2 && !cell_free(c, a, y))
                continue;
            draw_block(c, y, a, b, op, op_pen(c, op));
            if (crit[op])
                grid_fill(c->g, (GridRect){c->x0 + a, y + 1, b - a + 1, 1}, GRID_MARK, GS_CRITICAL);
        }
}

static void draw_transfers(const Ctx *c, int d, int y)
{
    const Timeline *t = c->t;
    for (int i = t->bus_off[d]; i < t->bus_off[d + 1]; i++) {
        const SimTransfer *x = &t->r->transfers[t->bus_tr[i]];
        int a, b, kind = span_of(c, x->start_us, x->end_us, &a, &b);
        int pen = t->tr_crit[t->bus_tr[i]] ? GS_CRITICAL : GS_TRANSFER;
        if (kind == 0 || (kind == 2 && !cell_free(c, a, y)))
            continue;
        if (pen == GS_CRITICAL) /* double line: visible without colour too */
            grid_fill(c->g, (GridRect){c->x0 + a, y, b - a + 1, 1}, GRID_DOUBLE, pen);
        else
            grid_hline(c->g, c->x0 + a, y, b - a + 1, pen);
        if (x->end_us <= c->v->t1)
            grid_put(c->g, c->x0 + b, y, GRID_ARROW_RIGHT, pen);
        char to[40];
        int len = 0;
        for (int k = 0; k < x->n_to && len < 30; k++)
            len += snprintf(to + len, sizeof to - (size_t)len, "%s%d", k ? "," : "d", x->to[k]);
        if (b - a + 1 >= len + 3)
            grid_text(c->g, c->x0 + a + 1, y, to, pen);
    }
}

void tl_render(const Timeline *t, const TlView *view, Grid *g)
{
    TlView fixed = sane_view(t, view);
    const TlView *v = &fixed;
    Ctx c = make_ctx(t, v, g);
    if (c.w <= 0)
        return;
    grid_clip(g, v->dst);
    draw_axis(&c);
    for (int d = v->first_device > 0 ? v->first_device : 0; d < t->n_devices; d++) {
        int y = v->dst.y + TL_AXIS_ROWS + (d - v->first_device) * TL_LANE_ROWS;
        if (y >= v->dst.y + v->dst.h)
            break;
        grid_text_fit(g, v->dst.x, y, t->c->devices[d].name, c.x0 - v->dst.x - 1, GS_LABEL);
        grid_text_fit(g, v->dst.x, y + 2, "  bus", c.x0 - v->dst.x - 1, GS_DIM);
        draw_ops(&c, d, y);
        draw_transfers(&c, d, y + 2);
    }
    grid_unclip(g);
}

TlView tl_view_default(const Timeline *t, GridRect dst)
{
    TlView v = {0};
    v.t0 = 0;
    v.t1 = t->end_us > 0 ? t->end_us : 1;
    v.dst = dst;
    v.selected_group = -1;
    return v;
}

double tl_time_at(const Timeline *t, const TlView *view, int gx)
{
    TlView fixed = sane_view(t, view);
    const TlView *v = &fixed;
    Ctx c = make_ctx(t, v, NULL);
    return v->t0 + (gx - c.x0 + 0.5) * c.dt;
}

int tl_op_at(const Timeline *t, const TlView *view, int gx, int gy)
{
    TlView fixed = sane_view(t, view);
    const TlView *v = &fixed;
    Ctx c = make_ctx(t, v, NULL);
    int rel = gy - v->dst.y - TL_AXIS_ROWS, col = gx - c.x0;
    if (rel < 0 || rel % TL_LANE_ROWS == 2 || col < 0 || col >= c.w || gx >= v->dst.x + v->dst.w)
        return -1;
    int d = (v->first_device > 0 ? v->first_device : 0) + rel / TL_LANE_ROWS, narrow = -1;
    if (d >= t->n_devices)
        return -1;
    for (int i = t->dev_off[d]; i < t->dev_off[d + 1]; i++) { /* a wide op wins over a narrow one */
        int op = t->dev_ops[i], a, b;
        if (t->r->end_us[op] <= t->r->start_us[op])
            continue;
        int kind = span_of(&c, t->r->start_us[op], t->r->end_us[op], &a, &b);
        if (kind == 1 && a <= col && col <= b)
            return op;
        if (kind == 2 && a == col && narrow < 0)
            narrow = op;
    }
    return narrow;
}
