/* jwrite: the one JSON writer of every `--json` output (docs/formats.md,
 * "--json output"). It escapes every string, writes numbers so that they
 * read back exactly (util_fmt_double: NaN as null, infinities as +-1e999)
 * and places the commas itself, so that a caller cannot produce invalid
 * JSON by forgetting one or by printing a name with a quote in it.
 *
 *   JWriter w;
 *   jw_init(&w, stdout);
 *   jw_object(&w);
 *   jw_key(&w, "graph"); jw_string(&w, g->name);
 *   jw_key(&w, "ops");   jw_int(&w, g->n_nodes);
 *   jw_end(&w);          -> {"graph": "resnet18", "ops": 123}
 *
 * jw_break() starts the next member or element on a new line (indented by
 * the nesting depth) for outputs that read better a record per line; jw_end
 * closes the innermost object or array, and jw_finish ends the document
 * with a newline and flushes. Implemented in jwrite.c. */
#ifndef PLACETO_JWRITE_H
#define PLACETO_JWRITE_H

#include <stdint.h>
#include <stdio.h>

#define JW_MAX_DEPTH 32

typedef struct JWriter {
    FILE *f;
    int depth;
    int count[JW_MAX_DEPTH]; /* values written at each depth */
    char close[JW_MAX_DEPTH]; /* '}' or ']' */
    int after_key;           /* a key was written; its value comes next */
    int breaking;            /* the next item starts on a new line */
} JWriter;

void jw_init(JWriter *w, FILE *f);
void jw_object(JWriter *w);
void jw_array(JWriter *w);
void jw_end(JWriter *w);
void jw_key(JWriter *w, const char *key);
void jw_string(JWriter *w, const char *s);
void jw_number(JWriter *w, double x);
void jw_int(JWriter *w, int64_t x);
void jw_bool(JWriter *w, int b);
void jw_null(JWriter *w);
/* For a value written by another JSON writer (a file format's printer):
 * places what goes before a value and returns the stream to write it to. */
FILE *jw_value_stream(JWriter *w);
/* The next member or element goes on a new line. */
void jw_break(JWriter *w);
/* Closes whatever is open, ends the line and flushes. */
void jw_finish(JWriter *w);

#endif
