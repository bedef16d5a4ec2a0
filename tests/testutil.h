/* testutil: helpers shared by the unit tests. */
#ifndef PLACETO_TESTUTIL_H
#define PLACETO_TESTUTIL_H

#include "cluster.h"
#include "graph.h"

/* The best simulated makespan over every placement of g's ops on c (tiny
 * graphs only: n_devices ^ n_ops simulations). */
double test_brute_force(const Graph *g, const Cluster *c);

#endif
