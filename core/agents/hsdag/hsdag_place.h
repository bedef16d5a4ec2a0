/* hsdag_place: a trained HSDAG placer's policy as a placement method
 * (`place --policy`, `compare --policy` with an hsdag policy file): one
 * greedy placement, then `samples` sampled ones, each a forward pass on the
 * state of an episode's last step (hsdag_place_state); the best placement
 * seen wins (lowest score: runtime plus Placeto's OOM penalty). The network
 * is inductive: it places any graph on its device count (op types outside
 * its vocabulary count as "other"). */
#ifndef PLACETO_HSDAG_PLACE_H
#define PLACETO_HSDAG_PLACE_H

#include "hsdag.h"
#include "place_run.h"
#include "oneshot.h"

/* The feature rows of the last step of an episode of net->arch.steps steps
 * on in (G x F, to x): x_0 = in->xf, x_{t+1} = x_t + O_t. The states do not
 * depend on the placements sampled (O_t comes from the clusters' pooled
 * embeddings), so every episode of the same weights goes through the same
 * states; the last is the one the training return weighs most. Runs
 * steps - 1 forward passes on w. */
void hsdag_place_state(const HsdagNet *net, const HsdagInput *in, HsdagWork *w, float *x);

/* Places and simulates 1 + samples placements of g (grouped by gr, on c;
 * the net's device count must match c's); the sampled ones draw from a
 * stream seeded with seed. Writes the best to group_device and its runtime
 * to *runtime_us; returns the placements simulated, or -1 with e set. */
int64_t hsdag_place(const HsdagNet *net, const Graph *g, const Grouping *gr, const Cluster *c, int samples,
                    uint64_t seed, int *group_device, double *runtime_us, Err *e);

#endif
