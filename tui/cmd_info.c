/* info: a graph's size, groups, total cost, critical path and lower bounds. */
#include <stdlib.h>
#include <string.h>

#include "bound.h"
#include "cli.h"

static const CliOpt info_opts[] = {
    {"groups", 'g', "G", "target group count (default: by graph size)"},
    {"cluster", 'c', "FILE", "also give the lower bound on this cluster"},
    {"devices", 'n', "N", "also give the lower bound on N default devices"},
    {"json", 0, NULL, "machine-readable output on stdout"},
    {0},
};

static int run_info(int argc, char **argv);

const CliCmd cmd_info = {
    "info", "ops, edges, groups, critical path and lower bounds of a graph", "GRAPH [--groups G] [--cluster FILE | --devices N] [--json]",
    "Show a computation graph: ops, edges, groups, total cost, the critical path and the\n"
    "lower bound on the runtime of any placement for 1, 2, 4 and 8 default devices.",
    "GRAPH is a placeto-graph .json file or a .dot file.\n"
    "example: placeto info graphs/resnet18.json --devices 3",
    info_opts, run_info,
};

static void print_json(const Graph *g, const Grouping *gr, double cp, const Cluster *extra)
{
    char b[32];
    fputs("{\"name\": ", stdout);
    util_json_string(stdout, g->name);
    printf(", \"ops\": %d, \"edges\": %d, \"groups\": %d, \"group_edges\": %d", g->n_nodes, g->n_edges,
           gr->n_groups, gr->n_edges);
    printf(", \"total_cost_us\": %s", util_fmt_double(b, graph_total_cost(g)));
    printf(", \"critical_path_us\": %s, \"lower_bound_us\": {", util_fmt_double(b, cp));
    static const int counts[] = {1, 2, 4, 8};
    for (int k = 0; k < 4; k++) {
        Cluster *c = cluster_default(counts[k]);
        printf("%s\"%d\": %s", k ? ", " : "", counts[k], util_fmt_double(b, bound_lower(g, c)));
        cluster_free(c);
    }
    fputc('}', stdout);
    if (extra) {
        fputs(", \"cluster\": ", stdout);
        util_json_string(stdout, extra->name);
        printf(", \"cluster_lower_bound_us\": %s", util_fmt_double(b, bound_lower(g, extra)));
    }
    fputs("}\n", stdout);
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
    long groups;
    if (cli_int(&cmd_info, &a, "groups", 1, 1L << 30, 0, &groups))
        return EXIT_USAGE;
    Err e = {{0}};
    Graph *g = graph_load(a.pos[0], &e);
    if (!g)
        return cli_fail(&e);
    Cluster *extra = NULL;
    if (cli_get(&cmd_info, &a, "cluster") || cli_get(&cmd_info, &a, "devices")) {
        extra = cli_cluster(&cmd_info, &a, 1, &e);
        if (!extra) {
            graph_free(g);
            return cli_fail(&e);
        }
    }
    Grouping *gr = group_build(g, (int)groups, &e);
    if (!gr) {
        err_prefix(&e, a.pos[0]);
        graph_free(g);
        cluster_free(extra);
        return cli_fail(&e);
    }
    int *path = xmalloc((size_t)g->n_nodes * sizeof *path), path_len = 0;
    double cp = bound_critical_path(g, NULL, path, &path_len);
    if (cli_get(&cmd_info, &a, "json"))
        print_json(g, gr, cp, extra);
    else
        print_text(g, gr, cp, path, path_len, extra);
    free(path);
    group_free(gr);
    cluster_free(extra);
    graph_free(g);
    return EXIT_OK;
}
