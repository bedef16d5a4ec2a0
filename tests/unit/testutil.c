/* testutil: see testutil.h. */
#include "testutil.h"

#include "agent.h"
#include "policy_file.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim.h"
#include "test.h"

double test_brute_force(const Graph *g, const Cluster *c)
{
    int n = g->n_nodes, d = c->n_devices;
    int *dev = XNEW(int, n);
    Sim *s = sim_new(g, c);
    double best = -1;
    for (;;) {
        double m = sim_makespan(s, dev);
        if (best < 0 || m < best)
            best = m;
        int k = 0;
        while (k < n && ++dev[k] == d)
            dev[k++] = 0;
        if (k == n)
            break;
    }
    sim_free(s);
    free(dev);
    return best;
}

int tmp_open(TmpDir *t, const char *prefix)
{
    snprintf(t->path, sizeof t->path, "/tmp/%s_XXXXXX", prefix);
    return mkdtemp(t->path) != NULL;
}

void tmp_file(char *buf, size_t n, const TmpDir *t, const char *name)
{
    snprintf(buf, n, "%s/%s", t->path, name);
}

void tmp_close(TmpDir *t)
{
    DIR *d = opendir(t->path);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                continue;
            char p[512];
            snprintf(p, sizeof p, "%s/%s", t->path, de->d_name);
            remove(p);
        }
        closedir(d);
    }
    rmdir(t->path);
}

char *read_all(const char *path, size_t *len)
{
    Err e = {{0}};
    char *s = util_read_file(path, len, &e);
    if (!s) /* callers check the NULL; this says why */
        fprintf(stderr, "  read_all: %s\n", e.msg);
    return s;
}

int same_file_bytes(const char *p1, const char *p2)
{
    size_t n1 = 0, n2 = 0;
    char *a = read_all(p1, &n1), *b = read_all(p2, &n2);
    int same = a && b && n1 == n2 && memcmp(a, b, n1) == 0;
    free(a);
    free(b);
    return same;
}

char *text_subst(const char *text, const char *old, const char *rep, int nth)
{
    const char *p = text;
    for (int k = 0; p && k < nth; k++)
        p = strstr(k ? p + 1 : p, old);
    if (!p)
        return NULL;
    size_t pre = (size_t)(p - text), ol = strlen(old), rl = strlen(rep), tl = strlen(text);
    char *s = xmalloc(tl - ol + rl + 1);
    memcpy(s, text, pre);
    memcpy(s + pre, rep, rl);
    memcpy(s + pre + rl, p + ol, tl - pre - ol + 1);
    return s;
}

int take_marker(char *s, size_t *at)
{
    char *m = strchr(s, '@');
    if (!m)
        return 0;
    *at = (size_t)(m - s);
    memmove(m, m + 1, strlen(m + 1) + 1);
    return 1;
}

void error_at(char *buf, size_t n, const char *path, const char *text, size_t at, const char *msg)
{
    int line, col;
    util_line_col(text, at, &line, &col);
    snprintf(buf, n, "%s:%d:%d: %s", path, line, col, msg);
}

const char *agent_name_of(const char *path)
{
    AgentFile f;
    Err e = {{0}};
    if (agent_file_open(path, &f, &e) != 0)
        return "(error)";
    const char *name = f.kind->name;
    agent_file_done(&f);
    return name;
}

/* The policy file at path as a file written before the checkpoint had a
 * file of its own: its checkpoint's optimizer state inside its "training"
 * (the reader still takes those). */
char *policy_text_with_checkpoint(const char *path, size_t *len)
{
    char ck[4200];
    policy_file_checkpoint_path(ck, sizeof ck, path);
    size_t pl, cl;
    char *pol = read_all(path, &pl), *cp = read_all(ck, &cl);
    char *out = NULL;
    const char *tr = pol ? strstr(pol, "\"training\": {") : NULL, *opt = cp ? strstr(cp, "\"training\": {") : NULL;
    if (tr && opt) {
        tr += strlen("\"training\": {");
        opt += strlen("\"training\": {");
        const char *end = strrchr(opt, '}'); /* the checkpoint's closing brace, then the training's */
        while (end > opt && *--end != '}')
            ;
        size_t a = (size_t)(tr - pol), b = (size_t)(end - opt);
        out = xmalloc(pl + b + 4);
        memcpy(out, pol, a);
        memcpy(out + a, opt, b);
        out[a + b] = ',';
        strcpy(out + a + b + 1, tr);
        *len = strlen(out);
    }
    free(pol);
    free(cp);
    return out;
}

