/* explain: the "why this device" computations (explain.h). */
#include "explain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

ExplainRel explain_relation(const PolicyGraph *pg, int v, int j)
{
    if (j == v)
        return EXPLAIN_SELF;
    for (int k = pg->par_off[v]; k < pg->par_off[v + 1]; k++)
        if (pg->par[k] == j)
            return EXPLAIN_PARENT;
    for (int k = pg->ch_off[v]; k < pg->ch_off[v + 1]; k++)
        if (pg->ch[k] == j)
            return EXPLAIN_CHILD;
    if (policy_graph_is_anc(pg, v, j))
        return EXPLAIN_ANCESTOR;
    if (policy_graph_is_desc(pg, v, j))
        return EXPLAIN_DESCENDANT;
    return EXPLAIN_PARALLEL;
}

const char *explain_relation_name(ExplainRel r)
{
    static const char *const names[] = {"current", "parent", "child", "ancestor", "descendant", "parallel"};
    return r >= EXPLAIN_SELF && r <= EXPLAIN_PARALLEL ? names[r] : "?";
}

/* Breadth-first from v along one direction's lists, setting round[] where
 * it is still -1; returns the largest distance. */
static int bfs(const int *off, const int *adj, int v, int *round, int *queue)
{
    int head = 0, tail = 0, far = 0;
    queue[tail++] = v;
    while (head < tail) {
        int u = queue[head++];
        for (int k = off[u]; k < off[u + 1]; k++) {
            int w = adj[k];
            if (round[w] >= 0)
                continue;
            round[w] = round[u] + 1;
            if (round[w] > far)
                far = round[w];
            queue[tail++] = w;
        }
    }
    return far;
}

int explain_reach(const PolicyGraph *pg, int v, int *round)
{
    int n = pg->n;
    int *queue = XNEW(int, n);
    for (int j = 0; j < n; j++)
        round[j] = -1;
    round[v] = 0;
    int down = bfs(pg->par_off, pg->par, v, round, queue); /* ancestors: messages came down from parents */
    int up = bfs(pg->ch_off, pg->ch, v, round, queue);     /* descendants: up from children */
    free(queue);
    return down > up ? down : up;
}

int explain_reach_count(const int *round, int n, int k, int *total)
{
    int at = 0, by = 0;
    for (int j = 0; j < n; j++) {
        at += round[j] == k;
        by += round[j] > 0 && round[j] <= k;
    }
    if (total)
        *total = by;
    return at;
}

int explain_uniform(const float *w, int n, double tol)
{
    if (n < 1)
        return 0;
    double sum = 0;
    for (int k = 0; k < n; k++)
        sum += w[k];
    double mean = sum / n;
    if (!(mean > 0))
        return 0;
    for (int k = 0; k < n; k++)
        if (fabs(w[k] - mean) > tol * mean)
            return 0;
    return 1;
}

double explain_entropy_ratio(const float *w, int n)
{
    if (n < 2)
        return 1.0;
    double sum = 0, h = 0;
    for (int k = 0; k < n; k++)
        sum += w[k] > 0 ? w[k] : 0;
    if (!(sum > 0))
        return 0.0;
    for (int k = 0; k < n; k++)
        if (w[k] > 0)
            h -= (w[k] / sum) * log(w[k] / sum);
    return h / log(n);
}

void explain_device_runtimes(Sim *s, const Grouping *gr, const int *group_device, int group, int n_devices,
                             int *op_device, double *runtime_us, int *oom)
{
    int *gd = XNEW(int, gr->n_groups);
    memcpy(gd, group_device, (size_t)gr->n_groups * sizeof *gd);
    for (int d = 0; d < n_devices; d++) {
        gd[group] = d;
        group_expand(gr, gd, op_device);
        const SimResult *r = sim_run_from(s, op_device);
        runtime_us[d] = r->makespan_us;
        if (oom)
            oom[d] = r->any_oom;
    }
    free(gd);
}
