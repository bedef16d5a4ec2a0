/* visible: see visible.h. */
#define _GNU_SOURCE /* fopencookie */
#include "visible.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

typedef struct Visible {
    int fd;
    unsigned char pend[3]; /* the start of a UTF-8 sequence held back: it may be a C1 or a bidi control */
    int npend;
} Visible;

static Visible out_state = {STDOUT_FILENO, {0}, 0}, err_state = {STDERR_FILENO, {0}, 0};
static FILE *raw_stdout;

/* Writes all of buf to fd; 0, or -1 with errno set. */
static int write_all(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The code point of a complete held sequence that is shown as <U+XXXX>: a C1
 * control (C2 80..9F), the Arabic letter mark (D8 9C), or a bidirectional
 * control (E2 80 8E/8F, E2 80 AA..AE, E2 81 A6..A9); 0 for any other. */
static unsigned hidden_code(const unsigned char *p, int n)
{
    if (n == 2 && p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
        return p[1];
    if (n == 2 && p[0] == 0xd8 && p[1] == 0x9c)
        return 0x061c;
    if (n == 3 && p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0x8e || p[2] == 0x8f || (p[2] >= 0xaa && p[2] <= 0xae)))
        return 0x2000u + (p[2] - 0x80u);
    if (n == 3 && p[0] == 0xe2 && p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9)
        return 0x2040u + (p[2] - 0x80u);
    return 0;
}

/* Whether the held bytes can still grow into a sequence hidden_code shows. */
static int may_hide(const unsigned char *p, int n)
{
    if (n == 1)
        return p[0] == 0xc2 || p[0] == 0xd8 || p[0] == 0xe2;
    return n == 2 && p[0] == 0xe2 && (p[1] == 0x80 || p[1] == 0x81);
}

static ssize_t visible_write(void *cookie, const char *buf, size_t n)
{
    Visible *v = cookie;
    char out[4096 + 32];
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (len > 4096) {
            if (write_all(v->fd, out, len) != 0)
                return -1;
            len = 0;
        }
        if (v->npend) {
            v->pend[v->npend++] = c;
            unsigned code = hidden_code(v->pend, v->npend);
            if (code) {
                len += (size_t)snprintf(out + len, 16, "<U+%04X>", code);
                v->npend = 0;
                continue;
            }
            if (may_hide(v->pend, v->npend))
                continue;
            /* an ordinary sequence (or a broken one): the held bytes as they were, then c afresh */
            v->npend--;
            memcpy(out + len, v->pend, (size_t)v->npend);
            len += (size_t)v->npend;
            v->npend = 0;
        }
        if (may_hide(&c, 1)) {
            v->pend[v->npend++] = c;
        } else if ((c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7f) {
            out[len++] = '^';
            out[len++] = c == 0x7f ? '?' : (char)(c + 0x40);
        } else {
            out[len++] = (char)c;
        }
    }
    if (len && write_all(v->fd, out, len) != 0)
        return -1;
    return (ssize_t)n;
}

static int visible_close(void *cookie)
{
    Visible *v = cookie;
    if (v->npend) { /* a sequence cut at the very end */
        int n = v->npend;
        v->npend = 0;
        return write_all(v->fd, (const char *)v->pend, (size_t)n);
    }
    return 0;
}

void visible_streams(void)
{
    if (raw_stdout)
        return;
    raw_stdout = stdout;
    cookie_io_functions_t io = {NULL, visible_write, NULL, visible_close};
    fflush(stdout);
    fflush(stderr);
    FILE *o = fopencookie(&out_state, "w", io), *e = fopencookie(&err_state, "w", io);
    if (!o || !e) { /* no memory: the streams stay as they were */
        if (o)
            fclose(o);
        if (e)
            fclose(e);
        return;
    }
    setvbuf(e, NULL, _IONBF, 0); /* stderr stays unbuffered */
    stdout = o;
    stderr = e;
}

FILE *visible_raw_stdout(void)
{
    return raw_stdout ? raw_stdout : stdout;
}
