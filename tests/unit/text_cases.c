/* text_cases: see text_cases.h. */
#include "text_cases.h"

#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "testutil.h"

void check_text_cases(const char *good, size_t len, const TextCase *cases, size_t n,
                      int (*load)(const char *name, const char *text, size_t len, Err *e))
{
    for (size_t k = 0; good && k < n; k++) {
        char *t = text_subst(good, cases[k].old, cases[k].rep, 1);
        CHECK_MSG(t != NULL, "no \"%s\" in the file", cases[k].old);
        if (!t)
            continue;
        Err be = {{0}};
        CHECK_MSG(!load("bad.json", t, strlen(t), &be), "case %zu loaded", k);
        CHECK_MSG(strstr(be.msg, cases[k].want) != NULL, "case %zu: \"%s\" lacks \"%s\"", k, be.msg,
                  cases[k].want);
        free(t);
    }
    if (good) { /* the unmodified text loads */
        Err ge = {{0}};
        CHECK_MSG(load("good.json", good, len, &ge), "%s", ge.msg);
    }
}
