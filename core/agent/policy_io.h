/* policy_io: the policy file ("placeto-policy", docs/formats.md): the
 * weights, and optionally the training state that resumes training
 * bit-exactly (TrainState, train.h). Implemented in policy_io.c. */
#ifndef PLACETO_POLICY_IO_H
#define PLACETO_POLICY_IO_H

#include "policy.h"
#include "train.h"
#include "util.h"

/* Writes pol (and ts when not NULL: the training state and Adam moments)
 * atomically. Floats are printed so that they read back bit-exact. */
int policy_save(const Policy *pol, const TrainState *ts, const char *path, Err *e);
/* Reads a policy file; fills ts (initialised by the call) when not NULL and
 * the file has a training state, else leaves it initialised empty. Returns
 * NULL with e set ("FILE:LINE:COL: field: message") on any error. */
Policy *policy_load(const char *path, TrainState *ts, Err *e);
Policy *policy_load_text(const char *path, const char *text, size_t len, TrainState *ts, Err *e);

#endif
