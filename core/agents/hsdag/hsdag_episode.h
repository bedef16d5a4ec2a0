/* hsdag_episode: an Episode stepped by the HSDAG placer (hsdag.h), for the
 * explorer (docs/comparators.md, "The HSDAG placer in the explorer").
 *
 * An HSDAG episode visits the groups once in topological (index) order from
 * everything on device 0 (the RNN episode's configuration). One forward
 * pass on the state of a training episode's last step (hsdag_place_state:
 * the state every episode reaches, the one the return weighs most) gives
 * the learned clusters and each cluster's distribution; it does not
 * depend on the placement, so overrides, undo and redo never call for
 * another pass. Step t, on group t of cluster c:
 *   - when t is c's first group, its device is drawn from c's distribution
 *     with the episode's RNG (one uniform, as HSDAG_SAMPLE; its argmax with
 *     greedy);
 *   - otherwise it follows c: the device c's first group holds now (an
 *     override of the first group steers the whole cluster).
 * Every step records c's probabilities. An episode stepped to the end
 * without overrides is hsdag_forward's placement for the same RNG. The
 * actor borrows the net (it must outlive it) and owns the rest. Not
 * thread-safe. */
#ifndef PLACETO_HSDAG_EPISODE_H
#define PLACETO_HSDAG_EPISODE_H

#include <stdint.h>

#include "episode.h"
#include "hsdag.h"

typedef struct HsdagActor {
    const HsdagNet *net;
    HsdagInput *in;
    HsdagWork *w;
    int G;
    int *place;         /* the forward pass's greedy placement */
    int *cluster;       /* per group: its learned cluster (after the pass) */
    int *first;         /* per cluster: its first group */
    int *size;          /* per cluster: its groups */
    int n_clusters;
    float *members;     /* G: 1 / size for the groups of the current group's cluster, else 0 */
    float *x;           /* G x F: the state of the pass (hsdag_place_state) */
    int valid;          /* 1: w holds the forward pass */
    int64_t passes_run; /* forward passes computed so far */
} HsdagActor;

/* The configuration of an HSDAG episode: one pass in topological order
 * from everything on device 0, no acceptance test, Placeto's OOM penalty. */
void hsdag_episode_config(EpisodeConfig *cfg);
/* 0 when ep can be stepped by net; else -1 with e set, naming what differs. */
int hsdag_episode_check(const Episode *ep, const HsdagNet *net, Err *e);

/* An actor for net on graph g grouped by gr on cluster c (builds the input;
 * the forward pass runs on the first request). NULL with e set when the
 * input cannot be built. */
HsdagActor *hsdag_actor_new(const HsdagNet *net, const Graph *g, const Grouping *gr, const Cluster *c, Err *e);
void hsdag_actor_free(HsdagActor *ac);
/* Runs the forward pass when it has not run; the clusters are then valid. */
void hsdag_actor_ensure(HsdagActor *ac);

/* The distribution of the cluster of the group at ep's cursor (n_devices
 * values); NULL when the episode is done. members (when not NULL) gets the
 * row that marks that cluster's groups (1 / its size each, G values). */
const float *hsdag_actor_probs(HsdagActor *ac, const Episode *ep, const float **members);

/* One step on ep (see above), recorded with the cluster's probabilities
 * (episode_step_choice). NULL when the episode is done. */
const EpisodeStep *hsdag_episode_step(Episode *ep, HsdagActor *ac, int greedy);

#endif
