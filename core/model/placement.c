/* placement: see placement.h. */
#include "placement.h"

#include <stdlib.h>
#include <string.h>

#include "jdoc.h"

Placement *placement_new(int n_ops, int n_devices)
{
    Placement *p = xcalloc(1, sizeof *p);
    p->n_ops = n_ops;
    p->n_devices = n_devices;
    p->op_device = XNEW(int, n_ops);
    return p;
}

void placement_free(Placement *p)
{
    if (!p)
        return;
    if (p->device_names)
        for (int d = 0; d < p->n_devices; d++)
            free(p->device_names[d]);
    free(p->device_names);
    free(p->op_device);
    free(p);
}

static int read_devices(const JDoc *d, Placement **out, int n_ops, Err *e)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(d->root, "devices");
    if (!v)
        return jdoc_err(d, e, "", "missing \"devices\": expected a device count or a list of names");
    if (cJSON_IsArray(v)) {
        int n = cJSON_GetArraySize(v), k = 0;
        if (n < 1 || n > CLUSTER_MAX_DEVICES)
            return jdoc_err(d, e, "devices", "expected 1 to %d device names", CLUSTER_MAX_DEVICES);
        Placement *p = placement_new(n_ops, n);
        p->device_names = XNEW(char *, n);
        for (const cJSON *c = v->child; c; c = c->next, k++) {
            if (!cJSON_IsString(c)) {
                placement_free(p);
                char f[64];
                snprintf(f, sizeof f, "devices[%d]", k);
                return jdoc_err(d, e, f, "expected a device name");
            }
            p->device_names[k] = xstrdup(c->valuestring);
        }
        *out = p;
        return 0;
    }
    int64_t n;
    if (jcheck_int(d, v, "devices", 1, CLUSTER_MAX_DEVICES, &n, e) != 0)
        return -1;
    *out = placement_new(n_ops, (int)n);
    return 0;
}

/* Reads an object name -> device index, checking every key is known and
 * every expected name present. find() maps a name to its index. */
static int read_map(const JDoc *d, const char *key, int count, int n_devices,
                    int (*find)(const void *, const char *), const void *ctx,
                    const char *(*name_of)(const void *, int), int *dev, Err *e)
{
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(d->root, key);
    if (!cJSON_IsObject(obj))
        return jdoc_err(d, e, key, "expected an object of name -> device index");
    for (int i = 0; i < count; i++)
        dev[i] = -1;
    for (const cJSON *c = obj->child; c; c = c->next) {
        char f[600];
        jpath_key(f, sizeof f, key, c->string);
        int i = find(ctx, c->string);
        if (i < 0)
            return jdoc_err(d, e, f, "unknown %s \"%s\"", strcmp(key, "ops") ? "group" : "op", c->string);
        int64_t x;
        if (jcheck_int(d, c, f, 0, n_devices - 1, &x, e) != 0)
            return -1;
        dev[i] = (int)x;
    }
    for (int i = 0; i < count; i++)
        if (dev[i] < 0)
            return jdoc_err(d, e, key, "missing %s \"%s\": every %s needs a device",
                            strcmp(key, "ops") ? "group" : "op", name_of(ctx, i),
                            strcmp(key, "ops") ? "group" : "op");
    return 0;
}

static int find_op(const void *g, const char *name) { return strmap_get(&((const Graph *)g)->index, name); }
static const char *op_name(const void *g, int i) { return ((const Graph *)g)->nodes[i].name; }
static int find_group(const void *gr, const char *name) { return group_find(gr, name); }
static const char *group_name(const void *gr, int k) { return ((const Grouping *)gr)->names[k]; }

Placement *placement_load_text(const char *path, const char *text, size_t len, const Graph *g, Err *e)
{
    JDoc d;
    if (jdoc_parse(&d, path, text, len, e) != 0)
        return NULL;
    Placement *p = NULL;
    Grouping *gr = NULL;
    int *gdev = NULL;
    if (jdoc_check_header(&d, "placeto-placement", e) != 0 || read_devices(&d, &p, g->n_nodes, e) != 0)
        goto fail;
    int has_ops = cJSON_HasObjectItem(d.root, "ops"), has_groups = cJSON_HasObjectItem(d.root, "groups");
    if (has_ops == has_groups) {
        jdoc_err(&d, e, "", has_ops ? "expected either \"ops\" or \"groups\", not both"
                                    : "missing \"ops\" (op -> device) or \"groups\" (group -> device)");
        goto fail;
    }
    if (has_ops) {
        if (read_map(&d, "ops", g->n_nodes, p->n_devices, find_op, g, op_name, p->op_device, e) != 0)
            goto fail;
    } else {
        const cJSON *opt = cJSON_GetObjectItemCaseSensitive(d.root, "grouping");
        int64_t target = 0;
        if (!cJSON_IsObject(opt)) {
            jdoc_err(&d, e, opt ? "grouping" : "",
                     "a \"groups\" placement needs \"grouping\": {\"groups\": G}, the options that made the groups");
            goto fail;
        }
        if (jget_int(&d, opt, "groups", "grouping.groups", 1, 1, 1 << 30, &target, e) < 0)
            goto fail;
        gr = group_build(g, (int)target, e);
        if (!gr) {
            err_prefix(e, path);
            goto fail;
        }
        gdev = XMALLOC(int, gr->n_groups);
        if (read_map(&d, "groups", gr->n_groups, p->n_devices, find_group, gr, group_name, gdev, e) != 0)
            goto fail;
        group_expand(gr, gdev, p->op_device);
    }
    free(gdev);
    group_free(gr);
    jdoc_done(&d);
    return p;
fail:
    free(gdev);
    group_free(gr);
    placement_free(p);
    jdoc_done(&d);
    return NULL;
}

Placement *placement_load(const char *path, const Graph *g, Err *e)
{
    size_t len;
    char *text = util_read_file(path, &len, e);
    if (!text)
        return NULL;
    Placement *p = placement_load_text(path, text, len, g, e);
    free(text);
    return p;
}

int placement_check_cluster(const Placement *p, const Cluster *c, const char *path, Err *e)
{
    if (p->n_devices != c->n_devices)
        return err_set(e, "%s: devices: the placement is for %d devices but the cluster \"%s\" has %d",
                       path, p->n_devices, c->name, c->n_devices);
    if (p->device_names)
        for (int d = 0; d < p->n_devices; d++)
            if (strcmp(p->device_names[d], c->devices[d].name) != 0)
                return err_set(e, "%s: devices[%d]: the placement names \"%s\" but the cluster's device %d is \"%s\"",
                               path, d, p->device_names[d], d, c->devices[d].name);
    return 0;
}

void placement_print(const Placement *p, const Graph *g, const Cluster *c, FILE *f)
{
    fputs("{\"format\": \"placeto-placement\", \"version\": 1,\n \"devices\": [", f);
    for (int d = 0; d < p->n_devices; d++) {
        if (d)
            fputs(", ", f);
        if (c)
            util_json_string(f, c->devices[d].name);
        else if (p->device_names)
            util_json_string(f, p->device_names[d]);
        else
            fprintf(f, "\"/GPU:%d\"", d);
    }
    fputs("],\n \"ops\": {", f);
    for (int i = 0; i < p->n_ops; i++) {
        fputs(i ? ",\n  " : "\n  ", f);
        util_json_string(f, g->nodes[i].name);
        fprintf(f, ": %d", p->op_device[i]);
    }
    fputs("\n }}\n", f);
}

int placement_write(const Placement *p, const Graph *g, const Cluster *c, const char *path, Err *e)
{
    AtomicFile af;
    if (util_atomic_open(&af, path, e) != 0)
        return -1;
    placement_print(p, g, c, af.f);
    return util_atomic_commit(&af, e);
}
