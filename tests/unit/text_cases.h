/* text_cases: the loaders' bad-file tests, one table of text edits each
 * (unit tests only: it reports through test.h, which bench does not link). */
#ifndef PLACETO_TEXT_CASES_H
#define PLACETO_TEXT_CASES_H

#include "util.h"

#include <stddef.h>

/* A bad variant: good's first `old` replaced by `rep` must fail to load with
 * an error containing `want`. */
typedef struct TextCase {
    const char *old, *rep, *want;
} TextCase;
/* Checks every case with load (1 when the text loaded: it frees what it
 * loaded; 0 with e set when it did not), then that good itself loads. */
void check_text_cases(const char *good, size_t len, const TextCase *cases, size_t n,
                      int (*load)(const char *name, const char *text, size_t len, Err *e));

#endif
