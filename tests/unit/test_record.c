/* Recording tests (tui/record.h, the ANSI frames of tui/term.h): JSON
 * escaping of control characters and of valid and invalid UTF-8, frames
 * as escape sequences (a whole screen, then only what changed), and a
 * recording's file: header, events, the rename, errors. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "term.h"
#include "test.h"

/* record_json_bytes(data, len) as a string; the caller frees it. */
static char *escaped(const char *data, size_t len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    record_json_bytes(f, data, len);
    fclose(f);
    return buf;
}

static int escapes_to(const char *data, size_t len, const char *want)
{
    char *got = escaped(data, len);
    int ok = strcmp(got, want) == 0;
    if (!ok)
        fprintf(stderr, "  got %s, want %s\n", got, want);
    free(got);
    return ok;
}

TEST(record_json_escapes_controls_quotes_and_backslashes)
{
    CHECK(escapes_to("a\"b\\c", 5, "\"a\\\"b\\\\c\""));
    CHECK(escapes_to("\033[1;2H\r\n\t\x7f", 10, "\"\\u001b[1;2H\\r\\n\\t\\u007f\""));
    CHECK(escapes_to("x\0y", 3, "\"x\\u0000y\"")); /* a NUL byte is data too */
    CHECK(escapes_to("", 0, "\"\""));
}

TEST(record_json_keeps_utf8_and_replaces_invalid_bytes)
{
    CHECK(escapes_to("caf\xc3\xa9 \xe2\x94\x80 \xf0\x9f\x98\x80", 14, "\"caf\xc3\xa9 \xe2\x94\x80 \xf0\x9f\x98\x80\""));
    CHECK(escapes_to("a\xff" "b", 3, "\"a\\ufffdb\""));            /* not a lead byte */
    CHECK(escapes_to("\xc3", 1, "\"\\ufffd\""));                   /* cut short */
    CHECK(escapes_to("\xc0\xaf", 2, "\"\\ufffd\\ufffd\""));        /* overlong */
    CHECK(escapes_to("\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"")); /* a surrogate */
    CHECK(escapes_to("\xe2\x94", 2, "\"\\ufffd\\ufffd\""));        /* a chunk ending mid-character */
}

TEST(term_ansi_draws_the_screen_then_the_changes)
{
    Grid *g = grid_new(6, 2);
    grid_text(g, 0, 0, "ab", GS_NONE);
    grid_text(g, 2, 1, "\xc2\xb5s", GS_TITLE);
    TermAnsi *s = term_ansi_new(0, GRID_UNICODE);
    StrBuf b = {0};
    term_ansi_frame(s, g, &b);
    sb_putc(&b, '\0');
    CHECK_MSG(strcmp(b.s, "\033[0m\033[?25l\033[H\033[2J\033[1;1Hab\033[2;3H\033[0;1m\xc2\xb5s\033[0m") == 0, "got %s",
              b.s);
    b.len = 0;
    term_ansi_frame(s, g, &b); /* nothing changed */
    CHECK_INT((int)b.len, 0);
    grid_put(g, 1, 0, 'X', GS_NONE);
    term_ansi_frame(s, g, &b);
    sb_putc(&b, '\0');
    CHECK_MSG(strcmp(b.s, "\033[1;2HX") == 0, "got %s", b.s);
    b.len = 0;
    term_ansi_invalidate(s); /* a repaint clears first */
    term_ansi_frame(s, g, &b);
    sb_putc(&b, '\0');
    CHECK(strncmp(b.s, "\033[0m\033[?25l\033[H\033[2J", 16) == 0);
    b.len = 0;
    grid_put(g, 0, 1, '\x01', GS_NONE); /* a control character never reaches the terminal */
    grid_put(g, 1, 1, 0x4E2D, GS_NONE); /* nor a wide one */
    term_ansi_frame(s, g, &b);
    sb_putc(&b, '\0');
    CHECK_MSG(strcmp(b.s, "\033[2;1H??") == 0, "got %s", b.s);
    sb_free(&b);
    term_ansi_free(s);
    grid_free(g);
}

TEST(term_ansi_colours_follow_the_mode)
{
    Grid *g = grid_new(2, 1);
    grid_put(g, 0, 0, 'a', GRID_PEN(GS_DEVICE, 1));
    grid_put(g, 1, 0, GRID_FULL, GRID_PEN(GS_DEVICE, 1));
    StrBuf b = {0};
    TermAnsi *s = term_ansi_new(256, GRID_ASCII);
    term_ansi_frame(s, g, &b);
    sb_putc(&b, '\0');
    CHECK_MSG(strstr(b.s, "\033[0;38;5;16;48;5;150ma ") != NULL, "got %s", b.s); /* a full block is the fill */
    term_ansi_free(s);
    b.len = 0;
    s = term_ansi_new(8, GRID_ASCII);
    term_ansi_frame(s, g, &b);
    sb_putc(&b, '\0');
    CHECK_MSG(strstr(b.s, "\033[0;30;42ma") != NULL, "got %s", b.s);
    term_ansi_free(s);
    sb_free(&b);
    grid_free(g);
}

TEST(record_writes_header_and_events_and_renames)
{
    char dir[] = "/tmp/placeto_rec_XXXXXX";
    REQUIRE(mkdtemp(dir) != NULL);
    char path[256], tmp[300];
    snprintf(path, sizeof path, "%s/a.cast", dir);
    RecordInfo info = {4, 1, 0, GRID_ASCII, 5, "t\"", NULL, NULL};
    Err e = {{0}};
    Recorder *r = record_open(path, &info, &e);
    REQUIRE_MSG(r != NULL, "%s", e.msg);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    CHECK(access(path, F_OK) != 0 && access(tmp, F_OK) == 0); /* not in place before the end */
    Grid *g = grid_new(4, 1);
    grid_text(g, 0, 0, "hi", GS_NONE);
    record_frame(r, g, 0.5);
    record_frame(r, g, 1.0); /* no change: no event */
    grid_text(g, 0, 0, "ho", GS_NONE);
    record_frame(r, g, 0.25); /* earlier than the last event: kept at 0.5 */
    CHECK(record_close(r, 2, &e) == 0);
    size_t len;
    char *text = util_read_file(path, &len, &e);
    REQUIRE_MSG(text != NULL, "%s", e.msg);
    const char *want =
        "{\"version\": 2, \"width\": 4, \"height\": 1, \"timestamp\": 5, \"title\": \"t\\\"\", \"env\": {\"TERM\": "
        "\"xterm-256color\", \"SHELL\": \"/bin/sh\"}}\n"
        "[0.500000, \"o\", \"\\u001b[0m\\u001b[?25l\\u001b[H\\u001b[2J\\u001b[1;1Hhi\"]\n"
        "[0.500000, \"o\", \"\\u001b[1;2Ho\"]\n"
        "[2.000000, \"o\", \"\\u001b[0m\\u001b[2;1H\\u001b[?25h\"]\n";
    CHECK_MSG(strcmp(text, want) == 0, "got\n%s", text);
    CHECK(access(tmp, F_OK) != 0);
    free(text);
    grid_free(g);
    remove(path);
    /* a directory that does not exist: an error naming the file */
    snprintf(path, sizeof path, "%s/no/b.cast", dir);
    CHECK(record_open(path, &info, &e) == NULL);
    CHECK_MSG(strstr(e.msg, "b.cast: cannot write") != NULL, "%s", e.msg);
    record_abort(NULL);
    rmdir(dir);
}
