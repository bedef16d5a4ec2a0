/* nn_impl: the text of the kernels of nn.h, included by nn.c once per real
 * type with R (the type), S (the suffix), GEMM (the cblas routine) and EXP,
 * LOG, SQRT (the libm functions of that type) defined. Not a public header. */

void NN_CAT(nn_gemm_, S)(int blas, int tA, int tB, int M, int N, int K, R alpha, const R *A,
                         int lda, const R *B, int ldb, R beta, R *C, int ldc)
{
    if (M <= 0 || N <= 0)
        return;
    if (blas && K > 0) {
        GEMM(CblasRowMajor, tA ? CblasTrans : CblasNoTrans, tB ? CblasTrans : CblasNoTrans, M, N,
             K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            R s = 0;
            for (int k = 0; k < K; k++) {
                R a = tA ? A[(size_t)k * (size_t)lda + (size_t)i] : A[(size_t)i * (size_t)lda + (size_t)k];
                R b = tB ? B[(size_t)j * (size_t)ldb + (size_t)k] : B[(size_t)k * (size_t)ldb + (size_t)j];
                s += a * b;
            }
            R *c = &C[(size_t)i * (size_t)ldc + (size_t)j];
            *c = alpha * s + (beta == 0 ? 0 : beta * *c);
        }
}

/* The plain (or BLAS) dense layers on strided rows; nn.c tries the vector
 * kernels first for float. */
static void NN_CAT(dense_fwd_loops_, S)(int blas, int n, int in, int out, const R *X, int ldx, const R *W,
                                        const R *b, int relu, R *Y, int ldy)
{
    for (int i = 0; i < n; i++)
        memcpy(Y + (size_t)i * (size_t)ldy, b, (size_t)out * sizeof *Y);
    NN_CAT(nn_gemm_, S)(blas, 0, 0, n, out, in, 1, X, ldx, W, out, 1, Y, ldy);
    if (relu && ldy == out)
        NN_CAT(nn_relu_, S)(Y, (size_t)n * (size_t)out);
    else if (relu)
        for (int i = 0; i < n; i++)
            NN_CAT(nn_relu_, S)(Y + (size_t)i * (size_t)ldy, (size_t)out);
}

static void NN_CAT(dense_bwd_w_loops_, S)(int blas, int n, int in, int out, const R *X, int ldx, const R *dY,
                                          int ldy, R *dW, R *db)
{
    NN_CAT(nn_gemm_, S)(blas, 1, 0, in, out, n, 1, X, ldx, dY, ldy, 1, dW, out);
    for (int i = 0; i < n; i++) {
        const R *row = dY + (size_t)i * (size_t)ldy;
        for (int j = 0; j < out; j++)
            db[j] += row[j];
    }
}

static void NN_CAT(dense_bwd_x_loops_, S)(int blas, int n, int in, int out, const R *W, const R *dY, int ldy,
                                          const R *M, R *dX, int lddx)
{
    NN_CAT(nn_gemm_, S)(blas, 0, 1, n, in, out, 1, dY, ldy, W, out, 0, dX, lddx);
    if (M && lddx == in)
        NN_CAT(nn_relu_bwd_, S)(M, dX, (size_t)n * (size_t)in);
    else if (M)
        for (int i = 0; i < n; i++)
            NN_CAT(nn_relu_bwd_, S)(M + (size_t)i * (size_t)lddx, dX + (size_t)i * (size_t)lddx, (size_t)in);
}

static void NN_CAT(rows_gather_loops_, S)(int n, const int *off, const int *idx, const R *X, int ld, R *Y)
{
    for (int i = 0; i < n; i++) {
        R *y = Y + (size_t)i * (size_t)ld;
        for (int c = 0; c < ld; c++)
            y[c] = 0;
        for (int q = off[i]; q < off[i + 1]; q++) {
            const R *x = X + (size_t)idx[q] * (size_t)ld;
            for (int c = 0; c < ld; c++)
                y[c] += x[c];
        }
    }
}

static void NN_CAT(rows_scatter_loops_, S)(int n, const int *off, const int *idx, const R *X, int ld, R *Y)
{
    for (int i = 0; i < n; i++)
        for (int q = off[i]; q < off[i + 1]; q++) {
            R *y = Y + (size_t)idx[q] * (size_t)ld;
            const R *x = X + (size_t)i * (size_t)ld;
            for (int c = 0; c < ld; c++)
                y[c] += x[c];
        }
}

void NN_CAT(nn_linear_fwd_, S)(int blas, int n, int in, int out, const R *X, const R *W,
                               const R *b, R *Y)
{
    NN_CAT(nn_dense_fwd_, S)(blas, n, in, out, X, in, W, b, 0, Y, out);
}

void NN_CAT(nn_linear_bwd_, S)(int blas, int n, int in, int out, const R *X, const R *W,
                               const R *dY, R *dX, R *dW, R *db)
{
    NN_CAT(nn_dense_bwd_, S)(blas, n, in, out, X, in, W, dY, out, NULL, dX, in, dW, db);
}

void NN_CAT(nn_relu_, S)(R *x, size_t n)
{
    /* a select, which -O3 vectorises (compare and mask): signs are random,
     * so a branch would mispredict half the time */
    for (size_t i = 0; i < n; i++)
        x[i] = x[i] > 0 ? x[i] : 0;
}

static inline void NN_CAT(relu_bwd_loops_, S)(const R *restrict y, R *restrict dx, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dx[i] = y[i] > 0 ? dx[i] : 0;
}

/* Logits that are not all finite (a forward pass that overflowed): the +inf
 * ones share the probability equally; with none, NaN and -inf logits get 0
 * and the finite ones the softmax among themselves; with no finite one
 * either, the distribution is uniform. Probabilities stay finite. Returns 1
 * when it handled z, 0 when every logit is finite. */
static int NN_CAT(softmax_nonfinite_, S)(const R *z, int n, R *p, R *logp)
{
    int pinf = 0, finite = 0;
    for (int i = 0; i < n; i++) {
        pinf += isinf(z[i]) && z[i] > 0;
        finite += isfinite(z[i]) != 0;
    }
    if (finite == n)
        return 0;
    if (pinf == 0 && finite > 0) {
        R mx = 0;
        int first = 1;
        for (int i = 0; i < n; i++)
            if (isfinite(z[i]) && (first || z[i] > mx)) {
                mx = z[i];
                first = 0;
            }
        R sum = 0;
        for (int i = 0; i < n; i++)
            sum += isfinite(z[i]) ? EXP(z[i] - mx) : 0;
        R ls = LOG(sum);
        for (int i = 0; i < n; i++) {
            R lp = isfinite(z[i]) ? (z[i] - mx) - ls : -(R)INFINITY;
            if (logp)
                logp[i] = lp;
            if (p)
                p[i] = isfinite(z[i]) ? EXP(lp) : 0;
        }
        return 1;
    }
    int share = pinf ? pinf : n;
    for (int i = 0; i < n; i++) {
        int gets = pinf ? (isinf(z[i]) && z[i] > 0) : 1;
        if (p)
            p[i] = gets ? (R)1 / (R)share : 0;
        if (logp)
            logp[i] = gets ? -LOG((R)share) : -(R)INFINITY;
    }
    return 1;
}

void NN_CAT(nn_softmax_, S)(const R *z, int n, R *p, R *logp)
{
    if (NN_CAT(softmax_nonfinite_, S)(z, n, p, logp))
        return;
    R mx = z[0];
    for (int i = 1; i < n; i++)
        if (z[i] > mx)
            mx = z[i];
    R sum = 0;
    for (int i = 0; i < n; i++)
        sum += EXP(z[i] - mx);
    R ls = LOG(sum);
    for (int i = 0; i < n; i++) {
        R lp = (z[i] - mx) - ls; /* not z - (mx + ls): keeps precision for large logits */
        if (logp)
            logp[i] = lp;
        if (p)
            p[i] = EXP(lp);
    }
}

R NN_CAT(nn_entropy_, S)(const R *p, int n, R eps)
{
    R h = 0;
    for (int i = 0; i < n; i++)
        h -= p[i] * LOG(p[i] + eps);
    return h;
}

/* dH/dp_i = -log(p_i + eps) - p_i / (p_i + eps) =: h_i;
 * dH/dz_j = sum_i h_i p_i (delta_ij - p_j) = p_j (h_j - sum_i p_i h_i). */
void NN_CAT(nn_entropy_grad_, S)(const R *p, int n, R eps, R scale, R *dz)
{
    R mean = 0;
    for (int i = 0; i < n; i++)
        mean += p[i] * (-LOG(p[i] + eps) - p[i] / (p[i] + eps));
    for (int j = 0; j < n; j++) {
        R hj = -LOG(p[j] + eps) - p[j] / (p[j] + eps);
        dz[j] += scale * p[j] * (hj - mean);
    }
}

void NN_CAT(nn_layer_norm_, S)(int n, int h, int ld, R eps, const R *x, const R *gamma, const R *b, R *y, R *xhat,
                               R *sig)
{
    for (int i = 0; i < n; i++) {
        const R *xi = x + (size_t)i * (size_t)ld;
        R *yi = y + (size_t)i * (size_t)ld, *xh = xhat + (size_t)i * (size_t)ld;
        R mu = 0, var = 0;
        for (int c = 0; c < h; c++)
            mu += xi[c];
        mu /= (R)h;
        for (int c = 0; c < h; c++)
            var += (xi[c] - mu) * (xi[c] - mu);
        var /= (R)h;
        R s = SQRT(var + eps);
        sig[i] = s;
        for (int c = 0; c < h; c++) {
            xh[c] = (xi[c] - mu) / s;
            yi[c] = gamma[c] * xh[c] + b[c];
        }
    }
}

void NN_CAT(nn_layer_norm_bwd_, S)(int n, int h, int ld, const R *dy, const R *gamma, const R *xhat, const R *sig,
                                   R *dx, R *dgamma, R *dbeta)
{
    for (int i = 0; i < n; i++) {
        const R *dyi = dy + (size_t)i * (size_t)ld, *xh = xhat + (size_t)i * (size_t)ld;
        R *dxi = dx + (size_t)i * (size_t)ld;
        R mg = 0, mgx = 0;
        for (int c = 0; c < h; c++) {
            R g = dyi[c] * gamma[c];
            mg += g;
            mgx += g * xh[c];
            dgamma[c] += dyi[c] * xh[c];
            dbeta[c] += dyi[c];
        }
        mg /= (R)h;
        mgx /= (R)h;
        for (int c = 0; c < h; c++)
            dxi[c] = (dyi[c] * gamma[c] - mg - xh[c] * mgx) / sig[i];
    }
}
