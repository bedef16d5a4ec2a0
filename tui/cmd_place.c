/* place and compare: run the placement methods of core/place.h on a graph
 * and score them with the simulator. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bound.h"
#include "cli.h"
#include "place.h"
#include "sim.h"
#include "policy_io.h"
#include "train.h"

static const CliOpt place_opts[] = {
    {"method", 'm', "M", "placement method (see below)"},
    {"policy", 'p', "POLICY", "place with a trained Placeto policy (zero-shot)"},
    {"samples", 0, "K", "with --policy: K sampled episodes after the greedy one (default 0)"},
    {"output", 'o', "FILE", "write the placement (ops form)"},
    {"cluster", 'c', "FILE", "cluster file"},
    {"devices", 'n', "N", "N default devices (default 2)"},
    {"groups", 'g', "G", "target group count (default: by graph size)"},
    {"seed", 's', "S", "seed of randomised methods (default 0)"},
    {"json", 0, NULL, "machine-readable result on stdout"},
    {0},
};

static const CliOpt compare_opts[] = {
    {"methods", 'm', "LIST", "comma-separated methods (default: all)"},
    {"policy", 'p', "POLICY", "add Placeto rows from a trained policy"},
    {"samples", 0, "K", "with --policy: K sampled episodes after the greedy one (default 0)"},
    {"cluster", 'c', "FILE", "cluster file"},
    {"devices", 'n', "N", "N default devices (default 2)"},
    {"groups", 'g', "G", "target group count (default: by graph size)"},
    {"seed", 's', "S", "seed of randomised methods (default 0)"},
    {"json", 0, NULL, "machine-readable result on stdout"},
    {0},
};

static int run_place(int argc, char **argv);
static int run_compare(int argc, char **argv);

const CliCmd cmd_place = {
    "place", "make a placement with a baseline method", "GRAPH --method M [-o P] [--devices N | --cluster F]",
    "Make a placement of GRAPH with a baseline method and report its simulated runtime.",
    "methods: see 'placeto compare --help'. With --policy the method is 'placeto': one greedy\n"
    "episode of the policy (and K sampled ones with --samples K); the best placement seen wins.\n"
    "example: placeto place graphs/inception_v3.json --method heft --devices 4 -o p.json\n"
    "example: placeto place graphs/nmt.json --policy graphs/policies/nmt_4.json --devices 4",
    place_opts, run_place,
};

const CliCmd cmd_compare = {
    "compare", "every method side by side on the simulator", "GRAPH [--methods LIST] [--devices N | --cluster F] [--json]",
    "Run every placement method on GRAPH and compare them on the simulator: runtime, speed-up\n"
    "over a single device, ratio to the lower bound, peak memory, OOM, time taken.",
    "With --policy: a row 'placeto' (the policy placing the graph zero-shot: one greedy episode,\n"
    "K sampled ones with --samples K) and, when the policy was trained on this graph, a row\n"
    "'placeto-trained' with the best placement its training found.\n"
    "example: placeto compare graphs/nmt.json --devices 4\n"
    "example: placeto compare graphs/inception_v3.json --devices 2 --policy graphs/policies/inception_v3_2.json",
    compare_opts, run_compare,
};

/* What both commands load from their arguments. */
typedef struct Setup {
    Graph *g;
    Cluster *c;
    Grouping *gr;
    Sim *sim;
    uint64_t seed;
} Setup;

static void setup_done(Setup *s)
{
    sim_free(s->sim);
    group_free(s->gr);
    cluster_free(s->c);
    graph_free(s->g);
}

static int setup(const CliCmd *cmd, const CliArgs *a, Setup *s, Err *e)
{
    memset(s, 0, sizeof *s);
    long groups, seed;
    if (cli_int(cmd, a, "groups", 1, 1L << 30, 0, &groups) || cli_int(cmd, a, "seed", 0, 1L << 62, 0, &seed))
        return EXIT_USAGE;
    s->seed = (uint64_t)seed;
    if (!(s->g = graph_load(a->pos[0], e)) || !(s->c = cli_cluster(cmd, a, 2, e)))
        return EXIT_FAIL;
    if (!(s->gr = group_build(s->g, (int)groups, e))) {
        err_prefix(e, a->pos[0]);
        return EXIT_FAIL;
    }
    s->sim = sim_new(s->g, s->c);
    return EXIT_OK;
}

/* One method's outcome. */
typedef struct Row {
    const char *method;
    double runtime_us, seconds;
    int64_t *peak;
    int oom;
} Row;

static int run_method(const Setup *s, const PlaceMethod *m, int *dev, Row *row, Err *e)
{
    PlaceCtx ctx = {s->g, s->gr, s->c, s->seed};
    double t0 = util_now();
    if (m->fn(&ctx, dev, e) != 0) {
        err_prefix(e, m->name);
        return -1;
    }
    row->seconds = util_now() - t0;
    for (int i = 0; i < s->g->n_nodes; i++)
        if (dev[i] < 0 || dev[i] >= s->c->n_devices)
            return err_set(e, "%s: placed op %s on device %d of %d", m->name, s->g->nodes[i].name, dev[i],
                           s->c->n_devices);
    const SimResult *r = sim_run(s->sim, dev);
    row->method = m->name;
    row->runtime_us = r->makespan_us;
    row->oom = r->any_oom;
    row->peak = xmalloc((size_t)s->c->n_devices * sizeof *row->peak);
    memcpy(row->peak, r->peak_memory_bytes, (size_t)s->c->n_devices * sizeof *row->peak);
    return 0;
}

/* Scores a per-group placement as row `name`. */
static void score_groups(const Setup *s, const int *group_device, const char *name, double seconds, int *dev,
                         Row *row)
{
    PlaceCtx ctx = {s->g, s->gr, s->c, s->seed};
    place_expand_groups(&ctx, group_device, dev);
    const SimResult *r = sim_run(s->sim, dev);
    row->method = name;
    row->runtime_us = r->makespan_us;
    row->seconds = seconds;
    row->oom = r->any_oom;
    row->peak = xmalloc((size_t)s->c->n_devices * sizeof *row->peak);
    memcpy(row->peak, r->peak_memory_bytes, (size_t)s->c->n_devices * sizeof *row->peak);
}

/* The Placeto rows: "placeto" (zero-shot) and, when the policy's training
 * state holds a best placement of this very graph and grouping,
 * "placeto-trained". Returns the rows added (0..2), or -1 with e set; dev
 * ends holding the zero-shot placement per op. */
static int policy_rows(const Setup *s, const char *path, int samples, Row *rows, int *dev, Err *e)
{
    TrainState ts;
    Policy *pol = policy_load(path, &ts, e);
    if (!pol)
        return -1;
    EpisodeConfig cfg;
    episode_config_default(&cfg);
    cfg.mem_feature = pol->arch.mem_feature;
    int *gd = xmalloc(((size_t)s->gr->n_groups + 1) * sizeof *gd);
    double rt = 0, t0 = util_now();
    int n = 0;
    if (policy_place(pol, s->g, s->gr, s->c, &cfg, samples, s->seed, gd, &rt, e) < 0) {
        err_prefix(e, path);
        n = -1;
        goto done;
    }
    for (int i = 0; i < ts.n_best; i++) {
        const TrainBest *b = &ts.best[i];
        if (strcmp(b->graph, s->g->name) == 0 && b->checksum == s->g->checksum &&
            b->n_groups == s->gr->n_groups && isfinite(b->runtime_us) && pol->arch.n_devices == s->c->n_devices)
            score_groups(s, b->group_device, "placeto-trained", NAN, dev, &rows[n++]); /* time: training */
    }
    score_groups(s, gd, "placeto", util_now() - t0, dev, &rows[n++]);
done:
    free(gd);
    policy_free(pol);
    train_state_done(&ts);
    return n;
}

static void method_list(FILE *f)
{
    int n;
    const PlaceMethod *m = place_methods(&n);
    fputs("methods:\n", f);
    for (int k = 0; k < n; k++)
        fprintf(f, "  %-12s %s\n", m[k].name, m[k].help);
}

static int run_place(int argc, char **argv)
{
    CliArgs a;
    int stop, rc = cli_parse_graph(&cmd_place, argc, argv, &a, method_list, &stop);
    if (stop)
        return rc;
    const char *name = cli_get(&cmd_place, &a, "method"), *policy = cli_get(&cmd_place, &a, "policy");
    long samples;
    if (!name && !policy)
        return cli_usage_error(&cmd_place, "missing --method M or --policy POLICY");
    if (name && policy)
        return cli_usage_error(&cmd_place, "give --method or --policy, not both");
    if (cli_int(&cmd_place, &a, "samples", 0, 1000000, 0, &samples))
        return EXIT_USAGE;
    static const PlaceMethod placeto = {"placeto", "a trained Placeto policy", NULL};
    const PlaceMethod *m = policy ? &placeto : place_find(name);
    if (!m) {
        cli_usage_error(&cmd_place, "unknown method '%s'", name);
        method_list(stderr);
        return EXIT_USAGE;
    }
    Err e = {{0}};
    Setup s;
    if ((rc = setup(&cmd_place, &a, &s, &e)) != EXIT_OK) {
        setup_done(&s);
        return rc == EXIT_USAGE ? rc : cli_fail(&e);
    }
    int *dev = xmalloc((size_t)s.g->n_nodes * sizeof *dev);
    Row row = {0};
    const char *out = cli_get(&cmd_place, &a, "output");
    Placement p = {s.g->n_nodes, s.c->n_devices, dev, NULL};
    Row prow[2] = {{0}};
    int np = 0;
    if (policy) {
        np = policy_rows(&s, policy, (int)samples, prow, dev, &e);
        if (np > 0) { /* the zero-shot row is the last; dev holds its placement */
            row = prow[np - 1];
            prow[np - 1].peak = NULL;
        }
        for (int k = 0; k < np; k++)
            free(prow[k].peak);
    }
    if ((policy ? np < 0 : run_method(&s, m, dev, &row, &e) != 0) ||
        (out && placement_write(&p, s.g, s.c, out, &e) != 0)) {
        free(dev);
        free(row.peak);
        setup_done(&s);
        return cli_fail(&e);
    }
    char b1[32], b2[32];
    if (cli_get(&cmd_place, &a, "json")) {
        printf("{\"method\": \"%s\", \"runtime_us\": %s, \"oom\": %s, \"seconds\": %s,\n \"placement\": ", m->name,
               util_fmt_double(b1, row.runtime_us), row.oom ? "true" : "false", util_fmt_double(b2, row.seconds));
        placement_print(&p, s.g, s.c, stdout);
        puts("}");
    } else {
        double lb = bound_lower(s.g, s.c);
        printf("%s on %s with %s: runtime %s (%.3fx the lower bound)%s\n", s.g->name, s.c->name, m->name,
               util_fmt_time(b1, row.runtime_us), lb > 0 ? row.runtime_us / lb : 0.0, row.oom ? ", OUT OF MEMORY" : "");
        if (out)
            fprintf(stderr, "placeto: wrote placement %s\n", out);
    }
    free(dev);
    free(row.peak);
    setup_done(&s);
    return EXIT_OK;
}

static int by_runtime(const void *x, const void *y)
{
    const Row *a = x, *b = y;
    if (a->runtime_us != b->runtime_us)
        return a->runtime_us < b->runtime_us ? -1 : 1;
    return strcmp(a->method, b->method);
}

static int run_compare(int argc, char **argv)
{
    CliArgs a;
    int stop, rc = cli_parse_graph(&cmd_compare, argc, argv, &a, method_list, &stop);
    if (stop)
        return rc;
    /* the methods to run, checked before any work */
    int n_all;
    const PlaceMethod *all = place_methods(&n_all);
    const PlaceMethod **chosen = xmalloc((size_t)n_all * 4 * sizeof *chosen);
    int n = 0;
    const char *list = cli_get(&cmd_compare, &a, "methods");
    if (!list) {
        for (int k = 0; k < n_all; k++)
            chosen[n++] = &all[k];
    } else {
        char *copy = xstrdup(list), *save = NULL;
        for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            const PlaceMethod *m = place_find(tok);
            if (!m || n == n_all * 4) {
                cli_usage_error(&cmd_compare, m ? "too many methods ('%s')" : "unknown method '%s'", tok);
                method_list(stderr);
                free(copy);
                free(chosen);
                return EXIT_USAGE;
            }
            chosen[n++] = m;
        }
        free(copy);
    }
    Err e = {{0}};
    Setup s;
    if ((rc = setup(&cmd_compare, &a, &s, &e)) != EXIT_OK) {
        free(chosen);
        setup_done(&s);
        return rc == EXIT_USAGE ? rc : cli_fail(&e);
    }
    long samples;
    const char *policy = cli_get(&cmd_compare, &a, "policy");
    if (cli_int(&cmd_compare, &a, "samples", 0, 1000000, 0, &samples)) {
        free(chosen);
        setup_done(&s);
        return EXIT_USAGE;
    }
    Row *rows = xcalloc((size_t)n + 2, sizeof *rows);
    int *dev = xmalloc((size_t)s.g->n_nodes * sizeof *dev);
    double single = 0;
    for (int k = 0; k < n; k++) {
        if (run_method(&s, chosen[k], dev, &rows[k], &e) != 0) {
            for (int j = 0; j < k; j++)
                free(rows[j].peak);
            free(rows);
            free(dev);
            free(chosen);
            setup_done(&s);
            return cli_fail(&e);
        }
    }
    if (policy) {
        int k = policy_rows(&s, policy, (int)samples, rows + n, dev, &e);
        if (k < 0) {
            for (int j = 0; j < n; j++)
                free(rows[j].peak);
            free(rows);
            free(dev);
            free(chosen);
            setup_done(&s);
            return cli_fail(&e);
        }
        n += k;
    }
    /* the speed-up is over everything on the fastest device */
    Row ref = {0};
    if (run_method(&s, place_find("single"), dev, &ref, &e) == 0)
        single = ref.runtime_us;
    free(ref.peak);
    qsort(rows, (size_t)n, sizeof *rows, by_runtime);
    double lb = bound_lower(s.g, s.c);
    char b1[32], b2[32];
    if (cli_get(&cmd_compare, &a, "json")) {
        fputs("{\"graph\": ", stdout);
        util_json_string(stdout, s.g->name);
        printf(", \"devices\": %d, \"cluster\": ", s.c->n_devices);
        util_json_string(stdout, s.c->name);
        printf(", \"groups\": %d, \"lower_bound_us\": %s, \"single_us\": %s,\n \"methods\": [", s.gr->n_groups,
               util_fmt_double(b1, lb), util_fmt_double(b2, single));
        for (int k = 0; k < n; k++) {
            printf("%s\n  {\"method\": \"%s\", \"runtime_us\": %s, \"peak_memory_bytes\": [", k ? "," : "",
                   rows[k].method, util_fmt_double(b1, rows[k].runtime_us));
            for (int d = 0; d < s.c->n_devices; d++)
                printf("%s%lld", d ? ", " : "", (long long)rows[k].peak[d]);
            printf("], \"oom\": %s, \"seconds\": %s}", rows[k].oom ? "true" : "false",
                   isnan(rows[k].seconds) ? "null" : util_fmt_double(b2, rows[k].seconds));
        }
        puts("]}");
    } else {
        printf("%s on %s, %d groups\n", s.g->name, s.c->name, s.gr->n_groups);
        printf("%-15s %12s %9s %9s %12s %5s %10s\n", "method", "runtime", "speed-up", "vs bound", "peak memory",
               "OOM", "time");
        for (int k = 0; k < n; k++) {
            int64_t peak = 0;
            for (int d = 0; d < s.c->n_devices; d++)
                if (rows[k].peak[d] > peak)
                    peak = rows[k].peak[d];
            char tbuf[32];
            if (isnan(rows[k].seconds))
                snprintf(tbuf, sizeof tbuf, "training");
            else
                snprintf(tbuf, sizeof tbuf, "%.3fs", rows[k].seconds);
            printf("%-15s %12s %8.3fx %8.3fx %12s %5s %10s\n", rows[k].method, util_fmt_time(b1, rows[k].runtime_us),
                   rows[k].runtime_us > 0 ? single / rows[k].runtime_us : 0.0,
                   lb > 0 ? rows[k].runtime_us / lb : 0.0, util_fmt_bytes(b2, (double)peak), rows[k].oom ? "yes" : "no",
                   tbuf);
        }
        printf("%-15s %12s %8.3fx %8.3fx\n", "lower bound", util_fmt_time(b1, lb), lb > 0 ? single / lb : 0.0, 1.0);
    }
    for (int k = 0; k < n; k++)
        free(rows[k].peak);
    free(rows);
    free(dev);
    free(chosen);
    setup_done(&s);
    return EXIT_OK;
}
