/* dialogs: the explorer's dialogs (see dialogs.h), each a key handler
 * (controller: keys to model calls) beside its draw (view: a const App onto
 * the grid), and the table pairing them: help, the quit confirmation, the
 * search and training prompts on the message line, and the baselines menu
 * (also the "start from" menu). */
#include "dialogs.h"

#include <stdio.h>
#include <stdlib.h>

#include "ctl.h"
#include "term.h"

static int is_enter(int key)
{
    return key == TERM_KEY_ENTER || key == '\n' || key == '\r';
}

static int is_down(int key)
{
    return key == TERM_KEY_DOWN || key == 'j';
}

static int is_up(int key)
{
    return key == TERM_KEY_UP || key == 'k';
}

/* A box of w x h cells in the middle of the screen (at most the screen
 * less a margin). */
static GridRect centred(const Grid *g, int w, int h)
{
    if (w > g->w - 2)
        w = g->w - 2;
    if (h > g->h - 2)
        h = g->h - 2;
    return (GridRect){(g->w - w) / 2, (g->h - h) / 2, w, h};
}

/* A cleared, framed, titled box; returns its inside (with a margin). */
static GridRect dialog_box(Grid *g, GridRect r, const char *title)
{
    grid_fill(g, r, ' ', GS_NONE);
    grid_box(g, r, GS_BORDER);
    char t[128];
    snprintf(t, sizeof t, " %s ", title);
    grid_text_fit(g, r.x + 2, r.y, t, r.w - 4, GS_TITLE);
    return (GridRect){r.x + 2, r.y + 1, r.w - 4, r.h - 2};
}

/* ------------------------------------------------------------------ */
/* Help: every key, from the controller's key table                    */

static int help_key(App *a, int key)
{
    int pos = a->dialog.menu_pos;
    if (is_down(key) || key == TERM_KEY_PGDN)
        pos += key == TERM_KEY_PGDN ? 10 : 1;
    else if (is_up(key) || key == TERM_KEY_PGUP)
        pos -= key == TERM_KEY_PGUP ? 10 : 1;
    else {
        app_dialog_close(a);
        return CTL_REDRAW;
    }
    app_dialog_menu(a, pos);
    return CTL_REDRAW;
}

static void help_draw(const App *a, Grid *g)
{
    static const char *const section[] = {"Episode", "View", "Files", "Other"};
    int n;
    const CtlKeyDoc *keys = ctl_keys(&n);
    GridRect in = dialog_box(g, centred(g, 76, n + 12), "Keys (any key closes, j/k scroll)");
    int row = 0, y = in.y, first = a->dialog.menu_pos;
    for (int s = 0; s < 4; s++) {
        if (row++ >= first && y < in.y + in.h)
            grid_text(g, in.x, y++, section[s], GS_TITLE);
        for (int k = 0; k < n; k++) {
            if (keys[k].section != s)
                continue;
            if (row++ < first || y >= in.y + in.h)
                continue;
            grid_text_fit(g, in.x + 2, y, keys[k].keys, 16, GS_KEY);
            grid_text_fit(g, in.x + 19, y++, keys[k].help, in.w - 19, GS_NONE);
        }
    }
    if (y < in.y + in.h)
        grid_text_fit(g, in.x, y + (y + 1 < in.y + in.h), "Mouse: click a group or an op to select it.",
                      in.w, GS_DIM);
}

/* ------------------------------------------------------------------ */
/* Quit with unsaved changes                                           */

static int quit_key(App *a, int key)
{
    if (key == 'y' || key == 's') {
        if (app_save(a, a->files.episode) == 0)
            return CTL_QUIT;
        app_dialog_close(a);
        return CTL_REDRAW;
    }
    if (key == 'n' || key == 'q') {
        app_autosave(a);
        return CTL_QUIT;
    }
    app_dialog_close(a);
    app_msg(a, GS_NONE, "not quitting");
    return CTL_REDRAW;
}

static void quit_draw(const App *a, Grid *g)
{
    GridRect in = dialog_box(g, centred(g, 58, 6), "Unsaved changes");
    char line[256];
    snprintf(line, sizeof line, "y: save to %s and quit", a->files.episode);
    grid_text_fit(g, in.x, in.y, line, in.w, GS_NONE);
    snprintf(line, sizeof line, "n: quit (an autosave goes to %s)", a->files.autosave);
    grid_text_fit(g, in.x, in.y + 1, line, in.w, GS_NONE);
    grid_text_fit(g, in.x, in.y + 2, "any other key: stay", in.w, GS_DIM);
}

/* ------------------------------------------------------------------ */
/* Prompts on the message line: search and train                       */

enum { PROMPT_CLOSED, PROMPT_EDITED, PROMPT_ENTERED };

/* Esc cancels, Backspace erases, Enter closes the prompt (the caller acts
 * on the text), printable characters are typed. */
static int prompt_key(App *a, int key)
{
    if (key == TERM_KEY_ESC) {
        app_dialog_close(a);
        return PROMPT_CLOSED;
    }
    if (is_enter(key)) {
        app_dialog_close(a);
        return PROMPT_ENTERED;
    }
    if (key == TERM_KEY_BACKSPACE || key == 0x7f || key == 8)
        app_dialog_erase(a);
    else
        app_dialog_type(a, key);
    return PROMPT_EDITED;
}

static void prompt_draw(const App *a, Grid *g, const char *prompt, const char *enter)
{
    char line[256];
    int y = g->h - 1;
    snprintf(line, sizeof line, "%s%s_   (Enter: %s, Esc: cancel)", prompt, a->dialog.input, enter);
    grid_fill(g, (GridRect){0, y, g->w, 1}, ' ', GS_NONE); /* instead of the message */
    grid_text_fit(g, 0, y, line, g->w, GS_KEY);
}

/* Search selects as you type. */
static int search_key(App *a, int key)
{
    int r = prompt_key(a, key);
    if (r == PROMPT_ENTERED)
        app_msg(a, GS_NONE, "selected %s", a->data.pb.gr->names[a->view.selected]);
    else if (r == PROMPT_EDITED)
        app_search(a, a->dialog.input);
    return CTL_REDRAW;
}

static void search_draw(const App *a, Grid *g)
{
    prompt_draw(a, g, "search group: ", "select");
}

static int train_key(App *a, int key)
{
    if (prompt_key(a, key) != PROMPT_ENTERED)
        return CTL_REDRAW;
    char *end;
    long n = strtol(a->dialog.input, &end, 10);
    if (end == a->dialog.input || *end || n < 1 || n > 1000000)
        app_msg(a, GS_WARN, "expected a number of episodes from 1 to 1000000");
    else
        app_train_start(a, n);
    return CTL_REDRAW;
}

static void train_draw(const App *a, Grid *g)
{
    prompt_draw(a, g, "train episodes: ", "start");
}

/* ------------------------------------------------------------------ */
/* The baselines, a menu: Enter starts an episode from the highlighted one */

static int baselines_key(App *a, int key)
{
    if (is_down(key)) {
        app_dialog_menu(a, a->dialog.menu_pos + 1);
    } else if (is_up(key)) {
        app_dialog_menu(a, a->dialog.menu_pos - 1);
    } else {
        if (is_enter(key))
            app_start_from(a, a->dialog.menu_pos);
        app_dialog_close(a);
    }
    return CTL_REDRAW;
}

static void baselines_draw(const App *a, Grid *g)
{
    const AppBaselines *base = &a->base;
    GridRect in = dialog_box(g, centred(g, 64, base->n + 7),
                             a->dialog.kind == DLG_START_FROM ? "Start an episode from (Enter)" :
                                                                "Baselines (Enter: start from it, Esc: close)");
    char line[160], b1[32], b2[32];
    snprintf(line, sizeof line, "%-14s %12s %9s %9s %5s", "method", "runtime", "vs bound", "vs single", "OOM");
    grid_text_fit(g, in.x, in.y, line, in.w, GS_LABEL);
    int y = in.y + 1;
    double bound = a->data.lower_bound_us;
    for (int k = 0; k < base->n && y < in.y + in.h - 1; k++, y++) {
        const PlaceRun *b = &base->rows[k];
        snprintf(line, sizeof line, "%-14s %12s %8.3fx %8.3fx %5s", b->method, util_fmt_time(b1, b->runtime_us),
                 bound > 0 ? b->runtime_us / bound : 0.0, b->runtime_us > 0 ? a->data.single_us / b->runtime_us : 0.0,
                 b->oom ? "yes" : "no");
        grid_text_fit(g, in.x, y, line, in.w, k == a->dialog.menu_pos ? GS_CURSOR : GS_NONE);
    }
    snprintf(line, sizeof line, "this episode: %s now, best %s", util_fmt_time(b1, a->data.ep->runtime_us),
             util_fmt_time(b2, a->data.ep->best_runtime_us));
    if (y < in.y + in.h)
        grid_text_fit(g, in.x, y++, line, in.w, GS_DIM);
    snprintf(line, sizeof line, "anneal, ils: local search, %lld placements simulated each", (long long)base->budget);
    if (y < in.y + in.h)
        grid_text_fit(g, in.x, y, line, in.w, GS_DIM);
}

/* ------------------------------------------------------------------ */

static const DialogDef dialogs[DLG_COUNT] = {
    [DLG_HELP] = {help_key, help_draw},
    [DLG_QUIT] = {quit_key, quit_draw},
    [DLG_SEARCH] = {search_key, search_draw},
    [DLG_BASELINES] = {baselines_key, baselines_draw},
    [DLG_START_FROM] = {baselines_key, baselines_draw},
    [DLG_TRAIN] = {train_key, train_draw},
};

const DialogDef *dialog_def(AppDialog d)
{
    return d > DLG_NONE && d < DLG_COUNT && dialogs[d].key ? &dialogs[d] : NULL;
}
