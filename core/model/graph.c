/* graph: in-memory construction, adjacency, topological order and the JSON
 * writer. The file readers are in graph_json.c and graph_dot.c. */
#define _POSIX_C_SOURCE 200809L
#include "graph.h"

#include <stdlib.h>
#include <string.h>

Graph *graph_new(const char *name)
{
    Graph *g = xcalloc(1, sizeof *g);
    g->name = xstrdup(name ? name : "");
    g->source = xstrdup("");
    g->path = xstrdup("");
    strmap_init(&g->index, 64);
    return g;
}

int graph_add_node(Graph *g, const char *name, const char *op, double cost_us,
                   const int64_t *output_bytes, int n_outputs)
{
    char *copy = xstrdup(name);
    if (strmap_put(&g->index, copy, g->n_nodes) >= 0) { /* one look-up: taken already */
        free(copy);
        return -1;
    }
    xgrow((void **)&g->nodes, &g->nodes_cap, (size_t)g->n_nodes + 1, sizeof *g->nodes);
    GraphNode *n = &g->nodes[g->n_nodes];
    memset(n, 0, sizeof *n);
    n->name = copy;
    n->op = xstrdup(op ? op : "");
    n->cost_us = cost_us;
    n->n_outputs = n_outputs;
    n->output_bytes = XNEW(int64_t, n_outputs > 0 ? n_outputs : 0);
    if (n_outputs > 0 && output_bytes)
        memcpy(n->output_bytes, output_bytes, (size_t)n_outputs * sizeof(int64_t));
    return g->n_nodes++;
}

void graph_add_edge(Graph *g, int src, int dst, int output)
{
    xgrow((void **)&g->edges, &g->edges_cap, (size_t)g->n_edges + 1, sizeof *g->edges);
    g->edges[g->n_edges++] = (GraphEdge){src, dst, output};
}

/* Finds a cycle among the nodes Kahn's algorithm could not order and writes
 * it as "a -> b -> ... -> a". */
static void describe_cycle(const Graph *g, const int *indeg, Err *e)
{
    int n = g->n_nodes;
    int *next = XMALLOC(int, n);
    int *seen = XNEW(int, n);
    int start = -1;
    for (int i = 0; i < n && start < 0; i++)
        if (indeg[i] > 0)
            start = i;
    /* every remaining node has a remaining parent: walk parents until a repeat */
    int v = start, step = 1;
    while (!seen[v]) {
        seen[v] = step++;
        int p = -1;
        for (int k = 0; k < g->nodes[v].n_parents; k++)
            if (indeg[g->nodes[v].parents[k]] > 0) {
                p = g->nodes[v].parents[k];
                break;
            }
        next[v] = p;
        v = p;
    }
    /* v is on the cycle; the walk went child -> parent, so print reversed */
    int len = 0, u = v;
    do {
        len++;
        u = next[u];
    } while (u != v);
    int *cyc = XMALLOC(int, len);
    u = v;
    for (int k = len - 1; k >= 0; k--) {
        cyc[k] = u;
        u = next[u];
    }
    StrBuf b = {0};
    for (int k = 0; k < len && k < 8; k++)
        sb_printf(&b, "\"%s\" -> ", g->nodes[cyc[k]].name);
    if (len > 8)
        sb_puts(&b, "... -> ");
    sb_printf(&b, "\"%s\"", g->nodes[cyc[0]].name);
    err_set(e, "cycle through node \"%s\": %s", g->nodes[cyc[0]].name, b.s);
    sb_free(&b);
    free(cyc);
    free(next);
    free(seen);
}

int graph_finish(Graph *g, Err *e)
{
    int n = g->n_nodes;
    /* deduplicate (src, dst): first position, last output */
    int *ccount = XNEW(int, n);
    int *pcount = XNEW(int, n);
    {
        /* open-addressing set of pairs -> edge slot */
        size_t cap = 16;
        while (cap < (size_t)g->n_edges * 2 + 1)
            cap *= 2;
        int *slot = XMALLOC(int, cap);
        memset(slot, -1, cap * sizeof *slot);
        int m = 0;
        for (int k = 0; k < g->n_edges; k++) {
            GraphEdge ed = g->edges[k];
            uint64_t key = ((uint64_t)(uint32_t)ed.src << 32) | (uint32_t)ed.dst;
            size_t h = (size_t)(util_hash64(&key, sizeof key, 7) & (cap - 1));
            while (slot[h] >= 0 &&
                   !(g->edges[slot[h]].src == ed.src && g->edges[slot[h]].dst == ed.dst))
                h = (h + 1) & (cap - 1);
            if (slot[h] >= 0) {
                g->edges[slot[h]].output = ed.output;
            } else {
                slot[h] = m;
                g->edges[m++] = ed;
                ccount[ed.src]++;
                pcount[ed.dst]++;
            }
        }
        g->n_edges = m;
        free(slot);
    }
    for (int i = 0; i < n; i++) {
        GraphNode *nd = &g->nodes[i];
        free(nd->children);
        free(nd->child_output);
        free(nd->parents);
        nd->children = XMALLOC(int, ccount[i]);
        nd->child_output = XMALLOC(int, ccount[i]);
        nd->parents = XMALLOC(int, pcount[i]);
        nd->n_children = nd->n_parents = 0;
    }
    for (int k = 0; k < g->n_edges; k++) {
        GraphEdge ed = g->edges[k];
        GraphNode *s = &g->nodes[ed.src], *d = &g->nodes[ed.dst];
        s->children[s->n_children] = ed.dst;
        s->child_output[s->n_children++] = ed.output;
        d->parents[d->n_parents++] = ed.src;
    }
    free(ccount);
    free(pcount);

    /* Kahn's algorithm, smallest ready index first (a binary heap) */
    int *indeg = XMALLOC(int, n);
    int *heap = XMALLOC(int, n);
    int hn = 0, done = 0;
    free(g->topo);
    g->topo = XMALLOC(int, n);
    for (int i = 0; i < n; i++) {
        indeg[i] = g->nodes[i].n_parents;
        if (indeg[i] == 0) {
            heap[hn++] = i; /* increasing i keeps the heap property */
        }
    }
    while (hn > 0) {
        int v = heap[0];
        heap[0] = heap[--hn];
        for (int i = 0;;) {
            int l = 2 * i + 1, r = l + 1, m = i;
            if (l < hn && heap[l] < heap[m]) m = l;
            if (r < hn && heap[r] < heap[m]) m = r;
            if (m == i) break;
            int t = heap[i]; heap[i] = heap[m]; heap[m] = t;
            i = m;
        }
        g->topo[done++] = v;
        GraphNode *nd = &g->nodes[v];
        for (int k = 0; k < nd->n_children; k++) {
            int c = nd->children[k];
            if (--indeg[c] == 0) {
                int i = hn++;
                heap[i] = c;
                while (i > 0 && heap[(i - 1) / 2] > heap[i]) {
                    int p = (i - 1) / 2, t = heap[i];
                    heap[i] = heap[p]; heap[p] = t;
                    i = p;
                }
            }
        }
    }
    int rc = 0;
    if (done < n) {
        describe_cycle(g, indeg, e);
        rc = -1;
    }
    free(indeg);
    free(heap);
    return rc;
}

void graph_free(Graph *g)
{
    if (!g)
        return;
    for (int i = 0; i < g->n_nodes; i++) {
        GraphNode *n = &g->nodes[i];
        free(n->name);
        free(n->op);
        for (int k = 0; k < n->n_kind_costs; k++)
            free(n->kind_costs[k].kind);
        free(n->kind_costs);
        free(n->output_bytes);
        free(n->colocate);
        free(n->group);
        free(n->layer);
        free(n->children);
        free(n->child_output);
        free(n->parents);
    }
    free(g->nodes);
    free(g->edges);
    free(g->topo);
    free(g->name);
    free(g->source);
    free(g->path);
    strmap_done(&g->index);
    free(g);
}

int64_t graph_edge_bytes(const Graph *g, int src, int output)
{
    const GraphNode *n = &g->nodes[src];
    return (output >= 0 && output < n->n_outputs) ? n->output_bytes[output] : 0;
}

int64_t graph_node_bytes(const Graph *g, int i)
{
    int64_t s = 0;
    for (int k = 0; k < g->nodes[i].n_outputs; k++)
        s += g->nodes[i].output_bytes[k];
    return s;
}

double graph_total_cost(const Graph *g)
{
    double s = 0;
    for (int i = 0; i < g->n_nodes; i++)
        s += g->nodes[i].cost_us;
    return s;
}
