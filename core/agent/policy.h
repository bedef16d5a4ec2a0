/* policy: the Placeto policy network (docs/agent.md, "Network"): a node
 * transform, k rounds of message passing over the group graph in both
 * directions, pooling over the current node's ancestors, descendants and
 * parallel nodes, and a head that gives one logit per device.
 *
 * A Policy owns its parameters (NnParams: weights, gradients, Adam moments in
 * one allocation) and its architecture. A PolicyGraph is the static part of
 * one group graph (parents, children, ancestor and descendant bit sets); a
 * PolicyWork is the scratch of one forward/backward pass on one graph, kept
 * between the two. Forward and backward exist in float (BLAS, the production
 * path) and in double (policy_*_d: the gradient check); the double functions
 * read the float weights converted by the caller.
 *
 * Thread safety: forward and backward only read the Policy's weights; each
 * thread needs its own PolicyWork and its own gradient array. */
#ifndef PLACETO_POLICY_H
#define PLACETO_POLICY_H

#include <stdint.h>

#include "group.h"
#include "nn.h"
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

typedef struct PolicyArch {
    int n_devices;
    int mem_feature; /* 1: an extra column with the group's peak memory share */
    int extended;    /* 1: the extended feature columns (3 + n_devices more) */
    int start_device0; /* the start it was trained from and places from zero-shot:
                          1 every group on device 0, 0 the fixed random placement */
    int accept_improving; /* trained (and placing) with moves that hurt undone */
    int n_features;  /* F = 5 + n_devices (+ 1) (+ 3 + n_devices) */
    int d;           /* hidden size, = F by default */
    int rounds;      /* message-passing rounds k (default 8) */
} PolicyArch;

typedef struct Policy {
    PolicyArch arch;
    NnParams p;
    int blas; /* 1: BLAS kernels; 0: their plain-loop twins (tests) */
} Policy;

/* The default architecture for n_devices. */
void policy_arch_default(PolicyArch *a, int n_devices);
/* The default architecture, with the peak-memory feature column when
 * mem_feature is 1 and the extended columns when extended is 1; the hidden
 * size is the feature count (capped at POLICY_EXT_HIDDEN_MAX when extended). */
void policy_arch_for(PolicyArch *a, int n_devices, int mem_feature, int extended);
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
/* A new policy with Glorot-uniform weights drawn from seed. Returns NULL with
 * e set when the architecture is out of range. */
Policy *policy_new(const PolicyArch *a, uint64_t seed, Err *e);
void policy_free(Policy *pol);
/* The number of weights of an architecture that policy_new accepts (one of
 * the four arrays it allocates), without allocating them. */
size_t policy_param_count(const PolicyArch *a);

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

typedef struct PolicyWork PolicyWork;
PolicyWork *policy_work_new(const PolicyArch *a, const PolicyGraph *pg);
void policy_work_free(PolicyWork *w);

/* Forward pass for current node v with features feats[n x F]: fills
 * logits[n_devices] and probs[n_devices] (either may be NULL) and keeps what
 * the backward pass needs in w. */
void policy_forward(const Policy *pol, const PolicyGraph *pg, PolicyWork *w, const float *feats,
                    int v, float *logits, float *probs);
/* Backward pass of the last forward on w: accumulates dL/dparams into grad
 * (NnParams layout, p.n floats) for dlogits = dL/dlogits. */
void policy_backward(const Policy *pol, const PolicyGraph *pg, PolicyWork *w,
                     const float *dlogits, float *grad);

/* Double-precision twins for the gradient check: weights wd[p.n] (converted
 * from the float ones or perturbed), features in double. The work space is a
 * separate type so that the float path stays lean. */
typedef struct PolicyWorkD PolicyWorkD;
PolicyWorkD *policy_work_new_d(const PolicyArch *a, const PolicyGraph *pg);
void policy_work_free_d(PolicyWorkD *w);
void policy_forward_d(const Policy *pol, const double *wd, const PolicyGraph *pg, PolicyWorkD *w,
                      const double *feats, int v, double *logits);
void policy_backward_d(const Policy *pol, const double *wd, const PolicyGraph *pg, PolicyWorkD *w,
                       const double *dlogits, double *grad);

#endif
