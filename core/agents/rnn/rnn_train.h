/* rnn_train: REINFORCE training of the RNN-based placer (rnn.h;
 * docs/comparators.md, "Training the RNN-based placer") on one graph.
 *
 * An update samples K placements (one decode each, sample k from its own
 * stream seeded by the k-th draw of the state's RNG), simulates each, and
 * takes the cost R = sqrt(score), the
 * score being the runtime in seconds plus Placeto's OOM penalty (seconds
 * per GB over a device's memory: episode_score with seconds, not logs);
 * with oom_faithful, an out-of-memory sample's score is instead the public
 * code's failing signal, RNN_FAILING_SIGNAL seconds (the best placement
 * kept is still ranked by the graded score).
 * Each sample, in order, reads the moving-average baseline b and then
 * updates it: adv = R - b, b <- 0.9 b + 0.1 R (b starts at 10). The loss
 * (1/K) sum_k [adv_k log pi(P_k) - beta sum_t H_t] is minimised: a
 * placement cheaper than the baseline becomes more likely. The gradient is
 * clipped to global norm `clip`, then one Adam step with the learning rate
 * lr, times 0.95 every 50 updates from update 400 on (staircase). As in
 * the public code, sampled decodes add noise to the logits during the
 * first 750 updates (rnn_work_set_noise), and from update 1000 on a sample
 * that runs out of memory leaves the loss and the baseline.
 *
 * After every greedy_every-th update one greedy decode is simulated as
 * well (counted among the simulations; it may become the best placement;
 * it does not touch the baseline or the gradient).
 *
 * The training state is a TrainState (train_state.h): Adam's step, the update
 * count (its "episodes"), the RNG, beta ("entropy"), the best placement,
 * the simulation count; its baseline window holds one "episode" of one
 * value, the moving average b. The K samples' decodes, simulations and
 * gradients run on up to `threads` threads, each sample with its own work
 * space and gradient; the gradients are summed in sample order, so a run
 * is deterministic per seed and gives the same bits for every thread
 * count. Under MPI (dist.h) each rank runs its block of the samples and
 * receives the others' results: the same bits for every rank count.
 *
 * With a grouper (arch.grouper RNN_GROUPER_HDP, rnn_hdp.h) a sample is a
 * grouping of the graph's groups into the learned groups (drawn first from
 * the sample's stream), then the placer's decode of the input built from
 * it; its log-probability is log pi_placer + log pi_grouper, and the one
 * advantage multiplies both (the entropy term is the placer's). After
 * update freeze_placer (counted from the start of training) the placer's
 * placement of the learned groups in that update's last sample becomes the
 * net's frozen placement (the reference's cache of its last sample): from
 * then on every sample and greedy probe takes it instead of a decode, and
 * only the grouper's weights get gradients and Adam steps. */
#ifndef PLACETO_RNN_TRAIN_H
#define PLACETO_RNN_TRAIN_H

#include "rnn.h"
#include "train_state.h"

#define RNN_BASELINE_START TRAIN_BASELINE_START
#define RNN_TRAIN_MAX_SAMPLES 64
#define RNN_FAILING_SIGNAL 100.0 /* seconds: the public code's runtime of a failing (out-of-memory) placement */

typedef struct RnnTrainConfig {
    double lr;          /* Adam learning rate (0.1) */
    double entropy;     /* entropy weight beta (0) */
    double clip;        /* global gradient norm (1.0) */
    double oom_penalty; /* seconds per GB over a device's memory (2, Placeto's) */
    int oom_faithful;   /* 1: an out-of-memory sample's cost is the failing signal, RNN_FAILING_SIGNAL seconds (0) */
    int batch_baseline; /* 1: advantages are the K samples' rewards normalised within the update (ppo_advantages),
                           not R minus the moving average (0) */
    int samples;        /* placements per update, K (1) */
    int threads;        /* the K samples decoded, simulated and differentiated on this many threads (1) */
    int64_t greedy_every; /* after every this many updates, one greedy decode is simulated too (50; 0: never) */
    int64_t decay_start, decay_every; /* staircase: lr * decay_rate^floor((u - start) / every) from start */
    double decay_rate;
    double noise;          /* logits noise of sampled decodes, times the logits' RMS (0.5) ... */
    int64_t noise_updates; /* ... during the first this many updates (750) */
    int64_t drop_failing_after; /* from this update on, out-of-memory samples leave the loss and the
                                   baseline (1000; 0: never) */
    uint64_t seed;
    int64_t freeze_placer; /* hdp: from this update on the placer re-emits its frozen placement and only the
                              grouper learns (-1: the default, RNN_HDP_FREEZE with a grouper; 0: never) */
} RnnTrainConfig;

#define RNN_HDP_FREEZE 500 /* updates before an hdp policy's placer freezes, by default */

/* The tuned recipe (`train --agent rnn`'s defaults): 16 samples per update,
 * their rewards normalised within the update (batch_baseline), lr 0.001;
 * with the head's squash at RNN_DEFAULT_SQUASH (rnn.h) it places (docs:
 * "What makes the RNN placer place"). */
void rnn_train_config_default(RnnTrainConfig *cfg);
/* The public code's values (`--preset paper`): one sample per update, the
 * moving-average baseline, lr 0.1 (with C = tau = 1 in the head). */
void rnn_train_config_paper(RnnTrainConfig *cfg);
/* The learning rate of update u (0-based). */
double rnn_train_lr(const RnnTrainConfig *cfg, int64_t u);

/* A fresh training state: train_state_init with the baseline at 10. */
void rnn_train_state_init(TrainState *ts, double lr, double entropy, uint64_t seed);
/* The moving-average baseline of training graph `graph` (of n_graphs). */
double train_state_baseline(const TrainState *ts, int graph);
void train_state_set_baseline(TrainState *ts, int graph, int n_graphs, double b);

typedef struct RnnTrainer RnnTrainer;

/* A trainer of net (borrowed) on the n_graphs graphs (their g and gr; pg
 * unused), on c (all borrowed): the net's device count must match and no
 * graph may have more groups than its capacity. With several graphs each
 * update draws one from the state's RNG, and each graph has its own
 * moving-average baseline. ts carries the state to resume from (a resumed
 * best is simulated again, train_best_verify). */
RnnTrainer *rnn_train_new(RnnNet *net, TrainState *ts, const RnnTrainConfig *cfg, const TrainGraph *graphs,
                          int n_graphs, const Cluster *c, Err *e);
void rnn_train_free(RnnTrainer *t);
/* Runs n more updates, calling cb after each (graph: the update's graph;
 * ret is minus the mean cost R of the update's samples). A nonzero *stop ends the run
 * after the current update. Returns the updates run. */
int64_t rnn_train_run(RnnTrainer *t, int64_t n, TrainCallback cb, void *ud, volatile int *stop);

#endif
