#define _POSIX_C_SOURCE 200809L
/* graph_dot: reads a computation graph from DOT with cgraph. Node attributes
 * cost_us, output_bytes ("123" or "[1, 2]" or "1,2"), op, colocate, group, layer and
 * cost_us_by_kind ("cpu:900,gpu:80"); edge attribute output. Node order is
 * the order of first mention, edge order the order of the edge statements.
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

static int parse_bytes_list(const char *s, int64_t **out, int *n, int *scalar)
{
    const char *p = s;
    while (*p == ' ')
        p++;
    *scalar = (*p != '[');
    if (*p == '[')
        p++;
    int cap = 4;
    *out = XMALLOC(int64_t, cap);
    *n = 0;
    for (;;) {
        while (*p == ' ')
            p++;
        if (*p == ']' || *p == '\0')
            break;
        char *end;
        errno = 0;
        double x = strtod(p, &end);
        if (end == p || errno == ERANGE || x < 0 || x != floor(x) || x > (double)GRAPH_MAX_BYTES)
            return -1;
        if (*n == cap) {
            cap *= 2;
            *out = XRENEW(*out, cap);
        }
        (*out)[(*n)++] = (int64_t)x;
        p = end;
        while (*p == ' ')
            p++;
        if (*p == ',')
            p++;
        else if (*p != ']' && *p != '\0')
            return -1;
    }
    if (*n == 0) {
        (*out)[0] = 0;
        *n = 1;
    }
    if (*n > 1)
        *scalar = 0;
    return 0;
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

typedef struct { Agedge_t *e; uint64_t seq; } SeqEdge;

static int by_seq(const void *a, const void *b)
{
    uint64_t x = ((const SeqEdge *)a)->seq, y = ((const SeqEdge *)b)->seq;
    return (x > y) - (x < y);
}

static Graph *convert(const char *path, Agraph_t *ag, Err *e)
{
    Graph *g = graph_new(agnameof(ag));
    free(g->path);
    g->path = xstrdup(path);
    const char *src = attr(ag, "source");
    if (src) {
        free(g->source);
        g->source = xstrdup(src);
    }
    if (agnnodes(ag) == 0) {
        err_set(e, "%s: empty graph: expected at least one node", path);
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
            if (parse_bytes_list(s, &ob, &n_out, &scalar) != 0) {
                free(ob);
                err_set(e, "%s: node \"%s\": output_bytes: expected a byte count or a list of them, got \"%s\"",
                        path, name, s);
                goto fail;
            }
        } else {
            ob = xcalloc(1, sizeof *ob);
        }
        int idx = graph_add_node(g, name, attr(n, "op"), cost, ob, n_out);
        free(ob);
        GraphNode *gn = &g->nodes[idx];
        gn->output_scalar = scalar;
        if ((s = attr(n, "colocate")))
            gn->colocate = xstrdup(s);
        if ((s = attr(n, "group")))
            gn->group = xstrdup(s);
        if ((s = attr(n, "layer")))
            gn->layer = xstrdup(s);
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
        int a = strmap_get(&g->index, tn), b = strmap_get(&g->index, hn);
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
    char *copy = xmalloc(len + 1); /* cgraph reads up to a NUL */
    memcpy(copy, text, len);
    copy[len] = '\0';
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
    if (!agisdirected(ag)) {
        err_set(e, "%s: expected a digraph (edges with ->), got an undirected graph", path);
        agclose(ag);
        return NULL;
    }
    Graph *g = convert(path, ag, e);
    agclose(ag);
    if (g)
        g->checksum = util_hash64(text, len, 0);
    return g;
}
