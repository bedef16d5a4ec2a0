/* Lower bound and critical path: hand cases, and brute force over every
 * placement of tiny graphs (no placement beats the bound). */
#include <stdlib.h>

#include "bound.h"
#include "gen.h"
#include "sim.h"
#include "test.h"
#include "testutil.h"

static Graph *chain(int n, double cost)
{
    Graph *g = graph_new("chain");
    int64_t b = 1000;
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", i);
        graph_add_node(g, name, "op", cost, &b, 1);
        if (i)
            graph_add_edge(g, i - 1, i, 0);
    }
    Err e;
    graph_finish(g, &e);
    return g;
}

TEST(bound_chain_is_the_path_or_the_work)
{
    Graph *g = chain(10, 1.0);
    Cluster *c1 = cluster_default(1), *c4 = cluster_default(4);
    int path[10], len = 0;
    CHECK_EXACT(bound_critical_path(g, NULL, path, &len), 10.0);
    CHECK_INT(len, 10);
    CHECK_INT(path[0], 0);
    CHECK_INT(path[9], 9);
    /* one device: the work with its gaps, 10 x 6.7 */
    CHECK_NEAR(bound_lower(g, c1), 67.0, 1e-9);
    /* four devices: max(10, 67 / 4) */
    CHECK_NEAR(bound_lower(g, c4), 16.75, 1e-9);
    cluster_free(c1);
    cluster_free(c4);
    graph_free(g);
}

TEST(bound_critical_path_takes_the_heavy_branch)
{
    Graph *g = graph_new("diamond");
    int64_t b = 10;
    graph_add_node(g, "s", "", 1, &b, 1);
    graph_add_node(g, "light", "", 2, &b, 1);
    graph_add_node(g, "heavy", "", 50, &b, 1);
    graph_add_node(g, "t", "", 3, &b, 1);
    graph_add_edge(g, 0, 1, 0);
    graph_add_edge(g, 0, 2, 0);
    graph_add_edge(g, 1, 3, 0);
    graph_add_edge(g, 2, 3, 0);
    Err e;
    CHECK(graph_finish(g, &e) == 0);
    int path[4], len;
    CHECK_EXACT(bound_critical_path(g, NULL, path, &len), 54.0);
    CHECK_INT(len, 3);
    CHECK_INT(path[1], 2);
    graph_free(g);
}

/* Fastest device: with a faster second device the bound uses its costs. */
TEST(bound_uses_the_fastest_device)
{
    Graph *g = chain(4, 100.0);
    Cluster *c = cluster_default(2);
    c->devices[1].speed = 4.0;
    CHECK_NEAR(bound_critical_path(g, c, NULL, NULL), 100.0, 1e-9);
    CHECK_NEAR(bound_lower(g, c), 100.0, 1e-9);
    cluster_free(c);
    graph_free(g);
}

TEST(bound_no_placement_beats_it_brute_force)
{
    int cases = 0;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        int n = 4 + (int)(seed % 5); /* 4..8 ops */
        int nd = 2 + (int)(seed % 2);
        if (n == 8 && nd == 3)
            n = 7;
        Graph *g = gen_random_dag(n, 1.5, seed);
        Cluster *c = cluster_default(nd);
        if (seed % 3 == 0) { /* heterogeneous: a slow device */
            c->devices[0].speed = 0.25;
            free(c->devices[0].kind);
            c->devices[0].kind = xstrdup("cpu");
        }
        double lb = bound_lower(g, c), best = test_brute_force(g, c);
        CHECK_MSG(best >= lb, "seed %llu: best placement %.17g beats the bound %.17g",
                  (unsigned long long)seed, best, lb);
        /* the bound is not vacuous: within a few times the optimum */
        CHECK_MSG(lb > 0 && best / lb < 20, "seed %llu: bound %.17g vs best %.17g", (unsigned long long)seed,
                  lb, best);
        cases++;
        cluster_free(c);
        graph_free(g);
    }
    CHECK_INT(cases, 12);
}
