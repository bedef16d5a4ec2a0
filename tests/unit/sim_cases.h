/* sim_cases: random graphs, clusters and placements for the simulator's
 * differential tests (test_sim_fast.c, test_sim_inc.c), and the check of one
 * placement against the plain simulator (sim_naive.h). */
#ifndef PLACETO_SIM_CASES_H
#define PLACETO_SIM_CASES_H

#include "cluster.h"
#include "graph.h"
#include "sim.h"
#include "sim_naive.h"
#include "util.h"

/* A random placement of g's ops on nd devices; kind % 4: 0 uniform, 1 blocks
 * of consecutive ops, 2 two devices only (the others have no ops), 3 one
 * device. */
void simcase_placement(Rng *r, const Graph *g, int nd, int kind, int *dev);
/* Costs in {0, 1, 2, 3} (a third of them 0) and outputs of 0 or a multiple
 * of bandwidth bytes: ties everywhere. */
void simcase_ties(Graph *g, Rng *r, double bandwidth);
/* Cluster kind 0 the default, 1 uneven speeds, a CPU with kind costs and a
 * small memory, 2 no gap and no overhead, 3 a huge bandwidth and a large
 * gap. kind 1 needs nd >= 2. */
Cluster *simcase_cluster(int nd, int kind);
/* CPU costs (the "cpu" kind of cluster kind 1) on about 30% of the ops. */
void simcase_cpu_costs(Graph *g, Rng *r);
/* The k-th random case: a random DAG or a training graph, plain or made of
 * ties; *c receives its cluster (kind k % 4). */
Graph *simcase_graph(int k, Rng *r, Cluster **c);
/* sim_run and sim_makespan of s against the oracle ns on dev, reported as
 * failed checks naming what; 1 when both agree to the last bit. */
int simcase_check(Sim *s, NaiveSim *ns, const int *dev, const char *what);

#endif
