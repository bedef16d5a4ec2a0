/* nn_impl: the text of the kernels of nn.h, included by nn.c once per real
 * type with R (the type), S (the suffix), GEMM (the cblas routine) and EXP,
 * LOG (the libm functions of that type) defined. Not a public header. */

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

void NN_CAT(nn_linear_fwd_, S)(int blas, int n, int in, int out, const R *X, const R *W,
                               const R *b, R *Y)
{
    for (int i = 0; i < n; i++)
        memcpy(Y + (size_t)i * (size_t)out, b, (size_t)out * sizeof *Y);
    NN_CAT(nn_gemm_, S)(blas, 0, 0, n, out, in, 1, X, in, W, out, 1, Y, out);
}

void NN_CAT(nn_linear_bwd_, S)(int blas, int n, int in, int out, const R *X, const R *W,
                               const R *dY, R *dX, R *dW, R *db)
{
    NN_CAT(nn_gemm_, S)(blas, 1, 0, in, out, n, 1, X, in, dY, out, 1, dW, out);
    for (int i = 0; i < n; i++) {
        const R *row = dY + (size_t)i * (size_t)out;
        for (int j = 0; j < out; j++)
            db[j] += row[j];
    }
    if (dX)
        NN_CAT(nn_gemm_, S)(blas, 0, 1, n, in, out, 1, dY, out, W, out, 0, dX, in);
}

void NN_CAT(nn_relu_, S)(R *x, size_t n)
{
    /* a select, which -O3 vectorises (compare and mask): signs are random,
     * so a branch would mispredict half the time */
    for (size_t i = 0; i < n; i++)
        x[i] = x[i] > 0 ? x[i] : 0;
}

void NN_CAT(nn_relu_bwd_, S)(const R *restrict y, R *restrict dx, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dx[i] = y[i] > 0 ? dx[i] : 0;
}

void NN_CAT(nn_softmax_, S)(const R *z, int n, R *p, R *logp)
{
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
