/* chart: a line chart of series against a count (chart.h). */
#include "chart.h"

#include <math.h>
#include <stdio.h>

#include "util.h"

int chart_col(int64_t x, int64_t x_max, int w)
{
    if (w <= 1 || x_max <= 1)
        return 0;
    if (x < 1)
        x = 1;
    if (x > x_max)
        x = x_max;
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

int chart_legend_rows(int n) { return n; }

/* The value shown at column c: the last one at a count the column covers,
 * or NAN when the series has not reached it. */
static double value_at(const ChartSeries *s, int c, int64_t x_max, int w)
{
    if (s->n <= 0)
        return NAN;
    /* the largest count whose column is c */
    int64_t lo = 1, hi = x_max, last = 0;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (chart_col(mid, x_max, w) <= c) {
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
            return chart_col(s->n, x_max, w) == c ? s->y[s->n - 1] : NAN;
        return s->y[s->n - 1];
    }
    return s->y[last - 1];
}

/* The legend from row y: each series' mark, name (a column as wide as the
 * longest, at most half of w) and note, up to rows rows. */
static void draw_legend(Grid *g, int x, int y, int w, int rows, const ChartSeries *s, int n)
{
    int nw = 4;
    for (int k = 0; k < n; k++)
        if (grid_text_width(s[k].name) > nw)
            nw = grid_text_width(s[k].name);
    if (nw > w / 2)
        nw = w / 2;
    for (int k = 0; k < n && k < rows; k++) {
        grid_put(g, x + 1, y + k, s[k].glyph, s[k].pen);
        grid_text_fit(g, x + 3, y + k, s[k].name, nw, s[k].pen);
        if (s[k].note)
            grid_text_fit(g, x + 5 + nw, y + k, s[k].note, w - 5 - nw, GS_NONE);
    }
}

void chart_draw(Grid *g, GridRect r, const ChartSeries *s, int n, int64_t x_max, double lo, double hi,
                const char *x_label)
{
    int legend = chart_legend_rows(n);
    int ph = r.h - legend - 2; /* the plot's rows: the x axis and its labels below */
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
    if (ph < 3 || pw < 8) { /* no room for a plot: the legend alone */
        draw_legend(g, r.x, r.y, r.w, r.h, s, n);
        return;
    }
    if (x_max < 1)
        x_max = 1;
    /* axes */
    grid_vline(g, px, r.y, ph + 1, GS_AXIS);
    grid_hline(g, px, r.y + ph, pw + 1, GS_AXIS);
    grid_text(g, px - 1 - grid_text_width(top), r.y, top, GS_AXIS);
    if (ph >= 5)
        grid_text(g, px - 1 - grid_text_width(mid), r.y + (ph - 1) / 2, mid, GS_AXIS);
    grid_text(g, px - 1 - grid_text_width(bot), r.y + ph - 1, bot, GS_AXIS);
    /* x ticks: 1, the middle, x_max */
    char xl[64];
    grid_text(g, px + 1, r.y + ph + 1, "1", GS_AXIS);
    snprintf(xl, sizeof xl, "%lld", (long long)x_max);
    grid_text(g, px + pw - grid_text_width(xl) + 1, r.y + ph + 1, xl, GS_AXIS);
    if (x_label) {
        int at = px + (pw - grid_text_width(x_label)) / 2;
        if (at > px + 3)
            grid_text_fit(g, at, r.y + ph + 1, x_label, px + pw - 8 - at, GS_DIM);
    }
    /* the series */
    GridRect plot = {px + 1, r.y, pw, ph};
    for (int k = 0; k < n; k++)
        for (int c = 0; c < pw; c++) {
            double v = value_at(&s[k], c, x_max, pw);
            if (isnan(v) || isinf(v))
                continue;
            int past = s[k].done && chart_col(s[k].n, x_max, pw) < c;
            grid_put(g, plot.x + c, plot.y + chart_row(v, lo, hi, ph), past ? '.' : s[k].glyph,
                     past ? GS_DIM : s[k].pen);
        }
    draw_legend(g, r.x, r.y + ph + 2, r.w, legend, s, n);
}
