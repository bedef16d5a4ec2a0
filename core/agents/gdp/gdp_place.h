/* gdp_place: a trained GDP placer's policy as a placement method (`place
 * --policy`, `compare --policy` with a gdp policy file): one greedy
 * placement, then `samples` sampled ones; the best placement seen wins
 * (lowest score: runtime plus Placeto's OOM penalty). The network is
 * inductive: it places any graph on its device count (op types outside its
 * vocabulary count as "other"). */
#ifndef PLACETO_GDP_PLACE_H
#define PLACETO_GDP_PLACE_H

#include "gdp.h"
#include "place_run.h"
#include "oneshot.h"

/* Places and simulates 1 + samples placements of g (grouped by gr, on c;
 * the net's device count must match c's); the sampled ones draw from a
 * stream seeded with seed. Writes the best to group_device and its runtime
 * to *runtime_us; returns the placements simulated, or -1 with e set. */
int64_t gdp_place(const GdpNet *net, const Graph *g, const Grouping *gr, const Cluster *c, int samples,
                  uint64_t seed, int *group_device, double *runtime_us, Err *e);

/* GDP's rows of `place` and `compare` (its AgentKind's place.runs): those of
 * oneshot_place_runs ("gdp-trained", then "gdp"), and with o->start
 * AGENT_START_HEURISTIC (`--start heuristic`) the explicit fallback instead
 * of "gdp": the row "gdp-or-heuristic", the better (by place_score, GDP's
 * own on ties) of GDP's best placement and the best heuristic's
 * (place_best_heuristic, seeded with o->seed), so never slower than that
 * heuristic; its placements count both, and *start_name names the
 * heuristic. Returns the rows written (1 or 2), or -1 with e set. */
int gdp_place_runs(const AgentKind *k, const Problem *p, const char *path, const void *net, const TrainState *ts,
                   const AgentPlaceOpts *o, PlaceRun rows[2], const char **start_name, Err *e);

#endif
