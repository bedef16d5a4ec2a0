/* cli: see cli.h. */
#include "cli.h"
#include "dist.h"

#include "agent.h"
#include "data.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int opt_count(const CliCmd *cmd)
{
    int n = 0;
    while (cmd->opts[n].name)
        n++;
    if (n > CLI_MAX_OPTS)
        util_die("%s: %d options; CliArgs holds %d", cmd->name, n, CLI_MAX_OPTS);
    return n;
}

void cli_help(const CliCmd *cmd, FILE *f)
{
    if (dist_rank() > 0) /* under mpirun, rank 0 alone prints */
        return;
    fprintf(f, "usage: placeto %s %s\n\n%s\n", cmd->name, cmd->usage, cmd->summary);
    if (cmd->opts[0].name)
        fputs("\noptions:\n", f);
    for (const CliOpt *o = cmd->opts; o->name; o++) {
        char left[64];
        if (o->short_name)
            snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->name, o->arg ? " " : "",
                     o->arg ? o->arg : "");
        else
            snprintf(left, sizeof left, "    --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        fprintf(f, "  %-24s %s\n", left, o->help);
    }
    fprintf(f, "  %-24s %s\n", "-h, --help", "show this help and exit");
    if (cmd->details)
        fprintf(f, "\n%s\n", cmd->details);
}

static char last_usage[512];

const char *cli_last_usage(void)
{
    return last_usage;
}

/* Under mpirun rank 0 alone prints: the ranks compare their arguments
 * before anything else (train_cli_same_config), so a usage error met later
 * is met by every rank alike; one met while parsing on another rank only
 * is kept (cli_last_usage) for rank 0 to print. */
int cli_usage_error(const CliCmd *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (dist_rank() > 0) {
        vsnprintf(last_usage, sizeof last_usage, fmt, ap);
        va_end(ap);
        return EXIT_USAGE;
    }
    fprintf(stderr, "placeto: %s: ", cmd->name);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nusage: placeto %s %s\n(see 'placeto %s --help')\n", cmd->name, cmd->usage, cmd->name);
    va_end(ap);
    return EXIT_USAGE;
}

int cli_fail(const Err *e)
{
    if (dist_rank() > 0)
        return EXIT_FAIL;
    fprintf(stderr, "placeto: %s\n", e->msg);
    return EXIT_FAIL;
}

/* A whole argument that reads as a number (an optional value, not a GRAPH). */
static int is_number(const char *s)
{
    char *end;
    errno = 0;
    (void)strtod(s, &end);
    return end != s && !*end && !errno;
}

/* The options that name a file the command writes, and those that name a
 * file it reads (besides the positional arguments, all read). --resume may
 * share its file with --output or --save: a training or an episode is saved
 * back to where it came from. */
static const char *const output_opts[] = {"output", "save", "dot", "trace", "svg", "png", "curve", "record",
                                          "dump", "frames", "graph-json", "slide"};
static const char *const input_opts[] = {"placement", "cluster", "policy", "replay", "resume"};

static int in_list(const char *name, const char *const *list, size_t n)
{
    for (size_t j = 0; j < n; j++)
        if (strcmp(name, list[j]) == 0)
            return 1;
    return 0;
}

/* One path, one role: a usage error, before anything is written, when two
 * outputs, or an output and an input, name one file (--resume with --output
 * or --save excepted), or when standard input is read twice. */
static int refuse_overwrite(const CliCmd *cmd, const CliArgs *a)
{
    enum { MAXF = CLI_MAX_OPTS + 256 };
    const char *path[MAXF], *name[MAXF];
    int role[MAXF], m = 0; /* role: 1 input, 2 output */
    int n = opt_count(cmd);
    for (int k = 0; k < n; k++) {
        if (!a->values[k] || !cmd->opts[k].arg)
            continue;
        int out = in_list(cmd->opts[k].name, output_opts, sizeof output_opts / sizeof *output_opts);
        int in = in_list(cmd->opts[k].name, input_opts, sizeof input_opts / sizeof *input_opts);
        if (!out && !in)
            continue;
        if (!a->values[k][0]) {
            cli_usage_error(cmd, "--%s: an empty file name (expected a file, or - for standard %s)",
                            cmd->opts[k].name, out ? "output" : "input");
            return 1;
        }
        path[m] = a->values[k];
        name[m] = cmd->opts[k].name;
        role[m++] = out ? 2 : 1;
    }
    for (int i = 0; i < a->n_pos; i++) {
        path[m] = a->pos[i];
        name[m] = NULL;
        role[m++] = 1;
    }
    for (int i = 0; i < m; i++)
        for (int j = i + 1; j < m; j++) {
            if (role[i] == 1 && role[j] == 1 && !(strcmp(path[i], "-") == 0 && strcmp(path[j], "-") == 0))
                continue; /* a file may be read twice; standard input cannot */
            const char *x = name[i], *y = name[j];
            if (x && y && (strcmp(x, "resume") == 0 || strcmp(y, "resume") == 0) &&
                (strcmp(x, "output") == 0 || strcmp(y, "output") == 0 || strcmp(x, "save") == 0 ||
                 strcmp(y, "save") == 0))
                continue;
            if (!util_same_file(path[i], path[j]) || (strcmp(path[i], "-") == 0 && role[i] != role[j]))
                continue; /* standard input and standard output are two streams */
            char a1[PATH_MAX + 64], a2[PATH_MAX + 64];
            snprintf(a1, sizeof a1, x ? "--%s %s" : "%sGRAPH %s", x ? x : "", path[i]);
            snprintf(a2, sizeof a2, y ? "--%s %s" : "%sGRAPH %s", y ? y : "", path[j]);
            if (strcmp(path[i], "-") == 0)
                cli_usage_error(cmd, "%s and %s both use standard %s: give one of them a file", a1, a2,
                                role[i] == 2 ? "output" : "input");
            else if (role[i] == 2 && role[j] == 2)
                cli_usage_error(cmd, "%s and %s name one file: each output needs its own", a1, a2);
            else
                cli_usage_error(cmd, "%s would overwrite the input %s (one file)", role[i] == 2 ? a1 : a2,
                                role[i] == 2 ? a2 : a1);
            return 1;
        }
    return 0;
}

int cli_parse(const CliCmd *cmd, int argc, char **argv, CliArgs *a)
{
    memset(a, 0, sizeof *a);
    int n = opt_count(cmd), only_pos = 0;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (only_pos || s[0] != '-' || s[1] == '\0') {
            if (a->n_pos == (int)(sizeof a->pos / sizeof a->pos[0]))
                return cli_usage_error(cmd, "too many arguments");
            a->pos[a->n_pos++] = s;
            continue;
        }
        if (strcmp(s, "--") == 0) {
            only_pos = 1;
            continue;
        }
        if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
            cli_help(cmd, stdout);
            return 1;
        }
        int k = -1;
        const char *inline_val = NULL;
        if (s[1] == '-') {
            const char *eq = strchr(s + 2, '=');
            size_t len = eq ? (size_t)(eq - (s + 2)) : strlen(s + 2);
            for (int j = 0; j < n && k < 0; j++)
                if (strlen(cmd->opts[j].name) == len && strncmp(cmd->opts[j].name, s + 2, len) == 0)
                    k = j;
            if (eq)
                inline_val = eq + 1;
        } else {
            for (int j = 0; j < n && k < 0; j++)
                if (cmd->opts[j].short_name == s[1])
                    k = j;
            if (k >= 0 && s[2]) { /* -n4: the value attached */
                if (!cmd->opts[k].arg)
                    return cli_usage_error(cmd, "option '-%c' takes no value, got '%s'", s[1], s);
                inline_val = s + 2;
            }
        }
        if (k < 0)
            return cli_usage_error(cmd, "unknown option '%s'", s);
        const CliOpt *o = &cmd->opts[k];
        if (!o->arg) {
            if (inline_val)
                return cli_usage_error(cmd, "option '--%s' takes no value", o->name);
            a->values[k] = "1";
        } else if (inline_val) {
            a->values[k] = inline_val;
        } else if (o->arg[0] == '[') { /* an optional value: the next argument when it is a number */
            a->values[k] = "";
            if (i + 1 < argc && is_number(argv[i + 1]))
                a->values[k] = argv[++i];
        } else {
            if (i + 1 >= argc)
                return cli_usage_error(cmd, "option '--%s' needs a value (%s)", o->name, o->arg);
            a->values[k] = argv[++i];
        }
    }
    if (refuse_overwrite(cmd, a))
        return EXIT_USAGE;
    /* the cluster options are checked here so that their misuse is a usage error */
    const char *file = cli_get(cmd, a, "cluster"), *devs = cli_get(cmd, a, "devices");
    if (file && devs)
        return cli_usage_error(cmd, "give either --cluster or --devices, not both");
    long count;
    if (devs && cli_int(cmd, a, "devices", 1, CLUSTER_MAX_DEVICES, 1, &count))
        return EXIT_USAGE;
    return 0;
}

int cli_parse_graphs(const CliCmd *cmd, int argc, char **argv, CliArgs *a, int min, int max,
                     void (*extra_help)(FILE *), int *stop)
{
    *stop = 1;
    int rc = cli_parse(cmd, argc, argv, a);
    if (rc == 1) {
        if (extra_help)
            extra_help(stdout);
        return EXIT_OK;
    }
    if (rc)
        return rc;
    if (a->n_pos < min)
        return cli_usage_error(cmd, "missing GRAPH");
    /* a bundled graph by name (inception_v3, families/nmt/nmt_variant_24) where no such file is here */
    static char bundled[256][4096];
    for (int i = 0; i < a->n_pos && i < 256; i++) {
        const char *p = a->pos[i];
        struct stat st;
        if (strcmp(p, "-") == 0 || stat(p, &st) == 0 || strlen(p) + 6 > sizeof bundled[i] || p[0] == '/')
            continue;
        char rel[4096 + 8];
        size_t pl = strlen(p);
        snprintf(rel, sizeof rel, "%s%s", p, pl > 5 && strcmp(p + pl - 5, ".json") == 0 ? "" : ".json");
        if (data_bundled(rel, bundled[i], sizeof bundled[i]))
            a->pos[i] = bundled[i];
    }
    if (a->n_pos > max)
        return max == 0   ? cli_usage_error(cmd, "expected no GRAPH")
               : min == 1 ? cli_usage_error(cmd, "expected one GRAPH")
                          : cli_usage_error(cmd, "expected at most one GRAPH");
    *stop = 0;
    return EXIT_OK;
}

int cli_parse_graph(const CliCmd *cmd, int argc, char **argv, CliArgs *a, void (*extra_help)(FILE *), int *stop)
{
    return cli_parse_graphs(cmd, argc, argv, a, 1, 1, extra_help, stop);
}

const char *cli_get(const CliCmd *cmd, const CliArgs *a, const char *name)
{
    for (int j = 0; cmd->opts[j].name; j++)
        if (strcmp(cmd->opts[j].name, name) == 0)
            return a->values[j];
    return NULL;
}

static const char *args_get(void *ctx, const char *name)
{
    const CliArgsCtx *x = ctx;
    return cli_get(x->cmd, x->a, name);
}

AgentArgs cli_agent_args(const CliCmd *cmd, const CliArgs *a, CliArgsCtx *ctx)
{
    ctx->cmd = cmd;
    ctx->a = a;
    return (AgentArgs){args_get, ctx};
}

int cli_double(const CliCmd *cmd, const CliArgs *a, const char *name, double min, double max, double def,
               double *out)
{
    CliArgsCtx ctx;
    AgentArgs args = cli_agent_args(cmd, a, &ctx);
    Err e = {{0}};
    return agent_arg_double(&args, name, min, max, def, out, &e) ? cli_usage_error(cmd, "%s", e.msg) : 0;
}

int cli_int(const CliCmd *cmd, const CliArgs *a, const char *name, long min, long max, long def, long *out)
{
    CliArgsCtx ctx;
    AgentArgs args = cli_agent_args(cmd, a, &ctx);
    Err e = {{0}};
    return agent_arg_int(&args, name, min, max, def, out, &e) ? cli_usage_error(cmd, "%s", e.msg) : 0;
}

int cli_problem(const CliCmd *cmd, const CliArgs *a, const char *graph_path, long max_groups, long seed_default,
                ProblemSpec *s, uint64_t *seed)
{
    memset(s, 0, sizeof *s);
    long groups = 0, sd = 0, devs = 0;
    const char *gs = cli_get(cmd, a, "groups");
    int chains = gs && strcmp(gs, "chains") == 0; /* HSDAG's coarsening instead of a count */
    if ((!chains && cli_int(cmd, a, "groups", 1, max_groups, 0, &groups)) ||
        (seed && cli_int(cmd, a, "seed", 0, 1L << 62, seed_default, &sd)) ||
        cli_int(cmd, a, "devices", 1, CLUSTER_MAX_DEVICES, 0, &devs))
        return EXIT_USAGE;
    s->graph_path = graph_path;
    s->cluster_path = cli_get(cmd, a, "cluster");
    s->n_devices = (int)devs;
    s->groups = chains ? GROUP_CHAINS : (int)groups;
    if (seed)
        *seed = (uint64_t)sd;
    return 0;
}

Cluster *cli_cluster(const CliCmd *cmd, const CliArgs *a, int fallback_devices, Err *e)
{
    const char *file = cli_get(cmd, a, "cluster"), *devs = cli_get(cmd, a, "devices");
    if (file)
        return cluster_load(file, e);
    long n = devs ? strtol(devs, NULL, 10) : fallback_devices; /* checked by cli_parse */
    return cluster_default((int)n);
}

int cli_policy_devices(const CliCmd *cmd, const CliArgs *a, const char *policy_path, int *n, Err *e)
{
    return cli_policy_shape(cmd, a, policy_path, n, NULL, e);
}

const Cluster *cli_policy_cluster(const CliCmd *cmd, const CliArgs *a, const char *policy_path)
{
    if (!policy_path || strcmp(policy_path, "auto") == 0 || cli_get(cmd, a, "cluster") || cli_get(cmd, a, "devices"))
        return NULL;
    Err e = {{0}};
    const AgentPolicy *p = agent_policy_cached(policy_path, NULL, &e);
    return p ? p->cluster : NULL;
}

const Cluster *cli_policy_trained_cluster(const char *policy_path)
{
    if (!policy_path || strcmp(policy_path, "auto") == 0)
        return NULL;
    Err e = {{0}};
    const AgentPolicy *p = agent_policy_cached(policy_path, NULL, &e);
    return p ? p->cluster : NULL;
}

int cli_policy_cluster_note(const CliCmd *cmd, const CliArgs *a, const char *policy_path, const Cluster *trained,
                            const Cluster *c, char *msg, size_t n)
{
    if (!trained || cluster_equal(trained, c))
        return 0;
    const char *file = cli_get(cmd, a, "cluster");
    char why[4200], note[8400];
    if (file)
        snprintf(why, sizeof why, "--cluster %s", file);
    else
        snprintf(why, sizeof why, "--devices %s", cli_get(cmd, a, "devices") ? cli_get(cmd, a, "devices") : "");
    snprintf(note, sizeof note, "note: %s was trained on \"%s\"; running on \"%s\" as %s asks (leave it out to "
             "run on the training cluster)", policy_path, trained->name, c->name, why);
    fprintf(stderr, "placeto: %s\n", note);
    if (msg)
        snprintf(msg, n, "%s", note);
    return 1;
}

int cli_policy_shape(const CliCmd *cmd, const CliArgs *a, const char *policy_path, int *n, int *groups, Err *e)
{
    *n = 0;
    if (groups)
        *groups = 0;
    if (!policy_path || strcmp(policy_path, "auto") == 0)
        return 0;
    const AgentPolicy *p = agent_policy_cached(policy_path, NULL, e); /* read once: placing uses it too */
    if (!p)
        return -1;
    if (groups && p->info.n_groups > 0 && p->n_trained <= 1) /* one graph's policy: its grouping; a family's: the default */
        *groups = p->info.n_groups;
    if (cli_get(cmd, a, "cluster"))
        return 0;
    int want = p->info.n_devices;
    const char *devs = cli_get(cmd, a, "devices");
    if (devs && p->info.any_devices) { /* it places on any device count: the one asked for */
        *n = (int)strtol(devs, NULL, 10); /* checked by cli_parse */
        return 0;
    }
    if (devs && strtol(devs, NULL, 10) != want) /* checked by cli_parse */
        return err_set(e, "%s: the policy is for %d devices but the cluster has %s (--devices %s; leave it out to use %d)",
                       policy_path, want, devs, devs, want);
    *n = want;
    return 0;
}
