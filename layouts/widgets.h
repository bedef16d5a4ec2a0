/* widgets: small one-row renders the explorer places in its panes — a
 * horizontal bar (a probability, memory against capacity) and a sparkline (the
 * runtime over an episode's steps, a learning curve). Pure functions of their
 * arguments drawn onto a Grid (grid.h); they clip like every grid function and
 * never allocate. */
#ifndef PLACETO_WIDGETS_H
#define PLACETO_WIDGETS_H

#include "grid.h"

/* A bar on row y from column x, w cells wide:
 *   "label #########.... text"   (ASCII; Unicode: eighth blocks and shade)
 * label (may be NULL) takes its own width plus one space; text (may be NULL)
 * takes one space plus its width at the right end; the bar gets the rest, with
 * eighth-cell resolution (GRID_BAR glyphs, GS_BAR) and the empty part shaded
 * (GS_BAR_EMPTY). value > capacity draws the whole bar in GS_BAR_OVER;
 * capacity <= 0 or a NaN draws an empty bar. Returns the bar's width in cells
 * (0 when nothing fits). */
int widget_bar(Grid *g, int x, int y, int w, double value, double capacity, const char *label, const char *text);

/* A sparkline of n values on row y from column x, w cells wide, eight levels
 * (GRID_SPARK glyphs). With n <= w one cell per value, left-aligned; with
 * n > w the values are averaged in w consecutive buckets (bucket k holds
 * values [k*n/w, (k+1)*n/w)). The scale runs from lo to hi; with lo >= hi it
 * is the range of the (bucketed) values, and a flat series sits at level 1.
 * NaN values leave their cell blank. Returns the cells used. */
int widget_sparkline(Grid *g, int x, int y, int w, const double *v, int n, double lo, double hi, int pen);

/* Word-wraps UTF-8 text to lines of at most width code points: '\n' ends a
 * line, spaces where a line breaks are dropped, a word longer than width is
 * cut across lines. Fills the byte offset and byte length of up to max lines
 * (start and len may be NULL when max is 0) and returns how many lines the
 * text needs (which may be more than max). width < 1 counts as 1. */
int widget_wrap(const char *text, int width, int *start, int *len, int max);

/* Draws the wrapped text into the rectangle r from its first row, skipping
 * the first skip lines; returns the lines the text needs in r's width. */
int widget_text_wrapped(Grid *g, GridRect r, const char *text, int skip, int pen);

#endif
