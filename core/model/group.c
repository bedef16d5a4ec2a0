/* group: see group.h. Merging works on a union-find over ops; each phase
 * rebuilds the quotient graph of the current groups ("Quot") as needed. */
#include "group.h"

#include <stdlib.h>
#include <string.h>

typedef struct UF {
    int *parent;
    const char *held; /* per op: a parameter held by its colocation group */
    int *pinned;   /* per root: 1 if it holds a pinned op */
    double *cost;  /* per root */
} UF;

static int uf_find(UF *u, int x)
{
    while (u->parent[x] != x) {
        u->parent[x] = u->parent[u->parent[x]];
        x = u->parent[x];
    }
    return x;
}

/* Joins the sets of a and b; the smaller root index stays root, so that the
 * result does not depend on the order of calls. */
static int uf_union(UF *u, int a, int b)
{
    a = uf_find(u, a);
    b = uf_find(u, b);
    if (a == b)
        return a;
    if (b < a) {
        int t = a;
        a = b;
        b = t;
    }
    u->parent[b] = a;
    u->pinned[a] |= u->pinned[b];
    u->cost[a] += u->cost[b];
    return a;
}

/* The quotient graph of the current sets: m groups with ids 0..m-1 given in
 * order of their smallest op, CSR successor and predecessor lists (deduped,
 * sorted). */
typedef struct Quot {
    int m;
    int *id;      /* per op: group id */
    int *root;    /* per group: union-find root */
    int *soff, *succ, *poff, *pred;
} Quot;

/* Sorts the np pairs (a, b), both in [0, m), by a then b: two stable
 * counting passes (by b, then by a), linear where qsort was the most of a
 * 100 000-op graph's grouping. */
static void sort_pairs(int *pairs, int np, int m)
{
    int *tmp = XMALLOC(int, 2 * (size_t)np + 1), *cnt = XMALLOC(int, (size_t)m + 1);
    for (int key = 1; key >= 0; key--) {
        const int *from = key ? pairs : tmp;
        int *to = key ? tmp : pairs;
        memset(cnt, 0, ((size_t)m + 1) * sizeof *cnt);
        for (int k = 0; k < np; k++)
            cnt[from[2 * k + key] + 1]++;
        for (int v = 0; v < m; v++)
            cnt[v + 1] += cnt[v];
        for (int k = 0; k < np; k++) {
            int at = cnt[from[2 * k + key]]++;
            to[2 * at] = from[2 * k];
            to[2 * at + 1] = from[2 * k + 1];
        }
    }
    free(tmp);
    free(cnt);
}

static void quot_build(Quot *q, const Graph *g, UF *u)
{
    int n = g->n_nodes;
    q->id = XMALLOC(int, n);
    q->root = XMALLOC(int, n);
    int *rid = XMALLOC(int, n);
    memset(rid, -1, (size_t)n * sizeof *rid);
    q->m = 0;
    for (int i = 0; i < n; i++) {
        int r = uf_find(u, i);
        if (rid[r] < 0) {
            rid[r] = q->m;
            q->root[q->m++] = r;
        }
        q->id[i] = rid[r];
    }
    free(rid);
    int *pairs = XMALLOC(int, 2 * (size_t)g->n_edges); /* (a, b) per edge */
    int np = 0;
    for (int k = 0; k < g->n_edges; k++) {
        if (u->held[g->edges[k].src])
            continue;
        int a = q->id[g->edges[k].src], b = q->id[g->edges[k].dst];
        if (a != b) {
            pairs[2 * np] = a;
            pairs[2 * np + 1] = b;
            np++;
        }
    }
    sort_pairs(pairs, np, q->m);
    int w = 0;
    for (int k = 0; k < np; k++)
        if (w == 0 || pairs[2 * k] != pairs[2 * (w - 1)] || pairs[2 * k + 1] != pairs[2 * (w - 1) + 1]) {
            pairs[2 * w] = pairs[2 * k];
            pairs[2 * w + 1] = pairs[2 * k + 1];
            w++;
        }
    np = w;
    q->soff = XNEW(int, q->m + 1);
    q->poff = XNEW(int, q->m + 1);
    q->succ = XMALLOC(int, np);
    q->pred = XMALLOC(int, np);
    for (int k = 0; k < np; k++) {
        q->soff[pairs[2 * k] + 1]++;
        q->poff[pairs[2 * k + 1] + 1]++;
    }
    for (int v = 0; v < q->m; v++) {
        q->soff[v + 1] += q->soff[v];
        q->poff[v + 1] += q->poff[v];
    }
    int *fill = XMALLOC(int, q->m);
    memcpy(fill, q->soff, (size_t)q->m * sizeof *fill);
    for (int k = 0; k < np; k++)
        q->succ[fill[pairs[2 * k]]++] = pairs[2 * k + 1];
    memcpy(fill, q->poff, (size_t)q->m * sizeof *fill);
    for (int k = 0; k < np; k++) /* pairs sorted by src: preds come out sorted */
        q->pred[fill[pairs[2 * k + 1]]++] = pairs[2 * k];
    free(fill);
    free(pairs);
}

static void quot_free(Quot *q)
{
    free(q->id);
    free(q->root);
    free(q->soff);
    free(q->succ);
    free(q->poff);
    free(q->pred);
}

/* A topological order of q. lifo = 0: Kahn with the smallest ready id first;
 * lifo = 1: the most recently readied group next, which keeps a group and its
 * consumers next to each other. Returns the number ordered (< m on a cycle). */
static int quot_topo(const Quot *q, int lifo, int *order)
{
    int m = q->m, *indeg = XMALLOC(int, m);
    int *ready = XMALLOC(int, m), nr = 0, done = 0;
    for (int v = 0; v < m; v++)
        indeg[v] = q->poff[v + 1] - q->poff[v];
    for (int v = m - 1; v >= 0; v--) /* stack: smallest on top */
        if (indeg[v] == 0)
            ready[nr++] = v;
    while (nr > 0) {
        int v;
        if (lifo) {
            v = ready[--nr];
        } else { /* smallest id: ready is kept as a min-heap */
            v = ready[0];
            ready[0] = ready[--nr];
            for (int i = 0;;) {
                int l = 2 * i + 1, s = i;
                if (l < nr && ready[l] < ready[s]) s = l;
                if (l + 1 < nr && ready[l + 1] < ready[s]) s = l + 1;
                if (s == i) break;
                int t = ready[i]; ready[i] = ready[s]; ready[s] = t;
                i = s;
            }
        }
        order[done++] = v;
        /* push children in reverse so the first child is taken first (lifo) */
        for (int k = q->soff[v + 1] - 1; k >= q->soff[v]; k--) {
            int c = q->succ[k];
            if (--indeg[c] != 0)
                continue;
            int i = nr++;
            ready[i] = c;
            if (!lifo)
                while (i > 0 && ready[(i - 1) / 2] > ready[i]) {
                    int p = (i - 1) / 2, t = ready[i];
                    ready[i] = ready[p]; ready[p] = t;
                    i = p;
                }
        }
    }
    free(indeg);
    free(ready);
    return done;
}

/* Step 1b: merge every strongly connected component of the quotient (groups
 * that depend on each other through colocation) into one group. Tarjan's
 * algorithm, iterative. */
static int merge_cycles(const Graph *g, UF *u, Err *e)
{
    Quot q;
    quot_build(&q, g, u);
    int m = q.m;
    int *order = XMALLOC(int, m);
    int acyclic = quot_topo(&q, 0, order) == m;
    free(order);
    if (acyclic) {
        quot_free(&q);
        return 0;
    }
    int *index = XMALLOC(int, m), *low = XMALLOC(int, m);
    int *onstack = XNEW(int, m), *stack = XMALLOC(int, m);
    int *cs = XMALLOC(int, m), *ci = XMALLOC(int, m);
    memset(index, -1, (size_t)m * sizeof *index);
    /* pins as they were before this pass (unions below spread the flag) */
    char *pinned = XMALLOC(char, m);
    for (int k = 0; k < m; k++)
        pinned[k] = (char)u->pinned[q.root[k]];
    int counter = 0, sp = 0, rc = 0;
    for (int s0 = 0; s0 < m && rc == 0; s0++) {
        if (index[s0] >= 0)
            continue;
        int csp = 0;
        cs[csp] = s0;
        ci[csp++] = q.soff[s0];
        index[s0] = low[s0] = counter++;
        stack[sp++] = s0;
        onstack[s0] = 1;
        while (csp > 0 && rc == 0) {
            int v = cs[csp - 1];
            if (ci[csp - 1] < q.soff[v + 1]) {
                int w = q.succ[ci[csp - 1]++];
                if (index[w] < 0) {
                    index[w] = low[w] = counter++;
                    stack[sp++] = w;
                    onstack[w] = 1;
                    cs[csp] = w;
                    ci[csp++] = q.soff[w];
                } else if (onstack[w] && index[w] < low[v]) {
                    low[v] = index[w];
                }
                continue;
            }
            csp--;
            if (csp > 0 && low[v] < low[cs[csp - 1]])
                low[cs[csp - 1]] = low[v];
            if (low[v] != index[v])
                continue;
            /* v is the root of a component: pop it and merge */
            int first_pin = -1, w; /* quotient id of the first pinned group seen */
            do {
                w = stack[--sp];
                onstack[w] = 0;
                if (pinned[w]) {
                    if (first_pin >= 0 && rc == 0) {
                        const char *a = NULL, *b = NULL;
                        for (int i = 0; i < g->n_nodes && (!a || !b); i++) {
                            if (!g->nodes[i].group) continue;
                            if (!a && q.id[i] == first_pin) a = g->nodes[i].group;
                            if (!b && q.id[i] == w) b = g->nodes[i].group;
                        }
                        err_set(e, "pinned groups \"%s\" and \"%s\" depend on each other (their ops form a "
                                   "cycle between the groups); pin them to one group", a ? a : "?", b ? b : "?");
                        rc = -1;
                    }
                    first_pin = w;
                }
                uf_union(u, q.root[v], q.root[w]);
            } while (w != v);
        }
    }
    free(pinned);
    free(index);
    free(low);
    free(onstack);
    free(stack);
    free(cs);
    free(ci);
    quot_free(&q);
    return rc;
}

/* Step 1: colocation keys and pins. */
static int merge_keys(const Graph *g, UF *u, Err *e)
{
    int n = g->n_nodes;
    StrMap coloc, pin;
    strmap_init(&coloc, 64);
    strmap_init(&pin, 64);
    for (int i = 0; i < n; i++) {
        const GraphNode *nd = &g->nodes[i];
        if (nd->group) {
            int j = strmap_put(&pin, nd->group, i);
            if (j >= 0)
                uf_union(u, i, j);
            u->pinned[uf_find(u, i)] = 1;
        }
        if (nd->colocate) {
            int j = strmap_put(&coloc, nd->colocate, i);
            if (j >= 0) {
                /* two different pins joined by a colocation key cannot both hold */
                const char *pa = NULL, *pb = NULL;
                int ra = uf_find(u, i), rb = uf_find(u, j);
                if (ra != rb && u->pinned[ra] && u->pinned[rb]) {
                    for (int k = 0; k < n && (!pa || !pb); k++) {
                        if (!g->nodes[k].group) continue;
                        if (!pa && uf_find(u, k) == ra) pa = g->nodes[k].group;
                        if (!pb && uf_find(u, k) == rb) pb = g->nodes[k].group;
                    }
                    err_set(e, "nodes \"%s\" and \"%s\" share colocation key \"%s\" but are pinned to "
                               "different groups \"%s\" and \"%s\"",
                            g->nodes[j].name, nd->name, nd->colocate, pb ? pb : "?", pa ? pa : "?");
                    strmap_done(&coloc);
                    strmap_done(&pin);
                    return -1;
                }
                uf_union(u, i, j);
            }
        }
    }
    strmap_done(&coloc);
    strmap_done(&pin);
    return merge_cycles(g, u, e);
}

/* Step 2: a group whose ops feed exactly one other group joins it (this
 * cannot close a cycle), in reverse topological order, while the result stays
 * under the cost cap and above the target count. */
static int merge_chains(const Graph *g, UF *u, int count, int target, double cap)
{
    Quot q;
    quot_build(&q, g, u);
    int *order = XMALLOC(int, q.m);
    quot_topo(&q, 0, order);
    for (int k = q.m - 1; k >= 0 && count > target; k--) {
        int v = order[k], ru = uf_find(u, q.root[v]), only = -1, many = 0;
        for (int j = q.soff[v]; j < q.soff[v + 1] && !many; j++) {
            int rs = uf_find(u, q.root[q.succ[j]]);
            if (rs == ru)
                continue;
            if (only < 0)
                only = rs;
            else if (only != rs)
                many = 1;
        }
        if (only < 0 || many || u->pinned[ru] || u->pinned[only])
            continue;
        if (u->cost[ru] + u->cost[only] > cap)
            continue;
        uf_union(u, ru, only);
        count--;
    }
    free(order);
    quot_free(&q);
    return count;
}

/* GROUP_CHAINS: in a topological order of the groups of step 1, a group
 * whose ops feed exactly one other group s, s being fed by no group but
 * this one, merges with s (a chain a -> b -> c becomes one group in one
 * sweep). Merging an edge into a node with no other predecessor cannot
 * close a cycle. Pinned groups stay alone. */
static void merge_unique_chains(const Graph *g, UF *u)
{
    Quot q; /* its edges are distinct, between distinct groups */
    quot_build(&q, g, u);
    int *order = XMALLOC(int, q.m);
    quot_topo(&q, 0, order);
    for (int k = 0; k < q.m; k++) {
        int v = order[k];
        if (q.soff[v + 1] - q.soff[v] != 1)
            continue;
        int s = q.succ[q.soff[v]];
        if (q.poff[s + 1] - q.poff[s] != 1)
            continue;
        int rv = uf_find(u, q.root[v]), rs = uf_find(u, q.root[s]);
        if (rv != rs && !u->pinned[rv] && !u->pinned[rs])
            uf_union(u, rv, rs);
    }
    free(order);
    quot_free(&q);
}

typedef struct Cand {
    double cost;
    int pos;
} Cand;

static int cmp_cand(const void *a, const void *b)
{
    const Cand *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost < y->cost ? -1 : 1;
    return x->pos - y->pos;
}

static int has_edge(const Quot *q, int a, int b)
{
    int lo = q->soff[a], hi = q->soff[a + 1];
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (q->succ[mid] < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < q->soff[a + 1] && q->succ[lo] == b;
}

/* A round whose preferred kind of pair offers fewer than one candidate per
 * NEIGHBOUR_SHARE groups (and fewer than the merges left) takes the next
 * kinds too, after it: a star (one op feeding all the others) would take one
 * round per merge. At 16 the groups of every bundled graph are as before. */
#define NEIGHBOUR_SHARE 16

/* Step 3: rounds of merging groups that sit next to each other in a
 * topological order (which keeps that order valid, hence no cycle). Each
 * round takes the first kind of candidate pair that exists: connected pairs
 * within the cost cap, any neighbours within the cap, connected pairs, any
 * neighbours; cheapest pairs first (and the next kinds when the first offers
 * too few, above). The cap (twice an even share) keeps one group from
 * swallowing the graph when few connected pairs remain. Each round merges a
 * fair share of the groups, so the rounds are O(log n). */
static int merge_neighbours(const Graph *g, UF *u, int count, int target, double cap)
{
    while (count > target) {
        Quot q;
        quot_build(&q, g, u);
        int m = q.m;
        int *order = XMALLOC(int, m);
        quot_topo(&q, 1, order);
        Cand *cand = XMALLOC(Cand, m);
        char *taken = XNEW(char, m); /* position i's pair is a candidate already */
        int nc = 0;
        for (int pass = 0; pass < 4; pass++) {
            /* the first kind that has candidates, as long as they are a fair share of the round: a kind with
             * only a handful among many groups (a star's hub and its first leaf) would take one round per
             * merge, quadratic time; then the next kinds fill the round, after it */
            if (nc > 0 && (nc >= count - target || (int64_t)nc * NEIGHBOUR_SHARE >= m))
                break;
            int from = nc;
            for (int i = 0; i + 1 < m; i++) {
                int a = order[i], b = order[i + 1];
                if (taken[i] || u->pinned[q.root[a]] || u->pinned[q.root[b]])
                    continue;
                double cost = u->cost[q.root[a]] + u->cost[q.root[b]];
                if (pass < 2 && cost > cap)
                    continue;
                if ((pass == 0 || pass == 2) && !has_edge(&q, a, b))
                    continue;
                taken[i] = 1;
                cand[nc++] = (Cand){cost, i};
            }
            qsort(cand + from, (size_t)(nc - from), sizeof *cand, cmp_cand);
        }
        free(taken);
        char *used = XNEW(char, m);
        int merged = 0;
        for (int k = 0; k < nc && count > target; k++) {
            int i = cand[k].pos;
            if (used[i] || used[i + 1])
                continue;
            used[i] = used[i + 1] = 1;
            uf_union(u, q.root[order[i]], q.root[order[i + 1]]);
            count--;
            merged++;
        }
        free(used);
        free(cand);
        free(order);
        quot_free(&q);
        if (!merged)
            break;
    }
    return count;
}

/* Parameters held by their colocation group: source ops that share their
 * colocation key with an op that has inputs (a gradient or an update). Their
 * value exists before the step starts, so their outgoing edges do not order
 * groups; counting them would put a parameter's group (which also holds the
 * update at the end of the step) on a cycle with the whole forward and
 * backward pass between them. */
static char *find_held(const Graph *g)
{
    int n = g->n_nodes;
    char *held = XNEW(char, n);
    StrMap inner; /* keys that some op with inputs carries */
    strmap_init(&inner, 64);
    for (int i = 0; i < n; i++)
        if (g->nodes[i].colocate && g->nodes[i].n_parents > 0)
            strmap_put(&inner, g->nodes[i].colocate, i);
    for (int i = 0; i < n; i++)
        held[i] = g->nodes[i].colocate && g->nodes[i].n_parents == 0 &&
                  strmap_get(&inner, g->nodes[i].colocate) >= 0;
    strmap_done(&inner);
    return held;
}

int group_default_target(const Graph *g)
{
    int n = g->n_nodes;
    if (n <= 200)
        return n;
    int t = n / 10;
    return t < 100 ? 100 : t > 200 ? 200 : t;
}

/* Fills gr from the final sets: ids in topological order of the group graph
 * (smallest first op first among ready groups), names, members, sums, CSR. */
static void finalize(Grouping *gr, const Graph *g, UF *u)
{
    int n = g->n_nodes;
    Quot q;
    quot_build(&q, g, u);
    int m = q.m;
    int *order = XMALLOC(int, m), *newid = XMALLOC(int, m);
    quot_topo(&q, 0, order); /* ids follow smallest op, so this is "first op first" */
    for (int k = 0; k < m; k++)
        newid[order[k]] = k;
    gr->n_groups = m;
    gr->n_ops = n;
    gr->op_group = XMALLOC(int, n);
    for (int i = 0; i < n; i++)
        gr->op_group[i] = newid[q.id[i]];
    gr->member_off = XNEW(int, m + 1);
    gr->members = XMALLOC(int, n);
    gr->cost_us = XNEW(double, m);
    gr->bytes = XNEW(int64_t, m);
    gr->pinned = XNEW(int, m);
    gr->names = XNEW(char *, m);
    for (int i = 0; i < n; i++)
        gr->member_off[gr->op_group[i] + 1]++;
    for (int k = 0; k < m; k++)
        gr->member_off[k + 1] += gr->member_off[k];
    int *fill = XMALLOC(int, m);
    memcpy(fill, gr->member_off, (size_t)m * sizeof *fill);
    for (int i = 0; i < n; i++) {
        int k = gr->op_group[i];
        gr->members[fill[k]++] = i;
        gr->cost_us[k] += g->nodes[i].cost_us;
        gr->bytes[k] += graph_node_bytes(g, i);
        if (g->nodes[i].group && !gr->names[k]) {
            gr->names[k] = xstrdup(g->nodes[i].group);
            gr->pinned[k] = 1;
        }
    }
    /* names: the pin, else the first op's name; made unique with "~N" */
    StrMap seen;
    strmap_init(&seen, (size_t)m);
    for (int k = 0; k < m; k++)
        if (gr->names[k])
            strmap_put(&seen, gr->names[k], k);
    for (int k = 0; k < m; k++) {
        if (gr->pinned[k])
            continue;
        const char *base = g->nodes[gr->members[gr->member_off[k]]].name;
        char *name = xstrdup(base);
        for (int s = 2; strmap_get(&seen, name) >= 0; s++) {
            free(name);
            size_t len = strlen(base) + 16;
            name = xmalloc(len);
            snprintf(name, len, "%s~%d", base, s);
        }
        gr->names[k] = name;
        strmap_put(&seen, name, k);
    }
    strmap_done(&seen);
    /* group graph with summed bytes: collect (a, b, bytes), sort, merge */
    typedef struct { int a, b; int64_t bytes; } GE;
    GE *ge = XMALLOC(GE, g->n_edges);
    int ne = 0;
    for (int k = 0; k < g->n_edges; k++) {
        const GraphEdge *ed = &g->edges[k];
        if (gr->held[ed->src])
            continue;
        int a = gr->op_group[ed->src], b = gr->op_group[ed->dst];
        if (a != b)
            ge[ne++] = (GE){a, b, graph_edge_bytes(g, ed->src, ed->output)};
    }
    /* counting sort by (a, b) through CSR keeps this O(E log deg) */
    gr->succ_off = XNEW(int, m + 1);
    gr->pred_off = XNEW(int, m + 1);
    int *tmp_off = XNEW(int, m + 1);
    for (int k = 0; k < ne; k++)
        tmp_off[ge[k].a + 1]++;
    for (int k = 0; k < m; k++)
        tmp_off[k + 1] += tmp_off[k];
    GE *by_a = XMALLOC(GE, ne);
    memcpy(fill, tmp_off, (size_t)m * sizeof *fill);
    for (int k = 0; k < ne; k++)
        by_a[fill[ge[k].a]++] = ge[k];
    gr->succ = XMALLOC(int, ne);
    gr->succ_bytes = XMALLOC(int64_t, ne);
    int w = 0;
    int *last = XMALLOC(int, m);
    memset(last, -1, (size_t)m * sizeof *last);
    for (int a = 0; a < m; a++) {
        int start = w;
        for (int k = tmp_off[a]; k < tmp_off[a + 1]; k++) {
            int b = by_a[k].b;
            if (last[b] >= start) {
                gr->succ_bytes[last[b]] += by_a[k].bytes;
            } else {
                last[b] = w;
                gr->succ[w] = b;
                gr->succ_bytes[w++] = by_a[k].bytes;
            }
        }
        /* sort this row by successor index (insertion sort: rows are short) */
        for (int i = start + 1; i < w; i++) {
            int sb = gr->succ[i];
            int64_t sy = gr->succ_bytes[i];
            int j = i - 1;
            while (j >= start && gr->succ[j] > sb) {
                gr->succ[j + 1] = gr->succ[j];
                gr->succ_bytes[j + 1] = gr->succ_bytes[j];
                j--;
            }
            gr->succ[j + 1] = sb;
            gr->succ_bytes[j + 1] = sy;
        }
        for (int i = start; i < w; i++)
            last[gr->succ[i]] = i;
        gr->succ_off[a + 1] = w;
    }
    gr->n_edges = w;
    gr->pred = XMALLOC(int, w);
    for (int k = 0; k < w; k++)
        gr->pred_off[gr->succ[k] + 1]++;
    for (int k = 0; k < m; k++)
        gr->pred_off[k + 1] += gr->pred_off[k];
    memcpy(fill, gr->pred_off, (size_t)m * sizeof *fill);
    for (int a = 0; a < m; a++)
        for (int k = gr->succ_off[a]; k < gr->succ_off[a + 1]; k++)
            gr->pred[fill[gr->succ[k]]++] = a;
    free(last);
    free(by_a);
    free(tmp_off);
    free(ge);
    free(fill);
    free(order);
    free(newid);
    quot_free(&q);
}

Grouping *group_build(const Graph *g, int target, Err *e)
{
    int n = g->n_nodes, chains = target == GROUP_CHAINS;
    if (target <= 0)
        target = chains ? n : group_default_target(g);
    UF u;
    u.parent = XMALLOC(int, n);
    u.pinned = XNEW(int, n);
    u.cost = XMALLOC(double, n);
    double total = 0;
    for (int i = 0; i < n; i++) {
        u.parent[i] = i;
        u.cost[i] = g->nodes[i].cost_us;
        total += u.cost[i];
    }
    char *held = find_held(g);
    u.held = held;
    Grouping *gr = NULL;
    if (merge_keys(g, &u, e) == 0) {
        int count = 0;
        for (int i = 0; i < n; i++)
            count += uf_find(&u, i) == i;
        if (chains) {
            merge_unique_chains(g, &u);
        } else if (count > target) {
            /* chains may grow up to an even share of the total cost */
            count = merge_chains(g, &u, count, target, total / target);
            count = merge_neighbours(g, &u, count, target, 2 * total / target);
        }
        gr = xcalloc(1, sizeof *gr);
        gr->target = chains ? GROUP_CHAINS : target;
        gr->held = held;
        held = NULL;
        finalize(gr, g, &u);
    }
    free(held);
    free(u.parent);
    free(u.pinned);
    free(u.cost);
    return gr;
}

void group_free(Grouping *gr)
{
    if (!gr)
        return;
    for (int k = 0; k < gr->n_groups; k++)
        free(gr->names[k]);
    free(gr->names);
    free(gr->pinned);
    free(gr->held);
    free(gr->op_group);
    free(gr->member_off);
    free(gr->members);
    free(gr->cost_us);
    free(gr->bytes);
    free(gr->succ_off);
    free(gr->succ);
    free(gr->succ_bytes);
    free(gr->pred_off);
    free(gr->pred);
    free(gr);
}

int group_find(const Grouping *gr, const char *name)
{
    for (int k = 0; k < gr->n_groups; k++)
        if (strcmp(gr->names[k], name) == 0)
            return k;
    return -1;
}

void group_expand(const Grouping *gr, const int *group_device, int *op_device)
{
    for (int i = 0; i < gr->n_ops; i++)
        op_device[i] = group_device[gr->op_group[i]];
}

void group_collapse(const Grouping *gr, const int *op_device, int *group_device)
{
    for (int k = 0; k < gr->n_groups; k++)
        group_device[k] = op_device[gr->members[gr->member_off[k]]];
}

void group_cluster_stats(const Grouping *gr, const int *cluster, int n, GroupClusterStats *s)
{
    int G = gr->n_groups;
    s->n_clusters = cluster ? n : G;
    s->cut_bytes = 0;
    for (int u = 0; u < G; u++)
        for (int j = gr->succ_off[u]; j < gr->succ_off[u + 1]; j++)
            if (!cluster || cluster[u] != cluster[gr->succ[j]])
                s->cut_bytes += gr->succ_bytes[j];
    double *cost = xcalloc((size_t)s->n_clusters, sizeof *cost), total = 0, most = 0;
    for (int v = 0; v < G; v++) {
        cost[cluster ? cluster[v] : v] += gr->cost_us[v];
        total += gr->cost_us[v];
    }
    for (int k = 0; k < s->n_clusters; k++)
        if (cost[k] > most)
            most = cost[k];
    s->balance = total > 0 ? most / (total / s->n_clusters) : 1;
    free(cost);
}

double group_bottom_levels(const Grouping *gr, double *blevel)
{
    double crit = 0;
    for (int k = gr->n_groups - 1; k >= 0; k--) { /* groups are numbered topologically */
        double m = 0;
        for (int j = gr->succ_off[k]; j < gr->succ_off[k + 1]; j++)
            if (blevel[gr->succ[j]] > m)
                m = blevel[gr->succ[j]];
        blevel[k] = gr->cost_us[k] + m;
        crit = blevel[k] > crit ? blevel[k] : crit;
    }
    return crit;
}
