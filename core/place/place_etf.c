/* place_etf: Baechi's m-ETF (Jeon et al. 2020) on the group graph:
 * repeatedly the (ready group, device) pair with the earliest start
 * (max(device free, data ready on that device)), ties to the lower group
 * and then the lower device, skipping devices whose memory would overflow; a
 * group that fits on no device goes to the device with the most free
 * memory. Estimates as in place_list.c.
 *
 * The choice is found without scanning every ready group at every step
 * (which is quadratic on wide graphs: thousands of groups ready at once).
 * Per device three heaps of the ready groups that fit on it: "pending" by
 * (data ready, group), "available" by group for those whose data is ready by
 * the time the device is free (a device's free time only grows, so groups
 * only move from pending to available), and by bytes, largest first, to
 * find the groups that stop fitting when the device's memory grows (memory
 * only grows, so a group that stops fitting never fits again). Groups that
 * fit nowhere have their own pending and available heaps per device, read
 * for the device with the most free memory. Each step is O(D log n); the
 * result is the one the scan over every pair gives. Deterministic. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "place_methods.h"

enum { BY_READY, BY_GROUP, BY_BYTES };

typedef struct Heap {
    int *v;
    int n, cap;
    int kind, d;
} Heap;

typedef struct Etf {
    const Grouping *gr;
    size_t D;
    const double *data_ready; /* [k * D + d] */
} Etf;

/* 1 when a goes above b in h. */
static int above(const Etf *E, const Heap *h, int a, int b)
{
    switch (h->kind) {
    case BY_READY: {
        double x = E->data_ready[(size_t)a * E->D + (size_t)h->d], y = E->data_ready[(size_t)b * E->D + (size_t)h->d];
        return x < y || (x == y && a < b);
    }
    case BY_GROUP:
        return a < b;
    default:
        return E->gr->bytes[a] > E->gr->bytes[b] || (E->gr->bytes[a] == E->gr->bytes[b] && a < b);
    }
}

static void heap_push(const Etf *E, Heap *h, int k)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 16;
        h->v = XRENEW(h->v, h->cap);
    }
    int i = h->n++;
    while (i > 0 && above(E, h, k, h->v[(i - 1) / 2])) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = k;
}

static void heap_pop(const Etf *E, Heap *h)
{
    int k = h->v[--h->n], i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && above(E, h, h->v[c + 1], h->v[c]))
            c++;
        if (!above(E, h, h->v[c], k))
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n > 0)
        h->v[i] = k;
}

/* A device's ready groups: pending and available (see above). */
typedef struct Queue {
    Heap pending, avail;
} Queue;

/* The best group of q on device d, whose free time is free_at: its start in
 * *start, or -1 when q holds none. Groups k with dead[k * stride + col] set
 * are dropped on the way. */
static int queue_best(const Etf *E, Queue *q, double free_at, const unsigned char *dead, size_t stride, size_t col,
                      size_t d, double *start)
{
    while (q->pending.n > 0) {
        int k = q->pending.v[0];
        if (dead[(size_t)k * stride + col]) {
            heap_pop(E, &q->pending);
            continue;
        }
        if (E->data_ready[(size_t)k * E->D + d] > free_at)
            break;
        heap_pop(E, &q->pending);
        heap_push(E, &q->avail, k);
    }
    while (q->avail.n > 0 && dead[(size_t)q->avail.v[0] * stride + col])
        heap_pop(E, &q->avail);
    if (q->avail.n > 0) {
        *start = free_at;
        return q->avail.v[0];
    }
    if (q->pending.n > 0) {
        int k = q->pending.v[0];
        *start = E->data_ready[(size_t)k * E->D + d];
        return k;
    }
    return -1;
}

static void queue_free(Queue *q)
{
    free(q->pending.v);
    free(q->avail.v);
}

int place_m_etf(const PlaceCtx *ctx, int *op_device, Err *e)
{
    (void)e;
    const Grouping *gr = ctx->gr;
    const Cluster *c = ctx->c;
    int n = gr->n_groups, nd = c->n_devices;
    size_t N = (size_t)n + 1, D = (size_t)nd;
    double *times = place_list_group_times(ctx);
    /* communication time of each predecessor edge, in pred[] order */
    double *pcomm = xmalloc_array((size_t)gr->n_edges, sizeof *pcomm);
    for (int k = 0; k < n; k++)
        for (int j = gr->pred_off[k]; j < gr->pred_off[k + 1]; j++) {
            int q = gr->pred[j], lo = gr->succ_off[q], hi = gr->succ_off[q + 1] - 1;
            int64_t bytes = 0;
            while (lo <= hi) { /* succ lists are sorted */
                int mid = lo + (hi - lo) / 2;
                if (gr->succ[mid] == k) {
                    bytes = gr->succ_bytes[mid];
                    break;
                }
                if (gr->succ[mid] < k)
                    lo = mid + 1;
                else
                    hi = mid - 1;
            }
            pcomm[j] = place_list_comm_time(c, bytes);
        }
    double *fin = xmalloc_array(N, sizeof *fin), *data_ready = xnew_array(xmul(N, D), sizeof *data_ready);
    double *dev_free = xnew_array(D, sizeof *dev_free);
    int64_t *mem = xnew_array(D, sizeof *mem);
    int *gd = xmalloc_array(N, sizeof *gd), *waiting = xmalloc_array(N, sizeof *waiting);
    int *fit_count = xnew_array(N, sizeof *fit_count);
    /* dead[k * (D + 1) + d]: k is placed or no longer fits on d (d < D), or is
     * placed (d == D, for the fit-nowhere queues) */
    unsigned char *dead = xnew_array(xmul(N, D + 1), sizeof *dead);
    Queue *fitq = xnew_array(D, sizeof *fitq), *noneq = xnew_array(D, sizeof *noneq);
    Heap *bybytes = xnew_array(D, sizeof *bybytes);
    Etf E = {gr, D, data_ready};
    for (int d = 0; d < nd; d++) {
        fitq[d].pending = (Heap){NULL, 0, 0, BY_READY, d};
        fitq[d].avail = (Heap){NULL, 0, 0, BY_GROUP, d};
        noneq[d].pending = (Heap){NULL, 0, 0, BY_READY, d};
        noneq[d].avail = (Heap){NULL, 0, 0, BY_GROUP, d};
        bybytes[d] = (Heap){NULL, 0, 0, BY_BYTES, d};
    }
    size_t stride = D + 1;
    int remaining = n;
#define MAKE_READY(k)                                                                          \
    do {                                                                                       \
        int k_ = (k);                                                                          \
        for (int d_ = 0; d_ < nd; d_++) {                                                      \
            if (mem[d_] + gr->bytes[k_] <= c->devices[d_].memory_bytes) {                     \
                fit_count[k_]++;                                                               \
                heap_push(&E, &fitq[d_].pending, k_);                                          \
                heap_push(&E, &bybytes[d_], k_);                                               \
            } else                                                                             \
                dead[(size_t)k_ * stride + (size_t)d_] = 1;                                    \
        }                                                                                      \
        if (!fit_count[k_])                                                                    \
            for (int d_ = 0; d_ < nd; d_++)                                                    \
                heap_push(&E, &noneq[d_].pending, k_);                                         \
    } while (0)
    for (int k = 0; k < n; k++) {
        waiting[k] = gr->pred_off[k + 1] - gr->pred_off[k];
        if (!waiting[k])
            MAKE_READY(k);
    }
    while (remaining > 0) {
        int bk = -1, bd = -1;
        double bs = 0;
        for (int d = 0; d < nd; d++) {
            double s;
            int k = queue_best(&E, &fitq[d], dev_free[d], dead, stride, (size_t)d, (size_t)d, &s);
            if (k >= 0 && (bk < 0 || s < bs || (s == bs && (k < bk || (k == bk && d < bd))))) {
                bk = k;
                bd = d;
                bs = s;
            }
        }
        int f = place_list_most_free_device(c, mem);
        double s;
        /* the fit-nowhere queues: placed groups are marked in column D */
        int k = queue_best(&E, &noneq[f], dev_free[f], dead, stride, D, (size_t)f, &s);
        if (k >= 0 && (bk < 0 || s < bs || (s == bs && (k < bk || (k == bk && f < bd))))) {
            bk = k;
            bd = f;
            bs = s;
        }
        if (bk < 0)
            break; /* cannot happen on a DAG: some group is always ready */
        k = bk;
        int d = bd;
        remaining--;
        for (size_t dd = 0; dd <= D; dd++)
            dead[(size_t)k * stride + dd] = 1;
        gd[k] = d;
        fin[k] = bs + times[(size_t)k * D + (size_t)d];
        dev_free[d] = fin[k];
        mem[d] += gr->bytes[k];
        /* the groups that no longer fit on d */
        while (bybytes[d].n > 0) {
            int q = bybytes[d].v[0];
            if (dead[(size_t)q * stride + D]) { /* placed */
                heap_pop(&E, &bybytes[d]);
                continue;
            }
            if (mem[d] + gr->bytes[q] <= c->devices[d].memory_bytes)
                break;
            heap_pop(&E, &bybytes[d]);
            dead[(size_t)q * stride + (size_t)d] = 1;
            if (--fit_count[q] == 0)
                for (int dd = 0; dd < nd; dd++)
                    heap_push(&E, &noneq[dd].pending, q);
        }
        for (int j = gr->succ_off[k]; j < gr->succ_off[k + 1]; j++) {
            int sc = gr->succ[j];
            if (--waiting[sc])
                continue;
            for (int dd = 0; dd < nd; dd++) {
                double r = 0;
                for (int i = gr->pred_off[sc]; i < gr->pred_off[sc + 1]; i++) {
                    int q = gr->pred[i];
                    double v = fin[q] + (gd[q] != dd ? pcomm[i] : 0);
                    if (v > r)
                        r = v;
                }
                data_ready[(size_t)sc * D + (size_t)dd] = r;
            }
            MAKE_READY(sc);
        }
    }
#undef MAKE_READY
    group_expand(ctx->gr, gd, op_device);
    for (int d = 0; d < nd; d++) {
        queue_free(&fitq[d]);
        queue_free(&noneq[d]);
        free(bybytes[d].v);
    }
    free(fitq);
    free(noneq);
    free(bybytes);
    free(dead);
    free(fit_count);
    free(times);
    free(pcomm);
    free(fin);
    free(data_ready);
    free(dev_free);
    free(mem);
    free(gd);
    free(waiting);
    return 0;
}
