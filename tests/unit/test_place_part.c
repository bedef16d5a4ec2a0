/* The graph-partitioning baselines (core/place_part.c): METIS k-way and
 * Scotch mapping of the group graph. Valid and deterministic placements on
 * random DAGs, every device used, cost balance, disconnected components
 * split, heterogeneous speeds, the memory constraint, extreme weights, and
 * the cases handled without a library (one device, fewer groups than
 * devices). */
#include <stdint.h>
#include <stdlib.h>

#include "gen.h"
#include "group.h"
#include "place.h"
#include "place_methods.h"
#include "test.h"

typedef struct Part {
    const char *name;
    PlaceFn fn;
} Part;

static const Part parts[] = {{"metis", place_metis}, {"scotch", place_scotch}};
#define N_PARTS ((int)(sizeof parts / sizeof parts[0]))

/* Runs method m; returns a malloc'd op_device or NULL (with a failed check). */
static int *run(const Part *m, const Graph *g, const Grouping *gr, const Cluster *c,
                uint64_t seed)
{
    PlaceCtx ctx = {.g = g, .gr = gr, .c = c, .seed = seed};
    int *od = XMALLOC(int, g->n_nodes);
    for (int i = 0; i < g->n_nodes; i++)
        od[i] = -1;
    Err e = {{0}};
    int rc = m->fn(&ctx, od, &e);
    CHECK_MSG(rc == 0, "%s failed: %s", m->name, e.msg);
    if (rc != 0) {
        free(od);
        return NULL;
    }
    return od;
}

/* Devices in range and every group on one device. */
static int valid(const char *name, const Graph *g, const Grouping *gr, const Cluster *c,
                 const int *od)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (od[i] < 0 || od[i] >= c->n_devices) {
            test_fail(__FILE__, __LINE__, "%s: op %d on device %d of %d", name, i, od[i],
                      c->n_devices);
            return 0;
        }
    for (int k = 0; k < gr->n_groups; k++) {
        int d = od[gr->members[gr->member_off[k]]];
        for (int j = gr->member_off[k]; j < gr->member_off[k + 1]; j++)
            if (od[gr->members[j]] != d) {
                test_fail(__FILE__, __LINE__, "%s: group %d split across devices", name, k);
                return 0;
            }
    }
    return 1;
}

/* run, and valid on what it gave: the placement, or NULL (a check failed). */
static int *run_valid(const Part *m, const Graph *g, const Grouping *gr, const Cluster *c, uint64_t seed)
{
    int *od = run(m, g, gr, c, seed);
    if (od)
        valid(m->name, g, gr, c, od);
    return od;
}

/* Reference cost per device (caller frees). */
static double *device_cost(const Graph *g, const Cluster *c, const int *od)
{
    double *w = XNEW(double, c->n_devices);
    for (int i = 0; i < g->n_nodes; i++)
        w[od[i]] += g->nodes[i].cost_us;
    return w;
}

TEST(part_valid_and_deterministic_on_random_dags)
{
    static const int sizes[] = {40, 150, 400};
    for (int s = 0; s < 3; s++)
        for (uint64_t seed = 1; seed <= 3; seed++)
            for (int nd = 2; nd <= 5; nd += 3) {
                Graph *g = gen_random_dag(sizes[s], 2.0, seed);
                Err e;
                Grouping *gr = group_build(g, sizes[s] / 4, &e);
                CHECK(gr != NULL);
                Cluster *c = cluster_default(nd);
                for (int m = 0; m < N_PARTS; m++) {
                    int *a = run(&parts[m], g, gr, c, seed);
                    /* another call in between must not change the result */
                    int *other = run(&parts[1 - m], g, gr, c, seed + 7);
                    int *b = run(&parts[m], g, gr, c, seed);
                    if (a && b) {
                        valid(parts[m].name, g, gr, c, a);
                        CHECK_MSG(memcmp(a, b, (size_t)g->n_nodes * sizeof *a) == 0,
                                  "%s not deterministic (n=%d seed=%d nd=%d)", parts[m].name,
                                  sizes[s], (int)seed, nd);
                    }
                    free(a);
                    free(b);
                    free(other);
                }
                cluster_free(c);
                group_free(gr);
                graph_free(g);
            }
}

TEST(part_layered_training_graph_keeps_colocation)
{
    Graph *g = gen_layered_training_graph(300, 5);
    Err e;
    Grouping *gr = group_build(g, 60, &e);
    CHECK(gr != NULL);
    Cluster *c = cluster_default(4);
    for (int m = 0; m < N_PARTS; m++) {
        free(run_valid(&parts[m], g, gr, c, 11));
    }
    cluster_free(c);
    group_free(gr);
    graph_free(g);
}

TEST(part_uses_every_device_and_balances_cost)
{
    Graph *g = gen_random_dag(400, 2.0, 3);
    Err e;
    Grouping *gr = group_build(g, 0, &e); /* many small groups */
    CHECK(gr != NULL);
    CHECK(gr->n_groups >= 100);
    double total = graph_total_cost(g);
    for (int nd = 2; nd <= 8; nd *= 2) {
        Cluster *c = cluster_default(nd);
        for (int m = 0; m < N_PARTS; m++) {
            int *od = run_valid(&parts[m], g, gr, c, 1);
            if (!od)
                continue;
            double *w = device_cost(g, c, od);
            for (int d = 0; d < nd; d++) {
                CHECK_MSG(w[d] > 0, "%s: device %d of %d unused", parts[m].name, d, nd);
                CHECK_MSG(w[d] <= 2.0 * total / nd, "%s: device %d of %d has %.0f of %.0f",
                          parts[m].name, d, nd, w[d], total);
            }
            free(w);
            free(od);
        }
        cluster_free(c);
    }
    group_free(gr);
    graph_free(g);
}

/* Two chains of heavy ops with big tensors and no edge between them. */
static Graph *two_components(int len)
{
    Graph *g = graph_new("two_components");
    int64_t b = 4 << 20;
    for (int comp = 0; comp < 2; comp++)
        for (int i = 0; i < len; i++) {
            char name[32];
            snprintf(name, sizeof name, "c%d_%d", comp, i);
            int id = graph_add_node(g, name, "op", 500.0 + 10 * i, &b, 1);
            if (i)
                graph_add_edge(g, id - 1, id, 0);
            /* a few extra local edges inside the component */
            if (i >= 3 && i % 3 == 0)
                graph_add_edge(g, id - 3, id, 0);
        }
    Err e;
    CHECK(graph_finish(g, &e) == 0);
    return g;
}

TEST(part_splits_disconnected_components)
{
    Graph *g = two_components(12);
    Err e;
    Grouping *gr = group_build(g, 0, &e);
    CHECK(gr != NULL);
    Cluster *c = cluster_default(2);
    for (int m = 0; m < N_PARTS; m++) {
        int *od = run_valid(&parts[m], g, gr, c, 4);
        if (!od)
            continue;
        int d0 = od[0], d1 = od[12];
        CHECK_MSG(d0 != d1, "%s: both components on device %d", parts[m].name, d0);
        for (int i = 0; i < 12; i++) {
            CHECK_MSG(od[i] == d0, "%s: component 0 split at op %d", parts[m].name, i);
            CHECK_MSG(od[12 + i] == d1, "%s: component 1 split at op %d", parts[m].name, i);
        }
        free(od);
    }
    cluster_free(c);
    group_free(gr);
    graph_free(g);
}

TEST(part_heterogeneous_speeds_shift_work_to_the_faster_device)
{
    Graph *g = gen_random_dag(300, 2.0, 9);
    Err e;
    Grouping *gr = group_build(g, 0, &e);
    CHECK(gr != NULL);
    for (int fast = 0; fast < 2; fast++) {
        Cluster *c = cluster_default(2);
        c->devices[fast].speed = 3.0;
        for (int m = 0; m < N_PARTS; m++) {
            int *od = run_valid(&parts[m], g, gr, c, 2);
            if (!od)
                continue;
            double *w = device_cost(g, c, od);
            /* about 3:1 of the reference work; at least 2:1 */
            CHECK_MSG(w[fast] >= 2.0 * w[1 - fast], "%s: fast device %d has %.0f, slow %.0f",
                      parts[m].name, fast, w[fast], w[1 - fast]);
            CHECK_MSG(w[1 - fast] > 0, "%s: slow device unused", parts[m].name);
            free(w);
            free(od);
        }
        cluster_free(c);
    }
    group_free(gr);
    graph_free(g);
}

TEST(part_metis_memory_constraint)
{
    Graph *g = gen_random_dag(300, 2.0, 21);
    Err e;
    Grouping *gr = group_build(g, 0, &e);
    CHECK(gr != NULL);
    int64_t total = 0;
    for (int k = 0; k < gr->n_groups; k++)
        total += gr->bytes[k];
    Cluster *c = cluster_default(2);
    for (int d = 0; d < 2; d++)
        c->devices[d].memory_bytes = total * 6 / 10; /* neither holds everything */
    for (int m = 0; m < N_PARTS; m++) {
        int *a = run(&parts[m], g, gr, c, 3), *b = run(&parts[m], g, gr, c, 3);
        if (a && b) {
            valid(parts[m].name, g, gr, c, a);
            CHECK(memcmp(a, b, (size_t)g->n_nodes * sizeof *a) == 0);
            if (m == 0) { /* METIS balances bytes as its second constraint */
                int64_t used[2] = {0, 0};
                for (int i = 0; i < g->n_nodes; i++)
                    used[a[i]] += graph_node_bytes(g, i);
                for (int d = 0; d < 2; d++)
                    CHECK_MSG(used[d] <= c->devices[d].memory_bytes,
                              "metis: device %d holds %lld of %lld bytes", d,
                              (long long)used[d], (long long)total);
            }
        }
        free(a);
        free(b);
    }
    cluster_free(c);
    group_free(gr);
    graph_free(g);
}

TEST(part_one_device_and_tiny_graphs)
{
    for (int n = 1; n <= 6; n++) {
        Graph *g = gen_random_dag(n, 1.5, (uint64_t)n);
        Err e;
        Grouping *gr = group_build(g, 0, &e);
        CHECK(gr != NULL);
        for (int nd = 1; nd <= 4; nd++) {
            Cluster *c = cluster_default(nd);
            if (nd == 3)
                c->devices[2].speed = 2.0;
            for (int m = 0; m < N_PARTS; m++) {
                int *a = run(&parts[m], g, gr, c, 5), *b = run(&parts[m], g, gr, c, 5);
                if (a && b) {
                    valid(parts[m].name, g, gr, c, a);
                    CHECK(memcmp(a, b, (size_t)g->n_nodes * sizeof *a) == 0);
                    if (nd == 1)
                        for (int i = 0; i < n; i++)
                            CHECK_INT(a[i], 0);
                    if (gr->n_groups < nd) { /* one device per group, all distinct */
                        for (int k = 0; k < gr->n_groups; k++)
                            for (int l = k + 1; l < gr->n_groups; l++)
                                CHECK(a[gr->members[gr->member_off[k]]] !=
                                      a[gr->members[gr->member_off[l]]]);
                        if (nd == 3 && n == 1)
                            CHECK_INT(a[0], 2); /* the fastest device */
                    }
                }
                free(a);
                free(b);
            }
            cluster_free(c);
        }
        group_free(gr);
        graph_free(g);
    }
}

/* Zero costs and bytes, and costs and bytes near the format's limits: the
 * integer scaling neither overflows nor gives the libraries zero weights. */
TEST(part_extreme_weights)
{
    for (int variant = 0; variant < 2; variant++) {
        Graph *g = graph_new("extreme");
        for (int i = 0; i < 40; i++) {
            char name[16];
            snprintf(name, sizeof name, "x%d", i);
            int64_t b = variant ? (i % 2 ? GRAPH_MAX_BYTES : 1) : 0;
            double cost = variant ? (i % 3 ? 1e15 : 1e-6) : 0.0;
            graph_add_node(g, name, "op", cost, &b, 1);
            if (i)
                graph_add_edge(g, i - 1, i, 0);
            if (i >= 5)
                graph_add_edge(g, i - 5, i, 0);
        }
        Err e;
        CHECK(graph_finish(g, &e) == 0);
        Grouping *gr = group_build(g, 0, &e);
        CHECK(gr != NULL);
        Cluster *c = cluster_default(3);
        c->devices[1].speed = 1e-3;
        c->devices[0].memory_bytes = variant ? 0 : 1; /* memory constraint on; a zero share */
        for (int m = 0; m < N_PARTS; m++) {
            free(run_valid(&parts[m], g, gr, c, 8));
        }
        cluster_free(c);
        group_free(gr);
        graph_free(g);
    }
}

TEST(part_methods_in_the_table)
{
    const PlaceMethod *m = place_find("metis"), *s = place_find("scotch");
    CHECK(m != NULL && m->fn == place_metis);
    CHECK(s != NULL && s->fn == place_scotch);
}
