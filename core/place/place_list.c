/* place_list: list-scheduling and model-parallel heuristics on the group
 * graph (every op of a group on the group's device, so colocation classes stay
 * together):
 *
 *   heft    HEFT (Topcuoglu, Hariri, Wu 2002): upward ranks with mean costs
 *           and mean communication, tasks taken by decreasing rank, each on
 *           the device with the earliest finish time, insertion-based.
 *   m-topo  Baechi's m-TOPO (Jeon et al. 2020): the topological order filled
 *           into device 0 up to its share of the work, then device 1, ...,
 *           skipping devices whose memory would overflow.
 *   m-etf   Baechi's m-ETF (in place_etf.c): repeatedly the (ready group,
 *           device) pair with the earliest start, skipping devices whose
 *           memory would overflow.
 *   expert  the topological order cut into one contiguous stage per device of
 *           about equal time (layer-wise model parallelism); on a graph with
 *           layer tags (sequence models), one layer per device as in the
 *           expert placement of NMT by Mirhoseini et al. (2017).
 *
 * Estimates follow the simulator's model: a group occupies device d for the
 * sum over its ops of cluster_op_cost plus op_gap_us after each op of nonzero
 * cost; an edge between groups on different devices costs bytes /
 * bandwidth_bytes_per_us + transfer_overhead_us, on one device nothing. The
 * memory estimate of a device is the sum of the output bytes of the groups
 * placed there, an upper bound of the simulator's peak (docs/simulator.md,
 * "Memory"), so a method that keeps it within memory_bytes never runs out of
 * memory in the simulator. Deterministic; never prints. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "place_methods.h"

/* ------------------------------------------------------------------ */
/* Shared estimates                                                    */

/* Time group k occupies device d: its ops' costs and the gap after each. */
static double group_time(const PlaceCtx *ctx, int k, int d)
{
    const Grouping *gr = ctx->gr;
    double s = 0;
    for (int j = gr->member_off[k]; j < gr->member_off[k + 1]; j++) {
        double c = cluster_op_cost(ctx->c, ctx->g, gr->members[j], d);
        s += c + (c > 0 ? ctx->c->op_gap_us : 0);
    }
    return s;
}

/* times[k * D + d] for every group and device. */
double *place_list_group_times(const PlaceCtx *ctx)
{
    int n = ctx->gr->n_groups, nd = ctx->c->n_devices;
    double *t = xmalloc_array((size_t)n * (size_t)nd, sizeof *t);
    for (int k = 0; k < n; k++)
        for (int d = 0; d < nd; d++)
            t[(size_t)k * (size_t)nd + (size_t)d] = group_time(ctx, k, d);
    return t;
}

double place_list_comm_time(const Cluster *c, int64_t bytes)
{
    return (double)bytes / c->bandwidth_bytes_per_us + c->transfer_overhead_us;
}

/* Per device total time of all groups; 0 when some device's total is 0. The
 * common finish time of a perfect split: 1 / sum_d (1 / total_d). */
static double balanced_time(const double *times, int n, int nd)
{
    double inv = 0;
    for (int d = 0; d < nd; d++) {
        double tot = 0;
        for (int k = 0; k < n; k++)
            tot += times[(size_t)k * (size_t)nd + (size_t)d];
        if (!(tot > 0))
            return 0;
        inv += 1 / tot;
    }
    return inv > 0 ? 1 / inv : 0;
}

/* Device with the most free memory (first on ties). */
int place_list_most_free_device(const Cluster *c, const int64_t *mem)
{
    int best = 0;
    for (int d = 1; d < c->n_devices; d++)
        if (c->devices[d].memory_bytes - mem[d] > c->devices[best].memory_bytes - mem[best])
            best = d;
    return best;
}

static int fits(const Cluster *c, const int64_t *mem, int d, int64_t bytes)
{
    return mem[d] + bytes <= c->devices[d].memory_bytes;
}

/* ------------------------------------------------------------------ */
/* HEFT                                                                */

typedef struct Slot {
    double s, f;
} Slot;

/* Decreasing rank; ranks within a relative 1e-9 tie and go to the lower
 * index, so that rounding noise in the ranks does not decide the order. */
static int rank_before(const double *rank, int a, int b)
{
    double ra = rank[a], rb = rank[b];
    double tol = 1e-9 * fmax(fabs(ra), fabs(rb));
    if (ra - rb > tol)
        return 1;
    if (rb - ra > tol)
        return 0;
    return a < b;
}

/* The ready tasks as a binary heap, highest rank (rank_before) on top. */
static void rank_heap_push(int *heap, int *n, int t, const double *rank)
{
    int i = (*n)++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!rank_before(rank, t, heap[p]))
            break;
        heap[i] = heap[p];
        i = p;
    }
    heap[i] = t;
}

static int rank_heap_pop(int *heap, int *n, const double *rank)
{
    int top = heap[0], t = heap[--*n], i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && rank_before(rank, heap[c + 1], heap[c]))
            c++;
        if (!rank_before(rank, heap[c], t))
            break;
        heap[i] = heap[c];
        i = c;
    }
    if (*n > 0)
        heap[i] = t;
    return top;
}

/* A processor's busy slots, sorted by start (they never overlap), with the
 * largest idle gap before a slot of each block of SLOT_BLOCK slots, so that
 * the search for a gap skips whole blocks: inserting stays a memmove, and
 * finding a gap no longer walks every earlier slot of a long schedule. */
#define SLOT_BLOCK 32

typedef struct SlotList {
    Slot *sl;
    double *bmax; /* per block: the largest sl[j].s - sl[j - 1].f in it (j >= 1) */
    int n, cap;
} SlotList;

static double slot_gap(const SlotList *L, int j) { return j ? L->sl[j].s - L->sl[j - 1].f : L->sl[0].s; }

static void slot_blocks_from(SlotList *L, int j)
{
    for (int b = j / SLOT_BLOCK; b * SLOT_BLOCK < L->n; b++) {
        double m = 0;
        int hi = (b + 1) * SLOT_BLOCK < L->n ? (b + 1) * SLOT_BLOCK : L->n;
        for (int k = b * SLOT_BLOCK; k < hi; k++)
            m = fmax(m, slot_gap(L, k));
        L->bmax[b] = m;
    }
}

static void slot_insert(SlotList *L, int pos, Slot x)
{
    if (L->n == L->cap) {
        L->cap = L->cap ? 2 * L->cap : 64;
        L->sl = xrealloc_array(L->sl, (size_t)L->cap, sizeof *L->sl);
        L->bmax = xrealloc_array(L->bmax, (size_t)(L->cap / SLOT_BLOCK + 1), sizeof *L->bmax);
    }
    memmove(L->sl + pos + 1, L->sl + pos, (size_t)(L->n - pos) * sizeof *L->sl);
    L->sl[pos] = x;
    L->n++;
    slot_blocks_from(L, pos);
}

/* The earliest start of a task of time w ready at dr on this processor: in
 * the first idle gap that holds it (its index in *pos), else after the last
 * slot (*pos = n). Slots that start before dr + w hold no gap for it; of the
 * rest only the first can start before dr, and a later gap holds the task
 * exactly when sl[j - 1].f + w <= sl[j].s, so blocks whose largest gap is
 * clearly smaller than w are skipped (the exact test decides in the others). */
static double slot_find(const SlotList *L, double dr, double w, int *pos)
{
    const Slot *sl = L->sl;
    int lo = 0, hi = L->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (sl[mid].s < dr + w)
            lo = mid + 1;
        else
            hi = mid;
    }
    double need = w * (1 - 1e-9) - 1e-9;
    for (int j = lo; j < L->n; j++) {
        if (j > lo && j % SLOT_BLOCK == 0) {
            while (j < L->n && L->bmax[j / SLOT_BLOCK] < need)
                j += SLOT_BLOCK;
            if (j >= L->n)
                break;
        }
        double s0 = j ? fmax(dr, sl[j - 1].f) : dr;
        if (s0 + w <= sl[j].s) {
            *pos = j;
            return s0;
        }
    }
    *pos = L->n;
    return L->n > 0 ? fmax(dr, sl[L->n - 1].f) : dr;
}

double place_heft_schedule(int n, int n_procs, const double *cost, int n_edges, const int *src,
                           const int *dst, const double *comm, double *rank, int *proc,
                           double *start, double *finish)
{
    size_t N = (size_t)n + 1;
    int *soff = xnew_array(N + 1, sizeof *soff), *poff = xnew_array(N + 1, sizeof *poff);
    int *sedge = xmalloc_array((size_t)n_edges, sizeof *sedge);
    int *pedge = xmalloc_array((size_t)n_edges, sizeof *pedge);
    for (int j = 0; j < n_edges; j++) {
        soff[src[j] + 1]++;
        poff[dst[j] + 1]++;
    }
    for (int t = 0; t < n; t++) {
        soff[t + 1] += soff[t];
        poff[t + 1] += poff[t];
    }
    int *sfill = xmalloc_array(N, sizeof *sfill), *pfill = xmalloc_array(N, sizeof *pfill);
    memcpy(sfill, soff, N * sizeof *sfill);
    memcpy(pfill, poff, N * sizeof *pfill);
    for (int j = 0; j < n_edges; j++) {
        sedge[sfill[src[j]]++] = j;
        pedge[pfill[dst[j]]++] = j;
    }

    /* upward ranks, from the sinks back (tasks are topologically numbered) */
    double *rk = rank ? rank : xmalloc_array(N, sizeof *rk);
    for (int t = n - 1; t >= 0; t--) {
        double mean = 0;
        for (int p = 0; p < n_procs; p++)
            mean += cost[(size_t)t * (size_t)n_procs + (size_t)p];
        mean /= n_procs;
        double m = 0;
        for (int j = soff[t]; j < soff[t + 1]; j++) {
            int e = sedge[j];
            double v = comm[e] + rk[dst[e]];
            if (v > m)
                m = v;
        }
        rk[t] = mean + m;
    }

    /* scheduling: the ready task of highest rank, on the processor of
     * earliest finish time, in the earliest idle slot that holds it */
    int *pr = proc ? proc : xmalloc_array(N, sizeof *pr);
    double *st = start ? start : xmalloc_array(N, sizeof *st);
    double *fi = finish ? finish : xmalloc_array(N, sizeof *fi);
    int *waiting = xmalloc_array(N, sizeof *waiting), *ready = xmalloc_array(N, sizeof *ready);
    int n_ready = 0;
    for (int t = 0; t < n; t++) {
        waiting[t] = poff[t + 1] - poff[t];
        if (!waiting[t])
            rank_heap_push(ready, &n_ready, t, rk);
    }
    SlotList *slots = xnew_array((size_t)n_procs, sizeof *slots);
    double makespan = 0;
    for (int done = 0; done < n && n_ready > 0; done++) {
        int t = rank_heap_pop(ready, &n_ready, rk);

        int best_p = 0, best_pos = 0;
        double best_s = 0, best_f = 0;
        for (int p = 0; p < n_procs; p++) {
            double dr = 0;
            for (int j = poff[t]; j < poff[t + 1]; j++) {
                int e = pedge[j], q = src[e];
                double v = fi[q] + (pr[q] != p ? comm[e] : 0);
                if (v > dr)
                    dr = v;
            }
            double w = cost[(size_t)t * (size_t)n_procs + (size_t)p];
            int pos;
            double s = slot_find(&slots[p], dr, w, &pos);
            double f = s + w;
            if (p == 0 || f < best_f) {
                best_p = p;
                best_pos = pos;
                best_s = s;
                best_f = f;
            }
        }
        int p = best_p;
        slot_insert(&slots[p], best_pos, (Slot){best_s, best_f});
        pr[t] = p;
        st[t] = best_s;
        fi[t] = best_f;
        if (best_f > makespan)
            makespan = best_f;
        for (int j = soff[t]; j < soff[t + 1]; j++) {
            int c = dst[sedge[j]];
            if (--waiting[c] == 0)
                rank_heap_push(ready, &n_ready, c, rk);
        }
    }

    for (int p = 0; p < n_procs; p++) {
        free(slots[p].sl);
        free(slots[p].bmax);
    }
    free(slots);
    free(waiting);
    free(ready);
    if (!rank)
        free(rk);
    if (!proc)
        free(pr);
    if (!start)
        free(st);
    if (!finish)
        free(fi);
    free(soff);
    free(poff);
    free(sedge);
    free(pedge);
    free(sfill);
    free(pfill);
    return makespan;
}

int place_heft(const PlaceCtx *ctx, int *op_device, Err *e)
{
    (void)e;
    const Grouping *gr = ctx->gr;
    int n = gr->n_groups, m = gr->n_edges;
    double *times = place_list_group_times(ctx);
    int *src = xmalloc_array((size_t)m, sizeof *src), *dst = xmalloc_array((size_t)m, sizeof *dst);
    double *comm = xmalloc_array((size_t)m, sizeof *comm);
    int j = 0;
    for (int k = 0; k < n; k++)
        for (int i = gr->succ_off[k]; i < gr->succ_off[k + 1]; i++, j++) {
            src[j] = k;
            dst[j] = gr->succ[i];
            comm[j] = place_list_comm_time(ctx->c, gr->succ_bytes[i]);
        }
    int *gd = xmalloc_array((size_t)n, sizeof *gd);
    place_heft_schedule(n, ctx->c->n_devices, times, j, src, dst, comm, NULL, gd, NULL, NULL);
    group_expand(ctx->gr, gd, op_device);
    free(gd);
    free(times);
    free(src);
    free(dst);
    free(comm);
    return 0;
}

/* ------------------------------------------------------------------ */
/* m-TOPO                                                              */

int place_m_topo(const PlaceCtx *ctx, int *op_device, Err *e)
{
    (void)e;
    const Grouping *gr = ctx->gr;
    const Cluster *c = ctx->c;
    int n = gr->n_groups, nd = c->n_devices;
    double *times = place_list_group_times(ctx);
    double target = balanced_time(times, n, nd);
    double *load = xnew_array((size_t)nd, sizeof *load);
    int64_t *mem = xnew_array((size_t)nd, sizeof *mem);
    int *gd = xmalloc_array((size_t)n, sizeof *gd);
    int cur = 0;
    for (int k = 0; k < n; k++) { /* group ids are a topological order */
        /* move on once the device holds its share (counting half of k) */
        while (cur < nd - 1 && load[cur] > 0 &&
               load[cur] + times[(size_t)k * (size_t)nd + (size_t)cur] / 2 > target)
            cur++;
        int d = -1;
        for (int dd = cur; dd < nd && d < 0; dd++)
            if (fits(c, mem, dd, gr->bytes[k]))
                d = dd;
        if (d >= 0)
            cur = d;
        else
            d = place_list_most_free_device(c, mem);
        gd[k] = d;
        load[d] += times[(size_t)k * (size_t)nd + (size_t)d];
        mem[d] += gr->bytes[k];
    }
    group_expand(ctx->gr, gd, op_device);
    free(gd);
    free(mem);
    free(load);
    free(times);
    return 0;
}

/* ------------------------------------------------------------------ */
/* expert                                                              */

/* The layer cut: layers 0..L-1 into one contiguous run per device, in the
 * order dev[0..D) (fastest first), minimising the longest run's time; pre
 * holds each device's prefix sums of the layers' times (see expert_layers).
 * Up to EXPERT_EXACT_CUT_WORK steps of D * L^2 the exact dynamic program
 * (every run non-empty); past it (thousands of layers) a bisection on the
 * longest run's time with a greedy fill, O(D L + iterations * D log L),
 * where a device may get no layer when that is no slower. */
#define EXPERT_EXACT_CUT_WORK 4e6

static double run_time(const double *pre, size_t L, size_t s, size_t a, size_t b)
{
    return pre[s * (L + 1) + b] - pre[s * (L + 1) + a];
}

static void expert_cut_exact(const double *pre, size_t L, size_t D, const int *dev, int *layer_dev)
{
    /* best[s][l]: smallest longest-run time with layers 0..l-1 on the first
     * s devices of dev; cut[s][l] the start of the last run */
    double *best = xmalloc_array((D + 1) * (L + 1), sizeof *best);
    int *cut = xmalloc_array((D + 1) * (L + 1), sizeof *cut);
    for (size_t i = 0; i < (D + 1) * (L + 1); i++) {
        best[i] = INFINITY;
        cut[i] = 0;
    }
    best[0] = 0;
    for (size_t s = 1; s <= D; s++)
        for (size_t l = s; l <= L - (D - s); l++)
            for (size_t a = s - 1; a < l; a++) {
                double v = fmax(best[(s - 1) * (L + 1) + a], run_time(pre, L, s - 1, a, l));
                if (v < best[s * (L + 1) + l]) {
                    best[s * (L + 1) + l] = v;
                    cut[s * (L + 1) + l] = (int)a;
                }
            }
    size_t l = L;
    for (size_t s = D; s >= 1; s--) {
        size_t a = (size_t)cut[s * (L + 1) + l];
        for (size_t x = a; x < l; x++)
            layer_dev[x] = dev[s - 1];
        l = a;
    }
    free(best);
    free(cut);
}

/* Fills layers greedily: each device in turn takes the longest run that
 * stays within limit. Returns the layers covered (L when limit is feasible);
 * writes layer_dev when it is not NULL. */
static size_t expert_fill(const double *pre, size_t L, size_t D, const int *dev, double limit, int *layer_dev)
{
    size_t a = 0;
    for (size_t s = 0; s < D && a < L; s++) {
        size_t lo = a, hi = L; /* the largest b in [a, L] with run(a, b) <= limit */
        while (lo < hi) {
            size_t mid = lo + (hi - lo + 1) / 2;
            if (run_time(pre, L, s, a, mid) <= limit)
                lo = mid;
            else
                hi = mid - 1;
        }
        if (s == D - 1 && layer_dev)
            lo = L; /* the last device takes the rest (only with a feasible limit) */
        for (size_t x = a; layer_dev && x < lo; x++)
            layer_dev[x] = dev[s];
        a = lo;
    }
    return a;
}

static void expert_cut_bisect(const double *pre, size_t L, size_t D, const int *dev, int *layer_dev)
{
    double lo = 0, hi = run_time(pre, L, 0, 0, L); /* everything on the fastest device fits */
    for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
        double mid = lo + (hi - lo) / 2;
        if (mid <= lo || mid >= hi)
            break;
        if (expert_fill(pre, L, D, dev, mid, NULL) == L)
            hi = mid;
        else
            lo = mid;
    }
    expert_fill(pre, L, D, dev, hi, layer_dev);
}

/* Layer mode. Layers are numbered in order of first appearance in the file;
 * a group belongs to the layer that holds most of its tagged ops' cost (the
 * lower number on ties; op counts when every cost is 0), an untagged group to
 * the layer of the group before it in topological order (the first group's
 * to layer 0). With no more layers than devices, layer l goes to the l-th
 * fastest device; with more, the layer sequence is cut into one contiguous
 * run per device (devices by decreasing speed) minimising the longest run's
 * time. Fills gd and returns 1, or returns 0 when no op has a layer. */
static int expert_layers(const PlaceCtx *ctx, const double *times, int *gd)
{
    const Graph *g = ctx->g;
    const Grouping *gr = ctx->gr;
    int n = gr->n_groups, nd = ctx->c->n_devices;
    StrMap ids;
    strmap_init(&ids, 16);
    int n_layers = 0;
    int *op_layer = xmalloc_array((size_t)g->n_nodes, sizeof *op_layer);
    for (int i = 0; i < g->n_nodes; i++) {
        const char *tag = g->nodes[i].layer;
        op_layer[i] = -1;
        if (!tag)
            continue;
        int id = strmap_get(&ids, tag);
        if (id < 0) {
            id = n_layers++;
            strmap_put(&ids, tag, id);
        }
        op_layer[i] = id;
    }
    strmap_done(&ids);
    if (n_layers == 0) {
        free(op_layer);
        return 0;
    }
    size_t L = (size_t)n_layers, D = (size_t)nd;
    /* votes of group k's layers, reset through the list of layers it touched
     * (not all L), so this is linear in the ops */
    double *vote = xnew_array(L, sizeof *vote), *cnt = xnew_array(L, sizeof *cnt);
    int *touched = xmalloc_array((size_t)g->n_nodes, sizeof *touched);
    int *glayer = xmalloc_array((size_t)n, sizeof *glayer);
    for (int k = 0; k < n; k++) {
        int nt = 0;
        for (int j = gr->member_off[k]; j < gr->member_off[k + 1]; j++) {
            int op = gr->members[j], l = op_layer[op];
            if (l < 0)
                continue;
            if (cnt[l] == 0)
                touched[nt++] = l;
            vote[l] += g->nodes[op].cost_us;
            cnt[l] += 1;
        }
        int best = -1;
        for (int t = 0; t < nt; t++) { /* the lowest layer number wins ties */
            int l = touched[t];
            if (best < 0 || vote[l] > vote[best] ||
                (vote[l] == vote[best] && (cnt[l] > cnt[best] || (cnt[l] == cnt[best] && l < best))))
                best = l;
        }
        for (int t = 0; t < nt; t++)
            vote[touched[t]] = cnt[touched[t]] = 0;
        glayer[k] = best >= 0 ? best : k > 0 ? glayer[k - 1] : 0;
    }
    free(touched);
    /* lt[l * D + d]: time of layer l on device d */
    double *lt = xnew_array(L * D, sizeof *lt);
    for (int k = 0; k < n; k++)
        for (size_t d = 0; d < D; d++)
            lt[(size_t)glayer[k] * D + d] += times[(size_t)k * D + d];
    int *dev = xmalloc_array(D, sizeof *dev); /* devices by decreasing speed, stable */
    for (int d = 0; d < nd; d++) {
        int p = d;
        while (p > 0 && ctx->c->devices[dev[p - 1]].speed < ctx->c->devices[d].speed) {
            dev[p] = dev[p - 1];
            p--;
        }
        dev[p] = d;
    }
    int *layer_dev = xmalloc_array(L, sizeof *layer_dev);
    if (n_layers <= nd) {
        for (int l = 0; l < n_layers; l++)
            layer_dev[l] = dev[l];
    } else {
        /* pre[s * (L + 1) + x]: time of layers 0..x-1 on device dev[s], so a
         * run's time is one difference, not a sum */
        double *pre = xmalloc_array(xmul(D, L + 1), sizeof *pre);
        for (size_t s = 0; s < D; s++) {
            double *ps = pre + s * (L + 1);
            ps[0] = 0;
            for (size_t x = 0; x < L; x++)
                ps[x + 1] = ps[x] + lt[x * D + (size_t)dev[s]];
        }
        if ((double)D * (double)L * (double)L <= EXPERT_EXACT_CUT_WORK)
            expert_cut_exact(pre, L, D, dev, layer_dev);
        else
            expert_cut_bisect(pre, L, D, dev, layer_dev);
        free(pre);
    }
    for (int k = 0; k < n; k++)
        gd[k] = layer_dev[glayer[k]];
    free(layer_dev);
    free(dev);
    free(lt);
    free(glayer);
    free(vote);
    free(cnt);
    free(op_layer);
    return 1;
}

/* Stage boundaries: device d gets a share of the work proportional to
 * 1 / (its time for all groups), so that the stages take about equal time;
 * a group goes to the stage that holds the midpoint of its work. */
int place_expert(const PlaceCtx *ctx, int *op_device, Err *e)
{
    (void)e;
    const Grouping *gr = ctx->gr;
    int n = gr->n_groups, nd = ctx->c->n_devices;
    size_t D = (size_t)nd;
    double *times = place_list_group_times(ctx);
    int *gd = xmalloc_array((size_t)n, sizeof *gd);
    if (expert_layers(ctx, times, gd)) {
        group_expand(ctx->gr, gd, op_device);
        free(gd);
        free(times);
        return 0;
    }
    double *w = xmalloc_array((size_t)n, sizeof *w), *cum = xmalloc_array(D, sizeof *cum);
    double total = 0;
    for (int k = 0; k < n; k++) {
        double s = 0;
        for (size_t d = 0; d < D; d++)
            s += times[(size_t)k * D + d];
        w[k] = s / nd;
        total += w[k];
    }
    double share_sum = 0;
    int equal = 0;
    for (size_t d = 0; d < D; d++) {
        double tot = 0;
        for (int k = 0; k < n; k++)
            tot += times[(size_t)k * D + d];
        if (!(tot > 0))
            equal = 1;
        cum[d] = tot > 0 ? 1 / tot : 0;
    }
    for (size_t d = 0; d < D; d++) {
        if (equal)
            cum[d] = 1;
        share_sum += cum[d];
        cum[d] = share_sum;
    }
    for (size_t d = 0; d < D; d++)
        cum[d] /= share_sum;
    cum[D - 1] = 1;
    double prefix = 0;
    int d = 0;
    for (int k = 0; k < n; k++) { /* group ids are a topological order */
        double mid = total > 0 ? (prefix + w[k] / 2) / total : (k + 0.5) / n;
        while (d < nd - 1 && mid > cum[d])
            d++;
        gd[k] = d;
        prefix += w[k];
    }
    group_expand(ctx->gr, gd, op_device);
    free(gd);
    free(w);
    free(cum);
    free(times);
    return 0;
}
