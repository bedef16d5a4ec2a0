/* Graph files: load -> write -> load is the identity, writing is
 * deterministic, the format's rules (duplicate edges, output
 * indices, default names) hold, and bad input gets a message that names the
 * field and its position. */
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "gen.h"
#include "graph.h"
#include "group.h"
#include "bad_case.h"
#include "test.h"

/* ---- helpers ---- */

static void tmp_path(char *buf, size_t n, const char *tag)
{
    snprintf(buf, n, "/tmp/placeto_test_graph_%ld_%s", (long)getpid(), tag);
}

static int same_str(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

static int same_double(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Compares two graphs field by field; reports the first difference. */
static int same_graph(const Graph *a, const Graph *b, const char *what)
{
    char why[512] = "";
    if (!same_str(a->name, b->name) || !same_str(a->source, b->source))
        snprintf(why, sizeof why, "name or source differs");
    else if (a->n_nodes != b->n_nodes || a->n_edges != b->n_edges)
        snprintf(why, sizeof why, "%d nodes %d edges vs %d nodes %d edges", a->n_nodes, a->n_edges,
                 b->n_nodes, b->n_edges);
    for (int i = 0; !why[0] && i < a->n_nodes; i++) {
        const GraphNode *x = &a->nodes[i], *y = &b->nodes[i];
        int same = same_str(x->name, y->name) && same_str(x->op, y->op) && same_double(x->cost_us, y->cost_us) &&
                   x->n_kind_costs == y->n_kind_costs && x->n_outputs == y->n_outputs &&
                   x->output_scalar == y->output_scalar && same_str(x->colocate, y->colocate) &&
                   same_str(x->group, y->group) && same_str(x->layer, y->layer) && x->n_children == y->n_children && x->n_parents == y->n_parents;
        for (int k = 0; same && k < x->n_kind_costs; k++)
            same = same_str(x->kind_costs[k].kind, y->kind_costs[k].kind) &&
                   same_double(x->kind_costs[k].cost_us, y->kind_costs[k].cost_us);
        for (int k = 0; same && k < x->n_outputs; k++)
            same = x->output_bytes[k] == y->output_bytes[k];
        for (int k = 0; same && k < x->n_children; k++)
            same = x->children[k] == y->children[k] && x->child_output[k] == y->child_output[k];
        for (int k = 0; same && k < x->n_parents; k++)
            same = x->parents[k] == y->parents[k];
        if (!same)
            snprintf(why, sizeof why, "node %d (\"%s\") differs", i, x->name);
    }
    for (int k = 0; !why[0] && k < a->n_edges; k++)
        if (a->edges[k].src != b->edges[k].src || a->edges[k].dst != b->edges[k].dst ||
            a->edges[k].output != b->edges[k].output)
            snprintf(why, sizeof why, "edge %d differs", k);
    for (int i = 0; !why[0] && i < a->n_nodes; i++)
        if (a->topo[i] != b->topo[i])
            snprintf(why, sizeof why, "topological order differs at %d", i);
    CHECK_MSG(!why[0], "%s: %s", what, why);
    return !why[0];
}

static int same_file_bytes(const char *p1, const char *p2)
{
    Err e = {{0}};
    size_t n1 = 0, n2 = 0;
    char *a = util_read_file(p1, &n1, &e), *b = util_read_file(p2, &n2, &e);
    int same = a && b && n1 == n2 && memcmp(a, b, n1) == 0;
    free(a);
    free(b);
    return same;
}

/* load -> write -> load gives the same model; writing twice (and writing the
 * reloaded graph) gives the same bytes. */
static void check_roundtrip(const Graph *g, const char *what)
{
    char p1[256], p2[256], p3[256];
    tmp_path(p1, sizeof p1, "a.json");
    tmp_path(p2, sizeof p2, "b.json");
    tmp_path(p3, sizeof p3, "c.json");
    Err e = {{0}};
    CHECK_MSG(graph_write_json(g, p1, &e) == 0, "%s: %s", what, e.msg);
    CHECK_MSG(graph_write_json(g, p2, &e) == 0, "%s: %s", what, e.msg);
    CHECK_MSG(same_file_bytes(p1, p2), "%s: two writes differ", what);
    Graph *h = graph_load(p1, &e);
    CHECK_MSG(h != NULL, "%s: reload: %s", what, e.msg);
    if (h) {
        same_graph(g, h, what);
        CHECK_MSG(graph_write_json(h, p3, &e) == 0, "%s: %s", what, e.msg);
        CHECK_MSG(same_file_bytes(p1, p3), "%s: write(load(write(g))) != write(g)", what);
        CHECK(strcmp(h->path, p1) == 0);
    }
    graph_free(h);
    remove(p1);
    remove(p2);
    remove(p3);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The .json files of a directory, sorted; returns the count. */
static int list_json(const char *dir, char **out, int max)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) && n < max) {
        size_t len = strlen(ent->d_name);
        if (len > 5 && strcmp(ent->d_name + len - 5, ".json") == 0) {
            size_t m = strlen(dir) + len + 2;
            out[n] = xmalloc(m);
            snprintf(out[n++], m, "%s/%s", dir, ent->d_name);
        }
    }
    closedir(d);
    qsort(out, (size_t)n, sizeof *out, cmp_str);
    return n;
}

static Graph *load_text(const char *path, const char *text, Err *e)
{
    return graph_load_json_text(path, text, strlen(text), e);
}

/* ---- graph JSON ---- */

TEST(graph_roundtrip_bundled_graphs)
{
    char *files[64];
    int n = list_json("graphs", files, 32);
    n += list_json("graphs/toy", files + n, 32);
    CHECK(n >= 4); /* resnet18 and three toys */
    int saw_resnet = 0;
    for (int k = 0; k < n; k++) {
        Err e = {{0}};
        Graph *g = graph_load(files[k], &e);
        CHECK_MSG(g != NULL, "%s: %s", files[k], e.msg);
        if (g) {
            CHECK(g->n_nodes > 0);
            CHECK(strcmp(g->path, files[k]) == 0);
            saw_resnet |= strstr(files[k], "resnet18") != NULL && g->n_nodes == 387;
            check_roundtrip(g, files[k]);
        }
        graph_free(g);
        free(files[k]);
    }
    CHECK(saw_resnet);
}

/* The one-pass reader and the tree reader on one text: the same graph (and
 * checksum), or both refuse it with the same message. Returns 1 when they
 * agree; *ok tells whether the text was a graph. */
static int readers_agree(const char *what, const char *text, size_t len, int *ok)
{
    Err e1 = {{0}}, e2 = {{0}};
    Graph *a = graph_load_json_text("m.json", text, len, &e1);
    Graph *b = graph_load_json_tree_text("m.json", text, len, &e2);
    int agree;
    if (!a || !b) {
        agree = !a && !b && strcmp(e1.msg, e2.msg) == 0;
        CHECK_MSG(agree, "%s: one-pass %s (%s), tree %s (%s)", what, a ? "took it" : "refused it", e1.msg,
                  b ? "took it" : "refused it", e2.msg);
    } else {
        agree = same_graph(a, b, what) && a->checksum == b->checksum;
        CHECK_MSG(a->checksum == b->checksum, "%s: checksums differ", what);
    }
    *ok = a != NULL;
    graph_free(a);
    graph_free(b);
    return agree;
}

TEST(graph_json_one_pass_reader_matches_tree_reader)
{
    /* every field of the format, several kinds of value, UTF-8 and another
     * member; the mutations add escapes, duplicates and every kind of error */
    const char *base =
        "{\"format\": \"placeto-graph\", \"version\": 1, \"name\": \"m\", \"source\": \"s \\\"q\\\" \\u00e9\", \"nodes\": [\n"
        " {\"name\": \"a\", \"op\": \"in\", \"cost_us\": 1.5, \"output_bytes\": 7},\n"
        " {\"name\": \"b\", \"cost_us\": 20, \"cost_us_by_kind\": {\"cpu\": 9, \"gpu\": 0.5},\n"
        "  \"output_bytes\": [1, 2], \"colocate\": \"k\", \"group\": \"G\", \"layer\": \"L\"},\n"
        " {\"name\": \"c\", \"output_bytes\": []}, {\"name\": \"d\u00e9\"}],\n"
        " \"edges\": [{\"src\": \"a\", \"dst\": \"b\"}, {\"src\": \"b\", \"dst\": \"c\", \"output\": 1},\n"
        "  {\"src\": \"a\", \"dst\": \"d\u00e9\", \"output\": 0}], \"note\": null}\n";
    size_t n = strlen(base);
    int ok = 0, taken = 0, refused = 0, disagree = 0;
    disagree += !readers_agree("the base text", base, n, &ok);
    CHECK(ok);
    /* every byte replaced by each of a few characters, and every byte deleted */
    static const char subst[] = "\"0-1e.{}[],:x\\ n\t\x01\x7f\xc3\xff";
    char *t = malloc(n + 1);
    REQUIRE(t != NULL);
    for (size_t i = 0; i < n && disagree < 5; i++) {
        for (size_t c = 0; c <= sizeof subst - 1 && disagree < 5; c++) {
            size_t len = n;
            memcpy(t, base, n + 1);
            if (c < sizeof subst - 1)
                t[i] = subst[c];
            else {
                memmove(t + i, t + i + 1, n - i);
                len = n - 1;
            }
            char what[64];
            snprintf(what, sizeof what, "byte %zu -> %s", i, c < sizeof subst - 1 ? "another" : "deleted");
            disagree += !readers_agree(what, t, len, &ok);
            taken += ok;
            refused += !ok;
        }
    }
    free(t);
    CHECK(taken > 100 && refused > 1000); /* both kinds were tried */
    /* the bundled graphs and generated ones, as written */
    char *files[64];
    int nf = list_json("graphs", files, 64);
    for (int k = 0; k < nf; k++) {
        Err e = {{0}};
        size_t len = 0;
        char *text = util_read_file(files[k], &len, &e);
        if (text)
            readers_agree(files[k], text, len, &ok);
        free(text);
        free(files[k]);
    }
    /* many long kind names: the reader's string buffer grows while it keeps them */
    StrBuf kb = {0};
    sb_puts(&kb, "{\"format\": \"placeto-graph\", \"version\": 1, \"nodes\": [{\"name\": \"a\", "
                 "\"cost_us_by_kind\": {");
    for (int k = 0; k < 40; k++)
        sb_printf(&kb, "%s\"kind_%d_%0*d\": %d", k ? ", " : "", k, 40 + k, 0, k);
    sb_puts(&kb, "}}]}");
    readers_agree("40 long kind names", kb.s, kb.len, &ok);
    CHECK(ok);
    sb_free(&kb);
    Graph *g = gen_random_dag(3000, 2.0, 7);
    char *buf = NULL;
    size_t blen = 0;
    FILE *f = open_memstream(&buf, &blen);
    REQUIRE(f != NULL);
    graph_print_json(g, f);
    fclose(f);
    readers_agree(g->name, buf, blen, &ok);
    CHECK(ok);
    free(buf);
    graph_free(g);
}

TEST(graph_roundtrip_generated_graphs)
{
    /* full-precision doubles, two outputs, control edges past the outputs */
    for (int s = 1; s <= 3; s++) {
        Graph *g = gen_random_dag(400 * s, 1.0 + s, (uint64_t)s);
        check_roundtrip(g, g->name);
        graph_free(g);
    }
    Graph *t = gen_layered_training_graph(300, 5);
    check_roundtrip(t, t->name);
    graph_free(t);
}

TEST(graph_roundtrip_all_fields)
{
    const char *text =
        "{\"format\": \"placeto-graph\", \"version\": 1, \"name\": \"odd \\\"names\\\"\", \"source\": \"line\\nbreak\\t\\u00fc\",\n"
        " \"nodes\": [\n"
        "  {\"name\": \"in/put:0\", \"op\": \"input\", \"output_bytes\": 7},\n"
        "  {\"name\": \"caf\\u00e9 \\\\ x\", \"cost_us\": 0.1, \"cost_us_by_kind\": {\"cpu\": 9000.25, \"gpu\": 1e-7},\n"
        "   \"output_bytes\": [1, 9007199254740992, 0], \"colocate\": \"k \\\"1\\\"\", \"group\": \"G1\"},\n"
        "  {\"name\": \"z\", \"cost_us\": 123456789.125, \"output_bytes\": [], \"group\": \"G1\", \"layer\": \"dec.1\"}\n"
        " ],\n"
        " \"edges\": [{\"src\": \"in/put:0\", \"dst\": \"caf\\u00e9 \\\\ x\"},\n"
        "           {\"src\": \"caf\\u00e9 \\\\ x\", \"dst\": \"z\", \"output\": 2}]}\n";
    Err e = {{0}};
    Graph *g = load_text("/x/all.json", text, &e);
    REQUIRE_MSG(g != NULL, "%s", e.msg);
    CHECK(strcmp(g->name, "odd \"names\"") == 0);
    CHECK(strcmp(g->source, "line\nbreak\t\xc3\xbc") == 0);
    CHECK_INT(g->n_nodes, 3);
    CHECK(g->nodes[0].output_scalar && g->nodes[0].n_outputs == 1 && g->nodes[0].output_bytes[0] == 7);
    CHECK(strcmp(g->nodes[0].op, "input") == 0 && g->nodes[0].cost_us == 0.0);
    CHECK(strcmp(g->nodes[1].name, "caf\xc3\xa9 \\ x") == 0);
    CHECK_INT(g->nodes[1].n_kind_costs, 2);
    CHECK(strcmp(g->nodes[1].kind_costs[0].kind, "cpu") == 0);
    CHECK_EXACT(g->nodes[1].kind_costs[0].cost_us, 9000.25);
    CHECK_EXACT(g->nodes[1].kind_costs[1].cost_us, 1e-7);
    CHECK_EXACT(g->nodes[1].cost_us, 0.1);
    CHECK(!g->nodes[1].output_scalar && g->nodes[1].n_outputs == 3);
    CHECK(g->nodes[1].output_bytes[1] == 9007199254740992LL);
    CHECK(strcmp(g->nodes[1].colocate, "k \"1\"") == 0 && strcmp(g->nodes[1].group, "G1") == 0);
    CHECK(g->nodes[0].colocate == NULL && g->nodes[0].group == NULL && strcmp(g->nodes[2].op, "") == 0);
    CHECK_INT(g->nodes[2].n_outputs, 0);
    CHECK(g->nodes[2].layer && strcmp(g->nodes[2].layer, "dec.1") == 0 && g->nodes[1].layer == NULL);
    CHECK_INT(graph_edge_bytes(g, 1, 2), 0);
    CHECK_INT(graph_node_bytes(g, 1), 9007199254740993LL);
    CHECK_EXACT(graph_total_cost(g), 0.1 + 123456789.125);
    check_roundtrip(g, "all fields");
    graph_free(g);
}

TEST(graph_duplicate_edges_first_position_last_output)
{
    const char *text = "{\"format\": \"placeto-graph\", \"version\": 1, \"nodes\": [\n"
                       " {\"name\": \"a\", \"output_bytes\": [10, 20, 30]}, {\"name\": \"b\"}, {\"name\": \"c\"}],\n"
                       " \"edges\": [{\"src\": \"a\", \"dst\": \"b\", \"output\": 2},\n"
                       "  {\"src\": \"a\", \"dst\": \"c\"},\n"
                       "  {\"src\": \"a\", \"dst\": \"b\", \"output\": 1},\n"
                       "  {\"src\": \"b\", \"dst\": \"c\"},\n"
                       "  {\"src\": \"a\", \"dst\": \"c\", \"output\": 0}]}";
    Err e = {{0}};
    Graph *g = load_text("dup.json", text, &e);
    REQUIRE_MSG(g != NULL, "%s", e.msg);
    CHECK_INT(g->n_edges, 3);
    CHECK(g->edges[0].src == 0 && g->edges[0].dst == 1 && g->edges[0].output == 1);
    CHECK(g->edges[1].src == 0 && g->edges[1].dst == 2 && g->edges[1].output == 0);
    CHECK(g->edges[2].src == 1 && g->edges[2].dst == 2);
    CHECK_INT(g->nodes[0].n_children, 2);
    CHECK(g->nodes[0].children[0] == 1 && g->nodes[0].child_output[0] == 1);
    CHECK(g->nodes[0].children[1] == 2 && g->nodes[0].child_output[1] == 0);
    CHECK_INT(g->nodes[2].n_parents, 2);
    CHECK(g->nodes[2].parents[0] == 0 && g->nodes[2].parents[1] == 1);
    CHECK_INT(graph_edge_bytes(g, 0, g->nodes[0].child_output[0]), 20);
    graph_free(g);

    /* the same rule when building in memory */
    Graph *m = graph_new("mem");
    int64_t ob[2] = {5, 6};
    CHECK_INT(graph_add_node(m, "x", "op", 1.0, ob, 2), 0);
    CHECK_INT(graph_add_node(m, "y", NULL, 2.0, NULL, 0), 1);
    CHECK_INT(graph_add_node(m, "x", NULL, 2.0, NULL, 0), -1); /* name taken */
    graph_add_edge(m, 0, 1, 0);
    graph_add_edge(m, 0, 1, 1);
    CHECK(graph_finish(m, &e) == 0);
    CHECK(m->n_edges == 1 && m->edges[0].output == 1 && m->nodes[0].n_children == 1);
    CHECK_INT(graph_edge_bytes(m, 0, 1), 6);
    CHECK(strcmp(m->nodes[1].op, "") == 0 && m->nodes[1].n_outputs == 0);
    graph_free(m);
}

TEST(graph_output_index_past_array_is_zero_bytes)
{
    const char *text = "{\"format\": \"placeto-graph\", \"version\": 1, \"nodes\": [\n"
                       " {\"name\": \"s\", \"output_bytes\": 100}, {\"name\": \"t\", \"output_bytes\": [1, 2]},\n"
                       " {\"name\": \"u\"}, {\"name\": \"v\", \"output_bytes\": []}],\n"
                       " \"edges\": [{\"src\": \"s\", \"dst\": \"t\", \"output\": 3}, {\"src\": \"t\", \"dst\": \"u\", \"output\": 1},\n"
                       "  {\"src\": \"t\", \"dst\": \"v\", \"output\": 2}, {\"src\": \"v\", \"dst\": \"u\"}]}";
    Err e = {{0}};
    Graph *g = load_text("past.json", text, &e);
    REQUIRE_MSG(g != NULL, "%s", e.msg);
    CHECK_INT(graph_edge_bytes(g, 0, 0), 100);
    CHECK_INT(graph_edge_bytes(g, 0, 3), 0);
    CHECK_INT(graph_edge_bytes(g, 1, 1), 2);
    CHECK_INT(graph_edge_bytes(g, 1, 2), 0);
    CHECK_INT(graph_edge_bytes(g, 3, 0), 0); /* no outputs at all */
    /* an absent output_bytes is one output of 0 bytes */
    CHECK(g->nodes[2].n_outputs == 1 && g->nodes[2].output_bytes[0] == 0);
    CHECK_INT(graph_node_bytes(g, 1), 3);
    CHECK_INT(g->edges[0].output, 3);
    graph_free(g);
}

TEST(graph_default_name_from_file_name)
{
    const char *text = "{\"format\": \"placeto-graph\", \"version\": 1, \"nodes\": [{\"name\": \"a\"}]}";
    static const char *paths[][2] = {{"/some/dir/my_model.json", "my_model"},
                                     {"plain", "plain"},
                                     {"rel/dir/two.dots.json", "two.dots"},
                                     {"/x/.hidden", ".hidden"}};
    for (size_t k = 0; k < sizeof paths / sizeof *paths; k++) {
        Err e = {{0}};
        Graph *g = load_text(paths[k][0], text, &e);
        CHECK_MSG(g != NULL, "%s: %s", paths[k][0], e.msg);
        if (g)
            CHECK_MSG(strcmp(g->name, paths[k][1]) == 0, "%s: name \"%s\", expected \"%s\"", paths[k][0],
                      g->name, paths[k][1]);
        graph_free(g);
    }
    /* from a real file too */
    char p[256];
    tmp_path(p, sizeof p, "named_by_file.json");
    Err e = {{0}};
    CHECK(util_write_atomic(p, text, strlen(text), &e) == 0);
    Graph *g = graph_load(p, &e);
    CHECK_MSG(g != NULL, "%s", e.msg);
    if (g) {
        char want[128];
        snprintf(want, sizeof want, "placeto_test_graph_%ld_named_by_file", (long)getpid());
        CHECK(strcmp(g->name, want) == 0);
        CHECK(strcmp(g->path, p) == 0);
        CHECK(g->checksum == util_hash64(text, strlen(text), 0));
    }
    graph_free(g);
    remove(p);
}

#define HDR "{\"format\": \"placeto-graph\", \"version\": 1,\n"

TEST(graph_json_errors_name_field_and_position)
{
    static const BadCase cases[] = {
        {HDR " \"nodes\": [{\"name\": \"a\", \"cost_us\": 1},\n           {\"name\": \"b\", \"cost_us\": -3}]}",
         "-3", 1, "nodes[1].cost_us: expected a number >= 0", "got -3"},
        {HDR " \"nodes\": [{\"name\": \"a\", \"cost_us\": \"fast\"}]}", "\"fast\"", 1,
         "nodes[0].cost_us: expected a number >= 0", NULL},
        {HDR " \"nodes\": [\n  {\"name\": \"a\" \"cost_us\": 1}\n ]}", "\"cost_us\"", 1, "JSON syntax error", NULL},
        {HDR " \"nodes\": [\n  {\"name\": \"a\"},\n  {\"name\": \"b\"},\n  {\"name\": \"a\"}]}", "\"a\"", 2,
         "nodes[2].name: duplicate node name \"a\"", "first at nodes[0].name, line 3, column 12"},
        {HDR " \"nodes\": [{\"name\": \"a\"}, {\"name\": \"b\"}],\n \"edges\": [{\"src\": \"a\", \"dst\": \"zz\"}]}",
         "\"zz\"", 1, "edges[0].dst: unknown node \"zz\"", NULL},
        {HDR " \"nodes\": [{\"name\": \"a\"}],\n \"edges\": [{\"src\": \"a\", \"dst\": \"a\"}]}", "{\"src\"", 1,
         "edges[0]: cycle through node \"a\"", NULL},
        {HDR " \"nodes\": [{\"name\": \"a\", \"output_bytes\": [1, -2]}]}", "-2", 1,
         "nodes[0].output_bytes[1]: expected an integer from 0 to", NULL},
        {HDR " \"nodes\": [{\"name\": \"a\", \"output_bytes\": 1.5}]}", "1.5", 1,
         "nodes[0].output_bytes: expected an integer >= 0", NULL},
        {HDR " \"nodes\": [{\"name\": \"a\", \"cost_us\": 1, \"cost_us\": 2}]}", "\"cost_us\"", 2,
         "nodes[0]: duplicate key \"cost_us\"", NULL},
        {HDR " \"nodes\": [{\"cost_us\": 1}]}", "{\"cost_us\"", 1, "nodes[0]: missing \"name\"", NULL},
        {HDR " \"nodes\": []}", "[]", 1, "nodes: empty graph", NULL},
        {HDR " \"nodes\": [{\"name\": \"a\"}],\n \"edges\": [{\"src\": \"a\", \"dst\": 3}]}", "3}", 1,
         "edges[0].dst: expected a string", NULL},
        {"{\"format\": \"placeto-cluster\", \"version\": 1, \"nodes\": []}", "\"placeto-cluster\"", 1,
         "format: expected \"placeto-graph\"", NULL},
        {"{\"format\": \"placeto-graph\", \"version\": 2, \"nodes\": []}", "2,", 1, "version: expected 1", NULL},
        {"[1, 2]", "[", 1, "expected a JSON object", NULL},
        {HDR " \"nodes\": [{\"name\": \"a\"}]} extra", "extra", 1, "unexpected data after the JSON value", NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        Err e = {{0}};
        const BadCase *c = &cases[k];
        Graph *g = load_text("t.json", c->text, &e);
        CHECK_MSG(g == NULL, "case %zu: loaded", k);
        graph_free(g);
        check_bad_case_error(c, k, "t.json", e.msg);
    }
}

TEST(graph_json_truncated_text)
{
    /* a file cut short: the position is where cJSON stopped reading, so
     * only the line is checked (docs/formats.md, "Conventions") */
    const char *text = HDR " \"nodes\": [{\"name\": \"a\"}]";
    Err e = {{0}};
    Graph *g = load_text("t.json", text, &e);
    CHECK(g == NULL);
    graph_free(g);
    CHECK_MSG(strncmp(e.msg, "t.json:2:", 9) == 0, "%s", e.msg);
}

TEST(graph_json_cycle_names_a_node_on_it)
{
    const char *text = HDR " \"nodes\": [{\"name\": \"x\"}, {\"name\": \"a\"}, {\"name\": \"b\"}, {\"name\": \"c\"},\n"
                           "  {\"name\": \"y\"}],\n"
                           " \"edges\": [{\"src\": \"x\", \"dst\": \"a\"}, {\"src\": \"a\", \"dst\": \"b\"},\n"
                           "  {\"src\": \"b\", \"dst\": \"c\"}, {\"src\": \"c\", \"dst\": \"a\"}, {\"src\": \"c\", \"dst\": \"y\"}]}";
    Err e = {{0}};
    Graph *g = load_text("cyc.json", text, &e);
    CHECK(g == NULL);
    graph_free(g);
    CHECK_MSG(strncmp(e.msg, "cyc.json: cycle through node \"", 30) == 0, "%s", e.msg);
    /* the named node is on the cycle, not x or y */
    char named = strlen(e.msg) > 31 ? e.msg[30] : '?';
    CHECK_MSG((named == 'a' || named == 'b' || named == 'c') && e.msg[31] == '"', "%s", e.msg);
    CHECK_STR_CONTAINS(e.msg, "->");
    CHECK(strstr(e.msg, "\"x\"") == NULL && strstr(e.msg, "\"y\"") == NULL);

    /* graph_finish on an in-memory cycle */
    Graph *m = graph_new("m");
    graph_add_node(m, "p", NULL, 0, NULL, 0);
    graph_add_node(m, "q", NULL, 0, NULL, 0);
    graph_add_edge(m, 0, 1, 0);
    graph_add_edge(m, 1, 0, 0);
    e.msg[0] = '\0';
    CHECK(graph_finish(m, &e) != 0);
    CHECK_STR_CONTAINS(e.msg, "cycle through node");
    graph_free(m);
}

TEST(graph_load_missing_file)
{
    Err e = {{0}};
    Graph *g = graph_load("/nonexistent/dir/g.json", &e);
    CHECK(g == NULL);
    CHECK_STR_CONTAINS(e.msg, "/nonexistent/dir/g.json");
    graph_free(g);
}

/* ---- graph DOT ---- */

TEST(graph_dot_loader)
{
    const char *text = "digraph net {\n"
                       "  source=\"hand-made\";\n"
                       "  a [cost_us=10.5, output_bytes=\"[100, 200]\", op=conv, colocate=k1];\n"
                       "  b [cost_us=\"2\", output_bytes=300, group=P, layer=\"enc.0\"];\n"
                       "  c [colocate=k1, cost_us_by_kind=\"cpu:90,gpu:8\"];\n"
                       "  a -> b [output=1];\n"
                       "  a -> c;\n"
                       "  b -> c;\n"
                       "  a -> b [output=0];\n"
                       "  d -> c;\n"
                       "}\n";
    Err e = {{0}};
    Graph *g = graph_load_dot_text("n.dot", text, strlen(text), &e);
    REQUIRE_MSG(g != NULL, "%s", e.msg);
    CHECK(strcmp(g->name, "net") == 0);
    CHECK(strcmp(g->source, "hand-made") == 0);
    CHECK_INT(g->n_nodes, 4);
    CHECK(strcmp(g->nodes[0].name, "a") == 0 && strcmp(g->nodes[1].name, "b") == 0 &&
          strcmp(g->nodes[2].name, "c") == 0 && strcmp(g->nodes[3].name, "d") == 0);
    CHECK_EXACT(g->nodes[0].cost_us, 10.5);
    CHECK(strcmp(g->nodes[0].op, "conv") == 0 && strcmp(g->nodes[0].colocate, "k1") == 0);
    CHECK(g->nodes[0].n_outputs == 2 && g->nodes[0].output_bytes[1] == 200 && !g->nodes[0].output_scalar);
    CHECK_EXACT(g->nodes[1].cost_us, 2.0);
    CHECK(g->nodes[1].n_outputs == 1 && g->nodes[1].output_bytes[0] == 300 && g->nodes[1].output_scalar);
    CHECK(strcmp(g->nodes[1].group, "P") == 0 && g->nodes[1].colocate == NULL);
    CHECK(g->nodes[1].layer && strcmp(g->nodes[1].layer, "enc.0") == 0 && g->nodes[0].layer == NULL);
    CHECK(g->nodes[2].cost_us == 0 && g->nodes[2].n_outputs == 1 && g->nodes[2].output_bytes[0] == 0);
    CHECK(strcmp(g->nodes[2].colocate, "k1") == 0);
    CHECK_INT(g->nodes[2].n_kind_costs, 2);
    if (g->nodes[2].n_kind_costs == 2)
        CHECK(strcmp(g->nodes[2].kind_costs[1].kind, "gpu") == 0 && g->nodes[2].kind_costs[1].cost_us == 8.0);
    /* a -> b twice: one dependency at its first position, the last output */
    CHECK_INT(g->n_edges, 4);
    CHECK(g->edges[0].src == 0 && g->edges[0].dst == 1 && g->edges[0].output == 0);
    CHECK(g->edges[1].src == 0 && g->edges[1].dst == 2);
    CHECK(g->edges[2].src == 1 && g->edges[2].dst == 2);
    CHECK(g->edges[3].src == 3 && g->edges[3].dst == 2);
    CHECK(g->checksum == util_hash64(text, strlen(text), 0));
    check_roundtrip(g, "dot");
    graph_free(g);
}

TEST(graph_dot_errors)
{
    static const struct {
        const char *text, *msg, *also;
    } cases[] = {
        {"graph g { a -- b; }", "n.dot: expected a digraph", NULL},
        {"digraph g {\n  a [cost_us=abc];\n}", "n.dot: node \"a\": cost_us: expected a number >= 0", "\"abc\""},
        {"digraph g {\n  a [cost_us=-1];\n}", "n.dot: node \"a\": cost_us: expected a number >= 0", NULL},
        {"digraph g {\n  a [output_bytes=\"1,x\"];\n}", "n.dot:2:22: node \"a\": output_bytes: expected",
         "(at character 3: expected a byte count (decimal digits) after ',')"},
        {"digraph g {\n  a -> b [output=-1];\n}", "n.dot: edge \"a\" -> \"b\": output: expected an integer", NULL},
        {"digraph g {\n  a -> b;\n  b -> a;\n}", "n.dot: cycle through node", NULL},
        {"digraph g {\n  a -> a;\n}", "n.dot: cycle through node \"a\"", NULL},
        {"digraph g {\n  a -> b;\n  b -> ;\n}", "n.dot:3:", "syntax error"},
        {"digraph g { }", "n.dot: empty graph", NULL},
        {"", "n.dot:1:1: empty file", NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        Err e = {{0}};
        Graph *g = graph_load_dot_text("n.dot", cases[k].text, strlen(cases[k].text), &e);
        CHECK_MSG(g == NULL, "case %zu loaded", k);
        graph_free(g);
        CHECK_MSG(strncmp(e.msg, cases[k].msg, strlen(cases[k].msg)) == 0, "case %zu: \"%s\", expected \"%s...\"",
                  k, e.msg, cases[k].msg);
        if (cases[k].also)
            CHECK_MSG(strstr(e.msg, cases[k].also) != NULL, "case %zu: \"%s\" lacks \"%s\"", k, e.msg,
                      cases[k].also);
    }
    /* a good graph after errors: cgraph's sticky error state was reset */
    const char *ok = "digraph ok { x -> y; }";
    Err e = {{0}};
    Graph *g = graph_load_dot_text("ok.dot", ok, strlen(ok), &e);
    CHECK_MSG(g != NULL && g->n_nodes == 2 && g->n_edges == 1, "%s", e.msg);
    graph_free(g);
}

/* One graph per file, and byte lists exactly as documented: what cgraph
 * and strtod would let through is refused with the position. */
TEST(graph_dot_strict_trailing_graphs_and_byte_lists)
{
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {"digraph g { a -> b; }\ndigraph h { c; }\n", "n.dot:2:1: unexpected data after the graph: expected the end"},
        {"digraph g { a -> b; }\n  junk", "n.dot:2:3: unexpected data after the graph"},
        {"digraph g { a [label=\"}\"]; } /* c */ x", "n.dot:1:38: unexpected data after the graph"},
        {"digraph g {\n  a [output_bytes=\"[1, 2\"];\n}", "n.dot:2:25: node \"a\": output_bytes: expected a byte count"
                                                        " or a list of them, got \"[1, 2\" (at character 6: expected "
                                                        "',' or ']' after a byte count)"},
        {"digraph g {\n  a [output_bytes=\"1]\"];\n}", "(at character 2: expected ',' or the end after a byte count)"},
        {"digraph g {\n  a [output_bytes=\"[1,]\"];\n}", "(at character 4: expected a byte count (decimal digits) after ',')"},
        {"digraph g {\n  a [output_bytes=\"0x10\"];\n}", "(at character 2: expected ',' or the end"},
        {"digraph g {\n  a [output_bytes=\"+5\"];\n}", "(at character 1: expected a byte count (decimal digits))"},
        {"digraph g {\n  a [output_bytes=\"1 2\"];\n}", "(at character 3: expected ',' or the end"},
        {"digraph g {\n  a [output_bytes=\"[1] x\"];\n}", "(at character 5: expected nothing after ']')"},
        {"digraph g {\n  a [output_bytes=\"1e3\"];\n}", "(at character 2:"},
        {"digraph g {\n  a [output_bytes=\"1,\"];\n}", "(at character 3: expected a byte count (decimal digits) after ','"},
        {"digraph g {\n  a [output_bytes=\"99999999999999999999\"];\n}", "expected a byte count of at most 2^53"},
        /* what the JSON writer could not write so that it reads back */
        {"digraph g {\n  \"caf\xe9\" -> b;\n}", "n.dot:2:7: node name: expected UTF-8 text, got byte 0xe9"},
        {"digraph g {\n  a [layer=\"l\xc0\xaf\"];\n}", "n.dot:2:14: node attribute layer: expected UTF-8 text, got byte 0xc0"},
        {"digraph \"g\xff\" {\n  a;\n}", "n.dot: the graph's name or source: expected UTF-8 text"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        Err e = {{0}};
        Graph *g = graph_load_dot_text("n.dot", cases[k].text, strlen(cases[k].text), &e);
        CHECK_MSG(g == NULL, "case %zu loaded", k);
        graph_free(g);
        CHECK_MSG(strstr(e.msg, cases[k].msg) != NULL && strncmp(e.msg, "n.dot:", 6) == 0,
                  "case %zu: \"%s\" lacks \"%s\"", k, e.msg, cases[k].msg);
    }
    static const char *ok[] = {
        "digraph g { a [output_bytes=\"[ 1 , 2 ]\"]; }\n// the end\n/* really */\n# 1 \"x\"\n;\n",
        "digraph g { a [output_bytes=\"7\", label=\"{}\"]; b [output_bytes=\"1,2\"]; c [output_bytes=\"[]\"]; }",
        "strict digraph \"g{\" { a [label=<<b>}</b>>]; }",
        "digraph g { \"caf\xc3\xa9\" [op=\"\xe2\x82\xac\"]; }",
    };
    for (size_t k = 0; k < sizeof ok / sizeof *ok; k++) {
        Err e = {{0}};
        Graph *g = graph_load_dot_text("ok.dot", ok[k], strlen(ok[k]), &e);
        CHECK_MSG(g != NULL, "ok %zu: %s", k, e.msg);
        graph_free(g);
    }
}
