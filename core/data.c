/* data: where the bundled data is (data.h). */
#include "data.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *data_own_policy(const char *graph_path, const char *prefix, int n_devices, char *buf, size_t n)
{
    const char *base = graph_path ? strrchr(graph_path, '/') : NULL;
    base = base ? base + 1 : graph_path ? graph_path : "";
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".json") == 0)
        len -= 5;
    char rel[512], dev[16] = "";
    if (n_devices > 0)
        snprintf(dev, sizeof dev, "_%d", n_devices);
    if (len > 0 && len < 400 && strlen(prefix) < 64) {
        snprintf(rel, sizeof rel, "policies/%s%.*s%s.json", prefix, (int)len, base, dev);
        if (access(data_path(buf, n, rel), R_OK) == 0)
            return buf;
    }
    return NULL;
}

/* The graph's own bundled policy (policies/STEM_D.json) into buf, or NULL. */
static const char *own_policy(const char *graph_path, int n_devices, char *buf, size_t n)
{
    return data_own_policy(graph_path, "", n_devices, buf, n);
}

const char *data_bundled(const char *rel, char *buf, size_t n)
{
    return access(data_path(buf, n, rel), R_OK) == 0 ? buf : NULL;
}

const char *data_auto_policy(const char *graph_path, int n_devices, char *buf, size_t n)
{
    char rel[64];
    snprintf(rel, sizeof rel, "policies/general_%d.json", n_devices);
    const char *p = own_policy(graph_path, n_devices, buf, n);
    return p ? p : data_bundled(rel, buf, n);
}

int data_has_own_policy(const char *graph_path, int n_devices)
{
    char buf[4096];
    return own_policy(graph_path, n_devices, buf, sizeof buf) != NULL;
}

const char *data_auto_place_policy(const char *graph_path, int n_devices, char *buf, size_t n)
{
    const char *p = own_policy(graph_path, n_devices, buf, n);
    return p ? p : data_bundled("policies/lsearch.json", buf, n) ? buf : data_auto_policy(graph_path, n_devices, buf, n);
}

const char *data_auto_place_rival(const char *graph_path, int n_devices, char *buf, size_t n)
{
    return data_has_own_policy(graph_path, n_devices) ? data_bundled("policies/lsearch.json", buf, n) : NULL;
}

const char *data_path(char *buf, size_t n, const char *rel)
{
    const char *env = getenv("PLACETO_DATA");
    if (env && env[0]) {
        snprintf(buf, n, "%s/%s", env, rel);
        return buf;
    }
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        /* the executable sits at the top of the tree, or one level down
         * (build trees): graphs/ beside it or one up; installed, it is
         * PREFIX/bin/placeto with the data in PREFIX/share/placeto */
        for (int up = 0; up < 2; up++) {
            char *slash = strrchr(exe, '/');
            if (!slash)
                break;
            *slash = '\0';
            snprintf(buf, n, "%s/graphs/%s", exe, rel);
            if (access(buf, R_OK) == 0)
                return buf;
            snprintf(buf, n, "%s/share/placeto/%s", exe, rel);
            if (up == 1 && access(buf, R_OK) == 0)
                return buf;
        }
    }
    snprintf(buf, n, "graphs/%s", rel);
    return buf;
}
