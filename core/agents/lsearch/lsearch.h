/* lsearch: the learned local search (docs/agent.md, "The learned local
 * search"). An iterated first-improvement local search over single-group
 * moves, started from the best heuristic's placement, in which a small
 * network orders the moves: every move (group k to device d) not yet tried
 * at the current placement is scored by an MLP of twelve features of k, d
 * and the current placement's simulation (critical path, lateness, cost,
 * the transfers the move saves and adds, device loads and memory), and the
 * next move tried is drawn from the softmax of those scores (with
 * `--scorer placeto`, Placeto's network scores them instead: LsGnn
 * below). An improving move is kept and every move becomes untried again; at a local optimum
 * (every move tried) a kick of max(2, groups / 20) uniform moves restarts
 * from the best placement, as `ils` does. Every placement simulated counts
 * against the budget; the start's heuristics included. With all scores
 * equal it is uniform first-improvement ILS: a group whose move was kept
 * is not tried again in that pass, as ils's scan goes on to the next.
 *
 * Training is REINFORCE on each proposal: its reward is the improvement it
 * made (as a percentage of the start's score; 0 when it did not improve),
 * against a moving-average baseline scaled by a moving standard deviation:
 * the network learns which moves pay per placement simulated. The MLP
 * reads no device count and no op types: one policy places any graph on
 * any cluster. */
#ifndef PLACETO_LSEARCH_H
#define PLACETO_LSEARCH_H

#include <stdint.h>

#include "cluster.h"
#include "graph.h"
#include "group.h"
#include "nn.h"
#include "policy.h"
#include "scorer.h"
#include "util.h"

#define LS_FEATURES 12
#define LS_MAX_MOVES (1 << 24) /* groups x (devices - 1) a search scores */

/* The scorer (scorer.h) of LS_FEATURES inputs ranks the moves. */
typedef Scorer LsNet;

/* What a learning search does after each proposal (NULL: only search).
 * The gradient of -adv log p(move) is added to net->p.g, divided by
 * `every`; each `every` proposals, the gradient is clipped to `clip` and
 * one Adam step taken. mean and var are the reward's moving statistics
 * (kept across searches by the caller). */
typedef struct LsLearn {
    NnAdam *adam;
    double clip;
    int every;
    double mean, var;
    int pending;      /* proposals in the gradient so far */
    int64_t updates;  /* Adam steps taken */
    double last_norm; /* the last update's gradient norm, before clipping */
} LsLearn;

/* One update of the learner: the gradient so far clipped, an Adam step,
 * the gradient zeroed (a learning search calls it every `every`
 * proposals; its caller, for the proposals left at the end). */
void ls_learn_update(LsNet *net, LsLearn *l);
/* The same for any network's parameters. */
void ls_learn_update_params(NnParams *p, LsLearn *l);

/* A move scorer other than the MLP (Placeto's network: LsGnn below). The
 * moves at a placement are numbered as the search numbers them: move j =
 * k (devices - 1) + e moves group k to device e < cur[k] ? e : e + 1. */
typedef struct LsScorer {
    void *ctx;
    /* every move's score at placement cur (per group) */
    void (*score)(void *ctx, const int *cur, double *score);
    /* the scores at the same placement again, the weights changed */
    void (*rescore)(void *ctx, double *score);
    /* adds scale times the gradient of -adv log p[chosen], p the softmax
     * of the scores over the moves with p > 0, at the last scores (it may
     * keep it pending until flush or the next score or rescore) */
    void (*grad)(void *ctx, const double *p, int M, int chosen, double adv, double scale);
    /* the gradient so far into params->g (before every update) */
    void (*flush)(void *ctx);
    NnParams *params;   /* what a learning search updates */
} LsScorer;

typedef struct LsResult {
    int64_t used;          /* placements simulated, the start's included */
    double start_score;    /* the start's score (place_score) */
    double best_score;
    double best_runtime_us;
    int64_t found_after;   /* placements simulated when the best was found */
    int64_t accepted;      /* improving moves kept */
    int64_t kicks;
    const char *start;     /* the heuristic whose placement started it ("given" for a caller's start) */
} LsResult;

/* A learned search on g grouped by gr on c within `budget` placements
 * simulated, seeded with seed, with net scoring the moves (net NULL: every
 * score 0, uniform). start (per group) is where it starts, with its score
 * start_score already simulated and counted by the caller (start_used
 * placements); NULL: the best heuristic's placement (place_best_heuristic,
 * its placements counted). best_gd (per group) receives the best
 * placement. With learn, net's weights are trained as it goes (net is then
 * not const in effect: the caller's learner owns it). 0, or -1 with e set
 * when the graph and cluster have more than LS_MAX_MOVES moves. */
int ls_search(LsNet *net, const Graph *g, const Grouping *gr, const Cluster *c, int64_t budget, uint64_t seed,
              const int *start, double start_score, int64_t start_used, int *best_gd, LsResult *res, LsLearn *learn,
              Err *e);
/* The same search with the moves scored by sc (learning: sc's params). */
int ls_search_with(const LsScorer *sc, const Graph *g, const Grouping *gr, const Cluster *c, int64_t budget,
                   uint64_t seed, const int *start, double start_score, int64_t start_used, int *best_gd,
                   LsResult *res, LsLearn *learn, Err *e);

/* ---- Placeto's network as the scorer (lsearch_gnn.c; docs/agent.md, "The
 * learned local search"): at each placement Placeto's features (its
 * episode's, with no current group: episode_features(ep, -1, ...)) from
 * the placement's simulation, the embedding and message passing once and
 * every group's pooling and head (policy_forward_all); move k -> d scores
 * logit_k(d) - logit_k(cur[k]), the network's log-odds of d against k's
 * own device. Its gradient is summed over the proposals at one forward
 * state and taken back through the network once (flush). */
typedef struct LsGnn LsGnn;
/* A scorer of pol's moves on g grouped by gr on c (the policy's device
 * count); pol's weights are read at each score, and with learning its
 * gradient written. NULL with e set. */
LsGnn *ls_gnn_new(Policy *pol, const Graph *g, const Grouping *gr, const Cluster *c, Err *e);
void ls_gnn_free(LsGnn *s);
/* The LsScorer of s (valid while s lives). */
const LsScorer *ls_gnn_scorer(LsGnn *s);

#endif
