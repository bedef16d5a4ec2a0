/* jdoc: the JSON reading conventions shared by every file format.
 *
 * A JDoc holds a file's text and its cJSON tree. Syntax errors report
 * FILE:LINE:COL; schema errors report FILE:LINE:COL: FIELD: message, where the
 * position is found by walking the raw text along the field path (cJSON keeps
 * no positions). Duplicate object keys are rejected with both positions.
 * Field paths look like  nodes[12].cost_us  or  ops["conv1.weight"]. */
#ifndef PLACETO_JDOC_H
#define PLACETO_JDOC_H

#include <cJSON.h>
#include <stdint.h>

#include "util.h"

typedef struct JDoc {
    const char *path;
    const char *text;
    size_t len;
    cJSON *root;
} JDoc;

/* Parses text (not copied; must outlive the JDoc). Returns 0, or -1 with e set:
 * the text must be strict JSON (jdoc_check_text); running out of memory gives
 * "PATH: out of memory". Until jdoc_done, PATH is the file being read
 * (util_reading): running out of memory while the caller builds its data
 * from the tree exits with "placeto: PATH: out of memory (...)". */
int jdoc_parse(JDoc *d, const char *path, const char *text, size_t len, Err *e);
/* The same for a part of a file already parsed (an inline object read on
 * its own, its positions kept): not counted as a parse of PATH by
 * PLACETO_TRACE_READS. */
int jdoc_parse_part(JDoc *d, const char *path, const char *text, size_t len, Err *e);
void jdoc_done(JDoc *d);

/* Checks text against the strict JSON grammar (RFC 8259; jdoc_check.c):
 * only space, tab, LF and CR between tokens; strings of UTF-8 with no raw
 * control characters, valid escapes, paired surrogates and no \u0000;
 * numbers without leading zeros or a bare '.', integers (no fraction or
 * exponent) of at most 2^53 in magnitude; at most CJSON_NESTING_LIMIT levels;
 * nothing after the value. Returns 0, or -1 with
 * "PATH:LINE:COL: JSON syntax error ...: expected ...". */
int jdoc_check_text(const char *path, const char *text, size_t len, Err *e);

/* Sets e to "PATH:LINE:COL: FIELD: message" (position of FIELD's value, or of
 * the nearest enclosing value that exists). Returns -1. */
int jdoc_err(const JDoc *d, Err *e, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Byte offset of FIELD's value in the text, or of its key when key is set;
 * -1 when it cannot be found. */
long jdoc_locate(const JDoc *d, const char *field, int key);

/* Checks that the root is an object with "format": fmt and "version": 1. */
int jdoc_check_header(const JDoc *d, const char *fmt, Err *e);

/* Typed getters of an object member. Each returns 0 (and stores the value),
 * 1 when the member is absent and optional (value untouched), or -1 with e set
 * ("expected a string", "expected a number >= 0", ...). field is the member's
 * full path for messages. */
int jget_string(const JDoc *d, const cJSON *obj, const char *key, const char *field,
                int required, const char **out, Err *e);
int jget_number(const JDoc *d, const cJSON *obj, const char *key, const char *field,
                int required, double min, double max, double *out, Err *e);
int jget_int(const JDoc *d, const cJSON *obj, const char *key, const char *field,
             int required, int64_t min, int64_t max, int64_t *out, Err *e);
/* Checks a value (not a member) is an integer within [min, max]. */
int jcheck_int(const JDoc *d, const cJSON *v, const char *field, int64_t min, int64_t max,
               int64_t *out, Err *e);
int jcheck_number(const JDoc *d, const cJSON *v, const char *field, double min, double max,
                  double *out, Err *e);
/* Checks a value is a string of 1 to 16 hex digits (a 64-bit word, as
 * util_json_hex64 writes it). */
int jcheck_hex64(const JDoc *d, const cJSON *v, const char *field, uint64_t *out, Err *e);

/* Writes the path of an object member: base.key, or base["key"] when key is not
 * a plain identifier. */
void jpath_key(char *buf, size_t n, const char *base, const char *key);

#endif
