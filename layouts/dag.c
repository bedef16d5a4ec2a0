/* dag: the pipeline of dag.h (stages in dag_rank.c, dag_order.c,
 * dag_coord.c, dag_route.c), its lifetime, and canvas queries. Drawing is in
 * dag_render.c. */
#include <stdlib.h>
#include <string.h>

#include "dag_impl.h"
#include "util.h"

void dag_options_default(DagOptions *o)
{
    o->label_width = 10;
    o->tag_width = 2;
    o->sweeps = 8;
    o->coord_sweeps = 6;
}

static void geom_free(DagGeom *G)
{
    free(G->x);
    free(G->layer_y);
    free(G->tracks);
    free(G->pt_off);
    free(G->pts);
    free(G->wext);
}

/* Moves the leftmost column to 0 and sets the width. */
static void normalize_x(const DagLayout *L, DagGeom *G)
{
    int minx = 0, maxx = 0;
    for (int v = 0; v < L->n_vert; v++)
        minx = v == 0 || G->x[v] < minx ? G->x[v] : minx;
    for (int v = 0; v < L->n_vert; v++) {
        G->x[v] -= minx;
        int r = G->x[v] + dag_vert_w(L, G, v);
        maxx = r > maxx ? r : maxx;
    }
    G->width = maxx;
}

/* The smallest nonzero port offset (at most 2 columns) from v to a
 * neighbour, or 0 when v is already straight above or below one of them or
 * no neighbour is that close. */
static int jog_of(const DagLayout *L, const DagGeom *G, int v)
{
    int best = 0;
    for (int side = 0; side < 2; side++) {
        const int *off = side ? L->down_off : L->up_off, *nb = side ? L->down : L->up;
        for (int j = off[v]; j < off[v + 1]; j++) {
            int d = dag_port(L, G, nb[j]) - dag_port(L, G, v);
            if (d == 0)
                return 0;
            if (abs(d) <= 2 && (best == 0 || abs(d) < abs(best)))
                best = d;
        }
    }
    return best;
}

/* Removes small jogs that balancing and rounding leave: a vertex one or two
 * columns off a neighbour moves onto it when its layer has room there. Each
 * move straightens an edge and bends none that was straight. */
static void snap(const DagLayout *L, DagGeom *G, int zoom)
{
    for (int l = 0; l < L->n_layers; l++)
        for (int i = L->layer_off[l]; i < L->layer_off[l + 1]; i++) {
            int v = L->order[i], d = jog_of(L, G, v), nx = G->x[v] + d;
            if (d == 0)
                continue;
            if (i > L->layer_off[l]) {
                int a = L->order[i - 1];
                if (nx < G->x[a] + dag_vert_w(L, G, a) + dag_sep(L, zoom, a, v))
                    continue;
            }
            if (i + 1 < L->layer_off[l + 1]) {
                int b = L->order[i + 1];
                if (nx + dag_vert_w(L, G, v) + dag_sep(L, zoom, v, b) > G->x[b])
                    continue;
            }
            G->x[v] = nx;
        }
}

/* Brandes-Koepf's straight edges are worth some canvas: it loses only to a
 * layer-sweep placement this many times smaller (random DAGs with many long
 * skips; neural-network graphs stay with it). */
enum { BK_AREA_TOLERANCE = 2 };

/* One zoom level: both coordinate candidates, routed, and the choice; a
 * large graph's (DAG_LARGE) Brandes-Koepf alone: on the benchmark's
 * 100 000-op random DAG the layer sweeps' jogs need 59 (full view) and 134
 * (compact view) times its canvas, far from the tolerance. */
static void geometry(DagLayout *L, int zoom)
{
    const DagOptions *o = &L->lazy->o;
    const int *n_sat = L->lazy->n_sat;
    int lw = o->label_width > 0 ? o->label_width : 1, tw = o->tag_width > 0 ? o->tag_width : 0;
    DagGeom cand[2];
    int n_cand = L->n_vert > DAG_LARGE ? 1 : 2;
    for (int m = 0; m < n_cand; m++) {
        DagGeom *G = &cand[m];
        *G = (DagGeom){0};
        G->box_w = zoom == DAG_FULL ? lw + 2 + (tw ? tw + 1 : 0) : 1;
        G->box_h = zoom == DAG_FULL ? 3 : 1;
        G->label_w = zoom == DAG_FULL ? lw : 0;
        G->tag_w = zoom == DAG_FULL ? tw : 0;
        G->x = XMALLOC(int, L->n_vert);
        if (n_sat) {
            G->wext = XNEW(int, L->n_vert);
            for (int v = 0; v < L->n; v++)
                G->wext[v] = n_sat[v] ? n_sat[v] * (dag_sat_w(G, zoom) + (zoom == DAG_FULL)) + 1 : 0;
        }
        if (m == 0)
            dag_place_x_bk(L, G, zoom);
        else
            dag_place_x_pav(L, G, zoom, o->coord_sweeps);
        snap(L, G, zoom);
        normalize_x(L, G);
        dag_route(L, G, zoom);
    }
    if (n_cand == 1) {
        L->geom[zoom] = cand[0];
        return;
    }
    long bk = (long)cand[0].width * cand[0].height, pav = (long)cand[1].width * cand[1].height;
    int pick = BK_AREA_TOLERANCE * pav < bk;
    L->geom[zoom] = cand[pick];
    geom_free(&cand[!pick]);
}

static void lazy_free(DagLazy *z)
{
    if (!z)
        return;
    free(z->n_sat);
    dag_free(z->host);
    free(z->ids);
    free(z);
}

const DagGeom *dag_geom(const DagLayout *L, int zoom)
{
    zoom = zoom == DAG_COMPACT ? DAG_COMPACT : DAG_FULL;
    DagLayout *M = (DagLayout *)L; /* a cache: allocated without const, so filling it in is defined */
    DagLazy *z = M->lazy;
    if (z && !z->ready[zoom]) {
        if (z->host)
            dag_fold_zoom(M, zoom);
        else
            geometry(M, zoom);
        z->ready[zoom] = 1;
        int all = 1;
        for (int k = 0; k < DAG_ZOOMS; k++)
            all &= z->ready[k];
        if (all) { /* nothing left to compute: the inputs go */
            lazy_free(z);
            M->lazy = NULL;
        }
    }
    return &L->geom[zoom];
}

DagLayout *dag_layout(int n, const int *succ_off, const int *succ, const DagOptions *o)
{
    return dag_layout_sat(n, succ_off, succ, NULL, o);
}

DagLayout *dag_layout_sat(int n, const int *succ_off, const int *succ, const int *n_sat, const DagOptions *o)
{
    DagOptions def;
    if (!o) {
        dag_options_default(&def);
        o = &def;
    }
    n = n > 0 ? n : 0;
    int *zeros = NULL; /* no edge arrays: nodes without edges */
    if (!succ_off) {
        zeros = XNEW(int, n + 1); /* succ_off of n nodes */
        succ_off = succ = zeros;
    }
    DagLayout *L = xcalloc(1, sizeof *L);
    L->n = n;
    dag_rank(L, succ_off, succ);
    dag_order(L, o->sweeps);
    L->lazy = xcalloc(1, sizeof *L->lazy);
    L->lazy->o = *o;
    if (n_sat) {
        L->lazy->n_sat = XMALLOC(int, n + 1);
        memcpy(L->lazy->n_sat, n_sat, (size_t)n * sizeof *n_sat);
    }
    dag_geom(L, DAG_FULL); /* the compact view's on its first use */
    free(zeros);
    return L;
}

void dag_free(DagLayout *L)
{
    if (!L)
        return;
    free(L->layer);
    free(L->layer_off);
    free(L->order);
    free(L->pos);
    free(L->edge_src);
    free(L->edge_dst);
    free(L->chain_off);
    free(L->chain);
    free(L->down_off);
    free(L->down);
    free(L->up_off);
    free(L->up);
    free(L->host);
    free(L->sat_off);
    free(L->sat);
    lazy_free(L->lazy);
    for (int z = 0; z < DAG_ZOOMS; z++)
        geom_free(&L->geom[z]);
    free(L);
}

/* Marks every real node reachable from u through the lists off/nbr (the
 * layered graph, dummies included) with mark. A dummy has one vertex above
 * and one below, so each is queued at most once without marks of its own. */
static void reach(const DagLayout *L, int u, const int *off, const int *nbr, uint8_t mark, uint8_t *style, int *queue)
{
    int head = 0, tail = 0;
    queue[tail++] = u;
    while (head < tail) {
        int v = queue[head++];
        for (int j = off[v]; j < off[v + 1]; j++) {
            int w = nbr[j];
            if (w < L->n && style[w] == mark)
                continue;
            if (w < L->n)
                style[w] = mark;
            queue[tail++] = w;
        }
    }
}

void dag_mark_relatives(const DagLayout *L, int u, uint8_t *style, int *queue)
{
    for (int v = 0; v < L->n; v++)
        style[v] = GS_PARALLEL;
    if (u < 0 || u >= L->n)
        return;
    reach(L, u, L->up_off, L->up, GS_ANCESTOR, style, queue);
    reach(L, u, L->down_off, L->down, GS_DESCENDANT, style, queue);
    style[u] = GS_CURRENT;
}

GridRect dag_node_rect(const DagLayout *L, int zoom, int u)
{
    const DagGeom *G = dag_geom(L, zoom);
    int w = L->host && L->host[u] != u ? dag_sat_w(G, zoom) : G->box_w;
    return (GridRect){G->x[u], G->layer_y[L->layer[u]], w, G->box_h};
}

int dag_node_at(const DagLayout *L, int zoom, int cx, int cy)
{
    const DagGeom *G = dag_geom(L, zoom);
    int lo = 0, hi = L->n_layers - 1, l = -1;
    while (lo <= hi) { /* the last layer starting at or above cy */
        int mid = (lo + hi) / 2;
        if (G->layer_y[mid] <= cy) {
            l = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    if (l < 0 || cy >= G->layer_y[l] + G->box_h)
        return -1;
    int a = L->layer_off[l], b = L->layer_off[l + 1] - 1, v = -1;
    while (a <= b) { /* the last vertex starting at or left of cx */
        int mid = (a + b) / 2;
        if (G->x[L->order[mid]] <= cx) {
            v = L->order[mid];
            a = mid + 1;
        } else {
            b = mid - 1;
        }
    }
    if (v < 0 || v >= L->n || cx >= G->x[v] + dag_vert_w(L, G, v))
        return -1;
    if (cx < G->x[v] + G->box_w)
        return v;
    for (int j = L->sat ? L->sat_off[v] : 0; L->sat && j < L->sat_off[v + 1]; j++) { /* a cell beside it */
        int s = L->sat[j];
        if (cx >= G->x[s] && cx < G->x[s] + dag_sat_w(G, zoom))
            return s;
    }
    return -1;
}

int dag_node_at_view(const DagLayout *L, const DagView *v, int gx, int gy)
{
    if (gx < v->dst.x || gy < v->dst.y || gx >= v->dst.x + v->dst.w || gy >= v->dst.y + v->dst.h)
        return -1;
    return dag_node_at(L, v->zoom, v->x + gx - v->dst.x, v->y + gy - v->dst.y);
}

static int clamp_origin(int want, int view, int canvas)
{
    if (canvas <= view || want < 0)
        return 0;
    return want > canvas - view ? canvas - view : want;
}

void dag_center_on(const DagLayout *L, int zoom, int u, int w, int h, int *x, int *y)
{
    const DagGeom *G = dag_geom(L, zoom);
    if (u < 0 || u >= L->n) {
        *x = *y = 0;
        return;
    }
    GridRect r = dag_node_rect(L, zoom, u);
    *x = clamp_origin(r.x + r.w / 2 - w / 2, w, G->width);
    *y = clamp_origin(r.y + r.h / 2 - h / 2, h, G->height);
}

/* A short label for a group name (the box shows 10 cells): a parameter
 * suffix and a "net." prefix carry no information here, gradient suffixes
 * become /gi, /gw, /gb. The caller frees it. */
char *dag_short_label(const char *name)
{
    static const char *suffix[][2] = {{".weight", ""},          {".bias", ""},        {".running_mean", ""},
                                      {".running_var", ""},     {"/grad_input", "/gi"}, {"/grad_weight", "/gw"},
                                      {"/grad_bias", "/gb"}};
    if (strncmp(name, "net.", 4) == 0 && name[4])
        name += 4;
    char *s = xstrdup(name);
    size_t n = strlen(s);
    for (size_t k = 0; k < sizeof suffix / sizeof *suffix; k++) {
        size_t m = strlen(suffix[k][0]);
        if (n > m && strcmp(s + n - m, suffix[k][0]) == 0) {
            strcpy(s + n - m, suffix[k][1]);
            break;
        }
    }
    return s;
}
