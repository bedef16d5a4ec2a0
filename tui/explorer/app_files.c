/* app_files: the explorer's model, continued (see app.h): the files it
 * writes. Saving the episode (never silently over a file this session did
 * not write), autosaves, exports and the names of the files derived from
 * the episode's, none of which ever replaces a file the session reads or
 * keeps (the graph, the cluster, the policy in use, the resumed episode, the
 * episode's file, the autosave), and none of which is ever derived from a
 * name that is not a regular file (--save -, /dev/null, a FIFO). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "export.h"

/* The name the files derived from the episode's hang from: the episode's
 * file, or, when that is not a regular file (--save -, /dev/null, a FIFO:
 * nothing is ever derived from such a name), the resumed one, else
 * STEM.episode.json in the current directory (as without --save). */
static void derive_base(const App *a, char *buf, size_t n)
{
    if (!util_is_stream(a->files.episode))
        snprintf(buf, n, "%s", a->files.episode);
    else if (a->files.resumed && !util_is_stream(a->files.resumed))
        snprintf(buf, n, "%s", a->files.resumed);
    else
        snprintf(buf, n, "%s.episode.json", a->files.stem);
}

/* This session's autosave beside the episode file: EPISODE.autosave, or
 * EPISODE.autosave-2, -3, ... when an earlier session's is there (it may be
 * the only copy of that session's work) or the name is a file the session
 * keeps. */
void app_name_autosave(App *a)
{
    char base[4096], want[4200], out[4300];
    free(a->files.autosave);
    a->files.autosave = NULL; /* not a file to keep from itself */
    derive_base(a, base, sizeof base);
    snprintf(want, sizeof want, "%s.autosave", base);
    app_write_target(a, want, 1, out, sizeof out);
    a->files.autosave = xstrdup(out);
}

void app_out_path(const App *a, const char *suffix, char *buf, size_t n)
{
    char base[4096];
    derive_base(a, base, sizeof base);
    const char *slash = strrchr(base, '/');
    int dir = slash ? (int)(slash - base + 1) : 0;
    snprintf(buf, n, "%.*s%s%s", dir, base, a->files.stem, suffix);
}

int app_save_would_replace(const App *a, const char *path)
{
    if ((a->files.owned && strcmp(path, a->files.episode) == 0) || app_kept_file(a, path, 1))
        return 0; /* this session's; or the graph, the cluster or the policy, which save_to never replaces */
    return access(path, F_OK) == 0 && !util_is_stream(path); /* a device or a FIFO is written through */
}

const char *app_kept_file(const App *a, const char *path, int skip_episode)
{
    static const char *const what[] = {"the graph", "the cluster", "the policy in use", "the resumed episode",
                                       "the episode's file", "this session's autosave"};
    const char *file[] = {a->data.pb.g ? a->data.pb.g->path : NULL, a->files.cluster, a->policy.path,
                          skip_episode ? NULL : a->files.resumed, skip_episode ? NULL : a->files.episode,
                          skip_episode ? NULL : a->files.autosave};
    for (int k = 0; k < (int)(sizeof file / sizeof *file); k++)
        if (util_same_file(path, file[k]))
            return what[k];
    return NULL;
}

/* The first of NAME-2.EXT, NAME-3.EXT ... (path NAME.EXT, EXT .json or .dot;
 * else path-2, ...) that does not exist and, with a, is no file a keeps. */
static void free_name(const App *a, const char *path, char *buf, size_t n)
{
    size_t len = strlen(path);
    const char *ext = "";
    for (const char *const *x = (const char *const[]){".json", ".dot", NULL}; *x && !*ext; x++)
        if (len > strlen(*x) && strcmp(path + len - strlen(*x), *x) == 0)
            ext = *x;
    len -= strlen(ext);
    for (int k = 2; k < 100000; k++) {
        snprintf(buf, n, "%.*s-%d%s", (int)len, path, k, ext);
        if (access(buf, F_OK) != 0 && !(a && app_kept_file(a, buf, 0)))
            return;
    }
}

void app_free_name(const char *path, char *buf, size_t n) { free_name(NULL, path, buf, n); }

const char *app_write_target(const App *a, const char *want, int fresh, char *buf, size_t n)
{
    const char *kept = app_kept_file(a, want, 0);
    if (!kept && !(fresh && access(want, F_OK) == 0)) {
        snprintf(buf, n, "%s", want);
        return NULL;
    }
    free_name(a, want, buf, n);
    return kept;
}

void app_save_target(const App *a, char *buf, size_t n)
{
    if (app_save_would_replace(a, a->files.episode) || app_kept_file(a, a->files.episode, 1))
        free_name(a, a->files.episode, buf, n);
    else
        snprintf(buf, n, "%s", a->files.episode);
}

/* path becomes the episode's file (this session's), autosaves beside it. */
static void set_episode_path(App *a, const char *path)
{
    if (strcmp(path, a->files.episode) != 0) {
        char *p = xstrdup(path);
        free(a->files.episode);
        a->files.episode = p;
        app_name_autosave(a);
    }
    a->files.owned = 1;
}

/* Saves to path, or, when path is the graph, the cluster or the policy in
 * use, to a free name beside it; kept: why path is not the one asked for
 * ("X exists and was not replaced"), or NULL. */
static int save_to(App *a, const char *path, const char *kept)
{
    char fresh[4200], why[4400];
    const char *what = app_kept_file(a, path, 1);
    if (what) {
        snprintf(why, sizeof why, "%s is %s and was not replaced", path, what);
        free_name(a, path, fresh, sizeof fresh);
        path = fresh;
        kept = why;
    }
    Err e = {{0}};
    if (episode_save(a->data.ep, a->policy.path, a->policy.checksum, path, &e) != 0) {
        app_msg(a, GS_ERROR, "not saved: %s (the episode is still here)", e.msg);
        return -1;
    }
    remove(a->files.autosave);
    set_episode_path(a, path);
    a->run.dirty = 0;
    if (kept)
        app_msg(a, GS_WARN, "saved %s (step %d, %d history entries): %s", path, a->data.ep->cursor,
                a->data.ep->n_hist, kept);
    else
        app_msg(a, GS_GOOD, "saved %s (step %d, %d history entries)", path, a->data.ep->cursor, a->data.ep->n_hist);
    return 0;
}

int app_save(App *a, const char *path)
{
    if (strcmp(path, a->files.episode) == 0 && app_save_would_replace(a, path)) {
        char fresh[4200], kept[4300]; /* path is the episode's, which the save replaces */
        snprintf(kept, sizeof kept, "%s exists and was not replaced", path);
        free_name(a, path, fresh, sizeof fresh);
        return save_to(a, fresh, kept);
    }
    return save_to(a, path, NULL);
}

int app_save_as(App *a, const char *path)
{
    return save_to(a, path, NULL);
}

void app_autosave(App *a)
{
    a->run.last_autosave = util_now();
    if (!a->run.dirty)
        return;
    Err e = {{0}};
    if (episode_save(a->data.ep, a->policy.path, a->policy.checksum, a->files.autosave, &e) == 0)
        app_msg(a, GS_DIM, "autosaved %s", a->files.autosave);
    else
        app_msg(a, GS_ERROR, "autosave failed: %s", e.msg);
}

int app_export(App *a, AppExport what)
{
    const AppData *d = &a->data;
    Err e = {{0}};
    char want[4096], path[4200], use[4400];
    int rc;
    app_out_path(a, what == APP_EXPORT_DOT ? ".placement.dot" : what == APP_EXPORT_TRACE ? ".trace.json"
                                                                                          : ".placement.json",
                 want, sizeof want);
    const char *kept = app_write_target(a, want, 0, path, sizeof path); /* never a file read or kept */
    if (what == APP_EXPORT_DOT) {
        rc = export_dot(path, d->pb.g, d->pb.gr, d->pb.c, d->ep->op_device, &e);
    } else if (what == APP_EXPORT_TRACE) {
        rc = export_trace(path, d->pb.g, d->pb.c, d->ep->result, &e);
    } else {
        Placement pl = {d->pb.g->n_nodes, d->pb.c->n_devices, d->ep->op_device, NULL};
        rc = placement_write(&pl, d->pb.g, d->pb.c, path, &e);
    }
    if (what == APP_EXPORT_PLACEMENT)
        snprintf(use, sizeof use, "%s; placeto simulate GRAPH --placement %s", app_t(d->ep->runtime_us), path);
    else
        snprintf(use, sizeof use, "%s", what == APP_EXPORT_DOT ? "render with dot -Tsvg" : "open in ui.perfetto.dev");
    if (rc != 0)
        app_msg(a, GS_ERROR, "export failed: %s", e.msg);
    else if (kept)
        app_msg(a, GS_WARN, "wrote %s: %s is %s and was not replaced (%s%s)", path, want, kept,
                what == APP_EXPORT_PLACEMENT ? "the current placement, " : "", use);
    else if (what == APP_EXPORT_PLACEMENT)
        app_msg(a, GS_GOOD, "wrote %s: the current placement (%s)", path, use);
    else
        app_msg(a, GS_GOOD, "wrote %s (%s)", path, use);
    return rc;
}

