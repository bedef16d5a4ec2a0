/* cluster: see cluster.h. */
#include "cluster.h"

#include <stdlib.h>
#include <string.h>

#include "jdoc.h"

static Cluster *cluster_alloc(const char *name, int n)
{
    Cluster *c = xcalloc(1, sizeof *c);
    c->name = xstrdup(name);
    c->devices = XNEW(Device, n);
    c->n_devices = n;
    c->op_gap_us = CLUSTER_DEFAULT_OP_GAP_US;
    c->transfer_overhead_us = CLUSTER_DEFAULT_TRANSFER_OVERHEAD_US;
    c->bandwidth_bytes_per_us = CLUSTER_DEFAULT_BANDWIDTH;
    return c;
}

Cluster *cluster_default(int n)
{
    char name[64];
    snprintf(name, sizeof name, "%dx K80 (Placeto simulator)", n);
    Cluster *c = cluster_alloc(name, n);
    for (int d = 0; d < n; d++) {
        char dn[32];
        snprintf(dn, sizeof dn, "/GPU:%d", d);
        c->devices[d] = (Device){xstrdup(dn), xstrdup("gpu"), 1.0, CLUSTER_DEFAULT_MEMORY_BYTES};
    }
    return c;
}

void cluster_free(Cluster *c)
{
    if (!c)
        return;
    for (int d = 0; d < c->n_devices; d++) {
        free(c->devices[d].name);
        free(c->devices[d].kind);
    }
    free(c->devices);
    free(c->name);
    free(c);
}

Cluster *cluster_load_text(const char *path, const char *text, size_t len, Err *e)
{
    JDoc d;
    if (jdoc_parse(&d, path, text, len, e) != 0)
        return NULL;
    Cluster *c = NULL;
    if (jdoc_check_header(&d, "placeto-cluster", e) != 0)
        goto fail;
    const char *name = "";
    if (jget_string(&d, d.root, "name", "name", 0, &name, e) < 0)
        goto fail;
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(d.root, "devices");
    if (!devs) {
        jdoc_err(&d, e, "", "missing \"devices\": expected an array of devices");
        goto fail;
    }
    if (!cJSON_IsArray(devs) || !devs->child) {
        jdoc_err(&d, e, "devices", "expected a non-empty array of devices");
        goto fail;
    }
    int n = cJSON_GetArraySize(devs);
    if (n > CLUSTER_MAX_DEVICES) {
        jdoc_err(&d, e, "devices", "expected at most %d devices, got %d", CLUSTER_MAX_DEVICES, n);
        goto fail;
    }
    c = cluster_alloc(name, 0);
    free(c->devices);
    c->devices = XNEW(Device, n);
    StrMap names;
    strmap_init(&names, (size_t)n);
    int k = 0;
    for (const cJSON *v = devs->child; v; v = v->next, k++) {
        char base[64], f[128];
        snprintf(base, sizeof base, "devices[%d]", k);
        if (!cJSON_IsObject(v)) {
            jdoc_err(&d, e, base, "expected a device object");
            goto fail_names;
        }
        const char *dn = NULL, *kind = "gpu";
        double speed = 1.0;
        int64_t mem = CLUSTER_DEFAULT_MEMORY_BYTES;
        snprintf(f, sizeof f, "%s.name", base);
        if (jget_string(&d, v, "name", f, 1, &dn, e) < 0)
            goto fail_names;
        if (!dn[0]) {
            jdoc_err(&d, e, f, "expected a non-empty device name");
            goto fail_names;
        }
        int prev = strmap_put(&names, dn, k);
        if (prev >= 0) {
            jdoc_err(&d, e, f, "duplicate device name \"%s\" (first at devices[%d])", dn, prev);
            goto fail_names;
        }
        snprintf(f, sizeof f, "%s.kind", base);
        if (jget_string(&d, v, "kind", f, 0, &kind, e) < 0)
            goto fail_names;
        snprintf(f, sizeof f, "%s.speed", base);
        if (jget_number(&d, v, "speed", f, 0, 1e-6, 1e6, &speed, e) < 0)
            goto fail_names;
        snprintf(f, sizeof f, "%s.memory_bytes", base);
        if (jget_int(&d, v, "memory_bytes", f, 0, 0, GRAPH_MAX_TOTAL_BYTES, &mem, e) < 0)
            goto fail_names;
        c->devices[k] = (Device){xstrdup(dn), xstrdup(kind), speed, mem};
        c->n_devices = k + 1;
    }
    strmap_done(&names);
    if (jget_number(&d, d.root, "op_gap_us", "op_gap_us", 0, 0, 1e9, &c->op_gap_us, e) < 0 ||
        jget_number(&d, d.root, "transfer_overhead_us", "transfer_overhead_us", 0, 0, 1e9,
                    &c->transfer_overhead_us, e) < 0 ||
        jget_number(&d, d.root, "bandwidth_bytes_per_us", "bandwidth_bytes_per_us", 0, 1e-9, 1e15,
                    &c->bandwidth_bytes_per_us, e) < 0)
        goto fail;
    jdoc_done(&d);
    return c;
fail_names:
    strmap_done(&names);
fail:
    cluster_free(c);
    jdoc_done(&d);
    return NULL;
}

Cluster *cluster_load(const char *path, Err *e)
{
    size_t len;
    char *text = util_read_file(path, &len, e);
    if (!text)
        return NULL;
    Cluster *c = cluster_load_text(path, text, len, e);
    free(text);
    return c;
}

void cluster_print(const Cluster *c, FILE *f, const char *indent)
{
    char b1[32], b2[32], b3[32];
    fputs("{\"format\": \"placeto-cluster\", \"version\": 1, \"name\": ", f);
    util_json_string(f, c->name);
    fprintf(f, ",\n%s \"devices\": [", indent);
    for (int d = 0; d < c->n_devices; d++) {
        const Device *v = &c->devices[d];
        fprintf(f, "%s\n%s  {\"name\": ", d ? "," : "", indent);
        util_json_string(f, v->name);
        fputs(", \"kind\": ", f);
        util_json_string(f, v->kind);
        fprintf(f, ", \"speed\": %s, \"memory_bytes\": %lld}", util_fmt_double(b1, v->speed),
                (long long)v->memory_bytes);
    }
    fprintf(f, "],\n%s \"op_gap_us\": %s, \"transfer_overhead_us\": %s, \"bandwidth_bytes_per_us\": %s}", indent,
            util_fmt_double(b1, c->op_gap_us), util_fmt_double(b2, c->transfer_overhead_us),
            util_fmt_double(b3, c->bandwidth_bytes_per_us));
}

int cluster_write(const Cluster *c, const char *path, Err *e)
{
    AtomicFile af;
    if (util_atomic_open(&af, path, e) != 0)
        return -1;
    cluster_print(c, af.f, "");
    fputc('\n', af.f);
    return util_atomic_commit(&af, e);
}

double cluster_op_cost(const Cluster *c, const Graph *g, int i, int d)
{
    const GraphNode *n = &g->nodes[i];
    const Device *v = &c->devices[d];
    for (int k = 0; k < n->n_kind_costs; k++)
        if (strcmp(n->kind_costs[k].kind, v->kind) == 0)
            return n->kind_costs[k].cost_us;
    return v->speed == 1.0 ? n->cost_us : n->cost_us / v->speed;
}

double cluster_min_cost(const Cluster *c, const Graph *g, int i)
{
    double best = cluster_op_cost(c, g, i, 0);
    for (int d = 1; d < c->n_devices; d++) {
        double x = cluster_op_cost(c, g, i, d);
        if (x < best)
            best = x;
    }
    return best;
}

int cluster_is_default(const Cluster *c)
{
    for (int d = 0; d < c->n_devices; d++)
        if (c->devices[d].speed != 1.0)
            return 0;
    return c->op_gap_us == CLUSTER_DEFAULT_OP_GAP_US &&
           c->transfer_overhead_us == CLUSTER_DEFAULT_TRANSFER_OVERHEAD_US &&
           c->bandwidth_bytes_per_us == CLUSTER_DEFAULT_BANDWIDTH;
}
