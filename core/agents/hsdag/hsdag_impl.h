/* hsdag_impl: the text of the HSDAG network's forward and backward passes,
 * included by hsdag.c once per real type with R (the type) and S (the
 * kernel suffix of nn.h: f or d) defined, and by suffix: WORK_S (the work
 * space struct), EXP_S (libm's exp of that type), AVAL_S(in) (the input's
 * adjacency values of that type) and PAD_S(width) (the row stride of an
 * array of that width: nn_pad for float, so that the vector kernels take
 * the narrow layers, the width itself for double). Functions are named
 * hf_* and hd_*. Not a public header.
 *
 * Shapes (G groups, E undirected edges, Q = E + G scored pairs: the edges,
 * then the self-loops of groups 0 .. G-1; C <= G clusters; F inputs, h
 * hidden, n devices); rows of width h have the stride ldh, of F ldF, of n
 * ldn and the edge scores ld1. Input MLP: H1 = ReLU(LN(x W_i1 + b_i1)),
 * H0 = ReLU(LN(H1 W_i2 + b_i2)) (x-hats xh1, xh2, sigmas sg1, sg2). GNN 1:
 * T1 = A H0 (shared with GNN 2), Y1 = ReLU(T1 W_g1 + b_g1), T2 = A Y1,
 * Y2 = ReLU(T2 W_g2 + b_g2), X1 = LN(H0 + Y2) (xh3, sg3). Edges: P the
 * products X1_u (.) X1_v (Q x h), Ea = ReLU(LN(P W_e1 + b_e1)) (xhe, sge),
 * s = sigmoid(Ea w_e2 + b_e2) (Q). GNN 2: Y3 = ReLU(T1 W_g3 + b_g3),
 * X2 = LN(H0 + Y3) (xh4, sg4). Pooling: Yp = LN(X2 + X2 W_pre) (xh5, sg5),
 * z (C x h) its cluster sums, Zl = LN(z + z W_post) (xh6, sg6), Z = Zl sigma.
 * Output O1 = ReLU(Z W_o1 + b_o1), O = ReLU(O1 W_o2 + b_o2) (C x F);
 * classifier K = ReLU(O W_c1 + b_c1), logits l, probabilities p, their
 * logarithms lp (C x n). The parse: cl (the cluster of every group), the
 * clusters' members (mem_off, mem: CSR in group order) and first groups,
 * sigma (C). */

#define WORK NN_CAT(WORK_, S)
#define FN(x) NN_CAT(NN_CAT(h, S), NN_CAT(_, x))
#define EXP NN_CAT(EXP_, S)
#define AVAL(in) NN_CAT(AVAL_, S)(in)
#define PAD(x) NN_CAT(PAD_, S)(x)

struct WORK {
    int G, E;              /* the capacity: groups and undirected edges */
    int F, h, n;
    int ldh, ldF, ldn, ld1;
    int Gc, Ec, nc;        /* the last forward's groups, edges and clusters */
    int parsed, frozen;    /* a parse is kept; it is reused (gradient check) */
    R *H1, *xh1, *sg1, *H0, *xh2, *sg2;
    R *T1, *Y1, *T2, *Y2, *X1, *xh3, *sg3;
    R *P, *Ea, *xhe, *sge, *s;
    R *Y3, *X2, *xh4, *sg4, *Yp, *xh5, *sg5;
    R *z, *Zl, *xh6, *sg6, *Z, *sigma;
    R *O1, *O, *K, *l, *p, *lp;
    R *zero, *junk;        /* a zero bias; a bias gradient nobody reads */
    /* backward */
    R *dl, *dK, *dO, *dO1, *dZ, *dz, *dsig;
    R *dYp, *dX2, *dH0, *dT1, *dX1, *dT2, *dY1, *dH1, *dtmp;
    R *ds, *dR, *dP;
    int *cl, *first, *mem_off, *mem, *act;
    int *best, *keep, *order, *uf, *rid; /* the parse's scratch */
    R *rmem;
    int *imem;
};

/* Hands out cnt values of base from *off on (NULL when only counting). */
static R *FN(carve)(R *base, size_t *off, size_t cnt)
{
    R *p = base ? base + *off : NULL;
    *off += cnt;
    return p;
}

static size_t FN(work_layout)(struct WORK *w, R *b)
{
    size_t o = 0, g = (size_t)w->G, q = (size_t)w->G + (size_t)w->E;
    size_t gh = g * (size_t)w->ldh, qh = q * (size_t)w->ldh, gF = g * (size_t)w->ldF, gn = g * (size_t)w->ldn;
    size_t wide = (size_t)(w->ldh > w->ldF ? (w->ldh > w->ldn ? w->ldh : w->ldn) : (w->ldF > w->ldn ? w->ldF : w->ldn));
    R **gh_arrays[] = {&w->H1, &w->xh1, &w->H0, &w->xh2, &w->T1, &w->Y1, &w->T2, &w->Y2, &w->X1, &w->xh3,
                       &w->Y3, &w->X2, &w->xh4, &w->Yp, &w->xh5, &w->z, &w->Zl, &w->xh6, &w->Z, &w->O1,
                       &w->K, &w->dK, &w->dO1, &w->dZ, &w->dz, &w->dYp, &w->dX2, &w->dH0, &w->dT1, &w->dX1,
                       &w->dT2, &w->dY1, &w->dH1, &w->dtmp};
    for (size_t k = 0; k < sizeof gh_arrays / sizeof *gh_arrays; k++)
        *gh_arrays[k] = FN(carve)(b, &o, gh);
    R **g_arrays[] = {&w->sg1, &w->sg2, &w->sg3, &w->sg4, &w->sg5, &w->sg6, &w->sigma, &w->dsig};
    for (size_t k = 0; k < sizeof g_arrays / sizeof *g_arrays; k++)
        *g_arrays[k] = FN(carve)(b, &o, g);
    R **qh_arrays[] = {&w->P, &w->Ea, &w->xhe, &w->dR, &w->dP};
    for (size_t k = 0; k < sizeof qh_arrays / sizeof *qh_arrays; k++)
        *qh_arrays[k] = FN(carve)(b, &o, qh);
    w->sge = FN(carve)(b, &o, q);
    w->s = FN(carve)(b, &o, q * (size_t)w->ld1);
    w->ds = FN(carve)(b, &o, q * (size_t)w->ld1);
    w->O = FN(carve)(b, &o, gF);
    w->dO = FN(carve)(b, &o, gF);
    w->l = FN(carve)(b, &o, gn);
    w->p = FN(carve)(b, &o, gn);
    w->lp = FN(carve)(b, &o, gn);
    w->dl = FN(carve)(b, &o, gn);
    w->zero = FN(carve)(b, &o, wide);
    w->junk = FN(carve)(b, &o, wide);
    return o;
}

/* The integer arrays (the parse's) of a work space for w->G groups and w->E edges. */
static void FN(work_ints)(struct WORK *w)
{
    size_t g = (size_t)w->G, e = (size_t)w->E;
    w->imem = XNEW(int, 10 * g + 1 + e);
    int **ints[] = {&w->cl, &w->first, &w->mem, &w->act, &w->best, &w->order, &w->uf, &w->rid, &w->mem_off};
    for (size_t k = 0; k < sizeof ints / sizeof *ints; k++)
        *ints[k] = w->imem + k * g;
    w->keep = w->mem_off + g + 1;
}

static struct WORK *FN(work_new)(const HsdagArch *a, const HsdagInput *in)
{
    struct WORK *w = xcalloc(1, sizeof *w);
    w->G = in->G;
    w->E = in->n_edges;
    w->F = hsdag_n_inputs(a);
    w->h = a->hidden;
    w->n = a->n_devices;
    w->ldh = PAD(w->h);
    w->ldF = PAD(w->F);
    w->ldn = PAD(w->n);
    w->ld1 = PAD(1);
    w->rmem = XNEW(R, FN(work_layout)(w, NULL)); /* zeroed: the pad columns stay 0 */
    FN(work_layout)(w, w->rmem);
    FN(work_ints)(w);
    return w;
}

static void FN(work_free)(struct WORK *w)
{
    if (!w)
        return;
    free(w->rmem);
    free(w->imem);
    free(w);
}

/* --- kernels ------------------------------------------------------------------ */

/* Y = A X over the rows (stride ld, cols columns): A's CSR, values val. */
static void FN(spmm)(const HsdagInput *in, const R *val, int cols, const R *X, int ld, R *Y)
{
    for (int v = 0; v < in->G; v++) {
        R *y = Y + (size_t)v * (size_t)ld;
        for (int c = 0; c < cols; c++)
            y[c] = 0;
        for (int k = in->a_off[v]; k < in->a_off[v + 1]; k++) {
            const R *xr = X + (size_t)in->a_col[k] * (size_t)ld;
            R a = val[k];
            for (int c = 0; c < cols; c++)
                y[c] += a * xr[c];
        }
    }
}

/* Y += X over n rows of stride ld. */
static void FN(add_rows)(size_t count, const R *X, R *Y)
{
    for (size_t i = 0; i < count; i++)
        Y[i] += X[i];
}

/* Pair q's two groups: edge q < E, else the self-loop of group q - E. */
static void FN(pair)(const HsdagInput *in, int q, int *u, int *v)
{
    int E = in->n_edges;
    *u = q < E ? in->eu[q] : q - E;
    *v = q < E ? in->ev[q] : q - E;
}

static int FN(root)(int *uf, int v)
{
    while (uf[v] != v) {
        uf[v] = uf[uf[v]];
        v = uf[v];
    }
    return v;
}

/* The parse on the scores s (stride ld1): w->cl, nc, first, mem_off, mem.
 * Node v's dominant pair: the highest score among its self-loop and its
 * edges; at equal scores an edge beats the self-loop and the lower edge
 * index wins. The kept edges (each once) merge in decreasing score order
 * (equal scores: lower edge index first) while more than min_clusters
 * clusters remain. */
static void FN(parse)(const HsdagInput *in, const R *s, int ld1, int min_clusters, struct WORK *w)
{
    int G = in->G, E = in->n_edges;
#define SC(q) s[(size_t)(q) * (size_t)ld1]
    for (int v = 0; v < G; v++) {
        w->best[v] = E + v;
        w->uf[v] = v;
        w->rid[v] = -1;
    }
    for (int q = 0; q < E; q++) {
        w->keep[q] = 0;
        int ends[2] = {in->eu[q], in->ev[q]};
        for (int k = 0; k < 2; k++) {
            int b = w->best[ends[k]];
            if (SC(q) > SC(b) || (SC(q) == SC(b) && b >= E))
                w->best[ends[k]] = q;
        }
    }
    for (int v = 0; v < G; v++)
        if (w->best[v] < E)
            w->keep[w->best[v]] = 1;
    int m = 0;
    for (int q = 0; q < E; q++) {
        if (!w->keep[q])
            continue;
        int j = m++; /* insertion: decreasing score, ties stay in index order */
        while (j > 0 && SC(w->order[j - 1]) < SC(q)) {
            w->order[j] = w->order[j - 1];
            j--;
        }
        w->order[j] = q;
    }
#undef SC
    int count = G;
    for (int k = 0; k < m && count > min_clusters; k++) {
        int ru = FN(root)(w->uf, in->eu[w->order[k]]), rv = FN(root)(w->uf, in->ev[w->order[k]]);
        if (ru != rv) {
            w->uf[ru > rv ? ru : rv] = ru < rv ? ru : rv;
            count--;
        }
    }
    w->nc = 0;
    for (int v = 0; v < G; v++) {
        int r = FN(root)(w->uf, v);
        if (w->rid[r] < 0) {
            w->first[w->nc] = v;
            w->rid[r] = w->nc++;
        }
        w->cl[v] = w->rid[r];
    }
    for (int c = 0; c <= w->nc; c++)
        w->mem_off[c] = 0;
    for (int v = 0; v < G; v++)
        w->mem_off[w->cl[v] + 1]++;
    for (int c = 0; c < w->nc; c++)
        w->mem_off[c + 1] += w->mem_off[c];
    for (int c = 0; c < w->nc; c++)
        w->order[c] = w->mem_off[c];
    for (int v = 0; v < G; v++)
        w->mem[w->order[w->cl[v]]++] = v;
    w->parsed = 1;
}

/* The device of a cluster with probabilities p (n values). */
static int FN(pick)(const R *p, int n, int mode, Rng *rng, int given)
{
    if (mode == HSDAG_SCORE)
        return given;
    if (mode == HSDAG_GREEDY)
        return NN_CAT(sample_argmax_, S)(p, n);
    return NN_CAT(sample_draw_, S)(p, n, rng_uniform(rng));
}

/* --- forward -------------------------------------------------------------------- */

#define WT(k) (W + t[net->k].off)
#define GT(k) (grad + t[net->k].off)

static double FN(forward)(const HsdagNet *net, const R *W, const HsdagInput *in, const R *x, struct WORK *w,
                          int mode, Rng *rng, int *place, R *out)
{
    const NnTensor *t = net->p.t;
    int blas = net->blas, G = in->G, E = in->n_edges, Q = G + E, F = w->F, h = w->h, n = w->n;
    int ldh = w->ldh, ldF = w->ldF, ldn = w->ldn, ld1 = w->ld1;
    size_t gh = (size_t)G * (size_t)ldh;
    const R eps = (R)HSDAG_LN_EPS;
    const R *aval = AVAL(in);
    w->Gc = G;
    w->Ec = E;
    /* input MLP */
    NN_CAT(nn_dense_fwd_, S)(blas, G, F, h, x, F, WT(i1W), WT(i1b), 0, w->H1, ldh);
    NN_CAT(nn_layer_norm_, S)(G, h, ldh, eps, w->H1, WT(i1g), WT(i1c), w->H1, w->xh1, w->sg1);
    NN_CAT(nn_relu_, S)(w->H1, gh);
    NN_CAT(nn_dense_fwd_, S)(blas, G, h, h, w->H1, ldh, WT(i2W), WT(i2b), 0, w->H0, ldh);
    NN_CAT(nn_layer_norm_, S)(G, h, ldh, eps, w->H0, WT(i2g), WT(i2c), w->H0, w->xh2, w->sg2);
    NN_CAT(nn_relu_, S)(w->H0, gh);
    /* GNN 1 */
    FN(spmm)(in, aval, h, w->H0, ldh, w->T1);
    NN_CAT(nn_dense_fwd_, S)(blas, G, h, h, w->T1, ldh, WT(g1W), WT(g1b), 1, w->Y1, ldh);
    FN(spmm)(in, aval, h, w->Y1, ldh, w->T2);
    NN_CAT(nn_dense_fwd_, S)(blas, G, h, h, w->T2, ldh, WT(g2W), WT(g2b), 1, w->Y2, ldh);
    memcpy(w->X1, w->H0, gh * sizeof(R));
    FN(add_rows)(gh, w->Y2, w->X1);
    NN_CAT(nn_layer_norm_, S)(G, h, ldh, eps, w->X1, WT(n1g), WT(n1c), w->X1, w->xh3, w->sg3);
    /* edge scores */
    for (int q = 0; q < Q; q++) {
        int u, v;
        FN(pair)(in, q, &u, &v);
        const R *xu = w->X1 + (size_t)u * (size_t)ldh, *xv = w->X1 + (size_t)v * (size_t)ldh;
        R *pq = w->P + (size_t)q * (size_t)ldh;
        for (int c = 0; c < h; c++)
            pq[c] = xu[c] * xv[c];
    }
    NN_CAT(nn_dense_fwd_, S)(blas, Q, h, h, w->P, ldh, WT(e1W), WT(e1b), 0, w->Ea, ldh);
    NN_CAT(nn_layer_norm_, S)(Q, h, ldh, eps, w->Ea, WT(e1g), WT(e1c), w->Ea, w->xhe, w->sge);
    NN_CAT(nn_relu_, S)(w->Ea, (size_t)Q * (size_t)ldh);
    NN_CAT(nn_dense_fwd_, S)(blas, Q, h, 1, w->Ea, ldh, WT(e2W), WT(e2b), 0, w->s, ld1);
    for (int q = 0; q < Q; q++) {
        R *sq = w->s + (size_t)q * (size_t)ld1, e = EXP(*sq < 0 ? *sq : -*sq);
        *sq = *sq >= 0 ? 1 / (1 + e) : e / (1 + e);
    }
    /* the parse */
    if (!w->frozen || !w->parsed)
        FN(parse)(in, w->s, ld1, net->arch.min_clusters, w);
    int C = w->nc;
    for (int c = 0; c < C; c++)
        w->sigma[c] = 0;
    for (int q = 0; q < Q; q++) {
        int u, v;
        FN(pair)(in, q, &u, &v);
        if (w->cl[u] == w->cl[v])
            w->sigma[w->cl[u]] += w->s[(size_t)q * (size_t)ld1];
    }
    /* GNN 2 */
    NN_CAT(nn_dense_fwd_, S)(blas, G, h, h, w->T1, ldh, WT(g3W), WT(g3b), 1, w->Y3, ldh);
    memcpy(w->X2, w->H0, gh * sizeof(R));
    FN(add_rows)(gh, w->Y3, w->X2);
    NN_CAT(nn_layer_norm_, S)(G, h, ldh, eps, w->X2, WT(n2g), WT(n2c), w->X2, w->xh4, w->sg4);
    /* pooling */
    NN_CAT(nn_dense_fwd_, S)(blas, G, h, h, w->X2, ldh, WT(prW), w->zero, 0, w->Yp, ldh);
    FN(add_rows)(gh, w->X2, w->Yp);
    NN_CAT(nn_layer_norm_, S)(G, h, ldh, eps, w->Yp, WT(prg), WT(prc), w->Yp, w->xh5, w->sg5);
    NN_CAT(nn_rows_gather_, S)(C, w->mem_off, w->mem, w->Yp, ldh, w->z);
    size_t ch = (size_t)C * (size_t)ldh;
    NN_CAT(nn_dense_fwd_, S)(blas, C, h, h, w->z, ldh, WT(poW), w->zero, 0, w->Zl, ldh);
    FN(add_rows)(ch, w->z, w->Zl);
    NN_CAT(nn_layer_norm_, S)(C, h, ldh, eps, w->Zl, WT(pog), WT(poc), w->Zl, w->xh6, w->sg6);
    for (int c = 0; c < C; c++)
        for (int k = 0; k < ldh; k++)
            w->Z[(size_t)c * (size_t)ldh + (size_t)k] = w->Zl[(size_t)c * (size_t)ldh + (size_t)k] * w->sigma[c];
    /* output MLP and classifier */
    NN_CAT(nn_dense_fwd_, S)(blas, C, h, h, w->Z, ldh, WT(o1W), WT(o1b), 1, w->O1, ldh);
    NN_CAT(nn_dense_fwd_, S)(blas, C, h, F, w->O1, ldh, WT(o2W), WT(o2b), 1, w->O, ldF);
    NN_CAT(nn_dense_fwd_, S)(blas, C, F, h, w->O, ldF, WT(c1W), WT(c1b), 1, w->K, ldh);
    NN_CAT(nn_dense_fwd_, S)(blas, C, h, n, w->K, ldh, WT(c2W), WT(c2b), 0, w->l, ldn);
    double total = 0;
    for (int c = 0; c < C; c++) {
        size_t r = (size_t)c * (size_t)ldn;
        NN_CAT(nn_softmax_, S)(w->l + r, n, w->p + r, w->lp + r);
        int a = FN(pick)(w->p + r, n, mode, rng, mode == HSDAG_SCORE ? place[w->first[c]] : 0);
        if (a < 0 || a >= n)
            util_die("hsdag: device %d out of range for cluster %d", a, c);
        w->act[c] = a;
        total += (double)w->lp[r + (size_t)a];
    }
    for (int v = 0; v < G; v++) {
        place[v] = w->act[w->cl[v]];
        if (out)
            memcpy(out + (size_t)v * (size_t)F, w->O + (size_t)w->cl[v] * (size_t)ldF, (size_t)F * sizeof(R));
    }
    return total;
}

/* --- backward ------------------------------------------------------------------- */

static void FN(backward)(const HsdagNet *net, const R *W, const HsdagInput *in, const R *x, struct WORK *w,
                         double weight, R *grad)
{
    const NnTensor *t = net->p.t;
    int blas = net->blas, G = w->Gc, E = w->Ec, Q = G + E, C = w->nc, F = w->F, h = w->h, n = w->n;
    int ldh = w->ldh, ldF = w->ldF, ldn = w->ldn, ld1 = w->ld1;
    size_t gh = (size_t)G * (size_t)ldh, ch = (size_t)C * (size_t)ldh;
    const R *aval = AVAL(in);
    /* classifier and output MLP: dl = weight (onehot - p) */
    for (int c = 0; c < C; c++)
        for (int i = 0; i < n; i++) {
            size_t r = (size_t)c * (size_t)ldn + (size_t)i;
            w->dl[r] = (R)weight * ((i == w->act[c] ? 1 : 0) - w->p[r]);
        }
    NN_CAT(nn_dense_bwd_, S)(blas, C, h, n, w->K, ldh, WT(c2W), w->dl, ldn, w->K, w->dK, ldh, GT(c2W), GT(c2b));
    NN_CAT(nn_dense_bwd_, S)(blas, C, F, h, w->O, ldF, WT(c1W), w->dK, ldh, w->O, w->dO, ldF, GT(c1W), GT(c1b));
    NN_CAT(nn_dense_bwd_, S)(blas, C, h, F, w->O1, ldh, WT(o2W), w->dO, ldF, w->O1, w->dO1, ldh, GT(o2W), GT(o2b));
    NN_CAT(nn_dense_bwd_, S)(blas, C, h, h, w->Z, ldh, WT(o1W), w->dO1, ldh, NULL, w->dZ, ldh, GT(o1W), GT(o1b));
    /* Z = Zl sigma: dsigma = <dZ, Zl>, dZl = dZ sigma */
    for (int c = 0; c < C; c++) {
        R *dz = w->dZ + (size_t)c * (size_t)ldh;
        const R *zl = w->Zl + (size_t)c * (size_t)ldh;
        R d = 0;
        for (int k = 0; k < h; k++) {
            d += dz[k] * zl[k];
            dz[k] *= w->sigma[c];
        }
        w->dsig[c] = d;
    }
    /* pooling */
    NN_CAT(nn_layer_norm_bwd_, S)(C, h, ldh, w->dZ, WT(pog), w->xh6, w->sg6, w->dZ, GT(pog), GT(poc));
    NN_CAT(nn_dense_bwd_, S)(blas, C, h, h, w->z, ldh, WT(poW), w->dZ, ldh, NULL, w->dz, ldh, GT(poW), w->junk);
    FN(add_rows)(ch, w->dZ, w->dz);
    for (int v = 0; v < G; v++)
        memcpy(w->dYp + (size_t)v * (size_t)ldh, w->dz + (size_t)w->cl[v] * (size_t)ldh, (size_t)ldh * sizeof(R));
    NN_CAT(nn_layer_norm_bwd_, S)(G, h, ldh, w->dYp, WT(prg), w->xh5, w->sg5, w->dYp, GT(prg), GT(prc));
    NN_CAT(nn_dense_bwd_, S)(blas, G, h, h, w->X2, ldh, WT(prW), w->dYp, ldh, NULL, w->dX2, ldh, GT(prW), w->junk);
    FN(add_rows)(gh, w->dYp, w->dX2);
    /* GNN 2 */
    NN_CAT(nn_layer_norm_bwd_, S)(G, h, ldh, w->dX2, WT(n2g), w->xh4, w->sg4, w->dX2, GT(n2g), GT(n2c));
    memcpy(w->dH0, w->dX2, gh * sizeof(R));
    NN_CAT(nn_relu_bwd_, S)(w->Y3, w->dX2, gh);
    NN_CAT(nn_dense_bwd_, S)(blas, G, h, h, w->T1, ldh, WT(g3W), w->dX2, ldh, NULL, w->dT1, ldh, GT(g3W), GT(g3b));
    /* the edge scores in some sigma: ds = dsigma_c s (1 - s) */
    for (int q = 0; q < Q; q++) {
        int u, v;
        FN(pair)(in, q, &u, &v);
        R sq = w->s[(size_t)q * (size_t)ld1];
        w->ds[(size_t)q * (size_t)ld1] = w->cl[u] == w->cl[v] ? w->dsig[w->cl[u]] * sq * (1 - sq) : 0;
    }
    NN_CAT(nn_dense_bwd_, S)(blas, Q, h, 1, w->Ea, ldh, WT(e2W), w->ds, ld1, w->Ea, w->dR, ldh, GT(e2W), GT(e2b));
    NN_CAT(nn_layer_norm_bwd_, S)(Q, h, ldh, w->dR, WT(e1g), w->xhe, w->sge, w->dR, GT(e1g), GT(e1c));
    NN_CAT(nn_dense_bwd_, S)(blas, Q, h, h, w->P, ldh, WT(e1W), w->dR, ldh, NULL, w->dP, ldh, GT(e1W), GT(e1b));
    memset(w->dX1, 0, gh * sizeof(R));
    for (int q = 0; q < Q; q++) {
        int u, v;
        FN(pair)(in, q, &u, &v);
        const R *dp = w->dP + (size_t)q * (size_t)ldh;
        const R *xu = w->X1 + (size_t)u * (size_t)ldh, *xv = w->X1 + (size_t)v * (size_t)ldh;
        R *du = w->dX1 + (size_t)u * (size_t)ldh, *dv = w->dX1 + (size_t)v * (size_t)ldh;
        for (int c = 0; c < h; c++) {
            R a = dp[c] * xv[c], b = dp[c] * xu[c];
            du[c] += a;
            dv[c] += b;
        }
    }
    /* GNN 1 */
    NN_CAT(nn_layer_norm_bwd_, S)(G, h, ldh, w->dX1, WT(n1g), w->xh3, w->sg3, w->dX1, GT(n1g), GT(n1c));
    FN(add_rows)(gh, w->dX1, w->dH0);
    NN_CAT(nn_relu_bwd_, S)(w->Y2, w->dX1, gh);
    NN_CAT(nn_dense_bwd_, S)(blas, G, h, h, w->T2, ldh, WT(g2W), w->dX1, ldh, NULL, w->dT2, ldh, GT(g2W), GT(g2b));
    FN(spmm)(in, aval, h, w->dT2, ldh, w->dY1);
    NN_CAT(nn_relu_bwd_, S)(w->Y1, w->dY1, gh);
    NN_CAT(nn_dense_bwd_, S)(blas, G, h, h, w->T1, ldh, WT(g1W), w->dY1, ldh, NULL, w->dtmp, ldh, GT(g1W), GT(g1b));
    FN(add_rows)(gh, w->dtmp, w->dT1);
    FN(spmm)(in, aval, h, w->dT1, ldh, w->dtmp);
    FN(add_rows)(gh, w->dtmp, w->dH0);
    /* input MLP */
    NN_CAT(nn_relu_bwd_, S)(w->H0, w->dH0, gh);
    NN_CAT(nn_layer_norm_bwd_, S)(G, h, ldh, w->dH0, WT(i2g), w->xh2, w->sg2, w->dH0, GT(i2g), GT(i2c));
    NN_CAT(nn_dense_bwd_, S)(blas, G, h, h, w->H1, ldh, WT(i2W), w->dH0, ldh, w->H1, w->dH1, ldh, GT(i2W), GT(i2b));
    NN_CAT(nn_layer_norm_bwd_, S)(G, h, ldh, w->dH1, WT(i1g), w->xh1, w->sg1, w->dH1, GT(i1g), GT(i1c));
    NN_CAT(nn_dense_bwd_, S)(blas, G, F, h, x, F, WT(i1W), w->dH1, ldh, NULL, NULL, 0, GT(i1W), GT(i1b));
}

#undef WT
#undef GT
#undef WORK
#undef FN
#undef EXP
#undef AVAL
#undef PAD
