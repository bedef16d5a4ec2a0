/* Every placement method scales: on a 100 000-op graph with 100 000 layer
 * tags, grouped into 100 000 groups (every op its own group), each method
 * completes (no quadratic step: the suite would not finish) and gives a valid
 * placement; expert in layer mode keeps the layers' runs contiguous. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "gen.h"
#include "graph.h"
#include "group.h"
#include "place.h"
#include "place_methods.h"
#include "test.h"

#define SCALE_OPS 100000

/* A wide graph: every op its own layer; the ops with index % 4 == 0 have no
 * predecessors, so thousands of groups are ready at once. */
static Graph *scale_graph(int n_layer_tags)
{
    Graph *g = gen_random_dag(SCALE_OPS, 1.5, 16);
    for (int i = 0; i < g->n_nodes; i++) {
        char tag[32];
        snprintf(tag, sizeof tag, "L%d", i % n_layer_tags);
        free(g->nodes[i].layer);
        g->nodes[i].layer = xstrdup(tag);
    }
    return g;
}

static void check_valid(const char *name, const Graph *g, const Cluster *c, const int *dev)
{
    int bad = 0;
    for (int i = 0; i < g->n_nodes; i++)
        bad += dev[i] < 0 || dev[i] >= c->n_devices;
    CHECK_MSG(bad == 0, "%s: %d ops on no device of the cluster", name, bad);
}

TEST(place_every_method_scales_to_100000_ops_and_layers)
{
    Graph *g = scale_graph(SCALE_OPS);
    Err e = {{0}};
    Grouping *gr = group_build(g, SCALE_OPS, &e);
    REQUIRE_MSG(gr, "%s", e.msg);
    CHECK_INT(gr->n_groups, SCALE_OPS);
    Cluster *c = cluster_default(4);
    c->devices[1].speed = 2; /* heterogeneous: the layer cut weighs each device */
    int64_t simulated = 0;
    PlaceCtx ctx = {.g = g, .gr = gr, .c = c, .seed = 7, .budget = 3, .simulated = &simulated};
    int *dev = XMALLOC(int, g->n_nodes);
    int n_methods;
    const PlaceMethod *m = place_methods(&n_methods);
    for (int k = 0; k < n_methods; k++) {
        if (place_is_search(&m[k]))
            continue; /* below, on a smaller budget of the same graph */
        for (int i = 0; i < g->n_nodes; i++)
            dev[i] = -1;
        e.msg[0] = '\0';
        int rc = m[k].fn(&ctx, dev, &e);
        CHECK_MSG(rc == 0, "%s: %s", m[k].name, e.msg);
        check_valid(m[k].name, g, c, dev);
        if (strcmp(m[k].name, "expert") == 0) {
            /* layer mode, one layer per op in order: the devices' runs are
             * contiguous in layer order and every device has one */
            int runs = 1, used[4] = {0};
            for (int i = 0; i < g->n_nodes; i++) {
                used[dev[i]] = 1;
                runs += i > 0 && dev[i] != dev[i - 1];
            }
            CHECK_MSG(runs <= 4, "expert: %d runs over the layers", runs);
            CHECK(used[0] + used[1] + used[2] + used[3] >= 3);
        }
    }
    free(dev);
    cluster_free(c);
    group_free(gr);
    graph_free(g);
}

TEST(place_searches_scale_to_100000_ops)
{
    Graph *g = scale_graph(1000);
    Err e = {{0}};
    Grouping *gr = group_build(g, SCALE_OPS, &e);
    REQUIRE_MSG(gr, "%s", e.msg);
    Cluster *c = cluster_default(2);
    int *dev = XMALLOC(int, g->n_nodes);
    const char *names[] = {"anneal", "ils"};
    for (int k = 0; k < 2; k++) {
        int64_t simulated = 0;
        PlaceCtx ctx = {.g = g, .gr = gr, .c = c, .seed = 3, .budget = 12, .simulated = &simulated};
        const PlaceMethod *m = place_find(names[k]);
        REQUIRE(m);
        CHECK(m->fn(&ctx, dev, &e) == 0);
        check_valid(names[k], g, c, dev);
        CHECK_MSG(simulated <= 12 && simulated > 0, "%s: %lld placements simulated", names[k], (long long)simulated);
    }
    free(dev);
    cluster_free(c);
    group_free(gr);
    graph_free(g);
}

/* The scan over every (ready group, device) pair, as m-ETF was first
 * written: the reference the heaps of place_etf.c must match. */
static int ref_m_etf(const PlaceCtx *ctx, int *op_device, Err *e)
{
    (void)e;
    const Grouping *gr = ctx->gr;
    const Cluster *c = ctx->c;
    int n = gr->n_groups, nd = c->n_devices;
    size_t N = (size_t)n + 1, D = (size_t)nd;
    double *times = place_list_group_times(ctx);
    /* communication time of each predecessor edge, in pred[] order */
    double *pcomm = xmalloc_array((size_t)gr->n_edges, sizeof *pcomm);
    for (int k = 0; k < n; k++)
        for (int j = gr->pred_off[k]; j < gr->pred_off[k + 1]; j++) {
            int q = gr->pred[j], lo = gr->succ_off[q], hi = gr->succ_off[q + 1] - 1;
            int64_t bytes = 0;
            while (lo <= hi) { /* succ lists are sorted */
                int mid = lo + (hi - lo) / 2;
                if (gr->succ[mid] == k) {
                    bytes = gr->succ_bytes[mid];
                    break;
                }
                if (gr->succ[mid] < k)
                    lo = mid + 1;
                else
                    hi = mid - 1;
            }
            pcomm[j] = place_list_comm_time(c, bytes);
        }
    double *fin = xmalloc_array(N, sizeof *fin), *data_ready = xmalloc_array(N * D, sizeof *data_ready);
    double *dev_free = xnew_array(D, sizeof *dev_free);
    int64_t *mem = xnew_array(D, sizeof *mem);
    int *gd = xmalloc_array(N, sizeof *gd), *waiting = xmalloc_array(N, sizeof *waiting);
    int *ready = xmalloc_array(N, sizeof *ready), n_ready = 0;
    for (int k = 0; k < n; k++) {
        waiting[k] = gr->pred_off[k + 1] - gr->pred_off[k];
        if (!waiting[k]) {
            ready[n_ready++] = k;
            for (size_t d = 0; d < D; d++)
                data_ready[(size_t)k * D + d] = 0;
        }
    }
    while (n_ready > 0) {
        int bi = -1, bd = -1;
        double bs = 0;
        for (int i = 0; i < n_ready; i++) {
            int k = ready[i];
            int any = 0;
            for (int d = 0; d < nd; d++)
                any |= (mem[d] + gr->bytes[k] <= c->devices[d].memory_bytes);
            int fallback = any ? -1 : place_list_most_free_device(c, mem);
            for (int d = 0; d < nd; d++) {
                if (any ? !(mem[d] + gr->bytes[k] <= c->devices[d].memory_bytes) : d != fallback)
                    continue;
                double s = fmax(dev_free[d], data_ready[(size_t)k * D + (size_t)d]);
                if (bi < 0 || s < bs || (s == bs && (k < ready[bi] || (k == ready[bi] && d < bd)))) {
                    bi = i;
                    bd = d;
                    bs = s;
                }
            }
        }
        int k = ready[bi], d = bd;
        ready[bi] = ready[--n_ready];
        gd[k] = d;
        fin[k] = bs + times[(size_t)k * D + (size_t)d];
        dev_free[d] = fin[k];
        mem[d] += gr->bytes[k];
        for (int j = gr->succ_off[k]; j < gr->succ_off[k + 1]; j++) {
            int s = gr->succ[j];
            if (--waiting[s])
                continue;
            for (int dd = 0; dd < nd; dd++) {
                double r = 0;
                for (int i = gr->pred_off[s]; i < gr->pred_off[s + 1]; i++) {
                    int q = gr->pred[i];
                    double v = fin[q] + (gd[q] != dd ? pcomm[i] : 0);
                    if (v > r)
                        r = v;
                }
                data_ready[(size_t)s * D + (size_t)dd] = r;
            }
            ready[n_ready++] = s;
        }
    }
    group_expand(ctx->gr, gd, op_device);
    free(times);
    free(pcomm);
    free(fin);
    free(data_ready);
    free(dev_free);
    free(mem);
    free(gd);
    free(waiting);
    free(ready);
    return 0;
}

/* m-ETF's heaps give the placement of the plain scan, with memory to spare
 * and with memory so tight that groups stop fitting and fit nowhere. */
TEST(place_m_etf_matches_the_pairwise_scan)
{
    int mismatches = 0;
    for (int t = 0; t < 120; t++) {
        Graph *g = gen_random_dag(5 + t % 60, 0.5 + (t % 5) * 0.6, (uint64_t)t + 100);
        Err e = {{0}};
        Grouping *gr = group_build(g, g->n_nodes / (1 + t % 3), &e);
        REQUIRE_MSG(gr, "%s", e.msg);
        Cluster *c = cluster_default(2 + t % 4);
        int64_t total = 0;
        for (int k = 0; k < gr->n_groups; k++)
            total += gr->bytes[k];
        for (int d = 0; d < c->n_devices; d++) {
            c->devices[d].speed = 1 + (double)((t + d) % 3);
            if (t % 3 == 1)
                c->devices[d].memory_bytes = total / c->n_devices / 2 + d * 1000;
            else if (t % 3 == 2)
                c->devices[d].memory_bytes = total / c->n_devices + 1;
        }
        PlaceCtx ctx = {.g = g, .gr = gr, .c = c, .seed = 1};
        int *a = XMALLOC(int, g->n_nodes), *b = XMALLOC(int, g->n_nodes);
        CHECK(place_m_etf(&ctx, a, &e) == 0);
        CHECK(ref_m_etf(&ctx, b, &e) == 0);
        if (memcmp(a, b, (size_t)g->n_nodes * sizeof *a) != 0)
            mismatches++;
        free(a);
        free(b);
        cluster_free(c);
        group_free(gr);
        graph_free(g);
    }
    CHECK_INT(mismatches, 0);
}
