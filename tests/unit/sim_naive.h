/* sim_naive: the plain simulator kept as the oracle of the optimised one
 * (see sim_naive.c), and a bit-exact comparison of two results. */
#ifndef PLACETO_SIM_NAIVE_H
#define PLACETO_SIM_NAIVE_H

#include <stddef.h>

#include "cluster.h"
#include "graph.h"
#include "sim.h"

typedef struct NaiveSim NaiveSim;

NaiveSim *naive_sim_new(const Graph *g, const Cluster *c);
void naive_sim_free(NaiveSim *s);
const SimResult *naive_sim_run(NaiveSim *s, const int *op_device);

/* 0 when a and b are the same to the last bit: makespan, every start and
 * end, the transfers in order with every field (children and destination
 * lists included), busy time, peaks and OOM flags; else 1 with the first
 * difference described in why. */
int sim_result_diff(const SimResult *a, const SimResult *b, char *why, size_t n);

#endif
