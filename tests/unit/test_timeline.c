/* Timeline layout (layouts/timeline.h): the index, the critical path as a
 * chain of releases, tick steps and labels, zoom and pan, what the lanes
 * show and the reverse mapping from cells to ops. */
#include <math.h>
#include <stdlib.h>

#include "gen.h"
#include "group.h"
#include "sim.h"
#include "test.h"
#include "timeline.h"

typedef struct Run {
    Graph *g;
    Cluster *c;
    Sim *s;
    int *dev;
    const SimResult *r;
    Timeline *t;
} Run;

/* Simulates g with op i on device (i / block) % n_devices. */
static Run run_of(Graph *g, int n_devices, int block)
{
    Run run = {g, cluster_default(n_devices), NULL, XMALLOC(int, g->n_nodes), NULL, NULL};
    for (int i = 0; i < g->n_nodes; i++)
        run.dev[i] = (i / block) % n_devices;
    run.s = sim_new(g, run.c);
    run.r = sim_run(run.s, run.dev);
    run.t = tl_new(g, run.c, run.r);
    return run;
}

static void run_free(Run *run)
{
    tl_free(run->t);
    sim_free(run->s);
    cluster_free(run->c);
    free(run->dev);
    graph_free(run->g);
}

TEST(tl_index_lists_ops_and_transfers_in_start_order)
{
    Run run = run_of(gen_random_dag(120, 2.0, 5), 3, 7);
    const Timeline *t = run.t;
    CHECK_INT(t->dev_off[3], 120);
    CHECK_INT(t->bus_off[3], run.r->n_transfers);
    for (int d = 0; d < 3; d++) {
        for (int i = t->dev_off[d]; i < t->dev_off[d + 1]; i++) {
            CHECK_INT(run.r->device[t->dev_ops[i]], d);
            if (i > t->dev_off[d]) /* ops on a device never overlap */
                CHECK(run.r->start_us[t->dev_ops[i]] >= run.r->end_us[t->dev_ops[i - 1]]);
        }
        for (int i = t->bus_off[d]; i < t->bus_off[d + 1]; i++) {
            CHECK_INT(run.r->transfers[t->bus_tr[i]].from, d);
            if (i > t->bus_off[d])
                CHECK(run.r->transfers[t->bus_tr[i]].start_us >= run.r->transfers[t->bus_tr[i - 1]].end_us);
        }
    }
    run_free(&run);
}

/* The critical ops, sorted by start, form a chain: each starts when the one
 * before it (or a critical transfer out of it, or its device) released it,
 * the first starts at 0 and the last ends last. */
TEST(tl_critical_path_is_a_chain_of_releases)
{
    for (int k = 0; k < 6; k++) {
        Run run = run_of(gen_random_dag(40 + 20 * k, 1.5 + 0.2 * k, 50 + (uint64_t)k), 2 + k % 3, 1 + k);
        const Timeline *t = run.t;
        const SimResult *r = run.r;
        int last = -1, n = 0, first = -1, end = 0;
        for (int i = 0; i < r->n_ops; i++)
            if (r->end_us[i] > r->end_us[end])
                end = i;
        CHECK(t->op_crit[end]);
        for (int i = 0; i < r->n_ops; i++) {
            if (!t->op_crit[i])
                continue;
            n++;
            if (first < 0 || r->start_us[i] < r->start_us[first])
                first = i;
            if (last >= 0)
                CHECK(r->start_us[i] != r->start_us[last] || r->end_us[i] == r->start_us[i] ||
                      r->end_us[last] == r->start_us[last]);
            last = i;
        }
        CHECK(n >= 1);
        CHECK_EXACT(r->start_us[first], 0.0);
        /* every critical op but the first is released at its start by a critical
         * predecessor: a parent, the op before it on the device, or a transfer */
        for (int i = 0; i < r->n_ops; i++) {
            if (!t->op_crit[i] || i == first || r->start_us[i] == 0)
                continue;
            int ok = 0;
            for (int p = 0; p < run.g->nodes[i].n_parents && !ok; p++) {
                int q = run.g->nodes[i].parents[p];
                ok = t->op_crit[q] && r->device[q] == r->device[i] && r->end_us[q] == r->start_us[i];
            }
            for (int x = 0; x < r->n_transfers && !ok; x++)
                for (int ch = 0; ch < r->transfers[x].n_children && !ok; ch++)
                    ok = t->tr_crit[x] && r->transfers[x].children[ch] == i && r->transfers[x].end_us == r->start_us[i];
            for (int j = 0; j < r->n_ops && !ok; j++)
                ok = t->op_crit[j] && j != i && r->device[j] == r->device[i] && r->end_us[j] <= r->start_us[i] &&
                     r->start_us[i] - r->end_us[j] <= run.c->op_gap_us + 1e-9 && r->end_us[j] > r->start_us[j];
            CHECK_MSG(ok, "case %d: critical op %s at %.3f has no critical release", k, run.g->nodes[i].name,
                      r->start_us[i]);
        }
        run_free(&run);
    }
}

TEST(tl_critical_path_of_a_chain_is_every_op)
{
    Err e;
    Graph *g = graph_load("graphs/toy/chain.json", &e);
    REQUIRE(g != NULL);
    Run run = run_of(g, 1, 1);
    for (int i = 0; i < g->n_nodes; i++)
        CHECK(run.t->op_crit[i]);
    run_free(&run);
}

TEST(tl_tick_steps_and_labels)
{
    CHECK_EXACT(tl_tick_step(1000, 100, 10), 100.0);
    CHECK_EXACT(tl_tick_step(1000, 100, 12), 200.0);
    CHECK_EXACT(tl_tick_step(4860, 100, 10), 500.0);
    CHECK_EXACT(tl_tick_step(299024, 113, 10), 50000.0);
    CHECK_EXACT(tl_tick_step(3e7, 80, 10), 5e6);
    CHECK_EXACT(tl_tick_step(7, 100, 10), 1.0);
    char b[32];
    struct {
        double us, step;
        const char *want;
    } cases[] = {{0, 100, "0"},          {200, 100, "200 \xC2\xB5s"}, {1000, 500, "1000 \xC2\xB5s"},
                 {1500, 500, "1500 \xC2\xB5s"}, {2000, 1000, "2 ms"}, {2500, 2500, "2.5 ms"}, {250000, 50000, "250 ms"},
                 {2e6, 1e6, "2 s"}, {0.5, 0.5, "0.5 \xC2\xB5s"}, {12.5e3, 2.5e3, "12.5 ms"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tl_format_tick(b, sizeof b, cases[i].us, cases[i].step);
        CHECK_MSG(strcmp(b, cases[i].want) == 0, "tick %g step %g: \"%s\", expected \"%s\"", cases[i].us,
                  cases[i].step, b, cases[i].want);
    }
    tl_format_tick(b, sizeof b, 1.5e6, 5e5); /* the step picks the unit */
    CHECK(strcmp(b, "1500 ms") == 0);
}

TEST(tl_zoom_and_pan_stay_in_range)
{
    double t0 = 0, t1 = 1000;
    tl_zoom(&t0, &t1, 0.5, 500, 1000);
    CHECK_NEAR(t0, 250, 1e-9);
    CHECK_NEAR(t1, 750, 1e-9);
    tl_zoom(&t0, &t1, 0.5, 250, 1000); /* the anchor keeps its place */
    CHECK_NEAR(t0, 250, 1e-9);
    CHECK_NEAR(t1, 500, 1e-9);
    tl_pan(&t0, &t1, -1000, 1000);
    CHECK_NEAR(t0, 0, 1e-9);
    CHECK_NEAR(t1, 250, 1e-9);
    tl_pan(&t0, &t1, 5000, 1000);
    CHECK_NEAR(t0, 750, 1e-9);
    CHECK_NEAR(t1, 1000, 1e-9);
    tl_zoom(&t0, &t1, 100, 900, 1000); /* never wider than the run */
    CHECK_NEAR(t0, 0, 1e-9);
    CHECK_NEAR(t1, 1000, 1e-9);
    tl_zoom(&t0, &t1, 1e-9, 10, 1000); /* never narrower than 1 µs */
    CHECK_NEAR(t1 - t0, 1, 1e-9);
}

TEST(tl_render_lanes_and_op_at)
{
    Err e;
    Graph *g = graph_load("graphs/toy/diamond.json", &e); /* src a b sink */
    REQUIRE(g != NULL);
    Run run = run_of(g, 2, 1); /* src 0, a 1, b 0, sink 1 */
    Grid *grid = grid_new(90, 9);
    TlView v = tl_view_default(run.t, (GridRect){0, 0, 90, 8});
    CHECK_EXACT(v.t1, run.r->makespan_us);
    tl_render(run.t, &v, grid);
    char *txt = grid_to_text(grid, GRID_ASCII);
    CHECK_STR_CONTAINS(txt, "/GPU:0 ");
    CHECK_STR_CONTAINS(txt, "  bus");
    CHECK_STR_CONTAINS(txt, "[b###");
    CHECK_STR_CONTAINS(txt, "[a###");
    CHECK_STR_CONTAINS(txt, "0                       500 us");
    CHECK_STR_CONTAINS(txt, "=d1===");  /* the critical transfer src -> a */
    CHECK_STR_CONTAINS(txt, "^^^^^^^"); /* marks under a */
    free(txt);
    /* every lane cell that shows an op maps back to it */
    int found[4] = {0};
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 90; x++) {
            int op = tl_op_at(run.t, &v, x, y);
            if (op >= 0) {
                found[op] = 1;
                CHECK_INT((y - TL_AXIS_ROWS) / TL_LANE_ROWS, run.r->device[op]); /* its device's */
                CHECK((y - TL_AXIS_ROWS) % TL_LANE_ROWS != 2);                   /* op or mark row */
                double tm = tl_time_at(run.t, &v, x);
                CHECK(tm >= run.r->start_us[op] - 30 && tm <= run.r->end_us[op] + 30);
            }
        }
    CHECK(found[0] && found[1] && found[2] && found[3]);
    CHECK_INT(tl_op_at(run.t, &v, 2, 2), -1); /* the lane name */
    CHECK_INT(tl_op_at(run.t, &v, 50, 0), -1); /* the axis */
    /* selection and colouring by group */
    int group[4] = {0, 1, 1, 2};
    v.op_group = group;
    v.selected_group = 1;
    grid_clear(grid);
    tl_render(run.t, &v, grid);
    int x_a = 0;
    for (int x = 0; x < 90 && !x_a; x++)
        x_a = tl_op_at(run.t, &v, x, TL_AXIS_ROWS + TL_LANE_ROWS) == 1 ? x : 0;
    CHECK_INT(grid_at(grid, x_a, TL_AXIS_ROWS + TL_LANE_ROWS)->style, GS_SELECTED);
    v.selected_group = -1;
    v.by_group = 1;
    grid_clear(grid);
    tl_render(run.t, &v, grid);
    CHECK_INT(grid_at(grid, x_a, TL_AXIS_ROWS + TL_LANE_ROWS)->style, GS_GROUP);
    CHECK_INT(grid_at(grid, x_a, TL_AXIS_ROWS + TL_LANE_ROWS)->device, 1);
    /* a zoomed window: the block of b is cut on the right, so no closing bracket */
    v.t0 = 0;
    v.t1 = 300;
    grid_clear(grid);
    tl_render(run.t, &v, grid);
    txt = grid_to_text(grid, GRID_ASCII);
    CHECK_STR_CONTAINS(txt, "[b#####");
    CHECK_INT(grid_at(grid, 89, TL_AXIS_ROWS)->ch, GRID_FULL);
    free(txt);
    grid_free(grid);
    run_free(&run);
}

TEST(tl_render_narrow_ops_take_free_cells_only)
{
    Run run = run_of(gen_random_dag(300, 2.0, 9), 2, 5);
    Grid *grid = grid_new(60, 8);
    TlView v = tl_view_default(run.t, (GridRect){0, 0, 60, 8});
    tl_render(run.t, &v, grid);
    int busy = 0;
    for (int x = 0; x < 60; x++)
        busy += grid_at(grid, x, TL_AXIS_ROWS)->ch == GRID_FULL;
    CHECK(busy > 10); /* a dense run at a coarse zoom is mostly solid */
    char *a = grid_to_text(grid, GRID_UNICODE);
    grid_clear(grid);
    tl_render(run.t, &v, grid);
    char *b = grid_to_text(grid, GRID_UNICODE);
    CHECK(strcmp(a, b) == 0);
    free(a);
    free(b);
    grid_free(grid);
    run_free(&run);
}

/* A chain of n ops of cost_us each (a valid graph, whatever the cost). */
static Graph *long_chain(int n, double cost_us)
{
    StrBuf b = {0};
    sb_printf(&b, "{\"format\": \"placeto-graph\", \"version\": 1, \"name\": \"long\", \"nodes\": [");
    for (int i = 0; i < n; i++)
        sb_printf(&b, "%s{\"name\": \"o%d\", \"op\": \"matmul\", \"cost_us\": %.17g, \"output_bytes\": [1024]}",
                  i ? ", " : "", i, cost_us);
    sb_printf(&b, "], \"edges\": [");
    for (int i = 1; i < n; i++)
        sb_printf(&b, "%s{\"src\": \"o%d\", \"dst\": \"o%d\", \"output\": 0}", i > 1 ? ", " : "", i - 1, i);
    sb_printf(&b, "]}");
    Err e = {{0}};
    Graph *g = graph_load_json_text("long.json", b.s, b.len, &e);
    free(b.s);
    return g;
}

/* 12 ops of 1e15 µs: zooming in all the way and panning across renders
 * every frame (the axis once looped forever on a tick index past 2^53). */
TEST(tl_render_extreme_makespans_terminate)
{
    static const double costs[] = {1e15, 3e12, 1e-3}; /* 1e15: the largest cost a graph may give */
    for (size_t c = 0; c < sizeof costs / sizeof *costs; c++) {
        Graph *g = long_chain(12, costs[c]);
        REQUIRE(g != NULL);
        Run run = run_of(g, 2, 3);
        Grid *grid = grid_new(100, 12);
        TlView v = tl_view_default(run.t, (GridRect){0, 0, 100, 11});
        double limit = run.r->makespan_us;
        for (int k = 0; k < 80; k++) {
            tl_render(run.t, &v, grid);
            CHECK(v.t1 > v.t0);
            tl_zoom(&v.t0, &v.t1, 0.5, v.t0 + (v.t1 - v.t0) * 0.7, limit);
        }
        for (int k = 0; k < 40; k++) {
            tl_pan(&v.t0, &v.t1, (v.t1 - v.t0) * 0.25, limit);
            tl_render(run.t, &v, grid);
        }
        grid_free(grid);
        run_free(&run);
    }
}

/* Random windows over extreme ranges, including degenerate ones: the axis
 * and lanes draw in bounded time and never write outside the grid. */
TEST(tl_render_fuzz_windows)
{
    Graph *g = long_chain(12, 1e15);
    REQUIRE(g != NULL);
    Run run = run_of(g, 2, 3);
    Rng r;
    rng_seed(&r, 7);
    Grid *grid = grid_new(60, 12);
    for (int k = 0; k < 2000; k++) {
        TlView v = tl_view_default(run.t, (GridRect){0, 0, 1 + (int)rng_below(&r, 60), 11});
        double a = pow(10, rng_uniform(&r) * 40 - 10) * (rng_below(&r, 4) == 0 ? -1 : 1);
        double span = pow(10, rng_uniform(&r) * 40 - 20);
        v.t0 = a;
        v.t1 = rng_below(&r, 8) == 0 ? a : a + span; /* sometimes an empty window */
        tl_render(run.t, &v, grid);
        double step = tl_tick_step(v.t1 - v.t0, v.dst.w, 10);
        char buf[64];
        CHECK(tl_format_tick(buf, sizeof buf, a, step) < (int)sizeof buf);
    }
    grid_free(grid);
    run_free(&run);
}
