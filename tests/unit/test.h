/* test: a tiny test runner. TEST(name) { ... } registers a test; CHECK and
 * friends record failures and go on, REQUIRE and friends record a failure and
 * return from the function; the runner prints one line per failing
 * check and "unit: N passed, N failed" at the end, exiting 1 on any failure.
 * Tests find data relative to the repository root (the runner chdirs there). */
#ifndef PLACETO_TEST_H
#define PLACETO_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

void test_register(const char *name, void (*fn)(void), const char *file);
void test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int test_failed_now(void);

#define TEST(name)                                                                  \
    static void name(void);                                                         \
    __attribute__((constructor)) static void reg_##name(void)                       \
    {                                                                               \
        test_register(#name, name, __FILE__);                                       \
    }                                                                               \
    static void name(void)

#define CHECK(cond)                                                                 \
    do {                                                                            \
        if (!(cond))                                                                \
            test_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);                     \
    } while (0)

#define CHECK_MSG(cond, ...)                                                        \
    do {                                                                            \
        if (!(cond))                                                                \
            test_fail(__FILE__, __LINE__, __VA_ARGS__);                            \
    } while (0)

#define CHECK_INT(a, b)                                                             \
    do {                                                                            \
        long long a_ = (long long)(a), b_ = (long long)(b);                         \
        if (a_ != b_)                                                               \
            test_fail(__FILE__, __LINE__, "%s == %lld, expected %s == %lld", #a, a_, \
                      #b, b_);                                                      \
    } while (0)

/* CHECK and CHECK_MSG that also return from the calling function on failure,
 * for what the rest of it stands on (a loaded file, a built fixture, a
 * temporary directory). REQUIRE and REQUIRE_MSG return from a void function
 * (a test or a void helper); REQUIRE_OR returns ret from a helper with a
 * value:  REQUIRE_OR(g != NULL, -1, "%s", e.msg); */
#define REQUIRE(cond)                                                               \
    do {                                                                            \
        if (!(cond)) {                                                              \
            test_fail(__FILE__, __LINE__, "REQUIRE(%s)", #cond);                    \
            return;                                                                 \
        }                                                                           \
    } while (0)

#define REQUIRE_MSG(cond, ...)                                                      \
    do {                                                                            \
        if (!(cond)) {                                                              \
            test_fail(__FILE__, __LINE__, __VA_ARGS__);                             \
            return;                                                                 \
        }                                                                           \
    } while (0)

#define REQUIRE_OR(cond, ret, ...)                                                  \
    do {                                                                            \
        if (!(cond)) {                                                              \
            test_fail(__FILE__, __LINE__, __VA_ARGS__);                             \
            return ret;                                                             \
        }                                                                           \
    } while (0)

/* Bit-exact comparison of doubles. */
#define CHECK_EXACT(a, b)                                                           \
    do {                                                                            \
        double a_ = (a), b_ = (b);                                                  \
        if (memcmp(&a_, &b_, sizeof a_) != 0)                                       \
            test_fail(__FILE__, __LINE__, "%s == %.17g, expected %.17g", #a, a_, b_); \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                       \
    do {                                                                            \
        double a_ = (a), b_ = (b);                                                  \
        if (!(fabs(a_ - b_) <= (tol)))                                              \
            test_fail(__FILE__, __LINE__, "%s == %.17g, expected %.17g", #a, a_, b_); \
    } while (0)

#define CHECK_STR(got, want)                                                        \
    do {                                                                            \
        const char *g_ = (got), *w_ = (want);                                       \
        if (!g_ || strcmp(g_, w_) != 0)                                             \
            test_fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"", #got,     \
                      g_ ? g_ : "(null)", w_);                                      \
    } while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                             \
    do {                                                                            \
        const char *h_ = (hay), *n_ = (needle);                                     \
        if (!h_ || !strstr(h_, n_))                                                 \
            test_fail(__FILE__, __LINE__, "\"%s\" does not contain \"%s\"",         \
                      h_ ? h_ : "(null)", n_);                                      \
    } while (0)

#endif
