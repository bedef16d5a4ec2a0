/* Cluster and placement files: load -> write -> load keeps every value,
 * the default cluster is the documented one, the ops and groups forms of a
 * placement agree, and bad input gets a message that names the field. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bad_case.h"
#include "cluster.h"
#include "gen.h"
#include "graph.h"
#include "placement.h"
#include "test.h"

static void tmp_path(char *buf, size_t n, const char *tag)
{
    snprintf(buf, n, "/tmp/placeto_test_files_%ld_%s", (long)getpid(), tag);
}

static int same_double(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

#define HDR "{\"format\": \"placeto-graph\", \"version\": 1,\n"

static Graph *load_text(const char *path, const char *text, Err *e)
{
    return graph_load_json_text(path, text, strlen(text), e);
}

/* ---- cluster ---- */

TEST(cluster_default_values)
{
    for (int n = 1; n <= 8; n++) {
        Cluster *c = cluster_default(n);
        CHECK_INT(c->n_devices, n);
        for (int d = 0; d < n; d++) {
            char want[32];
            snprintf(want, sizeof want, "/GPU:%d", d);
            CHECK(strcmp(c->devices[d].name, want) == 0);
            CHECK(strcmp(c->devices[d].kind, "gpu") == 0);
            CHECK_EXACT(c->devices[d].speed, 1.0);
            CHECK(c->devices[d].memory_bytes == 11811160064LL);
        }
        CHECK_EXACT(c->op_gap_us, 5.7);
        CHECK_EXACT(c->transfer_overhead_us, 25.0);
        CHECK_EXACT(c->bandwidth_bytes_per_us, 7600.0);
        CHECK(cluster_is_default(c));
        cluster_free(c);
    }
    /* the bundled 2x K80 preset is the same cluster */
    Err e = {{0}};
    Cluster *k = cluster_load("graphs/clusters/k80x2.json", &e);
    CHECK_MSG(k != NULL, "%s", e.msg);
    if (k) {
        CHECK_INT(k->n_devices, 2);
        CHECK(cluster_is_default(k));
        CHECK(strcmp(k->devices[1].name, "/GPU:1") == 0 && k->devices[1].memory_bytes == 11811160064LL);
    }
    cluster_free(k);
}

TEST(cluster_load_text_and_costs)
{
    const char *text = "{\"format\": \"placeto-cluster\", \"version\": 1, \"name\": \"mixed\",\n"
                       " \"devices\": [{\"name\": \"/CPU:0\", \"kind\": \"cpu\", \"speed\": 0.25, \"memory_bytes\": 1000},\n"
                       "             {\"name\": \"/GPU:0\", \"speed\": 2}],\n"
                       " \"op_gap_us\": 1.5, \"transfer_overhead_us\": 0, \"bandwidth_bytes_per_us\": 100}";
    Err e = {{0}};
    Cluster *c = cluster_load_text("c.json", text, strlen(text), &e);
    REQUIRE_MSG(c != NULL, "%s", e.msg);
    CHECK(strcmp(c->name, "mixed") == 0 && c->n_devices == 2);
    CHECK(strcmp(c->devices[0].kind, "cpu") == 0 && c->devices[0].speed == 0.25 && c->devices[0].memory_bytes == 1000);
    CHECK(strcmp(c->devices[1].kind, "gpu") == 0 && c->devices[1].speed == 2.0);
    CHECK(c->devices[1].memory_bytes == CLUSTER_DEFAULT_MEMORY_BYTES);
    CHECK(c->op_gap_us == 1.5 && c->transfer_overhead_us == 0 && c->bandwidth_bytes_per_us == 100);
    CHECK(!cluster_is_default(c));
    const char *gt = HDR " \"nodes\": [{\"name\": \"a\", \"cost_us\": 100, \"cost_us_by_kind\": {\"cpu\": 7}},\n"
                         "  {\"name\": \"b\", \"cost_us\": 100}]}";
    Graph *g = load_text("g.json", gt, &e);
    CHECK_MSG(g != NULL, "%s", e.msg);
    if (g) {
        CHECK_EXACT(cluster_op_cost(c, g, 0, 0), 7.0);   /* by kind */
        CHECK_EXACT(cluster_op_cost(c, g, 0, 1), 50.0);  /* 100 / 2 */
        CHECK_EXACT(cluster_op_cost(c, g, 1, 0), 400.0); /* 100 / 0.25 */
        CHECK_EXACT(cluster_min_cost(c, g, 0), 7.0);
        CHECK_EXACT(cluster_min_cost(c, g, 1), 50.0);
    }
    /* write -> load is the same cluster */
    char p[256];
    tmp_path(p, sizeof p, "cluster.json");
    CHECK(cluster_write(c, p, &e) == 0);
    Cluster *d = cluster_load(p, &e);
    CHECK_MSG(d != NULL, "%s", e.msg);
    if (d) {
        CHECK(strcmp(d->name, c->name) == 0 && d->n_devices == c->n_devices);
        for (int k = 0; k < c->n_devices && k < d->n_devices; k++)
            CHECK(strcmp(d->devices[k].name, c->devices[k].name) == 0 &&
                  strcmp(d->devices[k].kind, c->devices[k].kind) == 0 &&
                  same_double(d->devices[k].speed, c->devices[k].speed) &&
                  d->devices[k].memory_bytes == c->devices[k].memory_bytes);
        CHECK(d->op_gap_us == c->op_gap_us && d->transfer_overhead_us == c->transfer_overhead_us &&
              d->bandwidth_bytes_per_us == c->bandwidth_bytes_per_us);
    }
    remove(p);
    cluster_free(d);
    graph_free(g);
    cluster_free(c);
}

#define CHDR "{\"format\": \"placeto-cluster\", \"version\": 1,\n"

TEST(cluster_errors)
{
    static const BadCase cases[] = {
        {CHDR " \"name\": \"x\"}", "\"name\"", 0, "missing \"devices\"", NULL},
        {CHDR " \"devices\": []}", "[]", 1, "devices: expected a non-empty array of devices", NULL},
        {CHDR " \"devices\": [{\"name\": \"d\"}, {\"name\": \"d\"}]}", "\"d\"", 2,
         "devices[1].name: duplicate device name \"d\"", NULL},
        {CHDR " \"devices\": [{\"name\": \"d\", \"speed\": 0}]}", "0}", 1, "devices[0].speed: expected a number >= 1e-06",
         NULL},
        {CHDR " \"devices\": [{\"name\": \"d\", \"memory_bytes\": -5}]}", "-5", 1,
         "devices[0].memory_bytes: expected an integer from 0 to", NULL},
        {CHDR " \"devices\": [{\"kind\": \"gpu\"}]}", "{\"kind\"", 1, "devices[0]: missing \"name\"", NULL},
        {CHDR " \"devices\": [{\"name\": \"d\"}], \"bandwidth_bytes_per_us\": 0}", "0}", 1,
         "bandwidth_bytes_per_us: expected a number >= 1e-09", NULL},
        {CHDR " \"devices\": [{\"name\": \"d\"}], \"op_gap_us\": \"x\"}", "\"x\"", 1, "op_gap_us: expected a number",
         NULL},
        {"{\"format\": \"placeto-graph\", \"version\": 1}", "\"placeto-graph\"", 1, "format: expected \"placeto-cluster\"",
         NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        Err e = {{0}};
        const BadCase *c = &cases[k];
        Cluster *cl = cluster_load_text("c.json", c->text, strlen(c->text), &e);
        CHECK_MSG(cl == NULL, "case %zu loaded", k);
        cluster_free(cl);
        check_bad_case_error(c, k, "c.json", e.msg);
    }
}

/* ---- placement ---- */

static Graph *diamond(void)
{
    Err e = {{0}};
    Graph *g = graph_load("graphs/toy/diamond.json", &e);
    CHECK_MSG(g != NULL, "%s", e.msg);
    return g;
}

#define PHDR "{\"format\": \"placeto-placement\", \"version\": 1,\n"

TEST(placement_ops_form)
{
    Graph *g = diamond();
    if (!g)
        return;
    const char *t1 = PHDR " \"devices\": 2, \"ops\": {\"sink\": 0, \"a\": 0, \"b\": 1, \"src\": 1}}";
    Err e = {{0}};
    Placement *p = placement_load_text("p.json", t1, strlen(t1), g, &e);
    CHECK_MSG(p != NULL, "%s", e.msg);
    if (p) {
        CHECK(p->n_ops == 4 && p->n_devices == 2 && p->device_names == NULL);
        CHECK(p->op_device[0] == 1 && p->op_device[1] == 0 && p->op_device[2] == 1 && p->op_device[3] == 0);
        Cluster *c2 = cluster_default(2), *c3 = cluster_default(3);
        CHECK(placement_check_cluster(p, c2, "p.json", &e) == 0);
        CHECK(placement_check_cluster(p, c3, "p.json", &e) != 0);
        CHECK_STR_CONTAINS(e.msg, "p.json: devices:");
        /* write -> load */
        char path[256];
        tmp_path(path, sizeof path, "placement.json");
        CHECK(placement_write(p, g, c2, path, &e) == 0);
        Placement *q = placement_load(path, g, &e);
        CHECK_MSG(q != NULL, "%s", e.msg);
        if (q) {
            CHECK(q->n_devices == 2 && q->device_names && strcmp(q->device_names[1], "/GPU:1") == 0);
            CHECK(memcmp(q->op_device, p->op_device, 4 * sizeof(int)) == 0);
            CHECK(placement_check_cluster(q, c2, path, &e) == 0);
        }
        placement_free(q);
        remove(path);
        cluster_free(c2);
        cluster_free(c3);
    }
    placement_free(p);

    /* device names must match the cluster's */
    const char *t2 = PHDR " \"devices\": [\"/GPU:0\", \"/GPU:7\"], \"ops\": {\"sink\": 0, \"a\": 0, \"b\": 1, \"src\": 1}}";
    p = placement_load_text("p.json", t2, strlen(t2), g, &e);
    CHECK_MSG(p != NULL, "%s", e.msg);
    if (p) {
        Cluster *c2 = cluster_default(2);
        CHECK(placement_check_cluster(p, c2, "p.json", &e) != 0);
        CHECK_STR_CONTAINS(e.msg, "devices[1]");
        CHECK_STR_CONTAINS(e.msg, "/GPU:7");
        cluster_free(c2);
    }
    placement_free(p);
    graph_free(g);
}

TEST(placement_groups_form)
{
    Graph *g = gen_random_dag(40, 1.5, 3);
    Err e = {{0}};
    Grouping *gr = group_build(g, 6, &e);
    CHECK_MSG(gr != NULL, "%s", e.msg);
    if (!gr) {
        graph_free(g);
        return;
    }
    StrBuf b = {0};
    sb_puts(&b, PHDR " \"devices\": 3, \"grouping\": {\"groups\": 6},\n \"groups\": {");
    for (int k = gr->n_groups - 1; k >= 0; k--) /* any key order */
        sb_printf(&b, "%s\"%s\": %d", k == gr->n_groups - 1 ? "" : ", ", gr->names[k], k % 3);
    sb_puts(&b, "}}");
    Placement *p = placement_load_text("p.json", b.s, b.len, g, &e);
    CHECK_MSG(p != NULL, "%s", e.msg);
    if (p) {
        CHECK(p->n_devices == 3 && p->n_ops == 40);
        for (int i = 0; i < g->n_nodes; i++)
            CHECK_MSG(p->op_device[i] == gr->op_group[i] % 3, "op %d", i);
    }
    placement_free(p);
    sb_free(&b);

    /* a missing group, an unknown group, no "grouping" */
    sb_puts(&b, PHDR " \"devices\": 3, \"grouping\": {\"groups\": 6},\n \"groups\": {");
    for (int k = 1; k < gr->n_groups; k++)
        sb_printf(&b, "%s\"%s\": 0", k == 1 ? "" : ", ", gr->names[k]);
    sb_puts(&b, "}}");
    p = placement_load_text("p.json", b.s, b.len, g, &e);
    CHECK(p == NULL);
    placement_free(p);
    char want[256];
    snprintf(want, sizeof want, "groups: missing group \"%s\"", gr->names[0]);
    CHECK_STR_CONTAINS(e.msg, want);
    sb_free(&b);

    const char *t3 = PHDR " \"devices\": 3, \"grouping\": {\"groups\": 6}, \"groups\": {\"nope\": 0}}";
    p = placement_load_text("p.json", t3, strlen(t3), g, &e);
    CHECK(p == NULL);
    placement_free(p);
    CHECK_STR_CONTAINS(e.msg, "groups.nope: unknown group \"nope\"");
    const char *t4 = PHDR " \"devices\": 3, \"groups\": {\"op0\": 0}}";
    p = placement_load_text("p.json", t4, strlen(t4), g, &e);
    CHECK(p == NULL);
    placement_free(p);
    CHECK_STR_CONTAINS(e.msg, "\"grouping\"");
    group_free(gr);
    graph_free(g);
}

TEST(placement_errors)
{
    Graph *g = diamond();
    if (!g)
        return;
    static const BadCase cases[] = {
        {PHDR " \"devices\": 2, \"ops\": {\"src\": 0, \"a\": 0, \"b\": 1, \"sink\": 0, \"zz\": 1}}", "1}}", 1,
         "ops.zz: unknown op \"zz\"", NULL},
        {PHDR " \"devices\": 2, \"ops\": {\"src\": 0, \"a\": 0, \"b\": 1}}", "{\"src\"", 1,
         "ops: missing op \"sink\"", NULL},
        {PHDR " \"devices\": 2, \"ops\": {\"src\": 0, \"a\": 2, \"b\": 1, \"sink\": 0}}", "2,", 2,
         "ops.a: expected an integer from 0 to 1, got 2", NULL},
        {PHDR " \"devices\": 2, \"ops\": {\"src\": 0, \"a\": -1, \"b\": 1, \"sink\": 0}}", "-1", 1,
         "ops.a: expected an integer from 0 to 1", NULL},
        {PHDR " \"devices\": 0, \"ops\": {}}", "0,", 1, "devices: expected an integer from 1 to", NULL},
        {PHDR " \"ops\": {}}", "\"ops\"", 0, "missing \"devices\"", NULL},
        {PHDR " \"devices\": 2, \"ops\": {\"src\": 0}, \"groups\": {}}", "\"ops\"", 0, "expected either", NULL},
        {PHDR " \"devices\": 2}", "2}", 0, "missing \"ops\"", NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        Err e = {{0}};
        const BadCase *c = &cases[k];
        Placement *p = placement_load_text("p.json", c->text, strlen(c->text), g, &e);
        CHECK_MSG(p == NULL, "case %zu loaded", k);
        placement_free(p);
        check_bad_case_error(c, k, "p.json", e.msg);
    }
    graph_free(g);
}
