/* dialogs: the explorer's dialogs (see dialogs.h), each a key handler
 * (controller: keys to model calls) beside its draw (view: a const App onto
 * the grid), and the table pairing them: help, the quit confirmation, the
 * search and training prompts on the message line, and the baselines menu
 * (also the "start from" menu). */
#include "dialogs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_race.h"
#include "ctl.h"
#include "term.h"
#include "why.h"
#include "widgets.h"

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

/* The help's rows: section titles, and each key with its help wrapped into
 * the width left of the keys' column, then the glyph legend. Calls row(ctx,
 * keys, text, pen) per row (keys NULL on continuation rows) and returns the
 * count. */
enum { HELP_KEYS_W = 17 };
typedef void (*HelpRow)(void *ctx, const char *keys, const char *text, int len, int pen);

/* Appends code point cp to the UTF-8 string at *o (a grid symbol, plane 15,
 * draws as the glyph of the screen's set: Unicode, or ASCII). */
static void put_cp(char **o, uint32_t cp)
{
    unsigned char *p = (unsigned char *)*o;
    if (cp < 0x80) {
        *p++ = (unsigned char)cp;
    } else if (cp < 0x800) {
        *p++ = (unsigned char)(0xC0 | (cp >> 6));
        *p++ = (unsigned char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *p++ = (unsigned char)(0xE0 | (cp >> 12));
        *p++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        *p++ = (unsigned char)(0x80 | (cp & 0x3F));
    } else {
        *p++ = (unsigned char)(0xF0 | (cp >> 18));
        *p++ = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
        *p++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        *p++ = (unsigned char)(0x80 | (cp & 0x3F));
    }
    *p = 0;
    *o = (char *)p;
}

/* The legend: every glyph the views draw, as the screen draws it (its
 * glyph set), and what it means. */
enum { LEGEND_MAX = 8 };
typedef struct LegendRow {
    uint32_t glyph[LEGEND_MAX]; /* code points or grid symbols, 0-ended */
    const char *text;
} LegendRow;

static const LegendRow legend[] = {
    {{GRID_LINE(GRID_E | GRID_S), GRID_LINE(GRID_E | GRID_W), GRID_LINE(GRID_S | GRID_W), ' ', 'd', '0'},
     "Graph: a group's box in its device's colour (the current, selected and marked groups in their own); "
     "d0: its device"},
    {{GRID_LINE(GRID_N | GRID_S), GRID_ARROW_DOWN}, "an edge into a group"},
    {{'<', 'd', '1', ' ', 'd', '0'}, "backward and update groups folded beside their forward group: their devices"},
    {{GRID_DOT, ' ', GRID_DOT_MARKED, ' ', '0', '1'}, "compact view (Z): a group; the current or selected one; "
                                                      "with up to 10 devices, a group's device digit"},
    {{'0', '1', GRID_DOT_MARKED, GRID_SHADE}, "map: each group as its device's digit, the current group marked, "
                                              "the part in view shaded"},
    {{GRID_BLOCK_L, GRID_FULL, GRID_FULL, GRID_BLOCK_R, ' ', GRID_FULL},
     "Timeline: an op on its device, its name inside when it fits; a short op"},
    {{GRID_SHADE, GRID_SHADE}, "idle time; the empty part of a bar"},
    {{GRID_MARK, GRID_MARK, GRID_MARK}, "under an op: on the critical path"},
    {{GRID_LINE(GRID_E | GRID_W), 'd', '1', GRID_ARROW_RIGHT}, "a transfer on the device's outgoing bus, to device 1"},
    {{GRID_DOUBLE, GRID_DOUBLE, GRID_ARROW_RIGHT}, "a transfer on the critical path"},
    {{GRID_BAR(8), GRID_BAR(8), GRID_BAR(4), GRID_SHADE}, "a bar: a probability, or peak memory against capacity "
                                                         "(whole, in the warning colour, and OOM: out of memory)"},
    {{GRID_SPARK(1), GRID_SPARK(3), GRID_SPARK(5), GRID_SPARK(8)},
     "sparkline: the runtime after each step (its range beside it), the training's returns"},
    {{'*', '0', ' ', '<'}, "Policy: * the current group's device now; < the policy's most likely device"},
    {{'>', ' ', '+', ' ', '.'}, "why rows: the current group; one already placed; one not yet"},
    {{'y', 'e', 's', ' ', '!'}, "Baselines: out of memory, ranked last"},
    {{GRID_ELLIPSIS}, "text cut to fit (the full name is in the Inspector or the Policy pane)"},
};

static int legend_rows(int width, HelpRow row, void *ctx)
{
    static const char title[] = "Glyphs (Unicode; ASCII with --ascii or without a UTF-8 locale)";
    row(ctx, NULL, title, (int)strlen(title), GS_TITLE);
    int rows = 1;
    for (size_t k = 0; k < sizeof legend / sizeof *legend; k++) {
        char glyphs[LEGEND_MAX * 4 + 1], *o = glyphs;
        glyphs[0] = 0;
        for (int j = 0; j < LEGEND_MAX && legend[k].glyph[j]; j++)
            put_cp(&o, legend[k].glyph[j]);
        int start[16], len[16];
        int m = widget_wrap(legend[k].text, width - HELP_KEYS_W - 2, start, len, 16);
        for (int j = 0; j < m && j < 16; j++, rows++)
            row(ctx, j ? "" : glyphs, legend[k].text + start[j], len[j], GS_NONE);
    }
    return rows;
}

static int help_rows(const App *a, int width, HelpRow row, void *ctx)
{
    int n, rows = 0, n_tour;
    const CtlKeyDoc *keys = ctl_keys(a->replay.active, &n), *tour = ctl_tour_keys(&n_tour);
    int tour_rows = a->tour.active || a->tour.left >= 0; /* the tour's keys: first while touring; R once left */
    for (int s = a->tour.active ? -1 : 0; s < CTL_KEY_SECTIONS; s++) {
        const char *title = s < 0 ? "Tour (these keys come first while touring)" : ctl_key_section(s, a->replay.active);
        row(ctx, NULL, title, (int)strlen(title), GS_TITLE);
        rows++;
        for (int k = 0; k < n + n_tour; k++) {
            const CtlKeyDoc *doc = k < n ? &keys[k] : &tour[k - n];
            int sec = k < n ? doc->section : doc->section >= CTL_KEY_SECTIONS ? -1 : doc->section;
            if (sec != s || (k >= n && !tour_rows) || (k >= n && sec >= 0 && a->tour.active))
                continue;
            int start[16], len[16];
            int m = widget_wrap(doc->help, width - HELP_KEYS_W - 2, start, len, 16);
            for (int j = 0; j < m && j < 16; j++, rows++)
                row(ctx, j ? "" : doc->keys, doc->help + start[j], len[j], GS_NONE);
        }
    }
    rows += legend_rows(width, row, ctx);
    static const char *const mouse = CTL_MOUSE_HELP;
    int start[8], len[8];
    int m = widget_wrap(mouse, width, start, len, 8);
    for (int j = 0; j < m && j < 8; j++, rows++)
        row(ctx, NULL, mouse + start[j], len[j], GS_DIM);
    return rows;
}

typedef struct HelpDraw {
    Grid *g;
    GridRect in;
    int row, first;
} HelpDraw;

static void help_draw_row(void *ctx, const char *keys, const char *text, int len, int pen)
{
    HelpDraw *h = ctx;
    int y = h->in.y + h->row++ - h->first;
    if (y < h->in.y || y >= h->in.y + h->in.h)
        return;
    char line[512];
    snprintf(line, sizeof line, "%.*s", len, text);
    if (!keys) {
        grid_text_fit(h->g, h->in.x, y, line, h->in.w, pen);
        return;
    }
    grid_text_fit(h->g, h->in.x + 2, y, keys, HELP_KEYS_W - 1, GS_KEY);
    grid_text_fit(h->g, h->in.x + 2 + HELP_KEYS_W, y, line, h->in.w - 2 - HELP_KEYS_W, pen);
}

static void count_row(void *ctx, const char *keys, const char *text, int len, int pen)
{
    (void)ctx, (void)keys, (void)text, (void)len, (void)pen;
}

static int help_draw(const App *a, Grid *g)
{
    int w = g->w - 2 < 96 ? g->w - 2 : 96;
    int rows = help_rows(a, w - 4, count_row, NULL);
    GridRect box = centred(g, w, rows + 2);
    int visible = box.h - 2, max_first = rows > visible ? rows - visible : 0;
    char title[96];
    snprintf(title, sizeof title, max_first ? "Keys (j/k PgUp/PgDn scroll, any other key closes)" :
                                               "Keys (any key closes)");
    HelpDraw h = {g, dialog_box(g, box, title), 0, a->dialog.menu_pos < max_first ? a->dialog.menu_pos : max_first};
    help_rows(a, h.in.w, help_draw_row, &h);
    if (max_first) { /* where the window is */
        char more[48];
        snprintf(more, sizeof more, " %d-%d of %d ", h.first + 1, h.first + visible, rows);
        grid_text_fit(g, box.x + box.w - 2 - (int)strlen(more), box.y + box.h - 1, more, (int)strlen(more), GS_DIM);
    }
    return max_first;
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

/* A dialog of wrapped paragraphs (each with its pen) in a box as wide as
 * the screen allows up to 72 columns; returns 0 (it never scrolls: a box
 * that cannot hold the text shows its start). */
static int text_dialog(Grid *g, const char *title, const char *const *para, const int *pen, int n)
{
    int w = g->w - 2 < 72 ? g->w - 2 : 72, rows = 0;
    for (int k = 0; k < n; k++)
        rows += widget_wrap(para[k], w - 4, NULL, NULL, 0);
    GridRect in = dialog_box(g, centred(g, w, rows + 2), title);
    for (int k = 0; k < n && in.h > 0; k++) {
        int used = widget_text_wrapped(g, in, para[k], 0, pen[k]);
        in.y += used;
        in.h -= used;
    }
    return 0;
}

/* "PATH" or, when saving there would replace a file, "NEW (PATH exists: it
 * is kept)": where app_save goes. */
static void save_target_text(const App *a, char *buf, size_t n)
{
    char target[4200];
    app_save_target(a, target, sizeof target);
    if (strcmp(target, a->files.episode) == 0)
        snprintf(buf, n, "%s", target);
    else
        snprintf(buf, n, "%s (%s exists: it is kept)", target, a->files.episode);
}

static int quit_draw(const App *a, Grid *g)
{
    char save[9000], leave[4200], target[8500];
    save_target_text(a, target, sizeof target);
    snprintf(save, sizeof save, "y: save to %s and quit", target);
    snprintf(leave, sizeof leave, "n: quit (an autosave goes to %s)", a->files.autosave);
    const char *para[] = {save, leave, "any other key: stay"};
    static const int pen[] = {GS_NONE, GS_NONE, GS_DIM};
    return text_dialog(g, "Unsaved changes", para, pen, 3);
}

/* ------------------------------------------------------------------ */
/* A new episode when this one is unsaved                              */

static int new_episode_key(App *a, int key)
{
    app_dialog_close(a);
    if (key == 's' && app_save(a, a->files.episode) != 0)
        return CTL_REDRAW;
    if (key == 'y' || key == 's' || key == 'e')
        app_new_episode(a);
    else
        app_msg(a, GS_NONE, "no new episode: this one goes on");
    return CTL_REDRAW;
}

static int new_episode_draw(const App *a, Grid *g)
{
    char save[9000], target[8500];
    save_target_text(a, target, sizeof target);
    snprintf(save, sizeof save, "s: save this one to %s first", target);
    const char *para[] = {"This episode has unsaved changes.",
                          "y or e: start a new one (u at its start brings this one back)", save,
                          "any other key: stay"};
    static const int pen[] = {GS_NONE, GS_NONE, GS_NONE, GS_DIM};
    return text_dialog(g, "New episode", para, pen, 4);
}

/* ------------------------------------------------------------------ */
/* Saving over a file this session did not write                       */

static int overwrite_key(App *a, int key)
{
    app_dialog_close(a);
    if (key == 'y') {
        app_save_as(a, a->files.episode);
    } else if (key == 'a') {
        char fresh[4200];
        app_free_name(a->files.episode, fresh, sizeof fresh);
        app_dialog_open(a, DLG_SAVE_AS, fresh);
    } else {
        app_msg(a, GS_NONE, "not saved: %s is kept as it was", a->files.episode);
    }
    return CTL_REDRAW;
}

static int overwrite_draw(const App *a, Grid *g)
{
    char what[4300], as[4300];
    char fresh[4200];
    app_free_name(a->files.episode, fresh, sizeof fresh);
    snprintf(what, sizeof what, "%s exists, and this session did not write it (another episode, perhaps a "
             "prepared one).", a->files.episode);
    snprintf(as, sizeof as, "a: save as another name (%s offered; edit it, then Enter)", fresh);
    const char *para[] = {what, "y: replace it with this episode", as, "n or any other key: do not save"};
    static const int pen[] = {GS_NONE, GS_WARN, GS_NONE, GS_DIM};
    return text_dialog(g, "Replace an episode file?", para, pen, 4);
}

/* ------------------------------------------------------------------ */
/* Prompts on the message line: search, train and save as             */

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

static int prompt_draw(const App *a, Grid *g, const char *prompt, const char *enter)
{
    char line[256];
    int y = g->h - 1;
    snprintf(line, sizeof line, "%s%s_   (Enter: %s, Esc: cancel)", prompt, a->dialog.input, enter);
    grid_fill(g, (GridRect){0, y, g->w, 1}, ' ', GS_NONE); /* instead of the message */
    grid_text_fit(g, 0, y, line, g->w, GS_KEY);
    return 0;
}

/* Search selects as you type. */
static int search_key(App *a, int key)
{
    int r = prompt_key(a, key);
    if (r == PROMPT_ENTERED && a->msg.style == GS_WARN) /* the search found nothing: its message stays */
        ;
    else if (r == PROMPT_ENTERED)
        app_msg(a, GS_NONE, "selected %s", a->data.pb.gr->names[a->view.selected]);
    else if (r == PROMPT_EDITED)
        app_search(a, a->dialog.input);
    return CTL_REDRAW;
}

static int search_draw(const App *a, Grid *g)
{
    return prompt_draw(a, g, "search group: ", "select; then n / N: next / previous match");
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

static int train_draw(const App *a, Grid *g)
{
    return prompt_draw(a, g, "train episodes: ", "start");
}

/* Save as: a name that is free, or the episode's own file. */
static int save_as_key(App *a, int key)
{
    if (prompt_key(a, key) != PROMPT_ENTERED)
        return CTL_REDRAW;
    const char *name = a->dialog.input;
    if (!name[0])
        app_msg(a, GS_WARN, "not saved: no file name");
    else if (app_save_would_replace(a, name))
        app_msg(a, GS_WARN, "not saved: %s exists too (s, then a, offers a free name)", name);
    else
        app_save_as(a, name);
    return CTL_REDRAW;
}

static int save_as_draw(const App *a, Grid *g)
{
    return prompt_draw(a, g, "save as: ", "save");
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

static int baselines_draw(const App *a, Grid *g)
{
    const AppBaselines *base = &a->base;
    int mw = 14; /* the method column: as wide as the longest name */
    for (int k = 0; k < base->n; k++)
        if (grid_text_width(base->rows[k].method) > mw)
            mw = grid_text_width(base->rows[k].method);
    if (mw > 40)
        mw = 40;
    int n_oom = 0;
    for (int k = 0; k < base->n; k++)
        n_oom += base->rows[k].oom != 0;
    GridRect in = dialog_box(g, centred(g, mw + 50, base->n + 5 + (n_oom > 0)),
                             a->dialog.kind == DLG_START_FROM ? "Start an episode from (Enter)" :
                             a->tour.active ? "Baselines (Esc: close; Enter is the tour's)" : /* Enter: the next stage */
                                              "Baselines (Enter: start from it, Esc: close)");
    char line[160], b1[32], b2[32];
    snprintf(line, sizeof line, "%-*s %12s %9s %9s %5s", mw, "method", "runtime", "vs bound", "vs single", "OOM");
    grid_text_fit(g, in.x, in.y, line, in.w, GS_LABEL);
    int y = in.y + 1;
    double bound = a->data.lower_bound_us;
    /* the rows that fit, scrolled so that the highlighted one shows */
    int foot = 2 + (n_oom > 0);
    int visible = in.h - 1 - foot > 1 ? in.h - 1 - foot : 1;
    int first = a->dialog.menu_pos - visible + 1;
    if (first > base->n - visible)
        first = base->n - visible;
    if (first < 0)
        first = 0;
    for (int k = first; k < base->n && k < first + visible; k++, y++) {
        const PlaceRun *b = &base->rows[k];
        char r1[32], r2[32];
        snprintf(line, sizeof line, "%-*.*s %12s %9s %9s %5s", mw, mw, b->method, util_fmt_time(b1, b->runtime_us),
                 util_fmt_ratio(r1, b->runtime_us, bound), util_fmt_ratio(r2, a->data.single_us, b->runtime_us),
                 b->oom ? "yes !" : "no");
        grid_text_fit(g, in.x, y, line, in.w, k == a->dialog.menu_pos ? GS_CURSOR : b->oom ? GS_WARN : GS_NONE);
    }
    int below = base->n - first - visible;
    if (below > 0 || first > 0) { /* rows cut: how many, and the key that scrolls to them, on the frame */
        if (below > 0 && first > 0)
            snprintf(line, sizeof line, " +%d rows: j/Down, +%d above: k/Up ", below, first);
        else if (below > 0)
            snprintf(line, sizeof line, " +%d rows: j/Down ", below);
        else
            snprintf(line, sizeof line, " +%d rows above: k/Up ", first);
        int lw = grid_text_width(line);
        grid_text_fit(g, lw < in.w ? in.x + in.w - lw : in.x, in.y + in.h, line, in.w, GS_KEY);
    }
    if (n_oom > 0 && y < in.y + in.h) {
        snprintf(line, sizeof line, "yes !: out of memory, ranked last (%d row%s)",
                 n_oom, n_oom == 1 ? "" : "s");
        grid_text_fit(g, in.x, y++, line, in.w, GS_WARN);
    }
    snprintf(line, sizeof line, "this episode: %s now, best %s", util_fmt_time(b1, a->data.ep->runtime_us),
             util_fmt_time(b2, a->data.ep->best_runtime_us));
    if (y < in.y + in.h)
        grid_text_fit(g, in.x, y++, line, in.w, GS_DIM);
    snprintf(line, sizeof line, "anneal, ils: local search, %lld placements simulated each", (long long)base->budget);
    if (y < in.y + in.h)
        grid_text_fit(g, in.x, y, line, in.w, GS_DIM);
    return 0;
}

/* ------------------------------------------------------------------ */

static const DialogDef dialogs[DLG_COUNT] = {
    [DLG_HELP] = {help_key, help_draw},
    [DLG_QUIT] = {quit_key, quit_draw},
    [DLG_SEARCH] = {search_key, search_draw},
    [DLG_BASELINES] = {baselines_key, baselines_draw},
    [DLG_START_FROM] = {baselines_key, baselines_draw},
    [DLG_TRAIN] = {train_key, train_draw},
    [DLG_NEW_EPISODE] = {new_episode_key, new_episode_draw},
    [DLG_WHY] = {why_key, why_draw},
    [DLG_RACE] = {app_race_key, app_race_draw},
    [DLG_OVERWRITE] = {overwrite_key, overwrite_draw},
    [DLG_SAVE_AS] = {save_as_key, save_as_draw},
};

const DialogDef *dialog_def(AppDialog d)
{
    return d > DLG_NONE && d < DLG_COUNT && dialogs[d].key ? &dialogs[d] : NULL;
}
