/* Atomic writes' temporaries (util_io.c): a name as long as the file system
 * allows still saves (the temporary's name fits the limit too), and the
 * temporaries a killed save left behind are removed by the next save to the
 * same name, unless their process is still alive. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "testutil.h"
#include "util.h"

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* A pid that no process has: a child that has exited and been reaped. */
static long dead_pid(void)
{
    pid_t p = fork();
    if (p == 0)
        _exit(0);
    if (p > 0)
        waitpid(p, NULL, 0);
    return (long)p;
}

TEST(atomic_write_a_250_byte_name_saves)
{
    TmpDir t;
    REQUIRE(tmp_open(&t, "atomic"));
    char name[256], path[512];
    for (int len = 230; len <= 255; len += 5) {
        memset(name, 'n', (size_t)len);
        memcpy(name + len - 5, ".json", 5);
        name[len] = '\0';
        tmp_file(path, sizeof path, &t, name);
        Err e = {{0}};
        CHECK_MSG(util_write_atomic(path, "{}\n", 3, &e) == 0, "%d bytes: %s", len, e.msg);
        size_t n = 0;
        char *back = read_all(path, &n);
        CHECK(back && n == 3 && memcmp(back, "{}\n", 3) == 0);
        free(back);
        char *tmp = util_atomic_tmp_name(path);
        const char *base = strrchr(tmp, '/') + 1;
        CHECK_MSG(strlen(base) <= 255, "temporary name of %zu bytes", strlen(base));
        CHECK(strncmp(tmp, t.path, strlen(t.path)) == 0); /* same directory */
        CHECK(!exists(tmp));
        free(tmp);
        remove(path);
    }
    /* two long names with a common 240-byte prefix have different temporaries */
    char a[256], b[256];
    memset(a, 'x', 250);
    a[250] = '\0';
    memcpy(b, a, sizeof a);
    b[249] = 'y';
    char pa[512], pb[512];
    tmp_file(pa, sizeof pa, &t, a);
    tmp_file(pb, sizeof pb, &t, b);
    char *ta = util_atomic_tmp_name(pa), *tb = util_atomic_tmp_name(pb);
    CHECK(strcmp(ta, tb) != 0);
    free(ta);
    free(tb);
    tmp_close(&t);
}

/* Plants a temporary of path as process pid would have named it. */
static void plant(char *out, size_t n, const char *path, long pid)
{
    char *mine = util_atomic_tmp_name(path);
    char *dot = strrchr(mine, '.');
    snprintf(out, n, "%.*s.%ld", (int)(dot - mine), mine, pid);
    free(mine);
    FILE *f = fopen(out, "wb");
    if (f) {
        fputs("{\"half", f);
        fclose(f);
    }
}

static void stale_case(const char *name)
{
    TmpDir t;
    REQUIRE(tmp_open(&t, "atomic"));
    char path[512], dead[1024], live[1024], other[1024], opath[512];
    tmp_file(path, sizeof path, &t, name);
    tmp_file(opath, sizeof opath, &t, "other.json");
    long dpid = dead_pid();
    REQUIRE(dpid > 0);
    plant(dead, sizeof dead, path, dpid);
    plant(live, sizeof live, path, (long)getppid());
    plant(other, sizeof other, opath, dpid);
    REQUIRE(exists(dead) && exists(live) && exists(other));
    Err e = {{0}};
    CHECK_MSG(util_write_atomic(path, "{}", 2, &e) == 0, "%s", e.msg);
    CHECK_MSG(!exists(dead), "%s: the dead process's temporary is still there", name);
    CHECK_MSG(exists(live), "%s: a live process's temporary was removed", name);
    CHECK_MSG(exists(other), "%s: another file's temporary was removed", name);
    remove(live);
    remove(other);
    tmp_close(&t);
}

TEST(atomic_write_removes_stale_temporaries_of_dead_processes)
{
    stale_case("p.json");
    char longname[256];
    memset(longname, 'q', 250);
    longname[250] = '\0';
    stale_case(longname);
}
