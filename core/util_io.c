/* util_io: reading whole files, atomic writes and the monotonic clock (see
 * util.h, "Files and the clock"). */
#define _POSIX_C_SOURCE 200809L
#include "util.h"

#include <errno.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

double util_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
