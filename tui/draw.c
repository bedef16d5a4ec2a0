/* draw: the explorer's screen as a pure function of the App, drawn onto a
 * Grid: a status line, the panes (graph, timeline, policy, devices, history,
 * inspector) in a layout that adapts to the size, the message line, and the
 * dialogs on top. The terminal backend copies the grid to the screen; the
 * headless runner dumps it as text. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "ctl.h"
#include "widgets.h"

enum { MIN_W = 60, MIN_H = 16 };

static const char *const pane_title[PANE_COUNT] = {"Graph", "Timeline", "Policy", "Devices", "History",
                                                   "Inspector"};

/* A pane's frame and title; returns the inside. */
static GridRect frame(App *a, Grid *g, GridRect r, AppPane p, const char *extra)
{
    grid_box(g, r, GS_BORDER);
    char t[160];
    snprintf(t, sizeof t, " %s%s%s ", pane_title[p], extra ? " " : "", extra ? extra : "");
    grid_text_fit(g, r.x + 2, r.y, t, r.w - 4, a->view.focus == p ? GS_CURSOR : GS_TITLE);
    return (GridRect){r.x + 1, r.y + 1, r.w - 2, r.h - 2};
}

/* ------------------------------------------------------------------ */
/* Graph                                                               */

static void draw_graph(App *a, Grid *g, GridRect r)
{
    const Episode *ep = a->data.ep;
    int n = a->data.gr->n_groups, cur = episode_current(ep);
    char extra[96];
    snprintf(extra, sizeof extra, "%d groups%s%s", n, a->view.zoom == DAG_COMPACT ? ", compact" : "",
             a->view.show_sets ? ", sets" : "");
    GridRect in = frame(a, g, r, PANE_GRAPH, extra);
    if (in.w <= 0 || in.h <= 0)
        return;
    uint8_t *style = xcalloc((size_t)n + 1, 1), *crit = xcalloc((size_t)n + 1, 1);
    if (a->view.show_sets && cur >= 0)
        for (int j = 0; j < n; j++)
            style[j] = policy_graph_is_anc(a->data.pg, cur, j)    ? GS_ANCESTOR
                       : policy_graph_is_desc(a->data.pg, cur, j) ? GS_DESCENDANT
                       : j != cur                           ? GS_PARALLEL
                                                            : 0;
    for (int i = 0; i < a->data.g->n_nodes; i++)
        if (a->cache.tl->op_crit[i])
            crit[a->data.gr->op_group[i]] = 1;
    if (a->view.selected >= 0)
        style[a->view.selected] = GS_SELECTED;
    if (cur >= 0)
        style[cur] = GS_CURRENT;
    if (a->view.follow || a->dialog.kind == DLG_SEARCH)
        dag_center_on(a->data.dag, a->view.zoom, a->view.selected, in.w, in.h, &a->view.x, &a->view.y);
    DagView v = {a->view.zoom, a->view.x, a->view.y, in, (const char *const *)a->data.labels, ep->group_device, style, crit,
                 a->data.c->n_devices <= 10};
    dag_render(a->data.dag, &v, g);
    a->frame.graph_rect = in;
    a->frame.dag = v;
    a->frame.dag.style = NULL; /* the arrays die with this frame */
    a->frame.dag.critical = NULL;
    a->frame.have_dag = 1;
    free(style);
    free(crit);
}

/* ------------------------------------------------------------------ */
/* Timeline                                                            */

static void draw_timeline(App *a, Grid *g, GridRect r)
{
    char extra[96], t1[32];
    snprintf(extra, sizeof extra, "runtime %s%s", util_fmt_time(t1, a->data.ep->runtime_us),
             a->data.ep->oom ? ", OUT OF MEMORY" : "");
    GridRect in = frame(a, g, r, PANE_TIMELINE, extra);
    if (in.w <= 0 || in.h <= 0)
        return;
    TlView v = tl_view_default(a->cache.tl, in);
    if (a->view.tl_t1 > a->view.tl_t0) {
        v.t0 = a->view.tl_t0;
        v.t1 = a->view.tl_t1;
    }
    v.op_group = a->data.gr->op_group;
    v.selected_group = a->view.selected;
    v.by_group = a->view.tl_by_group;
    v.group_names = (const char *const *)a->data.labels;
    tl_render(a->cache.tl, &v, g);
    a->frame.timeline_rect = in;
    a->frame.tl = v;
    a->frame.have_tl = 1;
}

/* ------------------------------------------------------------------ */
/* Policy                                                              */

static void update_probs(App *a)
{
    Episode *ep = a->data.ep;
    long key = ((long)ep->cursor << 32) ^ ((long)ep->n_hist << 12) ^ ep->n_redo ^ (long)ep->seed * 7919;
    int cur = episode_current(ep);
    if (cur < 0 || key == a->cache.probs_key)
        return;
    episode_features(ep, cur, ep->feats);
    policy_forward(a->policy.pol, a->data.pg, a->policy.work, ep->feats, cur, NULL, a->cache.probs);
    a->cache.probs_key = key;
}

static void draw_policy(App *a, Grid *g, GridRect r)
{
    Episode *ep = a->data.ep;
    int cur = episode_current(ep), nd = a->data.c->n_devices;
    GridRect in = frame(a, g, r, PANE_POLICY, a->run.greedy ? "greedy" : "sampling");
    if (in.w <= 0 || in.h <= 0)
        return;
    char buf[256], b1[32], b2[32];
    int y = in.y;
    if (cur < 0) {
        grid_text_fit(g, in.x, y++, "episode complete: n for a new one", in.w, GS_DIM);
    } else {
        update_probs(a);
        snprintf(buf, sizeof buf, "step %d/%d: %s", ep->cursor + 1, ep->n_order, a->data.gr->names[cur]);
        grid_text_fit(g, in.x, y++, buf, in.w, GS_CURRENT);
        int best = 0;
        for (int d = 1; d < nd; d++)
            if (a->cache.probs[d] > a->cache.probs[best])
                best = d;
        for (int d = 0; d < nd && y < in.y + in.h - 1; d++, y++) {
            char lab[16], txt[16];
            snprintf(lab, sizeof lab, "%c%d", d == ep->group_device[cur] ? '*' : ' ', d);
            snprintf(txt, sizeof txt, "%5.1f%% %s", 100.0 * a->cache.probs[d], d == best ? "<" : " ");
            widget_bar(g, in.x, y, in.w, a->cache.probs[d], 1.0, lab, txt);
        }
    }
    if (ep->n_hist > 0 && y < in.y + in.h) {
        const EpisodeStep *s = &ep->hist[ep->n_hist - 1];
        snprintf(buf, sizeof buf, "last: %s %s %d->%d, reward %+.4f s, %s -> %s",
                 s->actor == EPISODE_ACTOR_USER ? "you" : "policy", a->data.gr->names[s->group], s->old_device,
                 s->new_device, s->reward, util_fmt_time(b1, s->runtime_us + s->reward * 1e6),
                 util_fmt_time(b2, s->runtime_us));
        grid_text_fit(g, in.x, y++, buf, in.w, s->reward > 0 ? GS_GOOD : s->reward < 0 ? GS_WARN : GS_DIM);
    }
}

/* ------------------------------------------------------------------ */
/* Devices                                                             */

static void draw_devices(App *a, Grid *g, GridRect r)
{
    const SimResult *res = a->data.ep->result;
    GridRect in = frame(a, g, r, PANE_DEVICES, "memory");
    if (in.w <= 0 || in.h <= 0)
        return;
    int nd = a->data.c->n_devices;
    int *count = xcalloc((size_t)nd, sizeof *count);
    for (int k = 0; k < a->data.gr->n_groups; k++)
        count[a->data.ep->group_device[k]]++;
    for (int d = 0; d < nd && d < in.h; d++) {
        char lab[40], txt[64], b1[32], b2[32];
        double util = res->makespan_us > 0 ? 100.0 * res->busy_us[d] / res->makespan_us : 0.0;
        if (in.w >= 40) {
            snprintf(lab, sizeof lab, "%d %3d grp %3.0f%%", d, count[d], util);
            snprintf(txt, sizeof txt, "%s/%s%s", util_fmt_bytes(b1, (double)res->peak_memory_bytes[d]),
                     util_fmt_bytes(b2, (double)a->data.c->devices[d].memory_bytes), res->oom[d] ? " OOM" : "");
        } else { /* narrow: utilisation and peak memory only */
            snprintf(lab, sizeof lab, "%d %3.0f%%", d, util);
            snprintf(txt, sizeof txt, "%s%s", util_fmt_bytes(b1, (double)res->peak_memory_bytes[d]),
                     res->oom[d] ? " OOM" : "");
        }
        widget_bar(g, in.x, in.y + d, in.w, (double)res->peak_memory_bytes[d], (double)a->data.c->devices[d].memory_bytes,
                 lab, txt);
    }
    free(count);
}

/* ------------------------------------------------------------------ */
/* History                                                             */

static void draw_history(App *a, Grid *g, GridRect r)
{
    Episode *ep = a->data.ep;
    int total = ep->n_hist + ep->n_redo;
    char extra[64];
    snprintf(extra, sizeof extra, "%d steps%s", ep->n_hist, ep->n_redo ? ", redo available" : "");
    GridRect in = frame(a, g, r, PANE_HISTORY, extra);
    if (in.w <= 0 || in.h <= 0)
        return;
    int y = in.y;
    /* runtime after every entry, the start first */
    double *rt = xmalloc(((size_t)ep->n_hist + 2) * sizeof *rt);
    rt[0] = ep->init_runtime_us;
    for (int k = 0; k < ep->n_hist; k++)
        rt[k + 1] = ep->hist[k].runtime_us;
    grid_text(g, in.x, y, "runtime", GS_LABEL);
    widget_sparkline(g, in.x + 8, y++, in.w - 8, rt, ep->n_hist + 1, 0, 0, GS_SPARK);
    free(rt);
    AppTrain *t = &a->train;
    pthread_mutex_lock(&t->lock);
    if (t->n_curve > 0 && y < in.y + in.h) {
        char lab[96], b1[32];
        snprintf(lab, sizeof lab, "training %lld/%lld, best %s%s", (long long)t->ran, (long long)t->target,
                 util_fmt_time(b1, t->curve[t->n_curve - 1]), t->running ? "" : " (done)");
        grid_text_fit(g, in.x, y++, lab, in.w, GS_LABEL);
        if (y < in.y + in.h)
            widget_sparkline(g, in.x, y++, in.w, t->ret, t->n_curve, 0, 0, GS_SPARK);
    } else if (t->running && y < in.y + in.h) {
        grid_text_fit(g, in.x, y++, "training: first episode...", in.w, GS_DIM);
    }
    pthread_mutex_unlock(&t->lock);
    int rows = in.y + in.h - y;
    if (rows <= 0)
        return;
    int top = total - rows > 0 ? total - rows : 0; /* the end of the history */
    for (int k = top; k < total && y < in.y + in.h; k++, y++) {
        const EpisodeStep *s = &ep->hist[k];
        char line[256], b1[32];
        snprintf(line, sizeof line, "%4d %-6s %s %d->%d %s", k + 1, s->actor == EPISODE_ACTOR_USER ? "you" : "policy",
                 a->data.gr->names[s->group], s->old_device, s->new_device, util_fmt_time(b1, s->runtime_us));
        int style = k >= ep->n_hist ? GS_DIM : s->actor == EPISODE_ACTOR_USER ? GS_SELECTED : GS_NONE;
        grid_text_fit(g, in.x, y, line, in.w, style);
    }
}

/* ------------------------------------------------------------------ */
/* Inspector                                                           */

static void draw_inspector(App *a, Grid *g, GridRect r)
{
    int k = a->view.selected;
    const Grouping *gr = a->data.gr;
    GridRect in = frame(a, g, r, PANE_INSPECTOR, gr->names[k]);
    if (in.w <= 0 || in.h <= 0)
        return;
    char line[512], b1[32], b2[32], b3[32];
    int y = in.y, end = in.y + in.h;
    int d = a->data.ep->group_device[k], n_ops = gr->member_off[k + 1] - gr->member_off[k];
    double start = a->data.ep->group_start[k];
    snprintf(line, sizeof line, "group %d on %s: %d ops, %s, %s out, starts %s", k, a->data.c->devices[d].name, n_ops,
             util_fmt_time(b1, gr->cost_us[k]), util_fmt_bytes(b2, (double)gr->bytes[k]),
             util_fmt_time(b3, start));
    grid_text_fit(g, in.x, y++, line, in.w, GS_LABEL);
    if (y < end) {
        size_t len = (size_t)snprintf(line, sizeof line, "in:");
        for (int j = gr->pred_off[k]; j < gr->pred_off[k + 1] && len < sizeof line - 64; j++)
            len += (size_t)snprintf(line + len, sizeof line - len, " %s", gr->names[gr->pred[j]]);
        grid_text_fit(g, in.x, y++, line, in.w, GS_DIM);
    }
    if (y < end) {
        size_t len = (size_t)snprintf(line, sizeof line, "out:");
        for (int j = gr->succ_off[k]; j < gr->succ_off[k + 1] && len < sizeof line - 64; j++)
            len += (size_t)snprintf(line + len, sizeof line - len, " %s", gr->names[gr->succ[j]]);
        grid_text_fit(g, in.x, y++, line, in.w, GS_DIM);
    }
    for (int j = gr->member_off[k]; j < gr->member_off[k + 1] && y < end; j++, y++) {
        int op = gr->members[j];
        const GraphNode *nd = &a->data.g->nodes[op];
        snprintf(line, sizeof line, "%-24s %-14s %10s %10s", nd->name, nd->op, util_fmt_time(b1, nd->cost_us),
                 util_fmt_bytes(b2, (double)graph_node_bytes(a->data.g, op)));
        grid_text_fit(g, in.x, y, line, in.w, gr->held[op] ? GS_DIM : GS_NONE);
    }
}

/* ------------------------------------------------------------------ */
/* Status, message, dialogs                                            */

static void draw_status(App *a, Grid *g)
{
    const Episode *ep = a->data.ep;
    char line[512], b1[32], b2[32], b3[32];
    grid_fill(g, (GridRect){0, 0, g->w, 1}, ' ', GS_STATUS);
    snprintf(line, sizeof line, " placeto%s  %s on %s | episode %llu step %d/%d | runtime %s | best %s | bound %s | %s%s%s%s",
             a->replay.active ? " replay" : a->tour.active ? " tour" : "", a->data.g->name, a->data.c->name,
             (unsigned long long)ep->seed, ep->cursor, ep->n_order, util_fmt_time(b1, ep->runtime_us),
             util_fmt_time(b2, ep->best_runtime_us), util_fmt_time(b3, a->data.lower_bound_us),
             a->policy.path ? "trained policy" : "untrained policy", a->run.running ? " | running" : "",
             a->train.running ? " | training" : "", a->run.dirty ? " | unsaved" : "");
    grid_text_fit(g, 0, 0, line, g->w, GS_STATUS);
}

static void draw_message(App *a, Grid *g)
{
    int y = g->h - 1;
    if (a->dialog.kind == DLG_SEARCH || a->dialog.kind == DLG_TRAIN) {
        char line[256];
        snprintf(line, sizeof line, "%s%s_   (Enter: %s, Esc: cancel)",
                 a->dialog.kind == DLG_SEARCH ? "search group: " : "train episodes: ", a->dialog.input,
                 a->dialog.kind == DLG_SEARCH ? "select" : "start");
        grid_text_fit(g, 0, y, line, g->w, GS_KEY);
        return;
    }
    grid_text_fit(g, 0, y, a->msg.text, g->w, a->msg.style);
}

static GridRect centred(const Grid *g, int w, int h)
{
    if (w > g->w - 2)
        w = g->w - 2;
    if (h > g->h - 2)
        h = g->h - 2;
    return (GridRect){(g->w - w) / 2, (g->h - h) / 2, w, h};
}

static GridRect dialog_box(Grid *g, GridRect r, const char *title)
{
    grid_fill(g, r, ' ', GS_NONE);
    grid_box(g, r, GS_BORDER);
    char t[128];
    snprintf(t, sizeof t, " %s ", title);
    grid_text_fit(g, r.x + 2, r.y, t, r.w - 4, GS_TITLE);
    return (GridRect){r.x + 2, r.y + 1, r.w - 4, r.h - 2};
}

static void draw_help(App *a, Grid *g)
{
    static const char *const section[] = {"Episode", "View", "Files", "Other"};
    int n;
    const CtlKeyDoc *keys = ctl_keys(&n);
    GridRect in = dialog_box(g, centred(g, 76, n + 12), "Keys (any key closes, j/k scroll)");
    int row = 0, y = in.y;
    for (int s = 0; s < 4; s++) {
        if (row++ >= a->dialog.menu_pos && y < in.y + in.h)
            grid_text(g, in.x, y++, section[s], GS_TITLE);
        for (int k = 0; k < n; k++) {
            if (keys[k].section != s)
                continue;
            if (row++ < a->dialog.menu_pos || y >= in.y + in.h)
                continue;
            grid_text_fit(g, in.x + 2, y, keys[k].keys, 16, GS_KEY);
            grid_text_fit(g, in.x + 19, y++, keys[k].help, in.w - 19, GS_NONE);
        }
    }
    if (y < in.y + in.h)
        grid_text_fit(g, in.x, y + (y + 1 < in.y + in.h), "Mouse: click a group or an op to select it.",
                      in.w, GS_DIM);
}

static void draw_baselines(App *a, Grid *g)
{
    GridRect in = dialog_box(g, centred(g, 64, a->base.n + 6),
                             a->dialog.kind == DLG_START_FROM ? "Start an episode from (Enter)" :
                                                           "Baselines (Enter: start from it, Esc: close)");
    char line[160], b1[32], b2[32];
    snprintf(line, sizeof line, "%-14s %12s %9s %9s %5s", "method", "runtime", "vs bound", "vs single", "OOM");
    grid_text_fit(g, in.x, in.y, line, in.w, GS_LABEL);
    int y = in.y + 1;
    for (int k = 0; k < a->base.n && y < in.y + in.h - 1; k++, y++) {
        const AppBaseline *b = &a->base.rows[k];
        snprintf(line, sizeof line, "%-14s %12s %8.3fx %8.3fx %5s", b->method, util_fmt_time(b1, b->runtime_us),
                 a->data.lower_bound_us > 0 ? b->runtime_us / a->data.lower_bound_us : 0.0,
                 b->runtime_us > 0 ? a->data.single_us / b->runtime_us : 0.0, b->oom ? "yes" : "no");
        grid_text_fit(g, in.x, y, line, in.w, k == a->dialog.menu_pos ? GS_CURSOR : GS_NONE);
    }
    snprintf(line, sizeof line, "this episode: %s now, best %s", util_fmt_time(b1, a->data.ep->runtime_us),
             util_fmt_time(b2, a->data.ep->best_runtime_us));
    if (y < in.y + in.h)
        grid_text_fit(g, in.x, y, line, in.w, GS_DIM);
}

static void draw_quit(App *a, Grid *g)
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
/* Layout                                                              */

static void draw_pane(App *a, Grid *g, AppPane p, GridRect r)
{
    if (r.w < 4 || r.h < 3)
        return;
    switch (p) {
    case PANE_GRAPH: draw_graph(a, g, r); break;
    case PANE_TIMELINE: draw_timeline(a, g, r); break;
    case PANE_POLICY: draw_policy(a, g, r); break;
    case PANE_DEVICES: draw_devices(a, g, r); break;
    case PANE_HISTORY: draw_history(a, g, r); break;
    case PANE_INSPECTOR: draw_inspector(a, g, r); break;
    default: break;
    }
}

void app_draw(App *a, Grid *g)
{
    grid_clear(g);
    a->frame.have_dag = a->frame.have_tl = 0;
    if (g->w < MIN_W || g->h < MIN_H) {
        char line[128];
        int y = g->h / 2 - 2 > 0 ? g->h / 2 - 2 : 0;
        grid_text_fit(g, 0, y++, "too small:", g->w, GS_WARN);
        snprintf(line, sizeof line, "%dx%d", g->w, g->h);
        grid_text_fit(g, 0, y++, line, g->w, GS_WARN);
        snprintf(line, sizeof line, "needs %dx%d", MIN_W, MIN_H);
        grid_text_fit(g, 0, y++, line, g->w, GS_NONE);
        grid_text_fit(g, 0, y, "q quits", g->w, GS_DIM);
        return;
    }
    draw_status(a, g);
    GridRect area = {0, 1, g->w, g->h - 2};
    if (a->view.maximized >= 0) {
        draw_pane(a, g, (AppPane)a->view.maximized, area);
    } else {
        int nd = a->data.c->n_devices;
        int right = g->w >= 120 ? g->w * 36 / 100 : g->w >= 100 ? 40 : 30;
        GridRect left = {0, area.y, area.w - right, area.h};
        int tl_h = 2 + TL_AXIS_ROWS + TL_LANE_ROWS * nd;
        if (tl_h > left.h * 45 / 100)
            tl_h = left.h * 45 / 100;
        if (tl_h < 6)
            tl_h = 6;
        draw_pane(a, g, PANE_GRAPH, (GridRect){left.x, left.y, left.w, left.h - tl_h});
        draw_pane(a, g, PANE_TIMELINE, (GridRect){left.x, left.y + left.h - tl_h, left.w, tl_h});
        /* the right column: policy, devices, history, inspector, as room allows;
         * a focused pane that does not fit takes the last slot */
        int x = left.w, y = area.y, h_left = area.h;
        int want[4] = {nd + 4 > 12 ? 12 : nd + 4, nd + 2 > 10 ? 10 : nd + 2, 7, 8};
        AppPane order[4] = {PANE_POLICY, PANE_DEVICES, PANE_HISTORY, PANE_INSPECTOR};
        int shown = 0, hs[4] = {0, 0, 0, 0};
        for (int k = 0; k < 4 && h_left >= want[k]; k++) {
            hs[k] = want[k];
            h_left -= want[k];
            shown++;
        }
        if (shown > 0)
            hs[shown - 1] += h_left; /* the last shown pane takes the rest */
        int focus_slot = -1;
        for (int k = 0; k < 4; k++)
            if (order[k] == a->view.focus)
                focus_slot = k;
        if (focus_slot >= shown && shown > 0)
            order[shown - 1] = a->view.focus;
        for (int k = 0; k < shown; k++) {
            draw_pane(a, g, order[k], (GridRect){x, y, right, hs[k]});
            y += hs[k];
        }
    }
    draw_message(a, g);
    if (a->dialog.kind == DLG_HELP)
        draw_help(a, g);
    else if (a->dialog.kind == DLG_QUIT)
        draw_quit(a, g);
    else if (a->dialog.kind == DLG_BASELINES || a->dialog.kind == DLG_START_FROM)
        draw_baselines(a, g);
    demo_draw(a, g);
}
