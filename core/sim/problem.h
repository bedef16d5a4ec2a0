/* problem: one placement problem in one bundle: the graph, the cluster it
 * is placed on, the graph's grouping, optionally a placement read from a
 * file, and a simulator of graph and cluster. Every command and the
 * explorer load it through problem_load(), so "which graph, which devices,
 * how many groups" is answered, checked and reported in one place.
 * Implemented in problem.c. */
#ifndef PLACETO_PROBLEM_H
#define PLACETO_PROBLEM_H

#include <stdint.h>

#include "cluster.h"
#include "graph.h"
#include "group.h"
#include "placement.h"
#include "sim.h"
#include "util.h"

/* What to load. */
typedef struct ProblemSpec {
    const char *graph_path;
    const char *cluster_path;   /* a cluster file; NULL: n_devices default devices */
    int n_devices;              /* without cluster_path: the count (<= 0: the
                                 * placement's, else 2) */
    Cluster *cluster;           /* instead of both: a cluster the caller owns (borrowed) */
    int groups;                 /* target group count; 0: by graph size; -1: no grouping;
                                   GROUP_CHAINS: HSDAG's coarsening */
    const char *placement_path; /* also read a placement (checked against the cluster) */
    int no_sim;                 /* 1: no simulator */
} ProblemSpec;

typedef struct Problem {
    Graph *g;
    Cluster *c;
    Grouping *gr;     /* NULL with groups -1 */
    Placement *pl;    /* NULL without placement_path */
    Sim *sim;         /* NULL with no_sim */
    int own_cluster;  /* c is freed with the problem */
} Problem;

/* Fills p (zeroed first) from s. Returns 0, or -1 with e set (messages name
 * the file and position); p then holds what was loaded, for problem_free. */
int problem_load(Problem *p, const ProblemSpec *s, Err *e);
void problem_free(Problem *p);

#endif
