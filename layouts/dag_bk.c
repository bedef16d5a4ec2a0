/* dag_bk: candidate x coordinates of one zoom level (stage 4 of dag.h), after
 * Brandes and Koepf ("Fast and simple horizontal coordinate assignment",
 * 2001), as dagre does it:
 *   - segments between two dummies (inner segments) win: any other segment
 *     crossing one is marked and never aligned;
 *   - four vertical alignments (up/down x left/right): each vertex joins the
 *     block of its median neighbour in the previous layer when that keeps
 *     blocks from crossing, so a long edge becomes one straight block;
 *   - each alignment is compacted: blocks are vertices of a constraint graph
 *     (left neighbour + widths + gap), placed by a longest path from the left
 *     and then pulled right as far as their right neighbours allow;
 *   - the four results are aligned to the narrowest and each vertex takes the
 *     mean of its two middle candidates (order statistics keep the order and
 *     the separations).
 * Then the slack is squeezed out column by column. Coordinates are ports
 * (box middles); everything is O(V log V) in the size of the layered graph.
 * Long edges come out straight; the price is width when boxes are wide. */
#include <stdlib.h>
#include <string.h>

#include "dag_impl.h"
#include "util.h"

typedef struct Bk {
    const DagLayout *L;
    const DagGeom *G;
    int zoom;
    int vdir, hdir;   /* 0: top-down, left-right; 1: mirrored */
    char *mark;       /* per up-list entry: a segment crossing an inner one */
    char *umark, *dmark; /* per up- and down-list entry: marked(), looked up once */
    int *root, *align; /* per vertex */
    long *x;          /* per vertex (block roots during compaction) */
    int *indeg, *queue, *eoff, *edst; /* the block constraint graph */
    long *ew;
} Bk;

static int is_dummy(const DagLayout *L, int v) { return v >= L->n; }

/* Minimum port distance between a (left) and b, neighbours in a layer. */
static long port_gap(const Bk *k, int a, int b)
{
    int wa = dag_vert_w(k->L, k->G, a);
    return (wa - dag_port_off(k->L, k->G, a)) + dag_sep(k->L, k->zoom, a, b) + dag_port_off(k->L, k->G, b);
}

/* Marks non-inner segments between layers l and l + 1 that cross an inner
 * segment (type 1 conflicts). */
static void mark_layer(Bk *k, int l)
{
    const DagLayout *L = k->L;
    int lo = L->layer_off[l + 1], n1 = L->layer_off[l + 2] - lo, k0 = 0, scan = 0;
    for (int i = 0; i < n1; i++) {
        int v = L->order[lo + i], inner = -1;
        for (int j = L->up_off[v]; j < L->up_off[v + 1] && is_dummy(L, v); j++)
            if (is_dummy(L, L->up[j]))
                inner = L->up[j];
        if (i != n1 - 1 && inner < 0)
            continue;
        int k1 = inner >= 0 ? L->pos[inner] : L->layer_off[l + 1] - L->layer_off[l] - 1;
        for (; scan <= i; scan++) {
            int w = L->order[lo + scan];
            for (int j = L->up_off[w]; j < L->up_off[w + 1]; j++)
                if (L->pos[L->up[j]] < k0 || L->pos[L->up[j]] > k1)
                    k->mark[j] = 1;
        }
        k0 = k1;
    }
}

/* Is the segment between u (upper) and v marked? The first of v's up
 * entries naming u decides. */
static int marked(const Bk *k, int u, int v)
{
    for (int j = k->L->up_off[v]; j < k->L->up_off[v + 1]; j++)
        if (k->L->up[j] == u)
            return k->mark[j];
    return 0;
}

/* marked() of every up- and down-list entry, so that aligning looks it up:
 * neighbour lists are sorted by position, so an up entry repeating u
 * follows the first one; a down entry u -> v finds v's first entry for u by
 * bisection. */
static void lookup_marks(Bk *k)
{
    const DagLayout *L = k->L;
    for (int v = 0; v < L->n_vert; v++)
        for (int j = L->up_off[v]; j < L->up_off[v + 1]; j++)
            k->umark[j] = j > L->up_off[v] && L->up[j - 1] == L->up[j] ? k->umark[j - 1] : k->mark[j];
    for (int u = 0; u < L->n_vert; u++)
        for (int d = L->down_off[u]; d < L->down_off[u + 1]; d++) {
            int v = L->down[d], lo = L->up_off[v], hi = L->up_off[v + 1], p = L->pos[u];
            while (lo < hi) { /* the first entry at or right of u's position */
                int mid = lo + (hi - lo) / 2;
                if (L->pos[L->up[mid]] < p)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            k->dmark[d] = lo < L->up_off[v + 1] && L->up[lo] == u ? k->mark[lo] : (char)marked(k, u, v);
        }
}

/* The vertex at horizontal position i of layer l. */
static int at_hpos(const Bk *k, int l, int i)
{
    int lo = k->L->layer_off[l], n = k->L->layer_off[l + 1] - lo;
    return k->L->order[lo + (k->hdir ? n - 1 - i : i)];
}

static void align_blocks(Bk *k)
{
    const DagLayout *L = k->L;
    for (int v = 0; v < L->n_vert; v++)
        k->root[v] = k->align[v] = v;
    for (int s = 1; s < L->n_layers; s++) {
        int l = k->vdir ? L->n_layers - 1 - s : s, n = L->layer_off[l + 1] - L->layer_off[l], r = -1;
        int nl = k->vdir ? l + 1 : l - 1, last = L->layer_off[nl + 1] - L->layer_off[nl] - 1; /* the layer aligned to */
        for (int i = 0; i < n; i++) {
            int v = at_hpos(k, l, i);
            int o = k->vdir ? L->down_off[v] : L->up_off[v];
            const int *nb = (k->vdir ? L->down : L->up) + o;
            const char *mk = (k->vdir ? k->dmark : k->umark) + o;
            int d = k->vdir ? L->down_off[v + 1] - o : L->up_off[v + 1] - o;
            for (int m = (d - 1) / 2; d > 0 && m <= d / 2 && k->align[v] == v; m++) {
                int j = k->hdir ? d - 1 - m : m, u = nb[j], hu = k->hdir ? last - L->pos[u] : L->pos[u]; /* its position in the direction */
                if (mk[j] || r >= hu)
                    continue;
                k->align[u] = v;
                k->root[v] = k->root[u];
                k->align[v] = k->root[v];
                r = hu;
            }
        }
    }
}

/* The block constraint graph: root(left neighbour) -> root(v), weighted by
 * the port gap, as CSR over block roots. */
static void block_graph(Bk *k)
{
    const DagLayout *L = k->L;
    memset(k->eoff, 0, ((size_t)L->n_vert + 2) * sizeof(int));
    for (int l = 0; l < L->n_layers; l++)
        for (int i = 1; i < L->layer_off[l + 1] - L->layer_off[l]; i++)
            k->eoff[k->root[at_hpos(k, l, i - 1)] + 2]++;
    for (int v = 0; v < L->n_vert; v++)
        k->eoff[v + 2] += k->eoff[v + 1];
    for (int l = 0; l < L->n_layers; l++)
        for (int i = 1; i < L->layer_off[l + 1] - L->layer_off[l]; i++) {
            int a = at_hpos(k, l, i - 1), b = at_hpos(k, l, i), e = k->eoff[k->root[a] + 1]++;
            k->edst[e] = k->root[b];
            k->ew[e] = k->hdir ? port_gap(k, b, a) : port_gap(k, a, b);
        }
}

/* Longest path from the left over the block graph, then each block pulled
 * right up to its right neighbours (in reverse topological order). */
static void compact(Bk *k)
{
    const DagLayout *L = k->L;
    int nv = L->n_vert, head = 0, tail = 0;
    block_graph(k);
    memset(k->indeg, 0, (size_t)nv * sizeof(int));
    for (int e = 0; e < k->eoff[nv]; e++)
        k->indeg[k->edst[e]]++;
    for (int v = 0; v < nv; v++) {
        k->x[v] = 0;
        if (k->root[v] == v && k->indeg[v] == 0)
            k->queue[tail++] = v;
    }
    while (head < tail) {
        int b = k->queue[head++];
        for (int e = k->eoff[b]; e < k->eoff[b + 1]; e++) {
            int c = k->edst[e];
            if (k->x[c] < k->x[b] + k->ew[e])
                k->x[c] = k->x[b] + k->ew[e];
            if (--k->indeg[c] == 0)
                k->queue[tail++] = c;
        }
    }
    for (int i = tail - 1; i >= 0; i--) {
        int b = k->queue[i];
        long lim = -1;
        for (int e = k->eoff[b]; e < k->eoff[b + 1]; e++)
            if (lim < 0 || k->x[k->edst[e]] - k->ew[e] < lim)
                lim = k->x[k->edst[e]] - k->ew[e];
        if (k->eoff[b + 1] > k->eoff[b] && lim > k->x[b])
            k->x[b] = lim;
    }
    for (int v = 0; v < nv; v++)
        k->x[v] = k->x[k->root[v]];
}

/* Aligns the four layouts to the narrowest and takes, per vertex, the
 * floor of the mean of the two middle candidates. */
static void balance(const DagLayout *L, const DagGeom *G, long *xs[4], int *out)
{
    long lo[4], hi[4];
    int best = 0;
    for (int d = 0; d < 4; d++) {
        lo[d] = hi[d] = 0;
        for (int v = 0; v < L->n_vert; v++) {
            int w = dag_vert_w(L, G, v);
            long a = xs[d][v] - dag_port_off(L, G, v), b = a + w;
            lo[d] = v == 0 || a < lo[d] ? a : lo[d];
            hi[d] = v == 0 || b > hi[d] ? b : hi[d];
        }
        if (hi[d] - lo[d] < hi[best] - lo[best])
            best = d;

    }
    for (int d = 0; d < 4; d++) {
        long shift = d % 2 ? hi[best] - hi[d] : lo[best] - lo[d]; /* odd d: right-aligned */
        for (int v = 0; v < L->n_vert; v++)
            xs[d][v] += shift;
    }
    for (int v = 0; v < L->n_vert; v++) { /* the two middle ones: all four but the least and the largest */
        long a = xs[0][v], b = xs[1][v], c = xs[2][v], d = xs[3][v];
        long lo_ab = a < b ? a : b, hi_ab = a < b ? b : a, lo_cd = c < d ? c : d, hi_cd = c < d ? d : c;
        long m = a + b + c + d - (lo_ab < lo_cd ? lo_ab : lo_cd) - (hi_ab > hi_cd ? hi_ab : hi_cd);
        out[v] = (int)(m >= 0 ? m / 2 : -((-m + 1) / 2));
    }
}

typedef struct PortV {
    int port, v;
} PortV;

static int portv_cmp(const void *a, const void *b)
{
    const PortV *x = a, *y = b;
    return x->port != y->port ? (x->port > y->port) - (x->port < y->port) : x->v - y->v;
}

/* Squeezes slack out of the balanced layout without bending anything: the
 * distinct port columns keep their order and stay distinct, vertices sharing
 * a column keep sharing it, and each column moves as far left as the
 * separations to the left neighbours in every layer allow. */
static void squeeze(const Bk *k, int *port)
{
    const DagLayout *L = k->L;
    int nv = L->n_vert;
    PortV *pv = XMALLOC(PortV, nv);
    int *left = XMALLOC(int, nv), *out = XMALLOC(int, nv);
    int lo = 0, hi = 0;
    for (int v = 0; v < nv; v++) {
        lo = v == 0 || port[v] < lo ? port[v] : lo;
        hi = v == 0 || port[v] > hi ? port[v] : hi;
        left[v] = L->pos[v] > 0 ? L->order[L->layer_off[L->layer[v]] + L->pos[v] - 1] : -1;
    }
    if (nv > 0 && (long)hi - lo <= 4L * nv) { /* by port, then index: a counting pass */
        int range = hi - lo + 1, *cnt = XNEW(int, range + 1);
        for (int v = 0; v < nv; v++)
            cnt[port[v] - lo + 1]++;
        for (int c = 0; c < range; c++)
            cnt[c + 1] += cnt[c];
        for (int v = 0; v < nv; v++)
            pv[cnt[port[v] - lo]++] = (PortV){port[v], v};
        free(cnt);
    } else {
        for (int v = 0; v < nv; v++)
            pv[v] = (PortV){port[v], v};
        qsort(pv, (size_t)nv, sizeof *pv, portv_cmp);
    }
    long prev = 0;
    for (int i = 0; i < nv;) {
        int j = i;
        long x = i == 0 ? 0 : prev + 1;
        for (; j < nv && pv[j].port == pv[i].port; j++) {
            int b = pv[j].v, a = left[b];
            if (a >= 0 && out[a] + port_gap(k, a, b) > x)
                x = out[a] + port_gap(k, a, b);
        }
        for (; i < j; i++)
            out[pv[i].v] = (int)x;
        prev = x;
    }
    for (int v = 0; v < nv; v++)
        port[v] = out[v];
    free(pv);
    free(left);
    free(out);
}

void dag_place_x_bk(const DagLayout *L, DagGeom *G, int zoom)
{
    int nv = L->n_vert;
    Bk k = {L, G, zoom, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    k.mark = XNEW(char, L->up_off[nv]);
    k.umark = XMALLOC(char, L->up_off[nv] + 1);
    k.dmark = XMALLOC(char, L->down_off[nv] + 1);
    k.root = XMALLOC(int, nv);
    k.align = XMALLOC(int, nv);
    k.indeg = XMALLOC(int, nv);
    k.queue = XMALLOC(int, nv);
    k.eoff = XMALLOC(int, nv + 2); /* CSR shifted by one while it is filled */
    k.edst = XMALLOC(int, nv);     /* left-neighbour pairs: fewer than nv */
    k.ew = XMALLOC(long, nv);
    for (int l = 0; l + 2 < L->n_layers; l++)
        mark_layer(&k, l);
    lookup_marks(&k);
    long *xs[4];
    for (int d = 0; d < 4; d++) {
        k.vdir = d / 2;
        k.hdir = d % 2;
        xs[d] = XMALLOC(long, nv);
        k.x = xs[d];
        align_blocks(&k);
        compact(&k);
        if (k.hdir)
            for (int v = 0; v < nv; v++)
                xs[d][v] = -xs[d][v];
    }
    int *port = XMALLOC(int, nv);
    balance(L, G, xs, port);
    k.hdir = 0;
    squeeze(&k, port);
    for (int v = 0; v < nv; v++)
        G->x[v] = port[v] - dag_port_off(L, G, v);
    for (int d = 0; d < 4; d++)
        free(xs[d]);
    free(port);
    free(k.mark);
    free(k.umark);
    free(k.dmark);
    free(k.root);
    free(k.align);
    free(k.indeg);
    free(k.queue);
    free(k.eoff);
    free(k.edst);
    free(k.ew);
}
