/* dag_order: the order of vertices within layers (stage 3 of dag.h).
 *
 * Start: depth-first discovery order from the nodes in index order (sources
 * first), which keeps subtrees together. Then up to `sweeps` iterations of a
 * downward and an upward median sweep (stopping after four sweeps without
 * a new best; a large graph sooner, see LARGE_GAIN) (Gansner et al.'s
 * weighted median; vertices without neighbours in the fixed layer keep their
 * places; equal medians keep the current order). A layer is sorted by its
 * medians with a counting pass on their whole parts, each bucket then
 * sorted (O(V) when most medians are whole, as a dummy's are). After each
 * sweep the crossings are counted (Barth-Juenger-Mutzel with a Fenwick tree,
 * O(E log V)) and the best order seen is kept. */
#include <stdlib.h>
#include <string.h>

#include "dag_impl.h"
#include "util.h"

typedef struct Key {
    double key;
    int pos, v;
} Key;

static int key_cmp(const void *a, const void *b)
{
    const Key *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->pos - y->pos;
}

/* Merge sort of keys with scratch tmp (as long as a): O(k log k) without
 * qsort's indirect calls, which dominated sweeps on wide layers. */
static void sort_keys(Key *a, int k, Key *tmp)
{
    for (int w = 1; w < k; w *= 2) {
        for (int lo = 0; lo < k; lo += 2 * w) {
            int mid = lo + w < k ? lo + w : k, hi = lo + 2 * w < k ? lo + 2 * w : k, i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                tmp[o++] = key_cmp(&a[j], &a[i]) < 0 ? a[j++] : a[i++];
            while (i < mid)
                tmp[o++] = a[i++];
            while (j < hi)
                tmp[o++] = a[j++];
        }
        memcpy(a, tmp, (size_t)k * sizeof *a);
    }
}

static void sort_ints(int *a, int k)
{
    for (int i = 1; i < k; i++) {
        int t = a[i], j = i;
        while (j > 0 && a[j - 1] > t) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = t;
    }
}

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* A large layered graph (more than DAG_LARGE vertices, dummies included)
 * stops sooner: a sweep counts as progress only when it removes at least
 * 1/LARGE_GAIN of the best count so far, and the first sweep without
 * progress ends the reduction (the order with the fewest crossings seen is
 * still the one kept). On 100 000-op random DAGs (200 groups, 6 900 group
 * edges, 260 000 vertices) that is 3 sweeps instead of 13, for 0.6-1.2 %
 * more crossings. */
enum { LARGE_GAIN = 100, LARGE_PATIENCE = 1 };

/* Positions of v's neighbours (nbr[off[v] .. off[v+1])), sorted, into nb. */
static inline int neighbour_positions(const DagLayout *L, const int *off, const int *nbr, int v, int *nb)
{
    int k = off[v + 1] - off[v];
    const int *a = nbr + off[v];
    if (k == 1) { /* most vertices: dummies */
        nb[0] = L->pos[a[0]];
        return 1;
    }
    for (int j = 0; j < k; j++)
        nb[j] = L->pos[a[j]];
    if (k > 24)
        qsort(nb, (size_t)k, sizeof *nb, int_cmp);
    else
        sort_ints(nb, k);
    return k;
}

/* Sorts keys a[0 .. k) in [0, range) by (key, pos) like sort_keys, in
 * O(k + range) when most keys are whole numbers (a dummy's is its
 * neighbour's position): a counting pass by the key's whole part (keys come
 * in pos order, so each bucket is in pos order), then each bucket sorted by
 * key. cnt is scratch for range + 1 ints. */
static void sort_keys_bucketed(Key *a, int k, Key *tmp, int *cnt, int range)
{
    memset(cnt, 0, ((size_t)range + 1) * sizeof *cnt);
    for (int i = 0; i < k; i++)
        cnt[(int)a[i].key + 1]++;
    for (int b = 0; b < range; b++)
        cnt[b + 1] += cnt[b];
    for (int i = 0; i < k; i++)
        tmp[cnt[(int)a[i].key]++] = a[i];
    for (int b = 0, lo = 0; b < range && lo < k; lo = cnt[b++]) { /* bucket b: tmp[lo .. cnt[b]) */
        int hi = cnt[b], sorted = 1;
        for (int i = lo + 1; i < hi && sorted; i++)
            sorted = tmp[i - 1].key <= tmp[i].key;
        if (sorted)
            continue;
        if (hi - lo > 16) {
            sort_keys(tmp + lo, hi - lo, a);
            continue;
        }
        for (int i = lo + 1; i < hi; i++) { /* stable: equal keys keep pos order */
            Key t = tmp[i];
            int j = i;
            while (j > lo && key_cmp(&t, &tmp[j - 1]) < 0) {
                tmp[j] = tmp[j - 1];
                j--;
            }
            tmp[j] = t;
        }
    }
    memcpy(a, tmp, (size_t)k * sizeof *a);
}

/* Gansner's weighted median of sorted positions; -1 when there are none. */
static double median_of(const int *p, int k)
{
    if (k == 0)
        return -1;
    int m = k / 2;
    if (k % 2)
        return p[m];
    if (k == 2)
        return (p[0] + p[1]) / 2.0;
    double left = p[m - 1] - p[0], right = p[k - 1] - p[m];
    if (left + right == 0)
        return (p[m - 1] + p[m]) / 2.0;
    return (p[m - 1] * right + p[m] * left) / (left + right);
}

/* Reorders layer l by the medians of its neighbours in the adjacent layer
 * (up-neighbours when down is set). */
static void sort_layer(DagLayout *L, int l, int down, Key *keys, Key *tmp, int *nb, int *cnt)
{
    const int *off = down ? L->up_off : L->down_off, *nbr = down ? L->up : L->down;
    int *ord = L->order + L->layer_off[l], k = L->layer_off[l + 1] - L->layer_off[l], nk = 0;
    int fixed = down ? l - 1 : l + 1, range = L->layer_off[fixed + 1] - L->layer_off[fixed];
    for (int i = 0; i < k; i++) {
        int v = ord[i], c = neighbour_positions(L, off, nbr, v, nb);
        if (c > 0)
            keys[nk++] = (Key){median_of(nb, c), i, v};
    }
    sort_keys_bucketed(keys, nk, tmp, cnt, range);
    int j = 0;
    for (int i = 0; i < k; i++) {
        int v = ord[i];
        if (L->up_off[v + 1] - L->up_off[v] == 0 && down)
            continue; /* fixed: no neighbour above */
        if (L->down_off[v + 1] - L->down_off[v] == 0 && !down)
            continue;
        ord[i] = keys[j++].v;
    }
    for (int i = 0; i < k; i++)
        L->pos[ord[i]] = i;
}

/* Crossings between layer l and l + 1 in the current order: inversions of
 * the lower ends in upper-end order, counted with a Fenwick tree. bit is
 * scratch for the size of layer l + 1 plus one; nb for the largest degree. */
static long count_crossings(const DagLayout *L, int l, int *bit, int *nb)
{
    int k1 = L->layer_off[l + 2] - L->layer_off[l + 1];
    memset(bit, 0, ((size_t)k1 + 1) * sizeof *bit);
    long cross = 0, seen = 0;
    for (int i = L->layer_off[l]; i < L->layer_off[l + 1]; i++) {
        int c = neighbour_positions(L, L->down_off, L->down, L->order[i], nb);
        for (int j = 0; j < c; j++) {
            long below = 0; /* edges seen so far ending at or left of nb[j] */
            for (int x = nb[j] + 1; x > 0; x -= x & -x)
                below += bit[x];
            cross += seen - below;
        }
        for (int j = 0; j < c; j++) {
            for (int x = nb[j] + 1; x <= k1; x += x & -x)
                bit[x]++;
            seen++;
        }
    }
    return cross;
}

static long total_crossings(const DagLayout *L, int *bit, int *nb)
{
    long c = 0;
    for (int l = 0; l + 1 < L->n_layers; l++)
        c += count_crossings(L, l, bit, nb);
    return c;
}

/* Depth-first discovery order, nodes in index order as roots. */
static void initial_order(DagLayout *L)
{
    int nv = L->n_vert, *fill = XMALLOC(int, L->n_layers);
    int *stack = XMALLOC(int, nv), *next = XMALLOC(int, nv);
    char *seen = XNEW(char, nv);
    memcpy(fill, L->layer_off, (size_t)L->n_layers * sizeof *fill);
    for (int pass = 0; pass < 2; pass++) /* sources first, then the rest */
        for (int r = 0; r < L->n; r++) {
            int is_src = L->up_off[r + 1] == L->up_off[r];
            if (seen[r] || is_src != (pass == 0))
                continue;
            int sp = 0;
            stack[sp++] = r;
            seen[r] = 1;
            L->order[fill[L->layer[r]]++] = r;
            next[r] = L->down_off[r];
            while (sp) {
                int v = stack[sp - 1];
                if (next[v] == L->down_off[v + 1]) {
                    sp--;
                    continue;
                }
                int w = L->down[next[v]++];
                if (seen[w])
                    continue;
                seen[w] = 1;
                L->order[fill[L->layer[w]]++] = w;
                next[w] = L->down_off[w];
                stack[sp++] = w;
            }
        }
    for (int i = 0; i < nv; i++) /* dummies are always reached from their edge's source */
        if (!seen[i])
            L->order[fill[L->layer[i]]++] = i;
    for (int l = 0; l < L->n_layers; l++)
        for (int i = L->layer_off[l]; i < L->layer_off[l + 1]; i++)
            L->pos[L->order[i]] = i - L->layer_off[l];
    free(fill);
    free(stack);
    free(next);
    free(seen);
}

/* CSR lists off/nbr with vertex v's list moved to id[v] and every entry
 * renamed by id (the lists keep their order). */
static void rename_lists(int nv, const int *id, int **off, int **nbr)
{
    int *o = *off, *b = *nbr, *no = XNEW(int, nv + 2), *nb = XMALLOC(int, o[nv] + 1);
    for (int v = 0; v < nv; v++)
        no[id[v] + 1] = o[v + 1] - o[v];
    for (int w = 0; w < nv; w++)
        no[w + 1] += no[w];
    for (int v = 0; v < nv; v++)
        for (int j = o[v], k = no[id[v]]; j < o[v + 1]; j++, k++)
            nb[k] = id[b[j]];
    free(o);
    free(b);
    *off = no;
    *nbr = nb;
}

/* Renumbers the dummies in the start order, layer by layer and left to
 * right (the nodes keep 0 .. n-1), so that the sweeps, the coordinates and
 * the routing, which go through the layers in order, read their per-vertex
 * arrays nearly in sequence. Nothing depends on which number a dummy has:
 * the layout is the same up to the renaming. */
static void renumber_dummies(DagLayout *L)
{
    int nv = L->n_vert, next = L->n, *id = XMALLOC(int, nv + 1), *tmp = XMALLOC(int, nv + 1);
    for (int v = 0; v < L->n; v++)
        id[v] = v;
    for (int i = 0; i < nv; i++)
        if (L->order[i] >= L->n)
            id[L->order[i]] = next++;
    for (int i = 0; i < nv; i++)
        L->order[i] = id[L->order[i]];
    int *per[2] = {L->layer, L->pos};
    for (int a = 0; a < 2; a++) {
        for (int v = 0; v < nv; v++)
            tmp[id[v]] = per[a][v];
        memcpy(per[a], tmp, (size_t)nv * sizeof *tmp);
    }
    for (int k = 0; k < L->chain_off[L->n_edges]; k++)
        L->chain[k] = id[L->chain[k]];
    rename_lists(nv, id, &L->down_off, &L->down);
    rename_lists(nv, id, &L->up_off, &L->up);
    free(id);
    free(tmp);
}

/* Neighbour lists sorted by position (left to right). */
static void sort_adjacency(DagLayout *L, const int *off, int *nbr)
{
    for (int v = 0; v < L->n_vert; v++) {
        int *a = nbr + off[v], k = off[v + 1] - off[v];
        for (int i = 1; i < k; i++) {
            int t = a[i], j = i;
            while (j > 0 && L->pos[a[j - 1]] > L->pos[t]) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = t;
        }
    }
}

void dag_order(DagLayout *L, int sweeps)
{
    int nv = L->n_vert, maxdeg = 1, widest = 1;
    L->order = XMALLOC(int, nv);
    L->pos = XMALLOC(int, nv);
    initial_order(L);
    renumber_dummies(L);
    for (int v = 0; v < nv; v++) {
        int d = L->down_off[v + 1] - L->down_off[v], u = L->up_off[v + 1] - L->up_off[v];
        maxdeg = d > maxdeg ? d : maxdeg;
        maxdeg = u > maxdeg ? u : maxdeg;
    }
    for (int l = 0; l < L->n_layers; l++)
        if (L->layer_off[l + 1] - L->layer_off[l] > widest)
            widest = L->layer_off[l + 1] - L->layer_off[l];
    Key *keys = XMALLOC(Key, 2 * (size_t)widest); /* keys, then merge scratch */
    int *nb = XMALLOC(int, maxdeg), *best = XMALLOC(int, nv);
    int *bit = XMALLOC(int, widest + 1); /* a Fenwick tree, 1-based */
    int *cnt = XMALLOC(int, widest + 1);
    long best_c = total_crossings(L, bit, nb);
    memcpy(best, L->order, (size_t)nv * sizeof *best);
    int large = nv > DAG_LARGE, patience = large ? LARGE_PATIENCE : 4;
    for (int it = 0, stale = 0; it < 2 * sweeps && best_c > 0 && stale < patience; it++) {
        int down = it % 2 == 0;
        for (int s = 1; s < L->n_layers; s++)
            sort_layer(L, down ? s : L->n_layers - 1 - s, down, keys, keys + widest, nb, cnt);
        long c = total_crossings(L, bit, nb);
        stale++;
        if (c < best_c) {
            if (!large || (best_c - c) * LARGE_GAIN >= best_c)
                stale = 0;
            best_c = c;
            memcpy(best, L->order, (size_t)nv * sizeof *best);
        }
    }
    memcpy(L->order, best, (size_t)nv * sizeof *best);
    for (int l = 0; l < L->n_layers; l++)
        for (int i = L->layer_off[l]; i < L->layer_off[l + 1]; i++)
            L->pos[L->order[i]] = i - L->layer_off[l];
    L->crossings = best_c;
    sort_adjacency(L, L->down_off, L->down);
    sort_adjacency(L, L->up_off, L->up);
    free(keys);
    free(nb);
    free(best);
    free(bit);
    free(cnt);
}
