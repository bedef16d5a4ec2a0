/* gdp_episode: an Episode stepped by the GDP placer (gdp.h), for the
 * explorer (docs/comparators.md, "The GDP placer in the explorer").
 *
 * A GDP episode visits the groups once in topological (index) order from
 * everything on device 0 (gdp_episode_config, the RNN episode's
 * configuration): step t applies group t's device, drawn from group t's own
 * distribution with the episode's RNG (or its argmax with greedy). GDP is
 * non-autoregressive: one forward pass gives every group's distribution,
 * and a group's distribution does not depend on the devices of the others,
 * so overrides, undo and redo never call for another pass: the GdpActor
 * runs the network once (on its first request) and answers every step of
 * every episode of the graph from that pass. Sampled steps draw as
 * gdp_forward's GDP_SAMPLE does (one uniform per group, in order), so an
 * episode stepped to the end without overrides is gdp_forward's placement
 * for the same RNG. The actor borrows the net (it must outlive it) and
 * owns the rest. Not thread-safe. */
#ifndef PLACETO_GDP_EPISODE_H
#define PLACETO_GDP_EPISODE_H

#include <stdint.h>

#include "episode.h"
#include "gdp.h"

typedef struct GdpActor {
    const GdpNet *net;
    GdpInput *in;
    GdpWork *w;
    int G;              /* the graph's groups */
    int *place;         /* the forward pass's scratch placement (greedy) */
    float *attention;   /* G: the attention row of the last request, over every group */
    int valid;          /* 1: w holds the forward pass */
    int64_t passes_run; /* forward passes computed so far (the tests watch the cache with it) */
} GdpActor;

/* The configuration of a GDP episode: one pass in topological order from
 * everything on device 0, no acceptance test, Placeto's OOM penalty. */
void gdp_episode_config(EpisodeConfig *cfg);
/* 0 when ep can be stepped by net (one topological pass from device 0, the
 * net's device count); else -1 with e set, naming what differs. */
int gdp_episode_check(const Episode *ep, const GdpNet *net, Err *e);

/* An actor for net on graph g grouped by gr (builds the input; the forward
 * pass runs on the first request). NULL with e set when the input cannot be
 * built. */
GdpActor *gdp_actor_new(const GdpNet *net, const Graph *g, const Grouping *gr, Err *e);
void gdp_actor_free(GdpActor *ac);
/* Forgets the forward pass (the next request runs it again). */
void gdp_actor_reset(GdpActor *ac);

/* The network's distribution over devices for the group at ep's cursor
 * (n_devices values, valid until the actor is used again); NULL when the
 * episode is done. attention (when not NULL) gets the group's attention row
 * in the last placement block, averaged over the heads, spread over the G
 * groups (0 outside the keys the row sees: the previous segment and its
 * own; G values, valid as long). */
const float *gdp_actor_probs(GdpActor *ac, const Episode *ep, const float **attention);

/* One step on ep: the group at the cursor gets the device sampled from its
 * distribution with the episode's RNG (or its argmax with greedy), recorded
 * with its probabilities (episode_step_choice). NULL when the episode is
 * done. */
const EpisodeStep *gdp_episode_step(Episode *ep, GdpActor *ac, int greedy);

#endif
