/* group_check: everything that must hold for any grouping of a graph
 * (docs/agent.md "Groups"), checked against independent computations:
 * partition, held ops, ids in topological order, an acyclic group graph and
 * its rows, sums and edge bytes, names, colocation and pin classes kept,
 * pinned groups closed, the target count. Implemented in group_check.c;
 * used by test_group.c. */
#ifndef PLACETO_GROUP_CHECK_H
#define PLACETO_GROUP_CHECK_H

#include "graph.h"
#include "group.h"

/* Checks every invariant of gr as a grouping of g for target (failures
 * recorded with what as their label); returns 1 if all held. */
int check_grouping(const Graph *g, const Grouping *gr, int target, const char *what);
/* 1 when a and b are the same grouping, field by field. */
int same_grouping(const Grouping *a, const Grouping *b);
/* in_hull[i] = 1 when op i is reachable from an op pinned to pin and
 * reaches one (the pinned ops included). */
void hull(const Graph *g, const char *pin, char *in_hull);

#endif
