/* dag_impl: the stages of dag_layout() (dag.h), shared by dag*.c only.
 * Each stage fills fields of the DagLayout and allocates what it fills;
 * scratch is allocated and freed within the stage. */
#ifndef PLACETO_DAG_IMPL_H
#define PLACETO_DAG_IMPL_H

#include "dag.h"

/* Layered graphs with more vertices than this (dummies included) trade a
 * little quality for time: fewer crossing-reduction sweeps (dag_order.c) and
 * one coordinate candidate (dag.c). The bundled graphs have at most 35 480;
 * a 100 000-op random DAG's 200 groups about 260 000. */
enum { DAG_LARGE = 50000 };

/* Stage 1-2 (dag_rank.c): layer, dummies, chains, edge_src/dst, the layered
 * graph (down/up, unsorted) and layer_off (order left unfilled). */
void dag_rank(DagLayout *L, const int *succ_off, const int *succ);
/* Stage 3 (dag_order.c): order/pos, crossings; sorts down/up by position. */
void dag_order(DagLayout *L, int sweeps);
/* Stage 4: candidate x coordinates into G->x (allocated by the caller),
 * any origin: layer sweeps (dag_pav.c) or Brandes-Koepf (dag_bk.c). dag.c
 * routes both and keeps Brandes-Koepf unless its canvas is much larger (a
 * large graph: Brandes-Koepf alone). */
void dag_place_x_pav(const DagLayout *L, DagGeom *G, int zoom, int sweeps);
void dag_place_x_bk(const DagLayout *L, DagGeom *G, int zoom);
/* Stage 5 (dag_route.c): layer_y, tracks, height and the edge routes of G,
 * whose x is placed. */
void dag_route(const DagLayout *L, DagGeom *G, int zoom);

/* The pen of node u without a style of its own (DagView): its colour
 * (GS_GROUP), else its device's (GS_DEVICE), else GS_NODE. */
int dag_plain_pen(const DagView *v, int u);

/* What a zoom level's geometry computed later needs (DagLayout.lazy):
 * the options, the nodes folded beside each real vertex (NULL: none) and,
 * for dag_layout_folded(), the hosts' layout it renumbers (host-space
 * vertex v is ids[v]). Freed once every level is there. */
typedef struct DagLazy {
    DagOptions o;
    int *n_sat;
    DagLayout *host;
    int *ids;
    char ready[DAG_ZOOMS];
} DagLazy;
/* dag_fold.c: zoom level z of a folded layout from its hosts' layout. */
void dag_fold_zoom(DagLayout *L, int z);

/* dag.c: the pipeline of dag_layout() with n_sat[v] nodes to be folded
 * beside real vertex v (widening it by the geometry's wext; NULL: none). */
DagLayout *dag_layout_sat(int n, const int *succ_off, const int *succ, const int *n_sat, const DagOptions *o);

/* The cell width of a folded node: its device tag in the full view. */
static inline int dag_sat_w(const DagGeom *G, int zoom)
{
    return zoom == DAG_FULL && G->tag_w > 0 ? G->tag_w : 1;
}

/* Blank columns required between neighbours a (left) and b of a layer. */
static inline int dag_sep(const DagLayout *L, int zoom, int a, int b)
{
    return zoom == DAG_FULL && a < L->n && b < L->n ? 2 : 1;
}

/* Width of vertex v at a zoom level (a folded node's box and the cells of
 * the nodes drawn beside it), the offset of its port from its left column
 * (the middle of its own box), and its port column. */
static inline int dag_vert_w(const DagLayout *L, const DagGeom *G, int v)
{
    return v < L->n ? G->box_w + (G->wext ? G->wext[v] : 0) : 1;
}

static inline int dag_port_off(const DagLayout *L, const DagGeom *G, int v)
{
    return v < L->n ? G->box_w / 2 : 0;
}

static inline int dag_port(const DagLayout *L, const DagGeom *G, int v)
{
    return G->x[v] + dag_port_off(L, G, v);
}

#endif
