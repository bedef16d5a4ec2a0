/* policy_file: the policy file ("placeto-policy", docs/formats.md) that
 * every learned placer writes and reads through: the header, the agent's
 * name, the weights (NnParams), the op vocabulary, and the training state
 * that resumes training bit-exactly (TrainState, train_state.h). A file
 * names its agent in "agent" ("placeto" when absent). Layout:
 *   {"format": "placeto-policy", "version": 1, ["agent": NAME,]
 *    "architecture": {...the agent's...}, [the agent's other fields,]
 *    ["cluster": {a placeto-cluster: the one trained on},]
 *    "parameters": [{"name", "shape": [rows, cols], "data": [...]}, ...],
 *    "training": {"adam": {"lr", "beta1", "beta2", "eps", "step", "m": [[..]..], "v": [[..]..]},
 *                 "episodes", "rng": [4 hex strings], "entropy", "baseline": [[..]..],
 *                 "best": [{"graph", "checksum", "n_groups", "runtime_us", "score",
 *                           "found_after", "group_device"}], "simulations"},
 *    "log": {"episodes", "best_runtime_us", "placements_simulated"}}
 * Wall time is not written, so that a training run gives the same bytes
 * every time; an optional training.seconds is accepted on reading.
 * Implemented in policy_file.c (the files' contents) and policy_file_ckpt.c
 * (the checkpoint's files: its names, the save of the pair, the reader). */
#ifndef PLACETO_POLICY_FILE_H
#define PLACETO_POLICY_FILE_H

#include <stdio.h>

#include "jdoc.h"
#include "nn.h"
#include "train_state.h"
#include "util.h"
#include "vocab.h"

/* The parts every agent's file shares. policy_file_write writes the header,
 * then head(f, ud) (the agent's lines up to "parameters", each ending ",\n"),
 * then p's tensors and, when ts is not NULL, the "training" and "log"
 * objects, atomically. policy_file_read reads "parameters" into p (its tensors
 * declared and allocated) and "training", when present, into ts.
 * policy_file_check_agent fails unless the file's agent is want. */
int policy_file_write(const char *path, const NnParams *p, const TrainState *ts,
                    void (*head)(FILE *f, const void *ud), const void *ud, Err *e);
int policy_file_read(const JDoc *d, NnParams *p, int n_devices, TrainState *ts, Err *e);
int policy_file_check_agent(const JDoc *d, const char *want, Err *e);
/* The cluster the policy was trained on, the file's optional "cluster" (a
 * placeto-cluster object, written when the training state names one,
 * TrainState.cluster): 1 with *out (the caller's), 0 with *out NULL when the
 * file has none (written before it was recorded), -1 with e set. */
int policy_file_read_cluster(const JDoc *d, Cluster **out, Err *e);

/* The training checkpoint beside the policy file at path: path without its
 * ".json", then ".ckpt.json" ("p.json": "p.ckpt.json"). policy_file_write
 * writes it (Adam's settings, step and moments, the RNG, the entropy
 * weight and the baselines, with the checksum of the weights and the
 * episode count of the save they belong to) whenever it writes a training
 * state; the policy file itself keeps the
 * counters and the best placements. */
void policy_file_checkpoint_path(char *buf, size_t n, const char *path);
/* The pending name under which a save of p and ts to the policy file at
 * path writes its checkpoint first: the checkpoint's name (links followed)
 * without ".json", then "." and 16 hex digits of a hash of the weights'
 * checksum and ts's episodes, then ".json". The save then writes the policy
 * file and renames the pending checkpoint over the checkpoint, so that a
 * kill at any point leaves the policy file with its own checkpoint under
 * one of the two names; policy_file_read_checkpoint looks under both. */
void policy_file_pending_path(char *buf, size_t n, const char *path, const NnParams *p, const TrainState *ts);
/* 1 when a checkpoint can be kept beside a policy written to path; 0 for
 * "-" (standard output) and for an existing file that is not a regular one
 * (a device such as /dev/null, a FIFO, a socket; links followed): no file
 * is ever derived from such a name, so policy_file_write writes the policy
 * there and no checkpoint. */
int policy_file_keeps_checkpoint(const char *path);
/* Reads the checkpoint beside the policy file at policy_path into ts (and
 * p's Adam moments): the pending one of the policy file's save when a kill
 * left it (policy_file_pending_path), else POLICY.ckpt.json. 1 when read
 * (ts->has_optimizer set), 0 when there is none, -1 with e set when it
 * cannot be read, is malformed or belongs to another save (other weights
 * than p's, another episode count than ts's). `train --resume` alone calls
 * it. */
int policy_file_read_checkpoint(const char *policy_path, NnParams *p, TrainState *ts, Err *e);
/* One checkpoint's text (named ck) for the policy file at policy_path,
 * whose weights p and training state ts hold: 1 when read into them, 0
 * when it belongs to another save (e says so), -1 with e set when it is
 * malformed. */
int policy_file_checkpoint_text(const char *ck, const char *text, size_t len, const char *policy_path, NnParams *p,
                                TrainState *ts, Err *e);

/* The op-type vocabulary of the learned placers' files (rnn, gdp, hsdag):
 * " \"vocabulary\": [names],\n", and its reader (n_types names, sorted
 * bytewise and distinct; v is initialised by the call and owned by the
 * caller, also on failure). */
void policy_file_write_vocab(FILE *f, const OpVocab *v);
int policy_file_read_vocab(const JDoc *d, int n_types, OpVocab *v, Err *e);
/* 1 with d parsed and *text (the file's) kept when path holds a policy file
 * naming agent (the caller ends with jdoc_done(d) and free(*text)), 0 when
 * it holds something else (nothing kept: its own loader says what is
 * wrong), -1 with e set when it cannot be read or parsed. */
int policy_file_peek(const char *path, const char *agent, JDoc *d, char **text, Err *e);
/* The number of graphs with a best placement in d's training state. */
int policy_file_peek_trained(const JDoc *d);

/* An agent's policy file (rnn_io, gdp_io, hsdag_io): what differs per
 * agent; the loaders below do the rest (header, agent, architecture,
 * vocabulary, size check, weights, training state). */
#define POLICY_FILE_ARCH_MAX 128 /* bytes of an architecture struct */
typedef struct PolicyFileKind {
    const char *agent;
    /* reads "architecture" into arch (at most POLICY_FILE_ARCH_MAX bytes) */
    int (*read_arch)(const JDoc *d, void *arch, Err *e);
    int (*n_devices)(const void *arch);
    int (*n_types)(const void *arch);
    size_t (*param_count)(const void *arch);
    /* a network of arch with vocabulary v (its weights to be read) */
    void *(*create)(const void *arch, const OpVocab *v, Err *e);
    NnParams *(*params)(void *net);
    void (*free)(void *net);
    /* a fresh training state: train_state_init with lr and entropy, then
     * fresh (when not NULL) */
    double lr, entropy;
    void (*fresh)(TrainState *ts);
    /* checks the training state read (its baseline), completing an absent
     * one; NULL: the file must hold no baseline */
    int (*check_state)(const JDoc *d, TrainState *ts, Err *e);
} PolicyFileKind;

/* The network of the kind's policy file (text of len bytes, named path),
 * or NULL with e set; ts (when not NULL) is initialised and filled from the
 * file's training state when it has one. */
void *policy_file_load_kind(const PolicyFileKind *k, const char *path, const char *text, size_t len, TrainState *ts,
                            Err *e);
/* The same from the parsed document d (its text's length d->len bounds the
 * architecture's size). */
void *policy_file_load_doc(const PolicyFileKind *k, const JDoc *d, TrainState *ts, Err *e);
/* The same from the file at path; with ts, the checkpoint beside it too
 * (policy_file_read_checkpoint), as `train --resume` reads them. */
void *policy_file_load_kind_file(const PolicyFileKind *k, const char *path, TrainState *ts, Err *e);
/* As policy_file_peek, for the kind's agent: 1 with its architecture read
 * into arch and the number of trained graphs (when not NULL), 0 when path
 * holds another agent's file, -1 with e set. */
int policy_file_peek_kind(const PolicyFileKind *k, const char *path, void *arch, int *n_trained, Err *e);

/* A member of obj that must be present (and of type `is` when not NULL):
 * NULL with e set naming base.key and what was expected. */
const cJSON *policy_file_member(const JDoc *d, const cJSON *obj, const char *key, const char *base,
                                cJSON_bool (*is)(const cJSON *), const char *what, Err *e);

#endif
