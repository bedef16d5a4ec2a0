/* sim_mem: peak memory per device (docs/simulator.md, "Memory") and the
 * radix sort it shares with sim_new.
 *
 * An op with outputs allocates them at its start and frees them at
 * max(start, the largest trunc(start[k]) + trunc(cost[k]) - 1 over its
 * children k); allocations come before frees at equal times. Allocations
 * are already in time order (s->started). A free at the op's own start only
 * has to follow the allocations of that instant; every other free happens at
 * a whole number of µs later than the start, and only those are sorted (as
 * integers, which needs fewer radix passes than the bits of a double). */
#include "sim_impl.h"

#include <math.h>
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

/* The frees later than their op's start into fkey/fop (keys: the time as an
 * integer, or with bits set its IEEE bits, which order the same for times
 * >= 0); marks the others in afree. Returns how many, or -1 when a time is
 * too large for an integer key. */
static int collect_frees(Sim *s, int bits)
{
    const double *start = s->r.start_us, *relf = s->relf;
    const int *ch = s->ch, *off = s->ch_off;
    int nb = 0;
    for (int i = 0; i < s->n; i++) {
        if (s->bytes[i] == 0)
            continue;
        double st = start[i], f = st;
        for (int k = off[i]; k < off[i + 1]; k++) {
            double t = relf[ch[k]];
            if (t > f)
                f = t;
        }
        s->afree[i] = !(f > st);
        if (!(f > st))
            continue;
        if (bits) {
            memcpy(&s->fkey[nb], &f, sizeof f);
        } else {
            if (!(f < 0x1p63))
                return -1;
            s->fkey[nb] = (uint64_t)f;
        }
        s->fop[nb++] = i;
    }
    return nb;
}

void sim_memory(Sim *s)
{
    SimResult *r = &s->r;
    const int *dev = s->dev, *st = s->started;
    const double *start = r->start_us;
    const int64_t *bytes = s->bytes;
    int bits = 0, nb = collect_frees(s, 0);
    if (nb < 0) {
        bits = 1;
        nb = collect_frees(s, 1);
    }
    int in2 = sim_radix_sort(s->fkey, s->fop, s->fkey2, s->fop2, nb);
    const uint64_t *key = in2 ? s->fkey2 : s->fkey;
    const int *fop = in2 ? s->fop2 : s->fop;
    int64_t *cur = s->cur, *peak = r->peak_memory_bytes;
    for (int d = 0; d < s->nd; d++)
        cur[d] = peak[d] = 0;
    int f = 0, ns = s->n_started;
    for (int a = 0; a < ns;) {
        double t = start[st[a]];
        /* the frees before t */
        for (; f < nb; f++) {
            double ft;
            if (bits)
                memcpy(&ft, &key[f], sizeof ft);
            else
                ft = (double)key[f];
            if (!(ft < t))
                break;
            cur[dev[fop[f]]] -= bytes[fop[f]];
        }
        /* the allocations at t, then the frees at t of the ops among them */
        int b = a;
        for (; b < ns && start[st[b]] == t; b++) {
            int i = st[b];
            if (bytes[i]) {
                int d = dev[i];
                cur[d] += bytes[i];
                if (cur[d] > peak[d])
                    peak[d] = cur[d];
            }
        }
        for (; a < b; a++) {
            int i = st[a];
            if (bytes[i] && s->afree[i])
                cur[dev[i]] -= bytes[i];
        }
    }
    r->any_oom = 0;
    for (int d = 0; d < s->nd; d++) {
        r->oom[d] = peak[d] > s->c->devices[d].memory_bytes;
        r->any_oom |= r->oom[d];
    }
}
