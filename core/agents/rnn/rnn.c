/* rnn: the RNN placer's inputs and parameters, and its forward
 * and backward passes instantiated from rnn_impl.h in float (the production
 * path) and double (the gradient check). docs/comparators.md, "The RNN-based
 * placer", gives the choices made here. */
#include "rnn.h"

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"

#define NN_CAT_(a, b) a##b
#define NN_CAT(a, b) NN_CAT_(a, b)

/* Tensor indices, in registration order (rnn.h lists the shapes). */
enum {
    RT_TYPE, RT_ENC_FW, RT_ENC_BW, RT_ENC_FB, RT_W1, RT_DEC, RT_DEC_FB, RT_GO, RT_DEV, RT_W2, RT_V, RT_WOUT,
    RT_COUNT
};

/* --- parameters ------------------------------------------------------------- */

void rnn_arch_default(RnnArch *a, int n_devices, int n_groups, int n_types)
{
    memset(a, 0, sizeof *a);
    a->n_devices = n_devices;
    a->n_groups = n_groups;
    a->n_types = n_types;
    a->emb = 32;
    a->hidden = 256;
    a->squash_c = RNN_DEFAULT_SQUASH;
    a->squash_tau = 1;
}

static void declare_tensors(NnParams *p, const RnnArch *a)
{
    int F = rnn_n_inputs(a), h = a->hidden, u = h / 2, n = a->n_devices;
    nn_params_init(p);
    nn_params_add(p, "type_emb", a->n_types + 1, a->emb);
    nn_params_add(p, "enc_fw", F + u, 4 * u);
    nn_params_add(p, "enc_bw", F + u, 4 * u);
    nn_params_add(p, "enc_fb", 1, 1);
    nn_params_add(p, "W1", h, h);
    nn_params_add(p, "dec", 2 * h, 4 * h);
    nn_params_add(p, "dec_fb", 1, 1);
    nn_params_add(p, "go", 1, h);
    nn_params_add(p, "dev_emb", n, h);
    nn_params_add(p, "W2", h, h);
    nn_params_add(p, "v", h, 1);
    nn_params_add(p, "Wout", 2 * h, n);
    if (a->grouper == RNN_GROUPER_HDP) { /* after the placer's: its tensors keep their offsets and draws */
        nn_params_add(p, "grouper_ff", rnn_hdp_inputs(a), a->grouper_hidden);
        nn_params_add(p, "grouper_g", a->grouper_hidden, a->n_groups);
    }
}

size_t rnn_param_count(const RnnArch *a)
{
    NnParams p;
    declare_tensors(&p, a);
    size_t n = p.n;
    nn_params_done(&p);
    return n;
}

RnnNet *rnn_new(const RnnArch *a, const OpVocab *vocab, uint64_t seed, Err *e)
{
    if (a->n_devices < 1 || a->n_devices > RNN_MAX_DEVICES) {
        err_set(e, "rnn: n_devices must be in [1, %d], got %d", RNN_MAX_DEVICES, a->n_devices);
        return NULL;
    }
    if (a->n_groups < 1 || a->n_groups > RNN_MAX_GROUPS) {
        err_set(e, "rnn: %d groups: the RNN placer handles 1 to %d (use --groups)", a->n_groups, RNN_MAX_GROUPS);
        return NULL;
    }
    if (a->hidden < 2 || a->hidden > 4096 || a->hidden % 2 || a->emb < 1 || a->emb > 1024 ||
        a->n_types != vocab->n || !(a->squash_c > 0) || !(a->squash_tau > 0)) {
        err_set(e, "rnn: hidden must be even in [2, 4096], emb in [1, 1024], n_types the vocabulary's size (%d), "
                   "C and tau positive; got hidden %d, emb %d, n_types %d",
                vocab->n, a->hidden, a->emb, a->n_types);
        return NULL;
    }
    if (a->grouper != RNN_GROUPER_NONE &&
        (a->grouper != RNN_GROUPER_HDP || a->n_groups < 2 || a->grouper_hidden < 1 || a->grouper_hidden > 4096 ||
         a->units < 1 || a->units > RNN_HDP_MAX_UNITS)) {
        err_set(e, "rnn: an hdp grouper needs 2 to %d learned groups, a width in [1, 4096] and 1 to %d units; got "
                   "%d, %d, %d",
                RNN_MAX_GROUPS, RNN_HDP_MAX_UNITS, a->n_groups, a->grouper_hidden, a->units);
        return NULL;
    }
    RnnNet *net = xcalloc(1, sizeof *net);
    net->arch = *a;
    net->blas = nn_default_blas();
    vocab_copy(&net->vocab, vocab);
    declare_tensors(&net->p, a);
    if (net->p.n_tensors != RT_COUNT + (a->grouper ? 2 : 0))
        util_die("rnn: %d tensors registered, expected %d", net->p.n_tensors, RT_COUNT + (a->grouper ? 2 : 0));
    nn_params_alloc(&net->p);
    nn_params_glorot(&net->p, seed);
    net->p.w[net->p.t[RT_ENC_FB].off] = 1;
    net->p.w[net->p.t[RT_DEC_FB].off] = 1;
    Rng r;
    rng_seed(&r, seed + 1);
    float *go = net->p.w + net->p.t[RT_GO].off;
    for (int i = 0; i < a->hidden; i++)
        go[i] = (float)(0.2 * rng_uniform(&r) - 0.1);
    return net;
}

void rnn_free(RnnNet *net)
{
    if (!net)
        return;
    nn_params_done(&net->p);
    vocab_done(&net->vocab);
    free(net->frozen);
    free(net);
}

/* --- inputs ----------------------------------------------------------------- */

/* Row k: op edges from group k to every group (self included: edges inside
 * the group), op edges into k from every group, log1p of the group's output
 * bytes, its ops' output count; the row divided by its max + 1 (the HDP
 * controller's normalisation). Edges of held parameters are left out, as in
 * the group graph. */
RnnInput *rnn_input_new(const Graph *g, const Grouping *gr, const OpVocab *v, int cap, Err *e)
{
    int G = gr->n_groups;
    if (G < 1 || G > RNN_MAX_GROUPS) {
        err_set(e, "rnn: %d groups: the RNN placer handles 1 to %d (use --groups)", G, RNN_MAX_GROUPS);
        return NULL;
    }
    if (G > cap) {
        err_set(e, "the rnn policy places at most %d groups but %s is grouped into %d (use --groups %d)", cap,
                g->name, G, cap);
        return NULL;
    }
    RnnInput *in = xcalloc(1, sizeof *in);
    in->G = G;
    in->cap = cap;
    in->nf = 2 * cap + 2;
    size_t nf = (size_t)in->nf;
    in->xd = XNEW(double, xmul((size_t)G, nf));
    in->xf = XNEW(float, xmul((size_t)G, nf));
    for (int i = 0; i < g->n_edges; i++) {
        int s = g->edges[i].src, d = g->edges[i].dst;
        if (gr->held && (gr->held[s] || gr->held[d]))
            continue;
        int a = gr->op_group[s], b = gr->op_group[d];
        in->xd[(size_t)a * nf + (size_t)b] += 1;
        in->xd[(size_t)b * nf + (size_t)cap + (size_t)a] += 1;
    }
    in->ty_off = XNEW(int, G + 1);
    in->ty = XMALLOC(int, gr->n_ops ? gr->n_ops : 1);
    in->ty_w = XMALLOC(double, gr->n_ops ? gr->n_ops : 1);
    int *cnt = XNEW(int, v->n + 1);
    for (int k = 0; k < G; k++) {
        double *x = in->xd + (size_t)k * nf;
        int nops = gr->member_off[k + 1] - gr->member_off[k], nout = 0;
        for (int q = gr->member_off[k]; q < gr->member_off[k + 1]; q++) {
            const GraphNode *op = &g->nodes[gr->members[q]];
            nout += op->n_outputs;
            cnt[vocab_find(v, op->op)]++;
        }
        x[2 * cap] = log1p((double)gr->bytes[k]);
        x[2 * cap + 1] = nout;
        double mx = 0;
        for (size_t c = 0; c < nf; c++)
            mx = fmax(mx, x[c]);
        for (size_t c = 0; c < nf; c++)
            x[c] /= mx + 1;
        /* the type rows in increasing order, each once */
        for (int q = gr->member_off[k]; q < gr->member_off[k + 1]; q++) {
            const GraphNode *op = &g->nodes[gr->members[q]];
            int ty = vocab_find(v, op->op);
            if (cnt[ty] == 0)
                continue;
            in->ty[in->n_ty] = ty;
            in->ty_w[in->n_ty++] = (double)cnt[ty] / nops;
            cnt[ty] = 0;
        }
        in->ty_off[k + 1] = in->n_ty;
    }
    free(cnt);
    for (size_t i = 0; i < (size_t)G * nf; i++)
        in->xf[i] = (float)in->xd[i];
    return in;
}

void rnn_input_free(RnnInput *in)
{
    if (!in)
        return;
    free(in->xf);
    free(in->xd);
    free(in->ty_off);
    free(in->ty);
    free(in->ty_w);
    free(in);
}

/* --- forward and backward, float and double ----------------------------------- */

/* tanh in float from one expf: (1 - e) / (1 + e) with e = exp(-2|x|), no
 * overflow; within 9e-8 of tanh (2.3e-7 relative for |x| > 0.1), at a
 * third of libm's tanhf's cost (it goes through expm1f; the attention takes
 * G x G x h of them per decode). */
static inline float tanh_f(float x)
{
    float e = expf(-2 * fabsf(x)), t = (1 - e) / (1 + e);
    return x < 0 ? -t : t;
}

#define R float
#define S f
#define WORK RnnWork
#define FN(x) NN_CAT(rf_, x)
#define EXP expf
#define TANH tanh_f
#define INX(in) ((in)->xf)
#include "rnn_impl.h"
#undef R
#undef S
#undef WORK
#undef FN
#undef EXP
#undef TANH
#undef INX

#define R double
#define S d
#define WORK RnnWorkD
#define FN(x) NN_CAT(rd_, x)
#define EXP exp
#define TANH tanh
#define INX(in) ((in)->xd)
#include "rnn_impl.h"
#undef R
#undef S
#undef WORK
#undef FN
#undef EXP
#undef TANH
#undef INX

RnnWork *rnn_work_new(const RnnArch *a) { return rf_work_new(a); }
void rnn_work_free(RnnWork *w) { rf_work_free(w); }
RnnWorkD *rnn_work_new_d(const RnnArch *a) { return rd_work_new(a); }
void rnn_work_free_d(RnnWorkD *w) { rd_work_free(w); }

static void check_sizes(const RnnNet *net, const RnnInput *in, int cap)
{
    if (in->cap != net->arch.n_groups || in->G > cap || in->G < 1)
        util_die("rnn: a graph of %d groups (input for %d) on a network for %d (work space for %d)", in->G, in->cap,
                 net->arch.n_groups, cap);
}

double rnn_forward(const RnnNet *net, const RnnInput *in, RnnWork *w, int mode, Rng *rng, int *place,
                   double *logp, double *ent)
{
    check_sizes(net, in, w->G);
    return rf_forward(net, net->p.w, in, w, mode, rng, place, logp, ent);
}

void rnn_decode_begin(const RnnNet *net, const RnnInput *in, RnnWork *w)
{
    check_sizes(net, in, w->G);
    rf_begin(net, net->p.w, in, w);
}

int rnn_decode_step(const RnnNet *net, RnnWork *w, int t, int mode, Rng *rng, int forced, double *logp, double *ent)
{
    if (t < 0 || t >= w->Gc || (mode == RNN_SCORE && (forced < 0 || forced >= w->n)))
        util_die("rnn: decode step %d of %d (device %d)", t, w->Gc, forced);
    return rf_step(net, net->p.w, w, t, mode, rng, forced, logp, ent);
}

void rnn_work_set_noise(RnnWork *w, double noise) { w->noise = noise; }

void rnn_backward(const RnnNet *net, const RnnInput *in, RnnWork *w, const double *wt, double beta, float *grad)
{
    check_sizes(net, in, w->G);
    if (w->Gc != in->G)
        util_die("rnn: backward of a decode of %d groups on an input of %d", w->Gc, in->G);
    rf_backward(net, net->p.w, in, w, wt, beta, grad);
}

double rnn_forward_d(const RnnNet *net, const double *wd, const RnnInput *in, RnnWorkD *w, int mode, Rng *rng,
                     int *place, double *logp, double *ent)
{
    check_sizes(net, in, w->G);
    return rd_forward(net, wd, in, w, mode, rng, place, logp, ent);
}

void rnn_backward_d(const RnnNet *net, const double *wd, const RnnInput *in, RnnWorkD *w, const double *wt,
                    double beta, double *grad)
{
    check_sizes(net, in, w->G);
    if (w->Gc != in->G)
        util_die("rnn: backward of a decode of %d groups on an input of %d", w->Gc, in->G);
    rd_backward(net, wd, in, w, wt, beta, grad);
}

const float *rnn_work_probs(const RnnWork *w, int t) { return w->p + (size_t)t * (size_t)w->n; }
const float *rnn_work_attention(const RnnWork *w, int t) { return w->al + (size_t)t * (size_t)w->Gc; }
