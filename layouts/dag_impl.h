/* dag_impl: the stages of dag_layout() (dag.h), shared by dag*.c only.
 * Each stage fills fields of the DagLayout and allocates what it fills;
 * scratch is allocated and freed within the stage. */
#ifndef PLACETO_DAG_IMPL_H
#define PLACETO_DAG_IMPL_H

#include "dag.h"

/* Stage 1-2 (dag_rank.c): layer, dummies, chains, edge_src/dst, the layered
 * graph (down/up, unsorted) and layer_off (order left unfilled). */
void dag_rank(DagLayout *L, const int *succ_off, const int *succ);
/* Stage 3 (dag_order.c): order/pos, crossings; sorts down/up by position. */
void dag_order(DagLayout *L, int sweeps);
/* Stage 4: candidate x coordinates into G->x (allocated by the caller),
 * any origin: layer sweeps (dag_pav.c) or Brandes-Koepf (dag_bk.c). dag.c
 * routes both and keeps Brandes-Koepf unless its canvas is much larger. */
void dag_place_x_pav(const DagLayout *L, DagGeom *G, int zoom, int sweeps);
void dag_place_x_bk(const DagLayout *L, DagGeom *G, int zoom);
/* Stage 5 (dag_route.c): layer_y, tracks, height and the edge routes of G,
 * whose x is placed. */
void dag_route(const DagLayout *L, DagGeom *G, int zoom);

/* Blank columns required between neighbours a (left) and b of a layer. */
static inline int dag_sep(const DagLayout *L, int zoom, int a, int b)
{
    return zoom == DAG_FULL && a < L->n && b < L->n ? 2 : 1;
}

/* Width of vertex v's box at a zoom level, and its port column. */
static inline int dag_vert_w(const DagLayout *L, const DagGeom *G, int v)
{
    return v < L->n ? G->box_w : 1;
}

static inline int dag_port(const DagLayout *L, const DagGeom *G, int v)
{
    return G->x[v] + dag_vert_w(L, G, v) / 2;
}

#endif
