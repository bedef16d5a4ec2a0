/* episode: the Placeto MDP over the simulator (docs/agent.md, "MDP"), and
 * the episode API that every agent's explorer actor, Placeto's trainer and
 * the explorer step (Placeto's policy step: placeto_episode.h).
 *
 * An Episode walks the groups in its visit order (topological by default,
 * `passes` times). A policy step takes the group under the cursor, asks the
 * policy for a distribution over devices, samples it (or takes the argmax),
 * moves the group, re-simulates and advances the cursor; a user override
 * moves any group without moving the cursor. Both are history entries; undo
 * and redo walk the history, restoring placement, cursor, visit counts and
 * the RNG, so that stepping after an undo gives what it gave the first time.
 * A new action after an undo drops the redo entries.
 *
 * The Episode borrows its graph, grouping, cluster and policy graph (they
 * must outlive it) and owns everything else. Not thread-safe; one Episode
 * per thread. Implemented in episode.c; the episode file (the last section)
 * in episode_io.c. */
#ifndef PLACETO_EPISODE_H
#define PLACETO_EPISODE_H

#include <stdint.h>

#include "cluster.h"
#include "graph.h"
#include "group.h"
#include "policy_graph.h"
#include "problem.h"
#include "sim.h"
#include "util.h"

typedef enum EpisodeInit {
    EPISODE_INIT_RANDOM_FIXED, /* one random placement from seed 0, every episode (default) */
    EPISODE_INIT_DEVICE0,      /* everything on device 0 */
    EPISODE_INIT_RANDOM_EACH,  /* a new random placement per episode (from the episode's seed) */
    EPISODE_INIT_GIVEN         /* the placement passed to episode_reset (best so far, a baseline);
                              without one, the fixed random placement */
} EpisodeInit;

typedef struct EpisodeConfig {
    int passes;          /* walks over the groups (default 1) */
    int random_order;    /* 0: topological visit order (default); 1: random per episode */
    EpisodeInit init;
    double oom_penalty;  /* seconds per GB (1e9 bytes) over capacity, per device (default 2) */
    int log_runtime;     /* rewards in log(seconds) instead of seconds */
    int mem_feature;     /* the optional peak-memory feature column */
    int extended_features; /* the extended feature columns (critical path, load, memory, neighbours) */
    int relative_reward; /* rewards as a share of the episode's initial score */
    int accept_improving; /* a policy step that makes the score worse is simulated, rewarded and
                             then undone: the episode keeps only the moves that do not hurt */
    int reject_zero;     /* with accept_improving: an undone move's reward is 0 (the placement did
                            not change), not the worsening it would have been */
    /* the authors' memory penalty (train --oom fullest): oom_penalty times the excess of the
     * fullest device's peak over max_mem_gb, instead of each device's excess over its capacity */
    int oom_fullest;
    double max_mem_gb;
    double runtime_cap;  /* > 0: the score (seconds, penalty included) capped at it (the authors': 10) */
} EpisodeConfig;

void episode_config_default(EpisodeConfig *cfg);
typedef enum EpisodeActor { EPISODE_ACTOR_POLICY = 0, EPISODE_ACTOR_USER = 1 } EpisodeActor;

/* One history entry. */
typedef struct EpisodeStep {
    int cursor;          /* cursor before the entry */
    int group;
    int old_device, new_device;
    int proposed;        /* the device the actor chose: new_device, or with accept_improving
                            the rejected choice (new_device is then old_device); not saved */
    EpisodeActor actor;
    int takes_step;      /* the entry is the step at the cursor: policy steps always, a user's
                            override of the current group too (the cursor moved on) */
    int greedy;          /* policy entries: argmax instead of a sample */
    float *probs;        /* policy entries: n_devices probabilities (owned by the episode,
                            valid until the next entry is pushed); NULL for users */
    double runtime_us;   /* simulated makespan after the entry */
    double reward;       /* score before - score after (seconds, or log seconds) */
    Rng rng_before, rng_after;
} EpisodeStep;

typedef struct Episode {
    const Graph *g;
    const Grouping *gr;
    const Cluster *c;
    const PolicyGraph *pg;
    EpisodeConfig cfg;
    uint64_t seed;       /* of this episode (initial placement, sampling) */
    int n_groups, n_devices, n_features;
    int *order, n_order; /* the visit sequence (group ids), passes * n_groups */
    int cursor;          /* next position in order; n_order when done */
    int *group_device;   /* current placement, per group */
    int *op_device;      /* the same per op */
    int *init_device;    /* the placement the episode started from */
    int *visits;         /* per group */
    /* the last simulation of the current placement */
    double runtime_us;
    double score;        /* penalised runtime, seconds (or log seconds) */
    int oom;
    double *group_start; /* per group: start of its earliest non-held op */
    double *group_peak;  /* per group: bytes of its outputs / device capacity (mem feature) */
    double init_runtime_us;
    double init_score;   /* score of the initial placement (relative rewards divide by it) */
    /* static per group, for the extended features */
    double *blevel;      /* longest path of group costs from the group to a sink, itself included */
    int *nbr_off, *nbr;  /* groups joined to k by an edge, either way: nbr[nbr_off[k] .. nbr_off[k+1]) */
    double *nbr_bytes;   /* bytes on that edge */
    double total_cost;   /* sum of the groups' costs */
    /* history: hist[0 .. n_hist) done, hist[n_hist .. n_hist + n_redo) undone */
    EpisodeStep *hist;
    int n_hist, n_redo, cap_hist;
    float *hist_probs;   /* cap_hist x n_devices: entry i's probabilities (its probs points here) */
    Rng rng;
    int64_t simulations; /* placements simulated by this episode */
    double best_runtime_us;
    int *best_device;    /* per group: the best placement seen (lowest score) */
    double best_score;
    int64_t best_at;     /* simulations (of this episode) when the best was found */
    Sim *sim;
    const SimResult *result; /* the last simulation of the current placement (owned by sim) */
    /* accept_improving: a candidate is simulated on the spare simulator, so
     * that a rejected one leaves the current result as it was */
    Sim *sim_spare;
    double *save_start, *save_peak; /* group_start and group_peak before the candidate */
    float *feats;        /* scratch: the features of one step (n_groups x n_features) */
    double temperature;  /* the policy's logits are divided by it (1 but in training with
                            --temperature); not part of the configuration or the file */
} Episode;

/* A new episode, reset with seed (see episode_reset; init_device may be
 * NULL unless cfg->init is EPISODE_INIT_GIVEN). Fails when the policy graph and
 * grouping disagree or the cluster has more than POLICY_MAX_DEVICES devices. */
Episode *episode_new(const Graph *g, const Grouping *gr, const Cluster *c, const PolicyGraph *pg,
                     const EpisodeConfig *cfg, uint64_t seed, const int *init_device, Err *e);
void episode_free(Episode *ep);
/* Starts over: initial placement, visit order, counts and history cleared,
 * RNG seeded from seed; simulates once. */
void episode_reset(Episode *ep, uint64_t seed, const int *init_device);

static inline int episode_done(const Episode *ep) { return ep->cursor >= ep->n_order; }
/* The group under the cursor, or -1 when done. */
static inline int episode_current(const Episode *ep)
{
    return ep->cursor < ep->n_order ? ep->order[ep->cursor] : -1;
}

/* The features of every group [n_groups x n_features] for current node v
 * (docs/agent.md, "Features"). */
void episode_features(const Episode *ep, int v, float *out);

/* The policy step at the cursor with a device the caller chose (every
 * other agent, such as the RNN placer's decoder, rnn_episode.h): probs (n_devices
 * values, or NULL) are kept with the entry, rng_before is the episode's RNG
 * before the choice drew from it (the entry's rng_after is its state now).
 * Applies, simulates and advances as placeto_episode_step does; NULL when the
 * episode is done or device is out of range. */
const EpisodeStep *episode_step_choice(Episode *ep, int device, const float *probs, int greedy,
                                       const Rng *rng_before);
/* Moves group to device as the user; returns the entry, or NULL with e set
 * when group or device is out of range. Moving a group to its own device is
 * recorded too (it is what the user chose). Overriding the current group
 * is that step's decision: the cursor moves on (takes_step); overriding any
 * other group leaves the cursor where it is. */
const EpisodeStep *episode_override(Episode *ep, int group, int device, Err *e);
/* Undo / redo one entry; return 0, or -1 when there is nothing to undo/redo. */
int episode_undo(Episode *ep);
int episode_redo(Episode *ep);

/* Simulates group_device (per group) into ep->op_device and the runtime
 * fields, counting a simulation; updates the best placement. Used by the
 * functions above and by loaders that restore a state. */
void episode_simulate(Episode *ep);
/* The penalised score of a simulation result (seconds or log seconds). */
double episode_score(const EpisodeConfig *cfg, const Cluster *c, const SimResult *r);

/* Appends an entry to the history (dropping redo entries); the loader of
 * episode files uses it to restore a history. probs may be NULL. */
EpisodeStep *episode_push(Episode *ep, const EpisodeStep *s, const float *probs);

/* Checks what the history implies of the state: entry i's cursor is the
 * number of steps taken (takes_step) before it, the cursor the number taken
 * in the applied entries (before redo), each group's visit count the number
 * of applied steps of that group; runtimes, rewards and the best are finite.
 * Returns 0, or -1 with e set and field naming the field of the episode file
 * ("visits[3]", "history[2].cursor", ...). What episode_save writes and
 * episode_load accepts. */
int episode_check_state(const Episode *ep, char *field, size_t fieldn, Err *e);

/* --- the episode file (docs/formats.md, "placeto-episode") ---------------- */

/* Writes ep atomically: the graph file (ep->g->path) and its checksum, the
 * cluster (inline), the grouping target, the policy file and its checksum
 * (policy_path may be NULL), the configuration, seed, RNG state, visit order,
 * cursor, visit counts, initial and current placement (by group name), the
 * best placement, and the whole history including undone (redo) entries. */
int episode_save(const Episode *ep, const char *policy_path, uint64_t policy_checksum,
                 const char *path, Err *e);

/* Everything an episode file restores; episode_file_free releases it all. */
typedef struct EpisodeFile {
    Problem pb;              /* the graph, the saved cluster, the grouping, a simulator */
    PolicyGraph *pg;
    Episode *ep;
    char *policy_path;       /* NULL when the file names none */
    uint64_t policy_checksum;
} EpisodeFile;

/* Reads an episode file, loads the graph it names (relative paths are taken
 * as they were saved, i.e. relative to the working directory) and refuses a
 * graph whose checksum differs, rebuilds grouping and episode and restores
 * the saved state exactly. Returns 0, or -1 with e set and out zeroed. */
int episode_load(const char *path, EpisodeFile *out, Err *e);
void episode_file_free(EpisodeFile *f);
/* The files the episode file at path names, without reading them: 1 with
 * *graph and *policy (NULL when it names none) resolved as episode_load
 * resolves them (the caller frees both); 0 when path does not hold an
 * episode file (or cannot be read: its loader says why). */
int episode_named_files(const char *path, char **graph, char **policy);

#endif
