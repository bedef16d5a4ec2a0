/* simulate and export: run the simulator on a placement file and write its
 * Chrome trace or DOT render; export also converts a graph to JSON. */
#include <stdlib.h>
#include <string.h>

#include "bound.h"
#include "cli.h"
#include "export.h"
#include "sim.h"

static const CliOpt sim_opts[] = {
    {"placement", 'p', "FILE", "placement to simulate (placeto-placement file)"},
    {"cluster", 'c', "FILE", "cluster file (default: the placement's device count of default devices)"},
    {"devices", 'n', "N", "N default devices (/GPU:0.., the Placeto simulator's parameters)"},
    {"groups", 'g', "G", "target group count for --dot (default: by graph size)"},
    {"trace", 't', "OUT", "also write a Chrome trace of the timeline (Perfetto, chrome://tracing)"},
    {"dot", 'd', "OUT", "also write a DOT render of the placement"},
    {"dot-ops", 0, NULL, "render ops instead of groups in --dot"},
    {"repeat", 'r', "N", "simulate N times and report simulations per second"},
    {"json", 0, NULL, "machine-readable result on stdout"},
    {0},
};

static int run_simulate(int argc, char **argv);

const CliCmd cmd_simulate = {
    "simulate", "simulate a placement: runtime, devices, memory, transfers", "GRAPH --placement P [--cluster FILE | --devices N] [--trace OUT] [--dot OUT] [--json]",
    "Simulate one placement with the Placeto-compatible simulator: runtime, per-device busy\n"
    "time and peak memory, transfers; optionally export the timeline and a DOT render.",
    "example: placeto simulate graphs/toy/diamond.json --placement diamond.placement.json --trace t.json",
    sim_opts, run_simulate,
};

static const CliOpt export_opts[] = {
    {"placement", 'p', "FILE", "placement to render (needed for --dot and --trace)"},
    {"cluster", 'c', "FILE", "cluster file"},
    {"devices", 'n', "N", "N default devices"},
    {"groups", 'g', "G", "target group count for --dot"},
    {"dot", 'd', "OUT", "write a DOT render of the placement (groups as nodes)"},
    {"dot-ops", 0, NULL, "render ops instead of groups in --dot"},
    {"trace", 't', "OUT", "write a Chrome trace of the simulated timeline"},
    {"graph-json", 'j', "OUT", "write the graph itself as placeto-graph JSON (e.g. from a .dot file)"},
    {0},
};

static int run_export(int argc, char **argv);

const CliCmd cmd_export = {
    "export", "DOT render or Chrome trace of a placement; graph to JSON", "GRAPH --placement P (--dot OUT | --trace OUT) | GRAPH --graph-json OUT",
    "Export a placement as a DOT render or a Chrome trace of its simulated timeline, or\n"
    "convert a graph to placeto-graph JSON.",
    "examples: placeto export graphs/resnet18.json --placement p.json --dot p.dot && dot -Tsvg p.dot -o p.svg\n"
    "          placeto export model.dot --graph-json model.json",
    export_opts, run_export,
};

/* Everything a simulate/export run needs, loaded from the arguments. */
typedef struct Job {
    Graph *g;
    Cluster *c;
    Placement *p;
    Sim *sim;
    const SimResult *r;
} Job;

static void job_done(Job *j)
{
    sim_free(j->sim);
    placement_free(j->p);
    cluster_free(j->c);
    graph_free(j->g);
}

static int job_load(const CliCmd *cmd, const CliArgs *a, Job *j, Err *e)
{
    memset(j, 0, sizeof *j);
    const char *ppath = cli_get(cmd, a, "placement");
    if (!(j->g = graph_load(a->pos[0], e)))
        return -1;
    if (!(j->p = placement_load(ppath, j->g, e)))
        return -1;
    if (!(j->c = cli_cluster(cmd, a, j->p->n_devices, e)))
        return -1;
    if (placement_check_cluster(j->p, j->c, ppath, e) != 0)
        return -1;
    j->sim = sim_new(j->g, j->c);
    j->r = sim_run(j->sim, j->p->op_device);
    return 0;
}

static int write_exports(const CliCmd *cmd, const CliArgs *a, Job *j, Err *e, int quiet)
{
    const char *trace = cli_get(cmd, a, "trace"), *dot = cli_get(cmd, a, "dot");
    if (trace) {
        if (export_trace(trace, j->g, j->c, j->r, e) != 0)
            return -1;
        if (!quiet)
            fprintf(stderr, "placeto: wrote Chrome trace %s\n", trace);
    }
    if (dot) {
        Grouping *gr = NULL;
        if (!cli_get(cmd, a, "dot-ops")) {
            long groups = 0;
            const char *gs = cli_get(cmd, a, "groups");
            if (gs)
                groups = strtol(gs, NULL, 10);
            if (!(gr = group_build(j->g, (int)groups, e)))
                return -1;
        }
        int rc = export_dot(dot, j->g, gr, j->c, j->p->op_device, e);
        group_free(gr);
        if (rc != 0)
            return -1;
        if (!quiet)
            fprintf(stderr, "placeto: wrote DOT %s\n", dot);
    }
    return 0;
}

static void print_json(const Job *j, double sims_per_s)
{
    const Graph *g = j->g;
    const Cluster *c = j->c;
    const SimResult *r = j->r;
    char b1[32], b2[32];
    printf("{\"makespan_us\": %s,\n \"devices\": [", util_fmt_double(b1, r->makespan_us));
    for (int d = 0; d < c->n_devices; d++) {
        printf("%s\n  {\"name\": ", d ? "," : "");
        util_json_string(stdout, c->devices[d].name);
        printf(", \"busy_us\": %s, \"peak_memory_bytes\": %lld, \"memory_bytes\": %lld, \"oom\": %s}",
               util_fmt_double(b1, r->busy_us[d]), (long long)r->peak_memory_bytes[d],
               (long long)c->devices[d].memory_bytes, r->oom[d] ? "true" : "false");
    }
    fputs("],\n \"ops\": [", stdout);
    for (int i = 0; i < r->n_ops; i++) {
        printf("%s\n  {\"name\": ", i ? "," : "");
        util_json_string(stdout, g->nodes[i].name);
        printf(", \"device\": %d, \"start_us\": %s, \"end_us\": %s}", r->device[i],
               util_fmt_double(b1, r->start_us[i]), util_fmt_double(b2, r->end_us[i]));
    }
    fputs("],\n \"transfers\": [", stdout);
    for (int k = 0; k < r->n_transfers; k++) {
        const SimTransfer *t = &r->transfers[k];
        printf("%s\n  {\"src\": ", k ? "," : "");
        util_json_string(stdout, g->nodes[t->src].name);
        printf(", \"output\": %d, \"bytes\": %lld, \"from\": %d, \"to\": [", t->output, (long long)t->bytes, t->from);
        for (int m = 0; m < t->n_to; m++)
            printf("%s%d", m ? ", " : "", t->to[m]);
        printf("], \"start_us\": %s, \"end_us\": %s}", util_fmt_double(b1, t->start_us),
               util_fmt_double(b2, t->end_us));
    }
    printf("],\n \"lower_bound_us\": %s", util_fmt_double(b1, bound_lower(g, c)));
    if (sims_per_s > 0)
        printf(",\n \"simulations_per_second\": %s", util_fmt_double(b1, sims_per_s));
    fputs("}\n", stdout);
}

static void print_text(const Job *j, double sims_per_s)
{
    const Cluster *c = j->c;
    const SimResult *r = j->r;
    char b1[32], b2[32], b3[32];
    double lb = bound_lower(j->g, c);
    printf("%s on %s: %d ops\n", j->g->name, c->name, j->g->n_nodes);
    printf("runtime      %s  (%.3fx the lower bound %s)\n", util_fmt_time(b1, r->makespan_us),
           lb > 0 ? r->makespan_us / lb : 0.0, util_fmt_time(b2, lb));
    printf("%-12s %10s %7s %6s %12s %12s\n", "device", "busy", "util", "ops", "peak memory", "capacity");
    for (int d = 0; d < c->n_devices; d++) {
        int ops = 0;
        for (int i = 0; i < r->n_ops; i++)
            ops += r->device[i] == d;
        printf("%-12s %10s %6.1f%% %6d %12s %12s%s\n", c->devices[d].name, util_fmt_time(b1, r->busy_us[d]),
               r->makespan_us > 0 ? 100.0 * r->busy_us[d] / r->makespan_us : 0.0, ops,
               util_fmt_bytes(b2, (double)r->peak_memory_bytes[d]),
               util_fmt_bytes(b3, (double)c->devices[d].memory_bytes), r->oom[d] ? "  OUT OF MEMORY" : "");
    }
    double bytes = 0, bus = 0;
    for (int k = 0; k < r->n_transfers; k++) {
        bytes += (double)r->transfers[k].bytes;
        bus += r->transfers[k].end_us - r->transfers[k].start_us;
    }
    printf("transfers    %d moving %s (%s on the buses)\n", r->n_transfers, util_fmt_bytes(b1, bytes),
           util_fmt_time(b2, bus));
    if (sims_per_s > 0)
        printf("speed        %.0f simulations/s\n", sims_per_s);
}

static int run_simulate(int argc, char **argv)
{
    CliArgs a;
    int stop, rc = cli_parse_graph(&cmd_simulate, argc, argv, &a, NULL, &stop);
    if (stop)
        return rc;
    if (!cli_get(&cmd_simulate, &a, "placement"))
        return cli_usage_error(&cmd_simulate, "missing --placement FILE");
    long repeat, groups;
    if (cli_int(&cmd_simulate, &a, "repeat", 1, 100000000, 0, &repeat) ||
        cli_int(&cmd_simulate, &a, "groups", 1, 1L << 30, 0, &groups))
        return EXIT_USAGE;
    Err e = {{0}};
    Job j;
    if (job_load(&cmd_simulate, &a, &j, &e) != 0) {
        job_done(&j);
        return cli_fail(&e);
    }
    double sims_per_s = 0;
    if (repeat > 0) {
        double t0 = util_now();
        for (long k = 0; k < repeat; k++)
            sim_run(j.sim, j.p->op_device);
        double dt = util_now() - t0;
        sims_per_s = dt > 0 ? (double)repeat / dt : 0;
    }
    int json = cli_get(&cmd_simulate, &a, "json") != NULL;
    if (write_exports(&cmd_simulate, &a, &j, &e, json) != 0) {
        job_done(&j);
        return cli_fail(&e);
    }
    if (json)
        print_json(&j, sims_per_s);
    else
        print_text(&j, sims_per_s);
    job_done(&j);
    return EXIT_OK;
}

static int run_export(int argc, char **argv)
{
    CliArgs a;
    int stop, rc = cli_parse_graph(&cmd_export, argc, argv, &a, NULL, &stop);
    if (stop)
        return rc;
    long groups;
    if (cli_int(&cmd_export, &a, "groups", 1, 1L << 30, 0, &groups))
        return EXIT_USAGE;
    const char *gj = cli_get(&cmd_export, &a, "graph-json");
    int wants_placement = cli_get(&cmd_export, &a, "dot") || cli_get(&cmd_export, &a, "trace");
    if (!gj && !wants_placement)
        return cli_usage_error(&cmd_export, "nothing to export: give --dot OUT, --trace OUT or --graph-json OUT");
    if (wants_placement && !cli_get(&cmd_export, &a, "placement"))
        return cli_usage_error(&cmd_export, "--dot and --trace need --placement FILE");
    Err e = {{0}};
    if (gj) {
        Graph *g = graph_load(a.pos[0], &e);
        if (!g || graph_write_json(g, gj, &e) != 0) {
            graph_free(g);
            return cli_fail(&e);
        }
        fprintf(stderr, "placeto: wrote graph %s\n", gj);
        graph_free(g);
    }
    if (!wants_placement)
        return EXIT_OK;
    Job j;
    if (job_load(&cmd_export, &a, &j, &e) != 0 || write_exports(&cmd_export, &a, &j, &e, 0) != 0) {
        job_done(&j);
        return cli_fail(&e);
    }
    job_done(&j);
    return EXIT_OK;
}
