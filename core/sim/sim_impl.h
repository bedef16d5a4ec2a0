/* sim_impl: the simulator's workspace, shared by sim.c (the event loop),
 * sim_mem.c (peak memory) and sim_inc.c (checkpoints and incremental
 * re-simulation). Private to core/sim. docs/simulator.md, "Implementation",
 * explains the data structures and why they give the reference's results.
 *
 * Resources: the event loop keeps one pending event per resource (device
 * compute or outgoing bus) in two tournament trees whose leaves are ordered
 * by device name rank, one for the buses and one for the devices; a bus
 * event comes first at equal times. Releases of ops (their last input has
 * arrived) wait in a heap per device ordered by the position their
 * dependency event has in the reference's event order; a device event takes
 * the smallest release that is due. A transfer is timed when it is queued
 * (the bus is FIFO: max(ready, bfree)); one that takes time schedules its
 * consumers then, and only one that arrives the instant it is sent waits in
 * its bus's queue for a bus event at its send time.
 * A resource with nothing to do has no event (the reference's event there
 * would only mark it idle): a device's event is max(dfree, its earliest
 * release), none if nothing waits; a bus's is its head instant transfer's
 * send time, none if its queue is empty. The runtime
 * takes the free times into account. */
#ifndef PLACETO_SIM_IMPL_H
#define PLACETO_SIM_IMPL_H

#include <stdint.h>

#include "sim.h"

/* Tells the calling thread's observer (sim_observe) of a simulation on s,
 * unless s is quiet. */
void sim_notify(const Sim *s, double makespan_us, const SimResult *r);

/* A release waiting on its device: the time, then `tie`: the number of the
 * resource event during which it became due when that event had the same
 * time (else 0), above the rank of the dependency that released it. */
typedef struct SimRel {
    double t;
    uint64_t tie;
} SimRel;

typedef struct SimHeap {
    SimRel *e;
    int n, cap;
} SimHeap;

/* One checkpoint of the recording run (sim_inc.c). */
typedef struct SimCkpt {
    int64_t events;     /* resource events processed before it */
    int64_t log_len;    /* undo log entries before it */
    int n_alloc, n_transfers;
    double makespan;
    size_t rel_off;     /* its copy of the release heaps in the checkpoint arena */
    size_t res_off;     /* its copy of the per-resource state */
} SimCkpt;

/* Per op, the dependencies scheduled so far: the latest of them (time,
 * then edge rank), and how many are still to come. */
typedef struct SimDep {
    double t;
    uint32_t e;
    int waiting;
} SimDep;

/* An undo log entry: op c's SimDep before a dependency of it was scheduled
 * (waiting one higher). */
typedef struct SimUndo {
    int c;
    uint32_t e;
    double t;
} SimUndo;

struct Sim {
    const Graph *g;
    const Cluster *c;
    int n, nd, n_roots;
    double gap, overhead, bandwidth;
    /* static, from the graph and cluster */
    double *cost;        /* n * nd */
    int *ch_off, *ch;    /* children, CSR in the graph's child order */
    uint32_t *erank;     /* per CSR edge: rank of (parent name, child name) */
    int *eout;           /* per CSR edge: output index carried */
    int64_t *ebytes;     /* per CSR edge: bytes of that output */
    int *n_par;
    int *item_op;        /* edge rank -> its child op */
    int *roots;          /* ops without parents, graph order */
    int *dev_rank, *dev_of_rank;
    uint8_t *one_out;    /* per op: every edge carries the same output */
    int64_t *bytes;      /* per op: all outputs */
    /* per run */
    const int *dev;
    int H, L;            /* leaves of each tournament (a power of two >= nd), L = 2H */
    double *lt;          /* per leaf: the resource's pending event time, or INFINITY:
                          * the buses' tree lt[0 .. H), the devices' lt[H .. 2H) */
    int *win;            /* 2L: the winner of each node of each tree, the buses'
                          * win[0 .. 2H), the devices' win[2H .. 4H); win[H + j] = j */
    double *blt, *dlt;   /* the two trees' times: lt and lt + H */
    int *bwin, *dwin;    /* the two trees' winners: win and win + 2H */
    double *dfree;       /* per device: when its last op's gap ends (0: none yet) */
    SimHeap *rel;        /* per device */
    int *root_head;      /* per device: the next of its roots to run, or -1 */
    int *root_next;      /* per root op: the next root on its device, graph order */
    SimDep *dep;         /* per op */
    SimDep *dep0;        /* per op: its state at the start of a run (all parents to come) */
    int *bus_head, *bus_tail, *tr_next; /* bus queues (FIFO lists of instant transfers) */
    double *bfree;       /* per bus: when the overhead of the last transfer queued on it ends (0: none yet) */
    uint32_t *tr_erank;  /* per pool slot: edge rank of a transfer's child */
    int *pool, *to_pool; /* children and destinations of transfers, at ch_off[src] */
    int *slot, *cnt;     /* scratch of one op's walk */
    /* the allocations of outputs in time order (full runs): per op with
     * outputs, in the order ops started, its start, bytes, device, op */
    double *a_t;
    int64_t *a_m;
    int *a_d, *a_op;
    int n_alloc;
    int n_order;         /* sim_loop_order_cut: the ops in the order they started, in a_op */
    int64_t events;      /* resource events processed */
    double makespan;
    double *relf;        /* per op: trunc(start) + trunc(cost) - 1 (memory) */
    int *apos;           /* per op: allocations recorded before it started */
    int *fhead, *fnext;  /* per allocation k: the frees due just before it (lists) */
    int64_t *frow;       /* up to 4 devices, instead: per allocation 4 sums of those frees' bytes
                          * (one per device), and a last row for those after every allocation */
    double *ftime;       /* per op with outputs: the latest of its children's frees (memory) */
    int *fhint;          /* per op: the allocations recorded before the child that sets it started */
    int64_t *cur;
    SimResult r;
    /* incremental re-simulation (sim_inc.c) */
    int quiet;           /* sim_set_quiet */
    int mem;             /* the last run's memory: 0 not recorded (makespan
                          * loop), 1 allocations recorded, 2 peak computed,
                          * 3 only the ops' order (sim_fill_full to come) */
    int hist;            /* the result, run_idx and checkpoints describe `last` */
    int *last;           /* the placement of the recorded run */
    int64_t *run_idx;    /* per op: resource events processed before it started */
    SimUndo *log;
    int64_t log_len, log_cap;
    int64_t ck_every, next_ck;
    int ck_set;          /* sim_set_checkpoint_interval's value, 0: default */
    SimCkpt *ck;
    int n_ck, ck_cap;
    unsigned char *arena;
    size_t arena_len, arena_cap;
    /* runs with a cutoff (sim_makespan_cut) */
    double cut;          /* stop once a lower bound of the makespan reaches it */
    int stopped;         /* the last run stopped at the cutoff */
    double *tail;        /* per op: a lower bound of makespan - its start (NULL until a cut run) */
    double *rem;         /* per device: the work not started yet (op costs and their gaps) */
    const double *work;  /* per device: the next cut run's work, from its caller (sim_give_device_work), or NULL */
};

/* The event loop from the current state until no event is left. full: also
 * the transfers' destination lists and the per-op memory times; record: the
 * undo log, run_idx and checkpoints. */
void sim_loop_full(Sim *s);
void sim_loop_makespan(Sim *s);
void sim_loop_record(Sim *s);
/* The loops that stop at s->cut (s->stopped set): the makespan loop
 * that also records the ops' start order, and the plain one. */
void sim_loop_order_cut(Sim *s);
void sim_loop_makespan_cut(Sim *s);
/* After sim_loop_order_cut, what sim_loop_full adds: the transfers'
 * destinations, the allocations and the per-op memory times, from the
 * order in which the ops started (a_op[0 .. n_order)). */
void sim_fill_full(Sim *s);
/* Resets the per-run state for placement dev and queues the roots. */
void sim_start(Sim *s, const int *dev);
/* Peak memory and OOM flags of the result (sim_mem.c). */
void sim_memory(Sim *s);
/* (sim_mem.c) Sorts the pairs (key[k], idx[k]) by key, stably (LSD radix on the bytes
 * where the keys differ); key2 and idx2 are scratch of n entries. Returns 1
 * when the sorted pairs are in key2 and idx2, 0 when in key and idx. */
int sim_radix_sort(uint64_t *key, int *idx, uint64_t *key2, int *idx2, int n);
/* Takes a checkpoint of the current state (sim_inc.c). */
void sim_checkpoint(Sim *s);
/* Frees what sim_inc.c allocated. */
void sim_inc_free(Sim *s);

#endif
