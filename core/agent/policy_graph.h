/* policy_graph: what an episode (episode.h) and Placeto's network share:
 * the static data of a group graph (parents, children, ancestor and
 * descendant bit sets) and the layout of the per-group feature rows an
 * episode computes (docs/agent.md, "Features"). Implemented in
 * policy_graph.c. */
#ifndef PLACETO_POLICY_GRAPH_H
#define PLACETO_POLICY_GRAPH_H

#include <stdint.h>

#include "group.h"
#include "util.h"

#define POLICY_MAX_DEVICES 64
#define POLICY_MAX_GROUPS 20000

/* Feature columns, in this order (docs/agent.md, "Features"). */
enum {
    POLICY_F_COST,    /* total cost of the group's ops / column max */
    POLICY_F_BYTES,   /* total output bytes / column max */
    POLICY_F_VISITS,  /* times the node was visited in this episode */
    POLICY_F_CURRENT, /* 1 for the node being placed */
    POLICY_F_START,   /* start time relative to the current node's / column max |.| */
    POLICY_F_DEVICE   /* n_devices one-hot columns, then the optional memory column,
                         then the optional extended columns (below) */
};

/* The extended feature set (docs/agent.md, "Features"): after the device
 * one-hot and the optional memory column, at offset policy_ext_offset(),
 * three columns and then n_devices columns. */
enum {
    POLICY_FX_CRIT,     /* (start + static bottom level) / makespan: 1 on the critical path */
    POLICY_FX_LOAD,     /* cost placed on the group's device / an even share of the total */
    POLICY_FX_MEM,      /* peak memory of the group's device / its capacity */
    POLICY_FX_NBR,      /* n_devices columns: share of the group's edge bytes to each device */
};
#define POLICY_EXT_HIDDEN_MAX 16 /* default hidden size cap with the extended features */

/* The feature count of a feature set. */
static inline int policy_n_features(int n_devices, int mem_feature, int extended)
{
    return POLICY_F_DEVICE + n_devices + (mem_feature ? 1 : 0) + (extended ? 3 + n_devices : 0);
}
/* The first extended column. */
static inline int policy_ext_offset(int n_devices, int mem_feature)
{
    return POLICY_F_DEVICE + n_devices + (mem_feature ? 1 : 0);
}
/* The static data of a group graph. Fails when it has more than
 * POLICY_MAX_GROUPS groups. */
typedef struct PolicyGraph {
    int n;
    int *par_off, *par;   /* parents of node i: par[par_off[i] .. par_off[i+1]) */
    int *ch_off, *ch;     /* children */
    uint64_t *anc, *desc; /* n rows of `words` 64-bit words: bit j of row i */
    int words;
} PolicyGraph;

PolicyGraph *policy_graph_new(const Grouping *gr, Err *e);
void policy_graph_free(PolicyGraph *pg);
static inline int policy_graph_is_anc(const PolicyGraph *pg, int i, int j) /* j ancestor of i */
{
    return (int)((pg->anc[(size_t)i * (size_t)pg->words + (size_t)(j >> 6)] >> (j & 63)) & 1);
}
static inline int policy_graph_is_desc(const PolicyGraph *pg, int i, int j)
{
    return (int)((pg->desc[(size_t)i * (size_t)pg->words + (size_t)(j >> 6)] >> (j & 63)) & 1);
}

#endif
