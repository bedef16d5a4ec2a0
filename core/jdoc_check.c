/* jdoc_check: the strict JSON grammar every file is checked against before
 * cJSON builds its tree (see jdoc.h, jdoc_check_text). cJSON is lenient: it
 * takes any byte <= 0x20 as white space, raw control characters and invalid
 * UTF-8 in strings, "012" and "12.", rounds integers past 2^53 and cuts a
 * string at "\u0000". This pass accepts exactly RFC 8259 JSON, with two limits
 * of its own (integers within 2^53, no NUL in strings), and names the
 * position and what was expected for anything else. Iterative: deep nesting
 * costs no stack. */
#include "jdoc.h"

#include <stdarg.h>
#include <string.h>

typedef struct Lex {
    const char *path;
    const unsigned char *t;
    size_t n;
    Err *e;
} Lex;

static int lex_err(const Lex *x, size_t at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int lex_err(const Lex *x, size_t at, const char *fmt, ...)
{
    int line, col;
    util_line_col((const char *)x->t, at > x->n ? x->n : at, &line, &col);
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return err_set(x->e, "%s:%d:%d: %s", x->path, line, col, msg);
}

static int lex_eof(const Lex *x)
{
    return lex_err(x, x->n, "unexpected end of file (truncated JSON?)");
}

/* "JSON syntax error near 'c': expected WHAT" (or near byte 0xNN). */
static int lex_unexpected(const Lex *x, size_t at, const char *what)
{
    if (at >= x->n)
        return lex_eof(x);
    unsigned char c = x->t[at];
    char near[64];
    if (c >= 0x20 && c < 0x7f)
        snprintf(near, sizeof near, "near '%c'", c);
    else
        snprintf(near, sizeof near, "near byte 0x%02x", c);
    int line, col;
    util_line_col((const char *)x->t, at, &line, &col);
    if (c < 0x20)
        return err_set(x->e, "%s:%d:%d: JSON syntax error %s: a control character; expected %s (only space, tab, "
                             "newline and carriage return may separate values)",
                       x->path, line, col, near, what);
    return err_set(x->e, "%s:%d:%d: JSON syntax error %s: expected %s", x->path, line, col, near, what);
}

static size_t ws(const Lex *x, size_t i)
{
    while (i < x->n && (x->t[i] == ' ' || x->t[i] == '\t' || x->t[i] == '\n' || x->t[i] == '\r'))
        i++;
    return i;
}

static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The code unit of "\uXXXX" at t[i] (i at the backslash), or -1. */
static long u_escape(const Lex *x, size_t i)
{
    if (i + 6 > x->n || x->t[i] != '\\' || x->t[i + 1] != 'u')
        return -1;
    long v = 0;
    for (size_t k = i + 2; k < i + 6; k++) {
        int h = hexval(x->t[k]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* The length of the UTF-8 sequence at t[i] (i < n, t[i] >= 0x80), or 0 when
 * it is not well-formed. */
static size_t utf8_len(const Lex *x, size_t i)
{
    return util_utf8_seq(x->t + i, x->n - i);
}

/* A string at t[i] == '"'; *end receives the index after it. */
static int lex_string(const Lex *x, size_t i, size_t *end)
{
    i++;
    for (;;) {
        if (i >= x->n)
            return lex_eof(x);
        unsigned char c = x->t[i];
        if (c == '"') {
            *end = i + 1;
            return 0;
        }
        if (c < 0x20)
            return lex_err(x, i, "JSON syntax error: raw control character 0x%02x in a string: expected it escaped "
                                 "(\\n, \\t or \\u00XX)", c);
        if (c >= 0x80) {
            size_t l = utf8_len(x, i);
            if (!l)
                return lex_err(x, i, "JSON syntax error: invalid UTF-8 in a string (byte 0x%02x): expected UTF-8 text",
                               c);
            i += l;
            continue;
        }
        if (c != '\\') {
            i++;
            continue;
        }
        if (i + 1 >= x->n)
            return lex_eof(x);
        unsigned char esc = x->t[i + 1];
        if (esc != 'u') {
            if (!strchr("\"\\/bfnrt", esc) || esc == '\0') {
                char s[8];
                if (esc >= 0x20 && esc < 0x7f)
                    snprintf(s, sizeof s, "%c", esc);
                else
                    snprintf(s, sizeof s, "\\x%02x", esc);
                return lex_err(x, i, "JSON syntax error: invalid escape '\\%s' in a string: expected one of \\\" \\\\ "
                                     "\\/ \\b \\f \\n \\r \\t \\uXXXX", s);
            }
            i += 2;
            continue;
        }
        long u = u_escape(x, i);
        if (u < 0) {
            if (i + 6 > x->n) { /* the text ends inside the escape: cut short, if what is there is hex */
                size_t k = i + 2;
                while (k < x->n && hexval(x->t[k]) >= 0)
                    k++;
                if (k == x->n)
                    return lex_eof(x);
            }
            return lex_err(x, i, "JSON syntax error: bad \\u escape in a string: expected \\u and 4 hex digits");
        }
        if (u == 0)
            return lex_err(x, i, "JSON syntax error: \\u0000 in a string: NUL characters are not allowed in "
                                 "strings");
        if (u >= 0xdc00 && u <= 0xdfff)
            return lex_err(x, i, "JSON syntax error: unpaired surrogate \\u%.4s in a string: expected a high surrogate "
                                 "\\uD800-\\uDBFF before it", (const char *)x->t + i + 2);
        if (u >= 0xd800 && u <= 0xdbff) {
            long lo = u_escape(x, i + 6);
            if (lo < 0xdc00 || lo > 0xdfff)
                return lex_err(x, i, "JSON syntax error: unpaired surrogate in a string: expected \\uDC00-\\uDFFF "
                                     "after a high surrogate");
            i += 12;
            continue;
        }
        i += 6;
    }
}

#define JDOC_INT_EXACT "9007199254740992"

/* A number at t[i]; *end receives the index after it. */
static int lex_number(const Lex *x, size_t i, size_t *end)
{
    const unsigned char *t = x->t;
    size_t start = i;
    if (t[i] == '-')
        i++;
    if (i >= x->n)
        return lex_eof(x);
    size_t digits = i;
    if (t[i] == '0') {
        i++;
        if (i < x->n && t[i] >= '0' && t[i] <= '9')
            return lex_err(x, start, "JSON syntax error: a number with a leading zero: expected 0, 0.DIGITS or a "
                                     "number that starts with 1-9");
    } else if (t[i] >= '1' && t[i] <= '9') {
        while (i < x->n && t[i] >= '0' && t[i] <= '9')
            i++;
    } else
        return lex_unexpected(x, i, "a digit after '-'");
    size_t ndigits = i - digits;
    int integer = 1;
    if (i < x->n && t[i] == '.') {
        integer = 0;
        i++;
        if (i >= x->n || t[i] < '0' || t[i] > '9')
            return i >= x->n ? lex_eof(x) : lex_unexpected(x, i, "a digit after the decimal point");
        while (i < x->n && t[i] >= '0' && t[i] <= '9')
            i++;
    }
    if (i < x->n && (t[i] == 'e' || t[i] == 'E')) {
        integer = 0;
        i++;
        if (i < x->n && (t[i] == '+' || t[i] == '-'))
            i++;
        if (i >= x->n || t[i] < '0' || t[i] > '9')
            return i >= x->n ? lex_eof(x) : lex_unexpected(x, i, "a digit in the exponent");
        while (i < x->n && t[i] >= '0' && t[i] <= '9')
            i++;
    }
    if (integer && (ndigits > 16 || (ndigits == 16 && memcmp(t + digits, JDOC_INT_EXACT, 16) > 0))) {
        char lit[48];
        snprintf(lit, sizeof lit, "%.*s%s", (int)(ndigits > 24 ? 24 : i - start), (const char *)t + start,
                 ndigits > 24 ? "..." : "");
        return lex_err(x, start, "JSON number %s too large: integers are exact only up to 2^53 = " JDOC_INT_EXACT
                                 " in magnitude", lit);
    }
    *end = i;
    return 0;
}

int jdoc_check_text(const char *path, const char *text, size_t len, Err *e)
{
    Lex x = {path, (const unsigned char *)text, len, e};
    /* the open containers: '{' or '[' */
    char stack[CJSON_NESTING_LIMIT + 1];
    int depth = 0;
    size_t i = ws(&x, 0);
    for (;;) {
        /* a value at i */
        if (i >= len)
            return lex_eof(&x);
        unsigned char c = x.t[i];
        size_t end = i;
        if (c == '{' || c == '[') {
            if (depth >= CJSON_NESTING_LIMIT)
                return lex_err(&x, i, "nesting too deep (more than %d levels of objects and arrays)",
                               CJSON_NESTING_LIMIT);
            stack[depth++] = (char)c;
            i = ws(&x, i + 1);
            if (c == '[') {
                if (i < len && x.t[i] == ']') {
                    depth--;
                    end = i + 1;
                    goto after_value;
                }
                continue;
            }
            if (i < len && x.t[i] == '}') {
                depth--;
                end = i + 1;
                goto after_value;
            }
            goto key;
        } else if (c == '"') {
            if (lex_string(&x, i, &end))
                return -1;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            if (lex_number(&x, i, &end))
                return -1;
        } else if (c == 't' || c == 'f' || c == 'n') {
            const char *lit = c == 't' ? "true" : c == 'f' ? "false" : "null";
            size_t l = strlen(lit);
            if (len - i < l && memcmp(x.t + i, lit, len - i) == 0)
                return lex_eof(&x);
            if (len - i < l || memcmp(x.t + i, lit, l) != 0)
                return lex_unexpected(&x, i, "a value (an object, array, string, number, true, false or null)");
            end = i + l;
        } else
            return lex_unexpected(&x, i, "a value (an object, array, string, number, true, false or null)");
    after_value:
        i = ws(&x, end);
        if (depth == 0) {
            if (i < len)
                return lex_err(&x, i, "unexpected data after the JSON value");
            return 0;
        }
        if (i >= len)
            return lex_eof(&x);
        if (stack[depth - 1] == '[') {
            if (x.t[i] == ',') {
                i = ws(&x, i + 1);
                continue;
            }
            if (x.t[i] == ']') {
                depth--;
                end = i + 1;
                goto after_value;
            }
            return lex_unexpected(&x, i, "',' or ']' after an array element");
        }
        if (x.t[i] == '}') {
            depth--;
            end = i + 1;
            goto after_value;
        }
        if (x.t[i] != ',')
            return lex_unexpected(&x, i, "',' or '}' after an object member");
        i = ws(&x, i + 1);
    key:
        if (i >= len)
            return lex_eof(&x);
        if (x.t[i] != '"')
            return lex_unexpected(&x, i, "a string (an object key)");
        if (lex_string(&x, i, &end))
            return -1;
        i = ws(&x, end);
        if (i >= len)
            return lex_eof(&x);
        if (x.t[i] != ':')
            return lex_unexpected(&x, i, "':' after an object key");
        i = ws(&x, i + 1);
    }
}
