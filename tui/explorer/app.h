/* app: the explorer's model. An App holds everything the explorer shows and
 * changes: the loaded graph, cluster, grouping, policy and episode; what is
 * derived from them (the timeline, the policy's probabilities for the
 * current node); the view state; the dialogs' state; the baselines;
 * background training; replay; the guided tour; the files it writes. The
 * functions below change it with plain arguments and report in the message
 * line (app_msg). None of them knows about keys, the mouse, timers or the
 * screen: the controller (ctl.c, the key halves of dialogs.c) maps input to
 * these calls, and the view (draw.c, the draw halves of dialogs.c) renders
 * a const App onto a Grid.
 *
 * The model's files: app.c (loading, the derived cache, messages, files,
 * baselines), app_actor.c (the learned single-pass placers: rnn, gdp,
 * hsdag),
 * app_episode.c (stepping, overrides, undo and redo, running,
 * replay), app_view.c (selection, panes, zoom and pan, the timeline window,
 * the dialogs' state), app_train.c (background training) and demo.c (the
 * guided tour).
 *
 * The App owns everything it loads. The episode is stepped through the
 * episode API of core/agent/episode.h, exactly as the trainer does;
 * background training runs on a copy of the policy in its own thread and
 * hands its weights back when it stops. */
#ifndef PLACETO_APP_H
#define PLACETO_APP_H

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "dag.h"
#include "episode.h"
#include "grid.h"
#include "timeline.h"
#include "place_run.h"
#include "agent.h"
#include "placeto_episode.h"
#include "placeto_io.h"
#include "placeto_train.h"

/* Placements the local searches (anneal, ils) may simulate in the
 * explorer's baselines table: APP_SEARCH_WORK op simulations, between 100
 * and 2 000 placements, so that the table takes seconds even on large
 * graphs (2 000 on inception_v3, 575 on nmt, 100 on a 100 000-op graph). */
#define APP_SEARCH_BUDGET 2000
#define APP_SEARCH_WORK 4000000
typedef enum AppPane {
    PANE_GRAPH, PANE_TIMELINE, PANE_POLICY, PANE_DEVICES, PANE_HISTORY, PANE_INSPECTOR, PANE_COUNT
} AppPane;

typedef enum AppDialog {
    DLG_NONE, DLG_HELP, DLG_QUIT, DLG_SEARCH, DLG_BASELINES, DLG_START_FROM, DLG_TRAIN, DLG_NEW_EPISODE,
    DLG_WHY,  /* why this device (why.c; menu_pos: the message-passing round shown) */
    DLG_RACE, /* the race of the placers (app_race.c) */
    DLG_OVERWRITE, DLG_SAVE_AS, DLG_COUNT
} AppDialog;

/* Moving the selection along the drawn graph. */
typedef enum AppMove {
    APP_MOVE_PARENT, /* to the first parent */
    APP_MOVE_CHILD,  /* to the first child */
    APP_MOVE_PREV,   /* to the previous group in the layer (then in topological order) */
    APP_MOVE_NEXT    /* to the next one */
} AppMove;

typedef enum AppExport { APP_EXPORT_DOT, APP_EXPORT_TRACE, APP_EXPORT_PLACEMENT } AppExport;

typedef struct AppOptions {
    const char *graph_path;   /* NULL with resume_path */
    const char *policy_path;  /* NULL: an untrained policy (seeded) */
    const char *resume_path;  /* an episode file */
    const char *cluster_path; /* NULL: n_devices default devices */
    const Cluster *cluster;   /* instead of both: this cluster (copied; the one a policy was trained on) */
    const char *episode_path; /* where `s` saves (default: GRAPHNAME.episode.json) */
    int n_devices;
    int groups;
    uint64_t seed;
    int greedy;
    int start_heuristic;      /* start from the best heuristic's placement (as place --policy auto does
                                 for a graph without its own bundled policy); a Placeto policy only */
    const char *replay_path;  /* an episode file to replay, forwards and backwards */
    int demo;                 /* 1: the guided tour; 2: the tour advancing on a timer */
    int demo_stage;           /* the stage to start at */
    double demo_seconds;      /* the tour on a timer: seconds per stage (0: the default) */
    int demo_own_graph;       /* the user chose the tour's graph (it stays on it) */
    int demo_app;             /* which of the default tour's Apps this is (AppTourApp; set by the tour itself) */
    int demo_loop;            /* with the timer: after the last stage, the first again */
    int demo_paused;          /* the timer paused (carried across the tour's Apps) */
    const double *demo_facts; /* the tour's numbers so far (TOUR_FACT_COUNT; NULL: none yet) */
} AppOptions;

/* What app_new loaded, and what is built once from it. */
typedef struct AppData {
    Problem pb;               /* graph, cluster, grouping and simulator */
    PolicyGraph *pg;
    Episode *ep;
    char **labels;            /* per group: its short name */
    char **box_labels[2];     /* per group: the label of its box in dag_all [0] and dag_fold [1] (full
                                 labels): the short name, or its distinctive part when that is too long */
    DagLayout *dag;           /* the group graph's layout shown: dag_all, or dag_fold (AppView.fold) */
    DagLayout *dag_all;       /* every group in layers */
    DagLayout *dag_fold;      /* a training graph's backward and update groups folded
                                 beside their forward groups (dag_fold_training); NULL
                                 when the graph has no backward pass */
    double lower_bound_us;
    double single_us;         /* every op on the fastest device */
    struct AppLayouts *layouts; /* dag_all and dag_fold while a thread computes them (app.c) */
} AppData;

/* The policy that steps the episode: a Placeto policy (pol and work), or a
 * learned single-pass placer's (kind, net and actor; pol NULL), whose
 * episodes visit the groups once in topological order. */
typedef struct AppPolicy {
    Policy *pol;              /* Placeto's network (its insides shown); NULL for another agent */
    const AgentKind *kind;    /* the policy's agent (Placeto's too), stepped through its actor (agent.h) */
    void *net;                /* another agent's network (RnnNet, GdpNet, HsdagNet); NULL for Placeto */
    void *actor;              /* its actor on the loaded graph (PlacetoActor, RnnActor, ...) */
    char why[80];             /* the Policy pane's attention heading (a set_why kind: per step) */
    char *path;               /* its file; NULL: untrained (seeded) */
    uint64_t checksum;        /* of the file, recorded in saved episodes */
} AppPolicy;

enum { APP_FEATURE_ROWS = 6, APP_ATTENTION_ROWS = 5 };

/* Derived from the episode and the policy, rebuilt whenever either changes
 * (app_changed), so that drawing only reads. */
typedef struct AppCache {
    Timeline *tl;             /* of the episode's last simulation */
    int node;                 /* the current node, -1 when the episode is complete */
    float probs[POLICY_MAX_DEVICES]; /* the policy's probabilities for node */
    int feat_group[APP_FEATURE_ROWS]; /* node, up to two parents, two children, one group on
                                 another device (-1: none) */
    float *feats;             /* their feature rows: APP_FEATURE_ROWS x the episode's n_features */
    /* an actor (an agent with an explorer actor table): the attention weights of the current step over the
       groups (n_groups; NULL for Placeto; hsdag: its cluster's groups) and the
       groups with the largest, largest first (ties: the lower index; -1: none) */
    float *attention;
    int attn_top[APP_ATTENTION_ROWS];
    /* a kind with learned clusters (hsdag): the cluster of every group (the
       actor's) and their count; NULL and 0 otherwise */
    const int *cluster;
    int n_clusters;
    /* the why panel (why.c, app_why_update): for why_group under the placement why_placement
       (n_groups; NULL: none computed yet), the runtime and out of memory with the group on each
       device, one simulation each; computed while the panel is open when that step changes, never
       by drawing */
    int why_group;
    int *why_placement;
    double why_rt[POLICY_MAX_DEVICES];
    int why_oom[POLICY_MAX_DEVICES];
} AppCache;

/* What is shown and how. */
typedef struct AppView {
    int selected;             /* the selected group */
    int follow;               /* keep the current node selected and in view */
    int zoom;                 /* DAG_FULL or DAG_COMPACT */
    int fold;                 /* show data.dag_fold (the default when there is one) */
    int x, y;                 /* graph viewport origin (canvas cells), as last shown */
    int show_sets;            /* colour ancestors, descendants and parallel nodes */
    char search[128];         /* the last search (n and N find its next and previous match) */
    AppPane focus;
    int maximized;            /* a pane shown alone, or -1 */
    double tl_t0, tl_t1;      /* timeline window (µs); t1 <= t0 means the whole run */
    int tl_by_group;          /* timeline ops coloured by group, not device */
    int by_cluster;           /* graph nodes coloured by learned cluster (an hsdag policy), not device */
    int present;              /* the presentation layout (present.c): graph, tall timeline, legend */
} AppView;

/* Stepping on a timer, and the unsaved mark. */
typedef struct AppRun {
    int running;              /* stepping (or replaying) on a timer */
    int speed;                /* steps per second while running: 1..100 */
    int greedy;               /* 1: argmax, 0: sample */
    int dirty;                /* changes since the last save */
    double last_autosave;     /* util_now() of the last autosave check */
} AppRun;

/* The open dialog and what was typed or highlighted in it. */
typedef struct AppDialogState {
    AppDialog kind;
    char input[128];          /* text typed into a prompt */
    int menu_pos;             /* highlighted row of a menu; first row shown in help */
    int scroll_max;           /* the last first row the dialog can show (-1: not known yet) */
} AppDialogState;

/* The message line. */
typedef struct AppMessage {
    char text[256];
    int style;                /* its GridStyle */
} AppMessage;


/* Every baseline on the episode's cluster, sorted by runtime. */
enum { APP_LEARNED_MAX = 12 };
typedef struct AppBaselines {
    int ran;                  /* app_run_baselines has run */
    int n_learned;            /* rows of learned agents among them */
    char learned_names[APP_LEARNED_MAX][64]; /* their method names */
    int n_learned_files;      /* the policy files those rows come from (the race races each) */
    char *learned_files[APP_LEARNED_MAX];
    PlaceRun *rows;           /* place_run rows, by runtime */
    int64_t budget;           /* the local searches' budget in placements */
    uint64_t seed;            /* the seed they ran with (the episode's then) */
    int n;
} AppBaselines;

/* Background training: a thread trains a copy of the policy and appends to
 * the learning curve under the lock; app_train_poll copies what is new for
 * the view on the main thread. */
typedef struct AppTrain {
    pthread_t thread;
    pthread_mutex_t lock;
    int lock_ready;           /* lock is initialised */
    int running;              /* the thread exists (joined when it ends) */
    volatile int stop;        /* asks the trainer to stop after its round */
    int done;                 /* the thread has finished (under lock) */
    int64_t target, ran;      /* episodes asked, episodes run (ran under lock) */
    double *curve;            /* best-so-far runtime per episode (under lock) */
    double *ret;              /* return per episode (under lock) */
    int n_curve, cap_curve;
    void *net;                /* the copy of the policy's network being trained (its agent's) */
    void *cfg;                /* its trainer's configuration (agent.h, AgentTrainOps.explore) */
    TrainState ts;
    int ts_ready;             /* ts is initialised (the first run of the session) */
    void *trainer;            /* the agent's trainer (AgentTrainOps) */
    TrainGraph tg;
    /* what the view shows, copied by app_train_poll (main thread only) */
    int64_t shown_ran;
    double *shown_curve, *shown_ret;
    int n_shown, cap_shown;
} AppTrain;

/* Replay: the saved history was undone and is walked, read-only. */
typedef struct AppReplay {
    int active;
} AppReplay;

/* The guided tour (demo.c). */
enum { APP_TOUR_MAX_STAGES = 24 };
/* The tour's stages (demo.c's table; demo --stage's bound, cmd_explore.c). */
enum { APP_TOUR_STAGES = 18 };
/* The Apps of the default tour: each stage runs in one of them (demo.c). */
typedef enum AppTourApp {
    TOUR_APP_DEFAULT,         /* GNMT (graphs/nmt.json) with its Placeto policy, 2 devices: it does not fit one */
    TOUR_APP_HELD_OUT,        /* a held-out NMT family graph with the family's Placeto policy */
    TOUR_APP_GDP,             /* the same graph with the family's GDP policy */
    TOUR_APP_RNN,             /* ResNet-18 with the RNN placer's policy */
    TOUR_APP_HSDAG,           /* Inception-V3 inference on one CPU and one GPU with an HSDAG policy */
    TOUR_APP_COUNT
} AppTourApp;
/* The numbers the tour's stages measured, recapped by its last stage. */
typedef enum AppTourFact {
    TOUR_FACT_SINGLE_US,      /* the default graph on one device */
    TOUR_FACT_SINGLE_GB,      /* its peak memory there (GB) */
    TOUR_FACT_CAP_GB,         /* that device's memory (GB) */
    TOUR_FACT_HEUR_US,        /* the best heuristic's runtime */
    TOUR_FACT_POLICY_US,      /* the tour's policy at the end of its greedy episode (its best) */
    TOUR_FACT_CONTROL_US,     /* its untrained control by the same procedure */
    TOUR_FACT_SEARCH_US,      /* the best local search in the baselines table */
    TOUR_FACT_PAPER_US,       /* the paper's rules: the episode's best */
    TOUR_FACT_HELD_US,        /* zero-shot on the held-out graph */
    TOUR_FACT_HELD_HEUR_US,   /* the best heuristic there */
    TOUR_FACT_GROUPS,         /* the default graph's groups */
    TOUR_FACT_OPS,            /* and ops */
    TOUR_FACT_COUNT
} AppTourFact;
/* The first stage's timelines: one device against the best heuristic's
 * split, as the share of each column of a common time axis that a device
 * computes (busy) or sends (xfer), 0-255. */
enum { TOUR_PROBLEM_COLS = 240, TOUR_PROBLEM_DEVICES = 4 };
typedef struct AppTourProblem {
    int ok, n_devices;
    double runtime_us[2], axis_us;
    double peak_gb[2][TOUR_PROBLEM_DEVICES], cap_gb[TOUR_PROBLEM_DEVICES];
    int oom[2];
    char heuristic[32];
    unsigned char busy[2][TOUR_PROBLEM_DEVICES][TOUR_PROBLEM_COLS];
    unsigned char xfer[2][TOUR_PROBLEM_DEVICES][TOUR_PROBLEM_COLS];
} AppTourProblem;
typedef struct AppTour {
    int active;
    int stage;                /* the stage shown (-1 when not active) */
    int autoplay;             /* advance on a timer */
    int paused;               /* the timer paused (r) */
    int loop;                 /* with the timer: after the last stage, the first again */
    double seconds;           /* with autoplay: seconds per stage */
    int own_graph;            /* the user chose the graph: the tour stays on it */
    int app;                  /* which of the default tour's Apps this is (AppTourApp) */
    int left;                 /* the stage the user left the tour at (-1: none; R re-enters) */
    int pending;              /* a slow stage to compute after a frame with the busy sign (-1: none) */
    int pending_as_is;        /* ... shown on the episode as it is (R), not brought to the stage's state */
    int jump;                 /* digits typed so far of a stage to jump to (0: none) */
    int expand;               /* i: the whole caption over the screen */
    double since;             /* util_now() when the stage was entered */
    const void *ep;           /* the episode the records below are of */
    int done;                 /* the last stage whose effects the episode holds */
    int hist_at[APP_TOUR_MAX_STAGES]; /* history length after each stage's effects (-1: not yet) */
    int greedy_at[APP_TOUR_MAX_STAGES]; /* the policy's mode at each stage */
    double facts[TOUR_FACT_COUNT]; /* the numbers the closing stage recaps (NAN: not seen yet), carried
                                      across the tour's Apps */
    AppTourProblem problem;   /* the first stage's two placements (problem.ok: computed) */
    AppOptions next;          /* when a tour call returns 1: what to open instead */
    char next_path[3][4096];  /* next's graph, policy and cluster paths */
    double next_facts[TOUR_FACT_COUNT]; /* next's facts */
} AppTour;

/* Where `s` saves and where autosaves go; the stem of the file names the
 * explorer writes (the graph file's name without directory or extension,
 * reduced to safe characters: "resnet18" for graphs/resnet18.json). The
 * files the explorer writes beside the episode (autosaves, exports, trained
 * policies) never replace one it reads or keeps (app_kept_file). */
typedef struct AppFiles {
    char *episode;
    char *autosave;
    char *stem;
    char *resumed;            /* the episode file resumed or replayed (NULL: none) */
    char *cluster;            /* the cluster file read (NULL: none) */
    int owned;                /* episode is this session's: resumed from it, or saved to it */
} AppFiles;

/* Episodes left by a new one (undo at the start of a history goes back to
 * the previous episode) and those left by that undo (redo at the end of a
 * history comes forward again); the most recent last. */
enum { APP_EPISODES_KEPT = 16 };
typedef struct AppEpisodes {
    Episode *older[APP_EPISODES_KEPT];
    int n_older;
    Episode *newer[APP_EPISODES_KEPT];
    int n_newer;
} AppEpisodes;

typedef struct App {
    AppData data;
    AppPolicy policy;
    AppCache cache;
    AppView view;
    AppRun run;
    AppDialogState dialog;
    AppMessage msg;
    AppBaselines base;
    AppTrain train;
    AppReplay replay;
    AppTour tour;
    AppFiles files;
    AppEpisodes episodes;
    struct AppRace *race;     /* the race shown or last shown (app_race.h); NULL: none */
} App;

/* ---- loading, the cache, messages, files, baselines (app.c) ---- */

/* Every policy steps the episode through its agent's actor table (agent.h,
 * app_actor.c); 1 when it is Placeto's, whose insides (features, sets,
 * message passing: the "why" and the tour's lessons) the explorer shows. */
static inline int app_placeto_insides(const App *a) { return a->policy.pol != NULL; }
/* The network of the policy in use (Placeto's Policy, or the agent's). */
static inline const void *app_policy_net(const AppPolicy *p) { return p->pol ? (const void *)p->pol : p->net; }
/* 1 when the RNN placer's policy steps the episode. */
static inline int app_is_rnn(const App *a) { return a->policy.kind && strcmp(a->policy.kind->name, "rnn") == 0; }

/* ---- the actors (app_actor.c) ---- */

/* Takes the network of ap (an agent with an explorer actor) into
 * a->policy; its device count must be the cluster's. 0, or -1 with e set. */
int app_actor_load(App *a, AgentPolicy *ap, Err *e);
/* With an actor policy: its actor on the loaded grouping; with ep (a
 * resumed episode from episode_path), the episode must be one the actor
 * steps. 0 (also for Placeto), or -1 with e set. */
int app_actor_attach(App *a, const Episode *ep, const char *episode_path, Err *e);
void app_actor_free(AppPolicy *p);
/* The actor's probabilities for the current step (NULL when the episode is
 * done) and its attention over the groups. */
const float *app_actor_probs(App *a, const float **attention);
/* One step of the actor on the episode. */
const EpisodeStep *app_actor_step(App *a);
/* With an actor policy: says that what (an action of Placeto's alone) does
 * not apply, and returns 1; else 0. app_actor_refuse_training: the same for
 * background training, naming the command that trains one. */
int app_actor_refuse(App *a, const char *what);
int app_actor_refuse_training(App *a);

/* Loads graph, cluster, policy and episode (or resumes or replays one).
 * Returns NULL with e set. */
App *app_new(const AppOptions *o, Err *e);
void app_free(App *a);

/* Sets the status message (printf-style). */
void app_msg(App *a, int style, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* After the episode changed: the cache is rebuilt, the episode is marked
 * unsaved, and a following view selects the current node. */
void app_changed(App *a);
/* Rebuilds the cache (the timeline, the policy's probabilities and the
 * feature rows of the current node) from the episode and the policy. */
void app_cache_update(App *a);

/* Saving never silently replaces an episode file: a file at the episode's
 * path that this session neither resumed nor wrote is kept, and app_save
 * writes to the first free NAME-2.json, NAME-3.json ... instead and says so
 * (the paths that cannot ask: quitting, a new episode, the tour); `s` asks
 * first (y: replace, a: save as, n: no). */
/* 1 when saving to path would replace a file this session did not resume
 * or write (not a device or a FIFO, written through; nor the graph, the
 * cluster or the policy in use, which a save never replaces: it goes to a
 * free name beside them). */
int app_save_would_replace(const App *a, const char *path);
/* Where app_save(a, a->files.episode) writes: the episode's path, or the
 * free name beside it when that would replace a file. */
void app_save_target(const App *a, char *buf, size_t n);
/* The first of NAME-2.json, NAME-3.json ... (path NAME.json) that does not
 * exist. */
void app_free_name(const char *path, char *buf, size_t n);
/* prefix and a policy file's name without directory and ".json", cut to max
 * characters, into buf. */
void app_policy_name(const char *path, const char *prefix, int max, char *buf, size_t n);
/* Saves the episode (atomically) to path, or to a free name beside it when
 * path is the episode's and app_save_would_replace; sets the message. 0 or
 * -1. */
int app_save(App *a, const char *path);
/* Saves to path even when it replaces a file (asked first), or to a new
 * name; path becomes the episode's (s saves there from now on, autosaves go
 * beside it). 0 or -1. */
int app_save_as(App *a, const char *path);
/* Autosaves when there are unsaved changes (on quit, signals, periodically). */
void app_autosave(App *a);
/* Names this session's autosave (AppFiles.autosave) after the episode's
 * file: EPISODE.autosave, or EPISODE.autosave-2, -3 ... when that exists or
 * is a file the session keeps. */
void app_name_autosave(App *a);
/* The path of a file the explorer writes: STEM + suffix (STEM: the graph
 * file's name, see AppFiles) in the directory of the episode file, or, when
 * that is not a regular file (--save -, /dev/null, a FIFO), of the resumed
 * one, else in the current directory. */
void app_out_path(const App *a, const char *suffix, char *buf, size_t n);
/* What path is to this session when it names a file the explorer reads or
 * keeps: "the graph", "the cluster", "the policy in use", "the resumed
 * episode", "the episode's file" or "this session's autosave" (the last two
 * unless skip_episode); NULL when none. */
const char *app_kept_file(const App *a, const char *path, int skip_episode);
/* Where a file the explorer derives goes: want, or, when want names a kept
 * file (app_kept_file) or fresh and want exists, the first free NAME-2.json,
 * NAME-3.json ... that names neither; returns what want was to the session
 * (NULL: want itself, or a file that merely exists). */
const char *app_write_target(const App *a, const char *want, int fresh, char *buf, size_t n);
/* Writes STEM.placement.dot, STEM.trace.json or STEM.placement.json (the
 * current placement as a placement file, for place, simulate, export and
 * compare); sets the message. 0 or -1. */
int app_export(App *a, AppExport what);

/* The placements the local searches may simulate here: APP_SEARCH_WORK op
 * simulations, kept within 100 .. APP_SEARCH_BUDGET. */
int64_t app_search_budget(const App *a);
/* Runs every baseline on the episode's cluster, sorted by runtime. */
void app_run_baselines(App *a);
/* Adds the learned agents' rows to the baselines (running those first):
 * the explorer's policy zero-shot from its start and refining the best
 * heuristic, and likewise the bundled general policy and the graph's own
 * bundled policy when they are other files; sorted with the rest. */
void app_run_learned(App *a);
/* Adds the rows of the learned policy file at path, named label, from its
 * starts (zero-shot, refining the best heuristic; its training's best
 * placement when it was trained on this graph); sorted by the caller. */
void app_add_learned(App *a, const char *path, const char *label);

/* ---- the episode (app_episode.c) ---- */

/* One policy step on the current node. */
void app_step(App *a);
/* Policy steps to the end of the episode. */
void app_finish(App *a);
/* A new episode with the next seed; the one it replaces stays reachable by
 * undo at the start of the new one's history. */
void app_new_episode(App *a);
/* A runtime as every pane and line gives it (util_fmt_time: "1.778 s",
 * "25.345 ms"), in one of 8 rotating buffers: for a message's arguments. */
const char *app_t(double us);
/* A reward as the episode counts it, in b: a share of the start's score
 * with relative rewards ("+0.12% of the start"), else a signed time. */
const char *app_fmt_reward(const Episode *ep, double reward, char b[48]);
/* A new episode with cfg instead of the current one's rules (the tour's
 * paper stage); 0, or -1 with the message set. */
int app_new_episode_with(App *a, const EpisodeConfig *cfg);
/* Back to the episode before this one (as u at the start of a history);
 * 0, or -1 when there is none. */
int app_episode_back(App *a);
/* Undo (dir < 0) or redo the whole history of the episode. */
void app_history_seek(App *a, int dir);
/* Frees the episodes kept for undo and redo across episodes. */
void app_episodes_free(App *a);
/* Moves group to device as the user and selects the group. Overriding the
 * current group is that step's decision (the episode's cursor moves on and
 * the policy continues with the next group); any other group changes
 * without moving the cursor. */
void app_override(App *a, int group, int device);
/* One history entry in words: who chose what ("policy kept X on d0", "you
 * moved X from d0 to d1 (this step)"); devices by name, or with compact as
 * d0, d1... */
void app_entry_text(const App *a, const EpisodeStep *s, int compact, char *buf, size_t n);
/* Undo and redo one step, the policy's or the user's. */
void app_undo(App *a);
void app_redo(App *a);
/* A new episode from baseline k's placement (app_run_baselines first). */
void app_start_from(App *a, int k);
/* Stepping (or, in replay, playing the recording) on a timer. */
void app_set_running(App *a, int on);
void app_set_speed(App *a, int steps_per_second);
/* The speed dir (+1 or -1) rungs up or down the ladder 1, 2, 5 ... 100. */
int app_speed_step(int speed, int dir);
/* 1: the policy takes its most likely device; 0: it samples. */
void app_set_greedy(App *a, int greedy);
/* Replay: one recorded step forwards (dir > 0) or backwards; to the end
 * (dir > 0) or the start of the recording. */
void app_replay_step(App *a, int dir);
void app_replay_seek(App *a, int dir);

/* ---- the view and the dialogs' state (app_view.c) ---- */

/* Selects a group (out of range: nothing) and stops following. */
void app_select(App *a, int group);
/* Moves the selection; 0, or -1 when there is nowhere to go. */
int app_move(App *a, AppMove m);
/* Selects op's group, stops following, names the op. */
void app_select_op(App *a, int op);
/* Follows the current node again. */
void app_follow(App *a);
/* Selects the first group from the selected one on whose name contains text
 * (any case), and remembers text for app_search_next. */
void app_search(App *a, const char *text);
/* The next (dir > 0) or previous match of the last search after the
 * selected group, wrapping around. */
void app_search_next(App *a, int dir);
/* DAG_FULL or DAG_COMPACT; follows the current node. */
void app_zoom(App *a, int zoom);
void app_show_sets(App *a, int on);
/* 1: a training graph folded (its backward and update groups beside their
 * forward groups), 0: every group in layers; follows the current node. */
void app_fold(App *a, int on);
/* Pans the graph by (dx, dy) canvas cells and stops following. */
void app_pan(App *a, int dx, int dy);
/* The graph pane was last shown from canvas origin (x, y) (centred on the
 * selection while following): the controller reports it after each frame,
 * so that panning and leaving follow mode start from what is on screen. */
void app_graph_shown(App *a, int x, int y);
/* Focuses a pane; a maximised screen shows the focused pane. */
void app_focus(App *a, AppPane p);
/* Shows the focused pane alone (on) or every pane. */
void app_maximize(App *a, int on);
/* The timeline window: zoom by factor (< 1 zooms in) around its middle, pan
 * by a fraction of its width, back to the whole run; colour by group (on)
 * or by device. */
void app_tl_zoom(App *a, double factor);
void app_tl_pan(App *a, double fraction);
void app_tl_whole(App *a);
void app_tl_by_group(App *a, int on);
/* The graph's nodes coloured by learned cluster (on; an hsdag policy only:
 * otherwise a message says so and nothing changes) or by device; the
 * message compares the learned clusters with Placeto's fixed groups. */
void app_graph_by_cluster(App *a, int on);
/* Dialogs: open one (input: the prompt's initial text, may be NULL), close
 * it, type a character into its prompt or erase the last one, highlight a
 * menu row (kept in range). */
void app_dialog_open(App *a, AppDialog d, const char *input);
void app_dialog_close(App *a);
void app_dialog_type(App *a, int ch);
void app_dialog_erase(App *a);
void app_dialog_menu(App *a, int pos);
/* The open dialog, as last shown, scrolls to first row max at most (the
 * controller reports it after each frame); the help's position is kept
 * within it. */
void app_dialog_scroll_max(App *a, int max);

/* ---- background training (app_train.c) ---- */

/* Starts training a copy of the policy for episodes episodes in a thread.
 * 0, or -1 with the message set (an rnn policy is not trained here). */
int app_train_start(App *a, int64_t episodes);
/* Copies the new part of the learning curve for the view; stops the
 * training when the thread has finished. */
void app_train_poll(App *a);
/* Stops the training (waiting for its round), adopts its weights and
 * writes them to GRAPH.trained-policy.json. */
void app_train_stop(App *a);

/* ---- the guided tour (demo.c) ---- */

/* What a stage's caption shows besides its text. */
typedef enum AppTourExtra {
    TOUR_TEXT,      /* the text alone */
    TOUR_FEATURES,  /* the feature rows of the current node and its neighbours (AppCache) */
    TOUR_ZERO_SHOT, /* the zero-shot runtime against the best baseline */
    TOUR_CRITICAL,  /* the timeline's legend: the critical path's mark */
    TOUR_SETS,      /* the graph's legend: the three sets, coloured, with their sizes */
    TOUR_PROBLEM,   /* one device's timeline against a split one (AppTour.problem) */
    TOUR_ROUNDS     /* message passing: the rounds' keys and the groups reached */
} AppTourExtra;

/* A stage: its caption goes on the side opposite its subject, which keeps
 * at least rows rows of the screen. */
typedef struct AppTourStage {
    const char *title;
    int top;            /* the caption at the top (the subject is below it) */
    AppTourExtra extra;
    int rows;           /* rows the stage's subject needs beside the caption */
    int slow;           /* it computes for a while: drawn first with a busy sign */
} AppTourStage;

/* Stage k's caption (0 <= k < *count). */
const AppTourStage *app_tour_stage(int k, int *count);
/* Stage k's text for this App, made from what the stage shows (the counts,
 * the moves, the table's rows); buf holds it. */
const char *app_tour_text(const App *a, int k, char *buf, size_t n);
/* The relation of feature row k (AppCache.feat_group) to the current node:
 * "current", "parent", "child" or "other". */
const char *app_tour_feature_role(const App *a, int k);
/* The sizes of the current node's three sets: ancestors, descendants,
 * parallel groups (0 0 0 when the episode is complete). */
void app_tour_sets(const App *a, int *anc, int *desc, int *par);
/* The default tour's App for stage (its graph, policy, cluster, devices,
 * grouping) into o; paths holds the paths. */
void app_tour_options(int stage, AppOptions *o, char paths[3][4096]);
/* Starts the tour in a new App (app_new with o->demo). */
void app_tour_start(App *a, const AppOptions *o);
/* Shows stage k: the episode brought to the stage's state (its earlier
 * stages' effects applied, or undone and redone to it), the screen set up;
 * a stage out of range ends the tour. Returns 1 when the App must be
 * replaced by one opened with a->tour.next (another graph or policy),
 * else 0. A slow stage is only marked (a->tour.pending) until
 * app_tour_settle. */
int app_tour_goto(App *a, int stage);
/* The next and the previous stage (app_tour_goto). */
int app_tour_next(App *a);
int app_tour_prev(App *a);
/* Computes a pending slow stage (after a frame showed its busy sign). */
void app_tour_settle(App *a);
/* Leaves the tour (R re-enters it at the stage left). */
void app_tour_leave(App *a);
/* R: back into the tour at the stage left; 0, or 1 as app_tour_goto. */
int app_tour_resume(App *a);
/* A digit typed in the tour: jumps when the number is complete (no stage
 * number starts with it), else waits for the next digit or Enter. Returns
 * as app_tour_goto. */
int app_tour_digit(App *a, int digit);
/* r: pauses or resumes the timer (starts it without --auto). */
void app_tour_play(App *a);
/* With autoplay: the stage has been shown long enough. */
int app_tour_due(const App *a, double now);

#endif
