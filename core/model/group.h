/* group: op groups and the group graph (docs/agent.md, "Groups").
 *
 * Groups come from (1) colocation keys and pinned groups (merged with whatever
 * lies on a dependency cycle between them, so the group graph stays acyclic;
 * a parameter, i.e. a source op colocated with ops that have inputs, is held
 * by its group but its outgoing edges do not order groups),
 * (2) chain merging: an op group with a single consumer group joins it, and
 * (3) neighbour merging of groups adjacent in a topological order, cheapest
 * pairs first, down to the target count. Every merge keeps the group graph
 * acyclic; the result is deterministic. Groups are numbered in a topological
 * order of the group graph; a group's ops are listed in graph order.
 * A Grouping owns all its arrays; group_free() releases them. */
#ifndef PLACETO_GROUP_H
#define PLACETO_GROUP_H

#include <stdint.h>

#include "graph.h"
#include "util.h"

typedef struct Grouping {
    int n_groups;
    int target;        /* requested count (0: every op its own group after step 1) */
    int n_ops;
    int *op_group;     /* per op */
    char **names;      /* per group: pinned name, else its first op's name */
    int *pinned;       /* per group: 1 if it came from a "group" pin */
    char *held;        /* per op: 1 for a parameter held by its colocation
                          group; its edges are left out of the group graph */
    int *member_off;   /* ops of group k: members[member_off[k] .. member_off[k+1]) */
    int *members;
    double *cost_us;   /* per group: summed reference cost */
    int64_t *bytes;    /* per group: summed output bytes */
    /* group graph, CSR, neighbours sorted by index */
    int n_edges;
    int *succ_off, *succ;
    int64_t *succ_bytes; /* bytes of op edges from group k to succ[j] */
    int *pred_off, *pred;
} Grouping;

/* group_build's target for HSDAG's coarsening instead of a count: after
 * step (1), a topological sweep merges a group with its unique successor
 * group when that successor's unique predecessor group is this one (the
 * chains of the reference code's merge_operations), and nothing else. */
#define GROUP_CHAINS (-2)

/* The default target for a graph: every op its own group up to 200 ops, else
 * n/10 clamped to [100, 200]. */
int group_default_target(const Graph *g);

/* Groups g down to at most target groups where that is reachable (pinned
 * groups never merge with others). target GROUP_CHAINS: HSDAG's coarsening
 * (above); other targets <= 0 mean the default. Fails only
 * when two pinned groups depend on each other both ways. */
Grouping *group_build(const Graph *g, int target, Err *e);
void group_free(Grouping *gr);
/* Index of the group named name, or -1. */
int group_find(const Grouping *gr, const char *name);
/* The one group -> op expansion: every op goes to its group's device. */
void group_expand(const Grouping *gr, const int *group_device, int *op_device);
/* The inverse for a placement that keeps groups whole: each group's device
 * is its first op's. */
void group_collapse(const Grouping *gr, const int *op_device, int *group_device);

/* The bottom level of every group into blevel (n_groups): the longest path
 * of reference costs from the group to a sink, its own cost included.
 * Returns the largest (the critical path's length). */
double group_bottom_levels(const Grouping *gr, double *blevel);

/* Statistics of a clustering of gr's groups into n clusters (cluster[v] per
 * group): the clusters, the bytes of the group-graph edges between
 * clusters, and the cost balance (the largest cluster's cost over the mean
 * cluster cost, reference costs). With cluster NULL, the groups
 * themselves (every group its own cluster). */
typedef struct GroupClusterStats {
    int n_clusters;
    int64_t cut_bytes;
    double balance;
} GroupClusterStats;
void group_cluster_stats(const Grouping *gr, const int *cluster, int n, GroupClusterStats *s);

#endif
