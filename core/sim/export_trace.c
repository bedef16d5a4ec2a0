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

/* The time a flow binds to on a slice [start, end]: its midpoint, strictly
 * inside a slice of non-zero length, so that the slice enclosing it on its
 * lane is never in doubt (lanes have no overlapping slices; a slice ending
 * where the next begins would share its start or end). */
static double bind_ts(double start, double end)
{
    return start + (end - start) / 2;
}

/* One flow: a start ("s") bound to the slice enclosing ts0 on (pid0, tid0),
 * a finish ("f", "bp": "e") bound to the slice enclosing ts1 on (pid1,
 * tid1); both with id, the category "dependency" and the name. */
static void flow(FILE *f, long id, const char *name, int pid0, int tid0, double ts0, int pid1, int tid1, double ts1)
{
    char b[32];
    fputs(",\n  {\"ph\": \"s\", \"cat\": \"dependency\", \"name\": ", f);
    util_json_string(f, name);
    fprintf(f, ", \"id\": %ld, \"pid\": %d, \"tid\": %d, \"ts\": %s}", id, pid0, tid0, util_fmt_double(b, ts0));
    fputs(",\n  {\"ph\": \"f\", \"bp\": \"e\", \"cat\": \"dependency\", \"name\": ", f);
    util_json_string(f, name);
    fprintf(f, ", \"id\": %ld, \"pid\": %d, \"tid\": %d, \"ts\": %s}", id, pid1, tid1, util_fmt_double(b, ts1));
}

/* The dependency arrows of the transfers, after every slice: for each
 * transfer, one flow from the op whose output it carries to the transfer,
 * then one from the transfer to each op it releases. Ids count from 1 in
 * that order. A slice of zero length (an op without cost) gets no flow:
 * other slices on its lane may start or end at its time, so no viewer can
 * tell which one a flow binds to. */
static void transfer_flows(FILE *f, const Graph *g, const SimResult *r)
{
    long id = 0;
    for (int k = 0; k < r->n_transfers; k++) {
        const SimTransfer *t = &r->transfers[k];
        if (!(t->end_us > t->start_us))
            continue;
        int tpid = t->from + 1, ttid = tpid * 100 + 1, spid = r->device[t->src] + 1;
        double tts = bind_ts(t->start_us, t->end_us);
        char name[600];
        snprintf(name, sizeof name, "%s:%d", g->nodes[t->src].name, t->output);
        if (r->end_us[t->src] > r->start_us[t->src])
            flow(f, ++id, name, spid, spid * 100, bind_ts(r->start_us[t->src], r->end_us[t->src]), tpid, ttid, tts);
        for (int j = 0; j < t->n_children; j++) {
            int op = t->children[j], cpid = r->device[op] + 1;
            if (r->end_us[op] > r->start_us[op])
                flow(f, ++id, name, tpid, ttid, tts, cpid, cpid * 100, bind_ts(r->start_us[op], r->end_us[op]));
        }
    }
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
    transfer_flows(f, g, r);
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
