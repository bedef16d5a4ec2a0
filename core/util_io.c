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
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
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

/* Standard input, read once: a command may look at a file before it loads it
 * (an episode given as a placement), and "-" gives the same bytes each time. */
static char *stdin_text;
static size_t stdin_len;

static char *read_file_once(const char *path, size_t *len, Err *e);

char *util_read_file(const char *path, size_t *len, Err *e)
{
    if (!path || strcmp(path, "-") != 0 || !stdin_text) {
        size_t n = 0;
        char *text = read_file_once(path, &n, e);
        if (len)
            *len = n;
        if (text && path && strcmp(path, "-") == 0) {
            stdin_text = xmalloc(n + 1);
            memcpy(stdin_text, text, n + 1);
            stdin_len = n;
        }
        return text;
    }
    char *copy = xmalloc(stdin_len + 1);
    memcpy(copy, stdin_text, stdin_len + 1);
    if (len)
        *len = stdin_len;
    return copy;
}

static char *read_file_once(const char *path, size_t *len, Err *e)
{
    util_trace_read("read", path);
    if (!path || !*path) {
        err_set(e, "an empty file name: expected a file, or - for standard input");
        return NULL;
    }
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = NULL;
    if (is_stdin) {
        int fd = dup(0);
        f = fd >= 0 ? fdopen(fd, "rb") : NULL;
        if (!f && fd >= 0)
            close(fd);
        path = "standard input";
    } else
        f = fopen(path, "rb");
    if (!f) {
        err_set(e, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st; /* a directory or a device (/dev/zero) would fail or never end; pipes are fine, and a
                     * terminal or socket on standard input */
    if (fstat(fileno(f), &st) != 0 || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) ||
                                       (is_stdin && (S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode))))) {
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

/* path with its symbolic links followed to the last one's target (which need
 * not exist: a new file, or a dangling link's target), malloc'd; NULL (errno
 * ELOOP) past 40 links. */
static char *follow_links(const char *path)
{
    char *cur = xstrdup(path);
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            return cur;
        size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096;
        char *link = xmalloc(cap + 1);
        ssize_t n = readlink(cur, link, cap);
        if (n < 0 || (size_t)n > cap) {
            free(link);
            return cur; /* changed under us: use the path as it is */
        }
        link[n] = '\0';
        if (link[0] == '/' || !strchr(cur, '/')) {
            free(cur);
            cur = link;
            continue;
        }
        size_t dirlen = (size_t)(strrchr(cur, '/') - cur) + 1, ln = strlen(link);
        char *joined = xmalloc(dirlen + ln + 1);
        memcpy(joined, cur, dirlen);
        memcpy(joined + dirlen, link, ln + 1);
        free(link);
        free(cur);
        cur = joined;
    }
    free(cur);
    errno = ELOOP;
    return NULL;
}

char *util_link_target(const char *path)
{
    char *t = follow_links(path);
    return t ? t : xstrdup(path);
}

/* Opens a FIFO, device or socket to be written in place. */
static FILE *open_in_place(const char *target, const struct stat *st)
{
    int fd;
    if (S_ISSOCK(st->st_mode)) {
        struct sockaddr_un sa;
        memset(&sa, 0, sizeof sa);
        sa.sun_family = AF_UNIX;
        if (strlen(target) >= sizeof sa.sun_path) {
            errno = ENAMETOOLONG;
            return NULL;
        }
        strcpy(sa.sun_path, target);
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
            int saved = errno;
            close(fd);
            errno = saved;
            fd = -1;
        }
    } else
        fd = open(target, O_WRONLY | (S_ISREG(st->st_mode) ? O_TRUNC : 0));
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "wb");
    if (!f)
        close(fd);
    return f;
}

int util_atomic_open(AtomicFile *af, const char *path, Err *e)
{
    memset(af, 0, sizeof *af);
    if (!path || !*path) {
        err_set(e, "an empty file name: expected a file, or - for standard output");
        return -1;
    }
    if (strcmp(path, "-") == 0) {
        fflush(stdout); /* what the command printed before comes first */
        int fd = dup(1);
        af->f = fd >= 0 ? fdopen(fd, "wb") : NULL;
        if (!af->f) {
            err_set(e, "standard output: cannot write: %s", strerror(errno));
            if (fd >= 0)
                close(fd);
            return -1;
        }
        af->path = xstrdup("standard output");
        /* standard output now carries the file: what the command reports from here on goes to standard
         * error, so that the file reaches its reader whole */
        dup2(STDERR_FILENO, STDOUT_FILENO);
        return 0;
    }
    char *target = follow_links(path);
    if (!target) {
        err_set(e, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    int exists = stat(target, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        err_set(e, "%s: is a directory, expected a file", path);
        free(target);
        return -1;
    }
    af->path = xstrdup(path);
    af->target = target;
    if (exists && !S_ISREG(st.st_mode)) { /* a device, FIFO or socket: written through */
        af->f = open_in_place(target, &st);
        if (!af->f) {
            err_set(e, "%s: cannot write: %s", path, strerror(errno));
            free(af->path);
            free(af->target);
            memset(af, 0, sizeof *af);
            return -1;
        }
        return 0;
    }
    if (exists) {
        af->keep = 1;
        af->mode = (unsigned)(st.st_mode & 07777);
        af->uid = (long)st.st_uid;
        af->gid = (long)st.st_gid;
    }
    char stem[UTIL_NAME_MAX + 1];
    size_t dirlen;
    tmp_stem(target, stem, sizeof stem, &dirlen);
    remove_stale_tmps(target, stem, dirlen);
    af->tmp = util_atomic_tmp_name(target);
    af->f = fopen(af->tmp, "wb");
    if (!af->f) {
        err_set(e, "%s: cannot write: %s", path, strerror(errno));
        free(af->path);
        free(af->target);
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
    free(af->target);
    free(af->tmp);
    memset(af, 0, sizeof *af);
}

int util_atomic_commit(AtomicFile *af, Err *e)
{
    int rc = 0;
    if (fflush(af->f) != 0 || ferror(af->f) || (af->tmp && fsync(fileno(af->f)) != 0)) {
        err_set(e, "%s: write failed: %s", af->path, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && af->keep) { /* the replaced file's mode, and its owner where this process may set it */
        if (fchown(fileno(af->f), (uid_t)af->uid, (gid_t)af->gid) != 0 && errno != EPERM) {
            err_set(e, "%s: cannot keep its owner: %s", af->path, strerror(errno));
            rc = -1;
        } else if (fchmod(fileno(af->f), (mode_t)af->mode) != 0) { /* after the owner: chown clears set-id bits */
            err_set(e, "%s: cannot keep its mode: %s", af->path, strerror(errno));
            rc = -1;
        }
    }
    if (fclose(af->f) != 0 && rc == 0) {
        err_set(e, "%s: write failed: %s", af->path, strerror(errno));
        rc = -1;
    }
    af->f = NULL;
    if (rc == 0 && af->tmp && rename(af->tmp, af->target) != 0) {
        err_set(e, "%s: cannot replace: %s", af->path, strerror(errno));
        rc = -1;
    }
    if (rc != 0 && af->tmp)
        remove(af->tmp);
    free(af->path);
    free(af->target);
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

/* path made absolute with its directories' links resolved (and the file's own
 * when it exists), malloc'd; NULL when its directory cannot be resolved. */
static char *canonical(const char *path)
{
    char *r = realpath(path, NULL);
    if (r)
        return r;
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    char *rd = dir ? realpath(dir, NULL) : NULL;
    free(dir);
    if (!rd)
        return NULL;
    const char *base = slash ? slash + 1 : path;
    size_t n = strlen(rd) + strlen(base) + 2;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%s/%s", rd, base);
    free(rd);
    return out;
}

/* Whether paths p and q name one file: "-" both (the same standard stream);
 * by device and inode where both exist (a character device, /dev/null, may
 * take any number of outputs); by their resolved paths otherwise. */
int util_same_file(const char *p, const char *q)
{
    if (!p || !q || !*p || !*q)
        return 0;
    int dp = strcmp(p, "-") == 0, dq = strcmp(q, "-") == 0;
    if (dp || dq)
        return dp && dq;
    struct stat a, b;
    int ea = stat(p, &a) == 0, eb = stat(q, &b) == 0;
    if (ea && eb)
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino && !S_ISCHR(a.st_mode);
    if (ea != eb)
        return 0;
    char *cp = canonical(p), *cq = canonical(q);
    int same = cp && cq ? strcmp(cp, cq) == 0 : strcmp(p, q) == 0;
    free(cp);
    free(cq);
    return same;
}

int util_is_stream(const char *path)
{
    struct stat st;
    if (strcmp(path, "-") == 0)
        return 1;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}
