/* group_check: the grouping invariants the grouping tests check, against
 * independent reference computations (union-find classes, strongly
 * connected components, pin hulls). See group_check.h. */
#include "group_check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

/* ---- independent reference computations ---- */

typedef struct Ref {
    int n_classes; /* sets after colocation keys, pins and cycle merging */
    int *cls;      /* per op: class id */
} Ref;

static int find(int *p, int x)
{
    while (p[x] != x)
        x = p[x] = p[p[x]];
    return x;
}

static void join(int *p, int a, int b)
{
    a = find(p, a);
    b = find(p, b);
    if (a != b)
        p[a > b ? a : b] = a < b ? a : b;
}

/* Parameters held by their colocation group, computed independently: source
 * ops whose colocation key is also carried by some op with inputs. Their
 * outgoing edges do not order groups. */
static char *ref_held(const Graph *g)
{
    int n = g->n_nodes;
    char *held = XNEW(char, n);
    for (int i = 0; i < n; i++) {
        if (!g->nodes[i].colocate || g->nodes[i].n_parents)
            continue;
        for (int j = 0; j < n && !held[i]; j++)
            held[i] = g->nodes[j].n_parents && g->nodes[j].colocate &&
                      strcmp(g->nodes[j].colocate, g->nodes[i].colocate) == 0;
    }
    return held;
}

/* The quotient of the union-find sets p of g's ops, for Kosaraju: the ops of
 * each set root as a list (head, next), the held parameters (whose out-edges
 * do not count) and a DFS stack. */
typedef struct Quotient {
    const Graph *g;
    int *p;
    const char *held;
    int *head, *next; /* ops of root r: head[r], next[head[r]], ... (-1 ends) */
    int *stk;
} Quotient;

static Quotient quotient_new(const Graph *g, int *p, const char *held)
{
    int n = g->n_nodes;
    Quotient q = {g, p, held, XMALLOC(int, n), XMALLOC(int, n), NULL};
    for (int i = 0; i < n; i++)
        q.head[i] = -1;
    for (int i = n - 1; i >= 0; i--) {
        int r = find(p, i);
        q.next[i] = q.head[r];
        q.head[r] = i;
    }
    /* at most one entry per root and per edge, plus one exit per root: pairs */
    q.stk = XMALLOC(int, 2 * (size_t)(2 * n + g->n_edges + 1));
    return q;
}

static void quotient_free(Quotient *q)
{
    free(q->head);
    free(q->next);
    free(q->stk);
}

/* Kosaraju's pass 1: the roots in DFS finishing order (iterative DFS over
 * the out-edges); returns how many. */
static int finishing_order(Quotient *q, int *order)
{
    const Graph *g = q->g;
    int n = g->n_nodes, *seen = XNEW(int, n), *stk = q->stk, no = 0;
    for (int s = 0; s < n; s++) {
        if (find(q->p, s) != s || seen[s])
            continue;
        int sp = 0;
        stk[sp++] = s;
        stk[sp++] = 0; /* state: 0 enter, 1 exit */
        while (sp) {
            int st = stk[--sp], v = stk[--sp];
            if (st == 1) {
                order[no++] = v;
                continue;
            }
            if (seen[v])
                continue;
            seen[v] = 1;
            stk[sp++] = v;
            stk[sp++] = 1;
            for (int op = q->head[v]; op >= 0; op = q->next[op])
                for (int k = 0; k < g->nodes[op].n_children && !q->held[op]; k++) {
                    int w = find(q->p, g->nodes[op].children[k]);
                    if (!seen[w]) {
                        stk[sp++] = w;
                        stk[sp++] = 0;
                    }
                }
        }
    }
    free(seen);
    return no;
}

/* Kosaraju's pass 2: the reverse graph in reverse finishing order; comp[r]
 * is the first root of r's strongly connected component. */
static void component_roots(Quotient *q, const int *order, int no, int *comp)
{
    const Graph *g = q->g;
    int *stk = q->stk;
    for (int i = 0; i < g->n_nodes; i++)
        comp[i] = -1;
    for (int k = no - 1; k >= 0; k--) {
        int s = order[k];
        if (comp[s] >= 0)
            continue;
        int sp = 0;
        stk[sp++] = s;
        comp[s] = s;
        while (sp) {
            int v = stk[--sp];
            for (int op = q->head[v]; op >= 0; op = q->next[op])
                for (int j = 0; j < g->nodes[op].n_parents; j++) {
                    if (q->held[g->nodes[op].parents[j]])
                        continue;
                    int w = find(q->p, g->nodes[op].parents[j]);
                    if (comp[w] < 0) {
                        comp[w] = s;
                        stk[sp++] = w;
                    }
                }
        }
    }
}

/* Kosaraju on the quotient of the union-find sets; merges each strongly
 * connected component. Returns the number of sets. */
static int merge_sccs(const Graph *g, int *p, const char *held)
{
    int n = g->n_nodes;
    Quotient q = quotient_new(g, p, held);
    int *order = XMALLOC(int, n), *comp = XMALLOC(int, n);
    int no = finishing_order(&q, order);
    component_roots(&q, order, no, comp);
    for (int i = 0; i < n; i++)
        if (find(p, i) == i && comp[i] != i)
            join(p, i, comp[i]);
    int count = 0;
    for (int i = 0; i < n; i++)
        count += find(p, i) == i;
    quotient_free(&q);
    free(order);
    free(comp);
    return count;
}

/* Step 1 of grouping, computed independently: colocation keys and pins, then
 * strongly connected components until none is left. */
static Ref ref_classes(const Graph *g)
{
    int n = g->n_nodes;
    int *p = XMALLOC(int, n);
    for (int i = 0; i < n; i++)
        p[i] = i;
    StrMap keys, pins;
    strmap_init(&keys, 16);
    strmap_init(&pins, 16);
    for (int i = 0; i < n; i++) {
        const GraphNode *a = &g->nodes[i];
        int j;
        if (a->colocate && (j = strmap_put(&keys, a->colocate, i)) >= 0)
            join(p, i, j);
        if (a->group && (j = strmap_put(&pins, a->group, i)) >= 0)
            join(p, i, j);
    }
    strmap_done(&keys);
    strmap_done(&pins);
    char *held = ref_held(g);
    int before, after = -1;
    do {
        before = after;
        after = merge_sccs(g, p, held);
    } while (after != before);
    free(held);
    Ref r = {after, XMALLOC(int, n)};
    for (int i = 0; i < n; i++)
        r.cls[i] = find(p, i);
    free(p);
    return r;
}

/* in_hull[i] = 1 when op i is reachable from an op pinned to `pin` and
 * reaches one (the pinned ops themselves included), in the op graph. */
void hull(const Graph *g, const char *pin, char *in_hull)
{
    int n = g->n_nodes;
    char *fwd = XNEW(char, n), *bwd = XNEW(char, n);
    for (int t = 0; t < n; t++) { /* in topological order: parents first */
        int v = g->topo[t];
        if (g->nodes[v].group && strcmp(g->nodes[v].group, pin) == 0)
            fwd[v] = 1;
        for (int k = 0; k < g->nodes[v].n_parents && !fwd[v]; k++)
            fwd[v] = fwd[g->nodes[v].parents[k]];
    }
    for (int t = n - 1; t >= 0; t--) {
        int v = g->topo[t];
        if (g->nodes[v].group && strcmp(g->nodes[v].group, pin) == 0)
            bwd[v] = 1;
        for (int k = 0; k < g->nodes[v].n_children && !bwd[v]; k++)
            bwd[v] = bwd[g->nodes[v].children[k]];
    }
    for (int i = 0; i < n; i++)
        in_hull[i] = fwd[i] && bwd[i];
    free(fwd);
    free(bwd);
}

/* ---- the invariants ---- */

/* Partition: the members lists and op_group agree, every op in exactly one
 * group, members in graph order, no group empty. */
static void check_partition(const Graph *g, const Grouping *gr, const char *what)
{
    int n = g->n_nodes, m = gr->n_groups;
    CHECK_MSG(gr->member_off[0] == 0 && gr->member_off[m] == n, "%s: member_off ends", what);
    int *count = XNEW(int, n);
    for (int k = 0; k < m; k++) {
        CHECK_MSG(gr->member_off[k + 1] > gr->member_off[k], "%s: group %d is empty", what, k);
        for (int j = gr->member_off[k]; j < gr->member_off[k + 1]; j++) {
            int i = gr->members[j];
            if (i < 0 || i >= n) {
                CHECK_MSG(0, "%s: member %d out of range", what, i);
                continue;
            }
            count[i]++;
            CHECK_MSG(gr->op_group[i] == k, "%s: op %d listed in group %d but op_group says %d", what, i, k,
                      gr->op_group[i]);
            if (j > gr->member_off[k])
                CHECK_MSG(gr->members[j - 1] < i, "%s: group %d members not in graph order", what, k);
        }
    }
    for (int i = 0; i < n; i++)
        CHECK_MSG(count[i] == 1, "%s: op %d is in %d groups", what, i, count[i]);
    free(count);
}

/* Held parameters: exactly the reference's. */
static void check_held(const Graph *g, const Grouping *gr, const char *what)
{
    char *held = ref_held(g);
    for (int i = 0; i < g->n_nodes; i++)
        CHECK_MSG(gr->held[i] == held[i], "%s: op %s held %d, expected %d", what, g->nodes[i].name, gr->held[i],
                  held[i]);
    free(held);
}

/* Ids in topological order: every crossing op edge (but a held parameter's)
 * goes up; that also makes the group graph acyclic. */
static void check_ids_topological(const Graph *g, const Grouping *gr, const char *what)
{
    for (int k = 0; k < g->n_edges; k++) {
        if (gr->held[g->edges[k].src])
            continue;
        int a = gr->op_group[g->edges[k].src], b = gr->op_group[g->edges[k].dst];
        CHECK_MSG(a <= b, "%s: op edge %s -> %s goes from group %d down to %d", what,
                  g->nodes[g->edges[k].src].name, g->nodes[g->edges[k].dst].name, a, b);
    }
}

/* Scratch of succ_row_ok, per group: mark and acc are zero between rows. */
typedef struct RowScratch {
    int64_t *acc;
    char *mark;
    int *marked;
} RowScratch;

/* Row a of the group graph against the op edges out of group a: the same
 * successors, sorted, no self loop, with the summed bytes of their op edges,
 * and a among each successor's predecessors. Counts the row into indeg. */
static int succ_row_ok(const Graph *g, const Grouping *gr, int a, RowScratch *s, int *indeg)
{
    int m = gr->n_groups, nmark = 0;
    for (int j = gr->member_off[a]; j < gr->member_off[a + 1]; j++) {
        const GraphNode *u = &g->nodes[gr->members[j]];
        for (int k = 0; k < u->n_children && !gr->held[gr->members[j]]; k++) {
            int b = gr->op_group[u->children[k]];
            if (b == a)
                continue;
            if (!s->mark[b]) {
                s->mark[b] = 1;
                s->marked[nmark++] = b;
            }
            s->acc[b] += graph_edge_bytes(g, gr->members[j], u->child_output[k]);
        }
    }
    int ok = gr->succ_off[a + 1] - gr->succ_off[a] == nmark;
    for (int j = gr->succ_off[a]; j < gr->succ_off[a + 1]; j++) {
        int b = gr->succ[j];
        if (b < 0 || b >= m) {
            ok = 0;
            break;
        }
        ok = ok && b != a && (j == gr->succ_off[a] || gr->succ[j - 1] < b) && s->mark[b] &&
             s->acc[b] == gr->succ_bytes[j];
        indeg[b]++;
        /* b lists a among its predecessors */
        int found = 0;
        for (int q = gr->pred_off[b]; q < gr->pred_off[b + 1]; q++)
            found |= gr->pred[q] == a;
        ok = ok && found;
    }
    for (int j = 0; j < nmark; j++) {
        s->mark[s->marked[j]] = 0;
        s->acc[s->marked[j]] = 0;
    }
    return ok;
}

/* pred is the transpose of succ: the in-degrees the rows counted, sorted. */
static void check_preds(const Grouping *gr, const int *indeg, const char *what)
{
    for (int b = 0; b < gr->n_groups; b++) {
        CHECK_MSG(gr->pred_off[b + 1] - gr->pred_off[b] == indeg[b], "%s: group %d has %d preds, expected %d",
                  what, b, gr->pred_off[b + 1] - gr->pred_off[b], indeg[b]);
        for (int q = gr->pred_off[b] + 1; q < gr->pred_off[b + 1]; q++)
            CHECK_MSG(gr->pred[q - 1] < gr->pred[q], "%s: group %d preds not sorted", what, b);
    }
}

/* Our own topological sort of the group graph: Kahn must order all (indeg
 * is used up). */
static void check_acyclic(const Grouping *gr, int *indeg, const char *what)
{
    int m = gr->n_groups, *queue = XMALLOC(int, m), qh = 0, qt = 0, done = 0;
    for (int b = 0; b < m; b++)
        if (indeg[b] == 0)
            queue[qt++] = b;
    while (qh < qt) {
        int a = queue[qh++];
        done++;
        for (int j = gr->succ_off[a]; j < gr->succ_off[a + 1]; j++)
            if (gr->succ[j] >= 0 && gr->succ[j] < m && --indeg[gr->succ[j]] == 0)
                queue[qt++] = gr->succ[j];
    }
    CHECK_MSG(done == m, "%s: the group graph has a cycle (%d of %d groups ordered)", what, done, m);
    free(queue);
}

/* The group graph as CSR: rows sorted, no self loops, exactly the crossing
 * pairs with the summed bytes of their op edges; pred is the transpose; no
 * cycle. */
static void check_group_graph(const Graph *g, const Grouping *gr, const char *what)
{
    int m = gr->n_groups;
    CHECK_MSG(gr->succ_off[0] == 0 && gr->succ_off[m] == gr->n_edges, "%s: succ_off", what);
    CHECK_MSG(gr->pred_off[0] == 0 && gr->pred_off[m] == gr->n_edges, "%s: pred_off", what);
    RowScratch s = {XNEW(int64_t, m), XNEW(char, m), XMALLOC(int, m)};
    int *indeg = XNEW(int, m);
    int bad_rows = 0;
    for (int a = 0; a < m && bad_rows < 3; a++)
        if (!succ_row_ok(g, gr, a, &s, indeg)) {
            CHECK_MSG(0, "%s: group %d: successors or their bytes differ from the op edges", what, a);
            bad_rows++;
        }
    check_preds(gr, indeg, what);
    check_acyclic(gr, indeg, what);
    free(indeg);
    free(s.marked);
    free(s.mark);
    free(s.acc);
}

/* Sums: cost within rounding of the op sum, bytes exact. */
static void check_sums(const Graph *g, const Grouping *gr, const char *what)
{
    for (int k = 0; k < gr->n_groups; k++) {
        double c = 0;
        int64_t b = 0;
        for (int j = gr->member_off[k]; j < gr->member_off[k + 1]; j++) {
            c += g->nodes[gr->members[j]].cost_us;
            b += graph_node_bytes(g, gr->members[j]);
        }
        CHECK_MSG(fabs(gr->cost_us[k] - c) <= 1e-12 * (c > 1 ? c : 1), "%s: group %d cost %.17g, ops sum %.17g",
                  what, k, gr->cost_us[k], c);
        CHECK_MSG(gr->bytes[k] == b, "%s: group %d bytes %lld, ops sum %lld", what, k, (long long)gr->bytes[k],
                  (long long)b);
    }
}

/* Names: unique, findable; pins name their group; else the first op. */
static void check_names(const Graph *g, const Grouping *gr, const char *what)
{
    for (int k = 0; k < gr->n_groups; k++) {
        CHECK_MSG(group_find(gr, gr->names[k]) == k, "%s: group_find(\"%s\") != %d", what, gr->names[k], k);
        const char *pin = NULL;
        for (int j = gr->member_off[k]; j < gr->member_off[k + 1] && !pin; j++)
            pin = g->nodes[gr->members[j]].group;
        CHECK_MSG(gr->pinned[k] == (pin != NULL), "%s: group %d pinned flag %d", what, k, gr->pinned[k]);
        if (pin)
            CHECK_MSG(strcmp(gr->names[k], pin) == 0, "%s: pinned group named \"%s\", pin \"%s\"", what,
                      gr->names[k], pin);
        else {
            const char *first = g->nodes[gr->members[gr->member_off[k]]].name;
            size_t len = strlen(first);
            CHECK_MSG(strncmp(gr->names[k], first, len) == 0 && (gr->names[k][len] == '\0' || gr->names[k][len] == '~'),
                      "%s: group %d named \"%s\", first op \"%s\"", what, k, gr->names[k], first);
        }
    }
}

/* Colocation keys and pins: one group each, and one pin per group; the
 * step-1 classes (keys, pins, cycles through them) are never split. */
static void check_classes_kept(const Graph *g, const Grouping *gr, const Ref *ref, const char *what)
{
    int n = g->n_nodes, *cls_group = XMALLOC(int, n);
    for (int i = 0; i < n; i++)
        cls_group[i] = -1;
    for (int i = 0; i < n; i++) {
        int c = ref->cls[i];
        if (cls_group[c] < 0)
            cls_group[c] = gr->op_group[i];
        CHECK_MSG(cls_group[c] == gr->op_group[i], "%s: op %s split from its colocation/cycle class", what,
                  g->nodes[i].name);
        if (g->nodes[i].group)
            for (int j = 0; j < i; j++)
                if (g->nodes[j].group && (strcmp(g->nodes[i].group, g->nodes[j].group) == 0) !=
                                             (gr->op_group[i] == gr->op_group[j]))
                    CHECK_MSG(0, "%s: pins %s and %s of ops %s and %s vs groups %d and %d", what,
                              g->nodes[i].group, g->nodes[j].group, g->nodes[i].name, g->nodes[j].name,
                              gr->op_group[i], gr->op_group[j]);
    }
    free(cls_group);
}

/* A pinned group is exactly its class: it never merges with other ops. */
static void check_pinned_groups_closed(const Graph *g, const Grouping *gr, const Ref *ref, const char *what)
{
    for (int k = 0; k < gr->n_groups; k++)
        for (int j = gr->member_off[k] + 1; gr->pinned[k] && j < gr->member_off[k + 1]; j++)
            if (ref->cls[gr->members[j]] != ref->cls[gr->members[gr->member_off[k]]]) {
                CHECK_MSG(0, "%s: pinned group %s took op %s from outside its class", what, gr->names[k],
                          g->nodes[gr->members[j]].name);
                break;
            }
}

/* The count: the target when the classes allow it (no pins), never more
 * groups than classes. */
static void check_group_count(const Graph *g, const Grouping *gr, int target, int n_classes, const char *what)
{
    int m = gr->n_groups, pins = 0;
    for (int i = 0; i < g->n_nodes; i++)
        pins |= g->nodes[i].group != NULL;
    if (target == GROUP_CHAINS) { /* no count: HSDAG's chains, checked by test_group.c */
        CHECK_MSG(gr->target == GROUP_CHAINS, "%s: target %d, expected GROUP_CHAINS", what, gr->target);
        CHECK_MSG(m <= n_classes, "%s: %d groups but only %d classes", what, m, n_classes);
        return;
    }
    int t = target > 0 ? target : group_default_target(g);
    CHECK_MSG(gr->target == t, "%s: target %d, expected %d", what, gr->target, t);
    CHECK_MSG(m <= n_classes, "%s: %d groups but only %d classes", what, m, n_classes);
    if (!pins)
        CHECK_MSG(m == (t < n_classes ? t : n_classes), "%s: %d groups, target %d, %d classes", what, m, t,
                  n_classes);
}

/* Checks everything that must hold for any grouping of g; returns 1 if all
 * did (so that callers can stop after the first bad case). */
int check_grouping(const Graph *g, const Grouping *gr, int target, const char *what)
{
    int before = test_failed_now();
    int n = g->n_nodes, m = gr->n_groups;
    CHECK_MSG(gr->n_ops == n && m >= 1 && m <= n, "%s: %d ops, %d groups", what, gr->n_ops, m);
    if (test_failed_now() > before)
        return 0;
    check_partition(g, gr, what);
    if (test_failed_now() > before)
        return 0;
    check_held(g, gr, what);
    check_ids_topological(g, gr, what);
    check_group_graph(g, gr, what);
    check_sums(g, gr, what);
    check_names(g, gr, what);
    Ref ref = ref_classes(g);
    check_classes_kept(g, gr, &ref, what);
    check_pinned_groups_closed(g, gr, &ref, what);
    check_group_count(g, gr, target, ref.n_classes, what);
    free(ref.cls);
    return test_failed_now() == before;
}

int same_grouping(const Grouping *a, const Grouping *b)
{
    if (a->n_groups != b->n_groups || a->n_ops != b->n_ops || a->n_edges != b->n_edges || a->target != b->target)
        return 0;
    int m = a->n_groups, n = a->n_ops, ne = a->n_edges;
    if (memcmp(a->op_group, b->op_group, (size_t)n * sizeof(int)) ||
        memcmp(a->members, b->members, (size_t)n * sizeof(int)) ||
        memcmp(a->member_off, b->member_off, (size_t)(m + 1) * sizeof(int)) ||
        memcmp(a->pinned, b->pinned, (size_t)m * sizeof(int)) ||
        memcmp(a->cost_us, b->cost_us, (size_t)m * sizeof(double)) ||
        memcmp(a->bytes, b->bytes, (size_t)m * sizeof(int64_t)) ||
        memcmp(a->succ_off, b->succ_off, (size_t)(m + 1) * sizeof(int)) ||
        memcmp(a->pred_off, b->pred_off, (size_t)(m + 1) * sizeof(int)) ||
        memcmp(a->succ, b->succ, (size_t)ne * sizeof(int)) || memcmp(a->pred, b->pred, (size_t)ne * sizeof(int)) ||
        memcmp(a->succ_bytes, b->succ_bytes, (size_t)ne * sizeof(int64_t)))
        return 0;
    for (int k = 0; k < m; k++)
        if (strcmp(a->names[k], b->names[k]) != 0)
            return 0;
    return 1;
}
