/* util: checked allocation, error buffers, files, hashing, number formatting and
 * a seeded RNG shared by every core module. One header for four files; each
 * section names the file that implements it.
 *
 * Allocation never returns NULL: on failure the registered fail hook runs (the
 * explorer registers one that restores the terminal) and the process exits
 * with status 1 ("out of memory", naming the file being read if any).
 * Library functions report errors through an Err buffer and a status code; only
 * main() decides to exit. */
#ifndef PLACETO_UTIL_H
#define PLACETO_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- Errors and allocation (util_err.c) ---------------------------------- */

/* An error message buffer; msg is "" until err_set() fills it. */
typedef struct Err {
    char msg[1024];
} Err;

/* Formats into e->msg (printf-style); always returns -1 so callers can
 * `return err_set(e, ...)`. A NULL e is allowed and ignored. */
int err_set(Err *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prefixes e->msg with "prefix: ". */
void err_prefix(Err *e, const char *prefix);

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* Grows *p (element size elem) so that at least need elements fit. */
void xgrow(void **p, size_t *cap, size_t need, size_t elem);

/* Arrays of count elements of size bytes, the product checked: past
 * PTRDIFF_MAX bytes (an overflow, or a negative count converted to size_t) is
 * fatal through util_die ("array too large: ..."), never a short allocation.
 * Each allocates at least one element, so a count of 0 still gives a valid
 * pointer of its own, freed like any other. xnew_array zeroes the array;
 * xmalloc_array leaves it uninitialised (for arrays filled before they are
 * read); xrealloc_array resizes like realloc, keeping the first elements. */
void *xnew_array(size_t count, size_t size);
void *xmalloc_array(size_t count, size_t size);
void *xrealloc_array(void *p, size_t count, size_t size);
/* The typed forms, for a count of any integer type:
 *     int *seen = XNEW(int, n);           zeroed
 *     double *x = XMALLOC(double, n);     uninitialised
 *     s->ev = XRENEW(s->ev, s->evcap);    resized (elements of *s->ev) */
#define XNEW(T, n) ((T *)xnew_array((size_t)(n), sizeof(T)))
#define XMALLOC(T, n) ((T *)xmalloc_array((size_t)(n), sizeof(T)))
#define XRENEW(p, n) xrealloc_array((p), (size_t)(n), sizeof *(p))

/* *out = count * size and 0, or -1 (and *out untouched) when the product
 * does not fit a size_t. */
int util_size_mul(size_t count, size_t size, size_t *out);
/* a * b, fatal when it does not fit a size_t: for counts that are products,
 * as in XMALLOC(double, xmul((size_t)n, (size_t)nd)). */
size_t xmul(size_t a, size_t b);

/* Running out: when an allocation fails or an array would be past what one
 * object may hold, the fail hook runs and the program exits with status 1
 * after "placeto: FILE: out of memory (...)" while a file is being read (see
 * util_reading), "placeto: out of memory (...)" otherwise; no abort. The
 * readers of whole files (util_read_file, jdoc_parse) do not die: they
 * return "FILE: out of memory" through their Err.
 *
 * util_reading(path) names the file being read (copied; files read while
 * reading another nest); util_reading(NULL) when it is done.
 * util_reading_path() is the innermost such name or NULL. Not for threads:
 * files are read by the main thread. */
void util_reading(const char *path);
const char *util_reading_path(void);
/* malloc and realloc that return NULL on failure (for callers that report
 * it through an Err). */
void *util_try_malloc(size_t n);
void *util_try_realloc(void *p, size_t n);
/* For tests: after n more allocations (util_try_* and x*), every one fails,
 * until util_alloc_fail_after(-1); resets util_alloc_count(), the number of
 * allocations through them since. */
void util_alloc_fail_after(long n);
unsigned long util_alloc_count(void);

/* Called before abort() by util_die() (an internal error) and before the
 * exit when memory runs out. */
void util_set_fail_hook(void (*hook)(void));
/* The message of the last util_die() or out-of-memory ("" before any), set before the hook
 * runs, so that a hook can show it. */
const char *util_fail_message(void);
void util_die(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

/* ---- Files and the clock (util_io.c) ------------------------------------- */

/* Reads a whole file, NUL-terminated. Returns NULL with e set on failure. */
char *util_read_file(const char *path, size_t *len, Err *e);
/* With PLACETO_TRACE_READS set (not "0"), prints "placeto: trace: WHAT
 * PATH" to stderr: every file util_read_file reads ("read") and every JSON
 * text jdoc_parse parses ("parse"), so that a test can count them. */
void util_trace_read(const char *what, const char *path);

/* Paths kept inside a saved file: util_path_relative_to gives path (an
 * existing file) relative to the directory of file (which need not exist
 * yet), or path itself when either cannot be resolved; util_path_resolve
 * joins a relative path read from file to file's directory (an absolute
 * one is kept). Both return malloc'd strings. */
char *util_path_relative_to(const char *path, const char *file);
char *util_path_resolve(const char *path, const char *file);

/* Writes data to path through a temporary file in the same directory, fsync
 * and rename, so that path holds either the old or the new content. */
int util_write_atomic(const char *path, const char *data, size_t len, Err *e);

/* A FILE* writer with the same guarantee: util_atomic_open() opens the
 * temporary "NAME.tmp.PID" beside path (for a name too long for that to fit
 * the 255-byte file-name limit, a prefix of NAME, '~' and a hash of NAME take
 * its place) after removing the temporaries of path that processes no longer
 * alive left behind (a kill -9 during a save); util_atomic_commit() flushes,
 * fsyncs, closes and renames (and on failure removes the temporary file);
 * util_atomic_abort() removes it. */
/* The temporary file name util_atomic_open() uses for path in this process
 * (malloc'd). */
char *util_atomic_tmp_name(const char *path);
/* What is at the path decides how it is written: "-" is standard output; a
 * symbolic link is followed (its final target is replaced, the link stays);
 * a device, FIFO or socket is written through in place (no temporary, no
 * rename); a regular file is replaced through the temporary and keeps its
 * mode and, where the process may set it, its owner; an empty path or a
 * directory is an error. Once "-" is opened, the process's own standard
 * output goes to standard error (the file alone reaches the reader).
 * util_read_file() reads standard input for "-". */
typedef struct AtomicFile {
    FILE *f;
    char *path;   /* as given, for messages */
    char *target; /* the file renamed over: path with its links followed */
    char *tmp;    /* NULL when written in place */
    int keep;     /* an existing regular file: its mode and owner below are restored */
    unsigned mode;
    long uid, gid;
} AtomicFile;
int util_atomic_open(AtomicFile *af, const char *path, Err *e);
int util_atomic_commit(AtomicFile *af, Err *e);
void util_atomic_abort(AtomicFile *af);
/* The file util_atomic_commit() replaces for path: path with its symbolic
 * links followed (path itself past 40 links), malloc'd. */
char *util_link_target(const char *path);

/* Whether paths p and q name one file: "-" both (the same standard stream);
 * by device and inode where both exist (a character device, /dev/null, may
 * take any number of outputs); by their resolved paths otherwise (links in
 * their directories followed). NULL or "" names nothing. */
int util_same_file(const char *p, const char *q);
/* 1 when path is "-" (a standard stream) or an existing file that is not a
 * regular one (a device such as /dev/null, a FIFO, a socket; links
 * followed): written through, and no file is ever derived from its name. */
int util_is_stream(const char *path);

/* Seconds from a monotonic clock. */
double util_now(void);

/* ---- Strings and text (util_str.c) --------------------------------------- */

/* 64-bit FNV-1a. */
uint64_t util_hash64(const void *data, size_t n, uint64_t seed);

/* Shortest decimal text that reads back to exactly x ("%.15g".."%.17g");
 * whole numbers below 1e15 print with one decimal ("5.0"), NaN as null and
 * infinities as +-1e999. buf must hold 32 bytes. Returns buf. */
char *util_fmt_double(char buf[32], double x);
/* The shorter of "%.9g" and "%.17g" that reads back (strtod, then rounded
 * to float) to exactly the bits of x; x finite. buf holds 40 bytes. */
char *util_fmt_float(char buf[40], float x);
/* Writes x as a JSON string of 16 hex digits (checksums, RNG words). */
void util_json_hex64(FILE *f, uint64_t x);

/* Human-readable time ("812.4 µs", "3.21 ms", "1.500 s") and size ("3.1 MB"). */
char *util_fmt_time(char buf[32], double us);
char *util_fmt_bytes(char buf[32], double bytes);
/* A ratio num / den as "1.234x", or "-" when den is not positive (a lower
 * bound of 0, a runtime of 0: there is no ratio to give). */
char *util_fmt_ratio(char buf[32], double num, double den);

/* Writes s as a JSON string literal (with quotes) to f. */
void util_json_string(FILE *f, const char *s);

/* The offset of the first byte of s that is not well-formed UTF-8 (overlong
 * forms, surrogates and code points past U+10FFFF are not), or -1. */
long util_utf8_invalid(const char *s);
/* The length (1-4) of the well-formed UTF-8 sequence at p, with avail bytes
 * there, or 0 (overlong forms, surrogates, code points past U+10FFFF, a cut
 * sequence). */
size_t util_utf8_seq(const unsigned char *p, size_t avail);

/* Line and column (1-based) of byte offset off in text. */
void util_line_col(const char *text, size_t off, int *line, int *col);
/* rank[i] = the position of names[i] among the n names in byte order
 * (strcmp; equal names keep their index order): a stable merge sort. */
void util_rank_strings(const char *const *names, int n, int *rank);

/* A growable string buffer. */
typedef struct StrBuf {
    char *s;
    size_t len, cap;
} StrBuf;
void sb_putc(StrBuf *b, char c);
void sb_puts(StrBuf *b, const char *s);
void sb_printf(StrBuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void sb_free(StrBuf *b);

/* String -> int map (open addressing); keys are borrowed, not copied. */
typedef struct StrMapSlot {
    const char *key; /* NULL: empty */
    uint32_t hash;   /* the key's hash: a probe reads the key only when it matches */
    int val;
} StrMapSlot;
typedef struct StrMap {
    StrMapSlot *slots;
    size_t cap, count;
} StrMap;
void strmap_init(StrMap *m, size_t expected);
void strmap_done(StrMap *m);
/* Returns the existing value if key is present (and does not overwrite it),
 * else inserts val and returns -1. */
int strmap_put(StrMap *m, const char *key, int val);
/* Returns the value or -1. */
int strmap_get(const StrMap *m, const char *key);
/* The same for the n bytes at key (not NUL-terminated). */
int strmap_get_n(const StrMap *m, const char *key, size_t n);

/* ---- Random numbers (util_rng.c) ----------------------------------------- */

/* xoshiro256** seeded through splitmix64; the state is plain data so that
 * episodes and checkpoints can save and restore it exactly. */
typedef struct Rng {
    uint64_t s[4];
} Rng;
void rng_seed(Rng *r, uint64_t seed);
uint64_t rng_next(Rng *r);
/* Uniform double in [0, 1) with 53 random bits. */
double rng_uniform(Rng *r);
/* Uniform integer in [0, n), unbiased; n > 0. */
uint64_t rng_below(Rng *r, uint64_t n);

#endif
