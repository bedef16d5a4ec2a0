/* sim_inc: incremental re-simulation (sim_run_from, docs/simulator.md,
 * "Incremental re-simulation").
 *
 * A recording run notes, for every op, the number of the resource event that
 * started it (run_idx), keeps an undo log of the per-op state that the
 * scheduling of dependencies changes (waiting count, latest dependency) and
 * takes a checkpoint every ck_every events: the state of the resources and
 * the release heaps, and the counters. Nothing before the first event that
 * reads the device of a changed op can differ under the new placement: that
 * event is the start of one of its parents (which sorts its children into
 * local and remote), or the start itself for an op without parents. So the
 * new run restores the last checkpoint before that event (undoing the log
 * back to it) and goes on from there; the ops, transfers and allocations
 * recorded before it stay as they are, everything after is written again. Peak
 * memory is computed again over the whole run. */
#include "sim_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of one checkpoint's fixed part, in 16-byte units so that the heap
 * entries that follow stay aligned. */
static size_t fixed_bytes(const Sim *s)
{
    size_t L = (size_t)s->L, nd = (size_t)s->nd;
    size_t b = (L + 3 * nd) * sizeof(double) + (2 * L + 4 * nd) * sizeof(int);
    return (b + 15) / 16 * 16;
}

static void arena_reserve(Sim *s, size_t need)
{
    if (s->arena_len + need <= s->arena_cap)
        return;
    size_t cap = s->arena_cap ? s->arena_cap : 4096;
    while (cap < s->arena_len + need)
        cap *= 2;
    s->arena = xrealloc(s->arena, cap);
    s->arena_cap = cap;
}

void sim_checkpoint(Sim *s)
{
    if (s->n_ck == s->ck_cap) {
        s->ck_cap = s->ck_cap ? 2 * s->ck_cap : 64;
        s->ck = XRENEW(s->ck, s->ck_cap);
    }
    int nd = s->nd, L = s->L, heap_n = 0;
    for (int d = 0; d < nd; d++)
        heap_n += s->rel[d].n;
    size_t fixed = fixed_bytes(s);
    arena_reserve(s, fixed + (size_t)heap_n * sizeof(SimRel));
    SimCkpt *k = &s->ck[s->n_ck++];
    k->events = s->events;
    k->log_len = s->log_len;
    k->n_alloc = s->n_alloc;
    k->n_transfers = s->r.n_transfers;
    k->makespan = s->makespan;
    k->res_off = s->arena_len;
    k->rel_off = s->arena_len + fixed;
    unsigned char *p = s->arena + s->arena_len;
    memcpy(p, s->lt, (size_t)L * sizeof(double));
    p += (size_t)L * sizeof(double);
    memcpy(p, s->r.busy_us, (size_t)nd * sizeof(double));
    p += (size_t)nd * sizeof(double);
    memcpy(p, s->bfree, (size_t)nd * sizeof(double));
    p += (size_t)nd * sizeof(double);
    memcpy(p, s->dfree, (size_t)nd * sizeof(double));
    p += (size_t)nd * sizeof(double);
    int *q = (int *)(void *)p;
    memcpy(q, s->win, 2 * (size_t)L * sizeof(int));
    q += 2 * L;
    for (int d = 0; d < nd; d++) {
        q[d] = s->bus_head[d];
        q[nd + d] = s->bus_tail[d];
        q[2 * nd + d] = s->rel[d].n;
        q[3 * nd + d] = s->root_head[d];
    }
    SimRel *h = (SimRel *)(void *)(s->arena + k->rel_off);
    for (int d = 0; d < nd; d++) {
        if (s->rel[d].n)
            memcpy(h, s->rel[d].e, (size_t)s->rel[d].n * sizeof(SimRel));
        h += s->rel[d].n;
    }
    s->arena_len = k->rel_off + (size_t)heap_n * sizeof(SimRel);
    s->next_ck = s->events + s->ck_every;
}

/* Back to checkpoint j: the later checkpoints and log entries go. */
static void restore(Sim *s, int j)
{
    const SimCkpt *k = &s->ck[j];
    for (int64_t e = s->log_len - 1; e >= k->log_len; e--) {
        const SimUndo *u = &s->log[e];
        SimDep *dp = &s->dep[u->c];
        dp->waiting++;
        dp->t = u->t;
        dp->e = u->e;
    }
    s->log_len = k->log_len;
    int nd = s->nd, L = s->L;
    const unsigned char *p = s->arena + k->res_off;
    memcpy(s->lt, p, (size_t)L * sizeof(double));
    p += (size_t)L * sizeof(double);
    memcpy(s->r.busy_us, p, (size_t)nd * sizeof(double));
    p += (size_t)nd * sizeof(double);
    memcpy(s->bfree, p, (size_t)nd * sizeof(double));
    p += (size_t)nd * sizeof(double);
    memcpy(s->dfree, p, (size_t)nd * sizeof(double));
    p += (size_t)nd * sizeof(double);
    const int *q = (const int *)(const void *)p;
    memcpy(s->win, q, 2 * (size_t)L * sizeof(int));
    q += 2 * L;
    const SimRel *h = (const SimRel *)(const void *)(s->arena + k->rel_off);
    size_t heap_n = 0;
    for (int d = 0; d < nd; d++) {
        s->bus_head[d] = q[d];
        s->bus_tail[d] = q[nd + d];
        /* the tail may have been given a successor after the checkpoint */
        if (s->bus_tail[d] >= 0)
            s->tr_next[s->bus_tail[d]] = -1;
        SimHeap *r = &s->rel[d];
        r->n = q[2 * nd + d];
        while (r->cap < r->n) {
            r->cap = r->cap ? 2 * r->cap : 64;
            r->e = XRENEW(r->e, r->cap);
        }
        if (r->n)
            memcpy(r->e, h, (size_t)r->n * sizeof(SimRel));
        h += r->n;
        heap_n += (size_t)r->n;
        s->root_head[d] = q[3 * nd + d];
    }
    s->events = k->events;
    s->n_alloc = k->n_alloc;
    s->r.n_transfers = k->n_transfers;
    s->makespan = k->makespan;
    s->arena_len = k->rel_off + heap_n * sizeof(SimRel);
    s->n_ck = j + 1;
    s->next_ck = k->events + s->ck_every;
}

static void ensure_arrays(Sim *s)
{
    if (!s->last) {
        s->last = XMALLOC(int, s->n);
        s->run_idx = XMALLOC(int64_t, s->n);
    }
}

/* A whole recorded run of dev. */
static const SimResult *record_all(Sim *s, const int *dev)
{
    ensure_arrays(s);
    /* about 32 checkpoints over a run of ~2.5 events per op */
    s->ck_every = s->ck_set > 0 ? s->ck_set : (int64_t)s->n / 13 > 64 ? (int64_t)s->n / 13 : 64;
    s->log_len = 0;
    s->n_ck = 0;
    s->arena_len = 0;
    s->next_ck = 0;
    sim_start(s, dev);
    sim_loop_record(s);
    s->r.makespan_us = s->makespan;
    sim_memory(s);
    s->mem = 2;
    memcpy(s->last, dev, (size_t)s->n * sizeof *dev);
    s->hist = 1;
    return &s->r;
}

static const SimResult *run_from(Sim *s, const int *op_device)
{
    if (!s->hist)
        return record_all(s, op_device);
    const Graph *g = s->g;
    int64_t first = INT64_MAX;
    int changed = 0;
    for (int i = 0; i < s->n; i++) {
        if (op_device[i] == s->last[i])
            continue;
        changed++;
        const GraphNode *nd = &g->nodes[i];
        if (nd->n_parents == 0)
            first = 0;
        for (int k = 0; k < nd->n_parents; k++)
            if (s->run_idx[nd->parents[k]] < first)
                first = s->run_idx[nd->parents[k]];
    }
    s->dev = s->r.device = op_device;
    if (!changed)
        return &s->r;
    if (first == 0)
        return record_all(s, op_device);
    /* the last checkpoint taken before event number `first` */
    int64_t j = (first - 1) / s->ck_every;
    if (j >= s->n_ck)
        j = s->n_ck - 1;
    restore(s, (int)j);
    memcpy(s->last, op_device, (size_t)s->n * sizeof *op_device);
    sim_loop_record(s);
    s->r.makespan_us = s->makespan;
    sim_memory(s);
    s->mem = 2;
    return &s->r;
}

const SimResult *sim_run_from(Sim *s, const int *op_device)
{
    s->work = NULL; /* sim_give_device_work: for the next run, this one */
    const SimResult *r = run_from(s, op_device);
    sim_notify(s, r->makespan_us, r);
    return r;
}

const SimResult *sim_result_memory(Sim *s)
{
    if (!s->dev)
        return NULL; /* no run yet */
    if (s->mem == 0) { /* a makespan loop: no allocations to sweep */
        int quiet = s->quiet;
        s->quiet = 1;
        sim_run(s, s->dev);
        s->quiet = quiet;
    } else if (s->mem == 1 || s->mem == 3) {
        if (s->mem == 3)
            sim_fill_full(s);
        sim_memory(s);
        s->mem = 2;
    }
    return &s->r;
}

void sim_set_checkpoint_interval(Sim *s, int events)
{
    s->ck_set = events > 0 ? events : 0;
    s->hist = 0;
}

void sim_inc_free(Sim *s)
{
    free(s->last);
    free(s->run_idx);
    free(s->log);
    free(s->ck);
    free(s->arena);
}
