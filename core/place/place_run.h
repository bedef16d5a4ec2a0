/* place_run: the one way to run a placement method: run it on a problem, time
 * it, check that every op landed on a device of the cluster, simulate the
 * placement and record runtime, OOM and per-device peak memory. `place`,
 * `compare`, `train --init` and the explorer's baselines all use it.
 * Implemented in place_run.c. */
#ifndef PLACETO_PLACE_RUN_H
#define PLACETO_PLACE_RUN_H

#include <stdint.h>

#include "place.h"
#include "problem.h"

/* One method's outcome on a problem. */
typedef struct PlaceRun {
    const char *method;          /* the method's name (not owned) */
    double runtime_us;           /* the simulator's makespan */
    double seconds;              /* wall time of the method; NAN when not measured here */
    int oom;                     /* some device is over its memory */
    int64_t *peak_memory_bytes;  /* per device */
    int *op_device;              /* per op */
    int *group_device;           /* per group (each group's first op's device) */
    int64_t placements;          /* placements the method simulated (a search's budget spent; 0 otherwise) */
    char *owned_name;            /* when not NULL: method points here, and place_run_free frees it */
    int learned_groups;          /* a policy that learns its grouping (rnn --grouper hdp): its learned groups; else 0 */
    GroupClusterStats grouping;  /* with learned_groups: the statistics of its greedy grouping of the groups */
} PlaceRun;

/* Runs m on p (which needs its grouping and simulator) with seed, and for
 * the search methods a budget of placements simulated (0: the default).
 * Returns 0 with out filled, or -1 with e set ("METHOD: ..."); out then
 * owns nothing. */
int place_run(const Problem *p, const PlaceMethod *m, uint64_t seed, int64_t budget, PlaceRun *out, Err *e);
/* The same, a search method starting from start (place_search_start's
 * outcome with the same seed and budget; NULL: its own). */
int place_run_from(const Problem *p, const PlaceMethod *m, uint64_t seed, int64_t budget, const PlaceStart *start,
                   PlaceRun *out, Err *e);
/* Scores a per-group placement found elsewhere (a policy, training) as the
 * row `name`, taking `seconds`. */
void place_run_groups(const Problem *p, const char *name, const int *group_device, double seconds,
                      PlaceRun *out);
/* The single-kind rows of a heterogeneous cluster: when p's cluster has
 * devices of more than one kind, one row per kind (in order of the kind's
 * first device) named "KIND-only" ("cpu-only", "gpu-only"), with every op on
 * that kind's fastest device (largest speed, the first on ties; each op
 * costs its cost_us_by_kind[KIND] there when the node has it). rows needs
 * room for p->c->n_devices rows. Returns the rows written (0 on a cluster of
 * one kind). */
int place_run_kinds(const Problem *p, PlaceRun *rows);
/* The row "KIND-only" of one kind (as above, on any cluster): 0 with out
 * filled, or -1 with e naming the cluster's kinds when it has no device of
 * that kind. */
int place_run_kind(const Problem *p, const char *kind, PlaceRun *out, Err *e);
void place_run_free(PlaceRun *r);
/* Sorts rows by runtime, ties by method name. */
void place_run_sort(PlaceRun *rows, int n);

#endif
