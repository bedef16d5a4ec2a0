/* visible: see visible.h. */
#define _GNU_SOURCE /* fopencookie */
#include "visible.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

typedef struct Visible {
    int fd;
    int pending_c2; /* a 0xC2 byte held back: it may lead a C1 control */
} Visible;

static Visible out_state = {STDOUT_FILENO, 0}, err_state = {STDERR_FILENO, 0};
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

static ssize_t visible_write(void *cookie, const char *buf, size_t n)
{
    Visible *v = cookie;
    char out[4096 + 16];
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (len > 4096) {
            if (write_all(v->fd, out, len) != 0)
                return -1;
            len = 0;
        }
        if (v->pending_c2) {
            v->pending_c2 = 0;
            if (c >= 0x80 && c <= 0x9f) { /* U+0080-U+009F */
                len += (size_t)snprintf(out + len, 16, "<U+%04X>", c);
                continue;
            }
            out[len++] = (char)0xc2;
        }
        if (c == 0xc2) {
            v->pending_c2 = 1;
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
    if (v->pending_c2) { /* a lone 0xC2 at the very end */
        v->pending_c2 = 0;
        char c = (char)0xc2;
        return write_all(v->fd, &c, 1);
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
