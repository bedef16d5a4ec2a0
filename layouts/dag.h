/* dag: layered (Sugiyama-style) layout of a DAG on a character canvas, and
 * its rendering through a viewport onto a Grid (grid.h).
 *
 * Input: n nodes and their successors in CSR form (succ[succ_off[u] ..
 * succ_off[u+1]) are u's successors), e.g. a Grouping's group graph or a
 * random DAG. Pipeline, all deterministic (equal input gives byte-identical
 * output; ties break by index):
 *   1. layers: longest path from the sources, then nodes are promoted
 *      towards the side with more edges (shortens long edges);
 *   2. dummy vertices split every edge spanning several layers, so all edges
 *      of the layered graph join adjacent layers;
 *   3. crossings: a DFS start order, then median sweeps down and up (at
 *      most `sweeps` pairs, fewer when four sweeps bring no improvement, or
 *      on a large graph one sweep removing under 1 % of them); the order
 *      with the fewest crossings is kept;
 *   4. x coordinates, once per zoom level, two candidates: Brandes-Koepf
 *      (four median alignments into vertical blocks, compacted and balanced:
 *      long edges run straight) and layer sweeps (each layer placed by least
 *      squares against its neighbours' medians: close to the narrowest
 *      width); both are routed and Brandes-Koepf is kept unless its canvas
 *      is more than twice as large (a large graph, over 50 000 vertices with
 *      the dummies, gets Brandes-Koepf alone); then jogs of one or two
 *      columns are straightened where a layer has room;
 *   5. routing: per gap between two layers, each vertex with edges down gets
 *      at most one horizontal track (interval packing; a track whose stub
 *      would run into another's drop goes above it), so an edge is a vertical
 *      stub, a horizontal run and a drop, and passes through dummy columns.
 * Layers run top to bottom; vertices within a layer never overlap and keep at
 * least one blank column between them.
 *
 * Zoom levels: DAG_FULL draws each node as a 3-row box with a label and a
 * device tag, and arrow heads above the destination; DAG_COMPACT draws each
 * node as one cell (a dot or the device digit) coloured by device.
 *
 * Folding (dag_fold.c): dag_layout_folded() lays out only the nodes that
 * are their own host, each box widened by a compartment holding a cell for
 * every node folded beside it (a training graph's backward and update groups
 * beside their forward group, dag_fold_training()); the minimap
 * (dag_map.c) draws a whole canvas scaled into a small rectangle.
 *
 * Cost: O((V + E) log V) per sweep, V counting the dummies (a 2 000-op
 * random DAG has ~80 000 vertices and takes a fraction of a second).
 *
 * Ownership: dag_layout() returns a DagLayout that owns every array in it
 * (plain data, read-only for callers); dag_free() releases it. It keeps no
 * pointer to the input. The layout allocates its own working memory (its
 * size is known only after layering) and frees it before returning, except
 * that the compact view's geometry is computed the first time it is asked
 * for (dag_geom()). Rendering reads the layout and the caller's per-node
 * arrays, writes only into the grid and never allocates (once the zoom
 * level's geometry is there), so a frame costs no more than the visible
 * cells plus one pass over the edge routes. */
#ifndef PLACETO_DAG_H
#define PLACETO_DAG_H

#include <stdint.h>

#include "grid.h"

enum { DAG_FULL = 0, DAG_COMPACT = 1, DAG_ZOOMS = 2 };

typedef struct DagOptions {
    int label_width; /* label cells inside a full box (default 10) */
    int tag_width;   /* device tag cells inside a full box, "d7" (default 2) */
    int sweeps;      /* crossing-reduction iterations, each down and up (default 8) */
    int coord_sweeps; /* coordinate iterations, each down and up (default 6) */
} DagOptions;

void dag_options_default(DagOptions *o);

typedef struct DagPoint {
    int x, y;
} DagPoint;

/* One zoom level's geometry, in canvas cells (x right, y down). */
typedef struct DagGeom {
    int width, height; /* the canvas */
    int box_w, box_h;  /* a node's box (1 x 1 in the compact view) */
    int label_w, tag_w; /* cells for the label and the device tag in a box */
    int *x;            /* per vertex: left column (dummies are 1 cell wide; a
                          folded node: the left column of its cell) */
    int *wext;         /* per vertex: columns right of its box taken by the
                          nodes folded beside it; NULL when nothing is folded */
    int *layer_y;      /* per layer: top row; layer_y[n_layers] == height */
    int *tracks;       /* per layer: horizontal tracks in the gap below it */
    /* Route of input edge e: an axis-parallel polyline pts[pt_off[e] ..
     * pt_off[e+1]) from the source's port (bottom middle of its box) to the
     * cell just above the destination's box (where the arrow head goes),
     * through its dummies. Empty for an edge that is not drawn. */
    int *pt_off;
    DagPoint *pts;
} DagGeom;

typedef struct DagLayout {
    int n;          /* input nodes: vertices 0 .. n-1 */
    int n_vert;     /* with dummies: vertices n .. n_vert-1 (numbered layer by layer) */
    int n_layers;
    int n_edges;    /* input edges, in CSR order */
    int *layer;     /* per vertex */
    int *layer_off; /* layer l holds order[layer_off[l] .. layer_off[l+1]), left to right */
    int *order;
    int *pos;       /* per vertex: its index within its layer */
    int *edge_src, *edge_dst; /* per input edge */
    /* Vertices of input edge e from source to destination: chain[chain_off[e]
     * .. chain_off[e+1]); empty when the edge is not drawn (it closes a cycle
     * or is a self-loop: the input was not a DAG). */
    int *chain_off, *chain;
    /* The layered graph (adjacent layers only), CSR per vertex, neighbours
     * sorted left to right. */
    int *down_off, *down, *up_off, *up;
    long crossings; /* edge crossings between adjacent layers, final order */
    /* Folding (dag_layout_folded): per node, the node it is drawn beside
     * (itself for a node laid out in a layer); the folded nodes of host h are
     * sat[sat_off[h] .. sat_off[h+1]), drawn left to right as cells after
     * its box. A folded node has its host's layer and pos, is in no layer's
     * order and has no drawn edges. All NULL for dag_layout(). */
    int *host, *sat_off, *sat;
    /* Per zoom level; read it through dag_geom(), which computes a level on
     * its first use (the compact view's is not computed until it is shown). */
    DagGeom geom[DAG_ZOOMS];
    struct DagLazy *lazy; /* private (dag_impl.h): what the levels not computed yet need */
} DagLayout;

/* Lays out n >= 0 nodes with successors succ[succ_off[u] .. succ_off[u+1]).
 * o may be NULL for the defaults. Never fails (allocation failure aborts
 * through util.h's hook). Self-loops and edges closing a cycle are kept in
 * edge_src/edge_dst but not drawn. */
DagLayout *dag_layout(int n, const int *succ_off, const int *succ, const DagOptions *o);
void dag_free(DagLayout *L);
/* The geometry of a zoom level (DAG_FULL or DAG_COMPACT). dag_layout()
 * computes DAG_FULL's; DAG_COMPACT's is computed on its first request, here
 * or by any function below given that zoom, with the same result as if it
 * had been computed at once. So a layout is used by one thread at a time. */
const DagGeom *dag_geom(const DagLayout *L, int zoom);

/* What to draw and where: canvas cell (x, y) appears at the top-left of dst
 * on the grid. Per-node arrays may be NULL. */
typedef struct DagView {
    int zoom;                  /* DAG_FULL or DAG_COMPACT */
    int x, y;                  /* canvas cell shown at (dst.x, dst.y); may be negative */
    GridRect dst;              /* the part of the grid to draw into */
    const char *const *labels; /* per node: label (middle cut to fit); NULL: the index */
    const int *device;         /* per node: device index, < 0 for none */
    /* per node: a GridStyle for the whole node (GS_CURRENT, GS_SELECTED,
     * GS_ANCESTOR, ...) or 0 for GS_DEVICE coloured by its device (GS_NODE
     * without one). Edges touching a GS_CURRENT node use GS_EDGE_HI. */
    const uint8_t *style;
    /* per node: 1 on the critical path; edges joining two marked nodes use
     * GS_CRITICAL. */
    const uint8_t *critical;
    int digits;                /* compact view: device digits instead of dots (the
                                  current and selected nodes keep their mark) */
    /* per node: a palette index: an unstyled node is GS_GROUP in that colour
     * (e.g. the learned cluster it belongs to) instead of its device's; NULL:
     * coloured by device. The device tag and digit stay. */
    const int *colour;
} DagView;

/* Draws the view onto g inside v->dst over what is there (clear it first
 * for a fresh picture); the rest of g is untouched and the clip rectangle is
 * the whole grid afterwards. */
void dag_render(const DagLayout *L, const DagView *v, Grid *g);

/* Fills style[0 .. n) for node u's view (DagView.style): GS_CURRENT for u,
 * GS_ANCESTOR / GS_DESCENDANT for the nodes with a path to / from u, and
 * GS_PARALLEL for the rest (edges that were not drawn do not count).
 * queue is scratch for n_vert ints. O(vertices + edges). */
void dag_mark_relatives(const DagLayout *L, int u, uint8_t *style, int *queue);

/* The node whose box covers canvas cell (cx, cy) at a zoom level, or -1
 * (empty cell, edge or dummy). O(log n). */
int dag_node_at(const DagLayout *L, int zoom, int cx, int cy);
/* The node under grid cell (gx, gy) of a rendered view, or -1. */
int dag_node_at_view(const DagLayout *L, const DagView *v, int gx, int gy);
/* The viewport origin (*x, *y) that centres node u's box in a w x h view,
 * clamped so that the view stays on the canvas when the canvas is larger. */
void dag_center_on(const DagLayout *L, int zoom, int u, int w, int h, int *x, int *y);
/* A short label for a node named after an op or a group (a box shows about
 * 10 cells): a "net." prefix and parameter suffixes (.weight, .bias,
 * .running_mean, .running_var) go, gradient suffixes become /gi, /gw, /gb.
 * The caller frees it. */
char *dag_short_label(const char *name);

/* ---- the minimap (dag_map.c) ---- */

enum { DAG_MAP_MIN_W = 8, DAG_MAP_MIN_H = 4 }; /* a map's least size (or the canvas') */
/* The size of a map of the canvas at a zoom level within max_w x max_h
 * cells: the canvas scaled down evenly (never up) to fit, then widened or
 * heightened to the least size. */
void dag_map_fit(const DagLayout *L, int zoom, int max_w, int max_h, int *w, int *h);
/* Draws the whole canvas of v's zoom level scaled into dst: every node (a
 * folded one too) one cell at its box's centre, a device digit or dot in
 * its device's pen or its colour (the current and selected nodes marked in
 * their styles, on top), and the cells of v's viewport (v->x, v->y,
 * v->dst.w x v->dst.h) shaded. dst is cleared first; nothing outside it is touched. */
void dag_render_map(const DagLayout *L, const DagView *v, GridRect dst, Grid *g);

/* ---- folding a training graph (dag_fold.c) ---- */

/* Fills host[0 .. n_groups) for a training graph: each group of the
 * backward pass or of the parameter updates gets the forward group it is
 * drawn beside (the latest forward group it reads, else a backward
 * neighbour's), every other group itself. Returns the number of folded
 * groups (0: not a training graph). Deterministic. */
enum { DAG_FOLD_LABEL_WIDTH = 14 }; /* labels in a folded layout (the forward pass alone is narrow) */
struct Graph;
struct Grouping;
int dag_fold_training(const struct Graph *g, const struct Grouping *gr, int *host);
/* dag_layout() of the nodes u with host[u] == u and the edges between them;
 * every other node is drawn as a cell beside the box of host[u] (a host
 * that is itself folded counts as none: the node stays on its own). The
 * result is indexed like the input (n nodes); L->host, L->sat_off and L->sat
 * say what is folded where. host NULL: nothing is folded. */
DagLayout *dag_layout_folded(int n, const int *succ_off, const int *succ, const int *host, const DagOptions *o);

/* A node's box on the canvas at a zoom level (a folded node: its cell). */
GridRect dag_node_rect(const DagLayout *L, int zoom, int u);

#endif
