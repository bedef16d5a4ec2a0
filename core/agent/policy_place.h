/* policy_place: a trained Placeto policy as a placement method: zero-shot
 * placement of a graph (one greedy episode and optional sampled ones), and
 * the rows `place --policy` and `compare --policy` report. Implemented in
 * policy_place.c. */
#ifndef PLACETO_POLICY_PLACE_H
#define PLACETO_POLICY_PLACE_H

#include <stdint.h>

#include "episode.h"
#include "policy.h"
#include "place_run.h"
#include "util.h"

/* Zero-shot placement with a trained policy: one greedy episode, then
 * `samples` sampled ones (seeds seed + 1, ...), all from cfg's initial
 * placement; the best placement seen (lowest score) goes to group_device
 * (n_groups entries) and its runtime to *runtime_us. Returns the placements
 * simulated, or -1 with e set on a device-count or feature mismatch. */
int64_t policy_place(const Policy *pol, const Graph *g, const Grouping *gr, const Cluster *c,
                     const EpisodeConfig *cfg, int samples, uint64_t seed, int *group_device,
                     double *runtime_us, Err *e);

/* The Placeto rows of a comparison on p, with the policy file at path:
 * "placeto-trained" first when the file's training state holds a best
 * placement of this very graph and grouping (its time is NAN: it came from
 * training), then "placeto" (zero-shot with `samples` sampled episodes).
 * Their `placements`: what training had simulated when it found the
 * trained placement, and what the zero-shot episodes simulated.
 * Fills rows[0..n) and returns n (1 or 2), or -1 with e set. */
int policy_place_runs(const Problem *p, const char *path, int samples, uint64_t seed, PlaceRun rows[2],
                      Err *e);

#endif
