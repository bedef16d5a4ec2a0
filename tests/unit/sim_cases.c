/* sim_cases: random cases for the simulator's differential tests (see
 * sim_cases.h). */
#include "sim_cases.h"

#include <stdlib.h>

#include "gen.h"
#include "test.h"

void simcase_placement(Rng *r, const Graph *g, int nd, int kind, int *dev)
{
    int n = g->n_nodes, cur = (int)rng_below(r, (uint64_t)nd);
    int used = nd > 2 ? 2 : nd, first = (int)rng_below(r, (uint64_t)nd);
    for (int i = 0; i < n; i++) {
        switch (kind % 4) {
        case 0: /* uniform */
            dev[i] = (int)rng_below(r, (uint64_t)nd);
            break;
        case 1: /* blocks of consecutive ops */
            if (rng_uniform(r) < 0.1)
                cur = (int)rng_below(r, (uint64_t)nd);
            dev[i] = cur;
            break;
        case 2: /* two devices only: the others have no ops */
            dev[i] = (first + (int)rng_below(r, (uint64_t)used)) % nd;
            break;
        default: /* one device */
            dev[i] = first;
            break;
        }
    }
}

/* Costs and sizes that make ties everywhere: costs in {0, 1, 2, 3} (a third
 * of them 0), outputs of 0 or a multiple of the bandwidth's bytes per us. */
void simcase_ties(Graph *g, Rng *r, double bandwidth)
{
    for (int i = 0; i < g->n_nodes; i++) {
        GraphNode *nd = &g->nodes[i];
        int k = (int)rng_below(r, 6);
        nd->cost_us = k < 2 ? 0.0 : (double)(k - 2);
        for (int o = 0; o < nd->n_outputs; o++)
            nd->output_bytes[o] = rng_uniform(r) < 0.3 ? 0 : (int64_t)bandwidth * (int64_t)rng_below(r, 4);
    }
}

/* Clusters: 0 the default, 1 uneven speeds, a CPU with kind costs, a small
 * memory, 2 no gap and no overhead, 3 a huge bandwidth and a large gap. */
Cluster *simcase_cluster(int nd, int kind)
{
    Cluster *c = cluster_default(nd);
    if (kind == 1) {
        for (int d = 0; d < nd; d++) {
            c->devices[d].speed = d == 0 ? 1.0 : 0.5 + 0.75 * d;
            c->devices[d].memory_bytes = 3000000;
        }
        free(c->devices[nd - 1].kind);
        c->devices[nd - 1].kind = xstrdup("cpu");
        c->op_gap_us = 2.5;
        c->transfer_overhead_us = 10.0;
        c->bandwidth_bytes_per_us = 1000.0;
    } else if (kind == 2) {
        c->op_gap_us = 0;
        c->transfer_overhead_us = 0;
    } else if (kind == 3) {
        c->op_gap_us = 40;
        c->bandwidth_bytes_per_us = 1e12;
    }
    return c;
}

void simcase_cpu_costs(Graph *g, Rng *r)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (rng_uniform(r) < 0.3) {
            g->nodes[i].kind_costs = xcalloc(1, sizeof *g->nodes[i].kind_costs);
            g->nodes[i].kind_costs[0].kind = xstrdup("cpu");
            g->nodes[i].kind_costs[0].cost_us = rng_uniform(r) < 0.1 ? 0.0 : 5000.0 * rng_uniform(r);
            g->nodes[i].n_kind_costs = 1;
        }
}

/* The k-th random case: a graph (random DAG or training graph, plain or
 * made of ties), a cluster and its device count. */
Graph *simcase_graph(int k, Rng *r, Cluster **c)
{
    static const int devices[] = {1, 2, 3, 4, 5, 8};
    int n = 1 + (int)rng_below(r, k % 7 == 6 ? 600 : 80);
    Graph *g = k % 5 == 4 ? gen_layered_training_graph(n, 300 + (uint64_t)k)
                          : gen_random_dag(n, 0.5 + 2.5 * rng_uniform(r), 7000 + (uint64_t)k);
    int ck = k % 4, nd = devices[k % 6];
    if (ck == 1 && nd < 2)
        nd = 2;
    *c = simcase_cluster(nd, ck);
    if (ck == 1)
        simcase_cpu_costs(g, r);
    if (k % 3 == 0)
        simcase_ties(g, r, (*c)->bandwidth_bytes_per_us > 1e9 ? 7600.0 : (*c)->bandwidth_bytes_per_us);
    return g;
}

/* sim_run and sim_makespan of s against the oracle on dev; 1 when equal. */
int simcase_check(Sim *s, NaiveSim *ns, const int *dev, const char *what)
{
    char why[512];
    const SimResult *want = naive_sim_run(ns, dev);
    const SimResult *got = sim_run(s, dev);
    int bad = sim_result_diff(got, want, why, sizeof why);
    CHECK_MSG(!bad, "%s: sim_run: %s", what, why);
    double ms = sim_makespan(s, dev);
    CHECK_MSG(ms == want->makespan_us, "%s: sim_makespan %.17g, expected %.17g", what, ms, want->makespan_us);
    return !bad && ms == want->makespan_us;
}
