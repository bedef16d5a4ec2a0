/* widgets: see widgets.h. */
#include "widgets.h"

#include <math.h>

int widget_bar(Grid *g, int x, int y, int w, double value, double capacity, const char *label, const char *text)
{
    int lw = label ? grid_text_width(label) + 1 : 0, tw = text ? grid_text_width(text) + 1 : 0;
    int bw = w - lw - tw;
    if (bw < 1) { /* no room for a bar: the text alone */
        if (text)
            grid_text_fit(g, x, y, text, w, GS_LABEL);
        return 0;
    }
    if (label)
        grid_text(g, x, y, label, GS_LABEL);
    if (text)
        grid_text(g, x + w - tw + 1, y, text, GS_LABEL);
    int over = capacity > 0 && value > capacity;
    double frac = capacity > 0 && value > 0 ? value / capacity : 0;
    if (!(frac >= 0)) /* NaN */
        frac = 0;
    long eighths = over ? 8L * bw : lround(frac * 8.0 * bw);
    int bx = x + lw;
    for (int i = 0; i < bw; i++) {
        long k = eighths - 8L * i;
        if (k >= 8)
            grid_put(g, bx + i, y, GRID_BAR(8), over ? GS_BAR_OVER : GS_BAR);
        else if (k > 0)
            grid_put(g, bx + i, y, GRID_BAR(k), GS_BAR);
        else
            grid_put(g, bx + i, y, GRID_SHADE, GS_BAR_EMPTY);
    }
    return bw;
}

/* The mean of v[a..b), ignoring NaN; NaN when all are NaN. */
static double bucket_mean(const double *v, int a, int b)
{
    double s = 0;
    int k = 0;
    for (int i = a; i < b; i++)
        if (!isnan(v[i])) {
            s += v[i];
            k++;
        }
    return k ? s / k : NAN;
}

int widget_sparkline(Grid *g, int x, int y, int w, const double *v, int n, double lo, double hi, int pen)
{
    int cells = n < w ? n : w;
    if (cells <= 0)
        return 0;
    double mn = INFINITY, mx = -INFINITY;
    for (int k = 0; k < cells; k++) {
        double m = n <= w ? v[k] : bucket_mean(v, (int)((long)k * n / w), (int)((long)(k + 1) * n / w));
        if (!isnan(m)) {
            mn = m < mn ? m : mn;
            mx = m > mx ? m : mx;
        }
    }
    if (!(lo < hi)) {
        lo = mn;
        hi = mx;
    }
    for (int k = 0; k < cells; k++) {
        double m = n <= w ? v[k] : bucket_mean(v, (int)((long)k * n / w), (int)((long)(k + 1) * n / w));
        if (isnan(m))
            continue;
        int level = 1;
        if (hi > lo) {
            double f = (m - lo) / (hi - lo);
            f = f < 0 ? 0 : f > 1 ? 1 : f;
            level = 1 + (int)(f * 7.0 + 0.5);
        }
        grid_put(g, x + k, y, GRID_SPARK(level), pen);
    }
    return cells;
}
