/* placeto_episode: Placeto's policy on an episode (episode.h): the
 * features it was built for and one policy step. Implemented in
 * placeto_episode.c. */
#ifndef PLACETO_PLACETO_EPISODE_H
#define PLACETO_PLACETO_EPISODE_H

#include "episode.h"
#include "agent.h"
#include "policy.h"

/* Sets the feature options of cfg to those policy architecture a was built
 * with, its accept_improving to the policy's, and a fixed start (random or
 * device 0) to the one it was trained from. */
void placeto_episode_config(EpisodeConfig *cfg, const PolicyArch *a);
/* 0 when policy architecture a reads the features cfg produces for n_devices
 * devices; else -1 with e set, saying which option differs. */
int placeto_episode_check(const EpisodeConfig *cfg, const PolicyArch *a, int n_devices, Err *e);

/* One policy step on the current node (the episode must not be done): fills
 * feats_out (when not NULL) with the features the policy saw, samples with
 * the episode's RNG (or takes the argmax), applies and simulates. Returns the
 * new history entry (owned by the episode, valid until the next change). */
const EpisodeStep *placeto_episode_step(Episode *ep, const Policy *pol, PolicyWork *w, int greedy,
                                   float *feats_out);
/* The same with the group graph pg (the episode's own, or one built from
 * the same grouping) for the message passing. */
const EpisodeStep *placeto_episode_step_on(Episode *ep, const Policy *pol, const PolicyGraph *pg, PolicyWork *w,
                                           int greedy, float *feats_out);

/* How the explorer steps a Placeto policy (agent.h's actor table): its
 * probabilities and steps on the episode, each group in the episode's
 * order, with the features, start and acceptance the policy was built
 * for. Only the explorer's "why" reads Placeto's insides beyond this. */
extern const AgentActorOps placeto_actor;

#endif
