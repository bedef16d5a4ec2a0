/* widgets: see widgets.h. */
#include "widgets.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

/* The byte length of the UTF-8 sequence led by c (1 for a stray byte). */
static int utf8_len(unsigned char c)
{
    return c >= 0xf0 && c < 0xf8 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

/* Bytes of the code point at p (not beyond its end). */
static int cp_bytes(const char *p)
{
    int n = utf8_len((unsigned char)*p);
    for (int k = 1; k < n; k++)
        if (!p[k])
            return k;
    return n;
}

int widget_wrap(const char *text, int width, int *start, int *len, int max)
{
    if (width < 1)
        width = 1;
    int n = 0;
    const char *p = text;
    for (;;) {
        /* one line from p: as many whole words as fit */
        const char *q = p, *brk = NULL, *end, *next;
        int cells = 0, last = 0;
        while (*q && *q != '\n' && cells < width) {
            if (*q == ' ')
                brk = q;
            q += cp_bytes(q);
            cells++;
        }
        if (!*q || *q == '\n') { /* the rest of the paragraph fits */
            end = q;
            next = *q ? q + 1 : q;
            last = !*q || !q[1];
        } else if (*q == ' ') { /* full, at a space */
            end = q;
            next = q + 1;
        } else if (brk && brk > p) { /* full, in a word: break at the last space */
            end = brk;
            next = brk + 1;
        } else { /* a word longer than the line: cut it */
            end = next = q;
        }
        if (next != q + 1 || *q != '\n') /* a soft break: the next line starts at a word */
            while (*next == ' ')
                next++;
        while (end > p && end[-1] == ' ')
            end--;
        if (n < max) {
            start[n] = (int)(p - text);
            len[n] = (int)(end - p);
        }
        n++;
        if (last || !*next)
            break;
        p = next;
    }
    return n;
}

int widget_text_wrapped(Grid *g, GridRect r, const char *text, int skip, int pen)
{
    enum { MAX_LINES = 256 };
    int start[MAX_LINES], len[MAX_LINES];
    int n = widget_wrap(text, r.w, start, len, MAX_LINES);
    for (int k = skip; k < n && k < MAX_LINES && k - skip < r.h; k++) {
        char line[1024];
        snprintf(line, sizeof line, "%.*s", len[k], text + start[k]);
        grid_text_fit(g, r.x, r.y + k - skip, line, r.w, pen);
    }
    return n;
}
