/* The unit-test runner: runs every registered test (or those whose name
 * contains one of the arguments) and prints "unit: N passed, N failed". */
#include <stdarg.h>
#include <stdlib.h>

#include "test.h"

typedef struct {
    const char *name, *file;
    void (*fn)(void);
} Test;

static Test tests[1024];
static int n_tests, failed_now, checks_failed;

void test_register(const char *name, void (*fn)(void), const char *file)
{
    if (n_tests < 1024)
        tests[n_tests++] = (Test){name, file, fn};
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
    if (failed_now < 10) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "  %s:%d: ", file, line);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    failed_now++;
    checks_failed++;
}

int test_failed_now(void) { return failed_now; }

static int by_file_then_name(const void *a, const void *b)
{
    const Test *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    return c ? c : strcmp(x->name, y->name);
}

int main(int argc, char **argv)
{
    qsort(tests, (size_t)n_tests, sizeof *tests, by_file_then_name);
    int passed = 0, failed = 0, verbose = getenv("TEST_VERBOSE") != NULL;
    for (int i = 0; i < n_tests; i++) {
        int run = argc < 2;
        for (int a = 1; a < argc; a++)
            if (strstr(tests[i].name, argv[a]) || strstr(tests[i].file, argv[a]))
                run = 1;
        if (!run)
            continue;
        failed_now = 0;
        if (verbose)
            fprintf(stderr, "%s ...\n", tests[i].name);
        tests[i].fn();
        if (failed_now) {
            fprintf(stderr, "FAIL %s (%s)\n", tests[i].name, tests[i].file);
            failed++;
        } else {
            passed++;
        }
    }
    printf("unit: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
