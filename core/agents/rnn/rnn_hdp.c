/* rnn_hdp: the hierarchical planner's Grouper ahead of the RNN placer
 * (rnn_hdp.h). */
#include "rnn_hdp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"

struct RnnHdpWork {
    int N, F, H, L;
    double *wbuf;     /* F x H + H x L: the float weights converted (rnn_hdp_forward) */
    double *h, *p;    /* N x H (x W_ff), N x L (probabilities) */
    double *dl, *dh;  /* N x L, N x H: backward */
    int *grp;         /* N: the last forward's grouping */
    int n;            /* units of the last forward */
};

int rnn_hdp_default_groups(int n_devices)
{
    int L = 20 * n_devices;
    return L > 256 ? 256 : L < 2 ? 2 : L;
}

/* --- inputs ----------------------------------------------------------------- */

RnnHdpInput *rnn_hdp_input_new(const Graph *g, const Grouping *gr, const OpVocab *v)
{
    int N = gr->n_groups, T = v->n, F = T + 1 + 2 + 2 * RNN_HDP_NEIGHBOURS;
    RnnHdpInput *in = xcalloc(1, sizeof *in);
    in->N = N;
    in->F = F;
    in->x = XNEW(double, xmul((size_t)N, (size_t)F));
    double most = 0;
    for (int k = 0; k < N; k++)
        most = fmax(most, log1p((double)gr->bytes[k]));
    for (int k = 0; k < N; k++) {
        double *x = in->x + (size_t)k * (size_t)F;
        int nops = gr->member_off[k + 1] - gr->member_off[k];
        for (int q = gr->member_off[k]; q < gr->member_off[k + 1]; q++)
            x[vocab_find(v, g->nodes[gr->members[q]].op)] += 1.0 / nops;
        x[T + 1] = log1p((double)gr->bytes[k]) / (1 + most);
        x[T + 2] = (double)k / N;
        double *nb = x + T + 3;
        int m = 0;
        for (int j = gr->succ_off[k]; j < gr->succ_off[k + 1] && m < RNN_HDP_NEIGHBOURS; j++, m++) {
            nb[2 * m] = (double)gr->succ[j] / N;
            nb[2 * m + 1] = 1;
        }
        for (int j = gr->pred_off[k]; j < gr->pred_off[k + 1] && m < RNN_HDP_NEIGHBOURS; j++, m++) {
            nb[2 * m] = (double)gr->pred[j] / N;
            nb[2 * m + 1] = -1;
        }
    }
    return in;
}

void rnn_hdp_input_free(RnnHdpInput *in)
{
    if (!in)
        return;
    free(in->x);
    free(in);
}

/* --- work spaces --------------------------------------------------------------- */

RnnHdpWork *rnn_hdp_work_new(const RnnArch *a, int N)
{
    if (a->grouper != RNN_GROUPER_HDP)
        util_die("rnn_hdp: a work space for a network without a grouper");
    RnnHdpWork *w = xcalloc(1, sizeof *w);
    w->N = N < 1 ? 1 : N;
    w->F = rnn_hdp_inputs(a);
    w->H = a->grouper_hidden;
    w->L = a->n_groups;
    size_t n = (size_t)w->N, F = (size_t)w->F, H = (size_t)w->H, L = (size_t)w->L;
    w->wbuf = XNEW(double, F * H + H * L);
    w->h = XNEW(double, xmul(n, H));
    w->p = XNEW(double, xmul(n, L));
    w->dl = XNEW(double, xmul(n, L));
    w->dh = XNEW(double, xmul(n, H));
    w->grp = XNEW(int, n);
    return w;
}

void rnn_hdp_work_free(RnnHdpWork *w)
{
    if (!w)
        return;
    free(w->wbuf);
    free(w->h);
    free(w->p);
    free(w->dl);
    free(w->dh);
    free(w->grp);
    free(w);
}

/* --- forward and backward ------------------------------------------------------ */

static void tensors(const RnnNet *net, size_t *off_ff, size_t *off_g)
{
    int a = nn_params_find(&net->p, "grouper_ff"), b = nn_params_find(&net->p, "grouper_g");
    if (net->arch.grouper != RNN_GROUPER_HDP || a < 0 || b < 0)
        util_die("rnn_hdp: a network without a grouper");
    *off_ff = net->p.t[a].off;
    *off_g = net->p.t[b].off;
}

static void check(const RnnNet *net, const RnnHdpInput *in, const RnnHdpWork *w)
{
    if (in->N < 1 || in->N > w->N || in->F != w->F || w->L != net->arch.n_groups || w->H != net->arch.grouper_hidden)
        util_die("rnn_hdp: an input of %d units x %d on a work space for %d x %d", in->N, in->F, w->N, w->F);
}

static double forward(const double *Wff, const double *Wg, const RnnHdpInput *in, RnnHdpWork *w, int mode, Rng *rng,
                      int *grp)
{
    int N = in->N, F = w->F, H = w->H, L = w->L;
    double total = 0;
    w->n = N;
    for (int k = 0; k < N; k++) {
        const double *x = in->x + (size_t)k * (size_t)F;
        double *h = w->h + (size_t)k * (size_t)H, *p = w->p + (size_t)k * (size_t)L;
        for (int c = 0; c < H; c++)
            h[c] = 0;
        for (int f = 0; f < F; f++) {
            if (x[f] == 0)
                continue; /* most of a row (the type mix, the padding) is zero */
            const double *row = Wff + (size_t)f * (size_t)H;
            for (int c = 0; c < H; c++)
                h[c] += x[f] * row[c];
        }
        for (int j = 0; j < L; j++)
            p[j] = 0;
        for (int c = 0; c < H; c++) {
            const double *row = Wg + (size_t)c * (size_t)L;
            for (int j = 0; j < L; j++)
                p[j] += h[c] * row[j];
        }
        double mx = p[0], s = 0;
        for (int j = 1; j < L; j++)
            mx = fmax(mx, p[j]);
        for (int j = 0; j < L; j++) {
            p[j] = exp(p[j] - mx);
            s += p[j];
        }
        for (int j = 0; j < L; j++)
            p[j] /= s;
        int a = mode == RNN_SCORE ? grp[k] : mode == RNN_GREEDY ? sample_argmax_d(p, L)
                                                                 : sample_draw_d(p, L, rng_uniform(rng));
        if (a < 0 || a >= L)
            util_die("rnn_hdp: learned group %d out of range for unit %d", a, k);
        grp[k] = w->grp[k] = a;
        total += log(p[a]);
    }
    return total;
}

/* dJ/dlogits = wt (onehot - p), then dW_g += h^T dl, dh = dl W_g^T, dW_ff += x^T dh. */
static void backward(const double *Wg, const RnnHdpInput *in, RnnHdpWork *w, double wt, double *gff, double *gg)
{
    int N = w->n, F = w->F, H = w->H, L = w->L;
    if (N != in->N)
        util_die("rnn_hdp: backward of a forward of %d units on an input of %d", N, in->N);
    for (int k = 0; k < N; k++) {
        const double *p = w->p + (size_t)k * (size_t)L;
        double *dl = w->dl + (size_t)k * (size_t)L, *dh = w->dh + (size_t)k * (size_t)H;
        const double *h = w->h + (size_t)k * (size_t)H, *x = in->x + (size_t)k * (size_t)F;
        for (int j = 0; j < L; j++)
            dl[j] = wt * ((j == w->grp[k] ? 1 : 0) - p[j]);
        for (int c = 0; c < H; c++) {
            const double *row = Wg + (size_t)c * (size_t)L;
            double *grow = gg + (size_t)c * (size_t)L, s = 0;
            for (int j = 0; j < L; j++) {
                grow[j] += h[c] * dl[j];
                s += dl[j] * row[j];
            }
            dh[c] = s;
        }
        for (int f = 0; f < F; f++) {
            if (x[f] == 0)
                continue;
            double *grow = gff + (size_t)f * (size_t)H;
            for (int c = 0; c < H; c++)
                grow[c] += x[f] * dh[c];
        }
    }
}

double rnn_hdp_forward(const RnnNet *net, const RnnHdpInput *in, RnnHdpWork *w, int mode, Rng *rng, int *grp)
{
    check(net, in, w);
    size_t off_ff, off_g, nff = (size_t)w->F * (size_t)w->H, ng = (size_t)w->H * (size_t)w->L;
    tensors(net, &off_ff, &off_g);
    for (size_t i = 0; i < nff; i++)
        w->wbuf[i] = net->p.w[off_ff + i];
    for (size_t i = 0; i < ng; i++)
        w->wbuf[nff + i] = net->p.w[off_g + i];
    return forward(w->wbuf, w->wbuf + nff, in, w, mode, rng, grp);
}

void rnn_hdp_backward(const RnnNet *net, const RnnHdpInput *in, RnnHdpWork *w, double wt, float *grad)
{
    check(net, in, w);
    size_t off_ff, off_g, nff = (size_t)w->F * (size_t)w->H, ng = (size_t)w->H * (size_t)w->L;
    tensors(net, &off_ff, &off_g);
    /* the weights converted by the forward are still in wbuf; the gradient in double, then added */
    double *g = XNEW(double, nff + ng);
    backward(w->wbuf + nff, in, w, wt, g, g + nff);
    for (size_t i = 0; i < nff; i++)
        grad[off_ff + i] += (float)g[i];
    for (size_t i = 0; i < ng; i++)
        grad[off_g + i] += (float)g[nff + i];
    free(g);
}

double rnn_hdp_forward_d(const RnnNet *net, const double *wd, const RnnHdpInput *in, RnnHdpWork *w, int mode,
                         Rng *rng, int *grp)
{
    check(net, in, w);
    size_t off_ff, off_g;
    tensors(net, &off_ff, &off_g);
    return forward(wd + off_ff, wd + off_g, in, w, mode, rng, grp);
}

void rnn_hdp_backward_d(const RnnNet *net, const double *wd, const RnnHdpInput *in, RnnHdpWork *w, double wt,
                        double *grad)
{
    check(net, in, w);
    size_t off_ff, off_g;
    tensors(net, &off_ff, &off_g);
    backward(wd + off_g, in, w, wt, grad + off_ff, grad + off_g);
}

const double *rnn_hdp_probs(const RnnHdpWork *w, int k) { return w->p + (size_t)k * (size_t)w->L; }

/* --- the placer's side ----------------------------------------------------------- */

RnnInput *rnn_hdp_placer_input(const RnnNet *net, const Graph *g, const Grouping *gr, const int *grp)
{
    int L = net->arch.n_groups, N = gr->n_groups;
    /* the grouping of the ops into learned groups: only what rnn_input_new reads */
    Grouping lg;
    memset(&lg, 0, sizeof lg);
    lg.n_groups = L;
    lg.n_ops = gr->n_ops;
    lg.held = gr->held;
    lg.op_group = XMALLOC(int, gr->n_ops ? gr->n_ops : 1);
    lg.member_off = XNEW(int, L + 1);
    lg.members = XMALLOC(int, gr->n_ops ? gr->n_ops : 1);
    lg.bytes = XNEW(int64_t, L);
    for (int i = 0; i < gr->n_ops; i++) {
        lg.op_group[i] = grp[gr->op_group[i]];
        lg.member_off[lg.op_group[i] + 1]++;
    }
    for (int j = 0; j < L; j++)
        lg.member_off[j + 1] += lg.member_off[j];
    int *fill = XMALLOC(int, L);
    memcpy(fill, lg.member_off, (size_t)L * sizeof *fill);
    for (int i = 0; i < gr->n_ops; i++) /* each learned group's ops in graph order */
        lg.members[fill[lg.op_group[i]]++] = i;
    for (int k = 0; k < N; k++)
        lg.bytes[grp[k]] += gr->bytes[k];
    free(fill);
    Err e = {{0}};
    RnnInput *in = rnn_input_new(g, &lg, &net->vocab, L, &e);
    if (!in)
        util_die("rnn_hdp: %s", e.msg);
    free(lg.op_group);
    free(lg.member_off);
    free(lg.members);
    free(lg.bytes);
    return in;
}

void rnn_hdp_expand(const Grouping *gr, const int *grp, const int *placer, int *unit_device)
{
    for (int k = 0; k < gr->n_groups; k++)
        unit_device[k] = placer[grp[k]];
}

void rnn_hdp_stats(const Grouping *gr, const int *grp, int L, GroupClusterStats *s)
{
    int *id = XMALLOC(int, L), *c = XMALLOC(int, gr->n_groups), n = 0;
    for (int j = 0; j < L; j++)
        id[j] = -1;
    for (int k = 0; k < gr->n_groups; k++) {
        if (id[grp[k]] < 0)
            id[grp[k]] = n++;
        c[k] = id[grp[k]];
    }
    group_cluster_stats(gr, c, n, s);
    free(id);
    free(c);
}

/* --- one whole decode ----------------------------------------------------------- */

RnnHdpDecoder *rnn_hdp_decoder_new(const RnnNet *net, int N)
{
    RnnHdpDecoder *d = xcalloc(1, sizeof *d);
    d->net = net;
    d->hw = rnn_hdp_work_new(&net->arch, N);
    d->w = rnn_work_new(&net->arch);
    d->grp = XNEW(int, N < 1 ? 1 : N);
    d->pl = XNEW(int, net->arch.n_groups);
    return d;
}

void rnn_hdp_decoder_free(RnnHdpDecoder *d)
{
    if (!d)
        return;
    rnn_hdp_work_free(d->hw);
    rnn_work_free(d->w);
    free(d->grp);
    free(d->pl);
    free(d);
}

void rnn_hdp_decode(RnnHdpDecoder *d, const Graph *g, const Grouping *gr, const RnnHdpInput *in, int greedy, Rng *rng,
                    int *unit_device)
{
    int mode = greedy ? RNN_GREEDY : RNN_SAMPLE;
    rnn_hdp_forward(d->net, in, d->hw, mode, rng, d->grp);
    if (d->net->frozen) {
        rnn_hdp_expand(gr, d->grp, d->net->frozen, unit_device);
        return;
    }
    RnnInput *pin = rnn_hdp_placer_input(d->net, g, gr, d->grp);
    rnn_forward(d->net, pin, d->w, mode, rng, d->pl, NULL, NULL);
    rnn_input_free(pin);
    rnn_hdp_expand(gr, d->grp, d->pl, unit_device);
}
