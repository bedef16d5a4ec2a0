/* oneshot: what the learned placers that place a whole graph per sample
 * share (rnn, gdp, hsdag; docs/comparators.md): their episode in the
 * explorer (one pass over the groups in topological order from device 0),
 * the draw of one step, and their rows of `place` and `compare` (the best of
 * one greedy decode and sampled ones; the training's best placement), and
 * what their trainers' set-up shares. Implemented in oneshot.c. */
#ifndef PLACETO_ONESHOT_H
#define PLACETO_ONESHOT_H

#include <stdint.h>

#include "agent.h"
#include "episode.h"
#include "nn.h"
#include "place_run.h"
#include "train_state.h"
#include "util.h"

/* The configuration of a one-shot placer's episode (rnn, gdp, hsdag): one
 * pass in topological order from everything on device 0, no acceptance
 * test, Placeto's OOM penalty. */
void oneshot_episode_config(EpisodeConfig *cfg);
/* The same as an actor's config (agent.h): net is not read. */
void oneshot_actor_config(const void *net, EpisodeConfig *cfg);
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

/* --- training --------------------------------------------------------------- */

/* What every one-shot trainer (rnn, gdp, hsdag) derives from its graphs
 * before its own set-up. */
typedef struct OneShotTrainSetup {
    EpisodeConfig env; /* its scores (episode_score): seconds plus the OOM penalty */
    int max_groups;    /* the most groups of a training graph's grouping */
    int max_nodes;     /* the most ops of a training graph */
} OneShotTrainSetup;

/* The checks every one-shot trainer starts with: agent's ("rnn") policy,
 * for n_devices devices, fits cluster c, and there is a graph to train on;
 * else -1 with e set. Then fills s (env: the default episode scored with
 * oom_penalty seconds per GB over, in seconds not log seconds). */
int oneshot_train_setup(OneShotTrainSetup *s, const char *agent, int n_devices, double oom_penalty,
                        const TrainGraph *graphs, int n_graphs, const Cluster *c, Err *e);
/* The end of every one-shot trainer's set-up: the bests of a resumed
 * training state simulated again (train_best_verify) with env, then each
 * graph's best present, found or not, before the first update. */
void oneshot_train_bests(TrainState *ts, const EpisodeConfig *env, const TrainGraph *graphs, int n_graphs,
                         const Cluster *c);

/* The gradients of an update's m items (its samples, graphs or steps, each
 * computed on some thread): m rows of n floats, or NULL when m is 1 (the
 * one item writes the network's own gradient). */
float *oneshot_grads_new(int m, size_t n);
/* Item k's gradient: its row of grads (n = p->n), or p->g when grads is NULL. */
float *oneshot_grad_of(float *grads, int k, const NnParams *p);
/* p->g[from..p->n) = the m items' gradients summed in item order, the one
 * order whatever the threads; nothing when grads is NULL (p->g is the item's). */
void oneshot_grads_sum(const float *grads, int m, NnParams *p, size_t from);

#endif
