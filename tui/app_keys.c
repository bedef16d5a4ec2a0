/* app_keys: the explorer's key table and the actions it binds, the keys of
 * dialogs and of replay, and mouse clicks (see app.h). Actions change the
 * App and say what must happen next; they never draw. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "export.h"
#include "term.h"

/* ------------------------------------------------------------------ */
/* Actions                                                             */

static int act_override(App *a, int key);

int app_key_override(App *a, int group, int device)
{
    a->view.selected = group;
    return act_override(a, '0' + device);
}

static int act_step(App *a, int key)
{
    (void)key;
    return app_key_step(a);
}

static int act_run(App *a, int key)
{
    (void)key;
    if (a->replay.active) {
        a->run.running = !a->run.running;
        app_msg(a, GS_NONE, a->run.running ? "playing the recording (r pauses)" : "paused");
        return APP_REDRAW;
    }
    if (episode_done(a->data.ep)) {
        app_msg(a, GS_DIM, "the episode is complete: n starts a new one");
        return APP_REDRAW;
    }
    a->run.running = !a->run.running;
    app_msg(a, GS_NONE, a->run.running ? "running at %d steps/s (+/- to change, r to pause)" : "paused", a->run.speed);
    return APP_REDRAW;
}

static int act_speed(App *a, int key)
{
    static const int steps[] = {1, 2, 5, 10, 20, 50, 100};
    int n = (int)(sizeof steps / sizeof steps[0]), k = 0;
    while (k < n - 1 && steps[k] < a->run.speed)
        k++;
    k += key == '+' ? 1 : -1;
    a->run.speed = steps[k < 0 ? 0 : k >= n ? n - 1 : k];
    app_msg(a, GS_NONE, "speed: %d steps/s", a->run.speed);
    return APP_REDRAW;
}

static int act_finish(App *a, int key)
{
    (void)key;
    int steps = 0;
    while (!episode_done(a->data.ep)) {
        episode_step_policy(a->data.ep, a->policy.pol, a->policy.work, a->run.greedy, NULL);
        steps++;
    }
    a->run.running = 0;
    app_refresh(a);
    app_msg(a, GS_NONE, "finished the episode in %d steps: runtime %.3f ms, best %.3f ms", steps,
            a->data.ep->runtime_us / 1000, a->data.ep->best_runtime_us / 1000);
    return APP_REDRAW;
}

static int act_new(App *a, int key)
{
    (void)key;
    a->run.running = 0;
    episode_reset(a->data.ep, a->data.ep->seed + 1, NULL);
    app_refresh(a);
    app_msg(a, GS_NONE, "new episode (seed %llu) from %s: %.3f ms", (unsigned long long)a->data.ep->seed,
            a->data.ep->cfg.init == EPISODE_INIT_GIVEN ? "the given placement" : "the fixed random placement",
            a->data.ep->runtime_us / 1000);
    return APP_REDRAW;
}

static int act_greedy(App *a, int key)
{
    (void)key;
    a->run.greedy = !a->run.greedy;
    app_msg(a, GS_NONE, a->run.greedy ? "greedy: the policy takes its most likely device" :
                                    "sampling: the policy draws from its distribution");
    return APP_REDRAW;
}

static int act_undo(App *a, int key)
{
    const EpisodeStep *s = key == 'u' ? (a->data.ep->n_hist ? &a->data.ep->hist[a->data.ep->n_hist - 1] : NULL)
                                  : (a->data.ep->n_redo ? &a->data.ep->hist[a->data.ep->n_hist] : NULL);
    if (!s || (key == 'u' ? episode_undo(a->data.ep) : episode_redo(a->data.ep)) != 0) {
        app_msg(a, GS_DIM, key == 'u' ? "nothing to undo" : "nothing to redo");
        return APP_REDRAW;
    }
    a->run.running = 0;
    int g = s->group, from = key == 'u' ? s->new_device : s->old_device;
    int to = key == 'u' ? s->old_device : s->new_device;
    app_refresh(a);
    a->view.selected = g;
    app_msg(a, GS_NONE, "%s: %s back from %s to %s (%.3f ms)", key == 'u' ? "undo" : "redo", a->data.gr->names[g],
            a->data.c->devices[from].name, a->data.c->devices[to].name, a->data.ep->runtime_us / 1000);
    return APP_REDRAW;
}

static int act_override(App *a, int key)
{
    int d = key - '0';
    if (d >= a->data.c->n_devices) {
        app_msg(a, GS_WARN, "there is no device %d (devices 0-%d)", d, a->data.c->n_devices - 1);
        return APP_REDRAW;
    }
    double before = a->data.ep->runtime_us;
    Err e = {{0}};
    const EpisodeStep *s = episode_override(a->data.ep, a->view.selected, d, &e);
    if (!s) {
        app_msg(a, GS_ERROR, "%s", e.msg);
        return APP_REDRAW;
    }
    a->run.running = 0;
    int keep = a->view.selected;
    app_refresh(a);
    a->view.selected = keep;
    app_msg(a, s->runtime_us < before ? GS_GOOD : s->runtime_us > before ? GS_WARN : GS_NONE,
            "you moved %s to %s: %.3f -> %.3f ms; the policy goes on from here (u undoes)", a->data.gr->names[keep],
            a->data.c->devices[d].name, before / 1000, s->runtime_us / 1000);
    return APP_REDRAW;
}

/* Selection moves along the drawn graph: up to a parent, down to a child,
 * left and right within the layer. */
static int act_move(App *a, int key)
{
    int u = a->view.selected, v = -1;
    const Grouping *gr = a->data.gr;
    const DagLayout *L = a->data.dag;
    if (key == TERM_KEY_UP || key == 'k') {
        if (gr->pred_off[u + 1] > gr->pred_off[u])
            v = gr->pred[gr->pred_off[u]];
    } else if (key == TERM_KEY_DOWN || key == 'j') {
        if (gr->succ_off[u + 1] > gr->succ_off[u])
            v = gr->succ[gr->succ_off[u]];
    } else {
        int dir = key == TERM_KEY_LEFT || key == 'h' ? -1 : 1, l = L->layer[u];
        for (int p = L->pos[u] + dir; p >= 0 && p < L->layer_off[l + 1] - L->layer_off[l]; p += dir) {
            int w = L->order[L->layer_off[l] + p];
            if (w < L->n) {
                v = w;
                break;
            }
        }
        if (v < 0) /* the end of the layer: the next group in topological order */
            v = u + dir >= 0 && u + dir < gr->n_groups ? u + dir : -1;
    }
    if (v < 0)
        return APP_NOTHING;
    a->view.selected = v;
    a->view.follow = 0;
    return APP_REDRAW;
}

static int act_current(App *a, int key)
{
    (void)key;
    a->view.follow = 1;
    int cur = episode_current(a->data.ep);
    if (cur >= 0)
        a->view.selected = cur;
    app_msg(a, GS_NONE, "following the current node");
    return APP_REDRAW;
}

static int act_focus(App *a, int key)
{
    int n = PANE_COUNT;
    a->view.focus = (AppPane)(((int)a->view.focus + (key == TERM_KEY_BTAB ? n - 1 : 1)) % n);
    if (a->view.maximized >= 0)
        a->view.maximized = (int)a->view.focus;
    return APP_REDRAW;
}

static int act_maximize(App *a, int key)
{
    (void)key;
    a->view.maximized = a->view.maximized >= 0 ? -1 : (int)a->view.focus;
    return APP_REDRAW;
}

static int act_zoom(App *a, int key)
{
    (void)key;
    a->view.zoom = a->view.zoom == DAG_FULL ? DAG_COMPACT : DAG_FULL;
    a->view.follow = 1;
    app_msg(a, GS_NONE, a->view.zoom == DAG_FULL ? "graph: full labels" : "graph: compact, one cell per group");
    return APP_REDRAW;
}

static int act_sets(App *a, int key)
{
    (void)key;
    a->view.show_sets = !a->view.show_sets;
    app_msg(a, GS_NONE, a->view.show_sets ? "showing the ancestors, descendants and parallel groups the policy pools over"
                                     : "sets hidden");
    return APP_REDRAW;
}

static int act_pan(App *a, int key)
{
    a->view.follow = 0;
    int step = key == 'H' || key == 'L' ? 8 : 4;
    if (key == 'H')
        a->view.x -= step;
    else if (key == 'L')
        a->view.x += step;
    else if (key == 'K' || key == TERM_KEY_PGUP)
        a->view.y -= step;
    else
        a->view.y += step;
    return APP_REDRAW;
}

static int act_timeline(App *a, int key)
{
    double end = a->data.ep->runtime_us;
    if (!(a->view.tl_t1 > a->view.tl_t0)) {
        a->view.tl_t0 = 0;
        a->view.tl_t1 = end;
    }
    double span = a->view.tl_t1 - a->view.tl_t0;
    if (key == '>' || key == '<') {
        double anchor = (a->view.tl_t0 + a->view.tl_t1) / 2;
        tl_zoom(&a->view.tl_t0, &a->view.tl_t1, key == '>' ? 0.5 : 2.0, anchor, end);
    } else if (key == ']' || key == '[') {
        tl_pan(&a->view.tl_t0, &a->view.tl_t1, (key == ']' ? 0.25 : -0.25) * span, end);
    } else if (key == '=') { /* whole run */
        a->view.tl_t0 = a->view.tl_t1 = 0;
    } else if (key == 'o') {
        a->view.tl_by_group = !a->view.tl_by_group;
        app_msg(a, GS_NONE, a->view.tl_by_group ? "timeline: ops coloured by group" : "timeline: ops coloured by device");
    }
    return APP_REDRAW;
}

static int act_help(App *a, int key)
{
    (void)key;
    a->dialog.kind = a->dialog.kind == DLG_HELP ? DLG_NONE : DLG_HELP;
    a->dialog.menu_pos = 0;
    return APP_REDRAW;
}

static int act_search(App *a, int key)
{
    (void)key;
    a->dialog.kind = DLG_SEARCH;
    a->dialog.input[0] = '\0';
    return APP_REDRAW;
}

static int act_quit(App *a, int key)
{
    (void)key;
    if (!a->run.dirty)
        return APP_QUIT;
    a->dialog.kind = DLG_QUIT;
    return APP_REDRAW;
}

static int act_repaint(App *a, int key)
{
    (void)key;
    return APP_REDRAW | APP_REPAINT;
}

static int act_save(App *a, int key)
{
    (void)key;
    app_save(a, a->files.episode);
    return APP_REDRAW;
}

static int act_export(App *a, int key)
{
    Err e = {{0}};
    char path[512];
    int rc;
    if (key == 'd') {
        snprintf(path, sizeof path, "%s.placement.dot", a->data.g->name);
        rc = export_dot(path, a->data.g, a->data.gr, a->data.c, a->data.ep->op_device, &e);
    } else {
        snprintf(path, sizeof path, "%s.trace.json", a->data.g->name);
        rc = export_trace(path, a->data.g, a->data.c, a->data.ep->result, &e);
    }
    if (rc != 0)
        app_msg(a, GS_ERROR, "export failed: %s", e.msg);
    else
        app_msg(a, GS_GOOD, "wrote %s (%s)", path, key == 'd' ? "render with dot -Tsvg" : "open in ui.perfetto.dev");
    return APP_REDRAW;
}

static int act_baselines(App *a, int key)
{
    (void)key;
    if (a->dialog.kind == DLG_BASELINES) {
        a->dialog.kind = DLG_NONE;
        return APP_REDRAW;
    }
    app_run_baselines(a);
    a->dialog.kind = DLG_BASELINES;
    a->dialog.menu_pos = 0;
    return APP_REDRAW;
}

static int act_start_from(App *a, int key)
{
    (void)key;
    if (!a->base.ran)
        app_run_baselines(a);
    a->dialog.kind = DLG_START_FROM;
    a->dialog.menu_pos = 0;
    return APP_REDRAW;
}

static int act_train(App *a, int key)
{
    (void)key;
    if (a->train.running) {
        app_train_stop(a);
        return APP_REDRAW;
    }
    a->dialog.kind = DLG_TRAIN;
    snprintf(a->dialog.input, sizeof a->dialog.input, "50");
    return APP_REDRAW;
}

/* Keys inside a dialog. */
static int dialog_key(App *a, int key)
{
    size_t len = strlen(a->dialog.input);
    switch (a->dialog.kind) {
    case DLG_HELP:
        if (key == TERM_KEY_DOWN || key == 'j' || key == TERM_KEY_PGDN) {
            a->dialog.menu_pos += key == TERM_KEY_PGDN ? 10 : 1;
            return APP_REDRAW;
        }
        if (key == TERM_KEY_UP || key == 'k' || key == TERM_KEY_PGUP) {
            a->dialog.menu_pos -= key == TERM_KEY_PGUP ? 10 : 1;
            if (a->dialog.menu_pos < 0)
                a->dialog.menu_pos = 0;
            return APP_REDRAW;
        }
        a->dialog.kind = DLG_NONE;
        return APP_REDRAW;
    case DLG_QUIT:
        if (key == 'y' || key == 's') {
            if (app_save(a, a->files.episode) == 0)
                return APP_QUIT;
            a->dialog.kind = DLG_NONE;
            return APP_REDRAW;
        }
        if (key == 'n' || key == 'q') {
            app_autosave(a);
            return APP_QUIT;
        }
        a->dialog.kind = DLG_NONE;
        app_msg(a, GS_NONE, "not quitting");
        return APP_REDRAW;
    case DLG_SEARCH:
    case DLG_TRAIN:
        if (key == TERM_KEY_ESC) {
            a->dialog.kind = DLG_NONE;
            return APP_REDRAW;
        }
        if (key == TERM_KEY_BACKSPACE || key == 0x7f || key == 8) {
            if (len)
                a->dialog.input[len - 1] = '\0';
        } else if (key == TERM_KEY_ENTER || key == '\n' || key == '\r') {
            AppDialog was = a->dialog.kind;
            a->dialog.kind = DLG_NONE;
            if (was == DLG_SEARCH) {
                app_msg(a, GS_NONE, "selected %s", a->data.gr->names[a->view.selected]);
            } else {
                char *end;
                long n = strtol(a->dialog.input, &end, 10);
                if (end == a->dialog.input || *end || n < 1 || n > 1000000)
                    app_msg(a, GS_WARN, "expected a number of episodes from 1 to 1000000");
                else
                    app_train_start(a, n);
            }
            return APP_REDRAW;
        } else if (key >= 32 && key < 127 && len + 1 < sizeof a->dialog.input) {
            a->dialog.input[len] = (char)key;
            a->dialog.input[len + 1] = '\0';
        }
        if (a->dialog.kind == DLG_SEARCH && a->dialog.input[0]) { /* incremental: select as you type */
            for (int off = 0; off < a->data.gr->n_groups; off++) {
                int k = (a->view.selected + off) % a->data.gr->n_groups;
                const char *nm = a->data.gr->names[k];
                for (const char *p = nm; *p; p++) {
                    size_t i = 0;
                    while (a->dialog.input[i] && p[i] && tolower((unsigned char)p[i]) == tolower((unsigned char)a->dialog.input[i]))
                        i++;
                    if (!a->dialog.input[i]) {
                        a->view.selected = k;
                        a->view.follow = 0;
                        off = a->data.gr->n_groups;
                        break;
                    }
                }
            }
        }
        return APP_REDRAW;
    case DLG_BASELINES:
    case DLG_START_FROM:
        if (key == TERM_KEY_DOWN || key == 'j') {
            if (a->dialog.menu_pos + 1 < a->base.n)
                a->dialog.menu_pos++;
        } else if (key == TERM_KEY_UP || key == 'k') {
            if (a->dialog.menu_pos > 0)
                a->dialog.menu_pos--;
        } else if (key == TERM_KEY_ENTER || key == '\n' || key == '\r') {
            if (a->base.n)
                app_start_from(a, a->dialog.menu_pos);
            a->dialog.kind = DLG_NONE;
        } else {
            a->dialog.kind = DLG_NONE;
        }
        return APP_REDRAW;
    default:
        a->dialog.kind = DLG_NONE;
        return APP_REDRAW;
    }
}

/* ------------------------------------------------------------------ */
/* The key table                                                       */

typedef int (*AppAction)(App *a, int key);

typedef struct KeyBinding {
    int keys[4];   /* 0-terminated */
    int range_hi;  /* keys[0]..range_hi when nonzero */
    AppKey doc;
    AppAction fn;
} KeyBinding;

static const KeyBinding bindings[] = {
    {{' '}, 0, {"space", "step: the policy places the current group", 0}, act_step},
    {{'r'}, 0, {"r", "run / pause stepping", 0}, act_run},
    {{'+', '-'}, 0, {"+ -", "faster / slower while running", 0}, act_speed},
    {{'f'}, 0, {"f", "finish the episode", 0}, act_finish},
    {{'n'}, 0, {"n", "new episode", 0}, act_new},
    {{'0'}, '9', {"0-9", "move the selected group to that device (your override)", 0}, act_override},
    {{'u'}, 0, {"u", "undo the last step, yours or the policy's", 0}, act_undo},
    {{'U'}, 0, {"U", "redo", 0}, act_undo},
    {{'g'}, 0, {"g", "greedy / sampling", 0}, act_greedy},
    {{'b'}, 0, {"b", "run every baseline; Enter starts an episode from the highlighted one", 0}, act_baselines},
    {{'B'}, 0, {"B", "start an episode from a baseline's placement", 0}, act_start_from},
    {{'T'}, 0, {"T", "train the policy in the background / stop training", 0}, act_train},
    {{TERM_KEY_UP, 'k'}, 0, {"Up k", "select a parent of the selected group", 1}, act_move},
    {{TERM_KEY_DOWN, 'j'}, 0, {"Down j", "select a child", 1}, act_move},
    {{TERM_KEY_LEFT, 'h', TERM_KEY_RIGHT, 'l'}, 0, {"Left h Right l", "select the previous / next group in the layer", 1}, act_move},
    {{'c'}, 0, {"c", "follow the current node again", 1}, act_current},
    {{'/'}, 0, {"/", "search a group by name", 1}, act_search},
    {{'H', 'J', 'K', 'L'}, 0, {"H J K L", "pan the graph", 1}, act_pan},
    {{TERM_KEY_PGUP, TERM_KEY_PGDN}, 0, {"PgUp PgDn", "scroll the graph", 1}, act_pan},
    {{'Z'}, 0, {"Z", "graph zoom: full labels / compact", 1}, act_zoom},
    {{'a'}, 0, {"a", "show the ancestors, descendants and parallel groups", 1}, act_sets},
    {{'<', '>'}, 0, {"< >", "timeline zoom out / in", 1}, act_timeline},
    {{'[', ']'}, 0, {"[ ]", "timeline pan", 1}, act_timeline},
    {{'='}, 0, {"=", "timeline: the whole run", 1}, act_timeline},
    {{'o'}, 0, {"o", "timeline colours: by device / by group", 1}, act_timeline},
    {{TERM_KEY_TAB, TERM_KEY_BTAB}, 0, {"Tab", "next pane", 1}, act_focus},
    {{'z'}, 0, {"z", "maximise / restore the focused pane", 1}, act_maximize},
    {{'s'}, 0, {"s", "save the episode", 2}, act_save},
    {{'d'}, 0, {"d", "export the placement as DOT", 2}, act_export},
    {{'t'}, 0, {"t", "export the timeline as a Chrome trace", 2}, act_export},
    {{'?', TERM_KEY_F1}, 0, {"?", "help", 3}, act_help},
    {{'q'}, 0, {"q", "quit (asks when there are unsaved changes)", 3}, act_quit},
    {{0x0c}, 0, {"Ctrl-L", "repaint the whole screen", 3}, act_repaint},
};
enum { N_BINDINGS = sizeof bindings / sizeof bindings[0] };

const AppKey *app_keys(int *count)
{
    static AppKey docs[N_BINDINGS];
    for (int k = 0; k < N_BINDINGS; k++)
        docs[k] = bindings[k].doc;
    *count = N_BINDINGS;
    return docs;
}

/* Replay: the arrows walk the recorded history; nothing new is recorded. */
int app_replay_key(App *a, int key)
{
    int n = 0;
    if (key == ' ' || key == TERM_KEY_RIGHT || key == 'l' || key == 'U') {
        if (episode_redo(a->data.ep) == 0)
            n = 1;
    } else if (key == TERM_KEY_LEFT || key == 'h' || key == 'u' || key == TERM_KEY_BACKSPACE) {
        if (episode_undo(a->data.ep) == 0)
            n = -1;
    } else if (key == TERM_KEY_HOME) {
        while (episode_undo(a->data.ep) == 0)
            n--;
    } else if (key == TERM_KEY_END) {
        while (episode_redo(a->data.ep) == 0)
            n++;
    } else if ((key >= '0' && key <= '9') || key == 'f' || key == 'n' || key == 'T' || key == 'B') {
        app_msg(a, GS_WARN, "replay is read-only: resume the file with --resume to change it");
        return APP_REDRAW;
    } else {
        return -1; /* not a replay key */
    }
    app_refresh(a);
    a->run.dirty = 0;
    int total = a->data.ep->n_hist + a->data.ep->n_redo;
    if (n == 0) {
        a->run.running = 0;
        app_msg(a, GS_DIM, "replay: %s of the recording (%d/%d)", a->data.ep->n_hist ? "the end" : "the start",
                a->data.ep->n_hist, total);
    } else {
        const EpisodeStep *s = &a->data.ep->hist[a->data.ep->n_hist - (n > 0 ? 1 : 0)];
        a->view.selected = s->group;
        app_msg(a, GS_NONE, "replay %d/%d: %s %s %d->%d, %.3f ms", a->data.ep->n_hist, total,
                s->actor == EPISODE_ACTOR_USER ? "you" : "policy", a->data.gr->names[s->group], s->old_device, s->new_device,
                a->data.ep->runtime_us / 1000);
    }
    return APP_REDRAW;
}

int app_key(App *a, int key)
{
    if (a->tour.active && a->dialog.kind != DLG_SEARCH && a->dialog.kind != DLG_TRAIN) {
        int r = demo_key(a, key);
        if (r >= 0)
            return r;
    }
    if (a->replay.active && a->dialog.kind == DLG_NONE) {
        int r = app_replay_key(a, key);
        if (r >= 0)
            return r;
    }
    if (a->dialog.kind != DLG_NONE)
        return dialog_key(a, key);
    for (int k = 0; k < N_BINDINGS; k++) {
        const KeyBinding *b = &bindings[k];
        int hit = b->range_hi ? key >= b->keys[0] && key <= b->range_hi : 0;
        for (int j = 0; !hit && j < 4 && b->keys[j]; j++)
            hit = key == b->keys[j];
        if (hit)
            return b->fn(a, key);
    }
    if (key == TERM_KEY_ESC)
        return APP_NOTHING;
    app_msg(a, GS_DIM, "no command on this key; ? shows every key");
    return APP_REDRAW;
}

int app_click(App *a, int x, int y, int button)
{
    GridRect r = a->frame.graph_rect;
    if (a->frame.have_dag && x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h) {
        if (button == 4 || button == 5) {
            a->view.follow = 0;
            a->view.y += button == 4 ? -3 : 3;
            return APP_REDRAW;
        }
        int u = dag_node_at_view(a->data.dag, &a->frame.dag, x, y);
        if (u >= 0) {
            a->view.selected = u;
            a->view.follow = 0;
            a->view.focus = PANE_GRAPH;
            return APP_REDRAW;
        }
    }
    r = a->frame.timeline_rect;
    if (a->frame.have_tl && x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h) {
        int op = tl_op_at(a->cache.tl, &a->frame.tl, x, y);
        if (op >= 0) {
            a->view.selected = a->data.gr->op_group[op];
            a->view.follow = 0;
            a->view.focus = PANE_TIMELINE;
            app_msg(a, GS_NONE, "op %s of group %s", a->data.g->nodes[op].name, a->data.gr->names[a->view.selected]);
            return APP_REDRAW;
        }
    }
    return APP_NOTHING;
}
