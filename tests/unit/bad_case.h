/* bad_case: a bad file's text and the error it must get, checked the same
 * way for graphs, clusters and placements (test_graph.c, test_files.c). */
#ifndef PLACETO_TEST_BAD_CASE_H
#define PLACETO_TEST_BAD_CASE_H

#include <stddef.h>

typedef struct BadCase {
    const char *text;
    const char *at;    /* the error is at the nth occurrence of this text */
    int nth;           /* (0: at the start of the file, the root object) */
    const char *msg;   /* expected right after "PATH:LINE:COL: " (NULL: no position) */
    const char *also;  /* another expected substring, or NULL */
} BadCase;

/* "PATH:LINE:COL:" of the nth occurrence (1-based) of needle in text. */
void pos_of(char *buf, size_t n, const char *path, const char *text, const char *needle, int nth);

/* The error msg of bad case k, loaded from path: "PATH:LINE:COL: " at the
 * case's position ("PATH:1:1: " without one), then the case's message, and
 * its other substring anywhere. */
void check_bad_case_error(const BadCase *c, size_t k, const char *path, const char *msg);

#endif
