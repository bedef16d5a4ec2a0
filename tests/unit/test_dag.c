/* Layered DAG layout (layouts/dag.h): properties on random DAGs checked
 * against the layout's own data and against the rendered glyphs — layers
 * are permutations, edges go down, boxes never overlap and stay on the
 * canvas, routes are axis-parallel polylines from source to destination
 * that cross no box, the drawn lines connect every source to its
 * destination, and equal input gives identical output. */
#include <stdlib.h>

#include "dag.h"
#include "gen.h"
#include "group.h"
#include "test.h"

/* The successors of g's nodes in CSR form. */
typedef struct Csr {
    int n, *off, *succ;
} Csr;

static Csr csr_of(const Graph *g)
{
    Csr c = {g->n_nodes, XNEW(int, g->n_nodes + 1), NULL};
    for (int i = 0; i < g->n_nodes; i++)
        c.off[i + 1] = c.off[i] + g->nodes[i].n_children;
    c.succ = XMALLOC(int, c.off[g->n_nodes]);
    for (int i = 0; i < g->n_nodes; i++)
        for (int k = 0; k < g->nodes[i].n_children; k++)
            c.succ[c.off[i] + k] = g->nodes[i].children[k];
    return c;
}

static void csr_free(Csr *c)
{
    free(c->off);
    free(c->succ);
}

static void check_layers(const DagLayout *L)
{
    int *seen = XNEW(int, L->n_vert);
    CHECK_INT(L->layer_off[0], 0);
    CHECK_INT(L->layer_off[L->n_layers], L->n_vert);
    for (int l = 0; l < L->n_layers; l++) {
        CHECK_MSG(L->layer_off[l + 1] > L->layer_off[l], "layer %d is empty", l);
        for (int i = L->layer_off[l]; i < L->layer_off[l + 1]; i++) {
            int v = L->order[i];
            CHECK(v >= 0 && v < L->n_vert);
            if (v < 0 || v >= L->n_vert)
                continue;
            seen[v]++;
            CHECK_INT(L->layer[v], l);
            CHECK_INT(L->pos[v], i - L->layer_off[l]);
        }
    }
    for (int v = 0; v < L->n_vert; v++)
        CHECK_MSG(seen[v] == 1, "vertex %d appears %d times in the layer orders", v, seen[v]);
    for (int v = L->n + 1; v < L->n_vert; v++) /* dummies are numbered layer by layer */
        CHECK_MSG(L->layer[v] >= L->layer[v - 1], "dummy %d in layer %d after one in layer %d", v, L->layer[v],
                  L->layer[v - 1]);
    free(seen);
}

static void check_chains(const DagLayout *L)
{
    for (int e = 0; e < L->n_edges; e++) {
        int c0 = L->chain_off[e], c1 = L->chain_off[e + 1];
        CHECK_MSG(c1 - c0 >= 2, "edge %d is not drawn", e);
        if (c1 - c0 < 2)
            continue;
        CHECK_INT(L->chain[c0], L->edge_src[e]);
        CHECK_INT(L->chain[c1 - 1], L->edge_dst[e]);
        for (int k = c0; k + 1 < c1; k++)
            CHECK_INT(L->layer[L->chain[k + 1]], L->layer[L->chain[k]] + 1);
        for (int k = c0 + 1; k + 1 < c1; k++)
            CHECK(L->chain[k] >= L->n); /* inner vertices are dummies */
    }
}

/* Per canvas cell: the real node whose box covers it, or -1. */
static int *box_map(const DagLayout *L, int zoom)
{
    const DagGeom *G = dag_geom(L, zoom);
    int *map = XMALLOC(int, xmul((size_t)G->width, (size_t)G->height));
    for (int i = 0; i < G->width * G->height; i++)
        map[i] = -1;
    for (int u = 0; u < L->n; u++) {
        GridRect r = dag_node_rect(L, zoom, u);
        CHECK_MSG(r.x >= 0 && r.y >= 0 && r.x + r.w <= G->width && r.y + r.h <= G->height,
                  "node %d at %d,%d off the %dx%d canvas", u, r.x, r.y, G->width, G->height);
        for (int y = r.y; y < r.y + r.h; y++)
            for (int x = r.x; x < r.x + r.w; x++) {
                if (x < 0 || y < 0 || x >= G->width || y >= G->height)
                    continue;
                int *m = &map[y * G->width + x];
                CHECK_MSG(*m < 0, "nodes %d and %d overlap at %d,%d", *m, u, x, y);
                *m = u;
            }
    }
    return map;
}

/* Vertices of a layer keep their order with at least one blank column. */
static void check_separation(const DagLayout *L, int zoom)
{
    const DagGeom *G = dag_geom(L, zoom);
    for (int l = 0; l < L->n_layers; l++)
        for (int i = L->layer_off[l] + 1; i < L->layer_off[l + 1]; i++) {
            int a = L->order[i - 1], b = L->order[i], wa = a < L->n ? G->box_w : 1;
            CHECK_MSG(G->x[b] >= G->x[a] + wa + 1, "layer %d: vertices %d and %d too close", l, a, b);
        }
    for (int l = 0; l + 1 < L->n_layers; l++)
        CHECK(G->layer_y[l] + G->box_h < G->layer_y[l + 1]);
}

/* Routes: from the source's port to the cell above the destination's port,
 * axis-parallel, on the canvas, through no box but the source's. */
static void check_routes(const DagLayout *L, int zoom, const int *map)
{
    const DagGeom *G = dag_geom(L, zoom);
    for (int e = 0; e < L->n_edges; e++) {
        int p0 = G->pt_off[e], p1 = G->pt_off[e + 1], s = L->edge_src[e], d = L->edge_dst[e];
        CHECK_MSG(p1 - p0 >= 2, "edge %d has no route", e);
        if (p1 - p0 < 2)
            continue;
        GridRect rs = dag_node_rect(L, zoom, s), rd = dag_node_rect(L, zoom, d);
        DagPoint a = G->pts[p0], z = G->pts[p1 - 1];
        CHECK(a.x == rs.x + rs.w / 2 && a.y == rs.y + rs.h - 1);
        CHECK(z.x == rd.x + rd.w / 2 && z.y == rd.y - 1);
        for (int i = p0; i + 1 < p1; i++) {
            DagPoint p = G->pts[i], q = G->pts[i + 1];
            CHECK_MSG((p.x == q.x) != (p.y == q.y), "edge %d: segment %d is not axis-parallel", e, i - p0);
            if ((p.x == q.x) == (p.y == q.y))
                break;
            int dx = (q.x > p.x) - (q.x < p.x), dy = (q.y > p.y) - (q.y < p.y);
            CHECK(dy >= 0); /* routes never go up */
            for (DagPoint c = p; c.x != q.x || c.y != q.y;) {
                c.x += dx;
                c.y += dy;
                int ok = c.x >= 0 && c.y >= 0 && c.x < G->width && c.y < G->height;
                CHECK_MSG(ok, "edge %d leaves the canvas", e);
                if (!ok)
                    break;
                int m = map[c.y * G->width + c.x];
                CHECK_MSG(m < 0, "edge %d (%d->%d) runs through node %d at %d,%d", e, s, d, m, c.x, c.y);
            }
        }
    }
}

/* Follows the drawn lines from each edge's source port and checks that the
 * cell above its destination (the arrow head, full view) is reached. */
static void check_glyph_paths(const DagLayout *L, int zoom)
{
    const DagGeom *G = dag_geom(L, zoom);
    Grid *g = grid_new(G->width, G->height);
    DagView v = {zoom, 0, 0, {0, 0, G->width, G->height}, NULL, NULL, NULL, NULL, 0, NULL};
    dag_render(L, &v, g);
    int n = G->width * G->height, *stack = XMALLOC(int, n);
    char *seen = XMALLOC(char, n);
    static const int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0}, bit[4] = {GRID_N, GRID_E, GRID_S, GRID_W};
    for (int e = 0; e < L->n_edges; e++) {
        GridRect rs = dag_node_rect(L, zoom, L->edge_src[e]), rd = dag_node_rect(L, zoom, L->edge_dst[e]);
        int goal = (rd.y - 1) * G->width + rd.x + rd.w / 2, start = (rs.y + rs.h) * G->width + rs.x + rs.w / 2;
        int sp = 0, found = 0;
        memset(seen, 0, (size_t)n);
        if (start < n && start >= 0) { /* the cell below the port: the stub */
            stack[sp++] = start;
            seen[start] = 1;
        }
        while (sp && !found) {
            int c = stack[--sp], x = c % G->width, y = c / G->width;
            const GridCell *cell = grid_at(g, x, y);
            found = c == goal;
            int mask = GRID_IS_LINE(cell->ch) ? (int)(cell->ch - GRID_SYM_BASE) : 0;
            for (int k = 0; k < 4; k++) {
                const GridCell *nc = grid_at(g, x + dx[k], y + dy[k]);
                if (!(mask & bit[k]) || !nc)
                    continue;
                int to = (y + dy[k]) * G->width + x + dx[k], back = bit[(k + 2) % 4];
                int joins = GRID_IS_LINE(nc->ch) ? ((int)(nc->ch - GRID_SYM_BASE) & back) != 0
                                                 : to == goal; /* the arrow head or the node */
                if (joins && !seen[to]) {
                    seen[to] = 1;
                    stack[sp++] = to;
                }
            }
        }
        if (zoom == DAG_FULL)
            CHECK_INT(grid_at(g, goal % G->width, goal / G->width)->ch, GRID_ARROW_DOWN);
        CHECK_MSG(found, "edge %d (%d->%d): no drawn path from the source", e, L->edge_src[e], L->edge_dst[e]);
    }
    free(stack);
    free(seen);
    grid_free(g);
}

static void check_layout(const DagLayout *L)
{
    check_layers(L);
    check_chains(L);
    for (int z = 0; z < DAG_ZOOMS; z++) {
        int *map = box_map(L, z);
        check_separation(L, z);
        check_routes(L, z, map);
        check_glyph_paths(L, z);
        free(map);
        if (test_failed_now())
            return;
    }
}

TEST(dag_random_dags_keep_the_layout_properties)
{
    for (int k = 0; k < 12 && !test_failed_now(); k++) {
        int n = 5 + 17 * k;
        Graph *g = gen_random_dag(n, 1.0 + 0.25 * (k % 5), 100 + (uint64_t)k);
        Csr c = csr_of(g);
        DagLayout *L = dag_layout(c.n, c.off, c.succ, NULL);
        CHECK_INT(L->n, n);
        CHECK_INT(L->n_edges, g->n_edges);
        check_layout(L);
        if (test_failed_now())
            fprintf(stderr, "  (random DAG of %d ops, seed %d)\n", n, 100 + k);
        dag_free(L);
        csr_free(&c);
        graph_free(g);
    }
}

TEST(dag_group_graph_keeps_the_layout_properties)
{
    Err e;
    Graph *g = graph_load("graphs/resnet18.json", &e);
    REQUIRE_MSG(g != NULL, "%s", e.msg);
    Grouping *gr = group_build(g, 0, &e);
    DagLayout *L = dag_layout(gr->n_groups, gr->succ_off, gr->succ, NULL);
    check_layout(L);
    for (int u = 0; u < L->n; u++) /* groups are numbered in topological order */
        for (int j = gr->succ_off[u]; j < gr->succ_off[u + 1]; j++)
            CHECK(L->layer[gr->succ[j]] > L->layer[u]);
    dag_free(L);
    group_free(gr);
    graph_free(g);
}

static int same_ints(const int *a, const int *b, int n) { return memcmp(a, b, (size_t)n * sizeof *a) == 0; }

TEST(dag_layout_is_deterministic)
{
    Graph *g = gen_random_dag(400, 2.0, 7);
    Csr c = csr_of(g);
    DagLayout *a = dag_layout(c.n, c.off, c.succ, NULL), *b = dag_layout(c.n, c.off, c.succ, NULL);
    CHECK_INT(a->n_vert, b->n_vert);
    CHECK(same_ints(a->order, b->order, a->n_vert));
    for (int z = 0; z < DAG_ZOOMS; z++) {
        const DagGeom *ga = dag_geom(a, z), *gb = dag_geom(b, z);
        CHECK(ga->width == gb->width && ga->height == gb->height);
        CHECK(same_ints(ga->x, gb->x, a->n_vert));
        CHECK_INT(ga->pt_off[a->n_edges], gb->pt_off[b->n_edges]);
        CHECK(memcmp(ga->pts, gb->pts, (size_t)ga->pt_off[a->n_edges] * sizeof *ga->pts) == 0);
        Grid *ra = grid_new(100, 50), *rb = grid_new(100, 50);
        int x, y;
        dag_center_on(a, z, c.n / 2, 100, 50, &x, &y);
        DagView v = {z, x, y, {0, 0, 100, 50}, NULL, NULL, NULL, NULL, 0, NULL};
        dag_render(a, &v, ra);
        dag_render(b, &v, rb);
        char *ta = grid_to_text(ra, GRID_UNICODE), *tb = grid_to_text(rb, GRID_UNICODE);
        CHECK(strcmp(ta, tb) == 0);
        free(ta);
        free(tb);
        grid_free(ra);
        grid_free(rb);
    }
    dag_free(a);
    dag_free(b);
    csr_free(&c);
    graph_free(g);
}

TEST(dag_node_at_and_center_on)
{
    Graph *g = gen_random_dag(60, 1.5, 3);
    Csr c = csr_of(g);
    DagLayout *L = dag_layout(c.n, c.off, c.succ, NULL);
    for (int z = 0; z < DAG_ZOOMS; z++)
        for (int u = 0; u < L->n; u++) {
            GridRect r = dag_node_rect(L, z, u);
            CHECK_INT(dag_node_at(L, z, r.x, r.y), u);
            CHECK_INT(dag_node_at(L, z, r.x + r.w - 1, r.y + r.h - 1), u);
            CHECK_INT(dag_node_at(L, z, r.x - 1, r.y), -1); /* the blank column before it */
            int x, y;
            dag_center_on(L, z, u, 21, 9, &x, &y);
            DagView v = {z, x, y, {3, 2, 21, 9}, NULL, NULL, NULL, NULL, 0, NULL};
            /* the node is under the view's middle cell unless the view was clamped */
            if (x > 0 && y > 0 && x < dag_geom(L, z)->width - 21 && y < dag_geom(L, z)->height - 9)
                CHECK_INT(dag_node_at_view(L, &v, 3 + 10, 2 + 4), u);
            CHECK(x >= 0 && y >= 0);
        }
    DagView v = {DAG_FULL, 0, 0, {0, 0, 5, 5}, NULL, NULL, NULL, NULL, 0, NULL};
    CHECK_INT(dag_node_at_view(L, &v, 7, 1), -1); /* outside the view */
    CHECK_INT(dag_node_at(L, DAG_FULL, -5, -5), -1);
    dag_free(L);
    csr_free(&c);
    graph_free(g);
}

TEST(dag_degenerate_inputs)
{
    DagLayout *L = dag_layout(0, NULL, NULL, NULL);
    CHECK(L->n == 0 && L->n_layers == 0 && dag_geom(L, DAG_FULL)->width == 0);
    Grid *g = grid_new(10, 3);
    DagView v = {DAG_FULL, 0, 0, {0, 0, 10, 3}, NULL, NULL, NULL, NULL, 0, NULL};
    dag_render(L, &v, g);
    dag_free(L);
    L = dag_layout(3, NULL, NULL, NULL); /* no edges: one layer */
    CHECK_INT(L->n_layers, 1);
    check_layout(L);
    dag_free(L);
    /* a cycle 0 -> 1 -> 2 -> 0 and a self-loop on 1: laid out, back edges not drawn */
    int off[4] = {0, 1, 3, 4}, succ[4] = {1, 2, 1, 0};
    L = dag_layout(3, off, succ, NULL);
    int drawn = 0;
    for (int e = 0; e < L->n_edges; e++)
        drawn += L->chain_off[e + 1] > L->chain_off[e];
    CHECK_INT(drawn, 2);
    check_layers(L);
    v.dst.w = 10;
    dag_render(L, &v, g);
    dag_free(L);
    grid_free(g);
}

TEST(dag_render_styles_and_clipping)
{
    int off[4] = {0, 2, 3, 3}, succ[3] = {1, 2, 2}, dev[3] = {0, 1, 12};
    uint8_t style[3] = {0, GS_CURRENT, GS_DESCENDANT}, crit[3] = {1, 0, 1};
    const char *labels[3] = {"first", "a-very-long-label", "c"};
    DagLayout *L = dag_layout(3, off, succ, NULL);
    const DagGeom *G = dag_geom(L, DAG_FULL);
    Grid *g = grid_new(G->width + 4, G->height + 2);
    grid_fill(g, (GridRect){0, 0, g->w, g->h}, '*', GS_NONE);
    DagView v = {DAG_FULL, 0, 0, {2, 1, G->width, G->height}, labels, dev, style, crit, 0, NULL};
    dag_render(L, &v, g);
    char *t = grid_to_text(g, GRID_ASCII);
    CHECK_STR_CONTAINS(t, "|first      d0|");
    CHECK_STR_CONTAINS(t, "|a-ve~label d1|");
    CHECK_STR_CONTAINS(t, "|c          12|"); /* "d12" does not fit the tag: the number */
    CHECK(t[0] == '*' && g->clip.w == g->w); /* outside dst untouched; clip restored */
    free(t);
    GridRect r0 = dag_node_rect(L, DAG_FULL, 0), r1 = dag_node_rect(L, DAG_FULL, 1);
    CHECK_INT(grid_at(g, 2 + r0.x, 1 + r0.y)->style, GS_DEVICE);
    CHECK_INT(grid_at(g, 2 + r0.x, 1 + r0.y)->device, 0);
    CHECK_INT(grid_at(g, 2 + r1.x, 1 + r1.y)->style, GS_CURRENT);
    CHECK_INT(grid_at(g, 2 + r1.x, 1 + r1.y)->device, 1);
    /* 0 -> 2 joins two critical nodes; the arrow into 1 belongs to the current node */
    CHECK_INT(grid_at(g, 2 + r1.x + r1.w / 2, r1.y)->style, GS_EDGE_HI);
    /* a colour per node: the unstyled nodes in GS_GROUP (the text stays), the styled as they were */
    int colour[3] = {7, 8, 9};
    v.colour = colour;
    dag_render(L, &v, g);
    CHECK_INT(grid_at(g, 2 + r0.x, 1 + r0.y)->style, GS_GROUP);
    CHECK_INT(grid_at(g, 2 + r0.x, 1 + r0.y)->device, 7);
    CHECK_INT(grid_at(g, 2 + r1.x, 1 + r1.y)->style, GS_CURRENT);
    char *tc = grid_to_text(g, GRID_ASCII);
    CHECK_STR_CONTAINS(tc, "|first      d0|");
    free(tc);
    v.colour = NULL;
    int crit_cells = 0;
    for (int i = 0; i < g->w * g->h; i++)
        crit_cells += g->cells[i].style == GS_CRITICAL;
    CHECK(crit_cells > 0);
    /* compact: marked dots for the current node, digits on request */
    grid_clear(g);
    v.zoom = DAG_COMPACT;
    v.digits = 1;
    dag_render(L, &v, g);
    GridRect c1 = dag_node_rect(L, DAG_COMPACT, 1), c2 = dag_node_rect(L, DAG_COMPACT, 2);
    CHECK_INT(grid_at(g, 2 + c1.x, 1 + c1.y)->ch, GRID_DOT_MARKED);
    CHECK_INT(grid_at(g, 2 + c2.x, 1 + c2.y)->ch, '2');
    /* a view scrolled off the canvas draws nothing */
    grid_clear(g);
    v.x = 1000;
    dag_render(L, &v, g);
    t = grid_to_text(g, GRID_ASCII);
    CHECK_INT((long)strspn(t, "\n"), (long)strlen(t));
    free(t);
    grid_free(g);
    dag_free(L);
}

TEST(dag_mark_relatives_matches_reachability)
{
    Graph *g = gen_random_dag(80, 1.5, 11);
    Csr c = csr_of(g);
    DagLayout *L = dag_layout(c.n, c.off, c.succ, NULL);
    uint8_t *style = XMALLOC(uint8_t, c.n);
    int *queue = XMALLOC(int, L->n_vert);
    char *reach = XNEW(char, xmul((size_t)c.n, (size_t)c.n)); /* reach[a * n + b]: a path a -> b */
    for (int a = c.n - 1; a >= 0; a--) /* ops are in topological order */
        for (int j = c.off[a]; j < c.off[a + 1]; j++) {
            int b = c.succ[j];
            reach[a * c.n + b] = 1;
            for (int x = 0; x < c.n; x++)
                reach[a * c.n + x] |= reach[b * c.n + x];
        }
    for (int u = 0; u < c.n; u += 7) {
        dag_mark_relatives(L, u, style, queue);
        for (int v = 0; v < c.n; v++) {
            int want = v == u ? GS_CURRENT : reach[v * c.n + u] ? GS_ANCESTOR : reach[u * c.n + v] ? GS_DESCENDANT
                                                                                                  : GS_PARALLEL;
            CHECK_MSG(style[v] == want, "node %d seen from %d: style %d, expected %d", v, u, style[v], want);
        }
    }
    free(reach);
    free(queue);
    free(style);
    dag_free(L);
    csr_free(&c);
    graph_free(g);
}

/* A vertex with more parents than any vertex before it has children (found by
 * fuzzing: the ordering's neighbour buffer was sized by children only). Four
 * sources each feed a merge node v and a sink of their own; v feeds three
 * sinks. Under ASan an overflow fails the test. */
TEST(dag_many_parents_after_few_children)
{
    /* nodes: s0..s3 = 0..3, v = 4, own sinks 5..8, v's sinks 9..11 */
    int succ_off[13], succ[16], m = 0;
    for (int s = 0; s < 4; s++) {
        succ_off[s] = m;
        succ[m++] = 4;
        succ[m++] = 5 + s;
    }
    succ_off[4] = m;
    for (int k = 0; k < 3; k++)
        succ[m++] = 9 + k;
    for (int u = 5; u <= 12; u++)
        succ_off[u] = m;
    DagLayout *L = dag_layout(12, succ_off, succ, NULL);
    CHECK_INT(L->n, 12);
    check_layout(L);
    dag_free(L);
}

/* ---- crossings, scale and the compact view on first use ---- */

/* Crossings between adjacent layers of L's final order, counted apart from
 * the layout: per layer pair, the edges sorted by upper then lower
 * position, and the pairs out of order in the lower positions (strictly:
 * edges sharing an end do not cross) counted by a merge sort. */
static long merge_count(long *a, long *tmp, int n)
{
    long c = 0;
    for (int w = 1; w < n; w *= 2)
        for (int lo = 0; lo < n; lo += 2 * w) {
            int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, i = lo, j = mid, o = lo;
            while (i < mid && j < hi) {
                if (a[j] < a[i]) {
                    c += mid - i; /* a[j] is below every a[i .. mid) */
                    tmp[o++] = a[j++];
                } else {
                    tmp[o++] = a[i++];
                }
            }
            while (i < mid)
                tmp[o++] = a[i++];
            while (j < hi)
                tmp[o++] = a[j++];
            memcpy(a + lo, tmp + lo, (size_t)(hi - lo) * sizeof *a);
        }
    return c;
}

static long recount_crossings(const DagLayout *L)
{
    long total = 0, m = L->down_off[L->n_vert];
    long *a = XMALLOC(long, m + 1), *tmp = XMALLOC(long, m + 1);
    for (int l = 0; l + 1 < L->n_layers; l++) {
        int k = 0;
        for (int i = L->layer_off[l]; i < L->layer_off[l + 1]; i++) { /* upper ends left to right */
            int v = L->order[i], k0 = k;
            for (int j = L->down_off[v]; j < L->down_off[v + 1]; j++)
                a[k++] = L->pos[L->down[j]];
            for (int x = k0 + 1; x < k; x++) /* this vertex's lower ends in order: they never cross */
                for (int y = x; y > k0 && a[y - 1] > a[y]; y--) {
                    long t = a[y];
                    a[y] = a[y - 1];
                    a[y - 1] = t;
                }
        }
        total += merge_count(a, tmp, k);
    }
    free(a);
    free(tmp);
    return total;
}

/* The crossings of every bundled graph's group layout are counted right and
 * are never more than before the faster ordering (the counts of commit
 * badf5ec): the sort by medians and the coordinates changed in speed only. */
TEST(dag_crossings_on_the_bundled_graphs_no_worse_than_before)
{
    static const struct {
        const char *path;
        long before;
    } cases[] = {{"graphs/googlenet.json", 281},   {"graphs/inception_v3.json", 111}, {"graphs/mobilenet_v2.json", 15},
                 {"graphs/nasnet.json", 1734},     {"graphs/nmt.json", 40151},        {"graphs/resnet18.json", 76},
                 {"graphs/resnet50.json", 23},     {"graphs/vgg16.json", 0},          {"graphs/toy/crown.json", 0}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        Err e;
        Graph *g = graph_load(cases[k].path, &e);
        REQUIRE_MSG(g != NULL, "%s", e.msg);
        Grouping *gr = group_build(g, 0, &e);
        REQUIRE_MSG(gr != NULL, "%s", e.msg);
        DagLayout *L = dag_layout(gr->n_groups, gr->succ_off, gr->succ, NULL);
        long again = recount_crossings(L);
        CHECK_MSG(again == L->crossings, "%s: the layout counts %ld crossings, recounted %ld", cases[k].path,
                  L->crossings, again);
        CHECK_MSG(L->crossings <= cases[k].before, "%s: %ld crossings, %ld before", cases[k].path, L->crossings,
                  cases[k].before);
        check_layers(L);
        dag_free(L);
        group_free(gr);
        graph_free(g);
    }
}

/* A large layered graph (a 30 000-op random DAG's 200 groups: about 109 000
 * vertices with the dummies, above DAG_LARGE) takes the shorter crossing
 * reduction and Brandes-Koepf alone: still every vertex in its layer once,
 * every node on the canvas without overlap in both views, separations
 * kept, every edge routed around the boxes; its crossings counted right and
 * within 1 % of what the full sweeps reached on it (712 953 at badf5ec). */
TEST(dag_large_layout_keeps_the_layout_properties)
{
    Graph *g = gen_random_dag(30000, 2.0, 2);
    Err e;
    Grouping *gr = group_build(g, 0, &e);
    REQUIRE_MSG(gr != NULL, "%s", e.msg);
    DagLayout *L = dag_layout(gr->n_groups, gr->succ_off, gr->succ, NULL);
    CHECK_MSG(L->n_vert > 50000, "%d vertices: not a large layered graph", L->n_vert);
    check_layers(L);
    check_chains(L);
    long again = recount_crossings(L);
    CHECK_MSG(again == L->crossings, "the layout counts %ld crossings, recounted %ld", L->crossings, again);
    CHECK_MSG(L->crossings * 100 <= 712953L * 101, "%ld crossings, the full sweeps 712953", L->crossings);
    for (int z = 0; z < DAG_ZOOMS && !test_failed_now(); z++) {
        int *map = box_map(L, z);
        check_separation(L, z);
        check_routes(L, z, map);
        free(map);
    }
    dag_free(L);
    group_free(gr);
    graph_free(g);
}

/* The compact view's geometry is computed when first asked for: asked for
 * before the full view's has been used, or after, it is the same, and so
 * is a folded layout's. */
TEST(dag_compact_view_on_first_use_is_the_same)
{
    Err e;
    Graph *g = graph_load("graphs/resnet18.json", &e);
    REQUIRE_MSG(g != NULL, "%s", e.msg);
    Grouping *gr = group_build(g, 0, &e);
    int n = gr->n_groups, *host = XMALLOC(int, n + 1);
    REQUIRE(dag_fold_training(g, gr, host) > 0);
    for (int fold = 0; fold < 2; fold++) {
        DagLayout *a = fold ? dag_layout_folded(n, gr->succ_off, gr->succ, host, NULL)
                            : dag_layout(n, gr->succ_off, gr->succ, NULL);
        DagLayout *b = fold ? dag_layout_folded(n, gr->succ_off, gr->succ, host, NULL)
                            : dag_layout(n, gr->succ_off, gr->succ, NULL);
        CHECK(a->lazy != NULL); /* the compact view's is not there yet */
        int probe = dag_node_at(a, DAG_COMPACT, 0, 0); /* computes a's compact view */
        (void)probe;
        CHECK(a->lazy == NULL); /* both views there: nothing kept for later */
        const DagGeom *fb = dag_geom(b, DAG_FULL), *cb = dag_geom(b, DAG_COMPACT);
        const DagGeom *fa = dag_geom(a, DAG_FULL), *ca = dag_geom(a, DAG_COMPACT);
        CHECK(same_ints(fa->x, fb->x, a->n_vert) && same_ints(ca->x, cb->x, a->n_vert));
        CHECK(ca->width == cb->width && ca->height == cb->height);
        CHECK(same_ints(ca->pt_off, cb->pt_off, a->n_edges + 1));
        CHECK(memcmp(ca->pts, cb->pts, (size_t)ca->pt_off[a->n_edges] * sizeof *ca->pts) == 0);
        for (int u = 0; u < n; u++) { /* every node has a cell of its own in the compact view */
            GridRect r = dag_node_rect(a, DAG_COMPACT, u);
            CHECK_INT(dag_node_at(a, DAG_COMPACT, r.x, r.y), u);
        }
        dag_free(a);
        dag_free(b);
    }
    free(host);
    group_free(gr);
    graph_free(g);
}
