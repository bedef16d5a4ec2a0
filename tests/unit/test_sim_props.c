/* Simulator properties (docs/simulator.md) on random graphs, placements and
 * clusters, hand-computed cases, and a differential test against the
 * repository's Python reference of the semantics, tests/sim_ref.py (skipped
 * with a note only when there is no python3). */
#include <cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "cluster.h"
#include "gen.h"
#include "graph.h"
#include "placement.h"
#include "sim.h"
#include "sim_cases.h"
#include "test.h"

/* ---- independent checks of one result ---- */

static const double *g_key; /* sort key for by_key (tests are single-threaded) */
static const double *g_key2;

static int by_key(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    if (g_key[x] != g_key[y])
        return g_key[x] < g_key[y] ? -1 : 1;
    if (g_key2[x] != g_key2[y])
        return g_key2[x] < g_key2[y] ? -1 : 1;
    return x - y;
}

static double gap_of(const Cluster *c, double cost) { return cost > 0 ? c->op_gap_us : 0; }

typedef struct MemEv {
    double t;
    int is_free, dev;
    int64_t bytes;
} MemEv;

static int by_mem(const void *a, const void *b)
{
    const MemEv *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->is_free - y->is_free;
}

/* Peaks by the spec's memory rule, computed here from the result's times. */
static void ref_peaks(const Graph *g, const Cluster *c, const int *dev, const SimResult *r, int64_t *peak)
{
    int n = g->n_nodes, m = 0;
    MemEv *ev = XMALLOC(MemEv, 2 * n); /* an allocation and a free per op */
    for (int i = 0; i < n; i++) {
        int64_t bytes = 0;
        for (int k = 0; k < g->nodes[i].n_outputs; k++)
            bytes += g->nodes[i].output_bytes[k];
        if (bytes == 0)
            continue;
        double free_t = r->start_us[i];
        for (int k = 0; k < g->nodes[i].n_children; k++) {
            int ch = g->nodes[i].children[k];
            double t = trunc(r->start_us[ch]) + trunc(cluster_op_cost(c, g, ch, dev[ch])) - 1;
            if (t > free_t)
                free_t = t;
        }
        ev[m++] = (MemEv){r->start_us[i], 0, dev[i], bytes};
        ev[m++] = (MemEv){free_t, 1, dev[i], -bytes};
    }
    qsort(ev, (size_t)m, sizeof *ev, by_mem);
    int64_t *cur = XNEW(int64_t, c->n_devices);
    for (int d = 0; d < c->n_devices; d++)
        peak[d] = 0;
    for (int k = 0; k < m; k++) {
        cur[ev[k].dev] += ev[k].bytes;
        if (cur[ev[k].dev] > peak[ev[k].dev])
            peak[ev[k].dev] = cur[ev[k].dev];
    }
    free(cur);
    free(ev);
}

/* Each op ran once for exactly its cost. */
static void check_op_times(const Graph *g, const Cluster *c, const int *dev, const SimResult *r, const char *what)
{
    for (int i = 0; i < g->n_nodes; i++) {
        double cost = cluster_op_cost(c, g, i, dev[i]);
        CHECK_MSG(r->start_us[i] >= 0 && r->end_us[i] == r->start_us[i] + cost, "%s: op %s [%.17g, %.17g] cost %.17g",
                  what, g->nodes[i].name, r->start_us[i], r->end_us[i], cost);
    }
}

/* One device runs one op at a time, with the gap after a non-zero cost. */
static void check_devices_serial(const Graph *g, const Cluster *c, const int *dev, const SimResult *r,
                                 const char *what)
{
    int n = g->n_nodes, *idx = XMALLOC(int, n);
    for (int d = 0; d < c->n_devices; d++) {
        int k = 0;
        for (int i = 0; i < n; i++)
            if (dev[i] == d)
                idx[k++] = i;
        g_key = r->start_us;
        g_key2 = r->end_us;
        qsort(idx, (size_t)k, sizeof *idx, by_key);
        for (int j = 1; j < k; j++) {
            int a = idx[j - 1], b = idx[j];
            double ready = r->end_us[a] + gap_of(c, cluster_op_cost(c, g, a, d));
            CHECK_MSG(r->start_us[b] >= ready, "%s: on device %d, %s starts at %.17g before %s is done (%.17g)", what,
                      d, g->nodes[b].name, r->start_us[b], g->nodes[a].name, ready);
        }
    }
    free(idx);
}

/* Every edge is honoured: a local child starts after its parent ends, a
 * remote one after the transfer of its input (one per (op, output index)
 * with consumers elsewhere, carrying that child and its device) arrives.
 * Returns how many transfers there must be. */
static int check_edges_honoured(const Graph *g, const int *dev, const SimResult *r, const char *what)
{
    int expect_transfers = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const GraphNode *u = &g->nodes[i];
        for (int k = 0; k < u->n_children; k++) {
            int ch = u->children[k], out = u->child_output[k];
            if (dev[ch] == dev[i]) {
                CHECK_MSG(r->start_us[ch] >= r->end_us[i], "%s: %s starts before its parent %s ends", what,
                          g->nodes[ch].name, u->name);
                continue;
            }
            int first = 1; /* is this the first remote child with this output? */
            for (int j = 0; j < k; j++)
                if (u->child_output[j] == out && dev[u->children[j]] != dev[i])
                    first = 0;
            expect_transfers += first;
            int found = -1;
            for (int t = 0; t < r->n_transfers; t++)
                if (r->transfers[t].src == i && r->transfers[t].output == out)
                    found = t;
            if (found < 0) {
                CHECK_MSG(0, "%s: no transfer of %s output %d to %s", what, u->name, out, g->nodes[ch].name);
                continue;
            }
            const SimTransfer *tr = &r->transfers[found];
            int has_child = 0, has_dev = 0;
            for (int j = 0; j < tr->n_children; j++)
                has_child |= tr->children[j] == ch;
            for (int j = 0; j < tr->n_to; j++)
                has_dev |= tr->to[j] == dev[ch];
            CHECK_MSG(has_child && has_dev, "%s: transfer of %s lacks child %s or its device", what, u->name,
                      g->nodes[ch].name);
            CHECK_MSG(r->start_us[ch] >= tr->end_us, "%s: %s starts at %.17g before its input arrives at %.17g", what,
                      g->nodes[ch].name, r->start_us[ch], tr->end_us);
        }
    }
    return expect_transfers;
}

/* Transfer t on its own: from its source's device with the bytes of that
 * output, after the source ends, taking bytes / B; distinct destinations
 * other than its own device; its children exactly the remote consumers of
 * that output, in edge order. */
static void check_transfer(const Graph *g, const Cluster *c, const int *dev, const SimResult *r, int t,
                           const char *what)
{
    const SimTransfer *tr = &r->transfers[t];
    double B = c->bandwidth_bytes_per_us;
    CHECK_MSG(tr->from == dev[tr->src] && tr->bytes == graph_edge_bytes(g, tr->src, tr->output),
              "%s: transfer %d from %d bytes %lld", what, t, tr->from, (long long)tr->bytes);
    CHECK_MSG(tr->start_us >= r->end_us[tr->src] && tr->end_us == tr->start_us + (double)tr->bytes / B,
              "%s: transfer %d [%.17g, %.17g] of %lld bytes after %.17g", what, t, tr->start_us, tr->end_us,
              (long long)tr->bytes, r->end_us[tr->src]);
    int children = 0;
    for (int j = 0; j < tr->n_to; j++) {
        CHECK_MSG(tr->to[j] != tr->from, "%s: transfer %d to its own device", what, t);
        for (int q = 0; q < j; q++)
            CHECK_MSG(tr->to[q] != tr->to[j], "%s: transfer %d lists a device twice", what, t);
    }
    for (int k = 0; k < g->nodes[tr->src].n_children; k++) {
        int ch = g->nodes[tr->src].children[k];
        if (g->nodes[tr->src].child_output[k] == tr->output && dev[ch] != tr->from) {
            CHECK_MSG(children < tr->n_children && tr->children[children] == ch,
                      "%s: transfer %d children not the remote consumers in edge order", what, t);
            children++;
        }
    }
    CHECK_MSG(children == tr->n_children, "%s: transfer %d has %d children, expected %d", what, t,
              tr->n_children, children);
}

/* A bus moves one transfer at a time, with the overhead after each. */
static void check_buses_serial(const Cluster *c, const SimResult *r, const char *what)
{
    double d2 = c->transfer_overhead_us;
    double *ts = XMALLOC(double, r->n_transfers), *te = XMALLOC(double, r->n_transfers);
    int *tidx = XMALLOC(int, r->n_transfers);
    for (int t = 0; t < r->n_transfers; t++) {
        ts[t] = r->transfers[t].start_us;
        te[t] = r->transfers[t].end_us;
    }
    for (int d = 0; d < c->n_devices; d++) {
        int k = 0;
        for (int t = 0; t < r->n_transfers; t++)
            if (r->transfers[t].from == d)
                tidx[k++] = t;
        g_key = ts;
        g_key2 = te;
        qsort(tidx, (size_t)k, sizeof *tidx, by_key);
        for (int j = 1; j < k; j++)
            CHECK_MSG(ts[tidx[j]] >= te[tidx[j - 1]] + d2, "%s: bus of device %d: transfer at %.17g overlaps one ending %.17g",
                      what, d, ts[tidx[j]], te[tidx[j - 1]]);
    }
    free(ts);
    free(te);
    free(tidx);
}

/* The makespan is the last event: an op's end plus its gap, or a transfer's
 * end plus the bus overhead. */
static void check_makespan(const Graph *g, const Cluster *c, const int *dev, const SimResult *r, const char *what)
{
    double last = 0, d2 = c->transfer_overhead_us;
    for (int i = 0; i < g->n_nodes; i++) {
        double t = r->end_us[i] + gap_of(c, cluster_op_cost(c, g, i, dev[i]));
        if (t > last)
            last = t;
    }
    for (int t = 0; t < r->n_transfers; t++)
        if (r->transfers[t].end_us + d2 > last)
            last = r->transfers[t].end_us + d2;
    CHECK_MSG(r->makespan_us == last, "%s: makespan %.17g, last event %.17g", what, r->makespan_us, last);
}

/* Busy time per device, the peaks by the memory rule, and the OOM flags. */
static void check_busy_and_memory(const Graph *g, const Cluster *c, const int *dev, const SimResult *r,
                                  const char *what)
{
    int n = g->n_nodes, nd = c->n_devices;
    int64_t *peak = XMALLOC(int64_t, nd);
    ref_peaks(g, c, dev, r, peak);
    int any = 0;
    for (int d = 0; d < nd; d++) {
        double busy = 0;
        for (int i = 0; i < n; i++)
            if (dev[i] == d)
                busy += cluster_op_cost(c, g, i, d);
        CHECK_MSG(fabs(r->busy_us[d] - busy) <= 1e-9 * (busy > 1 ? busy : 1), "%s: device %d busy %.17g, expected %.17g",
                  what, d, r->busy_us[d], busy);
        CHECK_MSG(r->peak_memory_bytes[d] == peak[d], "%s: device %d peak %lld, expected %lld", what, d,
                  (long long)r->peak_memory_bytes[d], (long long)peak[d]);
        CHECK_MSG(r->oom[d] == (peak[d] > c->devices[d].memory_bytes), "%s: device %d oom flag", what, d);
        any |= r->oom[d];
    }
    CHECK(r->any_oom == any);
    free(peak);
}

/* Everything that must hold for any graph, cluster and placement. Returns 1
 * when all checks passed. */
static int check_result(const Graph *g, const Cluster *c, const int *dev, const SimResult *r, const char *what)
{
    int before = test_failed_now();
    CHECK_MSG(r->n_ops == g->n_nodes && r->n_devices == c->n_devices, "%s: sizes", what);
    check_op_times(g, c, dev, r, what);
    check_devices_serial(g, c, dev, r, what);
    int expect_transfers = check_edges_honoured(g, dev, r, what);
    CHECK_MSG(r->n_transfers == expect_transfers, "%s: %d transfers, expected %d", what, r->n_transfers,
              expect_transfers);
    for (int t = 0; t < r->n_transfers; t++)
        check_transfer(g, c, dev, r, t, what);
    check_buses_serial(c, r, what);
    check_makespan(g, c, dev, r, what);
    check_busy_and_memory(g, c, dev, r, what);
    return test_failed_now() == before;
}

/* A placement: uniform, or blocks of consecutive ops (fewer transfers). */
static void random_placement(Rng *r, int n, int nd, int blocky, int *dev)
{
    int cur = (int)rng_below(r, (uint64_t)nd);
    for (int i = 0; i < n; i++) {
        if (!blocky || rng_uniform(r) < 0.1)
            cur = (int)rng_below(r, (uint64_t)nd);
        dev[i] = cur;
    }
}

static void add_cpu_costs(Graph *g, Rng *r)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (rng_uniform(r) < 0.3) {
            g->nodes[i].kind_costs = xcalloc(1, sizeof *g->nodes[i].kind_costs);
            g->nodes[i].kind_costs[0].kind = xstrdup("cpu");
            g->nodes[i].kind_costs[0].cost_us = rng_uniform(r) < 0.1 ? 0.0 : 5000.0 * rng_uniform(r);
            g->nodes[i].n_kind_costs = 1;
        }
}

TEST(sim_props_random_graphs)
{
    static const int devices[] = {1, 2, 3, 4, 8};
    Rng r;
    rng_seed(&r, 2024);
    int runs = 0;
    for (int k = 0; k < 60; k++) {
        int n = 1 + (int)rng_below(&r, k < 50 ? 60 : 400);
        Graph *g = gen_random_dag(n, 0.5 + 2.5 * rng_uniform(&r), 1000 + (uint64_t)k);
        int odd = k % 3 == 2;
        if (odd)
            add_cpu_costs(g, &r);
        int nd = devices[k % 5];
        Cluster *c = odd ? simcase_cluster(nd < 2 ? 2 : nd, 1) : cluster_default(nd);
        nd = c->n_devices;
        Sim *s = sim_new(g, c);
        int *dev = XMALLOC(int, n);
        for (int p = 0; p < 4; p++) {
            random_placement(&r, n, nd, p & 1, dev);
            char what[128];
            snprintf(what, sizeof what, "%s on %d devices%s, placement %d", g->name, nd, odd ? " (odd)" : "", p);
            const SimResult *res = sim_run(s, dev);
            int ok = check_result(g, c, dev, res, what);
            double ms = res->makespan_us;
            CHECK_EXACT(sim_makespan(s, dev), ms);
            runs++;
            if (!ok) {
                p = 4;
                k = 60;
            }
        }
        free(dev);
        sim_free(s);
        cluster_free(c);
        graph_free(g);
    }
    CHECK(runs >= 200);
}

/* ---- one device ---- */

TEST(sim_one_device_is_the_sum_of_costs_and_gaps)
{
    for (uint64_t seed = 1; seed <= 12; seed++) {
        int n = 1 + (int)(seed * 37 % 300);
        Graph *g = gen_random_dag(n, 1.0 + (double)(seed % 4), seed);
        int nd = 1 + (int)(seed % 3);
        Cluster *c = cluster_default(nd);
        Sim *s = sim_new(g, c);
        int *dev = XNEW(int, n); /* all on device 0 */
        const SimResult *r = sim_run(s, dev);
        check_result(g, c, dev, r, g->name);
        CHECK_INT(r->n_transfers, 0);
        /* the device never idles: replay its ops in start order */
        int *order = XMALLOC(int, n);
        for (int i = 0; i < n; i++)
            order[i] = i;
        g_key = r->start_us;
        g_key2 = r->end_us;
        qsort(order, (size_t)n, sizeof *order, by_key);
        double t = 0, sum = 0;
        for (int j = 0; j < n; j++) {
            int i = order[j];
            double cost = g->nodes[i].cost_us;
            CHECK_MSG(r->start_us[i] == t, "%s: op %s starts at %.17g, expected %.17g", g->name, g->nodes[i].name,
                      r->start_us[i], t);
            t = t + cost;
            if (cost > 0)
                t = t + 5.7;
            sum += cost + (cost > 0 ? 5.7 : 0);
        }
        CHECK_EXACT(r->makespan_us, t);
        CHECK_NEAR(r->makespan_us, sum, 1e-9 * sum);
        for (int d = 1; d < nd; d++)
            CHECK(r->busy_us[d] == 0 && r->peak_memory_bytes[d] == 0);
        free(order);
        free(dev);
        sim_free(s);
        cluster_free(c);
        graph_free(g);
    }
}

TEST(sim_chain_of_ten_unit_ops)
{
    Graph *g = graph_new("chain10");
    for (int i = 0; i < 10; i++) {
        char name[8];
        snprintf(name, sizeof name, "%d", i);
        graph_add_node(g, name, NULL, 1.0, NULL, 0);
        if (i)
            graph_add_edge(g, i - 1, i, 0);
    }
    Err e = {{0}};
    CHECK(graph_finish(g, &e) == 0);
    Cluster *c = cluster_default(1);
    Sim *s = sim_new(g, c);
    int dev[10] = {0};
    const SimResult *r = sim_run(s, dev);
    double t = 0;
    for (int i = 0; i < 10; i++) {
        CHECK_EXACT(r->start_us[i], t);
        t = t + 1.0;
        t = t + 5.7;
    }
    CHECK_EXACT(r->makespan_us, t);
    CHECK_EXACT(r->makespan_us, 67.00000000000001);
    CHECK_EXACT(sim_makespan(s, dev), 67.00000000000001);
    CHECK_EXACT(r->busy_us[0], 10.0);
    sim_free(s);
    cluster_free(c);
    graph_free(g);
}

/* ---- hand-computed cases ---- */

/* Builds a graph from per-node names, costs and output counts (bytes holds
 * all nodes' outputs one after the other) and (src, dst, output) edges. */
static Graph *build(const char *name, int n, const char *const *names, const double *cost, const int64_t *bytes,
                    const int *n_out, int ne, const int (*edges)[3])
{
    Graph *g = graph_new(name);
    for (int i = 0, b = 0; i < n; i++) {
        graph_add_node(g, names[i], NULL, cost[i], bytes + b, n_out[i]);
        b += n_out[i];
    }
    for (int k = 0; k < ne; k++)
        graph_add_edge(g, edges[k][0], edges[k][1], edges[k][2]);
    Err e = {{0}};
    CHECK_MSG(graph_finish(g, &e) == 0, "%s", e.msg);
    return g;
}

TEST(sim_hand_diamond_two_devices)
{
    static const char *const names[] = {"src", "a", "b", "sink"};
    static const double cost[] = {30, 1400, 1100, 50};
    static const int64_t bytes[] = {1520000, 760000, 760000, 760000};
    static const int n_out[] = {1, 1, 1, 1};
    static const int edges[][3] = {{0, 1, 0}, {0, 2, 0}, {1, 3, 0}, {2, 3, 0}};
    Graph *g = build("diamond", 4, names, cost, bytes, n_out, 4, edges);
    Cluster *c = cluster_default(2);
    Sim *s = sim_new(g, c);
    int dev[4] = {0, 0, 1, 0};
    const SimResult *r = sim_run(s, dev);
    /* t=0      src starts on /GPU:0, ends 30; /GPU:0 free again at 30 + 5.7.
     * t=30     dependency (src, a) comes first (dependency < bus): a queued.
     *          /bus/GPU:0 starts src's output (1520000 B / 7600 = 200 us).
     * t=35.7   a runs: [35.7, 35.7 + 1400 = 1435.7]; /GPU:0 next at 1441.4.
     * t=230    b's input arrives; b runs on /GPU:1: [230, 1330].
     * t=1330   /bus/GPU:1 sends b's output (760000 B: 100 us): arrives 1430.
     * t=1435.7 a is done: sink's last input; /GPU:0 is busy until 1441.4.
     * t=1441.4 sink runs [1441.4, 1491.4]; the last event is 1491.4 + 5.7. */
    double src_end = 0.0 + 30.0, a_start = src_end + 5.7, a_end = a_start + 1400.0;
    double b_start = src_end + 1520000.0 / 7600.0, b_end = b_start + 1100.0;
    double sink_start = a_end + 5.7, sink_end = sink_start + 50.0;
    CHECK_EXACT(r->start_us[0], 0.0);
    CHECK_EXACT(r->start_us[1], a_start);
    CHECK_EXACT(r->end_us[1], a_end);
    CHECK_EXACT(r->start_us[2], b_start);
    CHECK_EXACT(r->start_us[2], 230.0);
    CHECK_EXACT(r->end_us[2], b_end);
    CHECK_EXACT(r->start_us[3], sink_start);
    CHECK_EXACT(r->makespan_us, sink_end + 5.7);
    CHECK_NEAR(r->makespan_us, 1497.1, 1e-9);
    CHECK_INT(r->n_transfers, 2);
    if (r->n_transfers == 2) {
        CHECK(r->transfers[0].src == 0 && r->transfers[0].from == 0 && r->transfers[0].n_to == 1 &&
              r->transfers[0].to[0] == 1);
        CHECK_EXACT(r->transfers[0].start_us, 30.0);
        CHECK_EXACT(r->transfers[0].end_us, 230.0);
        CHECK(r->transfers[1].src == 2 && r->transfers[1].from == 1 && r->transfers[1].to[0] == 0);
        CHECK_EXACT(r->transfers[1].start_us, 1330.0);
        CHECK_EXACT(r->transfers[1].end_us, 1430.0);
    }
    /* memory, on the producer's device only:
     * /GPU:0: +1.52 MB at 0 (src), +0.76 MB at 35.7 (a) -> 2.28 MB;
     *         src freed at max(35 + 1400 - 1, 230 + 1100 - 1) = 1434;
     *         sink +0.76 MB at 1441.4 (freed at once: no consumers; allocations
     *         first), a freed at 1441 + 50 - 1 = 1490. Peak 2 280 000.
     * /GPU:1: b's 760 000 from 230 to 1490. */
    CHECK_INT(r->peak_memory_bytes[0], 2280000);
    CHECK_INT(r->peak_memory_bytes[1], 760000);
    CHECK(!r->any_oom);
    check_result(g, c, dev, r, "diamond");
    /* the bundled toy says the same */
    Err e = {{0}};
    Graph *toy = graph_load("graphs/toy/diamond.json", &e);
    CHECK_MSG(toy != NULL, "%s", e.msg);
    if (toy) {
        Sim *s2 = sim_new(toy, c);
        CHECK_EXACT(sim_makespan(s2, dev), r->makespan_us);
        sim_free(s2);
    }
    graph_free(toy);
    sim_free(s);
    cluster_free(c);
    graph_free(g);
}

TEST(sim_hand_transfers_share_the_bus)
{
    /* s (10 us) on /GPU:0 has outputs 76000 B and 152000 B; c1 and c3 read
     * output 0 on /GPU:1 and /GPU:2, c2 reads output 1 on /GPU:1. */
    static const char *const names[] = {"s", "c1", "c2", "c3"};
    static const double cost[] = {10, 10, 10, 10};
    static const int64_t bytes[] = {76000, 152000, 0, 0, 0};
    static const int n_out[] = {2, 1, 1, 1};
    static const int edges[][3] = {{0, 1, 0}, {0, 2, 1}, {0, 3, 0}};
    Graph *g = build("bus", 4, names, cost, bytes, n_out, 3, edges);
    Cluster *c = cluster_default(3);
    Sim *s = sim_new(g, c);
    int dev[4] = {0, 1, 1, 2};
    const SimResult *r = sim_run(s, dev);
    /* output 0 (first in the walk): one transfer to both devices, [10, 20];
     * the bus is then busy until 20 + 25 = 45, when output 1 starts: 20 us,
     * arriving at 65; the bus's last event is 65 + 25 = 90. */
    CHECK_INT(r->n_transfers, 2);
    if (r->n_transfers == 2) {
        const SimTransfer *t0 = &r->transfers[0], *t1 = &r->transfers[1];
        CHECK(t0->output == 0 && t0->n_to == 2 && t0->to[0] == 1 && t0->to[1] == 2);
        CHECK(t0->n_children == 2 && t0->children[0] == 1 && t0->children[1] == 3);
        CHECK(t0->bytes == 76000 && t1->bytes == 152000 && t1->output == 1 && t1->n_to == 1);
        CHECK_EXACT(t0->start_us, 10.0);
        CHECK_EXACT(t0->end_us, 20.0);
        CHECK_EXACT(t1->start_us, 45.0);
        CHECK_EXACT(t1->end_us, 65.0);
    }
    CHECK_EXACT(r->start_us[1], 20.0);
    CHECK_EXACT(r->start_us[3], 20.0);
    CHECK_EXACT(r->start_us[2], 65.0);
    CHECK_EXACT(r->makespan_us, 90.0);
    check_result(g, c, dev, r, "bus");
    sim_free(s);
    cluster_free(c);
    graph_free(g);
}

TEST(sim_hand_bus_waits_for_a_later_transfer)
{
    /* p1 (10 us) and p2 (100 us) on /GPU:0, their consumers on /GPU:1.
     * p1's output (7600 B: 1 us) crosses [10, 11]; the bus's next event is at
     * 36. p2 runs [15.7, 115.7] and queues its transfer when it starts, ready
     * at 115.7: at 36 the head is not ready, so the bus waits until 115.7. */
    static const char *const names[] = {"p1", "p2", "q1", "q2"};
    static const double cost[] = {10, 100, 1, 1};
    static const int64_t bytes[] = {7600, 15200, 0, 0};
    static const int n_out[] = {1, 1, 1, 1};
    static const int edges[][3] = {{0, 2, 0}, {1, 3, 0}};
    Graph *g = build("wait", 4, names, cost, bytes, n_out, 2, edges);
    Cluster *c = cluster_default(2);
    Sim *s = sim_new(g, c);
    int dev[4] = {0, 0, 1, 1};
    const SimResult *r = sim_run(s, dev);
    double p2_end = (10.0 + 5.7) + 100.0;
    CHECK_EXACT(r->start_us[1], 10.0 + 5.7);
    CHECK_INT(r->n_transfers, 2);
    if (r->n_transfers == 2) {
        CHECK_EXACT(r->transfers[0].end_us, 11.0);
        CHECK_EXACT(r->transfers[1].start_us, p2_end);
        CHECK_EXACT(r->transfers[1].end_us, p2_end + 2.0);
    }
    CHECK_EXACT(r->start_us[3], p2_end + 2.0);
    CHECK_EXACT(r->makespan_us, p2_end + 2.0 + 25.0);
    check_result(g, c, dev, r, "wait");
    sim_free(s);
    cluster_free(c);
    graph_free(g);
}

TEST(sim_hand_ties_go_by_name)
{
    /* src releases b and a at the same time on its device: dependency events
     * are ordered by (parent, child) names, so a is queued, and runs, first
     * although the edge to b comes first. */
    static const char *const names[] = {"src", "b", "a"};
    static const double cost[] = {1, 2, 3};
    static const int64_t bytes[] = {8, 8, 8};
    static const int n_out[] = {1, 1, 1};
    static const int edges[][3] = {{0, 1, 0}, {0, 2, 0}};
    Graph *g = build("ties", 3, names, cost, bytes, n_out, 2, edges);
    Cluster *c = cluster_default(1);
    Sim *s = sim_new(g, c);
    int dev[3] = {0, 0, 0};
    const SimResult *r = sim_run(s, dev);
    CHECK_EXACT(r->start_us[2], 1.0 + 5.7);
    CHECK_EXACT(r->start_us[1], (1.0 + 5.7 + 3.0) + 5.7);
    /* memory: src's 8 B are held until max(trunc(6.7) + 3 - 1, trunc(15.4) +
     * 2 - 1) = 16; a and b (no consumers) allocate and free at their starts,
     * allocations first: the peak is src + one of them */
    CHECK_INT(r->peak_memory_bytes[0], 16);
    check_result(g, c, dev, r, "ties");
    sim_free(s);
    cluster_free(c);
    graph_free(g);
}

TEST(sim_hand_ties_between_parents_go_by_parent_name)
{
    /* b0 on /GPU:1 and a0 on /GPU:0 both run [0, 5] and send 7600 B (1 us)
     * to cb and ca on /GPU:2: both dependencies fire at 6. (a0, ca) sorts
     * before (b0, cb), so ca is queued first and runs first, although b0 and
     * cb come first in the graph order. */
    static const char *const names[] = {"b0", "a0", "cb", "ca"};
    static const double cost[] = {5, 5, 1, 1};
    static const int64_t bytes[] = {7600, 7600, 0, 0};
    static const int n_out[] = {1, 1, 1, 1};
    static const int edges[][3] = {{0, 2, 0}, {1, 3, 0}};
    Graph *g = build("parents", 4, names, cost, bytes, n_out, 2, edges);
    Cluster *c = cluster_default(3);
    Sim *s = sim_new(g, c);
    int dev[4] = {1, 0, 2, 2};
    const SimResult *r = sim_run(s, dev);
    CHECK_EXACT(r->start_us[3], 6.0);
    CHECK_EXACT(r->start_us[2], (6.0 + 1.0) + 5.7);
    check_result(g, c, dev, r, "parents");
    sim_free(s);
    cluster_free(c);
    graph_free(g);
}

TEST(sim_hand_memory_frees_at_truncated_times)
{
    /* P (5.2 us, 5320 B) and D (1 us, 1000 B) are roots on /GPU:0; P's
     * consumer C (6.5 us) is on /GPU:1. P runs [0, 5.2], its output crosses
     * in 5320 / 7600 = 0.7 us, C starts at 5.9. P's tensor is freed at
     * trunc(5.9) + trunc(6.5) - 1 = 10, before D allocates at 5.2 + 5.7 =
     * 10.9: the peak of /GPU:0 is P's 5320 alone (without the truncation P
     * would live until 11.4 and the peak would be 6320). */
    static const char *const names[] = {"P", "D", "C"};
    static const double cost[] = {5.2, 1, 6.5};
    static const int64_t bytes[] = {5320, 1000, 0};
    static const int n_out[] = {1, 1, 1};
    static const int edges[][3] = {{0, 2, 0}};
    Graph *g = build("trunc", 3, names, cost, bytes, n_out, 1, edges);
    Cluster *c = cluster_default(2);
    Sim *s = sim_new(g, c);
    int dev[3] = {0, 0, 1};
    const SimResult *r = sim_run(s, dev);
    CHECK_EXACT(r->start_us[2], 5.2 + 5320.0 / 7600.0);
    CHECK_EXACT(r->start_us[1], 5.2 + 5.7);
    CHECK_INT(r->peak_memory_bytes[0], 5320);
    CHECK_INT(r->peak_memory_bytes[1], 0);
    check_result(g, c, dev, r, "trunc");
    sim_free(s);
    cluster_free(c);
    graph_free(g);
}

TEST(sim_zero_bytes_and_zero_costs)
{
    /* zero-cost ops take no gap; nothing allocated means a peak of 0 */
    static const char *const names[] = {"x", "y", "z"};
    static const double cost[] = {0, 0, 4};
    static const int64_t bytes[] = {0, 0, 0};
    static const int n_out[] = {1, 1, 1};
    static const int edges[][3] = {{0, 1, 0}, {1, 2, 0}};
    Graph *g = build("zeros", 3, names, cost, bytes, n_out, 2, edges);
    Cluster *c = cluster_default(2);
    Sim *s = sim_new(g, c);
    int dev[3] = {0, 1, 1};
    const SimResult *r = sim_run(s, dev);
    /* x at 0 (no gap); the 0-byte transfer [0, 0]; y at 0; z at 0, ends 4,
     * then the gap; the bus's overhead ends at 25 */
    CHECK_EXACT(r->start_us[1], 0.0);
    CHECK_EXACT(r->start_us[2], 0.0);
    CHECK_EXACT(r->makespan_us, 25.0);
    CHECK(r->peak_memory_bytes[0] == 0 && r->peak_memory_bytes[1] == 0);
    check_result(g, c, dev, r, "zeros");
    sim_free(s);
    cluster_free(c);
    graph_free(g);
}

TEST(sim_deterministic_and_workspace_reuse)
{
    Graph *g = gen_random_dag(300, 2.5, 77);
    Cluster *c = cluster_default(4);
    Sim *s = sim_new(g, c), *fresh = sim_new(g, c);
    Rng r;
    rng_seed(&r, 5);
    int n = g->n_nodes;
    int *a = XMALLOC(int, n), *b = XMALLOC(int, n);
    random_placement(&r, n, 4, 0, a);
    random_placement(&r, n, 4, 1, b);
    const SimResult *res = sim_run(s, a);
    double ms = res->makespan_us;
    double *st = XMALLOC(double, n), *en = XMALLOC(double, n);
    memcpy(st, res->start_us, (size_t)n * sizeof *st);
    memcpy(en, res->end_us, (size_t)n * sizeof *en);
    int64_t peaks[4];
    memcpy(peaks, res->peak_memory_bytes, sizeof peaks);
    int ntr = res->n_transfers;
    sim_run(s, b); /* something else in between */
    sim_makespan(s, b);
    const SimResult *again = sim_run(s, a), *other = sim_run(fresh, a);
    const SimResult *runs[2] = {again, other};
    for (int k = 0; k < 2; k++) {
        CHECK_EXACT(runs[k]->makespan_us, ms);
        CHECK(memcmp(runs[k]->start_us, st, (size_t)n * sizeof *st) == 0);
        CHECK(memcmp(runs[k]->end_us, en, (size_t)n * sizeof *en) == 0);
        CHECK(memcmp(runs[k]->peak_memory_bytes, peaks, sizeof peaks) == 0);
        CHECK_INT(runs[k]->n_transfers, ntr);
    }
    for (int t = 0; t < ntr && t < other->n_transfers; t++)
        CHECK(again->transfers[t].src == other->transfers[t].src &&
              again->transfers[t].start_us == other->transfers[t].start_us &&
              again->transfers[t].n_children == other->transfers[t].n_children);
    CHECK_EXACT(sim_makespan(s, a), ms);
    free(st);
    free(en);
    free(a);
    free(b);
    sim_free(s);
    sim_free(fresh);
    cluster_free(c);
    graph_free(g);
}

/* ---- differential test against the Python reference ---- */

/* Relative to the repository root, where the test runner runs. */
#define SIM_REF_PATH "tests/sim_ref.py"

static char *run_command(const char *cmd, int *status)
{
    FILE *f = popen(cmd, "r");
    if (!f) {
        *status = -1;
        return NULL;
    }
    StrBuf b = {0};
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t k = 0; k < got; k++)
            sb_putc(&b, buf[k]);
    *status = pclose(f);
    if (!b.s)
        sb_puts(&b, "");
    return b.s;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1e300;
}

/* Runs the reference on every case in one Python process (its start-up is
 * slow on small machines), one JSON line per case; NULL when that fails. */
static const char *BATCH_DRIVER =
    "import runpy, sys\n"
    "m = runpy.run_path(sys.argv[1])\n"
    "a = sys.argv[2:]\n"
    "for k in range(0, len(a), 3):\n"
    "    sys.argv = ['sim_ref.py', a[k], a[k + 1], '--devices', a[k + 2]]\n"
    "    m['main']()\n"
    "    sys.stdout.flush()\n";

#define N_REF_CASES 30

TEST(sim_differential_against_python_reference)
{
    int status = 0;
    char *py = run_command("python3 -c 'print(1)' 2>/dev/null", &status);
    int have_python = py && status == 0 && strcmp(py, "1\n") == 0;
    free(py);
    if (!have_python) {
        fprintf(stderr, "note: python3 absent: differential test against " SIM_REF_PATH " skipped\n");
        return;
    }
    if (access(SIM_REF_PATH, R_OK) != 0) {
        CHECK_MSG(0, "%s is missing (the tests run from the repository root)", SIM_REF_PATH);
        return;
    }
    Graph *graphs[N_REF_CASES];
    Placement *places[N_REF_CASES];
    char gpath[N_REF_CASES][128], ppath[N_REF_CASES][128];
    StrBuf cmd = {0};
    sb_printf(&cmd, "python3 -c \"$PLACETO_SIM_REF_DRIVER\" %s", SIM_REF_PATH);
    Rng r;
    rng_seed(&r, 31337);
    for (int k = 0; k < N_REF_CASES; k++) {
        int n = 1 + (int)rng_below(&r, 45), nd = 1 + (int)rng_below(&r, 4);
        graphs[k] = gen_random_dag(n, 0.5 + 2.5 * rng_uniform(&r), 5000 + (uint64_t)k);
        places[k] = placement_new(n, nd);
        random_placement(&r, n, nd, k % 2, places[k]->op_device);
        snprintf(gpath[k], sizeof gpath[k], "/tmp/placeto_test_sim_ref_%ld_%d.graph.json", (long)getpid(), k);
        snprintf(ppath[k], sizeof ppath[k], "/tmp/placeto_test_sim_ref_%ld_%d.placement.json", (long)getpid(), k);
        Cluster *c = cluster_default(nd);
        Err e = {{0}};
        CHECK_MSG(graph_write_json(graphs[k], gpath[k], &e) == 0 && placement_write(places[k], graphs[k], c, ppath[k], &e) == 0,
                  "%s", e.msg);
        cluster_free(c);
        sb_printf(&cmd, " %s %s %d", gpath[k], ppath[k], nd);
    }
    setenv("PLACETO_SIM_REF_DRIVER", BATCH_DRIVER, 1);
    char *out = run_command(cmd.s, &status);
    unsetenv("PLACETO_SIM_REF_DRIVER");
    sb_free(&cmd);
    CHECK_MSG(out && status == 0, "the reference failed (status %d)", status);
    char *line = out && status == 0 ? out : NULL;
    int compared = 0;
    for (int k = 0; k < N_REF_CASES; k++) {
        Graph *g = graphs[k];
        Placement *p = places[k];
        int n = g->n_nodes, nd = p->n_devices;
        char *eol = line ? strchr(line, '\n') : NULL;
        if (eol)
            *eol = '\0';
        cJSON *j = line ? cJSON_Parse(line) : NULL;
        line = eol ? eol + 1 : NULL;
        CHECK_MSG(j != NULL || !out || status != 0, "%s: no reference output", g->name);
        if (j) {
            Cluster *c = cluster_default(nd);
            Sim *s = sim_new(g, c);
            const SimResult *res = sim_run(s, p->op_device);
            char what[96];
            snprintf(what, sizeof what, "%s on %d devices", g->name, nd);
            CHECK_MSG(res->makespan_us == num(j, "makespan_us"), "%s: makespan %.17g, reference %.17g", what,
                      res->makespan_us, num(j, "makespan_us"));
            const cJSON *ops = cJSON_GetObjectItemCaseSensitive(j, "ops");
            int i = 0, bad = 0;
            for (const cJSON *o = ops ? ops->child : NULL; o && bad < 3; o = o->next, i++) {
                const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "name");
                if (!cJSON_IsString(name) || i >= n || strcmp(name->valuestring, g->nodes[i].name) != 0 ||
                    res->start_us[i] != num(o, "start_us") || res->end_us[i] != num(o, "end_us")) {
                    CHECK_MSG(0, "%s: op %d: [%.17g, %.17g], reference [%.17g, %.17g]", what, i,
                              i < n ? res->start_us[i] : -1, i < n ? res->end_us[i] : -1, num(o, "start_us"),
                              num(o, "end_us"));
                    bad++;
                }
            }
            CHECK_MSG(bad || i == n, "%s: the reference gave %d ops", what, i);
            const cJSON *devs = cJSON_GetObjectItemCaseSensitive(j, "devices");
            int d = 0;
            for (const cJSON *o = devs ? devs->child : NULL; o; o = o->next, d++)
                CHECK_MSG(d < nd && (double)res->peak_memory_bytes[d] == num(o, "peak_memory_bytes"),
                          "%s: device %d peak %lld, reference %.17g", what, d,
                          d < nd ? (long long)res->peak_memory_bytes[d] : -1LL, num(o, "peak_memory_bytes"));
            CHECK_INT(d, nd);
            compared++;
            sim_free(s);
            cluster_free(c);
        }
        cJSON_Delete(j);
        placement_free(p);
        graph_free(g);
        remove(gpath[k]);
        remove(ppath[k]);
    }
    free(out);
    CHECK_INT(compared, N_REF_CASES);
}
