/* util: see util.h. */
#define _POSIX_C_SOURCE 200809L
#include "util.h"

#include <errno.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

char *util_read_file(const char *path, size_t *len, Err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        err_set(e, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st; /* a directory or a device (/dev/zero) would fail or never end; pipes are fine */
    if (fstat(fileno(f), &st) != 0 || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))) {
        fclose(f);
        err_set(e, "%s: %s", path, S_ISDIR(st.st_mode) ? "is a directory, expected a file" : "not a regular file");
        return NULL;
    }
    size_t cap = 65536, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (n + 1 >= cap) {
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    int saved = errno;
    fclose(f);
    if (bad) {
        free(buf);
        err_set(e, "%s: read error: %s", path, strerror(saved));
        return NULL;
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

int util_atomic_open(AtomicFile *af, const char *path, Err *e)
{
    memset(af, 0, sizeof *af);
    size_t n = strlen(path) + 48;
    af->path = xstrdup(path);
    af->tmp = xmalloc(n);
    snprintf(af->tmp, n, "%s.tmp.%ld", path, (long)getpid());
    af->f = fopen(af->tmp, "wb");
    if (!af->f) {
        err_set(e, "%s: cannot write: %s", path, strerror(errno));
        free(af->path);
        free(af->tmp);
        memset(af, 0, sizeof *af);
        return -1;
    }
    return 0;
}

void util_atomic_abort(AtomicFile *af)
{
    if (af->f)
        fclose(af->f);
    if (af->tmp)
        remove(af->tmp);
    free(af->path);
    free(af->tmp);
    memset(af, 0, sizeof *af);
}

int util_atomic_commit(AtomicFile *af, Err *e)
{
    int rc = 0;
    if (fflush(af->f) != 0 || ferror(af->f) || fsync(fileno(af->f)) != 0) {
        err_set(e, "%s: write failed: %s", af->path, strerror(errno));
        rc = -1;
    }
    if (fclose(af->f) != 0 && rc == 0) {
        err_set(e, "%s: write failed: %s", af->path, strerror(errno));
        rc = -1;
    }
    af->f = NULL;
    if (rc == 0 && rename(af->tmp, af->path) != 0) {
        err_set(e, "%s: cannot replace: %s", af->path, strerror(errno));
        rc = -1;
    }
    if (rc != 0)
        remove(af->tmp);
    free(af->path);
    free(af->tmp);
    memset(af, 0, sizeof *af);
    return rc;
}

int util_write_atomic(const char *path, const char *data, size_t len, Err *e)
{
    AtomicFile af;
    if (util_atomic_open(&af, path, e) != 0)
        return -1;
    if (len && fwrite(data, 1, len, af.f) != len) {
        err_set(e, "%s: write failed: %s", path, strerror(errno));
        util_atomic_abort(&af);
        return -1;
    }
    return util_atomic_commit(&af, e);
}

uint64_t util_hash64(const void *data, size_t n, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ULL ^ seed;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

char *util_fmt_double(char buf[32], double x)
{
    if (isnan(x))
        return strcpy(buf, "null");
    if (isinf(x))
        return strcpy(buf, x > 0 ? "1e999" : "-1e999");
    if (x == floor(x) && fabs(x) < 1e15) {
        snprintf(buf, 32, "%.1f", x);
        return buf;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, 32, "%.*g", prec, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    return buf;
}

char *util_fmt_time(char buf[32], double us)
{
    double a = fabs(us);
    if (a < 1000.0)
        snprintf(buf, 32, "%.1f µs", us);
    else if (a < 1e6)
        snprintf(buf, 32, "%.3f ms", us / 1e3);
    else
        snprintf(buf, 32, "%.3f s", us / 1e6);
    return buf;
}

char *util_fmt_bytes(char buf[32], double bytes)
{
    static const char *unit[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    int u = 0;
    while (fabs(bytes) >= 1000.0 && u < 6) {
        bytes /= 1000.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, 32, "%.0f B", bytes);
    else
        snprintf(buf, 32, "%.1f %s", bytes, unit[u]);
    return buf;
}

void util_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

void util_line_col(const char *text, size_t off, int *line, int *col)
{
    int l = 1, c = 1;
    for (size_t i = 0; i < off && text[i]; i++) {
        if (text[i] == '\n') {
            l++;
            c = 1;
        } else if (((unsigned char)text[i] & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *col = c;
}

void sb_putc(StrBuf *b, char c)
{
    xgrow((void **)&b->s, &b->cap, b->len + 2, 1);
    b->s[b->len++] = c;
    b->s[b->len] = '\0';
}

void sb_puts(StrBuf *b, const char *s)
{
    size_t n = strlen(s);
    xgrow((void **)&b->s, &b->cap, b->len + n + 1, 1);
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

void sb_printf(StrBuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    xgrow((void **)&b->s, &b->cap, b->len + (size_t)n + 1, 1);
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void sb_free(StrBuf *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

void strmap_init(StrMap *m, size_t expected)
{
    size_t cap = 16;
    while (cap < expected * 2 + 1)
        cap *= 2;
    m->keys = xcalloc(cap, sizeof *m->keys);
    m->vals = xcalloc(cap, sizeof *m->vals);
    m->cap = cap;
    m->count = 0;
}

void strmap_done(StrMap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

static size_t strmap_slot(const StrMap *m, const char *key)
{
    size_t i = (size_t)util_hash64(key, strlen(key), 0) & (m->cap - 1);
    while (m->keys[i] && strcmp(m->keys[i], key) != 0)
        i = (i + 1) & (m->cap - 1);
    return i;
}

int strmap_put(StrMap *m, const char *key, int val)
{
    if ((m->count + 1) * 2 > m->cap) {
        StrMap bigger;
        strmap_init(&bigger, m->cap);
        for (size_t i = 0; i < m->cap; i++)
            if (m->keys[i])
                strmap_put(&bigger, m->keys[i], m->vals[i]);
        strmap_done(m);
        *m = bigger;
    }
    size_t i = strmap_slot(m, key);
    if (m->keys[i])
        return m->vals[i];
    m->keys[i] = key;
    m->vals[i] = val;
    m->count++;
    return -1;
}

int strmap_get(const StrMap *m, const char *key)
{
    if (!m->cap)
        return -1;
    size_t i = strmap_slot(m, key);
    return m->keys[i] ? m->vals[i] : -1;
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void rng_seed(Rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t rng_next(Rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double rng_uniform(Rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

uint64_t rng_below(Rng *r, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = rng_next(r);
    while (x >= limit);
    return x % n;
}

double util_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
