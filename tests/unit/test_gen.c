/* Tests of the random graph generators (core/gen.c): determinism and shape. */
#include <stdint.h>
#include <stdlib.h>
#include "gen.h"
#include "graph.h"
#include "group.h"
#include "test.h"

/* ---- the generators themselves ---- */

static char *print_graph(const Graph *g)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    graph_print_json(g, f);
    fclose(f);
    return buf;
}

TEST(gen_graphs_deterministic_and_well_formed)
{
    for (int n = 1; n <= 2000; n = n * 3 + 1) {
        for (int kind = 0; kind < 2; kind++) {
            Graph *a = kind ? gen_layered_training_graph(n, 9) : gen_random_dag(n, 2.0, 9);
            Graph *b = kind ? gen_layered_training_graph(n, 9) : gen_random_dag(n, 2.0, 9);
            Graph *other = kind ? gen_layered_training_graph(n, 10) : gen_random_dag(n, 2.0, 10);
            char *ta = print_graph(a), *tb = print_graph(b), *tc = print_graph(other);
            CHECK_MSG(strcmp(ta, tb) == 0, "%s: two runs differ", a->name);
            CHECK_MSG(n < 4 || strcmp(ta, tc) != 0, "%s: seeds 9 and 10 give the same graph", a->name);
            char want[64];
            snprintf(want, sizeof want, kind ? "layered_training_%d_s9" : "random_dag_%d_s9", n);
            CHECK_MSG(strcmp(a->name, want) == 0, "name %s, expected %s", a->name, want);
            CHECK_INT(a->n_nodes, n);
            for (int k = 0; k < a->n_edges; k++)
                CHECK_MSG(a->edges[k].src < a->edges[k].dst, "%s: edge %d goes backwards", a->name, k);
            for (int i = 0; i < a->n_nodes; i++)
                CHECK_MSG(a->topo[i] == i, "%s: node order is not topological", a->name);
            free(ta);
            free(tb);
            free(tc);
            graph_free(a);
            graph_free(b);
            graph_free(other);
        }
    }
}

TEST(gen_random_dag_shape)
{
    Graph *g = gen_random_dag(20000, 2.0, 3);
    int zero = 0, two = 0, past = 0, local = 0, out1 = 0, roots = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const GraphNode *u = &g->nodes[i];
        char name[16];
        snprintf(name, sizeof name, "op%d", i);
        CHECK(strcmp(u->name, name) == 0);
        zero += u->cost_us == 0;
        CHECK(u->cost_us == 0 || (u->cost_us >= 1 && u->cost_us < 1000));
        two += u->n_outputs == 2;
        for (int k = 0; k < u->n_outputs; k++)
            CHECK(u->output_bytes[k] >= 1024 && u->output_bytes[k] < 4 * 1024 * 1024);
        roots += u->n_parents == 0;
    }
    for (int k = 0; k < g->n_edges; k++) {
        const GraphEdge *e = &g->edges[k];
        past += e->output >= g->nodes[e->src].n_outputs;
        out1 += e->output == 1 && g->nodes[e->src].n_outputs == 2;
        local += e->dst - e->src <= 4;
    }
    /* about 5% zero-cost, 10% two outputs, 1% control edges, mostly local */
    CHECK_MSG(zero > 700 && zero < 1300, "%d zero-cost ops", zero);
    CHECK_MSG(two > 1600 && two < 2400, "%d ops with two outputs", two);
    CHECK_MSG(past > 200 && past < 600, "%d control edges", past);
    CHECK_MSG(out1 > 500, "%d edges carry output 1", out1);
    CHECK_MSG(local > g->n_edges * 3 / 4 && local < g->n_edges, "%d of %d edges local", local, g->n_edges);
    CHECK_MSG(g->n_edges > 32000 && g->n_edges <= 40000, "%d edges for degree 2", g->n_edges);
    CHECK_MSG(roots < 1000, "%d roots", roots);
    graph_free(g);
}

