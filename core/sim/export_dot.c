/* export_dot: see export.h. Built with cgraph so quoting is always right. */
#include <graphviz/cgraph.h>
#include <stdlib.h>
#include <string.h>

#include "dot_ids.h"
#include "export.h"

/* Light fills that stay readable with black text, one per device (cycled). */
static const char *const device_colour[] = {
    "#a6cee3", "#b2df8a", "#fb9a99", "#fdbf6f", "#cab2d6", "#ffff99", "#8dd3c7", "#d9d9d9",
};

static void set(void *obj, const char *name, const char *value)
{
    agsafeset(obj, (char *)name, (char *)value, "");
}

static void fmt_bytes_int(char *buf, size_t n, int64_t b) { snprintf(buf, n, "%lld", (long long)b); }

int export_dot(const char *path, const Graph *g, const Grouping *gr, const Cluster *c,
               const int *op_device, Err *e)
{
    Agraph_t *root = agopen((char *)"placement", Agstrictdirected, dot_seq_disc());
    char buf[1024], b1[32], b2[32];
    set(root, "name", g->name);
    set(root, "label", g->name);
    set(root, "labelloc", "t");
    set(root, "rankdir", "TB");
    /* dot 2.43 fails ("trouble in init_rank", lost edges) on clusters with
     * many edges between them unless ranking ignores the clusters */
    set(root, "newrank", "true");
    set(root, "fontname", "Helvetica");
    agattr(root, AGNODE, (char *)"shape", (char *)"box");
    agattr(root, AGNODE, (char *)"style", (char *)"filled,rounded");
    agattr(root, AGNODE, (char *)"fontname", (char *)"Helvetica");
    agattr(root, AGEDGE, (char *)"fontname", (char *)"Helvetica");
    agattr(root, AGEDGE, (char *)"fontsize", (char *)"9");
    int n = gr ? gr->n_groups : g->n_nodes;
    Agraph_t **sub = XNEW(Agraph_t *, c->n_devices);
    char *used = XNEW(char, c->n_devices);
    for (int k = 0; k < n; k++)
        used[op_device[gr ? gr->members[gr->member_off[k]] : k]] = 1;
    for (int d = 0; d < c->n_devices; d++) { /* devices without work get no box */
        if (!used[d])
            continue;
        snprintf(buf, sizeof buf, "cluster_%d", d);
        sub[d] = agsubg(root, buf, 1);
        set(sub[d], "label", c->devices[d].name);
        set(sub[d], "style", "filled");
        set(sub[d], "color", device_colour[d % 8]);
        set(sub[d], "fillcolor", "#f7f7f7");
    }
    free(used);
    Agnode_t **node = XMALLOC(Agnode_t *, n);
    for (int k = 0; k < n; k++) {
        int d = op_device[gr ? gr->members[gr->member_off[k]] : k];
        const char *name = gr ? gr->names[k] : g->nodes[k].name;
        double cost = gr ? gr->cost_us[k] : g->nodes[k].cost_us;
        node[k] = agnode(sub[d], (char *)name, 1);
        snprintf(buf, sizeof buf, "%s\\n%s", name, util_fmt_time(b1, cost));
        set(node[k], "label", buf);
        set(node[k], "fillcolor", device_colour[d % 8]);
        set(node[k], "device", c->devices[d].name);
        set(node[k], "cost_us", util_fmt_double(b2, cost));
        if (gr) {
            fmt_bytes_int(buf, sizeof buf, gr->bytes[k]);
            set(node[k], "output_bytes", buf);
            snprintf(buf, sizeof buf, "%d", gr->member_off[k + 1] - gr->member_off[k]);
            set(node[k], "ops", buf);
        } else {
            const GraphNode *nd = &g->nodes[k];
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
    }
    if (gr) {
        for (int a = 0; a < gr->n_groups; a++)
            for (int j = gr->succ_off[a]; j < gr->succ_off[a + 1]; j++) {
                Agedge_t *ed = agedge(root, node[a], node[gr->succ[j]], NULL, 1);
                set(ed, "label", util_fmt_bytes(b1, (double)gr->succ_bytes[j]));
                fmt_bytes_int(buf, sizeof buf, gr->succ_bytes[j]);
                set(ed, "bytes", buf);
            }
    } else {
        for (int k = 0; k < g->n_edges; k++) {
            const GraphEdge *ge = &g->edges[k];
            Agedge_t *ed = agedge(root, node[ge->src], node[ge->dst], NULL, 1);
            int64_t bytes = graph_edge_bytes(g, ge->src, ge->output);
            set(ed, "label", util_fmt_bytes(b1, (double)bytes));
            fmt_bytes_int(buf, sizeof buf, bytes);
            set(ed, "bytes", buf);
            snprintf(buf, sizeof buf, "%d", ge->output);
            set(ed, "output", buf);
        }
    }
    int rc = 0;
    AtomicFile af;
    if (util_atomic_open(&af, path, e) != 0) {
        rc = -1;
    } else if (agwrite(root, af.f) != 0) {
        err_set(e, "%s: cannot write the DOT file", path);
        util_atomic_abort(&af);
        rc = -1;
    } else {
        rc = util_atomic_commit(&af, e);
    }
    agclose(root);
    free(node);
    free(sub);
    return rc;
}
