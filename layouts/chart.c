/* chart: a line chart of series against a count (chart.h). */
#include "chart.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

int chart_col(int64_t x, int64_t x_max, int w, int x_log)
{
    if (w <= 1 || x_max <= 1)
        return 0;
    if (x < 1)
        x = 1;
    if (x > x_max)
        x = x_max;
    if (x_log) /* the exact ends: log() of a power of ten is not one */
        return x == x_max ? w - 1 : (int)(log((double)x) / log((double)x_max) * (w - 1) + 1e-9);
    return (int)((x - 1) * (int64_t)(w - 1) / (x_max - 1));
}

int chart_row(double y, double lo, double hi, int h)
{
    if (h <= 1 || !(hi > lo) || isnan(y))
        return h > 0 ? h - 1 : 0;
    double f = (y - lo) / (hi - lo);
    if (f < 0)
        f = 0;
    if (f > 1)
        f = 1;
    return (int)lround((1.0 - f) * (h - 1));
}

void chart_layout(int h, int n, int *ph, int *lr)
{
    int avail = h - 2; /* the x axis and its labels */
    int half = avail / 2 > 3 ? avail / 2 : 3;
    if (n <= 0 || avail - n >= half) { /* every series listed */
        *ph = avail - (n > 0 ? n : 0);
        *lr = n > 0 ? n : 0;
        if (*ph < 3) { /* a plot only when it has 3 rows */
            *ph = 0;
            *lr = h > 0 ? h : 0;
        }
        return;
    }
    *ph = half;
    if (avail - *ph < 2) /* one series and the mark at least */
        *ph = avail - 2;
    if (*ph < 3) {
        *ph = 0;
        *lr = h > 0 ? h : 0;
        return;
    }
    *lr = avail - *ph;
}

/* The value after count i (1 <= i <= s->n). */
static double series_at(const ChartSeries *s, int64_t i)
{
    if (!s->x)
        return s->y[i - 1];
    int64_t lo = 0, hi = s->m - 1; /* the last step at or before i */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (s->x[mid] <= i)
            lo = mid;
        else
            hi = mid - 1;
    }
    return s->m > 0 && s->x[lo] <= i ? s->y[lo] : NAN;
}

/* The value shown at column c: the last one at a count the column covers,
 * or NAN when the series has not reached it. */
static double value_at(const ChartSeries *s, int c, int64_t x_max, int w, int x_log)
{
    if (s->n <= 0)
        return NAN;
    /* the largest count whose column is c */
    int64_t lo = 1, hi = x_max, last = 0;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (chart_col(mid, x_max, w, x_log) <= c) {
            last = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    if (last < 1)
        return NAN;
    if (last > s->n) {
        if (!s->done)
            return chart_col(s->n, x_max, w, x_log) == c ? series_at(s, s->n) : NAN;
        return series_at(s, s->n);
    }
    return series_at(s, last);
}

/* The legend from row y in rows rows: each series' mark, name (a column
 * as wide as the longest, at most half of w) and note; when the rows cannot
 * list them all, those from first and a last row saying how many are above
 * and below and which keys scroll. */
static void draw_legend(Grid *g, int x, int y, int w, int rows, const ChartSeries *s, int n, const ChartOpts *o,
                        ChartFit *fit)
{
    int nw = 4;
    for (int k = 0; k < n; k++)
        if (grid_text_width(s[k].name) > nw)
            nw = grid_text_width(s[k].name);
    if (nw > w / 2)
        nw = w / 2;
    int shown = n <= rows ? n : rows - 1, first = 0;
    if (shown < 0)
        shown = 0;
    int first_max = n - shown;
    if (n > rows) {
        first = o ? o->legend_first : 0;
        if (first > first_max)
            first = first_max;
        if (first < 0)
            first = 0;
    }
    for (int k = 0; k < shown; k++) {
        const ChartSeries *c = &s[first + k];
        grid_put(g, x + 1, y + k, c->glyph, c->pen);
        grid_text_fit(g, x + 3, y + k, c->name, nw, c->pen);
        if (c->note)
            grid_text_fit(g, x + 5 + nw, y + k, c->note, w - 5 - nw, GS_NONE);
    }
    if (n > rows && rows > 0) { /* never hidden silently */
        char t[160];
        int above = first, below = n - first - shown;
        const char *what = o && o->what ? o->what : "series";
        if (above && below)
            snprintf(t, sizeof t, "+%d %s below, +%d above: %s", below, what, above,
                     o && o->scroll_keys ? o->scroll_keys : "scroll");
        else
            snprintf(t, sizeof t, "+%d %s %s: %s", above + below, what, below ? "below" : "above",
                     o && o->scroll_keys ? o->scroll_keys : "scroll");
        grid_text_fit(g, x + 1, y + shown, t, w - 1, GS_KEY);
    }
    if (fit) {
        fit->legend_first = first;
        fit->legend_shown = shown;
        fit->legend_first_max = first_max;
    }
}

/* The x axis' labels on row y under a plot of pw columns from px + 1:
 * logarithmic, every power of ten that fits (1, 10, 100, ...), else 1 and
 * x_max; and the axis' label in the widest gap left. */
static void draw_x_labels(Grid *g, int px, int pw, int y, int64_t x_max, const char *x_label, int x_log)
{
    char row[512];
    int w = pw + 1 < (int)sizeof row - 1 ? pw + 1 : (int)sizeof row - 1;
    memset(row, ' ', (size_t)w);
    row[w] = '\0';
    int64_t ticks[24];
    int nt = 0;
    ticks[nt++] = 1;
    if (x_log) {
        for (int64_t t = 10; t <= x_max && nt < 24; t *= 10)
            ticks[nt++] = t;
    } else if (x_max > 1) {
        ticks[nt++] = x_max;
    }
    int end = -1; /* the last column taken, then a space */
    for (int k = 0; k < nt; k++) {
        char l[32];
        int len = snprintf(l, sizeof l, "%lld", (long long)ticks[k]);
        int c = 1 + chart_col(ticks[k], x_max, pw, x_log);
        if (!x_log && k == nt - 1)
            c = w - len; /* x_max flush right */
        if (c + len > w)
            c = w - len;
        if (c <= end + 1 && k > 0)
            continue; /* no room: this tick unlabelled */
        memcpy(row + c, l, (size_t)len);
        end = c + len - 1;
        if (x_log && c > 1 && c - 1 < pw) /* its mark on the axis (1's is the corner) */
            grid_put(g, px + c, y - 1, GRID_LINE(GRID_E | GRID_W | GRID_S), GS_AXIS);
    }
    for (int c = 0; c < w; c++)
        if (row[c] != ' ')
            grid_put(g, px + c, y, (uint32_t)(unsigned char)row[c], GS_AXIS);
    if (!x_label)
        return;
    int lw = grid_text_width(x_label), best = -1, best_len = 0;
    for (int c = 0; c < w;) { /* the widest gap, a space kept either side */
        if (row[c] != ' ') {
            c++;
            continue;
        }
        int e = c;
        while (e < w && row[e] == ' ')
            e++;
        int from = c + 1, len = e - c - (e < w ? 2 : 1);
        if (len > best_len) {
            best = from;
            best_len = len;
        }
        c = e;
    }
    if (best >= 0 && best_len >= lw) {
        grid_text(g, px + best + (best_len - lw) / 2, y, x_label, GS_DIM);
    } else if (lw + 4 <= pw) { /* no gap for it: on the axis' line, at its end */
        grid_put(g, px + pw - lw - 1, y - 1, ' ', GS_AXIS);
        grid_text(g, px + pw - lw, y - 1, x_label, GS_DIM);
        grid_put(g, px + pw, y - 1, ' ', GS_AXIS);
    }
}

void chart_draw(Grid *g, GridRect r, const ChartSeries *s, int n, int64_t x_max, double lo, double hi,
                const char *x_label, const ChartOpts *o, ChartFit *fit)
{
    int ph, legend;
    int x_log = o && o->x_log;
    chart_layout(r.h, n, &ph, &legend);
    char b[32], b2[32];
    /* the y labels: as wide as the widest */
    char top[40], mid[40], bot[40];
    snprintf(top, sizeof top, "%s", util_fmt_time(b, hi));
    snprintf(mid, sizeof mid, "%s", util_fmt_time(b, (lo + hi) / 2));
    snprintf(bot, sizeof bot, "%s", util_fmt_time(b2, lo));
    int lw = grid_text_width(top);
    if (grid_text_width(mid) > lw)
        lw = grid_text_width(mid);
    if (grid_text_width(bot) > lw)
        lw = grid_text_width(bot);
    int px = r.x + lw + 1, pw = r.w - lw - 2;
    if (fit)
        fit->plot_rows = 0;
    if (ph < 3 || pw < 8) { /* no room for a plot: the legend alone, saying so */
        grid_text_fit(g, r.x + 1, r.y, "plot hidden: too small here (a larger window shows it)", r.w - 1, GS_KEY);
        draw_legend(g, r.x, r.y + 1, r.w, r.h - 1, s, n, o, fit);
        return;
    }
    if (fit)
        fit->plot_rows = ph;
    if (x_max < 1)
        x_max = 1;
    /* axes */
    grid_vline(g, px, r.y, ph + 1, GS_AXIS);
    grid_hline(g, px, r.y + ph, pw + 1, GS_AXIS);
    grid_text(g, px - 1 - grid_text_width(top), r.y, top, GS_AXIS);
    if (ph >= 5)
        grid_text(g, px - 1 - grid_text_width(mid), r.y + (ph - 1) / 2, mid, GS_AXIS);
    grid_text(g, px - 1 - grid_text_width(bot), r.y + ph - 1, bot, GS_AXIS);
    draw_x_labels(g, px, pw, r.y + ph + 1, x_max, x_label, x_log);
    /* the series */
    GridRect plot = {px + 1, r.y, pw, ph};
    for (int k = 0; k < n; k++)
        for (int c = 0; c < pw; c++) {
            double v = value_at(&s[k], c, x_max, pw, x_log);
            if (isnan(v) || isinf(v))
                continue;
            int past = s[k].done && chart_col(s[k].n, x_max, pw, x_log) < c;
            grid_put(g, plot.x + c, plot.y + chart_row(v, lo, hi, ph), past ? '.' : s[k].glyph,
                     past ? GS_DIM : s[k].pen);
        }
    draw_legend(g, r.x, r.y + ph + 2, r.w, legend, s, n, o, fit);
}
