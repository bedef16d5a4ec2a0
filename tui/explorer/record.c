/* record: asciinema v2 recordings of the explorer (record.h). */
#include "record.h"

#include <stdlib.h>
#include <string.h>

#include "term.h"

struct Recorder {
    AtomicFile af;
    TermAnsi *ansi;
    double last; /* the time of the last event */
    StrBuf buf;
};

/* The length of the valid UTF-8 sequence at p (n bytes left), or 0. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    size_t len;
    uint32_t min, cp;
    if (p[0] < 0x80)
        return 1;
    if ((p[0] & 0xE0) == 0xC0) {
        len = 2, min = 0x80, cp = p[0] & 0x1Fu;
    } else if ((p[0] & 0xF0) == 0xE0) {
        len = 3, min = 0x800, cp = p[0] & 0x0Fu;
    } else if ((p[0] & 0xF8) == 0xF0) {
        len = 4, min = 0x10000, cp = p[0] & 0x07u;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t k = 1; k < len; k++) {
        if ((p[k] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (p[k] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0; /* overlong, out of range, a surrogate */
    return len;
}

void record_json_bytes(FILE *f, const char *data, size_t len)
{
    const unsigned char *p = (const unsigned char *)data;
    fputc('"', f);
    for (size_t i = 0; i < len;) {
        unsigned char c = p[i];
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc(c, f);
            i++;
        } else if (c == '\n') {
            fputs("\\n", f);
            i++;
        } else if (c == '\r') {
            fputs("\\r", f);
            i++;
        } else if (c == '\t') {
            fputs("\\t", f);
            i++;
        } else if (c < 0x20 || c == 0x7F) {
            fprintf(f, "\\u%04x", c);
            i++;
        } else {
            size_t n = utf8_len(p + i, len - i);
            if (n == 0) {
                fputs("\\ufffd", f);
                i++;
            } else {
                fwrite(p + i, 1, n, f);
                i += n;
            }
        }
    }
    fputc('"', f);
}

static void json_string(FILE *f, const char *s)
{
    record_json_bytes(f, s, strlen(s));
}

Recorder *record_open(const char *path, const RecordInfo *info, Err *e)
{
    Recorder *r = xcalloc(1, sizeof *r);
    if (util_atomic_open(&r->af, path, e) != 0) {
        free(r);
        return NULL;
    }
    FILE *f = r->af.f;
    fprintf(f, "{\"version\": 2, \"width\": %d, \"height\": %d, \"timestamp\": %lld", info->width, info->height,
            info->timestamp);
    if (info->title) {
        fputs(", \"title\": ", f);
        json_string(f, info->title);
    }
    fputs(", \"env\": {\"TERM\": ", f);
    json_string(f, info->term ? info->term : "xterm-256color");
    fputs(", \"SHELL\": ", f);
    json_string(f, info->shell ? info->shell : "/bin/sh");
    fputs("}}\n", f);
    r->ansi = term_ansi_new(info->colors, info->glyphs);
    return r;
}

/* One "o" event with what is in r->buf. */
static void event(Recorder *r, double t)
{
    if (r->buf.len == 0)
        return;
    if (t < r->last)
        t = r->last;
    r->last = t;
    fprintf(r->af.f, "[%.6f, \"o\", ", t);
    record_json_bytes(r->af.f, r->buf.s, r->buf.len);
    fputs("]\n", r->af.f);
    r->buf.len = 0;
}

void record_frame(Recorder *r, const Grid *g, double t)
{
    if (!r)
        return;
    term_ansi_frame(r->ansi, g, &r->buf);
    event(r, t);
}

void record_invalidate(Recorder *r)
{
    if (r)
        term_ansi_invalidate(r->ansi);
}

static void release(Recorder *r)
{
    term_ansi_free(r->ansi);
    sb_free(&r->buf);
    free(r);
}

int record_close(Recorder *r, double t, Err *e)
{
    if (!r)
        return 0;
    term_ansi_end(r->ansi, &r->buf);
    event(r, t);
    int rc = 0;
    if (ferror(r->af.f)) {
        err_set(e, "%s: cannot write the recording", r->af.path);
        util_atomic_abort(&r->af);
        rc = -1;
    } else {
        rc = util_atomic_commit(&r->af, e);
    }
    release(r);
    return rc;
}

void record_abort(Recorder *r)
{
    if (!r)
        return;
    util_atomic_abort(&r->af);
    release(r);
}
