/* placeto_train: REINFORCE training of the Placeto policy (docs/agent.md,
 * "Training") on one graph or a family. The policy file is placeto_io.h; the
 * training state every trainer keeps is train_state.h. */
#ifndef PLACETO_PLACETO_TRAIN_H
#define PLACETO_PLACETO_TRAIN_H

#include <stdint.h>

#include "episode.h"
#include "place_run.h"
#include "nn.h"
#include "policy.h"
#include "train_state.h"
#include "util.h"

/* --- training -------------------------------------------------------- */

typedef struct PlacetoTrainConfig {
    EpisodeConfig env;
    double lr;            /* Adam learning rate (1e-3) */
    double entropy;       /* initial entropy weight beta (1.0) */
    int64_t entropy_decay; /* episodes over which beta falls linearly to 0 (0: constant) */
    double clip;          /* global gradient norm (1.25) */
    double gamma;         /* discount of the returns (1: the reference's undiscounted sum) */
    int normalize_adv;    /* divide each episode's advantages by their standard deviation */
    double temperature;   /* the policy trained is softmax(logits / temperature) (1) */
    int threads;          /* rollouts in parallel (per rank); results depend on it times the ranks,
                             deterministically */
    uint64_t seed;
    int keep_best;        /* --keep best: the policy file holds the weights whose evaluation (the
                             placement `place` gives, on up to PLACETO_EVAL_GRAPHS training graphs)
                             was best at the start and at every multiple of eval_every episodes */
    int64_t eval_every;   /* episodes between evaluation points (PLACETO_EVAL_EVERY) */
    /* the authors' code's settings (--preset paper, docs/agent.md "The paper preset") */
    int min_runtime_return; /* R_t = s_t - min_{k>t} s_k, s the score before each step (their
                               --use-min-runtime); 0: the discounted sum of the rewards */
    int sum_gradients;    /* a round's episodes (its workers) give one Adam step of their summed
                             gradient, clipped; 0: one step per episode */
    int worker_starts;    /* with the fixed random start: each worker (slot of a round) its own,
                             drawn with seed = the worker's index */
    double lr_final;      /* with lr_decay_steps > 0: the learning rate falls linearly from lr to
                             lr_final over that many updates, then stays */
    int64_t lr_decay_steps;
    int ent_schedule;     /* PLACETO_ENT_*: beta over the updates, as their code offers */
    int64_t ent_start, ent_steps; /* updates before the decay starts; its length (linear) or period
                                     (exponential) */
    double ent_rate, ent_min; /* exponential: beta * rate^((update - start) / steps); every
                                 schedule: at least ent_min */
} PlacetoTrainConfig;

enum { PLACETO_ENT_CONSTANT, PLACETO_ENT_LINEAR, PLACETO_ENT_EXPONENTIAL, PLACETO_ENT_STEP };

#define PLACETO_EVAL_EVERY 50
#define PLACETO_EVAL_GRAPHS 4

/* The paper's reference settings (`train --preset paper`). */
void placeto_train_config_default(PlacetoTrainConfig *cfg);
/* The tuned settings (`train`'s default, docs/agent.md "Presets"): the
 * paper's, then the extended features, every episode from device 0,
 * relative rewards, only the moves that do not hurt kept, gamma 0 and
 * entropy 0.01. */
void placeto_train_config_tuned(PlacetoTrainConfig *cfg);

typedef struct PlacetoTrainer PlacetoTrainer;

/* A trainer over graphs[0..n_graphs) (borrowed; all on cluster c, whose
 * device count must match the policy's). ts (borrowed) carries the state to
 * resume from, or a fresh train_state_init. Fails on a device-count or
 * feature mismatch. */
PlacetoTrainer *placeto_train_new(Policy *pol, TrainState *ts, const PlacetoTrainConfig *cfg, const TrainGraph *graphs,
                   int n_graphs, const Cluster *c, Err *e);
void placeto_train_free(PlacetoTrainer *t);
/* Runs n_episodes more episodes (rounded up to a multiple of the round, the
 * thread count times the ranks, dist.h), calling cb after each one in
 * episode order (on every rank). A nonzero *stop (set by another thread or
 * a signal handler, on any rank) ends the run after the current round.
 * Returns the episodes run. */
int64_t placeto_train_run(PlacetoTrainer *t, int64_t n_episodes, TrainCallback cb, void *ud, volatile int *stop);

/* --init METHOD: method m's placement of each problem (seeded with
 * cfg->seed) becomes that graph's best so far in ts, unless training
 * already found a better one, so that every episode starts from it or from
 * what training finds beyond it. m NULL (--init heuristic): the best
 * heuristic's placement of each problem (place_best_heuristic). */
int placeto_train_seed_from_method(TrainState *ts, const PlaceMethod *m, const Problem *problems, int n,
                           const PlacetoTrainConfig *cfg, Err *e);


#endif
