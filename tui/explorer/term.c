/* term: the ncurses backend of the explorer (term.h), the terminal under
 * the view and the controller. One theme table maps the grid's semantic
 * styles to colours; term_draw() copies the cells that changed; term_next()
 * waits in poll() on the tty and a self-pipe that the signal handlers write
 * to, so an idle explorer uses no CPU and a signal or a resize wakes it at
 * once. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 600 /* wcwidth; ncurses' wide API */
#endif
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "term.h"
#include "visible.h"
#include "theme.h"

/* ---- theme (theme.h) in curses terms ---------------------------------- */

enum { D = THEME_D, PAL = THEME_PAL, N_DEV = THEME_N_DEV, N_GRP = THEME_N_GRP, N_GRP8 = THEME_N_GRP8, N_SER = THEME_N_SERIES };

static attr_t curses_attr(unsigned a)
{
    return (a & TA_BOLD ? A_BOLD : 0) | (a & TA_DIM ? A_DIM : 0) | (a & TA_UNDERLINE ? A_UNDERLINE : 0) |
           (a & TA_REVERSE ? A_REVERSE : 0);
}

/* A style resolved for this terminal: "text" for characters, "ink" for
 * block glyphs in filled styles (they paint with the foreground, so they get
 * the fill colour as foreground over the default background). */
typedef struct Look {
    attr_t attr, ink_attr;
    short pair, ink_pair;
    char filled;
} Look;

enum { MAX_PAIRS = 255 };

struct Term {
    int open;
    SCREEN *scr;
    TermOptions opt;
    GridGlyphs glyphs;
    int colors;         /* 256, 8 or 0 */
    int default_colors; /* use_default_colors() worked: -1 means the terminal's own */
    Look base[GS_COUNT], dev[N_DEV], grp[N_GRP], ser[N_SER];
    short pair_fg[MAX_PAIRS + 1], pair_bg[MAX_PAIRS + 1];
    int n_pairs;
    GridCell *shadow; /* what the screen shows, sw x sh */
    int sw, sh;
    int valid;      /* shadow matches the screen */
    int need_clear; /* clear the physical screen on the next draw */
};

static Term the_term;

/* ---- signals and restoring -------------------------------------------- */

static volatile sig_atomic_t g_active; /* curses mode is on: restore on exit */
static volatile sig_atomic_t g_signal; /* pending SIGINT/SIGTERM/SIGHUP */
static int g_pipe[2] = {-1, -1};       /* self-pipe: wakes term_next's poll() */
static struct termios g_tty;           /* tty modes before curses */
static int g_have_tty;
static char g_reset[256]; /* sequences that leave curses mode, for signal handlers */
static size_t g_reset_len;
static int g_atexit_done;

static const int quit_sigs[] = {SIGINT, SIGTERM, SIGHUP};
/* faults, then signals that end a program by default (kill -USR1, an
 * alarm, a CPU-time limit): the terminal is restored and the signal goes on
 * to the disposition it had (a sanitizer's handler for a fault; the default
 * action). Those of the second kind are caught only when their disposition
 * on entry is the default: an ignored one stays ignored, and a handler
 * installed before (a profiler's SIGPROF) keeps the signal. SIGPIPE and
 * SIGXFSZ are not here: main() ignores SIGXFSZ, and SIGPIPE comes from a
 * write to a pipe, not a terminal. */
static const int fatal_sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGQUIT, SIGTRAP,
                                 SIGSYS, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU};
enum { N_QUIT = 3, N_FATAL = 14, N_FAULTS = 5 };
_Static_assert(sizeof fatal_sigs / sizeof fatal_sigs[0] == N_FATAL, "fatal_sigs and N_FATAL disagree");
static struct sigaction old_quit[N_QUIT], old_fatal[N_FATAL], old_winch;
static int quit_caught[N_QUIT];

static void wake(void)
{
    if (g_pipe[1] >= 0) {
        ssize_t r = write(g_pipe[1], "", 1); /* a full pipe is awake already */
        (void)r;
    }
}

static void on_quit(int sig)
{
    int saved = errno;
    g_signal = sig;
    wake();
    errno = saved;
}

/* ncurses' own SIGWINCH handler records the resize; ours runs it, then wakes
 * poll() so that the next wget_wch() reports KEY_RESIZE. */
static void on_winch(int sig, siginfo_t *info, void *ctx)
{
    int saved = errno;
    if (old_winch.sa_flags & SA_SIGINFO) {
        if (old_winch.sa_sigaction)
            old_winch.sa_sigaction(sig, info, ctx);
    } else if (old_winch.sa_handler != SIG_DFL && old_winch.sa_handler != SIG_IGN) {
        old_winch.sa_handler(sig);
    }
    wake();
    errno = saved;
}

/* Only async-signal-safe calls: the reset sequences and the saved tty modes;
 * then the disposition from before term_open() (the default, or a sanitizer's
 * handler so that its report still comes) and the signal again: raised ones
 * are delivered when this handler returns, faults recur on the instruction. */
static void on_fatal(int sig)
{
    int saved = errno; /* a fault's chained handler may return */
    if (g_active) {
        g_active = 0;
        ssize_t r = write(STDOUT_FILENO, g_reset, g_reset_len);
        (void)r;
        if (g_have_tty)
            tcsetattr(STDIN_FILENO, TCSANOW, &g_tty);
    }
    struct sigaction next;
    memset(&next, 0, sizeof next);
    next.sa_handler = SIG_DFL;
    for (int k = 0; k < N_FATAL; k++)
        if (fatal_sigs[k] == sig && ((old_fatal[k].sa_flags & SA_SIGINFO) || old_fatal[k].sa_handler != SIG_IGN))
            next = old_fatal[k];
    sigaction(sig, &next, NULL);
    raise(sig);
    errno = saved;
}

/* The fail hook and the atexit hook: outside signal context endwin() is fine. */
static void restore_now(void)
{
    if (g_active) {
        g_active = 0;
        endwin();
    }
}

static void reset_add(const char *cap)
{
    const char *s = tigetstr((char *)cap);
    if (!s || s == (char *)-1)
        return;
    size_t n = strlen(s);
    if (g_reset_len + n < sizeof g_reset) {
        memcpy(g_reset + g_reset_len, s, n);
        g_reset_len += n;
    }
}

static void build_reset(int mouse)
{
    g_reset_len = 0;
    if (mouse) {
        /* xterm-style reporting, as ncurses enables it through kmous/XM */
        const char *off = "\033[?1006l\033[?1002l\033[?1000l";
        memcpy(g_reset, off, strlen(off));
        g_reset_len = strlen(off);
    }
    reset_add("sgr0");
    reset_add("rmkx");
    reset_add("cnorm");
    reset_add("rmcup");
}

static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    /* no SA_RESTART: an interrupted read or poll must come back */
    sa.sa_handler = on_quit;
    for (int k = 0; k < N_QUIT; k++) {
        sigaction(quit_sigs[k], NULL, &old_quit[k]);
        /* ignored on entry (nohup, a background job) stays ignored */
        quit_caught[k] = (old_quit[k].sa_flags & SA_SIGINFO) || old_quit[k].sa_handler != SIG_IGN;
        if (quit_caught[k])
            sigaction(quit_sigs[k], &sa, NULL);
    }
    sa.sa_handler = on_fatal;
    for (int k = 0; k < N_FATAL; k++) {
        sigaction(fatal_sigs[k], NULL, &old_fatal[k]);
        if (k < N_FAULTS || (!(old_fatal[k].sa_flags & SA_SIGINFO) && old_fatal[k].sa_handler == SIG_DFL))
            sigaction(fatal_sigs[k], &sa, NULL);
    }
    sigaction(SIGWINCH, NULL, &old_winch); /* ncurses' handler, from newterm */
    sa.sa_sigaction = on_winch;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGWINCH, &sa, NULL);
}

static void remove_handlers(void)
{
    for (int k = 0; k < N_QUIT; k++)
        if (quit_caught[k])
            sigaction(quit_sigs[k], &old_quit[k], NULL);
    for (int k = 0; k < N_FATAL; k++)
        sigaction(fatal_sigs[k], &old_fatal[k], NULL);
    sigaction(SIGWINCH, &old_winch, NULL);
}

static int open_pipe(void)
{
    if (pipe(g_pipe) != 0)
        return -1;
    for (int k = 0; k < 2; k++) {
        fcntl(g_pipe[k], F_SETFL, fcntl(g_pipe[k], F_GETFL) | O_NONBLOCK);
        fcntl(g_pipe[k], F_SETFD, FD_CLOEXEC);
    }
    return 0;
}

static void drain_pipe(void)
{
    char buf[64];
    while (g_pipe[0] >= 0 && read(g_pipe[0], buf, sizeof buf) > 0) {
    }
}

static void close_pipe(void)
{
    for (int k = 0; k < 2; k++) {
        if (g_pipe[k] >= 0)
            close(g_pipe[k]);
        g_pipe[k] = -1;
    }
}

/* ---- colours ------------------------------------------------------------ */

static short pair_for(Term *t, int fg, int bg)
{
    if (!t->default_colors) {
        fg = fg < 0 ? COLOR_WHITE : fg;
        bg = bg < 0 ? COLOR_BLACK : bg;
    }
    if (fg < 0 && bg < 0)
        return 0;
    for (int p = 1; p <= t->n_pairs; p++)
        if (t->pair_fg[p] == fg && t->pair_bg[p] == bg)
            return (short)p;
    if (t->n_pairs >= MAX_PAIRS || t->n_pairs + 1 >= COLOR_PAIRS)
        return 0; /* not with this theme (at most ~60 pairs): the default colours then */
    int p = ++t->n_pairs;
    t->pair_fg[p] = (short)fg;
    t->pair_bg[p] = (short)bg;
    init_pair((short)p, (short)fg, (short)bg);
    return (short)p;
}

static Look make_look(Term *t, int fg, int bg, attr_t attr)
{
    Look lk;
    memset(&lk, 0, sizeof lk);
    lk.attr = attr;
    lk.pair = pair_for(t, fg, bg);
    lk.filled = bg >= 0 || (attr & A_REVERSE);
    lk.ink_attr = attr & ~A_REVERSE;
    lk.ink_pair = bg >= 0 ? pair_for(t, bg, D) : lk.pair;
    return lk;
}

/* Resolves every style, device and group colour once for the chosen mode. */
static void build_theme(Term *t)
{
    for (int s = 0; s < GS_COUNT; s++) {
        const ThemeRow *r = &theme_rows[s];
        const ThemeInk *in = t->colors == 256 ? &r->c256 : &r->c8;
        if (t->colors == 0)
            t->base[s] = make_look(t, D, D, curses_attr(r->mono));
        else
            t->base[s] = make_look(t, in->fg, in->bg < 0 ? D : in->bg, curses_attr(in->attr));
    }
    for (int k = 0; k < N_DEV; k++) {
        if (t->colors == 256)
            t->dev[k] = make_look(t, theme_rows[GS_DEVICE].c256.fg, theme_dev256[k], curses_attr(theme_rows[GS_DEVICE].c256.attr));
        else if (t->colors == 8 && k == N_DEV - 1 && COLORS >= 16)
            t->dev[k] = make_look(t, COLOR_WHITE, 8, 0);
        else if (t->colors == 8)
            t->dev[k] = make_look(t, theme_dev8[k][1], theme_dev8[k][0], k == N_DEV - 1 ? A_UNDERLINE : 0);
        else
            t->dev[k] = make_look(t, D, D, curses_attr(theme_rows[GS_DEVICE].mono));
    }
    for (int k = 0; k < N_GRP; k++) {
        if (t->colors == 256)
            t->grp[k] = make_look(t, theme_rows[GS_GROUP].c256.fg, theme_grp256[k], curses_attr(theme_rows[GS_GROUP].c256.attr));
        else if (t->colors == 8)
            t->grp[k] = make_look(t, theme_dev8[k % N_GRP8][1], theme_dev8[k % N_GRP8][0], k >= N_GRP8 ? A_UNDERLINE : 0);
        else
            t->grp[k] = make_look(t, D, D, curses_attr(theme_rows[GS_GROUP].mono));
    }
    for (int k = 0; k < N_SER; k++) {
        if (t->colors == 256)
            t->ser[k] = make_look(t, theme_series256[k], D, 0);
        else if (t->colors == 8)
            t->ser[k] = make_look(t, theme_series8[k % THEME_N_SERIES8], D, curses_attr(theme_series8_attr(k)));
        else
            t->ser[k] = make_look(t, D, D, curses_attr(theme_rows[GS_SERIES].mono));
    }
}

static const Look *look_of(const Term *t, int style, int index)
{
    if (style == GS_DEVICE)
        return &t->dev[index % N_DEV];
    if (style == GS_GROUP)
        return &t->grp[index % N_GRP];
    if (style == GS_SERIES)
        return &t->ser[index % N_SER];
    return &t->base[style >= 0 && style < GS_COUNT ? style : GS_NONE];
}

/* Home and End have several encodings, and a TERM that does not match the
 * terminal (xterm-256color inside tmux or screen) lists the other one: teach
 * curses the common ones it does not know yet. */
static void define_home_end(void)
{
    static const char *const home[] = {"\033[1~", "\033[7~", "\033[H", "\033OH"};
    static const char *const end[] = {"\033[4~", "\033[8~", "\033[F", "\033OF"};
    for (int k = 0; k < 4; k++) {
        if (key_defined(home[k]) == 0)
            define_key(home[k], KEY_HOME);
        if (key_defined(end[k]) == 0)
            define_key(end[k], KEY_END);
    }
}

static int env_set(const char *name)
{
    const char *v = getenv(name);
    return v && *v;
}

static const char *term_name(void)
{
    const char *v = getenv("TERM");
    return v && *v ? v : "unset";
}

static int locale_utf8(void)
{
    const char *cs = nl_langinfo(CODESET);
    return cs && (strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "utf8") == 0);
}

/* ---- open and close ----------------------------------------------------- */

Term *term_open(const TermOptions *o, Err *e)
{
    static const TermOptions defaults = {0, 0, 1};
    Term *t = &the_term;
    if (t->open) {
        err_set(e, "the terminal is already open");
        return NULL;
    }
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        err_set(e, "placeto explore needs a terminal (stdin and stdout); use --headless to run without one");
        return NULL;
    }
    memset(t, 0, sizeof *t);
    t->opt = o ? *o : defaults;
    g_have_tty = tcgetattr(STDIN_FILENO, &g_tty) == 0;
    if (open_pipe() != 0) {
        err_set(e, "cannot create a pipe: %s", strerror(errno));
        return NULL;
    }
    /* newterm, unlike initscr, reports failure instead of exiting */
    fflush(stdout);
    t->scr = newterm(NULL, visible_raw_stdout(), stdin); /* curses shows controls itself */
    if (!t->scr) {
        err_set(e, "cannot initialise the terminal (TERM=%s); use --headless to run without one", term_name());
        close_pipe();
        return NULL;
    }
    set_term(t->scr);
    const char *cup = tigetstr((char *)"cup");
    if (!cup || cup == (char *)-1) { /* TERM=dumb and friends: no full-screen output */
        endwin();
        delscreen(t->scr);
        t->scr = NULL;
        close_pipe();
        err_set(e, "the terminal (TERM=%s) cannot move the cursor; use --headless to run without one",
                term_name());
        return NULL;
    }
    g_active = 1;
    g_signal = 0;
    t->open = 1;
    if (!g_atexit_done) {
        atexit(restore_now);
        g_atexit_done = 1;
    }
    util_set_fail_hook(restore_now);

    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE); /* term_next waits in poll(), not in curses */
    curs_set(0);
    set_escdelay(25);
    define_home_end();
    leaveok(stdscr, TRUE);
    scrollok(stdscr, FALSE);

    t->glyphs = t->opt.ascii || !locale_utf8() ? GRID_ASCII : GRID_UNICODE;
    t->colors = 0;
    if (!t->opt.no_color && !env_set("NO_COLOR") && has_colors() && start_color() == OK) {
        t->default_colors = use_default_colors() == OK;
        /* the 256-colour theme takes about 60 pairs */
        t->colors = COLORS >= 256 && COLOR_PAIRS >= 128 ? 256 : COLORS >= 8 ? 8 : 0;
    }
    build_theme(t);

    int mouse = 0;
    if (t->opt.mouse) {
        mmask_t want = BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON2_PRESSED | BUTTON2_CLICKED | BUTTON3_PRESSED |
                       BUTTON3_CLICKED | BUTTON4_PRESSED;
#ifdef BUTTON5_PRESSED
        want |= BUTTON5_PRESSED;
#endif
        mouse = mousemask(want, NULL) != 0;
        mouseinterval(0); /* report presses at once, no click detection delay */
    }
    build_reset(mouse);
    install_handlers();
    t->valid = 0;
    t->need_clear = 1;
    return t;
}

void term_close(Term *t)
{
    if (!t || !t->open)
        return;
    restore_now();
    remove_handlers();
    util_set_fail_hook(NULL);
    delscreen(t->scr);
    t->scr = NULL;
    close_pipe();
    free(t->shadow);
    t->shadow = NULL;
    g_signal = 0;
    t->open = 0;
}

void term_size(const Term *t, int *w, int *h)
{
    int x = 0, y = 0;
    if (t && t->open)
        getmaxyx(stdscr, y, x);
    if (w)
        *w = x;
    if (h)
        *h = y;
}

void term_invalidate(Term *t)
{
    if (t) {
        t->valid = 0;
        t->need_clear = 1;
    }
}

/* ---- drawing ------------------------------------------------------------ */

/* One cell to curses. Block glyphs in a filled style take the ink colours;
 * a full block there is just the fill (also right in ASCII). Control and
 * non-single-width characters would shift the row, so they become '?'. */
static void put_cell(const Term *t, int x, int y, GridCell c)
{
    const Look *lk = look_of(t, c.style, c.device);
    uint32_t ch = c.ch;
    if (lk->filled && ch == (uint32_t)GRID_FULL)
        ch = ' ';
    uint32_t u = grid_glyph(ch, t->glyphs);
    attr_t attr = lk->attr;
    short pair = lk->pair;
    if (lk->filled && u >= 0x2580 && u <= 0x259F) {
        attr = lk->ink_attr;
        pair = lk->ink_pair;
    }
    if (u < 0x20 || (u >= 0x7F && u < 0xA0))
        u = '?';
    else if (u >= 0x80 && wcwidth((wchar_t)u) != 1)
        u = '?';
    wchar_t ws[2] = {(wchar_t)u, 0};
    cchar_t cc;
    setcchar(&cc, ws, attr, pair, NULL);
    mvwadd_wch(stdscr, y, x, &cc); /* ERR in the bottom-right corner, drawn anyway */
}

void term_draw(Term *t, const Grid *g)
{
    if (!t || !t->open || !g_active)
        return;
    int sw, sh;
    getmaxyx(stdscr, sh, sw);
    if (sw != t->sw || sh != t->sh || !t->shadow) {
        free(t->shadow);
        t->shadow = xnew_array((size_t)(sw > 0 ? sw : 1) * (size_t)(sh > 0 ? sh : 1), sizeof *t->shadow);
        t->sw = sw;
        t->sh = sh;
        t->valid = 0;
    }
    if (t->need_clear) {
        clearok(curscr, TRUE);
        t->need_clear = 0;
        t->valid = 0;
    }
    const GridCell blank = {' ', GS_NONE, 0};
    for (int y = 0; y < sh; y++) {
        const GridCell *row = g && y < g->h ? g->cells + (size_t)y * (size_t)g->w : NULL;
        GridCell *was = t->shadow + (size_t)y * (size_t)sw;
        for (int x = 0; x < sw; x++) {
            GridCell c = row && x < g->w ? row[x] : blank;
            if (c.style != GS_DEVICE && c.style != GS_GROUP && c.style != GS_SERIES)
                c.device = 0; /* other styles ignore the index: no redraw when it changes */
            if (t->valid && was[x].ch == c.ch && was[x].style == c.style && was[x].device == c.device)
                continue;
            was[x] = c;
            put_cell(t, x, y, c);
        }
    }
    t->valid = 1;
    wnoutrefresh(stdscr);
    doupdate();
}

/* ---- input -------------------------------------------------------------- */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int text_key(wint_t wc)
{
    switch (wc) {
    case '\r':
    case '\n':
        return TERM_KEY_ENTER;
    case 0x1B:
        return TERM_KEY_ESC;
    case '\t':
        return TERM_KEY_TAB;
    case 0x7F:
    case 0x08:
        return TERM_KEY_BACKSPACE;
    default:
        return (int)wc;
    }
}

/* A curses function key as TERM_KEY_*, or -1 for keys the explorer ignores. */
static int func_key(wint_t k)
{
    if (k >= (wint_t)KEY_F(1) && k <= (wint_t)KEY_F(12))
        return TERM_KEY_F1 + (int)(k - (wint_t)KEY_F(1));
    switch (k) {
    case KEY_UP:
        return TERM_KEY_UP;
    case KEY_DOWN:
        return TERM_KEY_DOWN;
    case KEY_LEFT:
        return TERM_KEY_LEFT;
    case KEY_RIGHT:
        return TERM_KEY_RIGHT;
    case KEY_PPAGE:
        return TERM_KEY_PGUP;
    case KEY_NPAGE:
        return TERM_KEY_PGDN;
    case KEY_HOME:
    case KEY_FIND: /* vt220 keypads */
    case KEY_A1:
        return TERM_KEY_HOME;
    case KEY_END:
    case KEY_SELECT:
    case KEY_C1:
        return TERM_KEY_END;
    case KEY_ENTER:
        return TERM_KEY_ENTER;
    case KEY_BACKSPACE:
        return TERM_KEY_BACKSPACE;
    case KEY_DC:
        return TERM_KEY_DELETE;
    case KEY_BTAB:
        return TERM_KEY_BTAB;
    default:
        return -1;
    }
}

static int mouse_event(TermEvent *ev)
{
    MEVENT me;
    if (getmouse(&me) != OK)
        return 0;
    mmask_t b = me.bstate;
    int button = 0;
    if (b & (BUTTON1_PRESSED | BUTTON1_CLICKED))
        button = 1;
    else if (b & (BUTTON2_PRESSED | BUTTON2_CLICKED))
        button = 2;
    else if (b & (BUTTON3_PRESSED | BUTTON3_CLICKED))
        button = 3;
    else if (b & BUTTON4_PRESSED)
        button = 4;
#ifdef BUTTON5_PRESSED
    else if (b & BUTTON5_PRESSED)
        button = 5;
#endif
    if (!button)
        return 0;
    ev->x = me.x;
    ev->y = me.y;
    ev->button = button;
    return 1;
}

/* One event from curses' input without waiting, or TERM_TIMEOUT when there
 * is none (or only something to skip: *skipped is then set). */
static TermEventType read_curses(Term *t, TermEvent *ev, int *skipped)
{
    wint_t wc;
    int r = wget_wch(stdscr, &wc);
    *skipped = 0;
    if (r == ERR)
        return TERM_TIMEOUT;
    if (r == OK) {
        ev->key = text_key(wc);
        return TERM_KEY;
    }
    if (wc == KEY_RESIZE) {
        t->valid = 0;
        t->need_clear = 1;
        return TERM_RESIZE;
    }
    if (wc == KEY_MOUSE) {
        if (mouse_event(ev))
            return TERM_MOUSE;
        *skipped = 1;
        return TERM_TIMEOUT;
    }
    int k = func_key(wc);
    if (k >= 0) {
        ev->key = k;
        return TERM_KEY;
    }
    *skipped = 1;
    return TERM_TIMEOUT;
}

TermEventType term_next(Term *t, int timeout_ms, TermEvent *ev)
{
    TermEvent dummy;
    if (!ev)
        ev = &dummy;
    memset(ev, 0, sizeof *ev);
    if (!t || !t->open || !g_active)
        return ev->type = TERM_TIMEOUT;
    double deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
    int hangup = 0;
    for (;;) {
        if (g_signal) {
            ev->signal = g_signal;
            g_signal = 0;
            return ev->type = TERM_SIGNAL;
        }
        int skipped;
        TermEventType type = read_curses(t, ev, &skipped);
        if (type != TERM_TIMEOUT)
            return ev->type = type;
        if (skipped)
            continue; /* more input may be buffered already */
        if (hangup) {
            /* the terminal went away and nothing is left to read */
            ev->signal = SIGHUP;
            return ev->type = TERM_SIGNAL;
        }
        int wait = -1;
        if (timeout_ms == 0)
            return ev->type = TERM_TIMEOUT;
        if (timeout_ms > 0) {
            double left = deadline - now_ms();
            if (left <= 0)
                return ev->type = TERM_TIMEOUT;
            wait = (int)left + 1;
        }
        struct pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {g_pipe[0], POLLIN, 0}};
        int n = poll(fds, 2, wait);
        if (n < 0 && errno != EINTR)
            return ev->type = TERM_TIMEOUT;
        if (n > 0 && (fds[1].revents & POLLIN))
            drain_pipe();
        if (n > 0 && (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL)))
            hangup = 1; /* read what is left first */
    }
}

int term_colors(const Term *t)
{
    return t && t->open ? t->colors : 0;
}

GridGlyphs term_glyphs(const Term *t)
{
    return t && t->open ? t->glyphs : GRID_ASCII;
}
