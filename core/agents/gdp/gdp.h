/* gdp: the network of GDP (Zhou et al. 2019, "GDP: Generalized Device
 * Placement for Dataflow Graphs"): a single-shot placer giving every group
 * of a Grouping its own distribution over devices from one forward pass
 * (docs/comparators.md, "The GDP placer's network").
 *
 *   input row v   x_v = [op-type shares (T + 1, the last "other"),
 *                        log1p(bytes_v) / max, cost_v / max,
 *                        in-degree / max, out-degree / max, v / G]   F = T + 6
 *   projection    H0 = ReLU(X W_in + b_in)
 *   GraphSAGE     per layer: P = ReLU(H W_a + b_a),
 *                 m_v = max over u in pred(v) u succ(v) of P_u (element-wise; 0 without neighbours),
 *                 H <- ReLU([H, m] W_f + b_f)                          L_g layers
 *   superposition per block l (switchable): c_l = mean_v(E_v) U_l + beta_l, X <- X (.) c_l
 *   placement     L_p post-norm Transformer blocks over the rows in topological
 *                 order, cut into segments of S rows; a segment attends to
 *                 [memory; segment], the memory being the previous segment's
 *                 block input as a constant (Transformer-XL, no gradient):
 *                 X <- LN(X + concat_h(softmax(Q K^T / sqrt(h/H)) V) W_o)
 *                 X <- LN(X + ReLU(X W_1 + b_1) W_2 + b_2)
 *   head          l_v = X_v W_h + b_h, a_v ~ softmax(l_v), independently per node
 *
 * Forward and backward exist in float (the production path, BLAS or its
 * plain-loop twin, net->blas) and in double (gdp_*_d: the gradient check),
 * generated from one text (gdp_impl.h, gdp_attn_impl.h). Backward
 * accumulates (+=) the gradient of
 *   J = sum_v w_v log p_v(a_v) + beta sum_v H_v
 * (H_v = -sum p log p, the exact entropy of node v's distribution) into a
 * gradient array of the NnParams layout. Since the network's output does
 * not depend on the placement, K placements of one graph need one forward
 * (gdp_work_pick draws or scores each from its probabilities) and one
 * backward: gdp_logit_grad sums their dJ/dlogits, gdp_backward_logits
 * takes it from there (gdp_backward is these two for one placement).
 * Thread safety: forward and backward only read the net; each thread needs
 * its own work space and gradient array; gdp_work_pick and gdp_logit_grad
 * only read the work space. */
#ifndef PLACETO_GDP_H
#define PLACETO_GDP_H

#include <stdint.h>

#include "graph.h"
#include "group.h"
#include "nn.h"
#include "util.h"
#include "vocab.h"

#define GDP_MAX_DEVICES 64
#define GDP_MAX_LAYERS 8
#define GDP_LN_EPS 1e-5

typedef struct GdpArch {
    int n_devices;     /* n */
    int n_types;       /* T: the vocabulary's size (T + 1 type columns) */
    int hidden;        /* h: a multiple of heads */
    int heads;         /* H */
    int gnn_layers;    /* L_g in [1, GDP_MAX_LAYERS] */
    int blocks;        /* L_p in [1, GDP_MAX_LAYERS] */
    int segment;       /* S: rows per segment (>= 1) */
    int superposition; /* 1: the conditioning vector multiplies each block's input */
} GdpArch;

/* Defaults: h = 128, H = 4, L_g = 2, L_p = 1, S = 256, superposition on. */
void gdp_arch_default(GdpArch *a, int n_devices, int n_types);
static inline int gdp_n_inputs(const GdpArch *a) { return a->n_types + 6; }

/* Tensor indices of one GraphSAGE layer and of one block (-1: absent). */
typedef struct GdpGnnT {
    int Wa, ba, Wf, bf;
} GdpGnnT;
typedef struct GdpBlockT {
    int U, sb; /* superposition: U (h x h), beta (1 x h), or -1 */
    int Wq, Wk, Wv, Wo, g1, c1, W1, b1, W2, b2, g2, c2;
} GdpBlockT;

typedef struct GdpNet {
    GdpArch arch;
    OpVocab vocab; /* owned copy */
    NnParams p;
    int blas; /* 1: BLAS; 0: the plain loops (tests) */
    int t_in_W, t_in_b, t_head_W, t_head_b;
    GdpGnnT gnn[GDP_MAX_LAYERS];
    GdpBlockT blk[GDP_MAX_LAYERS];
} GdpNet;

/* Tensors, in registration order (F = T + 6):
 *   in.W (F x h), in.b (1 x h);
 *   per GraphSAGE layer l: gnn<l>.Wa (h x h), gnn<l>.ba (1 x h), gnn<l>.Wf (2h x h), gnn<l>.bf (1 x h);
 *   per block l: [sup<l>.U (h x h), sup<l>.b (1 x h) with superposition],
 *     blk<l>.Wq, blk<l>.Wk, blk<l>.Wv, blk<l>.Wo (h x h), blk<l>.ln1g, blk<l>.ln1b (1 x h),
 *     blk<l>.W1 (h x 4h), blk<l>.b1 (1 x 4h), blk<l>.W2 (4h x h), blk<l>.b2 (1 x h),
 *     blk<l>.ln2g, blk<l>.ln2b (1 x h);
 *   head.W (h x n), head.b (1 x n).
 * Glorot-uniform matrices from seed, zero biases; the layer norms' gains
 * and the superposition's beta start at 1. The vocabulary is copied;
 * vocab->n must equal a->n_types. */
GdpNet *gdp_new(const GdpArch *a, const OpVocab *vocab, uint64_t seed, Err *e);
void gdp_free(GdpNet *net);
size_t gdp_param_count(const GdpArch *a);

/* The input of one graph: the features (G x F, float and double) and the
 * neighbour lists pred(v) then succ(v) (both sorted; groups are numbered
 * in a topological order, so the list is sorted). */
typedef struct GdpInput {
    int G, F;
    float *xf;
    double *xd;
    int *nb_off, *nb; /* neighbours of v: nb[nb_off[v] .. nb_off[v+1]) */
} GdpInput;

GdpInput *gdp_input_new(const Graph *g, const Grouping *gr, const OpVocab *v, Err *e);
void gdp_input_free(GdpInput *in);

/* GDP_PROBS: the forward alone (the logits and probabilities; no placement). */
enum { GDP_SAMPLE, GDP_GREEDY, GDP_SCORE, GDP_PROBS };

/* Work spaces for graphs of up to G groups; forward and backward allocate
 * nothing. */
typedef struct GdpWork GdpWork;
typedef struct GdpWorkD GdpWorkD;
GdpWork *gdp_work_new(const GdpArch *a, int G);
void gdp_work_free(GdpWork *w);
GdpWorkD *gdp_work_new_d(const GdpArch *a, int G);
void gdp_work_free_d(GdpWorkD *w);

/* One forward pass over in's G groups, then per group v: mode GDP_SAMPLE
 * draws a_v from softmax(l_v) with rng (v = 0 .. G-1 in order, one uniform
 * each), GDP_GREEDY takes its first argmax (rng unused), GDP_SCORE takes
 * place[v] as given. Writes the placement to place[] (read in GDP_SCORE),
 * optionally log p_v(a_v) to logp[G] and the entropy H_v to ent[G];
 * returns log pi(P) = sum_v log p_v(a_v). Keeps what backward needs in w.
 * GDP_PROBS computes the probabilities only (rng, place, logp, ent unused;
 * returns 0): for gdp_work_pick and gdp_backward_logits, not gdp_backward. */
double gdp_forward(const GdpNet *net, const GdpInput *in, GdpWork *w, int mode, Rng *rng, int *place,
                   double *logp, double *ent);
/* Backward of the last forward on w: grad (p.n floats) += dJ/dparams for
 * J = sum_v wt[v] log p_v(a_v) + beta sum_v H_v. */
void gdp_backward(const GdpNet *net, const GdpInput *in, GdpWork *w, const double *wt, double beta, float *grad);

/* A placement from the probabilities of the last forward on w, exactly as
 * gdp_forward's mode (GDP_SAMPLE, GDP_GREEDY or GDP_SCORE) picks it, the
 * same bits: so one forward serves K samples, each drawn with its own rng
 * (one uniform per group in order). Returns log pi(P); logp and ent as
 * gdp_forward. Does not change w (gdp_backward still sees the forward's
 * own placement). */
double gdp_work_pick(const GdpWork *w, int mode, Rng *rng, int *place, double *logp, double *ent);
/* dJ/dlogits (G x n, row-major) on the last forward on w of
 *   J = sum_k [ sum_v wt[k][v] log p_v(place[k][v]) + beta sum_v H_v ]
 * for K placements: sum_k wt[k][v] (onehot(place[k][v]) - p_v)
 * - K beta p_v (log p_v + H_v), summed in double in k's order. */
void gdp_logit_grad(const GdpWork *w, int K, const int *const *place, const double *const *wt, double beta,
                    float *dl);
/* Backward of the last forward on w (any mode) from dJ/dlogits dl (G x n):
 * grad += dJ/dparams. gdp_backward(wt, beta) is gdp_logit_grad of the
 * forward's one placement, then this. */
void gdp_backward_logits(const GdpNet *net, const GdpInput *in, GdpWork *w, const float *dl, float *grad);

/* Double twins: weights wd[p.n] given by the caller (converted or perturbed). */
double gdp_forward_d(const GdpNet *net, const double *wd, const GdpInput *in, GdpWorkD *w, int mode, Rng *rng,
                     int *place, double *logp, double *ent);
void gdp_backward_d(const GdpNet *net, const double *wd, const GdpInput *in, GdpWorkD *w, const double *wt,
                    double beta, double *grad);
void gdp_logit_grad_d(const GdpWorkD *w, int K, const int *const *place, const double *const *wt, double beta,
                      double *dl);
void gdp_backward_logits_d(const GdpNet *net, const double *wd, const GdpInput *in, GdpWorkD *w, const double *dl,
                           double *grad);
/* The logits of the last forward on w (G x n; the gradient check of gdp_backward_logits_d). */
const double *gdp_work_logits_d(const GdpWorkD *w);
/* The gradient check of the stop-gradient memory: with on = 1, the memory
 * rows (every block's input rows) of the last forward on w are frozen, and
 * later forwards on w use these values as the memory instead of
 * recomputing them (so central differences see the memory as constants);
 * on = 0 returns to the ordinary forward. */
void gdp_work_freeze_memory_d(GdpWorkD *w, int on);

/* The probabilities of group v in the last forward on w (n_devices values). */
const float *gdp_work_probs(const GdpWork *w, int v);
/* The attention row of group v in head `head` of block `block` of the last
 * forward on w: *n_keys weights over the groups *first_key ..
 * *first_key + *n_keys - 1 (the memory, then v's segment). */
const float *gdp_work_attention(const GdpWork *w, int block, int head, int v, int *first_key, int *n_keys);

/* The two tricky kernels alone, in double (their gradient checks). Layer
 * norm of n rows of width h: y = gamma (x - mu) / sigma + b with
 * sigma = sqrt(var + GDP_LN_EPS); keeps xhat (n x h) and sigma (n). Its
 * backward: dx = (g - mean g - xhat mean(g xhat)) / sigma for g = dy gamma
 * (dx overwritten), dgamma += sum dy xhat, dbeta += sum dy. */
void gdp_layer_norm_d(int n, int h, const double *x, const double *gamma, const double *b, double *y,
                      double *xhat, double *sigma);
void gdp_layer_norm_bwd_d(int n, int h, const double *dy, const double *gamma, const double *xhat,
                          const double *sigma, double *dx, double *dgamma, double *dbeta);
/* Max aggregation: M[v] = element-wise max of P[u] over the neighbours u of
 * v (0 and arg -1 without neighbours), arg[v, c] the first neighbour
 * reaching it; backward dP[arg[v, c], c] += dM[v, c] (dP accumulated). */
void gdp_max_aggregate_d(int G, int h, const int *nb_off, const int *nb, const double *P, double *M, int *arg);
void gdp_max_aggregate_bwd_d(int G, int h, const int *arg, const double *dM, double *dP);

#endif
