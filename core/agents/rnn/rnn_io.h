/* rnn_io: the RNN placer's policy file: a "placeto-policy" file with
 * "agent": "rnn" (docs/formats.md): the architecture, the op-type
 * vocabulary, the weights and optionally the training state (rnn_train.h)
 * that resumes training bit-exactly. The parameters, training and log
 * objects are written and read by policy_file's shared code. */
#ifndef PLACETO_RNN_IO_H
#define PLACETO_RNN_IO_H

#include "rnn.h"
#include "jdoc.h"
#include "train_state.h"
#include "util.h"

int rnn_policy_save(const RnnNet *net, const TrainState *ts, const char *path, Err *e);
/* Reads an rnn policy file; ts (when not NULL) is initialised by the call
 * and filled from the file's training state when it has one. A Placeto
 * policy is an error. */
RnnNet *rnn_policy_load(const char *path, TrainState *ts, Err *e);
RnnNet *rnn_policy_load_doc(const JDoc *d, TrainState *ts, Err *e);
RnnNet *rnn_policy_load_text(const char *path, const char *text, size_t len, TrainState *ts, Err *e);

/* 1 when path holds an rnn policy (with its device count, group capacity
 * and number of training graphs with a best placement, when not NULL), 0 when it holds something else, -1 with e set when it cannot
 * be read or parsed, or has a bad rnn architecture. */
int rnn_policy_peek(const char *path, int *n_devices, int *n_groups, int *n_trained, Err *e);

#endif
