/* oneshot: what the learned placers that place a whole graph per sample
 * share (rnn, gdp, hsdag; docs/comparators.md): their episode in the
 * explorer (one pass over the groups in topological order from device 0),
 * the draw of one step, and their rows of `place` and `compare` (the best of
 * one greedy decode and sampled ones; the training's best placement).
 * Implemented in oneshot.c. */
#ifndef PLACETO_ONESHOT_H
#define PLACETO_ONESHOT_H

#include <stdint.h>

#include "agent.h"
#include "episode.h"
#include "place_run.h"
#include "train_state.h"
#include "util.h"

/* The configuration of a one-shot placer's episode (rnn, gdp, hsdag): one
 * pass in topological order from everything on device 0, no acceptance
 * test, Placeto's OOM penalty. */
void oneshot_episode_config(EpisodeConfig *cfg);
/* The part every one-shot placer's check shares (rnn, gdp, hsdag): 0 when
 * ep is on n_devices devices and configured as oneshot_episode_config (one
 * topological pass from device 0, every choice kept); else -1 with e set,
 * naming what differs, with agent ("rnn") and its article ("an"). */
int episode_check_one_pass(const Episode *ep, const char *article, const char *agent, int n_devices, Err *e);
/* The device a non-autoregressive placer's step takes from p (n values):
 * the first argmax with greedy, else one uniform from ep's RNG against the
 * running sum (sample.h), as the gdp and hsdag forward passes sample. */
int episode_draw_one_shot(Episode *ep, const float *p, int n, int greedy);


/* --- placing ---------------------------------------------------------------- */

/* Writes one placement of the caller's network (ctx) to place: its greedy
 * one when greedy, else a sample drawn from rng. */
typedef void (*OneShotDecode)(void *ctx, int greedy, Rng *rng, int *place);

/* The best (lowest score: runtime plus the OOM penalty) of one greedy
 * decode and `samples` sampled ones (from a stream seeded with seed), each
 * simulated: to group_device and *runtime_us. Returns 1 + samples, the
 * placements simulated. */
int64_t oneshot_place_decodes(OneShotDecode decode, void *ctx, const Graph *g, const Grouping *gr,
                             const Cluster *c, int samples, uint64_t seed, int *group_device, double *runtime_us);

/* The rows of a one-shot agent k (its place.place) on p with the loaded
 * network net of the policy file at path: "NAME-trained" when ts holds a
 * best placement of this graph and grouping, then NAME (a greedy decode and
 * o->samples sampled ones). Every one-shot agent's place.runs. Returns the
 * rows written (1 or 2), or -1 with e set. */
int oneshot_place_runs(const AgentKind *k, const Problem *p, const char *path, const void *net,
                       const TrainState *ts, const AgentPlaceOpts *o, PlaceRun rows[2], const char **start_name,
                       Err *e);

#endif
