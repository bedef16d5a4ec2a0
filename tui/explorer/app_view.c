/* app_view: the explorer's model, continued (see app.h): the view state —
 * the selection and following the current node, search, the graph's zoom
 * and viewport, the panes, the timeline's window — and the state of the
 * dialogs. Nothing here draws; draw.c renders this state. */
#include "app.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Selection                                                           */

void app_select(App *a, int group)
{
    if (group < 0 || group >= a->data.pb.gr->n_groups)
        return;
    a->view.selected = group;
    a->view.follow = 0;
}

/* Along the drawn graph: up to a parent, down to a child, left and right
 * within the layer, then on in topological order at the layer's ends. */
int app_move(App *a, AppMove m)
{
    int u = a->view.selected, v = -1;
    const Grouping *gr = a->data.pb.gr;
    const DagLayout *L = a->data.dag;
    if (m == APP_MOVE_PARENT) {
        if (gr->pred_off[u + 1] > gr->pred_off[u])
            v = gr->pred[gr->pred_off[u]];
    } else if (m == APP_MOVE_CHILD) {
        if (gr->succ_off[u + 1] > gr->succ_off[u])
            v = gr->succ[gr->succ_off[u]];
    } else {
        int dir = m == APP_MOVE_PREV ? -1 : 1, l = L->layer[u], k = 0, at = -1;
        int *row = xnew_array((size_t)gr->n_groups + 1, sizeof *row); /* as drawn: each box, then its folded cells */
        for (int i = L->layer_off[l]; i < L->layer_off[l + 1]; i++) {
            int w = L->order[i];
            if (w >= L->n)
                continue;
            row[k++] = w;
            for (int j = L->sat ? L->sat_off[w] : 0; L->sat && j < L->sat_off[w + 1]; j++)
                row[k++] = L->sat[j];
        }
        for (int i = 0; i < k; i++)
            at = row[i] == u ? i : at;
        if (at >= 0 && at + dir >= 0 && at + dir < k)
            v = row[at + dir];
        free(row);
        if (v < 0) /* the end of the layer: the next group in topological order */
            v = u + dir >= 0 && u + dir < gr->n_groups ? u + dir : -1;
    }
    if (v < 0)
        return -1;
    app_select(a, v);
    return 0;
}

void app_select_op(App *a, int op)
{
    if (op < 0 || op >= a->data.pb.g->n_nodes)
        return;
    app_select(a, a->data.pb.gr->op_group[op]);
    app_msg(a, GS_NONE, "op %s of group %s", a->data.pb.g->nodes[op].name, a->data.pb.gr->names[a->view.selected]);
}

void app_follow(App *a)
{
    a->view.follow = 1;
    int cur = episode_current(a->data.ep);
    if (cur >= 0)
        a->view.selected = cur;
    app_msg(a, GS_NONE, "following the current node");
}

/* Whether name contains text, ignoring case. */
static int contains(const char *name, const char *text)
{
    for (const char *p = name; *p; p++) {
        size_t i = 0;
        while (text[i] && p[i] && tolower((unsigned char)p[i]) == tolower((unsigned char)text[i]))
            i++;
        if (!text[i])
            return 1;
    }
    return 0;
}

/* The first match of text from the selected group + first in direction dir,
 * or -1. */
static int find_match(const App *a, const char *text, int first, int dir)
{
    int n = a->data.pb.gr->n_groups;
    for (int off = first; off < n + first; off++) {
        int k = ((a->view.selected + dir * off) % n + n) % n;
        if (contains(a->data.pb.gr->names[k], text))
            return k;
    }
    return -1;
}

void app_search(App *a, const char *text)
{
    if (!text[0])
        return;
    snprintf(a->view.search, sizeof a->view.search, "%s", text);
    int k = find_match(a, text, 0, 1);
    if (k >= 0) {
        app_select(a, k);
        app_msg(a, GS_NONE, "/%s: %s", text, a->data.pb.gr->names[k]);
    } else {
        app_msg(a, GS_WARN, "no match for \"%s\"", text);
    }
}

void app_search_next(App *a, int dir)
{
    const char *text = a->view.search;
    if (!text[0]) {
        app_msg(a, GS_DIM, "no search yet: / searches a group by name, then n and N find the next and previous");
        return;
    }
    int k = find_match(a, text, 1, dir > 0 ? 1 : -1);
    if (k < 0) {
        app_msg(a, GS_WARN, "no match for \"%s\"", text);
        return;
    }
    int n = 0, before = 0; /* which match of how many, in group order */
    for (int j = 0; j < a->data.pb.gr->n_groups; j++)
        if (contains(a->data.pb.gr->names[j], text)) {
            n++;
            before += j < k;
        }
    app_select(a, k);
    app_msg(a, GS_NONE, "/%s: %s, match %d of %d (n next, N previous)", text, a->data.pb.gr->names[k], before + 1, n);
}

/* ------------------------------------------------------------------ */
/* The graph's viewport, the panes                                     */

void app_zoom(App *a, int zoom)
{
    a->view.zoom = zoom;
    a->view.follow = 1;
    app_msg(a, GS_NONE, zoom == DAG_FULL ? "graph: full labels" : "graph: compact, one cell per group");
}

void app_fold(App *a, int on)
{
    AppData *d = &a->data;
    if (on && !d->dag_fold) {
        app_msg(a, GS_NONE, "graph: every group (no backward pass to fold)");
        return;
    }
    a->view.fold = on;
    d->dag = on ? d->dag_fold : d->dag_all;
    a->view.follow = 1;
    app_msg(a, GS_NONE, on ? "graph: the forward pass, backward and update groups beside their forward groups (<)"
                           : "graph: every group in layers");
}

void app_show_sets(App *a, int on)
{
    a->view.show_sets = on;
    if (!app_placeto_insides(a) && on)
        app_msg(a, GS_NONE, "showing %s (the Policy pane lists them)", a->policy.kind->actor->attends);
    else if (!app_placeto_insides(a))
        app_msg(a, GS_NONE, "%s hidden", a->policy.kind->actor->set_why ? "the learned cluster" : "attention");
    else
        app_msg(a, GS_NONE, on ? "showing the ancestors, descendants and parallel groups the policy pools over"
                               : "sets hidden");
}

void app_pan(App *a, int dx, int dy)
{
    a->view.follow = 0;
    a->view.x += dx;
    a->view.y += dy;
}

void app_graph_shown(App *a, int x, int y)
{
    a->view.x = x;
    a->view.y = y;
}

void app_focus(App *a, AppPane p)
{
    a->view.focus = p;
    if (a->view.maximized >= 0)
        a->view.maximized = (int)p;
}

void app_maximize(App *a, int on)
{
    a->view.maximized = on ? (int)a->view.focus : -1;
}

/* ------------------------------------------------------------------ */
/* The timeline's window                                               */

/* Every timeline command starts from an explicit window: the whole run
 * shown becomes [0, runtime] (it then stays there when the runtime
 * changes, until app_tl_whole). */
static double tl_pin(App *a)
{
    double end = a->data.ep->runtime_us;
    if (!(a->view.tl_t1 > a->view.tl_t0)) {
        a->view.tl_t0 = 0;
        a->view.tl_t1 = end;
    }
    return end;
}

void app_tl_zoom(App *a, double factor)
{
    double end = tl_pin(a), anchor = (a->view.tl_t0 + a->view.tl_t1) / 2;
    tl_zoom(&a->view.tl_t0, &a->view.tl_t1, factor, anchor, end);
}

void app_tl_pan(App *a, double fraction)
{
    double end = tl_pin(a), span = a->view.tl_t1 - a->view.tl_t0;
    tl_pan(&a->view.tl_t0, &a->view.tl_t1, fraction * span, end);
}

void app_tl_whole(App *a)
{
    a->view.tl_t0 = a->view.tl_t1 = 0;
}

void app_tl_by_group(App *a, int on)
{
    tl_pin(a);
    a->view.tl_by_group = on;
    app_msg(a, GS_NONE, on ? "timeline: ops coloured by group" : "timeline: ops coloured by device");
}

void app_graph_by_cluster(App *a, int on)
{
    const Grouping *gr = a->data.pb.gr;
    if (!a->cache.cluster) {
        app_msg(a, GS_WARN, "graph colours by learned cluster apply to an hsdag policy only (this is %s policy)",
                !app_placeto_insides(a) ? a->policy.kind->a_name : "a placeto");
        return;
    }
    a->view.by_cluster = on;
    if (!on) {
        app_msg(a, GS_NONE, "graph: groups coloured by device");
        return;
    }
    GroupClusterStats learned, fixed;
    group_cluster_stats(gr, a->cache.cluster, a->cache.n_clusters, &learned);
    group_cluster_stats(gr, NULL, 0, &fixed);
    char b1[32], b2[32];
    app_msg(a, GS_NONE, "learned: %d clusters of %d groups; cut %s (fixed groups: %s); cost balance %.1f (fixed: %.1f)",
            learned.n_clusters, gr->n_groups, util_fmt_bytes(b1, (double)learned.cut_bytes),
            util_fmt_bytes(b2, (double)fixed.cut_bytes), learned.balance, fixed.balance);
}

/* ------------------------------------------------------------------ */
/* The dialogs' state                                                  */

void app_dialog_open(App *a, AppDialog d, const char *input)
{
    a->dialog.kind = d;
    a->dialog.menu_pos = 0;
    a->dialog.scroll_max = -1;
    snprintf(a->dialog.input, sizeof a->dialog.input, "%s", input ? input : "");
}

void app_dialog_close(App *a)
{
    a->dialog.kind = DLG_NONE;
}

void app_dialog_type(App *a, int ch)
{
    size_t len = strlen(a->dialog.input);
    if (ch >= 32 && ch < 127 && len + 1 < sizeof a->dialog.input) {
        a->dialog.input[len] = (char)ch;
        a->dialog.input[len + 1] = '\0';
    }
}

void app_dialog_erase(App *a)
{
    size_t len = strlen(a->dialog.input);
    if (len)
        a->dialog.input[len - 1] = '\0';
}

void app_dialog_menu(App *a, int pos)
{
    if ((a->dialog.kind == DLG_BASELINES || a->dialog.kind == DLG_START_FROM) && pos > a->base.n - 1)
        pos = a->base.n - 1;
    if (a->dialog.kind == DLG_HELP && a->dialog.scroll_max >= 0 && pos > a->dialog.scroll_max)
        pos = a->dialog.scroll_max;
    a->dialog.menu_pos = pos < 0 ? 0 : pos;
}

void app_dialog_scroll_max(App *a, int max)
{
    a->dialog.scroll_max = max;
    if (a->dialog.kind == DLG_HELP && a->dialog.menu_pos > max)
        a->dialog.menu_pos = max;
}
