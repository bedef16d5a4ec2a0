/* graph_json_fast: the one-pass graph reader (see graph_json_impl.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "graph_json_impl.h"
#include "jdoc.h"

/* ---- the one-pass reader ------------------------------------------------
 *
 * A graph file is read straight from its text into the Graph, with no
 * document tree and no field names built. It takes only what it fully
 * understands: strict JSON (jdoc_check_text's grammar, checked here as the
 * text is read, with no separate pass), the members of the format and
 * nothing else in nodes and edges, their strings without escapes (the
 * graph's name and source may have them: cJSON decodes those), every value
 * within its bounds, no duplicate key or node name. Anything else, every
 * error included, is left to the tree reader above (graph_load_json_tree_text),
 * which then words the error exactly as always: the one-pass reader only ever
 * accepts files the tree reader accepts, and builds the same graph from them. */

typedef struct {
    const char *t;
    size_t n, i;
    char *buf; /* NUL-terminated copies of the current node's strings */
    size_t buf_len, buf_cap;
} Fast;


/* The byte at the reading position, '\0' at the end of the text. */
static char fast_peek(const Fast *f)
{
    return f->i < f->n ? f->t[f->i] : '\0';
}

static void fast_ws(Fast *f)
{
    while (f->i < f->n && (f->t[f->i] == ' ' || f->t[f->i] == '\t' || f->t[f->i] == '\n' || f->t[f->i] == '\r'))
        f->i++;
}

static int fast_char(Fast *f, char c)
{
    fast_ws(f);
    if (f->i >= f->n || f->t[f->i] != c)
        return 0;
    f->i++;
    fast_ws(f);
    return 1;
}

/* After '{' or '[': 1 when an element follows, 0 for an empty one (its
 * closing bracket read), -1 otherwise. */
static int fast_open(Fast *f, char open, char close)
{
    if (!fast_char(f, open))
        return -1;
    if (fast_peek(f) != close)
        return 1;
    f->i++;
    fast_ws(f);
    return 0;
}

/* After an element: 1 for ',' and another element, 0 for the closing
 * bracket (read), -1 otherwise (a trailing comma included). */
static int fast_after(Fast *f, char close)
{
    fast_ws(f);
    if (fast_peek(f) == close) {
        f->i++;
        fast_ws(f);
        return 0;
    }
    if (!fast_char(f, ',') || fast_peek(f) == close)
        return -1;
    return 1;
}

/* A string without escapes at t[i] (the text is strict JSON, so it ends):
 * its bytes [*s, *s + *len). Returns 0, or FAST_NO on anything else. */
static int fast_string(Fast *f, const char **s, size_t *len)
{
    if (fast_peek(f) != '"')
        return FAST_NO;
    const unsigned char *t = (const unsigned char *)f->t;
    size_t i = f->i + 1;
    for (;;) { /* jdoc_check_text's rules: no raw control character, UTF-8 */
        if (i >= f->n)
            return FAST_NO;
        unsigned char c = t[i];
        if (c == '"')
            break;
        if (c < 0x20 || c == '\\')
            return FAST_NO;
        if (c < 0x80)
            i++;
        else {
            size_t l = util_utf8_seq(t + i, f->n - i);
            if (!l)
                return FAST_NO;
            i += l;
        }
    }
    *s = f->t + f->i + 1;
    *len = i - f->i - 1;
    f->i = i + 1;
    return 0;
}

/* A number at t[i] in jdoc_check_text's grammar (no leading zero, digits
 * after '.' and in the exponent, integers within 2^53), read as cJSON reads
 * it (strtod of the token). */
static int fast_number(Fast *f, double *x)
{
    const char *t = f->t;
    size_t i = f->i, n = f->n, start = i;
#define DIGIT(k) ((k) < n && t[k] >= '0' && t[k] <= '9')
    if (i < n && t[i] == '-')
        i++;
    size_t digits = i;
    if (i < n && t[i] == '0') {
        i++;
        if (DIGIT(i))
            return FAST_NO;
    } else if (DIGIT(i) && t[i] != '0') {
        while (DIGIT(i))
            i++;
    } else
        return FAST_NO;
    size_t ndigits = i - digits;
    int integer = 1;
    if (i < n && t[i] == '.') {
        integer = 0;
        if (!DIGIT(i + 1))
            return FAST_NO;
        for (i++; DIGIT(i); i++)
            ;
    }
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        integer = 0;
        i++;
        if (i < n && (t[i] == '+' || t[i] == '-'))
            i++;
        if (!DIGIT(i))
            return FAST_NO;
        while (DIGIT(i))
            i++;
    }
#undef DIGIT
    if (integer && (ndigits > 16 || (ndigits == 16 && memcmp(t + digits, "9007199254740992", 16) > 0)))
        return FAST_NO;
    char tok[64];
    if (i - start >= sizeof tok)
        return FAST_NO;
    memcpy(tok, t + start, i - start);
    tok[i - start] = '\0';
    *x = strtod(tok, NULL);
    f->i = i;
    return 0;
}

/* jcheck_number's and jcheck_int's acceptance, for min 0. */
static int fast_number_ok(double x, double max)
{
    return isfinite(x) && x >= 0 && x <= max;
}

static int fast_int(Fast *f, int64_t max, int64_t *out)
{
    double x;
    if (fast_number(f, &x) != 0)
        return FAST_NO;
    if (!isfinite(x) || x != floor(x) || x < 0 || x > (double)max || fabs(x) > 9007199254740992.0)
        return FAST_NO;
    *out = (int64_t)x;
    return 0;
}

static int key_is(const char *k, size_t n, const char *want)
{
    return strlen(want) == n && memcmp(k, want, n) == 0;
}

/* Copies [s, s + n) into the scratch buffer; returns its offset there. */
static size_t fast_keep(Fast *f, const char *s, size_t n)
{
    xgrow((void **)&f->buf, &f->buf_cap, f->buf_len + n + 1, 1);
    size_t at = f->buf_len;
    memcpy(f->buf + at, s, n);
    f->buf[at + n] = '\0';
    f->buf_len += n + 1;
    return at;
}

typedef struct {
    const char *s;
    size_t n;
    double cost;
} FastKind;

enum { F_NAME, F_OP, F_COST, F_COLOC, F_GROUP, F_LAYER, F_BYTES, F_KINDS, F_NKEYS };
static const char *const fast_node_keys[F_NKEYS] = {"name", "op", "cost_us", "colocate", "group",
                                                    "layer", "output_bytes", "cost_us_by_kind"};

static int fast_nodes(Fast *f, Graph *g)
{
    if (fast_open(f, '[', ']') != 1)
        return FAST_NO; /* an empty graph is an error */
    int64_t total_bytes = 0, *ob = NULL;
    size_t ob_cap = 0, kinds_cap = 0;
    FastKind *kinds = NULL;
    int rc = FAST_NO;
    for (;;) {
        int more = fast_open(f, '{', '}');
        if (more < 0)
            goto out;
        unsigned seen = 0;
        const char *sv[F_NKEYS] = {0};
        size_t sn[F_NKEYS] = {0};
        double cost = 0;
        int n_out = 0, scalar = 1, n_kinds = 0;
        for (; more > 0; more = fast_after(f, '}')) {
            const char *k;
            size_t kn;
            if (fast_string(f, &k, &kn) != 0 || !fast_char(f, ':'))
                goto out;
            int which = -1;
            for (int j = 0; j < F_NKEYS; j++)
                if (key_is(k, kn, fast_node_keys[j]))
                    which = j;
            if (which < 0 || (seen & (1u << which)))
                goto out; /* another member, or a duplicate */
            seen |= 1u << which;
            if (which == F_COST) {
                if (fast_number(f, &cost) != 0 || !fast_number_ok(cost, 1e15))
                    goto out;
            } else if (which == F_BYTES) {
                if (fast_peek(f) == '[') {
                    scalar = 0;
                    int el;
                    for (el = fast_open(f, '[', ']'); el > 0; el = fast_after(f, ']')) {
                        xgrow((void **)&ob, &ob_cap, (size_t)n_out + 1, sizeof *ob);
                        if (fast_int(f, GRAPH_MAX_BYTES, &ob[n_out]) != 0)
                            goto out;
                        n_out++;
                    }
                    if (el < 0)
                        goto out;
                } else {
                    xgrow((void **)&ob, &ob_cap, 1, sizeof *ob);
                    if (fast_int(f, GRAPH_MAX_BYTES, &ob[0]) != 0)
                        goto out;
                    n_out = 1;
                }
            } else if (which == F_KINDS) {
                int el;
                for (el = fast_open(f, '{', '}'); el > 0; el = fast_after(f, '}')) {
                    xgrow((void **)&kinds, &kinds_cap, (size_t)n_kinds + 1, sizeof *kinds);
                    FastKind *kc = &kinds[n_kinds];
                    if (n_kinds >= 64 || fast_string(f, &kc->s, &kc->n) != 0 || !fast_char(f, ':') ||
                        fast_number(f, &kc->cost) != 0 || !fast_number_ok(kc->cost, 1e15))
                        goto out;
                    for (int j = 0; j < n_kinds; j++)
                        if (kinds[j].n == kc->n && memcmp(kinds[j].s, kc->s, kc->n) == 0)
                            goto out;
                    n_kinds++;
                }
                if (el < 0)
                    goto out;
            } else if (fast_string(f, &sv[which], &sn[which]) != 0)
                goto out;
        }
        if (more < 0)
            goto out;
        if (!(seen & (1u << F_NAME)) || sn[F_NAME] == 0 || ((seen & (1u << F_GROUP)) && sn[F_GROUP] == 0) ||
            ((seen & (1u << F_LAYER)) && sn[F_LAYER] == 0))
            goto out;
        if (!(seen & (1u << F_BYTES))) { /* absent: one output of 0 bytes */
            xgrow((void **)&ob, &ob_cap, 1, sizeof *ob);
            ob[0] = 0;
            n_out = 1;
        }
        for (int k = 0; k < n_out; k++) {
            total_bytes += ob[k];
            if (total_bytes > GRAPH_MAX_TOTAL_BYTES)
                goto out;
        }
        f->buf_len = 0;
        size_t at[F_NKEYS];
        for (int j = 0; j < F_NKEYS; j++)
            at[j] = sv[j] ? fast_keep(f, sv[j], sn[j]) : 0;
        int idx = graph_add_node(g, f->buf + at[F_NAME], sv[F_OP] ? f->buf + at[F_OP] : "", cost, ob, n_out);
        if (idx < 0)
            goto out; /* a duplicate name */
        GraphNode *n = &g->nodes[idx];
        n->output_scalar = scalar;
        n->colocate = sv[F_COLOC] ? xstrdup(f->buf + at[F_COLOC]) : NULL;
        n->group = sv[F_GROUP] ? xstrdup(f->buf + at[F_GROUP]) : NULL;
        n->layer = sv[F_LAYER] ? xstrdup(f->buf + at[F_LAYER]) : NULL;
        if (seen & (1u << F_KINDS)) {
            n->kind_costs = XNEW(KindCost, n_kinds);
            for (int j = 0; j < n_kinds; j++) {
                size_t at_kind = fast_keep(f, kinds[j].s, kinds[j].n); /* may move f->buf */
                n->kind_costs[j].kind = xstrdup(f->buf + at_kind);
                n->kind_costs[j].cost_us = kinds[j].cost;
            }
            n->n_kind_costs = n_kinds;
        }
        int next = fast_after(f, ']');
        if (next < 0)
            goto out;
        if (next == 0)
            break;
    }
    rc = 0;
out:
    free(ob);
    free(kinds);
    return rc;
}

static int fast_edges(Fast *f, Graph *g)
{
    int el;
    for (el = fast_open(f, '[', ']'); el > 0; el = fast_after(f, ']')) {
        int end_idx[2] = {-1, -1};
        int64_t out = 0;
        unsigned seen = 0;
        int more;
        for (more = fast_open(f, '{', '}'); more > 0; more = fast_after(f, '}')) {
            const char *k, *s;
            size_t kn, sn;
            if (fast_string(f, &k, &kn) != 0 || !fast_char(f, ':'))
                return FAST_NO;
            int which = key_is(k, kn, "src") ? 0 : key_is(k, kn, "dst") ? 1 : key_is(k, kn, "output") ? 2 : -1;
            if (which < 0 || (seen & (1u << which)))
                return FAST_NO;
            seen |= 1u << which;
            if (which == 2) {
                if (fast_int(f, 1 << 30, &out) != 0)
                    return FAST_NO;
            } else {
                if (fast_string(f, &s, &sn) != 0)
                    return FAST_NO;
                end_idx[which] = strmap_get_n(&g->index, s, sn);
                if (end_idx[which] < 0)
                    return FAST_NO;
            }
        }
        if (more < 0 || (seen & 3u) != 3u || end_idx[0] == end_idx[1])
            return FAST_NO;
        graph_add_edge(g, end_idx[0], end_idx[1], (int)out);
    }
    return el < 0 ? FAST_NO : 0;
}

/* The top-level object. Returns 0 with the graph (graph_finish not run yet),
 * or FAST_NO. */
/* Any string at t[i], escapes decoded by cJSON itself (as the tree reader
 * decodes them): a copy in *out, which the caller frees. */
static int fast_string_copy(Fast *f, char **out)
{
    if (fast_peek(f) != '"')
        return FAST_NO;
    size_t start = f->i, j = start + 1;
    const char *s;
    size_t n;
    if (fast_string(f, &s, &n) == 0) {
        free(*out);
        *out = xmalloc(n + 1);
        memcpy(*out, s, n);
        (*out)[n] = '\0';
        return 0;
    }
    while (j < f->n && f->t[j] != '"') /* strict JSON: the string ends */
        j += f->t[j] == '\\' ? 2 : 1;
    Err scratch = {{0}};
    if (j >= f->n || jdoc_check_text("", f->t + start, j + 1 - start, &scratch) != 0)
        return FAST_NO; /* the escapes checked as the whole text would be */
    cJSON *v = cJSON_ParseWithLength(f->t + start, j + 1 - start);
    int ok = cJSON_IsString(v) && v->valuestring;
    if (ok) {
        free(*out);
        *out = xstrdup(v->valuestring);
        f->i = j + 1;
    }
    cJSON_Delete(v);
    return ok ? 0 : FAST_NO;
}

static int fast_graph(Fast *f, Graph *g, char **name, char **source)
{
    enum { T_FORMAT = 1, T_VERSION = 2, T_NAME = 4, T_SOURCE = 8, T_NODES = 16, T_EDGES = 32 };
    unsigned seen = 0;
    struct {
        const char *s;
        size_t n;
    } other[32];
    int n_other = 0;
    f->i = 0;
    int more;
    for (more = fast_open(f, '{', '}'); more > 0; more = fast_after(f, '}')) {
        const char *k, *s;
        size_t kn, sn;
        if (fast_string(f, &k, &kn) != 0 || !fast_char(f, ':'))
            return FAST_NO;
        unsigned bit = key_is(k, kn, "format")    ? T_FORMAT
                       : key_is(k, kn, "version") ? T_VERSION
                       : key_is(k, kn, "name")    ? T_NAME
                       : key_is(k, kn, "source")  ? T_SOURCE
                       : key_is(k, kn, "nodes")   ? T_NODES
                       : key_is(k, kn, "edges")   ? T_EDGES
                                                  : 0;
        if (seen & bit)
            return FAST_NO;
        seen |= bit;
        double x;
        switch (bit) {
        case T_FORMAT:
            if (fast_string(f, &s, &sn) != 0 || !key_is(s, sn, "placeto-graph"))
                return FAST_NO;
            break;
        case T_VERSION:
            if (fast_number(f, &x) != 0 || x != 1.0)
                return FAST_NO;
            break;
        case T_NAME:
            if (fast_string_copy(f, name) != 0)
                return FAST_NO;
            break;
        case T_SOURCE:
            if (fast_string_copy(f, source) != 0)
                return FAST_NO;
            break;
        case T_NODES:
            if (fast_nodes(f, g) != 0)
                return FAST_NO;
            break;
        case T_EDGES:
            if (!(seen & T_NODES) || fast_edges(f, g) != 0)
                return FAST_NO; /* edges before the nodes: left to the tree reader */
            break;
        default: /* another member: a scalar, not a duplicate */
            if (n_other == 32)
                return FAST_NO;
            for (int j = 0; j < n_other; j++)
                if (other[j].n == kn && memcmp(other[j].s, k, kn) == 0)
                    return FAST_NO;
            other[n_other].s = k;
            other[n_other++].n = kn;
            if (fast_peek(f) == '"') {
                if (fast_string(f, &s, &sn) != 0)
                    return FAST_NO;
            } else if (fast_peek(f) == 't' || fast_peek(f) == 'f' || fast_peek(f) == 'n') {
                static const char *const lit[3] = {"true", "false", "null"};
                int hit = 0;
                for (int j = 0; j < 3 && !hit; j++) {
                    size_t l = strlen(lit[j]);
                    if (f->n - f->i >= l && memcmp(f->t + f->i, lit[j], l) == 0) {
                        f->i += l;
                        hit = 1;
                    }
                }
                if (!hit)
                    return FAST_NO;
            } else if (fast_number(f, &x) != 0)
                return FAST_NO;
        }
    }
    if (more < 0 || f->i != f->n) /* nothing after the value */
        return FAST_NO;
    if ((seen & (T_FORMAT | T_VERSION | T_NODES)) != (T_FORMAT | T_VERSION | T_NODES))
        return FAST_NO;
    return 0;
}

/* Returns 0 with *out, -1 with e set (graph_finish refused the graph), or
 * FAST_NO. */
int graph_json_fast_load(const char *path, const char *text, size_t len, Graph **out, Err *e)
{
    if (memchr(text, '\0', len)) /* binary data: the tree reader says so */
        return FAST_NO;
    util_reading(path);
    Graph *g = graph_new("");
    Fast f = {text, len, 0, NULL, 0, 0};
    char *name = NULL, *source = NULL;
    int rc = fast_graph(&f, g, &name, &source);
    free(f.buf);
    if (rc != 0) {
        free(name);
        free(source);
        graph_free(g);
        util_reading(NULL);
        return FAST_NO;
    }
    graph_json_set_name(g, path, name, name ? strlen(name) : 0);
    free(name);
    if (source) {
        free(g->source);
        g->source = source;
    }
    free(g->path);
    g->path = xstrdup(path);
    g->checksum = util_hash64(text, len, 0);
    *out = g;
    if (graph_finish(g, e) != 0) {
        err_prefix(e, path);
        graph_free(g);
        *out = NULL;
        rc = -1;
    }
    util_reading(NULL);
    return rc;
}
