/* util_err: error buffers, checked allocation, the fail hook and util_die
 * (see util.h, "Errors and allocation"). */
#include "util.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void (*fail_hook)(void);
static char fail_message[512];

int err_set(Err *e, const char *fmt, ...)
{
    if (!e)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return -1;
}

void err_prefix(Err *e, const char *prefix)
{
    if (!e)
        return;
    char tmp[sizeof e->msg];
    size_t pl = strlen(prefix);
    if (pl > sizeof tmp - 3)
        pl = sizeof tmp - 3;
    memcpy(tmp, prefix, pl);
    memcpy(tmp + pl, ": ", 2);
    size_t ml = strlen(e->msg);
    if (ml > sizeof tmp - pl - 3)
        ml = sizeof tmp - pl - 3;
    memcpy(tmp + pl + 2, e->msg, ml);
    tmp[pl + 2 + ml] = '\0';
    memcpy(e->msg, tmp, sizeof tmp);
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

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        util_die("out of memory allocating %zu bytes", n);
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        util_die("out of memory allocating %zu x %zu bytes", count, size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        util_die("out of memory allocating %zu bytes", n);
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
            util_die("array too large (%zu elements)", need);
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
        util_die("size overflow: %zu x %zu does not fit a size_t", a, b);
    return n;
}

/* The bytes of an array of count (at least 1) elements of size bytes, or
 * fatal when that is past what one object may hold (PTRDIFF_MAX), which also
 * catches a negative count converted to size_t. */
static size_t array_bytes(size_t count, size_t size)
{
    size_t n;
    if (util_size_mul(count ? count : 1, size ? size : 1, &n) != 0 || n > (size_t)PTRDIFF_MAX)
        util_die("array too large: %zu elements of %zu bytes", count, size);
    return n;
}

void *xnew_array(size_t count, size_t size)
{
    size_t n = array_bytes(count, size);
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        util_die("out of memory allocating %zu x %zu bytes (%zu bytes)", count, size, n);
    return p;
}

void *xmalloc_array(size_t count, size_t size) { return xmalloc(array_bytes(count, size)); }

void *xrealloc_array(void *p, size_t count, size_t size) { return xrealloc(p, array_bytes(count, size)); }
