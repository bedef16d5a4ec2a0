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

static Cluster *load_text(const char *path, const char *text, size_t len, int part, Err *e);

Cluster *cluster_load_text(const char *path, const char *text, size_t len, Err *e)
{
    return load_text(path, text, len, 0, e);
}

/* part: the text is a part of a file already parsed (jdoc_parse_part). */
static Cluster *load_text(const char *path, const char *text, size_t len, int part, Err *e)
{
    JDoc d;
    if ((part ? jdoc_parse_part(&d, path, text, len, e) : jdoc_parse(&d, path, text, len, e)) != 0)
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

/* Offset just past the object or array that starts at t[i]. */
static size_t value_end(const char *t, size_t n, size_t i)
{
    int depth = 0;
    for (; i < n; i++) {
        char c = t[i];
        if (c == '"') {
            for (i++; i < n && t[i] != '"'; i++)
                if (t[i] == '\\')
                    i++;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if ((c == '}' || c == ']') && --depth == 0) {
            return i + 1;
        }
    }
    return n;
}

Cluster *cluster_load_member(const JDoc *d, const char *key, Err *e)
{
    long off = jdoc_locate(d, key, 0);
    if (off < 0 || d->text[off] != '{') {
        jdoc_err(d, e, key, "expected an object (a placeto-cluster)");
        return NULL;
    }
    size_t start = (size_t)off, end = value_end(d->text, d->len, start);
    char *copy = xmalloc(end + 1);
    size_t m = 0;
    for (size_t i = 0; i < end; i++) { /* nothing after the object: its positions need only what comes before */
        unsigned char c = (unsigned char)d->text[i];
        if (i >= start && i < end)
            copy[m++] = (char)c;
        else if (c == '\n')
            copy[m++] = '\n';
        else if ((c & 0xC0) != 0x80)
            copy[m++] = ' ';
    }
    copy[m] = '\0';
    Cluster *c = load_text(d->path, copy, m, 1, e);
    free(copy);
    if (!c && e) {
        /* "PATH:L:C: rest" -> "PATH:L:C: cluster.rest" (a field) or "cluster: rest" */
        char *msg = e->msg, rest[sizeof e->msg];
        size_t pl = strlen(d->path);
        char *p = strncmp(msg, d->path, pl) == 0 ? msg + pl : NULL;
        for (int colons = 0; p && colons < 2; colons++)
            p = *p == ':' ? p + 1 + strspn(p + 1, "0123456789") : NULL;
        if (p && p[0] == ':' && p[1] == ' ') {
            p += 2;
            snprintf(rest, sizeof rest, "%s", p);
            static const char *const keys[] = {"devices", "name", "format", "version", "op_gap_us",
                                               "transfer_overhead_us", "bandwidth_bytes_per_us"};
            int field = 0;
            for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
                size_t kl = strlen(keys[k]);
                if (strncmp(rest, keys[k], kl) == 0 && (rest[kl] == '[' || rest[kl] == '.' || rest[kl] == ':'))
                    field = 1;
            }
            snprintf(p, sizeof e->msg - (size_t)(p - msg), "%s%s%s", key, field ? "." : ": ", rest);
        }
    }
    return c;
}


Cluster *cluster_clone(const Cluster *c)
{
    Cluster *k = cluster_alloc(c->name, c->n_devices);
    for (int d = 0; d < c->n_devices; d++) {
        const Device *v = &c->devices[d];
        k->devices[d] = (Device){xstrdup(v->name), xstrdup(v->kind), v->speed, v->memory_bytes};
    }
    k->op_gap_us = c->op_gap_us;
    k->transfer_overhead_us = c->transfer_overhead_us;
    k->bandwidth_bytes_per_us = c->bandwidth_bytes_per_us;
    return k;
}

int cluster_equal(const Cluster *a, const Cluster *b)
{
    if (a->n_devices != b->n_devices || a->op_gap_us != b->op_gap_us ||
        a->transfer_overhead_us != b->transfer_overhead_us || a->bandwidth_bytes_per_us != b->bandwidth_bytes_per_us)
        return 0;
    for (int d = 0; d < a->n_devices; d++) {
        const Device *x = &a->devices[d], *y = &b->devices[d];
        if (strcmp(x->name, y->name) != 0 || strcmp(x->kind, y->kind) != 0 || x->speed != y->speed ||
            x->memory_bytes != y->memory_bytes)
            return 0;
    }
    return 1;
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
