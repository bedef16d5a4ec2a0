/* cli: command-line parsing shared by the subcommands (cli.c), the options
 * that name a placement problem, and the commands' tables (cmd_info.c,
 * cmd_sim.c for simulate and export, cmd_place.c for place and compare,
 * cmd_train.c, cmd_explore.c for explore and demo; docs/cli.md). Errors are
 * printed as "placeto: FILE:LINE:COL: message"; exit status 0 ok, 1
 * failure, 2 usage. */
#ifndef PLACETO_CLI_H
#define PLACETO_CLI_H

#include "agent.h"
#include "cluster.h"
#include "graph.h"
#include "group.h"
#include "placement.h"
#include "problem.h"

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* One option of a command: long name (without --), optional short letter,
 * the argument's name (NULL for a flag) and the help text. An argument name
 * in brackets ("[SECONDS]") makes the value optional: the next argument is
 * taken only when it is a number (or --opt=VALUE), and the option alone
 * reads as "". Values are given as "--opt VALUE", "--opt=VALUE", "-o VALUE"
 * or "-oVALUE". */
typedef AgentOpt CliOpt; /* the agents' trainers declare their options alike (agent.h) */

typedef struct CliCmd {
    const char *name;
    const char *brief;    /* a few words for the command list */
    const char *usage;    /* after "placeto NAME " */
    const char *summary;  /* one line */
    const char *details;  /* paragraphs after the options, or NULL */
    const CliOpt *opts;   /* terminated by {0} */
    int (*run)(int argc, char **argv);
} CliCmd;

/* Parsed arguments: values[i] for opts[i] (flags get "1"), positionals. */
#define CLI_MAX_OPTS 96 /* options per command (opt_count dies beyond) */
typedef struct CliArgs {
    const char *values[CLI_MAX_OPTS];
    const char *pos[256];
    int n_pos;
} CliArgs;

/* Parses argv[1..] (argv[0] is the command name). Prints help and returns 1 for
 * --help; returns 2 (after an error message) on a usage error; 0 otherwise. */
int cli_parse(const CliCmd *cmd, int argc, char **argv, CliArgs *a);
/* cli_parse for the commands that take exactly one GRAPH. Returns 0 to go
 * on; otherwise returns the exit status (EXIT_OK after --help, whose text
 * extra_help may extend, EXIT_USAGE after a usage error) with *stop set. */
int cli_parse_graph(const CliCmd *cmd, int argc, char **argv, CliArgs *a, void (*extra_help)(FILE *), int *stop);
/* The same for commands that take min to max GRAPHs (max 0: none). */
int cli_parse_graphs(const CliCmd *cmd, int argc, char **argv, CliArgs *a, int min, int max,
                     void (*extra_help)(FILE *), int *stop);
/* One path, one role (what cli_parse checks on the command line and in the
 * files its inputs name) for the n inputs a command picks itself: paths[k]
 * (NULL: none), described by what[k] ("the policy P that --policy auto
 * picks"). A usage error, before anything is written, when an output of the
 * command line names one: returns EXIT_USAGE after the message, else 0. */
int cli_check_picked(const CliCmd *cmd, const CliArgs *a, const char *const *paths, const char *const *what, int n);
const char *cli_get(const CliCmd *cmd, const CliArgs *a, const char *name);
void cli_help(const CliCmd *cmd, FILE *f);
int cli_usage_error(const CliCmd *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The message of the last usage error on a rank other than 0 (which prints
 * nothing: rank 0 prints), "" when none. */
const char *cli_last_usage(void);
/* Prints "placeto: msg" to stderr and returns EXIT_FAIL. */
int cli_fail(const Err *e);
/* The options of cmd as agent.h's AgentArgs (ctx: its storage), for the
 * readers an agent's trainer configures itself with. */
typedef struct CliArgsCtx {
    const CliCmd *cmd;
    const CliArgs *a;
} CliArgsCtx;
AgentArgs cli_agent_args(const CliCmd *cmd, const CliArgs *a, CliArgsCtx *ctx);

/* The readers of the options by their rows (agent.h's agent_opt_*): the
 * value given, checked against its row, else the row's default (_or: def,
 * where the default depends on other input; _in: within narrower bounds).
 * 0, or EXIT_USAGE after the usage error. cli_word: *out the value given or
 * the row's default (NULL: none). */
int cli_int(const CliCmd *cmd, const CliArgs *a, const char *name, long *out);
int cli_int_or(const CliCmd *cmd, const CliArgs *a, const char *name, long def, long *out);
int cli_int_in(const CliCmd *cmd, const CliArgs *a, const char *name, long min, long max, long def, long *out);
int cli_num(const CliCmd *cmd, const CliArgs *a, const char *name, double *out);
int cli_num_or(const CliCmd *cmd, const CliArgs *a, const char *name, double def, double *out);
int cli_word(const CliCmd *cmd, const CliArgs *a, const char *name, const char **out);

/* The options that name a placement problem, one table fragment for every
 * command that takes them: CLI_PROBLEM_OPTS("0") in a CliOpt table gives
 * --cluster, --devices, --groups and --seed (default "0"); cli_problem()
 * reads them. cli_parse refuses --cluster with --devices. */
#define CLI_OPT_CLUSTER {.name = "cluster", .short_name = 'c', .arg = "FILE", .help = "cluster file (instead of --devices)"}
#define CLI_OPT_DEVICES                                                                                                \
    {.name = "devices", .short_name = 'n', .arg = "N", .type = AGENT_OPT_INT, .min = 1, .max = CLUSTER_MAX_DEVICES,   \
     .help = "N default devices: /GPU:0.., the Placeto simulator's parameters",                                       \
     .note = "a given policy's or placement's count, else 2"}
#define CLI_OPT_GROUPS                                                                                                 \
    {.name = "groups", .short_name = 'g', .arg = "G", .type = AGENT_OPT_INT, .min = 1, .max = 1L << 30,               \
     .help = "target group count, or chains: HSDAG's coarsening", .note = "by graph size"}
#define CLI_OPT_SEED(def_)                                                                                             \
    {.name = "seed", .short_name = 's', .arg = "S", .type = AGENT_OPT_INT, .min = 0, .max = 1L << 62,                 \
     .help = "seed of everything random", .def = def_}
#define CLI_PROBLEM_OPTS(seed_default) CLI_OPT_CLUSTER, CLI_OPT_DEVICES, CLI_OPT_GROUPS, CLI_OPT_SEED(seed_default)

/* Reads --cluster/--devices/--groups (1..max_groups) into s for graph_path
 * (everything else in s zero) and --seed (its row's default) into *seed. Returns 0, or EXIT_USAGE after a usage error. */
int cli_problem(const CliCmd *cmd, const CliArgs *a, const char *graph_path, long max_groups, ProblemSpec *s,
                uint64_t *seed);
/* The cluster from --cluster FILE, else --devices N, else fallback_devices
 * default devices. Returns NULL with e set. */
Cluster *cli_cluster(const CliCmd *cmd, const CliArgs *a, int fallback_devices, Err *e);
/* --devices defaulting to a policy's device count: when policy_path names a
 * policy file (not NULL or "auto") and no --cluster is given, *n is the
 * count the policy was built for, and an explicit --devices N that differs
 * is an error naming both. Returns 0 (*n = 0 when the policy fixes
 * nothing), or -1 with e set (an unreadable or invalid policy, a
 * conflicting --devices: exit status 1). */
int cli_policy_devices(const CliCmd *cmd, const CliArgs *a, const char *policy_path, int *n, Err *e);
/* The same, and *groups the group count of an rnn policy trained on one
 * graph (its network read that grouping); 0 for a family's rnn policy
 * (each graph its default grouping, up to the policy's capacity), a
 * Placeto one or none. */
int cli_policy_shape(const CliCmd *cmd, const CliArgs *a, const char *policy_path, int *n, int *groups, Err *e);
/* The cluster the policy file at policy_path (not NULL or "auto", already
 * read by cli_policy_shape) was trained on, when the file records it and
 * neither --cluster nor --devices is given: the command runs on it
 * (borrowed from the policy cache; NULL otherwise). */
const Cluster *cli_policy_cluster(const CliCmd *cmd, const CliArgs *a, const char *policy_path);
/* The cluster the policy file at policy_path records (NULL: none, or no
 * policy file), from the policy cache (read there once). */
const Cluster *cli_policy_trained_cluster(const char *policy_path);
/* An explicit --cluster or --devices is honoured: when the cluster used, c,
 * differs from trained, the one the policy at policy_path was trained on
 * (cli_policy_trained_cluster; NULL: nothing to say), a note on stderr
 * names both and what chose c; returns 1 then (msg, when not NULL, gets the
 * note without "placeto: "), else 0. */
int cli_policy_cluster_note(const CliCmd *cmd, const CliArgs *a, const char *policy_path, const Cluster *trained,
                            const Cluster *c, char *msg, size_t n);

extern const CliCmd cmd_info, cmd_simulate, cmd_export, cmd_place, cmd_compare, cmd_train, cmd_explore, cmd_demo;

#endif
