/* rnn_hdp: the hierarchical planner's Grouper (Mirhoseini et al., ICLR
 * 2018) ahead of the RNN placer: `train --agent rnn --grouper hdp`
 * (docs/comparators.md, "The hierarchical grouper (hdp)").
 *
 * The units are the Problem's groups (a Grouping gr of N groups, numbered
 * topologically). The Grouper assigns each unit k one of the L learned
 * groups (L = arch.n_groups); the Placer (rnn.h) then decodes one device
 * per learned group, from an input built from the learned grouping, and
 * unit k goes to the device of its learned group.
 *
 *   input row k   x_k = [mean one-hot of its ops' types over the vocabulary
 *                 (T + 1 columns, the last for a type not in it),
 *                 log1p(bytes_k) / (1 + max_j log1p(bytes_j)), k / N,
 *                 its first 10 neighbours (successors by index, then
 *                 predecessors by index) as (index / N, +1 out / -1 in)
 *                 pairs, zero-padded]                     Fg = T + 23
 *   network       logits = x W_ff W_g (W_ff Fg x Hg, W_g Hg x L; no
 *                 nonlinearity, no biases), p_k = softmax(logits_k)
 *   grouping      each unit's learned group drawn independently from p_k
 *                 (the first argmax when greedy);
 *                 log pi_grouper = sum_k log p_k(group_k)
 *
 * Computed in double (plain loops, the same bits on every thread and
 * machine) from the network's float weights (rnn_hdp_forward) or from
 * given double weights (rnn_hdp_forward_d: the gradient check). Backward
 * accumulates the gradient of J = wt log pi_grouper into a gradient array
 * of the NnParams layout (the grouper's two tensors only). Thread safety:
 * forward and backward only read the net; each thread needs its own work
 * space. */
#ifndef PLACETO_RNN_HDP_H
#define PLACETO_RNN_HDP_H

#include "group.h"
#include "rnn.h"

/* The default learned groups: min(256, 20 x n_devices), at least 2. */
int rnn_hdp_default_groups(int n_devices);

/* The grouper's input of one grouped graph: N rows of F columns. */
typedef struct RnnHdpInput {
    int N, F;
    double *x;
} RnnHdpInput;
RnnHdpInput *rnn_hdp_input_new(const Graph *g, const Grouping *gr, const OpVocab *v);
void rnn_hdp_input_free(RnnHdpInput *in);

typedef struct RnnHdpWork RnnHdpWork;
/* A work space for graphs of up to N units on a network of arch a. */
RnnHdpWork *rnn_hdp_work_new(const RnnArch *a, int N);
void rnn_hdp_work_free(RnnHdpWork *w);

/* One grouping of in's units (mode RNN_SAMPLE: drawn with rng, one uniform
 * per unit in unit order; RNN_GREEDY; RNN_SCORE: grp as given) to grp[N];
 * returns log pi_grouper(grp). Keeps what backward needs in w. */
double rnn_hdp_forward(const RnnNet *net, const RnnHdpInput *in, RnnHdpWork *w, int mode, Rng *rng, int *grp);
/* grad (p.n floats) += d(wt log pi_grouper)/dparams of the last forward on w. */
void rnn_hdp_backward(const RnnNet *net, const RnnHdpInput *in, RnnHdpWork *w, double wt, float *grad);
/* The double twins: weights wd[p.n] given by the caller, grad in double. */
double rnn_hdp_forward_d(const RnnNet *net, const double *wd, const RnnHdpInput *in, RnnHdpWork *w, int mode,
                         Rng *rng, int *grp);
void rnn_hdp_backward_d(const RnnNet *net, const double *wd, const RnnHdpInput *in, RnnHdpWork *w, double wt,
                        double *grad);
/* Unit k's distribution over the learned groups in the last forward on w (L values). */
const double *rnn_hdp_probs(const RnnHdpWork *w, int k);

/* The Placer's input (rnn.h's RnnInput, L rows) of the learned grouping
 * grp[gr->n_groups] of g's units: as rnn_input_new of the grouping whose
 * group j holds the ops of the units in learned group j (edge counts
 * between learned groups, type weights, bytes, outputs); an empty learned
 * group keeps a zero row. */
RnnInput *rnn_hdp_placer_input(const RnnNet *net, const Graph *g, const Grouping *gr, const int *grp);

/* The devices of g's units for the learned grouping grp: unit k on
 * placer[grp[k]]. */
void rnn_hdp_expand(const Grouping *gr, const int *grp, const int *placer, int *unit_device);

/* The statistics of a learned grouping grp of gr's units over L learned
 * groups: the non-empty ones (s->n_clusters), the bytes of the unit-graph
 * edges between learned groups and the cost balance over the non-empty
 * ones (group_cluster_stats). */
void rnn_hdp_stats(const Grouping *gr, const int *grp, int L, GroupClusterStats *s);

/* One whole hierarchical decode of g (grouped by gr) by an hdp net: a
 * grouping (greedy or sampled with rng), then the Placer's decode of it in
 * the same mode with the same rng (or its frozen placement) to
 * unit_device[N]; grp (when not NULL) gets the grouping. d holds the work
 * spaces (rnn_hdp_decoder_new, for graphs of up to N units). */
typedef struct RnnHdpDecoder {
    const RnnNet *net;
    RnnHdpWork *hw;
    RnnWork *w;
    int *grp, *pl;
} RnnHdpDecoder;
RnnHdpDecoder *rnn_hdp_decoder_new(const RnnNet *net, int N);
void rnn_hdp_decoder_free(RnnHdpDecoder *d);
void rnn_hdp_decode(RnnHdpDecoder *d, const Graph *g, const Grouping *gr, const RnnHdpInput *in, int greedy, Rng *rng,
                    int *unit_device);

#endif
