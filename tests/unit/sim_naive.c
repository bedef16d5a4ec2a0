/* sim_naive: the simulator of docs/simulator.md written the plain way, as it
 * was before core/sim/sim.c was optimised: one event per edge in one heap,
 * a heap per resource queue ordered by (ready, seq), memory by a sort of all
 * changes. Kept as the tests' oracle: the optimised simulator (aggregated
 * dependency events, FIFO queues, incremental re-simulation) must give the
 * same result to the last bit (tests/unit/test_sim_fast.c). */
#include "sim_naive.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EV_DEPENDENCY = 0, EV_BUS = 1, EV_DEVICE = 2 };

typedef struct Event {
    double t;
    int kind;
    int a, b;   /* resource; or (parent, child) ops */
    int ra, rb; /* ranks of the payload names */
} Event;

typedef struct QItem {
    double ready;
    uint64_t seq;
    int item; /* op (device queues) or transfer index (bus queues) */
} QItem;

typedef struct Queue {
    QItem *h;
    int n, cap;
    int busy;
} Queue;

struct NaiveSim {
    const Graph *g;
    const Cluster *c;
    int n, nd;
    double *cost;     /* n * nd */
    int *name_rank;   /* per op */
    int *dev_rank;    /* per device */
    Event *ev;
    int nev, evcap;
    Queue *q;         /* 2 * nd */
    uint64_t seq;
    int *waiting;
    int *child_off;   /* per op: start of its transfers' children in pool */
    int *pool;        /* children of transfers */
    int *to_pool;     /* destination devices of transfers */
    int *slot, *cnt;  /* per child / per transfer scratch of one op */
    int *started;     /* ops in the order they started (nondecreasing start) */
    int n_started;
    uint64_t *fkey, *fkey2; /* free events: time bits, and op index */
    int *fop, *fop2;
    int64_t *cur;
    SimResult r;
};

static int ev_less(const Event *x, const Event *y)
{
    if (x->t != y->t)
        return x->t < y->t;
    if (x->kind != y->kind)
        return x->kind < y->kind;
    if (x->ra != y->ra)
        return x->ra < y->ra;
    return x->rb < y->rb;
}

static void ev_push(NaiveSim *s, double t, int kind, int a, int b)
{
    if (s->nev == s->evcap) {
        s->evcap *= 2;
        s->ev = XRENEW(s->ev, s->evcap);
    }
    Event e = {t, kind, a, b, 0, 0};
    if (kind == EV_DEPENDENCY) {
        e.ra = s->name_rank[a];
        e.rb = s->name_rank[b];
    } else {
        e.ra = s->dev_rank[a % s->nd];
    }
    int i = s->nev++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!ev_less(&e, &s->ev[p]))
            break;
        s->ev[i] = s->ev[p];
        i = p;
    }
    s->ev[i] = e;
}

static Event ev_pop(NaiveSim *s)
{
    Event top = s->ev[0], last = s->ev[--s->nev];
    int i = 0, n = s->nev;
    for (;;) {
        int l = 2 * i + 1, m = i;
        if (l >= n)
            break;
        if (l + 1 < n && ev_less(&s->ev[l + 1], &s->ev[l]))
            l++;
        if (!ev_less(&s->ev[l], &last))
            break;
        s->ev[i] = s->ev[l];
        i = l;
        (void)m;
    }
    if (n > 0)
        s->ev[i] = last;
    return top;
}

static int q_less(const QItem *x, const QItem *y)
{
    return x->ready != y->ready ? x->ready < y->ready : x->seq < y->seq;
}

static void q_push(Queue *q, QItem it)
{
    if (q->n == q->cap) {
        q->cap = q->cap ? q->cap * 2 : 16;
        q->h = XRENEW(q->h, q->cap);
    }
    int i = q->n++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!q_less(&it, &q->h[p]))
            break;
        q->h[i] = q->h[p];
        i = p;
    }
    q->h[i] = it;
}

static QItem q_pop(Queue *q)
{
    QItem top = q->h[0], last = q->h[--q->n];
    int i = 0, n = q->n;
    for (;;) {
        int l = 2 * i + 1;
        if (l >= n)
            break;
        if (l + 1 < n && q_less(&q->h[l + 1], &q->h[l]))
            l++;
        if (!q_less(&q->h[l], &last))
            break;
        q->h[i] = q->h[l];
        i = l;
    }
    if (n > 0)
        q->h[i] = last;
    return top;
}

static void enqueue(NaiveSim *s, double t, int kind, int res, int item)
{
    Queue *q = &s->q[res];
    q_push(q, (QItem){t, ++s->seq, item});
    if (!q->busy) {
        ev_push(s, t, kind, res, 0);
        q->busy = 1;
    }
}

NaiveSim *naive_sim_new(const Graph *g, const Cluster *c)
{
    NaiveSim *s = xcalloc(1, sizeof *s);
    int n = g->n_nodes, nd = c->n_devices;
    s->g = g;
    s->c = c;
    s->n = n;
    s->nd = nd;
    s->cost = XMALLOC(double, xmul((size_t)n, (size_t)nd));
    for (int i = 0; i < n; i++)
        for (int d = 0; d < nd; d++)
            s->cost[(size_t)i * (size_t)nd + (size_t)d] = cluster_op_cost(c, g, i, d);
    const char **names = XMALLOC(const char *, n > nd ? n : nd);
    s->name_rank = XMALLOC(int, n);
    for (int i = 0; i < n; i++)
        names[i] = g->nodes[i].name;
    util_rank_strings(names, n, s->name_rank);
    s->dev_rank = XMALLOC(int, nd);
    for (int d = 0; d < nd; d++)
        names[d] = c->devices[d].name;
    util_rank_strings(names, nd, s->dev_rank);
    free(names);
    s->evcap = 1024;
    s->ev = XMALLOC(Event, s->evcap);
    s->q = XNEW(Queue, 2 * nd);
    s->waiting = XMALLOC(int, n);
    /* children lists of op i's transfers live in pool[child_off[i] ...] */
    s->child_off = XMALLOC(int, n + 1);
    int max_children = 1;
    s->child_off[0] = 0;
    for (int i = 0; i < n; i++) {
        s->child_off[i + 1] = s->child_off[i] + g->nodes[i].n_children;
        if (g->nodes[i].n_children > max_children)
            max_children = g->nodes[i].n_children;
    }
    s->pool = XMALLOC(int, g->n_edges);
    s->to_pool = XMALLOC(int, g->n_edges);
    s->slot = XMALLOC(int, max_children);
    s->cnt = XMALLOC(int, max_children);
    s->started = XMALLOC(int, n);
    s->fkey = XMALLOC(uint64_t, n);
    s->fkey2 = XMALLOC(uint64_t, n);
    s->fop = XMALLOC(int, n);
    s->fop2 = XMALLOC(int, n);
    s->cur = XMALLOC(int64_t, nd);
    s->r.n_ops = n;
    s->r.n_devices = nd;
    s->r.start_us = XMALLOC(double, n);
    s->r.end_us = XMALLOC(double, n);
    s->r.transfers = XMALLOC(SimTransfer, g->n_edges);
    s->r.busy_us = XMALLOC(double, nd);
    s->r.peak_memory_bytes = XMALLOC(int64_t, nd);
    s->r.oom = XMALLOC(int, nd);
    return s;
}

void naive_sim_free(NaiveSim *s)
{
    if (!s)
        return;
    for (int r = 0; r < 2 * s->nd; r++)
        free(s->q[r].h);
    free(s->q);
    free(s->cost);
    free(s->name_rank);
    free(s->dev_rank);
    free(s->ev);
    free(s->waiting);
    free(s->pool);
    free(s->to_pool);
    free(s->child_off);
    free(s->slot);
    free(s->cnt);
    free(s->started);
    free(s->fkey);
    free(s->fkey2);
    free(s->fop);
    free(s->fop2);
    free(s->cur);
    free(s->r.start_us);
    free(s->r.end_us);
    free(s->r.transfers);
    free(s->r.busy_us);
    free(s->r.peak_memory_bytes);
    free(s->r.oom);
    free(s);
}

/* The device event of resource x at t: run the head op, release its local
 * children and queue one transfer per output index with remote consumers, in
 * the order in which each index first appears among the children. */
static void run_device(NaiveSim *s, double t, int x, const int *dev)
{
    const Graph *g = s->g;
    int op = q_pop(&s->q[x]).item;
    double c = s->cost[(size_t)op * (size_t)s->nd + (size_t)x];
    double end = t + c;
    s->r.start_us[op] = t;
    s->r.end_us[op] = end;
    s->started[s->n_started++] = op;
    s->r.busy_us[x] += c;
    ev_push(s, end + (c > 0 ? s->c->op_gap_us : 0), EV_DEVICE, x, 0);
    const GraphNode *nd = &g->nodes[op];
    int first = s->r.n_transfers, n_tr = 0;
    for (int k = 0; k < nd->n_children; k++) {
        int ch = nd->children[k];
        if (dev[ch] == x) {
            ev_push(s, end, EV_DEPENDENCY, op, ch);
            s->slot[k] = -1;
            continue;
        }
        int out = nd->child_output[k], j = 0;
        while (j < n_tr && s->r.transfers[first + j].output != out)
            j++;
        if (j == n_tr) {
            SimTransfer *tr = &s->r.transfers[first + n_tr++];
            tr->src = op;
            tr->output = out;
            tr->from = x;
            tr->bytes = graph_edge_bytes(g, op, out);
            tr->n_children = tr->n_to = 0;
            s->cnt[j] = 0;
        }
        s->slot[k] = j;
        s->cnt[j]++;
    }
    if (n_tr == 0)
        return;
    int pos = s->child_off[op];
    for (int j = 0; j < n_tr; j++) {
        SimTransfer *tr = &s->r.transfers[first + j];
        tr->children = s->pool + pos;
        tr->to = s->to_pool + pos;
        pos += s->cnt[j];
    }
    for (int k = 0; k < nd->n_children; k++) {
        if (s->slot[k] < 0)
            continue;
        SimTransfer *tr = &s->r.transfers[first + s->slot[k]];
        int ch = nd->children[k], d = dev[ch], seen = 0;
        tr->children[tr->n_children++] = ch;
        for (int m = 0; m < tr->n_to && !seen; m++)
            seen = tr->to[m] == d;
        if (!seen)
            tr->to[tr->n_to++] = d;
    }
    s->r.n_transfers += n_tr;
    for (int j = 0; j < n_tr; j++)
        enqueue(s, end, EV_BUS, s->nd + x, first + j);
}

/* The bus event of resource x at t: start the head transfer if it is ready. */
static void run_bus(NaiveSim *s, double t, int x)
{
    Queue *q = &s->q[x];
    if (q->h[0].ready > t) {
        ev_push(s, q->h[0].ready, EV_BUS, x, 0);
        return;
    }
    SimTransfer *tr = &s->r.transfers[q_pop(q).item];
    double delay = (double)tr->bytes / s->c->bandwidth_bytes_per_us;
    double arrive = t + delay;
    tr->start_us = t;
    tr->end_us = arrive;
    for (int k = 0; k < tr->n_children; k++)
        ev_push(s, arrive, EV_DEPENDENCY, tr->src, tr->children[k]);
    ev_push(s, arrive + s->c->transfer_overhead_us, EV_BUS, x, 0);
}

static double simulate(NaiveSim *s, const int *dev)
{
    const Graph *g = s->g;
    int n = s->n;
    s->nev = 0;
    s->seq = 0;
    s->r.n_transfers = 0;
    s->n_started = 0;
    s->r.device = dev;
    for (int r = 0; r < 2 * s->nd; r++) {
        s->q[r].n = 0;
        s->q[r].busy = 0;
    }
    for (int d = 0; d < s->nd; d++)
        s->r.busy_us[d] = 0;
    for (int i = 0; i < n; i++) {
        s->waiting[i] = g->nodes[i].n_parents;
        s->r.start_us[i] = s->r.end_us[i] = 0;
    }
    for (int i = 0; i < n; i++)
        if (g->nodes[i].n_parents == 0)
            enqueue(s, 0.0, EV_DEVICE, dev[i], i);
    double makespan = 0;
    while (s->nev > 0) {
        Event e = ev_pop(s);
        if (e.t > makespan)
            makespan = e.t;
        if (e.kind == EV_DEPENDENCY) {
            if (--s->waiting[e.b] == 0)
                enqueue(s, e.t, EV_DEVICE, dev[e.b], e.b);
            continue;
        }
        if (s->q[e.a].n == 0) {
            s->q[e.a].busy = 0;
            continue;
        }
        if (e.kind == EV_DEVICE)
            run_device(s, e.t, e.a, dev);
        else
            run_bus(s, e.t, e.a);
    }
    s->r.makespan_us = makespan;
    return makespan;
}

/* Key of a time >= 0 whose unsigned order is the order of the times. */
static uint64_t time_key(double t)
{
    uint64_t k;
    t += 0.0; /* -0.0 -> +0.0 */
    memcpy(&k, &t, sizeof k);
    return k;
}

/* Peak memory per device (docs/simulator.md, "Memory"): +bytes at an op's
 * start, -bytes at max(start, max over children of trunc(start) +
 * trunc(cost) - 1), allocations before frees at equal times. Allocations are
 * already in time order (ops start in event order); frees are radix-sorted
 * on their time bits and merged in. */
static void memory(NaiveSim *s, const int *dev)
{
    const Graph *g = s->g;
    int nf = 0;
    for (int i = 0; i < s->n; i++) {
        if (graph_node_bytes(g, i) == 0)
            continue;
        double free_t = s->r.start_us[i];
        const GraphNode *nd = &g->nodes[i];
        for (int k = 0; k < nd->n_children; k++) {
            int ch = nd->children[k];
            double cc = s->cost[(size_t)ch * (size_t)s->nd + (size_t)dev[ch]];
            double t = trunc(s->r.start_us[ch]) + trunc(cc) - 1.0;
            if (t > free_t)
                free_t = t;
        }
        s->fkey[nf] = time_key(free_t);
        s->fop[nf++] = i;
    }
    uint64_t *key = s->fkey, *key2 = s->fkey2;
    int *op = s->fop, *op2 = s->fop2;
    for (int shift = 0; shift < 64 && nf > 0; shift += 8) {
        int count[257] = {0};
        for (int k = 0; k < nf; k++)
            count[((key[k] >> shift) & 255) + 1]++;
        if (count[((key[0] >> shift) & 255) + 1] == nf)
            continue; /* every key has the same byte here */
        for (int b = 0; b < 256; b++)
            count[b + 1] += count[b];
        for (int k = 0; k < nf; k++) {
            int pos = count[(key[k] >> shift) & 255]++;
            key2[pos] = key[k];
            op2[pos] = op[k];
        }
        uint64_t *tk = key; key = key2; key2 = tk;
        int *to = op; op = op2; op2 = to;
    }
    for (int d = 0; d < s->nd; d++)
        s->cur[d] = s->r.peak_memory_bytes[d] = 0;
    int a = 0, f = 0;
    while (a < s->n_started || f < nf) {
        /* skip ops without outputs among the allocations */
        if (a < s->n_started && graph_node_bytes(g, s->started[a]) == 0) {
            a++;
            continue;
        }
        int alloc = f >= nf || (a < s->n_started && time_key(s->r.start_us[s->started[a]]) <= key[f]);
        int i = alloc ? s->started[a++] : op[f++];
        int d = dev[i];
        int64_t b = graph_node_bytes(g, i);
        s->cur[d] += alloc ? b : -b;
        if (s->cur[d] > s->r.peak_memory_bytes[d])
            s->r.peak_memory_bytes[d] = s->cur[d];
    }
    s->r.any_oom = 0;
    for (int d = 0; d < s->nd; d++) {
        s->r.oom[d] = s->r.peak_memory_bytes[d] > s->c->devices[d].memory_bytes;
        s->r.any_oom |= s->r.oom[d];
    }
}

const SimResult *naive_sim_run(NaiveSim *s, const int *op_device)
{
    simulate(s, op_device);
    memory(s, op_device);
    return &s->r;
}

/* Bitwise equality of doubles (so that -0.0 and 0.0 differ, and NaN equals
 * itself). */
static int same_double(double x, double y) { return memcmp(&x, &y, sizeof x) == 0; }

int sim_result_diff(const SimResult *a, const SimResult *b, char *why, size_t n)
{
    if (a->n_ops != b->n_ops || a->n_devices != b->n_devices) {
        snprintf(why, n, "sizes %d ops %d devices vs %d ops %d devices", a->n_ops, a->n_devices, b->n_ops,
                 b->n_devices);
        return 1;
    }
    if (!same_double(a->makespan_us, b->makespan_us)) {
        snprintf(why, n, "makespan %.17g vs %.17g", a->makespan_us, b->makespan_us);
        return 1;
    }
    for (int i = 0; i < a->n_ops; i++)
        if (!same_double(a->start_us[i], b->start_us[i]) || !same_double(a->end_us[i], b->end_us[i])) {
            snprintf(why, n, "op %d: [%.17g, %.17g] vs [%.17g, %.17g]", i, a->start_us[i], a->end_us[i],
                     b->start_us[i], b->end_us[i]);
            return 1;
        }
    if (a->n_transfers != b->n_transfers) {
        snprintf(why, n, "%d transfers vs %d", a->n_transfers, b->n_transfers);
        return 1;
    }
    for (int t = 0; t < a->n_transfers; t++) {
        const SimTransfer *x = &a->transfers[t], *y = &b->transfers[t];
        int same = x->src == y->src && x->output == y->output && x->from == y->from && x->n_to == y->n_to &&
                   x->n_children == y->n_children && x->bytes == y->bytes && same_double(x->start_us, y->start_us) &&
                   same_double(x->end_us, y->end_us);
        for (int k = 0; same && k < x->n_to; k++)
            same = x->to[k] == y->to[k];
        for (int k = 0; same && k < x->n_children; k++)
            same = x->children[k] == y->children[k];
        if (!same) {
            snprintf(why, n, "transfer %d: src %d output %d from %d, %d children, %d destinations, %lld bytes, "
                     "[%.17g, %.17g] vs src %d output %d from %d, %d children, %d destinations, %lld bytes, "
                     "[%.17g, %.17g] (or their lists differ)", t, x->src, x->output, x->from, x->n_children,
                     x->n_to, (long long)x->bytes, x->start_us, x->end_us, y->src, y->output, y->from,
                     y->n_children, y->n_to, (long long)y->bytes, y->start_us, y->end_us);
            return 1;
        }
    }
    for (int d = 0; d < a->n_devices; d++)
        if (!same_double(a->busy_us[d], b->busy_us[d]) || a->peak_memory_bytes[d] != b->peak_memory_bytes[d] ||
            a->oom[d] != b->oom[d]) {
            snprintf(why, n, "device %d: busy %.17g peak %lld oom %d vs busy %.17g peak %lld oom %d", d, a->busy_us[d],
                     (long long)a->peak_memory_bytes[d], a->oom[d], b->busy_us[d],
                     (long long)b->peak_memory_bytes[d], b->oom[d]);
            return 1;
        }
    if (a->any_oom != b->any_oom) {
        snprintf(why, n, "any_oom %d vs %d", a->any_oom, b->any_oom);
        return 1;
    }
    return 0;
}
