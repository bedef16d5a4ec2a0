/* gdp: the GDP placer's inputs and parameters, and its forward and
 * backward passes instantiated from gdp_impl.h in float (the production
 * path) and double (the gradient check). docs/comparators.md, "The GDP placer's
 * network", gives the choices made here. */
#include "gdp.h"

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

/* --- parameters ------------------------------------------------------------- */

void gdp_arch_default(GdpArch *a, int n_devices, int n_types)
{
    memset(a, 0, sizeof *a);
    a->n_devices = n_devices;
    a->n_types = n_types;
    a->hidden = 128;
    a->heads = 4;
    a->gnn_layers = 2;
    a->blocks = 1;
    a->segment = 256;
    a->superposition = 1;
}

static int add(NnParams *p, const char *prefix, int l, const char *name, int rows, int cols)
{
    char buf[NN_NAME_MAX];
    if (l < 0)
        snprintf(buf, sizeof buf, "%s.%s", prefix, name);
    else
        snprintf(buf, sizeof buf, "%s%d.%s", prefix, l, name);
    return nn_params_add(p, buf, rows, cols);
}

/* Registers the tensors (gdp.h lists them) and keeps their indices in net. */
static void declare_tensors(NnParams *p, const GdpArch *a, GdpNet *net)
{
    int F = gdp_n_inputs(a), h = a->hidden, n = a->n_devices;
    nn_params_init(p);
    net->t_in_W = add(p, "in", -1, "W", F, h);
    net->t_in_b = add(p, "in", -1, "b", 1, h);
    for (int l = 0; l < a->gnn_layers; l++) {
        GdpGnnT *g = &net->gnn[l];
        g->Wa = add(p, "gnn", l, "Wa", h, h);
        g->ba = add(p, "gnn", l, "ba", 1, h);
        g->Wf = add(p, "gnn", l, "Wf", 2 * h, h);
        g->bf = add(p, "gnn", l, "bf", 1, h);
    }
    for (int l = 0; l < a->blocks; l++) {
        GdpBlockT *b = &net->blk[l];
        b->U = b->sb = -1;
        if (a->superposition) {
            b->U = add(p, "sup", l, "U", h, h);
            b->sb = add(p, "sup", l, "b", 1, h);
        }
        b->Wq = add(p, "blk", l, "Wq", h, h);
        b->Wk = add(p, "blk", l, "Wk", h, h);
        b->Wv = add(p, "blk", l, "Wv", h, h);
        b->Wo = add(p, "blk", l, "Wo", h, h);
        b->g1 = add(p, "blk", l, "ln1g", 1, h);
        b->c1 = add(p, "blk", l, "ln1b", 1, h);
        b->W1 = add(p, "blk", l, "W1", h, 4 * h);
        b->b1 = add(p, "blk", l, "b1", 1, 4 * h);
        b->W2 = add(p, "blk", l, "W2", 4 * h, h);
        b->b2 = add(p, "blk", l, "b2", 1, h);
        b->g2 = add(p, "blk", l, "ln2g", 1, h);
        b->c2 = add(p, "blk", l, "ln2b", 1, h);
    }
    net->t_head_W = add(p, "head", -1, "W", h, n);
    net->t_head_b = add(p, "head", -1, "b", 1, n);
}

static int arch_ok(const GdpArch *a, Err *e)
{
    if (a->n_devices < 1 || a->n_devices > GDP_MAX_DEVICES) {
        err_set(e, "gdp: n_devices must be in [1, %d], got %d", GDP_MAX_DEVICES, a->n_devices);
        return 0;
    }
    if (a->hidden < 1 || a->hidden > 4096 || a->heads < 1 || a->hidden % a->heads || a->gnn_layers < 1 ||
        a->gnn_layers > GDP_MAX_LAYERS || a->blocks < 1 || a->blocks > GDP_MAX_LAYERS || a->segment < 1 || a->segment > (1 << 24) ||
        a->n_types < 0 || (a->superposition != 0 && a->superposition != 1)) {
        err_set(e, "gdp: hidden must be in [1, 4096] and a multiple of heads, gnn_layers and blocks in [1, %d], "
                   "segment in [1, 2^24]; got hidden %d, heads %d, gnn_layers %d, blocks %d, segment %d",
                GDP_MAX_LAYERS, a->hidden, a->heads, a->gnn_layers, a->blocks, a->segment);
        return 0;
    }
    return 1;
}

size_t gdp_param_count(const GdpArch *a)
{
    GdpNet tmp;
    memset(&tmp, 0, sizeof tmp);
    declare_tensors(&tmp.p, a, &tmp);
    size_t n = tmp.p.n;
    nn_params_done(&tmp.p);
    return n;
}

GdpNet *gdp_new(const GdpArch *a, const OpVocab *vocab, uint64_t seed, Err *e)
{
    if (!arch_ok(a, e))
        return NULL;
    if (a->n_types != vocab->n) {
        err_set(e, "gdp: n_types %d is not the vocabulary's size %d", a->n_types, vocab->n);
        return NULL;
    }
    GdpNet *net = xcalloc(1, sizeof *net);
    net->arch = *a;
    net->blas = nn_default_blas();
    vocab_copy(&net->vocab, vocab);
    declare_tensors(&net->p, a, net);
    nn_params_alloc(&net->p);
    nn_params_glorot(&net->p, seed);
    /* the norms' gains and the superposition's beta start at 1 */
    for (int l = 0; l < a->blocks; l++) {
        int ones[3] = {net->blk[l].g1, net->blk[l].g2, net->blk[l].sb};
        for (int i = 0; i < 3; i++)
            if (ones[i] >= 0) {
                const NnTensor *t = &net->p.t[ones[i]];
                for (int c = 0; c < t->cols; c++)
                    net->p.w[t->off + (size_t)c] = 1;
            }
    }
    return net;
}

void gdp_free(GdpNet *net)
{
    if (!net)
        return;
    nn_params_done(&net->p);
    vocab_done(&net->vocab);
    free(net);
}

/* --- inputs ----------------------------------------------------------------- */

/* Row v: the shares of the group's ops per vocabulary type (T + 1 columns,
 * the last for types not in it), log1p(bytes_v) and cost_v each divided by
 * the graph's maximum, in- and out-degree in the group graph each divided
 * by the graph's largest degree (in or out), and v / G. */
GdpInput *gdp_input_new(const Graph *g, const Grouping *gr, const OpVocab *v, Err *e)
{
    int G = gr->n_groups, T = v->n, F = T + 6;
    if (G < 1) {
        err_set(e, "gdp: %s has no groups", g->name);
        return NULL;
    }
    GdpInput *in = xcalloc(1, sizeof *in);
    in->G = G;
    in->F = F;
    size_t nf = (size_t)F;
    in->xd = XNEW(double, xmul((size_t)G, nf));
    in->xf = XNEW(float, xmul((size_t)G, nf));
    double mb = 0, mc = 0;
    int md = 1;
    for (int k = 0; k < G; k++) {
        mb = fmax(mb, log1p((double)gr->bytes[k]));
        mc = fmax(mc, gr->cost_us[k]);
        int din = gr->pred_off[k + 1] - gr->pred_off[k], dout = gr->succ_off[k + 1] - gr->succ_off[k];
        md = din > md ? din : md;
        md = dout > md ? dout : md;
    }
    for (int k = 0; k < G; k++) {
        double *x = in->xd + (size_t)k * nf;
        int nops = gr->member_off[k + 1] - gr->member_off[k];
        for (int q = gr->member_off[k]; q < gr->member_off[k + 1]; q++)
            x[vocab_find(v, g->nodes[gr->members[q]].op)] += 1.0 / nops;
        x[T + 1] = mb > 0 ? log1p((double)gr->bytes[k]) / mb : 0;
        x[T + 2] = mc > 0 ? gr->cost_us[k] / mc : 0;
        x[T + 3] = (double)(gr->pred_off[k + 1] - gr->pred_off[k]) / md;
        x[T + 4] = (double)(gr->succ_off[k + 1] - gr->succ_off[k]) / md;
        x[T + 5] = (double)k / G;
    }
    for (size_t i = 0; i < (size_t)G * nf; i++)
        in->xf[i] = (float)in->xd[i];
    in->nb_off = XNEW(int, G + 1);
    in->nb = XMALLOC(int, 2 * gr->n_edges + 1);
    int m = 0;
    for (int k = 0; k < G; k++) {
        for (int q = gr->pred_off[k]; q < gr->pred_off[k + 1]; q++)
            in->nb[m++] = gr->pred[q];
        for (int q = gr->succ_off[k]; q < gr->succ_off[k + 1]; q++)
            in->nb[m++] = gr->succ[q];
        in->nb_off[k + 1] = m;
    }
    return in;
}

void gdp_input_free(GdpInput *in)
{
    if (!in)
        return;
    free(in->xf);
    free(in->xd);
    free(in->nb_off);
    free(in->nb);
    free(in);
}

/* --- forward and backward, float and double ----------------------------------- */

#define R float
#define S f
#define WORK GdpWork
#define FN(x) NN_CAT(gf_, x)
#define SQRT sqrtf
#define INX(in) ((in)->xf)
#include "gdp_impl.h"
#undef R
#undef S
#undef WORK
#undef FN
#undef SQRT
#undef INX

#define R double
#define S d
#define WORK GdpWorkD
#define FN(x) NN_CAT(gd_, x)
#define SQRT sqrt
#define INX(in) ((in)->xd)
#include "gdp_impl.h"
#undef R
#undef S
#undef WORK
#undef FN
#undef SQRT
#undef INX

static void check_arch(const GdpArch *a)
{
    Err e = {{0}};
    if (!arch_ok(a, &e))
        util_die("%s", e.msg);
}

GdpWork *gdp_work_new(const GdpArch *a, int G)
{
    check_arch(a);
    if (G < 1)
        util_die("gdp: a work space for %d groups", G);
    return gf_work_new(a, G);
}
void gdp_work_free(GdpWork *w) { gf_work_free(w); }
GdpWorkD *gdp_work_new_d(const GdpArch *a, int G)
{
    check_arch(a);
    if (G < 1)
        util_die("gdp: a work space for %d groups", G);
    return gd_work_new(a, G);
}
void gdp_work_free_d(GdpWorkD *w) { gd_work_free(w); }

static void check_sizes(const GdpNet *net, const GdpInput *in, int cap, int F, int h, int Lg, int Lp, int S,
                        int sup, int n)
{
    const GdpArch *a = &net->arch;
    if (in->G < 1 || in->G > cap || in->F != gdp_n_inputs(a) || F != in->F || h != a->hidden ||
        Lg != a->gnn_layers || Lp != a->blocks || S != a->segment || sup != a->superposition || n != a->n_devices)
        util_die("gdp: a graph of %d groups and %d features on a work space for %d groups and a network for %d "
                 "features, or a work space of another architecture",
                 in->G, in->F, cap, gdp_n_inputs(a));
}

#define CHECK_W(w) check_sizes(net, in, (w)->G, (w)->F, (w)->h, (w)->Lg, (w)->Lp, (w)->seg, (w)->sup, (w)->n)

double gdp_forward(const GdpNet *net, const GdpInput *in, GdpWork *w, int mode, Rng *rng, int *place,
                   double *logp, double *ent)
{
    CHECK_W(w);
    return gf_forward(net, net->p.w, in, w, mode, rng, place, logp, ent);
}

/* The last forward on w was on in (and, for a backward of its placement, chose one). */
static void check_last(int Gc, int acted, const GdpInput *in, int need_act)
{
    if (Gc != in->G)
        util_die("gdp: backward of a forward on %d groups on an input of %d", Gc, in->G);
    if (need_act && !acted)
        util_die("gdp: backward of a placement after a GDP_PROBS forward");
}

void gdp_backward(const GdpNet *net, const GdpInput *in, GdpWork *w, const double *wt, double beta, float *grad)
{
    CHECK_W(w);
    check_last(w->Gc, w->acted, in, 1);
    gf_backward(net, net->p.w, in, w, wt, beta, grad);
}

double gdp_work_pick(const GdpWork *w, int mode, Rng *rng, int *place, double *logp, double *ent)
{
    if (w->Gc < 1 || mode == GDP_PROBS)
        util_die("gdp: a placement picked without a forward, or in mode GDP_PROBS");
    return gf_pick(w, mode, rng, place, logp, ent);
}

void gdp_logit_grad(const GdpWork *w, int K, const int *const *place, const double *const *wt, double beta,
                    float *dl)
{
    gf_logit_grad(w, K, place, wt, beta, dl);
}

void gdp_backward_logits(const GdpNet *net, const GdpInput *in, GdpWork *w, const float *dl, float *grad)
{
    CHECK_W(w);
    check_last(w->Gc, 1, in, 0);
    if (dl != w->dl)
        memcpy(w->dl, dl, (size_t)w->Gc * (size_t)w->n * sizeof *dl);
    gf_backward_dl(net, net->p.w, in, w, grad);
}

double gdp_forward_d(const GdpNet *net, const double *wd, const GdpInput *in, GdpWorkD *w, int mode, Rng *rng,
                     int *place, double *logp, double *ent)
{
    CHECK_W(w);
    return gd_forward(net, wd, in, w, mode, rng, place, logp, ent);
}

void gdp_backward_d(const GdpNet *net, const double *wd, const GdpInput *in, GdpWorkD *w, const double *wt,
                    double beta, double *grad)
{
    CHECK_W(w);
    check_last(w->Gc, w->acted, in, 1);
    gd_backward(net, wd, in, w, wt, beta, grad);
}

void gdp_logit_grad_d(const GdpWorkD *w, int K, const int *const *place, const double *const *wt, double beta,
                      double *dl)
{
    gd_logit_grad(w, K, place, wt, beta, dl);
}

void gdp_backward_logits_d(const GdpNet *net, const double *wd, const GdpInput *in, GdpWorkD *w, const double *dl,
                           double *grad)
{
    CHECK_W(w);
    check_last(w->Gc, 1, in, 0);
    if (dl != w->dl)
        memcpy(w->dl, dl, (size_t)w->Gc * (size_t)w->n * sizeof *dl);
    gd_backward_dl(net, wd, in, w, grad);
}

const double *gdp_work_logits_d(const GdpWorkD *w) { return w->l; }

void gdp_work_freeze_memory_d(GdpWorkD *w, int on)
{
    if (on && !w->frozen)
        for (int l = 0; l < w->Lp; l++)
            memcpy(w->xfz[l], w->xb[l], (size_t)w->G * (size_t)w->h * sizeof(double));
    w->frozen = on;
}

const float *gdp_work_probs(const GdpWork *w, int v)
{
    if (v < 0 || v >= w->Gc)
        util_die("gdp: probabilities of group %d of %d", v, w->Gc);
    return w->p + (size_t)v * (size_t)w->n;
}

const float *gdp_work_attention(const GdpWork *w, int block, int head, int v, int *first_key, int *n_keys)
{
    if (block < 0 || block >= w->Lp || head < 0 || head >= w->H || v < 0 || v >= w->Gc)
        util_die("gdp: attention of block %d head %d group %d", block, head, v);
    int start = v / w->seg * w->seg, end = start + w->seg < w->Gc ? start + w->seg : w->Gc;
    int lo = start ? start - w->seg : start;
    *first_key = lo;
    *n_keys = end - lo;
    return w->A[block] + ((size_t)head * (size_t)w->Gc + (size_t)v) * (size_t)w->kw;
}

/* --- the kernels alone ----------------------------------------------------------- */

void gdp_layer_norm_d(int n, int h, const double *x, const double *gamma, const double *b, double *y,
                      double *xhat, double *sigma)
{
    nn_layer_norm_d(n, h, h, GDP_LN_EPS, x, gamma, b, y, xhat, sigma);
}

void gdp_layer_norm_bwd_d(int n, int h, const double *dy, const double *gamma, const double *xhat,
                          const double *sigma, double *dx, double *dgamma, double *dbeta)
{
    nn_layer_norm_bwd_d(n, h, h, dy, gamma, xhat, sigma, dx, dgamma, dbeta);
}

void gdp_max_aggregate_d(int G, int h, const int *nb_off, const int *nb, const double *P, double *M, int *arg)
{
    gd_max_agg(G, h, nb_off, nb, P, M, h, arg);
}

void gdp_max_aggregate_bwd_d(int G, int h, const int *arg, const double *dM, double *dP)
{
    gd_max_agg_bwd(G, h, arg, dM, h, dP);
}
