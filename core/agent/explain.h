/* explain: what the explorer's "why this device" panel computes about one
 * step of an episode: the relation of a group to the node being placed, the
 * rounds of message passing after which a group's information reaches that
 * node (Placeto's network, docs/agent.md: top-down from parents, bottom-up
 * from children), whether a distribution is uniform, and the runtime the
 * placement would have with the node on each device. Implemented in
 * explain.c. */
#ifndef PLACETO_EXPLAIN_H
#define PLACETO_EXPLAIN_H

#include "group.h"
#include "policy_graph.h"
#include "sim.h"

typedef enum ExplainRel {
    EXPLAIN_SELF,       /* the node itself */
    EXPLAIN_PARENT,     /* an edge from it to the node */
    EXPLAIN_CHILD,      /* an edge from the node to it */
    EXPLAIN_ANCESTOR,   /* a longer path to the node */
    EXPLAIN_DESCENDANT, /* a longer path from the node */
    EXPLAIN_PARALLEL    /* no path either way */
} ExplainRel;

/* Group j's relation to node v. */
ExplainRel explain_relation(const PolicyGraph *pg, int v, int j);
/* "parent", "child", "ancestor", "descendant", "parallel", "current". */
const char *explain_relation_name(ExplainRel r);

/* round[j] (pg->n entries): the message-passing round after which group
 * j's information has reached v: its distance to v along parents (an
 * ancestor, the top-down pass) or along children (a descendant, the
 * bottom-up pass); 0 for v; -1 for a parallel group, which no round
 * reaches. Returns the largest round (0 when v has no neighbour). */
int explain_reach(const PolicyGraph *pg, int v, int *round);
/* Of round[0..n): the groups first reached at round k (*total: those
 * reached by round k, v excluded). */
int explain_reach_count(const int *round, int n, int k, int *total);

/* 1 when the n weights are uniform: every one within tol (0.05: 5 %) of
 * their mean; 0 otherwise (and for n < 1). */
int explain_uniform(const float *w, int n, double tol);
/* The entropy of the n weights (normalised to sum 1) over log n: 1 for
 * uniform weights, near 0 for one weight holding everything (1 for n < 2;
 * weights <= 0 add nothing). */
double explain_entropy_ratio(const float *w, int n);

/* runtime_us[d] (and oom[d], when not NULL) for every device d of the
 * simulator's cluster: the makespan of group_device with `group` moved to
 * d, each an incremental simulation (sim_run_from) on s; op_device is
 * scratch for gr's ops. */
void explain_device_runtimes(Sim *s, const Grouping *gr, const int *group_device, int group, int n_devices,
                             int *op_device, double *runtime_us, int *oom);

#endif
