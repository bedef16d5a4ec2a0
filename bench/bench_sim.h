/* bench_sim: the simulator's benchmarks (bench/bench_sim.c). */
#ifndef PLACETO_BENCH_SIM_H
#define PLACETO_BENCH_SIM_H

#include "sim.h"

/* Every bundled graph (the .json files of graphs/) with 1-8 default devices on HEFT's
 * placement: ns per op of sim_run and sim_makespan. With dir, writes the
 * placements and dir/sim_c.tsv for bench/bench_sim.py instead of printing. */
void bench_sim_table(const char *dir);

/* sim_run against the minimal list scheduler (bench_minsched.h): one line
 * per bundled graph (HEFT's placements on 2, 4 and 8 default devices) and
 * per random DAG of 10 000 and 100 000 ops (random placements), each
 * with the largest of its ratios against the target. */
void bench_sim_vs_minimal(void);

/* Nanoseconds per op of one simulation of dev (sim_run when full, else
 * sim_makespan): the median of 5 batches of at least batch_s seconds. */
double bench_sim_ns_per_op(Sim *s, const int *dev, int n_ops, int full, double batch_s);

/* Per policy step of a random episode on the graph at path with nd default
 * devices: a full simulation against an incremental one (sim_run_from),
 * every move kept, and as with --accept improving. */
void bench_sim_incremental(const char *path, int nd);

/* What a search pays per move (make bench, part "cut"): on bundled graphs,
 * random group moves from ils's placement (budget 3000), each run with the
 * current makespan as cutoff (sim_makespan_cut), as a plain makespan run
 * and as sim_run; the share of runs that stop, their events against a
 * whole run's, and µs per move of each, in turn over the same moves. */
void bench_sim_cut(void);

/* The same over the moves of a trained policy's greedy episode. */
void bench_sim_policy_episode(const char *graph, const char *policy, int nd);

#endif
