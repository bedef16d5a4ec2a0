/* The checked array allocator of util.h: sizes, zeroing, a count of 0, and
 * overflow caught through the fail hook (a hook that jumps back here instead
 * of letting util_die abort). */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* realpath */
#endif
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "testutil.h"
#include "util.h"

static jmp_buf die_jmp;

static void jump_back(void) { longjmp(die_jmp, 1); }

/* Runs fn with the fail hook set to jump back; returns 1 when util_die ran. */
static int dies(void (*fn)(void))
{
    util_set_fail_hook(jump_back);
    if (setjmp(die_jmp) == 0) {
        fn();
        util_set_fail_hook(NULL);
        return 0;
    }
    util_set_fail_hook(NULL);
    return 1;
}

static void *got;        /* what an allocation that should have died returned */
static void *live;       /* a block xrealloc_array must leave alone when it dies */
static size_t product;

static void new_overflow(void) { got = xnew_array(SIZE_MAX / 2 + 1, 2); }
static void malloc_overflow(void) { got = xmalloc_array(SIZE_MAX / 8 + 1, 8); }
static void realloc_overflow(void) { got = xrealloc_array(live, SIZE_MAX, 16); }
static void negative_count(void)
{
    int n = -1;
    got = XNEW(int, n);
}
static void past_ptrdiff_max(void) { got = xnew_array((size_t)PTRDIFF_MAX + 1, 1); }
static void mul_overflow(void) { product = xmul(SIZE_MAX, 2); }

TEST(util_size_mul_checks_the_product)
{
    size_t out = 7;
    CHECK(util_size_mul(6, 7, &out) == 0 && out == 42);
    CHECK(util_size_mul(0, SIZE_MAX, &out) == 0 && out == 0);
    CHECK(util_size_mul(SIZE_MAX, 0, &out) == 0 && out == 0);
    CHECK(util_size_mul(SIZE_MAX, 1, &out) == 0 && out == SIZE_MAX);
    CHECK(util_size_mul(SIZE_MAX / 3, 3, &out) == 0 && out == SIZE_MAX / 3 * 3);
    out = 7;
    CHECK(util_size_mul(SIZE_MAX / 2 + 1, 2, &out) == -1 && out == 7);
    CHECK(util_size_mul(SIZE_MAX, SIZE_MAX, &out) == -1 && out == 7);
    CHECK(util_size_mul((size_t)1 << (sizeof(size_t) * 4), (size_t)1 << (sizeof(size_t) * 4), &out) == -1);
    CHECK(xmul(1000, 1000) == 1000000);
}

TEST(util_arrays_sizes_zeroing_and_count_zero)
{
    int *z = xnew_array(1000, sizeof *z);
    int all_zero = 1;
    for (int i = 0; i < 1000; i++)
        all_zero &= z[i] == 0;
    CHECK(all_zero);
    z[999] = 1;
    free(z);
    /* a count of 0 still gives one element of its own */
    int *a = xnew_array(0, sizeof *a), *b = xnew_array(0, sizeof *b);
    double *c = xmalloc_array(0, sizeof *c);
    CHECK(a && b && c && (void *)a != (void *)b);
    CHECK(a[0] == 0);
    c[0] = 1.5;
    CHECK(c[0] == 1.5);
    free(a);
    free(b);
    free(c);
    /* resizing keeps the first elements */
    long *r = XMALLOC(long, 4);
    for (int i = 0; i < 4; i++)
        r[i] = 10 + i;
    r = XRENEW(r, 4096);
    r[4095] = 1;
    CHECK(r[0] == 10 && r[3] == 13);
    r = XRENEW(r, 0);
    CHECK(r[0] == 10);
    free(r);
    char *s = XNEW(char, 3);
    CHECK(s[0] == 0 && s[1] == 0 && s[2] == 0);
    free(s);
}

TEST(util_array_overflow_goes_through_the_fail_hook)
{
    static const struct {
        void (*fn)(void);
        const char *name, *message;
    } cases[] = {
        {new_overflow, "xnew_array", "array too large"},
        {malloc_overflow, "xmalloc_array", "array too large"},
        {realloc_overflow, "xrealloc_array", "array too large"},
        {negative_count, "XNEW of -1", "array too large"},
        {past_ptrdiff_max, "past PTRDIFF_MAX", "array too large"},
        {mul_overflow, "xmul", "size overflow"},
    };
    live = xmalloc_array(4, sizeof(int));
    ((int *)live)[3] = 42;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        got = NULL;
        int died = dies(cases[k].fn);
        CHECK_MSG(died, "%s: no call of the fail hook", cases[k].name);
        CHECK_MSG(!got, "%s: returned a block", cases[k].name);
        CHECK_STR_CONTAINS(util_fail_message(), cases[k].message);
        free(got);
    }
    CHECK(((int *)live)[3] == 42); /* a failed resize leaves the block as it was */
    free(live);
    live = NULL;
    CHECK(dies(new_overflow) && strstr(util_fail_message(), "elements of 2 bytes"));
}

/* A message too long for Err loses its middle, never its reason at the end. */
TEST(err_long_messages_keep_their_reason)
{
    char path[3001];
    memset(path, 'd', 3000);
    path[3000] = 0;
    path[100] = '\xc3'; /* a two-byte code point near the cut */
    path[101] = '\xa9';
    Err e;
    err_set(&e, "%s: cannot open: No such file or directory", path);
    size_t n = strlen(e.msg);
    CHECK(n < sizeof e.msg);
    CHECK(n > 900);
    CHECK(strcmp(e.msg + n - 40, ": cannot open: No such file or directory") == 0);
    CHECK(strstr(e.msg, " ... ") != NULL);
    CHECK(strncmp(e.msg, "ddd", 3) == 0);
    err_set(&e, "short %d", 1);
    CHECK_STR(e.msg, "short 1");
    err_set(&e, "cannot open: gone");
    err_prefix(&e, path);
    n = strlen(e.msg);
    CHECK(n < sizeof e.msg && strcmp(e.msg + n - 17, "cannot open: gone") == 0);
    /* no code point cut in two: every continuation byte follows a lead */
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)e.msg[i] & 0xC0) == 0x80)
            CHECK(i > 0 && ((unsigned char)e.msg[i - 1] & 0x80));
}

/* Paths saved relative to the saved file's directory, and resolved back. */
TEST(util_paths_relative_to_a_file_and_back)
{
    TmpDir td;
    REQUIRE(tmp_open(&td, "placeto_paths"));
    const char *tmp = td.path;
    char a[4096], b[4096], g[4096], ep[4096];
    snprintf(a, sizeof a, "%s/a", tmp);
    snprintf(b, sizeof b, "%s/a/b", tmp);
    REQUIRE(mkdir(a, 0700) == 0 && mkdir(b, 0700) == 0);
    snprintf(g, sizeof g, "%s/a/g.json", tmp);
    FILE *f = fopen(g, "w");
    REQUIRE(f != NULL);
    fclose(f);
    static const struct { const char *episode, *want; } cases[] = {
        {"a/ep.json", "g.json"}, {"a/b/ep.json", "../g.json"}, {"ep.json", "a/g.json"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        snprintf(ep, sizeof ep, "%s/%s", tmp, cases[k].episode);
        char *rel = util_path_relative_to(g, ep);
        CHECK_STR(rel, cases[k].want);
        char *back = util_path_resolve(rel, ep), *r1 = realpath(back, NULL), *r2 = realpath(g, NULL);
        CHECK(r1 && r2 && strcmp(r1, r2) == 0);
        free(r1);
        free(r2);
        free(back);
        free(rel);
    }
    char *keep = util_path_relative_to("/no/such/file.json", ep); /* unresolvable: kept */
    CHECK_STR(keep, "/no/such/file.json");
    free(keep);
    char *abs = util_path_resolve("/x/y.json", "a/ep.json");
    CHECK_STR(abs, "/x/y.json");
    free(abs);
    char *rel = util_path_resolve("y.json", "ep.json");
    CHECK_STR(rel, "y.json");
    free(rel);
    remove(g);
    rmdir(b);
    rmdir(a);
    tmp_close(&td);
}
