#define _POSIX_C_SOURCE 200809L
/* graph_dot: reads a computation graph from DOT with cgraph. Node attributes
 * cost_us, output_bytes ("123" or "[1, 2]" or "1,2"), op, colocate, group, layer and
 * cost_us_by_kind ("cpu:900,gpu:80"); edge attribute output. Node order is
 * the order of first mention, edge order the order of the edge statements.
 * One graph per file: anything but comments after it is refused.
 *
 * cgraph reports errors through a global callback and a sticky counter; both
 * are reset around each read, and messages are collected instead of printed
 * (they would break a curses screen). cgraph is not thread-safe. */
#include <graphviz/cgraph.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"

static char dot_errbuf[512];

static int collect_error(char *msg)
{
    /* cgraph sends one message in pieces ("Error", ": ", "syntax error in line 3 ...") */
    size_t n = strlen(dot_errbuf);
    snprintf(dot_errbuf + n, sizeof dot_errbuf - n, "%s", msg);
    return 0;
}

/* A DOT string as text: in a quoted DOT string "\\\\" is one backslash
 * (cgraph keeps both characters), so a name can end in a backslash and be
 * written back. Returns a malloc'd copy (NULL for NULL). */
static char *dot_text(const char *s)
{
    if (!s)
        return NULL;
    char *t = xstrdup(s), *w = t;
    for (const char *p = s; *p; p++) {
        *w++ = *p;
        if (p[0] == '\\' && p[1] == '\\')
            p++;
    }
    *w = '\0';
    return t;
}

static const char *attr(void *obj, const char *name)
{
    char *v = agget(obj, (char *)name);
    return (v && v[0]) ? v : NULL;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    while (*end == ' ')
        end++;
    if (end == s || *end || errno == ERANGE || !isfinite(x))
        return -1;
    *out = x;
    return 0;
}

/* output_bytes: a byte count ("123") or a list of them, "[1, 2]" or "1,2";
 * each a run of decimal digits up to GRAPH_MAX_BYTES, spaces around the
 * brackets and commas; "[]" is one output of 0 bytes. Returns 0, or -1 with
 * *what set to what was expected at s[*at]. */
static int parse_bytes_list(const char *s, int64_t **out, int *n, int *scalar, size_t *at, const char **what)
{
    const char *p = s;
    *out = NULL;
    *n = 0;
    while (*p == ' ')
        p++;
    int bracket = (*p == '[');
    *scalar = !bracket;
    if (bracket)
        p++;
    int cap = 4;
    *out = XMALLOC(int64_t, cap);
    for (;;) {
        while (*p == ' ')
            p++;
        if (bracket && *p == ']' && *n == 0)
            break;
        if (*p < '0' || *p > '9') {
            *what = *n == 0 && !bracket ? "a byte count (decimal digits)" : "a byte count (decimal digits) after '['"
                                                                              " or ','";
            if (*n > 0)
                *what = "a byte count (decimal digits) after ','";
            goto bad;
        }
        int64_t x = 0;
        while (*p >= '0' && *p <= '9') {
            if (x > (GRAPH_MAX_BYTES - (*p - '0')) / 10) {
                *what = "a byte count of at most 2^53 (9007199254740992)";
                goto bad;
            }
            x = x * 10 + (*p++ - '0');
        }
        if (*n == cap) {
            cap *= 2;
            *out = XRENEW(*out, cap);
        }
        (*out)[(*n)++] = x;
        while (*p == ' ')
            p++;
        if (*p == ',') {
            p++;
            continue;
        }
        if (bracket && *p == ']')
            break;
        if (!bracket && *p == '\0')
            break;
        *what = bracket ? "',' or ']' after a byte count" : "',' or the end after a byte count";
        goto bad;
    }
    if (bracket) {
        p++;
        while (*p == ' ')
            p++;
        if (*p) {
            *what = "nothing after ']'";
            goto bad;
        }
    }
    if (*n == 0) {
        (*out)[0] = 0;
        *n = 1;
    }
    if (*n > 1)
        *scalar = 0;
    return 0;
bad:
    *at = (size_t)(p - s);
    return -1;
}

/* "kind:cost,..." into n's kind costs. Returns 0; -1 on bad syntax; -2 when
 * kind_costs[*bad] has a cost above 1e15 (the JSON loader's range); -3 when
 * kind_costs[*bad]'s kind is listed again (JSON rejects duplicate keys). */
static int parse_kind_costs(const char *s, GraphNode *n, int *bad)
{
    char *copy = xstrdup(s), *save = NULL;
    int cap = 2;
    n->kind_costs = XNEW(KindCost, cap);
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':');
        double x;
        if (!colon)
            goto bad;
        *colon = '\0';
        while (*tok == ' ')
            tok++;
        if (!*tok || parse_double(colon + 1, &x) != 0 || x < 0)
            goto bad;
        for (int k = 0; k < n->n_kind_costs; k++)
            if (strcmp(n->kind_costs[k].kind, tok) == 0) {
                *bad = k;
                free(copy);
                return -3;
            }
        if (n->n_kind_costs == cap) {
            cap *= 2;
            n->kind_costs = XRENEW(n->kind_costs, cap);
        }
        n->kind_costs[n->n_kind_costs].kind = xstrdup(tok);
        n->kind_costs[n->n_kind_costs++].cost_us = x;
        if (x > 1e15) {
            *bad = n->n_kind_costs - 1;
            free(copy);
            return -2;
        }
    }
    free(copy);
    return 0;
bad:
    free(copy);
    return -1;
}

/* The position in text of byte at of an attribute's value: where the value
 * is written (its first occurrence, quoted or not). 0 when not found. */
static int value_pos(const char *text, const char *value, size_t at, int *line, int *col)
{
    const char *hit = value[0] ? strstr(text, value) : NULL;
    if (!hit)
        return 0;
    util_line_col(text, (size_t)(hit - text) + at, line, col);
    return 1;
}

/* Skips white space and comments (// and C comments, lines starting with
 * '#') from t[i]; returns the index of the next token. */
static size_t dot_skip_space(const char *t, size_t n, size_t i)
{
    for (;;) {
        while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r' || t[i] == '\f' ||
                         t[i] == '\v'))
            i++;
        if (i + 1 < n && t[i] == '/' && t[i + 1] == '/') {
            while (i < n && t[i] != '\n')
                i++;
        } else if (i + 1 < n && t[i] == '/' && t[i + 1] == '*') {
            const char *end = i + 2 < n ? strstr(t + i + 2, "*/") : NULL;
            i = end ? (size_t)(end - t) + 2 : n;
        } else if (i < n && t[i] == '#' && (i == 0 || t[i - 1] == '\n')) {
            while (i < n && t[i] != '\n')
                i++;
        } else
            return i;
    }
}

/* The index after the '}' that closes the first graph in t (its body's
 * strings, HTML strings and comments skipped), or n when there is none. */
static size_t dot_first_graph_end(const char *t, size_t n)
{
    size_t i = dot_skip_space(t, n, 0);
    int depth = 0;
    while (i < n) {
        char c = t[i];
        if (c == '"') {
            for (i++; i < n && t[i] != '"'; i++)
                if (t[i] == '\\' && i + 1 < n)
                    i++;
            i++;
        } else if (c == '<' && depth > 0) {
            int h = 0;
            for (; i < n; i++) {
                h += t[i] == '<' ? 1 : t[i] == '>' ? -1 : 0;
                if (h == 0)
                    break;
            }
            i++;
        } else if (c == '{') {
            depth++;
            i++;
        } else if (c == '}') {
            i++;
            if (--depth == 0)
                return i;
        } else if (c == '/' || c == '#' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            size_t j = dot_skip_space(t, n, i);
            i = j == i ? i + 1 : j;
        } else
            i++;
    }
    return n;
}

typedef struct { Agedge_t *e; uint64_t seq; } SeqEdge;

static int by_seq(const void *a, const void *b)
{
    uint64_t x = ((const SeqEdge *)a)->seq, y = ((const SeqEdge *)b)->seq;
    return (x > y) - (x < y);
}

static Graph *convert(const char *path, const char *text, Agraph_t *ag, Err *e)
{
    char *gname_text = dot_text(agnameof(ag));
    Graph *g = graph_new(gname_text);
    free(gname_text);
    free(g->path);
    g->path = xstrdup(path);
    const char *src = attr(ag, "source");
    if (src) {
        free(g->source);
        g->source = dot_text(src);
    }
    if (agnnodes(ag) == 0) {
        err_set(e, "%s: empty graph: expected at least one node", path);
        goto fail;
    }
    /* text the JSON writer writes as it is: UTF-8 only, or the graph could
     * not be saved as JSON and read back */
    for (Agnode_t *n = agfstnode(ag); n; n = agnxtnode(ag, n)) {
        static const char *const texts[] = {NULL, "op", "colocate", "group", "layer", "cost_us_by_kind"};
        for (size_t t = 0; t < sizeof texts / sizeof *texts; t++) {
            const char *v = t ? attr(n, texts[t]) : agnameof(n);
            long bad = v ? util_utf8_invalid(v) : -1;
            if (bad >= 0) {
                char where[64] = "";
                int line, col;
                if (value_pos(text, v, (size_t)bad, &line, &col))
                    snprintf(where, sizeof where, ":%d:%d", line, col);
                err_set(e, "%s%s: node %s%s: expected UTF-8 text, got byte 0x%02x", path, where,
                        t ? "attribute " : "name", t ? texts[t] : "", (unsigned char)v[bad]);
                goto fail;
            }
        }
    }
    const char *gname = agnameof(ag);
    if ((gname && util_utf8_invalid(gname) >= 0) || (src && util_utf8_invalid(src) >= 0)) {
        err_set(e, "%s: the graph's name or source: expected UTF-8 text", path);
        goto fail;
    }
    for (Agnode_t *n = agfstnode(ag); n; n = agnxtnode(ag, n)) {
        const char *name = agnameof(n), *s;
        double cost = 0;
        if (!name[0]) { /* DOT allows "" as a node name; graph JSON does not */
            err_set(e, "%s: node \"\": expected a non-empty name", path);
            goto fail;
        }
        if ((s = attr(n, "cost_us")) && (parse_double(s, &cost) != 0 || cost < 0 || cost > 1e15)) {
            err_set(e, "%s: node \"%s\": cost_us: expected a number >= 0, got \"%s\"", path, name, s);
            goto fail;
        }
        int64_t *ob = NULL;
        int n_out = 1, scalar = 1;
        if ((s = attr(n, "output_bytes"))) {
            size_t at = 0;
            const char *what = "";
            if (parse_bytes_list(s, &ob, &n_out, &scalar, &at, &what) != 0) {
                free(ob);
                char where[64] = "";
                int line, col;
                if (value_pos(text, s, at, &line, &col))
                    snprintf(where, sizeof where, ":%d:%d", line, col);
                err_set(e,
                        "%s%s: node \"%s\": output_bytes: expected a byte count or a list of them, got \"%s\" "
                        "(at character %zu: expected %s)",
                        path, where, name, s, at + 1, what);
                goto fail;
            }
        } else {
            ob = xcalloc(1, sizeof *ob);
        }
        char *name_text = dot_text(name), *op_text = dot_text(attr(n, "op"));
        int idx = graph_add_node(g, name_text, op_text, cost, ob, n_out);
        free(name_text);
        free(op_text);
        free(ob);
        GraphNode *gn = &g->nodes[idx];
        gn->output_scalar = scalar;
        gn->colocate = dot_text(attr(n, "colocate"));
        gn->group = dot_text(attr(n, "group"));
        gn->layer = dot_text(attr(n, "layer"));
        int rc, bad = 0;
        if ((s = attr(n, "cost_us_by_kind")) && (rc = parse_kind_costs(s, gn, &bad)) != 0) {
            if (rc == -3)
                err_set(e, "%s: node \"%s\": cost_us_by_kind: duplicate kind \"%s\" in \"%s\"", path, name,
                        gn->kind_costs[bad].kind, s);
            else if (rc == -2)
                err_set(e, "%s: node \"%s\": cost_us_by_kind: kind \"%s\": expected a cost from 0 to 1e15, got %g",
                        path, name, gn->kind_costs[bad].kind, gn->kind_costs[bad].cost_us);
            else
                err_set(e, "%s: node \"%s\": cost_us_by_kind: expected \"kind:cost,...\", got \"%s\"", path, name, s);
            goto fail;
        }
    }
    int64_t total = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        total += graph_node_bytes(g, i);
        if (total > GRAPH_MAX_TOTAL_BYTES) {
            err_set(e, "%s: node \"%s\": output_bytes: the graph's outputs add up to more than 2^62 bytes",
                    path, g->nodes[i].name);
            goto fail;
        }
    }
    int ne = agnedges(ag), k = 0;
    SeqEdge *edges = XMALLOC(SeqEdge, ne);
    for (Agnode_t *n = agfstnode(ag); n; n = agnxtnode(ag, n))
        for (Agedge_t *ed = agfstout(ag, n); ed; ed = agnxtout(ag, ed))
            edges[k++] = (SeqEdge){ed, AGSEQ(ed)};
    qsort(edges, (size_t)k, sizeof *edges, by_seq);
    for (int i = 0; i < k; i++) {
        Agedge_t *ed = edges[i].e;
        const char *s = attr(ed, "output");
        double out = 0;
        const char *tn = agnameof(agtail(ed)), *hn = agnameof(aghead(ed));
        if (s && (parse_double(s, &out) != 0 || out < 0 || out != floor(out) || out > (1 << 30))) {
            err_set(e, "%s: edge \"%s\" -> \"%s\": output: expected an integer >= 0, got \"%s\"", path, tn, hn, s);
            free(edges);
            goto fail;
        }
        char *tt = dot_text(tn), *ht = dot_text(hn);
        int a = strmap_get(&g->index, tt), b = strmap_get(&g->index, ht);
        free(tt);
        free(ht);
        if (a == b) {
            err_set(e, "%s: cycle through node \"%s\": the edge goes from the node to itself", path, tn);
            free(edges);
            goto fail;
        }
        graph_add_edge(g, a, b, (int)out);
    }
    free(edges);
    if (graph_finish(g, e) != 0) {
        err_prefix(e, path);
        goto fail;
    }
    return g;
fail:
    graph_free(g);
    return NULL;
}

Graph *graph_load_dot_text(const char *path, const char *text, size_t len, Err *e)
{
    if (len == 0)
        return err_set(e, "%s:1:1: empty file: expected a DOT digraph", path), NULL;
    if (memchr(text, '\0', len))
        return err_set(e, "%s: binary data (NUL byte at offset %zu): expected DOT text", path,
                       (size_t)((const char *)memchr(text, '\0', len) - text)), NULL;
    dot_errbuf[0] = '\0';
    agseterrf(collect_error);
    agseterr(AGERR);
    agreseterrors();
    /* cgraph reads the first graph and keeps the rest of its input for the
     * next read: it is given the first graph alone, and what follows it is
     * refused below once the graph itself has parsed */
    size_t first = dot_first_graph_end(text, len);
    size_t end = dot_skip_space(text, len, first);
    while (end < len && text[end] == ';')
        end = dot_skip_space(text, len, end + 1);
    char *copy = xmalloc(first + 1); /* cgraph reads up to a NUL */
    memcpy(copy, text, first);
    copy[first] = '\0';
    Agraph_t *ag = agmemread(copy);
    free(copy);
    if (!ag || agerrors()) {
        char *msg = dot_errbuf;
        if (strncmp(msg, "Error: ", 7) == 0)
            msg += 7;
        size_t ml = strlen(msg);
        while (ml && (msg[ml - 1] == '\n' || msg[ml - 1] == ' '))
            msg[--ml] = '\0';
        /* cgraph says "syntax error in line N near 'x'" */
        const char *ln = strstr(msg, "in line ");
        if (ln)
            err_set(e, "%s:%d:1: DOT %s", path, atoi(ln + 8), msg[0] ? msg : "syntax error");
        else
            err_set(e, "%s: DOT %s", path, msg[0] ? msg : "syntax error: not a DOT graph");
        if (ag)
            agclose(ag);
        return NULL;
    }
    if (end < len) {
        int line, col;
        util_line_col(text, end, &line, &col);
        err_set(e, "%s:%d:%d: unexpected data after the graph: expected the end of the file (one graph per file)",
                path, line, col);
        agclose(ag);
        return NULL;
    }
    if (!agisdirected(ag)) {
        err_set(e, "%s: expected a digraph (edges with ->), got an undirected graph", path);
        agclose(ag);
        return NULL;
    }
    util_reading(path);
    Graph *g = convert(path, text, ag, e);
    util_reading(NULL);
    agclose(ag);
    if (g)
        g->checksum = util_hash64(text, len, 0);
    return g;
}
