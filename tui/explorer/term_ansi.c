/* term_ansi: the explorer's frames as ANSI escape sequences, for
 * recordings (term.h, record.c): the theme of theme.c, the glyph rules of
 * term.c, no curses and no terminal. */
#include <stdlib.h>

#include "term.h"
#include "theme.h"

enum { D = THEME_D, PAL = THEME_PAL };

struct TermAnsi {
    int colors;
    GridGlyphs glyphs;
    GridCell *shadow; /* what the recorded screen shows, w x h */
    int w, h;
    int valid;
};

TermAnsi *term_ansi_new(int colors, GridGlyphs glyphs)
{
    TermAnsi *s = xcalloc(1, sizeof *s);
    s->colors = colors == 256 || colors == 8 ? colors : 0;
    s->glyphs = glyphs;
    return s;
}

void term_ansi_free(TermAnsi *s)
{
    if (s)
        free(s->shadow);
    free(s);
}

void term_ansi_invalidate(TermAnsi *s)
{
    s->valid = 0;
}

/* Code points a terminal may show wider or narrower than one cell (combining
 * marks, zero-width ones, East Asian wide ranges, emoji): a fixed table, so
 * that recordings do not depend on the locale. */
static int ansi_single_width(uint32_t u)
{
    static const uint32_t odd[][2] = {
        {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x0610, 0x061A}, {0x064B, 0x065F},
        {0x0E31, 0x0E3A}, {0x1100, 0x115F}, {0x200B, 0x200F}, {0x2028, 0x202E}, {0x2060, 0x206F},
        {0x20D0, 0x20FF}, {0x2E80, 0xA4CF}, {0xAC00, 0xD7A3}, {0xD800, 0xDFFF}, {0xF900, 0xFAFF},
        {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F}, {0xFE30, 0xFE4F}, {0xFEFF, 0xFEFF}, {0xFF00, 0xFF60},
        {0xFFE0, 0xFFE6}, {0x1F000, 0x1FAFF}, {0x20000, 0x10FFFF},
    };
    for (size_t k = 0; k < sizeof odd / sizeof odd[0]; k++)
        if (u >= odd[k][0] && u <= odd[k][1])
            return 0;
    return 1;
}

typedef struct Sgr {
    short fg, bg; /* D: the terminal's default */
    unsigned attr;
} Sgr;

/* The colours and attributes of a cell, as put_cell() gives them through
 * curses, and the code point shown. */
static Sgr ansi_look(const TermAnsi *s, GridCell c, uint32_t *shown)
{
    int style = c.style < GS_COUNT ? c.style : GS_NONE;
    Sgr r = {D, D, 0};
    if (s->colors == 256) {
        r.fg = theme_rows[style].c256.fg;
        r.bg = theme_rows[style].c256.bg;
        r.attr = theme_rows[style].c256.attr;
        if (style == GS_DEVICE)
            r.bg = theme_dev256[c.device % THEME_N_DEV];
        else if (style == GS_GROUP)
            r.bg = theme_grp256[c.device % THEME_N_GRP];
        else if (style == GS_SERIES)
            r.fg = theme_series256[c.device % THEME_N_SERIES];
    } else if (s->colors == 8) {
        r.fg = theme_rows[style].c8.fg;
        r.bg = theme_rows[style].c8.bg;
        r.attr = theme_rows[style].c8.attr;
        if (style == GS_DEVICE || style == GS_GROUP) {
            int k = style == GS_DEVICE ? c.device % THEME_N_DEV : c.device % THEME_N_GRP % THEME_N_GRP8;
            r.fg = theme_dev8[k][1];
            r.bg = theme_dev8[k][0];
            r.attr = (style == GS_DEVICE && k == THEME_N_DEV - 1) || (style == GS_GROUP && c.device % THEME_N_GRP >= THEME_N_GRP8)
                         ? TA_UNDERLINE
                         : 0;
        } else if (style == GS_SERIES) {
            r.fg = theme_series8[c.device % THEME_N_SERIES8];
            r.attr = theme_series8_attr(c.device);
        }
    } else {
        r.attr = theme_rows[style].mono;
    }
    if (r.bg == PAL)
        r.bg = D;
    int filled = r.bg >= 0 || (r.attr & TA_REVERSE);
    uint32_t ch = c.ch;
    if (filled && ch == (uint32_t)GRID_FULL)
        ch = ' ';
    uint32_t u = grid_glyph(ch, s->glyphs);
    if (filled && u >= 0x2580 && u <= 0x259F) { /* blocks paint with the fill colour */
        if (r.bg >= 0) {
            r.fg = r.bg;
            r.bg = D;
        }
        r.attr &= ~(unsigned)TA_REVERSE;
    }
    if (u < 0x20 || (u >= 0x7F && u < 0xA0) || (u >= 0x80 && !ansi_single_width(u)))
        u = '?';
    *shown = u;
    return r;
}

TermLook term_ansi_look(int colors, GridGlyphs glyphs, GridCell c)
{
    TermAnsi s = {0};
    s.colors = colors == 256 || colors == 8 ? colors : 0;
    s.glyphs = glyphs;
    TermLook lk;
    Sgr r = ansi_look(&s, c, &lk.ch);
    lk.fg = r.fg;
    lk.bg = r.bg;
    lk.attr = r.attr;
    return lk;
}

static void ansi_colour(StrBuf *out, int colors, short c, int base)
{
    if (c < 0)
        sb_printf(out, ";%d", base + 9);
    else if (colors == 256)
        sb_printf(out, ";%d;5;%d", base + 8, c);
    else
        sb_printf(out, ";%d", c < 8 ? base + c : base + 60 + c - 8);
}

static void ansi_sgr(const TermAnsi *s, StrBuf *out, Sgr g)
{
    sb_puts(out, "\033[0");
    if (g.attr & TA_BOLD)
        sb_puts(out, ";1");
    if (g.attr & TA_DIM)
        sb_puts(out, ";2");
    if (g.attr & TA_UNDERLINE)
        sb_puts(out, ";4");
    if (g.attr & TA_REVERSE)
        sb_puts(out, ";7");
    if (g.fg >= 0)
        ansi_colour(out, s->colors, g.fg, 30);
    if (g.bg >= 0)
        ansi_colour(out, s->colors, g.bg, 40);
    sb_putc(out, 'm');
}

void term_ansi_frame(TermAnsi *s, const Grid *g, StrBuf *out)
{
    if (!g)
        return;
    const GridCell blank = {' ', GS_NONE, 0};
    if (!s->shadow || g->w != s->w || g->h != s->h) {
        free(s->shadow);
        s->shadow = xnew_array((size_t)(g->w > 0 ? g->w : 1) * (size_t)(g->h > 0 ? g->h : 1), sizeof *s->shadow);
        s->w = g->w;
        s->h = g->h;
        s->valid = 0;
    }
    if (!s->valid) { /* a cleared screen, then every cell that is not blank */
        for (size_t k = 0; k < (size_t)s->w * (size_t)s->h; k++)
            s->shadow[k] = blank;
        sb_puts(out, "\033[0m\033[?25l\033[H\033[2J");
        s->valid = 1;
    }
    Sgr cur = {D, D, 0};
    int cx = -1, cy = -1;
    for (int y = 0; y < g->h; y++)
        for (int x = 0; x < g->w; x++) {
            GridCell c = g->cells[(size_t)y * (size_t)g->w + (size_t)x];
            GridCell *was = &s->shadow[(size_t)y * (size_t)s->w + (size_t)x];
            if (c.style != GS_DEVICE && c.style != GS_GROUP && c.style != GS_SERIES)
                c.device = 0;
            if (was->ch == c.ch && was->style == c.style && was->device == c.device)
                continue;
            *was = c;
            uint32_t u;
            Sgr look = ansi_look(s, c, &u);
            if (y != cy || x != cx)
                sb_printf(out, "\033[%d;%dH", y + 1, x + 1);
            if (look.fg != cur.fg || look.bg != cur.bg || look.attr != cur.attr)
                ansi_sgr(s, out, look);
            cur = look;
            char utf8[4];
            int n = grid_utf8_put(utf8, u);
            for (int k = 0; k < n; k++)
                sb_putc(out, utf8[k]);
            cx = x + 1;
            cy = y;
        }
    if (cur.fg != D || cur.bg != D || cur.attr)
        sb_puts(out, "\033[0m");
}

void term_ansi_end(TermAnsi *s, StrBuf *out)
{
    sb_printf(out, "\033[0m\033[%d;1H\033[?25h", s->h + 1);
}
