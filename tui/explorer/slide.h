/* slide: the explorer's screen as an SVG image, for slides and the
 * screenshots (docs/explorer.md, "Slides"): the frame's cells in the
 * colours and attributes the ANSI frames give them (term_ansi_look), one
 * monospace cell per character (8.4 x 17 units, DejaVu Sans Mono 14) on a
 * dark background, Unicode glyphs or ASCII as the screen has them.
 *
 * The SVG: a background <rect>, then per row a <rect> for each run of cells
 * with a background colour, then per row exactly one <text> whose <tspan>s
 * (one per run of one look, each placed at its column) hold the row's text,
 * trailing spaces trimmed and <, >, & escaped. Numbers are written in
 * integer tenths: the output depends on the grid alone.
 *
 * The slide key writes placeto-slide-NNN.svg (the first NNN from 001 for
 * which neither NNN.svg nor NNN.png exists) in a directory, via a temporary
 * file linked into place so that no existing file is ever replaced, then
 * converts it to PNG with rsvg-convert when that is on PATH (fork and exec,
 * no shell, its exit status checked, at most SLIDE_PNG_SECONDS), at least
 * SLIDE_PNG_MIN_WIDTH pixels wide for a projector (slide_png_size). */
#ifndef PLACETO_SLIDE_H
#define PLACETO_SLIDE_H

#include <stddef.h>

#include "grid.h"
#include "util.h"

enum { SLIDE_PNG_SECONDS = 5, SLIDE_PNG_MIN_WIDTH = 1920 };

/* Appends the SVG of g in a colour mode (256, 8 or 0 for monochrome) and a
 * glyph set to out. */
void slide_svg(const Grid *g, int colors, GridGlyphs glyphs, StrBuf *out);

/* The size in pixels of the slide key's PNG of g: the SVG's own size
 * scaled up to SLIDE_PNG_MIN_WIDTH wide when it is narrower (a 120x36
 * screen's 1024x628 becomes 1920x1178), the aspect ratio kept to the
 * nearest pixel; passed to rsvg-convert as -w and -h. */
void slide_png_size(const Grid *g, long *w_px, long *h_px);

/* Writes the SVG of g to path (a temporary file renamed into place; an
 * existing path is replaced). 0, or -1 with e set naming the file. */
int slide_write(const char *path, const Grid *g, int colors, GridGlyphs glyphs, Err *e);

/* The slide directory: dir when given and not empty, else the environment's
 * PLACETO_SLIDE_DIR when set and not empty, else ".". */
const char *slide_dir(const char *dir);

/* The slide key: writes the next placeto-slide-NNN.svg in dir (slide_dir)
 * and its PNG when rsvg-convert is on PATH. Puts a one-line message for the
 * message line into msg (what was written, or why not and how to get a
 * PNG). Returns 0 when the SVG and the PNG were written, 1 when only the
 * SVG was (no rsvg-convert, or it failed: the message says so), -1 when
 * nothing was. Never replaces a file. */
int slide_save(const Grid *g, int colors, GridGlyphs glyphs, const char *dir, char *msg, size_t n);

/* The full path of an executable named name on PATH into buf (n bytes),
 * or 0 when there is none. */
int slide_find_program(const char *name, char *buf, size_t n);

/* Runs prog (a path) with argv, stdin, stdout and stderr on /dev/null,
 * waiting at most seconds. 0 when it exited with status 0; else -1 with
 * e set ("exited with status N", "killed by signal N", "timed out",
 * "cannot run"). */
int slide_run(const char *prog, char *const argv[], int seconds, Err *e);

#endif
