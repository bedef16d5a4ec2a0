/* slide: the explorer's screen as SVG (slide.h), and the slide key's files. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "slide.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "term.h"
#include "theme.h"

/* ---- the look ------------------------------------------------------------ */

/* The terminal the slides imitate: its default colours and its sixteen
 * base colours (a dark scheme), then xterm's 256-colour cube and greys. */
static const char *const DEFAULT_FG = "#d8d8d8", *const DEFAULT_BG = "#1c1c1c";
static const char *const base16[16] = {"#1c1c1c", "#d75f5f", "#87af5f", "#d7af5f", "#5f87af", "#af87af",
                                       "#5fafaf", "#d8d8d8", "#767676", "#ff8787", "#afd787", "#ffd787",
                                       "#87afd7", "#d7afd7", "#87d7d7", "#ffffff"};

/* Cell size and font in tenths of a unit, and the text's baseline in a cell. */
enum { CELL_W10 = 84, CELL_H10 = 170, BASELINE10 = 133, FONT_PX = 14, MARGIN = 8 };

/* "#rrggbb" of xterm colour n (0..255) into buf (8 bytes); n < 0: dflt. */
static const char *colour(char buf[8], int n, const char *dflt)
{
    static const int steps[6] = {0, 95, 135, 175, 215, 255};
    if (n < 0 || n > 255)
        return dflt;
    if (n < 16)
        return base16[n];
    if (n < 232) {
        n -= 16;
        snprintf(buf, 8, "#%02x%02x%02x", steps[n / 36], steps[(n / 6) % 6], steps[n % 6]);
    } else {
        int v = 8 + 10 * (n - 232);
        snprintf(buf, 8, "#%02x%02x%02x", v, v, v);
    }
    return buf;
}

/* A cell as the SVG paints it: its colours after reverse video, its
 * attributes and its character. */
typedef struct Paint {
    char fg[8], bg[8];
    int bold, dim, under;
    uint32_t ch;
} Paint;

static Paint paint_of(const Grid *g, int x, int y, int colors, GridGlyphs glyphs)
{
    GridCell c = g->cells[(size_t)y * (size_t)g->w + (size_t)x];
    if (c.style != GS_DEVICE && c.style != GS_GROUP && c.style != GS_SERIES)
        c.device = 0;
    TermLook lk = term_ansi_look(colors, glyphs, c);
    Paint p;
    char b1[8], b2[8];
    const char *fg = colour(b1, lk.fg, DEFAULT_FG), *bg = colour(b2, lk.bg, DEFAULT_BG);
    if (lk.attr & TA_REVERSE) {
        const char *t = fg;
        fg = bg;
        bg = t;
    }
    snprintf(p.fg, sizeof p.fg, "%s", fg);
    snprintf(p.bg, sizeof p.bg, "%s", bg);
    p.bold = (lk.attr & TA_BOLD) != 0;
    p.dim = (lk.attr & TA_DIM) != 0;
    p.under = (lk.attr & TA_UNDERLINE) != 0;
    p.ch = lk.ch;
    if (p.ch == 0xFFFE || p.ch == 0xFFFF || p.ch > 0x10FFFF) /* not characters XML allows */
        p.ch = '?';
    return p;
}

/* A number of tenths as "12.3" (locale-free). */
static void tenths(StrBuf *out, long v)
{
    if (v < 0) {
        sb_putc(out, '-');
        v = -v;
    }
    sb_printf(out, "%ld.%ld", v / 10, v % 10);
}

/* Two cells are one text run: the same ink and attributes; a blank joins
 * any run whose underline it shares (its ink does not show). */
static int same_text_run(const Paint *run, const Paint *c)
{
    if (c->under != run->under)
        return 0;
    if (c->ch == ' ')
        return 1;
    return strcmp(run->fg, c->fg) == 0 && run->bold == c->bold && run->dim == c->dim;
}

static void put_escaped(StrBuf *out, uint32_t u)
{
    if (u == '<')
        sb_puts(out, "&lt;");
    else if (u == '>')
        sb_puts(out, "&gt;");
    else if (u == '&')
        sb_puts(out, "&amp;");
    else {
        char utf8[4];
        int n = grid_utf8_put(utf8, u);
        for (int k = 0; k < n; k++)
            sb_putc(out, utf8[k]);
    }
}

/* The SVG's width and height attributes (its size in pixels at zoom 1). */
static void svg_size(const Grid *g, long *w_px, long *h_px)
{
    int w = g->w > 0 ? g->w : 0, h = g->h > 0 ? g->h : 0;
    *w_px = ((long)w * CELL_W10 + 5) / 10 + 2 * MARGIN;
    *h_px = (long)h * CELL_H10 / 10 + 2 * MARGIN;
}

void slide_png_size(const Grid *g, long *w_px, long *h_px)
{
    long w, h;
    svg_size(g, &w, &h);
    if (w >= SLIDE_PNG_MIN_WIDTH) {
        *w_px = w;
        *h_px = h;
        return;
    }
    *w_px = SLIDE_PNG_MIN_WIDTH;
    *h_px = (h * SLIDE_PNG_MIN_WIDTH + w / 2) / w; /* w >= 2 * MARGIN > 0 */
}

void slide_svg(const Grid *g, int colors, GridGlyphs glyphs, StrBuf *out)
{
    int w = g->w > 0 ? g->w : 0, h = g->h > 0 ? g->h : 0;
    long w10 = (long)w * CELL_W10, h10 = (long)h * CELL_H10, w_px, h_px;
    svg_size(g, &w_px, &h_px);
    sb_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%ld\" height=\"%ld\" viewBox=\"0 0 ",
              w_px, h_px);
    tenths(out, w10 + 20 * MARGIN);
    sb_printf(out, " %ld\">\n", h10 / 10 + 2 * MARGIN);
    sb_printf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"%s\"/>\n", DEFAULT_BG);
    sb_printf(out, "<g transform=\"translate(%d,%d)\" font-family=\"DejaVu Sans Mono, monospace\" font-size=\"%d\">\n",
              MARGIN, MARGIN, FONT_PX);
    Paint *row = xnew_array((size_t)(w > 0 ? w : 1), sizeof *row);
    for (int y = 0; y < h; y++) { /* backgrounds first: no row may cover the descenders above it */
        for (int x = 0; x < w; x++)
            row[x] = paint_of(g, x, y, colors, glyphs);
        for (int x = 0; x < w;) {
            int x0 = x;
            while (x < w && strcmp(row[x].bg, row[x0].bg) == 0)
                x++;
            if (strcmp(row[x0].bg, DEFAULT_BG) == 0)
                continue;
            sb_puts(out, "<rect x=\"");
            tenths(out, (long)x0 * CELL_W10);
            sb_printf(out, "\" y=\"%ld\" width=\"", (long)y * CELL_H10 / 10);
            tenths(out, (long)(x - x0) * CELL_W10 + 3);
            sb_printf(out, "\" height=\"%d\" fill=\"%s\"/>\n", CELL_H10 / 10, row[x0].bg);
        }
    }
    for (int y = 0; y < h; y++) { /* one <text> per row */
        for (int x = 0; x < w; x++)
            row[x] = paint_of(g, x, y, colors, glyphs);
        int end = w; /* trailing blanks go, unless underlined */
        while (end > 0 && row[end - 1].ch == ' ' && !row[end - 1].under)
            end--;
        sb_puts(out, "<text y=\"");
        tenths(out, (long)y * CELL_H10 + BASELINE10);
        sb_puts(out, "\" xml:space=\"preserve\">");
        for (int x = 0; x < end;) {
            int x0 = x;
            Paint run = row[x]; /* the look of the run's first ink; blanks before it join */
            for (int k = x; k < end && row[k].under == row[x0].under; k++)
                if (row[k].ch != ' ') {
                    run = row[k];
                    break;
                }
            while (x < end && same_text_run(&run, &row[x]))
                x++;
            sb_puts(out, "<tspan x=\"");
            tenths(out, (long)x0 * CELL_W10);
            sb_puts(out, "\" textLength=\"");
            tenths(out, (long)(x - x0) * CELL_W10);
            sb_printf(out, "\" lengthAdjust=\"spacingAndGlyphs\" fill=\"%s\"", run.fg);
            if (run.bold)
                sb_puts(out, " font-weight=\"bold\"");
            if (run.dim)
                sb_puts(out, " fill-opacity=\"0.6\"");
            if (run.under)
                sb_puts(out, " text-decoration=\"underline\"");
            sb_putc(out, '>');
            for (int k = x0; k < x; k++)
                put_escaped(out, row[k].ch);
            sb_puts(out, "</tspan>");
        }
        sb_puts(out, "</text>\n");
    }
    free(row);
    sb_puts(out, "</g></svg>\n");
}

/* ---- files --------------------------------------------------------------- */

static int write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, s, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        s += k;
        n -= (size_t)k;
    }
    return 0;
}

int slide_write(const char *path, const Grid *g, int colors, GridGlyphs glyphs, Err *e)
{
    StrBuf b = {0};
    slide_svg(g, colors, glyphs, &b);
    AtomicFile af;
    if (util_atomic_open(&af, path, e) != 0) {
        sb_free(&b);
        return -1;
    }
    size_t len = b.len, put = fwrite(b.s, 1, len, af.f);
    sb_free(&b);
    if (put != len || ferror(af.f)) {
        err_set(e, "%s: cannot write the slide", path);
        util_atomic_abort(&af);
        return -1;
    }
    return util_atomic_commit(&af, e);
}

const char *slide_dir(const char *dir)
{
    if (dir && dir[0])
        return dir;
    const char *env = getenv("PLACETO_SLIDE_DIR");
    return env && env[0] ? env : ".";
}

int slide_find_program(const char *name, char *buf, size_t n)
{
    const char *path = getenv("PATH");
    if (!path || !path[0])
        return 0;
    for (const char *p = path;;) {
        size_t len = strcspn(p, ":");
        int k = len ? snprintf(buf, n, "%.*s/%s", (int)len, p, name) : snprintf(buf, n, "./%s", name);
        struct stat st;
        if (k > 0 && (size_t)k < n && stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
            return 1;
        if (!p[len])
            break;
        p += len + 1;
    }
    return 0;
}

int slide_run(const char *prog, char *const argv[], int seconds, Err *e)
{
    int report[2]; /* the child's exec error, if any; closed by a successful exec */
    if (pipe(report) != 0)
        return err_set(e, "cannot run %s: %s", prog, strerror(errno));
    fcntl(report[1], F_SETFD, FD_CLOEXEC);
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        close(report[0]);
        close(report[1]);
        return err_set(e, "cannot run %s: %s", prog, strerror(err));
    }
    if (pid == 0) {
        close(report[0]);
        int fd = open("/dev/null", O_RDWR);
        if (fd >= 0) {
            dup2(fd, 0);
            dup2(fd, 1);
            dup2(fd, 2);
            if (fd > 2)
                close(fd);
        }
        signal(SIGPIPE, SIG_DFL);
        execv(prog, argv);
        int err = errno;
        ssize_t w = write(report[1], &err, sizeof err);
        (void)w;
        _exit(127);
    }
    close(report[1]);
    int exec_err = 0;
    ssize_t got;
    while ((got = read(report[0], &exec_err, sizeof exec_err)) < 0 && errno == EINTR) {
    }
    close(report[0]);
    if (got != (ssize_t)sizeof exec_err)
        exec_err = 0;
    int status = 0;
    struct timespec nap = {0, 10 * 1000 * 1000};
    for (long waited = 0;; waited += 10) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR)
            return err_set(e, "%s: %s", prog, strerror(errno));
        if (waited >= (long)seconds * 1000) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
            return err_set(e, "%s timed out after %d s", prog, seconds);
        }
        nanosleep(&nap, NULL);
    }
    if (exec_err)
        return err_set(e, "cannot run %s: %s", prog, strerror(exec_err));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFEXITED(status))
        return err_set(e, "%s exited with status %d", prog, WEXITSTATUS(status));
    return err_set(e, "%s was killed by signal %d", prog, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* Writes data to a temporary file in dir and links it to path, which must
 * not exist: 0; 1 when path exists (nothing written); -1 with e set. */
static int write_new(const char *path, const char *data, size_t len, Err *e)
{
    char *tmp = util_atomic_tmp_name(path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) { /* left by a process with our pid: ours to replace */
        unlink(tmp);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    }
    if (fd < 0) {
        err_set(e, "%s: cannot write: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    int bad = write_all(fd, data, len) != 0;
    int saved = errno;
    if (close(fd) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    if (bad) {
        unlink(tmp);
        free(tmp);
        err_set(e, "%s: cannot write: %s", path, strerror(saved));
        return -1;
    }
    int rc = 0;
    if (link(tmp, path) != 0) { /* link: never replaces an existing file */
        if (errno == EEXIST) {
            rc = 1;
        } else if (errno == EPERM || errno == ENOTSUP || errno == EOPNOTSUPP || errno == ENOSYS || errno == EMLINK) {
            struct stat st; /* a file system without hard links: check, then rename */
            if (lstat(path, &st) == 0)
                rc = 1;
            else if (rename(tmp, path) != 0)
                rc = err_set(e, "%s: cannot write: %s", path, strerror(errno));
        } else {
            rc = err_set(e, "%s: cannot write: %s", path, strerror(errno));
        }
    }
    unlink(tmp); /* after a link or a failure; gone already after a rename */
    free(tmp);
    return rc;
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

int slide_save(const Grid *g, int colors, GridGlyphs glyphs, const char *dir, char *msg, size_t n)
{
    dir = slide_dir(dir);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(msg, n, "slide not written: %s is not a directory (set PLACETO_SLIDE_DIR or --slide-dir)", dir);
        return -1;
    }
    StrBuf b = {0};
    slide_svg(g, colors, glyphs, &b);
    char svg[4200], png[4200];
    int here = strcmp(dir, ".") == 0; /* names without "./" */
    const char *sep = here || dir[strlen(dir) - 1] == '/' ? "" : "/";
    const char *in = here ? "" : dir;
    int num = 0, rc = 1;
    Err e = {{0}};
    for (num = 1; num <= 999 && rc == 1; num++) {
        snprintf(svg, sizeof svg, "%s%splaceto-slide-%03d.svg", in, sep, num);
        snprintf(png, sizeof png, "%s%splaceto-slide-%03d.png", in, sep, num);
        if (exists(svg) || exists(png))
            continue;
        rc = write_new(svg, b.s, b.len, &e);
    }
    sb_free(&b);
    if (rc == 1) {
        snprintf(msg, n, "slide not written: %s already holds placeto-slide-001 to 999", dir);
        return -1;
    }
    if (rc != 0) {
        snprintf(msg, n, "slide not written: %s", e.msg);
        return -1;
    }
    char conv[4096];
    if (!slide_find_program("rsvg-convert", conv, sizeof conv)) {
        snprintf(msg, n, "slide %s written; no rsvg-convert on PATH for a PNG (apt-get install librsvg2-bin; "
                 "rsvg-convert -w 1920 -a -o X.png X.svg)", svg);
        return 1;
    }
    /* the PNG goes to a temporary name and is linked into place like the SVG */
    char *tmp = util_atomic_tmp_name(png);
    long pw, ph;
    slide_png_size(g, &pw, &ph);
    char wbuf[32], hbuf[32];
    snprintf(wbuf, sizeof wbuf, "%ld", pw);
    snprintf(hbuf, sizeof hbuf, "%ld", ph);
    char *argv[] = {"rsvg-convert", "-w", wbuf, "-h", hbuf, "-o", tmp, svg, NULL};
    Err ce = {{0}};
    int rc_png = 1;
    unlink(tmp);
    if (slide_run(conv, argv, SLIDE_PNG_SECONDS, &ce) != 0) {
        unlink(tmp);
        snprintf(msg, n, "slide %s written; no PNG: %s", svg, ce.msg);
    } else if (link(tmp, png) == 0 || (errno != EEXIST && !exists(png) && rename(tmp, png) == 0)) {
        snprintf(msg, n, "slide %s and .png written", svg);
        rc_png = 0;
    } else {
        snprintf(msg, n, "slide %s written; no PNG: %s: %s", svg, png,
                 exists(png) ? "a file of that name appeared meanwhile" : strerror(errno));
    }
    unlink(tmp);
    free(tmp);
    return rc_png;
}
