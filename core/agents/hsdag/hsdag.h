/* hsdag: the network of HSDAG (Duan et al., NeurIPS 2024, arXiv
 * 2405.14185), a grouper-placer for heterogeneous machines: it embeds the
 * group graph, learns a grouping of the groups into clusters (a
 * graph-parsing pooling that picks its own number of clusters), and
 * places each cluster with a softmax over devices (docs/comparators.md, "The
 * HSDAG placer's network").
 *
 *   input row v   x_v = the enabled feature families, in this order:
 *                   type    op-type shares of the group's ops (T + 1, the last "other")
 *                   shape   log1p(output bytes of v) / max over the graph
 *                   id      v / G
 *                   struct  node fractal dimension, closeness centrality (2)
 *                   cost    per device d: v's cost on d / max over groups and devices (n)
 *                 plus, during an episode, the state carried from the earlier steps
 *                 (the caller passes the current rows x, G x F)
 *   input MLP     H0 = ReLU(LN(ReLU(LN(x W_i1 + b_i1)) W_i2 + b_i2))
 *   GNN 1         A = D^-1/2 (S + I) D^-1/2, S the symmetrised group graph;
 *                 Y = ReLU(A H0 W_g1 + b_g1); Y = ReLU(A Y W_g2 + b_g2);
 *                 X1 = LN(H0 + Y)
 *   parsing       per undirected edge {u, v} of S and per self-loop {v, v}:
 *                 s_uv = sigmoid(ReLU(LN((X1_u (.) X1_v) W_e1 + b_e1)) w_e2 + b_e2);
 *                 every node keeps its highest-scoring incident edge (its
 *                 self-loop included: a node whose self-loop wins does not
 *                 reach out); the clusters are the components the kept edges
 *                 join, merged in decreasing score order and never below
 *                 min_clusters clusters (a floor). Clusters are numbered by
 *                 their first group. Integer work: no gradient. Ties: at
 *                 equal scores a node prefers an edge to its self-loop and
 *                 the lower edge index (edges numbered as HsdagInput's
 *                 eu/ev), and merges take equal scores in edge order.
 *   GNN 2         X2 = LN(H0 + ReLU(A H0 W_g3 + b_g3))
 *   pooling       Yp = LN(X2 + X2 W_pre); z_c = sum over v in c of Yp_v;
 *                 Z_c = LN(z_c + z_c W_post) * sigma_c, sigma_c the sum of the
 *                 scores of the edges of S inside c and of c's self-loops
 *                 (the paper's mean inside-edge score times the edge count):
 *                 the only path from the reward to the edge scorer
 *   output        O_c = ReLU(ReLU(Z_c W_o1 + b_o1) W_o2 + b_o2)     (h -> h -> F)
 *   classifier    l_c = ReLU(O_c W_c1 + b_c1) W_c2 + b_c2           (F -> h -> n)
 *                 a_c ~ softmax(l_c), independently per cluster; every
 *                 group of c (and its ops) goes to a_c.
 *
 * Dropout is off (a documented deviation: the reference code leaves it on
 * while sampling). log pi(P) = sum_c log p_c(a_c).
 *
 * Forward and backward exist in float (the production path, BLAS or its
 * plain-loop twin, net->blas) and in double (hsdag_*_d: the gradient check),
 * generated from one text (hsdag_impl.h). Backward accumulates (+=) the
 * gradient of J = weight * log pi(P) into a gradient array of the NnParams
 * layout. Thread safety: forward and backward only read the net; each
 * thread needs its own work space and gradient array. */
#ifndef PLACETO_HSDAG_H
#define PLACETO_HSDAG_H

#include <stdint.h>

#include "cluster.h"
#include "graph.h"
#include "group.h"
#include "nn.h"
#include "util.h"
#include "vocab.h"

#define HSDAG_MAX_DEVICES 64
#define HSDAG_LN_EPS 1e-5
#define HSDAG_MAX_STEPS 1000 /* episode length */

/* Feature families (HsdagArch.features, a mask). */
enum {
    HSDAG_F_TYPE = 1,
    HSDAG_F_SHAPE = 2,
    HSDAG_F_ID = 4,
    HSDAG_F_STRUCT = 8,
    HSDAG_F_COST = 16,
};
#define HSDAG_F_FAITHFUL (HSDAG_F_TYPE | HSDAG_F_SHAPE | HSDAG_F_ID | HSDAG_F_STRUCT)
#define HSDAG_F_PARITY (HSDAG_F_FAITHFUL | HSDAG_F_COST)

typedef struct HsdagArch {
    int n_devices;   /* n */
    int n_types;     /* T: the vocabulary's size (T + 1 type columns when HSDAG_F_TYPE) */
    int hidden;      /* h */
    int features;    /* mask of HSDAG_F_*, not 0 */
    int min_clusters; /* the parse never leaves fewer clusters than this (>= 1; default 2n) */
    int steps;        /* the episode length T it was trained with (default 20): placing uses the
                         state after T - 1 steps (hsdag_place_state), the one the return weighs most */
} HsdagArch;

/* Defaults: h = 128, features HSDAG_F_FAITHFUL, min_clusters 2n, steps 20. */
void hsdag_arch_default(HsdagArch *a, int n_devices, int n_types);
/* F: the input width of the enabled families. */
int hsdag_n_inputs(const HsdagArch *a);
/* "type,shape,id,struct,cost" style names of a mask, and the inverse
 * ("faithful", "parity" or a comma list; 0 on an unknown name). */
void hsdag_features_name(int mask, char *buf, size_t cap);
int hsdag_features_parse(const char *s);

typedef struct HsdagNet {
    HsdagArch arch;
    OpVocab vocab; /* owned copy */
    NnParams p;
    int blas; /* 1: BLAS; 0: the plain loops (tests) */
    /* tensor indices, in registration order */
    int i1W, i1b, i1g, i1c, i2W, i2b, i2g, i2c;   /* input MLP (LN gains g, biases c) */
    int g1W, g1b, g2W, g2b, n1g, n1c;             /* GNN 1 and its LN */
    int e1W, e1b, e1g, e1c, e2W, e2b;             /* edge scorer: h -> h (LN) -> 1 */
    int g3W, g3b, n2g, n2c;                       /* GNN 2 and its LN */
    int prW, prg, prc, poW, pog, poc;             /* pooling: W_pre + LN, W_post + LN */
    int o1W, o1b, o2W, o2b;                       /* output MLP h -> h -> F */
    int c1W, c1b, c2W, c2b;                       /* classifier F -> h -> n */
} HsdagNet;

/* Glorot-uniform matrices from seed, zero biases, layer-norm gains 1. The
 * vocabulary is copied; vocab->n must equal a->n_types. */
HsdagNet *hsdag_new(const HsdagArch *a, const OpVocab *vocab, uint64_t seed, Err *e);
void hsdag_free(HsdagNet *net);
size_t hsdag_param_count(const HsdagArch *a);

/* The input of one graph: its base features (G x F, float and double), the
 * structural features alone (fractal dimension, closeness; G x 2, for the
 * explorer and tests), the normalised adjacency A (CSR with the self-loops,
 * symmetric) and the undirected edges of S (u < v, sorted). c (may be NULL:
 * reference costs on n devices) gives the per-device costs of the cost
 * family. */
typedef struct HsdagInput {
    int G, F;
    float *xf;
    double *xd;
    double *fractal, *closeness;
    int *a_off, *a_col; /* row v of A: a_col/a_val[a_off[v] .. a_off[v+1]) */
    double *a_val;
    float *a_valf;
    int n_edges;        /* undirected edges of S (no self-loops) */
    int *eu, *ev;
} HsdagInput;

HsdagInput *hsdag_input_new(const HsdagNet *net, const Graph *g, const Grouping *gr, const Cluster *c, Err *e);
void hsdag_input_free(HsdagInput *in);

/* The structural features alone, on the group graph. Fractal dimension of
 * v: breadth-first distances from v along the edges' direction; for every
 * radius r = 1 .. the largest distance, N(r) = the nodes within r (v
 * included); the least-squares slope of log N(r) on log r, 0 with fewer
 * than two radii. Closeness of v on the undirected graph, Wasserman-Faust
 * normalised for disconnected graphs: (m / (G - 1)) (m / the sum of the
 * distances to the m nodes v reaches), 0 when m = 0 (G = 1 included).
 * The other columns: type shares = counts / the group's op count (unknown
 * types in the last, "other", column); shape = log1p(bytes) / the largest;
 * cost on device d = the sum of cluster_op_cost over the group's ops (the
 * group's reference cost on every device when c is NULL) / the largest
 * over groups and devices. */
void hsdag_fractal_dimension(const Grouping *gr, double *out);
void hsdag_closeness(const Grouping *gr, double *out);

enum { HSDAG_SAMPLE, HSDAG_GREEDY, HSDAG_SCORE };

typedef struct HsdagWork HsdagWork;
typedef struct HsdagWorkD HsdagWorkD;
HsdagWork *hsdag_work_new(const HsdagArch *a, const HsdagInput *in);
void hsdag_work_free(HsdagWork *w);
HsdagWorkD *hsdag_work_new_d(const HsdagArch *a, const HsdagInput *in);
void hsdag_work_free_d(HsdagWorkD *w);

/* One forward pass on the feature rows x (G x F; in->xf for an episode's
 * first step), the parse, then per cluster c in order: HSDAG_SAMPLE draws
 * a_c from softmax(l_c) with rng (one uniform per cluster), HSDAG_GREEDY
 * takes its first argmax, HSDAG_SCORE takes the device of c's first group
 * in place[] as given. Writes every group's device to place[G] (read in
 * HSDAG_SCORE), and, when out is not NULL, every group's row O_c of its
 * cluster (G x F: the episode's state update). Returns log pi(P). Keeps
 * what backward needs in w. */
double hsdag_forward(const HsdagNet *net, const HsdagInput *in, const float *x, HsdagWork *w, int mode, Rng *rng,
                     int *place, float *out);
/* grad (p.n floats) += weight * d log pi(P) / d params for the last
 * forward on w (the same x). */
void hsdag_backward(const HsdagNet *net, const HsdagInput *in, const float *x, HsdagWork *w, double weight,
                    float *grad);

/* The clusters of the last forward on w: *n_clusters, and the cluster of
 * every group (G entries); the probabilities of cluster c (n values) and
 * its edge-score sum sigma_c. */
const int *hsdag_work_clusters(const HsdagWork *w, int *n_clusters);
const float *hsdag_work_probs(const HsdagWork *w, int c);
double hsdag_work_sigma(const HsdagWork *w, int c);

/* Double twins: weights wd[p.n] given by the caller (converted or perturbed). */
double hsdag_forward_d(const HsdagNet *net, const double *wd, const HsdagInput *in, const double *x,
                       HsdagWorkD *w, int mode, Rng *rng, int *place, double *out);
void hsdag_backward_d(const HsdagNet *net, const double *wd, const HsdagInput *in, const double *x,
                      HsdagWorkD *w, double weight, double *grad);
/* With on = 1, the parse of the last forward on w is kept and later
 * forwards on w reuse it instead of parsing again (central differences
 * then see a fixed clustering, as the gradient does); on = 0 returns to
 * the ordinary forward. */
void hsdag_work_freeze_parse_d(HsdagWorkD *w, int on);

/* The parse alone (its test): the clusters of in's groups for the scores
 * score[E + G] (in's undirected edges in order, then the self-loops of
 * groups 0 .. G-1) and the floor min_clusters, written to cluster[G];
 * returns the number of clusters. */
int hsdag_parse_d(const HsdagInput *in, const double *score, int min_clusters, int *cluster);

#endif
