/* util_err: error buffers, checked allocation, the fail hook and util_die
 * (see util.h, "Errors and allocation"). */
#include "util.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void (*fail_hook)(void);
static char fail_message[512];

/* Copies the len bytes of src into dst (cap bytes with the NUL). A message
 * too long for it loses its middle, not its end: what went wrong is said
 * last ("FILE: cannot open: reason"), and a very long path must not cut it
 * off. The cuts fall between UTF-8 code points. */
static void fit_message(char *dst, size_t cap, const char *src, size_t len)
{
    if (len < cap) {
        memcpy(dst, src, len);
        dst[len] = '\0';
        return;
    }
    static const char gap[] = " ... ";
    size_t head = cap / 4, tail = cap - head - sizeof gap; /* head + gap + tail + NUL == cap */
    while (head > 0 && ((unsigned char)src[head] & 0xC0) == 0x80) /* not inside a code point */
        head--;
    size_t from = len - tail;
    while (from < len && ((unsigned char)src[from] & 0xC0) == 0x80)
        from++;
    memcpy(dst, src, head);
    memcpy(dst + head, gap, sizeof gap - 1);
    memcpy(dst + head + sizeof gap - 1, src + from, len - from);
    dst[head + sizeof gap - 1 + len - from] = '\0';
}

int err_set(Err *e, const char *fmt, ...)
{
    if (!e)
        return -1;
    char small[sizeof e->msg];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        snprintf(e->msg, sizeof e->msg, "(no message)");
    } else if ((size_t)n < sizeof small) {
        memcpy(e->msg, small, (size_t)n + 1);
    } else { /* too long: formatted whole, then its middle elided */
        char *big = malloc((size_t)n + 1);
        if (!big) {
            memcpy(e->msg, small, sizeof small);
            return -1;
        }
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        fit_message(e->msg, sizeof e->msg, big, (size_t)n);
        free(big);
    }
    return -1;
}

void err_prefix(Err *e, const char *prefix)
{
    if (!e)
        return;
    size_t pl = strlen(prefix), ml = strlen(e->msg);
    char *tmp = malloc(pl + 2 + ml + 1);
    if (!tmp)
        return; /* the message stays without its prefix */
    memcpy(tmp, prefix, pl);
    memcpy(tmp + pl, ": ", 2);
    memcpy(tmp + pl + 2, e->msg, ml + 1);
    fit_message(e->msg, sizeof e->msg, tmp, pl + 2 + ml);
    free(tmp);
}

void util_set_fail_hook(void (*hook)(void)) { fail_hook = hook; }

const char *util_fail_message(void) { return fail_message; }

void util_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fail_message, sizeof fail_message, fmt, ap);
    va_end(ap);
    if (fail_hook)
        fail_hook();
    va_start(ap, fmt);
    fputs("placeto: fatal: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

/* ---- running out: allocation failure and size limits ---- */

/* The files being read, innermost last (an episode file reads its graph
 * file): util_reading(path) pushes, util_reading(NULL) pops. */
#define READING_MAX 8
static char reading_paths[READING_MAX][256];
static int reading_depth;
/* test injection: allocations left before failing (-1: never) and the count */
static atomic_long fail_after = -1;
static atomic_ulong alloc_count;

void util_reading(const char *path)
{
    if (path) {
        if (reading_depth < READING_MAX)
            snprintf(reading_paths[reading_depth], sizeof reading_paths[0], "%s", path);
        reading_depth++;
    } else if (reading_depth > 0) {
        reading_depth--;
    }
}

const char *util_reading_path(void)
{
    if (reading_depth <= 0)
        return NULL;
    return reading_paths[reading_depth <= READING_MAX ? reading_depth - 1 : READING_MAX - 1];
}

void util_alloc_fail_after(long n)
{
    atomic_store_explicit(&fail_after, n, memory_order_relaxed);
    atomic_store_explicit(&alloc_count, 0, memory_order_relaxed);
}

unsigned long util_alloc_count(void) { return atomic_load_explicit(&alloc_count, memory_order_relaxed); }

/* 1 when this allocation is to fail (a test's injection). */
static int injected_failure(void)
{
    atomic_fetch_add_explicit(&alloc_count, 1, memory_order_relaxed);
    long left = atomic_load_explicit(&fail_after, memory_order_relaxed);
    if (left < 0)
        return 0;
    if (left == 0)
        return 1;
    atomic_fetch_sub_explicit(&fail_after, 1, memory_order_relaxed);
    return 0;
}

/* Out of memory or past a size limit: "FILE: out of memory (WHAT)" while a
 * file is read (util_reading), "out of memory (WHAT)" otherwise, then the fail
 * hook, the message on stderr and exit status 1. No abort: running out is
 * the machine's limit, not a bug. */
static void die_out_of_memory(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;
static void die_out_of_memory(const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    const char *path = util_reading_path();
    if (path)
        snprintf(fail_message, sizeof fail_message, "%.200s: out of memory (%s)", path, what);
    else
        snprintf(fail_message, sizeof fail_message, "out of memory (%s)", what);
    if (fail_hook)
        fail_hook();
    fprintf(stderr, "placeto: %s\n", fail_message);
    exit(1);
}

void *util_try_malloc(size_t n)
{
    if (injected_failure())
        return NULL;
    return malloc(n ? n : 1);
}

void *util_try_realloc(void *p, size_t n)
{
    if (injected_failure())
        return NULL;
    return realloc(p, n ? n : 1);
}

void *xmalloc(size_t n)
{
    void *p = util_try_malloc(n);
    if (!p)
        die_out_of_memory("allocating %zu bytes", n);
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = injected_failure() ? NULL : calloc(count ? count : 1, size ? size : 1);
    if (!p)
        die_out_of_memory("allocating %zu x %zu bytes", count, size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = util_try_realloc(p, n);
    if (!q)
        die_out_of_memory("allocating %zu bytes", n);
    return q;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = xmalloc(n);
    memcpy(d, s, n);
    return d;
}

void xgrow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return;
    size_t c = *cap ? *cap : 8;
    while (c < need) {
        if (c > SIZE_MAX / 2 / elem)
            die_out_of_memory("array too large (%zu elements)", need);
        c *= 2;
    }
    *p = xrealloc_array(*p, c, elem);
    *cap = c;
}

int util_size_mul(size_t count, size_t size, size_t *out)
{
    if (size && count > SIZE_MAX / size)
        return -1;
    *out = count * size;
    return 0;
}

size_t xmul(size_t a, size_t b)
{
    size_t n;
    if (util_size_mul(a, b, &n) != 0)
        die_out_of_memory("size overflow: %zu x %zu does not fit a size_t", a, b);
    return n;
}

/* The bytes of an array of count (at least 1) elements of size bytes, or
 * fatal when that is past what one object may hold (PTRDIFF_MAX), which also
 * catches a negative count converted to size_t. */
static size_t array_bytes(size_t count, size_t size)
{
    size_t n;
    if (util_size_mul(count ? count : 1, size ? size : 1, &n) != 0 || n > (size_t)PTRDIFF_MAX)
        die_out_of_memory("array too large: %zu elements of %zu bytes", count, size);
    return n;
}

void *xnew_array(size_t count, size_t size)
{
    size_t n = array_bytes(count, size);
    void *p = injected_failure() ? NULL : calloc(count ? count : 1, size ? size : 1);
    if (!p)
        die_out_of_memory("allocating %zu x %zu bytes (%zu bytes)", count, size, n);
    return p;
}

void *xmalloc_array(size_t count, size_t size) { return xmalloc(array_bytes(count, size)); }

void *xrealloc_array(void *p, size_t count, size_t size) { return xrealloc(p, array_bytes(count, size)); }
