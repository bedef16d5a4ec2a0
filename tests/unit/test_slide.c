/* Slide tests (tui/explorer/slide.h): the SVG of a small screen byte for
 * byte, colours and attributes of known cells in each colour mode, XML
 * escaping, one <text> per row, and the slide key's files: numbered names
 * that never replace a file, the PNG through rsvg-convert on PATH (a stand-in
 * script here) or a message saying how to get one, and errors. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slide.h"
#include "test.h"

static char *svg_of(const Grid *g, int colors, GridGlyphs glyphs)
{
    StrBuf b = {0};
    slide_svg(g, colors, glyphs, &b);
    sb_putc(&b, '\0');
    return b.s;
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

TEST(slide_svg_of_a_small_screen_is_the_golden_one)
{
    Grid *g = grid_new(5, 2);
    grid_text(g, 0, 0, "a<&>", GS_TITLE);
    grid_put(g, 1, 1, 'x', GRID_PEN(GS_DEVICE, 1));
    grid_put(g, 2, 1, GRID_FULL, GRID_PEN(GS_DEVICE, 1));
    grid_put(g, 4, 1, GRID_LINE(GRID_N | GRID_S), GS_BORDER);
    char *s = svg_of(g, 256, GRID_UNICODE);
    const char *want =
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"58\" height=\"50\" viewBox=\"0 0 58.0 50\">\n"
        "<rect width=\"100%\" height=\"100%\" fill=\"#1c1c1c\"/>\n"
        "<g transform=\"translate(8,8)\" font-family=\"DejaVu Sans Mono, monospace\" font-size=\"14\">\n"
        "<rect x=\"8.4\" y=\"17\" width=\"17.1\" height=\"17\" fill=\"#afd787\"/>\n"
        "<text y=\"13.3\" xml:space=\"preserve\"><tspan x=\"0.0\" textLength=\"33.6\" lengthAdjust=\"spacingAndGlyphs\" "
        "fill=\"#d8d8d8\" font-weight=\"bold\">a&lt;&amp;&gt;</tspan></text>\n"
        "<text y=\"30.3\" xml:space=\"preserve\"><tspan x=\"0.0\" textLength=\"33.6\" lengthAdjust=\"spacingAndGlyphs\" "
        "fill=\"#000000\"> x  </tspan><tspan x=\"33.6\" textLength=\"8.4\" lengthAdjust=\"spacingAndGlyphs\" "
        "fill=\"#585858\">\xe2\x94\x82</tspan></text>\n"
        "</g></svg>\n";
    CHECK_MSG(strcmp(s, want) == 0, "got\n%s", s);
    free(s);
    grid_free(g);
}

TEST(slide_svg_has_one_text_per_row_and_escapes)
{
    Grid *g = grid_new(16, 4);
    grid_text(g, 0, 0, "x < y && z > w", GS_NONE);
    grid_text(g, 0, 2, "\"quote' & ]]>", GS_WARN);
    char *s = svg_of(g, 0, GRID_ASCII);
    CHECK_INT(count(s, "<text "), 4);
    CHECK_INT(count(s, "</text>"), 4);
    CHECK(strstr(s, "x &lt; y &amp;&amp; z") != NULL);
    CHECK(strstr(s, "\"quote' &amp; ]]&gt;") != NULL);
    for (const char *p = strchr(s, '&'); p; p = strchr(p + 1, '&')) /* every & starts an entity */
        CHECK_MSG(strncmp(p, "&lt;", 4) == 0 || strncmp(p, "&gt;", 4) == 0 || strncmp(p, "&amp;", 5) == 0, "bare & at %.20s", p);
    free(s);
    grid_free(g);
}

TEST(slide_svg_colours_follow_the_mode)
{
    Grid *g = grid_new(3, 1);
    grid_put(g, 0, 0, 'c', GS_CURRENT);              /* reverse video and bold */
    grid_put(g, 1, 0, 'e', GS_ERROR);                /* 196, bold */
    grid_put(g, 2, 0, 'd', GRID_PEN(GS_DEVICE, 0)); /* 152 under 16 */
    char *s = svg_of(g, 256, GRID_ASCII);
    CHECK(strstr(s, "<rect x=\"0.0\" y=\"0\" width=\"8.7\" height=\"17\" fill=\"#d8d8d8\"/>") != NULL);
    CHECK(strstr(s, "fill=\"#1c1c1c\" font-weight=\"bold\">c<") != NULL);
    CHECK(strstr(s, "fill=\"#ff0000\" font-weight=\"bold\">e<") != NULL);
    CHECK(strstr(s, "<rect x=\"16.8\" y=\"0\" width=\"8.7\" height=\"17\" fill=\"#afd7d7\"/>") != NULL);
    CHECK(strstr(s, "fill=\"#000000\">d<") != NULL);
    free(s);
    s = svg_of(g, 8, GRID_ASCII); /* device 0: white on blue */
    CHECK(strstr(s, "fill=\"#5f87af\"/>") != NULL);
    CHECK(strstr(s, "fill=\"#d75f5f\" font-weight=\"bold\">e<") != NULL);
    free(s);
    s = svg_of(g, 0, GRID_ASCII); /* monochrome: only reverse video fills */
    CHECK_INT(count(s, "<rect "), 2);
    CHECK(strstr(s, "#afd7d7") == NULL);
    free(s);
    grid_free(g);
}

/* A temporary directory with a stand-in rsvg-convert whose body is script
 * (NULL: none) in bin/. */
static void make_dir(char *dir, const char *script)
{
    char path[512];
    snprintf(path, sizeof path, "%s/bin", dir);
    mkdir(path, 0755);
    if (script) {
        snprintf(path, sizeof path, "%s/bin/rsvg-convert", dir);
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "#!/bin/sh\n%s\n", script);
            fclose(f);
        }
        chmod(path, 0755);
    }
}

static int file_exists(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

static void cleanup(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "/bin/rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

TEST(slide_save_numbers_never_replace_and_report_the_png)
{
    char dir[] = "/tmp/placeto_slide_XXXXXX";
    REQUIRE(mkdtemp(dir) != NULL);
    /* the stand-in keeps its arguments in args, then copies the SVG */
    make_dir(dir, "printf '%s\\n' \"$@\" > \"${0%/bin/*}/args\"; [ \"$5\" = -o ] && cp \"$7\" \"$6\"");
    const char *old_path = getenv("PATH");
    char *saved = old_path ? xstrdup(old_path) : NULL;
    char bin[600], msg[256];
    snprintf(bin, sizeof bin, "%s/bin:/usr/bin:/bin", dir);
    Grid *g = grid_new(4, 1);
    grid_text(g, 0, 0, "one", GS_NONE);

    setenv("PATH", bin, 1); /* the stand-in converter: copies the SVG */
    CHECK_INT(slide_save(g, 256, GRID_UNICODE, dir, msg, sizeof msg), 0);
    CHECK_MSG(strstr(msg, "placeto-slide-001.svg and .png written") != NULL, "%s", msg);
    CHECK(file_exists(dir, "placeto-slide-001.png"));
    /* at projector width: the 4x1 grid's 50x33 SVG scaled to 1920x1267 */
    char path[600];
    size_t len;
    Err e = {{0}};
    snprintf(path, sizeof path, "%s/args", dir);
    char *args = util_read_file(path, &len, &e);
    CHECK_MSG(args && strncmp(args, "-w\n1920\n-h\n1267\n-o\n", 19) == 0, "%s", args ? args : e.msg);
    free(args);
    grid_text(g, 0, 0, "two", GS_NONE);
    CHECK_INT(slide_save(g, 256, GRID_UNICODE, dir, msg, sizeof msg), 0);
    CHECK_MSG(strstr(msg, "placeto-slide-002.svg") != NULL, "%s", msg);
    snprintf(path, sizeof path, "%s/placeto-slide-001.svg", dir);
    char *first = util_read_file(path, &len, &e);
    CHECK(first && strstr(first, ">one</tspan>") != NULL); /* the first slide is still the first */
    free(first);

    /* a PNG of the next number already there: that number is skipped */
    snprintf(path, sizeof path, "%s/placeto-slide-003.png", dir);
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL);
    fputs("mine", f);
    fclose(f);
    setenv("PATH", "/nonexistent", 1); /* no converter: the SVG and how to get a PNG */
    CHECK_INT(slide_save(g, 256, GRID_UNICODE, dir, msg, sizeof msg), 1);
    CHECK_MSG(strstr(msg, "placeto-slide-004.svg written") != NULL && strstr(msg, "rsvg-convert") != NULL, "%s", msg);
    CHECK(!file_exists(dir, "placeto-slide-003.svg") && file_exists(dir, "placeto-slide-004.svg"));
    char *mine = util_read_file(path, &len, &e);
    CHECK(mine && strcmp(mine, "mine") == 0);
    free(mine);

    cleanup(dir);
    REQUIRE(mkdtemp(strcpy(dir, "/tmp/placeto_slide_XXXXXX")) != NULL);
    make_dir(dir, "exit 3"); /* a converter that fails */
    snprintf(bin, sizeof bin, "%s/bin:/usr/bin:/bin", dir);
    setenv("PATH", bin, 1);
    CHECK_INT(slide_save(g, 0, GRID_ASCII, dir, msg, sizeof msg), 1);
    CHECK_MSG(strstr(msg, "exited with status 3") != NULL, "%s", msg);
    CHECK(file_exists(dir, "placeto-slide-001.svg") && !file_exists(dir, "placeto-slide-001.png"));
    snprintf(path, sizeof path, "%s/placeto-slide-001.png", dir);
    char *tmp = util_atomic_tmp_name(path);
    CHECK(access(tmp, F_OK) != 0); /* no temporary left */
    free(tmp);

    if (saved)
        setenv("PATH", saved, 1);
    else
        unsetenv("PATH");
    free(saved);
    cleanup(dir);
    grid_free(g);
}

TEST(slide_png_size_is_at_least_projector_width)
{
    long w, h;
    Grid *g = grid_new(120, 36); /* the SVG: 1024x628 */
    slide_png_size(g, &w, &h);
    CHECK_INT((int)w, 1920);
    CHECK_INT((int)h, 1178); /* 628 * 1920 / 1024 = 1177.5, to the nearest */
    grid_free(g);
    g = grid_new(300, 80); /* 2536x1376: wide enough already, kept */
    slide_png_size(g, &w, &h);
    CHECK_INT((int)w, 2536);
    CHECK_INT((int)h, 1376);
    grid_free(g);
}

TEST(slide_save_reports_a_directory_it_cannot_use)
{
    Grid *g = grid_new(2, 1);
    char msg[256];
    CHECK_INT(slide_save(g, 256, GRID_ASCII, "/nonexistent/dir", msg, sizeof msg), -1);
    CHECK_MSG(strstr(msg, "/nonexistent/dir is not a directory") != NULL, "%s", msg);
    /* /sys refuses new files even to root */
    CHECK_INT(slide_save(g, 256, GRID_ASCII, "/sys", msg, sizeof msg), -1);
    CHECK_MSG(strstr(msg, "slide not written: /sys/placeto-slide-001.svg: cannot write") != NULL, "%s", msg);
    Err e = {{0}};
    CHECK(slide_write("/nonexistent/dir/a.svg", g, 0, GRID_ASCII, &e) != 0);
    CHECK_MSG(strstr(e.msg, "/nonexistent/dir/a.svg") != NULL, "%s", e.msg);
    grid_free(g);
}

TEST(slide_run_reports_exit_status_and_signals)
{
    Err e = {{0}};
    char *ok[] = {"sh", "-c", "exit 0", NULL}, *bad[] = {"sh", "-c", "exit 7", NULL},
         *sig[] = {"sh", "-c", "kill -9 $$", NULL}, *slow[] = {"sh", "-c", "sleep 5", NULL};
    CHECK(slide_run("/bin/sh", ok, 5, &e) == 0);
    CHECK(slide_run("/bin/sh", bad, 5, &e) != 0 && strstr(e.msg, "exited with status 7") != NULL);
    CHECK(slide_run("/bin/sh", sig, 5, &e) != 0 && strstr(e.msg, "killed by signal 9") != NULL);
    CHECK(slide_run("/bin/sh", slow, 1, &e) != 0 && strstr(e.msg, "timed out") != NULL);
    CHECK(slide_run("/nonexistent/prog", ok, 5, &e) != 0 && strstr(e.msg, "cannot run") != NULL);
    char buf[256];
    CHECK(slide_find_program("sh", buf, sizeof buf) == 1);
    CHECK(slide_find_program("placeto-no-such-program", buf, sizeof buf) == 0);
}
