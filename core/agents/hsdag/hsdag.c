/* hsdag: the HSDAG placer's inputs (features, the normalised adjacency,
 * the undirected edges) and parameters, and its forward and backward
 * passes instantiated from hsdag_impl.h in float (the production path) and
 * double (the gradient check). hsdag.h specifies the layers. */
#include "hsdag.h"

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"

#define NN_CAT_(a, b) a##b
#define NN_CAT(a, b) NN_CAT_(a, b)

/* --- architecture ------------------------------------------------------------- */

static const char *const FAMILY[] = {"type", "shape", "id", "struct", "cost"};
#define N_FAMILIES 5

void hsdag_arch_default(HsdagArch *a, int n_devices, int n_types)
{
    memset(a, 0, sizeof *a);
    a->n_devices = n_devices;
    a->n_types = n_types;
    a->hidden = 128;
    a->features = HSDAG_F_FAITHFUL;
    a->min_clusters = 2 * n_devices;
    a->steps = 20;
}

/* The width of family k (the bit 1 << k) of a. */
static int family_width(const HsdagArch *a, int k)
{
    static const int fixed[N_FAMILIES] = {0, 1, 1, 2, 0};
    return k == 0 ? a->n_types + 1 : k == 4 ? a->n_devices : fixed[k];
}

int hsdag_n_inputs(const HsdagArch *a)
{
    int F = 0;
    for (int k = 0; k < N_FAMILIES; k++)
        F += a->features & (1 << k) ? family_width(a, k) : 0;
    return F;
}

void hsdag_features_name(int mask, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap)
        buf[0] = 0;
    for (int k = 0; k < N_FAMILIES; k++)
        if (mask & (1 << k) && len < cap) {
            int w = snprintf(buf + len, cap - len, "%s%s", len ? "," : "", FAMILY[k]);
            len += w > 0 ? (size_t)w : 0;
        }
}

int hsdag_features_parse(const char *s)
{
    if (strcmp(s, "faithful") == 0)
        return HSDAG_F_FAITHFUL;
    if (strcmp(s, "parity") == 0)
        return HSDAG_F_PARITY;
    int mask = 0;
    while (*s) {
        size_t len = strcspn(s, ",");
        int bit = 0;
        for (int k = 0; k < N_FAMILIES; k++)
            if (strlen(FAMILY[k]) == len && strncmp(s, FAMILY[k], len) == 0)
                bit = 1 << k;
        if (!bit)
            return 0;
        mask |= bit;
        s += len;
        if (*s == ',' && *++s == 0)
            return 0; /* a trailing comma */
    }
    return mask;
}

/* --- parameters ------------------------------------------------------------- */

/* Registers name.W (rows x cols) when W is not NULL, name.b (1 x cols)
 * when b is not NULL, name.ln.g and name.ln.b (1 x cols) when g is not NULL. */
static void layer(NnParams *p, const char *name, int rows, int cols, int *W, int *b, int *g, int *c)
{
    char buf[NN_NAME_MAX];
    const char *suffix[4] = {"W", "b", "ln.g", "ln.b"};
    int *idx[4] = {W, b, g, c};
    for (int k = 0; k < 4; k++)
        if (idx[k]) {
            snprintf(buf, sizeof buf, "%s.%s", name, suffix[k]);
            *idx[k] = nn_params_add(p, buf, k ? 1 : rows, cols);
        }
}

/* Registers the tensors in the order of HsdagNet's index fields. */
static void declare_tensors(NnParams *p, const HsdagArch *a, HsdagNet *t)
{
    int F = hsdag_n_inputs(a), h = a->hidden, n = a->n_devices;
    nn_params_init(p);
    layer(p, "in1", F, h, &t->i1W, &t->i1b, &t->i1g, &t->i1c);
    layer(p, "in2", h, h, &t->i2W, &t->i2b, &t->i2g, &t->i2c);
    layer(p, "gcn1", h, h, &t->g1W, &t->g1b, NULL, NULL);
    layer(p, "gcn2", h, h, &t->g2W, &t->g2b, NULL, NULL);
    layer(p, "gnn1", h, h, NULL, NULL, &t->n1g, &t->n1c);
    layer(p, "edge1", h, h, &t->e1W, &t->e1b, &t->e1g, &t->e1c);
    layer(p, "edge2", h, 1, &t->e2W, &t->e2b, NULL, NULL);
    layer(p, "gcn3", h, h, &t->g3W, &t->g3b, NULL, NULL);
    layer(p, "gnn2", h, h, NULL, NULL, &t->n2g, &t->n2c);
    layer(p, "pool.pre", h, h, &t->prW, NULL, &t->prg, &t->prc);
    layer(p, "pool.post", h, h, &t->poW, NULL, &t->pog, &t->poc);
    layer(p, "out1", h, h, &t->o1W, &t->o1b, NULL, NULL);
    layer(p, "out2", h, F, &t->o2W, &t->o2b, NULL, NULL);
    layer(p, "cls1", F, h, &t->c1W, &t->c1b, NULL, NULL);
    layer(p, "cls2", h, n, &t->c2W, &t->c2b, NULL, NULL);
}

/* a is valid, and vocab (NULL: not checked) is its vocabulary. */
static int arch_ok(const HsdagArch *a, const OpVocab *vocab, Err *e)
{
    if (a->n_devices < 1 || a->n_devices > HSDAG_MAX_DEVICES) {
        err_set(e, "hsdag: n_devices must be in [1, %d], got %d", HSDAG_MAX_DEVICES, a->n_devices);
        return 0;
    }
    if (a->hidden < 1 || a->hidden > 4096 || a->n_types < 0 || a->features <= 0 ||
        a->features >= (1 << N_FAMILIES) || a->min_clusters < 1) {
        err_set(e, "hsdag: hidden must be in [1, 4096], features a nonzero mask of the %d families, "
                   "min_clusters at least 1; got hidden %d, features %d, min_clusters %d",
                N_FAMILIES, a->hidden, a->features, a->min_clusters);
        return 0;
    }
    if (vocab && a->n_types != vocab->n) {
        err_set(e, "hsdag: n_types %d is not the vocabulary's size %d", a->n_types, vocab->n);
        return 0;
    }
    return 1;
}

size_t hsdag_param_count(const HsdagArch *a)
{
    HsdagNet *tmp = xcalloc(1, sizeof *tmp);
    declare_tensors(&tmp->p, a, tmp);
    size_t n = tmp->p.n;
    hsdag_free(tmp);
    return n;
}

HsdagNet *hsdag_new(const HsdagArch *a, const OpVocab *vocab, uint64_t seed, Err *e)
{
    if (!arch_ok(a, vocab, e))
        return NULL;
    HsdagNet *net = xcalloc(1, sizeof *net);
    declare_tensors(&net->p, a, net);
    nn_params_alloc(&net->p);
    nn_params_glorot(&net->p, seed);
    net->arch = *a;
    net->blas = nn_default_blas();
    vocab_copy(&net->vocab, vocab);
    /* a matrix of one row (the input layer of a one-column family, or
     * h = 1) is not a bias: Glorot too, from its own stream */
    int mats[] = {net->i1W, net->i2W, net->g1W, net->g2W, net->e1W, net->e2W, net->g3W,
                  net->prW, net->poW, net->o1W, net->o2W, net->c1W, net->c2W};
    Rng r;
    rng_seed(&r, seed ^ 0x9e3779b97f4a7c15ULL);
    for (size_t k = 0; k < sizeof mats / sizeof *mats; k++) {
        const NnTensor *t = &net->p.t[mats[k]];
        if (t->rows == 1)
            for (int c = 0; c < t->cols; c++)
                net->p.w[t->off + (size_t)c] =
                    (float)((2 * rng_uniform(&r) - 1) * sqrt(6.0 / (double)(1 + t->cols)));
    }
    int gains[] = {net->i1g, net->i2g, net->n1g, net->e1g, net->n2g, net->prg, net->pog};
    for (size_t k = 0; k < sizeof gains / sizeof *gains; k++) {
        const NnTensor *t = &net->p.t[gains[k]];
        for (int c = 0; c < t->cols; c++)
            net->p.w[t->off + (size_t)c] = 1;
    }
    return net;
}

void hsdag_free(HsdagNet *net)
{
    if (!net)
        return;
    nn_params_done(&net->p);
    vocab_done(&net->vocab);
    free(net);
}

/* --- structural features ------------------------------------------------------- */

/* Breadth-first distances from v (dist: G entries, -1 unreached) along succ,
 * and along pred too when both; returns the nodes reached (v included) and
 * leaves them in queue order in q. */
static int bfs(const Grouping *gr, int v, int both, int *dist, int *q)
{
    for (int k = 0; k < gr->n_groups; k++)
        dist[k] = -1;
    int head = 0, tail = 0;
    dist[v] = 0;
    q[tail++] = v;
    while (head < tail) {
        int u = q[head++];
        for (int side = 0; side < (both ? 2 : 1); side++) {
            const int *off = side ? gr->pred_off : gr->succ_off, *nb = side ? gr->pred : gr->succ;
            for (int k = off[u]; k < off[u + 1]; k++)
                if (dist[nb[k]] < 0) {
                    dist[nb[k]] = dist[u] + 1;
                    q[tail++] = nb[k];
                }
        }
    }
    return tail;
}

/* The least-squares slope of log N(r) on log r over the radii r = 1 .. the
 * largest distance reached along the edges' direction (breadth-first
 * distances take every value up to the largest), N(r) the nodes within r
 * (v included); 0 with fewer than two radii. */
void hsdag_fractal_dimension(const Grouping *gr, double *out)
{
    int G = gr->n_groups;
    int *dist = XMALLOC(int, G), *q = XMALLOC(int, G);
    for (int v = 0; v < G; v++) {
        int reached = bfs(gr, v, 0, dist, q), rmax = dist[q[reached - 1]];
        out[v] = 0;
        if (rmax < 2)
            continue;
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        int k = 1; /* q[1 ..] in increasing distance */
        for (int r = 1; r <= rmax; r++) {
            while (k < reached && dist[q[k]] <= r)
                k++;
            double lx = log((double)r), ly = log((double)k);
            sx += lx;
            sy += ly;
            sxx += lx * lx;
            sxy += lx * ly;
        }
        double m = rmax, den = sxx - sx * sx / m;
        out[v] = den > 0 ? (sxy - sx * sy / m) / den : 0;
    }
    free(dist);
    free(q);
}

/* Wasserman-Faust: (reached - 1) / (G - 1) * (reached - 1) / (the sum of
 * the undirected distances to the reached nodes); 0 when v reaches nothing
 * or G = 1. */
void hsdag_closeness(const Grouping *gr, double *out)
{
    int G = gr->n_groups;
    int *dist = XMALLOC(int, G), *q = XMALLOC(int, G);
    for (int v = 0; v < G; v++) {
        int reached = bfs(gr, v, 1, dist, q);
        double sum = 0;
        for (int k = 1; k < reached; k++)
            sum += dist[q[k]];
        out[v] = reached > 1 ? (double)(reached - 1) / (G - 1) * (reached - 1) / sum : 0;
    }
    free(dist);
    free(q);
}

/* --- inputs ----------------------------------------------------------------- */

/* The cost family: v's cost on every device over the largest (0 if that is 0). */
static void cost_columns(const Graph *g, const Grouping *gr, const Cluster *c, int n, double *x, int F, int col)
{
    int G = gr->n_groups;
    double mx = 0;
    for (int v = 0; v < G; v++)
        for (int d = 0; d < n; d++) {
            double s = c ? 0 : gr->cost_us[v];
            for (int k = gr->member_off[v]; c && k < gr->member_off[v + 1]; k++)
                s += cluster_op_cost(c, g, gr->members[k], d);
            x[(size_t)v * (size_t)F + (size_t)(col + d)] = s;
            mx = fmax(mx, s);
        }
    for (int v = 0; v < G; v++)
        for (int d = 0; d < n; d++) {
            double *cell = &x[(size_t)v * (size_t)F + (size_t)(col + d)];
            *cell = mx > 0 ? *cell / mx : 0;
        }
}

static void features(const HsdagNet *net, const Graph *g, const Grouping *gr, const Cluster *c, HsdagInput *in)
{
    int G = in->G, F = in->F, T = net->vocab.n, mask = net->arch.features, col = 0;
    double *x = in->xd;
    if (mask & HSDAG_F_TYPE) {
        for (int v = 0; v < G; v++) {
            int nops = gr->member_off[v + 1] - gr->member_off[v];
            for (int k = gr->member_off[v]; k < gr->member_off[v + 1]; k++)
                x[(size_t)v * (size_t)F + (size_t)vocab_find(&net->vocab, g->nodes[gr->members[k]].op)] +=
                    1.0 / nops;
        }
        col += T + 1;
    }
    if (mask & HSDAG_F_SHAPE) {
        double mb = 0;
        for (int v = 0; v < G; v++)
            mb = fmax(mb, log1p((double)gr->bytes[v]));
        for (int v = 0; v < G; v++)
            x[(size_t)v * (size_t)F + (size_t)col] = mb > 0 ? log1p((double)gr->bytes[v]) / mb : 0;
        col++;
    }
    if (mask & HSDAG_F_ID) {
        for (int v = 0; v < G; v++)
            x[(size_t)v * (size_t)F + (size_t)col] = (double)v / G;
        col++;
    }
    if (mask & HSDAG_F_STRUCT) {
        for (int v = 0; v < G; v++) {
            x[(size_t)v * (size_t)F + (size_t)col] = in->fractal[v];
            x[(size_t)v * (size_t)F + (size_t)col + 1] = in->closeness[v];
        }
        col += 2;
    }
    if (mask & HSDAG_F_COST)
        cost_columns(g, gr, c, net->arch.n_devices, x, F, col);
}

/* A = D^-1/2 (S + I) D^-1/2 in CSR (rows sorted, the self-loop in its
 * place) and the undirected edges u < v sorted by (u, v). */
static void adjacency(const Grouping *gr, HsdagInput *in)
{
    int G = gr->n_groups;
    int *nb = XMALLOC(int, 2 * (size_t)gr->n_edges + (size_t)G + 1), *deg = XMALLOC(int, G);
    in->a_off = XNEW(int, G + 1);
    /* row v: the merge of pred(v), succ(v) and v (all sorted), each once */
    int m = 0;
    for (int v = 0; v < G; v++) {
        int i = gr->pred_off[v], j = gr->succ_off[v], self = 0;
        for (;;) {
            int a = i < gr->pred_off[v + 1] ? gr->pred[i] : G, b = j < gr->succ_off[v + 1] ? gr->succ[j] : G;
            int next = a < b ? a : b;
            if (!self && v <= next) {
                next = v;
                self = 1;
            } else if (next == G) {
                break;
            }
            i += a == next;
            j += b == next;
            if (m == in->a_off[v] || nb[m - 1] != next)
                nb[m++] = next;
        }
        in->a_off[v + 1] = m;
        deg[v] = m - in->a_off[v];
    }
    in->a_col = nb;
    in->a_val = XMALLOC(double, m);
    in->a_valf = XMALLOC(float, m);
    in->eu = XMALLOC(int, (m - G) / 2 + 1);
    in->ev = XMALLOC(int, (m - G) / 2 + 1);
    in->n_edges = 0;
    for (int v = 0; v < G; v++)
        for (int k = in->a_off[v]; k < in->a_off[v + 1]; k++) {
            int u = nb[k];
            in->a_val[k] = 1 / sqrt((double)deg[v] * (double)deg[u]);
            in->a_valf[k] = (float)in->a_val[k];
            if (u > v) {
                in->eu[in->n_edges] = v;
                in->ev[in->n_edges++] = u;
            }
        }
    free(deg);
}

HsdagInput *hsdag_input_new(const HsdagNet *net, const Graph *g, const Grouping *gr, const Cluster *c, Err *e)
{
    int G = gr->n_groups;
    if (G < 1) {
        err_set(e, "hsdag: %s has no groups", g->name);
        return NULL;
    }
    if (c && (net->arch.features & HSDAG_F_COST) && c->n_devices != net->arch.n_devices) {
        err_set(e, "hsdag: a cluster of %d devices for a network of %d", c->n_devices, net->arch.n_devices);
        return NULL;
    }
    HsdagInput *in = xcalloc(1, sizeof *in);
    in->G = G;
    in->F = hsdag_n_inputs(&net->arch);
    size_t cells = xmul((size_t)G, (size_t)in->F);
    in->xd = XNEW(double, cells);
    in->xf = XNEW(float, cells);
    in->fractal = XMALLOC(double, G);
    in->closeness = XMALLOC(double, G);
    hsdag_fractal_dimension(gr, in->fractal);
    hsdag_closeness(gr, in->closeness);
    features(net, g, gr, c, in);
    for (size_t i = 0; i < cells; i++)
        in->xf[i] = (float)in->xd[i];
    adjacency(gr, in);
    return in;
}

void hsdag_input_free(HsdagInput *in)
{
    if (!in)
        return;
    void *arrays[] = {in->xf, in->xd, in->fractal, in->closeness, in->a_off, in->a_col, in->a_val, in->a_valf,
                      in->eu, in->ev};
    for (size_t k = 0; k < sizeof arrays / sizeof *arrays; k++)
        free(arrays[k]);
    free(in);
}

/* --- forward and backward, float and double ----------------------------------- */

/* What differs by type, named by the kernel suffix S (hsdag_impl.h). */
#define WORK_f HsdagWork
#define WORK_d HsdagWorkD
#define EXP_f expf
#define EXP_d exp
#define AVAL_f(in) ((in)->a_valf)
#define AVAL_d(in) ((in)->a_val)
#define PAD_f(x) nn_pad(x)
#define PAD_d(x) (x)

#define R float
#define S f
#include "hsdag_impl.h"
#undef R
#undef S
/* the gradient check's */
#define R double
#define S d
#include "hsdag_impl.h"
#undef R
#undef S

static void check_arch(const HsdagArch *a, const HsdagInput *in)
{
    Err e = {{0}};
    if (!arch_ok(a, NULL, &e))
        util_die("%s", e.msg);
    if (in->G < 1 || in->F != hsdag_n_inputs(a))
        util_die("hsdag: a work space for an input of %d groups and %d features, the network takes %d", in->G,
                 in->F, hsdag_n_inputs(a));
}

HsdagWork *hsdag_work_new(const HsdagArch *a, const HsdagInput *in)
{
    check_arch(a, in);
    return hf_work_new(a, in);
}
void hsdag_work_free(HsdagWork *w) { hf_work_free(w); }
HsdagWorkD *hsdag_work_new_d(const HsdagArch *a, const HsdagInput *in)
{
    check_arch(a, in);
    return hd_work_new(a, in);
}
void hsdag_work_free_d(HsdagWorkD *w) { hd_work_free(w); }

/* The input fits the work space and the network (w's shape fields). */
static void check_sizes(const HsdagNet *net, const HsdagInput *in, int G, int E, int F, int h, int n)
{
    const HsdagArch *a = &net->arch;
    if (in->G < 1 || in->G > G || in->n_edges > E || in->F != F || F != hsdag_n_inputs(a) || h != a->hidden ||
        n != a->n_devices)
        util_die("hsdag: a graph of %d groups, %d edges and %d features on a work space for %d groups and %d "
                 "edges, or a work space of another architecture",
                 in->G, in->n_edges, in->F, G, E);
}

#define CHECK_W(w) check_sizes(net, in, (w)->G, (w)->E, (w)->F, (w)->h, (w)->n)
#define CHECK_LAST(w)                                                                                              \
    if ((w)->Gc != in->G || (w)->Ec != in->n_edges)                                                                \
    util_die("hsdag: backward of a forward on %d groups on an input of %d", (w)->Gc, in->G)

double hsdag_forward(const HsdagNet *net, const HsdagInput *in, const float *x, HsdagWork *w, int mode, Rng *rng,
                     int *place, float *out)
{
    CHECK_W(w);
    return hf_forward(net, net->p.w, in, x, w, mode, rng, place, out);
}

void hsdag_backward(const HsdagNet *net, const HsdagInput *in, const float *x, HsdagWork *w, double weight,
                    float *grad)
{
    CHECK_W(w);
    CHECK_LAST(w);
    hf_backward(net, net->p.w, in, x, w, weight, grad);
}

double hsdag_forward_d(const HsdagNet *net, const double *wd, const HsdagInput *in, const double *x,
                       HsdagWorkD *w, int mode, Rng *rng, int *place, double *out)
{
    CHECK_W(w);
    if (w->frozen && w->parsed && w->Gc != in->G)
        util_die("hsdag: a frozen parse of %d groups on an input of %d", w->Gc, in->G);
    return hd_forward(net, wd, in, x, w, mode, rng, place, out);
}

void hsdag_backward_d(const HsdagNet *net, const double *wd, const HsdagInput *in, const double *x,
                      HsdagWorkD *w, double weight, double *grad)
{
    CHECK_W(w);
    CHECK_LAST(w);
    hd_backward(net, wd, in, x, w, weight, grad);
}

void hsdag_work_freeze_parse_d(HsdagWorkD *w, int on) { w->frozen = on; }

const int *hsdag_work_clusters(const HsdagWork *w, int *n_clusters)
{
    *n_clusters = w->nc;
    return w->cl;
}

const float *hsdag_work_probs(const HsdagWork *w, int c)
{
    if (c < 0 || c >= w->nc)
        util_die("hsdag: probabilities of cluster %d of %d", c, w->nc);
    return w->p + (size_t)c * (size_t)w->ldn;
}

double hsdag_work_sigma(const HsdagWork *w, int c)
{
    if (c < 0 || c >= w->nc)
        util_die("hsdag: sigma of cluster %d of %d", c, w->nc);
    return (double)w->sigma[c];
}

int hsdag_parse_d(const HsdagInput *in, const double *score, int min_clusters, int *cluster)
{
    HsdagWorkD w;
    memset(&w, 0, sizeof w);
    w.G = in->G;
    w.E = in->n_edges;
    hd_work_ints(&w);
    hd_parse(in, score, 1, min_clusters, &w);
    memcpy(cluster, w.cl, (size_t)in->G * sizeof *cluster);
    free(w.imem);
    return w.nc;
}
