/* agent: the one contract every learned placer fills (Placeto, the
 * RNN-based placer, GDP, HSDAG; docs/architecture.md). An AgentKind is a
 * descriptor with a sub-table per concern:
 *
 *   file    its policy file: load from the parsed document, save, free, and
 *           what the network says of itself (devices, groups);
 *   place   the rows `place --policy` and `compare --policy` report;
 *   train   its option table, the configuration those options give, a new
 *           network for the training graphs, and its trainer (new, run,
 *           free) reporting through one progress callback;
 *   actor   (optional) stepping an explorer episode (episode.h).
 *
 * Each placer lives in its own folder, core/agents/NAME/, and defines its
 * AgentKind in one file; core/agents/agents.c is the one list (the
 * registry). Nothing above this layer names an agent: the commands and the
 * explorer find them with agent_find, agent_at and agent_file_open.
 * Implemented in agent.c (the registry's list: agents.c). */
#ifndef PLACETO_AGENT_H
#define PLACETO_AGENT_H

#include <stdint.h>

#include "episode.h"
#include "jdoc.h"
#include "place_run.h"
#include "problem.h"
#include "train_state.h"
#include "util.h"

typedef struct AgentKind AgentKind;

/* --- the policy file ------------------------------------------------------ */

/* A policy file read and parsed once (agent_file_open): its text, its JSON
 * document and the agent its "agent" field names. */
typedef struct AgentFile {
    const AgentKind *kind;
    char *path;
    char *text;
    size_t len;
    JDoc doc;
} AgentFile;

/* What a network says of itself. */
typedef struct AgentInfo {
    int n_devices;   /* the devices it was trained on (the default cluster's count) */
    int n_groups;  /* the grouping a one-graph policy's network reads (0: any, each graph its own) */
    int heads;     /* attention heads the explorer averages (0: one attention, or none) */
    int any_devices; /* 1: it places on any device count (the learned search); 0: on n_devices only */
} AgentInfo;

typedef struct AgentFileOps {
    /* The network of the parsed file f (its kind is this one); ts (when not
     * NULL) is initialised by the call and filled with the file's training
     * state when it has one. NULL with e set ("FILE:LINE:COL: field: ..."). */
    void *(*load)(const AgentFile *f, TrainState *ts, Err *e);
    /* Writes net (and ts when not NULL) to path, atomically. */
    int (*save)(const void *net, const TrainState *ts, const char *path, Err *e);
    void (*free)(void *net);
    void (*info)(const void *net, AgentInfo *out);
    /* The network's weights and Adam moments (the checkpoint's). */
    NnParams *(*params)(void *net);
    /* The control: a network of net's architecture (and vocabulary) with
     * the weights a new training run starts from with seed, never
     * updated. NULL with e set. */
    void *(*untrained)(const void *net, uint64_t seed, Err *e);
} AgentFileOps;

/* --- placing --------------------------------------------------------------- */

/* Where the zero-shot episodes of a Placeto policy start. */
typedef enum AgentStart {
    AGENT_START_DEFAULT,   /* the agent's own start (Placeto: its fixed random placement, row "placeto") */
    AGENT_START_HEURISTIC  /* the best heuristic's placement (place_best_heuristic), which the
                              result is never worse than: row "placeto-refine" (gdp: the
                              fallback row "gdp-or-heuristic", AGENT_REFINE_FALLBACK) */
} AgentStart;

/* What AGENT_START_HEURISTIC means for an agent's placer. */
typedef enum AgentRefine {
    AGENT_REFINE_NONE,     /* it does not apply (a usage error) */
    AGENT_REFINE_START,    /* the policy starts from the best heuristic's placement */
    AGENT_REFINE_FALLBACK  /* the best of the policy's own placements and the best heuristic's
                              (gdp: row "gdp-or-heuristic"), not a start */
} AgentRefine;

typedef struct AgentPlaceOpts {
    int samples;    /* sampled episodes or decodes besides the greedy one */
    uint64_t seed;
    AgentStart start;
    int64_t budget; /* placements a searching agent may simulate (lsearch; 0: its default) */
} AgentPlaceOpts;

typedef struct AgentPlaceOps {
    /* The agent's rows of a comparison on p with the network net (of the
     * policy file at path) and its training state ts: "NAME-trained" first
     * when ts holds a best placement of this graph and grouping (time NAN:
     * it came from training), then the zero-shot row. The name of the
     * heuristic a refinement started from goes to *start_name (when not
     * NULL). Fills rows[0..n) and returns n (1 or 2), or -1 with e set. */
    int (*runs)(const AgentKind *k, const Problem *p, const char *path, const void *net, const TrainState *ts,
                const AgentPlaceOpts *o, PlaceRun rows[2], const char **start_name, Err *e);
    const char *trained_row; /* "rnn-trained": a string literal */
    AgentRefine refine;      /* what AGENT_START_HEURISTIC means for it */
    /* A one-shot placer (oneshot_place_runs' runs): the best of a greedy
     * decode and `samples` sampled ones (seeded with seed) of net on g,
     * grouped by gr, on c, to group_device and *runtime_us; the placements
     * simulated, or -1 with e set. NULL for Placeto. */
    int64_t (*place)(const void *net, const Graph *g, const Grouping *gr, const Cluster *c, int samples,
                     uint64_t seed, int *group_device, double *runtime_us, Err *e);
} AgentPlaceOps;

/* --- training -------------------------------------------------------------- */

/* One option, as data (tmux's options-table.c): the command line's tables
 * (cli.h) and each agent's trainer (AgentTrainOps.opts) are arrays of these.
 * From a row come the option's parsing (agent_opt_int and its kin read the
 * value, its bounds and its default from it), its --help line and man page
 * entry (agent_opt_help), its completion (`placeto --complete values`) and
 * the value column of docs/cli.md (`placeto --complete table`, checked by
 * tests/cli/cli_docs.sh). Fill rows with designated initializers. */
typedef enum AgentOptType {
    AGENT_OPT_TEXT = 0, /* a path or free text, checked by its reader (a flag when arg is NULL) */
    AGENT_OPT_INT,      /* an integer in [min, max] */
    AGENT_OPT_NUM,      /* a number in [min, max] */
    AGENT_OPT_WORD,     /* one of choices */
} AgentOptType;

typedef struct AgentOpt {
    const char *name;      /* long name, without -- */
    char short_name;       /* 0: none */
    const char *arg;       /* the value's name in --help ("K"), NULL for a flag */
    const char *help;      /* one line, without the default or the bounds (added from the row) */
    AgentOptType type;
    double min, max;       /* INT, NUM: inclusive bounds (integers up to 2^62 are exact) */
    const char *def;       /* the default as it would be typed ("0.001", "best"); NULL: none, or note's */
    const char *note;      /* NULL, or what else sets the default ("paper 1.0"; without def: "the
                              policy's device count, else 2"), said after def */
    const char *choices;   /* WORD: the values, separated by spaces */
} AgentOpt;

/* The options given to `train`, as the command line parsed them: get(ctx,
 * name) is the value of --name ("1" for a flag) or NULL. */
typedef struct AgentArgs {
    const char *(*get)(void *ctx, const char *name);
    void *ctx;
    const AgentOpt *opts;  /* the rows the readers check values by ({0}-ended), */
    const AgentOpt *more;  /* then these (NULL: none): an agent's own, then the shared ones */
} AgentArgs;

/* What a trainer reports after each episode or update (train_state.h's
 * TrainReport), with ud the caller's. */
typedef struct AgentTrainOps {
    const char *unit;        /* "episode" or "update" */
    long max_groups;         /* --groups' upper bound */
    const AgentOpt *opts;    /* the agent's own options, {0}-ended (besides the shared ones) */
    const char *help;        /* its paragraph of `train --help` (lines of at most 100 columns, no
                                defaults: those come from the rows), NULL: none */
    const char *const *shape; /* of those, the ones setting a new network's architecture
                                (refused with --resume), NULL-ended */
    size_t config_size;      /* bytes of the agent's configuration (configure fills it) */
    /* Reads the agent's options into cfg (config_size bytes, zeroed), with
     * seed the shared --seed. -1 with e set on a usage error (the message
     * names the option and what was expected). */
    int (*configure)(const AgentArgs *a, uint64_t seed, void *cfg, Err *e);
    /* The training state of a fresh network (before its first episode). */
    void (*state_init)(TrainState *ts, const void *cfg);
    /* A new network for the training problems pb[0..n) on cluster c. */
    void *(*create)(const void *cfg, const Problem *pb, int n, const Cluster *c, Err *e);
    /* After --resume: cfg takes what the resumed network was built and
     * trained with where the options leave it open (Placeto: its features,
     * its acceptance rule and its start), and the network what cfg now asks
     * of it; NULL: nothing to adapt. */
    void (*resumed)(void *net, void *cfg, const AgentArgs *a);
    /* NULL (the explorer's background training refuses it), or what that
     * training (the explorer's key T) gives net, a copy of the policy in
     * use, on an episode configured as ep_cfg with seed: its configuration
     * into cfg (config_size bytes, zeroed) and, on the session's first run
     * (first), the training state *ts; later runs go on with *ts. */
    void (*explore)(const void *net, const EpisodeConfig *ep_cfg, uint64_t seed, void *cfg, TrainState *ts,
                    int first);
    /* Whether the training graphs need their PolicyGraph (Placeto's). */
    int policy_graphs;
    void *(*trainer_new)(void *net, TrainState *ts, const void *cfg, const TrainGraph *tg, int n,
                         const Cluster *c, Err *e);
    /* Runs n more episodes (updates), calling cb after each; a nonzero
     * *stop ends the run early. Returns the episodes (updates) run. */
    int64_t (*run)(void *trainer, int64_t n, TrainCallback cb, void *ud, volatile int *stop);
    void (*trainer_free)(void *trainer);
    /* NULL, or what the training state needs from the problems before the
     * first episode (Placeto's --init: a method's placement of each graph as
     * its best so far). 0, or -1 with e set. */
    int (*prepare)(TrainState *ts, const void *cfg, const Problem *pb, int n, Err *e);
    /* NULL, or the episodes of one round on one rank (Placeto: its threads):
     * a run's episodes are rounded up to whole rounds of every rank */
    long (*round)(const void *cfg);
} AgentTrainOps;

/* --- the explorer's actor (optional) --------------------------------------- */

/* A learned placer that steps an explorer episode once over the groups in
 * topological order from device 0 (oneshot.h): the texts the explorer
 * shows, and its functions on an opaque net and actor. */
typedef struct AgentActorOps {
    const char *does;         /* "decodes every group once, in order, from device 0" */
    const char *start;        /* the start message: "decodes them in order from device 0" */
    const char *attends;      /* 'a': "the groups the rnn decoder attends to most at this step" */
    const char *reads[2];     /* the tour's feature rows: what it reads instead of Placeto's features */
    /* NULL: the why row is attention weights (the pane lists the largest, 'a'
       highlights them); else it marks a set of groups equally, named here
       ("its learned cluster": the heading counts them, 'a' highlights them all) */
    const char *set_why;
    int (*check)(const Episode *ep, const void *net, Err *e);
    void *(*actor_new)(const void *net, const Graph *g, const Grouping *gr, const Cluster *c, Err *e);
    void (*actor_free)(void *actor);
    /* the episode net is stepped on (its features, start, acceptance) */
    void (*config)(const void *net, EpisodeConfig *cfg);
    /* 1: it places every group once, in order (a one-shot placer): it
       refuses an episode of several passes, a random order or a start
       other than its own (test_contract.c checks that it does) */
    int one_pass;
    /* The distribution over the devices at the episode's current group (NULL
       when done), and in *attention one weight per group (NULL: it attends
       to none) */
    const float *(*probs)(void *actor, const Episode *ep, const float **attention);
    const EpisodeStep *(*step)(Episode *ep, void *actor, int greedy);
    /* NULL, or the learned clusters of the groups: their count, and the
       cluster of every group in *cluster (valid while the actor lives) */
    int (*clusters)(void *actor, const int **cluster);
} AgentActorOps;

struct AgentKind {
    const char *name;   /* "rnn": the policy file's "agent" and `train --agent` */
    const char *a_name; /* "an rnn" */
    const char *title;  /* "the RNN-based placer (Mirhoseini et al. 2017)" */
    AgentFileOps file;
    AgentPlaceOps place;
    AgentTrainOps train;
    const AgentActorOps *actor; /* how the explorer steps its policy (NULL: it cannot) */
};

/* --- the registry ----------------------------------------------------------- */

/* The list (core/agents/agents.c). */
extern const AgentKind *const agent_list[];
extern const int agent_list_count;

/* The registered agents (the list, then any agent_register added), in the order commands list
 * them; agent_count() of them. */
int agent_count(void);
const AgentKind *agent_at(int i);
/* The agent named name, or NULL. */
const AgentKind *agent_find(const char *name);
/* "placeto, rnn, gdp, hsdag": the registered names, for messages. */
const char *agent_names(void);
/* The same with each name quoted: "\"placeto\", \"rnn\", ..." (file errors). */
const char *agent_names_quoted(void);
/* Registers one more agent (tests: a test-only agent); at most a few. */
void agent_register(const AgentKind *k);

/* Reads and parses the policy file at path once ("-": standard input) and
 * finds its agent from its "agent" field ("placeto" when absent). Returns 0
 * with f filled (agent_file_done releases it), or -1 with e set: the file
 * cannot be read or parsed, is no policy file, or names no registered
 * agent. */
int agent_file_open(const char *path, AgentFile *f, Err *e);
void agent_file_done(AgentFile *f);

/* A policy file's network, loaded once: agent_policy_open reads, parses
 * and loads (ts when not NULL gets the training state); agent_policy_close
 * frees the network. */
typedef struct AgentPolicy {
    const AgentKind *kind;
    void *net;
    AgentInfo info;
    int n_trained;
    uint64_t checksum; /* of the file's bytes (util_hash64) */
    char *path;
    Cluster *cluster;  /* the cluster it was trained on (the file's "cluster"); NULL: not recorded */
} AgentPolicy;
int agent_policy_open(const char *path, AgentPolicy *p, TrainState *ts, Err *e);
/* agent_policy_open, and the training checkpoint beside the file into ts
 * (policy_file_read_checkpoint; ts->has_optimizer tells whether there was
 * one): what `train --resume` continues from. */
int agent_policy_resume(const char *path, AgentPolicy *p, TrainState *ts, Err *e);
/* The most a counter of a file may be for a run to continue from it: 2^52. */
#define AGENT_RESUME_MAX ((int64_t)1 << 52)
/* -1 with e set (the field named) when a counter of ts is past AGENT_RESUME_MAX. */
int agent_counters_room(const char *path, const TrainState *ts, Err *e);
void agent_policy_close(AgentPolicy *p);

/* The policy file at path loaded once per process (agent_policy_open on
 * the first call, the same network and training state (*ts, when not NULL)
 * on every later one with the same path): what the commands and the
 * explorer place with, so that one command reads and parses a policy file
 * once. NULL with e set. agent_policy_cache_clear frees them all. */
const AgentPolicy *agent_policy_cached(const char *path, const TrainState **ts, Err *e);
void agent_policy_cache_clear(void);
/* The network of the policy file at path, taken out of the cache (the
 * caller owns it and frees it with kind->file.free), or opened now when the
 * cache does not hold it: 0 with *p filled (its path and network the
 * caller's: agent_policy_close frees both), or -1 with e set. For the
 * explorer, which keeps the network it steps. */
int agent_policy_take(const char *path, AgentPolicy *p, Err *e);
/* agent_place_runs with the policy file at path, opened for the call. */
int agent_place_file(const char *path, const Problem *pb, const AgentPlaceOpts *o, PlaceRun rows[2],
                     const char **start_name, Err *e);

/* The untrained control of the loaded policy p: the same architecture
 * with the weights training starts from with o->seed (file.untrained),
 * placing by the same procedure and budget as p's zero-shot row (o). Fills
 * row with that row named "ROW-untrained" ("placeto-untrained",
 * "rnn-untrained", ...); 0, or -1 with e set. */
int agent_place_untrained(const AgentPolicy *p, const Problem *pb, const AgentPlaceOpts *o, PlaceRun *row, Err *e);

/* The row `name` ("NAME-trained") of the best placement ts (when not NULL)
 * holds for p's graph and grouping, when it has one on p's cluster (every
 * device in range): placements are what training had simulated when it
 * found it, its time NAN. 1 with row filled, else 0. Every agent's runs. */
int agent_trained_row(const TrainState *ts, const Problem *p, const char *name, PlaceRun *row);

/* The rows of kind's place.runs for the loaded policy. */
int agent_place_runs(const AgentPolicy *p, const TrainState *ts, const Problem *pb, const AgentPlaceOpts *o,
                     PlaceRun rows[2], const char **start_name, Err *e);

/* Reads an integer or a number option for a trainer's configure: def when
 * absent; -1 with e set ("--name: expected an integer in [min, max], got
 * 'x'") when malformed or out of range. */
/* The row of option name in a->opts; NULL when the table has none. */
const AgentOpt *agent_opt_find(const AgentOpt *opts, const char *name);
/* Checks a value against its row: an integer or number within the bounds,
 * one of the choices. 0, or -1 with e set ("--NAME: expected ..., got 'V'"). */
int agent_opt_check(const AgentOpt *o, const char *value, Err *e);
/* The value of option name read by its row in a->opts (a row that is not
 * there, or has no default, is the program's error: it dies): given, it is
 * checked (agent_opt_check); else the row's default. 0, or -1 with e set. */
int agent_opt_int(const AgentArgs *a, const char *name, long *out, Err *e);
int agent_opt_num(const AgentArgs *a, const char *name, double *out, Err *e);
/* WORD: the value given, else the default (NULL: none); NULL with e set
 * when the value is not one of the choices (check e->msg[0]). */
const char *agent_opt_word(const AgentArgs *a, const char *name, Err *e);
/* The same, where the default depends on other input (a preset, a policy
 * file: the row's note says which), given as def. */
int agent_opt_int_or(const AgentArgs *a, const char *name, long def, long *out, Err *e);
int agent_opt_num_or(const AgentArgs *a, const char *name, double def, double *out, Err *e);
/* The same within narrower bounds than the row's, where they depend on the
 * input (--stage 1..the tour's stages, --groups up to an agent's limit). */
int agent_opt_int_in(const AgentArgs *a, const char *name, long min, long max, long def, long *out, Err *e);
/* What --help, the man page and docs/cli.md add to a row's help: "(1-256,
 * default 1)", "(default best; paper: last)"; "" when nothing. md: the value
 * column of docs/cli.md ("1–256, default 1", "`best` (default) or `last`"). */
void agent_opt_suffix(const AgentOpt *o, char *buf, size_t n);
void agent_opt_md(const AgentOpt *o, char *buf, size_t n);
/* Checks a table's rows ({0}-ended): a name and help each, a value name
 * (arg) for every typed row, min <= max, a default that passes its own row
 * (agent_opt_check), choices for a word, and no "(default" in a help (the
 * row says it). 0, or -1 with e set naming the row. */
int agent_opt_table_check(const AgentOpt *t, Err *e);
/* The help line of a row: help, then its suffix. */
void agent_opt_help(const AgentOpt *o, char *buf, size_t n);
static inline const char *agent_arg(const AgentArgs *a, const char *name) { return a->get(a->ctx, name); }

#endif
