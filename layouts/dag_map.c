/* dag_map: the minimap of a layout (dag.h): the whole canvas scaled into a
 * small rectangle, every node one cell in its device's colour (or the
 * view's colour), the viewport shaded. */
#include "dag_impl.h"

void dag_map_fit(const DagLayout *L, int zoom, int max_w, int max_h, int *w, int *h)
{
    const DagGeom *G = dag_geom(L, zoom);
    long W = G->width > 0 ? G->width : 1, H = G->height > 0 ? G->height : 1;
    long mw = W < max_w ? W : max_w, mh = H * mw / W; /* the canvas' proportions, never enlarged */
    if (mh > max_h) {
        mh = max_h;
        mw = W * mh / H;
    }
    long least_w = W < DAG_MAP_MIN_W ? W : DAG_MAP_MIN_W, least_h = H < DAG_MAP_MIN_H ? H : DAG_MAP_MIN_H;
    mw = mw < least_w ? least_w : mw;
    mh = mh < least_h ? least_h : mh;
    mw = mw > max_w ? max_w : mw; /* the bounds win over the least size */
    mh = mh > max_h ? max_h : mh;
    *w = mw < 1 ? 1 : (int)mw;
    *h = mh < 1 ? 1 : (int)mh;
}

/* The map cell of canvas column or row c (canvas size C, map size m). */
static int scale(int c, int C, int m)
{
    long k = C > 0 ? (long)c * m / C : 0;
    return k < 0 ? 0 : k >= m ? m - 1 : (int)k;
}

static void put_node(const DagLayout *L, const DagView *v, GridRect dst, Grid *g, int u, int marked)
{
    const DagGeom *G = dag_geom(L, v->zoom);
    GridRect r = dag_node_rect(L, v->zoom, u);
    int st = v->style ? v->style[u] : 0, dev = v->device ? v->device[u] : -1;
    int mark = st == GS_CURRENT || st == GS_SELECTED;
    if (mark != marked)
        return;
    int x = dst.x + scale(r.x + r.w / 2, G->width, dst.w), y = dst.y + scale(r.y + r.h / 2, G->height, dst.h);
    if (mark)
        grid_put(g, x, y, GRID_DOT_MARKED, st);
    else
        grid_put(g, x, y, v->digits && dev >= 0 ? (uint32_t)('0' + dev % 10) : GRID_DOT, dag_plain_pen(v, u));
}

void dag_render_map(const DagLayout *L, const DagView *v, GridRect dst, Grid *g)
{
    int zoom = v->zoom == DAG_COMPACT ? DAG_COMPACT : DAG_FULL;
    DagView vz = *v;
    vz.zoom = zoom;
    const DagGeom *G = dag_geom(L, zoom);
    if (dst.w <= 0 || dst.h <= 0)
        return;
    grid_clip(g, dst);
    grid_fill(g, dst, ' ', GS_NONE);
    int x0 = scale(v->x, G->width, dst.w), x1 = scale(v->x + v->dst.w - 1, G->width, dst.w);
    int y0 = scale(v->y, G->height, dst.h), y1 = scale(v->y + v->dst.h - 1, G->height, dst.h);
    grid_fill(g, (GridRect){dst.x + x0, dst.y + y0, x1 - x0 + 1, y1 - y0 + 1}, GRID_SHADE, GS_DIM);
    for (int pass = 0; pass < 2; pass++) /* the current and selected nodes on top */
        for (int u = 0; u < L->n; u++)
            put_node(L, &vz, dst, g, u, pass);
    grid_unclip(g);
}
