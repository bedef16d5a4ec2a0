/* rnn_episode: an Episode stepped by the RNN placer's decoder (rnn.h), for
 * the explorer (docs/comparators.md, "The RNN placer in the explorer").
 *
 * An RNN episode visits the groups once in topological (index) order from
 * everything on device 0 (oneshot_episode_config): step t is the decoder's
 * choice for group t, teacher-forced on the *current* devices of groups
 * 0 .. t-1, so that a user's override of an earlier group conditions the
 * rest of the decode as the paper's autoregressive decode would. Undo, redo,
 * overrides, saving and resuming are the Episode's own (episode.h).
 *
 * The RnnActor keeps the decoder's work space between steps and remembers
 * the device it fed at each decoded step: a request for step t re-runs the
 * decoder (RNN_SCORE) only from the first step whose device differs from
 * the episode's current placement, then computes step t alone. The actor
 * borrows the net (it must outlive it) and owns the rest. Not thread-safe. */
#ifndef PLACETO_RNN_EPISODE_H
#define PLACETO_RNN_EPISODE_H

#include <stdint.h>

#include "episode.h"
#include "oneshot.h"
#include "rnn.h"

typedef struct RnnActor {
    const RnnNet *net;
    RnnInput *in;
    RnnWork *w;
    int G;              /* the graph's groups */
    int *act;           /* the device fed at each decoded step of w */
    int n_valid;        /* steps 0 .. n_valid-1 of w were decoded with act[] */
    int64_t steps_run;  /* decoder steps computed so far (the tests watch the cache with it) */
} RnnActor;

/* 0 when ep can be stepped by net (one topological pass from device 0, the
 * net's device count, at most its group capacity); else -1 with e set,
 * naming what differs. An hdp policy (a grouper ahead of the placer,
 * rnn_hdp.h) is refused here and by rnn_actor_new: its placer decodes
 * learned groups, not the episode's groups in order. */
int rnn_episode_check(const Episode *ep, const RnnNet *net, Err *e);
/* An actor for net on graph g grouped by gr (runs the encoders once).
 * NULL with e set when the grouping has more groups than the net places,
 * or the net is an hdp policy. */
RnnActor *rnn_actor_new(const RnnNet *net, const Graph *g, const Grouping *gr, Err *e);
void rnn_actor_free(RnnActor *ac);
/* Forgets the cached decode (the next request decodes from step 0). */
void rnn_actor_reset(RnnActor *ac);

/* The decoder's distribution over devices for the group at ep's cursor,
 * given the current devices of the groups before it (n_devices values,
 * valid until the actor is used again); NULL when the episode is done.
 * attention (when not NULL) gets the step's attention weights over the
 * G encoded groups (G values, valid as long). */
const float *rnn_actor_probs(RnnActor *ac, const Episode *ep, const float **attention);

/* One decoder step on ep: the group at the cursor gets the device the
 * decoder samples with the episode's RNG (or its argmax with greedy),
 * recorded with the step's probabilities (episode_step_choice). NULL when
 * the episode is done. */
const EpisodeStep *rnn_episode_step(Episode *ep, RnnActor *ac, int greedy);

#endif
