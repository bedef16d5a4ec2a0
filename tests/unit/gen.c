/* gen: see gen.h. Only integer draws and the four basic floating-point
 * operations are used (no libm), so graphs are identical on every platform. */
#include "gen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static Graph *finish_or_die(Graph *g)
{
    Err e = {{0}};
    if (graph_finish(g, &e) != 0) /* edges only go forward: cannot happen */
        util_die("gen: %s", e.msg);
    return g;
}

/* Roughly log-uniform in [base, base << octaves): base << k, k < octaves,
 * times a uniform factor in [1, 2). */
static int64_t draw_bytes(Rng *r, int64_t base, int octaves)
{
    int64_t p = base << rng_below(r, (uint64_t)octaves);
    return (int64_t)((double)p * (1.0 + rng_uniform(r)));
}

/* The output index an edge from node src carries. */
static int draw_output(Rng *r, const GraphNode *src)
{
    if (rng_uniform(r) < 0.01)
        return src->n_outputs; /* a control edge: past the array, 0 bytes */
    if (src->n_outputs > 1 && rng_uniform(r) < 0.5)
        return 1;
    return 0;
}

static int imin(int a, int b) { return a < b ? a : b; }

Graph *gen_random_dag(int n_ops, double avg_out_degree, uint64_t seed)
{
    static const char *kinds[] = {"convolution", "matmul", "relu", "add", "concat", "pool", "batchnorm", "softmax"};
    char buf[96];
    snprintf(buf, sizeof buf, "random_dag_%d_s%llu", n_ops, (unsigned long long)seed);
    Graph *g = graph_new(buf);
    free(g->source);
    g->source = xstrdup("gen_random_dag (core/gen.c)");
    Rng r;
    rng_seed(&r, seed);
    for (int i = 0; i < n_ops; i++) {
        double cost = rng_uniform(&r) < 0.05 ? 0.0 : 1.0 + 999.0 * rng_uniform(&r);
        int64_t bytes[2];
        int n_out = rng_uniform(&r) < 0.1 ? 2 : 1;
        for (int k = 0; k < n_out; k++)
            bytes[k] = draw_bytes(&r, 1024, 12);
        snprintf(buf, sizeof buf, "op%d", i);
        graph_add_node(g, buf, kinds[rng_below(&r, sizeof kinds / sizeof *kinds)], cost, bytes, n_out);
    }
    if (n_ops < 2)
        return finish_or_die(g);
    if (avg_out_degree < 0)
        avg_out_degree = 0;
    long target = (long)(avg_out_degree * n_ops + 0.5), made = 0;
    /* a backbone: most ops consume one of the few ops just before them */
    double p_backbone = (double)target / (n_ops - 1);
    if (p_backbone > 0.97)
        p_backbone = 0.97;
    for (int j = 1; j < n_ops; j++) {
        if (rng_uniform(&r) >= p_backbone)
            continue;
        int src = j - 1 - (int)rng_below(&r, (uint64_t)imin(j, 3));
        graph_add_edge(g, src, j, draw_output(&r, &g->nodes[src]));
        made++;
    }
    /* the rest: mostly local edges, some long skips */
    for (; made < target; made++) {
        int src = (int)rng_below(&r, (uint64_t)(n_ops - 1)), room = n_ops - 1 - src;
        int dst = rng_uniform(&r) < 0.85 ? src + 1 + (int)rng_below(&r, (uint64_t)imin(room, 4))
                                         : src + 1 + (int)rng_below(&r, (uint64_t)room);
        graph_add_edge(g, src, dst, draw_output(&r, &g->nodes[src]));
    }
    return finish_or_die(g);
}

/* ---- training-step graphs ---- */

typedef struct Spec {
    char *name;
    const char *op;
    double cost;
    int64_t bytes[2];
    int n_out;
    char *coloc;
} Spec;

typedef struct Builder {
    Spec *nodes;
    size_t ncap;
    int nn;
    GraphEdge *edges;
    size_t ecap;
    int ne;
    Rng r;
} Builder;

static int b_node(Builder *b, const char *op, double cost, int64_t bytes, const char *coloc,
                  const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

static int b_node(Builder *b, const char *op, double cost, int64_t bytes, const char *coloc,
                  const char *fmt, ...)
{
    xgrow((void **)&b->nodes, &b->ncap, (size_t)b->nn + 1, sizeof *b->nodes);
    char name[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    Spec *s = &b->nodes[b->nn];
    s->name = xstrdup(name);
    s->op = op;
    s->cost = cost;
    s->bytes[0] = bytes;
    s->bytes[1] = 0;
    s->n_out = 1;
    s->coloc = coloc ? xstrdup(coloc) : NULL;
    return b->nn++;
}

static void b_edge(Builder *b, int src, int dst, int output)
{
    xgrow((void **)&b->edges, &b->ecap, (size_t)b->ne + 1, sizeof *b->edges);
    b->edges[b->ne++] = (GraphEdge){src, dst, output};
}

/* Cost in [lo, lo + span). */
static double draw_cost(Rng *r, double lo, double span) { return lo + span * rng_uniform(r); }

typedef struct Layer {
    int branch;          /* 0: matmul + relu; 1: conv_a, conv_b, add */
    int x_in;            /* the layer's input */
    int w[2];            /* parameter variables */
    int f[2];            /* matmul or conv_a, conv_b */
    int out;             /* relu or add */
    double fcost[2];
    int64_t act_bytes;
} Layer;

static void forward(Builder *b, Layer *L, int k, int x)
{
    Rng *r = &b->r;
    char key[64];
    L->x_in = x;
    L->act_bytes = draw_bytes(r, 65536, 7);
    int nw = L->branch ? 2 : 1;
    static const char *wname[2] = {"a.", "b."};
    for (int j = 0; j < nw; j++) {
        snprintf(key, sizeof key, "L%d.%sweight", k, L->branch ? wname[j] : "");
        L->w[j] = b_node(b, "variable", 0.0, draw_bytes(r, 4096, 10), key, "%s", key);
    }
    if (!L->branch) {
        L->fcost[0] = draw_cost(r, 20, 2000);
        L->f[0] = b_node(b, "matmul", L->fcost[0], L->act_bytes, NULL, "L%d/%s", k, "matmul");
        b_edge(b, x, L->f[0], 0);
        b_edge(b, L->w[0], L->f[0], 0);
        L->out = b_node(b, "relu", draw_cost(r, 5, 45), L->act_bytes, NULL, "L%d/%s", k, "relu");
        b_edge(b, L->f[0], L->out, 0);
        return;
    }
    static const char *fname[2] = {"conv_a", "conv_b"};
    for (int j = 0; j < 2; j++) {
        L->fcost[j] = draw_cost(r, 50, 3000);
        L->f[j] = b_node(b, "convolution", L->fcost[j], L->act_bytes, NULL, "L%d/%s", k, fname[j]);
        b_edge(b, x, L->f[j], 0);
        b_edge(b, L->w[j], L->f[j], 0);
    }
    /* conv_a also saves statistics that its gradient reads (output 1) */
    Spec *ca = &b->nodes[L->f[0]];
    ca->bytes[1] = 256;
    ca->n_out = 2;
    L->out = b_node(b, "add", draw_cost(r, 5, 45), L->act_bytes, NULL, "L%d/%s", k, "add");
    b_edge(b, L->f[0], L->out, 0);
    b_edge(b, L->f[1], L->out, 0);
}

/* Emits the gradient and update ops of one parameter; returns the op giving
 * the gradient with respect to the layer input. The variable, the weight
 * gradient, the momentum buffer and the update share the parameter's name as
 * colocation key (grouping holds the variable in that group without letting
 * its edges order groups, see group.h). */
static int backward_param(Builder *b, const Layer *L, int k, int j, int dy, const char *fname)
{
    Rng *r = &b->r;
    const char *key = b->nodes[L->w[j]].name;
    char what[64];
    snprintf(what, sizeof what, "%s/grad_input", fname);
    int gi = b_node(b, L->branch ? "conv_grad_input" : "matmul_grad_input",
                    L->fcost[j] * draw_cost(r, 0.8, 0.4), L->act_bytes, NULL, "L%d/%s", k, what);
    b_edge(b, dy, gi, 0);
    b_edge(b, L->w[j], gi, 0);
    if (L->branch && j == 0)
        b_edge(b, L->f[0], gi, 1); /* the saved statistics */
    snprintf(what, sizeof what, "%s/grad_weight", fname);
    int64_t wbytes = b->nodes[L->w[j]].bytes[0];
    int gw = b_node(b, L->branch ? "conv_grad_weight" : "matmul_grad_weight",
                    L->fcost[j] * draw_cost(r, 0.8, 0.4), wbytes, key, "L%d/%s", k, what);
    b_edge(b, dy, gw, 0);
    b_edge(b, L->x_in, gw, 0);
    int mom = b_node(b, "variable", 0.0, wbytes, key, "%s/momentum", key);
    int up = b_node(b, "apply_momentum", draw_cost(r, 5, 50), 0, key, "%s/update", key);
    b_edge(b, L->w[j], up, 0);
    b_edge(b, mom, up, 0);
    b_edge(b, gw, up, 0);
    b_edge(b, gi, up, 1); /* control edge: the update waits for the last reader */
    return gi;
}

static int backward(Builder *b, const Layer *L, int k, int dy)
{
    Rng *r = &b->r;
    if (!L->branch) {
        int ag = b_node(b, "relu_grad", draw_cost(r, 5, 45), L->act_bytes, NULL, "L%d/%s", k, "relu/grad_input");
        b_edge(b, dy, ag, 0);
        b_edge(b, L->out, ag, 0);
        return backward_param(b, L, k, 0, ag, "matmul");
    }
    int sg = b_node(b, "add_grad", draw_cost(r, 5, 45), L->act_bytes, NULL, "L%d/%s", k, "add/grad_input");
    b_edge(b, dy, sg, 0);
    int ga = backward_param(b, L, k, 0, sg, "conv_a");
    int gb = backward_param(b, L, k, 1, sg, "conv_b");
    int gs = b_node(b, "add_n", draw_cost(r, 5, 45), L->act_bytes, NULL, "L%d/%s", k, "grad_sum");
    b_edge(b, ga, gs, 0);
    b_edge(b, gb, gs, 0);
    return gs;
}

Graph *gen_layered_training_graph(int n_ops, uint64_t seed)
{
    Builder b;
    memset(&b, 0, sizeof b);
    rng_seed(&b.r, seed);
    /* plan: 3 fixed ops (data, labels, loss); plain layers take 8 ops
     * (weight, matmul, relu, relu grad, input grad, weight grad, momentum,
     * update), branch blocks 15; what is left becomes metric ops */
    int rem = n_ops - 3, n_layers = 0;
    Layer *layers = XNEW(Layer, n_ops / 8 + 1);
    while (rem >= 8) {
        int branch = rem >= 15 && rng_uniform(&b.r) < 0.3;
        layers[n_layers++].branch = branch;
        rem -= branch ? 15 : 8;
    }
    int x = b_node(&b, "input", 0.0, draw_bytes(&b.r, 1 << 20, 4), NULL, "data");
    int labels = b_node(&b, "input", 0.0, 4096, NULL, "labels");
    for (int k = 0; k < n_layers; k++) {
        forward(&b, &layers[k], k, x);
        x = layers[k].out;
    }
    int loss = b_node(&b, "softmax_cross_entropy", draw_cost(&b.r, 10, 40), 4, NULL, "loss");
    b_edge(&b, x, loss, 0);
    b_edge(&b, labels, loss, 0);
    int dy = loss;
    for (int k = n_layers - 1; k >= 0; k--)
        dy = backward(&b, &layers[k], k, dy);
    for (int k = 0; rem > 0; k++, rem--) {
        int m = b_node(&b, "summary", draw_cost(&b.r, 1, 9), 4, NULL, "metric.%d", k);
        b_edge(&b, loss, m, 0);
    }
    free(layers);

    char name[96];
    snprintf(name, sizeof name, "layered_training_%d_s%llu", n_ops, (unsigned long long)seed);
    Graph *g = graph_new(name);
    free(g->source);
    g->source = xstrdup("gen_layered_training_graph (core/gen.c)");
    int n = b.nn < n_ops ? b.nn : n_ops; /* n_ops < 3 keeps a prefix */
    for (int i = 0; i < n; i++) {
        Spec *s = &b.nodes[i];
        int idx = graph_add_node(g, s->name, s->op, s->cost, s->bytes, s->n_out);
        if (idx < 0)
            util_die("gen: duplicate op name \"%s\"", s->name);
        if (s->coloc)
            g->nodes[idx].colocate = xstrdup(s->coloc);
    }
    for (int k = 0; k < b.ne; k++)
        if (b.edges[k].src < n && b.edges[k].dst < n)
            graph_add_edge(g, b.edges[k].src, b.edges[k].dst, b.edges[k].output);
    for (int i = 0; i < b.nn; i++) {
        free(b.nodes[i].name);
        free(b.nodes[i].coloc);
    }
    free(b.nodes);
    free(b.edges);
    return finish_or_die(g);
}

Graph *gen_star(int n_ops, int n_hubs, uint64_t seed)
{
    char buf[96];
    snprintf(buf, sizeof buf, "star_%d_h%d_s%llu", n_ops, n_hubs, (unsigned long long)seed);
    Graph *g = graph_new(buf);
    free(g->source);
    g->source = xstrdup("gen_star (tests/unit/gen.c)");
    Rng r;
    rng_seed(&r, seed);
    int64_t bytes = 1024;
    for (int i = 0; i < n_ops; i++) {
        snprintf(buf, sizeof buf, i < n_hubs ? "hub%d" : "leaf%d", i < n_hubs ? i : i - n_hubs);
        graph_add_node(g, buf, i < n_hubs ? "input" : "relu", 1.0 + 9.0 * rng_uniform(&r), &bytes, 1);
    }
    for (int i = n_hubs; i < n_ops; i++)
        graph_add_edge(g, (i - n_hubs) % n_hubs, i, 0);
    return finish_or_die(g);
}
