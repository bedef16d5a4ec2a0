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

#endif
