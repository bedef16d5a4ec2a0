/* draw_tour: the tour's caption (see draw.h): its band beside the stage's
 * subject, its text (demo_text.c) and the extra rows a stage shows with it
 * (the feature table, the zero-shot line, the first stage's timelines, a
 * legend, the message-passing keys). */
#include "draw.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "widgets.h"

/* The feature table of the groups the model picked (AppCache): the
 * paper's columns, the device one-hot and, with the extended features,
 * critical path, load and memory. */
static int feature_lines(const App *a, char lines[][200], int max, int width)
{
    const AppCache *c = &a->cache;
    if (!app_placeto_insides(a)) {
        snprintf(lines[0], 200, "%s", a->policy.kind->actor->reads[0]);
        snprintf(lines[1], 200, "%s", a->policy.kind->actor->reads[1]);
        return 2;
    }
    if (c->node < 0)
        return 0;
    const Episode *ep = a->data.ep;
    int F = ep->n_features, nd = a->data.pb.c->n_devices, ext = ep->cfg.extended_features;
    int xo = policy_ext_offset(nd, ep->cfg.mem_feature);
    int dw = 2 * nd + 1, full = 54 + dw + (ext ? 18 : 0); /* the device column: "[1 0]" */
    int nw = 16 - (full > width ? full - width : 0);     /* the names give way first */
    if (nw < 8)
        nw = 8;
    snprintf(lines[0], 200, "%-*s %-8s %5s %5s %4s %3s %6s %-*s%s", nw, "group", "is", "cost", "bytes", "vis", "cur",
             "start", dw, dw >= 6 ? "device" : "dev", ext ? "  crit  load   mem" : "");
    int n = 1;
    for (int k = 0; k < APP_FEATURE_ROWS && n < max; k++) {
        if (c->feat_group[k] < 0)
            continue;
        const float *r = c->feats + (size_t)k * (size_t)F;
        const char *is = app_tour_feature_role(a, k); /* by relation, not by position */
        char dev[64] = "", x[64] = "";
        size_t len = 0;
        for (int d = 0; d < nd && len < sizeof dev - 4; d++)
            len += (size_t)snprintf(dev + len, sizeof dev - len, "%s%.0f", d ? " " : "", r[POLICY_F_DEVICE + d]);
        if (ext)
            snprintf(x, sizeof x, "  %4.2f %5.2f %5.2f", r[xo + POLICY_FX_CRIT], r[xo + POLICY_FX_LOAD],
                     r[xo + POLICY_FX_MEM]);
        snprintf(lines[n++], 200, "%-*.*s %-8s %5.3f %5.3f %4.0f %3.0f %6.3f [%s]%s", nw, nw,
                 a->data.pb.gr->names[c->feat_group[k]], is, r[POLICY_F_COST], r[POLICY_F_BYTES],
                 r[POLICY_F_VISITS], r[POLICY_F_CURRENT], r[POLICY_F_START], dev, x);
    }
    return n;
}

/* The zero-shot runtime against the best baseline and one device (two
 * lines when narrower than width 84). */
static int zero_shot_line(const App *a, char lines[][200], int width)
{
    double best = INFINITY;
    const char *bm = "";
    for (int k = 0; k < a->base.n; k++)
        if (!a->base.rows[k].oom && a->base.rows[k].runtime_us < best) {
            best = a->base.rows[k].runtime_us;
            bm = a->base.rows[k].method;
        }
    char b1[32], b2[32], b3[32];
    if (width >= 84) {
        snprintf(lines[0], 200, "zero-shot Placeto: %s   best baseline (%s): %s   one device: %s",
                 util_fmt_time(b1, a->data.ep->best_runtime_us), bm, util_fmt_time(b2, best),
                 util_fmt_time(b3, a->data.single_us));
        return 1;
    }
    snprintf(lines[0], 200, "zero-shot Placeto: %s   one device: %s", util_fmt_time(b1, a->data.ep->best_runtime_us),
             util_fmt_time(b3, a->data.single_us));
    snprintf(lines[1], 200, "best baseline (%s): %s", bm, util_fmt_time(b2, best));
    return 2;
}

/* The most extra rows a caption has: the first stage's timelines. */
enum { TOUR_EXTRA_ROWS = 2 + 2 * TOUR_PROBLEM_DEVICES };
_Static_assert(TOUR_EXTRA_ROWS >= APP_FEATURE_ROWS + 1, "the feature table fits");

/* The first stage's two timelines (AppTour.problem): per placement a
 * heading (its runtime and memory) and a row per device, # computing, +
 * partly, > sending only, . idle, on one time axis; 0 lines before it is
 * computed (a tour on a one-device cluster). */
static int problem_lines(const App *a, char lines[][200], int width)
{
    const AppTourProblem *p = &a->tour.problem;
    if (!p->ok)
        return 0;
    const char *dev0 = a->data.pb.c->devices[0].name;
    char b1[32], b2[32];
    int bar = width - 10, n = 0;
    if (bar > TOUR_PROBLEM_COLS)
        bar = TOUR_PROBLEM_COLS;
    if (bar < 10)
        bar = 10;
    for (int k = 0; k < 2; k++) {
        size_t len;
        if (k == 0)
            len = (size_t)snprintf(lines[n], 200, "every group on %s: %s; it needs %.1f GB of %.1f GB%s", dev0,
                                   util_fmt_time(b1, p->runtime_us[0]), p->peak_gb[0][0], p->cap_gb[0],
                                   p->oom[0] ? ": OUT OF MEMORY" : "");
        else {
            len = (size_t)snprintf(lines[n], 200, "split by %s: %s; peaks", p->heuristic,
                                   util_fmt_time(b2, p->runtime_us[1]));
            for (int d = 0; d < p->n_devices && len < 150; d++)
                len += (size_t)snprintf(lines[n] + len, 200 - len, "%s %.1f GB", d ? "," : "", p->peak_gb[1][d]);
            snprintf(lines[n] + len, 200 - len, "%s", p->oom[1] ? ": out of memory" : ": it fits");
        }
        n++;
        for (int d = 0; d < p->n_devices; d++) {
            char *o = lines[n++];
            int w = snprintf(o, 200, "%-8.8s|", a->data.pb.c->devices[d].name);
            for (int c = 0; c < bar && w < 198; c++) {
                int lo = c * TOUR_PROBLEM_COLS / bar, hi = (c + 1) * TOUR_PROBLEM_COLS / bar, busy = 0, tx = 0;
                if (hi <= lo)
                    hi = lo + 1;
                for (int j = lo; j < hi; j++) {
                    busy += p->busy[k][d][j];
                    tx += p->xfer[k][d][j];
                }
                busy /= hi - lo;
                o[w++] = busy >= 128 ? '#' : busy >= 13 ? '+' : tx > 0 ? '>' : '.';
            }
            o[w] = '\0';
        }
    }
    return n;
}

/* The legend of the stage's subject: the critical path's mark, or the
 * three sets in their colours with their sizes; returns the rows drawn. */
static int draw_legend(const App *a, Grid *g, AppTourExtra extra, int x, int y, int w)
{
    if (extra == TOUR_CRITICAL) {
        /* the glyphs the timeline draws (ASCII or Unicode alike) */
        grid_fill(g, (GridRect){x, y, 3 < w ? 3 : w, 1}, GRID_MARK, GS_CRITICAL);
        int cx = x + 4 + grid_text_fit(g, x + 4, y, "the critical path, under the ops on it;", w - 4, GS_LABEL);
        if (cx + 4 < x + w) {
            grid_fill(g, (GridRect){cx + 1, y, 2, 1}, GRID_DOUBLE, GS_CRITICAL);
            grid_text_fit(g, cx + 4, y, "a transfer on it", x + w - cx - 4, GS_LABEL);
        }
        return 1;
    }
    if (extra == TOUR_SETS) {
        int an, de, pa;
        app_tour_sets(a, &an, &de, &pa);
        char t[3][48];
        snprintf(t[0], sizeof t[0], "%d ancestors", an);
        snprintf(t[1], sizeof t[1], "%d descendants", de);
        snprintf(t[2], sizeof t[2], "%d parallel", pa);
        static const int pen[3] = {GS_ANCESTOR, GS_DESCENDANT, GS_PARALLEL};
        int cx = x + grid_text_fit(g, x, y, "colours: ", w, GS_LABEL);
        grid_text_fit(g, cx, y, "@ the current node  ", x + w - cx, GS_CURRENT);
        cx += 20;
        for (int k = 0; k < 3 && cx < x + w; k++) {
            cx += grid_text_fit(g, cx, y, t[k], x + w - cx, pen[k]);
            cx += grid_text_fit(g, cx, y, "  ", x + w - cx, GS_NONE);
        }
        return 1;
    }
    return 0;
}

/* Message passing's keys, while the why panel shows the rounds. */
static int rounds_line(const App *a, char lines[][200])
{
    if (a->dialog.kind != DLG_WHY)
        return 0;
    snprintf(lines[0], 200, "j or Down: the next round   k or Up: the round before   (round 0: the pooling sets)");
    return 1;
}

/* The caption's extra rows (feature table, zero-shot line): their count. */
static int tour_extra(const App *a, const AppTourStage *s, char extra[][200], int width)
{
    if (a->tour.pending >= 0)
        return 0;
    return s->extra == TOUR_FEATURES ? feature_lines(a, extra, APP_FEATURE_ROWS + 1, width) :
           s->extra == TOUR_ZERO_SHOT ? zero_shot_line(a, extra, width) :
           s->extra == TOUR_PROBLEM ? problem_lines(a, extra, width) :
           s->extra == TOUR_ROUNDS ? rounds_line(a, extra) :
           s->extra == TOUR_CRITICAL || s->extra == TOUR_SETS ? 1 : 0;
}

/* The caption's text, or the busy sign of a stage still to compute. */
static const char *tour_caption(const App *a, char *buf, size_t n)
{
    if (a->tour.pending >= 0) {
        snprintf(buf, n, "Computing this stage: every placer runs on the simulator (a few seconds)...");
        return buf;
    }
    return app_tour_text(a, a->tour.stage, buf, n);
}

/* The rows the caption wants at width w (its box included). */
static int tour_rows_wanted(const App *a, int w)
{
    int n_stages;
    const AppTourStage *s = app_tour_stage(a->tour.stage, &n_stages);
    if (!s)
        return 0;
    char extra[TOUR_EXTRA_ROWS][200], tbuf[2048];
    int n_extra = tour_extra(a, s, extra, w - 4);
    return widget_wrap(tour_caption(a, tbuf, sizeof tbuf), w - 4, NULL, NULL, 0) + n_extra + 2;
}

/* The caption in box r (the text cut when r is too small: i shows it whole). */
void draw_tour_caption(const App *a, Grid *g, GridRect r)
{
    int n_stages;
    const AppTourStage *s = app_tour_stage(a->tour.stage, &n_stages);
    if (!s || r.h < 3)
        return;
    char extra[TOUR_EXTRA_ROWS][200], tbuf[2048];
    int n_extra = tour_extra(a, s, extra, r.w - 4);
    const char *text = tour_caption(a, tbuf, sizeof tbuf);
    grid_fill(g, r, ' ', GS_NONE);
    grid_box(g, r, GS_BORDER);
    char title[200];
    snprintf(title, sizeof title, " Tour %d/%d: %s%s ", a->tour.stage + 1, n_stages, s->title,
             a->tour.pending >= 0 ? " (computing...)" : "");
    grid_text_fit(g, r.x + 2, r.y, title, r.w - 4, a->tour.pending >= 0 ? GS_WARN : GS_TITLE);
    GridRect in = {r.x + 2, r.y + 1, r.w - 4, r.h - 2};
    int lines = widget_wrap(text, in.w, NULL, NULL, 0);
    int text_h = in.h - n_extra; /* the extra rows (the subject's table or legend) keep their room */
    if (text_h < 1)
        text_h = in.h;
    int cut = lines > text_h;
    widget_text_wrapped(g, (GridRect){in.x, in.y, in.w, text_h}, text, 0, GS_NONE);
    int y = in.y + (lines < text_h ? lines : text_h);
    for (int k = 0; k < n_extra && y < in.y + in.h; k++, y++) {
        if (s->extra == TOUR_CRITICAL || s->extra == TOUR_SETS)
            draw_legend(a, g, s->extra, in.x, y, in.w);
        else if (s->extra == TOUR_PROBLEM)
            grid_text_fit(g, in.x, y, extra[k], in.w, k % (1 + a->tour.problem.n_devices) != 0 ? GS_LABEL :
                          a->tour.problem.oom[k > 0] ? GS_ERROR : GS_GOOD);
        else
            grid_text_fit(g, in.x, y, extra[k], in.w, k == 0 && s->extra == TOUR_FEATURES ? GS_LABEL : GS_GOOD);
    }
    char keys[200];
    if (a->tour.jump)
        snprintf(keys, sizeof keys, " go to stage %d_ (a digit, or Enter) ", a->tour.jump);
    else
        snprintf(keys, sizeof keys, " %s%s   Left: back   1-%d: stage   %s   ?: keys   q: leave ",
                 cut ? "i: all the text   " : a->tour.expand ? "i: back   " : "",
                 a->tour.autoplay && !a->tour.paused ? "playing (r: pause)" : "space: next", n_stages,
                 a->tour.autoplay && !a->tour.paused ? "" : "r: play");
    grid_text_fit(g, r.x + 2, r.y + r.h - 1, keys, r.w - 4, GS_KEY);
}

/* Where the caption goes in area (the screen between the status and the
 * message lines): a band across it at the top or the bottom, opposite the
 * stage's subject, as high as its text but leaving the subject the rows
 * it needs; the rest of area is returned in rest. h 0: no caption. */
GridRect draw_tour_band(const App *a, GridRect area, GridRect *rest)
{
    *rest = area;
    GridRect none = {0, 0, 0, 0};
    int n_stages;
    const AppTourStage *s = app_tour_stage(a->tour.stage, &n_stages);
    if (!a->tour.active || !s || a->dialog.kind == DLG_HELP)
        return none;
    int need = s->rows;
    if (a->view.maximized == PANE_TIMELINE) /* the lanes and the axis */
        need = 2 + TL_AXIS_ROWS + TL_LANE_ROWS * a->data.pb.c->n_devices;
    int h = tour_rows_wanted(a, area.w);
    if (!a->tour.expand && h > area.h - need)
        h = area.h - need;
    if (h < 4)
        h = 4;
    if (h > area.h)
        h = area.h;
    GridRect r = {area.x, s->top ? area.y : area.y + area.h - h, area.w, h};
    if (a->tour.expand) /* over the screen: the subject keeps its place */
        return r;
    rest->h = area.h - h;
    rest->y = s->top ? area.y + h : area.y;
    return r;
}

