/* simulate and export: run the simulator on a placement file (or on the
 * current placement of an explorer's episode file) and write its Chrome
 * trace or DOT render (also drawn as SVG or PNG by core/sim's export_dot.c
 * through Graphviz's library); export also converts a graph to JSON. */
#include <stdlib.h>
#include <string.h>

#include "bound.h"
#include "cli.h"
#include "episode.h"
#include "export.h"
#include "jdoc.h"
#include "jwrite.h"
#include "sim.h"

static const CliOpt sim_opts[] = {
    {.name = "placement", .short_name = 'p', .arg = "FILE", .help = "placement to simulate (placeto-placement file, or an explorer's episode file)"},
    {.name = "cluster", .short_name = 'c', .arg = "FILE", .help = "cluster file", .note = "the placement's device count of default devices"},
    {.name = "devices", .short_name = 'n', .arg = "N", .type = AGENT_OPT_INT, .min = 1, .max = CLUSTER_MAX_DEVICES,
     .help = "N default devices (/GPU:0.., the Placeto simulator's parameters)"},
    {.name = "groups", .short_name = 'g', .arg = "G", .type = AGENT_OPT_INT, .min = 1, .max = 1L << 30,
     .help = "target group count of the render", .note = "by graph size"},
    {.name = "trace", .short_name = 't', .arg = "OUT", .help = "also write a Chrome trace of the timeline (Perfetto, chrome://tracing)"},
    {.name = "dot", .short_name = 'd', .arg = "OUT", .help = "also write a DOT render of the placement"},
    {.name = "svg", .arg = "OUT", .help = "also draw the render as SVG (Graphviz's library, no dot process)"},
    {.name = "png", .arg = "OUT", .help = "also draw the render as PNG"},
    {.name = "level", .short_name = 'l', .arg = "L", .type = AGENT_OPT_WORD, .choices = "group op", .def = "group",
     .help = "nodes of the render: a node per group or per op"},
    {.name = "dot-ops", .help = "the same as --level op"},
    {.name = "repeat", .short_name = 'r', .arg = "N", .type = AGENT_OPT_INT, .min = 1, .max = 100000000,
     .help = "simulate N times and report simulations per second"},
    {.name = "json", .help = "machine-readable result on stdout"},
    {0},
};

static int run_simulate(int argc, char **argv);

const CliCmd cmd_simulate = {
    .name = "simulate",
    .brief = "simulate a placement: runtime, devices, memory, transfers",
    .usage = "GRAPH --placement P [--cluster FILE | --devices N] [--trace OUT] [--dot OUT] [--svg OUT] [--png OUT] [--json]",
    .summary =
        "Simulate one placement with the Placeto-compatible simulator: runtime, per-device busy\n"
        "time and peak memory, transfers; optionally export the timeline and a DOT render.",
    .details =
        "An explorer's episode file works as the placement (its current placement, on its graph, cluster\n"
        "and grouping), also in place of GRAPH.\n"
        "example: placeto simulate graphs/toy/diamond.json --placement diamond.placement.json --trace t.json\n"
        "example: placeto simulate crown.episode.json",
    .opts = sim_opts,
    .run = run_simulate,
};

static const CliOpt export_opts[] = {
    {.name = "placement", .short_name = 'p', .arg = "FILE", .help = "placement to render (needed for --dot, --svg, --png and --trace); an episode file too"},
    {.name = "cluster", .short_name = 'c', .arg = "FILE", .help = "cluster file"},
    {.name = "devices", .short_name = 'n', .arg = "N", .type = AGENT_OPT_INT, .min = 1, .max = CLUSTER_MAX_DEVICES,
     .help = "N default devices"},
    {.name = "groups", .short_name = 'g', .arg = "G", .type = AGENT_OPT_INT, .min = 1, .max = 1L << 30,
     .help = "target group count of the render", .note = "by graph size"},
    {.name = "dot", .short_name = 'd', .arg = "OUT", .help = "write a DOT render of the placement (groups as nodes)"},
    {.name = "svg", .arg = "OUT", .help = "draw the render as SVG (Graphviz's library, no dot process)"},
    {.name = "png", .arg = "OUT", .help = "draw the render as PNG"},
    {.name = "level", .short_name = 'l', .arg = "L", .type = AGENT_OPT_WORD, .choices = "group op", .def = "group",
     .help = "nodes of the render: a node per group or per op"},
    {.name = "dot-ops", .help = "the same as --level op"},
    {.name = "trace", .short_name = 't', .arg = "OUT", .help = "write a Chrome trace of the simulated timeline"},
    {.name = "graph-json", .short_name = 'j', .arg = "OUT", .help = "write the graph itself as placeto-graph JSON (e.g. from a .dot file)"},
    {0},
};

static int run_export(int argc, char **argv);

const CliCmd cmd_export = {
    .name = "export",
    .brief = "DOT render (or SVG, PNG) or Chrome trace of a placement; graph to JSON",
    .usage = "GRAPH --placement P (--dot OUT | --svg OUT | --png OUT | --trace OUT) [--level group|op] | GRAPH --graph-json OUT",
    .summary =
        "Export a placement as a DOT render (or drawn as SVG or PNG) or a Chrome trace of its\n"
        "simulated timeline, or convert a graph to placeto-graph JSON.",
    .details =
        "examples: placeto export graphs/resnet18.json --placement p.json --png p.png --dot p.dot\n"
        "          placeto export model.dot --graph-json model.json\n"
        "          placeto export crown.episode.json --dot crown.dot   (an explorer's episode: its current placement)",
    .opts = export_opts,
    .run = run_export,
};

/* The render's node level from --level (or --dot-ops): 0 groups, 1 ops, -1
 * after a usage error. */
static int render_ops(const CliCmd *cmd, const CliArgs *a)
{
    const char *level = cli_get(cmd, a, "level");
    if (level && (strcmp(level, "ops") == 0 || strcmp(level, "groups") == 0)) /* the plurals read alike */
        level = level[0] == 'o' ? "op" : "group";
    else if (cli_word(cmd, a, "level", &level))
        return -1;
    return strcmp(level, "op") == 0 || cli_get(cmd, a, "dot-ops") != NULL;
}

static int wants_render(const CliCmd *cmd, const CliArgs *a)
{
    return cli_get(cmd, a, "dot") || cli_get(cmd, a, "svg") || cli_get(cmd, a, "png");
}

/* 1 when the file at path is an explorer's episode file ("format":
 * "placeto-episode"); 0 otherwise (a file that cannot be read or parsed is
 * reported by the loader that reads it). */
static int is_episode_file(const char *path)
{
    size_t len;
    Err e = {{0}};
    char *text = util_read_file(path, &len, &e);
    if (!text)
        return 0;
    JDoc d;
    int yes = 0;
    if (jdoc_parse(&d, path, text, len, &e) == 0) {
        const cJSON *f = cJSON_IsObject(d.root) ? cJSON_GetObjectItemCaseSensitive(d.root, "format") : NULL;
        yes = cJSON_IsString(f) && strcmp(f->valuestring, "placeto-episode") == 0;
        jdoc_done(&d);
    }
    free(text);
    return yes;
}

/* The episode file's graph, cluster and grouping, and its current placement
 * as the placement (GRAPH, when it is another file, must be the same
 * graph); simulated once. */
static int load_episode(const CliCmd *cmd, const CliArgs *a, const char *graph_path, const char *ep_path, Problem *p,
                        const SimResult **r, Err *e)
{
    static const char *const fixed[] = {"cluster", "devices", "groups"};
    for (int k = 0; k < 3; k++)
        if (cli_get(cmd, a, fixed[k]))
            return cli_usage_error(cmd, "--%s cannot be used with an episode file (%s): it fixes the graph, the cluster "
                                   "and the grouping", fixed[k], ep_path);
    EpisodeFile f;
    if (episode_load(ep_path, &f, e) != 0)
        return EXIT_FAIL;
    if (graph_path && strcmp(graph_path, ep_path) != 0) { /* GRAPH and the episode's graph: the same ops */
        Graph *g = graph_load(graph_path, e);
        int same = g && g->n_nodes == f.pb.g->n_nodes;
        for (int i = 0; same && i < g->n_nodes; i++)
            same = strcmp(g->nodes[i].name, f.pb.g->nodes[i].name) == 0;
        if (g && !same)
            err_set(e, "%s: an episode of graph \"%s\" (%s), not of %s (give that graph, or the episode alone)",
                    ep_path, f.pb.g->name, f.pb.g->path ? f.pb.g->path : "?", graph_path);
        graph_free(g);
        if (!same) {
            episode_file_free(&f);
            return EXIT_FAIL;
        }
    }
    *p = f.pb;
    memset(&f.pb, 0, sizeof f.pb);
    p->pl = placement_new(p->g->n_nodes, p->c->n_devices);
    memcpy(p->pl->op_device, f.ep->op_device, (size_t)p->g->n_nodes * sizeof *p->pl->op_device);
    fprintf(stderr, "placeto: %s: the episode's current placement (step %d of %d) of %s on %s\n", ep_path,
            f.ep->cursor, f.ep->n_order, p->g->name, p->c->name);
    episode_file_free(&f);
    *r = sim_run(p->sim, p->pl->op_device);
    return EXIT_OK;
}

/* Graph, placement, cluster (default: the placement's device count) and,
 * for a render of groups, the grouping; simulated once. An episode file as
 * the placement (or as GRAPH, without --placement) gives all of them. */
static int load(const CliCmd *cmd, const CliArgs *a, Problem *p, const SimResult **r, Err *e)
{
    ProblemSpec spec;
    memset(p, 0, sizeof *p);
    int ops = render_ops(cmd, a);
    if (ops < 0)
        return EXIT_USAGE;
    const char *pl = cli_get(cmd, a, "placement");
    if (pl ? is_episode_file(pl) : is_episode_file(a->pos[0]))
        return load_episode(cmd, a, a->pos[0], pl ? pl : a->pos[0], p, r, e);
    if (cli_problem(cmd, a, a->pos[0], 1L << 30, &spec, NULL))
        return EXIT_USAGE;
    spec.placement_path = cli_get(cmd, a, "placement");
    if (!wants_render(cmd, a) || ops)
        spec.groups = -1; /* only a render of groups needs them */
    if (problem_load(p, &spec, e) != 0)
        return EXIT_FAIL;
    *r = sim_run(p->sim, p->pl->op_device);
    return EXIT_OK;
}

static int write_exports(const CliCmd *cmd, const CliArgs *a, const Problem *p, const SimResult *r, Err *e,
                         int quiet)
{
    const char *trace = cli_get(cmd, a, "trace");
    if (trace) {
        if (export_trace(trace, p->g, p->c, r, e) != 0)
            return -1;
        if (!quiet)
            fprintf(stderr, "placeto: wrote Chrome trace %s\n", trace);
    }
    ExportDot o = {cli_get(cmd, a, "dot"), cli_get(cmd, a, "svg"), cli_get(cmd, a, "png"), render_ops(cmd, a) == 1};
    if (o.dot || o.svg || o.png) {
        if (export_dot_files(&o, p->g, p->gr, p->c, p->pl->op_device, r, e) != 0)
            return -1;
        const char *kind[3] = {"DOT", "SVG", "PNG"}, *path[3] = {o.dot, o.svg, o.png};
        for (int k = 0; k < 3; k++)
            if (path[k] && !quiet)
                fprintf(stderr, "placeto: wrote %s %s\n", kind[k], path[k]);
    }
    return 0;
}

static void print_json(const Problem *p, const SimResult *r, double sims_per_s)
{
    const Graph *g = p->g;
    const Cluster *c = p->c;
    JWriter w;
    jw_init(&w, stdout);
    jw_object(&w);
    jw_key(&w, "makespan_us");
    jw_number(&w, r->makespan_us);
    jw_break(&w);
    jw_key(&w, "devices");
    jw_array(&w);
    for (int d = 0; d < c->n_devices; d++) {
        jw_break(&w);
        jw_object(&w);
        jw_key(&w, "name");
        jw_string(&w, c->devices[d].name);
        jw_key(&w, "busy_us");
        jw_number(&w, r->busy_us[d]);
        jw_key(&w, "peak_memory_bytes");
        jw_int(&w, r->peak_memory_bytes[d]);
        jw_key(&w, "memory_bytes");
        jw_int(&w, c->devices[d].memory_bytes);
        jw_key(&w, "oom");
        jw_bool(&w, r->oom[d]);
        jw_end(&w);
    }
    jw_end(&w);
    jw_break(&w);
    jw_key(&w, "ops");
    jw_array(&w);
    for (int i = 0; i < r->n_ops; i++) {
        jw_break(&w);
        jw_object(&w);
        jw_key(&w, "name");
        jw_string(&w, g->nodes[i].name);
        jw_key(&w, "device");
        jw_int(&w, r->device[i]);
        jw_key(&w, "start_us");
        jw_number(&w, r->start_us[i]);
        jw_key(&w, "end_us");
        jw_number(&w, r->end_us[i]);
        jw_end(&w);
    }
    jw_end(&w);
    jw_break(&w);
    jw_key(&w, "transfers");
    jw_array(&w);
    for (int k = 0; k < r->n_transfers; k++) {
        const SimTransfer *t = &r->transfers[k];
        jw_break(&w);
        jw_object(&w);
        jw_key(&w, "src");
        jw_string(&w, g->nodes[t->src].name);
        jw_key(&w, "output");
        jw_int(&w, t->output);
        jw_key(&w, "bytes");
        jw_int(&w, t->bytes);
        jw_key(&w, "from");
        jw_int(&w, t->from);
        jw_key(&w, "to");
        jw_array(&w);
        for (int m = 0; m < t->n_to; m++)
            jw_int(&w, t->to[m]);
        jw_end(&w);
        jw_key(&w, "start_us");
        jw_number(&w, t->start_us);
        jw_key(&w, "end_us");
        jw_number(&w, t->end_us);
        jw_end(&w);
    }
    jw_end(&w);
    jw_break(&w);
    jw_key(&w, "lower_bound_us");
    jw_number(&w, bound_lower(g, c));
    if (sims_per_s > 0) {
        jw_break(&w);
        jw_key(&w, "simulations_per_second");
        jw_number(&w, sims_per_s);
    }
    jw_finish(&w);
}

static void print_text(const Problem *p, const SimResult *r, double sims_per_s)
{
    const Cluster *c = p->c;
    char b1[32], b2[32], b3[32];
    double lb = bound_lower(p->g, c);
    printf("%s on %s: %d ops\n", p->g->name, c->name, p->g->n_nodes);
    if (lb > 0)
        printf("runtime      %s  (%s the lower bound %s)\n", util_fmt_time(b1, r->makespan_us),
               util_fmt_ratio(b3, r->makespan_us, lb), util_fmt_time(b2, lb));
    else
        printf("runtime      %s  (the lower bound is 0: no ratio)\n", util_fmt_time(b1, r->makespan_us));
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
    if (!cli_get(&cmd_simulate, &a, "placement") && !is_episode_file(a.pos[0]))
        return cli_usage_error(&cmd_simulate, "missing --placement FILE (or give an episode file instead of GRAPH)");
    long repeat;
    if (cli_int_or(&cmd_simulate, &a, "repeat", 0, &repeat))
        return EXIT_USAGE;
    Err e = {{0}};
    Problem p;
    const SimResult *r = NULL;
    if ((rc = load(&cmd_simulate, &a, &p, &r, &e)) != EXIT_OK) {
        problem_free(&p);
        return rc == EXIT_USAGE ? rc : cli_fail(&e);
    }
    double sims_per_s = 0;
    if (repeat > 0) {
        double t0 = util_now();
        for (long k = 0; k < repeat; k++)
            r = sim_run(p.sim, p.pl->op_device);
        double dt = util_now() - t0;
        sims_per_s = dt > 0 ? (double)repeat / dt : 0;
    }
    int json = cli_get(&cmd_simulate, &a, "json") != NULL;
    if (write_exports(&cmd_simulate, &a, &p, r, &e, json) != 0) {
        problem_free(&p);
        return cli_fail(&e);
    }
    if (json)
        print_json(&p, r, sims_per_s);
    else
        print_text(&p, r, sims_per_s);
    problem_free(&p);
    return EXIT_OK;
}

static int run_export(int argc, char **argv)
{
    CliArgs a;
    int stop, rc = cli_parse_graph(&cmd_export, argc, argv, &a, NULL, &stop);
    if (stop)
        return rc;
    const char *gj = cli_get(&cmd_export, &a, "graph-json");
    int wants_placement = wants_render(&cmd_export, &a) || cli_get(&cmd_export, &a, "trace");
    if (!gj && !wants_placement)
        return cli_usage_error(&cmd_export,
                               "nothing to export: give --dot OUT, --svg OUT, --png OUT, --trace OUT or --graph-json OUT");
    if (wants_placement && !cli_get(&cmd_export, &a, "placement") && !is_episode_file(a.pos[0]))
        return cli_usage_error(&cmd_export, "--dot, --svg, --png and --trace need --placement FILE (or an episode file "
                               "instead of GRAPH)");
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
    Problem p;
    const SimResult *r = NULL;
    if ((rc = load(&cmd_export, &a, &p, &r, &e)) != EXIT_OK || write_exports(&cmd_export, &a, &p, r, &e, 0) != 0) {
        problem_free(&p);
        return rc == EXIT_USAGE ? rc : cli_fail(&e);
    }
    problem_free(&p);
    return EXIT_OK;
}
