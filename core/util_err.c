/* util_err: error buffers, checked allocation, the fail hook and util_die
 * (see util.h, "Errors and allocation"). */
#include "util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void (*fail_hook)(void);

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

void util_die(const char *fmt, ...)
{
    if (fail_hook)
        fail_hook();
    va_list ap;
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
    *p = xrealloc(*p, c * elem);
    *cap = c;
}
