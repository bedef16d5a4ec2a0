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
#include "policy_graph.h"
#include "util.h"

typedef struct PolicyArch {
    int n_devices;
    int mem_feature; /* 1: an extra column with the group's peak memory share */
    int extended;    /* 1: the extended feature columns (3 + n_devices more) */
    int start_device0; /* the start it was trained from and places from zero-shot:
                          1 every group on device 0, 0 the fixed random placement */
    int accept_improving; /* trained (and placing) with moves that hurt undone */
    int start_heuristic; /* trained from the best placement so far, the best heuristic's first
                            (--init heuristic, --preset search): zero-shot, it searches from the
                            best heuristic's placement */
    int reject_zero;  /* trained with an undone move's reward 0 (--rejected zero) */
    int has_init_seed; /* 1: init_seed is the seed its weights were drawn from before training */
    uint64_t init_seed; /* (its untrained control is policy_new with it) */
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
/* A new policy with Glorot-uniform weights drawn from seed. Returns NULL with
 * e set when the architecture is out of range. */
Policy *policy_new(const PolicyArch *a, uint64_t seed, Err *e);
void policy_free(Policy *pol);
/* The number of weights of an architecture that policy_new accepts (one of
 * the four arrays it allocates), without allocating them. */
size_t policy_param_count(const PolicyArch *a);

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

/* Every node's head at once: the logits policy_forward gives with node v
 * current, for every v, from one feature matrix feats [n x F] (the same for
 * every v: features computed with no current node, episode_features(ep,
 * -1, ...), so the embedding and message passing run once and only the
 * pooling and the head run per node, each one product over the n rows).
 * logits [n x D] (row v: node v's; may be NULL); b keeps what
 * policy_backward_all needs. With the plain kernels (blas 0) row v has
 * policy_forward's bits for v; BLAS may round the wide layers otherwise.
 * The learned local search scores its moves with it (lsearch_gnn.c). */
typedef struct PolicyBatch PolicyBatch;
PolicyBatch *policy_batch_new(const PolicyArch *a, const PolicyGraph *pg);
void policy_batch_free(PolicyBatch *b);
void policy_forward_all(const Policy *pol, const PolicyGraph *pg, PolicyBatch *b, const float *feats, float *logits);
/* Backward pass of the last policy_forward_all on b: accumulates into grad
 * (NnParams layout) the gradient for dlogits [n x D] = dL/dlogits. */
void policy_backward_all(const Policy *pol, const PolicyGraph *pg, PolicyBatch *b, const float *dlogits, float *grad);

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
typedef struct PolicyBatchD PolicyBatchD;
PolicyBatchD *policy_batch_new_d(const PolicyArch *a, const PolicyGraph *pg);
void policy_batch_free_d(PolicyBatchD *b);
void policy_forward_all_d(const Policy *pol, const double *wd, const PolicyGraph *pg, PolicyBatchD *b,
                          const double *feats, double *logits);
void policy_backward_all_d(const Policy *pol, const double *wd, const PolicyGraph *pg, PolicyBatchD *b,
                           const double *dlogits, double *grad);

#endif
