/* sim: see sim.h and docs/simulator.md (the model, then "Implementation" for
 * how this code reaches the same result as the event loop the model states).
 *
 * In short: the reference's loop takes events one at a time from one heap,
 * one dependency event per edge. Here
 *   - each device's compute has at most one pending event; they sit in a
 *     tournament tree (sim_impl.h) whose leaves are ordered like the
 *     reference's tie-break (the device's name), so the next event is the
 *     root; the buses have a tree of their own, which wins ties (bus events
 *     come before device events at equal times);
 *   - of an op's dependency events only the one that releases it matters;
 *     when its last parent has scheduled its dependency, the op goes into
 *     its device's release heap under that event's key, and the device takes
 *     the smallest due release whenever it is free: the op the reference's
 *     FIFO would hold first;
 *   - the queues of the reference are FIFO here: ops are queued at the
 *     current time and transfers at their producer's end, both in order;
 *     so a bus's send times follow from its previous one when a transfer is
 *     queued, and a transfer that takes time schedules its consumers then,
 *     without a bus event (the release keys come out the same, see
 *     schedule); only a transfer that arrives the instant it is sent waits
 *     for its bus event.
 * Payloads compare by precomputed ranks of the names (byte-string order). */
#include "sim_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define SIM_INLINE static inline __attribute__((always_inline))
#else
#define SIM_INLINE static inline
#endif

/* trunc(x) for x >= 0, without a call where the CPU has no rounding
 * instruction (from 2^52 on every double is a whole number). */
SIM_INLINE double trunc_pos(double x) { return x < 0x1p52 ? (double)(int64_t)x : x; }

/* Adds device d to the transfer's distinct destinations, in first-seen order. */
SIM_INLINE void add_destination(SimTransfer *tr, int d)
{
    for (int m = 0; m < tr->n_to; m++)
        if (tr->to[m] == d)
            return;
    tr->to[tr->n_to++] = d;
}

/* ---- release heaps (one per device) ---- */

SIM_INLINE int rel_less(const SimRel *a, const SimRel *b)
{
    return a->t < b->t || (a->t == b->t && a->tie < b->tie);
}

static void heap_grow(SimHeap *h)
{
    h->cap = h->cap ? 2 * h->cap : 64;
    h->e = XRENEW(h->e, h->cap);
}

SIM_INLINE void heap_push(SimHeap *h, double t, uint64_t tie)
{
    if (h->n == h->cap)
        heap_grow(h);
    SimRel x = {t, tie};
    int i = h->n++;
    while (i > 0) {
        int p = (i - 1) >> 1;
        if (!rel_less(&x, &h->e[p]))
            break;
        h->e[i] = h->e[p];
        i = p;
    }
    h->e[i] = x;
}

/* Removes the smallest release. */
SIM_INLINE void heap_pop(SimHeap *h)
{
    SimRel last = h->e[--h->n];
    int n = h->n, i = 0;
    for (;;) {
        int l = 2 * i + 1;
        if (l >= n)
            break;
        if (l + 1 < n && rel_less(&h->e[l + 1], &h->e[l]))
            l++;
        if (!rel_less(&h->e[l], &last))
            break;
        h->e[i] = h->e[l];
        i = l;
    }
    h->e[i] = last;
}

/* ---- the tournament of resources ---- */

/* Two trees of H leaves (sim_impl.h): the buses' (times lt[0 .. H), winners
 * win[0 .. 2H)) and the devices' (lt[H ..], win[2H ..]). */
#define BUS_LT(s) ((s)->blt)
#define BUS_WIN(s) ((s)->bwin)
#define DEV_LT(s) ((s)->dlt)
#define DEV_WIN(s) ((s)->dwin)

/* Leaf `leaf` of a tree changed its time: replays its matches up to the
 * root, the candidate kept in registers (each match reads only the other
 * side's winner, which did not change). The left side has the smaller leaf
 * indices, so it wins ties. */
SIM_INLINE void replay_in(const double *lt, int *win, int H, int leaf)
{
    int w = leaf;
    double tw = lt[leaf];
    for (int i = H + leaf; i > 1; i >>= 1) {
        int o = win[i ^ 1];
        double to = lt[o];
        if ((i & 1) ? to <= tw : to < tw) {
            w = o;
            tw = to;
        }
        win[i >> 1] = w;
    }
}

/* Leaf `leaf`'s time went down: it wins the matches up to the first it
 * loses, whose winner (and so everything above) is what it was, the leaf
 * having lost there with its later time too. */
SIM_INLINE void lower_in(const double *lt, int *win, int H, int leaf)
{
    double tw = lt[leaf];
    for (int i = H + leaf; i > 1; i >>= 1) {
        double to = lt[win[i ^ 1]];
        if ((i & 1) ? to <= tw : to < tw)
            return;
        win[i >> 1] = leaf;
    }
}

SIM_INLINE void replay_dev(Sim *s, int leaf) { replay_in(DEV_LT(s), DEV_WIN(s), s->H, leaf); }
SIM_INLINE void replay_bus(Sim *s, int leaf) { replay_in(BUS_LT(s), BUS_WIN(s), s->H, leaf); }

/* ---- dependencies and releases ---- */

/* Op c's last dependency was scheduled: its release, due at t, waits on its
 * device. The device's event is when it is free and its earliest release
 * due: max(dfree, the earliest release). */
SIM_INLINE void release(Sim *s, int c, double t, uint64_t tie)
{
    int x = s->dev[c];
    heap_push(&s->rel[x], t, tie);
    int leaf = s->dev_rank[x];
    double *lt = DEV_LT(s), due = t > s->dfree[x] ? t : s->dfree[x];
    if (due < lt[leaf]) {
        lt[leaf] = due;
        lower_in(lt, DEV_WIN(s), s->H, leaf);
    }
}

/* The dependency (p, c) of edge rank er is scheduled at t during the
 * resource event at `now`. c is released by whichever of its dependency
 * events the reference takes last: the largest key among those it has not
 * taken yet. Those are the ones due after now (any due at or before now has
 * a smaller key than the event being processed, so it was taken already)
 * and this one.
 *
 * With now nondecreasing and every t >= its now, that comes to: the
 * largest (t, rank) of all of c's dependencies if its time is later than
 * the now of the last one scheduled (none of those was taken), else that
 * last one, due at its now, after the events the reference took before.
 * So dep[c] keeps the largest (t, rank) so far. A dependency due later than
 * its transfer is sent may therefore be scheduled earlier, when the
 * transfer is queued (run_op): its t is later than its own now and than
 * every earlier now, so it never makes the second case, and the key is the
 * same. */
SIM_INLINE void schedule(Sim *s, int c, double t, uint32_t er, double now, int record)
{
    SimDep *dp = &s->dep[c];
    double rt = dp->t;
    if (record) {
        if (s->log_len == s->log_cap) {
            s->log_cap = s->log_cap ? 2 * s->log_cap : 1024;
            s->log = XRENEW(s->log, s->log_cap);
        }
        s->log[s->log_len++] = (SimUndo){c, dp->e, rt};
    }
    if (t > rt || (t == rt && er > dp->e)) {
        dp->t = t;
        dp->e = er;
    }
    if (--dp->waiting == 0) {
        if (dp->t > now)
            release(s, c, dp->t, dp->e);
        else /* due now: after every event due now that the reference took
              * before this one, so its tie starts with the number of this
              * event (below 2^32: a run has a few events per op and edge) */
            release(s, c, now, (uint64_t)s->events << 32 | er);
    }
}

/* ---- the resource events ---- */

/* What the memory pass needs of op starting on x at t with cost c: its
 * children's free time and, for an op with outputs, its allocation (full
 * runs, and sim_fill_full after the order loop). */
SIM_INLINE void record_start(Sim *s, int op, int x, double t, double c)
{
    s->relf[op] = trunc_pos(t) + trunc_pos(c) - 1.0;
    s->apos[op] = s->n_alloc;
    if (s->bytes[op]) {
        int k = s->n_alloc++;
        s->a_t[k] = t;
        s->a_m[k] = s->bytes[op];
        s->a_d[k] = x;
        s->a_op[k] = op;
    }
}

/* Op `op` starts on device x at t (the device's leaf is `leaf`): its end, the
 * device's next event, its local children's dependencies and one transfer
 * per output index with remote consumers, in the order in which each index
 * first appears among them, queued on x's bus. */
SIM_INLINE void run_op(Sim *s, int op, int x, int leaf, double t, int full, int record, int order)
{
    SimResult *r = &s->r;
    const int *dev = s->dev;
    double c = s->cost[(size_t)op * (size_t)s->nd + (size_t)x];
    double end = t + c;
    r->start_us[op] = t;
    r->end_us[op] = end;
    r->busy_us[x] += c;
    if (full)
        record_start(s, op, x, t, c);
    if (order)
        s->a_op[s->n_order++] = op;
    if (record)
        s->run_idx[op] = s->events;
    /* the device's next event: when it is free, if a root or a due release
     * waits, else at its earliest release (releases pushed later move it
     * earlier, see release); none if nothing waits, the free time being
     * kept for the runtime. The reference takes an event when the device
     * is free even if nothing is due, which only marks it idle. */
    double free_at = end + (c > 0 ? s->gap : 0);
    const SimHeap *h = &s->rel[x];
    s->dfree[x] = free_at;
    DEV_LT(s)[leaf] = s->root_head[x] >= 0 || (h->n && h->e[0].t <= free_at) ? free_at
                      : h->n                                                 ? h->e[0].t
                                                                             : INFINITY;
    replay_dev(s, leaf);
    int k0 = s->ch_off[op], k1 = s->ch_off[op + 1];
    int first = r->n_transfers, n_tr = 0;
    if (!full && !record && !order && s->one_out[op] && k0 < k1) {
        /* a makespan loop (its transfers are not part of the result): the
         * one transfer's times are known now; when it takes time, its
         * consumers are scheduled directly, nothing recorded */
        double sent = end > s->bfree[x] ? end : s->bfree[x];
        double arrive = sent + (double)s->ebytes[k0] / s->bandwidth;
        if (arrive > sent) {
            int remote = 0;
            for (int k = k0; k < k1; k++) {
                int ch = s->ch[k], far = dev[ch] != x;
                remote |= far;
                schedule(s, ch, far ? arrive : end, s->erank[k], t, 0);
            }
            if (remote)
                s->bfree[x] = arrive + s->overhead;
            return;
        }
    }
    if (s->one_out[op]) {
        /* every consumer reads the same output: at most one transfer */
        SimTransfer *tr = &r->transfers[first];
        for (int k = k0; k < k1; k++) {
            int ch = s->ch[k], d = dev[ch];
            if (d == x) {
                schedule(s, ch, end, s->erank[k], t, record);
                continue;
            }
            if (!n_tr) {
                n_tr = 1;
                tr->src = op;
                tr->output = s->eout[k];
                tr->from = x;
                tr->bytes = s->ebytes[k];
                tr->children = s->pool + k0;
                tr->to = s->to_pool + k0;
                tr->n_children = tr->n_to = 0;
            }
            s->tr_erank[k0 + tr->n_children] = s->erank[k];
            tr->children[tr->n_children++] = ch;
            if (full)
                add_destination(tr, d);
        }
    } else {
        for (int k = k0; k < k1; k++) {
            int ch = s->ch[k];
            if (dev[ch] == x) {
                schedule(s, ch, end, s->erank[k], t, record);
                s->slot[k - k0] = -1;
                continue;
            }
            int out = s->eout[k], j = 0;
            while (j < n_tr && r->transfers[first + j].output != out)
                j++;
            if (j == n_tr) {
                SimTransfer *tr = &r->transfers[first + n_tr++];
                tr->src = op;
                tr->output = out;
                tr->from = x;
                tr->bytes = s->ebytes[k];
                tr->n_children = tr->n_to = 0;
                s->cnt[j] = 0;
            }
            s->slot[k - k0] = j;
            s->cnt[j]++;
        }
        int pos = k0;
        for (int j = 0; j < n_tr; j++) {
            SimTransfer *tr = &r->transfers[first + j];
            tr->children = s->pool + pos;
            tr->to = s->to_pool + pos;
            pos += s->cnt[j];
        }
        for (int k = k0; k < k1 && n_tr; k++) {
            if (s->slot[k - k0] < 0)
                continue;
            SimTransfer *tr = &r->transfers[first + s->slot[k - k0]];
            int ch = s->ch[k], d = dev[ch];
            s->tr_erank[(tr->children - s->pool) + tr->n_children] = s->erank[k];
            tr->children[tr->n_children++] = ch;
            if (full)
                add_destination(tr, d);
        }
    }
    if (!n_tr)
        return;
    r->n_transfers += n_tr;
    /* The bus sends its transfers in the order they are queued, each at
     * max(ready, bus free): the times are known now. A transfer that takes
     * time schedules its consumers' dependencies now (their release keys do
     * not depend on when they are scheduled, see schedule); one that
     * arrives the instant it is sent waits for its bus event, whose number
     * its consumers' keys take. */
    double bf = s->bfree[x];
    for (int j = first; j < first + n_tr; j++) {
        SimTransfer *tr = &r->transfers[j];
        double sent = end > bf ? end : bf;
        double arrive = sent + (double)tr->bytes / s->bandwidth;
        tr->start_us = sent;
        tr->end_us = arrive;
        bf = arrive + s->overhead;
        if (arrive > sent) {
            const uint32_t *er = s->tr_erank + (tr->children - s->pool);
            for (int k = 0; k < tr->n_children; k++)
                schedule(s, tr->children[k], arrive, er[k], t, record);
            continue;
        }
        s->tr_next[j] = -1;
        if (s->bus_tail[x] >= 0)
            s->tr_next[s->bus_tail[x]] = j;
        else
            s->bus_head[x] = j;
        s->bus_tail[x] = j;
        int bl = s->dev_rank[x];
        if (BUS_LT(s)[bl] == INFINITY) {
            BUS_LT(s)[bl] = sent;
            lower_in(BUS_LT(s), BUS_WIN(s), s->H, bl);
        }
    }
    s->bfree[x] = bf;
}

/* With a cutoff: 1 when op, about to start on x at t, shows that the
 * makespan reaches s->cut (sim_makespan_cut), else its work leaves x's
 * remaining work. The makespan is at least t + tail[op] (a path of its
 * descendants) and t + rem[x] (every op left on x, one after another); the
 * sums are rounded differently from the run's, so the bound keeps a
 * relative margin far above their error. */
#define SIM_CUT_MARGIN 1e-9
SIM_INLINE int cut_reached(Sim *s, int op, int x, double t)
{
    double w = s->rem[x], tl = s->tail[op];
    double b = t + (tl > w ? tl : w);
    if (b - b * SIM_CUT_MARGIN >= s->cut)
        return 1;
    double c = s->cost[(size_t)op * (size_t)s->nd + (size_t)x]; /* run_op reads it next: no miss there */
    s->rem[x] = w - (c + (c > 0 ? s->gap : 0));
    return 0;
}

/* Device event (leaf `leaf`) at t: run the smallest due release, or idle.
 * Returns 1 when a cut run stops here (nothing changed). */
SIM_INLINE int device_event(Sim *s, int leaf, double t, int full, int record, int cut, int order)
{
    int x = s->dev_of_rank[leaf], op = s->root_head[x];
    if (op >= 0) { /* the roots come first: due at 0, with the smallest keys */
        if (cut && cut_reached(s, op, x, t))
            return 1;
        s->root_head[x] = s->root_next[op];
        run_op(s, op, x, leaf, t, full, record, order);
        return 0;
    }
    SimHeap *h = &s->rel[x];
    if (h->n == 0 || h->e[0].t > t) { /* not reached: the event is at a due release */
        DEV_LT(s)[leaf] = h->n ? h->e[0].t : INFINITY;
        replay_dev(s, leaf);
        return 0;
    }
    op = s->item_op[(uint32_t)h->e[0].tie];
    if (cut && cut_reached(s, op, x, t))
        return 1;
    heap_pop(h);
    run_op(s, op, x, leaf, t, full, record, order);
    return 0;
}

/* Bus event (leaf `leaf`) at t: the head of its queue of instant
 * transfers (run_op) is sent now; its consumers' dependencies are due now. */
SIM_INLINE void bus_event(Sim *s, int leaf, double t, int record)
{
    int x = s->dev_of_rank[leaf], idx = s->bus_head[x];
    const SimTransfer *tr = &s->r.transfers[idx];
    s->bus_head[x] = s->tr_next[idx];
    if (s->bus_head[x] < 0) {
        s->bus_tail[x] = -1;
        BUS_LT(s)[leaf] = INFINITY;
    } else {
        BUS_LT(s)[leaf] = s->r.transfers[s->bus_head[x]].start_us;
    }
    replay_bus(s, leaf);
    const uint32_t *er = s->tr_erank + (tr->children - s->pool);
    for (int k = 0; k < tr->n_children; k++)
        schedule(s, tr->children[k], tr->end_us, er[k], t, record);
}

SIM_INLINE void loop(Sim *s, int full, int record, int cut, int order)
{
    for (;;) {
        /* the earlier of the two trees' winners; a bus first at equal times */
        int wd = DEV_WIN(s)[1], wb = BUS_WIN(s)[1];
        double td = DEV_LT(s)[wd], tb = BUS_LT(s)[wb];
        int bus = tb <= td;
        double t = bus ? tb : td;
        if (t == INFINITY)
            break;
        if (cut && t >= s->cut) { /* every event time is a lower bound */
            s->stopped = 1;
            s->makespan = t;
            return;
        }
        if (record && s->events == s->next_ck)
            sim_checkpoint(s);
        s->events++;
        s->makespan = t; /* event times never decrease */
        if (bus) {
            bus_event(s, wb, t, record);
        } else if (device_event(s, wd, t, full, record, cut, order)) {
            s->stopped = 1;
            s->makespan = s->cut;
            return;
        }
    }
    /* the events a device or bus skipped when it became idle (run_op,
     * bus_event): the runtime is the last event's time */
    for (int d = 0; d < s->nd; d++) {
        if (s->bfree[d] > s->makespan)
            s->makespan = s->bfree[d];
        if (s->dfree[d] > s->makespan)
            s->makespan = s->dfree[d];
    }
}

void sim_loop_full(Sim *s) { loop(s, 1, 0, 0, 0); }
void sim_loop_makespan(Sim *s) { loop(s, 0, 0, 0, 0); }
void sim_loop_record(Sim *s) { loop(s, 1, 1, 0, 0); }
void sim_loop_order_cut(Sim *s) { loop(s, 0, 0, 1, 1); }
void sim_loop_makespan_cut(Sim *s) { loop(s, 0, 0, 1, 0); }

void sim_fill_full(Sim *s)
{
    const int *dev = s->dev;
    int nd = s->nd;
    s->n_alloc = 0;
    for (int i = 0; i < s->n_order; i++) { /* in place: allocation k <= i overwrites a_op[k], read already */
        int op = s->a_op[i], x = dev[op];
        record_start(s, op, x, s->r.start_us[op], s->cost[(size_t)op * (size_t)nd + (size_t)x]);
    }
    for (int j = 0; j < s->r.n_transfers; j++) {
        SimTransfer *tr = &s->r.transfers[j];
        for (int k = 0; k < tr->n_children; k++)
            add_destination(tr, dev[tr->children[k]]);
    }
}

void sim_start(Sim *s, const int *dev)
{
    int n = s->n, nd = s->nd, L = s->L, H = s->H;
    s->dev = dev;
    s->r.device = dev;
    s->r.n_transfers = 0;
    s->n_alloc = s->n_order = 0;
    s->events = 0;
    s->makespan = 0;
    for (int d = 0; d < nd; d++) {
        s->dfree[d] = 0;
        s->rel[d].n = 0;
        s->bus_head[d] = s->bus_tail[d] = -1;
        s->bfree[d] = 0;
        s->r.busy_us[d] = 0;
    }
    memcpy(s->dep, s->dep0, (size_t)n * sizeof *s->dep);
    /* the roots, released at 0 in graph order before anything else: a list
     * per device, taken before the release heap */
    for (int d = 0; d < nd; d++)
        s->root_head[d] = -1;
    for (int k = s->n_roots - 1; k >= 0; k--) {
        int op = s->roots[k], d = dev[op];
        s->root_next[op] = s->root_head[d];
        s->root_head[d] = op;
    }
    for (int j = 0; j < L; j++)
        s->lt[j] = INFINITY;
    for (int d = 0; d < nd; d++)
        if (s->root_head[d] >= 0)
            DEV_LT(s)[s->dev_rank[d]] = 0.0;
    for (int tree = 0; tree < 2; tree++) {
        const double *lt = s->lt + tree * H;
        int *win = s->win + 2 * tree * H;
        for (int j = 0; j < H; j++)
            win[H + j] = j;
        for (int i = H - 1; i > 0; i--) {
            int a = win[2 * i], b = win[2 * i + 1];
            win[i] = lt[a] <= lt[b] ? a : b;
        }
    }
}

/* ---- the workspace ---- */

/* The graph's adjacency as arrays: children in CSR, each edge's output,
 * bytes and the rank of (parent name, child name) among all edges. */
static void build_edges(Sim *s, const int *name_rank)
{
    const Graph *g = s->g;
    int n = s->n, m = 0;
    s->ch_off = XMALLOC(int, n + 1);
    s->n_par = XMALLOC(int, n);
    s->one_out = XMALLOC(uint8_t, n);
    s->bytes = XMALLOC(int64_t, n);
    s->ch_off[0] = 0;
    int max_children = 1;
    for (int i = 0; i < n; i++) {
        s->ch_off[i + 1] = s->ch_off[i] + g->nodes[i].n_children;
        if (g->nodes[i].n_children > max_children)
            max_children = g->nodes[i].n_children;
        s->n_par[i] = g->nodes[i].n_parents;
        s->bytes[i] = graph_node_bytes(g, i);
        s->n_roots += g->nodes[i].n_parents == 0;
    }
    m = s->ch_off[n];
    s->ch = XMALLOC(int, m);
    s->eout = XMALLOC(int, m);
    s->ebytes = XMALLOC(int64_t, m);
    s->erank = XMALLOC(uint32_t, m);
    uint64_t *key = XMALLOC(uint64_t, m), *key2 = XMALLOC(uint64_t, m);
    int *idx = XMALLOC(int, m), *idx2 = XMALLOC(int, m);
    for (int i = 0; i < n; i++) {
        const GraphNode *nd = &g->nodes[i];
        s->one_out[i] = 1;
        for (int k = 0; k < nd->n_children; k++) {
            int e = s->ch_off[i] + k, c = nd->children[k];
            s->ch[e] = c;
            s->eout[e] = nd->child_output[k];
            s->ebytes[e] = graph_edge_bytes(g, i, nd->child_output[k]);
            if (nd->child_output[k] != nd->child_output[0])
                s->one_out[i] = 0;
            key[e] = (uint64_t)name_rank[i] << 32 | (uint64_t)name_rank[c];
            idx[e] = e;
        }
    }
    const int *order = sim_radix_sort(key, idx, key2, idx2, m) ? idx2 : idx;
    s->item_op = XMALLOC(int, m);
    s->roots = XMALLOC(int, s->n_roots);
    for (int i = 0, k = 0; i < n; i++)
        if (s->n_par[i] == 0)
            s->roots[k++] = i;
    for (int r = 0; r < m; r++) {
        s->erank[order[r]] = (uint32_t)r;
        s->item_op[r] = s->ch[order[r]];
    }
    free(key);
    free(key2);
    free(idx);
    free(idx2);
    s->pool = XMALLOC(int, m);
    s->to_pool = XMALLOC(int, m);
    s->tr_erank = XMALLOC(uint32_t, m);
    s->tr_next = XMALLOC(int, m);
    s->slot = XMALLOC(int, max_children);
    s->cnt = XMALLOC(int, max_children);
}

Sim *sim_new(const Graph *g, const Cluster *c)
{
    Sim *s = xcalloc(1, sizeof *s);
    int n = g->n_nodes, nd = c->n_devices;
    s->g = g;
    s->c = c;
    s->n = n;
    s->nd = nd;
    s->gap = c->op_gap_us;
    s->overhead = c->transfer_overhead_us;
    s->bandwidth = c->bandwidth_bytes_per_us;
    s->cost = XMALLOC(double, xmul((size_t)n, (size_t)nd));
    for (int i = 0; i < n; i++)
        for (int d = 0; d < nd; d++)
            s->cost[(size_t)i * (size_t)nd + (size_t)d] = cluster_op_cost(c, g, i, d);
    const char **names = XMALLOC(const char *, n > nd ? n : nd);
    int *name_rank = XMALLOC(int, n);
    for (int i = 0; i < n; i++)
        names[i] = g->nodes[i].name;
    util_rank_strings(names, n, name_rank);
    s->dev_rank = XMALLOC(int, nd);
    s->dev_of_rank = XMALLOC(int, nd);
    for (int d = 0; d < nd; d++)
        names[d] = c->devices[d].name;
    util_rank_strings(names, nd, s->dev_rank);
    for (int d = 0; d < nd; d++)
        s->dev_of_rank[s->dev_rank[d]] = d;
    free(names);
    build_edges(s, name_rank);
    free(name_rank);
    s->H = 1;
    while (s->H < nd)
        s->H *= 2;
    s->L = 2 * s->H;
    s->lt = XMALLOC(double, s->L);
    s->win = XMALLOC(int, 2 * s->L);
    s->blt = s->lt;
    s->dlt = s->lt + s->H;
    s->bwin = s->win;
    s->dwin = s->win + 2 * s->H;
    s->dfree = XMALLOC(double, nd);
    s->rel = XNEW(SimHeap, nd);
    s->root_head = XMALLOC(int, nd);
    s->root_next = XMALLOC(int, n);
    s->bus_head = XMALLOC(int, nd);
    s->bus_tail = XMALLOC(int, nd);
    s->bfree = XMALLOC(double, nd);
    s->dep = XNEW(SimDep, n);
    s->dep0 = XNEW(SimDep, n);
    for (int i = 0; i < n; i++)
        s->dep0[i] = (SimDep){-1.0, 0, s->n_par[i]};
    s->a_t = XMALLOC(double, n);
    s->a_m = XMALLOC(int64_t, n);
    s->a_d = XMALLOC(int, n);
    s->a_op = XMALLOC(int, n);
    s->relf = XMALLOC(double, n);
    s->apos = XMALLOC(int, n);
    s->fhead = XMALLOC(int, n + 1);
    s->frow = nd <= 4 ? XMALLOC(int64_t, 4 * ((size_t)n + 1)) : NULL;
    s->fnext = XMALLOC(int, n);
    s->ftime = XMALLOC(double, n);
    s->fhint = XMALLOC(int, n);
    s->cur = XMALLOC(int64_t, nd);
    s->r.n_ops = n;
    s->r.n_devices = nd;
    s->r.start_us = XNEW(double, n);
    s->r.end_us = XNEW(double, n);
    s->r.transfers = XMALLOC(SimTransfer, g->n_edges);
    s->r.busy_us = XMALLOC(double, nd);
    s->r.peak_memory_bytes = XMALLOC(int64_t, nd);
    s->r.oom = XMALLOC(int, nd);
    return s;
}

void sim_free(Sim *s)
{
    if (!s)
        return;
    sim_inc_free(s);
    for (int d = 0; d < s->nd; d++)
        free(s->rel[d].e);
    free(s->rel);
    free(s->root_head);
    free(s->root_next);
    free(s->cost);
    free(s->ch_off);
    free(s->ch);
    free(s->erank);
    free(s->eout);
    free(s->ebytes);
    free(s->n_par);
    free(s->item_op);
    free(s->roots);
    free(s->dev_rank);
    free(s->dev_of_rank);
    free(s->one_out);
    free(s->bytes);
    free(s->lt);
    free(s->win);
    free(s->dfree);
    free(s->dep);
    free(s->dep0);
    free(s->bus_head);
    free(s->bus_tail);
    free(s->bfree);
    free(s->tr_next);
    free(s->tr_erank);
    free(s->pool);
    free(s->to_pool);
    free(s->slot);
    free(s->cnt);
    free(s->a_t);
    free(s->a_m);
    free(s->a_d);
    free(s->a_op);
    free(s->relf);
    free(s->apos);
    free(s->fhead);
    free(s->frow);
    free(s->fnext);
    free(s->ftime);
    free(s->fhint);
    free(s->cur);
    free(s->r.start_us);
    free(s->r.end_us);
    free(s->r.transfers);
    free(s->r.busy_us);
    free(s->r.peak_memory_bytes);
    free(s->r.oom);
    free(s->tail);
    free(s->rem);
    free(s);
}

/* Per op, a lower bound of the time from its start to the end of the run
 * on any placement: its cheapest cost, then the longest such bound among
 * its children, each reached no earlier than the op's end plus the
 * smaller of the gap after it and its output's time on a bus; the gap
 * after an op that has no children. Children before parents (Kahn's order,
 * reversed). */
static void build_tails(Sim *s)
{
    int n = s->n, nd = s->nd, *order = XMALLOC(int, n), *left = XMALLOC(int, n), len = 0;
    s->tail = XNEW(double, n); /* 0 (a bound too) for an op Kahn's order misses: none in a DAG */
    s->rem = XMALLOC(double, 5 * (size_t)nd); /* and four lanes of sums (device_work) */
    for (int i = 0; i < n; i++)
        if ((left[i] = s->n_par[i]) == 0)
            order[len++] = i;
    for (int k = 0; k < len; k++)
        for (int e = s->ch_off[order[k]]; e < s->ch_off[order[k] + 1]; e++)
            if (--left[s->ch[e]] == 0)
                order[len++] = s->ch[e];
    for (int k = len - 1; k >= 0; k--) {
        int op = order[k];
        double c = s->cost[(size_t)op * (size_t)nd];
        for (int d = 1; d < nd; d++)
            if (s->cost[(size_t)op * (size_t)nd + (size_t)d] < c)
                c = s->cost[(size_t)op * (size_t)nd + (size_t)d];
        double gap = c > 0 ? s->gap : 0, after = s->ch_off[op] == s->ch_off[op + 1] ? gap : 0;
        for (int e = s->ch_off[op]; e < s->ch_off[op + 1]; e++) {
            double wire = (double)s->ebytes[e] / s->bandwidth, hop = gap < wire ? gap : wire;
            if (hop + s->tail[s->ch[e]] > after)
                after = hop + s->tail[s->ch[e]];
        }
        s->tail[op] = c + after;
    }
    free(order);
    free(left);
}

/* Each device's work on op_device: its ops' costs and the gaps after
 * them, summed in four interleaved lanes (a chain of sums in memory costs
 * more than the rest of a cut run's set-up). */
static void device_work(Sim *s, const int *op_device)
{
    int n = s->n, nd = s->nd;
    double *lane = s->rem + nd, gap = s->gap;
    const double *cost = s->cost;
    memset(lane, 0, 4 * (size_t)nd * sizeof *lane);
    int i = 0;
    for (; i + 4 <= n; i += 4)
        for (int j = 0; j < 4; j++) {
            double c = cost[(size_t)(i + j) * (size_t)nd + (size_t)op_device[i + j]];
            lane[j * nd + op_device[i + j]] += c + (c > 0 ? gap : 0);
        }
    for (; i < n; i++) {
        double c = cost[(size_t)i * (size_t)nd + (size_t)op_device[i]];
        lane[op_device[i]] += c + (c > 0 ? gap : 0);
    }
    for (int d = 0; d < nd; d++)
        s->rem[d] = (lane[d] + lane[nd + d]) + (lane[2 * nd + d] + lane[3 * nd + d]);
}

/* A whole run of op_device: the loop (full: with the transfers'
 * destinations and the allocations), then peak memory when mem is 2; mem
 * also records what sim_result_memory may still do. cut: stop once a
 * lower bound of the makespan reaches it (INFINITY: never); a full run
 * with a cutoff then records only the ops' order and fills the rest in
 * when the result is asked for (sim_fill_full): most such runs stop, or
 * their placement is not kept. */
static double whole_run(Sim *s, const int *op_device, int full, int mem, double cut)
{
    const double *work = s->work;
    s->work = NULL;
    s->hist = 0;
    sim_start(s, op_device);
    s->stopped = 0;
    if (cut < INFINITY) {
        if (!s->tail)
            build_tails(s);
        s->cut = cut;
        if (work)
            memcpy(s->rem, work, (size_t)s->nd * sizeof *s->rem);
        else
            device_work(s, op_device);
        if (full)
            sim_loop_order_cut(s);
        else
            sim_loop_makespan_cut(s);
    } else if (full) {
        sim_loop_full(s);
    } else {
        sim_loop_makespan(s);
    }
    s->r.makespan_us = s->makespan;
    if (s->stopped) { /* a bound: sim_result_memory simulates it again */
        mem = 0;
    } else if (full && cut < INFINITY) { /* the order loop (sim_run_lazy_cut): filled in on demand */
        mem = 3;
    } else if (mem == 2) {
        sim_memory(s);
    }
    s->mem = mem;
    sim_notify(s, s->makespan, mem == 2 ? &s->r : NULL);
    return s->makespan;
}

const SimResult *sim_run(Sim *s, const int *op_device)
{
    whole_run(s, op_device, 1, 2, INFINITY);
    return &s->r;
}

double sim_run_lazy(Sim *s, const int *op_device) { return whole_run(s, op_device, 1, 1, INFINITY); }

double sim_makespan(Sim *s, const int *op_device) { return whole_run(s, op_device, 0, 0, INFINITY); }

double sim_makespan_cut(Sim *s, const int *op_device, double cutoff)
{
    return whole_run(s, op_device, 0, 0, cutoff);
}

double sim_run_lazy_cut(Sim *s, const int *op_device, double cutoff)
{
    return whole_run(s, op_device, 1, 1, cutoff);
}

/* The calling thread's observer (sim_observe). */
static _Thread_local SimObserver observer;
static _Thread_local void *observer_ud;

void sim_observe(SimObserver fn, void *ud)
{
    observer = fn;
    observer_ud = ud;
}

void sim_give_device_work(Sim *s, const double *work) { s->work = work; }

void sim_set_quiet(Sim *s, int quiet) { s->quiet = quiet; }

void sim_tell(double makespan_us, const SimResult *r)
{
    if (observer)
        observer(observer_ud, makespan_us, r);
}

void sim_notify(const Sim *s, double makespan_us, const SimResult *r)
{
    if (!s->quiet)
        sim_tell(makespan_us, r);
}
