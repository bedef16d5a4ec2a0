/* sim_mem: peak memory per device (docs/simulator.md, "Memory") and the
 * radix sort it shares with sim_new.
 *
 * An op with outputs allocates them at its start and frees them at
 * max(start, the largest trunc(start[k]) + trunc(cost[k]) - 1 over its
 * children k); allocations come before frees at equal times. The run wrote
 * the allocations in time order (s->alloc). A free at the op's own start
 * only has to follow the allocations of that instant; every other free
 * happens at a whole number of µs, below the makespan, so only those are
 * sorted, by an LSD radix sort on that integer (two or three passes, their
 * histograms counted while the frees are collected). */
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

enum { MAX_PASSES = 6, MAX_DIGIT = 11 };

/* The free time of allocation a: its start, or the latest trunc(start) +
 * trunc(cost) - 1 of the op's children when later. */
static double free_time(const Sim *s, const SimAlloc *a)
{
    const int *ch = s->ch;
    const double *relf = s->relf;
    double f = a->t;
    for (int k = s->ch_off[a->op]; k < s->ch_off[a->op + 1]; k++)
        if (relf[ch[k]] > f)
            f = relf[ch[k]];
    return f;
}

/* Sorts the later frees by their time (whole µs below 2^62): fills
 * fkey/fop (or fkey2/fop2, *in2 set) and afree. Returns how many. */
static int sort_frees(Sim *s, int *in2)
{
    uint64_t top = (uint64_t)s->makespan;
    int bits = 0;
    while (bits < 64 && (top >> bits))
        bits++;
    int width = s->n_alloc >= 1024 ? MAX_DIGIT : 8;
    int passes = (bits + width - 1) / width;
    if (passes > 0)
        width = (bits + passes - 1) / passes;
    uint32_t mask = (1u << width) - 1;
    static const uint32_t zero[1 << MAX_DIGIT];
    uint32_t count[MAX_PASSES][1 << MAX_DIGIT];
    for (int p = 0; p < passes; p++)
        memcpy(count[p], zero, sizeof(uint32_t) << width);
    int nb = 0;
    for (int k = 0; k < s->n_alloc; k++) {
        const SimAlloc *a = &s->alloc[k];
        double f = free_time(s, a);
        s->afree[k] = !(f > a->t);
        if (!(f > a->t))
            continue;
        uint64_t key = (uint64_t)f;
        s->fkey[nb] = key;
        s->fop[nb++] = k;
        for (int p = 0; p < passes; p++)
            count[p][(key >> (p * width)) & mask]++;
    }
    uint64_t *key = s->fkey, *key2 = s->fkey2;
    int *idx = s->fop, *idx2 = s->fop2;
    *in2 = 0;
    for (int p = 0; p < passes && nb > 1; p++) {
        uint32_t sum = 0, *c = count[p];
        if (c[key[0] >> (p * width) & mask] == (uint32_t)nb)
            continue; /* one digit for all */
        for (uint32_t b = 0; b <= mask; b++) {
            uint32_t x = c[b];
            c[b] = sum;
            sum += x;
        }
        for (int k = 0; k < nb; k++) {
            uint64_t x = key[k];
            uint32_t pos = c[(x >> (p * width)) & mask]++;
            key2[pos] = x;
            idx2[pos] = idx[k];
        }
        uint64_t *tk = key;
        key = key2;
        key2 = tk;
        int *ti = idx;
        idx = idx2;
        idx2 = ti;
        *in2 ^= 1;
    }
    return nb;
}

/* The same for any times: the frees' IEEE bits (which order like the times,
 * all being >= 0) by the general sort. */
static int sort_frees_any(Sim *s, int *in2)
{
    int nb = 0;
    for (int k = 0; k < s->n_alloc; k++) {
        double f = free_time(s, &s->alloc[k]);
        s->afree[k] = !(f > s->alloc[k].t);
        if (!(f > s->alloc[k].t))
            continue;
        memcpy(&s->fkey[nb], &f, sizeof f);
        s->fop[nb++] = k;
    }
    *in2 = sim_radix_sort(s->fkey, s->fop, s->fkey2, s->fop2, nb);
    return nb;
}

void sim_memory(Sim *s)
{
    SimResult *r = &s->r;
    const SimAlloc *al = s->alloc;
    int small = s->makespan < 0x1p62, in2;
    int nb = small ? sort_frees(s, &in2) : sort_frees_any(s, &in2);
    const uint64_t *key = in2 ? s->fkey2 : s->fkey;
    const int *fop = in2 ? s->fop2 : s->fop;
    int64_t *cur = s->cur, *peak = r->peak_memory_bytes;
    for (int d = 0; d < s->nd; d++)
        cur[d] = peak[d] = 0;
    int f = 0, na = s->n_alloc;
    for (int a = 0; a < na;) {
        double t = al[a].t;
        /* the frees before t */
        for (; f < nb; f++) {
            double ft;
            if (small)
                ft = (double)key[f];
            else
                memcpy(&ft, &key[f], sizeof ft);
            if (!(ft < t))
                break;
            cur[al[fop[f]].d] -= al[fop[f]].m;
        }
        /* the allocations at t, then the frees at t among them */
        int b = a;
        for (; b < na && al[b].t == t; b++) {
            int d = al[b].d;
            cur[d] += al[b].m;
            if (cur[d] > peak[d])
                peak[d] = cur[d];
        }
        for (; a < b; a++)
            if (s->afree[a])
                cur[al[a].d] -= al[a].m;
    }
    r->any_oom = 0;
    for (int d = 0; d < s->nd; d++) {
        r->oom[d] = peak[d] > s->c->devices[d].memory_bytes;
        r->any_oom |= r->oom[d];
    }
}
