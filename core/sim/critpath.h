/* critpath: the critical path of a simulated placement, the chain of ops
 * and transfers that determines the makespan. Walking back from the op that
 * ends last, each op was released by the latest of: a local parent's end, an
 * incoming transfer's end, or the previous op on its device (plus the gap).
 * A transfer was released by its source op's end or by the previous
 * transfer on the same bus (plus the overhead). Deterministic: ties go to
 * the lower index. */
#ifndef PLACETO_CRITPATH_H
#define PLACETO_CRITPATH_H

#include <stdint.h>

#include "cluster.h"
#include "graph.h"
#include "sim.h"

/* Fills path[0..*n_path) with the ops of the critical path, first op first
 * (path holds r->n_ops entries). op_crit (r->n_ops) and tr_crit
 * (r->n_transfers) receive 1 on the path, 0 elsewhere; each may be NULL. */
void sim_critical_path(const Graph *g, const Cluster *c, const SimResult *r, int *path, int *n_path,
                       uint8_t *op_crit, uint8_t *tr_crit);

#endif
