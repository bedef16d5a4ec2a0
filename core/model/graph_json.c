/* graph_json: reads and writes the placeto-graph JSON format (docs/formats.md), with field
 * paths and positions in every error. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "graph_json_impl.h"
#include "jdoc.h"

/* The tree reader builds a field's name ("nodes[12].cost_us") only to report
 * an error: each getter below checks the common case itself and calls the
 * jdoc getter, which words the message, only when that fails. */
static void field_name(char *buf, size_t n, const char *arr, int i, const char *key)
{
    if (key)
        snprintf(buf, n, "%s[%d].%s", arr, i, key);
    else
        snprintf(buf, n, "%s[%d]", arr, i);
}

static int get_string(const JDoc *d, const cJSON *obj, const char *arr, int i, const char *key, int required,
                      const char **out, Err *e)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v && !required)
        return 1;
    if (cJSON_IsString(v)) {
        *out = v->valuestring;
        return 0;
    }
    char field[600];
    field_name(field, sizeof field, arr, i, key);
    return jget_string(d, obj, key, field, required, out, e);
}

static int get_number(const JDoc *d, const cJSON *obj, const char *arr, int i, const char *key, double max,
                      double *out, Err *e)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v)
        return 1;
    if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble >= 0 && v->valuedouble <= max) {
        *out = v->valuedouble;
        return 0;
    }
    char field[600];
    field_name(field, sizeof field, arr, i, key);
    return jget_number(d, obj, key, field, 0, 0, max, out, e);
}

/* An integer value from 0 to max (jcheck_int's rules); name builds the
 * field's name when there is an error to report. */
static int check_int(const JDoc *d, const cJSON *v, int64_t max, int64_t *out, Err *e,
                     void (*name)(char *, size_t, const void *), const void *ctx)
{
    double x = cJSON_IsNumber(v) ? v->valuedouble : -1;
    if (cJSON_IsNumber(v) && isfinite(x) && x == floor(x) && x >= 0 && x <= (double)max &&
        fabs(x) <= 9007199254740992.0) {
        *out = (int64_t)x;
        return 0;
    }
    char field[700];
    name(field, sizeof field, ctx);
    return jcheck_int(d, v, field, 0, max, out, e);
}

typedef struct {
    const char *arr, *key;
    int i, k; /* k >= 0: an element of the member's array */
} FieldAt;

static void field_at(char *buf, size_t n, const void *ctx)
{
    const FieldAt *f = ctx;
    if (f->k < 0)
        field_name(buf, n, f->arr, f->i, f->key);
    else
        snprintf(buf, n, "%s[%d].%s[%d]", f->arr, f->i, f->key, f->k);
}

static int read_output_bytes(const JDoc *d, const cJSON *nd, int i, int64_t **out, int *n_out, int *scalar,
                             Err *e)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(nd, "output_bytes");
    FieldAt at = {"nodes", "output_bytes", i, -1};
    *scalar = 1;
    if (!v) { /* absent: one output of 0 bytes (as the reference reads it) */
        *out = xcalloc(1, sizeof **out);
        *n_out = 1;
        return 0;
    }
    if (cJSON_IsNumber(v)) {
        int64_t b;
        if (check_int(d, v, GRAPH_MAX_BYTES, &b, e, field_at, &at) != 0)
            return -1;
        *out = xmalloc(sizeof **out);
        (*out)[0] = b;
        *n_out = 1;
        return 0;
    }
    if (!cJSON_IsArray(v)) {
        char field[600];
        field_at(field, sizeof field, &at);
        return jdoc_err(d, e, field, "expected a number of bytes or an array of them");
    }
    *scalar = 0;
    int n = cJSON_GetArraySize(v), k = 0;
    *out = XNEW(int64_t, n);
    *n_out = n;
    for (const cJSON *c = v->child; c; c = c->next, k++) {
        at.k = k;
        if (check_int(d, c, GRAPH_MAX_BYTES, &(*out)[k], e, field_at, &at) != 0) {
            free(*out);
            *out = NULL;
            return -1;
        }
    }
    return 0;
}

static int read_kind_costs(const JDoc *d, const cJSON *nd, int i, GraphNode *n, Err *e)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(nd, "cost_us_by_kind");
    if (!v)
        return 0;
    char field[600];
    field_name(field, sizeof field, "nodes", i, "cost_us_by_kind");
    if (!cJSON_IsObject(v))
        return jdoc_err(d, e, field, "expected an object of device kind -> cost in µs");
    int cnt = cJSON_GetArraySize(v);
    n->kind_costs = XNEW(KindCost, cnt);
    for (const cJSON *c = v->child; c; c = c->next) {
        double x = c->valuedouble;
        if (!(cJSON_IsNumber(c) && isfinite(x) && x >= 0 && x <= 1e15)) {
            char f2[700];
            jpath_key(f2, sizeof f2, field, c->string);
            if (jcheck_number(d, c, f2, 0, 1e15, &x, e) != 0)
                return -1;
        }
        n->kind_costs[n->n_kind_costs].kind = xstrdup(c->string);
        n->kind_costs[n->n_kind_costs++].cost_us = x;
    }
    return 0;
}

static int read_nodes(const JDoc *d, Graph *g, Err *e)
{
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(d->root, "nodes");
    if (!nodes)
        return jdoc_err(d, e, "", "missing \"nodes\": expected an array of nodes");
    if (!cJSON_IsArray(nodes))
        return jdoc_err(d, e, "nodes", "expected an array of nodes");
    if (!nodes->child)
        return jdoc_err(d, e, "nodes", "empty graph: expected at least one node");
    int i = 0;
    int64_t total_bytes = 0;
    char field[600]; /* built only to report an error */
    for (const cJSON *nd = nodes->child; nd; nd = nd->next, i++) {
        if (!cJSON_IsObject(nd)) {
            field_name(field, sizeof field, "nodes", i, NULL);
            return jdoc_err(d, e, field, "expected a node object");
        }
        const char *name = NULL, *op = "", *coloc = NULL, *group = NULL, *layer = NULL;
        double cost = 0;
        if (get_string(d, nd, "nodes", i, "name", 1, &name, e) < 0)
            return -1;
        if (!name[0]) {
            field_name(field, sizeof field, "nodes", i, "name");
            return jdoc_err(d, e, field, "expected a non-empty name");
        }
        int prev = strmap_get(&g->index, name);
        if (prev >= 0) {
            char first[64];
            snprintf(first, sizeof first, "nodes[%d].name", prev);
            long off = jdoc_locate(d, first, 0);
            int l, c;
            util_line_col(d->text, off < 0 ? 0 : (size_t)off, &l, &c);
            field_name(field, sizeof field, "nodes", i, "name");
            return jdoc_err(d, e, field, "duplicate node name \"%s\" (first at %s, line %d, column %d)",
                            name, first, l, c);
        }
        if (get_string(d, nd, "nodes", i, "op", 0, &op, e) < 0 ||
            get_number(d, nd, "nodes", i, "cost_us", 1e15, &cost, e) < 0 ||
            get_string(d, nd, "nodes", i, "colocate", 0, &coloc, e) < 0 ||
            get_string(d, nd, "nodes", i, "group", 0, &group, e) < 0)
            return -1;
        if (group && !group[0]) {
            field_name(field, sizeof field, "nodes", i, "group");
            return jdoc_err(d, e, field, "expected a non-empty group name");
        }
        if (get_string(d, nd, "nodes", i, "layer", 0, &layer, e) < 0)
            return -1;
        if (layer && !layer[0]) {
            field_name(field, sizeof field, "nodes", i, "layer");
            return jdoc_err(d, e, field, "expected a non-empty layer name");
        }
        int64_t *ob = NULL;
        int n_out = 0, scalar = 1;
        if (read_output_bytes(d, nd, i, &ob, &n_out, &scalar, e) != 0)
            return -1;
        for (int k = 0; k < n_out; k++) {
            total_bytes += ob[k];
            if (total_bytes > GRAPH_MAX_TOTAL_BYTES) {
                free(ob);
                field_name(field, sizeof field, "nodes", i, "output_bytes");
                return jdoc_err(d, e, field, "the graph's outputs add up to more than 2^62 bytes");
            }
        }
        int idx = graph_add_node(g, name, op, cost, ob, n_out);
        free(ob);
        GraphNode *n = &g->nodes[idx];
        n->output_scalar = scalar;
        n->colocate = coloc ? xstrdup(coloc) : NULL;
        n->group = group ? xstrdup(group) : NULL;
        n->layer = layer ? xstrdup(layer) : NULL;
        if (read_kind_costs(d, nd, i, n, e) != 0)
            return -1;
    }
    return 0;
}

static int read_edges(const JDoc *d, Graph *g, Err *e)
{
    const cJSON *edges = cJSON_GetObjectItemCaseSensitive(d->root, "edges");
    if (!edges)
        return 0;
    if (!cJSON_IsArray(edges))
        return jdoc_err(d, e, "edges", "expected an array of edges");
    int k = 0;
    char field[600]; /* built only to report an error */
    for (const cJSON *ed = edges->child; ed; ed = ed->next, k++) {
        if (!cJSON_IsObject(ed)) {
            field_name(field, sizeof field, "edges", k, NULL);
            return jdoc_err(d, e, field, "expected an edge object {\"src\", \"dst\", \"output\"}");
        }
        const char *end_name[2];
        int end_idx[2];
        static const char *keys[2] = {"src", "dst"};
        for (int s = 0; s < 2; s++) {
            if (get_string(d, ed, "edges", k, keys[s], 1, &end_name[s], e) < 0)
                return -1;
            end_idx[s] = strmap_get(&g->index, end_name[s]);
            if (end_idx[s] < 0) {
                field_name(field, sizeof field, "edges", k, keys[s]);
                return jdoc_err(d, e, field, "unknown node \"%s\" (dangling edge)", end_name[s]);
            }
        }
        int64_t out = 0;
        const cJSON *ov = cJSON_GetObjectItemCaseSensitive(ed, "output");
        FieldAt at = {"edges", "output", k, -1};
        if (ov && check_int(d, ov, 1 << 30, &out, e, field_at, &at) != 0)
            return -1;
        if (end_idx[0] == end_idx[1]) {
            field_name(field, sizeof field, "edges", k, NULL);
            return jdoc_err(d, e, field, "cycle through node \"%s\": the edge goes from the node to itself",
                            end_name[0]);
        }
        graph_add_edge(g, end_idx[0], end_idx[1], (int)out);
    }
    return 0;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The graph's name: its "name", or the file name without its extension. */
void graph_json_set_name(Graph *g, const char *path, const char *name, size_t n)
{
    free(g->name);
    if (name) {
        g->name = xmalloc(n + 1);
        memcpy(g->name, name, n);
        g->name[n] = '\0';
        return;
    }
    char defname[256];
    snprintf(defname, sizeof defname, "%s", base_name(path));
    char *dot = strrchr(defname, '.');
    if (dot && dot != defname)
        *dot = '\0';
    g->name = xstrdup(defname);
}

/* The tree reader: every check with its field path and position. */
Graph *graph_load_json_tree_text(const char *path, const char *text, size_t len, Err *e)
{
    JDoc d;
    if (jdoc_parse_part(&d, path, text, len, e) != 0) /* counted by the caller */
        return NULL;
    Graph *g = NULL;
    if (jdoc_check_header(&d, "placeto-graph", e) != 0)
        goto fail;
    const char *name = NULL, *source = "";
    if (jget_string(&d, d.root, "name", "name", 0, &name, e) < 0 ||
        jget_string(&d, d.root, "source", "source", 0, &source, e) < 0)
        goto fail;
    g = graph_new("");
    graph_json_set_name(g, path, name, name ? strlen(name) : 0);
    free(g->source);
    g->source = xstrdup(source);
    free(g->path);
    g->path = xstrdup(path);
    g->checksum = util_hash64(text, len, 0);
    if (read_nodes(&d, g, e) != 0 || read_edges(&d, g, e) != 0)
        goto fail;
    if (graph_finish(g, e) != 0) {
        err_prefix(e, path);
        goto fail;
    }
    jdoc_done(&d);
    return g;
fail:
    graph_free(g);
    jdoc_done(&d);
    return NULL;
}

Graph *graph_load_json_text(const char *path, const char *text, size_t len, Err *e)
{
    util_trace_read("parse", path);
    Graph *g = NULL;
    int rc = graph_json_fast_load(path, text, len, &g, e);
    if (rc != FAST_NO)
        return rc == 0 ? g : NULL;
    return graph_load_json_tree_text(path, text, len, e);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

Graph *graph_load(const char *path, Err *e)
{
    /* a model, not a graph: the importer's command */
    if (ends_with(path, ".onnx")) {
        err_set(e, "%s: an ONNX model, not a placeto graph: import it first with `placeto-import-onnx %s -o "
                   "GRAPH.json` (docs/importing.md)", path, path);
        return NULL;
    }
    if (ends_with(path, ".py")) {
        err_set(e, "%s: Python code, not a placeto graph: import a model it builds with `placeto-import-torch "
                   "--module %s:FACTORY --input x=C,H,W -o GRAPH.json` (docs/importing.md)", path, path);
        return NULL;
    }
    if (ends_with(path, ".pt") || ends_with(path, ".pth")) {
        err_set(e, "%s: PyTorch weights, not a placeto graph: import the model's code with `placeto-import-torch "
                   "--module FILE.py:FACTORY -o GRAPH.json` or `--model torchvision:NAME` (docs/importing.md)", path);
        return NULL;
    }
    size_t len = 0;
    char *text = util_read_file(path, &len, e);
    if (!text)
        return NULL;
    Graph *g;
    if (ends_with(path, ".dot") || ends_with(path, ".gv"))
        g = graph_load_dot_text(path, text, len, e);
    else
        g = graph_load_json_text(path, text, len, e);
    free(text);
    return g;
}

/* ---- writing ----------------------------------------------------------- */

void graph_print_json(const Graph *g, FILE *f)
{
    char nb[32];
    fputs("{\"format\": \"placeto-graph\", \"version\": 1, \"name\": ", f);
    util_json_string(f, g->name);
    fputs(",\n \"source\": ", f);
    util_json_string(f, g->source);
    fputs(",\n \"nodes\": [", f);
    for (int i = 0; i < g->n_nodes; i++) {
        const GraphNode *n = &g->nodes[i];
        fputs(i ? ",\n  {\"name\": " : "\n  {\"name\": ", f);
        util_json_string(f, n->name);
        if (n->op[0]) {
            fputs(", \"op\": ", f);
            util_json_string(f, n->op);
        }
        fprintf(f, ", \"cost_us\": %s", util_fmt_double(nb, n->cost_us));
        if (n->n_kind_costs) {
            fputs(", \"cost_us_by_kind\": {", f);
            for (int k = 0; k < n->n_kind_costs; k++) {
                if (k)
                    fputs(", ", f);
                util_json_string(f, n->kind_costs[k].kind);
                fprintf(f, ": %s", util_fmt_double(nb, n->kind_costs[k].cost_us));
            }
            fputc('}', f);
        }
        if (n->output_scalar && n->n_outputs == 1) {
            fprintf(f, ", \"output_bytes\": %lld", (long long)n->output_bytes[0]);
        } else {
            fputs(", \"output_bytes\": [", f);
            for (int k = 0; k < n->n_outputs; k++)
                fprintf(f, k ? ", %lld" : "%lld", (long long)n->output_bytes[k]);
            fputc(']', f);
        }
        if (n->colocate) {
            fputs(", \"colocate\": ", f);
            util_json_string(f, n->colocate);
        }
        if (n->group) {
            fputs(", \"group\": ", f);
            util_json_string(f, n->group);
        }
        if (n->layer) {
            fputs(", \"layer\": ", f);
            util_json_string(f, n->layer);
        }
        fputc('}', f);
    }
    fputs("\n ],\n \"edges\": [", f);
    for (int k = 0; k < g->n_edges; k++) {
        const GraphEdge *ed = &g->edges[k];
        fputs(k ? ",\n  {\"src\": " : "\n  {\"src\": ", f);
        util_json_string(f, g->nodes[ed->src].name);
        fputs(", \"dst\": ", f);
        util_json_string(f, g->nodes[ed->dst].name);
        fprintf(f, ", \"output\": %d}", ed->output);
    }
    fputs("\n ]}\n", f);
}

int graph_write_json(const Graph *g, const char *path, Err *e)
{
    AtomicFile af;
    if (util_atomic_open(&af, path, e) != 0)
        return -1;
    graph_print_json(g, af.f);
    return util_atomic_commit(&af, e);
}
