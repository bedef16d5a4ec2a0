/* why: the "why this device" panel (why.h): its model (the runtimes per
 * device, computed into the App's cache when the step changes, and what it
 * derives from a const App, through explain.h), its keys and its view,
 * which only reads. */
#include "why.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "explain.h"
#include "policy.h"
#include "term.h"
#include "widgets.h"

enum { WHY_FEATURE_ROWS = 8 };

/* The glyph and style of each relation (the legend's). */
static const char rel_glyph[] = {'>', '^', 'v', 'A', 'D', '='};
static const int rel_style[] = {GS_CURRENT, GS_ANCESTOR, GS_DESCENDANT, GS_ANCESTOR, GS_DESCENDANT, GS_PARALLEL};

/* The group the panel explains: the one at the cursor (-1: the episode is
 * complete). */
static int why_group(const App *a) { return episode_current(a->data.ep); }

/* The largest round that reaches a new group from v (0 when none does). */
static int max_round(const App *a, int v)
{
    if (v < 0)
        return 0;
    int *round = XNEW(int, a->data.pg->n);
    int m = explain_reach(a->data.pg, v, round);
    free(round);
    return m;
}

/* 1 when the cache holds the runtimes of group v under the episode's
 * placement. */
static int why_cached(const App *a, int v)
{
    const AppCache *c = &a->cache;
    return v >= 0 && c->why_placement && c->why_group == v &&
           memcmp(c->why_placement, a->data.ep->group_device,
                  (size_t)a->data.pb.gr->n_groups * sizeof *c->why_placement) == 0;
}

void app_why_update(App *a)
{
    const AppData *d = &a->data;
    int v = why_group(a), ng = d->pb.gr->n_groups;
    if (a->dialog.kind != DLG_WHY || v < 0 || why_cached(a, v))
        return;
    AppCache *c = &a->cache;
    if (!c->why_placement)
        c->why_placement = XNEW(int, ng);
    memcpy(c->why_placement, d->ep->group_device, (size_t)ng * sizeof *c->why_placement);
    c->why_group = v;
    int *op = XNEW(int, d->pb.g->n_nodes);
    Sim *s = sim_new(d->pb.g, d->pb.c);
    explain_device_runtimes(s, d->pb.gr, d->ep->group_device, v, d->pb.c->n_devices, op, c->why_rt, c->why_oom);
    sim_free(s);
    free(op);
}

void app_why_open(App *a)
{
    app_dialog_open(a, DLG_WHY, NULL);
    app_why_update(a);
    if (why_group(a) < 0)
        app_msg(a, GS_DIM, "the episode is complete: Left (u) goes back to a step to explain it");
}

int why_key(App *a, int key)
{
    int v = why_group(a), pos = a->dialog.menu_pos, m = max_round(a, v);
    if (key == ' ' || key == '.' || key == TERM_KEY_DOWN || key == 'j') {
        a->dialog.menu_pos = pos >= m ? 0 : pos + 1; /* after the last round that reaches a group: the sets again */
    } else if (key == ',' || key == TERM_KEY_UP || key == 'k') {
        a->dialog.menu_pos = pos <= 0 ? m : pos - 1;
    } else if (key == TERM_KEY_LEFT || key == 'h' || key == 'u' || key == TERM_KEY_RIGHT || key == 'l' || key == 'U') {
        int dir = key == TERM_KEY_LEFT || key == 'h' || key == 'u' ? -1 : 1; /* the step before or after */
        if (a->replay.active)
            app_replay_step(a, dir);
        else if (dir < 0)
            app_undo(a);
        else
            app_redo(a);
        a->dialog.menu_pos = 0;
    } else if (key == TERM_KEY_ESC || key == 'q' || key == 'w' || key == TERM_KEY_ENTER || key == '\n') {
        app_dialog_close(a);
    }
    return CTL_REDRAW;
}

int why_graph_style(const App *a, uint8_t *style)
{
    int v = why_group(a);
    if (a->dialog.kind != DLG_WHY || v < 0)
        return 0;
    const PolicyGraph *pg = a->data.pg;
    int n = pg->n, k = a->dialog.menu_pos;
    if (k <= 0) { /* the pooling sets */
        for (int j = 0; j < n; j++) {
            ExplainRel r = explain_relation(pg, v, j);
            style[j] = r == EXPLAIN_SELF ? 0 : (uint8_t)rel_style[r];
        }
        return 1;
    }
    int *round = XNEW(int, n);
    explain_reach(pg, v, round);
    for (int j = 0; j < n; j++)
        style[j] = round[j] <= 0 || round[j] > k ? 0
                   : round[j] == k                ? GS_EDGE_HI
                   : policy_graph_is_anc(pg, v, j) ? GS_ANCESTOR
                                                   : GS_DESCENDANT;
    free(round);
    return 1;
}

int why_attention_flat(const App *a)
{
    if (app_placeto_insides(a) || a->policy.kind->actor->set_why || a->cache.node < 0 || !a->cache.attention)
        return 0;
    int n = a->data.pg->n, m = 0;
    float *w = XNEW(float, n > 0 ? n : 1);
    for (int j = 0; j < n; j++)
        if (a->cache.attention[j] > 0)
            w[m++] = a->cache.attention[j];
    int flat = m == 0                                ? 0
               : explain_uniform(w, m, WHY_UNIFORM_TOL) ? 1
               : m >= WHY_NEAR_MIN_GROUPS && explain_entropy_ratio(w, m) >= WHY_NEAR_ENTROPY ? 2
                                                                                                : 0;
    free(w);
    return flat;
}

/* ------------------------------------------------------------------ */
/* The view                                                            */

/* The groups whose features are listed: the current one, up to two
 * parents and two children, an ancestor, a descendant and a parallel group
 * (the first in order of each), -1 ending the list. */
static int feature_groups(const App *a, int v, int *out)
{
    const PolicyGraph *pg = a->data.pg;
    int n = 0, want[6] = {1, 2, 2, 1, 1, 1}, got[6] = {0};
    out[n++] = v;
    for (int j = 0; j < pg->n && n < WHY_FEATURE_ROWS; j++) {
        ExplainRel r = explain_relation(pg, v, j);
        if (got[r] < want[r] && r != EXPLAIN_SELF) {
            got[r]++;
            out[n++] = j;
        }
    }
    /* in the order of the relations */
    for (int i = 1; i < n; i++)
        for (int k = i; k > 1 && explain_relation(pg, v, out[k]) < explain_relation(pg, v, out[k - 1]); k--) {
            int t = out[k];
            out[k] = out[k - 1];
            out[k - 1] = t;
        }
    return n;
}

/* The row of one group's features as Placeto's policy reads them. */
static void feature_row(const App *a, const float *r, char *buf, size_t n)
{
    const Episode *ep = a->data.ep;
    int nd = a->data.pb.c->n_devices;
    char dev[96] = "", x[64] = "";
    size_t len = 0;
    for (int d = 0; d < nd && len < sizeof dev - 8; d++)
        len += (size_t)snprintf(dev + len, sizeof dev - len, "%s%.0f", d ? " " : "", r[POLICY_F_DEVICE + d]);
    if (ep->cfg.extended_features) {
        int xo = policy_ext_offset(nd, ep->cfg.mem_feature);
        snprintf(x, sizeof x, "  %4.2f %5.2f %5.2f", r[xo + POLICY_FX_CRIT], r[xo + POLICY_FX_LOAD],
                 r[xo + POLICY_FX_MEM]);
    }
    snprintf(buf, n, "%5.3f %5.3f %4.0f %3.0f %6.3f [%s]%s", r[POLICY_F_COST], r[POLICY_F_BYTES], r[POLICY_F_VISITS],
             r[POLICY_F_CURRENT], r[POLICY_F_START], dev, x);
}

/* The recorded decision at the cursor (after an undo or in a replay): its
 * device, or -1. */
static int recorded_choice(const Episode *ep, int v)
{
    if (ep->n_redo <= 0)
        return -1;
    const EpisodeStep *s = &ep->hist[ep->n_hist];
    return s->takes_step && s->group == v ? (s->actor == EPISODE_ACTOR_POLICY ? s->proposed : s->new_device) : -1;
}

static int put(Grid *g, GridRect in, int *y, const char *text, int pen)
{
    if (*y >= in.y + in.h)
        return 0;
    grid_text_fit(g, in.x, (*y)++, text, in.w, pen);
    return 1;
}

int why_draw(const App *a, Grid *g)
{
    const AppData *d = &a->data;
    const Episode *ep = d->ep;
    const PolicyGraph *pg = d->pg;
    int v = why_group(a), nd = d->pb.c->n_devices, n = pg->n;
    /* as tall as what it shows: the heading, the device rows and their note, the features and the sets
       (Placeto) or what it reads and its attention (an actor), message passing */
    int body = 0, n_feat = 0;
    if (v >= 0 && app_placeto_insides(a)) {
        int rows[WHY_FEATURE_ROWS];
        n_feat = feature_groups(a, v, rows);
        body = 2 + n_feat;
    } else if (v >= 0) {
        body = 2;
        for (int r = 0; r < APP_ATTENTION_ROWS; r++)
            body += a->cache.attn_top[r] >= 0;
    }
    int msg = a->msg.text[0] ? widget_wrap(a->msg.text, g->w, NULL, NULL, 0) : 1; /* the message's rows, as drawn */
    msg = msg > 3 ? 3 : msg;
    int h = 2 + 2 + nd + body + 2, full = h;
    if (h > g->h - 2 - msg)
        h = g->h - 2 - msg;
    int cut = full - h; /* rows short: feature rows go first, so that message passing's rounds stay */
    GridRect box = {0, g->h - msg - h, g->w, h};
    grid_fill(g, box, ' ', GS_NONE);
    grid_box(g, box, GS_BORDER);
    char t[512], b1[32], b2[32];
    snprintf(t, sizeof t, " Why this device%s%s ", v >= 0 ? ": " : "", v >= 0 ? d->pb.gr->names[v] : "");
    grid_text_fit(g, box.x + 2, box.y, t, box.w - 4, GS_TITLE);
    grid_text_fit(g, box.x + 2, box.y + box.h - 1,
                  a->tour.active ? " j/k: message-passing round   Esc: close (space: the tour's next stage) "
                                 : " space/,: message-passing round  Left/Right: the step before/after  Esc: close ",
                  box.w - 4, GS_KEY);
    GridRect in = {box.x + 2, box.y + 1, box.w - 4, box.h - 2};
    int y = in.y;
    if (v < 0) {
        put(g, in, &y, "the episode is complete: Left goes back a step (u undoes it), and the panel explains it", GS_DIM);
        return 0;
    }
    const AppCache *c = &a->cache;
    const char *who = !app_placeto_insides(a) ? a->policy.kind->name : "placeto";
    snprintf(t, sizeof t, "step %d/%d: %s (group %d) is on %s now; the %s policy places it%s", ep->cursor + 1,
             ep->n_order, d->pb.gr->names[v], v, d->pb.c->devices[ep->group_device[v]].name, who,
             a->replay.active ? " (replay)" : "");
    put(g, in, &y, t, GS_CURRENT);

    /* every device: the probability and the runtime had the group gone there (the model's: app_why_update) */
    if (!why_cached(a, v)) {
        put(g, in, &y, "the runtimes per device are not computed for this step", GS_WARN);
        return 0;
    }
    const double *rt = c->why_rt;
    const int *oom = c->why_oom;
    int best = 0, pick = 0, chosen = recorded_choice(ep, v);
    for (int k = 1; k < nd; k++) {
        if (rt[k] < rt[best])
            best = k;
        if (c->probs[k] > c->probs[pick])
            pick = k;
    }
    int uniform = explain_uniform(c->probs, nd, WHY_UNIFORM_TOL);
    for (int k = 0; k < nd && y < in.y + in.h; k++) {
        char lab[48], txt[160];
        int wide = in.w >= 100, bw = wide ? 46 : in.w * 2 / 5; /* the bar, its label and percentage: aligned */
        if (wide)
            snprintf(lab, sizeof lab, "d%-2d %-10.10s", k, d->pb.c->devices[k].name);
        else
            snprintf(lab, sizeof lab, "d%d", k);
        snprintf(txt, sizeof txt, "%5.1f%%", 100.0 * c->probs[k]);
        widget_bar(g, in.x, y, bw, c->probs[k], 1.0, lab, txt);
        snprintf(txt, sizeof txt, "%s%10s%s%s%s%s%s", wide ? "if here: " : "", util_fmt_time(b1, rt[k]),
                 oom[k] ? " OOM" : "", k == ep->group_device[v] ? "  [now]" : "", k == chosen ? "  [chosen]" : "",
                 k == best ? "  [best]" : "", !uniform && k == pick && chosen < 0 ? "  [policy's pick]" : "");
        grid_text_fit(g, in.x + bw + 1, y++, txt, in.w - bw - 1, GS_NONE);
    }
    if (uniform)
        snprintf(t, sizeof t, "probabilities: uniform (each within %.0f%% of 1/%d): the policy shows no preference here",
                 100 * WHY_UNIFORM_TOL, nd);
    else
        snprintf(t, sizeof t, "runtimes: one incremental simulation per device; best %s on d%d, %s with it where it is",
                 util_fmt_time(b1, rt[best]), best, util_fmt_time(b2, ep->runtime_us));
    put(g, in, &y, t, uniform ? GS_WARN : GS_DIM);

    /* the features, as the policy sees them */
    if (app_placeto_insides(a) && cut > 0 && cut >= n_feat) {
        /* too short for them: one line says what is cut, and message passing keeps its rows */
        put(g, in, &y, "features and pooling sets: cut here (a taller terminal shows them)", GS_DIM);
    } else if (app_placeto_insides(a)) {
        int rows[WHY_FEATURE_ROWS], nr = feature_groups(a, v, rows), all = nr;
        nr = cut >= nr ? (nr > 0 ? 1 : 0) : nr - cut; /* the current group's row at least */
        int F = ep->n_features;
        float *feats = XNEW(float, (size_t)n * (size_t)F);
        episode_features(ep, v, feats);
        snprintf(t, sizeof t, "  %-18s %-10s %5s %5s %4s %3s %6s %-7s%s", "features: group", "is", "cost", "bytes",
                 "vis", "cur", "start", "device", ep->cfg.extended_features ? "  crit  load   mem" : "");
        if (nr < all) { /* what is cut, and how to see it */
            char more[64];
            snprintf(more, sizeof more, "  (+%d rows: a taller terminal)", all - nr);
            snprintf(t, sizeof t, "  %-18s %-10s %5s %5s%s", "features: group", "is", "cost", "bytes", more);
        }
        put(g, in, &y, t, GS_LABEL);
        for (int k = 0; k < nr && y < in.y + in.h; k++) {
            ExplainRel r = explain_relation(pg, v, rows[k]);
            char row[200];
            feature_row(a, feats + (size_t)rows[k] * (size_t)F, row, sizeof row);
            snprintf(t, sizeof t, "%c %-18.18s %-10s %s", rel_glyph[r], d->pb.gr->names[rows[k]],
                     explain_relation_name(r), row);
            put(g, in, &y, t, r == EXPLAIN_SELF ? GS_CURRENT : GS_NONE);
            grid_put(g, in.x, y - 1, (uint32_t)rel_glyph[r], rel_style[r]);
        }
        free(feats);
        /* the pooling sets: their legend and counts */
        int cnt[6] = {0};
        for (int j = 0; j < n; j++)
            cnt[explain_relation(pg, v, j)]++;
        if (y < in.y + in.h) {
            int x = in.x;
            x += grid_text(g, x, y, "pools over: ", GS_LABEL);
            const int sets[3][3] = {{EXPLAIN_ANCESTOR, EXPLAIN_PARENT, 0}, {EXPLAIN_DESCENDANT, EXPLAIN_CHILD, 0},
                                    {EXPLAIN_PARALLEL, EXPLAIN_PARALLEL, 1}};
            static const char *const names[3] = {"ancestors", "descendants", "parallel"};
            static const char glyph[3] = {'^', 'v', '='};
            for (int k = 0; k < 3; k++) {
                int m = cnt[sets[k][0]] + (sets[k][2] ? 0 : cnt[sets[k][1]]);
                char part[64];
                snprintf(part, sizeof part, "%c %s %d   ", glyph[k], names[k], m);
                x += grid_text(g, x, y, part, rel_style[sets[k][0]]);
            }
            grid_text_fit(g, x, y, "(coloured so in the graph; > the current group)", in.x + in.w - x, GS_DIM);
            y++;
        }
    } else { /* an actor: what it reads, and its attention */
        const AgentActorOps *k = a->policy.kind->actor;
        snprintf(t, sizeof t, "%s %s", k->reads[0], k->reads[1]);
        put(g, in, &y, t, GS_DIM);
        int m = 0, flat = 0; /* flat: the attention is (nearly) uniform */
        float *w = XNEW(float, n > 0 ? n : 1);
        for (int j = 0; j < n; j++)
            if (c->attention[j] > 0)
                w[m++] = c->attention[j];
        if (k->set_why) {
            snprintf(t, sizeof t, "why: %s (%d groups, weighed alike)", k->set_why, m);
            put(g, in, &y, t, GS_LABEL);
        } else if (m == 0) {
            put(g, in, &y, "attention: none at this step", GS_DIM);
        } else {
            float lo = w[0], hi = w[0];
            for (int j = 0; j < m; j++) {
                lo = w[j] < lo ? w[j] : lo;
                hi = w[j] > hi ? w[j] : hi;
            }
            double er = explain_entropy_ratio(w, m);
            if (explain_uniform(w, m, WHY_UNIFORM_TOL))
                snprintf(t, sizeof t, "attention: uniform over %d groups (each %.2f%%, within %.0f%% of 1/%d): "
                         "no reasoning to show", m, 100.0 * hi, 100 * WHY_UNIFORM_TOL, m);
            else if (m >= WHY_NEAR_MIN_GROUPS && er >= WHY_NEAR_ENTROPY)
                snprintf(t, sizeof t, "attention: nearly uniform over %d groups (%.2f%% .. %.2f%%, 1/N %.2f%%; entropy "
                         "%.3f of the uniform's): the list below is not a reason", m, 100.0 * lo, 100.0 * hi, 100.0 / m, er);
            else
                snprintf(t, sizeof t, "attention: the groups it weighs most (%.2f%% .. %.2f%% over %d groups, 1/N %.2f%%)",
                         100.0 * lo, 100.0 * hi, m, 100.0 / m);
            flat = explain_uniform(w, m, WHY_UNIFORM_TOL) || (m >= WHY_NEAR_MIN_GROUPS && er >= WHY_NEAR_ENTROPY);
            put(g, in, &y, t, flat ? GS_WARN : GS_LABEL);
        }
        free(w);
        for (int r = 0; r < APP_ATTENTION_ROWS && c->attn_top[r] >= 0 && y < in.y + in.h; r++) {
            int j = c->attn_top[r];
            ExplainRel rel = explain_relation(pg, v, j);
            snprintf(t, sizeof t, "%c %6.2f%% %-10s %s", rel_glyph[rel], 100.0 * c->attention[j],
                     explain_relation_name(rel), d->pb.gr->names[j]);
            put(g, in, &y, t, flat ? GS_DIM : GS_NONE);
            grid_put(g, in.x, y - 1, (uint32_t)rel_glyph[rel], rel_style[rel]);
        }
    }

    /* message passing, round by round */
    int *round = XNEW(int, n);
    int far = explain_reach(pg, v, round), k = a->dialog.menu_pos, total;
    int K = !app_placeto_insides(a) ? 0 : a->policy.pol->arch.rounds;
    if (y < in.y + in.h) {
        if (k <= 0) {
            snprintf(t, sizeof t, "message passing: space steps round 1 .. %d (Placeto's network passes %d%s)", far,
                     K ? K : 8, K ? "" : "; this policy passes none");
        } else {
            int at = explain_reach_count(round, n, k, &total), anc = 0;
            for (int j = 0; j < n; j++)
                anc += round[j] > 0 && round[j] <= k && policy_graph_is_anc(pg, v, j);
            snprintf(t, sizeof t, "round %d: %d new, %d reached (%d ancestors top-down via parents, %d descendants "
                     "bottom-up via children)%s", k, at, total, anc, total - anc,
                     K && k > K ? "; beyond the policy's rounds" : "");
        }
        put(g, in, &y, t, k > 0 ? GS_GOOD : GS_LABEL);
    }
    if (y < in.y + in.h) { /* the count of every round */
        size_t len = (size_t)snprintf(t, sizeof t, "per round:");
        for (int r = 1; r <= far && len < sizeof t - 24; r++)
            len += (size_t)snprintf(t + len, sizeof t - len, " %s%d:%d", r == k ? "*" : "", r,
                                    explain_reach_count(round, n, r, NULL));
        explain_reach_count(round, n, far, &total);
        if (len < sizeof t - 40)
            snprintf(t + len, sizeof t - len, "; never: %d parallel", n - 1 - total);
        put(g, in, &y, t, GS_DIM);
    }
    free(round);
    return 0;
}
