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
#include "train.h"
#include "util.h"

/* The agent a policy file is for. */
typedef enum PolicyAgent { POLICY_AGENT_PLACETO, POLICY_AGENT_RNN, POLICY_AGENT_GDP, POLICY_AGENT_HSDAG } PolicyAgent;

/* The agent of the policy file at path (its "agent" field; none: Placeto's),
 * or -1 with e set when it cannot be read or a comparator's architecture is
 * bad. Reads the file once per comparator tried. */
int policy_agent_peek(const char *path, Err *e);

/* Zero-shot placement with a trained policy: one greedy episode, then
 * `samples` sampled ones (seeds seed + 1, ...), all from init_device (per
 * group) when it is not NULL, else from cfg's initial placement; the best
 * placement seen (lowest score, the start included) goes to group_device
 * (n_groups entries) and its runtime to *runtime_us. Returns the placements
 * simulated, or -1 with e set on a device-count or feature mismatch. */
int64_t policy_place(const Policy *pol, const Graph *g, const Grouping *gr, const Cluster *c,
                     const EpisodeConfig *cfg, int samples, uint64_t seed, const int *init_device,
                     int *group_device, double *runtime_us, Err *e);

/* Where the zero-shot episodes of policy_place_runs start. */
typedef enum PolicyStart {
    POLICY_START_DEFAULT,   /* the fixed random placement: row "placeto" */
    POLICY_START_HEURISTIC  /* the best heuristic's placement (place_best_heuristic), which the
                               result is never worse than: row "placeto-refine" */
} PolicyStart;

/* The Placeto rows of a comparison on p, with the policy file at path:
 * "placeto-trained" first when the file's training state holds a best
 * placement of this very graph and grouping (its time is NAN: it came from
 * training), then "placeto" or "placeto-refine" (zero-shot with `samples`
 * sampled episodes from start). Their `placements`: what training had
 * simulated when it found the trained placement, and what the zero-shot
 * episodes simulated (the heuristics' placements included). The name of
 * the heuristic a refinement started from goes to *start_name when it is
 * not NULL. Fills rows[0..n) and returns n (1 or 2), or -1 with e set.
 * An rnn, gdp or hsdag policy file gives its own rows instead
 * (rnn_place_runs, gdp_place_runs, hsdag_place_runs). */
int policy_place_runs(const Problem *p, const char *path, int samples, uint64_t seed, PolicyStart start,
                      PlaceRun rows[2], const char **start_name, Err *e);

/* --- one-shot placers (the RNN-based placer, GDP) ------------------------ */

/* Writes one placement of the caller's network (ctx) to place: its greedy
 * one when greedy, else a sample drawn from rng. */
typedef void (*PolicyDecode)(void *ctx, int greedy, Rng *rng, int *place);

/* The best (lowest score: runtime plus the OOM penalty) of one greedy
 * decode and `samples` sampled ones (from a stream seeded with seed), each
 * simulated: to group_device and *runtime_us. Returns 1 + samples, the
 * placements simulated. */
int64_t policy_place_decodes(PolicyDecode decode, void *ctx, const Graph *g, const Grouping *gr,
                             const Cluster *c, int samples, uint64_t seed, int *group_device, double *runtime_us);

/* A one-shot placer's policy file: its row names ("rnn", "rnn-trained";
 * string literals, kept), its loader, its placer (as rnn_place) and free. */
typedef struct PolicyOneShot {
    const char *name, *trained;
    void *(*load)(const char *path, TrainState *ts, Err *e);
    int64_t (*place)(const void *net, const Graph *g, const Grouping *gr, const Cluster *c, int samples,
                     uint64_t seed, int *group_device, double *runtime_us, Err *e);
    void (*free)(void *net);
} PolicyOneShot;

/* The rows of the one-shot policy file at path on p, as policy_place_runs:
 * `trained` when its training state holds a best placement of this graph
 * and grouping, then `name` (a greedy decode and `samples` sampled ones).
 * Returns the rows written (1 or 2), or -1 with e set. */
int policy_place_oneshot_runs(const Problem *p, const char *path, const PolicyOneShot *a, int samples,
                              uint64_t seed, PlaceRun rows[2], Err *e);

#endif
