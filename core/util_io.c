/* util_io: reading whole files, atomic writes and the monotonic clock (see
 * util.h, "Files and the clock"). */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* realpath */
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void util_trace_read(const char *what, const char *path)
{
    static int on = -1;
    if (on < 0) {
        const char *v = getenv("PLACETO_TRACE_READS");
        on = v && v[0] && strcmp(v, "0") != 0;
    }
    if (on)
        fprintf(stderr, "placeto: trace: %s %s\n", what, path);
}

char *util_read_file(const char *path, size_t *len, Err *e)
{
    util_trace_read("read", path);
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
    char *buf = util_try_malloc(cap);
    for (;;) {
        if (buf && n + 1 >= cap) {
            char *grown = cap <= SIZE_MAX / 2 ? util_try_realloc(buf, cap * 2) : NULL;
            if (!grown) {
                free(buf);
                buf = NULL;
            }
            cap *= 2;
            buf = grown;
        }
        if (!buf) {
            fclose(f);
            err_set(e, "%s: out of memory", path);
            return NULL;
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

/* The longest file name (one path component) the program creates: POSIX
 * NAME_MAX on the file systems it runs on. */
#define UTIL_NAME_MAX 255
/* ".tmp." and a pid of up to 20 digits */
#define TMP_SUFFIX_MAX 25

/* The stem of path's temporaries, without its directory: the file's own
 * name when "NAME.tmp.PID" fits UTIL_NAME_MAX, else a prefix of it, '~' and
 * 16 hex digits of a hash of the whole name (so two long names that share a
 * prefix never share temporaries). dirlen receives the length of the
 * directory part of path, its '/' included. */
static void tmp_stem(const char *path, char *stem, size_t stemn, size_t *dirlen)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    *dirlen = (size_t)(base - path);
    size_t bl = strlen(base);
    if (bl + TMP_SUFFIX_MAX <= UTIL_NAME_MAX) {
        snprintf(stem, stemn, "%s", base);
        return;
    }
    size_t keep = UTIL_NAME_MAX - TMP_SUFFIX_MAX - 17;
    snprintf(stem, stemn, "%.*s~%016llx", (int)keep, base,
             (unsigned long long)util_hash64(base, bl, 0x7e3d5a1b9c4f2e61ULL));
}

/* 1 when name is "STEM.tmp.PID" with PID all digits; stores PID. */
static int tmp_of_stem(const char *name, const char *stem, long *pid)
{
    size_t sl = strlen(stem);
    if (strncmp(name, stem, sl) != 0 || strncmp(name + sl, ".tmp.", 5) != 0)
        return 0;
    const char *d = name + sl + 5;
    if (!*d || strspn(d, "0123456789") != strlen(d) || strlen(d) > 18)
        return 0;
    *pid = strtol(d, NULL, 10);
    return *pid > 0;
}

/* Removes the temporaries of path left by processes that no longer exist (a
 * kill -9 during a save); those of live processes, another save in progress,
 * are left alone. Best effort: errors are ignored. */
static void remove_stale_tmps(const char *path, const char *stem, size_t dirlen)
{
    char dir[4096];
    if (dirlen >= sizeof dir)
        return;
    if (dirlen == 0)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)dirlen, path);
    DIR *dh = opendir(dir);
    if (!dh)
        return;
    struct dirent *de;
    while ((de = readdir(dh)) != NULL) {
        long pid;
        if (!tmp_of_stem(de->d_name, stem, &pid) || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* alive, or not ours to judge (EPERM: someone else's live process) */
        char full[4096 + UTIL_NAME_MAX + 2];
        snprintf(full, sizeof full, "%s/%s", dir, de->d_name);
        remove(full);
    }
    closedir(dh);
}

char *util_atomic_tmp_name(const char *path)
{
    char stem[UTIL_NAME_MAX + 1];
    size_t dirlen;
    tmp_stem(path, stem, sizeof stem, &dirlen);
    size_t n = dirlen + strlen(stem) + TMP_SUFFIX_MAX + 1;
    char *t = xmalloc(n);
    snprintf(t, n, "%.*s%s.tmp.%ld", (int)dirlen, path, stem, (long)getpid());
    return t;
}

int util_atomic_open(AtomicFile *af, const char *path, Err *e)
{
    memset(af, 0, sizeof *af);
    char stem[UTIL_NAME_MAX + 1];
    size_t dirlen;
    tmp_stem(path, stem, sizeof stem, &dirlen);
    remove_stale_tmps(path, stem, dirlen);
    af->path = xstrdup(path);
    af->tmp = util_atomic_tmp_name(path);
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

/* The directory part of file ("." when it has none), malloc'd. */
static char *dir_of(const char *file)
{
    const char *slash = strrchr(file, '/');
    if (!slash)
        return xstrdup(".");
    if (slash == file)
        return xstrdup("/");
    size_t n = (size_t)(slash - file);
    char *d = xmalloc(n + 1);
    memcpy(d, file, n);
    d[n] = '\0';
    return d;
}

char *util_path_relative_to(const char *path, const char *file)
{
    char *dir = dir_of(file);
    char *rd = realpath(dir, NULL), *rp = realpath(path, NULL);
    free(dir);
    if (!rd || !rp) {
        free(rd);
        free(rp);
        return xstrdup(path);
    }
    /* the longest common prefix of whole components */
    size_t common = 0;
    for (size_t i = 0; rd[i] && rd[i] == rp[i]; i++)
        if (rd[i] == '/')
            common = i;
    size_t nd = strlen(rd);
    if (strncmp(rd, rp, nd) == 0 && (rp[nd] == '/' || (nd == 1 && rd[0] == '/')))
        common = nd == 1 ? 0 : nd; /* the file's directory holds path */
    StrBuf b = {0};
    for (const char *q = rd + common; *q; q++) /* one ".." per component of rd past the common prefix */
        if (*q == '/' && q[1])
            sb_printf(&b, "../");
    sb_printf(&b, "%s", rp + common + (rp[common] == '/'));
    free(rd);
    free(rp);
    return b.s ? b.s : xstrdup(".");
}

char *util_path_resolve(const char *path, const char *file)
{
    if (path[0] == '/')
        return xstrdup(path);
    char *dir = dir_of(file);
    size_t n = strlen(dir) + strlen(path) + 2;
    char *out = xmalloc(n);
    if (strcmp(dir, ".") == 0)
        snprintf(out, n, "%s", path);
    else
        snprintf(out, n, "%s/%s", dir, path);
    free(dir);
    return out;
}
