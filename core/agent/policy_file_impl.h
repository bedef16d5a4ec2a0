/* policy_file_impl.h: what policy_file.c (the policy file and the
 * checkpoint's contents) and policy_file_ckpt.c (the checkpoint's files)
 * share. Internal to them. */
#ifndef PLACETO_POLICY_FILE_IMPL_H
#define PLACETO_POLICY_FILE_IMPL_H

#include <stdio.h>

#include "policy_file.h"

/* The checksum of the weights a policy file written with p and ts holds
 * (the kept snapshot of train --keep best, else p's): what ties its
 * checkpoint to it. */
uint64_t policy_file_saved_checksum(const NnParams *p, const TrainState *ts);
/* Writes the checkpoint of the policy file written from p and ts to f:
 * "weights" and "episodes" name the save it belongs to. */
void policy_file_put_checkpoint(FILE *f, const NnParams *p, const TrainState *ts);
/* Commits the policy file af (written, not committed; path as given) with
 * its checkpoint as a pair; on failure af is aborted or committed and e
 * set, -1. */
int policy_file_commit_checkpoint(AtomicFile *af, const char *path, const NnParams *p, const TrainState *ts, Err *e);

#endif
