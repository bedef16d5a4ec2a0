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

#endif
