/* dag_render: draws a DagLayout through a viewport (dag.h). Order: edge
 * routes (plain, then those of the current node, then critical ones, so
 * the more important style wins where lines merge), arrow heads, then nodes
 * on top (a box border merges with the stubs leaving it). Only visible
 * layers and vertices are visited; routes are clipped segment by segment. */
#include <stdio.h>

#include "dag_impl.h"

enum { EDGE_PLAIN, EDGE_HI, EDGE_CRIT, EDGE_CLASSES };

typedef struct Ctx {
    const DagLayout *L;
    const DagGeom *G;
    const DagView *v;
    Grid *g;
    int zoom;
    int ox, oy;   /* grid = canvas + (ox, oy) */
    GridRect vis; /* visible canvas cells */
} Ctx;

int dag_plain_pen(const DagView *v, int u)
{
    int dev = v->device ? v->device[u] : -1;
    if (v->colour)
        return GRID_PEN(GS_GROUP, v->colour[u]);
    return dev >= 0 ? GRID_PEN(GS_DEVICE, dev) : GS_NODE;
}

static int node_pen(const DagView *v, int u)
{
    int st = v->style ? v->style[u] : 0, dev = v->device ? v->device[u] : -1;
    return st ? GRID_PEN(st, dev >= 0 ? dev : 0) : dag_plain_pen(v, u);
}

static int edge_class(const Ctx *c, int e)
{
    int a = c->L->edge_src[e], b = c->L->edge_dst[e];
    if (c->v->critical && c->v->critical[a] && c->v->critical[b])
        return EDGE_CRIT;
    if (c->v->style && (c->v->style[a] == GS_CURRENT || c->v->style[b] == GS_CURRENT))
        return EDGE_HI;
    return EDGE_PLAIN;
}

static int imax(int a, int b) { return a > b ? a : b; }
static int imin(int a, int b) { return a < b ? a : b; }

/* One axis-parallel segment, clipped to the visible cells. */
static void segment(const Ctx *c, DagPoint a, DagPoint b, int pen)
{
    const GridRect *r = &c->vis;
    if (a.x == b.x) {
        int y0 = imin(a.y, b.y), y1 = imax(a.y, b.y);
        if (a.x < r->x || a.x >= r->x + r->w)
            return;
        for (int y = imax(y0, r->y); y <= imin(y1, r->y + r->h - 1); y++)
            grid_line(c->g, a.x + c->ox, y + c->oy, (y > y0 ? GRID_N : 0) | (y < y1 ? GRID_S : 0), pen);
    } else {
        int x0 = imin(a.x, b.x), x1 = imax(a.x, b.x);
        if (a.y < r->y || a.y >= r->y + r->h)
            return;
        for (int x = imax(x0, r->x); x <= imin(x1, r->x + r->w - 1); x++)
            grid_line(c->g, x + c->ox, a.y + c->oy, (x > x0 ? GRID_W : 0) | (x < x1 ? GRID_E : 0), pen);
    }
}

static const int class_pen[EDGE_CLASSES] = {GS_EDGE, GS_EDGE_HI, GS_CRITICAL};

static void draw_routes(const Ctx *c, int cls)
{
    for (int e = 0; e < c->L->n_edges; e++) {
        int p0 = c->G->pt_off[e], p1 = c->G->pt_off[e + 1];
        if (p1 - p0 < 2 || edge_class(c, e) != cls)
            continue;
        for (int i = p0; i + 1 < p1; i++)
            segment(c, c->G->pts[i], c->G->pts[i + 1], class_pen[cls]);
    }
}

/* Arrow heads (full view) or the joint into the node below (compact). */
static void draw_ends(const Ctx *c, int cls)
{
    for (int e = 0; e < c->L->n_edges; e++) {
        int p0 = c->G->pt_off[e], p1 = c->G->pt_off[e + 1];
        if (p1 - p0 < 2 || edge_class(c, e) != cls)
            continue;
        DagPoint p = c->G->pts[p1 - 1];
        if (p.x < c->vis.x || p.y < c->vis.y || p.x >= c->vis.x + c->vis.w || p.y >= c->vis.y + c->vis.h)
            continue;
        if (c->zoom == DAG_FULL)
            grid_put(c->g, p.x + c->ox, p.y + c->oy, GRID_ARROW_DOWN, class_pen[cls]);
        else
            grid_line(c->g, p.x + c->ox, p.y + c->oy, GRID_S, class_pen[cls]);
    }
}

/* The device tag of a box ("d7", "7" or "+" as room allows). */
static int tag_text(char *buf, size_t size, int dev, int tw)
{
    int len = snprintf(buf, size, "d%d", dev);
    if (len > tw)
        len = snprintf(buf, size, "%d", dev);
    if (len > tw)
        len = snprintf(buf, size, "+");
    return len;
}

static void draw_box(const Ctx *c, int u)
{
    GridRect r = dag_node_rect(c->L, DAG_FULL, u);
    r.x += c->ox;
    r.y += c->oy;
    int pen = node_pen(c->v, u), dev = c->v->device ? c->v->device[u] : -1;
    grid_box(c->g, r, pen);
    grid_fill(c->g, (GridRect){r.x + 1, r.y + 1, r.w - 2, r.h - 2}, ' ', pen);
    char buf[24];
    const char *label = c->v->labels ? c->v->labels[u] : NULL;
    if (!label) {
        snprintf(buf, sizeof buf, "%d", u);
        label = buf;
    }
    grid_text_fit_mid(c->g, r.x + 1, r.y + 1, label, c->G->label_w, pen);
    int tw = c->G->tag_w;
    if (dev < 0 || tw <= 0)
        return;
    int len = tag_text(buf, sizeof buf, dev, tw);
    grid_text(c->g, r.x + r.w - 1 - len, r.y + 1, buf, pen);
}

/* The nodes folded beside host u: a compartment after its box (full view:
 * "<d1 d0|", each tag in its node's pen) or cells after its dot (compact:
 * "<10"). The "<" says that they run backwards. */
static void draw_folded(const Ctx *c, int u)
{
    const DagLayout *L = c->L;
    if (!L->sat || L->sat_off[u + 1] == L->sat_off[u])
        return;
    const DagGeom *G = c->G;
    int x = G->x[u] + c->ox, y = G->layer_y[L->layer[u]] + c->oy, bw = G->box_w;
    if (c->zoom == DAG_FULL) {
        grid_box(c->g, (GridRect){x + bw - 1, y, G->wext[u] + 1, G->box_h}, GS_EDGE);
        grid_fill(c->g, (GridRect){x + bw, y + 1, G->wext[u] - 1, G->box_h - 2}, ' ', GS_NONE);
        grid_box(c->g, (GridRect){x, y, bw, G->box_h}, node_pen(c->v, u)); /* its own border wins */
    }
    int ym = c->zoom == DAG_FULL ? y + 1 : y;
    grid_put(c->g, x + bw, ym, GRID_ARROW_LEFT, GS_DIM);
    for (int j = L->sat_off[u]; j < L->sat_off[u + 1]; j++) {
        int w = L->sat[j], dev = c->v->device ? c->v->device[w] : -1, pen = node_pen(c->v, w);
        int st = c->v->style ? c->v->style[w] : 0, sx = G->x[w] + c->ox;
        if (c->zoom == DAG_FULL) {
            char buf[24];
            if (dev >= 0)
                tag_text(buf, sizeof buf, dev, G->tag_w > 0 ? G->tag_w : 1);
            else
                snprintf(buf, sizeof buf, "b");
            grid_fill(c->g, (GridRect){sx, ym, G->tag_w > 0 ? G->tag_w : 1, 1}, ' ', pen);
            grid_text(c->g, sx, ym, buf, pen);
        } else {
            uint32_t ch = c->v->digits && dev >= 0 ? (uint32_t)('0' + dev % 10) : GRID_DOT;
            if (st == GS_CURRENT || st == GS_SELECTED)
                ch = GRID_DOT_MARKED;
            grid_put(c->g, sx, ym, ch, pen);
        }
    }
}

static void draw_dot(const Ctx *c, int u)
{
    int st = c->v->style ? c->v->style[u] : 0, dev = c->v->device ? c->v->device[u] : -1;
    uint32_t ch = c->v->digits && dev >= 0 ? (uint32_t)('0' + dev % 10) : GRID_DOT;
    if (st == GS_CURRENT || st == GS_SELECTED) /* visible without colour too */
        ch = GRID_DOT_MARKED;
    grid_put(c->g, c->G->x[u] + c->ox, c->G->layer_y[c->L->layer[u]] + c->oy, ch, node_pen(c->v, u));
}

/* The first index in layer l's order whose vertex ends right of column x. */
static int first_visible(const Ctx *c, int l, int x)
{
    int lo = c->L->layer_off[l], hi = c->L->layer_off[l + 1];
    while (lo < hi) {
        int mid = (lo + hi) / 2, v = c->L->order[mid];
        if (c->G->x[v] + dag_vert_w(c->L, c->G, v) <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void draw_nodes(const Ctx *c)
{
    const DagLayout *L = c->L;
    int lo = 0, hi = L->n_layers;
    while (lo < hi) { /* the first layer whose boxes end below vis.y */
        int mid = (lo + hi) / 2;
        if (c->G->layer_y[mid] + c->G->box_h <= c->vis.y)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (int l = lo; l < L->n_layers && c->G->layer_y[l] < c->vis.y + c->vis.h; l++)
        for (int i = first_visible(c, l, c->vis.x); i < L->layer_off[l + 1]; i++) {
            int u = L->order[i];
            if (c->G->x[u] >= c->vis.x + c->vis.w)
                break;
            if (u >= L->n)
                continue;
            if (c->zoom == DAG_FULL)
                draw_box(c, u);
            else
                draw_dot(c, u);
            draw_folded(c, u);
        }
}

void dag_render(const DagLayout *L, const DagView *v, Grid *g)
{
    int zoom = v->zoom == DAG_COMPACT ? DAG_COMPACT : DAG_FULL;
    Ctx c = {L, dag_geom(L, zoom), v, g, zoom, v->dst.x - v->x, v->dst.y - v->y, {v->x, v->y, v->dst.w, v->dst.h}};
    grid_clip(g, v->dst);
    for (int cls = 0; cls < EDGE_CLASSES; cls++)
        draw_routes(&c, cls);
    for (int cls = 0; cls < EDGE_CLASSES; cls++)
        draw_ends(&c, cls);
    draw_nodes(&c);
    grid_unclip(g);
}
