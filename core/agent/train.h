/* train: REINFORCE training of the Placeto policy (docs/agent.md,
 * "Training") on one graph or a family. The policy file is policy_io.h.
 *
 * TrainState is everything besides the weights that a checkpoint needs to
 * resume bit-exactly: Adam's step (its moments live in the Policy's NnParams),
 * the trainer's RNG, the per-step baseline history, the entropy weight, the
 * best placements seen per graph and the log summary. */
#ifndef PLACETO_TRAIN_H
#define PLACETO_TRAIN_H

#include <stdint.h>

#include "episode.h"
#include "place_run.h"
#include "nn.h"
#include "policy.h"
#include "util.h"

#define TRAIN_BASELINE_WINDOW 10

typedef struct TrainBest {
    char *graph;          /* graph name */
    uint64_t checksum;    /* of the graph file */
    int n_groups;
    double runtime_us;    /* best simulated runtime (score order: OOM penalised) */
    double score;
    int *group_device;    /* n_groups */
    int64_t found_after;  /* simulations done by the trainer when it was found */
} TrainBest;

typedef struct TrainState {
    NnAdam adam;
    int64_t episodes;     /* episodes trained so far */
    Rng rng;              /* graph draws and episode seeds */
    double entropy;       /* current entropy weight beta */
    /* per-step baseline: the returns of the last TRAIN_BASELINE_WINDOW
     * episodes, oldest first */
    int n_base;
    int base_len[TRAIN_BASELINE_WINDOW];
    double *base_ret[TRAIN_BASELINE_WINDOW];
    TrainBest *best;      /* per graph trained on */
    int n_best;
    int64_t simulations;  /* placements simulated */
    double seconds;       /* wall time spent training (not part of determinism) */
} TrainState;

void train_state_init(TrainState *ts, double lr, double entropy, uint64_t seed);
void train_state_done(TrainState *ts);
/* The entry of ts->best for graph name, created (runtime +inf) if absent. */
TrainBest *train_best_for(TrainState *ts, const char *graph, uint64_t checksum, int n_groups);
/* The entry of ts->best for graph g (same name and file checksum) grouped
 * into n_groups groups, or NULL. */
const TrainBest *train_best_find(const TrainState *ts, const Graph *g, int n_groups);

/* --- training -------------------------------------------------------- */

typedef struct TrainConfig {
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
} TrainConfig;

/* The paper's reference settings (`train --preset paper`). */
void train_config_default(TrainConfig *cfg);
/* The tuned settings (`train`'s default, docs/agent.md "Presets"): the
 * paper's, then the extended features, every episode from device 0,
 * relative rewards, only the moves that do not hurt kept, gamma 0 and
 * entropy 0.01. */
void train_config_tuned(TrainConfig *cfg);

/* One graph of the training set, with everything built for it. */
typedef struct TrainGraph {
    Graph *g;
    Grouping *gr;
    PolicyGraph *pg;
} TrainGraph;

/* What the trainer reports after each episode. */
typedef struct TrainReport {
    int64_t episode;      /* 1-based, over the whole training (resumes included) */
    int graph;            /* index into the training set */
    double runtime_us;    /* best runtime of this episode */
    double final_runtime_us; /* runtime at the end of the episode */
    double ret;           /* return of the first step (total reward) */
    double loss;          /* the episode's loss */
    double grad_norm;     /* before clipping */
    double best_runtime_us; /* best so far on this graph */
    int64_t simulations;  /* total so far */
    double entropy;       /* beta used */
} TrainReport;

typedef void (*TrainCallback)(const TrainReport *r, void *ud);

typedef struct Trainer Trainer;

/* A trainer over graphs[0..n_graphs) (borrowed; all on cluster c, whose
 * device count must match the policy's). ts (borrowed) carries the state to
 * resume from, or a fresh train_state_init. Fails on a device-count or
 * feature mismatch. */
Trainer *train_new(Policy *pol, TrainState *ts, const TrainConfig *cfg, const TrainGraph *graphs,
                   int n_graphs, const Cluster *c, Err *e);
/* The stored best of each training graph (a resumed policy file's claim) set
 * to what its placement simulates to on c: runtime and score; a placement
 * with a device c lacks is dropped (none found yet). train_new calls it, so
 * training never reports a best it did not simulate. */
void train_best_verify(TrainState *ts, const EpisodeConfig *env, const TrainGraph *graphs, int n_graphs,
                       const Cluster *c);
void train_free(Trainer *t);
/* Runs n_episodes more episodes (rounded up to a multiple of the round, the
 * thread count times the ranks, dist.h), calling cb after each one in
 * episode order (on every rank). A nonzero *stop (set by another thread or
 * a signal handler, on any rank) ends the run after the current round.
 * Returns the episodes run. */
int64_t train_run(Trainer *t, int64_t n_episodes, TrainCallback cb, void *ud, volatile int *stop);

/* --init METHOD: method m's placement of each problem (seeded with
 * cfg->seed) becomes that graph's best so far in ts, unless training
 * already found a better one, so that every episode starts from it or from
 * what training finds beyond it. m NULL (--init heuristic): the best
 * heuristic's placement of each problem (place_best_heuristic). */
int train_seed_from_method(TrainState *ts, const PlaceMethod *m, const Problem *problems, int n,
                           const TrainConfig *cfg, Err *e);


#endif
