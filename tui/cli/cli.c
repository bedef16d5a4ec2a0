/* cli: see cli.h. */
#include "cli.h"
#include "dist.h"

#include "agent.h"
#include "data.h"
#include "episode.h"
#include "policy_file.h"

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
        char help[1024];
        agent_opt_help(o, help, sizeof help);
        fprintf(f, "  %-24s %s\n", left, help);
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
 * file it reads (besides the positional arguments, all read). */
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

/* One file a command reads or writes: given on the command line, named
 * inside an input (an episode's graph and policy), or derived (train's
 * checkpoints, its default policy file, --json's lines on standard output). */
enum { R_OPT, R_GRAPH, R_JSON, R_DEFAULT_OUT, R_CKPT, R_EP_GRAPH, R_EP_POLICY, R_PICKED };
typedef struct Role {
    const char *path;
    int out;    /* written (else read) */
    int kind;   /* R_*: how role_label names it */
    const char *opt; /* R_OPT: the option; R_PICKED: what the file is (cli_check_picked) */
    int owner;  /* R_CKPT, R_EP_*: the entry whose file it derives from or that names it */
    int back;   /* 1: --resume and --output or --save; 2: their checkpoints: an input and an output of one
                   back may be one file (a training or an episode saved back to where it came from) */
    char *own;  /* path, when allocated here */
} Role;

static void role_label(const Role *r, int i, char *buf, size_t n)
{
    char owner[PATH_MAX + 128] = "";
    const Role *x = &r[i];
    if (x->kind == R_CKPT || x->kind == R_EP_GRAPH || x->kind == R_EP_POLICY)
        role_label(r, x->owner, owner, sizeof owner);
    switch (x->kind) {
    case R_OPT: snprintf(buf, n, "--%s %s", x->opt, x->path); break;
    case R_GRAPH: snprintf(buf, n, "GRAPH %s", x->path); break;
    case R_JSON: snprintf(buf, n, "--json"); break;
    case R_DEFAULT_OUT: snprintf(buf, n, "the default --output %s", x->path); break;
    case R_CKPT: snprintf(buf, n, "the checkpoint %s of %s", x->path, owner); break;
    case R_PICKED: snprintf(buf, n, "%s", x->opt); break;
    default: /* the path of an episode given as GRAPH or with an option */
        snprintf(buf, n, "the %s %s that episode %s names", x->kind == R_EP_GRAPH ? "graph" : "policy", x->path,
                 r[x->owner].path);
    }
}

/* The inputs that may hold an explorer's episode file, whose graph and
 * policy are then inputs too: simulate's and export's GRAPH and
 * --placement, explore's --resume and --replay (opt NULL: GRAPH). */
static int may_be_episode(const CliCmd *cmd, const char *opt)
{
    if (cmd == &cmd_simulate || cmd == &cmd_export)
        return !opt || strcmp(opt, "placement") == 0;
    return cmd == &cmd_explore && opt && (strcmp(opt, "resume") == 0 || strcmp(opt, "replay") == 0);
}

/* Whether writing out replaces a graph of the directory dir, which train
 * reads whole (its .json files). */
static int in_graph_dir(const char *out, const char *dir)
{
    struct stat st;
    size_t len = strlen(out);
    if (strcmp(out, "-") == 0 || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || len < 6 ||
        strcmp(out + len - 5, ".json") != 0 || stat(out, &st) != 0)
        return 0;
    char parent[PATH_MAX];
    const char *slash = strrchr(out, '/');
    snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - out) + 1 : 1, slash ? out : ".");
    return util_same_file(parent, dir);
}

static int add_role(Role *r, int *m, int max, const char *path, int out, int kind, int owner, int back)
{
    if (*m >= max)
        util_die("one path, one role: more than %d files", max);
    r[*m] = (Role){path, out, kind, NULL, owner, back, NULL};
    return (*m)++;
}

/* The files named inside the inputs and derived from the options: an
 * episode's graph and policy; train's policy file (the default of
 * --output), the checkpoints beside it and beside --resume's, and --json's
 * lines on standard output. */
static void add_named_roles(const CliCmd *cmd, const CliArgs *a, Role *r, int *m, int max)
{
    int given = *m;
    for (int i = 0; i < given; i++) {
        char *graph, *policy;
        if (r[i].out || !may_be_episode(cmd, r[i].opt) || !episode_named_files(r[i].path, &graph, &policy))
            continue;
        if (graph)
            r[add_role(r, m, max, graph, 0, R_EP_GRAPH, i, 0)].own = graph;
        if (policy)
            r[add_role(r, m, max, policy, 0, R_EP_POLICY, i, 0)].own = policy;
    }
    if (cmd != &cmd_train)
        return;
    int out = -1, resume = -1;
    for (int i = 0; i < given; i++)
        if (r[i].kind == R_OPT && strcmp(r[i].opt, "output") == 0)
            out = i;
        else if (r[i].kind == R_OPT && strcmp(r[i].opt, "resume") == 0)
            resume = i;
    if (out < 0)
        out = add_role(r, m, max, resume >= 0 ? r[resume].path : "policy.json", 1, R_DEFAULT_OUT, 0, 1);
    const int ends[2] = {out, resume};
    for (int k = 0; k < 2; k++)
        if (ends[k] >= 0 && policy_file_keeps_checkpoint(r[ends[k]].path)) {
            char ck[PATH_MAX + 16];
            policy_file_checkpoint_path(ck, sizeof ck, r[ends[k]].path);
            char *own = xstrdup(ck);
            r[add_role(r, m, max, own, k == 0, R_CKPT, ends[k], 2)].own = own;
        }
    if (cli_get(cmd, a, "json"))
        add_role(r, m, max, "-", 1, R_JSON, 0, 0);
}

/* The usage error for files i and j (i < j) when they may not be one file. */
static int refuse_pair(const CliCmd *cmd, const Role *r, int i, int j)
{
    const Role *x = &r[i], *y = &r[j];
    int dir = cmd != &cmd_train            ? -1
              : !x->out && x->kind == R_GRAPH ? (y->out ? i : -1)
              : !y->out && y->kind == R_GRAPH && x->out ? j : -1;
    if (dir >= 0 && in_graph_dir(r[i + j - dir].path, r[dir].path)) {
        char lo[PATH_MAX + 128];
        role_label(r, i + j - dir, lo, sizeof lo);
        return cli_usage_error(cmd, "%s would overwrite a graph of the directory GRAPH %s (train reads its .json "
                               "files)", lo, r[dir].path);
    }
    if (x->out + y->out == 0 && !(strcmp(x->path, "-") == 0 && strcmp(y->path, "-") == 0))
        return 0; /* a file may be read twice; standard input cannot */
    if (x->back && x->back == y->back && x->out != y->out)
        return 0;
    if (!util_same_file(x->path, y->path) || (strcmp(x->path, "-") == 0 && x->out != y->out))
        return 0; /* standard input and standard output are two streams */
    char a1[2 * PATH_MAX + 256], a2[2 * PATH_MAX + 256];
    role_label(r, i, a1, sizeof a1);
    role_label(r, j, a2, sizeof a2);
    if (x->kind == R_JSON || y->kind == R_JSON) { /* train's progress lines, printed while it runs */
        const Role *o = x->kind == R_JSON ? y : x;
        return cli_usage_error(cmd, "--json and %s both use standard output (the progress lines and the file): "
                               "give --%s a file, or leave out --json", o == x ? a1 : a2,
                               o->kind == R_OPT ? o->opt : "output");
    }
    if (strcmp(x->path, "-") == 0)
        return cli_usage_error(cmd, "%s and %s both use standard %s: give one of them a file", a1, a2,
                               x->out ? "output" : "input");
    if (x->out && y->out)
        return cli_usage_error(cmd, "%s and %s name one file: each output needs its own", a1, a2);
    const Role *in = x->out ? y : x;
    return cli_usage_error(cmd, in->kind == R_OPT || in->kind == R_GRAPH ? "%s would overwrite the input %s (one file)"
                                                                         : "%s would overwrite %s",
                           x->out ? a1 : a2, x->out ? a2 : a1);
}

/* One path, one role: a usage error, before anything is written, when two
 * outputs, or an output and an input, name one file (--resume with --output
 * or --save excepted, and their checkpoints), or when standard input is read
 * twice; the files named inside the inputs and derived from the options
 * (add_named_roles) count as the command's. */
static int refuse_overwrite(const CliCmd *cmd, const CliArgs *a, const char *const *picked, const char *const *what,
                            int n_picked)
{
    enum { MAXF = CLI_MAX_OPTS + 256 + 32 };
    Role r[MAXF];
    int m = 0, n = opt_count(cmd), outs = 0;
    for (int k = 0; k < n; k++) {
        if (!a->values[k] || !cmd->opts[k].arg)
            continue;
        const char *name = cmd->opts[k].name;
        int out = in_list(name, output_opts, sizeof output_opts / sizeof *output_opts);
        int in = in_list(name, input_opts, sizeof input_opts / sizeof *input_opts);
        if (!out && !in)
            continue;
        if (!a->values[k][0])
            return cli_usage_error(cmd, "--%s: an empty file name (expected a file, or - for standard %s)", name,
                                   out ? "output" : "input");
        int back = strcmp(name, "resume") == 0 || strcmp(name, "output") == 0 || strcmp(name, "save") == 0;
        r[add_role(r, &m, MAXF, a->values[k], out, R_OPT, 0, back)].opt = name;
        outs += out;
    }
    for (int i = 0; i < a->n_pos; i++)
        add_role(r, &m, MAXF, a->pos[i], 0, R_GRAPH, 0, 0);
    if (outs || cmd == &cmd_train) /* nothing written, nothing to look for */
        add_named_roles(cmd, a, r, &m, MAXF);
    for (int k = 0; k < n_picked; k++)
        if (picked[k])
            r[add_role(r, &m, MAXF, picked[k], 0, R_PICKED, 0, 0)].opt = what[k];
    int rc = 0;
    for (int i = 0; i < m && !rc; i++)
        for (int j = i + 1; j < m && !rc; j++)
            rc = refuse_pair(cmd, r, i, j);
    for (int i = 0; i < m; i++)
        free(r[i].own);
    return rc;
}

int cli_check_picked(const CliCmd *cmd, const CliArgs *a, const char *const *paths, const char *const *what, int n)
{
    return refuse_overwrite(cmd, a, paths, what, n) ? EXIT_USAGE : 0;
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
    if (refuse_overwrite(cmd, a, NULL, NULL, 0))
        return EXIT_USAGE;
    /* the cluster options are checked here so that their misuse is a usage error */
    const char *file = cli_get(cmd, a, "cluster"), *devs = cli_get(cmd, a, "devices");
    if (file && devs)
        return cli_usage_error(cmd, "give either --cluster or --devices, not both");
    long count;
    if (devs && cli_int_or(cmd, a, "devices", 1, &count))
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
    return (AgentArgs){.get = args_get, .ctx = ctx, .opts = cmd->opts};
}

/* An AgentArgs reader's result as the command's usage error. */
#define CLI_READ(call)                                                                                                 \
    do {                                                                                                               \
        CliArgsCtx ctx;                                                                                                \
        AgentArgs args = cli_agent_args(cmd, a, &ctx);                                                                 \
        Err e = {{0}};                                                                                                 \
        return (call) ? cli_usage_error(cmd, "%s", e.msg) : 0;                                                         \
    } while (0)

int cli_int(const CliCmd *cmd, const CliArgs *a, const char *name, long *out)
{
    CLI_READ(agent_opt_int(&args, name, out, &e));
}

int cli_int_or(const CliCmd *cmd, const CliArgs *a, const char *name, long def, long *out)
{
    CLI_READ(agent_opt_int_or(&args, name, def, out, &e));
}

int cli_int_in(const CliCmd *cmd, const CliArgs *a, const char *name, long min, long max, long def, long *out)
{
    CLI_READ(agent_opt_int_in(&args, name, min, max, def, out, &e));
}

int cli_num(const CliCmd *cmd, const CliArgs *a, const char *name, double *out)
{
    CLI_READ(agent_opt_num(&args, name, out, &e));
}

int cli_num_or(const CliCmd *cmd, const CliArgs *a, const char *name, double def, double *out)
{
    CLI_READ(agent_opt_num_or(&args, name, def, out, &e));
}

int cli_word(const CliCmd *cmd, const CliArgs *a, const char *name, const char **out)
{
    CLI_READ(!(*out = agent_opt_word(&args, name, &e)) && e.msg[0]);
}

int cli_problem(const CliCmd *cmd, const CliArgs *a, const char *graph_path, long max_groups, ProblemSpec *s,
                uint64_t *seed)
{
    memset(s, 0, sizeof *s);
    long groups = 0, sd = 0, devs = 0;
    const char *gs = cli_get(cmd, a, "groups");
    int chains = gs && strcmp(gs, "chains") == 0; /* HSDAG's coarsening instead of a count */
    if ((!chains && cli_int_in(cmd, a, "groups", 1, max_groups, 0, &groups)) || (seed && cli_int(cmd, a, "seed", &sd)) ||
        cli_int_or(cmd, a, "devices", 0, &devs))
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
