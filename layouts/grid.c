/* grid: see grid.h. Cells, clipping, lines with merged masks, UTF-8 text and
 * the two glyph sets. */
#include "grid.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static const GridCell blank = {' ', GS_NONE, 0};

Grid *grid_new(int w, int h)
{
    Grid *g = xcalloc(1, sizeof *g);
    grid_resize(g, w, h);
    return g;
}

void grid_free(Grid *g)
{
    if (!g)
        return;
    free(g->cells);
    free(g);
}

void grid_clear(Grid *g)
{
    size_t n = (size_t)g->w * (size_t)g->h;
    for (size_t i = 0; i < n; i++)
        g->cells[i] = blank;
    grid_unclip(g);
}

void grid_resize(Grid *g, int w, int h)
{
    g->w = w > 0 ? w : 0;
    g->h = h > 0 ? h : 0;
    size_t need = (size_t)g->w * (size_t)g->h;
    if (need > g->cap || !g->cells) {
        free(g->cells);
        g->cap = need ? need : 1;
        g->cells = xmalloc_array(g->cap, sizeof *g->cells);
    }
    grid_clear(g);
}

void grid_unclip(Grid *g)
{
    g->clip = (GridRect){0, 0, g->w, g->h};
}

static int imax(int a, int b) { return a > b ? a : b; }
static int imin(int a, int b) { return a < b ? a : b; }

void grid_clip(Grid *g, GridRect r)
{
    int x0 = imax(r.x, 0), y0 = imax(r.y, 0);
    int x1 = imin(r.x + r.w, g->w), y1 = imin(r.y + r.h, g->h);
    g->clip = (GridRect){x0, y0, imax(x1 - x0, 0), imax(y1 - y0, 0)};
}

const GridCell *grid_at(const Grid *g, int x, int y)
{
    if (x < 0 || y < 0 || x >= g->w || y >= g->h)
        return NULL;
    return &g->cells[(size_t)y * (size_t)g->w + (size_t)x];
}

/* The cell at (x, y) if it lies inside the clip, else NULL. */
static GridCell *cell(Grid *g, int x, int y)
{
    const GridRect *c = &g->clip;
    if (x < c->x || y < c->y || x >= c->x + c->w || y >= c->y + c->h)
        return NULL;
    return &g->cells[(size_t)y * (size_t)g->w + (size_t)x];
}

void grid_put(Grid *g, int x, int y, uint32_t ch, int pen)
{
    GridCell *c = cell(g, x, y);
    if (c)
        *c = (GridCell){ch, (uint8_t)GRID_PEN_STYLE(pen), (uint8_t)GRID_PEN_INDEX(pen)};
}

void grid_line(Grid *g, int x, int y, int mask, int pen)
{
    GridCell *c = cell(g, x, y);
    if (!c)
        return;
    uint32_t old = GRID_IS_LINE(c->ch) ? c->ch - GRID_SYM_BASE : 0;
    *c = (GridCell){GRID_LINE(old | (uint32_t)(mask & 15)), (uint8_t)GRID_PEN_STYLE(pen),
                    (uint8_t)GRID_PEN_INDEX(pen)};
}

/* A run of len cells along one axis: inner cells connect both ways, the
 * ends only inwards (so that a line ending on another makes a junction, not
 * a crossing); a single cell connects both ways. */
static int run_mask(int i, int len, int before, int after)
{
    if (len == 1)
        return before | after;
    return (i > 0 ? before : 0) | (i < len - 1 ? after : 0);
}

void grid_hline(Grid *g, int x, int y, int len, int pen)
{
    for (int i = 0; i < len; i++)
        grid_line(g, x + i, y, run_mask(i, len, GRID_W, GRID_E), pen);
}

void grid_vline(Grid *g, int x, int y, int len, int pen)
{
    for (int i = 0; i < len; i++)
        grid_line(g, x, y + i, run_mask(i, len, GRID_N, GRID_S), pen);
}

void grid_box(Grid *g, GridRect r, int pen)
{
    if (r.w <= 0 || r.h <= 0)
        return;
    int x1 = r.x + r.w - 1, y1 = r.y + r.h - 1;
    for (int x = r.x + 1; x < x1; x++) {
        grid_line(g, x, r.y, GRID_E | GRID_W, pen);
        grid_line(g, x, y1, GRID_E | GRID_W, pen);
    }
    for (int y = r.y + 1; y < y1; y++) {
        grid_line(g, r.x, y, GRID_N | GRID_S, pen);
        grid_line(g, x1, y, GRID_N | GRID_S, pen);
    }
    grid_line(g, r.x, r.y, GRID_E | GRID_S, pen);
    grid_line(g, x1, r.y, GRID_W | GRID_S, pen);
    grid_line(g, r.x, y1, GRID_E | GRID_N, pen);
    grid_line(g, x1, y1, GRID_W | GRID_N, pen);
}

void grid_fill(Grid *g, GridRect r, uint32_t ch, int pen)
{
    for (int y = r.y; y < r.y + r.h; y++)
        for (int x = r.x; x < r.x + r.w; x++)
            grid_put(g, x, y, ch, pen);
}

/* ---- UTF-8 ---- */

uint32_t grid_utf8_next(const char **s)
{
    const unsigned char *p = (const unsigned char *)*s;
    uint32_t c = p[0];
    int n = c < 0x80 ? 0 : c >= 0xC2 && c < 0xE0 ? 1 : c >= 0xE0 && c < 0xF0 ? 2 : c >= 0xF0 && c < 0xF5 ? 3 : -1;
    if (n < 0) {
        *s += 1;
        return 0xFFFD;
    }
    c = n == 0 ? c : n == 1 ? c & 0x1F : n == 2 ? c & 0x0F : c & 0x07;
    for (int i = 1; i <= n; i++) {
        if ((p[i] & 0xC0) != 0x80) {
            *s += i;
            return 0xFFFD;
        }
        c = (c << 6) | (p[i] & 0x3F);
    }
    *s += n + 1;
    /* overlong, surrogate or out of range */
    if ((n == 2 && c < 0x800) || (n == 3 && (c < 0x10000 || c > 0x10FFFF)) || (c >= 0xD800 && c < 0xE000))
        return 0xFFFD;
    return c;
}

int grid_utf8_put(char out[4], uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

int grid_text_width(const char *utf8)
{
    int n = 0;
    while (*utf8) {
        grid_utf8_next(&utf8);
        n++;
    }
    return n;
}

int grid_text(Grid *g, int x, int y, const char *utf8, int pen)
{
    int n = 0;
    while (*utf8)
        grid_put(g, x + n++, y, grid_utf8_next(&utf8), pen);
    return n;
}

int grid_text_fit(Grid *g, int x, int y, const char *utf8, int max, int pen)
{
    if (max <= 0)
        return 0;
    int width = grid_text_width(utf8), n = 0;
    int room = width <= max ? width : max - 1;
    while (n < room)
        grid_put(g, x + n++, y, grid_utf8_next(&utf8), pen);
    if (width > max)
        grid_put(g, x + n++, y, GRID_ELLIPSIS, pen);
    return n;
}

int grid_text_fit_mid(Grid *g, int x, int y, const char *utf8, int max, int pen)
{
    int width = grid_text_width(utf8);
    if (width <= max || max < 3)
        return grid_text_fit(g, x, y, utf8, max, pen);
    int head = (max - 1) / 2, skip = width - (max - 1 - head);
    for (int i = 0; i < width; i++) {
        uint32_t cp = grid_utf8_next(&utf8);
        if (i < head)
            grid_put(g, x + i, y, cp, pen);
        else if (i >= skip)
            grid_put(g, x + head + 1 + (i - skip), y, cp, pen);
    }
    grid_put(g, x + head, y, GRID_ELLIPSIS, pen);
    return max;
}

/* ---- glyph sets ---- */

/* Box drawing by mask (N=1, E=2, S=4, W=8). */
static const uint32_t line_uni[16] = {' ',    0x2502, 0x2500, 0x2514, 0x2502, 0x2502, 0x250C, 0x251C,
                                      0x2500, 0x2518, 0x2500, 0x2534, 0x2510, 0x2524, 0x252C, 0x253C};
static const char line_ascii[16] = {' ', '|', '-', '+', '|', '|', '+', '+',
                                    '-', '+', '-', '+', '+', '+', '+', '+'};

/* Other symbols from GRID_ARROW_UP on: Unicode, ASCII. */
static const uint32_t sym_uni[] = {0x25B2, 0x25BC, 0x25C0, 0x25B6, 0x25CF, 0x25C9, 0x2588, 0x2591, 0x2026,
                                   0x2590, 0x258C, 0x2580, 0x2550};
static const char sym_ascii[] = "^v<>o@#.~[]^=";

static const uint32_t spark_uni[9] = {' ', 0x2581, 0x2582, 0x2583, 0x2584, 0x2585, 0x2586, 0x2587, 0x2588};
static const char spark_ascii[9] = " _.-~=+*#";
static const uint32_t bar_uni[9] = {' ', 0x258F, 0x258E, 0x258D, 0x258C, 0x258B, 0x258A, 0x2589, 0x2588};

static uint32_t ascii_of(uint32_t ch)
{
    if (ch < 0x80)
        return ch;
    if (ch == 0xB5 || ch == 0x3BC) /* micro sign, Greek mu */
        return 'u';
    if (ch == 0x2192)
        return '>';
    if (ch == 0xD7)
        return 'x';
    return '?';
}

uint32_t grid_glyph(uint32_t ch, GridGlyphs glyphs)
{
    int ascii = glyphs == GRID_ASCII;
    if (ch < GRID_SYM_BASE)
        return ascii ? ascii_of(ch) : ch;
    uint32_t k = ch - GRID_SYM_BASE;
    if (k < 16)
        return ascii ? (uint32_t)line_ascii[k] : line_uni[k];
    if (ch >= GRID_ARROW_UP && ch <= GRID_DOUBLE) {
        k = ch - GRID_ARROW_UP;
        return ascii ? (uint32_t)sym_ascii[k] : sym_uni[k];
    }
    if (ch > GRID_SPARK_0 && ch <= GRID_SPARK(8)) {
        k = ch - GRID_SPARK_0;
        return ascii ? (uint32_t)spark_ascii[k] : spark_uni[k];
    }
    if (ch > GRID_BAR_0 && ch <= GRID_BAR(8)) {
        k = ch - GRID_BAR_0;
        return ascii ? (uint32_t)(k >= 4 ? '#' : ' ') : bar_uni[k];
    }
    return ascii ? '?' : 0xFFFD;
}

char *grid_to_text(const Grid *g, GridGlyphs glyphs)
{
    StrBuf b = {0};
    sb_puts(&b, "");
    for (int y = 0; y < g->h; y++) {
        size_t keep = b.len; /* end of the row without trailing spaces */
        for (int x = 0; x < g->w; x++) {
            char u[4];
            uint32_t cp = grid_glyph(grid_at(g, x, y)->ch, glyphs);
            int n = grid_utf8_put(u, cp);
            for (int i = 0; i < n; i++)
                sb_putc(&b, u[i]);
            if (cp != ' ')
                keep = b.len;
        }
        b.len = keep;
        sb_putc(&b, '\n');
    }
    b.s[b.len] = '\0';
    return b.s;
}
