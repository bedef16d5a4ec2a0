/* policy_io: the policy file ("placeto-policy", docs/formats.md): the
 * weights, and optionally the training state that resumes training
 * bit-exactly (TrainState, train.h). Implemented in policy_io.c.
 *
 * A file names its agent in "agent": "placeto" (the default when absent,
 * as in every file written before the RNN placer), "rnn" (rnn_io.h) or "gdp"
 * (gdp_io.h). */
#ifndef PLACETO_POLICY_IO_H
#define PLACETO_POLICY_IO_H

#include <stdio.h>

#include "jdoc.h"
#include "policy.h"
#include "rnn.h"
#include "train.h"
#include "util.h"

/* Writes pol (and ts when not NULL: the training state and Adam moments)
 * atomically. Floats are printed so that they read back bit-exact. */
int policy_save(const Policy *pol, const TrainState *ts, const char *path, Err *e);
/* Reads a policy file; fills ts (initialised by the call) when not NULL and
 * the file has a training state, else leaves it initialised empty. Returns
 * NULL with e set ("FILE:LINE:COL: field: message") on any error; an rnn
 * policy is such an error. */
Policy *policy_load(const char *path, TrainState *ts, Err *e);
Policy *policy_load_text(const char *path, const char *text, size_t len, TrainState *ts, Err *e);

/* The parts every agent's file shares. policy_io_write writes the header,
 * then head(f, ud) (the agent's lines up to "parameters", each ending ",\n"),
 * then p's tensors and, when ts is not NULL, the "training" and "log"
 * objects, atomically. policy_io_read reads "parameters" into p (its tensors
 * declared and allocated) and "training", when present, into ts.
 * policy_io_check_agent fails unless the file's agent is want. */
int policy_io_write(const char *path, const NnParams *p, const TrainState *ts,
                    void (*head)(FILE *f, const void *ud), const void *ud, Err *e);
int policy_io_read(const JDoc *d, NnParams *p, int n_devices, TrainState *ts, Err *e);
int policy_io_check_agent(const JDoc *d, const char *want, Err *e);

/* The op-type vocabulary of the learned placers' files (rnn, gdp):
 * " \"vocabulary\": [names],\n", and its reader (n_types names, sorted
 * bytewise and distinct; v is initialised by the call and owned by the
 * caller, also on failure). */
void policy_io_write_vocab(FILE *f, const RnnVocab *v);
int policy_io_read_vocab(const JDoc *d, int n_types, RnnVocab *v, Err *e);
/* 1 with d parsed and *text (the file's) kept when path holds a policy file
 * naming agent (the caller ends with jdoc_done(d) and free(*text)), 0 when
 * it holds something else (nothing kept: its own loader says what is
 * wrong), -1 with e set when it cannot be read or parsed. */
int policy_io_peek(const char *path, const char *agent, JDoc *d, char **text, Err *e);
/* The number of graphs with a best placement in d's training state. */
int policy_io_peek_trained(const JDoc *d);

/* A comparator's policy file (rnn_io, gdp_io, hsdag_io): what differs per
 * agent; the loaders below do the rest (header, agent, architecture,
 * vocabulary, size check, weights, training state). */
#define POLICY_IO_ARCH_MAX 128 /* bytes of an architecture struct */
typedef struct PolicyIoKind {
    const char *agent;
    /* reads "architecture" into arch (at most POLICY_IO_ARCH_MAX bytes) */
    int (*read_arch)(const JDoc *d, void *arch, Err *e);
    int (*n_devices)(const void *arch);
    int (*n_types)(const void *arch);
    size_t (*param_count)(const void *arch);
    /* a network of arch with vocabulary v (its weights to be read) */
    void *(*create)(const void *arch, const RnnVocab *v, Err *e);
    NnParams *(*params)(void *net);
    void (*free)(void *net);
    /* a fresh training state: train_state_init with lr and entropy, then
     * fresh (when not NULL) */
    double lr, entropy;
    void (*fresh)(TrainState *ts);
    /* checks the training state read (its baseline), completing an absent
     * one; NULL: the file must hold no baseline */
    int (*check_state)(const JDoc *d, TrainState *ts, Err *e);
} PolicyIoKind;

/* The network of the kind's policy file (text of len bytes, named path),
 * or NULL with e set; ts (when not NULL) is initialised and filled from the
 * file's training state when it has one. */
void *policy_io_load_kind(const PolicyIoKind *k, const char *path, const char *text, size_t len, TrainState *ts,
                          Err *e);
void *policy_io_load_kind_file(const PolicyIoKind *k, const char *path, TrainState *ts, Err *e);
/* As policy_io_peek, for the kind's agent: 1 with its architecture read
 * into arch and the number of trained graphs (when not NULL), 0 when path
 * holds another agent's file, -1 with e set. */
int policy_io_peek_kind(const PolicyIoKind *k, const char *path, void *arch, int *n_trained, Err *e);

#endif
