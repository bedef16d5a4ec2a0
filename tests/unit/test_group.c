/* Grouping invariants (docs/agent.md "Groups", core/model/group.h) on many random
 * graphs, checked against independent computations: partition, colocation
 * and pins, strongly connected classes never split, an acyclic group graph
 * numbered in topological order, sums and edge bytes, the target count, and
 * determinism. The checks themselves are in group_check.c. */
#include <stdint.h>
#include <stdlib.h>

#include "gen.h"
#include "graph.h"
#include "group.h"
#include "group_check.h"
#include "test.h"

/* ---- random graphs ---- */

/* A pinned group without colocation keys around it holds its pins and the
 * ops on paths between them, nothing else. */
static int check_pin_hull(const Graph *g, const Grouping *gr, const char *pin, const char *what)
{
    int k = group_find(gr, pin);
    if (k < 0)
        return 1; /* no such pin in this graph */
    CHECK_MSG(gr->pinned[k], "%s: group %s not pinned", what, pin);
    char *in_hull = XMALLOC(char, g->n_nodes);
    hull(g, pin, in_hull);
    int ok = 1;
    for (int i = 0; i < g->n_nodes && ok; i++)
        if ((gr->op_group[i] == k) != (in_hull[i] != 0)) {
            CHECK_MSG(0, "%s: op %s is %s pinned group %s", what, g->nodes[i].name,
                      in_hull[i] ? "between pinned ops but not in" : "in", pin);
            ok = 0;
        }
    free(in_hull);
    return ok;
}

/* Groups g for target and checks the grouping, then the hulls of the pins
 * named in hulls (NULL-terminated, or NULL for none) until one fails;
 * returns 1 when all held. */
static int grouping_holds(const Graph *g, int target, const char *const *hulls, const char *what)
{
    Err e = {{0}};
    Grouping *gr = group_build(g, target, &e);
    CHECK_MSG(gr != NULL, "%s: %s", what, e.msg);
    int ok = gr && check_grouping(g, gr, target, what);
    for (const char *const *h = hulls; ok && h && *h; h++)
        ok = check_pin_hull(g, gr, *h, what);
    group_free(gr);
    return ok;
}

TEST(group_invariants_random_dags)
{
    static const int sizes[] = {1, 2, 3, 5, 10, 31, 100, 250, 600, 1500, 3000};
    static const int targets[] = {0, 1, 2, 7, 50, 200, 5000};
    static const double degrees[] = {0.5, 1.5, 3.0};
    int cases = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (uint64_t seed = 1; seed <= 2; seed++)
            for (size_t di = 0; di < sizeof degrees / sizeof *degrees; di++) {
                Graph *g = gen_random_dag(sizes[si], degrees[di], seed + 100 * si);
                for (size_t ti = 0; ti < sizeof targets / sizeof *targets; ti++) {
                    /* the biggest graphs with the cheap targets only */
                    if (sizes[si] >= 1500 && (targets[ti] == 1 || targets[ti] == 5000 || seed > 1))
                        continue;
                    char what[128];
                    snprintf(what, sizeof what, "%s deg %.1f target %d", g->name, degrees[di], targets[ti]);
                    int ok = grouping_holds(g, targets[ti], NULL, what);
                    cases++;
                    if (!ok) {
                        graph_free(g);
                        return;
                    }
                }
                graph_free(g);
            }
    CHECK(cases > 150);
}

/* Adds `keys` colocation keys, each on a few random ops (which creates
 * cycles through the keys), and with `pins` two pins "P0" and "P2" on a few
 * ops at the start of the first and third quarter of the node order. Keys
 * then stay out of the first quarter, so that nothing leads back to P0 and no
 * two pins can depend on each other both ways. */
static void decorate(Graph *g, uint64_t seed, int keys, int pins)
{
    Rng r;
    rng_seed(&r, seed);
    int n = g->n_nodes, width = n / 4;
    int lo = pins ? width : 0;
    for (int k = 0; k < keys && n - lo > 1; k++) {
        int members = 2 + (int)rng_below(&r, 3);
        char key[32];
        snprintf(key, sizeof key, "key%d", k);
        for (int j = 0; j < members; j++) {
            int i = lo + (int)rng_below(&r, (uint64_t)(n - lo));
            if (!g->nodes[i].colocate)
                g->nodes[i].colocate = xstrdup(key);
        }
    }
    if (!pins || n < 8)
        return;
    for (int w = 0; w < 4; w += 2) {
        char pin[32];
        snprintf(pin, sizeof pin, "P%d", w);
        int cnt = 1 + (int)rng_below(&r, 3);
        for (int j = 0; j < cnt; j++) {
            int i = w * width + (int)rng_below(&r, (uint64_t)(width > 4 ? 4 : width));
            if (!g->nodes[i].group)
                g->nodes[i].group = xstrdup(pin);
            free(g->nodes[i].colocate);
            g->nodes[i].colocate = NULL;
        }
    }
}

TEST(group_invariants_with_colocation_and_pins)
{
    static const int sizes[] = {2, 9, 40, 200, 800, 2000};
    static const int targets[] = {0, 1, 5, 30, 150, GROUP_CHAINS};
    static const int variants[3][2] = {{1, 0}, {0, 1}, {1, 1}}; /* keys?, pins? */
    static const char *const p0[] = {"P0", NULL}, *const p0_p2[] = {"P0", "P2", NULL};
    int cases = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (uint64_t seed = 1; seed <= 3; seed++)
            for (int v = 0; v < 3; v++) {
                int keys = variants[v][0] ? 1 + sizes[si] / 60 : 0, pins = variants[v][1];
                Graph *g = gen_random_dag(sizes[si], 1.0 + (double)seed * 0.5, seed * 7 + si);
                decorate(g, seed, keys, pins);
                for (size_t ti = 0; ti < sizeof targets / sizeof *targets; ti++) {
                    char what[160];
                    snprintf(what, sizeof what, "%s keys %d pins %d target %d", g->name, keys, pins, targets[ti]);
                    /* keys may sit around P2 (they stay out of P0's quarter): its hull only without */
                    int ok = grouping_holds(g, targets[ti], !pins ? NULL : keys ? p0 : p0_p2, what);
                    cases++;
                    if (!ok) {
                        graph_free(g);
                        return;
                    }
                }
                graph_free(g);
            }
    CHECK(cases == 6 * 3 * 3 * 6);
}

TEST(group_invariants_training_graphs)
{
    static const int sizes[] = {1, 3, 10, 29, 200, 1200};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        Graph *g = gen_layered_training_graph(sizes[si], 11 + si);
        CHECK_INT(g->n_nodes, sizes[si]);
        for (int target = 0; target <= 40; target += 20)
            grouping_holds(g, target, NULL, g->name);
        grouping_holds(g, GROUP_CHAINS, NULL, g->name); /* training graphs with parameters held */
        graph_free(g);
    }
}

TEST(group_deterministic)
{
    for (uint64_t seed = 1; seed <= 3; seed++) {
        Graph *g = gen_random_dag(700, 2.0, seed);
        decorate(g, seed, 8, 1);
        Err e = {{0}};
        Grouping *a = group_build(g, 40, &e), *b = group_build(g, 40, &e);
        CHECK_MSG(a && b, "%s", e.msg);
        if (a && b)
            CHECK_MSG(same_grouping(a, b), "%s: two builds differ", g->name);
        group_free(a);
        group_free(b);
        graph_free(g);
    }
}

/* ---- hand-made cases ---- */

static Graph *chain(int n, const char *const *coloc, const char *const *pin)
{
    Graph *g = graph_new("chain");
    for (int i = 0; i < n; i++) {
        char name[16];
        int64_t b = 100 + i;
        snprintf(name, sizeof name, "c%d", i);
        graph_add_node(g, name, NULL, 10.0 + i, &b, 1);
        if (coloc && coloc[i])
            g->nodes[i].colocate = xstrdup(coloc[i]);
        if (pin && pin[i])
            g->nodes[i].group = xstrdup(pin[i]);
        if (i)
            graph_add_edge(g, i - 1, i, 0);
    }
    Err e = {{0}};
    CHECK_MSG(graph_finish(g, &e) == 0, "%s", e.msg);
    return g;
}

TEST(group_colocation_cycle_merges_the_ops_between)
{
    /* x -> a -> b -> c -> d with a and c colocated: {a, c} alone would form a
     * cycle with b, so b joins them; x and d stay alone */
    const char *coloc[5] = {NULL, "k", NULL, "k", NULL};
    Graph *g = chain(5, coloc, NULL);
    Err e = {{0}};
    Grouping *gr = group_build(g, 10, &e);
    CHECK_MSG(gr != NULL, "%s", e.msg);
    if (gr) {
        CHECK_INT(gr->n_groups, 3);
        CHECK(gr->op_group[1] == gr->op_group[2] && gr->op_group[2] == gr->op_group[3]);
        CHECK(gr->op_group[0] != gr->op_group[1] && gr->op_group[4] != gr->op_group[1]);
        CHECK(strcmp(gr->names[gr->op_group[1]], "c1") == 0 && strcmp(gr->names[gr->op_group[4]], "c4") == 0);
        CHECK_EXACT(gr->cost_us[gr->op_group[1]], 11.0 + 12.0 + 13.0);
        CHECK_INT(gr->bytes[gr->op_group[1]], 101 + 102 + 103);
        CHECK_INT(gr->n_edges, 2);
        CHECK_INT(gr->succ_bytes[gr->succ_off[gr->op_group[1]]], 103); /* c3 -> c4 carries c3's output */
        check_grouping(g, gr, 10, "colocation cycle");
    }
    group_free(gr);
    graph_free(g);

    /* r -> x -> {y, z} -> w with x and w colocated takes x..w */
    Graph *d = graph_new("diamond");
    const char *names[5] = {"r", "x", "y", "z", "w"};
    for (int i = 0; i < 5; i++)
        graph_add_node(d, names[i], NULL, 1.0, NULL, 0);
    d->nodes[1].colocate = xstrdup("k");
    d->nodes[4].colocate = xstrdup("k");
    graph_add_edge(d, 0, 1, 0);
    graph_add_edge(d, 1, 2, 0);
    graph_add_edge(d, 1, 3, 0);
    graph_add_edge(d, 2, 4, 0);
    graph_add_edge(d, 3, 4, 0);
    CHECK(graph_finish(d, &e) == 0);
    gr = group_build(d, 5, &e);
    CHECK(gr && gr->n_groups == 2 && gr->n_edges == 1 && gr->op_group[0] == 0 && gr->op_group[2] == 1);
    group_free(gr);
    graph_free(d);
}

TEST(group_parameters_are_held_by_their_colocation_group)
{
    /* w -> f -> g_w with the source w (a parameter) colocated with its
     * gradient g_w: w is held by {w, g_w}; its edge to f does not order
     * groups, so f stays a group of its own before {w, g_w} */
    const char *coloc[3] = {"w", NULL, "w"};
    Graph *g = chain(3, coloc, NULL);
    Err e = {{0}};
    Grouping *gr = group_build(g, 3, &e);
    CHECK_MSG(gr != NULL, "%s", e.msg);
    if (gr) {
        CHECK_INT(gr->n_groups, 2);
        CHECK(gr->held[0] && !gr->held[1] && !gr->held[2]);
        CHECK_INT(gr->op_group[1], 0);
        CHECK(gr->op_group[0] == 1 && gr->op_group[2] == 1);
        CHECK_INT(gr->n_edges, 1); /* f -> {w, g_w} only */
        CHECK_INT(gr->succ_bytes[0], 101);
        check_grouping(g, gr, 3, "held parameter");
    }
    group_free(gr);
    graph_free(g);

    /* a colocated source whose key no op with inputs shares is not held */
    const char *coloc2[3] = {"v", NULL, NULL};
    g = chain(3, coloc2, NULL);
    gr = group_build(g, 3, &e);
    CHECK(gr && !gr->held[0] && gr->n_groups == 3);
    group_free(gr);
    graph_free(g);
}

TEST(group_pins_never_merge_with_other_ops)
{
    /* c0..c9 with c4, c5 pinned to P; target 1 cannot be reached: the ops
     * before and after the pin merge, the pin stays exactly {c4, c5} */
    const char *pin[10] = {NULL, NULL, NULL, NULL, "P", "P", NULL, NULL, NULL, NULL};
    Graph *g = chain(10, NULL, pin);
    Err e = {{0}};
    Grouping *gr = group_build(g, 1, &e);
    CHECK_MSG(gr != NULL, "%s", e.msg);
    if (gr) {
        CHECK_INT(gr->n_groups, 3);
        int p = group_find(gr, "P");
        CHECK(p == 1 && gr->pinned[1] && !gr->pinned[0] && !gr->pinned[2]);
        CHECK_INT(gr->member_off[p + 1] - gr->member_off[p], 2);
        CHECK(gr->op_group[4] == p && gr->op_group[5] == p);
        for (int i = 0; i < 4; i++)
            CHECK(gr->op_group[i] == 0 && gr->op_group[9 - i] == 2);
        check_grouping(g, gr, 1, "pinned chain");
    }
    group_free(gr);
    graph_free(g);

    /* the same pin name on ops far apart pulls in the ops between them */
    const char *pin2[6] = {NULL, "Q", NULL, NULL, "Q", NULL};
    g = chain(6, NULL, pin2);
    gr = group_build(g, 6, &e);
    CHECK_MSG(gr != NULL, "%s", e.msg);
    if (gr) {
        CHECK_INT(gr->n_groups, 3);
        int q = group_find(gr, "Q");
        CHECK(q >= 0 && gr->member_off[q + 1] - gr->member_off[q] == 4);
        check_grouping(g, gr, 6, "pin spanning a path");
    }
    group_free(gr);
    graph_free(g);
}

TEST(group_pin_cycle_is_an_error)
{
    /* a (P) -> b (Q) -> c (P): P and Q depend on each other both ways */
    const char *pin[3] = {"P", "Q", "P"};
    Graph *g = chain(3, NULL, pin);
    Err e = {{0}};
    Grouping *gr = group_build(g, 0, &e);
    CHECK(gr == NULL);
    group_free(gr);
    CHECK_STR_CONTAINS(e.msg, "depend on each other");
    CHECK_STR_CONTAINS(e.msg, "\"P\"");
    CHECK_STR_CONTAINS(e.msg, "\"Q\"");
    graph_free(g);

    /* two pins joined by a colocation key */
    const char *pin2[3] = {"P", NULL, "Q"};
    const char *coloc[3] = {"k", NULL, "k"};
    g = chain(3, coloc, pin2);
    e.msg[0] = '\0';
    gr = group_build(g, 0, &e);
    CHECK(gr == NULL);
    group_free(gr);
    CHECK_STR_CONTAINS(e.msg, "colocation key \"k\"");
    graph_free(g);

    /* a pin on a cycle through a colocation key with an unpinned op is fine */
    const char *pin3[4] = {NULL, "P", NULL, NULL};
    const char *coloc3[4] = {NULL, "k", NULL, "k"};
    g = chain(4, coloc3, pin3);
    e.msg[0] = '\0';
    gr = group_build(g, 0, &e);
    CHECK_MSG(gr != NULL && gr->n_groups == 2 && gr->pinned[1] && strcmp(gr->names[1], "P") == 0 &&
                  gr->member_off[2] - gr->member_off[1] == 3,
              "%s", e.msg);
    group_free(gr);
    graph_free(g);
}

TEST(group_default_target_values)
{
    static const int n[][2] = {{1, 1}, {200, 200}, {201, 100}, {999, 100}, {1500, 150}, {2000, 200}, {9000, 200}};
    for (size_t k = 0; k < sizeof n / sizeof *n; k++) {
        Graph *g = gen_random_dag(n[k][0], 0.0, 1);
        CHECK_MSG(group_default_target(g) == n[k][1], "n %d: default target %d, expected %d", n[k][0],
                  group_default_target(g), n[k][1]);
        graph_free(g);
    }
}

TEST(group_find_names)
{
    /* a pinned group may take a name an op also has: the op's group gets "~2" */
    const char *pin[3] = {NULL, "c0", NULL};
    Graph *g = chain(3, NULL, pin);
    Err e = {{0}};
    Grouping *gr = group_build(g, 3, &e);
    CHECK_MSG(gr != NULL, "%s", e.msg);
    if (gr) {
        CHECK_INT(gr->n_groups, 3);
        CHECK(group_find(gr, "c0") == 1 && gr->pinned[1]);
        CHECK(group_find(gr, "c0~2") == 0);
        CHECK(group_find(gr, "c2") == 2);
        CHECK(group_find(gr, "nope") == -1);
        check_grouping(g, gr, 3, "names");
    }
    group_free(gr);
    graph_free(g);
}

/* ---- the training-graph generator, grouped ---- */

TEST(gen_training_graph_shape)
{
    Graph *g = gen_layered_training_graph(5000, 4);
    StrMap keys;
    strmap_init(&keys, 256);
    int *count = XNEW(int, g->n_nodes), n_keys = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const GraphNode *u = &g->nodes[i];
        if (!u->colocate)
            continue;
        int first = strmap_put(&keys, u->colocate, i);
        count[first < 0 ? i : first]++;
        n_keys += first < 0;
        /* a key names a variable that carries it too */
        int var = strmap_get(&g->index, u->colocate);
        CHECK_MSG(var >= 0 && var <= i && strcmp(g->nodes[var].op, "variable") == 0 && g->nodes[var].colocate &&
                      strcmp(g->nodes[var].colocate, u->colocate) == 0,
                  "%s: key %s", u->name, u->colocate);
        char mom[160], up[160];
        snprintf(mom, sizeof mom, "%s/momentum", u->colocate);
        snprintf(up, sizeof up, "%s/update", u->colocate);
        CHECK_MSG(var == i || strstr(u->name, "/grad_weight") || strcmp(u->name, mom) == 0 ||
                      strcmp(u->name, up) == 0,
                  "%s has key %s", u->name, u->colocate);
    }
    /* every parameter: variable, weight gradient, momentum and update */
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].colocate && strmap_get(&keys, g->nodes[i].colocate) == i)
            CHECK_MSG(count[i] == 4, "key %s has %d ops", g->nodes[i].colocate, count[i]);
    CHECK(n_keys > 5000 / 15);
    CHECK(strcmp(g->nodes[0].name, "data") == 0 && strcmp(g->nodes[1].name, "labels") == 0);
    int loss = strmap_get(&g->index, "loss");
    CHECK(loss > 0 && g->nodes[loss].n_parents == 2);
    /* sinks: updates, metrics and the first layer's input gradient */
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].n_children == 0)
            CHECK_MSG(strstr(g->nodes[i].name, "/update") || strncmp(g->nodes[i].name, "metric.", 7) == 0 ||
                          strstr(g->nodes[i].name, "grad_input") || strstr(g->nodes[i].name, "grad_sum"),
                      "unexpected sink %s", g->nodes[i].name);
    /* the keys do not force big groups: every op its own group stays
     * reachable up to the keys, and a target of 100 is met */
    Err e = {{0}};
    Grouping *gr = group_build(g, 100, &e);
    CHECK_MSG(gr != NULL, "%s", e.msg);
    if (gr) {
        CHECK_INT(gr->n_groups, 100);
        check_grouping(g, gr, 100, g->name);
    }
    group_free(gr);
    gr = group_build(g, g->n_nodes, &e);
    CHECK(gr && gr->n_groups == g->n_nodes - 3 * n_keys); /* 4 ops per key */
    group_free(gr);
    free(count);
    strmap_done(&keys);
    graph_free(g);
}

/* Neighbour merging stays balanced: no group above the cost cap (twice an
 * even share) on random graphs whose single ops are all below it. */
TEST(group_neighbour_merging_is_balanced)
{
    static const struct { int n; double deg; uint64_t seed; int target; } cases[] = {
        {10000, 1.0, 7, 100}, {20000, 2.0, 3, 200}, {3000, 3.0, 11, 60},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        Graph *g = gen_random_dag(cases[k].n, cases[k].deg, cases[k].seed);
        Err e = {{0}};
        Grouping *gr = group_build(g, cases[k].target, &e);
        CHECK_MSG(gr != NULL, "%s", e.msg);
        if (gr) {
            double total = graph_total_cost(g), max = 0;
            for (int j = 0; j < gr->n_groups; j++)
                if (gr->cost_us[j] > max)
                    max = gr->cost_us[j];
            CHECK_INT(gr->n_groups, cases[k].target);
            CHECK_MSG(max <= 2 * total / cases[k].target * (1 + 1e-9),
                      "%s: largest group %.1f us is over twice an even share %.1f us", g->name, max,
                      total / cases[k].target);
        }
        group_free(gr);
        graph_free(g);
    }
}

/* HSDAG's coarsening (GROUP_CHAINS) is a fixpoint: no group of the result
 * has a unique successor group whose unique predecessor group it is
 * (pinned groups aside), on the group graph built independently of the
 * sweep; checked with every grouping invariant on random DAGs. */
static int chains_fixpoint(const Grouping *gr, const char *what)
{
    for (int k = 0; k < gr->n_groups; k++) {
        if (gr->succ_off[k + 1] - gr->succ_off[k] != 1 || gr->pinned[k])
            continue;
        int s = gr->succ[gr->succ_off[k]];
        if (gr->pred_off[s + 1] - gr->pred_off[s] == 1 && !gr->pinned[s]) {
            CHECK_MSG(0, "%s: group %d's only successor %d has no other predecessor, yet they were not merged",
                      what, k, s);
            return 0;
        }
    }
    return 1;
}

TEST(group_chains_is_hsdags_coarsening)
{
    static const struct { const char *path; int groups; } hand[] = {
        {"graphs/toy/chain.json", 1},   /* one chain: one group */
        {"graphs/toy/diamond.json", 4}, /* src has two successors, sink two predecessors: nothing merges */
        /* the crown: the source feeds six branches (no merge), each branch's ops chain into one group
           (6), and the concat's only successor is the sink, whose only predecessor it is (1): 8 */
        {"graphs/toy/crown.json", 8},
    };
    for (size_t k = 0; k < sizeof hand / sizeof *hand; k++) {
        Err e = {{0}};
        Graph *g = graph_load(hand[k].path, &e);
        REQUIRE_MSG(g != NULL, "%s", e.msg);
        Grouping *gr = group_build(g, GROUP_CHAINS, &e);
        REQUIRE_MSG(gr != NULL, "%s", e.msg);
        CHECK_MSG(gr->n_groups == hand[k].groups, "%s: %d groups, expected %d", hand[k].path, gr->n_groups,
                  hand[k].groups);
        check_grouping(g, gr, GROUP_CHAINS, hand[k].path);
        chains_fixpoint(gr, hand[k].path);
        group_free(gr);
        graph_free(g);
    }
    for (int n = 1; n <= 2000; n = n * 3 + 1)
        for (int di = 0; di < 3; di++) {
            Graph *g = gen_random_dag(n, 0.5 + di, 7 + (uint64_t)n);
            char what[96];
            snprintf(what, sizeof what, "%s deg %.1f chains", g->name, 0.5 + di);
            Err e = {{0}};
            Grouping *gr = group_build(g, GROUP_CHAINS, &e);
            CHECK_MSG(gr != NULL, "%s: %s", what, e.msg);
            int ok = gr && check_grouping(g, gr, GROUP_CHAINS, what) && chains_fixpoint(gr, what);
            group_free(gr);
            graph_free(g);
            if (!ok)
                return;
        }
}
