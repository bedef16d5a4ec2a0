/* util_str: hashing, number and text formatting, StrBuf and StrMap (see
 * util.h, "Strings and text"). */
#include "util.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

char *util_fmt_float(char buf[40], float x)
{
    snprintf(buf, 40, "%.9g", (double)x);
    float y = (float)strtod(buf, NULL);
    if (memcmp(&x, &y, sizeof x) != 0)
        snprintf(buf, 40, "%.17g", (double)x);
    return buf;
}

void util_json_hex64(FILE *f, uint64_t x) { fprintf(f, "\"%016" PRIx64 "\"", x); }

char *util_fmt_ratio(char buf[32], double num, double den)
{
    if (!(den > 0) || !isfinite(num / den))
        snprintf(buf, 32, "-");
    else
        snprintf(buf, 32, "%.3fx", num / den);
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
            if (*p < 0x20 || *p == 0x7f)
                fprintf(f, "\\u%04x", *p);
            else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) /* a C1 control (U+0080-U+009F) */
                fprintf(f, "\\u%04x", *++p);
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
    m->slots = XNEW(StrMapSlot, cap);
    m->cap = cap;
    m->count = 0;
}

void strmap_done(StrMap *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

static uint64_t strmap_hash(const char *key, size_t n)
{
    uint64_t h = util_hash64(key, n, 0);
    return h ^ (h >> 32); /* the high bits too: FNV's low bits see only the bytes' low bits */
}

/* The slot of the n-byte key: where it is, or the empty slot it would take. */
static size_t strmap_slot(const StrMap *m, const char *key, size_t n, uint64_t h)
{
    uint32_t h32 = (uint32_t)h;
    size_t i = (size_t)h32 & (m->cap - 1);
    const StrMapSlot *s;
    while ((s = &m->slots[i])->key &&
           !(s->hash == h32 && strncmp(s->key, key, n) == 0 && s->key[n] == '\0'))
        i = (i + 1) & (m->cap - 1);
    return i;
}

static int strmap_put_hashed(StrMap *m, const char *key, uint64_t h, int val)
{
    if ((m->count + 1) * 2 > m->cap) {
        StrMap bigger;
        strmap_init(&bigger, m->cap);
        for (size_t i = 0; i < m->cap; i++)
            if (m->slots[i].key) { /* the keys are distinct: straight to the first empty slot */
                size_t j = (size_t)m->slots[i].hash & (bigger.cap - 1);
                while (bigger.slots[j].key)
                    j = (j + 1) & (bigger.cap - 1);
                bigger.slots[j] = m->slots[i];
                bigger.count++;
            }
        strmap_done(m);
        *m = bigger;
    }
    size_t i = strmap_slot(m, key, strlen(key), h);
    if (m->slots[i].key)
        return m->slots[i].val;
    m->slots[i] = (StrMapSlot){key, (uint32_t)h, val};
    m->count++;
    return -1;
}

int strmap_put(StrMap *m, const char *key, int val)
{
    return strmap_put_hashed(m, key, strmap_hash(key, strlen(key)), val);
}

int strmap_get_n(const StrMap *m, const char *key, size_t n)
{
    if (!m->cap)
        return -1;
    size_t i = strmap_slot(m, key, n, strmap_hash(key, n));
    return m->slots[i].key ? m->slots[i].val : -1;
}

int strmap_get(const StrMap *m, const char *key)
{
    return strmap_get_n(m, key, strlen(key));
}

size_t util_utf8_seq(const unsigned char *p, size_t avail)
{
    unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    size_t need;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
        need = 1;
    } else if (c >= 0xe0 && c <= 0xef) {
        need = 2;
        lo = c == 0xe0 ? 0xa0 : 0x80; /* no overlong form */
        hi = c == 0xed ? 0x9f : 0xbf; /* no surrogate */
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 3;
        lo = c == 0xf0 ? 0x90 : 0x80;
        hi = c == 0xf4 ? 0x8f : 0xbf; /* nothing past U+10FFFF */
    } else {
        return 0;
    }
    if (need >= avail || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t k = 2; k <= need; k++)
        if (p[k] < 0x80 || p[k] > 0xbf)
            return 0;
    return need + 1;
}

long util_utf8_invalid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; p[i];) {
        size_t len = util_utf8_seq(p + i, (size_t)-1); /* a NUL ends a sequence short: invalid */
        if (!len)
            return (long)i;
        i += len;
    }
    return -1;
}

void util_rank_strings(const char *const *names, int n, int *rank)
{
    int *idx = XMALLOC(int, n);
    int *tmp = XMALLOC(int, n);
    for (int i = 0; i < n; i++)
        idx[i] = i;
    for (int width = 1; width < n; width *= 2) {
        for (int lo = 0; lo < n; lo += 2 * width) {
            int mid = lo + width < n ? lo + width : n;
            int hi = lo + 2 * width < n ? lo + 2 * width : n;
            int i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = strcmp(names[idx[j]], names[idx[i]]) < 0 ? idx[j++] : idx[i++];
            while (i < mid)
                tmp[k++] = idx[i++];
            while (j < hi)
                tmp[k++] = idx[j++];
        }
        int *t = idx;
        idx = tmp;
        tmp = t;
    }
    for (int i = 0; i < n; i++)
        rank[idx[i]] = i;
    free(idx);
    free(tmp);
}
