/* hsdag_io: the HSDAG placer's policy file: a "placeto-policy" file with
 * "agent": "hsdag" (docs/formats.md): the architecture (every HsdagArch
 * field, the feature families by name), the op-type vocabulary, the weights
 * and optionally the training state (hsdag_train.h) that resumes training
 * bit-exactly. The parameters, training and log objects are written and
 * read by policy_file's shared code. */
#ifndef PLACETO_HSDAG_IO_H
#define PLACETO_HSDAG_IO_H

#include "hsdag.h"
#include "jdoc.h"
#include "train_state.h"
#include "util.h"

int hsdag_policy_save(const HsdagNet *net, const TrainState *ts, const char *path, Err *e);
/* Reads an hsdag policy file; ts (when not NULL) is initialised by the call
 * and filled from the file's training state when it has one. Another
 * agent's policy is an error. */
HsdagNet *hsdag_policy_load(const char *path, TrainState *ts, Err *e);
HsdagNet *hsdag_policy_load_doc(const JDoc *d, TrainState *ts, Err *e);
HsdagNet *hsdag_policy_load_text(const char *path, const char *text, size_t len, TrainState *ts, Err *e);

/* 1 when path holds an hsdag policy (with its device count and number of
 * training graphs with a best placement, when not NULL), 0 when it holds
 * something else, -1 with e set when it cannot be read or parsed, or has a
 * bad hsdag architecture. */
int hsdag_policy_peek(const char *path, int *n_devices, int *n_trained, Err *e);

#endif
