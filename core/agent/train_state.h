/* train_state: everything besides the weights that a learned placer's
 * training checkpoint needs to resume bit-exactly (every agent's trainer
 * keeps one): Adam's step (its moments live in the network's NnParams), the
 * trainer's RNG, the baselines, the entropy weight, the best placements
 * seen per graph and the log summary; the training graphs and the report a
 * trainer gives after each episode or update. Implemented in
 * train_state.c. */
#ifndef PLACETO_TRAIN_STATE_H
#define PLACETO_TRAIN_STATE_H

#include <stdint.h>

#include "episode.h"
#include "nn.h"
#include "policy_graph.h"
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
    const Cluster *cluster; /* the cluster trained on (borrowed; NULL: not known): a policy file
                               written with this state records it ("cluster") */
    int has_optimizer;    /* Adam's moments and step, the RNG, the entropy weight and the baselines
                             came from a file (a checkpoint, or an earlier policy file) */
    /* train --keep best: the snapshot of the weights whose evaluation was
     * best so far (kept_n floats, owned; NULL: none kept). A policy file
     * written with this state holds the kept weights as its parameters and
     * its checkpoint the weights training goes on from ("train_weights",
     * when they differ); on reading a checkpoint that has them, the
     * network gets the training weights and kept_w the file's. */
    float *kept_w;
    size_t kept_n;
    double kept_score;    /* the kept snapshot's evaluation (lower is better; +inf: none) */
    int64_t kept_episode; /* the episodes trained when it was taken */
} TrainState;

void train_state_init(TrainState *ts, double lr, double entropy, uint64_t seed);
/* Takes the n weights w as the kept snapshot, with its evaluation and the
 * episodes trained so far. */
void train_state_keep(TrainState *ts, const float *w, size_t n, double score);
void train_state_done(TrainState *ts);
/* ts becomes fresh (a new training state: its optimizer, RNG, entropy and
 * baselines), keeping ts's counters and best placements; fresh is consumed. */
void train_state_keep_progress(TrainState *fresh, TrainState *ts);
/* The training graph of the next episode or update, out of n_graphs: drawn
 * from ts's RNG, which a single graph leaves untouched. */
int train_state_draw_graph(TrainState *ts, int n_graphs);
/* The entry of ts->best for graph name, created (runtime +inf) if absent. */
TrainBest *train_best_for(TrainState *ts, const char *graph, uint64_t checksum, int n_groups);
/* Keeps the placement group_device (b->n_groups groups) with its score,
 * runtime and the simulations done when it was found as b's best when it
 * scores lower than b's; returns 1 when it did. */
int train_best_offer(TrainBest *b, double score, double runtime_us, const int *group_device, int64_t found_after);
/* The entry of ts->best for graph g (same name and file checksum) grouped
 * into n_groups groups, or NULL. */
const TrainBest *train_best_find(const TrainState *ts, const Graph *g, int n_groups);

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
    double ret;           /* the episode's total reward (the sum of its steps' rewards; for the
                             one-shot agents, the update's mean reward) */
    double loss;          /* the episode's loss */
    double grad_norm;     /* before clipping */
    double best_runtime_us; /* best so far on this graph */
    int64_t simulations;  /* total so far */
    double entropy;       /* the policy's mean entropy over the episode's decisions (nats);
                             NAN when the agent does not measure it */
    double beta;          /* the entropy weight used */
} TrainReport;

typedef void (*TrainCallback)(const TrainReport *r, void *ud);

/* The per-graph moving-average baseline of the one-shot trainers (rnn,
 * hsdag): kept as the training state's one baseline row of n_graphs values
 * (TRAIN_BASELINE_START where none was set yet). */
#define TRAIN_BASELINE_START 10.0
double train_state_baseline(const TrainState *ts, int graph);
void train_state_set_baseline(TrainState *ts, int graph, int n_graphs, double b);

/* The stored best of each training graph (a resumed policy file's claim) set
 * to what its placement simulates to on c: runtime and score; a placement
 * with a device c lacks is dropped (none found yet). every trainer calls it, so
 * training never reports a best it did not simulate. */
void train_best_verify(TrainState *ts, const EpisodeConfig *env, const TrainGraph *graphs, int n_graphs,
                       const Cluster *c);

#endif
