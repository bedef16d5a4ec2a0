/* critpath: see critpath.h. */
#include "critpath.h"

#include <stdlib.h>
#include <string.h>

typedef struct ByStart {
    double t, end;
    int i;
} ByStart;

/* (start, end, index) order: a total order, so any sort gives the same. */
static inline int before(const ByStart *x, const ByStart *y)
{
    if (x->t != y->t)
        return x->t < y->t;
    if (x->end != y->end)
        return x->end < y->end;
    return x->i < y->i;
}

/* a[0..n) in that order, tmp as large: runs of 16 by insertion, then
 * merged bottom up, the comparisons inline (qsort's indirect calls were
 * most of a refresh's critical path in the learned search). */
static void sort_by_start(ByStart *a, ByStart *tmp, int n)
{
    enum { RUN = 16 };
    for (int lo = 0; lo < n; lo += RUN) {
        int hi = lo + RUN < n ? lo + RUN : n;
        for (int i = lo + 1; i < hi; i++) {
            ByStart x = a[i];
            int j = i;
            for (; j > lo && before(&x, &a[j - 1]); j--)
                a[j] = a[j - 1];
            a[j] = x;
        }
    }
    ByStart *src = a, *dst = tmp;
    for (int w = RUN; w < n; w *= 2) {
        for (int lo = 0; lo < n; lo += 2 * w) {
            int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = before(&src[j], &src[i]) ? src[j++] : src[i++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        ByStart *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, (size_t)n * sizeof *a);
}

/* prev[i]: the item before i on the same key (device or bus) in start
 * order, or -1. */
static void previous_on(int n, const int *key, const double *start, const double *end, int *prev)
{
    ByStart *tmp = XMALLOC(ByStart, 2 * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++)
        tmp[i] = (ByStart){start[i], end[i], i};
    sort_by_start(tmp, tmp + n, n);
    int nk = 0;
    for (int i = 0; i < n; i++)
        nk = key[i] + 1 > nk ? key[i] + 1 : nk;
    int *last = XMALLOC(int, nk > 0 ? nk : 1);
    for (int k = 0; k < nk; k++)
        last[k] = -1;
    for (int j = 0; j < n; j++) {
        int i = tmp[j].i;
        prev[i] = last[key[i]];
        last[key[i]] = i;
    }
    free(last);
    free(tmp);
}

void sim_critical_path(const Graph *g, const Cluster *c, const SimResult *r, int *path, int *n_path,
                       uint8_t *op_crit, uint8_t *tr_crit)
{
    int n = r->n_ops, nt = r->n_transfers;
    int *prev = XMALLOC(int, n > 0 ? n : 1), *tr_prev = XMALLOC(int, nt > 0 ? nt : 1);
    int *from = XMALLOC(int, nt > 0 ? nt : 1);
    double *ts = XMALLOC(double, nt > 0 ? nt : 1), *te = XMALLOC(double, nt > 0 ? nt : 1);
    uint8_t *tr_seen = XNEW(uint8_t, nt > 0 ? nt : 1), *op_seen = XNEW(uint8_t, n > 0 ? n : 1);
    previous_on(n, r->device, r->start_us, r->end_us, prev);
    for (int k = 0; k < nt; k++) {
        from[k] = r->transfers[k].from;
        ts[k] = r->transfers[k].start_us;
        te[k] = r->transfers[k].end_us;
    }
    previous_on(nt, from, ts, te, tr_prev);
    /* transfers by source op, CSR */
    int *tr_off = XNEW(int, n + 1), *tr_by_src = XMALLOC(int, nt > 0 ? nt : 1);
    for (int k = 0; k < nt; k++)
        tr_off[r->transfers[k].src + 1]++;
    for (int i = 0; i < n; i++)
        tr_off[i + 1] += tr_off[i];
    int *fill = XMALLOC(int, n > 0 ? n : 1);
    memcpy(fill, tr_off, (size_t)n * sizeof *fill);
    for (int k = 0; k < nt; k++)
        tr_by_src[fill[r->transfers[k].src]++] = k;
    free(fill);

    int len = 0, cur = -1;
    for (int i = 0; i < n; i++)
        if (cur < 0 || r->end_us[i] > r->end_us[cur])
            cur = i;
    while (cur >= 0 && !op_seen[cur]) {
        op_seen[cur] = 1;
        path[len++] = cur;
        /* what released cur */
        const GraphNode *nd = &g->nodes[cur];
        double best = -1;
        int who = -1, tr = -1;
        for (int k = 0; k < nd->n_parents; k++) {
            int p = nd->parents[k];
            if (r->device[p] == r->device[cur]) {
                if (r->end_us[p] > best) {
                    best = r->end_us[p];
                    who = p;
                    tr = -1;
                }
                continue;
            }
            for (int j = tr_off[p]; j < tr_off[p + 1]; j++) {
                const SimTransfer *x = &r->transfers[tr_by_src[j]];
                for (int m = 0; m < x->n_children; m++)
                    if (x->children[m] == cur && x->end_us > best) {
                        best = x->end_us;
                        who = -1;
                        tr = tr_by_src[j];
                    }
            }
        }
        int q = prev[cur];
        if (q >= 0) {
            double free_at = r->end_us[q] + (r->end_us[q] > r->start_us[q] ? c->op_gap_us : 0);
            if (free_at > best && free_at <= r->start_us[cur]) {
                who = q;
                tr = -1;
            }
        }
        cur = who;
        while (tr >= 0 && !tr_seen[tr]) { /* a transfer: its source, or the bus before it */
            const SimTransfer *x = &r->transfers[tr];
            int before = tr_prev[tr];
            tr_seen[tr] = 1;
            double bus_free = before >= 0 ? r->transfers[before].end_us + c->transfer_overhead_us : -1;
            if (before >= 0 && bus_free > r->end_us[x->src] && bus_free <= x->start_us) {
                tr = before;
            } else {
                cur = x->src;
                tr = -1;
            }
        }
    }
    for (int a = 0, b = len - 1; a < b; a++, b--) {
        int t = path[a];
        path[a] = path[b];
        path[b] = t;
    }
    *n_path = len;
    if (op_crit)
        memcpy(op_crit, op_seen, (size_t)n);
    if (tr_crit)
        memcpy(tr_crit, tr_seen, (size_t)nt);
    free(prev);
    free(tr_prev);
    free(from);
    free(ts);
    free(te);
    free(tr_seen);
    free(op_seen);
    free(tr_off);
    free(tr_by_src);
}
