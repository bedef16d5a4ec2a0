/* Unit tests of the problem bundle (problem.h), the method runner (place_run.h),
 * the Placeto rows (placeto_place.h), seeding training from a method or
 * the best heuristic (placeto_train.h) and the JSON writer (jwrite.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jwrite.h"
#include "place.h"
#include "placeto_io.h"
#include "placeto_place.h"
#include "problem.h"
#include "place_run.h"
#include "agent.h"
#include "test.h"
#include "testutil.h"
#include "placeto_train.h"

TEST(problem_load_bundles_graph_cluster_groups_and_sim)
{
    ProblemSpec s = {.graph_path = "graphs/resnet18.json", .n_devices = 3, .groups = 20};
    Problem p;
    Err e = {{0}};
    CHECK_MSG(problem_load(&p, &s, &e) == 0, "%s", e.msg);
    if (!p.sim) {
        problem_free(&p);
        return;
    }
    CHECK_INT(p.c->n_devices, 3);
    CHECK(p.own_cluster);
    CHECK(p.gr && p.gr->n_ops == p.g->n_nodes);
    CHECK(p.pl == NULL);
    problem_free(&p);
    CHECK(p.g == NULL && p.sim == NULL);
}

TEST(problem_load_options_and_errors)
{
    Err e = {{0}};
    Problem p;
    /* no grouping, no simulator, a borrowed cluster */
    Cluster *c = cluster_default(2);
    ProblemSpec s = {.graph_path = "graphs/toy/diamond.json", .cluster = c, .groups = -1, .no_sim = 1};
    CHECK_MSG(problem_load(&p, &s, &e) == 0, "%s", e.msg);
    CHECK(p.gr == NULL && p.sim == NULL && p.c == c && !p.own_cluster);
    problem_free(&p); /* must not free c */
    CHECK_INT(c->n_devices, 2);
    cluster_free(c);
    /* a missing graph names the file */
    ProblemSpec bad = {.graph_path = "tests/no-such-graph.json"};
    CHECK(problem_load(&p, &bad, &e) == -1);
    CHECK_MSG(strstr(e.msg, "tests/no-such-graph.json") != NULL, "%s", e.msg);
    problem_free(&p);
}

TEST(problem_default_devices_follow_the_placement)
{
    TmpDir t;
    REQUIRE(tmp_open(&t, "problem"));
    char path[256];
    tmp_file(path, sizeof path, &t, "p.json");
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL);
    fputs("{\"format\": \"placeto-placement\", \"version\": 1, \"devices\": 3, \"ops\": "
          "{\"src\": 0, \"a\": 1, \"b\": 2, \"sink\": 0}}\n", f);
    fclose(f);
    Err e = {{0}};
    Problem p;
    ProblemSpec s = {.graph_path = "graphs/toy/diamond.json", .placement_path = path, .groups = -1};
    CHECK_MSG(problem_load(&p, &s, &e) == 0, "%s", e.msg);
    if (p.pl) {
        CHECK_INT(p.c->n_devices, 3);
        CHECK_INT(p.pl->op_device[2], 2);
    }
    problem_free(&p);
    s.n_devices = 2; /* the placement is for 3 */
    CHECK(problem_load(&p, &s, &e) == -1);
    CHECK_MSG(strstr(e.msg, "devices") != NULL && strstr(e.msg, "3") != NULL, "%s", e.msg);
    problem_free(&p);
    tmp_close(&t);
}

TEST(place_run_times_checks_and_simulates)
{
    ProblemSpec s = {.graph_path = "graphs/inception_v3.json", .n_devices = 2};
    Problem p;
    Err e = {{0}};
    REQUIRE(problem_load(&p, &s, &e) == 0);
    int n;
    const PlaceMethod *m = place_methods(&n);
    for (int k = 0; k < n; k++) {
        PlaceRun r;
        CHECK_MSG(place_run(&p, &m[k], 3, 500, &r, &e) == 0, "%s: %s", m[k].name, e.msg);
        CHECK(strcmp(r.method, m[k].name) == 0);
        CHECK(r.seconds >= 0);
        /* the same numbers as simulating the placement directly */
        const SimResult *sr = sim_run(p.sim, r.op_device);
        CHECK_EXACT(r.runtime_us, sr->makespan_us);
        CHECK_INT(r.oom, sr->any_oom);
        for (int d = 0; d < p.c->n_devices; d++)
            CHECK_INT(r.peak_memory_bytes[d], sr->peak_memory_bytes[d]);
        /* group_device is consistent with op_device */
        for (int i = 0; i < p.g->n_nodes; i++)
            CHECK(r.op_device[i] == r.group_device[p.gr->op_group[i]]);
        /* place_run_groups gives the same row back from the groups */
        PlaceRun back;
        place_run_groups(&p, "again", r.group_device, 1.5, &back);
        CHECK_EXACT(back.runtime_us, r.runtime_us);
        CHECK_EXACT(back.seconds, 1.5);
        CHECK(memcmp(back.op_device, r.op_device, (size_t)p.g->n_nodes * sizeof *r.op_device) == 0);
        place_run_free(&back);
        place_run_free(&r);
        CHECK(r.op_device == NULL);
    }
    problem_free(&p);
}

static int place_out_of_range(const PlaceCtx *ctx, int *op_device, Err *e)
{
    (void)e;
    for (int i = 0; i < ctx->g->n_nodes; i++)
        op_device[i] = i == 1 ? ctx->c->n_devices : 0;
    return 0;
}

static int place_failing(const PlaceCtx *ctx, int *op_device, Err *e)
{
    (void)ctx;
    (void)op_device;
    return err_set(e, "the library said no");
}

TEST(place_run_refuses_bad_methods)
{
    ProblemSpec s = {.graph_path = "graphs/toy/diamond.json", .n_devices = 2};
    Problem p;
    Err e = {{0}};
    REQUIRE(problem_load(&p, &s, &e) == 0);
    PlaceRun r;
    PlaceMethod oor = {"oor", "out of range", place_out_of_range}, fail = {"failing", "fails", place_failing};
    CHECK(place_run(&p, &oor, 0, 0, &r, &e) == -1);
    CHECK_MSG(strstr(e.msg, "oor: placed op") && strstr(e.msg, "on device 2 of 2"), "%s", e.msg);
    CHECK(r.op_device == NULL);
    CHECK(place_run(&p, &fail, 0, 0, &r, &e) == -1);
    CHECK_MSG(strcmp(e.msg, "failing: the library said no") == 0, "%s", e.msg);
    problem_free(&p);
}

TEST(place_run_sort_by_runtime_then_name)
{
    PlaceRun rows[4] = {{.method = "b", .runtime_us = 2}, {.method = "a", .runtime_us = 2},
                        {.method = "c", .runtime_us = 1}, {.method = "d", .runtime_us = INFINITY}};
    place_run_sort(rows, 4);
    CHECK(strcmp(rows[0].method, "c") == 0 && strcmp(rows[1].method, "a") == 0 &&
          strcmp(rows[2].method, "b") == 0 && strcmp(rows[3].method, "d") == 0);
}

TEST(placeto_place_runs_gives_trained_and_zero_shot_rows)
{
    ProblemSpec s = {.graph_path = "graphs/resnet18.json", .n_devices = 2};
    Problem p;
    Err e = {{0}};
    REQUIRE(problem_load(&p, &s, &e) == 0);
    PlaceRun rows[2];
    int n = agent_place_file("graphs/policies/resnet18_2.json", &p, &(AgentPlaceOpts){0, 0, AGENT_START_DEFAULT, 0}, rows, NULL, &e);
    CHECK_MSG(n >= 1, "%s", e.msg);
    if (n >= 1) {
        CHECK(strcmp(rows[n - 1].method, "placeto") == 0);
        CHECK(isfinite(rows[n - 1].runtime_us) && rows[n - 1].runtime_us > 0);
    }
    if (n == 2) { /* trained on this graph: the best training found, at least as good */
        CHECK(strcmp(rows[0].method, "placeto-trained") == 0);
        CHECK(isnan(rows[0].seconds));
    }
    for (int k = 0; k < n; k++)
        place_run_free(&rows[k]);
    /* a policy for 2 devices on 3 */
    Problem p3;
    ProblemSpec s3 = {.graph_path = "graphs/resnet18.json", .n_devices = 3};
    REQUIRE(problem_load(&p3, &s3, &e) == 0);
    CHECK(agent_place_file("graphs/policies/resnet18_2.json", &p3, &(AgentPlaceOpts){0, 0, AGENT_START_DEFAULT, 0}, rows, NULL, &e) == -1);
    CHECK_MSG(strstr(e.msg, "resnet18_2.json") && strstr(e.msg, "2 devices"), "%s", e.msg);
    problem_free(&p3);
    problem_free(&p);
}

/* Seeds a fresh training state on crown with n_devices devices from method
 * m (NULL: the best heuristic) and checks the best it records against
 * want(p, gd) (the placement per group and its runtime the seeding should
 * have taken). */
static void check_seed(int n_devices, const PlaceMethod *m,
                       double (*want)(const Problem *p, const PlaceMethod *m, int *gd))
{
    Cluster *c = cluster_default(n_devices);
    ProblemSpec s = {.graph_path = "graphs/toy/crown.json", .cluster = c};
    Problem p;
    Err e = {{0}};
    REQUIRE(problem_load(&p, &s, &e) == 0);
    PlacetoTrainConfig cfg;
    placeto_train_config_default(&cfg);
    TrainState ts;
    train_state_init(&ts, cfg.lr, cfg.entropy, 1);
    CHECK_MSG(placeto_train_seed_from_method(&ts, m, &p, 1, &cfg, &e) == 0, "%s", e.msg);
    const TrainBest *b = train_best_find(&ts, p.g, p.gr->n_groups);
    int *gd = XMALLOC(int, p.gr->n_groups);
    double runtime = want(&p, m, gd);
    CHECK(b && memcmp(b->group_device, gd, (size_t)p.gr->n_groups * sizeof *gd) == 0);
    CHECK_EXACT(b ? b->runtime_us : 0, runtime);
    CHECK(train_best_find(&ts, p.g, p.gr->n_groups + 1) == NULL);
    free(gd);
    train_state_done(&ts);
    problem_free(&p);
    cluster_free(c);
}

static double method_placement(const Problem *p, const PlaceMethod *m, int *gd)
{
    PlaceRun r;
    Err e = {{0}};
    if (place_run(p, m, 1, 0, &r, &e) != 0) /* seed 1: placeto_train_config_default's */
        return -1;
    memcpy(gd, r.group_device, (size_t)p->gr->n_groups * sizeof *gd);
    double t = r.runtime_us;
    place_run_free(&r);
    return t;
}

static double best_heuristic(const Problem *p, const PlaceMethod *m, int *gd)
{
    (void)m;
    PlaceCtx ctx = {.g = p->g, .gr = p->gr, .c = p->c, .seed = 1};
    double score;
    const char *name;
    place_best_heuristic(&ctx, gd, &score, &name);
    return score; /* no device runs out of memory on crown: score = runtime */
}

TEST(train_seed_from_method_sets_the_best)
{
    const PlaceMethod *m = place_find("heft");
    REQUIRE(m != NULL);
    check_seed(2, m, method_placement);
}

/* --init heuristic (no method): the best heuristic's placement. */
TEST(train_seed_from_the_best_heuristic)
{
    check_seed(3, NULL, best_heuristic);
}

/* Writes with jwrite into a memory stream and returns the text. */
static char *jw_text(void (*fill)(JWriter *w))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    JWriter w;
    jw_init(&w, f);
    fill(&w);
    fclose(f);
    return buf;
}

static void fill_escapes(JWriter *w)
{
    jw_object(w);
    jw_key(w, "name\"q");
    jw_string(w, "a \"quoted\" \\ name\n\t\x01");
    jw_key(w, "list");
    jw_array(w);
    jw_int(w, -3);
    jw_number(w, 0.1);
    jw_number(w, NAN);
    jw_number(w, INFINITY);
    jw_bool(w, 1);
    jw_null(w);
    jw_end(w);
    jw_key(w, "empty");
    jw_object(w);
    jw_end(w);
    jw_finish(w);
}

static void fill_breaks(JWriter *w)
{
    jw_object(w);
    jw_key(w, "rows");
    jw_array(w);
    for (int k = 0; k < 2; k++) {
        jw_break(w);
        jw_object(w);
        jw_key(w, "k");
        jw_int(w, k);
        jw_end(w);
    }
    jw_end(w);
    jw_finish(w);
}

static void fill_foreign(JWriter *w)
{
    jw_object(w);
    jw_key(w, "a");
    jw_int(w, 1);
    jw_key(w, "raw");
    fputs("{\"x\": [2]}", jw_value_stream(w));
    jw_key(w, "b");
    jw_bool(w, 0);
    jw_finish(w);
}

TEST(jwrite_escapes_and_separates)
{
    char *t = jw_text(fill_escapes);
    CHECK_MSG(strcmp(t, "{\"name\\\"q\": \"a \\\"quoted\\\" \\\\ name\\n\\t\\u0001\", "
                        "\"list\": [-3, 0.1, null, 1e999, true, null], \"empty\": {}}\n") == 0,
              "%s", t);
    free(t);
    t = jw_text(fill_breaks);
    CHECK_MSG(strcmp(t, "{\"rows\": [\n  {\"k\": 0},\n  {\"k\": 1}]}\n") == 0, "%s", t);
    free(t);
    t = jw_text(fill_foreign); /* a value another writer prints */
    CHECK_MSG(strcmp(t, "{\"a\": 1, \"raw\": {\"x\": [2]}, \"b\": false}\n") == 0, "%s", t);
    free(t);
}
