/* rnn_impl: the text of the RNN placer's forward and backward passes,
 * included by rnn.c once per real type with R (the type), S (the kernel
 * suffix of nn.h), WORK (the work-space struct), FN(name) (the function
 * name for this type), EXP, TANH, LOG (libm of that type) and INX(in) (the
 * input's numeric columns of that type) defined. Not a public header.
 *
 * Shapes (G groups, F inputs, h hidden, u = h/2, n devices): every array is
 * packed row-major. Per encoder direction d (0 forward, 1 backward) and
 * row j: ZE[d] the activated gates [i f o g] (G x 4u), CE, TE (tanh c), HE
 * (G x u), and HP, CP the state before the row (G x u). The decoder: Y its
 * inputs, SP and CPD the states before step t, ZD the gates (G x 4h), CD,
 * TD, S (G x h); A the attention's queries s_t W2 (G x h; tanh(s_t W2 + M_j)
 * is recomputed in backward rather than kept: G x G x h), AL (G x G), Q
 * (G x h), L the squashed logits, P, LP (G x n). */

struct WORK {
    int G, F, h, u, n, e; /* G: the capacity the work space is sized for */
    int Gc;               /* the groups of the decode in progress (in->G) */
    double noise;         /* sampled decodes: logits noise, times the logits' RMS (0: none) */
    R *nz;                /* n: the noisy logits of a step */
    R *xin;                          /* G x F */
    R *ze[2], *ce[2], *te[2], *he[2], *hp[2], *cp[2];
    R *E, *M;                        /* G x h */
    R *y, *sp, *cpd, *zd, *cd, *td, *s; /* decoder, G x h (zd G x 4h) */
    R *A, *al, *q, *l, *p, *lp;      /* G x h (s_t W2), G x G, G x h, G x n (3) */
    R *h0, *c0;                      /* h each: the decoder's start states */
    int *act;                        /* G chosen devices */
    /* backward */
    R *dl, *dS, *dM, *dzd, *dE, *dze[2], *dxin, *dY; /* G x n, G x h, G x h, G x 4h, G x h, G x 4u, G x F, G x h */
    R *dsq, *dh, *dc, *da, *tmp;     /* 2h, h, h, h, 4h */
    R *mem;
};

static struct WORK *FN(work_new)(const RnnArch *a)
{
    struct WORK *w = xcalloc(1, sizeof *w);
    int G = a->n_groups, h = a->hidden, u = h / 2, n = a->n_devices, F = rnn_n_inputs(a);
    w->G = G;
    w->F = F;
    w->h = h;
    w->u = u;
    w->n = n;
    w->e = a->emb;
    size_t g = (size_t)G, gh = g * (size_t)h, gu = g * (size_t)u, gn = g * (size_t)n;
    size_t total = 2 * g * (size_t)F + 26 * gu + 22 * gh + g * g + 4 * gn + 11 * (size_t)h + (size_t)n;
    R *m = w->mem = XNEW(R, total);
#define TAKE(ptr, cnt) (ptr = m, m += (cnt))
    TAKE(w->xin, g * (size_t)F);
    for (int d = 0; d < 2; d++) {
        TAKE(w->ze[d], 4 * gu);
        TAKE(w->ce[d], gu);
        TAKE(w->te[d], gu);
        TAKE(w->he[d], gu);
        TAKE(w->hp[d], gu);
        TAKE(w->cp[d], gu);
        TAKE(w->dze[d], 4 * gu);
    }
    TAKE(w->E, gh);
    TAKE(w->M, gh);
    TAKE(w->y, gh);
    TAKE(w->sp, gh);
    TAKE(w->cpd, gh);
    TAKE(w->zd, 4 * gh);
    TAKE(w->cd, gh);
    TAKE(w->td, gh);
    TAKE(w->s, gh);
    TAKE(w->A, gh);
    TAKE(w->al, g * g);
    TAKE(w->q, gh);
    TAKE(w->l, gn);
    TAKE(w->p, gn);
    TAKE(w->lp, gn);
    TAKE(w->h0, (size_t)h);
    TAKE(w->c0, (size_t)h);
    TAKE(w->dl, gn);
    TAKE(w->dS, gh);
    TAKE(w->dM, gh);
    TAKE(w->dzd, 4 * gh);
    TAKE(w->dE, gh);
    TAKE(w->dxin, g * (size_t)F);
    TAKE(w->dY, gh);
    TAKE(w->dsq, 2 * (size_t)h);
    TAKE(w->dh, (size_t)h);
    TAKE(w->dc, (size_t)h);
    TAKE(w->da, (size_t)h);
    TAKE(w->tmp, 4 * (size_t)h);
    TAKE(w->nz, (size_t)n);
#undef TAKE
    if ((size_t)(m - w->mem) != total)
        util_die("rnn: work space overrun");
    w->act = XNEW(int, g);
    return w;
}

static void FN(work_free)(struct WORK *w)
{
    if (!w)
        return;
    free(w->mem);
    free(w->act);
    free(w);
}

static inline R FN(sig)(R x) { return 1 / (1 + EXP(-x)); }

/* One LSTM step of k units: z (4k, holding x W_x) += hprev W_h, then
 * activated in place; c, tc = tanh(c), hout from cprev. */
static void FN(lstm_step)(int blas, int k, const R *Wh, R fb, const R *hprev, const R *cprev, R *z, R *c, R *tc,
                          R *hout)
{
    NN_CAT(nn_gemm_, S)(blas, 0, 0, 1, 4 * k, k, 1, hprev, k, Wh, 4 * k, 1, z, 4 * k);
    for (int i = 0; i < k; i++) {
        R gi = FN(sig)(z[i]), gf = FN(sig)(z[k + i] + fb), go = FN(sig)(z[2 * k + i]), gg = TANH(z[3 * k + i]);
        z[i] = gi;
        z[k + i] = gf;
        z[2 * k + i] = go;
        z[3 * k + i] = gg;
        c[i] = gi * gg + gf * cprev[i];
        tc[i] = TANH(c[i]);
        hout[i] = go * tc[i];
    }
}

/* The backward of lstm_step for dh, dc (dc is overwritten with dc_prev):
 * writes dz (4k, pre-activation). */
static void FN(lstm_step_bwd)(int k, const R *z, const R *tc, const R *cprev, const R *dh, R *dc, R *dz)
{
    for (int i = 0; i < k; i++) {
        R gi = z[i], gf = z[k + i], go = z[2 * k + i], gg = z[3 * k + i];
        R dct = dc[i] + dh[i] * go * (1 - tc[i] * tc[i]);
        dz[i] = dct * gg * gi * (1 - gi);
        dz[k + i] = dct * cprev[i] * gf * (1 - gf);
        dz[2 * k + i] = dh[i] * tc[i] * go * (1 - go);
        dz[3 * k + i] = dct * gi * (1 - gg * gg);
        dc[i] = dct * gf;
    }
}

/* The part of a decode that does not depend on the actions: input rows,
 * both encoders, the memory and its projection, the decoder's start. */
static void FN(begin)(const RnnNet *net, const R *W, const RnnInput *in, struct WORK *w)
{
    const NnTensor *t = net->p.t;
    int blas = net->blas, G = in->G, F = w->F, h = w->h, u = w->u, e = w->e, nf = in->nf;
    w->Gc = G;
    const R *xnum = INX(in);
    const R *temb = W + t[RT_TYPE].off;
    /* input rows */
    for (int k = 0; k < G; k++) {
        R *x = w->xin + (size_t)k * (size_t)F;
        for (int c = 0; c < e; c++)
            x[c] = 0;
        for (int q = in->ty_off[k]; q < in->ty_off[k + 1]; q++) {
            const R *row = temb + (size_t)in->ty[q] * (size_t)e;
            R wt = (R)in->ty_w[q];
            for (int c = 0; c < e; c++)
                x[c] += wt * row[c];
        }
        memcpy(x + e, xnum + (size_t)k * (size_t)nf, (size_t)nf * sizeof *x);
    }
    /* encoder */
    R fb = W[t[RT_ENC_FB].off];
    for (int d = 0; d < 2; d++) {
        const R *Wd = W + t[d ? RT_ENC_BW : RT_ENC_FW].off;
        NN_CAT(nn_gemm_, S)(blas, 0, 0, G, 4 * u, F, 1, w->xin, F, Wd, 4 * u, 0, w->ze[d], 4 * u);
        for (int s = 0; s < G; s++) {
            int j = d ? G - 1 - s : s, prev = d ? j + 1 : j - 1;
            R *hp = w->hp[d] + (size_t)j * (size_t)u, *cp = w->cp[d] + (size_t)j * (size_t)u;
            if (s == 0) {
                memset(hp, 0, (size_t)u * sizeof *hp);
                memset(cp, 0, (size_t)u * sizeof *cp);
            } else {
                memcpy(hp, w->he[d] + (size_t)prev * (size_t)u, (size_t)u * sizeof *hp);
                memcpy(cp, w->ce[d] + (size_t)prev * (size_t)u, (size_t)u * sizeof *cp);
            }
            FN(lstm_step)(blas, u, Wd + (size_t)F * 4 * (size_t)u, fb, hp, cp, w->ze[d] + (size_t)j * 4 * (size_t)u,
                          w->ce[d] + (size_t)j * (size_t)u, w->te[d] + (size_t)j * (size_t)u,
                          w->he[d] + (size_t)j * (size_t)u);
        }
    }
    for (int j = 0; j < G; j++) {
        memcpy(w->E + (size_t)j * (size_t)h, w->he[0] + (size_t)j * (size_t)u, (size_t)u * sizeof(R));
        memcpy(w->E + (size_t)j * (size_t)h + u, w->he[1] + (size_t)j * (size_t)u, (size_t)u * sizeof(R));
    }
    memcpy(w->h0, w->he[0] + (size_t)(G - 1) * (size_t)u, (size_t)u * sizeof(R));
    memcpy(w->h0 + u, w->he[1], (size_t)u * sizeof(R));
    memcpy(w->c0, w->ce[0] + (size_t)(G - 1) * (size_t)u, (size_t)u * sizeof(R));
    memcpy(w->c0 + u, w->ce[1], (size_t)u * sizeof(R));
    NN_CAT(nn_gemm_, S)(blas, 0, 0, G, h, h, 1, w->E, h, W + t[RT_W1].off, h, 0, w->M, h);
}

/* Normal draw (Box-Muller on two uniforms of rng). */
static double FN(gauss)(Rng *rng)
{
    double u1 = rng_uniform(rng), u2 = rng_uniform(rng);
    return sqrt(-2 * log(1 - u1)) * cos(2 * 3.14159265358979323846 * u2);
}

/* Decoder step s (steps 0 .. s-1 done on w): the device of group s, chosen
 * as mode says (forced in RNN_SCORE); *lpa and *H (when not NULL) get its
 * log-probability and the step's entropy. */
static int FN(step)(const RnnNet *net, const R *W, struct WORK *w, int s, int mode, Rng *rng, int forced,
                    double *lpa, double *Hout)
{
    const NnTensor *t = net->p.t;
    int blas = net->blas, G = w->Gc, h = w->h, n = w->n;
    const R *Wdec = W + t[RT_DEC].off, *W2 = W + t[RT_W2].off, *v = W + t[RT_V].off, *Wout = W + t[RT_WOUT].off;
    R dfb = W[t[RT_DEC_FB].off], C = (R)net->arch.squash_c, tau = (R)net->arch.squash_tau;
    {
        size_t o = (size_t)s * (size_t)h;
        R *y = w->y + o, *sp = w->sp + o, *cp = w->cpd + o, *z = w->zd + 4 * o;
        memcpy(y, s == 0 ? W + t[RT_GO].off : W + t[RT_DEV].off + (size_t)w->act[s - 1] * (size_t)h,
               (size_t)h * sizeof *y);
        memcpy(sp, s == 0 ? w->h0 : w->s + o - h, (size_t)h * sizeof *sp);
        memcpy(cp, s == 0 ? w->c0 : w->cd + o - h, (size_t)h * sizeof *cp);
        NN_CAT(nn_gemm_, S)(blas, 0, 0, 1, 4 * h, h, 1, y, h, Wdec, 4 * h, 0, z, 4 * h);
        FN(lstm_step)(blas, h, Wdec + (size_t)h * 4 * (size_t)h, dfb, sp, cp, z, w->cd + o, w->td + o, w->s + o);
        const R *st = w->s + o;
        /* attention */
        R *qa = w->A + o, *al = w->al + (size_t)s * (size_t)G;
        NN_CAT(nn_gemm_, S)(blas, 0, 0, 1, h, h, 1, st, h, W2, h, 0, qa, h);
        for (int j = 0; j < G; j++) {
            const R *mj = w->M + (size_t)j * (size_t)h;
            R uj = 0;
            for (int c = 0; c < h; c++)
                uj += TANH(qa[c] + mj[c]) * v[c];
            al[j] = uj;
        }
        NN_CAT(nn_softmax_, S)(al, G, al, NULL);
        R *q = w->q + o;
        for (int c = 0; c < h; c++)
            q[c] = 0;
        for (int j = 0; j < G; j++) {
            const R *mj = w->M + (size_t)j * (size_t)h;
            for (int c = 0; c < h; c++)
                q[c] += al[j] * mj[c];
        }
        /* head */
        R *l = w->l + (size_t)s * (size_t)n, *p = w->p + (size_t)s * (size_t)n, *lp = w->lp + (size_t)s * (size_t)n;
        NN_CAT(nn_gemm_, S)(blas, 0, 0, 1, n, h, 1, st, h, Wout, n, 0, l, n);
        NN_CAT(nn_gemm_, S)(blas, 0, 0, 1, n, h, 1, q, h, Wout + (size_t)h * (size_t)n, n, 1, l, n);
        for (int i = 0; i < n; i++)
            l[i] = C * TANH(l[i] / tau);
        if (mode == RNN_SAMPLE && w->noise > 0) { /* the noise is a constant to the gradient */
            double ss = 0;
            for (int i = 0; i < n; i++)
                ss += (double)l[i] * (double)l[i];
            double sd = w->noise * sqrt(ss / n);
            for (int i = 0; i < n; i++)
                w->nz[i] = l[i] + (R)(sd * FN(gauss)(rng));
            NN_CAT(nn_softmax_, S)(w->nz, n, p, lp);
        } else {
            NN_CAT(nn_softmax_, S)(l, n, p, lp);
        }
        int a;
        if (mode == RNN_SCORE) {
            a = forced;
        } else if (mode == RNN_GREEDY) {
            a = NN_CAT(sample_argmax_, S)(p, n);
        } else {
            a = NN_CAT(sample_draw_, S)(p, n, rng_uniform(rng));
        }
        if (a < 0 || a >= n)
            util_die("rnn: device %d out of range at step %d", a, s);
        w->act[s] = a;
        if (lpa)
            *lpa = (double)lp[a];
        if (Hout) {
            double H = 0;
            for (int i = 0; i < n; i++)
                H -= (double)p[i] * (double)lp[i];
            *Hout = H;
        }
        return a;
    }
}

static double FN(forward)(const RnnNet *net, const R *W, const RnnInput *in, struct WORK *w, int mode, Rng *rng,
                          int *place, double *logp_out, double *ent_out)
{
    FN(begin)(net, W, in, w);
    double total = 0;
    for (int s = 0; s < in->G; s++) {
        double lpa, H;
        place[s] = FN(step)(net, W, w, s, mode, rng, mode == RNN_SCORE ? place[s] : 0, &lpa, &H);
        total += lpa;
        if (logp_out)
            logp_out[s] = lpa;
        if (ent_out)
            ent_out[s] = H;
    }
    return total;
}

/* dJ/dl_t for J = wt log p[a] + beta H: wt (onehot - p) - beta p (lp + H). */
static void FN(head_grad)(int n, const R *p, const R *lp, int a, R wt, R beta, R *dl)
{
    R H = 0;
    for (int i = 0; i < n; i++)
        H -= p[i] * lp[i];
    for (int i = 0; i < n; i++)
        dl[i] = wt * ((i == a ? 1 : 0) - p[i]) - beta * p[i] * (lp[i] + H);
}

static void FN(backward)(const RnnNet *net, const R *W, const RnnInput *in, struct WORK *w, const double *wt,
                         double beta, R *grad)
{
    const NnTensor *t = net->p.t;
    int blas = net->blas, G = w->Gc, F = w->F, h = w->h, u = w->u, n = w->n, e = w->e;
    R C = (R)net->arch.squash_c, tau = (R)net->arch.squash_tau;
    const R *W2 = W + t[RT_W2].off, *v = W + t[RT_V].off, *Wout = W + t[RT_WOUT].off, *Wdec = W + t[RT_DEC].off;
    R *gW2 = grad + t[RT_W2].off, *gv = grad + t[RT_V].off, *gWout = grad + t[RT_WOUT].off;
    memset(w->dM, 0, (size_t)G * (size_t)h * sizeof(R));
    /* head and attention, per step: dS (from the head and the attention), dM */
    for (int s = 0; s < G; s++) {
        size_t o = (size_t)s * (size_t)h;
        R *l = w->l + (size_t)s * (size_t)n, *dl = w->dl + (size_t)s * (size_t)n;
        FN(head_grad)(n, w->p + (size_t)s * (size_t)n, w->lp + (size_t)s * (size_t)n, w->act[s], (R)wt[s], (R)beta,
                      dl);
        for (int i = 0; i < n; i++) {
            R r = l[i] / C;
            dl[i] *= C / tau * (1 - r * r);
        }
        /* d[s, q] = Wout dl */
        NN_CAT(nn_gemm_, S)(blas, 0, 1, 1, 2 * h, n, 1, dl, n, Wout, n, 0, w->dsq, 2 * h);
        R *ds = w->dS + o, *dq = w->dsq + h;
        memcpy(ds, w->dsq, (size_t)h * sizeof *ds);
        const R *a = w->A + o, *al = w->al + (size_t)s * (size_t)G;
        /* dalpha_j = dq . M_j; du = alpha (dalpha - sum alpha dalpha) */
        R *du = w->dzd; /* G values: dzd is free until the decoder's pass */
        R mean = 0;
        for (int j = 0; j < G; j++) {
            const R *mj = w->M + (size_t)j * (size_t)h;
            R dA = 0;
            for (int c = 0; c < h; c++)
                dA += dq[c] * mj[c];
            du[j] = dA;
            mean += al[j] * dA;
        }
        for (int c = 0; c < h; c++)
            w->da[c] = 0;
        for (int j = 0; j < G; j++) {
            R duj = al[j] * (du[j] - mean);
            const R *mj = w->M + (size_t)j * (size_t)h;
            R *dmj = w->dM + (size_t)j * (size_t)h;
            for (int c = 0; c < h; c++) {
                R pr = TANH(a[c] + mj[c]); /* recomputed: storing it would take G x G x h */
                R dp = duj * v[c] * (1 - pr * pr);
                gv[c] += duj * pr;
                w->da[c] += dp;
                dmj[c] += dp + al[j] * dq[c];
            }
        }
        /* a = s W2 */
        NN_CAT(nn_gemm_, S)(blas, 1, 0, h, h, 1, 1, w->s + o, h, w->da, h, 1, gW2, h);
        NN_CAT(nn_gemm_, S)(blas, 0, 1, 1, h, h, 1, w->da, h, W2, h, 1, ds, h);
    }
    /* Wout += [S Q]^T dl */
    NN_CAT(nn_gemm_, S)(blas, 1, 0, h, n, G, 1, w->s, h, w->dl, n, 1, gWout, n);
    NN_CAT(nn_gemm_, S)(blas, 1, 0, h, n, G, 1, w->q, h, w->dl, n, 1, gWout + (size_t)h * (size_t)n, n);
    /* decoder through time */
    memset(w->dh, 0, (size_t)h * sizeof(R));
    memset(w->dc, 0, (size_t)h * sizeof(R));
    R gdfb = 0;
    for (int s = G - 1; s >= 0; s--) {
        size_t o = (size_t)s * (size_t)h;
        R *dz = w->dzd + 4 * o;
        for (int c = 0; c < h; c++)
            w->dh[c] += w->dS[o + (size_t)c];
        FN(lstm_step_bwd)(h, w->zd + 4 * o, w->td + o, w->cpd + o, w->dh, w->dc, dz);
        for (int c = 0; c < h; c++)
            gdfb += dz[h + c];
        /* dh_prev = dz W_h^T */
        NN_CAT(nn_gemm_, S)(blas, 0, 1, 1, h, 4 * h, 1, dz, 4 * h, Wdec + (size_t)h * 4 * (size_t)h, 4 * h, 0, w->dh,
                            h);
    }
    grad[t[RT_DEC_FB].off] += gdfb;
    R *gdec = grad + t[RT_DEC].off;
    NN_CAT(nn_gemm_, S)(blas, 1, 0, h, 4 * h, G, 1, w->y, h, w->dzd, 4 * h, 1, gdec, 4 * h);
    NN_CAT(nn_gemm_, S)(blas, 1, 0, h, 4 * h, G, 1, w->sp, h, w->dzd, 4 * h, 1, gdec + (size_t)h * 4 * (size_t)h,
                        4 * h);
    NN_CAT(nn_gemm_, S)(blas, 0, 1, G, h, 4 * h, 1, w->dzd, 4 * h, Wdec, 4 * h, 0, w->dY, h);
    for (int s = 0; s < G; s++) {
        R *g = s == 0 ? grad + t[RT_GO].off : grad + t[RT_DEV].off + (size_t)w->act[s - 1] * (size_t)h;
        const R *dy = w->dY + (size_t)s * (size_t)h;
        for (int c = 0; c < h; c++)
            g[c] += dy[c];
    }
    /* M = E W1 */
    NN_CAT(nn_gemm_, S)(blas, 1, 0, h, h, G, 1, w->E, h, w->dM, h, 1, grad + t[RT_W1].off, h);
    NN_CAT(nn_gemm_, S)(blas, 0, 1, G, h, h, 1, w->dM, h, W + t[RT_W1].off, h, 0, w->dE, h);
    /* encoders through time: w->dh, w->dc hold the gradient of h0, c0 */
    R gfb = 0;
    for (int d = 0; d < 2; d++) {
        const R *Wd = W + t[d ? RT_ENC_BW : RT_ENC_FW].off, *Wh = Wd + (size_t)F * 4 * (size_t)u;
        R *dhe = w->tmp, *dce = w->tmp + u, *dhn = w->tmp + 2 * u;
        memcpy(dhe, w->dh + d * u, (size_t)u * sizeof(R));
        memcpy(dce, w->dc + d * u, (size_t)u * sizeof(R));
        for (int s = G - 1; s >= 0; s--) {
            int j = d ? G - 1 - s : s;
            size_t o = (size_t)j * (size_t)u;
            const R *dEj = w->dE + (size_t)j * (size_t)h + d * u;
            for (int c = 0; c < u; c++)
                dhe[c] += dEj[c];
            R *dz = w->dze[d] + 4 * o;
            FN(lstm_step_bwd)(u, w->ze[d] + 4 * o, w->te[d] + o, w->cp[d] + o, dhe, dce, dz);
            for (int c = 0; c < u; c++)
                gfb += dz[u + c];
            NN_CAT(nn_gemm_, S)(blas, 0, 1, 1, u, 4 * u, 1, dz, 4 * u, Wh, 4 * u, 0, dhn, u);
            memcpy(dhe, dhn, (size_t)u * sizeof(R));
        }
        R *gW = grad + t[d ? RT_ENC_BW : RT_ENC_FW].off;
        NN_CAT(nn_gemm_, S)(blas, 1, 0, F, 4 * u, G, 1, w->xin, F, w->dze[d], 4 * u, 1, gW, 4 * u);
        NN_CAT(nn_gemm_, S)(blas, 1, 0, u, 4 * u, G, 1, w->hp[d], u, w->dze[d], 4 * u, 1,
                            gW + (size_t)F * 4 * (size_t)u, 4 * u);
        /* dxin: only the embedding columns carry gradient */
        NN_CAT(nn_gemm_, S)(blas, 0, 1, G, e, 4 * u, 1, w->dze[d], 4 * u, Wd, 4 * u, d ? 1 : 0, w->dxin, F);
    }
    grad[t[RT_ENC_FB].off] += gfb;
    R *gemb = grad + t[RT_TYPE].off;
    for (int k = 0; k < G; k++) {
        const R *dx = w->dxin + (size_t)k * (size_t)F;
        for (int q = in->ty_off[k]; q < in->ty_off[k + 1]; q++) {
            R *row = gemb + (size_t)in->ty[q] * (size_t)e;
            R wq = (R)in->ty_w[q];
            for (int c = 0; c < e; c++)
                row[c] += wq * dx[c];
        }
    }
}
