/* rnn: the network of the RNN-based placer (Mirhoseini et al., ICML 2017;
 * shapes after the hierarchical planner's public controller), placing every
 * group of a Grouping in one autoregressive decode (docs/comparators.md, "The
 * RNN-based placer").
 *
 *   input row k   x_k = [mean type embedding of the group's ops (e),
 *                        A_out[k,:], A_in[k,:], log1p(bytes_k), outputs_k
 *                        (these 2G + 2 divided by their max + 1)]      F = e + 2G + 2
 *   encoder       bidirectional LSTM over the rows in topological order
 *                 (group index order), h/2 units per direction;
 *                 memory E_j = [h_fw after row j, h_bw after row j]
 *   projection    M = E W1
 *   decoder       LSTM, h units, started from the encoders' final states;
 *                 input at step t: D[a_{t-1}] (go at t = 0)
 *   attention     u_j = v . tanh(s_t W2 + M_j), alpha = softmax(u), q = sum alpha_j M_j
 *   head          l_t = C tanh([s_t, q_t] Wout / tau), a_t ~ softmax(l_t)
 *
 * The LSTM cell: z = [x, h_prev] W split into i, f, o, g (in that column
 * order), c = sig(i) tanh(g) + sig(f + b_f) c_prev, h = sig(o) tanh(c); no
 * biases but one scalar forget bias b_f per stack (the two encoder
 * directions share one, initialised to 1).
 *
 * Forward and backward exist in float (the production path, BLAS or its
 * plain-loop twin) and in double (rnn_*_d: the gradient check), generated
 * from one text (rnn_impl.h). Backward accumulates (+=) the gradient of
 *   J = sum_t w_t log pi(a_t | a_<t) + beta sum_t H_t
 * (H_t the entropy of step t's distribution) into a gradient array of the
 * NnParams layout. Thread safety: forward and backward only read the net;
 * each thread needs its own work space and gradient array. */
#ifndef PLACETO_RNN_H
#define PLACETO_RNN_H

#include <stdint.h>

#include "graph.h"
#include "group.h"
#include "nn.h"
#include "util.h"
#include "vocab.h"

#define RNN_MAX_DEVICES 64
#define RNN_MAX_GROUPS 2048

typedef struct RnnArch {
    int n_devices; /* n */
    int n_groups;  /* G: the group capacity; the adjacency blocks are this wide, and a graph of
                      fewer groups leaves the rest zero (a family's largest member; one graph's G) */
    int n_types;   /* T: the vocabulary's size (the table has T + 1 rows) */
    int emb;       /* e: width of a type embedding */
    int hidden;    /* h: even; h/2 units per encoder direction */
    double squash_c, squash_tau; /* C and tau of the head (RNN_DEFAULT_SQUASH, 1) */
    /* The hierarchical grouper (rnn_hdp.h; 0 when grouper is RNN_GROUPER_NONE): */
    int grouper;        /* RNN_GROUPER_NONE, or RNN_GROUPER_HDP: n_groups is then the learned groups */
    int grouper_hidden; /* its width (RNN_HDP_HIDDEN) */
    int units;          /* the groups of the training graphs' grouping (the most): placing's --groups target */
} RnnArch;

enum { RNN_GROUPER_NONE, RNN_GROUPER_HDP };
#define RNN_HDP_HIDDEN 64     /* the grouper's width */
#define RNN_HDP_NEIGHBOURS 10 /* neighbours in a unit's grouper input */
#define RNN_HDP_MAX_UNITS (1 << 24)
/* The grouper's input width: the type mix (T + 1), bytes, position, neighbours. */
static inline int rnn_hdp_inputs(const RnnArch *a) { return a->n_types + 1 + 2 + 2 * RNN_HDP_NEIGHBOURS; }

#define RNN_DEFAULT_SQUASH 5.0 /* C of a new policy's head (the public code's is 1: --preset paper) */

/* Defaults: e = 32, h = 256, C = RNN_DEFAULT_SQUASH, tau = 1. */
void rnn_arch_default(RnnArch *a, int n_devices, int n_groups, int n_types);
static inline int rnn_n_inputs(const RnnArch *a) { return a->emb + 2 * a->n_groups + 2; }

typedef struct RnnNet {
    RnnArch arch;
    OpVocab vocab; /* owned copy */
    NnParams p;
    int blas; /* 1: BLAS; 0: the plain loops (tests) */
    int *frozen; /* hdp: once the placer is frozen, its placement of the n_groups learned groups (owned); else NULL */
} RnnNet;

/* Tensor names (rows x cols), in registration order:
 *   type_emb (T+1 x e), enc_fw (F + h/2 x 2h), enc_bw (same), enc_fb (1 x 1),
 *   W1 (h x h), dec (2h x 4h), dec_fb (1 x 1), go (1 x h), dev_emb (n x h),
 *   W2 (h x h), v (h x 1), Wout (2h x n);
 * with grouper RNN_GROUPER_HDP two more: grouper_ff (Fg x Hg), grouper_g
 * (Hg x n_groups) (rnn_hdp.h).
 * Glorot-uniform weights (the type embedding included) from seed; forget
 * biases 1; go uniform in [-0.1, 0.1] (drawn after Glorot, from seed + 1).
 * The vocabulary is copied; vocab->n must equal a->n_types. */
RnnNet *rnn_new(const RnnArch *a, const OpVocab *vocab, uint64_t seed, Err *e);
void rnn_free(RnnNet *net);
size_t rnn_param_count(const RnnArch *a);

/* The input of one graph: the numeric columns (G x (2G + 2), in float and
 * double) and, per group, its ops' embedding rows with weights 1/|ops|. */
typedef struct RnnInput {
    int G;      /* the graph's groups */
    int cap;    /* the network's group capacity (arch.n_groups >= G): the adjacency blocks are cap wide */
    int nf;     /* 2 cap + 2 */
    float *xf;
    double *xd;
    int *ty_off, *ty, n_ty; /* group k: distinct rows ty[ty_off[k] .. ty_off[k+1]) */
    double *ty_w;           /* their weights: count / |ops of k| */
} RnnInput;

/* For a network of capacity cap (arch.n_groups); fails when the graph has
 * more groups than that. */
RnnInput *rnn_input_new(const Graph *g, const Grouping *gr, const OpVocab *v, int cap, Err *e);
void rnn_input_free(RnnInput *in);

enum { RNN_SAMPLE, RNN_GREEDY, RNN_SCORE };

typedef struct RnnWork RnnWork;
typedef struct RnnWorkD RnnWorkD;
RnnWork *rnn_work_new(const RnnArch *a);
void rnn_work_free(RnnWork *w);
RnnWorkD *rnn_work_new_d(const RnnArch *a);
void rnn_work_free_d(RnnWorkD *w);

/* Decodes one placement of in's G groups: mode RNN_SAMPLE draws a_t from
 * softmax(l_t) with rng, RNN_GREEDY takes its first argmax (rng unused),
 * RNN_SCORE takes place[] as given (teacher forcing). Writes the placement
 * to place[] (read in RNN_SCORE), and optionally per step log pi(a_t) to
 * logp[G] and the entropy to ent[G]; returns log pi(P) = sum_t log pi(a_t).
 * Keeps what backward needs in w; allocates nothing. */
double rnn_forward(const RnnNet *net, const RnnInput *in, RnnWork *w, int mode, Rng *rng, int *place,
                   double *logp, double *ent);
/* The same decode one step at a time (the explorer): begin runs the
 * encoders; step t (steps 0 .. t-1 done, in any mode) chooses group t's
 * device as mode says (forced in RNN_SCORE) and returns it, with its
 * log-probability and the step's entropy when logp, ent are not NULL.
 * Re-running steps from any t <= the last done is allowed (the decoder's
 * state before step t stays in w). */
void rnn_decode_begin(const RnnNet *net, const RnnInput *in, RnnWork *w);
int rnn_decode_step(const RnnNet *net, RnnWork *w, int t, int mode, Rng *rng, int forced, double *logp,
                    double *ent);
/* Sampled decodes on w add noise ~ N(0, (noise * RMS of the step's
 * logits)^2) to each logit before the softmax (the public code's
 * exploration noise; 0, the default, turns it off). The sample, its
 * log-probability and the gradient use the noisy logits, the noise being a
 * constant to the gradient. */
void rnn_work_set_noise(RnnWork *w, double noise);
/* Backward of the last forward on w: grad (p.n floats) += dJ/dparams for
 * J = sum_t wt[t] log pi(a_t) + beta sum_t H_t. */
void rnn_backward(const RnnNet *net, const RnnInput *in, RnnWork *w, const double *wt, double beta,
                  float *grad);

/* Double twins: weights wd[p.n] given by the caller (converted or perturbed). */
double rnn_forward_d(const RnnNet *net, const double *wd, const RnnInput *in, RnnWorkD *w, int mode, Rng *rng,
                     int *place, double *logp, double *ent);
void rnn_backward_d(const RnnNet *net, const double *wd, const RnnInput *in, RnnWorkD *w, const double *wt,
                    double beta, double *grad);

/* The probabilities of step t of the last forward on w (n_devices values). */
const float *rnn_work_probs(const RnnWork *w, int t);
/* The attention weights of step t of the last forward on w (G values). */
const float *rnn_work_attention(const RnnWork *w, int t);

#endif
