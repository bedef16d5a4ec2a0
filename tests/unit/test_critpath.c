/* The critical path of a simulated run (critpath.h): hand cases, and on
 * random DAGs and placements, a chain that starts at time 0, ends with the
 * last op and whose every step goes forward in time. */
#include <stdlib.h>

#include "critpath.h"
#include "gen.h"
#include "sim.h"
#include "test.h"

static Graph *diamond(void)
{
    Graph *g = graph_new("diamond");
    int64_t b = 1000000;
    graph_add_node(g, "s", "", 10, &b, 1);
    graph_add_node(g, "light", "", 20, &b, 1);
    graph_add_node(g, "heavy", "", 500, &b, 1);
    graph_add_node(g, "t", "", 30, &b, 1);
    graph_add_edge(g, 0, 1, 0);
    graph_add_edge(g, 0, 2, 0);
    graph_add_edge(g, 1, 3, 0);
    graph_add_edge(g, 2, 3, 0);
    Err e;
    graph_finish(g, &e);
    return g;
}

TEST(critpath_one_device_is_every_op)
{
    Graph *g = diamond();
    Cluster *c = cluster_default(2);
    Sim *s = sim_new(g, c);
    int dev[4] = {0, 0, 0, 0}, path[4], len = 0;
    const SimResult *r = sim_run(s, dev);
    uint8_t op_crit[4];
    sim_critical_path(g, c, r, path, &len, op_crit, NULL);
    CHECK_INT(len, 4);
    CHECK_INT(path[0], 0);
    CHECK_INT(path[3], 3);
    for (int i = 0; i < 4; i++)
        CHECK_INT(op_crit[i], 1);
    sim_free(s);
    cluster_free(c);
    graph_free(g);
}

TEST(critpath_follows_the_transfers_of_the_heavy_branch)
{
    Graph *g = diamond();
    Cluster *c = cluster_default(2);
    Sim *s = sim_new(g, c);
    int dev[4] = {0, 0, 1, 0}, path[4], len = 0;
    const SimResult *r = sim_run(s, dev);
    REQUIRE(r->n_transfers == 2);
    uint8_t op_crit[4], tr_crit[2];
    sim_critical_path(g, c, r, path, &len, op_crit, tr_crit);
    CHECK_INT(len, 3);
    CHECK_INT(path[0], 0);
    CHECK_INT(path[1], 2);
    CHECK_INT(path[2], 3);
    CHECK_INT(op_crit[1], 0);
    CHECK_INT(tr_crit[0] + tr_crit[1], 2);
    sim_free(s);
    cluster_free(c);
    graph_free(g);
}

static int is_parent(const Graph *g, int p, int op)
{
    for (int k = 0; k < g->nodes[op].n_parents; k++)
        if (g->nodes[op].parents[k] == p)
            return 1;
    return 0;
}

TEST(critpath_random_runs_span_the_makespan)
{
    for (uint64_t seed = 1; seed <= 40; seed++) {
        Graph *g = gen_random_dag(30 + (int)(seed % 20), 2.0, seed);
        int nd = 1 + (int)(seed % 4), n = g->n_nodes;
        Cluster *c = cluster_default(nd);
        Sim *s = sim_new(g, c);
        int *dev = XMALLOC(int, n), *path = XMALLOC(int, n), len = 0;
        Rng rng;
        rng_seed(&rng, seed);
        for (int i = 0; i < n; i++)
            dev[i] = (int)(rng_next(&rng) % (uint64_t)nd);
        const SimResult *r = sim_run(s, dev);
        sim_critical_path(g, c, r, path, &len, NULL, NULL);
        double last = 0; /* the makespan may add a gap after the last op */
        for (int i = 0; i < n; i++)
            last = r->end_us[i] > last ? r->end_us[i] : last;
        CHECK_MSG(last <= r->makespan_us, "seed %llu: an op ends after the makespan", (unsigned long long)seed);
        CHECK_MSG(len >= 1, "seed %llu: empty path", (unsigned long long)seed);
        if (len >= 1) {
            CHECK_MSG(r->end_us[path[len - 1]] == last, "seed %llu: the path ends at %g, not %g",
                      (unsigned long long)seed, r->end_us[path[len - 1]], last);
            CHECK_MSG(r->start_us[path[0]] == 0, "seed %llu: the path starts at %g", (unsigned long long)seed,
                      r->start_us[path[0]]);
        }
        for (int i = 1; i < len; i++) {
            int a = path[i - 1], b = path[i];
            /* a parent (locally or through a transfer), an earlier op of the
             * same device, or the source of an earlier transfer on the bus */
            CHECK_MSG(is_parent(g, a, b) || dev[a] == dev[b] || r->n_transfers > 0,
                      "seed %llu: step %d -> %d is no release", (unsigned long long)seed, a, b);
            CHECK_MSG(r->end_us[a] <= r->start_us[b], "seed %llu: step %d -> %d goes back in time",
                      (unsigned long long)seed, a, b);
        }
        free(dev);
        free(path);
        sim_free(s);
        cluster_free(c);
        graph_free(g);
    }
}

/* On one device each step of the critical path is a dependency or the op
 * that ran just before on the device, in the order by start, then end (an
 * op of no cost shares its start), then index; and with costs on every op
 * the device is never idle, so the path covers almost every op. From a few
 * ops to past the sort's runs and merges. */
static int ran_before(const SimResult *r, int a, int b)
{
    if (r->start_us[a] != r->start_us[b])
        return r->start_us[a] < r->start_us[b];
    if (r->end_us[a] != r->end_us[b])
        return r->end_us[a] < r->end_us[b];
    return a < b;
}

/* g with its nodes in another order (a shuffle of seed): the run is the
 * same up to names, but the ops' indices no longer follow their starts,
 * so the sort by start has real work to do. */
static Graph *shuffled(const Graph *g, uint64_t seed)
{
    int n = g->n_nodes, *at = XMALLOC(int, n), *where = XMALLOC(int, n);
    Rng rng;
    rng_seed(&rng, seed);
    for (int i = 0; i < n; i++)
        at[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rng_next(&rng) % (uint64_t)(i + 1)), t = at[i];
        at[i] = at[j];
        at[j] = t;
    }
    Graph *h = graph_new("shuffled");
    for (int k = 0; k < n; k++) {
        const GraphNode *nd = &g->nodes[at[k]];
        where[at[k]] = graph_add_node(h, nd->name, nd->op, nd->cost_us, nd->output_bytes, nd->n_outputs);
    }
    for (int k = 0; k < g->n_edges; k++)
        graph_add_edge(h, where[g->edges[k].src], where[g->edges[k].dst], g->edges[k].output);
    Err e = {{0}};
    if (graph_finish(h, &e) != 0) {
        graph_free(h);
        h = NULL;
    }
    free(at);
    free(where);
    return h;
}

TEST(critpath_on_one_device_steps_to_a_parent_or_the_op_before)
{
    const int sizes[] = {3, 16, 17, 33, 100, 257, 1000};
    for (size_t k = 0; k < 2 * sizeof sizes / sizeof sizes[0]; k++) {
        Graph *g0 = gen_random_dag(sizes[k / 2], 2.0, 7 + k / 2), *g = k % 2 ? shuffled(g0, k) : g0;
        REQUIRE(g != NULL);
        int n = g->n_nodes, inversions = 0;
        Cluster *c = cluster_default(1);
        Sim *s = sim_new(g, c);
        int *dev = XNEW(int, n), *path = XMALLOC(int, n), len = 0;
        const SimResult *r = sim_run(s, dev);
        for (int i = 1; i < n; i++)
            inversions += ran_before(r, i, i - 1);
        CHECK_MSG(k % 2 == 0 || n < 16 || inversions > n / 4, "%d ops shuffled: only %d inversions", n, inversions);
        sim_critical_path(g, c, r, path, &len, NULL, NULL);
        CHECK_MSG(len >= n * 9 / 10, "%d ops: a path of %d", n, len);
        for (int i = 1; i < len; i++) {
            int a = path[i - 1], b = path[i], before = -1; /* the op just before b */
            for (int j = 0; j < n; j++)
                if (j != b && ran_before(r, j, b) && (before < 0 || ran_before(r, before, j)))
                    before = j;
            if (!is_parent(g, a, b) && a != before) {
                CHECK_MSG(0, "%d ops%s: step %d (op %d, then op %d) is neither a parent nor the op before (%d)",
                          n, k % 2 ? " shuffled" : "", i, a, b, before);
                break;
            }
        }
        free(dev);
        free(path);
        sim_free(s);
        cluster_free(c);
        if (g != g0)
            graph_free(g);
        graph_free(g0);
    }
}
