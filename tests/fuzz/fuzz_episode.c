/* libFuzzer target: the episode loader (episode_load), and the reader of the
 * files an episode names (episode_named_files). The input is written
 * to a temporary file because episode_load reads a path; the graph file the
 * episode names is loaded relative to the working directory, so run from the
 * repository root (the seeds name the toy graphs). A loaded episode is
 * walked: undo to the start, redo to the end, one user override and its undo.
 *
 * Inputs whose graph.path is not a small regular file are skipped: a mutated
 * path may name /dev/zero or a FIFO, which would make the run hang or run out
 * of memory in the harness rather than find a bug in the parser. */
#include <cJSON.h>
#include <sys/stat.h>
#include <unistd.h>

#include "placeto_episode.h"
#include "fuzz.h"

static char tmp_path[64];

static void remove_tmp(void)
{
    if (tmp_path[0])
        unlink(tmp_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    snprintf(tmp_path, sizeof tmp_path, "/tmp/placeto-fuzz-episode-XXXXXX");
    int fd = mkstemp(tmp_path);
    if (fd < 0) {
        perror("fuzz_episode: mkstemp");
        exit(1);
    }
    close(fd);
    atexit(remove_tmp);
    return 0;
}

/* 1 when the input's graph.path (as cJSON reads it, escapes decoded) is
 * absent or a regular file of at most 4 MB. */
static int graph_path_ok(const char *text, size_t len)
{
    cJSON *root = cJSON_ParseWithLength(text, len);
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(root, "graph");
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(g, "path");
    int ok = 1;
    if (cJSON_IsString(p) && p->valuestring) {
        struct stat st;
        ok = stat(p->valuestring, &st) != 0 || (S_ISREG(st.st_mode) && st.st_size <= (4 << 20));
    }
    cJSON_Delete(root);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!graph_path_ok(text, size)) {
        free(text);
        return 0;
    }
    free(text);
    FILE *f = fopen(tmp_path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        fuzz_fail("cannot write %s", tmp_path);
    /* the reader of the files an episode names (the commands check their
     * outputs against them) on the same input: its paths, if any, are
     * strings a caller may print and free */
    char *graph = NULL, *policy = NULL;
    if (episode_named_files(tmp_path, &graph, &policy)) {
        if ((graph && !graph[0]) || (policy && !policy[0]))
            fuzz_fail("episode_named_files: an empty path");
    } else if (graph || policy) {
        fuzz_fail("episode_named_files: paths set on failure");
    }
    free(graph);
    free(policy);
    EpisodeFile ef;
    Err e = {{0}};
    if (episode_load(tmp_path, &ef, &e) == 0) {
        Episode *ep = ef.ep;
        if (ep->cursor < 0 || ep->cursor > ep->n_order)
            fuzz_fail("cursor %d of %d", ep->cursor, ep->n_order);
        while (episode_undo(ep) == 0)
            ;
        while (episode_redo(ep) == 0)
            ;
        if (episode_override(ep, 0, ep->n_devices - 1, &e) == NULL)
            fuzz_fail("episode_override: %s", e.msg);
        episode_undo(ep);
        episode_file_free(&ef);
    } else if (!e.msg[0]) {
        fuzz_fail("episode_load failed without a message");
    }
    return 0;
}
