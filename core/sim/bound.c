/* bound: see bound.h. */
#include "bound.h"

#include <stdlib.h>

static double op_cost(const Graph *g, const Cluster *c, int i)
{
    return c ? cluster_min_cost(c, g, i) : g->nodes[i].cost_us;
}

double bound_critical_path(const Graph *g, const Cluster *c, int *path, int *path_len)
{
    int n = g->n_nodes;
    double *dist = XMALLOC(double, n); /* longest path ending at i */
    int *from = XMALLOC(int, n);
    double best = 0;
    int best_end = -1;
    for (int k = 0; k < n; k++) {
        int v = g->topo[k];
        const GraphNode *nd = &g->nodes[v];
        double in = 0;
        from[v] = -1;
        for (int p = 0; p < nd->n_parents; p++) {
            int u = nd->parents[p];
            if (dist[u] > in || (from[v] < 0 && dist[u] == in)) {
                in = dist[u];
                from[v] = u;
            }
        }
        dist[v] = in + op_cost(g, c, v);
        if (best_end < 0 || dist[v] > best) {
            best = dist[v];
            best_end = v;
        }
    }
    if (path) {
        int len = 0;
        for (int v = best_end; v >= 0; v = from[v])
            path[len++] = v;
        for (int a = 0, b = len - 1; a < b; a++, b--) {
            int t = path[a];
            path[a] = path[b];
            path[b] = t;
        }
        *path_len = len;
    }
    free(dist);
    free(from);
    return best;
}

double bound_lower(const Graph *g, const Cluster *c)
{
    double work = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        double x = cluster_min_cost(c, g, i);
        work += x + (x > 0 ? c->op_gap_us : 0);
    }
    double cp = bound_critical_path(g, c, NULL, NULL);
    double share = work / c->n_devices;
    return cp > share ? cp : share;
}
