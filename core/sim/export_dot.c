/* export_dot: see export.h. Built with cgraph so quoting is always right;
 * SVG and PNG are laid out and drawn by Graphviz's own library (gvc), so no
 * `dot` process is needed. */
#include <graphviz/gvc.h>
#include <math.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include "critpath.h"
#include "dot_ids.h"
#include "export.h"

/* Light fills that stay readable with black text, one per device (cycled). */
static const char *const device_colour[] = {
    "#a6cee3", "#b2df8a", "#fb9a99", "#fdbf6f", "#cab2d6", "#ffff99", "#8dd3c7", "#d9d9d9",
};
#define N_COLOURS 8
#define CRIT_COLOUR "#c00000"
#define CROSS_COLOUR "#303030"
#define LOCAL_COLOUR "#a0a0a0"
/* longest location line of a group label, in bytes */
#define WHERE_MAX 28

/* value as a DOT string: each backslash doubled ("\\\\" is one backslash
 * in a quoted DOT string, for dot's labels and for placeto's reader), so
 * that a name ending in a backslash does not escape the closing quote.
 * Returns buf, or a malloc'd copy for a long value (*owned set). */
static char *dot_string(const char *s, char *buf, size_t cap, char **owned)
{
    size_t n = strlen(s), extra = 0;
    for (size_t i = 0; i < n; i++)
        extra += s[i] == '\\';
    *owned = NULL;
    char *out = buf;
    if (n + extra + 1 > cap)
        out = *owned = xmalloc(n + extra + 1);
    char *w = out;
    for (size_t i = 0; i < n; i++) {
        *w++ = s[i];
        if (s[i] == '\\')
            *w++ = '\\';
    }
    *w = '\0';
    return out;
}

/* The line break of a label while it is composed: set() makes it dot's
 * "\\n" after doubling the backslashes of the text around it. */
#define LB "\x1f"

static void set(void *obj, const char *name, const char *value)
{
    char buf[512], *owned;
    char *v = dot_string(value, buf, sizeof buf, &owned);
    if (strcmp(name, "label") == 0 || strcmp(name, "xlabel") == 0 || strcmp(name, "tooltip") == 0) {
        size_t n = strlen(v), breaks = 0;
        for (size_t i = 0; i < n; i++)
            breaks += v[i] == '\x1f';
        if (breaks) {
            char *t = xmalloc(n + breaks + 1), *w = t;
            for (size_t i = 0; i < n; i++)
                if (v[i] == '\x1f') {
                    *w++ = '\\';
                    *w++ = 'n';
                } else {
                    *w++ = v[i];
                }
            *w = '\0';
            free(owned);
            v = owned = t;
        }
    }
    agsafeset(obj, (char *)name, v, "");
    free(owned);
}

static void set_int(void *obj, const char *name, long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    set(obj, name, buf);
}

/* s with &, <, >, " escaped for an HTML-like label */
static void sb_html(StrBuf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': sb_puts(b, "&amp;"); break;
        case '<': sb_puts(b, "&lt;"); break;
        case '>': sb_puts(b, "&gt;"); break;
        case '"': sb_puts(b, "&quot;"); break;
        default: sb_putc(b, *s);
        }
    }
}

/* The render's nodes: groups, or ops when gr is NULL. */
typedef struct Units {
    const Graph *g;
    const Grouping *gr;
    int n;
    int *device;      /* per unit */
    uint8_t *crit;    /* per unit: on the critical path */
    int *crit_pair;   /* (from, to) unit pairs consecutive on the critical path */
    int n_crit_pair;
    double crit_cost; /* compute on the critical path (simulated op times) */
    int n_crit_ops;
    uint8_t *hidden;  /* per group edge: left out of the drawing */
    int n_hidden;
    int *depth;       /* per unit: longest path (in edges) from a source */
    int n_bands, per; /* columns of the folded drawing, levels per column */
} Units;

static int unit_of(const Units *u, int op) { return u->gr ? u->gr->op_group[op] : op; }

static int pair_cmp(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

static int crit_edge(const Units *u, int a, int b)
{
    int key[2] = {a, b};
    return bsearch(key, u->crit_pair, (size_t)u->n_crit_pair, 2 * sizeof(int), pair_cmp) != NULL;
}

static void hide_implied(Units *u);
static void fold(Units *u);

static void units_init(Units *u, const Graph *g, const Grouping *gr, const Cluster *c, const int *op_device,
                       const SimResult *r)
{
    memset(u, 0, sizeof *u);
    u->g = g;
    u->gr = gr;
    u->n = gr ? gr->n_groups : g->n_nodes;
    u->device = XMALLOC(int, u->n);
    for (int k = 0; k < u->n; k++)
        u->device[k] = op_device[gr ? gr->members[gr->member_off[k]] : k];
    u->crit = XNEW(uint8_t, u->n);
    int *path = XMALLOC(int, g->n_nodes), len = 0;
    sim_critical_path(g, c, r, path, &len, NULL, NULL);
    u->crit_pair = XMALLOC(int, 2 * (len > 0 ? len : 1));
    for (int i = 0; i < len; i++) {
        int a = unit_of(u, path[i]);
        u->crit[a] = 1;
        u->crit_cost += r->end_us[path[i]] - r->start_us[path[i]];
        if (i + 1 < len && unit_of(u, path[i + 1]) != a) {
            u->crit_pair[2 * u->n_crit_pair] = a;
            u->crit_pair[2 * u->n_crit_pair + 1] = unit_of(u, path[i + 1]);
            u->n_crit_pair++;
        }
    }
    u->n_crit_ops = len;
    qsort(u->crit_pair, (size_t)u->n_crit_pair, 2 * sizeof(int), pair_cmp);
    free(path);
    if (gr)
        hide_implied(u);
    fold(u);
}

/* Group level: an edge a -> b that is not on the critical path and is
 * implied by a longer path a -> c -> ... -> b is left out of the drawing;
 * every dependency stays visible as a path, and the training step's long
 * edges from forward to backward ops (which make dot slow and the picture
 * wide) go. The title counts them. Groups are numbered in a topological
 * order. */
static void hide_implied(Units *u)
{
    const Grouping *gr = u->gr;
    int n = gr->n_groups;
    size_t words = ((size_t)n + 63) / 64;
    uint64_t *reach = XNEW(uint64_t, xmul((size_t)n, words)); /* reach[a]: groups below a, a excluded */
    u->hidden = XNEW(uint8_t, gr->n_edges > 0 ? gr->n_edges : 1);
    for (int a = n - 1; a >= 0; a--) {
        uint64_t *ra = reach + (size_t)a * words;
        for (int j = gr->succ_off[a]; j < gr->succ_off[a + 1]; j++) {
            int b = gr->succ[j];
            const uint64_t *rb = reach + (size_t)b * words;
            for (size_t w = 0; w < words; w++)
                ra[w] |= rb[w];
        }
        for (int j = gr->succ_off[a]; j < gr->succ_off[a + 1]; j++) {
            int b = gr->succ[j];
            if (!crit_edge(u, a, b) && (ra[b / 64] >> (b % 64) & 1)) {
                u->hidden[j] = 1;
                u->n_hidden++;
            }
        }
        for (int j = gr->succ_off[a]; j < gr->succ_off[a + 1]; j++)
            ra[gr->succ[j] / 64] |= (uint64_t)1 << (gr->succ[j] % 64);
    }
    free(reach);
}

/* A long chain (a training step is forward then backward) would make a
 * picture many times taller than wide: past FOLD_MIN levels the drawing is
 * cut into columns of consecutive levels (by depth), side by side, about
 * sqrt(levels / 8) of them, so that the picture comes out roughly landscape. */
#define FOLD_MIN 32
static void fold(Units *u)
{
    const Graph *g = u->g;
    const Grouping *gr = u->gr;
    int n = u->n;
    int *indeg = XNEW(int, n), *queue = XMALLOC(int, n), head = 0, tail = 0, deepest = 0;
    u->depth = XNEW(int, n);
    for (int a = 0; a < n; a++) {
        int lo = gr ? gr->succ_off[a] : 0, hi = gr ? gr->succ_off[a + 1] : g->nodes[a].n_children;
        for (int j = lo; j < hi; j++)
            indeg[gr ? gr->succ[j] : g->nodes[a].children[j]]++;
    }
    uint8_t *src = XNEW(uint8_t, n);
    for (int a = 0; a < n; a++)
        if (indeg[a] == 0) {
            queue[tail++] = a;
            src[a] = 1;
        }
    while (head < tail) {
        int a = queue[head++];
        deepest = u->depth[a] > deepest ? u->depth[a] : deepest;
        int lo = gr ? gr->succ_off[a] : 0, hi = gr ? gr->succ_off[a + 1] : g->nodes[a].n_children;
        for (int j = lo; j < hi; j++) {
            int b = gr ? gr->succ[j] : g->nodes[a].children[j];
            if (u->depth[a] + 1 > u->depth[b])
                u->depth[b] = u->depth[a] + 1;
            if (--indeg[b] == 0)
                queue[tail++] = b;
        }
    }
    /* a source (an input, a parameter) sits just above its first consumer,
     * not in one long first row */
    for (int a = 0; a < n; a++) {
        int lo = gr ? gr->succ_off[a] : 0, hi = gr ? gr->succ_off[a + 1] : g->nodes[a].n_children, first = -1;
        if (!src[a] || lo == hi)
            continue;
        for (int j = lo; j < hi; j++) {
            int b = gr ? gr->succ[j] : g->nodes[a].children[j];
            first = first < 0 || u->depth[b] < first ? u->depth[b] : first;
        }
        u->depth[a] = first - 1;
    }
    int levels = deepest + 1, nb = 1;
    if (levels > FOLD_MIN) {
        nb = (int)(sqrt(levels / 8.0) + 0.5);
        nb = nb < 2 ? 2 : nb;
    }
    u->per = (levels + nb - 1) / nb;
    u->n_bands = (levels + u->per - 1) / u->per;
    free(indeg);
    free(queue);
    free(src);
}

static int band_of(const Units *u, int k) { return u->depth[k] / u->per; }

static void units_free(Units *u)
{
    free(u->depth);
    free(u->hidden);
    free(u->device);
    free(u->crit);
    free(u->crit_pair);
}

/* The op kind with the largest summed cost among a group's ops (ties: the
 * most ops, then the first seen); *top receives its costliest op. An op
 * without a kind counts under its own name. */
static const char *dominant_kind(const Graph *g, const Grouping *gr, int k, int *top)
{
    int lo = gr->member_off[k], hi = gr->member_off[k + 1], m = hi - lo;
    const char **kind = XMALLOC(const char *, m);
    double *cost = XNEW(double, m);
    int *count = XNEW(int, m), nk = 0, best = 0;
    *top = gr->members[lo];
    for (int j = lo; j < hi; j++) {
        const GraphNode *nd = &g->nodes[gr->members[j]];
        const char *kd = nd->op[0] ? nd->op : nd->name;
        int i = 0;
        while (i < nk && strcmp(kind[i], kd) != 0)
            i++;
        if (i == nk)
            kind[nk++] = kd;
        cost[i] += nd->cost_us;
        count[i]++;
        if (nd->cost_us > g->nodes[*top].cost_us)
            *top = gr->members[j];
    }
    for (int i = 1; i < nk; i++)
        if (cost[i] > cost[best] || (cost[i] == cost[best] && count[i] > count[best]))
            best = i;
    const char *out = kind[best];
    free(kind);
    free(cost);
    free(count);
    return out;
}

/* Where a group sits: its costliest op's layer tag, else the group's name
 * without a trailing ".weight"/".bias"/"/..." part, cut to WHERE_MAX bytes
 * from the left (the end of a dotted path is the specific part). */
static void group_where(char *buf, size_t n, const Graph *g, const Grouping *gr, int k, int top)
{
    const char *s = g->nodes[top].layer ? g->nodes[top].layer : gr->names[k];
    size_t len = strcspn(s, "/");
    static const char *const tails[] = {".weight", ".bias", ".running_mean", ".running_var"};
    for (size_t t = 0; t < 4; t++) {
        size_t tl = strlen(tails[t]);
        if (len > tl && strncmp(s + len - tl, tails[t], tl) == 0)
            len -= tl;
    }
    if (len > WHERE_MAX) {
        s += len - (WHERE_MAX - 3);
        len = WHERE_MAX - 3;
        /* do not start inside a UTF-8 sequence */
        while (len > 0 && ((unsigned char)*s & 0xC0) == 0x80) {
            s++;
            len--;
        }
        snprintf(buf, n, "...%.*s", (int)len, s);
    } else {
        snprintf(buf, n, "%.*s", (int)len, s);
    }
}

/* Title, summary and the device legend as an HTML-like graph label. */
static void graph_label(Agraph_t *root, const Units *u, const Cluster *c, const SimResult *r)
{
    StrBuf b = {0};
    char t1[32], t2[32];
    int nd = c->n_devices, per_row = nd < 4 ? nd : 4;
    int *units_on = XNEW(int, nd);
    for (int k = 0; k < u->n; k++)
        units_on[u->device[k]]++;
    const char *what = u->gr ? "groups" : "ops";
    sb_puts(&b, "<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"3\" CELLPADDING=\"2\">");
    sb_printf(&b, "<TR><TD ALIGN=\"LEFT\" COLSPAN=\"%d\"><FONT POINT-SIZE=\"20\"><B>", 2 * per_row);
    sb_html(&b, u->g->name);
    sb_puts(&b, "</B></FONT></TD></TR>");
    sb_printf(&b, "<TR><TD ALIGN=\"LEFT\" COLSPAN=\"%d\"><FONT POINT-SIZE=\"14\">", 2 * per_row);
    sb_html(&b, c->name);
    sb_printf(&b, " · makespan <B>%s</B> · %d %s of %d ops</FONT></TD></TR>", util_fmt_time(t1, r->makespan_us),
              u->n, what, u->g->n_nodes);
    sb_printf(&b,
              "<TR><TD ALIGN=\"LEFT\" COLSPAN=\"%d\"><FONT POINT-SIZE=\"12\"><FONT COLOR=\"" CRIT_COLOUR
              "\"><B>red</B></FONT>: the critical path (%d ops, %s of compute); dashed: "
              "cross-device edges with their bytes",
              2 * per_row, u->n_crit_ops, util_fmt_time(t2, u->crit_cost));
    if (u->n_hidden)
        sb_printf(&b, "; %d edge%s implied by longer paths not drawn", u->n_hidden, u->n_hidden == 1 ? "" : "s");
    sb_puts(&b, "</FONT></TD></TR>");
    for (int d = 0; d < nd; d++) {
        if (d % per_row == 0)
            sb_puts(&b, "<TR>");
        sb_printf(&b, "<TD BGCOLOR=\"%s\" BORDER=\"1\" ALIGN=\"CENTER\"><FONT POINT-SIZE=\"12\"> ",
                  device_colour[d % N_COLOURS]);
        sb_html(&b, c->devices[d].name);
        sb_printf(&b, " </FONT></TD><TD ALIGN=\"LEFT\"><FONT POINT-SIZE=\"12\">%d %.*s, busy %s  </FONT></TD>",
                  units_on[d], (int)strlen(what) - (units_on[d] == 1), what, util_fmt_time(t1, r->busy_us[d]));
        if (d % per_row == per_row - 1 || d == nd - 1)
            sb_puts(&b, "</TR>");
    }
    sb_puts(&b, "</TABLE>");
    Agsym_t *sym = agattr(root, AGRAPH, (char *)"label", (char *)"");
    char *h = agstrdup_html(root, b.s);
    agxset(root, sym, h);
    agstrfree(root, h);
    sb_free(&b);
    free(units_on);
}

static Agraph_t *build(const Graph *g, const Grouping *gr, const Cluster *c, const SimResult *r, const Units *u)
{
    Agraph_t *root = agopen((char *)"placement", Agstrictdirected, dot_seq_disc());
    char buf[1024], b1[32], b2[32], where[WHERE_MAX + 8];
    set(root, "name", g->name);
    graph_label(root, u, c, r);
    set(root, "labelloc", "t");
    set(root, "labeljust", "l");
    set(root, "rankdir", "TB");
    set(root, "nodesep", "0.12");
    set(root, "ranksep", "0.3");
    set(root, "splines", "true");
    set(root, "outputorder", "edgesfirst");
    set(root, "forcelabels", "true");
    set(root, "nslimit", "1"); /* bounds dot's x placement on big renders */
    set(root, "fontname", "Helvetica");
    set(root, "pad", "0.3");
    agattr(root, AGNODE, (char *)"shape", (char *)"box");
    agattr(root, AGNODE, (char *)"style", (char *)"filled,rounded");
    agattr(root, AGNODE, (char *)"fontname", (char *)"Helvetica");
    agattr(root, AGNODE, (char *)"fontsize", (char *)"10");
    agattr(root, AGNODE, (char *)"margin", (char *)"0.06,0.03");
    agattr(root, AGNODE, (char *)"height", (char *)"0.3");
    agattr(root, AGNODE, (char *)"penwidth", (char *)"0.6");
    agattr(root, AGEDGE, (char *)"fontname", (char *)"Helvetica");
    agattr(root, AGEDGE, (char *)"fontsize", (char *)"9");
    agattr(root, AGEDGE, (char *)"arrowsize", (char *)"0.5");
    agattr(root, AGEDGE, (char *)"color", (char *)LOCAL_COLOUR);
    Agnode_t **node = XMALLOC(Agnode_t *, u->n);
    /* the nodes in a plain (not cluster) subgraph: written before the edges,
     * so a read back lists them in the graph's order */
    Agraph_t *nodes = agsubg(root, (char *)"nodes", 1);
    for (int k = 0; k < u->n; k++) {
        int d = u->device[k];
        const char *name = gr ? gr->names[k] : g->nodes[k].name;
        double cost = gr ? gr->cost_us[k] : g->nodes[k].cost_us;
        char nbuf[512], *owned;
        node[k] = agnode(nodes, dot_string(name, nbuf, sizeof nbuf, &owned), 1);
        free(owned);
        set(node[k], "fillcolor", device_colour[d % N_COLOURS]);
        set(node[k], "device", c->devices[d].name);
        set(node[k], "cost_us", util_fmt_double(b2, cost));
        if (gr) {
            int top, ops = gr->member_off[k + 1] - gr->member_off[k];
            const char *kind = dominant_kind(g, gr, k, &top);
            group_where(where, sizeof where, g, gr, k, top);
            snprintf(buf, sizeof buf, "%s (%d op%s)" LB "%s · %s", kind, ops, ops == 1 ? "" : "s", where,
                     util_fmt_time(b1, cost));
            set(node[k], "label", buf);
            set(node[k], "op", kind);
            set_int(node[k], "output_bytes", (long long)gr->bytes[k]);
            set_int(node[k], "ops", ops);
            if (strcmp(name, g->nodes[top].name) != 0) {
                snprintf(buf, sizeof buf, "%s (costliest op %s)", name, g->nodes[top].name);
                set(node[k], "tooltip", buf);
            }
        } else {
            const GraphNode *nd = &g->nodes[k];
            if (nd->op[0])
                snprintf(buf, sizeof buf, "%s" LB "%s · %s", name, nd->op, util_fmt_time(b1, cost));
            else
                snprintf(buf, sizeof buf, "%s" LB "%s", name, util_fmt_time(b1, cost));
            set(node[k], "label", buf);
            size_t len = 0;
            buf[len++] = '[';
            for (int o = 0; o < nd->n_outputs && len + 24 < sizeof buf; o++)
                len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%lld", o ? "," : "",
                                        (long long)nd->output_bytes[o]);
            buf[len++] = ']';
            buf[len] = '\0';
            set(node[k], "output_bytes", buf);
            if (nd->op[0])
                set(node[k], "op", nd->op);
            if (nd->colocate)
                set(node[k], "colocate", nd->colocate);
            if (nd->layer)
                set(node[k], "layer", nd->layer);
        }
        if (u->crit[k]) {
            set(node[k], "color", CRIT_COLOUR);
            set(node[k], "penwidth", "2.5");
            set(node[k], "critical", "1");
        }
    }
    if (u->n_bands > 1) { /* the columns: clusters without a frame, levels aligned across them */
        char name[48];
        set(root, "newrank", "true");
        for (int b = 0; b < u->n_bands; b++) {
            snprintf(name, sizeof name, "cluster_column%d", b);
            Agraph_t *col = agsubg(root, name, 1);
            set(col, "label", "");
            set(col, "peripheries", "0");
            for (int k = 0; k < u->n; k++)
                if (band_of(u, k) == b)
                    agsubnode(col, node[k], 1);
        }
        for (int i = 0; i < u->per; i++) {
            snprintf(name, sizeof name, "level%d", i);
            Agraph_t *lv = agsubg(root, name, 1);
            set(lv, "rank", "same");
            for (int k = 0; k < u->n; k++)
                if (u->depth[k] % u->per == i)
                    agsubnode(lv, node[k], 1);
        }
    }
    int n_edges = gr ? gr->n_edges : g->n_edges;
    for (int j = 0, a = 0; j < n_edges; j++) {
        int b;
        int64_t bytes;
        if (gr) {
            while (gr->succ_off[a + 1] <= j)
                a++;
            b = gr->succ[j];
            bytes = gr->succ_bytes[j];
            if (u->hidden[j])
                continue;
        } else {
            const GraphEdge *ge = &g->edges[j];
            a = ge->src;
            b = ge->dst;
            bytes = graph_edge_bytes(g, ge->src, ge->output);
        }
        Agedge_t *ed = agedge(root, node[a], node[b], NULL, 1);
        set_int(ed, "bytes", (long long)bytes);
        if (!gr)
            set_int(ed, "output", g->edges[j].output);
        if (band_of(u, a) != band_of(u, b))
            set(ed, "constraint", "false"); /* from one column to a later one */
        if (u->device[a] != u->device[b]) {
            set(ed, "style", "dashed");
            /* an xlabel, placed after the layout: a label would be a node of
             * its own and double the ranks (and dot's time) */
            set(ed, "xlabel", util_fmt_bytes(b1, (double)bytes));
            set(ed, "color", CROSS_COLOUR);
            set(ed, "penwidth", "1.2");
        }
        if (crit_edge(u, a, b)) {
            set(ed, "color", CRIT_COLOUR);
            set(ed, "penwidth", "2.5");
            set(ed, "arrowsize", "0.7");
            set(ed, "critical", "1");
            set(ed, "weight", "8"); /* keep the critical chain straight */
        }
    }
    free(node);
    return root;
}

/* Graphviz reports through a global callback (as in graph_dot.c): messages
 * are collected, never printed (they would break a curses screen). */
static char gv_errbuf[512];

static int gv_collect(char *msg)
{
    size_t n = strlen(gv_errbuf);
    snprintf(gv_errbuf + n, sizeof gv_errbuf - n, "%s", msg);
    return 0;
}

/* The message without "Error: "/"Warning: " and the trailing newline. */
static const char *gv_message(void)
{
    size_t n = strlen(gv_errbuf);
    while (n > 0 && (gv_errbuf[n - 1] == '\n' || gv_errbuf[n - 1] == ' '))
        gv_errbuf[--n] = '\0';
    const char *s = gv_errbuf;
    if (strncmp(s, "Error: ", 7) == 0)
        s += 7;
    return s[0] ? s : "no detail";
}

static int write_dot(const char *path, Agraph_t *root, Err *e)
{
    AtomicFile af;
    if (util_atomic_open(&af, path, e) != 0)
        return -1;
    errno = 0;
    if (agwrite(root, af.f) != 0 || fflush(af.f) != 0) {
        err_set(e, "%s: cannot write the DOT file: %s", path, errno ? strerror(errno) : "write error");
        util_atomic_abort(&af);
        return -1;
    }
    return util_atomic_commit(&af, e);
}

/* Lays root out once with dot and draws it in each wanted format. Each
 * drawing is made in memory (gvRenderData) and then written like every other
 * file: Graphviz's own file writer ends the process on a write error (a full
 * disk, a file-size limit) with no word and a temporary file left behind.
 * The files are opened first, so that a path that cannot be written fails
 * before any layout work. */
static int render(const ExportDot *o, Agraph_t *root, Err *e)
{
    const char *path[2] = {o->svg, o->png}, *format[2] = {"svg", "png"};
    AtomicFile af[2];
    int open_[2] = {0, 0}, rc = 0;
    memset(af, 0, sizeof af);
    for (int k = 0; k < 2 && rc == 0; k++)
        if (path[k]) {
            rc = util_atomic_open(&af[k], path[k], e);
            open_[k] = rc == 0;
        }
    if (rc != 0 || (!o->svg && !o->png)) {
        for (int k = 0; k < 2; k++)
            if (open_[k])
                util_atomic_abort(&af[k]);
        return rc;
    }
    const char *first = o->svg ? o->svg : o->png;
    gv_errbuf[0] = '\0';
    agusererrf prev = agseterrf(gv_collect);
    agerrlevel_t level = agseterr(AGERR);
    GVC_t *gvc = gvContext();
    if (!gvc) {
        err_set(e, "%s: cannot start Graphviz (gvc)", first);
        rc = -1;
    } else if (gvLayout(gvc, root, "dot") != 0) {
        err_set(e, "%s: Graphviz could not lay the graph out: %s", first, gv_message());
        rc = -1;
    } else {
        for (int k = 0; k < 2 && rc == 0; k++) {
            if (!path[k])
                continue;
            gv_errbuf[0] = '\0';
            char *data = NULL;
            unsigned int len = 0;
            if (gvRenderData(gvc, root, format[k], &data, &len) != 0 || !data) {
                err_set(e, "%s: Graphviz cannot render %s: %s", path[k], format[k], gv_message());
                rc = -1;
            } else if (len && fwrite(data, 1, len, af[k].f) != len) {
                err_set(e, "%s: write failed: %s", path[k], strerror(errno));
                rc = -1;
            } else {
                open_[k] = 0;
                rc = util_atomic_commit(&af[k], e);
            }
            if (data)
                gvFreeRenderData(data);
        }
        gvFreeLayout(gvc, root);
    }
    for (int k = 0; k < 2; k++)
        if (open_[k])
            util_atomic_abort(&af[k]);
    if (gvc)
        gvFreeContext(gvc);
    agseterr(level);
    agseterrf(prev);
    return rc;
}

int export_dot_files(const ExportDot *o, const Graph *g, const Grouping *gr, const Cluster *c, const int *op_device,
                     const SimResult *r, Err *e)
{
    Sim *sim = NULL;
    if (!r) {
        sim = sim_new(g, c);
        r = sim_run(sim, op_device);
    }
    if (o->ops)
        gr = NULL;
    Units u;
    units_init(&u, g, gr, c, op_device, r);
    Agraph_t *root = build(g, gr, c, r, &u);
    int rc = 0;
    if (o->dot)
        rc = write_dot(o->dot, root, e);
    if (rc == 0)
        rc = render(o, root, e);
    agclose(root);
    units_free(&u);
    sim_free(sim);
    return rc;
}

int export_dot(const char *path, const Graph *g, const Grouping *gr, const Cluster *c, const int *op_device, Err *e)
{
    ExportDot o = {path, NULL, NULL, gr == NULL};
    return export_dot_files(&o, g, gr, c, op_device, NULL, e);
}
