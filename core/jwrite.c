/* jwrite: the escaping JSON writer (see jwrite.h). */
#include "jwrite.h"

#include <string.h>

#include "util.h"

void jw_init(JWriter *w, FILE *f)
{
    memset(w, 0, sizeof *w);
    w->f = f;
}

/* Before any value or key: the separator from the previous item. */
static void before_item(JWriter *w)
{
    if (w->after_key) { /* the value of a member: no separator */
        w->after_key = 0;
        return;
    }
    if (w->depth > 0 && w->count[w->depth - 1]++ > 0)
        fputc(',', w->f);
    if (w->breaking) {
        fputc('\n', w->f);
        for (int k = 0; k < w->depth; k++)
            fputc(' ', w->f);
        w->breaking = 0;
    } else if (w->depth > 0 && w->count[w->depth - 1] > 1) {
        fputc(' ', w->f);
    }
}

static void open_nested(JWriter *w, char o, char c)
{
    before_item(w);
    fputc(o, w->f);
    if (w->depth >= JW_MAX_DEPTH)
        util_die("jwrite: JSON nested deeper than %d levels", JW_MAX_DEPTH);
    w->close[w->depth] = c;
    w->count[w->depth++] = 0;
}

void jw_object(JWriter *w) { open_nested(w, '{', '}'); }
void jw_array(JWriter *w) { open_nested(w, '[', ']'); }

void jw_end(JWriter *w)
{
    if (w->depth == 0)
        return;
    w->breaking = 0;
    w->after_key = 0;
    fputc(w->close[--w->depth], w->f);
}

void jw_key(JWriter *w, const char *key)
{
    before_item(w);
    util_json_string(w->f, key);
    fputs(": ", w->f);
    w->after_key = 1;
}

void jw_string(JWriter *w, const char *s)
{
    before_item(w);
    util_json_string(w->f, s ? s : "");
}

void jw_number(JWriter *w, double x)
{
    char b[32];
    before_item(w);
    fputs(util_fmt_double(b, x), w->f);
}

void jw_int(JWriter *w, int64_t x)
{
    before_item(w);
    fprintf(w->f, "%lld", (long long)x);
}

void jw_bool(JWriter *w, int b)
{
    before_item(w);
    fputs(b ? "true" : "false", w->f);
}

void jw_null(JWriter *w)
{
    before_item(w);
    fputs("null", w->f);
}

FILE *jw_value_stream(JWriter *w)
{
    before_item(w);
    return w->f;
}

void jw_break(JWriter *w) { w->breaking = 1; }

void jw_finish(JWriter *w)
{
    while (w->depth > 0)
        jw_end(w);
    fputc('\n', w->f);
    fflush(w->f);
}
