/* placeto_place: a trained Placeto policy as a placement method: zero-shot
 * placement of a graph (one greedy episode and optional sampled ones), and
 * the rows `place --policy` and `compare --policy` report. Implemented in
 * placeto_place.c. */
#ifndef PLACETO_PLACETO_PLACE_H
#define PLACETO_PLACETO_PLACE_H

#include <stdint.h>

#include "agent.h"
#include "episode.h"
#include "policy.h"
#include "place_run.h"
#include "train_state.h"
#include "util.h"

/* The seed of a search's kicks is the placing seed xor this. */
#define PLACETO_SEARCH_KICK_SEED 0x6b69636bULL
/* The placements a policy trained as a search (start "heuristic") may
 * simulate zero-shot when no budget is given. */
#define PLACETO_SEARCH_BUDGET 500

/* Zero-shot placement with a trained policy. Without a budget: one greedy
 * episode, then `samples` sampled ones (seeds seed + 1, ...), all from
 * init_device (per group) when it is not NULL, else from cfg's initial
 * placement. With budget > 0, a learned improvement search of exactly
 * `budget` placements simulated: the greedy episode from that start, then
 * sampled episodes each from the best placement so far, or from a kick of
 * it (place_kick, seed seed ^ PLACETO_SEARCH_KICK_SEED) when the
 * episode before kept no move, the last one stopped where the budget runs
 * out (a proposal of a group's own device simulates nothing). The best
 * placement seen (lowest score, the start included) goes to group_device
 * (n_groups entries) and its runtime to *runtime_us. Returns the placements
 * simulated, or -1 with e set on a device-count or feature mismatch. */
int64_t placeto_place(const Policy *pol, const Graph *g, const Grouping *gr, const Cluster *c,
                     const EpisodeConfig *cfg, int samples, int64_t budget, uint64_t seed, const int *init_device,
                     int *group_device, double *runtime_us, Err *e);

/* The procedure by which `place --policy` places with a Placeto policy,
 * whose zero-shot row it is: from the start (AGENT_START_HEURISTIC: the
 * best heuristic's placement, its name to *start_name), `samples` sampled
 * episodes after the greedy one, or with budget > 0 a search (the
 * heuristics' placements counted in it, *heuristics of them); a policy
 * trained as a search (arch.start_heuristic) always searches from the best
 * heuristic's placement, PLACETO_SEARCH_BUDGET placements when budget is 0.
 * The placement goes to group_device and its runtime to *runtime_us
 * (NAN when the heuristics spent the budget: simulate group_device).
 * Returns the placements the policy simulated, or -1 with e set. The
 * trainer evaluates its snapshots with it (train --keep best), so that
 * what it keeps is what `place` gives. */
int64_t placeto_place_procedure(const Policy *pol, const Graph *g, const Grouping *gr, const Cluster *c,
                               AgentStart start, int samples, int64_t budget, uint64_t seed, int *group_device,
                               double *runtime_us, int64_t *heuristics, const char **start_name, Err *e);

/* Placeto's rows of a comparison on p (its place.runs, agent.h) with the
 * loaded policy net (a Policy) of the file at path and its training state
 * ts (NULL: none): "placeto-trained" first when ts holds a best placement
 * of this very graph and grouping (its time is NAN: it came from training),
 * then "placeto" or "placeto-refine" (zero-shot with o->samples sampled
 * episodes from o->start). Their `placements`: what training had simulated
 * when it found the trained placement, and what the zero-shot episodes
 * simulated (the heuristics' placements included). The name of the
 * heuristic a refinement started from goes to *start_name when it is not
 * NULL. Fills rows[0..n) and returns n (1 or 2), or -1 with e set. */
int placeto_place_runs(const AgentKind *k, const Problem *p, const char *path, const void *net,
                       const TrainState *ts, const AgentPlaceOpts *o, PlaceRun rows[2], const char **start_name,
                       Err *e);

#endif
