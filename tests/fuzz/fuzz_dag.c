/* libFuzzer target: the layered DAG layout (layouts/dag.h) and its rendering
 * on random graphs. The input bytes describe the graph and the view:
 *
 *   byte 0      flags: bit 0 allows cycles and self-loops (dag_layout must
 *               tolerate them by not drawing those edges), bit 1 keeps
 *               repeated edges, bit 2 gives labels, bit 3 device digits
 *   bytes 1-2   node count n, 0 .. FUZZ_DAG_MAX_NODES
 *   bytes 3-10  grid size, view origin (signed), destination rectangle,
 *               options (label and tag widths, sweeps)
 *   the rest    edges, 3 bytes each: two 12-bit node numbers (mod n); without
 *               bit 0 the smaller becomes the source (acyclic), equal ones
 *               are skipped
 *
 * Each zoom is rendered with labels, devices, styles and critical marks
 * derived from the input, then probed with dag_node_at, dag_node_at_view,
 * dag_center_on, dag_node_rect and dag_mark_relatives, its minimap drawn,
 * and the grid is turned into text in both glyph sets. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dag.h"
#include "fuzz.h"
#include "grid.h"

#define FUZZ_DAG_MAX_NODES 300
#define FUZZ_DAG_MAX_EDGES 3000

typedef struct Bytes {
    const uint8_t *p;
    size_t n, i;
} Bytes;

static int next(Bytes *b)
{
    return b->i < b->n ? b->p[b->i++] : 0;
}

static int cmp_edge(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Bytes b = {data, size, 0};
    int flags = next(&b);
    int n = (next(&b) | next(&b) << 8) % (FUZZ_DAG_MAX_NODES + 1);
    int gw = 1 + next(&b) % 160, gh = 1 + next(&b) % 60;
    int vx = (int8_t)next(&b) * 3, vy = (int8_t)next(&b) * 2;
    int dx = next(&b) % 16 - 4, dy = next(&b) % 8 - 2;
    int opt = next(&b);
    DagOptions o;
    dag_options_default(&o);
    o.label_width = 1 + (opt & 15);
    o.tag_width = (opt >> 4) & 3;
    o.sweeps = (opt >> 6) * 3;
    o.coord_sweeps = (opt >> 6) * 2;

    /* edges as (src, dst) pairs, then CSR */
    int *pairs = xmalloc_array((FUZZ_DAG_MAX_EDGES + 1) * 2, sizeof *pairs), m = 0;
    while (n > 0 && b.i + 3 <= b.n && m < FUZZ_DAG_MAX_EDGES) {
        int x = next(&b), y = next(&b), z = next(&b);
        int u = (x | (y & 15) << 8) % n, v = ((y >> 4) | z << 4) % n;
        if (!(flags & 1)) {
            if (u == v)
                continue;
            if (u > v) {
                int t = u;
                u = v;
                v = t;
            }
        }
        pairs[2 * m] = u;
        pairs[2 * m + 1] = v;
        m++;
    }
    qsort(pairs, (size_t)m, 2 * sizeof *pairs, cmp_edge);
    if (!(flags & 2)) { /* drop repeated edges */
        int k = 0;
        for (int i = 0; i < m; i++)
            if (k == 0 || pairs[2 * i] != pairs[2 * (k - 1)] || pairs[2 * i + 1] != pairs[2 * (k - 1) + 1]) {
                pairs[2 * k] = pairs[2 * i];
                pairs[2 * k + 1] = pairs[2 * i + 1];
                k++;
            }
        m = k;
    }
    int *off = xnew_array((size_t)n + 1, sizeof *off), *succ = xmalloc_array((size_t)m + 1, sizeof *succ);
    for (int i = 0; i < m; i++) {
        off[pairs[2 * i] + 1]++;
        succ[i] = pairs[2 * i + 1];
    }
    for (int u = 0; u < n; u++)
        off[u + 1] += off[u];
    free(pairs);

    int *host = xmalloc_array((size_t)n + 1, sizeof *host);
    for (int u = 0; u < n; u++) /* some on their own, others beside any node (a folded one too) */
        host[u] = u % 4 == 0 ? u : (int)(((unsigned)u * 2654435761u + (unsigned)flags) % (unsigned)n);
    DagLayout *L = flags & 16 ? dag_layout_folded(n, off, succ, host, &o) : dag_layout(n, off, succ, &o);
    if (L->n != n || (flags & 16 ? L->n_edges > m : L->n_edges != m) || L->n_vert < n)
        fuzz_fail("layout of %d nodes, %d edges: n %d, n_edges %d, n_vert %d", n, m, L->n, L->n_edges, L->n_vert);

    /* per-node view arrays from the remaining bytes (zeros when exhausted) */
    char **labels = xnew_array((size_t)n + 1, sizeof *labels);
    int *device = xmalloc_array((size_t)n + 1, sizeof *device);
    uint8_t *style = xmalloc((size_t)n + 1), *crit = xmalloc((size_t)n + 1);
    for (int u = 0; u < n; u++) {
        int len = next(&b) % 24;
        labels[u] = xmalloc((size_t)len + 1);
        for (int k = 0; k < len; k++)
            labels[u][k] = (char)(next(&b) | 1); /* no NUL inside: any other byte, UTF-8 or not */
        labels[u][len] = '\0';
        int dv = next(&b);
        device[u] = dv % 70 - 2;
        style[u] = (uint8_t)(dv & 1 ? dv % GS_COUNT : 0);
        crit[u] = (uint8_t)(dv >> 7);
    }

    Grid *g = grid_new(gw, gh);
    int *queue = xmalloc_array((size_t)L->n_vert + 1, sizeof *queue);
    uint8_t *rel = xmalloc((size_t)n + 1);
    for (int zoom = 0; zoom < DAG_ZOOMS; zoom++) {
        const DagGeom *G = dag_geom(L, zoom);
        if (G->width < 0 || G->height < 0)
            fuzz_fail("zoom %d: canvas %d x %d", zoom, G->width, G->height);
        DagView v = {zoom, vx, vy, {dx, dy, gw - dx / 2, gh - dy / 2}, (flags & 4) ? (const char *const *)labels : NULL,
                     device, style, crit, (flags >> 3) & 1, (flags & 16) ? device : NULL}; /* palette indices too */
        grid_clear(g);
        dag_render(L, &v, g);
        if (g->clip.x != 0 || g->clip.y != 0 || g->clip.w != gw || g->clip.h != gh)
            fuzz_fail("dag_render left the clip at %d,%d %dx%d", g->clip.x, g->clip.y, g->clip.w, g->clip.h);
        for (int k = 0; k < 16; k++) {
            int cx = (int8_t)next(&b), cy = (int8_t)next(&b);
            int u = dag_node_at(L, zoom, cx, cy);
            if (u < -1 || u >= n)
                fuzz_fail("dag_node_at(%d, %d) = %d of %d", cx, cy, u, n);
            if (u >= 0) {
                GridRect r = dag_node_rect(L, zoom, u);
                if (cx < r.x || cx >= r.x + r.w || cy < r.y || cy >= r.y + r.h)
                    fuzz_fail("dag_node_at(%d, %d) = %d whose box is %d,%d %dx%d", cx, cy, u, r.x, r.y, r.w, r.h);
            }
            u = dag_node_at_view(L, &v, cx & 127, cy & 63);
            if (u < -1 || u >= n)
                fuzz_fail("dag_node_at_view = %d of %d", u, n);
        }
        if (n > 0) {
            int u = (int)(((unsigned)vx * 7u + (unsigned)vy) % (unsigned)n), x, y;
            dag_center_on(L, zoom, u, gw, gh, &x, &y);
            dag_center_on(L, zoom, u, 1, 1, &x, &y);
            v.x = x;
            v.y = y;
            dag_mark_relatives(L, u, rel, queue);
            v.style = rel;
            dag_render(L, &v, g);
        }
        int mw, mh;
        dag_map_fit(L, zoom, 1 + gw / 3, 1 + gh / 2, &mw, &mh);
        if (mw < 1 || mh < 1 || mw > 1 + gw / 3 || mh > 1 + gh / 2)
            fuzz_fail("dag_map_fit: %dx%d within %dx%d", mw, mh, 1 + gw / 3, 1 + gh / 2);
        dag_render_map(L, &v, (GridRect){gw - mw, dy, mw, mh}, g);
        char *t = grid_to_text(g, zoom == DAG_FULL ? GRID_ASCII : GRID_UNICODE);
        free(t);
        t = grid_to_text(g, zoom == DAG_FULL ? GRID_UNICODE : GRID_ASCII);
        free(t);
    }

    free(rel);
    free(queue);
    grid_free(g);
    for (int u = 0; u < n; u++)
        free(labels[u]);
    free(labels);
    free(device);
    free(style);
    free(crit);
    dag_free(L);
    free(off);
    free(succ);
    free(host);
    return 0;
}
