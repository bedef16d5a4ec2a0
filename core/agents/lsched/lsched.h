/* lsched: the learned list scheduler, a one-shot placer (docs/agent.md,
 * "The learned list scheduler"). It places the groups once each, in
 * decreasing order of their bottom level (the longest path of reference
 * costs from the group to the end; a topological order), onto a
 * schedule it keeps as it goes with the simulator's cost model: every
 * device's compute queue and its outgoing bus, which sends one transfer
 * at a time and stays busy transfer_overhead_us after each. For the next
 * group a small network (scorer.h) scores every device from twelve
 * features of that schedule (when the group would finish there against
 * the earliest finish, its wait for the device, the transfers it would
 * cost, the device's load against the pace of the schedule, memory, the
 * share of its input already there, the sender's bus backlog, the group's
 * bottom level) and the device is the softmax's draw, or its best for the
 * greedy decode. The schedule is the decoder's estimate only: every
 * placement it makes is simulated and counted.
 *
 * Placing a graph with a budget of B placements (default 20): the
 * heuristics (place_search_start, each one placement) while the budget
 * lasts, then the greedy decode and sampled decodes until B placements
 * are simulated; the best wins, so it is never worse than the best
 * heuristic. Training is REINFORCE over K sampled decodes of a training
 * graph per episode, each decode's reward its score relative to the best
 * heuristic's, the K rewards' mean as the baseline and their standard
 * deviation as the scale. The network reads no device count and no op
 * types: one policy places any graph on any cluster. */
#ifndef PLACETO_LSCHED_H
#define PLACETO_LSCHED_H

#include <stdint.h>

#include "cluster.h"
#include "graph.h"
#include "group.h"
#include "scorer.h"
#include "sim.h"
#include "util.h"

#define LSC_FEATURES 12
#define LSC_MAX_CHOICES (1 << 24) /* groups x devices a decode scores */
#define LSC_DEFAULT_BUDGET 20

/* One graph on one cluster, ready to decode. */
typedef struct LscGraph LscGraph;
/* NULL with e set when the graph has more than LSC_MAX_CHOICES choices. */
LscGraph *lsc_graph_new(const Graph *g, const Grouping *gr, const Cluster *c, Err *e);
void lsc_graph_free(LscGraph *lg);

/* One decode of lg by net into gd (per group): rng NULL greedy, else each
 * device drawn from the softmax. With force (per group) the devices are
 * force's instead (a decode replayed) and, when adv != 0, the gradient of
 * -adv log p(force) times scale is added to net->p.g. Returns log p of the
 * devices chosen. */
double lsc_decode(LscGraph *lg, Scorer *net, Rng *rng, const int *force, double adv, double scale, int *gd);
/* The score of a placement (place_score: runtime plus the out-of-memory
 * penalty), one placement simulated; lsc_full the full result of the same
 * placement (for its times; not another one simulated). */
double lsc_eval(LscGraph *lg, const int *gd);
const SimResult *lsc_full(LscGraph *lg, const int *gd);

typedef struct LscResult {
    int64_t used;         /* placements simulated, the heuristics' included */
    int64_t decodes;      /* of them, the decodes' */
    double start_score;   /* the best heuristic's */
    double best_score, best_runtime_us;
    const char *start;    /* the best heuristic's name */
    int from_decode;      /* 1 when a decode beat the heuristics */
} LscResult;

/* Places lg's graph with net (NULL: the best heuristic only) within
 * budget placements (<= 0: LSC_DEFAULT_BUDGET), sampled decodes seeded
 * with seed; the best placement to best_gd (per group). */
void lsc_place(LscGraph *lg, Scorer *net, int64_t budget, uint64_t seed, int *best_gd, LscResult *res);

#endif
