/* dag_fold: the folded layout of a training graph (dag.h): the groups of
 * the backward pass and of the parameter updates are drawn as cells beside
 * the forward group they belong to, so that the forward network is laid out
 * alone and reads as the model's structure.
 *
 * dag_fold_training() tells the passes apart by op names and kinds (a
 * "grad" or "backward" in either, an "apply_" kind, a "/update" or
 * "/momentum" name) and gives each backward group a host: the latest
 * forward group it reads from (the activations and weights its gradients
 * need), else the host of a backward neighbour.
 *
 * dag_layout_folded() lays out the hosts alone (the edges between two
 * hosts), each widened by its folded cells, then renumbers the layout to
 * the input's node indices and places the folded cells. */
#include <stdlib.h>
#include <string.h>

#include "dag_impl.h"
#include "group.h"
#include "util.h"

/* Whether s contains w (both lower case ASCII in w). */
static int has(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (; *s; s++) {
        size_t i = 0;
        while (i < n && s[i] && (s[i] | 0x20) == w[i])
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

/* 1: an op of the backward pass or of the update; 0: of the forward pass. */
static int backward_op(const GraphNode *nd)
{
    return has(nd->name, "grad") || has(nd->op, "grad") || has(nd->op, "backward") || has(nd->name, "backward") ||
           strncmp(nd->op, "apply_", 6) == 0 || has(nd->name, "/update") || has(nd->name, "/momentum");
}

int dag_fold_training(const Graph *g, const Grouping *gr, int *host)
{
    int n = gr->n_groups, folded = 0;
    char *bw = XNEW(char, n);
    for (int k = 0; k < n; k++) { /* most of its ops with inputs are backward */
        int b = 0, f = 0;
        for (int j = gr->member_off[k]; j < gr->member_off[k + 1]; j++) {
            const GraphNode *nd = &g->nodes[gr->members[j]];
            if (backward_op(nd))
                b++;
            else if (nd->n_parents > 0)
                f++;
        }
        bw[k] = b > 0 && b >= f;
        host[k] = bw[k] ? -1 : k;
    }
    for (int k = 0; k < n; k++) /* the latest forward group it reads */
        for (int j = gr->pred_off[k]; bw[k] && j < gr->pred_off[k + 1]; j++)
            if (!bw[gr->pred[j]] && gr->pred[j] > host[k])
                host[k] = gr->pred[j];
    for (int changed = 1; changed;) { /* else a backward neighbour's host */
        changed = 0;
        for (int k = 0; k < n; k++)
            for (int side = 0; side < 2 && bw[k] && host[k] < 0; side++) {
                const int *off = side ? gr->succ_off : gr->pred_off, *nb = side ? gr->succ : gr->pred;
                for (int j = off[k]; j < off[k + 1] && host[k] < 0; j++)
                    if (bw[nb[j]] && host[nb[j]] >= 0) {
                        host[k] = host[nb[j]];
                        changed = 1;
                    }
            }
    }
    for (int k = 0; k < n; k++) {
        if (host[k] < 0)
            host[k] = k; /* on its own */
        folded += host[k] != k;
    }
    free(bw);
    return folded;
}

/* A copy of k ints (k >= 0). */
static int *dup_ints(const int *a, int k)
{
    int *b = XMALLOC(int, k + 1);
    memcpy(b, a, (size_t)k * sizeof *b);
    return b;
}

/* The layout of the hosts (host-space indices 0 .. m-1 first, dummies
 * after) renumbered to node indices: host-space vertex v becomes ids[v]. */
static void renumber(DagLayout *L, const DagLayout *H, const int *ids)
{
    int nv = L->n_vert;
    L->n_layers = H->n_layers;
    L->n_edges = H->n_edges;
    L->crossings = H->crossings;
    L->layer = XMALLOC(int, nv);
    L->pos = XMALLOC(int, nv);
    for (int v = 0; v < H->n_vert; v++) {
        L->layer[ids[v]] = H->layer[v];
        L->pos[ids[v]] = H->pos[v];
    }
    L->layer_off = dup_ints(H->layer_off, H->n_layers + 1);
    L->order = XMALLOC(int, H->n_vert);
    for (int i = 0; i < H->n_vert; i++)
        L->order[i] = ids[H->order[i]];
    L->edge_src = XMALLOC(int, H->n_edges);
    L->edge_dst = XMALLOC(int, H->n_edges);
    for (int e = 0; e < H->n_edges; e++) {
        L->edge_src[e] = ids[H->edge_src[e]];
        L->edge_dst[e] = ids[H->edge_dst[e]];
    }
    L->chain_off = dup_ints(H->chain_off, H->n_edges + 1);
    L->chain = XMALLOC(int, H->chain_off[H->n_edges] + 1);
    for (int i = 0; i < H->chain_off[H->n_edges]; i++)
        L->chain[i] = ids[H->chain[i]];
    int *from = XMALLOC(int, nv); /* node index -> host-space vertex, or -1 */
    for (int w = 0; w < nv; w++)
        from[w] = -1;
    for (int v = 0; v < H->n_vert; v++)
        from[ids[v]] = v;
    for (int side = 0; side < 2; side++) {
        const int *ho = side ? H->up_off : H->down_off, *hn = side ? H->up : H->down;
        int *off = XNEW(int, nv + 1), *nb = XMALLOC(int, ho[H->n_vert] + 1);
        for (int w = 0; w < nv; w++) {
            int v = from[w], k = off[w];
            for (int j = v < 0 ? 0 : ho[v]; v >= 0 && j < ho[v + 1]; j++)
                nb[k++] = ids[hn[j]];
            off[w + 1] = k;
        }
        if (side) {
            L->up_off = off;
            L->up = nb;
        } else {
            L->down_off = off;
            L->down = nb;
        }
    }
    free(from);
}

/* Zoom level z of the folded layout L: its hosts' geometry renumbered
 * (computed first when it is not there yet), then the folded cells. */
void dag_fold_zoom(DagLayout *L, int z)
{
    const DagLayout *H = L->lazy->host;
    const int *ids = L->lazy->ids;
    const DagGeom *HG = dag_geom(H, z);
    DagGeom *G = &L->geom[z];
    int nv = L->n_vert;
    *G = *HG;
    G->x = XNEW(int, nv);
    G->wext = XNEW(int, nv);
    for (int v = 0; v < H->n_vert; v++) {
        G->x[ids[v]] = HG->x[v];
        G->wext[ids[v]] = HG->wext ? HG->wext[v] : 0;
    }
    G->layer_y = dup_ints(HG->layer_y, H->n_layers + 1);
    G->tracks = dup_ints(HG->tracks, H->n_layers);
    G->pt_off = dup_ints(HG->pt_off, H->n_edges + 1);
    G->pts = XMALLOC(DagPoint, HG->pt_off[H->n_edges] + 1);
    memcpy(G->pts, HG->pts, (size_t)HG->pt_off[H->n_edges] * sizeof *G->pts);
    int sw = dag_sat_w(G, z) + (z == DAG_FULL);
    for (int u = 0; u < L->n; u++) /* the folded cells */
        for (int j = L->sat_off[u]; j < L->sat_off[u + 1]; j++)
            G->x[L->sat[j]] = G->x[u] + G->box_w + 1 + (j - L->sat_off[u]) * sw;
}

DagLayout *dag_layout_folded(int n, const int *succ_off, const int *succ, const int *host, const DagOptions *o)
{
    n = n > 0 ? n : 0;
    int m = 0, *hid = XMALLOC(int, n + 1), *idx = XMALLOC(int, n + 1);
    for (int u = 0; u < n; u++) { /* a host of a host is taken as on its own */
        int h = host ? host[u] : u;
        idx[u] = h == u || h < 0 || h >= n || (host[h] != h) ? m++ : -1;
        if (idx[u] >= 0)
            hid[idx[u]] = u;
    }
    int *so = XNEW(int, m + 1), *s = XMALLOC(int, (succ_off ? succ_off[n] : 0) + 1), *ns = XNEW(int, m + 1);
    for (int i = 0; i < m; i++) { /* the edges between two hosts */
        int u = hid[i];
        so[i + 1] = so[i];
        for (int j = succ_off ? succ_off[u] : 0; succ_off && j < succ_off[u + 1]; j++)
            if (idx[succ[j]] >= 0)
                s[so[i + 1]++] = idx[succ[j]];
    }
    DagLayout *L = xcalloc(1, sizeof *L);
    L->n = n;
    L->host = XMALLOC(int, n + 1);
    L->sat_off = XNEW(int, n + 1);
    L->sat = XMALLOC(int, n + 1);
    for (int u = 0; u < n; u++) {
        L->host[u] = idx[u] >= 0 ? u : host[u];
        if (idx[u] < 0)
            ns[idx[L->host[u]]]++;
    }
    for (int u = 0; u < n; u++) /* counted per host, then filled in index order */
        L->sat_off[u + 1] = L->sat_off[u] + (idx[u] >= 0 ? ns[idx[u]] : 0);
    int *fill = dup_ints(L->sat_off, n + 1);
    for (int u = 0; u < n; u++)
        if (idx[u] < 0)
            L->sat[fill[L->host[u]]++] = u;
    DagLayout *H = dag_layout_sat(m, so, s, ns, o);
    L->n_vert = H->n_vert + (n - m);
    int *ids = XMALLOC(int, H->n_vert + 1); /* hosts keep their index, dummies follow the nodes */
    for (int v = 0; v < H->n_vert; v++)
        ids[v] = v < m ? hid[v] : v - m + n;
    renumber(L, H, ids);
    for (int u = 0; u < n; u++) /* the folded cells */
        for (int j = L->sat_off[u]; j < L->sat_off[u + 1]; j++) {
            L->layer[L->sat[j]] = L->layer[u];
            L->pos[L->sat[j]] = L->pos[u];
        }
    L->lazy = xcalloc(1, sizeof *L->lazy);
    L->lazy->host = H;
    L->lazy->ids = ids;
    dag_geom(L, DAG_FULL); /* the compact view's on its first use */
    free(fill);
    free(hid);
    free(idx);
    free(so);
    free(s);
    free(ns);
    return L;
}
