/* jdoc: see jdoc.h. */
#include "jdoc.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- raw-text walker used to find positions ---- */

static size_t skip_ws(const char *t, size_t n, size_t i)
{
    while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
        i++;
    return i;
}

/* Skips a string starting at t[i] == '"'; returns the index after it. */
static size_t skip_string(const char *t, size_t n, size_t i)
{
    i++;
    while (i < n && t[i] != '"') {
        if (t[i] == '\\')
            i++;
        i++;
    }
    return i < n ? i + 1 : n;
}

/* Skips any value iteratively (no recursion, so deep nesting is safe). */
static size_t skip_value(const char *t, size_t n, size_t i)
{
    int depth = 0;
    i = skip_ws(t, n, i);
    do {
        if (i >= n)
            return n;
        char c = t[i];
        if (c == '"')
            i = skip_string(t, n, i);
        else if (c == '{' || c == '[') {
            depth++;
            i++;
        } else if (c == '}' || c == ']') {
            depth--;
            i++;
        } else if (c == ',' || c == ':' || isspace((unsigned char)c))
            i++;
        else {
            while (i < n && !strchr(",:{}[]\" \t\r\n", t[i]))
                i++;
        }
        if (depth > 0)
            i = skip_ws(t, n, i);
    } while (depth > 0);
    return i;
}

/* Decodes the JSON string at t[i] into out (simple escapes only; others are
 * compared verbatim, which is enough to find keys). */
static int string_equals(const char *t, size_t n, size_t i, const char *want)
{
    size_t w = 0;
    i++;
    while (i < n && t[i] != '"') {
        char c = t[i];
        if (c == '\\' && i + 1 < n) {
            i++;
            switch (t[i]) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            default: c = t[i];
            }
        }
        if (want[w] != c)
            return 0;
        w++;
        i++;
    }
    return want[w] == '\0';
}

/* One path segment: a key or an index. Returns the index after it in path. */
static const char *next_segment(const char *p, char *key, size_t keyn, long *index)
{
    *index = -1;
    key[0] = '\0';
    if (*p == '.')
        p++;
    if (*p == '[') {
        p++;
        if (*p == '"') {
            size_t k = 0;
            p++;
            while (*p && !(*p == '"' && p[1] == ']')) {
                if (*p == '\\' && p[1])
                    p++;
                if (k + 1 < keyn)
                    key[k++] = *p;
                p++;
            }
            key[k] = '\0';
            return *p ? p + 2 : p;
        }
        *index = strtol(p, (char **)&p, 10);
        return *p == ']' ? p + 1 : p;
    }
    size_t k = 0;
    while (*p && *p != '.' && *p != '[') {
        if (k + 1 < keyn)
            key[k++] = *p;
        p++;
    }
    key[k] = '\0';
    return p;
}

/* Walks the text along field; at the last key segment takes the nth match. */
static long locate_nth(const JDoc *d, const char *field, int want_key, int nth)
{
    const char *t = d->text;
    size_t n = d->len, i = skip_ws(t, n, 0);
    long best = (long)i;
    char key[512];
    const char *p = field;
    while (*p) {
        long index;
        p = next_segment(p, key, sizeof key, &index);
        i = skip_ws(t, n, i);
        if (i >= n)
            return best;
        if (index >= 0) {
            if (t[i] != '[')
                return best;
            i = skip_ws(t, n, i + 1);
            for (long k = 0; k < index; k++) {
                i = skip_value(t, n, i);
                i = skip_ws(t, n, i);
                if (i >= n || t[i] != ',')
                    return best;
                i = skip_ws(t, n, i + 1);
            }
            best = (long)i;
        } else {
            if (t[i] != '{')
                return best;
            i = skip_ws(t, n, i + 1);
            int found = 0;
            while (i < n && t[i] == '"') {
                size_t kpos = i;
                int eq = string_equals(t, n, i, key);
                i = skip_ws(t, n, skip_string(t, n, i));
                if (i < n && t[i] == ':')
                    i = skip_ws(t, n, i + 1);
                if (eq && !*p && nth > 1) {
                    nth--;
                    eq = 0;
                }
                if (eq) {
                    found = 1;
                    best = (long)((want_key && !*p) ? kpos : i);
                    break;
                }
                i = skip_ws(t, n, skip_value(t, n, i));
                if (i < n && t[i] == ',')
                    i = skip_ws(t, n, i + 1);
            }
            if (!found)
                return best;
        }
    }
    return best;
}

long jdoc_locate(const JDoc *d, const char *field, int want_key)
{
    return locate_nth(d, field, want_key, 1);
}

int jdoc_err(const JDoc *d, Err *e, const char *field, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    long off = jdoc_locate(d, field, 0);
    int line = 0, col = 0;
    util_line_col(d->text, off < 0 ? 0 : (size_t)off, &line, &col);
    if (field[0])
        return err_set(e, "%s:%d:%d: %s: %s", d->path, line, col, field, msg);
    return err_set(e, "%s:%d:%d: %s", d->path, line, col, msg);
}

void jpath_key(char *buf, size_t n, const char *base, const char *key)
{
    int plain = key[0] != '\0' && !isdigit((unsigned char)key[0]);
    for (const char *k = key; *k && plain; k++)
        if (!(isalnum((unsigned char)*k) || *k == '_'))
            plain = 0;
    if (plain)
        snprintf(buf, n, "%s%s%s", base, base[0] ? "." : "", key);
    else {
        /* escape quotes and backslashes so the locator can read it back */
        size_t b = (size_t)snprintf(buf, n, "%s[\"", base);
        for (const char *k = key; *k && b + 4 < n; k++) {
            if (*k == '"' || *k == '\\')
                buf[b++] = '\\';
            buf[b++] = *k;
        }
        if (b + 3 <= n) {
            buf[b++] = '"';
            buf[b++] = ']';
            buf[b] = '\0';
        } else
            buf[n - 1] = '\0';
    }
}

/* Rejects duplicate keys anywhere in the tree (cJSON silently keeps both). */
static int check_duplicates(const JDoc *d, const cJSON *v, char *path, size_t pathn, Err *e)
{
    if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
        return 0;
    size_t base_len = strlen(path);
    if (cJSON_IsObject(v)) {
        int count = cJSON_GetArraySize(v);
        StrMap seen;
        strmap_init(&seen, (size_t)count);
        int k = 0;
        for (const cJSON *c = v->child; c; c = c->next, k++) {
            const char *name = c->string ? c->string : "";
            if (strmap_put(&seen, name, k) >= 0) {
                char field[600];
                jpath_key(field, sizeof field, path, name);
                int l1, c1, l2, c2;
                long first = locate_nth(d, field, 1, 1), second = locate_nth(d, field, 1, 2);
                util_line_col(d->text, first < 0 ? 0 : (size_t)first, &l1, &c1);
                util_line_col(d->text, second < 0 ? 0 : (size_t)second, &l2, &c2);
                strmap_done(&seen);
                return err_set(e, "%s:%d:%d: %s%sduplicate key \"%s\" (first at line %d, column %d)",
                               d->path, l2, c2, path, path[0] ? ": " : "", name, l1, c1);
            }
        }
        strmap_done(&seen);
        for (const cJSON *c = v->child; c; c = c->next) {
            char field[600];
            jpath_key(field, sizeof field, path, c->string ? c->string : "");
            if (strlen(field) + 1 > pathn)
                continue;
            strcpy(path, field);
            int rc = check_duplicates(d, c, path, pathn, e);
            path[base_len] = '\0';
            if (rc)
                return rc;
        }
    } else {
        int k = 0;
        for (const cJSON *c = v->child; c; c = c->next, k++) {
            if (!cJSON_IsObject(c) && !cJSON_IsArray(c))
                continue;
            snprintf(path + base_len, pathn - base_len, "[%d]", k);
            int rc = check_duplicates(d, c, path, pathn, e);
            path[base_len] = '\0';
            if (rc)
                return rc;
        }
    }
    return 0;
}

static void *cjson_malloc(size_t n) { return util_try_malloc(n); }

static int parse(JDoc *d, const char *path, const char *text, size_t len, Err *e);

int jdoc_parse(JDoc *d, const char *path, const char *text, size_t len, Err *e)
{
    util_trace_read("parse", path);
    return parse(d, path, text, len, e);
}

int jdoc_parse_part(JDoc *d, const char *path, const char *text, size_t len, Err *e)
{
    return parse(d, path, text, len, e);
}

static int parse(JDoc *d, const char *path, const char *text, size_t len, Err *e)
{
    memset(d, 0, sizeof *d);
    d->path = path;
    d->text = text;
    d->len = len;
    size_t i = skip_ws(text, len, 0);
    if (i >= len)
        return err_set(e, "%s:1:1: empty file: expected a JSON object", path);
    if (memchr(text, '\0', len))
        return err_set(e, "%s: binary data (NUL byte at offset %zu): expected JSON text", path,
                       (size_t)((const char *)memchr(text, '\0', len) - text));
    /* the strict grammar first: what cJSON would take leniently is refused
     * there, so that cJSON failing on a checked text means it ran out of memory */
    if (jdoc_check_text(path, text, len, e) != 0)
        return -1;
    static int hooked;
    if (!hooked) {
        cJSON_Hooks hooks = {cjson_malloc, free};
        cJSON_InitHooks(&hooks);
        hooked = 1;
    }
    util_reading(path);
    const char *end = NULL;
    d->root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!d->root) {
        util_reading(NULL);
        return err_set(e, "%s: out of memory", path);
    }
    char buf[4096] = "";
    if (check_duplicates(d, d->root, buf, sizeof buf, e) != 0) {
        jdoc_done(d);
        return -1;
    }
    return 0;
}

void jdoc_done(JDoc *d)
{
    if (d->root) /* a parse that succeeded named the file being read */
        util_reading(NULL);
    cJSON_Delete(d->root);
    d->root = NULL;
}

int jdoc_check_header(const JDoc *d, const char *fmt, Err *e)
{
    if (!cJSON_IsObject(d->root))
        return jdoc_err(d, e, "", "expected a JSON object with \"format\": \"%s\"", fmt);
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(d->root, "format");
    if (!f)
        return jdoc_err(d, e, "", "missing \"format\": expected \"%s\"", fmt);
    if (!cJSON_IsString(f) || strcmp(f->valuestring, fmt) != 0)
        return jdoc_err(d, e, "format", "expected \"%s\"%s%s%s", fmt,
                        cJSON_IsString(f) ? ", got \"" : "",
                        cJSON_IsString(f) ? f->valuestring : "", cJSON_IsString(f) ? "\"" : "");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(d->root, "version");
    if (!v)
        return jdoc_err(d, e, "", "missing \"version\": expected 1");
    if (!cJSON_IsNumber(v) || v->valuedouble != 1.0)
        return jdoc_err(d, e, "version", "expected 1 (this program reads version 1)");
    return 0;
}

/* "missing KEY" reported at the enclosing object of field. */
static int missing(const JDoc *d, Err *e, const char *field, const char *key, const char *what)
{
    char parent[600];
    snprintf(parent, sizeof parent, "%s", field);
    size_t pl = strlen(parent), kl = strlen(key);
    if (pl >= kl)
        parent[pl - kl - (pl > kl ? 1 : 0)] = '\0';
    return jdoc_err(d, e, parent, "missing \"%s\": expected %s", key, what);
}

int jget_string(const JDoc *d, const cJSON *obj, const char *key, const char *field,
                int required, const char **out, Err *e)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (!required)
            return 1;
        /* point at the enclosing object */
        return missing(d, e, field, key, "a string");
    }
    if (!cJSON_IsString(v))
        return jdoc_err(d, e, field, "expected a string");
    *out = v->valuestring;
    return 0;
}

int jcheck_number(const JDoc *d, const cJSON *v, const char *field, double min, double max,
                  double *out, Err *e)
{
    if (!cJSON_IsNumber(v))
        return jdoc_err(d, e, field, "expected a number >= %g", min);
    double x = v->valuedouble;
    if (!isfinite(x))
        return jdoc_err(d, e, field, "expected a finite number, got %s", x > 0 ? "infinity" : "-infinity");
    if (x < min)
        return jdoc_err(d, e, field, "expected a number >= %g, got %g", min, x);
    if (x > max)
        return jdoc_err(d, e, field, "expected a number <= %g, got %g", max, x);
    *out = x;
    return 0;
}

int jget_number(const JDoc *d, const cJSON *obj, const char *key, const char *field,
                int required, double min, double max, double *out, Err *e)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (!required)
            return 1;
        return missing(d, e, field, key, "a number");
    }
    return jcheck_number(d, v, field, min, max, out, e);
}

int jcheck_int(const JDoc *d, const cJSON *v, const char *field, int64_t min, int64_t max,
               int64_t *out, Err *e)
{
    if (!cJSON_IsNumber(v))
        return jdoc_err(d, e, field, "expected an integer >= %lld", (long long)min);
    double x = v->valuedouble;
    if (!isfinite(x) || x != floor(x))
        return jdoc_err(d, e, field, "expected an integer >= %lld, got %g", (long long)min, x);
    if (x < (double)min || x > (double)max)
        return jdoc_err(d, e, field, "expected an integer from %lld to %lld, got %.17g",
                        (long long)min, (long long)max, x);
    if (fabs(x) > 9007199254740992.0) /* 2^53: past it not every integer has a double */
        return jdoc_err(d, e, field, "expected an integer of at most 2^53 = 9007199254740992 in magnitude "
                        "(larger ones are not exact), got %.17g", x);
    *out = (int64_t)x;
    return 0;
}

int jget_int(const JDoc *d, const cJSON *obj, const char *key, const char *field,
             int required, int64_t min, int64_t max, int64_t *out, Err *e)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (!required)
            return 1;
        return missing(d, e, field, key, "an integer");
    }
    return jcheck_int(d, v, field, min, max, out, e);
}

int jcheck_hex64(const JDoc *d, const cJSON *v, const char *field, uint64_t *out, Err *e)
{
    const char *s = cJSON_IsString(v) ? v->valuestring : NULL;
    size_t n = s ? strlen(s) : 0;
    if (!s || n < 1 || n > 16 || strspn(s, "0123456789abcdefABCDEF") != n)
        return jdoc_err(d, e, field, "expected a string of 1 to 16 hex digits (a 64-bit word)");
    *out = (uint64_t)strtoull(s, NULL, 16);
    return 0;
}
