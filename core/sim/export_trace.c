/* export_trace: see export.h. Streams the JSON with fprintf instead of
 * building a cJSON tree (traces of 10^5 events). */
#include <stdlib.h>

#include "export.h"

static void meta(FILE *f, int *first, const char *what, int pid, int tid, const char *name)
{
    fprintf(f, "%s\n  {\"ph\": \"M\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, \"args\": {\"name\": ",
            *first ? "" : ",", what, pid, tid);
    util_json_string(f, name);
    fputs("}}", f);
    *first = 0;
}

void export_trace_print(FILE *f, const Graph *g, const Cluster *c, const SimResult *r)
{
    char b1[32], b2[32];
    int first = 1;
    fputs("{\"traceEvents\": [", f);
    for (int d = 0; d < c->n_devices; d++) {
        int pid = d + 1;
        char lane[300];
        meta(f, &first, "process_name", pid, 0, c->devices[d].name);
        fprintf(f, ",\n  {\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": %d, \"tid\": 0, "
                   "\"args\": {\"sort_index\": %d}}", pid, d);
        snprintf(lane, sizeof lane, "%s compute", c->devices[d].name);
        meta(f, &first, "thread_name", pid, pid * 100, lane);
        snprintf(lane, sizeof lane, "%s transfers out", c->devices[d].name);
        meta(f, &first, "thread_name", pid, pid * 100 + 1, lane);
    }
    for (int i = 0; i < r->n_ops; i++) {
        int pid = r->device[i] + 1;
        fputs(",\n  {\"ph\": \"X\", \"cat\": \"op\", \"name\": ", f);
        util_json_string(f, g->nodes[i].name);
        fprintf(f, ", \"pid\": %d, \"tid\": %d, \"ts\": %s, \"dur\": %s, \"args\": {\"op\": ", pid, pid * 100,
                util_fmt_double(b1, r->start_us[i]), util_fmt_double(b2, r->end_us[i] - r->start_us[i]));
        util_json_string(f, g->nodes[i].op);
        fputs("}}", f);
    }
    for (int k = 0; k < r->n_transfers; k++) {
        const SimTransfer *t = &r->transfers[k];
        int pid = t->from + 1;
        char name[600];
        snprintf(name, sizeof name, "%s:%d", g->nodes[t->src].name, t->output);
        fputs(",\n  {\"ph\": \"X\", \"cat\": \"transfer\", \"name\": ", f);
        util_json_string(f, name);
        fprintf(f, ", \"pid\": %d, \"tid\": %d, \"ts\": %s, \"dur\": %s, \"args\": {\"bytes\": %lld, \"to\": [",
                pid, pid * 100 + 1, util_fmt_double(b1, t->start_us),
                util_fmt_double(b2, t->end_us - t->start_us), (long long)t->bytes);
        for (int j = 0; j < t->n_to; j++) {
            if (j)
                fputs(", ", f);
            util_json_string(f, c->devices[t->to[j]].name);
        }
        fputs("]}}", f);
    }
    fprintf(f, "\n ],\n \"displayTimeUnit\": \"ms\",\n \"otherData\": {\"graph\": ");
    util_json_string(f, g->name);
    fputs(", \"cluster\": ", f);
    util_json_string(f, c->name);
    fprintf(f, ", \"makespan_us\": %s}}\n", util_fmt_double(b1, r->makespan_us));
}

int export_trace(const char *path, const Graph *g, const Cluster *c, const SimResult *r, Err *e)
{
    AtomicFile af;
    if (util_atomic_open(&af, path, e) != 0)
        return -1;
    export_trace_print(af.f, g, c, r);
    return util_atomic_commit(&af, e);
}
