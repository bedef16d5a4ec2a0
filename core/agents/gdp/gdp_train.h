/* gdp_train: PPO training of the GDP placer (gdp.h; docs/comparators.md,
 * "Training the GDP placer") on one graph or a family.
 *
 * An update draws B graphs (batch_graphs; with replacement, from the state's
 * RNG; on one graph always that one) and samples K placements of each. The
 * network's output does not depend on the placement, so each graph has one
 * forward (GDP_PROBS) and its K samples are drawn from the same per-node
 * probabilities (gdp_work_pick): sample s = b K + k from its own stream
 * seeded by the s-th draw of the state's RNG after the graph draws, one
 * uniform per node in order (the bits K sampled forwards would give). Each
 * is simulated; its reward is r = -sqrt(score), the score being the
 * runtime in seconds plus Placeto's OOM penalty (seconds per GB over a
 * device's memory: episode_score with seconds). The advantages are
 * ppo_advantages over the K rewards of the same graph; log pi_old of every
 * node is kept. Then E epochs of full-batch passes, each with one forward
 * and one backward per graph: the graph's forward is recomputed (the
 * first epoch reuses the sampling forward: the weights have not moved),
 * each sample's log pi of every node read from it, ppo_surrogate per node
 * (clip ratio eps) gives the weights, and the loss
 *   (1/(K B)) sum_s [ L_s - beta (1/G_s) sum_v H_v ]
 * (L_s the per-node clipped surrogate, a mean over the G_s nodes, so the
 * entropy is a per-node mean as well) is differentiated: its gradient with
 * respect to the graph's logits, summed over the K samples
 * (gdp_logit_grad), goes through one backward (gdp_backward_logits). The
 * graphs' gradients are summed in graph order, clipped to global norm
 * `clip`, and one Adam step (lr) is taken per epoch.
 *
 * After every greedy_every-th update one greedy placement of the update's
 * first graph is simulated as well (counted; it may become the best).
 *
 * The training state is a TrainState (train_state.h): Adam's step (one per
 * epoch), the update count ("episodes"), the RNG, beta ("entropy"), the
 * best placement per graph, the simulation count; no baseline. The
 * graphs' forwards and backwards and the samples' draws and simulations
 * run on up to `threads` threads, each item with its own buffers (a
 * work space and gradient per graph), the gradients summed in graph
 * order: a run is deterministic per seed and gives the same bits for every
 * thread count. Under MPI (dist.h) every rank runs the B sampling forwards,
 * then its block of the samples and, per epoch, of the graphs, and receives
 * the others' results: the same bits for every rank count.
 *
 * Imitation (expert iteration's first half, cfg->imitate > 0): while the
 * update count is below cfg->imitate, an update is supervised instead: the
 * expert placement of each of the B graphs drawn is an `ils` search of
 * cfg->expert_budget placements from the best heuristic (seeded with the
 * training seed and the graph's index; run once per graph when first drawn,
 * its placements counted as simulations and its result a best placement
 * of that graph); on a cluster of identical devices its device labels are
 * renumbered in order of first use over the groups (group 0 on device 0),
 * since any permutation of them is the same placement. The loss is
 * -(1/(G B)) sum_v log p_v(expert_v), no entropy term; one Adam step per
 * update (lr, clip). PPO (as above) takes over from update cfg->imitate
 * on: the RL fine-tuning. */
#ifndef PLACETO_GDP_TRAIN_H
#define PLACETO_GDP_TRAIN_H

#include "gdp.h"
#include "train_state.h"

#define GDP_TRAIN_MAX_SAMPLES 64 /* K and the threads */
#define GDP_TRAIN_MAX_BATCH 16   /* B */
#define GDP_TRAIN_MAX_EPOCHS 64

typedef struct GdpTrainConfig {
    double lr;          /* Adam learning rate (3e-4) */
    double entropy;     /* entropy weight beta (0.01) */
    double clip;        /* global gradient norm (1.0) */
    double clip_ratio;  /* PPO's epsilon (0.2) */
    double oom_penalty; /* seconds per GB over a device's memory (2, Placeto's) */
    int samples;        /* placements per graph and update, K (16) */
    int epochs;         /* full-batch passes per update, E (4) */
    int batch_graphs;   /* graphs per update, B (1) */
    int threads;        /* samples run on this many threads (1) */
    int64_t greedy_every; /* after every this many updates, one greedy placement is simulated (10; 0: never) */
    int64_t imitate;    /* the first this many updates imitate an expert instead (0: none) */
    int64_t expert_budget; /* placements of the expert's search per graph (2000) */
    uint64_t seed;
} GdpTrainConfig;

void gdp_train_config_default(GdpTrainConfig *cfg);

typedef struct GdpTrainer GdpTrainer;

/* A trainer of net (borrowed) on the n_graphs graphs (their g and gr; pg
 * unused), on c (all borrowed): the net's device count must match c's. ts
 * carries the state to resume from (a resumed best is simulated again,
 * train_best_verify), or a fresh train_state_init. */
GdpTrainer *gdp_train_new(GdpNet *net, TrainState *ts, const GdpTrainConfig *cfg, const TrainGraph *graphs,
                          int n_graphs, const Cluster *c, Err *e);
void gdp_train_free(GdpTrainer *t);
/* Runs n more updates, calling cb after each (graph: the update's first
 * graph; runtime_us the best of its samples; ret the mean reward of the
 * update's samples; loss the mean over the epochs; grad_norm the last
 * epoch's, before clipping). A nonzero *stop ends the run after the current
 * update. Returns the updates run. */
int64_t gdp_train_run(GdpTrainer *t, int64_t n, TrainCallback cb, void *ud, volatile int *stop);
/* Sample s (0 .. K B - 1) of the last PPO update, for the tests: its
 * graph's index, its placement and log pi_old per group, its advantage.
 * Returns its group count. */
int gdp_train_sample(const GdpTrainer *t, int s, int *graph, const int **place, const double **lp_old, double *adv);

#endif
