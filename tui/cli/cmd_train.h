/* cmd_train.h: what `train`'s runners share (cmd_train.c: the option table, Placeto's runner, the
 * shared loop and helpers; cmd_train_agents.c: the runner of every agent
 * that fills agent.h's training table). Internal to the train command. */
#ifndef PLACETO_CMD_TRAIN_H
#define PLACETO_CMD_TRAIN_H

#include <stdio.h>

#include "cli.h"
#include "agent.h"
#include "train_state.h"

typedef struct Progress {
    int tty, json;
    int quiet; /* a rank other than 0 of a distributed run: no output */
    int64_t first, total; /* episode numbers of this run: first+1 .. first+total */
    double t0;
    double recent[TRAIN_BASELINE_WINDOW];     /* the last episodes' total rewards */
    double recent_ent[TRAIN_BASELINE_WINDOW]; /* their policies' mean entropies (NAN: not measured) */
    int n_recent;
    int64_t every;
    const TrainGraph *graphs;
    const Problem *problems; /* the same graphs as problems (NULL: no closing comparison) */
    int n_graphs;
    FILE *curve;
    double last_draw;
} Progress;

/* The part of `train` every agent shares: the learning curve (written to
 * curve_path when --curve asks, committed at the end, removed on failure),
 * the progress, runs of episodes (updates, for the one-shot agents) up to each
 * checkpoint, each checkpoint saved, and the summary. */
typedef struct TrainLoop {
    int64_t (*run)(void *trainer, int64_t n, TrainCallback cb, void *ud, volatile int *stop);
    int (*save)(const void *policy, const TrainState *ts, const char *out, Err *e);
    void *trainer, *policy;
    const char *unit; /* "episode" or "update" */
} TrainLoop;

int train_cli_loop(const TrainLoop *l, Progress *pr, TrainState *ts, int64_t every, const char *out,
                   const char *curve_path, Err *e);
/* The ranks of a distributed run (dist.h) agree before training: 0 when
 * every rank's set-up succeeded (failed 0) and all train on the same graph
 * files and resumed state; otherwise -1 on every rank with the message of
 * the first failing rank in e. A rank whose set-up fails before it gets
 * here calls train_cli_abort instead. One rank: nothing to agree. */
int train_cli_begin(int failed, const Problem *pb, int n, const TrainState *ts, Err *e);
/* A set-up failure before train_cli_begin: tells the other ranks, then the
 * message (rank 0 only) and EXIT_FAIL. */
int train_cli_abort(Err *e);
/* --resume of a policy file without its checkpoint: ts (what the file held)
 * becomes fresh (a new optimizer state) with ts's counters and best
 * placements; a note says so when the policy had been trained. */
void train_cli_fresh_optimizer(const char *resume, TrainState *fresh, TrainState *ts);
/* The TrainCallback of every trainer: progress, --json lines, the curve (ud: a Progress). */
void train_cli_on_episode(const TrainReport *r, void *ud);
/* Set by Ctrl-C or SIGTERM: the trainers' stop flag. */
extern volatile int train_cli_stop;

/* The graph files of the positional arguments, directories expanded into
 * their .json files, sorted. */
char **train_cli_paths(const CliArgs *a, int *count, Err *e);
/* Loads the training graphs onto the one cluster of spec (with each one's
 * policy graph when policy_graphs): distinct names, since the policy file
 * keeps each graph's best placement by name. */
int train_cli_load_graphs(ProblemSpec *spec, char **paths, int n, Problem *pb, TrainGraph *tg, int policy_graphs,
                          Err *e);
void train_cli_free_graphs(Problem *pb, TrainGraph *tg, int n);

/* Builds train's option table (cmd_train.opts): the shared options and
 * every registered agent's; idempotent (main calls it first). */
void train_cli_init(void);
/* The first option given that agent k's trainer does not take, or NULL. */
const char *train_cli_refused(const CliCmd *cmd, const CliArgs *a, const AgentKind *k);
/* "--agent rnn, gdp or hsdag": the agents whose trainers take option name. */
void train_cli_whose(const char *name, char *buf, size_t n);
/* train [--agent NAME]: the one runner of every agent's trainer. */
int train_cli_agent(const CliCmd *cmd, const CliArgs *a, const AgentKind *k);

/* The closing comparison on one training graph: the policy's own
 * placement (what `place --policy` gives: the file just written, read
 * back), its untrained control, the best heuristic and the best placement
 * seen in training. */
typedef struct TrainClosing {
    double policy_us, untrained_us, heuristic_us, seen_us;
    const char *row, *heuristic; /* the policy's row ("placeto-refine", ...), the heuristic's method */
} TrainClosing;
#define TRAIN_CLOSING_GRAPHS 4 /* training graphs compared at the end (a family: its first ones) */
/* The closing comparison of the training graphs of pr (up to
 * TRAIN_CLOSING_GRAPHS) with the policy file out: into o[], returns how
 * many, 0 when the file cannot be read or pr has no problems. */
int train_cli_closing(const Progress *pr, const char *out, TrainClosing *o);

#endif
