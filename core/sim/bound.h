/* bound: the critical path and the lower bound (docs/simulator.md, "Lower bound"):
 *   max(longest path of op costs, Σ (cost + δ1 if cost > 0) / n_devices),
 * costs taken on the fastest device for each op. No placement simulated on
 * that cluster can finish sooner. */
#ifndef PLACETO_BOUND_H
#define PLACETO_BOUND_H

#include "cluster.h"
#include "graph.h"

/* Longest path through the DAG by summed op costs (each op's smallest cost
 * over c's devices, or its reference cost when c is NULL). When path is not
 * NULL it receives the ops of one longest path (source first, at most n ops)
 * and *path_len their number. */
double bound_critical_path(const Graph *g, const Cluster *c, int *path, int *path_len);
double bound_lower(const Graph *g, const Cluster *c);

#endif
