/* policy_file_ckpt: the training checkpoint beside a policy file, as files
 * (policy_file.h): its names, the save that writes it with the policy file
 * as a pair (a kill at any point leaves the policy file with its own
 * checkpoint), and the reader that finds it; the checkpoint's contents are
 * written and read in policy_file.c. The format: docs/formats.md. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy_file.h"
#include "policy_file_impl.h"

void policy_file_checkpoint_path(char *buf, size_t n, const char *path)
{
    size_t len = strlen(path);
    if (len > 5 && strcmp(path + len - 5, ".json") == 0)
        len -= 5;
    snprintf(buf, n, "%.*s.ckpt.json", (int)len, path);
}

int policy_file_keeps_checkpoint(const char *path) { return !util_is_stream(path); }

/* The pending checkpoints of the checkpoint whose file (links followed) is
 * target are named STEM.HEX.json: STEM is target without its ".json", cut
 * so that the name fits the 255-byte limit of a file name; returns the
 * length of STEM's part after target's directory (dirlen bytes). */
#define PIO_PENDING_SUFFIX 22 /* ".", 16 hex digits, ".json" */
static size_t pending_stem(const char *target, size_t *dirlen)
{
    const char *slash = strrchr(target, '/'), *base = slash ? slash + 1 : target;
    size_t len = strlen(base);
    *dirlen = (size_t)(base - target);
    if (len > 5 && strcmp(base + len - 5, ".json") == 0)
        len -= 5;
    return len + PIO_PENDING_SUFFIX > 255 ? 255 - PIO_PENDING_SUFFIX : len;
}

/* The pending name of the checkpoint (its file: target) of the policy file
 * whose weights have checksum w after episodes episodes: "p.ckpt.json"
 * gives "p.ckpt.HEX.json", HEX a hash of both (malloc'd). A save writes the
 * checkpoint there first (docs/formats.md). */
static char *pending_path(const char *target, uint64_t w, int64_t episodes)
{
    uint64_t key[2] = {w, (uint64_t)episodes};
    size_t dirlen, stem = pending_stem(target, &dirlen), n = dirlen + stem + PIO_PENDING_SUFFIX + 1;
    char *s = xmalloc(n);
    snprintf(s, n, "%.*s.%016llx.json", (int)(dirlen + stem), target,
             (unsigned long long)util_hash64(key, sizeof key, 0x6b636b70656e64ULL));
    return s;
}

/* The pending name of the checkpoint ck of a policy file written from p
 * and ts (malloc'd). */
static char *pending_of(const char *ck, const NnParams *p, const TrainState *ts)
{
    char *target = util_link_target(ck);
    char *s = pending_path(target, policy_file_saved_checksum(p, ts), ts->episodes);
    free(target);
    return s;
}

void policy_file_pending_path(char *buf, size_t n, const char *path, const NnParams *p, const TrainState *ts)
{
    char ck[4200];
    policy_file_checkpoint_path(ck, sizeof ck, path);
    char *s = pending_of(ck, p, ts);
    snprintf(buf, n, "%s", s);
    free(s);
}

/* Removes the pending checkpoints beside target ("p.ckpt.HEX.json") that
 * saves killed midway left: once a save has renamed its own over target,
 * the policy file needs none of them. */
static void remove_pending(const char *target)
{
    size_t dirlen, stem = pending_stem(target, &dirlen);
    const char *base = target + dirlen;
    char dir[4200];
    snprintf(dir, sizeof dir, "%.*s", dirlen ? (int)dirlen : 1, dirlen ? target : ".");
    DIR *dh = opendir(dir);
    if (!dh)
        return;
    struct dirent *de;
    while ((de = readdir(dh)) != NULL) {
        const char *nm = de->d_name;
        if (strlen(nm) == stem + PIO_PENDING_SUFFIX && strncmp(nm, base, stem) == 0 && nm[stem] == '.' &&
            strspn(nm + stem + 1, "0123456789abcdef") == 16 && strcmp(nm + stem + 17, ".json") == 0) {
            char full[4200 + 300];
            snprintf(full, sizeof full, "%s/%s", dir, nm);
            remove(full);
        }
    }
    closedir(dh);
}

/* Commits the policy file af (written, path as given) with its checkpoint,
 * so that a kill at any point leaves the policy file with its own
 * checkpoint: the checkpoint under its pending name, then the policy file,
 * then the pending checkpoint renamed over the checkpoint. The reader
 * (policy_file_read_checkpoint) looks under both names. */
int policy_file_commit_checkpoint(AtomicFile *af, const char *path, const NnParams *p, const TrainState *ts, Err *e)
{
    char ck[4200];
    policy_file_checkpoint_path(ck, sizeof ck, path);
    AtomicFile cf;
    if (util_atomic_open(&cf, ck, e) != 0) {
        util_atomic_abort(af);
        return -1;
    }
    policy_file_put_checkpoint(cf.f, p, ts);
    if (!cf.tmp) { /* a device or FIFO at the checkpoint's name: written through */
        if (util_atomic_commit(&cf, e) != 0) {
            util_atomic_abort(af);
            return -1;
        }
        return util_atomic_commit(af, e);
    }
    char *target = cf.target; /* the temporary goes to the pending name, then over target */
    char *pending = pending_path(target, policy_file_saved_checksum(p, ts), ts->episodes);
    cf.target = xstrdup(pending);
    int rc = -1;
    if (util_atomic_commit(&cf, e) != 0)
        util_atomic_abort(af);
    else if (util_atomic_commit(af, e) != 0)
        remove(pending); /* the policy file is the old one, with its checkpoint */
    else if (rename(pending, target) != 0)
        err_set(e, "%s: cannot replace: %s", ck, strerror(errno));
    else {
        remove_pending(target);
        rc = 0;
    }
    free(pending);
    free(target);
    return rc;
}

static int read_checkpoint_file(const char *ck, const char *policy_path, NnParams *p, TrainState *ts, Err *e)
{
    size_t len;
    char *text = util_read_file(ck, &len, e);
    if (!text)
        return -1;
    int rc = policy_file_checkpoint_text(ck, text, len, policy_path, p, ts, e);
    free(text);
    return rc;
}

int policy_file_read_checkpoint(const char *policy_path, NnParams *p, TrainState *ts, Err *e)
{
    char ck[4200];
    policy_file_checkpoint_path(ck, sizeof ck, policy_path);
    if (!policy_file_keeps_checkpoint(policy_path))
        return 0; /* none beside standard input, a device or a FIFO: none was written there */
    /* a save killed after the policy file, before its checkpoint's rename:
     * the checkpoint is under its pending name */
    char *pending = pending_of(ck, p, ts);
    int rc = access(pending, F_OK) == 0 ? read_checkpoint_file(pending, policy_path, p, ts, e) : 0;
    free(pending);
    if (rc != 0)
        return rc;
    if (access(ck, F_OK) != 0)
        return 0;
    rc = read_checkpoint_file(ck, policy_path, p, ts, e);
    return rc == 0 ? -1 : rc;
}

