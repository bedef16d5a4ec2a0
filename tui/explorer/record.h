/* record: a session of the explorer as an asciinema v2 recording
 * (`--record FILE.cast` on explore and demo; docs/cli.md). The first line
 * is the header, a JSON object {"version": 2, "width", "height",
 * "timestamp", "title", "env": {"TERM", "SHELL"}}; then one JSON array per
 * output chunk, [seconds, "o", "data"], with data the escape sequences and
 * UTF-8 text that draw the frame (term_ansi.c): the whole screen first,
 * then the cells that changed. Strings are JSON-escaped (control
 * characters as \u00XX, invalid UTF-8 as U+FFFD), times never decrease.
 *
 * The file is written to FILE.tmp.PID while the session runs and renamed to
 * FILE when it ends, so FILE is either absent (or the previous recording)
 * or a whole recording. */
#ifndef PLACETO_RECORD_H
#define PLACETO_RECORD_H

#include "grid.h"
#include "util.h"

typedef struct Recorder Recorder;

typedef struct RecordInfo {
    int width, height;  /* the screen at the start */
    int colors;         /* 256, 8 or 0 (monochrome), as term_ansi_new */
    GridGlyphs glyphs;
    long long timestamp; /* Unix seconds of the start */
    const char *title;  /* may be NULL */
    const char *term;   /* env.TERM */
    const char *shell;  /* env.SHELL */
} RecordInfo;

/* Opens the temporary file and writes the header. Returns NULL with e set
 * ("FILE: cannot write: ..."). */
Recorder *record_open(const char *path, const RecordInfo *info, Err *e);
/* Records frame g at t seconds from the start (clamped so that times never
 * decrease); nothing when no cell changed. */
void record_frame(Recorder *r, const Grid *g, double t);
/* The next frame repaints the whole screen (a resize, Ctrl-L). */
void record_invalidate(Recorder *r);
/* Ends the recording at t seconds (the attributes reset, the cursor shown)
 * and renames the file into place. 0, or -1 with e set (the temporary file
 * removed). Frees r either way. */
int record_close(Recorder *r, double t, Err *e);
/* Drops the recording (the temporary file removed); NULL allowed. */
void record_abort(Recorder *r);

/* Writes len bytes of data as a JSON string literal (with quotes): '"',
 * '\\' and control characters escaped, valid UTF-8 kept, each invalid byte
 * written as U+FFFD. */
void record_json_bytes(FILE *f, const char *data, size_t len);

#endif
