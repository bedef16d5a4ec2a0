/* place: placement methods (baselines) behind one interface, so that
 * `placeto place`, `placeto compare` and the explorer call them alike.
 *
 * A method fills op_device[i] in [0, c->n_devices) for every op i of g. It
 * may work on the groups of gr (every op of a group on the group's device)
 * or on ops; it must keep every colocation class (ops with one colocate key,
 * i.e. one group of gr from step 1) on one device, so the simplest correct
 * choice is to place groups. Heuristics estimate runtimes with the
 * simulator's cost and communication model (cluster_op_cost, bytes /
 * bandwidth_bytes_per_us + transfer_overhead_us); the score reported for a
 * placement is always the simulator's. Methods are deterministic for a given
 * seed and never print. */
#ifndef PLACETO_PLACE_H
#define PLACETO_PLACE_H

#include <stdint.h>

#include "cluster.h"
#include "graph.h"
#include "group.h"
#include "sim.h"
#include "util.h"

/* Placements the search methods may simulate when the caller gives none:
 * PLACE_DEFAULT_BUDGET, or on a graph of more than PLACE_DEFAULT_WORK /
 * PLACE_DEFAULT_BUDGET ops (2 500) as many as make PLACE_DEFAULT_WORK op
 * simulations, in whole hundreds and at least PLACE_MIN_DEFAULT_BUDGET
 * (place_default_budget), so that compare's searches take seconds on any
 * graph: nmt's 6 954 ops get 7 100, a 20 000-op graph 2 500. */
#define PLACE_DEFAULT_BUDGET 20000
#define PLACE_DEFAULT_WORK 50000000
#define PLACE_MIN_DEFAULT_BUDGET 1000

/* The start of the searches (place_search_start's outcome), computed once
 * and given to several searches of one problem, seed and budget: each
 * starts from it as it would have computed it, and counts its placements. */
typedef struct PlaceStart {
    const int *group_device; /* per group */
    double score;
    const char *name;        /* the heuristic's */
    int64_t used;            /* placements it simulated */
} PlaceStart;

typedef struct PlaceCtx {
    const Graph *g;
    const Grouping *gr;
    const Cluster *c;
    uint64_t seed;
    int64_t budget;     /* placements a search method may simulate (0: place_default_budget) */
    int64_t *simulated; /* when not NULL: a search method reports the placements it simulated */
    const PlaceStart *start; /* when not NULL: a search method's start, computed with this ctx */
} PlaceCtx;

/* Returns 0 with op_device filled, or -1 with e set (e.g. a library failed). */
typedef int (*PlaceFn)(const PlaceCtx *ctx, int *op_device, Err *e);

typedef struct PlaceMethod {
    const char *name;  /* as given to --method */
    const char *help;  /* one line */
    PlaceFn fn;
} PlaceMethod;

/* The search methods' budget on g when none is given (see above). */
int64_t place_default_budget(const Graph *g);
/* The table of every method, in the order `compare` lists them. */
const PlaceMethod *place_methods(int *count);
/* The method named name, or NULL. */
const PlaceMethod *place_find(const char *name);
/* 1 for the local searches (anneal, ils), which start from the other
 * methods' placements and spend a budget of simulations. */
int place_is_search(const PlaceMethod *m);
/* The best heuristic's placement (every method but the searches, by
 * place_score; the first on ties) into group_device (per group), its score
 * into *score and the method's name into *name; a method that fails or
 * gives a device out of range is passed over, and with none every group
 * goes to device 0 (*name "device0"). Returns the placements simulated. */
int64_t place_best_heuristic(const PlaceCtx *ctx, int *group_device, double *score, const char **name);
/* The same within ctx->budget placements (0: place_default_budget), as
 * anneal and ils start: the heuristics in order while the budget lasts. */
int64_t place_search_start(const PlaceCtx *ctx, int *group_device, double *score, const char **name);
/* How the searches score a placement: the runtime (µs) plus 2 s per GB
 * over a device's memory (the agent's default out-of-memory penalty). */
double place_score(const Cluster *c, const SimResult *r);

/* The searches' scorer of per-group placements, for a search built
 * elsewhere (the learned search): place_eval gives place_score of the
 * placement, through the simulator's makespan-only path when the output
 * bytes on each device fit in its memory (the same number, faster);
 * place_eval_cut
 * the same when the score is below cutoff, else a number in [cutoff,
 * score] (the runtime with its memory pass skipped, or a bound the run
 * stopped at: sim_makespan_cut; place_eval_score then gives the score);
 * place_eval_full the full result of a placement (for its
 * times; the same placement, not another one simulated). Each tells the
 * simulation observer once (sim_observe). Counts nothing: the caller
 * counts its budget. */
typedef struct PlaceEval PlaceEval;
PlaceEval *place_eval_new(const Graph *g, const Grouping *gr, const Cluster *c);
double place_eval(PlaceEval *pe, const int *group_device);
double place_eval_cut(PlaceEval *pe, const int *group_device, double cutoff);
double place_eval_score(PlaceEval *pe);
const SimResult *place_eval_full(PlaceEval *pe, const int *group_device);
void place_eval_free(PlaceEval *pe);

/* A kick, as ils perturbs a local optimum: max(2, n / 20) times, a group
 * drawn from rng moved to another device drawn from rng (nothing with
 * fewer than 2 devices). The learned searches kick the same way. */
void place_kick(int *group_device, int n, int n_devices, Rng *rng);

/* Shared helpers for methods. */
/* (group_expand and group_collapse, group.h, turn per-group choices into
 * per-op ones and back.) */
/* The fastest device (largest speed; the first on ties). */
int place_fastest_device(const Cluster *c);
/* Cost of group k on device d under the cluster's cost model. */
double place_group_cost(const PlaceCtx *ctx, int k, int d);

#endif
