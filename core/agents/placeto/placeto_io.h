/* placeto_io: Placeto's policy file ("placeto-policy", docs/formats.md;
 * the shared framework: policy_file.h): the weights, and optionally the
 * training state that resumes training bit-exactly (TrainState,
 * train_state.h). Implemented in placeto_io.c. A Placeto file may leave
 * "agent" out (as every file written before the RNN placer does). */
#ifndef PLACETO_PLACETO_IO_H
#define PLACETO_PLACETO_IO_H

#include <stdio.h>

#include "jdoc.h"
#include "policy.h"
#include "policy_file.h"
#include "train_state.h"
#include "util.h"

/* Writes pol (and ts when not NULL: the training state and Adam moments)
 * atomically. Floats are printed so that they read back bit-exact. */
int placeto_policy_save(const Policy *pol, const TrainState *ts, const char *path, Err *e);
/* Reads a policy file; fills ts (initialised by the call) when not NULL and
 * the file has a training state, else leaves it initialised empty. Returns
 * NULL with e set ("FILE:LINE:COL: field: message") on any error; an rnn
 * policy is such an error. */
/* placeto_policy_load, with ts, also reads the training checkpoint beside the file
 * (policy_file_read_checkpoint): what `train --resume` continues from. */
Policy *placeto_policy_load(const char *path, TrainState *ts, Err *e);
Policy *placeto_policy_load_text(const char *path, const char *text, size_t len, TrainState *ts, Err *e);
/* The same from a parsed document (agent_file_open's). */
Policy *placeto_policy_load_doc(const JDoc *d, TrainState *ts, Err *e);

#endif
