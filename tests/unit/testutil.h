/* testutil: helpers shared by the unit tests. */
#ifndef PLACETO_TESTUTIL_H
#define PLACETO_TESTUTIL_H

#include "cluster.h"
#include "graph.h"

#include <stddef.h>

/* The best simulated makespan over every placement of g's ops on c (tiny
 * graphs only: n_devices ^ n_ops simulations). */
double test_brute_force(const Graph *g, const Cluster *c);

/* A temporary directory /tmp/PREFIX_XXXXXX; tmp_close removes it and the
 * files in it. tmp_open returns 0 on failure. */
typedef struct TmpDir {
    char path[96];
} TmpDir;
int tmp_open(TmpDir *t, const char *prefix);
void tmp_file(char *buf, size_t n, const TmpDir *t, const char *name);
void tmp_close(TmpDir *t);
/* The whole file, or NULL (with the reason on stderr) when unreadable. */
char *read_all(const char *path, size_t *len);
/* 1 when both files hold the same bytes. */
int same_file_bytes(const char *p1, const char *p2);

/* Bad variants of a good file's text, for the loaders' error tests. */
/* text with the nth (from 1) occurrence of old replaced by rep; NULL when
 * there is no such occurrence. */
char *text_subst(const char *text, const char *old, const char *rep, int nth);
/* Removes the first '@' from s, the marker of where a bad file's error must
 * point; returns 1 with its offset in *at, or 0 when s has none. */
int take_marker(char *s, size_t *at);
/* The start of the error the loaders give for byte at of text read from
 * path: "PATH:LINE:COL: msg". */
void error_at(char *buf, size_t n, const char *path, const char *text, size_t at, const char *msg);

/* The agent a policy file names (agent_file_open: "placeto" when absent),
 * or "(error)" when it cannot be read. */
const char *agent_name_of(const char *path);

/* The policy file at path (written with a training state) as a file written
 * before the checkpoint had a file of its own: the checkpoint's optimizer
 * state inside its "training" (the reader still takes those); its length
 * in *len. NULL when either file cannot be read. */
char *policy_text_with_checkpoint(const char *path, size_t *len);

#endif
