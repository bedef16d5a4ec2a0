/* term: the curses backend of the explorer, under its view and its
 * controller: it opens and always restores the terminal, shows the Grid
 * frames the view draws (through one theme table) and reads the keys,
 * clicks, resizes and signals the controller handles. Neither the model nor
 * the view knows about it; the interactive runner (cmd_explore.c) connects
 * them.
 *
 * This is the only file that knows about colours and escape sequences: the
 * layouts hand over a Grid of code points and semantic styles (grid.h) and
 * term_draw() maps each style to colours and attributes for the terminal at
 * hand (256 colours, 8 colours or monochrome) and each symbol to Unicode or
 * ASCII.
 *
 * One terminal at a time: term_open() returns a handle to a single static
 * state (signal handlers and the fail hook need it anyway); a second
 * term_open() before term_close() fails. term_close() is idempotent.
 *
 * Restoring the terminal: term_close(), an atexit() hook, the util fail hook
 * (xmalloc failure, util_die), SIGINT/SIGTERM/SIGHUP (reported as
 * TERM_SIGNAL; the caller decides to quit, then calls term_close) and the
 * fatal signals SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT and SIGQUIT (the
 * handler writes the terminal's reset sequences and the saved tty modes, then
 * re-raises with the default action). SIGTSTP/SIGCONT and SIGWINCH stay with
 * ncurses (resizes arrive as TERM_RESIZE). */
#ifndef PLACETO_TERM_H
#define PLACETO_TERM_H

#include "grid.h"
#include "util.h"

typedef struct Term Term;

typedef struct TermOptions {
    int ascii;    /* 1: ASCII glyphs even on a UTF-8 terminal */
    int no_color; /* 1: monochrome (also when NO_COLOR is set and non-empty, or the terminal has no colours) */
    int mouse;    /* 1: report mouse clicks and the wheel (default 1 in the explorer) */
} TermOptions;

/* Key codes in TermEvent.key: text keys are their Unicode code point (' ',
 * 'a', 'é'; Ctrl-X is 0x18); these codes lie above the Unicode range. Enter
 * ('\r', '\n'), Escape (0x1b), Tab (0x09) and Backspace (0x7f and 0x08, so
 * Ctrl-H reads as Backspace) always arrive as the TERM_KEY_* code. Alt-x
 * arrives as TERM_KEY_ESC then 'x'. */
enum {
    TERM_KEY_UP = 0x110000,
    TERM_KEY_DOWN,
    TERM_KEY_LEFT,
    TERM_KEY_RIGHT,
    TERM_KEY_PGUP,
    TERM_KEY_PGDN,
    TERM_KEY_HOME,
    TERM_KEY_END,
    TERM_KEY_ENTER,
    TERM_KEY_ESC,
    TERM_KEY_BACKSPACE,
    TERM_KEY_TAB,
    TERM_KEY_BTAB,
    TERM_KEY_DELETE,
    TERM_KEY_F1, /* F1..F12 are consecutive */
    TERM_KEY_F12 = TERM_KEY_F1 + 11
};

typedef enum TermEventType { TERM_TIMEOUT = 0, TERM_KEY, TERM_MOUSE, TERM_RESIZE, TERM_SIGNAL } TermEventType;

typedef struct TermEvent {
    TermEventType type;
    int key;    /* TERM_KEY: a code point or TERM_KEY_* */
    int x, y;   /* TERM_MOUSE: the cell under the pointer */
    int button; /* TERM_MOUSE: 1 left, 2 middle, 3 right (presses), 4 wheel up, 5 wheel down */
    int signal; /* TERM_SIGNAL: SIGINT, SIGTERM or SIGHUP (SIGHUP also when the terminal goes away) */
} TermEvent;

/* Opens the terminal on stdin/stdout: setlocale() must already have been
 * called by main. Enters curses mode (alternate screen, cbreak, no echo,
 * keypad, hidden cursor, 25 ms Escape delay, mouse when o->mouse), picks the
 * colour mode and the glyph set, installs the signal handlers, the atexit
 * restore and the util fail hook. o may be NULL (defaults: Unicode when the
 * locale is UTF-8, colours, mouse). Returns NULL with e set when stdin or
 * stdout is not a terminal, another Term is open or curses cannot start
 * (unknown TERM, no cursor addressing). */
Term *term_open(const TermOptions *o, Err *e);

/* Leaves curses mode and restores the tty, the signal handlers and the fail
 * hook, and releases everything term_open() took. Idempotent; NULL allowed;
 * fine after the terminal was already restored by a hook. */
void term_close(Term *t);

/* The screen size in cells (0 x 0 for a closed or NULL Term). */
void term_size(const Term *t, int *w, int *h);

/* Shows g at the top-left of the screen: cells beyond the screen are ignored,
 * screen cells beyond the grid are blank. Only cells that changed since the
 * previous term_draw() are handed to curses, then one doupdate(); after a
 * resize or term_invalidate() the whole screen is repainted once.
 * g may be NULL (a blank screen). */
void term_draw(Term *t, const Grid *g);

/* Forces the next term_draw() to repaint every cell and clear the physical
 * screen first (Ctrl-L, or after something else wrote to the terminal). */
void term_invalidate(Term *t);

/* Waits for the next event. timeout_ms < 0 blocks (in poll(), no CPU used),
 * 0 only polls, > 0 waits at most that long. Returns the event type, also
 * stored in ev->type (the other fields are zero unless they apply).
 * TERM_RESIZE comes after curses has taken the new size (term_size gives
 * it). TERM_SIGNAL reports a SIGINT, SIGTERM or SIGHUP received since the
 * last call (before any pending key); the program keeps running. Keys the
 * explorer cannot use (unknown function keys, mouse releases and motion) are
 * skipped without ending the wait. Ctrl-Z suspends and resumes without the
 * caller: ncurses handles SIGTSTP itself. */
TermEventType term_next(Term *t, int timeout_ms, TermEvent *ev);

/* The colour mode (256, 8 or 0) and the glyph set an open Term draws with. */
int term_colors(const Term *t);
GridGlyphs term_glyphs(const Term *t);

/* ---- ANSI frames, for recordings (term_ansi.c, used by record.c) ----
 * The same frames as escape sequences, without curses or a terminal: the
 * same theme (256 colours, 8 colours or monochrome), the same glyph rules.
 * Only a small set of sequences is used: CUP (ESC [ row ; col H), SGR
 * (ESC [ ... m), ED (ESC [ 2 J), and the cursor's visibility
 * (ESC [ ? 25 l / h); every character written is one cell wide. */
typedef struct TermAnsi TermAnsi;
TermAnsi *term_ansi_new(int colors, GridGlyphs glyphs);
void term_ansi_free(TermAnsi *s);
/* Appends to out what turns the previous frame into g: the whole screen
 * (cleared first) the first time, after a size change or
 * term_ansi_invalidate(); otherwise only the cells that changed. */
void term_ansi_frame(TermAnsi *s, const Grid *g, StrBuf *out);
void term_ansi_invalidate(TermAnsi *s);
/* Appends the sequences that end a recording: default attributes, cursor
 * shown, on the line below the screen's last. */
void term_ansi_end(TermAnsi *s, StrBuf *out);
/* One cell as these frames show it (also the slides' look, slide.c): fg
 * and bg xterm colour numbers (-1: the terminal's default), TA_* attributes
 * (theme.h) and the code point shown (one cell wide, '?' for a control or
 * a wide character). */
typedef struct TermLook {
    short fg, bg;
    unsigned attr;
    uint32_t ch;
} TermLook;
TermLook term_ansi_look(int colors, GridGlyphs glyphs, GridCell c);

#endif
