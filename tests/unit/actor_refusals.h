/* actor_refusals: the episodes a learned single-pass placer (the RNN placer,
 * GDP, HSDAG) must refuse to step, checked alike for each of them. */
#ifndef PLACETO_ACTOR_REFUSALS_H
#define PLACETO_ACTOR_REFUSALS_H

#include "episode.h"

/* A placer's episode check on its net (rnn_episode_check and the like). */
typedef int (*ActorCheck)(const Episode *ep, const void *net, Err *e);

/* Checks that check accepts an episode of config (the placer's
 * configuration) on g grouped by gr on n_devices default devices, and
 * refuses, naming what differs, Placeto's configuration (a random start:
 * "device 0"), two passes ("one pass"), a random order ("topological"),
 * keeping improving choices alone ("improving") and a cluster of
 * n_devices + 1 devices ("N devices"). */
void check_actor_refusals(const Graph *g, const Grouping *gr, int n_devices, void (*config)(EpisodeConfig *),
                          ActorCheck check, const void *net);

#endif
