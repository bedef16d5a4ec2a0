/* sim: the Placeto-compatible event-driven simulator (docs/simulator.md).
 *
 * A Sim is a reusable workspace bound to one graph and one cluster; sim_run()
 * simulates a placement of every op and fills the Sim's result, which stays
 * valid until the next run or sim_free(). With the default cluster parameters
 * the results agree to the last bit with the published reference, including
 * tie-breaks and the order of floating-point operations. Not thread-safe per
 * Sim; use one Sim per thread. */
#ifndef PLACETO_SIM_H
#define PLACETO_SIM_H

#include <stdint.h>

#include "cluster.h"
#include "graph.h"

typedef struct SimTransfer {
    int src;          /* op whose output moves */
    int output;       /* output index */
    int from;         /* source device */
    int *to;          /* distinct destination devices, in order of their consumers */
    int n_to;
    int *children;    /* consumers released by this transfer */
    int n_children;
    int64_t bytes;
    double start_us, end_us; /* on the source device's outgoing bus */
} SimTransfer;

typedef struct SimResult {
    double makespan_us;
    int n_ops, n_devices;
    const int *device;  /* the placement simulated (per op) */
    double *start_us, *end_us; /* per op */
    SimTransfer *transfers;
    int n_transfers;
    double *busy_us;    /* per device: sum of op costs */
    int64_t *peak_memory_bytes; /* per device */
    int *oom;           /* per device: peak > memory_bytes */
    int any_oom;
} SimResult;

typedef struct Sim Sim;

Sim *sim_new(const Graph *g, const Cluster *c);
void sim_free(Sim *s);
/* Simulates op_device[i] in [0, n_devices) for every op i (the caller checks
 * the range). Returns the result owned by s. */
const SimResult *sim_run(Sim *s, const int *op_device);
/* Only the makespan (skips memory and the transfer list); the same number. */
double sim_makespan(Sim *s, const int *op_device);
/* The same result as sim_run, computed again only from where it can differ
 * from the last placement given to sim_run_from on s: the run keeps
 * checkpoints of its event history, and a placement that differs in a few
 * ops restarts from the last checkpoint before the first event that reads
 * the device of one of them (docs/simulator.md, "Incremental
 * re-simulation"). The first call, or one after sim_run or sim_makespan on
 * s, simulates everything (and records). op_device may be the same array as
 * last time, changed in place. */
const SimResult *sim_run_from(Sim *s, const int *op_device);
/* The full result of the last run on s, peak memory included (computed now
 * when the run skipped it, as sim_run_lazy does; sim_makespan's runs are
 * simulated again in full). Not another simulation: the observer is not
 * told. */
const SimResult *sim_result_memory(Sim *s);
/* A whole run as sim_run, its peak memory left to sim_result_memory;
 * returns the makespan. */
double sim_run_lazy(Sim *s, const int *op_device);
/* sim_makespan and sim_run_lazy with a cutoff: the same when the makespan
 * is below cutoff; else a number in [cutoff, makespan], the run stopping as
 * soon as a lower bound of the makespan (an event's time, an op's start
 * plus the cheapest path after it, or plus the work left on its device)
 * reaches cutoff. For searches that keep a placement only below a score
 * (docs/simulator.md, "Incremental re-simulation": runs with a cutoff). After a stop,
 * sim_result_memory simulates the placement again in full. */
double sim_makespan_cut(Sim *s, const int *op_device, double cutoff);
double sim_run_lazy_cut(Sim *s, const int *op_device, double cutoff);
/* The work of each device on the placement of the next run with a cutoff
 * (the costs of its ops, and the gap after each op of non-zero cost), for
 * a caller that keeps it for less than that run's own sum over every op
 * (a search that moves groups sums it over the groups). Any order of
 * summation: the bounds allow for rounding. Taken by the next run on s,
 * whatever its kind (one without a cutoff drops it), and by no later one;
 * work must stay valid until that run starts. */
void sim_give_device_work(Sim *s, const double *work);
/* Checkpoints of sim_run_from every `events` resource events (>= 1; 0: the
 * default, about 32 per run); takes effect at its next whole run. For tests
 * and tuning. */
void sim_set_checkpoint_interval(Sim *s, int events);

/* An observer of the simulations made on the calling thread, on any Sim:
 * fn(ud, makespan, r) after every sim_run, sim_run_from (r: its result)
 * and sim_makespan (r NULL: it computes no memory). The race (race.h)
 * counts and scores each method's placements with it, the method's code
 * unchanged. fn NULL: none (the default). Per thread. */
typedef void (*SimObserver)(void *ud, double makespan_us, const SimResult *r);
void sim_observe(SimObserver fn, void *ud);
/* Runs on s stop (quiet 1) or go on (0) telling the observer; the caller
 * tells it once per placement itself with sim_tell (a search that takes a
 * placement's makespan, then its memory, as one simulation). */
void sim_set_quiet(Sim *s, int quiet);
void sim_tell(double makespan_us, const SimResult *r);

#endif
