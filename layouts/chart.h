/* chart: a line chart on a Grid (grid.h): several series of values against
 * a count (the best runtime against the placements simulated, one line per
 * method), with a y axis in time units, an x axis with its label, and a
 * legend of each series' glyph, colour and text. A pure function of its
 * arguments; it clips like every grid function and allocates nothing. */
#ifndef PLACETO_CHART_H
#define PLACETO_CHART_H

#include <stdint.h>

#include "grid.h"

typedef struct ChartSeries {
    const char *name;     /* the legend's name */
    const char *note;     /* the legend's text after it (NULL: none) */
    const double *y;      /* y[i]: the value after i + 1 counts (µs) */
    int64_t n;            /* values so far */
    int done;             /* the series has ended: drawn flat, dimmed, up to the x range's end */
    uint32_t glyph;       /* its mark ('*', '+', ...) */
    int pen;              /* its colour (a GRID_PEN) */
    const int64_t *x;     /* NULL: y holds n values; else a step curve of m steps:
                             from count x[k] (1-based, rising) on the value is y[k] */
    int64_t m;
} ChartSeries;

/* How a chart is drawn. */
typedef struct ChartOpts {
    int x_log;               /* the x axis logarithmic: ticks at 1, 10, 100, ... (all labelled that fit) */
    int legend_first;        /* the first series the legend lists when it cannot list them all */
    const char *scroll_keys; /* the keys that scroll the legend, named on its mark ("j/Down, k/Up") */
    const char *what;        /* what a series is, on that mark ("lanes"; NULL: "series") */
} ChartOpts;

/* What a chart showed: the plot's rows (0: no room, the legend alone),
 * the legend's first series (clamped) and the series it lists, and the
 * largest legend_first that still fills its rows. */
typedef struct ChartFit {
    int plot_rows;
    int legend_first, legend_shown, legend_first_max;
} ChartFit;

/* The column (0 .. w-1) of count x on an axis of w cells for 1 .. x_max
 * (logarithmic when x_log). */
int chart_col(int64_t x, int64_t x_max, int w, int x_log);
/* The row (0 at the top .. h-1) of value y on an axis of h cells from lo
 * (bottom) to hi (top); y outside is clamped. */
int chart_row(double y, double lo, double hi, int h);
/* How r.h rows split for n series: the plot's rows (ph; 0 when there is
 * no room for a plot of 3 rows), and the legend's (lr, a mark row
 * included when it cannot list every series). Every series gets a legend
 * row when the plot keeps at least half of what is left after its axis;
 * else the plot keeps that half (at least 3 rows) and the legend scrolls. */
void chart_layout(int h, int n, int *ph, int *lr);
/* Draws the chart in r: the plot with its axes (y: lo .. hi µs in time
 * units; x: 1 .. x_max, labelled x_label), then the legend below it (each
 * series' mark, name and note). Series are drawn in order, a later one
 * over an earlier one; a finished series goes on dotted to the axis' end.
 * A legend that cannot list every series lists those from
 * o->legend_first and says on a last row how many are above and below
 * and o->scroll_keys; without room for a plot of 3 rows, the legend alone,
 * its first row saying that the plot is hidden. fit (may be NULL) gets
 * what was shown. */
void chart_draw(Grid *g, GridRect r, const ChartSeries *s, int n, int64_t x_max, double lo, double hi,
                const char *x_label, const ChartOpts *o, ChartFit *fit);

#endif
