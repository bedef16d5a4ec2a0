/* info: a graph's size, groups, total cost, critical path and lower bounds. */
#include <stdlib.h>
#include <string.h>

#include "bound.h"
#include "cli.h"
#include "jwrite.h"

static const CliOpt info_opts[] = {
    CLI_OPT_GROUPS,
    {.name = "cluster", .short_name = 'c', .arg = "FILE", .help = "also give the lower bound on this cluster"},
    {.name = "devices", .short_name = 'n', .arg = "N", .type = AGENT_OPT_INT, .min = 1, .max = CLUSTER_MAX_DEVICES,
     .help = "also give the lower bound on N default devices"},
    {.name = "json", .help = "machine-readable output on stdout"},
    {0},
};

static int run_info(int argc, char **argv);

const CliCmd cmd_info = {
    .name = "info",
    .brief = "ops, edges, groups, critical path and lower bounds of a graph",
    .usage = "GRAPH [--groups G] [--cluster FILE | --devices N] [--json]",
    .summary =
        "Show a computation graph: ops, edges, groups, total cost, the critical path and the\n"
        "lower bound on the runtime of any placement for 1, 2, 4 and 8 default devices.",
    .details =
        "GRAPH is a placeto-graph .json file or a .dot file.\n"
        "example: placeto info graphs/resnet18.json --devices 3",
    .opts = info_opts,
    .run = run_info,
};

static void print_json(const Graph *g, const Grouping *gr, double cp, const Cluster *extra)
{
    JWriter w;
    jw_init(&w, stdout);
    jw_object(&w);
    jw_key(&w, "name");
    jw_string(&w, g->name);
    jw_key(&w, "ops");
    jw_int(&w, g->n_nodes);
    jw_key(&w, "edges");
    jw_int(&w, g->n_edges);
    jw_key(&w, "groups");
    jw_int(&w, gr->n_groups);
    jw_key(&w, "group_edges");
    jw_int(&w, gr->n_edges);
    jw_key(&w, "total_cost_us");
    jw_number(&w, graph_total_cost(g));
    jw_key(&w, "critical_path_us");
    jw_number(&w, cp);
    jw_key(&w, "lower_bound_us");
    jw_object(&w);
    static const int counts[] = {1, 2, 4, 8};
    for (int k = 0; k < 4; k++) {
        char key[16];
        snprintf(key, sizeof key, "%d", counts[k]);
        Cluster *c = cluster_default(counts[k]);
        jw_key(&w, key);
        jw_number(&w, bound_lower(g, c));
        cluster_free(c);
    }
    jw_end(&w);
    if (extra) {
        jw_key(&w, "cluster");
        jw_string(&w, extra->name);
        jw_key(&w, "cluster_lower_bound_us");
        jw_number(&w, bound_lower(g, extra));
    }
    jw_finish(&w);
}

static void print_text(const Graph *g, const Grouping *gr, double cp, const int *path, int path_len,
                       const Cluster *extra)
{
    char b1[32], b2[32];
    double total = graph_total_cost(g);
    int64_t bytes = 0;
    for (int i = 0; i < g->n_nodes; i++)
        bytes += graph_node_bytes(g, i);
    printf("graph          %s (%s)\n", g->name, g->path);
    if (g->source[0]) {
        /* first line of the source, shortened */
        char src[100];
        snprintf(src, sizeof src, "%s", g->source);
        char *nl = strchr(src, '\n');
        if (nl)
            *nl = '\0';
        printf("source         %s%s\n", src, strlen(g->source) > 99 ? "..." : "");
    }
    printf("ops            %d\n", g->n_nodes);
    printf("edges          %d\n", g->n_edges);
    if (gr->target == GROUP_CHAINS)
        printf("groups         %d (HSDAG's chain coarsening), %d group edges\n", gr->n_groups, gr->n_edges);
    else
        printf("groups         %d (target %d), %d group edges\n", gr->n_groups, gr->target, gr->n_edges);
    printf("total cost     %s\n", util_fmt_time(b1, total));
    printf("output bytes   %s\n", util_fmt_bytes(b1, (double)bytes));
    printf("critical path  %s over %d ops (%.1f%% of the total cost)\n", util_fmt_time(b1, cp), path_len,
           total > 0 ? 100.0 * cp / total : 0.0);
    printf("               ");
    for (int k = 0; k < path_len; k++) {
        if (k == 3 && path_len > 6) {
            printf(" -> ... (%d more)", path_len - 5);
            k = path_len - 3;
            continue;
        }
        printf("%s%s", k ? " -> " : "", g->nodes[path[k]].name);
    }
    printf("\nlower bound    ");
    static const int counts[] = {1, 2, 4, 8};
    for (int k = 0; k < 4; k++) {
        Cluster *c = cluster_default(counts[k]);
        printf("%s%d: %s", k ? ", " : "", counts[k], util_fmt_time(b2, bound_lower(g, c)));
        cluster_free(c);
    }
    printf(" (default devices)\n");
    if (extra)
        printf("               %s on %s\n", util_fmt_time(b1, bound_lower(g, extra)), extra->name);
}

static int run_info(int argc, char **argv)
{
    CliArgs a;
    int stop, rc = cli_parse_graph(&cmd_info, argc, argv, &a, NULL, &stop);
    if (stop)
        return rc;
    ProblemSpec spec;
    if (cli_problem(&cmd_info, &a, a.pos[0], 1L << 30, &spec, NULL))
        return EXIT_USAGE;
    /* the lower bound on a cluster is given only when one is named */
    int extra = cli_get(&cmd_info, &a, "cluster") || cli_get(&cmd_info, &a, "devices");
    spec.no_sim = 1;
    Err e = {{0}};
    Problem p;
    if (problem_load(&p, &spec, &e) != 0) {
        problem_free(&p);
        return cli_fail(&e);
    }
    int *path = xnew_array((size_t)p.g->n_nodes, sizeof *path), path_len = 0;
    double cp = bound_critical_path(p.g, NULL, path, &path_len);
    if (cli_get(&cmd_info, &a, "json"))
        print_json(p.g, p.gr, cp, extra ? p.c : NULL);
    else
        print_text(p.g, p.gr, cp, path, path_len, extra ? p.c : NULL);
    free(path);
    problem_free(&p);
    return EXIT_OK;
}
