/* hsdag_train: REINFORCE training of the HSDAG placer (hsdag.h; docs/comparators.md,
 * "Training the HSDAG placer") on one graph or a family.
 *
 * An update runs E episodes (episodes; each on a graph drawn from the
 * state's RNG, with its own stream seeded by the next draw). An episode is
 * `steps` steps on its graph: step t runs the network on the feature rows
 * x_t (x_0 the graph's base features), samples a placement, simulates it,
 * and sets x_{t+1} = x_t + O_t (every group's output row of its cluster, a
 * constant to the gradient): the state accumulates over the episode. Step
 * t's reward is r_t = 1 / runtime_s, where runtime_s is:
 *   - 1e10 for a forbidden placement (every group on one device, unless
 *     allow_single) and, with oom_graded 0, for one that runs out of memory
 *     (the reference's failing run);
 *   - otherwise the runtime in seconds plus, with oom_graded, Placeto's OOM
 *     penalty (seconds per GB over a device's memory: episode_score).
 * The episode's return is R = sum_i gamma^i r_{T-1-i} (the last step
 * weighs most) and its loss -(R - b) sum_t log pi_t, with b = 0 (baseline
 * 0, the reference's) or, with baseline 1, the graph's moving average of
 * the returns before this one (b <- decay b + (1 - decay) R after each
 * episode; the first episode of a graph sets b = R). The gradients of the
 * E episodes' steps are summed in (episode, step) order, scaled by 1/E,
 * clipped to global norm `clip` when clip > 0, and one Adam step (lr) is
 * taken per update.
 *
 * Every placement simulated may become its graph's best (lowest score,
 * forbidden ones included: they are real placements). After every
 * greedy_every-th update one greedy placement of the update's first graph
 * from x_0 is simulated as well (counted).
 *
 * The trainer records T in net->arch.steps (placing uses the state after
 * T - 1 steps). The training state is a TrainState (train_state.h): Adam's step, the update
 * count ("episodes"), the RNG, the best placement per graph, the simulation
 * count, and with baseline 1 the per-graph moving averages (the baseline
 * window, as train_state_baseline keeps them). The episodes' rollouts and the
 * steps' backward passes run on up to `threads` threads, each result its
 * own and summed in a fixed order: a run is deterministic per seed and gives
 * the same bits for every thread count. Under MPI (dist.h) each rank runs
 * its block of the episodes and of the steps, and receives the others'
 * results (states, placements, gradients): the same bits for every rank
 * count. */
#ifndef PLACETO_HSDAG_TRAIN_H
#define PLACETO_HSDAG_TRAIN_H

#include "hsdag.h"
#include "train_state.h"

#define HSDAG_TRAIN_MAX_EPISODES 64 /* E and the threads */
#define HSDAG_TRAIN_MAX_STEPS HSDAG_MAX_STEPS
#define HSDAG_FORBIDDEN_S 1e10

typedef struct HsdagTrainConfig {
    double lr;          /* Adam learning rate (1e-3) */
    double gamma;       /* discount of the return (0.95) */
    double clip;        /* global gradient norm (0: no clipping, the reference's) */
    double oom_penalty; /* seconds per GB over a device's memory with oom_graded (2) */
    double decay;       /* the moving-average baseline's decay (0.9) */
    int steps;          /* steps per episode, T (20) */
    int episodes;       /* episodes per update, E (1) */
    int baseline;       /* 0: none (the reference's); 1: a per-graph moving average */
    int oom_graded;     /* 0: an OOM placement is a failing run (1e10 s); 1: Placeto's penalty */
    int allow_single;   /* 1: a one-device placement is not forbidden */
    int threads;        /* episodes and backward passes run on this many threads (1) */
    int64_t greedy_every; /* after every this many updates, one greedy placement is simulated (5; 0: never) */
    uint64_t seed;
} HsdagTrainConfig;

void hsdag_train_config_default(HsdagTrainConfig *cfg);

typedef struct HsdagTrainer HsdagTrainer;

/* A trainer of net (borrowed) on the n_graphs graphs (their g and gr), on c
 * (all borrowed): the net's device count must match c's. ts carries the
 * state to resume from (a resumed best is simulated again), or a fresh
 * train_state_init. */
HsdagTrainer *hsdag_train_new(HsdagNet *net, TrainState *ts, const HsdagTrainConfig *cfg, const TrainGraph *graphs,
                              int n_graphs, const Cluster *c, Err *e);
void hsdag_train_free(HsdagTrainer *t);
/* Runs n more updates, calling cb after each (graph: the update's first
 * episode's graph; runtime_us the best runtime of the update's placements;
 * final_runtime_us its last one's; ret the mean return; loss the mean
 * episode loss; grad_norm before clipping). A nonzero *stop ends the run
 * after the current update. Returns the updates run. */
int64_t hsdag_train_run(HsdagTrainer *t, int64_t n, TrainCallback cb, void *ud, volatile int *stop);

/* The reward runtime of a simulated placement (seconds, HSDAG_FORBIDDEN_S
 * when forbidden), as the trainer computes it; score is episode_score's. */
double hsdag_reward_runtime(const HsdagTrainConfig *cfg, const Cluster *c, const SimResult *r, double score,
                            const int *group_device, int n_groups);

#endif
