/* draw: the explorer's view (see draw.h): the screen as a pure function of
 * a const App, drawn onto a Grid: a status line, the panes (graph, timeline,
 * policy, devices, history, inspector) in a layout that adapts to the size,
 * the message line, the open dialog (dialogs.c) and the tour's caption
 * (draw_tour.c) on top. The terminal backend copies the grid to the screen; the headless
 * runner dumps it as text. */
#include "draw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialogs.h"
#include "explain.h"
#include "widgets.h"
#include "why.h"

enum { MIN_W = 60, MIN_H = 16 };

static const char *const pane_title[PANE_COUNT] = {"Graph", "Timeline", "Policy", "Devices", "History",
                                                   "Inspector"};

/* A pane's frame and title; returns the inside. */
static GridRect frame(const App *a, Grid *g, GridRect r, AppPane p, const char *extra)
{
    grid_box(g, r, GS_BORDER);
    char t[160];
    snprintf(t, sizeof t, " %s%s%s ", pane_title[p], extra ? " " : "", extra ? extra : "");
    grid_text_fit(g, r.x + 2, r.y, t, r.w - 4, a->view.focus == p ? GS_CURSOR : GS_TITLE);
    return (GridRect){r.x + 1, r.y + 1, r.w - 2, r.h - 2};
}

/* ------------------------------------------------------------------ */
/* Graph                                                               */

/* The minimap's box in the graph pane's top-right corner when the canvas
 * is well larger than the pane (w = 0: none). */
static GridRect map_box(const DagLayout *L, int zoom, GridRect in)
{
    const DagGeom *G = dag_geom(L, zoom);
    GridRect none = {in.x + in.w, in.y, 0, 0};
    if ((G->width <= in.w + in.w / 4 && G->height <= in.h + in.h / 4) || in.w < 40 || in.h < 8)
        return none;
    int w, h;
    dag_map_fit(L, zoom, in.w / 5, in.h - 2, &w, &h);
    return (GridRect){in.x + in.w - w - 2, in.y, w + 2, h + 2};
}

static void draw_graph(const App *a, Grid *g, GridRect r, AppGeom *geom)
{
    const AppData *d = &a->data;
    const AppView *vw = &a->view;
    int n = d->pb.gr->n_groups, cur = episode_current(d->ep);
    int by_cluster = vw->by_cluster && a->cache.cluster;
    char extra[160], clusters[48] = "";
    if (by_cluster)
        snprintf(clusters, sizeof clusters, ", %d learned clusters", a->cache.n_clusters);
    snprintf(extra, sizeof extra, "%d groups%s%s%s%s", n, clusters, vw->fold ? ", folded (<: backward)" : "",
             vw->zoom == DAG_COMPACT ? ", compact" : "",
             !vw->show_sets        ? ""
             : app_placeto_insides(a)      ? ", sets"
             : a->policy.kind->actor->set_why ? ", learned cluster"
                                     : ", attention");
    GridRect in = frame(a, g, r, PANE_GRAPH, extra);
    if (in.w <= 0 || in.h <= 0)
        return;
    uint8_t *style = xnew_array((size_t)n, 1), *crit = xnew_array((size_t)n, 1);
    if (!app_placeto_insides(a)) { /* groups the actor has not reached are dimmed (not in their clusters' colours);
                              'a': its attention, or the whole set its why marks */
        for (int j = 0; j < n && !by_cluster; j++)
            if (d->ep->visits[j] == 0)
                style[j] = GS_DIM;
        for (int j = 0; j < n && vw->show_sets && cur >= 0 && a->policy.kind->actor->set_why; j++)
            if (a->cache.attention[j] > 0)
                style[j] = GS_EDGE_HI;
        for (int k = 0; k < APP_ATTENTION_ROWS && vw->show_sets && cur >= 0; k++)
            if (a->cache.attn_top[k] >= 0)
                style[a->cache.attn_top[k]] = GS_EDGE_HI;
    } else if (vw->show_sets && cur >= 0)
        for (int j = 0; j < n; j++)
            style[j] = policy_graph_is_anc(d->pg, cur, j)    ? GS_ANCESTOR
                       : policy_graph_is_desc(d->pg, cur, j) ? GS_DESCENDANT
                       : j != cur                           ? GS_PARALLEL
                                                            : 0;
    why_graph_style(a, style); /* the why panel's sets or message-passing round, over the rest */
    for (int i = 0; i < d->pb.g->n_nodes; i++)
        if (a->cache.tl->op_crit[i])
            crit[d->pb.gr->op_group[i]] = 1;
    if (vw->selected >= 0)
        style[vw->selected] = GS_SELECTED;
    if (cur >= 0)
        style[cur] = GS_CURRENT;
    GridRect mr = map_box(d->dag, vw->zoom, in);
    int x = vw->x, y = vw->y, cw = dag_geom(d->dag, vw->zoom)->width;
    int room = mr.w > 0 && cw <= mr.x - in.x - 1 ? mr.x - in.x - 1 : in.w; /* beside the map when it fits */
    if (vw->follow || a->dialog.kind == DLG_SEARCH) { /* the selection in the middle, a narrow graph centred */
        dag_center_on(d->dag, vw->zoom, vw->selected, room, in.h, &x, &y);
        if (cw < room)
            x = -(room - cw) / 2;
    }
    const char *const *labels = (const char *const *)(d->dag == d->dag_fold ? d->box_labels[1] : d->box_labels[0]);
    DagView v = {vw->zoom, x, y, in, labels ? labels : (const char *const *)d->labels, d->ep->group_device, style,
                 crit, d->pb.c->n_devices <= 10, by_cluster ? a->cache.cluster : NULL};
    dag_render(d->dag, &v, g);
    if (mr.w > 0 && cur >= 0) { /* the map never covers the current node: another corner */
        GridRect nr = dag_node_rect(d->dag, vw->zoom, cur);
        nr.x += in.x - x;
        nr.y += in.y - y;
        GridRect corner[4] = {mr, {mr.x, in.y + in.h - mr.h, mr.w, mr.h}, {in.x, in.y, mr.w, mr.h},
                              {in.x, in.y + in.h - mr.h, mr.w, mr.h}};
        for (int k = 0; k < 4; k++) {
            GridRect c = corner[k];
            int covers = nr.x < c.x + c.w && c.x < nr.x + nr.w && nr.y < c.y + c.h && c.y < nr.y + nr.h;
            if (!covers) {
                mr = c;
                break;
            }
        }
    }
    if (mr.w > 0) { /* where the view is, and every group's device */
        grid_fill(g, mr, ' ', GS_NONE); /* the box's lines must not merge with the edges under it */
        grid_box(g, mr, GS_BORDER);
        grid_text_fit(g, mr.x + 1, mr.y, "map", mr.w - 2, GS_TITLE);
        dag_render_map(d->dag, &v, (GridRect){mr.x + 1, mr.y + 1, mr.w - 2, mr.h - 2}, g);
    }
    if (geom) {
        geom->have_dag = 1;
        geom->dag = v;
        if (mr.w > 0) {
            geom->map = (GridRect){mr.x + 1, mr.y + 1, mr.w - 2, mr.h - 2};
            geom->canvas_w = cw;
            geom->canvas_h = dag_geom(d->dag, vw->zoom)->height;
        }
        geom->dag.style = NULL; /* the arrays die with this frame */
        geom->dag.critical = NULL;
    }
    free(style);
    free(crit);
}

/* ------------------------------------------------------------------ */
/* Timeline                                                            */

static void draw_timeline(const App *a, Grid *g, GridRect r, AppGeom *geom)
{
    const Episode *ep = a->data.ep;
    char extra[96], t1[32];
    snprintf(extra, sizeof extra, "runtime %s%s", util_fmt_time(t1, ep->runtime_us), ep->oom ? ", OUT OF MEMORY" : "");
    GridRect in = frame(a, g, r, PANE_TIMELINE, extra);
    if (in.w <= 0 || in.h <= 0)
        return;
    TlView v = tl_view_default(a->cache.tl, in);
    if (a->view.tl_t1 > a->view.tl_t0) {
        v.t0 = a->view.tl_t0;
        v.t1 = a->view.tl_t1;
    }
    v.op_group = a->data.pb.gr->op_group;
    v.selected_group = a->view.selected;
    v.by_group = a->view.tl_by_group;
    v.group_names = (const char *const *)a->data.labels;
    tl_render(a->cache.tl, &v, g);
    int lanes = in.h > TL_AXIS_ROWS ? (in.h - TL_AXIS_ROWS + TL_LANE_ROWS - 1) / TL_LANE_ROWS : 0;
    int hidden = a->data.pb.c->n_devices - lanes;
    if (hidden > 0) { /* lanes cut at the bottom: said on the frame */
        char hint[96];
        snprintf(hint, sizeof hint, " +%d lane%s below: %s ", hidden, hidden == 1 ? "" : "s",
                 a->view.maximized == PANE_TIMELINE ? "a taller terminal shows them"
                 : a->view.focus == PANE_TIMELINE   ? "z maximises"
                                                    : "Tab here, z maximises");
        int w = grid_text_width(hint);
        if (w > r.w - 4)
            w = r.w - 4;
        grid_text_fit(g, r.x + r.w - 2 - w, r.y + r.h - 1, hint, w, GS_KEY);
    }
    if (geom) {
        geom->have_tl = 1;
        geom->tl = v;
    }
}

/* ------------------------------------------------------------------ */
/* Policy                                                              */

static void draw_policy(const App *a, Grid *g, GridRect r)
{
    const Episode *ep = a->data.ep;
    const AppCache *c = &a->cache;
    int cur = c->node, nd = a->data.pb.c->n_devices;
    int flat = why_attention_flat(a); /* uniform attention is said to be (in the title), its list dimmed */
    char title[64];
    snprintf(title, sizeof title, "%s%s", a->run.greedy ? "greedy" : "sampling",
             flat == 1 ? ", uniform attention" : flat ? ", near-uniform attention" : "");
    GridRect in = frame(a, g, r, PANE_POLICY, title);
    if (in.w <= 0 || in.h <= 0)
        return;
    char buf[512], b1[32], b2[32];
    int y = in.y;
    if (cur < 0) {
        grid_text_fit(g, in.x, y++, "episode complete: e starts a new one", in.w, GS_DIM);
    } else {
        snprintf(buf, sizeof buf, "step %d/%d: %s", ep->cursor + 1, ep->n_order, a->data.pb.gr->names[cur]);
        grid_text_fit(g, in.x, y++, buf, in.w, GS_CURRENT);
        int best = 0;
        for (int d = 1; d < nd; d++)
            if (c->probs[d] > c->probs[best])
                best = d;
        for (int d = 0; d < nd && y < in.y + in.h - 1; d++, y++) {
            char lab[16], txt[16];
            snprintf(lab, sizeof lab, "%c%d", d == ep->group_device[cur] ? '*' : ' ', d);
            snprintf(txt, sizeof txt, "%5.1f%% %s", 100.0 * c->probs[d], d == best ? "<" : " ");
            widget_bar(g, in.x, y, in.w, c->probs[d], 1.0, lab, txt);
        }
    }
    if (!app_placeto_insides(a) && cur >= 0 && y < in.y + in.h - 1) { /* why: where the actor looked */
        grid_text_fit(g, in.x, y++, a->policy.why, in.w, flat ? GS_WARN : GS_LABEL);
        for (int k = 0; k < APP_ATTENTION_ROWS && c->attn_top[k] >= 0 && y < in.y + in.h - 1; k++, y++) {
            int j = c->attn_top[k];
            snprintf(buf, sizeof buf, "%5.1f%% %c %s", 100.0 * c->attention[j],
                     j == cur ? '>' : ep->visits[j] ? '+' : '.', a->data.pb.gr->names[j]);
            grid_text_fit(g, in.x, y, buf, in.w, j == cur ? GS_CURRENT : flat ? GS_DIM : GS_NONE);
        }
    }
    if (ep->n_hist > 0 && y < in.y + in.h) {
        const EpisodeStep *s = &ep->hist[ep->n_hist - 1];
        char what[320];
        app_entry_text(a, s, 1, what, sizeof what);
        char rw[48];
        snprintf(buf, sizeof buf, "last: %s, reward %s, %s -> %s", what, app_fmt_reward(a->data.ep, s->reward, rw),
                 util_fmt_time(b1, ep->n_hist >= 2 ? ep->hist[ep->n_hist - 2].runtime_us : ep->init_runtime_us),
                 util_fmt_time(b2, s->runtime_us));
        grid_text_fit(g, in.x, y++, buf, in.w, s->reward > 0 ? GS_GOOD : s->reward < 0 ? GS_WARN : GS_DIM);
    }
}

/* ------------------------------------------------------------------ */
/* Devices                                                             */

static void draw_devices(const App *a, Grid *g, GridRect r)
{
    const AppData *dt = &a->data;
    const SimResult *res = dt->ep->result;
    GridRect in = frame(a, g, r, PANE_DEVICES, "busy%, memory");
    if (in.w <= 0 || in.h <= 0)
        return;
    int nd = dt->pb.c->n_devices;
    int *count = xnew_array((size_t)nd, sizeof *count);
    for (int k = 0; k < dt->pb.gr->n_groups; k++)
        count[dt->ep->group_device[k]]++;
    for (int d = 0; d < nd && d < in.h; d++) {
        char lab[40], txt[64], b1[32], b2[32];
        double util = res->makespan_us > 0 ? 100.0 * res->busy_us[d] / res->makespan_us : 0.0;
        double cap = (double)dt->pb.c->devices[d].memory_bytes;
        if (in.w >= 40) {
            snprintf(lab, sizeof lab, "%d %3d grp %3.0f%% busy", d, count[d], util);
            snprintf(txt, sizeof txt, "%s/%s%s", util_fmt_bytes(b1, (double)res->peak_memory_bytes[d]),
                     util_fmt_bytes(b2, cap), res->oom[d] ? " OOM" : "");
        } else { /* narrow: utilisation and peak memory only */
            snprintf(lab, sizeof lab, "%d %3.0f%%", d, util);
            snprintf(txt, sizeof txt, "%s%s", util_fmt_bytes(b1, (double)res->peak_memory_bytes[d]),
                     res->oom[d] ? " OOM" : "");
        }
        widget_bar(g, in.x, in.y + d, in.w, (double)res->peak_memory_bytes[d], cap, lab, txt);
    }
    free(count);
}

/* ------------------------------------------------------------------ */
/* History                                                             */

static void draw_history(const App *a, Grid *g, GridRect r)
{
    const Episode *ep = a->data.ep;
    int total = ep->n_hist + ep->n_redo;
    char extra[64];
    snprintf(extra, sizeof extra, "%d steps%s", ep->n_hist, ep->n_redo ? ", redo available" : "");
    GridRect in = frame(a, g, r, PANE_HISTORY, extra);
    if (in.w <= 0 || in.h <= 0)
        return;
    int y = in.y;
    /* runtime after every entry, the start first */
    double *rt = xmalloc_array((size_t)ep->n_hist + 2, sizeof *rt);
    rt[0] = ep->init_runtime_us;
    for (int k = 0; k < ep->n_hist; k++)
        rt[k + 1] = ep->hist[k].runtime_us;
    /* the scale spans at least 1% of the largest runtime, so that changes
       smaller than that stay nearly flat; the range is printed beside it */
    double mn = INFINITY, mx = -INFINITY;
    for (int k = 0; k <= ep->n_hist; k++) {
        mn = rt[k] < mn ? rt[k] : mn;
        mx = rt[k] > mx ? rt[k] : mx;
    }
    double lo = mn, hi = mx;
    if (hi - lo < 0.01 * mx) { /* a window of 1% around the middle: a flat series sits half way */
        double mid = 0.5 * (lo + hi);
        lo = mid - 0.005 * mx;
        hi = mid + 0.005 * mx;
    }
    char range[32];
    snprintf(range, sizeof range, " range %.2f%%", mx > 0 ? 100.0 * (mx - mn) / mx : 0.0);
    int rw = grid_text_width(range);
    if (in.w - 8 - rw < 4) /* no room for the range */
        rw = 0;
    grid_text(g, in.x, y, "runtime", GS_LABEL);
    int used = widget_sparkline(g, in.x + 8, y, in.w - 8 - rw, rt, ep->n_hist + 1, lo, hi, GS_SPARK);
    if (rw)
        grid_text(g, in.x + 8 + used, y, range, GS_DIM);
    y++;
    free(rt);
    const AppTrain *t = &a->train;
    if (t->n_shown > 0 && y < in.y + in.h) {
        char lab[96], b1[32];
        snprintf(lab, sizeof lab, "training %lld/%lld, best %s%s", (long long)t->shown_ran, (long long)t->target,
                 util_fmt_time(b1, t->shown_curve[t->n_shown - 1]), t->running ? "" : " (done)");
        grid_text_fit(g, in.x, y++, lab, in.w, GS_LABEL);
        if (y < in.y + in.h)
            widget_sparkline(g, in.x, y++, in.w, t->shown_ret, t->n_shown, 0, 0, GS_SPARK);
    } else if (t->running && y < in.y + in.h) {
        grid_text_fit(g, in.x, y++, "training: first episode...", in.w, GS_DIM);
    }
    int rows = in.y + in.h - y;
    if (rows <= 0)
        return;
    for (int k = total - rows > 0 ? total - rows : 0; k < total && y < in.y + in.h; k++, y++) { /* the end */
        const EpisodeStep *s = &ep->hist[k];
        char line[400], what[320], b1[32];
        app_entry_text(a, s, 1, what, sizeof what);
        snprintf(line, sizeof line, "%4d %9s %s", k + 1, util_fmt_time(b1, s->runtime_us), what);
        int style = k >= ep->n_hist ? GS_DIM : s->actor == EPISODE_ACTOR_USER ? GS_SELECTED : GS_NONE;
        grid_text_fit(g, in.x, y, line, in.w, style);
    }
}

/* ------------------------------------------------------------------ */
/* Inspector                                                           */

static void draw_inspector(const App *a, Grid *g, GridRect r)
{
    const AppData *dt = &a->data;
    int k = a->view.selected;
    const Grouping *gr = dt->pb.gr;
    GridRect in = frame(a, g, r, PANE_INSPECTOR, gr->names[k]);
    if (in.w <= 0 || in.h <= 0)
        return;
    char line[512], b1[32], b2[32], b3[32];
    int y = in.y, end = in.y + in.h;
    int d = dt->ep->group_device[k], n_ops = gr->member_off[k + 1] - gr->member_off[k];
    double start = dt->ep->group_start[k];
    snprintf(line, sizeof line, "group %d on %s: %d ops, %s, %s out, starts %s", k, dt->pb.c->devices[d].name, n_ops,
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
        const GraphNode *nd = &dt->pb.g->nodes[op];
        snprintf(line, sizeof line, "%-24s %-14s %10s %10s", nd->name, nd->op, util_fmt_time(b1, nd->cost_us),
                 util_fmt_bytes(b2, (double)graph_node_bytes(dt->pb.g, op)));
        grid_text_fit(g, in.x, y, line, in.w, gr->held[op] ? GS_DIM : GS_NONE);
    }
}

/* ------------------------------------------------------------------ */
/* Status and message lines                                            */

/* The status line's text. */
static void status_text(const App *a, char *line, size_t n)
{
    const AppData *d = &a->data;
    const Episode *ep = d->ep;
    char b1[32], b2[32], b3[32], who[128];
    const char *path = a->policy.path, *base = path ? strrchr(path, '/') : NULL;
    base = base ? base + 1 : path;
    if (!path)
        snprintf(who, sizeof who, "untrained policy");
    else /* the file named: which trained policy is stepping */
        snprintf(who, sizeof who, "%s%spolicy %.80s", !app_placeto_insides(a) ? a->policy.kind->name : "", !app_placeto_insides(a) ? " " : "", base);
    /* the best is the best score's placement: slower than now when now is out of memory, and then says so */
    snprintf(line, n, " placeto%s  %s on %s | %s | episode %llu step %d/%d | runtime %s%s | best %s%s | bound %s%s%s%s",
             a->replay.active ? " replay" : a->tour.active ? " tour" : "", d->pb.g->name, d->pb.c->name, who,
             (unsigned long long)ep->seed, ep->cursor, ep->n_order, util_fmt_time(b1, ep->runtime_us),
             ep->result && ep->result->any_oom ? " OOM" : "", util_fmt_time(b2, ep->best_runtime_us),
             ep->best_runtime_us > ep->runtime_us + 0.5 ? " (by score)" : "", util_fmt_time(b3, d->lower_bound_us),
             a->run.running ? " | running" : "",
             a->train.running ? " | training" : "", a->run.dirty ? " | unsaved" : "");
}

/* Rows the status line (at most 2) and the message (at most 3) take at the
 * grid's width: what does not fit on one row wraps. */
/* The status line for width cells: its " | " fields kept whole, a field
 * that does not fit going to the next row. */
static void status_wrapped(const App *a, int width, char *out, size_t n)
{
    char line[512];
    status_text(a, line, sizeof line);
    size_t o = 0;
    int used = 0;
    for (char *p = line; *p && o + 1 < n;) {
        char *sep = strstr(p, " | ");
        size_t len = sep ? (size_t)(sep - p) : strlen(p);
        char field[512];
        snprintf(field, sizeof field, "%.*s", (int)len, p);
        int w = grid_text_width(field);
        if (p != line) { /* the separator, or a new row */
            if (used + 3 + w > width) {
                o += (size_t)snprintf(out + o, n - o, "\n");
                used = 0;
            } else {
                o += (size_t)snprintf(out + o, n - o, " | ");
                used += 3;
            }
        }
        if (o < n)
            o += (size_t)snprintf(out + o, n - o, "%s", field);
        used += w;
        p += len + (sep ? 3 : 0);
        if (o >= n)
            o = n - 1;
    }
    out[o] = '\0';
}

static int status_rows(const App *a, const Grid *g)
{
    char line[600];
    status_wrapped(a, g->w, line, sizeof line);
    int n = widget_wrap(line, g->w, NULL, NULL, 0);
    return n > 2 ? 2 : n;
}

static int message_rows(const App *a, const Grid *g)
{
    int n = a->msg.text[0] ? widget_wrap(a->msg.text, g->w, NULL, NULL, 0) : 1;
    return n > 3 ? 3 : n;
}

static void draw_status(const App *a, Grid *g)
{
    char line[600];
    status_wrapped(a, g->w, line, sizeof line);
    int rows = status_rows(a, g);
    grid_fill(g, (GridRect){0, 0, g->w, rows}, ' ', GS_STATUS);
    widget_text_wrapped(g, (GridRect){0, 0, g->w, rows}, line, 0, GS_STATUS);
}

static void draw_message(const App *a, Grid *g)
{
    int rows = message_rows(a, g);
    GridRect r = {0, g->h - rows, g->w, rows};
    grid_fill(g, r, ' ', GS_NONE);
    widget_text_wrapped(g, r, a->msg.text, 0, a->msg.style);
}

/* A dialog drawn in rect r of g only (it centres itself in r). */
static int draw_dialog_in(const App *a, Grid *g, const DialogDef *dlg, GridRect r)
{
    enum { UNTOUCHED = 0x10FFFE };
    Grid *t = grid_new(r.w, r.h);
    grid_fill(t, (GridRect){0, 0, r.w, r.h}, UNTOUCHED, GS_NONE);
    int scroll = dlg->draw(a, t);
    for (int y = 0; y < r.h; y++)
        for (int x = 0; x < r.w; x++) {
            const GridCell *c = grid_at(t, x, y);
            if (c && c->ch != UNTOUCHED && r.x + x < g->w && r.y + y < g->h)
                g->cells[(size_t)(r.y + y) * (size_t)g->w + (size_t)(r.x + x)] = *c;
        }
    grid_free(t);
    return scroll;
}

/* ------------------------------------------------------------------ */
/* Layout                                                              */

static void draw_pane(const App *a, Grid *g, AppPane p, GridRect r, AppGeom *geom)
{
    if (r.w < 4 || r.h < 3)
        return;
    switch (p) {
    case PANE_GRAPH: draw_graph(a, g, r, geom); break;
    case PANE_TIMELINE: draw_timeline(a, g, r, geom); break;
    case PANE_POLICY: draw_policy(a, g, r); break;
    case PANE_DEVICES: draw_devices(a, g, r); break;
    case PANE_HISTORY: draw_history(a, g, r); break;
    case PANE_INSPECTOR: draw_inspector(a, g, r); break;
    default: break;
    }
}

void app_draw_pane(const App *a, Grid *g, AppPane p, GridRect r, AppGeom *geom)
{
    draw_pane(a, g, p, r, geom);
}

static void draw_too_small(Grid *g)
{
    char line[128];
    int y = g->h / 2 - 2 > 0 ? g->h / 2 - 2 : 0;
    grid_text_fit(g, 0, y++, "too small:", g->w, GS_WARN);
    snprintf(line, sizeof line, "%dx%d", g->w, g->h);
    grid_text_fit(g, 0, y++, line, g->w, GS_WARN);
    snprintf(line, sizeof line, "needs %dx%d", MIN_W, MIN_H);
    grid_text_fit(g, 0, y++, line, g->w, GS_NONE);
    grid_text_fit(g, 0, y, "q quits", g->w, GS_DIM);
}

/* Every pane: graph over timeline on the left; policy, devices, history and
 * inspector down the right column, as room allows. */
static void draw_panes(const App *a, Grid *g, GridRect area, AppGeom *geom)
{
    int nd = a->data.pb.c->n_devices;
    int right = g->w >= 120 ? g->w * 36 / 100 : g->w >= 100 ? 40 : 30;
    GridRect left = {0, area.y, area.w - right, area.h};
    int tl_h = 2 + TL_AXIS_ROWS + TL_LANE_ROWS * nd;
    if (tl_h > left.h * 45 / 100)
        tl_h = left.h * 45 / 100;
    if (tl_h < 6)
        tl_h = 6;
    draw_pane(a, g, PANE_GRAPH, (GridRect){left.x, left.y, left.w, left.h - tl_h}, geom);
    draw_pane(a, g, PANE_TIMELINE, (GridRect){left.x, left.y + left.h - tl_h, left.w, tl_h}, geom);
    /* the right column: a focused pane that does not fit takes the last slot */
    int x = left.w, y = area.y, h_left = area.h;
    int why = !app_placeto_insides(a) ? 1 + APP_ATTENTION_ROWS : 0; /* the actor's attention list */
    int want[4] = {(nd + 4 > 12 ? 12 : nd + 4) + why, nd + 2 > 10 ? 10 : nd + 2, 7, 8};
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
    if (a->tour.active && focus_slot >= 0) { /* the tour's subject first, at the size it wants */
        AppPane f = order[focus_slot];
        int wf = want[focus_slot];
        for (int k = focus_slot; k > 0; k--) {
            order[k] = order[k - 1];
            want[k] = want[k - 1];
        }
        order[0] = f;
        want[0] = wf;
        focus_slot = 0;
        shown = 0;
        h_left = area.h;
        for (int k = 0; k < 4; k++)
            hs[k] = 0;
        for (int k = 0; k < 4 && h_left >= want[k]; k++) {
            hs[k] = want[k];
            h_left -= want[k];
            shown++;
        }
        if (shown > 0)
            hs[shown - 1] += h_left;
        else { /* the subject takes the column, however short */
            hs[0] = area.h;
            shown = 1;
        }
    }
    if (focus_slot >= shown && shown > 0)
        order[shown - 1] = a->view.focus;
    for (int k = 0; k < shown; k++) {
        draw_pane(a, g, order[k], (GridRect){x, y, right, hs[k]}, geom);
        y += hs[k];
    }
    /* the panes without room: how to see them, on the column's bottom line */
    char hint[96] = " Tab:";
    int n_hidden = 0;
    for (int p = PANE_POLICY; p < PANE_COUNT; p++) {
        int drawn = 0;
        for (int k = 0; k < shown; k++)
            drawn |= order[k] == (AppPane)p;
        if (!drawn) {
            size_t len = strlen(hint);
            snprintf(hint + len, sizeof hint - len, "%s %s", n_hidden ? "," : "", pane_title[p]);
            n_hidden++;
        }
    }
    if (n_hidden > 0 && shown > 0) {
        strncat(hint, " ", sizeof hint - strlen(hint) - 1);
        int w = grid_text_width(hint);
        if (w > right - 4)
            w = right - 4;
        grid_text_fit(g, x + right - 2 - w, y - 1, hint, w, GS_KEY);
    }
}

void app_draw(const App *a, Grid *g, AppGeom *geom)
{
    grid_clear(g);
    if (geom)
        memset(geom, 0, sizeof *geom);
    if (g->w < MIN_W || g->h < MIN_H) {
        draw_too_small(g);
        return;
    }
    draw_status(a, g);
    int top = status_rows(a, g);
    GridRect area = {0, top, g->w, g->h - top - message_rows(a, g)}, rest;
    GridRect band = draw_tour_band(a, area, &rest); /* the tour's caption, beside the stage's subject */
    if (a->view.maximized >= 0)
        draw_pane(a, g, (AppPane)a->view.maximized, rest, geom);
    else if (a->view.present)
        present_draw(a, g, rest, geom);
    else
        draw_panes(a, g, rest, geom);
    draw_message(a, g);
    const DialogDef *dlg = dialog_def(a->dialog.kind);
    if (dlg) {
        int in_rest = band.h > 0 && !a->tour.expand && a->dialog.kind != DLG_SEARCH && a->dialog.kind != DLG_TRAIN;
        GridRect in = rest;
        if (a->dialog.kind == DLG_RACE) { /* the race leaves the screen's first and last rows (the status and
                                             message lines) untouched: beside the caption it fills the rest */
            in.y--;
            in.h += 2;
        }
        int scroll = in_rest ? draw_dialog_in(a, g, dlg, in) : dlg->draw(a, g);
        if (geom)
            geom->dialog_scroll = scroll;
    }
    if (band.h > 0)
        draw_tour_caption(a, g, band);
}
