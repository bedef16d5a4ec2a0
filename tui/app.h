/* app: the explorer's state and every action a key can trigger, independent
 * of the terminal: the interactive program (term.c) and the headless runner
 * (key script in, screen dump out) drive the same App, and draw.c renders it
 * onto a Grid. Actions never draw; they change the state, set a message and
 * return what must happen next (APP_REDRAW, APP_QUIT).
 *
 * The App owns everything it loads. The episode is stepped through the
 * episode API of core/agent/episode.h, exactly as the trainer does; background training
 * runs on a copy of the policy in its own thread and hands its weights back
 * when it stops. */
#ifndef PLACETO_APP_H
#define PLACETO_APP_H

#include <pthread.h>
#include <stdint.h>

#include "dag.h"
#include "episode.h"
#include "grid.h"
#include "timeline.h"
#include "policy_io.h"
#include "train.h"

enum { APP_NOTHING = 0, APP_REDRAW = 1, APP_QUIT = 2, APP_REPAINT = 4, APP_RELOAD = 8 };

typedef enum AppPane {
    PANE_GRAPH, PANE_TIMELINE, PANE_POLICY, PANE_DEVICES, PANE_HISTORY, PANE_INSPECTOR, PANE_COUNT
} AppPane;

typedef enum AppDialog {
    DLG_NONE, DLG_HELP, DLG_QUIT, DLG_SEARCH, DLG_BASELINES, DLG_START_FROM, DLG_TRAIN
} AppDialog;

/* One row of the baseline comparison. */
typedef struct AppBaseline {
    const char *method;
    double runtime_us;
    int oom;
    double seconds;
    int *group_device; /* per group */
} AppBaseline;

/* Background training: a thread trains a copy of the policy; the main loop
 * reads the learning curve under the lock and stays responsive. */
typedef struct AppTrain {
    pthread_t thread;
    pthread_mutex_t lock;
    int lock_ready;       /* lock is initialised */
    int running;          /* the thread exists (joined when it ends) */
    volatile int stop;    /* asks the trainer to stop after its round */
    int done;             /* the thread has finished (under lock) */
    int64_t target, ran;  /* episodes asked, episodes run (under lock) */
    double *curve;        /* best-so-far runtime per episode (under lock) */
    double *ret;          /* return per episode (under lock) */
    int n_curve, cap_curve;
    Policy *pol;          /* the copy being trained */
    TrainState ts;
    int ts_ready;         /* ts is initialised (the first run of the session) */
    Trainer *trainer;
    TrainGraph tg;
} AppTrain;

typedef struct AppOptions {
    const char *graph_path;   /* NULL with resume_path */
    const char *policy_path;  /* NULL: an untrained policy (seeded) */
    const char *resume_path;  /* an episode file */
    const char *cluster_path; /* NULL: n_devices default devices */
    const char *episode_path; /* where `s` saves (default: GRAPHNAME.episode.json) */
    int n_devices;
    int groups;
    uint64_t seed;
    int greedy;
    const char *replay_path;  /* an episode file to replay, forwards and backwards */
    int demo;                 /* 1: the guided tour; 2: the tour advancing on a timer */
    int demo_stage;           /* the stage to start at */
} AppOptions;

/* What app_new loaded, and what is built once from it. */
typedef struct AppData {
    Graph *g;
    Cluster *c;
    Grouping *gr;
    PolicyGraph *pg;
    Episode *ep;
    char **labels;            /* per group: its short name */
    DagLayout *dag;           /* the group graph's layout */
    Sim *sim;                 /* for the baselines */
    double lower_bound_us;
    double single_us;         /* every op on the fastest device */
} AppData;

/* The policy that steps the episode. */
typedef struct AppPolicy {
    Policy *pol;
    PolicyWork *work;
    char *path;               /* its file; NULL: untrained (seeded) */
    uint64_t checksum;        /* of the file, recorded in saved episodes */
} AppPolicy;

/* Derived from the episode and the policy. */
typedef struct AppCache {
    Timeline *tl;             /* of the episode's last simulation */
    /* the policy's view of the current node, cached by (cursor, history) */
    float probs[POLICY_MAX_DEVICES];
    long probs_key;
} AppCache;

/* What is shown and how. */
typedef struct AppView {
    int selected;             /* the selected group */
    int follow;               /* keep the current node selected and in view */
    int zoom;                 /* DAG_FULL or DAG_COMPACT */
    int x, y;                 /* graph viewport origin (canvas cells) */
    int show_sets;            /* colour ancestors, descendants and parallel nodes */
    AppPane focus;
    int maximized;            /* a pane shown alone, or -1 */
    double tl_t0, tl_t1;      /* timeline window (µs); t1 <= t0 means the whole run */
    int tl_by_group;          /* timeline ops coloured by group, not device */
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
} AppDialogState;

/* The message line. */
typedef struct AppMessage {
    char text[256];
    int style;                /* its GridStyle */
} AppMessage;

/* Every baseline on the episode's cluster, sorted by runtime. */
typedef struct AppBaselines {
    int ran;                  /* app_run_baselines has run */
    AppBaseline *rows;
    int n;
} AppBaselines;

/* The last frame's geometry, for mouse clicks (set by draw.c). */
typedef struct AppFrame {
    GridRect graph_rect, timeline_rect;
    DagView dag;
    TlView tl;
    int have_dag, have_tl;
} AppFrame;

/* Replay: the saved history was undone and is walked, read-only. */
typedef struct AppReplay {
    int active;
} AppReplay;

/* The guided tour (demo.c). */
typedef struct AppTour {
    int active;
    int stage;                /* the stage shown (-1 when not active) */
    int autoplay;             /* advance on a timer */
    double since;             /* util_now() when the stage was entered */
    AppOptions next;          /* with APP_RELOAD: what to open next */
    char next_path[2][4096];  /* next's graph and policy paths */
} AppTour;

/* Where `s` saves and where autosaves go. */
typedef struct AppFiles {
    char *episode;
    char *autosave;
} AppFiles;

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
    AppFrame frame;
    AppReplay replay;
    AppTour tour;
    AppFiles files;
} App;

/* Loads graph, cluster, policy and episode (or resumes one). Returns NULL
 * with e set. */
App *app_new(const AppOptions *o, Err *e);
void app_free(App *a);

/* One key (a code point or TERM_KEY_* value, see term.h) -> APP_* flags. */
int app_key(App *a, int key);
/* A policy step, and an override of group to device, as the keys do them. */
int app_key_step(App *a);
int app_key_override(App *a, int group, int device);

/* Shared by app.c and app_keys.c: after the episode changed (timeline,
 * selection, unsaved mark); every baseline on the episode's cluster, sorted
 * by runtime; a new episode from baseline k's placement; a replay key (-1
 * when it is not one). */
void app_refresh(App *a);
void app_run_baselines(App *a);
void app_start_from(App *a, int k);
int app_replay_key(App *a, int key);
/* A mouse click on grid cell (x, y) with button (1 left, 4/5 wheel). */
int app_click(App *a, int x, int y, int button);
/* A timer tick while running or training: steps when due. now is seconds. */
int app_tick(App *a, double now);
/* How long the main loop may sleep before app_tick is due, in ms; -1 when
 * nothing runs (block until a key). */
int app_timeout_ms(const App *a);

/* Saves the episode to path (atomically); sets the message. 0 or -1. */
int app_save(App *a, const char *path);
/* Autosaves when there are unsaved changes (on quit, signals, periodically). */
void app_autosave(App *a);

/* Sets the status message (printf-style). */
void app_msg(App *a, int style, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The key table: every command once, with its keys and help; the help
 * screen and the key map come from it. */
typedef struct AppKey {
    const char *keys;   /* as shown in help, e.g. "space", "u", "0-9" */
    const char *help;
    int section;        /* 0 episode, 1 view, 2 files, 3 other */
} AppKey;
const AppKey *app_keys(int *count);

/* Starts training a copy of the policy for episodes episodes in a thread;
 * stops it (waiting for its round) and adopts its weights. */
int app_train_start(App *a, int64_t episodes);
void app_train_stop(App *a);

/* The guided tour (demo.c): entering a stage, the keys while touring, and
 * its caption drawn over the screen. */
void demo_enter(App *a, int stage);
int demo_key(App *a, int key);
int demo_tick(App *a, double now);
void demo_draw(App *a, Grid *g);

/* Renders the whole screen of a onto g (g's size is the screen's). */
void app_draw(App *a, Grid *g);

#endif
