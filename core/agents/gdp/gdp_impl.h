/* gdp_impl: the text of the GDP network's forward and backward passes,
 * included by gdp.c once per real type with R (the type), S (the kernel
 * suffix of nn.h), WORK (the work-space struct), FN(name) (the function
 * name for this type), SQRT (libm of that type) and INX(in) (the input's
 * features of that type) defined. The Transformer blocks are in
 * gdp_attn_impl.h, included from here. Not a public header.
 *
 * Shapes (G groups, F inputs, h hidden, n devices, H heads of width
 * dh = h/H, kw = min(G, 2S) the widest attention row): every array is
 * packed row-major. Hs[0] the projection, Hs[l+1] the output of GraphSAGE
 * layer l (G x h); P[l] its messages ReLU(H W_a + b_a) (G x h), cat[l] the
 * concatenation [H, m] (G x 2h), arg[l] the arg-max neighbour per (node,
 * column). Per block l: c[l] the conditioning vector (h), xb[l] the block
 * input after the superposition, q, k, v (G x h), km, vm the keys and
 * values of the memory when it is frozen (else unused), xfz[l] the frozen
 * memory, A[l] the attention rows (H x G x kw: head, row, the keys of the
 * row's memory and segment), o[l] concat_h(A V), xh1, sg1, y1 the first
 * layer norm (x-hat, sigma, output), f1 (G x 4h), xh2, sg2, y2 the second.
 * Head: l, p, lp (G x n). */

struct WORK {
    int G;                 /* the capacity */
    int Gc;                /* the groups of the last forward (in->G) */
    int F, h, n, H, dh, Lg, Lp, seg, kw, sup;
    int frozen;            /* the memory is read from xfz (gradient check) */
    int acted;             /* the last forward chose a placement (act): not GDP_PROBS */
    R *Hs[GDP_MAX_LAYERS + 1], *P[GDP_MAX_LAYERS], *cat[GDP_MAX_LAYERS];
    int *arg[GDP_MAX_LAYERS];
    R *gmean;              /* h: the mean of the GraphSAGE outputs */
    R *c[GDP_MAX_LAYERS], *xb[GDP_MAX_LAYERS], *q[GDP_MAX_LAYERS], *k[GDP_MAX_LAYERS], *v[GDP_MAX_LAYERS];
    R *km[GDP_MAX_LAYERS], *vm[GDP_MAX_LAYERS], *xfz[GDP_MAX_LAYERS], *A[GDP_MAX_LAYERS], *o[GDP_MAX_LAYERS];
    R *xh1[GDP_MAX_LAYERS], *sg1[GDP_MAX_LAYERS], *y1[GDP_MAX_LAYERS], *f1[GDP_MAX_LAYERS];
    R *xh2[GDP_MAX_LAYERS], *sg2[GDP_MAX_LAYERS], *y2[GDP_MAX_LAYERS];
    R *z;                  /* G x h: a pre-norm sum */
    R *l, *p, *lp;         /* G x n */
    int *act;              /* G chosen devices */
    /* backward */
    R *dl;                                                  /* G x n */
    R *dX, *dXb, *dQ, *dK, *dV, *dKm, *dVm, *dO, *dZ, *dY1; /* G x h */
    R *dF;                                                  /* G x 4h */
    R *dA;                                                  /* min(G, S) x kw */
    R *dH, *dP, *dCat;                                      /* G x h, G x h, G x 2h */
    R *dc, *dg;                                             /* h */
    R *mem;
    int *imem;
};

/* Lays the arrays out from base (NULL: only counts); returns the count. */
static size_t FN(work_layout)(struct WORK *w, R *base)
{
    size_t off = 0, g = (size_t)w->G, h = (size_t)w->h, gh = g * h, gn = g * (size_t)w->n;
    size_t smax = (size_t)(w->seg < w->G ? w->seg : w->G), kw = (size_t)w->kw;
#define TAKE(ptr, cnt)                                                                                              \
    do {                                                                                                           \
        if (base)                                                                                                  \
            (ptr) = base + off;                                                                                    \
        off += (cnt);                                                                                              \
    } while (0)
    TAKE(w->Hs[0], gh);
    for (int l = 0; l < w->Lg; l++) {
        TAKE(w->P[l], gh);
        TAKE(w->cat[l], 2 * gh);
        TAKE(w->Hs[l + 1], gh);
    }
    TAKE(w->gmean, h);
    for (int l = 0; l < w->Lp; l++) {
        TAKE(w->c[l], h);
        TAKE(w->xb[l], gh);
        TAKE(w->q[l], gh);
        TAKE(w->k[l], gh);
        TAKE(w->v[l], gh);
        TAKE(w->km[l], gh);
        TAKE(w->vm[l], gh);
        TAKE(w->xfz[l], gh);
        TAKE(w->A[l], (size_t)w->H * g * kw);
        TAKE(w->o[l], gh);
        TAKE(w->xh1[l], gh);
        TAKE(w->sg1[l], g);
        TAKE(w->y1[l], gh);
        TAKE(w->f1[l], 4 * gh);
        TAKE(w->xh2[l], gh);
        TAKE(w->sg2[l], g);
        TAKE(w->y2[l], gh);
    }
    TAKE(w->z, gh);
    TAKE(w->l, gn);
    TAKE(w->p, gn);
    TAKE(w->lp, gn);
    TAKE(w->dl, gn);
    TAKE(w->dX, gh);
    TAKE(w->dXb, gh);
    TAKE(w->dQ, gh);
    TAKE(w->dK, gh);
    TAKE(w->dV, gh);
    TAKE(w->dKm, gh);
    TAKE(w->dVm, gh);
    TAKE(w->dO, gh);
    TAKE(w->dZ, gh);
    TAKE(w->dY1, gh);
    TAKE(w->dF, 4 * gh);
    TAKE(w->dA, smax * kw);
    TAKE(w->dH, gh);
    TAKE(w->dP, gh);
    TAKE(w->dCat, 2 * gh);
    TAKE(w->dc, h);
    TAKE(w->dg, h);
#undef TAKE
    return off;
}

static struct WORK *FN(work_new)(const GdpArch *a, int G)
{
    struct WORK *w = xcalloc(1, sizeof *w);
    w->G = G;
    w->F = gdp_n_inputs(a);
    w->h = a->hidden;
    w->n = a->n_devices;
    w->H = a->heads;
    w->dh = a->hidden / a->heads;
    w->Lg = a->gnn_layers;
    w->Lp = a->blocks;
    w->seg = a->segment;
    w->kw = 2 * a->segment < G ? 2 * a->segment : G;
    w->sup = a->superposition;
    size_t total = FN(work_layout)(w, NULL);
    w->mem = XNEW(R, total);
    FN(work_layout)(w, w->mem);
    size_t gh = xmul((size_t)G, (size_t)a->hidden);
    w->imem = XNEW(int, xmul(gh, (size_t)(w->Lg)) + (size_t)G);
    for (int l = 0; l < w->Lg; l++)
        w->arg[l] = w->imem + (size_t)l * gh;
    w->act = w->imem + (size_t)w->Lg * gh;
    return w;
}

static void FN(work_free)(struct WORK *w)
{
    if (!w)
        return;
    free(w->mem);
    free(w->imem);
    free(w);
}

/* --- kernels ------------------------------------------------------------------ */

/* Y = X W + b (b may be NULL: 0) over n rows, ReLU'd when relu is 1. */
static void FN(lin)(int blas, int n, int in, int out, const R *X, int ldx, const R *W, const R *b, int relu, R *Y,
                    int ldy)
{
    for (int i = 0; i < n; i++) {
        R *y = Y + (size_t)i * (size_t)ldy;
        for (int j = 0; j < out; j++)
            y[j] = b ? b[j] : 0;
    }
    NN_CAT(nn_gemm_, S)(blas, 0, 0, n, out, in, 1, X, ldx, W, out, 1, Y, ldy);
    if (relu)
        for (int i = 0; i < n; i++) {
            R *y = Y + (size_t)i * (size_t)ldy;
            for (int j = 0; j < out; j++)
                y[j] = y[j] > 0 ? y[j] : 0;
        }
}

/* dW += X^T dY, db += column sums of dY (db may be NULL). */
static void FN(lin_bwd_w)(int blas, int n, int in, int out, const R *X, int ldx, const R *dY, int ldy, R *dW, R *db)
{
    NN_CAT(nn_gemm_, S)(blas, 1, 0, in, out, n, 1, X, ldx, dY, ldy, 1, dW, out);
    if (db)
        for (int i = 0; i < n; i++) {
            const R *row = dY + (size_t)i * (size_t)ldy;
            for (int j = 0; j < out; j++)
                db[j] += row[j];
        }
}

/* dx *= (y > 0) over n rows of width m. */
static void FN(relu_bwd)(int n, int m, const R *Y, int ldy, R *dX, int lddx)
{
    for (int i = 0; i < n; i++) {
        const R *y = Y + (size_t)i * (size_t)ldy;
        R *d = dX + (size_t)i * (size_t)lddx;
        for (int j = 0; j < m; j++)
            d[j] = y[j] > 0 ? d[j] : 0;
    }
}

/* M[v] (row stride ldm) = element-wise max of P[u] over v's neighbours. */
static void FN(max_agg)(int G, int h, const int *nb_off, const int *nb, const R *P, R *M, int ldm, int *arg)
{
    for (int v = 0; v < G; v++) {
        R *m = M + (size_t)v * (size_t)ldm;
        int *a = arg + (size_t)v * (size_t)h;
        if (nb_off[v] == nb_off[v + 1]) {
            for (int c = 0; c < h; c++) {
                m[c] = 0;
                a[c] = -1;
            }
            continue;
        }
        const R *p0 = P + (size_t)nb[nb_off[v]] * (size_t)h;
        for (int c = 0; c < h; c++) {
            m[c] = p0[c];
            a[c] = nb[nb_off[v]];
        }
        for (int q = nb_off[v] + 1; q < nb_off[v + 1]; q++) { /* branch-free: the compiler vectorises it */
            const R *pu = P + (size_t)nb[q] * (size_t)h;
            int u = nb[q];
            for (int c = 0; c < h; c++) {
                int gt = pu[c] > m[c];
                a[c] = gt ? u : a[c];
                m[c] = gt ? pu[c] : m[c];
            }
        }
    }
}

static void FN(max_agg_bwd)(int G, int h, const int *arg, const R *dM, int lddm, R *dP)
{
    for (int v = 0; v < G; v++) {
        const int *a = arg + (size_t)v * (size_t)h;
        const R *d = dM + (size_t)v * (size_t)lddm;
        for (int c = 0; c < h; c++)
            if (a[c] >= 0)
                dP[(size_t)a[c] * (size_t)h + (size_t)c] += d[c];
    }
}

#include "gdp_attn_impl.h"

/* --- the placement from the probabilities ------------------------------------------ */

/* Group v's entropy H_v = -sum p log p over the last forward's probabilities (in double). */
static double FN(entropy)(const struct WORK *w, int v)
{
    const R *p = w->p + (size_t)v * (size_t)w->n, *lp = w->lp + (size_t)v * (size_t)w->n;
    double H = 0;
    for (int i = 0; i < w->n; i++)
        H -= (double)p[i] * (double)lp[i];
    return H;
}

/* A placement from the probabilities of the last forward on w (gdp.h, gdp_work_pick). */
static double FN(pick)(const struct WORK *w, int mode, Rng *rng, int *place, double *logp_out, double *ent_out)
{
    int G = w->Gc, n = w->n;
    double total = 0;
    for (int v = 0; v < G; v++) {
        const R *p = w->p + (size_t)v * (size_t)n, *lp = w->lp + (size_t)v * (size_t)n;
        int a;
        if (mode == GDP_SCORE) {
            a = place[v];
        } else if (mode == GDP_GREEDY) {
            a = NN_CAT(sample_argmax_, S)(p, n);
        } else {
            a = NN_CAT(sample_draw_, S)(p, n, rng_uniform(rng));
        }
        if (a < 0 || a >= n)
            util_die("gdp: device %d out of range for group %d", a, v);
        place[v] = a;
        total += (double)lp[a];
        if (logp_out)
            logp_out[v] = (double)lp[a];
        if (ent_out)
            ent_out[v] = FN(entropy)(w, v);
    }
    return total;
}

/* dl (G x n) = dJ/dlogits of J = sum_k [sum_v wt[k][v] log p_v(place[k][v])] + K beta sum_v H_v
 * on the last forward: sum_k wt[k][v] (onehot(place[k][v]) - p_v) - K beta p_v (log p_v + H_v),
 * summed in double over k in order. */
static void FN(logit_grad)(const struct WORK *w, int K, const int *const *place, const double *const *wt,
                           double beta, R *dl)
{
    int G = w->Gc, n = w->n;
    double acc[GDP_MAX_DEVICES];
    for (int v = 0; v < G; v++) {
        const R *p = w->p + (size_t)v * (size_t)n, *lp = w->lp + (size_t)v * (size_t)n;
        double H = FN(entropy)(w, v), sw = 0, kb = (double)K * beta;
        for (int i = 0; i < n; i++)
            acc[i] = 0;
        for (int k = 0; k < K; k++) {
            int a = place[k][v];
            if (a < 0 || a >= n)
                util_die("gdp: device %d out of range for group %d", a, v);
            acc[a] += wt[k][v];
            sw += wt[k][v];
        }
        R *d = dl + (size_t)v * (size_t)n;
        for (int i = 0; i < n; i++)
            d[i] = (R)(acc[i] - sw * (double)p[i] - kb * (double)p[i] * ((double)lp[i] + H));
    }
}

/* --- forward -------------------------------------------------------------------- */

static double FN(forward)(const GdpNet *net, const R *W, const GdpInput *in, struct WORK *w, int mode, Rng *rng,
                          int *place, double *logp_out, double *ent_out)
{
    const NnTensor *t = net->p.t;
    int blas = net->blas, G = in->G, F = w->F, h = w->h, n = w->n;
    w->Gc = G;
    /* input projection */
    FN(lin)(blas, G, F, h, INX(in), F, W + t[net->t_in_W].off, W + t[net->t_in_b].off, 1, w->Hs[0], h);
    /* GraphSAGE */
    for (int l = 0; l < w->Lg; l++) {
        const GdpGnnT *gt = &net->gnn[l];
        FN(lin)(blas, G, h, h, w->Hs[l], h, W + t[gt->Wa].off, W + t[gt->ba].off, 1, w->P[l], h);
        for (int v = 0; v < G; v++)
            memcpy(w->cat[l] + (size_t)v * 2 * (size_t)h, w->Hs[l] + (size_t)v * (size_t)h, (size_t)h * sizeof(R));
        FN(max_agg)(G, h, in->nb_off, in->nb, w->P[l], w->cat[l] + h, 2 * h, w->arg[l]);
        FN(lin)(blas, G, 2 * h, h, w->cat[l], 2 * h, W + t[gt->Wf].off, W + t[gt->bf].off, 1, w->Hs[l + 1], h);
    }
    const R *E = w->Hs[w->Lg];
    for (int c = 0; c < h; c++)
        w->gmean[c] = 0;
    for (int v = 0; v < G; v++)
        for (int c = 0; c < h; c++)
            w->gmean[c] += E[(size_t)v * (size_t)h + (size_t)c];
    for (int c = 0; c < h; c++)
        w->gmean[c] /= (R)G;
    /* placement network */
    for (int l = 0; l < w->Lp; l++)
        FN(block_fwd)(net, W, w, l);
    /* head */
    const R *X = w->y2[w->Lp - 1];
    FN(lin)(blas, G, h, n, X, h, W + t[net->t_head_W].off, W + t[net->t_head_b].off, 0, w->l, n);
    for (int v = 0; v < G; v++) {
        size_t o = (size_t)v * (size_t)n;
        NN_CAT(nn_softmax_, S)(w->l + o, n, w->p + o, w->lp + o);
    }
    w->acted = mode != GDP_PROBS;
    if (mode == GDP_PROBS)
        return 0;
    double total = FN(pick)(w, mode, rng, place, logp_out, ent_out);
    memcpy(w->act, place, (size_t)G * sizeof *place);
    return total;
}

/* --- backward ------------------------------------------------------------------- */

/* grad += dJ/dparams of the last forward on w, given dJ/dlogits in w->dl. */
static void FN(backward_dl)(const GdpNet *net, const R *W, const GdpInput *in, struct WORK *w, R *grad)
{
    const NnTensor *t = net->p.t;
    int blas = net->blas, G = w->Gc, F = w->F, h = w->h, n = w->n;
    const R *X = w->y2[w->Lp - 1], *Wh = W + t[net->t_head_W].off;
    FN(lin_bwd_w)(blas, G, h, n, X, h, w->dl, n, grad + t[net->t_head_W].off, grad + t[net->t_head_b].off);
    NN_CAT(nn_gemm_, S)(blas, 0, 1, G, h, n, 1, w->dl, n, Wh, n, 0, w->dX, h);
    /* placement network: dX is the gradient of the block's output, then of its input */
    for (int c = 0; c < h; c++)
        w->dg[c] = 0;
    for (int l = w->Lp - 1; l >= 0; l--)
        FN(block_bwd)(net, W, w, l, grad);
    /* the GraphSAGE output: dE = dX + dg / G on every row */
    for (int v = 0; v < G; v++)
        for (int c = 0; c < h; c++) {
            size_t i = (size_t)v * (size_t)h + (size_t)c;
            w->dH[i] = w->dX[i] + w->dg[c] / (R)G;
        }
    for (int l = w->Lg - 1; l >= 0; l--) {
        const GdpGnnT *gt = &net->gnn[l];
        FN(relu_bwd)(G, h, w->Hs[l + 1], h, w->dH, h);
        FN(lin_bwd_w)(blas, G, 2 * h, h, w->cat[l], 2 * h, w->dH, h, grad + t[gt->Wf].off, grad + t[gt->bf].off);
        NN_CAT(nn_gemm_, S)(blas, 0, 1, G, 2 * h, h, 1, w->dH, h, W + t[gt->Wf].off, h, 0, w->dCat, 2 * h);
        memset(w->dP, 0, (size_t)G * (size_t)h * sizeof(R));
        FN(max_agg_bwd)(G, h, w->arg[l], w->dCat + h, 2 * h, w->dP);
        FN(relu_bwd)(G, h, w->P[l], h, w->dP, h);
        FN(lin_bwd_w)(blas, G, h, h, w->Hs[l], h, w->dP, h, grad + t[gt->Wa].off, grad + t[gt->ba].off);
        for (int v = 0; v < G; v++)
            memcpy(w->dH + (size_t)v * (size_t)h, w->dCat + (size_t)v * 2 * (size_t)h, (size_t)h * sizeof(R));
        NN_CAT(nn_gemm_, S)(blas, 0, 1, G, h, h, 1, w->dP, h, W + t[gt->Wa].off, h, 1, w->dH, h);
    }
    FN(relu_bwd)(G, h, w->Hs[0], h, w->dH, h);
    FN(lin_bwd_w)(blas, G, F, h, INX(in), F, w->dH, h, grad + t[net->t_in_W].off, grad + t[net->t_in_b].off);
}

/* The backward of one placement (the last forward's, w->act): its dJ/dlogits, then the shared part. */
static void FN(backward)(const GdpNet *net, const R *W, const GdpInput *in, struct WORK *w, const double *wt,
                         double beta, R *grad)
{
    const int *act = w->act;
    FN(logit_grad)(w, 1, &act, &wt, beta, w->dl);
    FN(backward_dl)(net, W, in, w, grad);
}
