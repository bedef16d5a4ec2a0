/* Grid tests (layouts/grid.h, layouts/widgets.h): clipping, UTF-8 in and
 * out, line merging, both glyph sets, the text dump, bars and sparklines. */
#include <math.h>
#include <stdlib.h>

#include "grid.h"
#include "test.h"
#include "widgets.h"

/* The grid as ASCII text; the caller frees it. */
static char *ascii(const Grid *g) { return grid_to_text(g, GRID_ASCII); }

static int streq_free(char *got, const char *want)
{
    int ok = strcmp(got, want) == 0;
    if (!ok)
        fprintf(stderr, "  got:\n%s  want:\n%s", got, want);
    free(got);
    return ok;
}

TEST(grid_new_is_blank_and_dump_trims)
{
    Grid *g = grid_new(4, 3);
    CHECK(streq_free(ascii(g), "\n\n\n"));
    grid_put(g, 1, 1, 'x', GS_NONE);
    CHECK(streq_free(ascii(g), "\n x\n\n"));
    CHECK_INT(grid_at(g, 1, 1)->ch, 'x');
    CHECK(grid_at(g, 4, 0) == NULL && grid_at(g, -1, 0) == NULL && grid_at(g, 0, 3) == NULL);
    grid_free(g);
}

TEST(grid_clips_to_bounds_and_clip_rect)
{
    Grid *g = grid_new(5, 2);
    grid_text(g, -2, 0, "abcdefgh", GS_NONE); /* starts off the left edge */
    grid_put(g, 9, 9, 'z', GS_NONE);
    grid_put(g, -1, 1, 'z', GS_NONE);
    CHECK(streq_free(ascii(g), "cdefg\n\n"));
    grid_clip(g, (GridRect){1, 1, 2, 5});
    grid_fill(g, (GridRect){0, 0, 5, 2}, '#', GS_NONE);
    CHECK(streq_free(ascii(g), "cdefg\n ##\n"));
    CHECK_INT(g->clip.h, 1); /* clipped to the grid */
    grid_unclip(g);
    grid_put(g, 4, 1, '!', GS_NONE);
    CHECK(streq_free(ascii(g), "cdefg\n ## !\n"));
    grid_free(g);
}

TEST(grid_resize_clears_and_keeps_working)
{
    Grid *g = grid_new(2, 2);
    grid_put(g, 0, 0, 'a', GS_NONE);
    grid_resize(g, 6, 1);
    CHECK(streq_free(ascii(g), "\n"));
    grid_text(g, 0, 0, "abcdef", GS_NONE);
    CHECK(streq_free(ascii(g), "abcdef\n"));
    grid_resize(g, 0, 0);
    CHECK(streq_free(ascii(g), ""));
    grid_free(g);
}

TEST(grid_utf8_decodes_and_replaces_invalid)
{
    const char *s = "a\xC2\xB5\xE2\x94\x80\xF0\x9F\x98\x80";
    CHECK_INT(grid_utf8_next(&s), 'a');
    CHECK_INT(grid_utf8_next(&s), 0xB5);
    CHECK_INT(grid_utf8_next(&s), 0x2500);
    CHECK_INT(grid_utf8_next(&s), 0x1F600);
    CHECK_INT(*s, 0);
    const char *bad = "\xFF" "x" "\xC3(" "\xE0\x80\x80";
    CHECK_INT(grid_utf8_next(&bad), 0xFFFD);
    CHECK_INT(grid_utf8_next(&bad), 'x');
    CHECK_INT(grid_utf8_next(&bad), 0xFFFD);
    CHECK_INT(grid_utf8_next(&bad), '(');
    CHECK_INT(grid_utf8_next(&bad), 0xFFFD); /* overlong */
    CHECK_INT(grid_text_width("x\xC2\xB5s"), 3);
    char out[4];
    CHECK_INT(grid_utf8_put(out, 0x2502), 3);
    CHECK(memcmp(out, "\xE2\x94\x82", 3) == 0);
}

TEST(grid_text_is_one_cell_per_code_point)
{
    Grid *g = grid_new(8, 1);
    CHECK_INT(grid_text(g, 0, 0, "12 \xC2\xB5s", GS_NONE), 5);
    char *u = grid_to_text(g, GRID_UNICODE);
    CHECK(streq_free(u, "12 \xC2\xB5s\n"));
    CHECK(streq_free(ascii(g), "12 us\n")); /* µ reads as u */
    grid_free(g);
}

TEST(grid_text_fit_cuts_with_ellipsis)
{
    Grid *g = grid_new(12, 3);
    CHECK_INT(grid_text_fit(g, 0, 0, "abcdefgh", 5, GS_NONE), 5);
    CHECK_INT(grid_text_fit(g, 0, 1, "abc", 5, GS_NONE), 3);
    CHECK_INT(grid_text_fit_mid(g, 0, 2, "layer1.conv1", 9, GS_NONE), 9);
    CHECK(streq_free(ascii(g), "abcd~\nabc\nlaye~onv1\n"));
    char *u = grid_to_text(g, GRID_UNICODE);
    CHECK_STR_CONTAINS(u, "abcd\xE2\x80\xA6");
    free(u);
    grid_free(g);
}

TEST(grid_lines_merge_into_junctions)
{
    Grid *g = grid_new(5, 5);
    grid_box(g, (GridRect){0, 0, 5, 5}, GS_BORDER);
    grid_hline(g, 0, 2, 5, GS_EDGE);
    grid_vline(g, 2, 0, 5, GS_EDGE);
    CHECK(streq_free(ascii(g), "+-+-+\n| | |\n+-+-+\n| | |\n+-+-+\n"));
    char *u = grid_to_text(g, GRID_UNICODE);
    CHECK(streq_free(u, "┌─┬─┐\n│ │ │\n├─┼─┤\n│ │ │\n└─┴─┘\n"));
    CHECK_INT(grid_at(g, 2, 2)->style, GS_EDGE); /* the last pen wins */
    CHECK_INT(grid_at(g, 0, 0)->style, GS_BORDER);
    grid_put(g, 1, 1, 'x', GS_NONE); /* text replaces a line cell */
    grid_line(g, 1, 1, GRID_N, GS_EDGE); /* and a line replaces text */
    CHECK_INT(grid_at(g, 1, 1)->ch, GRID_LINE(GRID_N));
    grid_free(g);
}

TEST(grid_glyph_sets_cover_every_symbol)
{
    for (uint32_t ch = GRID_SYM_BASE + 1; ch <= GRID_BAR(8); ch++) {
        uint32_t a = grid_glyph(ch, GRID_ASCII), u = grid_glyph(ch, GRID_UNICODE);
        if (ch == GRID_SPARK_0 || ch == GRID_BAR_0 || (ch > GRID_DOUBLE && ch < GRID_SPARK_0))
            continue; /* not symbols */
        CHECK_MSG(a >= 0x20 && a < 0x7F, "symbol %#x has no ASCII glyph (%#x)", (unsigned)ch, (unsigned)a);
        CHECK_MSG(u != 0xFFFD, "symbol %#x has no Unicode glyph", (unsigned)ch);
    }
    CHECK_INT(grid_glyph(GRID_ARROW_DOWN, GRID_ASCII), 'v');
    CHECK_INT(grid_glyph(GRID_ARROW_DOWN, GRID_UNICODE), 0x25BC);
    CHECK_INT(grid_glyph(0x4E2D, GRID_ASCII), '?');
    CHECK_INT(grid_glyph(0x4E2D, GRID_UNICODE), 0x4E2D);
    CHECK_INT(GRID_PEN_STYLE(GRID_PEN(GS_DEVICE, 7)), GS_DEVICE);
    CHECK_INT(GRID_PEN_INDEX(GRID_PEN(GS_DEVICE, 7)), 7);
    Grid *g = grid_new(1, 1);
    grid_put(g, 0, 0, 'd', GRID_PEN(GS_DEVICE, 300));
    CHECK_INT(grid_at(g, 0, 0)->device, 300 & 0xFF);
    grid_free(g);
}

TEST(widget_bar_fills_by_eighths)
{
    Grid *g = grid_new(20, 4);
    CHECK_INT(widget_bar(g, 0, 0, 20, 0.5, 1.0, "p", "50%"), 14);
    CHECK_INT(widget_bar(g, 0, 1, 12, 3, 2, NULL, "OOM"), 8);
    CHECK_INT(widget_bar(g, 0, 2, 10, 0.0, 1.0, NULL, NULL), 10);
    CHECK_INT(widget_bar(g, 0, 3, 4, 1, 1, "long label", "text"), 0); /* no room: the text */
    CHECK(streq_free(ascii(g), "p #######....... 50%\n######## OOM\n..........\ntext\n"));
    CHECK_INT(grid_at(g, 0, 1)->style, GS_BAR_OVER);
    CHECK_INT(grid_at(g, 9, 0)->style, GS_BAR_EMPTY);
    /* eighths: 0.3 of 4 cells = 9.6 eighths -> one full cell and 2/8 (rounded 10) */
    grid_clear(g);
    widget_bar(g, 0, 0, 4, 0.3, 1.0, NULL, NULL);
    CHECK_INT(grid_at(g, 0, 0)->ch, GRID_BAR(8));
    CHECK_INT(grid_at(g, 1, 0)->ch, GRID_BAR(2));
    CHECK_INT(grid_at(g, 2, 0)->ch, GRID_SHADE);
    widget_bar(g, 0, 1, 4, NAN, 1.0, NULL, NULL);
    CHECK_INT(grid_at(g, 0, 1)->ch, GRID_SHADE);
    grid_free(g);
}

TEST(widget_sparkline_levels_and_buckets)
{
    Grid *g = grid_new(10, 4);
    double up[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    CHECK_INT(widget_sparkline(g, 0, 0, 10, up, 8, 0, 0, GS_SPARK), 8);
    for (int i = 0; i < 8; i++)
        CHECK_INT(grid_at(g, i, 0)->ch, GRID_SPARK(i + 1));
    double flat[3] = {5, 5, 5}, gaps[3] = {1, NAN, 3};
    widget_sparkline(g, 0, 1, 10, flat, 3, 0, 0, GS_SPARK);
    widget_sparkline(g, 0, 2, 10, gaps, 3, 0, 10, GS_SPARK);
    double many[40];
    for (int i = 0; i < 40; i++)
        many[i] = i < 20 ? 0 : 100; /* two halves -> 4 low, 4 high cells over 8 */
    CHECK_INT(widget_sparkline(g, 0, 3, 8, many, 40, 0, 0, GS_SPARK), 8);
    CHECK(streq_free(ascii(g), "_.-~=+*#\n___\n. -\n____####\n"));
    char *u = grid_to_text(g, GRID_UNICODE);
    CHECK_STR_CONTAINS(u, "▁▂▃▄▅▆▇█");
    free(u);
    CHECK_INT(widget_sparkline(g, 0, 0, 0, up, 8, 0, 0, GS_SPARK), 0);
    grid_free(g);
}

/* The lines widget_wrap gives for text at width, joined with '|'. */
static void wrapped(const char *text, int width, char *out, size_t n)
{
    int start[32], len[32];
    int lines = widget_wrap(text, width, start, len, 32);
    size_t used = 0;
    out[0] = 0;
    for (int k = 0; k < lines && k < 32; k++)
        used += (size_t)snprintf(out + used, n - used, "%s%.*s", k ? "|" : "", len[k], text + start[k]);
}

TEST(widget_wrap_breaks_at_words_and_newlines)
{
    char out[256];
    wrapped("the quick brown fox jumps", 10, out, sizeof out);
    CHECK_STR(out, "the quick|brown fox|jumps");
    wrapped("the quick\nbrown", 40, out, sizeof out);
    CHECK_STR(out, "the quick|brown");
    wrapped("abcdefghijklmnop", 6, out, sizeof out);
    CHECK_STR(out, "abcdef|ghijkl|mnop");
    wrapped("a  b", 1, out, sizeof out);
    CHECK_STR(out, "a|b");
    wrapped("para one\n\npara two\n", 20, out, sizeof out);
    CHECK_STR(out, "para one||para two");
    wrapped("", 5, out, sizeof out);
    CHECK_STR(out, "");
    CHECK_INT(widget_wrap("", 5, NULL, NULL, 0), 1);
    /* code points, not bytes: each of these is one cell */
    wrapped("\xc3\xa9\xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9", 4, out, sizeof out);
    CHECK_STR(out, "\xc3\xa9\xc3\xa9\xc3\xa9|\xc3\xa9\xc3\xa9");
    /* the count of lines even when fewer are filled */
    CHECK_INT(widget_wrap("aa bb cc dd", 2, NULL, NULL, 0), 4);
}
