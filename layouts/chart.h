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
} ChartSeries;

/* The column (0 .. w-1) of count x on an axis of w cells for 1 .. x_max. */
int chart_col(int64_t x, int64_t x_max, int w);
/* The row (0 at the top .. h-1) of value y on an axis of h cells from lo
 * (bottom) to hi (top); y outside is clamped. */
int chart_row(double y, double lo, double hi, int h);
/* The rows the legend takes for n series in width w (one series a row). */
int chart_legend_rows(int n);
/* Draws the chart in r: the plot with its axes (y: lo .. hi µs in time
 * units; x: 1 .. x_max, labelled x_label), then the legend below it (each
 * series' mark, name and note). Series are drawn in order, a later one
 * over an earlier one; a finished series goes on dotted to the axis' end.
 * Without room for a plot of 3 rows, the legend alone. */
void chart_draw(Grid *g, GridRect r, const ChartSeries *s, int n, int64_t x_max, double lo, double hi,
                const char *x_label);

#endif
