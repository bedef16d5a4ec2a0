/* ctl: the explorer's controller (see ctl.h): the key tables and the
 * actions they bind, the tour's and replay's keys, mouse clicks and timer
 * ticks, each mapped to model calls (app.h). An action gets the argument
 * of its table row — a device, a direction, a pane step — never the key. */
#include "ctl.h"

#include <stdlib.h>

#include "app_race.h"
#include "dialogs.h"
#include "why.h"
#include "term.h"

enum { KEY_CTRL_L = 0x0c, KEY_CTRL_P = 0x10 };

typedef int (*CtlAction)(App *a, int arg);

/* A key and the argument it passes. */
typedef struct KeyArg {
    int key;
    int arg;
} KeyArg;

/* A table row: the keys (up to four, or a range) that call fn, each with
 * its argument, and the row's help (doc.keys NULL: not listed). */
typedef struct Binding {
    CtlKeyDoc doc;
    CtlAction fn;
    KeyArg on[4]; /* key 0 ends the list */
    int lo, hi;   /* when hi != 0: every key lo..hi, passing key - lo */
} Binding;

/* The row's action for key, or -1 when no row has the key. */
static int dispatch(const Binding *t, int n, App *a, int key)
{
    for (int k = 0; k < n; k++) {
        const Binding *b = &t[k];
        if (b->hi && key >= b->lo && key <= b->hi)
            return b->fn(a, key - b->lo);
        for (int j = 0; j < 4 && b->on[j].key; j++)
            if (key == b->on[j].key)
                return b->fn(a, b->on[j].arg);
    }
    return -1;
}

#define N_OF(t) ((int)(sizeof(t) / sizeof(t)[0]))

/* ------------------------------------------------------------------ */
/* Actions of the key table                                            */

static int act_step(App *a, int arg)
{
    (void)arg;
    app_step(a);
    return CTL_REDRAW;
}

static int act_run(App *a, int arg)
{
    (void)arg;
    app_set_running(a, !a->run.running);
    return CTL_REDRAW;
}

/* arg: +1 faster, -1 slower */
static int act_speed(App *a, int arg)
{
    app_set_speed(a, app_speed_step(a->run.speed, arg));
    return CTL_REDRAW;
}

static int act_finish(App *a, int arg)
{
    (void)arg;
    app_finish(a);
    return CTL_REDRAW;
}

static int act_new(App *a, int arg)
{
    (void)arg;
    if (a->run.dirty)
        app_dialog_open(a, DLG_NEW_EPISODE, NULL);
    else
        app_new_episode(a);
    return CTL_REDRAW;
}

/* arg: -1 the start of the history, +1 its end */
static int act_history_seek(App *a, int arg)
{
    app_history_seek(a, arg);
    return CTL_REDRAW;
}

/* arg: +1 the next match, -1 the previous one */
static int act_search_next(App *a, int arg)
{
    app_search_next(a, arg);
    return CTL_REDRAW;
}

/* arg: the device */
static int act_override(App *a, int arg)
{
    app_override(a, a->view.selected, arg);
    return CTL_REDRAW;
}

/* arg: -1 undo, +1 redo */
static int act_undo(App *a, int arg)
{
    if (arg < 0)
        app_undo(a);
    else
        app_redo(a);
    return CTL_REDRAW;
}

static int act_greedy(App *a, int arg)
{
    (void)arg;
    app_set_greedy(a, !a->run.greedy);
    return CTL_REDRAW;
}

static int act_baselines(App *a, int arg)
{
    (void)arg;
    app_run_baselines(a);
    app_dialog_open(a, DLG_BASELINES, NULL);
    return CTL_REDRAW;
}

static int act_start_from(App *a, int arg)
{
    (void)arg;
    if (app_actor_refuse(a, "starting from a baseline's placement"))
        return CTL_REDRAW;
    if (!a->base.ran)
        app_run_baselines(a);
    app_dialog_open(a, DLG_START_FROM, NULL);
    return CTL_REDRAW;
}

static int act_train(App *a, int arg)
{
    (void)arg;
    if (a->train.running)
        app_train_stop(a);
    else if (!app_actor_refuse_training(a))
        app_dialog_open(a, DLG_TRAIN, "50");
    return CTL_REDRAW;
}

/* arg: an AppMove */
static int act_move(App *a, int arg)
{
    return app_move(a, (AppMove)arg) == 0 ? CTL_REDRAW : CTL_NOTHING;
}

static int act_follow(App *a, int arg)
{
    (void)arg;
    app_follow(a);
    return CTL_REDRAW;
}

static int act_search(App *a, int arg)
{
    (void)arg;
    app_dialog_open(a, DLG_SEARCH, "");
    return CTL_REDRAW;
}

/* arg: a direction of pans[] */
enum { PAN_LEFT, PAN_RIGHT, PAN_UP, PAN_DOWN };
static int act_pan(App *a, int arg)
{
    static const int pans[4][2] = {{-8, 0}, {8, 0}, {0, -4}, {0, 4}};
    app_pan(a, pans[arg][0], pans[arg][1]);
    return CTL_REDRAW;
}

static int act_zoom(App *a, int arg)
{
    (void)arg;
    app_zoom(a, a->view.zoom == DAG_FULL ? DAG_COMPACT : DAG_FULL);
    return CTL_REDRAW;
}

static int act_fold(App *a, int arg)
{
    (void)arg;
    app_fold(a, !a->view.fold);
    return CTL_REDRAW;
}

static int act_sets(App *a, int arg)
{
    (void)arg;
    app_show_sets(a, !a->view.show_sets);
    return CTL_REDRAW;
}

/* arg: +1 zooms in, -1 out */
static int act_tl_zoom(App *a, int arg)
{
    app_tl_zoom(a, arg > 0 ? 0.5 : 2.0);
    return CTL_REDRAW;
}

/* arg: +1 later, -1 earlier, by a quarter of the window */
static int act_tl_pan(App *a, int arg)
{
    app_tl_pan(a, 0.25 * arg);
    return CTL_REDRAW;
}

static int act_tl_whole(App *a, int arg)
{
    (void)arg;
    app_tl_whole(a);
    return CTL_REDRAW;
}

static int act_tl_colours(App *a, int arg)
{
    (void)arg;
    app_tl_by_group(a, !a->view.tl_by_group);
    return CTL_REDRAW;
}

static int act_graph_colours(App *a, int arg)
{
    (void)arg;
    app_graph_by_cluster(a, !a->view.by_cluster);
    return CTL_REDRAW;
}

/* arg: +1 the next pane, -1 the previous one */
static int act_focus(App *a, int arg)
{
    app_focus(a, (AppPane)(((int)a->view.focus + arg + PANE_COUNT) % PANE_COUNT));
    return CTL_REDRAW;
}

static int act_maximize(App *a, int arg)
{
    (void)arg;
    app_maximize(a, a->view.maximized < 0);
    return CTL_REDRAW;
}

static int act_save(App *a, int arg)
{
    (void)arg;
    if (app_save_would_replace(a, a->files.episode)) /* a file this session did not write: ask */
        app_dialog_open(a, DLG_OVERWRITE, NULL);
    else
        app_save(a, a->files.episode);
    return CTL_REDRAW;
}

/* arg: an AppExport */
static int act_export(App *a, int arg)
{
    app_export(a, (AppExport)arg);
    return CTL_REDRAW;
}

static int act_help(App *a, int arg)
{
    (void)arg;
    app_dialog_open(a, DLG_HELP, NULL);
    return CTL_REDRAW;
}

static int act_quit(App *a, int arg)
{
    (void)arg;
    if (!a->run.dirty)
        return CTL_QUIT;
    app_dialog_open(a, DLG_QUIT, NULL);
    return CTL_REDRAW;
}

static int act_present(App *a, int arg)
{
    (void)arg;
    a->view.present = !a->view.present;
    app_msg(a, GS_DIM, a->view.present ? "presentation layout: P goes back to every pane" : "every pane again");
    return CTL_REDRAW;
}

/* the runner writes the frame it has (CTL_SLIDE) and says so on the message line */
static int act_slide(App *a, int arg)
{
    (void)a;
    (void)arg;
    return CTL_SLIDE | CTL_REDRAW;
}

static int act_why(App *a, int arg)
{
    (void)arg;
    app_why_open(a);
    return CTL_REDRAW;
}

static int act_race(App *a, int arg)
{
    (void)arg;
    app_race_open(a, -1);
    return CTL_REDRAW;
}

static int act_repaint(App *a, int arg)
{
    (void)a;
    (void)arg;
    return CTL_REDRAW | CTL_REPAINT;
}

/* ------------------------------------------------------------------ */
/* The key tables                                                      */

/* Keys that work everywhere, dialogs and the tour included. */
static const Binding global_keys[] = {
    {.doc = {"Ctrl-L", "repaint the whole screen", 3}, .fn = act_repaint, .on = {{KEY_CTRL_L, 0}}},
    {.doc = {"F2 Ctrl-P", "write the screen as a slide: placeto-slide-NNN.svg (and .png with rsvg-convert)", 2},
     .fn = act_slide, .on = {{TERM_KEY_F1 + 1, 0}, {KEY_CTRL_P, 0}}},
};

static const Binding bindings[] = {
    {.doc = {"space", "step: the policy places the current group", 0}, .fn = act_step, .on = {{' ', 0}}},
    {.doc = {"r", "run / pause stepping", 0}, .fn = act_run, .on = {{'r', 0}}},
    {.doc = {"+ -", "faster / slower while running", 0}, .fn = act_speed, .on = {{'+', 1}, {'-', -1}}},
    {.doc = {"f", "finish the episode", 0}, .fn = act_finish, .on = {{'f', 0}}},
    {.doc = {"e", "new episode (asks when this one is unsaved; u at its start comes back)", 0}, .fn = act_new,
     .on = {{'e', 0}}},
    {.doc = {"0-9", "move the selected group to that device (your override)", 0}, .fn = act_override, .on = {{0, 0}},
     .lo = '0', .hi = '9'},
    {.doc = {"u", "undo the last step, yours or the policy's", 0}, .fn = act_undo, .on = {{'u', -1}}},
    {.doc = {"U", "redo", 0}, .fn = act_undo, .on = {{'U', 1}}},
    {.doc = {"g Home", "undo the whole history (to the episode's start)", 0}, .fn = act_history_seek,
     .on = {{'g', -1}, {TERM_KEY_HOME, -1}}},
    {.doc = {"G End", "redo the whole history", 0}, .fn = act_history_seek, .on = {{'G', 1}, {TERM_KEY_END, 1}}},
    {.doc = {"m", "the policy's mode: greedy / sampling", 0}, .fn = act_greedy, .on = {{'m', 0}}},
    {.doc = {"b", "run every baseline; Enter starts an episode from the highlighted one", 0}, .fn = act_baselines,
     .on = {{'b', 0}}},
    {.doc = {"B", "start an episode from a baseline's placement", 0}, .fn = act_start_from, .on = {{'B', 0}}},
    {.doc = {"T", "train the policy in the background / stop training", 0}, .fn = act_train, .on = {{'T', 0}}},
    {.doc = {"Up k", "select a parent of the selected group", 1}, .fn = act_move,
     .on = {{TERM_KEY_UP, APP_MOVE_PARENT}, {'k', APP_MOVE_PARENT}}},
    {.doc = {"Down j", "select a child", 1}, .fn = act_move,
     .on = {{TERM_KEY_DOWN, APP_MOVE_CHILD}, {'j', APP_MOVE_CHILD}}},
    {.doc = {"Left h Right l", "select the previous / next group in the layer", 1}, .fn = act_move,
     .on = {{TERM_KEY_LEFT, APP_MOVE_PREV}, {'h', APP_MOVE_PREV}, {TERM_KEY_RIGHT, APP_MOVE_NEXT},
            {'l', APP_MOVE_NEXT}}},
    {.doc = {"c", "follow the current node again", 1}, .fn = act_follow, .on = {{'c', 0}}},
    {.doc = {"/", "search a group by name", 1}, .fn = act_search, .on = {{'/', 0}}},
    {.doc = {"n N", "the next / previous match of the search", 1}, .fn = act_search_next, .on = {{'n', 1}, {'N', -1}}},
    {.doc = {"H J K L", "pan the graph", 1}, .fn = act_pan,
     .on = {{'H', PAN_LEFT}, {'J', PAN_DOWN}, {'K', PAN_UP}, {'L', PAN_RIGHT}}},
    {.doc = {"PgUp PgDn", "scroll the graph", 1}, .fn = act_pan,
     .on = {{TERM_KEY_PGUP, PAN_UP}, {TERM_KEY_PGDN, PAN_DOWN}}},
    {.doc = {"Z", "graph zoom: full labels / compact", 1}, .fn = act_zoom, .on = {{'Z', 0}}},
    {.doc = {"v", "graph: a training graph folded / every group", 1}, .fn = act_fold, .on = {{'v', 0}}},
    {.doc = {"a", "show the policy's why: the sets it pools over (rnn, gdp: their attention; hsdag: "
                  "the learned cluster)", 1},
     .fn = act_sets, .on = {{'a', 0}}},
    {.doc = {"w", "why this device: features, each device's runtime and probability, the pooling sets, "
                  "message passing (space: rounds)", 1},
     .fn = act_why, .on = {{'w', 0}}},
    {.doc = {"R", "race the learned placers, their untrained controls, anneal and ils live (best runtime "
                  "against placements)", 1},
     .fn = act_race, .on = {{'R', 0}}},
    {.doc = {"C", "graph colours: by device / by learned cluster (an hsdag policy), compared with the fixed groups", 1},
     .fn = act_graph_colours, .on = {{'C', 0}}},
    {.doc = {"< >", "timeline zoom out / in", 1}, .fn = act_tl_zoom, .on = {{'<', -1}, {'>', 1}}},
    {.doc = {"[ ]", "timeline pan", 1}, .fn = act_tl_pan, .on = {{'[', -1}, {']', 1}}},
    {.doc = {"=", "timeline: the whole run", 1}, .fn = act_tl_whole, .on = {{'=', 0}}},
    {.doc = {"o", "timeline colours: by device / by group", 1}, .fn = act_tl_colours, .on = {{'o', 0}}},
    {.doc = {"Tab", "next pane", 1}, .fn = act_focus, .on = {{TERM_KEY_TAB, 1}, {TERM_KEY_BTAB, -1}}},
    {.doc = {"z", "maximise / restore the focused pane", 1}, .fn = act_maximize, .on = {{'z', 0}}},
    {.doc = {"P", "presentation layout: graph, a tall timeline and a legend (for a projector)", 1}, .fn = act_present,
     .on = {{'P', 0}}},
    {.doc = {"s", "save the episode (asks before replacing a file this session did not write)", 2}, .fn = act_save,
     .on = {{'s', 0}}},
    {.doc = {"d", "export the placement as DOT", 2}, .fn = act_export, .on = {{'d', APP_EXPORT_DOT}}},
    {.doc = {"t", "export the timeline as a Chrome trace", 2}, .fn = act_export, .on = {{'t', APP_EXPORT_TRACE}}},
    {.doc = {"W", "write the current placement as a placement file (NAME.placement.json)", 2}, .fn = act_export,
     .on = {{'W', APP_EXPORT_PLACEMENT}}},
    {.doc = {"?", "help", 3}, .fn = act_help, .on = {{'?', 0}, {TERM_KEY_F1, 0}}},
    {.doc = {"q", "quit (asks when there are unsaved changes)", 3}, .fn = act_quit, .on = {{'q', 0}}},
};

/* ------------------------------------------------------------------ */
/* Replay's keys (before the key table while replaying, no dialog open) */

/* arg: +1 forwards, -1 backwards */
static int act_replay_step(App *a, int arg)
{
    app_replay_step(a, arg);
    return CTL_REDRAW;
}

/* arg: +1 the end, -1 the start */
static int act_replay_seek(App *a, int arg)
{
    app_replay_seek(a, arg);
    return CTL_REDRAW;
}

static int act_read_only(App *a, int arg)
{
    (void)arg;
    app_msg(a, GS_WARN, "replay is read-only: resume the file with --resume to change it");
    return CTL_REDRAW;
}

static const Binding replay_keys[] = {
    {.doc = {"space Right l U", "one recorded step forwards", 0}, .fn = act_replay_step,
     .on = {{' ', 1}, {TERM_KEY_RIGHT, 1}, {'l', 1}, {'U', 1}}},
    {.doc = {"Left h u Bksp", "one recorded step backwards", 0}, .fn = act_replay_step,
     .on = {{TERM_KEY_LEFT, -1}, {'h', -1}, {'u', -1}, {TERM_KEY_BACKSPACE, -1}}},
    {.doc = {"g Home", "the start of the recording", 0}, .fn = act_replay_seek, .on = {{TERM_KEY_HOME, -1}, {'g', -1}}},
    {.doc = {"G End", "the end of the recording", 0}, .fn = act_replay_seek, .on = {{TERM_KEY_END, 1}, {'G', 1}}},
    {.doc = {"r", "play / pause the recording (+ - change the speed)", 0}, .fn = act_run, .on = {{'r', 0}}},
    {.doc = {"0-9 f e T B", "read-only: resume the file with --resume to change it", 0}, .fn = act_read_only,
     .on = {{0, 0}}, .lo = '0', .hi = '9'},
    {.fn = act_read_only, .on = {{'f', 0}, {'e', 0}, {'T', 0}, {'B', 0}}}, /* no .doc: the row above's */
};

/* Appends the documented rows of t (of section sec, or every section when
 * sec < 0) to docs. */
static int add_docs(CtlKeyDoc *docs, int n, const Binding *t, int nt, int sec)
{
    for (int k = 0; k < nt; k++)
        if (t[k].doc.keys && (sec < 0 || t[k].doc.section == sec))
            docs[n++] = t[k].doc;
    return n;
}

/* 1 when one of row b's keys is also one of t's (replay's keys shadow the
 * explorer's: such a row does something else in replay). */
static int shadowed(const Binding *b, const Binding *t, int nt)
{
    for (int j = 0; j < 4 && b->on[j].key; j++)
        for (int k = 0; k < nt; k++) {
            if (t[k].hi && b->on[j].key >= t[k].lo && b->on[j].key <= t[k].hi)
                return 1;
            for (int i = 0; i < 4 && t[k].on[i].key; i++)
                if (t[k].on[i].key == b->on[j].key)
                    return 1;
        }
    return 0;
}

const CtlKeyDoc *ctl_keys(int replay, int *count)
{
    static CtlKeyDoc docs[N_OF(bindings) + N_OF(global_keys) + N_OF(replay_keys)];
    int n = 0;
    if (replay) { /* replay's own keys in place of the episode's; a key listed once */
        n = add_docs(docs, n, replay_keys, N_OF(replay_keys), -1);
        for (int sec = 1; sec < 4; sec++)
            for (int k = 0; k < N_OF(bindings); k++)
                if (bindings[k].doc.keys && bindings[k].doc.section == sec &&
                    !shadowed(&bindings[k], replay_keys, N_OF(replay_keys)))
                    docs[n++] = bindings[k].doc;
    } else {
        n = add_docs(docs, n, bindings, N_OF(bindings), -1);
    }
    n = add_docs(docs, n, global_keys, N_OF(global_keys), -1);
    *count = n;
    return docs;
}

const char *ctl_key_section(int s, int replay)
{
    static const char *const section[CTL_KEY_SECTIONS] = {"Episode", "View", "Files", "Other"};
    if (s < 0 || s >= CTL_KEY_SECTIONS)
        return "";
    return s == 0 && replay ? "Replay (read-only)" : section[s];
}

/* ------------------------------------------------------------------ */
/* The tour's keys (before the others while touring)                   */

static int tour_result(int reload)
{
    return reload ? CTL_RELOAD | CTL_REDRAW : CTL_REDRAW;
}

static int act_tour_leave(App *a, int arg)
{
    (void)arg;
    app_tour_leave(a);
    return CTL_REDRAW;
}

static int act_tour_next(App *a, int arg)
{
    (void)arg;
    return tour_result(app_tour_next(a));
}

static int act_tour_prev(App *a, int arg)
{
    (void)arg;
    return tour_result(app_tour_prev(a));
}

/* Enter: the stage typed in digits, else the next one */
static int act_tour_enter(App *a, int arg)
{
    (void)arg;
    return tour_result(a->tour.jump ? app_tour_goto(a, a->tour.jump - 1) : app_tour_next(a));
}

/* arg: the digit */
static int act_tour_digit(App *a, int arg)
{
    return tour_result(app_tour_digit(a, arg));
}

/* Esc: a typed stage number forgotten, or the open dialog closed; never the tour */
static int act_tour_esc(App *a, int arg)
{
    (void)arg;
    if (a->tour.jump)
        a->tour.jump = 0;
    else if (a->dialog.kind != DLG_NONE)
        app_dialog_close(a);
    else
        app_msg(a, GS_DIM, "Esc closes dialogs; q leaves the tour");
    return CTL_REDRAW;
}

static int act_tour_play(App *a, int arg)
{
    (void)arg;
    app_tour_play(a);
    return CTL_REDRAW;
}

static int act_tour_expand(App *a, int arg)
{
    (void)arg;
    a->tour.expand = !a->tour.expand;
    return CTL_REDRAW;
}

static int act_tour_resume(App *a, int arg)
{
    (void)arg;
    return tour_result(app_tour_resume(a));
}

enum { TOUR_SECTION = CTL_KEY_SECTIONS };

static const Binding tour_keys[] = {
    {.doc = {"space Right n", "the next stage", TOUR_SECTION}, .fn = act_tour_next,
     .on = {{' ', 0}, {TERM_KEY_RIGHT, 0}, {'n', 0}}},
    {.doc = {"Left p Bksp", "the previous stage, as it was", TOUR_SECTION}, .fn = act_tour_prev,
     .on = {{TERM_KEY_LEFT, 0}, {TERM_KEY_BACKSPACE, 0}, {'p', 0}, {0x7f, 0}}},
    {.doc = {"1-9 0", "jump to a stage: its number (1 then 2 is stage 12; 1 then Enter is stage 1)", TOUR_SECTION},
     .fn = act_tour_digit, .on = {{0, 0}}, .lo = '0', .hi = '9'},
    {.doc = {"Enter", "the stage typed, else the next one", TOUR_SECTION}, .fn = act_tour_enter,
     .on = {{TERM_KEY_ENTER, 0}, {'\n', 0}, {'\r', 0}}},
    {.doc = {"r", "play / pause the tour on a timer (--auto starts it playing)", TOUR_SECTION}, .fn = act_tour_play,
     .on = {{'r', 0}}},
    {.doc = {"i", "the whole caption over the screen / back", TOUR_SECTION}, .fn = act_tour_expand, .on = {{'i', 0}}},
    {.doc = {"Esc", "close the open dialog (never the tour)", TOUR_SECTION}, .fn = act_tour_esc,
     .on = {{TERM_KEY_ESC, 0}}},
    {.doc = {"?", "help: every key, the tour's first", TOUR_SECTION}, .fn = act_help,
     .on = {{'?', 0}, {TERM_KEY_F1, 0}}},
    {.doc = {"q", "leave the tour, the explorer stays open (D comes back)", TOUR_SECTION}, .fn = act_tour_leave,
     .on = {{'q', 0}}},
};

/* Once the tour was left: D goes back to it (R is the race). */
static const Binding tour_left_keys[] = {
    {.doc = {"D", "back into the tour, at the stage left", 3}, .fn = act_tour_resume, .on = {{'D', 0}}},
};

const CtlKeyDoc *ctl_tour_keys(int *count)
{
    static CtlKeyDoc docs[N_OF(tour_keys) + N_OF(tour_left_keys)];
    int n = add_docs(docs, 0, tour_keys, N_OF(tour_keys), -1);
    n = add_docs(docs, n, tour_left_keys, N_OF(tour_left_keys), -1);
    *count = n;
    return docs;
}

int ctl_settle(App *a)
{
    if (a->tour.pending < 0)
        return CTL_NOTHING;
    app_tour_settle(a);
    return CTL_REDRAW;
}

/* ------------------------------------------------------------------ */
/* Input                                                               */

int ctl_key(App *a, int key)
{
    int r = dispatch(global_keys, N_OF(global_keys), a, key);
    if (r >= 0)
        return r;
    ctl_settle(a); /* a slow stage computed before any key acts on it */
    AppDialog d = a->dialog.kind;
    if (a->tour.active && (d == DLG_NONE || d == DLG_BASELINES || d == DLG_START_FROM || d == DLG_RACE || d == DLG_WHY) &&
        (r = dispatch(tour_keys, N_OF(tour_keys), a, key)) >= 0)
        return r;
    if (!a->tour.active && a->tour.left >= 0 && d == DLG_NONE &&
        (r = dispatch(tour_left_keys, N_OF(tour_left_keys), a, key)) >= 0)
        return r;
    if (a->replay.active && d == DLG_NONE && (r = dispatch(replay_keys, N_OF(replay_keys), a, key)) >= 0)
        return r;
    const DialogDef *dlg = dialog_def(d);
    if (dlg)
        return dlg->key(a, key);
    if ((r = dispatch(bindings, N_OF(bindings), a, key)) >= 0)
        return r;
    if (key == TERM_KEY_ESC)
        return CTL_NOTHING;
    app_msg(a, GS_DIM, "no command on this key; ? shows every key");
    return CTL_REDRAW;
}

static int inside(GridRect r, int x, int y)
{
    return x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h;
}

int ctl_click(App *a, const AppGeom *geom, int x, int y, int button)
{
    if (geom->have_dag && geom->map.w > 0 && inside(geom->map, x, y)) { /* the map: the view goes there */
        int cx = (int)((x - geom->map.x + 0.5) * geom->canvas_w / geom->map.w);
        int cy = (int)((y - geom->map.y + 0.5) * geom->canvas_h / geom->map.h);
        const DagView *v = &geom->dag;
        app_pan(a, cx - (v->x + v->dst.w / 2), cy - (v->y + v->dst.h / 2));
        app_focus(a, PANE_GRAPH);
        return CTL_REDRAW;
    }
    if (geom->have_dag && inside(geom->dag.dst, x, y)) {
        if (button == 4 || button == 5) { /* the wheel scrolls the graph */
            app_pan(a, 0, button == 4 ? -3 : 3);
            return CTL_REDRAW;
        }
        int u = dag_node_at_view(a->data.dag, &geom->dag, x, y);
        if (u >= 0) {
            app_select(a, u);
            app_focus(a, PANE_GRAPH);
            return CTL_REDRAW;
        }
    }
    if (geom->have_tl && inside(geom->tl.dst, x, y)) {
        int op = tl_op_at(a->cache.tl, &geom->tl, x, y);
        if (op >= 0) {
            app_select_op(a, op);
            app_focus(a, PANE_TIMELINE);
            return CTL_REDRAW;
        }
    }
    return CTL_NOTHING;
}

int ctl_tick(App *a, double now, double frame_s)
{
    int r = ctl_settle(a);
    if (a->run.running) {
        if (a->replay.active)
            app_replay_step(a, 1);
        else
            app_step(a);
        r |= CTL_REDRAW;
    }
    if (app_race_tick(a, frame_s)) {
        r |= CTL_REDRAW;
        if (!app_race_running(a)) /* --auto: a stage's delay counts from the end of its race */
            a->tour.since = now;
    }
    if (app_tour_due(a, now) && !app_race_running(a))
        r |= act_tour_next(a, 0);
    if (a->train.running) {
        app_train_poll(a);
        r |= CTL_REDRAW;
    }
    if (now - a->run.last_autosave > 60)
        app_autosave(a);
    return r;
}

int ctl_timeout_ms(const App *a)
{
    if (a->tour.pending >= 0) /* the busy sign is up: compute now */
        return 0;
    if (a->tour.autoplay && a->tour.active && !app_race_running(a)) /* a race goes at its pace, below */
        return 200;
    if (a->run.running)
        return 1000 / a->run.speed;
    if (a->train.running)
        return 100;
    return app_race_wait_ms(a);
}

void ctl_frame(App *a, Grid *g, AppGeom *geom)
{
    app_draw(a, g, geom);
    if (geom->have_dag)
        app_graph_shown(a, geom->dag.x, geom->dag.y);
    app_dialog_scroll_max(a, geom->dialog_scroll);
}
