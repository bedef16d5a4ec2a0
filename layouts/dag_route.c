/* dag_route: rows of one zoom level and the edge routes (stage 5 of dag.h).
 *
 * In the gap below layer l every vertex with edges down is a "net": a stub
 * down from its port, one horizontal track spanning its port and its
 * targets' ports, and a drop to each target. A net whose targets all sit
 * straight below needs no track. Tracks are packed like the left-edge
 * channel router: nets sorted by left end fill track 0, then track 1, ...,
 * with a blank cell between two runs on one track. One more rule keeps
 * lines from running into each other: when a's stub column is also the drop
 * column of a target that a does not feed, a's track goes above the tracks
 * of the nets feeding that target (a's stub ends before their drops begin).
 * A cycle of such rules is broken by placing the leftmost waiting net anyway.
 *
 * Rows: full view, a layer is 3 rows of boxes and its gap is its tracks plus
 * one row for the arrow heads; compact view, a layer is one row and its gap
 * max(1, tracks) rows. */
#include <stdlib.h>
#include <string.h>

#include "dag_impl.h"
#include "util.h"

typedef struct Net {
    int lo, hi, pos; /* columns spanned; position of its first vertex */
    int v, shared;   /* its vertex, or its target when shared */
} Net;

static int net_cmp(const void *a, const void *b)
{
    const Net *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo - y->lo;
    if (x->hi != y->hi)
        return x->hi - y->hi;
    return x->pos - y->pos;
}

typedef struct Scratch {
    Net *nets;      /* per net of the gap */
    int *item_of;   /* per vertex with several targets: its net, or -1 */
    int *tgt_net;   /* per vertex: the net of its single-target inputs, or -1 */
    int *indeg, *placed, *left, *net_track; /* per net */
    int *cfrom, *cto, *coff, *cadj; /* "net cfrom above net cto" rules, CSR */
    int ccap;
} Scratch;

/* The vertex of layer l whose port is column x, or -1. */
static int vertex_at_port(const DagLayout *L, const DagGeom *G, int l, int x)
{
    int lo = L->layer_off[l], hi = L->layer_off[l + 1] - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2, p = dag_port(L, G, L->order[mid]);
        if (p == x)
            return L->order[mid];
        if (p < x)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

static int feeds(const DagLayout *L, int a, int b)
{
    for (int j = L->down_off[a]; j < L->down_off[a + 1]; j++)
        if (L->down[j] == b)
            return 1;
    return 0;
}

/* Index of the net vertex v (in the layer above the gap) belongs to, or -1. */
static int net_of(const DagLayout *L, const Scratch *s, int v)
{
    int d = L->down_off[v + 1] - L->down_off[v];
    return d == 1 ? s->tgt_net[L->down[L->down_off[v]]] : d > 1 ? s->item_of[v] : -1;
}

/* The nets of the gap below layer l, sorted; those with lo == hi need no
 * track. A vertex with several targets is a net of its own; vertices with a
 * single target share that target's net (one bus into it). */
static int collect_nets(const DagLayout *L, const DagGeom *G, int l, Scratch *s)
{
    int k = 0;
    for (int i = L->layer_off[l]; i < L->layer_off[l + 1]; i++) {
        int v = L->order[i], d0 = L->down_off[v], d1 = L->down_off[v + 1];
        if (d0 == d1)
            continue;
        int p = dag_port(L, G, v), a = dag_port(L, G, L->down[d0]), b = dag_port(L, G, L->down[d1 - 1]);
        int lo = p < a ? p : a, hi = p > b ? p : b, t = d1 - d0 == 1 ? L->down[d0] : -1;
        int *slot = t >= 0 ? &s->tgt_net[t] : &s->item_of[v];
        if (*slot >= 0) { /* a further input of a shared bus */
            Net *n = &s->nets[*slot];
            n->lo = lo < n->lo ? lo : n->lo;
            n->hi = hi > n->hi ? hi : n->hi;
            continue;
        }
        *slot = k;
        s->nets[k++] = (Net){lo, hi, i, t >= 0 ? t : v, t >= 0};
    }
    qsort(s->nets, (size_t)k, sizeof *s->nets, net_cmp);
    for (int i = 0; i < k; i++)
        (s->nets[i].shared ? s->tgt_net : s->item_of)[s->nets[i].v] = i;
    return k;
}

/* The above/below rules between the k nets, as CSR in s->coff/cadj. */
static void collect_rules(const DagLayout *L, const DagGeom *G, int l, int k, Scratch *s)
{
    int nc = 0;
    for (int i = L->layer_off[l]; i < L->layer_off[l + 1]; i++) {
        int v = L->order[i], from = net_of(L, s, v);
        int b = from < 0 ? -1 : vertex_at_port(L, G, l + 1, dag_port(L, G, v));
        if (b < 0 || feeds(L, v, b))
            continue;
        for (int j = L->up_off[b]; j < L->up_off[b + 1]; j++) {
            int to = net_of(L, s, L->up[j]);
            if (to == from || to < 0 || s->nets[to].lo == s->nets[to].hi || s->nets[from].lo == s->nets[from].hi)
                continue;
            if (nc == s->ccap) {
                s->ccap = 2 * s->ccap + 16;
                s->cfrom = XRENEW(s->cfrom, s->ccap);
                s->cto = XRENEW(s->cto, s->ccap);
                s->cadj = XRENEW(s->cadj, s->ccap);
            }
            s->cfrom[nc] = from;
            s->cto[nc++] = to;
        }
    }
    memset(s->coff, 0, ((size_t)k + 2) * sizeof(int));
    memset(s->indeg, 0, (size_t)k * sizeof(int));
    for (int c = 0; c < nc; c++) {
        s->coff[s->cfrom[c] + 2]++;
        s->indeg[s->cto[c]]++;
    }
    for (int i = 0; i < k; i++)
        s->coff[i + 2] += s->coff[i + 1];
    for (int c = 0; c < nc; c++)
        s->cadj[s->coff[s->cfrom[c] + 1]++] = s->cto[c];
}

/* Assigns tracks to the gap below layer l (track[v] for its vertices, -1
 * for none); returns how many it uses. */
static int assign_tracks(const DagLayout *L, const DagGeom *G, int l, int *track, Scratch *s)
{
    int k = collect_nets(L, G, l, s), nleft = 0, t = 0;
    collect_rules(L, G, l, k, s);
    for (int i = 0; i < k; i++) {
        s->net_track[i] = -1;
        if (s->nets[i].lo < s->nets[i].hi)
            s->left[nleft++] = i;
    }
    for (; nleft > 0; t++) {
        int last_hi = -2, np = 0, kept = 0;
        for (int j = 0; j < nleft; j++) {
            int i = s->left[j];
            if (s->indeg[i] == 0 && s->nets[i].lo > last_hi + 1) {
                s->net_track[i] = t;
                last_hi = s->nets[i].hi;
                s->placed[np++] = i;
            } else {
                s->left[kept++] = i;
            }
        }
        if (np == 0) { /* a cycle of rules: break it at the leftmost net */
            s->net_track[s->left[0]] = t;
            s->placed[np++] = s->left[0];
            memmove(s->left, s->left + 1, (size_t)--kept * sizeof(int));
        }
        nleft = kept;
        for (int j = 0; j < np; j++)
            for (int c = s->coff[s->placed[j]]; c < s->coff[s->placed[j] + 1]; c++)
                s->indeg[s->cadj[c]]--;
    }
    for (int i = L->layer_off[l]; i < L->layer_off[l + 1]; i++) {
        int v = L->order[i], n = net_of(L, s, v);
        track[v] = n < 0 ? -1 : s->net_track[n];
    }
    for (int i = 0; i < k; i++)
        (s->nets[i].shared ? s->tgt_net : s->item_of)[s->nets[i].v] = -1;
    return t;
}

/* Appends (x, y) to a route, dropping repeats and merging straight runs. */
static void add_point(DagPoint *pts, int start, int *k, int x, int y)
{
    if (*k > start) {
        DagPoint *q = &pts[*k - 1];
        if (q->x == x && q->y == y)
            return;
        if (*k - start >= 2) {
            const DagPoint *p = &pts[*k - 2];
            if ((p->x == q->x && q->x == x) || (p->y == q->y && q->y == y)) {
                *q = (DagPoint){x, y};
                return;
            }
        }
    }
    pts[(*k)++] = (DagPoint){x, y};
}

/* Routes every input edge along its chain; track[v] from assign_tracks. */
static void build_routes(const DagLayout *L, DagGeom *G, const int *track)
{
    long cap = 1;
    for (int e = 0; e < L->n_edges; e++) {
        int len = L->chain_off[e + 1] - L->chain_off[e];
        cap += len ? 1 + 3L * (len - 1) : 0;
    }
    G->pt_off = XMALLOC(int, L->n_edges + 1);
    G->pts = XMALLOC(DagPoint, cap);
    int k = 0;
    for (int e = 0; e < L->n_edges; e++) {
        int c0 = L->chain_off[e], c1 = L->chain_off[e + 1], start = k;
        G->pt_off[e] = k;
        if (c0 == c1)
            continue;
        int a = L->chain[c0];
        add_point(G->pts, start, &k, dag_port(L, G, a), G->layer_y[L->layer[a]] + G->box_h - 1);
        for (int c = c0 + 1; c < c1; c++) {
            int b = L->chain[c], la = L->layer[a], lb = L->layer[b];
            if (track[a] >= 0) {
                int ty = G->layer_y[la] + G->box_h + track[a];
                add_point(G->pts, start, &k, dag_port(L, G, a), ty);
                add_point(G->pts, start, &k, dag_port(L, G, b), ty);
            }
            /* the destination: the arrow cell above it; a dummy: through its rows */
            int y = c == c1 - 1 ? G->layer_y[lb] - 1 : G->layer_y[lb] + G->box_h - 1;
            add_point(G->pts, start, &k, dag_port(L, G, b), y);
            a = b;
        }
    }
    G->pt_off[L->n_edges] = k;
    G->pts = XRENEW(G->pts, k);
}

void dag_route(const DagLayout *L, DagGeom *G, int zoom)
{
    int nv = L->n_vert, widest = 1, *track = XMALLOC(int, nv);
    for (int l = 0; l < L->n_layers; l++)
        if (L->layer_off[l + 1] - L->layer_off[l] > widest)
            widest = L->layer_off[l + 1] - L->layer_off[l];
    Scratch s = {0};
    s.nets = XMALLOC(Net, widest);
    s.item_of = XMALLOC(int, nv);
    s.tgt_net = XMALLOC(int, nv);
    for (int v = 0; v < nv; v++)
        s.item_of[v] = s.tgt_net[v] = -1;
    s.net_track = XMALLOC(int, widest);
    s.indeg = XMALLOC(int, widest);
    s.placed = XMALLOC(int, widest);
    s.left = XMALLOC(int, widest);
    s.coff = XMALLOC(int, widest + 2); /* CSR shifted by one while it is filled */
    G->layer_y = XMALLOC(int, L->n_layers + 1); /* and the bottom at n_layers */
    G->tracks = XNEW(int, L->n_layers);
    int y = 0;
    for (int l = 0; l < L->n_layers; l++) {
        G->layer_y[l] = y;
        y += G->box_h;
        if (l + 1 < L->n_layers) {
            G->tracks[l] = assign_tracks(L, G, l, track, &s);
            y += zoom == DAG_FULL ? G->tracks[l] + 1 : (G->tracks[l] > 1 ? G->tracks[l] : 1);
        } else {
            for (int i = L->layer_off[l]; i < L->layer_off[l + 1]; i++)
                track[L->order[i]] = -1;
        }
    }
    G->layer_y[L->n_layers] = y;
    G->height = y;
    build_routes(L, G, track);
    free(track);
    free(s.nets);
    free(s.item_of);
    free(s.tgt_net);
    free(s.net_track);
    free(s.indeg);
    free(s.placed);
    free(s.left);
    free(s.coff);
    free(s.cfrom);
    free(s.cto);
    free(s.cadj);
}
