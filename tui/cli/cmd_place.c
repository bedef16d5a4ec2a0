/* place and compare: run the placement methods (core/place/place.h) on a
 * graph through the one runner (place_run.h) and report them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bound.h"
#include "cli.h"
#include "jwrite.h"
#include "place.h"
#include "agent.h"
#include "data.h"
#include "place_run.h"
#include "par.h"
#include "progress.h"

/* --budget: what the local searches may spend (both commands). */
#define CLI_OPT_BUDGET                                                                                                 \
    {.name = "budget", .short_name = 'b', .arg = "K", .type = AGENT_OPT_INT, .min = 1, .max = 1L << 40,               \
     .help = "placements anneal and ils and a policy's zero-shot row (Placeto, lsearch, lsched) may simulate, their "  \
             "start included",                                                                                         \
     .note = "20000; on graphs over 2 500 ops 5e7 / ops, at least 1000"}

static const CliOpt place_opts[] = {
    {.name = "method", .short_name = 'm', .arg = "M", .help = "placement method (see below)"},
    {.name = "policy", .short_name = 'p', .arg = "POLICY", .help = "place with a trained policy (Placeto zero-shot, or rnn); 'auto': the bundled one (the better of the graph's own and lsearch)"},
    {.name = "samples", .arg = "K", .type = AGENT_OPT_INT, .min = 0, .max = 1000000, .def = "0",
     .help = "with --policy: K sampled episodes after the greedy one"},
    {.name = "start", .arg = "S", .type = AGENT_OPT_WORD, .choices = "random heuristic", .note = "heuristic with auto, else random",
     .help = "with --policy: start from random (the fixed random placement) or heuristic (gdp: the better of its placements and the best heuristic's)"},
    {.name = "output", .short_name = 'o', .arg = "FILE", .help = "write the placement (ops form)"},
    CLI_OPT_BUDGET,
    CLI_PROBLEM_OPTS("0"),
    {.name = "json", .help = "machine-readable result on stdout"},
    {0},
};

static const CliOpt compare_opts[] = {
    {.name = "methods", .short_name = 'm', .arg = "LIST", .help = "comma-separated methods", .note = "all"},
    {.name = "policy", .short_name = 'p', .arg = "POLICY", .help = "Placeto rows from a trained policy", .note = "without --methods: 'auto', the bundled one"},
    {.name = "no-policy", .help = "no Placeto rows"},
    {.name = "samples", .arg = "K", .type = AGENT_OPT_INT, .min = 0, .max = 1000000, .def = "0",
     .help = "with --policy: K sampled episodes after the greedy one"},
    {.name = "start", .arg = "S", .type = AGENT_OPT_WORD, .choices = "random heuristic", .note = "heuristic with auto, else random",
     .help = "with --policy: start from random (the fixed random placement) or heuristic (gdp: the better of its placements and the best heuristic's)"},
    {.name = "untrained", .help = "with --policy: also the control, the same network untrained (the weights training started from: the seed a Placeto file records, else --seed), placing by the same procedure"},
    CLI_OPT_BUDGET,
    CLI_PROBLEM_OPTS("0"),
    {.name = "json", .help = "machine-readable result on stdout"},
    {0},
};

static int run_place(int argc, char **argv);
static int run_compare(int argc, char **argv);

const CliCmd cmd_place = {
    .name = "place",
    .brief = "make a placement with a baseline method",
    .usage = "GRAPH --method M [-o P] [--devices N | --cluster F]",
    .summary = "Make a placement of GRAPH with a baseline method and report its simulated runtime.",
    .details =
        "methods: see 'placeto compare --help'. With --policy the method is 'placeto': one greedy\n"
        "episode of the policy (and K sampled ones with --samples K); the best placement seen wins.\n"
        "With --budget B a Placeto policy searches: episodes from the best placement so far (or a\n"
        "kick of it) until exactly B placements are simulated; a policy trained as a search\n"
        "(train --preset search) does so from the best heuristic's placement, 500 by default.\n"
        "--policy auto on a graph with its own bundled policy (graphs/policies/NAME_D.json for a\n"
        "graph file NAME.json on D devices, from the best heuristic's placement: 'placeto-refine')\n"
        "runs it and the learned local search (lsearch.json) at the same budget (--budget, else\n"
        "lsearch's 1000 placements) and keeps the faster (a tie: the graph's own), saying which and\n"
        "the other's runtime; on other graphs it takes lsearch.json, else the general Placeto one.\n"
        "example: placeto place graphs/inception_v3.json --method heft --devices 4 -o p.json\n"
        "example: placeto place graphs/nmt.json --policy graphs/policies/nmt_4.json --devices 4\n"
        "example: placeto place my_model.json --policy auto --devices 4\n"
        "example: placeto place graphs/inference/bert_base.json --cluster graphs/clusters/cpu_gpu1.json --method cpu-only",
    .opts = place_opts,
    .run = run_place,
};

const CliCmd cmd_compare = {
    .name = "compare",
    .brief = "every method side by side on the simulator",
    .usage = "GRAPH [--methods LIST] [--devices N | --cluster F] [--json]",
    .summary =
        "Run every placement method on GRAPH and compare them on the simulator: runtime, speed-up\n"
        "over a single device, ratio to the lower bound, peak memory, OOM, time taken.",
    .details =
        "Placeto rows: 'placeto' (a policy placing the graph zero-shot from the fixed random start:\n"
        "one greedy episode, K sampled ones with --samples K), or 'placeto-refine' (the same from the\n"
        "best heuristic's placement, with --start heuristic), and, when the policy was trained on\n"
        "this graph, 'placeto-trained' with the best placement its training found; a gdp policy's\n"
        "rows are 'gdp' and 'gdp-trained', and with --start heuristic 'gdp-or-heuristic' (the better\n"
        "of gdp's placement and the best heuristic's: a fallback, never slower than it). Without\n"
        "--policy and --methods the policy is 'auto' (see 'placeto place --help'), when one is bundled\n"
        "for the device count; on a graph with its own policy, both of auto's rows ('placeto-refine'\n"
        "and 'lsearch', at the same budget), place's choice the faster.\n"
        "On a cluster with devices of more than one kind, 'single' comes with one row per kind,\n"
        "'KIND-only' (e.g. 'cpu-only', 'gpu-only'): every op on that kind's fastest device; --methods\n"
        "and 'place --method' take these names too, on any cluster with a device of that kind.\n"
        "example: placeto compare graphs/nmt.json --devices 4\n"
        "example: placeto compare graphs/inference/resnet50.json --cluster graphs/clusters/cpu_gpu1.json\n"
        "example: placeto compare graphs/inception_v3.json --devices 2 --policy graphs/policies/inception_v3_2.json",
    .opts = compare_opts,
    .run = run_compare,
};

/* The rows of the policy file at path (read once per command:
 * agent_policy_cached, as cli_policy_shape read it). */
static int cli_policy_runs(const char *path, const Problem *pb, const AgentPlaceOpts *o, PlaceRun rows[2],
                           const char **start_name, Err *e)
{
    const TrainState *ts;
    const AgentPolicy *p = agent_policy_cached(path, &ts, e);
    return p ? agent_place_runs(p, ts, pb, o, rows, start_name, e) : -1;
}

/* The policy file and start of --policy/--start: 'auto' (or nothing, when
 * implicit) looks for the graph file's own bundled policy, then the learned
 * search, then the general one for the device count, and starts from the
 * best heuristic; with the graph's own policy, *rival (into rbuf) is the
 * learned search it is weighed against (data_auto_place_rival), else NULL.
 * Returns 1 with *path set (into buf), 0 when there is no policy to use, -1
 * after a usage error or -2 after a failure (both printed). */
static int resolve_policy(const CliCmd *cmd, const CliArgs *a, const Problem *p, int implicit, char *buf,
                          size_t n, const char **path, AgentStart *start, char *rbuf, size_t rn, const char **rival)
{
    *rival = NULL;
    const char *pol = cli_get(cmd, a, "policy"), *st = cli_get(cmd, a, "start");
    if (cli_word(cmd, a, "start", &st))
        return -1;
    if (st && !pol && !implicit) {
        cli_usage_error(cmd, "--start needs --policy");
        return -1;
    }
    if (cli_get(cmd, a, "samples") && !pol && !implicit) {
        cli_usage_error(cmd, "--samples needs --policy (the sampled episodes are the policy's)");
        return -1;
    }
    int is_auto = (!pol && implicit) || (pol && strcmp(pol, "auto") == 0);
    *start = st ? (strcmp(st, "heuristic") == 0 ? AGENT_START_HEURISTIC : AGENT_START_DEFAULT)
                : (is_auto ? AGENT_START_HEURISTIC : AGENT_START_DEFAULT);
    if (!pol && !implicit)
        return 0;
    if (!is_auto) {
        *path = pol;
        return 1;
    }
    *path = data_auto_place_policy(p->g->path, p->c->n_devices, buf, n);
    if (*path)
        *rival = data_auto_place_rival(p->g->path, p->c->n_devices, rbuf, rn);
    if (!*path && pol) {
        Err e;
        err_set(&e, "--policy auto: no bundled policy for %d devices (graphs/policies/lsearch.json or general_%d.json)",
                p->c->n_devices, p->c->n_devices);
        cli_fail(&e);
        return -2;
    }
    if (*path && !st) { /* auto's start: the best heuristic's, for an agent that refines one (lsearch starts there itself) */
        Err e = {{0}};
        const AgentPolicy *ap = agent_policy_cached(*path, NULL, &e);
        if (ap && ap->kind->place.refine == AGENT_REFINE_NONE)
            *start = AGENT_START_DEFAULT; /* a broken file is reported when it is placed */
    }
    return *path ? 1 : 0;
}

/* The rows of --policy auto on a graph with its own bundled policy: the
 * rival's (the learned search) into rrows at o->budget (0: its default),
 * then the own policy's into rows at the placements the rival simulated
 * (o->budget when given), so that both spend the same budget, which goes to
 * *budget; the own policy file is read first, so that a broken one is the
 * one named. Sets *nr and returns the own policy's row count as
 * cli_policy_runs does; -1 with e set and nothing to free on failure. */
static int auto_runs(const char *policy, const char *rival, const Problem *pb, const AgentPlaceOpts *o,
                     PlaceRun rows[2], const char **start_name, PlaceRun rrows[2], int *nr,
                     const char **rival_start, int64_t *budget, Err *e)
{
    AgentPlaceOpts own = *o, ls = *o;
    ls.start = AGENT_START_DEFAULT; /* the learned search starts from the best heuristic itself */
    *nr = 0;
    if (!agent_policy_cached(policy, NULL, e)) /* a broken own policy is named before the rival */
        return -1;
    if ((*nr = cli_policy_runs(rival, pb, &ls, rrows, rival_start, e)) < 0) {
        *nr = 0;
        return -1;
    }
    own.budget = o->budget > 0 ? o->budget : rrows[*nr - 1].placements;
    *budget = own.budget;
    int n = cli_policy_runs(policy, pb, &own, rows, start_name, e);
    if (n < 0) {
        for (int k = 0; k < *nr; k++)
            place_run_free(&rrows[k]);
        *nr = 0;
    }
    return n;
}

/* 1 when row a is strictly better than row b: within memory when b is not,
 * else faster (a tie is not better). */
static int run_better(const PlaceRun *a, const PlaceRun *b)
{
    return a->oom != b->oom ? !a->oom : a->runtime_us < b->runtime_us;
}

/* The problem both commands place: graph, cluster, grouping, simulator. */
static int load(const CliCmd *cmd, const CliArgs *a, Problem *p, uint64_t *seed, int64_t *budget, Err *e)
{
    ProblemSpec spec;
    long b;
    memset(p, 0, sizeof *p);
    if (cli_problem(cmd, a, a->pos[0], 1L << 30, &spec, seed) || cli_int_or(cmd, a, "budget", 0, &b))
        return EXIT_USAGE;
    *budget = b;
    int policy_devices, rnn_groups; /* a policy file fixes the device count when --devices and --cluster do not */
    if (cli_policy_shape(cmd, a, cli_get(cmd, a, "policy"), &policy_devices, &rnn_groups, e))
        return EXIT_FAIL;
    if (policy_devices)
        spec.n_devices = policy_devices;
    if (rnn_groups && !cli_get(cmd, a, "groups")) /* an rnn network reads the grouping it was trained on */
        spec.groups = rnn_groups;
    const Cluster *trained = cli_policy_cluster(cmd, a, cli_get(cmd, a, "policy"));
    if (trained) { /* the cluster the policy was trained on (borrowed: the policy cache keeps it) */
        spec.cluster = (Cluster *)trained;
        spec.cluster_path = NULL;
    }
    if (problem_load(p, &spec, e) != 0)
        return EXIT_FAIL;
    if (!*budget)
        *budget = place_default_budget(p->g);
    cli_policy_cluster_note(cmd, a, cli_get(cmd, a, "policy"), cli_policy_trained_cluster(cli_get(cmd, a, "policy")),
                            p->c, NULL, 0);
    return EXIT_OK;
}

static void method_list(FILE *f)
{
    int n;
    const PlaceMethod *m = place_methods(&n);
    fputs("methods:\n", f);
    for (int k = 0; k < n; k++)
        fprintf(f, "  %-12s %s\n", m[k].name, m[k].help);
    fprintf(f, "  %-12s %s\n", "KIND-only", "every op on the fastest device of that kind (cpu-only, gpu-only)");
}

/* The KIND of a method named "KIND-only", or NULL. */
static const char *only_kind(const char *name)
{
    static char kind[64];
    size_t len = strlen(name), suf = sizeof "-only" - 1;
    if (len <= suf || len - suf >= sizeof kind || strcmp(name + len - suf, "-only") != 0)
        return NULL;
    memcpy(kind, name, len - suf);
    kind[len - suf] = '\0';
    return kind;
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
    if (cli_int(&cmd_place, &a, "samples", &samples))
        return EXIT_USAGE;
    const PlaceMethod *m = policy ? NULL : place_find(name);
    const char *kind = policy || m ? NULL : only_kind(name);
    if (!policy && !m && !kind) {
        cli_usage_error(&cmd_place, "unknown method '%s'", name);
        method_list(stderr);
        return EXIT_USAGE;
    }
    Err e = {{0}};
    Problem pb;
    uint64_t seed;
    int64_t budget;
    if ((rc = load(&cmd_place, &a, &pb, &seed, &budget, &e)) != EXIT_OK) {
        problem_free(&pb);
        return rc == EXIT_USAGE ? rc : cli_fail(&e);
    }
    PlaceRun rows[2] = {{0}}, rrows[2] = {{0}}, *row = &rows[0];
    int n = 0, nr = 0;
    const char *out = cli_get(&cmd_place, &a, "output");
    char pbuf[4096], rbuf[4096];
    AgentStart start = AGENT_START_DEFAULT;
    const char *rival = NULL, *rival_start = NULL;
    int have = resolve_policy(&cmd_place, &a, &pb, 0, pbuf, sizeof pbuf, &policy, &start, rbuf, sizeof rbuf, &rival);
    if (have == 1 && strcmp(cli_get(&cmd_place, &a, "policy"), "auto") == 0) { /* -o over a bundled policy it reads */
        char w0[4200], w1[4200];
        snprintf(w0, sizeof w0, "the policy %s that --policy auto picks", policy);
        snprintf(w1, sizeof w1, "the policy %s that --policy auto weighs against it", rival ? rival : "");
        const char *paths[2] = {policy, rival}, *what[2] = {w0, w1};
        if (cli_check_picked(&cmd_place, &a, paths, what, 2))
            have = -1;
    }
    if (have < 0) {
        problem_free(&pb);
        return have == -1 ? EXIT_USAGE : EXIT_FAIL;
    }
    const char *start_name = NULL;
    int64_t agent_budget = cli_get(&cmd_place, &a, "budget") ? budget : 0; /* none: each agent's own procedure */
    int64_t auto_budget = 0;
    AgentPlaceOpts po = {(int)samples, seed, start, agent_budget};
    char what[300];
    snprintf(what, sizeof what, "place %.250s", pb.g->name);
    progress_begin(what);
    progress_task(0, policy ? "policy" : kind ? kind : m->name, policy || kind || !place_is_search(m) ? 0 : budget);
    progress_watch(0);
    if (policy && rival) { /* auto: the graph's own policy or the learned search, the better at the same budget */
        n = auto_runs(policy, rival, &pb, &po, rows, &start_name, rrows, &nr, &rival_start, &auto_budget, &e);
        if (n > 0 && run_better(&rrows[nr - 1], &rows[n - 1])) { /* a tie keeps the graph's own */
            PlaceRun t[2];
            memcpy(t, rows, sizeof t);
            memcpy(rows, rrows, sizeof t);
            memcpy(rrows, t, sizeof t);
            int ti = n;
            n = nr;
            nr = ti;
            const char *tp = policy;
            policy = rival;
            rival = tp;
            tp = start_name;
            start_name = rival_start;
            rival_start = tp;
        }
        if (n > 0)
            row = &rows[n - 1];
    } else if (policy) { /* the zero-shot row is the last */
        if ((n = cli_policy_runs(policy, &pb, &po, rows, &start_name, &e)) > 0)
            row = &rows[n - 1];
    } else if (kind) {
        n = place_run_kind(&pb, kind, row, &e) == 0 ? 1 : -1;
    } else {
        n = place_run(&pb, m, seed, budget, row, &e) == 0 ? 1 : -1;
    }
    progress_end();
    Placement p = {pb.g->n_nodes, pb.c->n_devices, row->op_device, NULL};
    if (n < 0 || (out && placement_write(&p, pb.g, pb.c, out, &e) != 0)) {
        rc = cli_fail(&e);
    } else if (cli_get(&cmd_place, &a, "json")) {
        JWriter w;
        jw_init(&w, stdout);
        jw_object(&w);
        jw_key(&w, "method");
        jw_string(&w, row->method);
        jw_key(&w, "runtime_us");
        jw_number(&w, row->runtime_us);
        jw_key(&w, "oom");
        jw_bool(&w, row->oom);
        jw_key(&w, "seconds");
        jw_number(&w, row->seconds);
        jw_key(&w, "placements");
        jw_int(&w, row->placements);
        if (policy) {
            jw_key(&w, "policy");
            jw_string(&w, policy);
        }
        if (start_name) {
            jw_key(&w, "start"); /* the heuristic a refinement started from */
            jw_string(&w, start_name);
        }
        if (rival) { /* --policy auto weighed the graph's own policy and the learned search */
            const PlaceRun *other = &rrows[nr - 1];
            jw_key(&w, "auto");
            jw_object(&w);
            jw_key(&w, "chosen");
            jw_string(&w, policy);
            jw_key(&w, "other");
            jw_string(&w, rival);
            jw_key(&w, "other_method");
            jw_string(&w, other->method);
            jw_key(&w, "other_runtime_us");
            jw_number(&w, other->runtime_us);
            jw_key(&w, "other_oom");
            jw_bool(&w, other->oom);
            jw_key(&w, "budget");
            jw_int(&w, auto_budget);
            jw_end(&w);
        }
        if (row->learned_groups) { /* a policy that learns its grouping: its greedy grouping of the groups */
            jw_key(&w, "grouping");
            jw_object(&w);
            jw_key(&w, "learned_groups");
            jw_int(&w, row->learned_groups);
            jw_key(&w, "non_empty");
            jw_int(&w, row->grouping.n_clusters);
            jw_key(&w, "groups");
            jw_int(&w, pb.gr->n_groups);
            jw_key(&w, "cut_bytes");
            jw_int(&w, row->grouping.cut_bytes);
            jw_key(&w, "balance");
            jw_number(&w, row->grouping.balance);
            jw_end(&w);
        }
        jw_break(&w);
        jw_key(&w, "placement"); /* the placeto-placement file, as written with -o */
        placement_print(&p, pb.g, pb.c, jw_value_stream(&w));
        jw_finish(&w);
    } else {
        char b1[32], b2[32];
        double lb = bound_lower(pb.g, pb.c);
        printf("%s on %s with %s: runtime %s (%s%s)%s\n", pb.g->name, pb.c->name, row->method,
               util_fmt_time(b1, row->runtime_us), lb > 0 ? util_fmt_ratio(b2, row->runtime_us, lb) : "",
               lb > 0 ? " the lower bound" : "the lower bound is 0: no ratio", row->oom ? ", OUT OF MEMORY" : "");
        if (policy) {
            Err pe = {{0}};
            const AgentPolicy *ap = start_name ? agent_policy_cached(policy, NULL, &pe) : NULL;
            int fallback = ap && ap->kind->place.refine == AGENT_REFINE_FALLBACK; /* not a start: the heuristic it was weighed against */
            printf("policy %s%s%s%s\n", policy, start_name ? (fallback ? ", or " : ", starting from ") : "",
                   start_name ? start_name : "", start_name ? (fallback ? "'s placement when faster" : "'s placement") : "");
        }
        if (rival) {
            const PlaceRun *other = &rrows[nr - 1];
            printf("policy auto: %s (%s%s) chosen over %s (%s%s) at %lld placements%s\n", policy,
                   util_fmt_time(b1, row->runtime_us), row->oom ? ", out of memory" : "", rival,
                   util_fmt_time(b2, other->runtime_us), other->oom ? ", out of memory" : "", (long long)auto_budget,
                   run_better(row, other) ? "" : ", a tie: the graph's own");
        }
        if (row->learned_groups)
            printf("greedy grouping: %d of %d learned groups used by the %d groups, cut %s, cost balance %.2f\n",
                   row->grouping.n_clusters, row->learned_groups, pb.gr->n_groups,
                   util_fmt_bytes(b1, (double)row->grouping.cut_bytes), row->grouping.balance);
        if (out)
            fprintf(stderr, "placeto: wrote placement %s\n", out);
    }
    for (int k = 0; k < n; k++)
        place_run_free(&rows[k]);
    for (int k = 0; k < nr; k++)
        place_run_free(&rrows[k]);
    problem_free(&pb);
    return rc;
}

/* A method of --methods: a placer, or the row "KIND-only" (kind set). */
typedef struct Chosen {
    const PlaceMethod *m;
    char *kind;
} Chosen;

static void chosen_free(Chosen *c, int n)
{
    for (int k = 0; k < n; k++)
        free(c[k].kind);
    free(c);
}

/* The methods named by --methods (default: all), checked before any work
 * (a KIND-only row's kind is checked on the cluster, once loaded). Returns
 * their count, or -1 after a usage error. */
static int chosen_methods(const CliArgs *a, Chosen **out)
{
    int n_all, n = 0;
    const PlaceMethod *all = place_methods(&n_all);
    Chosen *chosen = xnew_array((size_t)n_all * 4, sizeof *chosen);
    const char *list = cli_get(&cmd_compare, a, "methods");
    if (!list) {
        for (int k = 0; k < n_all; k++)
            chosen[n++].m = &all[k];
    } else {
        for (const char *p = list;; p++) /* every item named: no empty one (",heft", "heft,,m-etf", ",,,") */
            if ((*p == ',' || !*p) && (p == list || p[-1] == ',')) {
                cli_usage_error(&cmd_compare, "--methods: expected a comma-separated list of methods, got '%s' "
                                              "(an empty item)", list);
                free(chosen);
                return -1;
            } else if (!*p) {
                break;
            }
        char *copy = xstrdup(list), *save = NULL;
        for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            const PlaceMethod *m = place_find(tok);
            const char *kind = m ? NULL : only_kind(tok);
            if ((!m && !kind) || n == n_all * 4) {
                cli_usage_error(&cmd_compare, m || kind ? "too many methods ('%s')" : "unknown method '%s'", tok);
                method_list(stderr);
                free(copy);
                chosen_free(chosen, n);
                return -1;
            }
            chosen[n].m = m;
            chosen[n++].kind = kind ? xstrdup(kind) : NULL;
        }
        free(copy);
    }
    *out = chosen;
    return n;
}

/* One search method's row on a simulator of its own (chosen_rows). */
typedef struct SearchJob {
    const Problem *pb;
    const PlaceMethod *m;
    const PlaceStart *start;
    uint64_t seed;
    int64_t budget;
    PlaceRun row;
    Err e;
    int rc;
} SearchJob;

static void search_job(void *ctx, int item, int thread)
{
    SearchJob *j = (SearchJob *)ctx + item;
    Problem p = *j->pb;
    p.sim = sim_new(p.g, p.c);
    progress_task(1 + item, j->m->name, j->budget);
    progress_watch(1 + item);
    j->rc = place_run_from(&p, j->m, j->seed, j->budget, j->start, &j->row, &j->e);
    progress_watch(thread == 0 ? 0 : -1);
    progress_task(1 + item, NULL, 0);
    sim_free(p.sim);
}

/* The rows of the chosen methods: the quick ones in order, then the local
 * searches, which take the time, two at a time (each its own simulator;
 * the rows do not depend on it). Returns the count, or -1 with e set (no
 * row left). */
static int chosen_rows(const Problem *pb, const Chosen *ch, int n_ch, uint64_t seed, int64_t budget, PlaceRun *rows,
                       Err *e)
{
    SearchJob *jobs = xnew_array((size_t)n_ch, sizeof *jobs);
    int nj = 0, n = 0, ok = 1;
    progress_watch(0);
    for (int k = 0; k < n_ch && ok; k++) {
        if (!ch[k].kind && place_is_search(ch[k].m)) {
            jobs[nj++] = (SearchJob){.pb = pb, .m = ch[k].m, .seed = seed, .budget = budget};
            continue;
        }
        progress_task(0, ch[k].kind ? ch[k].kind : ch[k].m->name, 0);
        ok = (ch[k].kind ? place_run_kind(pb, ch[k].kind, &rows[n], e)
                         : place_run(pb, ch[k].m, seed, budget, &rows[n], e)) == 0;
        n += ok;
    }
    progress_task(0, NULL, 0);
    /* their common start first, here: the heuristics (METIS among them,
     * whose random generator is global) never run on two threads */
    PlaceStart start = {0};
    int *start_gd = NULL;
    if (ok && nj) {
        PlaceCtx c = {.g = pb->g, .gr = pb->gr, .c = pb->c, .seed = seed, .budget = budget};
        start_gd = xnew_array((size_t)pb->gr->n_groups, sizeof *start_gd);
        progress_task(0, "the searches' start", 0);
        start.used = place_search_start(&c, start_gd, &start.score, &start.name);
        start.group_device = start_gd;
        progress_task(0, NULL, 0);
        for (int k = 0; k < nj; k++)
            jobs[k].start = &start;
        par_for(0, nj, nj < 2 ? nj : 2, search_job, jobs);
    }
    free(start_gd);
    for (int k = 0; k < nj; k++) {
        if (ok && jobs[k].rc != 0) {
            *e = jobs[k].e;
            ok = 0;
        }
        if (jobs[k].rc == 0)
            rows[n++] = jobs[k].row;
    }
    free(jobs);
    if (!ok) {
        for (int k = 0; k < n; k++)
            place_run_free(&rows[k]);
        return -1;
    }
    return n;
}

static void print_compare_json(const Problem *pb, const PlaceRun *rows, int n, double lb, double single,
                               int64_t budget, int given)
{
    JWriter w;
    jw_init(&w, stdout);
    jw_object(&w);
    jw_key(&w, "graph");
    jw_string(&w, pb->g->name);
    jw_key(&w, "devices");
    jw_int(&w, pb->c->n_devices);
    jw_key(&w, "cluster");
    jw_string(&w, pb->c->name);
    jw_key(&w, "groups");
    jw_int(&w, pb->gr->n_groups);
    jw_key(&w, "lower_bound_us");
    jw_number(&w, lb);
    jw_key(&w, "single_us");
    jw_number(&w, single);
    jw_key(&w, "budget");
    jw_int(&w, budget);
    jw_key(&w, "budget_given");
    jw_bool(&w, given);
    jw_break(&w);
    jw_key(&w, "methods");
    jw_array(&w);
    for (int k = 0; k < n; k++) {
        jw_break(&w);
        jw_object(&w);
        jw_key(&w, "method");
        jw_string(&w, rows[k].method);
        jw_key(&w, "runtime_us");
        jw_number(&w, rows[k].runtime_us);
        jw_key(&w, "peak_memory_bytes");
        jw_array(&w);
        for (int d = 0; d < pb->c->n_devices; d++)
            jw_int(&w, rows[k].peak_memory_bytes[d]);
        jw_end(&w);
        jw_key(&w, "oom");
        jw_bool(&w, rows[k].oom);
        jw_key(&w, "seconds");
        jw_number(&w, rows[k].seconds); /* NAN (from training) is null */
        jw_key(&w, "placements");
        jw_int(&w, rows[k].placements);
        jw_end(&w);
    }
    jw_finish(&w);
}

static void print_compare_table(const Problem *pb, const PlaceRun *rows, int n, double lb, double single,
                                int64_t budget, int given)
{
    char b1[32], b2[32], r1[32], r2[32];
    printf("%s on %s, %d groups\n", pb->g->name, pb->c->name, pb->gr->n_groups);
    int w = 15; /* the method column: 15, or the longest name ("placeto-refine-untrained") */
    for (int k = 0; k < n; k++)
        if ((int)strlen(rows[k].method) > w)
            w = (int)strlen(rows[k].method);
    printf("%-*s %12s %9s %9s %12s %5s %10s\n", w, "method", "runtime", "speed-up", "vs bound", "peak memory", "OOM",
           "time");
    for (int k = 0; k < n; k++) {
        int64_t peak = 0;
        for (int d = 0; d < pb->c->n_devices; d++)
            if (rows[k].peak_memory_bytes[d] > peak)
                peak = rows[k].peak_memory_bytes[d];
        char tbuf[32];
        if (isnan(rows[k].seconds))
            snprintf(tbuf, sizeof tbuf, "training");
        else
            snprintf(tbuf, sizeof tbuf, "%.3fs", rows[k].seconds);
        printf("%-*s %12s %9s %9s %12s %5s %10s\n", w, rows[k].method, util_fmt_time(b1, rows[k].runtime_us),
               util_fmt_ratio(r1, single, rows[k].runtime_us), util_fmt_ratio(r2, rows[k].runtime_us, lb),
               util_fmt_bytes(b2, (double)peak), rows[k].oom ? "yes" : "no", tbuf);
    }
    printf("%-*s %12s %9s %9s\n", w, "lower bound", util_fmt_time(b1, lb), util_fmt_ratio(r1, single, lb),
           util_fmt_ratio(r2, lb, lb));
    int searches = 0;
    for (int k = 0; k < n; k++) {
        const PlaceMethod *m = place_find(rows[k].method);
        searches |= m && place_is_search(m);
    }
    if (searches && given)
        printf("budget: %lld placements per search (--budget)\n", (long long)budget);
    else if (searches && budget < PLACE_DEFAULT_BUDGET)
        printf("budget: %lld placements per search, the default scaled to %d ops (5e7 / ops; --budget K for more)\n",
               (long long)budget, pb->g->n_nodes);
    else if (searches)
        printf("budget: %lld placements per search (the default; --budget K)\n", (long long)budget);
}

static int run_compare(int argc, char **argv)
{
    CliArgs a;
    int stop, rc = cli_parse_graph(&cmd_compare, argc, argv, &a, method_list, &stop);
    if (stop)
        return rc;
    Chosen *chosen;
    long samples;
    int n_chosen = chosen_methods(&a, &chosen);
    if (n_chosen < 0)
        return EXIT_USAGE;
    Err e = {{0}};
    Problem pb;
    uint64_t seed;
    int64_t budget;
    if ((rc = load(&cmd_compare, &a, &pb, &seed, &budget, &e)) != EXIT_OK ||
        (rc = cli_int(&cmd_compare, &a, "samples", &samples)) != EXIT_OK) {
        chosen_free(chosen, n_chosen);
        problem_free(&pb);
        return rc == EXIT_USAGE ? rc : cli_fail(&e);
    }
    const char *policy = NULL, *rival = NULL;
    char pbuf[4096], rbuf[4096];
    AgentStart start = AGENT_START_DEFAULT;
    /* the bundled policy's rows come with the default methods, not with a chosen list */
    int implicit = !cli_get(&cmd_compare, &a, "no-policy") && !cli_get(&cmd_compare, &a, "methods");
    if (cli_get(&cmd_compare, &a, "no-policy") && cli_get(&cmd_compare, &a, "policy")) {
        chosen_free(chosen, n_chosen);
        problem_free(&pb);
        return cli_usage_error(&cmd_compare, "give --policy or --no-policy, not both");
    }
    int have = resolve_policy(&cmd_compare, &a, &pb, implicit, pbuf, sizeof pbuf, &policy, &start, rbuf, sizeof rbuf,
                              &rival);
    if (have < 0) {
        chosen_free(chosen, n_chosen);
        problem_free(&pb);
        return have == -1 ? EXIT_USAGE : EXIT_FAIL;
    }
    if (cli_get(&cmd_compare, &a, "untrained") && !policy) {
        chosen_free(chosen, n_chosen);
        problem_free(&pb);
        return cli_usage_error(&cmd_compare, "--untrained needs a policy (--policy P, or the bundled one)");
    }
    PlaceRun *rows = xnew_array((size_t)n_chosen + 5 + (size_t)pb.c->n_devices, sizeof *rows);
    int with_single = 0;
    char what[300];
    snprintf(what, sizeof what, "compare %.250s", pb.g->name);
    progress_begin(what);
    int n = chosen_rows(&pb, chosen, n_chosen, seed, budget, rows, &e), ok = n >= 0;
    n = ok ? n : 0;
    for (int k = 0; k < n; k++)
        with_single |= strcmp(rows[k].method, "single") == 0;
    if (ok && with_single) { /* with `single`: a row per device kind on a heterogeneous cluster, unless named */
        int k = place_run_kinds(&pb, rows + n), kept = n;
        for (int i = n; i < n + k; i++) {
            int named = 0;
            for (int j = 0; j < n; j++)
                named |= strcmp(rows[j].method, rows[i].method) == 0;
            if (named)
                place_run_free(&rows[i]);
            else
                rows[kept++] = rows[i];
        }
        n = kept;
    }
    int64_t agent_budget = cli_get(&cmd_compare, &a, "budget") ? budget : 0; /* none: each agent's own procedure */
    AgentPlaceOpts po = {(int)samples, seed, start, agent_budget};
    progress_task(0, "the policies' rows", 0);
    if (ok && policy && rival) { /* auto with the graph's own policy: its rows and the learned search's, at one budget */
        int nr;
        int64_t same;
        int k = auto_runs(policy, rival, &pb, &po, rows + n + 2, NULL, rows + n, &nr, NULL, &same, &e);
        ok = k >= 0;
        if (ok) {
            memmove(rows + n + nr, rows + n + 2, (size_t)k * sizeof *rows);
            n += nr + k;
            po.budget = same; /* --untrained's control spends it too */
        }
    } else if (ok && policy) {
        int k = cli_policy_runs(policy, &pb, &po, rows + n, NULL, &e);
        ok = k >= 0;
        n += ok ? k : 0;
    }
    if (ok && policy && cli_get(&cmd_compare, &a, "untrained")) {
        const AgentPolicy *ap = agent_policy_cached(policy, NULL, &e);
        progress_task(0, "the untrained control", 0);
        ok = ap && agent_place_untrained(ap, &pb, &po, &rows[n], &e) == 0;
        n += ok;
    }
    progress_end();
    if (ok) {
        /* the speed-up is over everything on the fastest device */
        PlaceRun ref;
        double single = 0;
        Err ignored;
        if (place_run(&pb, place_find("single"), seed, 0, &ref, &ignored) == 0)
            single = ref.runtime_us;
        place_run_free(&ref);
        place_run_sort(rows, n);
        double lb = bound_lower(pb.g, pb.c);
        if (cli_get(&cmd_compare, &a, "json"))
            print_compare_json(&pb, rows, n, lb, single, budget, cli_get(&cmd_compare, &a, "budget") != NULL);
        else
            print_compare_table(&pb, rows, n, lb, single, budget, cli_get(&cmd_compare, &a, "budget") != NULL);
    } else {
        rc = cli_fail(&e);
    }
    for (int k = 0; k < n; k++)
        place_run_free(&rows[k]);
    free(rows);
    chosen_free(chosen, n_chosen);
    problem_free(&pb);
    return rc;
}
