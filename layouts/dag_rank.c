/* dag_rank: layer assignment and dummy vertices (stages 1-2 of dag.h).
 *
 * Layers: longest path from the sources in a topological order (Kahn,
 * smallest index first; nodes left on a cycle follow in index order and the
 * edges that go backwards in that order are not drawn). Then promotion: a
 * node with more outgoing than incoming edges moves down next to its nearest
 * successor, one with more incoming edges moves up next to its lowest
 * predecessor; each move shortens the total edge length. Empty layers are
 * removed. */
#include <stdlib.h>
#include <string.h>

#include "dag_impl.h"
#include "util.h"

/* Forward edges only (those that go forward in the topological order), as
 * CSR successor and predecessor lists. */
typedef struct Fwd {
    int *topo, *rank;       /* order, and each node's place in it */
    int *so, *s, *po, *p;   /* successors, predecessors */
} Fwd;

/* Kahn's algorithm with a FIFO seeded in index order; leftovers (on cycles)
 * are appended in index order. */
static void topo_sort(int n, const int *off, const int *succ, Fwd *f)
{
    int *indeg = XNEW(int, n), head = 0, tail = 0;
    char *done = XNEW(char, n);
    for (int u = 0; u < n; u++)
        for (int j = off[u]; j < off[u + 1]; j++)
            if (succ[j] != u)
                indeg[succ[j]]++;
    for (int u = 0; u < n; u++)
        if (indeg[u] == 0)
            f->topo[tail++] = u;
    while (head < tail) {
        int u = f->topo[head++];
        done[u] = 1;
        for (int j = off[u]; j < off[u + 1]; j++)
            if (succ[j] != u && --indeg[succ[j]] == 0)
                f->topo[tail++] = succ[j];
    }
    for (int u = 0; u < n; u++)
        if (!done[u])
            f->topo[tail++] = u;
    for (int i = 0; i < n; i++)
        f->rank[f->topo[i]] = i;
    free(indeg);
    free(done);
}

static void fwd_build(int n, const int *off, const int *succ, Fwd *f)
{
    f->topo = XMALLOC(int, n);
    f->rank = XMALLOC(int, n);
    topo_sort(n, off, succ, f);
    f->so = XNEW(int, n + 1);
    f->po = XNEW(int, n + 2); /* shifted by one while it is counted */
    for (int u = 0; u < n; u++)
        for (int j = off[u]; j < off[u + 1]; j++)
            if (f->rank[succ[j]] > f->rank[u]) {
                f->so[u + 1]++;
                f->po[succ[j] + 2]++;
            }
    for (int u = 0; u < n; u++) {
        f->so[u + 1] += f->so[u];
        f->po[u + 2] += f->po[u + 1];
    }
    f->s = XMALLOC(int, f->so[n]);
    f->p = XMALLOC(int, f->so[n]);
    int k = 0;
    for (int u = 0; u < n; u++)
        for (int j = off[u]; j < off[u + 1]; j++)
            if (f->rank[succ[j]] > f->rank[u]) {
                f->s[k++] = succ[j];
                f->p[f->po[succ[j] + 1]++] = u;
            }
}

static void fwd_free(Fwd *f)
{
    free(f->topo);
    free(f->rank);
    free(f->so);
    free(f->s);
    free(f->po);
    free(f->p);
}

/* Moves nodes towards the side with more edges (see the file comment). */
static void promote(int n, const Fwd *f, int *layer)
{
    for (int round = 0; round < 2; round++) {
        for (int i = n - 1; i >= 0; i--) {
            int v = f->topo[i], out = f->so[v + 1] - f->so[v], in = f->po[v + 1] - f->po[v];
            if (out == 0 || out <= in)
                continue;
            int m = layer[f->s[f->so[v]]];
            for (int j = f->so[v]; j < f->so[v + 1]; j++)
                m = layer[f->s[j]] < m ? layer[f->s[j]] : m;
            if (m - 1 > layer[v])
                layer[v] = m - 1;
        }
        for (int i = 0; i < n; i++) {
            int v = f->topo[i], out = f->so[v + 1] - f->so[v], in = f->po[v + 1] - f->po[v];
            if (in == 0 || in <= out)
                continue;
            int m = -1;
            for (int j = f->po[v]; j < f->po[v + 1]; j++)
                m = layer[f->p[j]] > m ? layer[f->p[j]] : m;
            if (m + 1 < layer[v])
                layer[v] = m + 1;
        }
    }
}

/* Longest path, promotion, then empty layers squeezed out. Returns the
 * number of layers. */
static int assign_layers(int n, const Fwd *f, int *layer)
{
    for (int i = 0; i < n; i++)
        layer[i] = 0;
    for (int i = 0; i < n; i++) {
        int u = f->topo[i];
        for (int j = f->so[u]; j < f->so[u + 1]; j++)
            if (layer[f->s[j]] < layer[u] + 1)
                layer[f->s[j]] = layer[u] + 1;
    }
    promote(n, f, layer);
    int *used = XNEW(int, n), nl = 0;
    for (int i = 0; i < n; i++)
        used[layer[i]] = 1;
    for (int l = 0; l < n; l++)
        used[l] = used[l] ? nl++ : -1;
    for (int i = 0; i < n; i++)
        layer[i] = used[layer[i]];
    free(used);
    return nl;
}

/* Input edges, their chains of vertices, and dummy vertices' layers. */
static void build_chains(DagLayout *L, const int *off, const int *succ, const Fwd *f, const int *layer)
{
    int n = L->n;
    L->n_edges = off[n];
    L->edge_src = XMALLOC(int, L->n_edges);
    L->edge_dst = XMALLOC(int, L->n_edges);
    L->chain_off = XMALLOC(int, L->n_edges + 1);
    long total = 0, dummies = 0;
    for (int u = 0; u < n; u++)
        for (int j = off[u]; j < off[u + 1]; j++) {
            L->edge_src[j] = u;
            L->edge_dst[j] = succ[j];
            L->chain_off[j] = (int)total;
            if (f->rank[succ[j]] > f->rank[u]) {
                int span = layer[succ[j]] - layer[u];
                total += span + 1;
                dummies += span - 1;
            }
        }
    L->chain_off[L->n_edges] = (int)total;
    L->n_vert = n + (int)dummies;
    L->chain = XMALLOC(int, total);
    L->layer = XMALLOC(int, L->n_vert);
    memcpy(L->layer, layer, (size_t)n * sizeof(int));
    int next = n;
    for (int e = 0; e < L->n_edges; e++) {
        int k = L->chain_off[e], len = L->chain_off[e + 1] - k;
        if (len == 0)
            continue;
        int u = L->edge_src[e];
        L->chain[k] = u;
        for (int i = 1; i < len - 1; i++) {
            L->layer[next] = layer[u] + i;
            L->chain[k + i] = next++;
        }
        L->chain[k + len - 1] = L->edge_dst[e];
    }
}

/* The layered graph: consecutive vertices of every chain. */
static void build_layered(DagLayout *L)
{
    int nv = L->n_vert;
    L->down_off = XNEW(int, nv + 2); /* shifted by one while they are counted */
    L->up_off = XNEW(int, nv + 2);
    for (int e = 0; e < L->n_edges; e++)
        for (int k = L->chain_off[e]; k + 1 < L->chain_off[e + 1]; k++) {
            L->down_off[L->chain[k] + 2]++;
            L->up_off[L->chain[k + 1] + 2]++;
        }
    for (int v = 0; v < nv; v++) {
        L->down_off[v + 2] += L->down_off[v + 1];
        L->up_off[v + 2] += L->up_off[v + 1];
    }
    L->down = XMALLOC(int, L->down_off[nv + 1]);
    L->up = XMALLOC(int, L->down_off[nv + 1]);
    for (int e = 0; e < L->n_edges; e++)
        for (int k = L->chain_off[e]; k + 1 < L->chain_off[e + 1]; k++) {
            int a = L->chain[k], b = L->chain[k + 1];
            L->down[L->down_off[a + 1]++] = b;
            L->up[L->up_off[b + 1]++] = a;
        }
}

void dag_rank(DagLayout *L, const int *succ_off, const int *succ)
{
    int n = L->n;
    Fwd f;
    fwd_build(n, succ_off, succ, &f);
    int *layer = XMALLOC(int, n);
    L->n_layers = assign_layers(n, &f, layer);
    build_chains(L, succ_off, succ, &f, layer);
    build_layered(L);
    L->layer_off = XNEW(int, L->n_layers + 1);
    for (int v = 0; v < L->n_vert; v++)
        L->layer_off[L->layer[v] + 1]++;
    for (int l = 0; l < L->n_layers; l++)
        L->layer_off[l + 1] += L->layer_off[l];
    free(layer);
    fwd_free(&f);
}
