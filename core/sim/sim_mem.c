/* sim_mem: peak memory per device (docs/simulator.md, "Memory"), and the
 * radix sort sim_new ranks the edges with.
 *
 * An op with outputs allocates them at its start and frees them at
 * max(start, the largest trunc(start[k]) + trunc(cost[k]) - 1 over its
 * children k); allocations come before frees at equal times. The run wrote
 * the allocations in time order (s->a_*). A free only has to come after
 * the allocations at or before its time and before the later ones: every
 * free goes into a list at the first allocation later than it (a free at
 * the op's own start after that instant's allocations, any other found by
 * a short search from where the child that sets it started), and one
 * sweep takes each allocation's list, then the allocation. No sort. Up
 * to 4 devices the lists are rows of per-device sums, and the sweep keeps
 * the four running sums and peaks in registers without a branch (its
 * lists' unpredictable lengths were 35-45 % of the pass). */
#include "sim_impl.h"

#include <string.h>

int sim_radix_sort(uint64_t *key, int *idx, uint64_t *key2, int *idx2, int n)
{
    if (n < 2)
        return 0;
    uint64_t any = 0, all = ~(uint64_t)0;
    for (int k = 0; k < n; k++) {
        any |= key[k];
        all &= key[k];
    }
    uint64_t differ = any ^ all;
    int shift[8], nd = 0;
    for (int b = 0; b < 64; b += 8)
        if ((differ >> b) & 255)
            shift[nd++] = b;
    uint32_t count[8][256];
    for (int j = 0; j < nd; j++)
        memset(count[j], 0, sizeof count[j]);
    for (int k = 0; k < n; k++)
        for (int j = 0; j < nd; j++)
            count[j][(key[k] >> shift[j]) & 255]++;
    int swapped = 0;
    for (int j = 0; j < nd; j++) {
        uint32_t sum = 0;
        for (int b = 0; b < 256; b++) {
            uint32_t c = count[j][b];
            count[j][b] = sum;
            sum += c;
        }
        for (int k = 0; k < n; k++) {
            uint64_t x = key[k];
            uint32_t pos = count[j][(x >> shift[j]) & 255]++;
            key2[pos] = x;
            idx2[pos] = idx[k];
        }
        uint64_t *tk = key;
        key = key2;
        key2 = tk;
        int *ti = idx;
        idx = idx2;
        idx2 = ti;
        swapped ^= 1;
    }
    return swapped;
}

/* The index of the first allocation later than f (at[] holds their times),
 * found from a hint: the allocations recorded before op c started, c being
 * the child whose trunc(start) + trunc(cost) - 1 is f. That is near: f lies
 * within a µs or two of c's start or after it by about c's cost, so the
 * search gallops from there. */
static int first_after(const double *at, int na, int hint, double f)
{
    int lo, hi; /* at[lo - 1] <= f < at[hi], with at[-1] = -inf, at[na] = +inf */
    if (hint < na && at[hint] <= f) {
        lo = hint + 1;
        int step = 1;
        for (hi = lo; hi < na && at[hi] <= f; step *= 2) {
            lo = hi + 1;
            hi = lo + step < na ? lo + step : na;
        }
    } else {
        hi = hint;
        int step = 1;
        for (lo = hi; lo > 0 && at[lo - 1] > f; step *= 2) {
            hi = lo - 1;
            lo = hi - step > 0 ? hi - step : 0;
        }
    }
    while (lo < hi) { /* the first index in [lo, hi) with a time > f, or hi */
        int mid = lo + (hi - lo) / 2;
        if (at[mid] > f)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

void sim_memory(Sim *s)
{
    SimResult *r = &s->r;
    const double *restrict at = s->a_t, *restrict relf = s->relf;
    const int64_t *restrict am = s->a_m;
    const int *restrict ad = s->a_d, *restrict ch = s->ch, *restrict off = s->ch_off;
    const int *restrict aop = s->a_op, *restrict apos = s->apos;
    int na = s->n_alloc, nd = s->nd;
    int *restrict head = s->fhead, *restrict next = s->fnext;
    if (!s->frow)
        for (int k = 0; k < na; k++)
            head[k] = -1;
    /* the latest of its children's frees per op, in the graph's order
     * (children of an op are often its neighbours there) */
    const int64_t *restrict bytes = s->bytes;
    double *restrict fr = s->ftime;
    int *restrict fh = s->fhint;
    for (int op = 0, n = s->n; op < n; op++) {
        if (!bytes[op])
            continue;
        int arg = -1;
        double f = -1.0;
        for (int j = off[op], j1 = off[op + 1]; j < j1; j++) {
            int c = ch[j];
            if (relf[c] > f) {
                f = relf[c];
                arg = c;
            }
        }
        fr[op] = f;
        fh[op] = arg < 0 ? -1 : apos[arg];
    }
    /* each free at the first allocation later than it (none after the
     * last: it changes no peak). A free at its op's own start comes after
     * that instant's allocations, so before the next instant's. Up to 4
     * devices, each allocation has a row of 4 sums of the frees due
     * before it, one per device; else a list of them. */
    int64_t *restrict peak = r->peak_memory_bytes, *restrict row = s->frow;
    if (row)
        memset(row, 0, 4 * ((size_t)na + 1) * sizeof *row);
    for (int k = 0; k < na; k++) {
        int op = aop[k], p;
        double f = fr[op];
        if (!(f > at[k]))
            for (p = k + 1; p < na && at[p] == at[k]; p++)
                ;
        else
            p = first_after(at, na, fh[op], f);
        if (row) {
            row[4 * (size_t)p + (size_t)ad[k]] += am[k];
        } else if (p < na) {
            next[k] = head[p];
            head[p] = k;
        }
    }
    if (row) { /* the four devices' sums in registers, no branch */
        int64_t c0 = 0, c1 = 0, c2 = 0, c3 = 0, p0 = 0, p1 = 0, p2 = 0, p3 = 0;
        for (int a = 0; a < na; a++) {
            const int64_t *q = row + 4 * (size_t)a, m = am[a];
            int d = ad[a];
            c0 += (d == 0 ? m : 0) - q[0];
            c1 += (d == 1 ? m : 0) - q[1];
            c2 += (d == 2 ? m : 0) - q[2];
            c3 += (d == 3 ? m : 0) - q[3];
            p0 = c0 > p0 ? c0 : p0;
            p1 = c1 > p1 ? c1 : p1;
            p2 = c2 > p2 ? c2 : p2;
            p3 = c3 > p3 ? c3 : p3;
        }
        const int64_t pk[4] = {p0, p1, p2, p3};
        for (int d = 0; d < nd; d++)
            peak[d] = pk[d];
    } else {
        int64_t *restrict cur = s->cur;
        for (int d = 0; d < nd; d++)
            cur[d] = peak[d] = 0;
        /* the frees due before each allocation, then the allocation */
        for (int a = 0; a < na; a++) {
            for (int f = head[a]; f >= 0; f = next[f])
                cur[ad[f]] -= am[f];
            int d = ad[a];
            int64_t v = cur[d] + am[a];
            cur[d] = v;
            if (v > peak[d])
                peak[d] = v;
        }
    }
    r->any_oom = 0;
    for (int d = 0; d < nd; d++) {
        r->oom[d] = peak[d] > s->c->devices[d].memory_bytes;
        r->any_oom |= r->oom[d];
    }
}
