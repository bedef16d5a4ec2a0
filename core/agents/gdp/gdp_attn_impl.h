/* gdp_attn_impl: the text of the GDP network's placement blocks (the
 * superposition, segment-recurrent multi-head self-attention, the
 * feed-forward layer and the two post-norms), forward and backward;
 * included by gdp_impl.h with its macros. Not a public header.
 *
 * Segment s holds the rows [s S, min(G, (s + 1) S)); its keys are the rows
 * [lo, end) with lo = the previous segment's start (s > 0) or its own: the
 * memory rows [lo, start) then its own rows. The memory is the previous
 * segment's block input: the same values as that segment's own keys and
 * values (so K and V are computed once for all rows), but constant to the
 * gradient: its keys and values pass their gradient to W_k and W_v (dKm,
 * dVm) and nothing to the rows. */

/* The block's input rows: the GraphSAGE output (block 0) or the previous block's output. */
static const R *FN(block_in)(const struct WORK *w, int l) { return l ? w->y2[l - 1] : w->Hs[w->Lg]; }

/* The memory's block input: the frozen copy in the gradient check, else the rows themselves. */
static const R *FN(mem_in)(const struct WORK *w, int l) { return w->frozen ? w->xfz[l] : w->xb[l]; }

static void FN(block_fwd)(const GdpNet *net, const R *W, struct WORK *w, int l)
{
    const NnTensor *t = net->p.t;
    const GdpBlockT *bt = &net->blk[l];
    int blas = net->blas, G = w->Gc, h = w->h, dh = w->dh, kw = w->kw, Sg = w->seg;
    size_t gh = (size_t)G * (size_t)h;
    const R *xin = FN(block_in)(w, l);
    R *xb = w->xb[l], *q = w->q[l], *k = w->k[l], *v = w->v[l], *o = w->o[l];
    /* superposition */
    if (w->sup) {
        R *c = w->c[l];
        FN(lin)(blas, 1, h, h, w->gmean, h, W + t[bt->U].off, W + t[bt->sb].off, 0, c, h);
        for (int r = 0; r < G; r++)
            for (int j = 0; j < h; j++) {
                size_t i = (size_t)r * (size_t)h + (size_t)j;
                xb[i] = xin[i] * c[j];
            }
    } else {
        memcpy(xb, xin, gh * sizeof(R));
    }
    /* projections */
    FN(lin)(blas, G, h, h, xb, h, W + t[bt->Wq].off, NULL, 0, q, h);
    FN(lin)(blas, G, h, h, xb, h, W + t[bt->Wk].off, NULL, 0, k, h);
    FN(lin)(blas, G, h, h, xb, h, W + t[bt->Wv].off, NULL, 0, v, h);
    const R *km = k, *vm = v;
    if (w->frozen && G > Sg) {
        FN(lin)(blas, G, h, h, w->xfz[l], h, W + t[bt->Wk].off, NULL, 0, w->km[l], h);
        FN(lin)(blas, G, h, h, w->xfz[l], h, W + t[bt->Wv].off, NULL, 0, w->vm[l], h);
        km = w->km[l];
        vm = w->vm[l];
    }
    /* attention, per segment and head */
    R scale = 1 / SQRT((R)dh);
    for (int start = 0; start < G; start += Sg) {
        int end = start + Sg < G ? start + Sg : G, lo = start ? start - Sg : start;
        int rows = end - start, nm = start - lo, nk = end - lo;
        for (int hd = 0; hd < w->H; hd++) {
            R *Ab = w->A[l] + ((size_t)hd * (size_t)G + (size_t)start) * (size_t)kw;
            size_t so = (size_t)start * (size_t)h + (size_t)(hd * dh), mo = (size_t)lo * (size_t)h + (size_t)(hd * dh);
            if (nm > 0)
                NN_CAT(nn_gemm_, S)(blas, 0, 1, rows, nm, dh, scale, q + so, h, km + mo, h, 0, Ab, kw);
            NN_CAT(nn_gemm_, S)(blas, 0, 1, rows, rows, dh, scale, q + so, h, k + so, h, 0, Ab + nm, kw);
            for (int r = 0; r < rows; r++) {
                R *row = Ab + (size_t)r * (size_t)kw;
                NN_CAT(nn_softmax_, S)(row, nk, row, NULL);
            }
            NN_CAT(nn_gemm_, S)(blas, 0, 0, rows, dh, rows, 1, Ab + nm, kw, v + so, h, 0, o + so, h);
            if (nm > 0)
                NN_CAT(nn_gemm_, S)(blas, 0, 0, rows, dh, nm, 1, Ab, kw, vm + mo, h, 1, o + so, h);
        }
    }
    /* X <- LN(X + O W_o) */
    memcpy(w->z, xb, gh * sizeof(R));
    NN_CAT(nn_gemm_, S)(blas, 0, 0, G, h, h, 1, o, h, W + t[bt->Wo].off, h, 1, w->z, h);
    NN_CAT(nn_layer_norm_, S)(G, h, h, (R)GDP_LN_EPS, w->z, W + t[bt->g1].off, W + t[bt->c1].off, w->y1[l],
                              w->xh1[l], w->sg1[l]);
    /* X <- LN(X + ReLU(X W_1 + b_1) W_2 + b_2) */
    FN(lin)(blas, G, h, 4 * h, w->y1[l], h, W + t[bt->W1].off, W + t[bt->b1].off, 1, w->f1[l], 4 * h);
    FN(lin)(blas, G, 4 * h, h, w->f1[l], 4 * h, W + t[bt->W2].off, W + t[bt->b2].off, 0, w->z, h);
    for (size_t i = 0; i < gh; i++)
        w->z[i] += w->y1[l][i];
    NN_CAT(nn_layer_norm_, S)(G, h, h, (R)GDP_LN_EPS, w->z, W + t[bt->g2].off, W + t[bt->c2].off, w->y2[l],
                              w->xh2[l], w->sg2[l]);
}

/* w->dX holds the gradient of block l's output; leaves that of its input
 * there, and adds the superposition's share of the gradient of the mean
 * GraphSAGE output to w->dg. */
static void FN(block_bwd)(const GdpNet *net, const R *W, struct WORK *w, int l, R *grad)
{
    const NnTensor *t = net->p.t;
    const GdpBlockT *bt = &net->blk[l];
    int blas = net->blas, G = w->Gc, h = w->h, dh = w->dh, kw = w->kw, Sg = w->seg;
    size_t gh = (size_t)G * (size_t)h;
    const R *xb = w->xb[l], *q = w->q[l], *k = w->k[l], *v = w->v[l];
    const R *km = w->frozen && G > Sg ? w->km[l] : k, *vm = w->frozen && G > Sg ? w->vm[l] : v;
    /* second norm and the feed-forward layer */
    NN_CAT(nn_layer_norm_bwd_, S)(G, h, h, w->dX, W + t[bt->g2].off, w->xh2[l], w->sg2[l], w->dZ,
                                  grad + t[bt->g2].off, grad + t[bt->c2].off);
    memcpy(w->dY1, w->dZ, gh * sizeof(R));
    FN(lin_bwd_w)(blas, G, 4 * h, h, w->f1[l], 4 * h, w->dZ, h, grad + t[bt->W2].off, grad + t[bt->b2].off);
    NN_CAT(nn_gemm_, S)(blas, 0, 1, G, 4 * h, h, 1, w->dZ, h, W + t[bt->W2].off, h, 0, w->dF, 4 * h);
    FN(relu_bwd)(G, 4 * h, w->f1[l], 4 * h, w->dF, 4 * h);
    FN(lin_bwd_w)(blas, G, h, 4 * h, w->y1[l], h, w->dF, 4 * h, grad + t[bt->W1].off, grad + t[bt->b1].off);
    NN_CAT(nn_gemm_, S)(blas, 0, 1, G, h, 4 * h, 1, w->dF, 4 * h, W + t[bt->W1].off, 4 * h, 1, w->dY1, h);
    /* first norm and the output projection */
    NN_CAT(nn_layer_norm_bwd_, S)(G, h, h, w->dY1, W + t[bt->g1].off, w->xh1[l], w->sg1[l], w->dZ,
                                  grad + t[bt->g1].off, grad + t[bt->c1].off);
    memcpy(w->dXb, w->dZ, gh * sizeof(R));
    FN(lin_bwd_w)(blas, G, h, h, w->o[l], h, w->dZ, h, grad + t[bt->Wo].off, NULL);
    NN_CAT(nn_gemm_, S)(blas, 0, 1, G, h, h, 1, w->dZ, h, W + t[bt->Wo].off, h, 0, w->dO, h);
    /* attention */
    memset(w->dQ, 0, gh * sizeof(R));
    memset(w->dK, 0, gh * sizeof(R));
    memset(w->dV, 0, gh * sizeof(R));
    memset(w->dKm, 0, gh * sizeof(R));
    memset(w->dVm, 0, gh * sizeof(R));
    R scale = 1 / SQRT((R)dh);
    for (int start = 0; start < G; start += Sg) {
        int end = start + Sg < G ? start + Sg : G, lo = start ? start - Sg : start;
        int rows = end - start, nm = start - lo, nk = end - lo;
        for (int hd = 0; hd < w->H; hd++) {
            const R *Ab = w->A[l] + ((size_t)hd * (size_t)G + (size_t)start) * (size_t)kw;
            size_t so = (size_t)start * (size_t)h + (size_t)(hd * dh), mo = (size_t)lo * (size_t)h + (size_t)(hd * dh);
            R *dA = w->dA;
            const R *dO = w->dO + so;
            /* dA = dO V^T; dV += A^T dO */
            if (nm > 0) {
                NN_CAT(nn_gemm_, S)(blas, 0, 1, rows, nm, dh, 1, dO, h, vm + mo, h, 0, dA, kw);
                NN_CAT(nn_gemm_, S)(blas, 1, 0, nm, dh, rows, 1, Ab, kw, dO, h, 1, w->dVm + mo, h);
            }
            NN_CAT(nn_gemm_, S)(blas, 0, 1, rows, rows, dh, 1, dO, h, v + so, h, 0, dA + nm, kw);
            NN_CAT(nn_gemm_, S)(blas, 1, 0, rows, dh, rows, 1, Ab + nm, kw, dO, h, 1, w->dV + so, h);
            /* the softmax: dS = A (dA - rowsum(dA A)) */
            for (int r = 0; r < rows; r++) {
                const R *a = Ab + (size_t)r * (size_t)kw;
                R *d = dA + (size_t)r * (size_t)kw, dot = 0;
                for (int j = 0; j < nk; j++)
                    dot += d[j] * a[j];
                for (int j = 0; j < nk; j++)
                    d[j] = a[j] * (d[j] - dot);
            }
            /* dQ = dS K / sqrt(dh); dK += dS^T Q / sqrt(dh) */
            if (nm > 0) {
                NN_CAT(nn_gemm_, S)(blas, 0, 0, rows, dh, nm, scale, dA, kw, km + mo, h, 1, w->dQ + so, h);
                NN_CAT(nn_gemm_, S)(blas, 1, 0, nm, dh, rows, scale, dA, kw, q + so, h, 1, w->dKm + mo, h);
            }
            NN_CAT(nn_gemm_, S)(blas, 0, 0, rows, dh, rows, scale, dA + nm, kw, k + so, h, 1, w->dQ + so, h);
            NN_CAT(nn_gemm_, S)(blas, 1, 0, rows, dh, rows, scale, dA + nm, kw, q + so, h, 1, w->dK + so, h);
        }
    }
    /* the projections; the memory's rows get no gradient */
    FN(lin_bwd_w)(blas, G, h, h, xb, h, w->dQ, h, grad + t[bt->Wq].off, NULL);
    FN(lin_bwd_w)(blas, G, h, h, xb, h, w->dK, h, grad + t[bt->Wk].off, NULL);
    FN(lin_bwd_w)(blas, G, h, h, xb, h, w->dV, h, grad + t[bt->Wv].off, NULL);
    if (G > Sg) {
        const R *xm = FN(mem_in)(w, l);
        FN(lin_bwd_w)(blas, G, h, h, xm, h, w->dKm, h, grad + t[bt->Wk].off, NULL);
        FN(lin_bwd_w)(blas, G, h, h, xm, h, w->dVm, h, grad + t[bt->Wv].off, NULL);
    }
    NN_CAT(nn_gemm_, S)(blas, 0, 1, G, h, h, 1, w->dQ, h, W + t[bt->Wq].off, h, 1, w->dXb, h);
    NN_CAT(nn_gemm_, S)(blas, 0, 1, G, h, h, 1, w->dK, h, W + t[bt->Wk].off, h, 1, w->dXb, h);
    NN_CAT(nn_gemm_, S)(blas, 0, 1, G, h, h, 1, w->dV, h, W + t[bt->Wv].off, h, 1, w->dXb, h);
    /* superposition: xb = x (.) c, c = gmean U + beta */
    if (w->sup) {
        const R *xin = FN(block_in)(w, l), *c = w->c[l], *U = W + t[bt->U].off;
        R *dc = w->dc;
        for (int j = 0; j < h; j++)
            dc[j] = 0;
        for (int r = 0; r < G; r++)
            for (int j = 0; j < h; j++) {
                size_t i = (size_t)r * (size_t)h + (size_t)j;
                dc[j] += w->dXb[i] * xin[i];
                w->dX[i] = w->dXb[i] * c[j];
            }
        FN(lin_bwd_w)(blas, 1, h, h, w->gmean, h, dc, h, grad + t[bt->U].off, grad + t[bt->sb].off);
        NN_CAT(nn_gemm_, S)(blas, 0, 1, 1, h, h, 1, dc, h, U, h, 1, w->dg, h);
    } else {
        memcpy(w->dX, w->dXb, gh * sizeof(R));
    }
}
