/* bench_minsched: the yardstick of the simulator's speed (make bench, part
 * "sim"): a minimal list scheduler of the same model, run on the Sim's own
 * arrays, timed against sim_run in the same process (bench_minsched.c). */
#ifndef PLACETO_BENCH_MINSCHED_H
#define PLACETO_BENCH_MINSCHED_H

#include "sim.h"

typedef struct MinSched MinSched;

/* A workspace for the list scheduler of s's graph and cluster (s must
 * outlive it). */
MinSched *minsched_new(const Sim *s);
void minsched_free(MinSched *m);
/* Schedules placement dev: per op its start and end (minsched_start/end),
 * returns the makespan (the last device or bus to become free). */
double minsched_run(MinSched *m, const int *dev);
const double *minsched_start(const MinSched *m);
const double *minsched_end(const MinSched *m);

/* sim_run's time over the list scheduler's on placement dev, in the
 * thread's CPU time: runs of one then the other, in turn, for batch_s
 * seconds; the median of `reps` such batches' ratios. *sim_ns and *min_ns:
 * the medians of ns per op. */
double minsched_ratio(Sim *s, const int *dev, int n_ops, int reps, double batch_s, double *sim_ns,
                      double *min_ns);

#endif
