/* bad_case: see bad_case.h. */
#include <stdio.h>
#include <string.h>

#include "bad_case.h"
#include "test.h"

void pos_of(char *buf, size_t n, const char *path, const char *text, const char *needle, int nth)
{
    const char *p = text;
    for (int k = 0; p && k < nth; k++)
        p = strstr(k ? p + 1 : p, needle);
    int line = 1, col = 1;
    for (const char *q = text; p && q < p; q++) {
        if (*q == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    snprintf(buf, n, "%s:%d:%d:", path, line, col);
}

void check_bad_case_error(const BadCase *c, size_t k, const char *path, const char *msg)
{
    char pos[128], want[512];
    if (c->nth > 0)
        pos_of(pos, sizeof pos, path, c->text, c->at, c->nth);
    else
        snprintf(pos, sizeof pos, "%s:1:1:", path);
    snprintf(want, sizeof want, "%s %s", pos, c->msg);
    CHECK_MSG(strncmp(msg, want, strlen(want)) == 0, "case %zu: \"%s\", expected \"%s...\"", k, msg, want);
    if (c->also)
        CHECK_MSG(strstr(msg, c->also) != NULL, "case %zu: \"%s\" lacks \"%s\"", k, msg, c->also);
}
