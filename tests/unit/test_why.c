/* The "why this device" helpers (core/agent/explain.c), the race
 * (core/agent/race.c) with the simulator's observer, the line chart
 * (layouts/chart.c) and data_own_policy. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "chart.h"
#include "data.h"
#include "explain.h"
#include "place.h"
#include "place_run.h"
#include "policy_graph.h"
#include "problem.h"
#include "race.h"
#include "test.h"

/* The crown: src, six branches, concat, sink; every op its own group. */
static int load_crown(Problem *p, PolicyGraph **pg)
{
    Err e = {{0}};
    ProblemSpec s = {.graph_path = "graphs/toy/crown.json", .n_devices = 2};
    if (problem_load(p, &s, &e) != 0)
        return -1;
    *pg = policy_graph_new(p->gr, &e);
    return *pg ? 0 : -1;
}

static int group_named(const Problem *p, const char *name)
{
    for (int k = 0; k < p->gr->n_groups; k++)
        if (strcmp(p->gr->names[k], name) == 0)
            return k;
    return -1;
}

TEST(explain_relations_on_the_crown)
{
    Problem p;
    PolicyGraph *pg;
    REQUIRE(load_crown(&p, &pg) == 0);
    int v = group_named(&p, "b1.relu");
    REQUIRE(v >= 0);
    CHECK_INT(explain_relation(pg, v, v), EXPLAIN_SELF);
    CHECK_INT(explain_relation(pg, v, group_named(&p, "b1.conv")), EXPLAIN_PARENT);
    CHECK_INT(explain_relation(pg, v, group_named(&p, "src")), EXPLAIN_ANCESTOR);
    CHECK_INT(explain_relation(pg, v, group_named(&p, "b1.proj")), EXPLAIN_CHILD);
    CHECK_INT(explain_relation(pg, v, group_named(&p, "sink")), EXPLAIN_DESCENDANT);
    CHECK_INT(explain_relation(pg, v, group_named(&p, "b2.pool")), EXPLAIN_PARALLEL);
    CHECK(strcmp(explain_relation_name(EXPLAIN_PARALLEL), "parallel") == 0);
    CHECK(strcmp(explain_relation_name(EXPLAIN_ANCESTOR), "ancestor") == 0);
    policy_graph_free(pg);
    problem_free(&p);
}

TEST(explain_reach_counts_rounds_by_hand)
{
    Problem p;
    PolicyGraph *pg;
    REQUIRE(load_crown(&p, &pg) == 0);
    int n = pg->n, *round = malloc((size_t)n * sizeof *round), total;
    /* from b1.conv: src and b1.relu after 1 round, b1.proj after 2, concat 3, sink 4; 12 never */
    int v = group_named(&p, "b1.conv");
    CHECK_INT(explain_reach(pg, v, round), 4);
    CHECK_INT(round[v], 0);
    CHECK_INT(round[group_named(&p, "src")], 1);
    CHECK_INT(round[group_named(&p, "b1.relu")], 1);
    CHECK_INT(round[group_named(&p, "b1.proj")], 2);
    CHECK_INT(round[group_named(&p, "concat")], 3);
    CHECK_INT(round[group_named(&p, "sink")], 4);
    CHECK_INT(round[group_named(&p, "b6.pool")], -1);
    CHECK_INT(explain_reach_count(round, n, 1, &total), 2);
    CHECK_INT(total, 2);
    CHECK_INT(explain_reach_count(round, n, 2, &total), 1);
    CHECK_INT(total, 3);
    CHECK_INT(explain_reach_count(round, n, 4, &total), 1);
    CHECK_INT(total, 5);
    CHECK_INT(explain_reach_count(round, n, 5, &total), 0);
    CHECK_INT(total, 5);
    /* from concat: the six branch ends and sink after 1; the ops before each end (six) after 2; the
       three branches of three ops' first ops and src (through the branches of two) after 3 */
    v = group_named(&p, "concat");
    CHECK_INT(explain_reach(pg, v, round), 3);
    CHECK_INT(explain_reach_count(round, n, 1, NULL), 7);
    CHECK_INT(explain_reach_count(round, n, 2, NULL), 6);
    CHECK_INT(explain_reach_count(round, n, 3, &total), 4);
    CHECK_INT(total, 17);
    CHECK_INT(round[group_named(&p, "src")], 3);
    free(round);
    policy_graph_free(pg);
    problem_free(&p);
}

TEST(explain_uniform_and_entropy)
{
    float flat[4] = {0.25f, 0.25f, 0.25f, 0.25f};
    float near[4] = {0.24f, 0.26f, 0.25f, 0.25f};   /* within 5 % of the mean */
    float off[4] = {0.22f, 0.28f, 0.25f, 0.25f};    /* 12 % off */
    float peaked[3] = {0.98f, 0.01f, 0.01f};
    CHECK(explain_uniform(flat, 4, 0.05));
    CHECK(explain_uniform(near, 4, 0.05));
    CHECK(!explain_uniform(off, 4, 0.05));
    CHECK(!explain_uniform(peaked, 3, 0.05));
    CHECK(!explain_uniform(flat, 0, 0.05));
    CHECK(fabs(explain_entropy_ratio(flat, 4) - 1.0) < 1e-9);
    CHECK(explain_entropy_ratio(off, 4) > 0.99);
    CHECK(explain_entropy_ratio(peaked, 3) < 0.15);
    float one[2] = {1.0f, 0.0f};
    CHECK(explain_entropy_ratio(one, 2) < 1e-9);
}

TEST(explain_device_runtimes_are_full_simulations)
{
    Problem p;
    PolicyGraph *pg;
    REQUIRE(load_crown(&p, &pg) == 0);
    int n = p.gr->n_groups, no = p.g->n_nodes;
    int *gd = calloc((size_t)n, sizeof *gd), *op = malloc((size_t)no * sizeof *op);
    for (int k = 0; k < n; k += 3)
        gd[k] = 1;
    double rt[2];
    int oom[2];
    Sim *s = sim_new(p.g, p.c);
    for (int v = 0; v < n; v++) {
        explain_device_runtimes(s, p.gr, gd, v, 2, op, rt, oom);
        for (int d = 0; d < 2; d++) {
            int keep = gd[v];
            gd[v] = d;
            group_expand(p.gr, gd, op);
            gd[v] = keep;
            CHECK_MSG(rt[d] == sim_run(p.sim, op)->makespan_us, "group %d on %d: %.17g", v, d, rt[d]);
        }
    }
    sim_free(s);
    free(gd);
    free(op);
    policy_graph_free(pg);
    problem_free(&p);
}

/* The observer: counts and keeps the last makespan. */
typedef struct Seen {
    int64_t n;
    double last;
} Seen;
static void seen_fn(void *ud, double makespan_us, const SimResult *r)
{
    Seen *s = ud;
    s->n++;
    s->last = r ? r->makespan_us : makespan_us;
}

TEST(sim_observer_sees_every_simulation)
{
    Problem p;
    PolicyGraph *pg;
    REQUIRE(load_crown(&p, &pg) == 0);
    int *op = calloc((size_t)p.g->n_nodes, sizeof *op);
    Seen s = {0, 0};
    sim_observe(seen_fn, &s);
    double a = sim_run(p.sim, op)->makespan_us;
    CHECK_INT(s.n, 1);
    CHECK(s.last == a);
    op[1] = 1;
    double b = sim_makespan(p.sim, op);
    CHECK_INT(s.n, 2);
    CHECK(s.last == b);
    sim_run_from(p.sim, op);
    CHECK_INT(s.n, 3);
    sim_observe(NULL, NULL);
    sim_run(p.sim, op);
    CHECK_INT(s.n, 3);
    free(op);
    policy_graph_free(pg);
    problem_free(&p);
}

/* A race of anneal and ils with a slice (frame_s > 0: to a mark a slice
 * ahead, each call stopped after frame_s, as a terminal runs it): its
 * final rows and curves. */
static void race_once(const Problem *p, int64_t slice, double frame_s, double rt[2], double **curve, int64_t n[2])
{
    Race *r = race_new(p, 3, 150, 1);
    race_add_search(r, place_find("anneal"));
    race_add_search(r, place_find("ils"));
    int cut = 0;
    for (int64_t mark = slice; !race_done(r);) {
        int behind = race_run(r, mark, frame_s > 0 ? util_now() + frame_s : 0);
        cut += behind > 0;
        if (!behind)
            mark += slice;
    }
    CHECK(frame_s > 0 ? cut > 0 : cut == 0);
    for (int k = 0; k < 2; k++) {
        const RaceLane *l = race_lane(r, k);
        CHECK(!l->failed);
        rt[k] = l->row.runtime_us;
        n[k] = l->n;
        curve[k] = malloc((size_t)l->n * sizeof **curve);
        for (int64_t i = 0; i < l->n; i++)
            curve[k][i] = race_lane_best(l, i);
        for (int64_t i = 1; i < l->n; i++)
            CHECK(curve[k][i] <= curve[k][i - 1]);
        CHECK(l->n_steps <= l->n); /* one entry per improvement */
        for (int64_t j = 1; j < l->n_steps; j++)
            CHECK(l->step_at[j] > l->step_at[j - 1] && l->step_best[j] < l->step_best[j - 1]);
    }
    CHECK(race_max_n(r) >= 150);
    double lo, hi;
    race_range(r, &lo, &hi);
    double best = fmin(curve[0][n[0] - 1], curve[1][n[1] - 1]);
    CHECK(lo == best);
    CHECK(hi == fmax(curve[0][0], curve[1][0]));
    race_free(r);
}

TEST(race_gives_compares_rows_whatever_the_slice)
{
    Problem p;
    PolicyGraph *pg;
    REQUIRE(load_crown(&p, &pg) == 0);
    enum { RUNS = 3 };
    double rt[RUNS][2], *c[RUNS][2];
    int64_t n[RUNS][2];
    race_once(&p, 1, 0, rt[0], c[0], n[0]);
    race_once(&p, 40, 0, rt[1], c[1], n[1]);
    race_once(&p, 1000, 1e-6, rt[2], c[2], n[2]); /* cut by the time: a simulation or so a call */
    for (int k = 0; k < 2; k++) {
        PlaceRun row;
        Err e = {{0}};
        REQUIRE(place_run(&p, place_find(k ? "ils" : "anneal"), 3, 150, &row, &e) == 0);
        CHECK_INT(n[0][k], row.placements + 1); /* place_run scores the result once more */
        CHECK(c[0][k][n[0][k] - 1] == row.runtime_us); /* the crown fits in memory: score = runtime */
        for (int j = 0; j < RUNS; j++) {
            CHECK(rt[j][k] == row.runtime_us);
            CHECK_INT(n[j][k], n[0][k]);
            CHECK(memcmp(c[j][k], c[0][k], (size_t)n[0][k] * sizeof *c[0][k]) == 0);
        }
        place_run_free(&row);
        for (int j = 0; j < RUNS; j++)
            free(c[j][k]);
    }
    policy_graph_free(pg);
    problem_free(&p);
}

TEST(race_of_a_policy_and_its_control)
{
    Problem p;
    PolicyGraph *pg;
    REQUIRE(load_crown(&p, &pg) == 0);
    AgentPolicy ap;
    Err e = {{0}};
    REQUIRE_MSG(agent_policy_open("graphs/policies/general_2.json", &ap, NULL, &e) == 0, "%s", e.msg);
    Race *r = race_new(&p, 1, 60, 1);
    race_add_policy(r, &ap, 1);
    CHECK_INT(race_lanes(r), 2);
    for (int64_t mark = 7; !race_done(r); mark += 7)
        race_run(r, mark, 0);
    AgentPlaceOpts o = {0, 1, AGENT_START_DEFAULT, 60};
    PlaceRun rows[2], u;
    int n = agent_place_runs(&ap, NULL, &p, &o, rows, NULL, &e);
    REQUIRE(n >= 1);
    REQUIRE(agent_place_untrained(&ap, &p, &o, &u, &e) == 0);
    CHECK(strcmp(race_lane(r, 0)->name, rows[n - 1].method) == 0);
    CHECK(strcmp(race_lane(r, 1)->name, u.method) == 0);
    CHECK(race_lane(r, 0)->row.runtime_us == rows[n - 1].runtime_us);
    CHECK(race_lane(r, 1)->row.runtime_us == u.runtime_us);
    for (int k = 0; k < n; k++)
        place_run_free(&rows[k]);
    place_run_free(&u);
    race_free(r);
    agent_policy_close(&ap);
    policy_graph_free(pg);
    problem_free(&p);
}

TEST(race_freed_midway_returns_at_once)
{
    Problem p;
    PolicyGraph *pg;
    REQUIRE(load_crown(&p, &pg) == 0);
    Race *r = race_new(&p, 1, 500, 1);
    race_add_search(r, place_find("anneal"));
    race_run(r, 10, 0);
    CHECK(!race_done(r));
    CHECK_INT(race_lane(r, 0)->n, 10);
    race_free(r); /* the lane stays held: no wait for its 490 placements, no crash */
    policy_graph_free(pg);
    problem_free(&p);
}

/* The explorer's largest budget (2^30 placements, hours of work): a run
 * with a time comes back in about that time, and the race is freed at once,
 * again and again (each time its lanes are held, never waited for). */
TEST(race_at_the_largest_budget_answers_in_time)
{
    Problem p;
    PolicyGraph *pg;
    REQUIRE(load_crown(&p, &pg) == 0);
    double worst = 0, t0 = util_now();
    for (int k = 0; k < 20; k++) {
        Race *r = race_new(&p, 1, (int64_t)1 << 30, 1);
        race_add_search(r, place_find("anneal"));
        race_add_search(r, place_find("ils"));
        /* runs of 5 ms until each lane has simulated 3 placements: a few on
         * an idle machine; more under a sanitizer on a loaded one, where a
         * lane's start (every heuristic, Scotch's thread among them) can
         * take longer than three runs */
        for (int j = 0; j < 400 && (j < 3 || race_lane(r, 0)->n < 3 || race_lane(r, 1)->n < 3); j++) {
            double t = util_now();
            CHECK_INT(race_run(r, INT64_MAX, t + 0.005), 2);
            worst = fmax(worst, util_now() - t);
        }
        CHECK(race_lane(r, 0)->n >= 3 && race_lane(r, 1)->n >= 3);
        race_free(r);
    }
    /* bounds far above 5 ms, for a loaded machine or valgrind: the point is
     * that a run does not go on for its share of 2^30 simulations (minutes),
     * nor a free wait for its lanes (hours) */
    CHECK_MSG(worst < 5, "a run of 5 ms took %.3f s", worst);
    CHECK_MSG(util_now() - t0 < 120, "20 races of 3 runs of 5 ms and their frees took %.1f s", util_now() - t0);
    policy_graph_free(pg);
    problem_free(&p);
}

TEST(chart_maps_counts_and_values)
{
    CHECK_INT(chart_col(1, 100, 10, 0), 0);
    CHECK_INT(chart_col(100, 100, 10, 0), 9);
    CHECK_INT(chart_col(50, 100, 10, 0), 4);
    CHECK_INT(chart_col(500, 100, 10, 0), 9);
    CHECK_INT(chart_col(1, 1000, 31, 1), 0); /* logarithmic: a decade a third of the axis */
    CHECK_INT(chart_col(10, 1000, 31, 1), 10);
    CHECK_INT(chart_col(100, 1000, 31, 1), 20);
    CHECK_INT(chart_col(1000, 1000, 31, 1), 30);
    int ph, lr;
    chart_layout(18, 8, &ph, &lr); /* every series listed under a plot of half the rows */
    CHECK_INT(ph, 8);
    CHECK_INT(lr, 8);
    chart_layout(13, 8, &ph, &lr); /* else the plot keeps half, the legend scrolls */
    CHECK_INT(ph, 5);
    CHECK_INT(lr, 6);
    chart_layout(5, 8, &ph, &lr); /* no room for a plot: the legend alone */
    CHECK_INT(ph, 0);
    CHECK_INT(lr, 5);
    CHECK_INT(chart_row(10.0, 10.0, 20.0, 11), 10);
    CHECK_INT(chart_row(20.0, 10.0, 20.0, 11), 0);
    CHECK_INT(chart_row(15.0, 10.0, 20.0, 11), 5);
    CHECK_INT(chart_row(99.0, 10.0, 20.0, 11), 0);
    Grid *g = grid_new(70, 16);
    double y1[3] = {2000, 1500, 1000}, y2[2] = {1800, 1800};
    ChartSeries s[2] = {{.name = "anneal", .note = "final", .y = y1, .n = 3, .done = 1, .glyph = '*', .pen = GS_GOOD},
                        {.name = "ils", .y = y2, .n = 2, .glyph = '+', .pen = GS_WARN}};
    chart_draw(g, (GridRect){0, 0, 70, 16}, s, 2, 3, 1000, 2000, "placements", NULL, NULL);
    char *text = grid_to_text(g, GRID_ASCII);
    /* the same curves as steps (a value from its count on, as the race
     * keeps them): the same chart */
    int64_t x1[3] = {1, 2, 3}, x2[1] = {1};
    ChartSeries st[2] = {s[0], s[1]};
    st[0].x = x1;
    st[0].m = 3;
    st[1].x = x2;
    st[1].m = 1;
    Grid *g2 = grid_new(70, 16);
    chart_draw(g2, (GridRect){0, 0, 70, 16}, st, 2, 3, 1000, 2000, "placements", NULL, NULL);
    char *text2 = grid_to_text(g2, GRID_ASCII);
    CHECK_STR(text2, text);
    free(text2);
    grid_free(g2);
    CHECK(strstr(text, "* anneal") != NULL);
    CHECK(strstr(text, "+ ils") != NULL);
    CHECK(strstr(text, "2.000 ms") != NULL);
    CHECK(strstr(text, "1.000 ms") != NULL);
    CHECK(strstr(text, "placements") != NULL);
    free(text);
    /* 12 series in 16 rows: the legend lists some, says how many are cut and the keys */
    double y3[1] = {1500};
    ChartSeries many[12];
    for (int k = 0; k < 12; k++)
        many[k] = (ChartSeries){.name = "lane", .y = y3, .n = 1, .done = 1, .glyph = (uint32_t)('a' + k),
                                .pen = GRID_PEN(GS_SERIES, k)};
    ChartOpts o = {1, 2, "j/k", "lanes"};
    ChartFit fit;
    grid_fill(g, (GridRect){0, 0, 70, 16}, ' ', GS_NONE);
    chart_draw(g, (GridRect){0, 0, 70, 16}, many, 12, 1000, 1000, 2000, "placements (log)", &o, &fit);
    text = grid_to_text(g, GRID_ASCII);
    CHECK_INT(fit.legend_first, 2);
    CHECK(fit.legend_shown > 0 && fit.legend_shown < 12);
    char mark[64];
    snprintf(mark, sizeof mark, "+%d lanes below, +2 above: j/k", 12 - 2 - fit.legend_shown);
    CHECK(strstr(text, mark) != NULL);
    CHECK(strstr(text, "c lane") != NULL && strstr(text, "b lane") == NULL);
    CHECK(strstr(text, "1000") != NULL && strstr(text, "100 ") != NULL);
    free(text);
    grid_free(g);
}

TEST(data_own_policy_finds_each_agents_file)
{
    char buf[4096];
    CHECK(data_own_policy("graphs/resnet18.json", "rnn_", 2, buf, sizeof buf) != NULL);
    CHECK(strstr(buf, "rnn_resnet18_2.json") != NULL);
    CHECK(data_own_policy("graphs/resnet18.json", "", 2, buf, sizeof buf) != NULL);
    CHECK(data_own_policy("x/resnet18.json", "gdp_", 2, buf, sizeof buf) == NULL);
    CHECK(data_own_policy("graphs/inference/bert_base.json", "hsdag_", 0, buf, sizeof buf) != NULL);
    CHECK(data_bundled("policies/lsearch.json", buf, sizeof buf) != NULL);
    CHECK(data_bundled("policies/nothing.json", buf, sizeof buf) == NULL);
}
