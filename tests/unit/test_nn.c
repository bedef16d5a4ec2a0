/* nn: the kernels of nn.h in float (_f) and double (_d): GEMM with BLAS
 * against its plain-loop twin and a naive reference for every transpose
 * combination, odd and empty sizes, padded strides and beta = 0 over garbage;
 * linear layers (BLAS vs loops; the backward pass against finite differences,
 * += into dW/db, = into dX); ReLU; softmax (normalised, log-consistent,
 * stable); entropy and its gradient against central differences; the
 * parameter store (layout, find, zeroing, Glorot init); gradient clipping; and
 * Adam against a double-precision re-implementation. */
#include <stdlib.h>

#include "nn.h"
#include "test.h"
#include "util.h"

/* --- helpers ------------------------------------------------------------ */

static void fill_f(Rng *r, float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(2 * rng_uniform(r) - 1);
}

static void fill_d(Rng *r, double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = 2 * rng_uniform(r) - 1;
}

/* |a - b| <= tol * max(1, |b|): relative for large values, absolute near 0
 * (sums of products of numbers in [-1, 1] may cancel). */
static int close_rel(double a, double b, double tol)
{
    double s = fabs(b) > 1 ? fabs(b) : 1;
    return fabs(a - b) <= tol * s;
}

/* C[i][j] = alpha sum_k op(A)[i][k] op(B)[k][j] + beta C[i][j], in double,
 * with beta == 0 ignoring C. */
static void ref_gemm(int tA, int tB, int M, int N, int K, double alpha, const double *A, int lda,
                     const double *B, int ldb, double beta, double *C, int ldc)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int k = 0; k < K; k++) {
                double a = tA ? A[k * lda + i] : A[i * lda + k];
                double b = tB ? B[j * ldb + k] : B[k * ldb + j];
                s += a * b;
            }
            C[i * ldc + j] = alpha * s + (beta == 0 ? 0 : beta * C[i * ldc + j]);
        }
}

typedef struct GemmCase {
    int M, N, K, pad; /* pad: extra columns in every stride */
} GemmCase;

static const GemmCase GEMM_CASES[] = {
    {7, 5, 3, 0}, {7, 5, 3, 2}, {1, 9, 1, 0}, {9, 1, 1, 1}, {1, 1, 1, 0},   {3, 1, 8, 0},
    {4, 6, 0, 0}, {4, 6, 0, 3}, {16, 17, 33, 0}, {33, 2, 65, 1}, {2, 40, 5, 0},
};
#define N_GEMM_CASES ((int)(sizeof GEMM_CASES / sizeof GEMM_CASES[0]))
static const double GEMM_ALPHA[] = {1, -0.5, 2.25};
static const double GEMM_BETA[] = {0, 1, 0.75};
#define SENTINEL 12345.0

/* One GEMM case in type R: random A, B, C (NaN in C when beta == 0, the
 * sentinel in C's padding); the BLAS path, the loop twin and the reference
 * must agree, and the padding must be left alone. Returns the number of
 * mismatches (each also reported). */
#define GEMM_CASE(R, S)                                                                          \
    static int gemm_case_##S(Rng *r, int tA, int tB, GemmCase gc, double alpha, double beta,   \
                             double tol)                                                       \
    {                                                                                          \
        int M = gc.M, N = gc.N, K = gc.K;                                                      \
        int arows = tA ? K : M, acols = tA ? M : K, brows = tB ? N : K, bcols = tB ? K : N;    \
        int lda = acols + gc.pad, ldb = bcols + gc.pad, ldc = N + gc.pad;                      \
        size_t na = (size_t)(arows * lda) + 1, nb = (size_t)(brows * ldb) + 1,                 \
               nc = (size_t)(M * ldc);                                                         \
        R *A = XNEW(R, na), *B = XNEW(R, nb);                                                  \
        R *C0 = XNEW(R, nc), *Cb = XNEW(R, nc),                                                \
          *Cl = XNEW(R, nc);                                                                   \
        double *Ad = XNEW(double, na), *Bd = XNEW(double, nb),                                 \
               *Cd = XNEW(double, nc);                                                         \
        fill_##S(r, A, na);                                                                    \
        fill_##S(r, B, nb);                                                                    \
        fill_##S(r, C0, nc);                                                                   \
        for (int i = 0; i < M; i++)                                                            \
            for (int j = 0; j < ldc; j++)                                                      \
                if (j >= N)                                                                    \
                    C0[i * ldc + j] = (R)SENTINEL;                                             \
                else if (beta == 0)                                                            \
                    C0[i * ldc + j] = (R)NAN;                                                  \
        for (size_t i = 0; i < na; i++)                                                        \
            Ad[i] = A[i];                                                                      \
        for (size_t i = 0; i < nb; i++)                                                        \
            Bd[i] = B[i];                                                                      \
        for (size_t i = 0; i < nc; i++)                                                        \
            Cd[i] = C0[i];                                                                     \
        memcpy(Cb, C0, nc * sizeof *Cb);                                                       \
        memcpy(Cl, C0, nc * sizeof *Cl);                                                       \
        nn_gemm_##S(1, tA, tB, M, N, K, (R)alpha, A, lda, B, ldb, (R)beta, Cb, ldc);           \
        nn_gemm_##S(0, tA, tB, M, N, K, (R)alpha, A, lda, B, ldb, (R)beta, Cl, ldc);           \
        ref_gemm(tA, tB, M, N, K, alpha, Ad, lda, Bd, ldb, beta, Cd, ldc);                     \
        int bad = 0;                                                                           \
        for (int i = 0; i < M; i++)                                                            \
            for (int j = 0; j < ldc; j++) {                                                    \
                double b = Cb[i * ldc + j], l = Cl[i * ldc + j], d = Cd[i * ldc + j];          \
                int ok = j >= N ? b == SENTINEL && l == SENTINEL                               \
                                : close_rel(b, l, tol) && close_rel(l, d, tol);                \
                if (!ok && bad++ < 3)                                                          \
                    test_fail(__FILE__, __LINE__,                                              \
                              #S " tA=%d tB=%d M=%d N=%d K=%d pad=%d alpha=%g beta=%g C[%d][%d]: " \
                              "blas %.9g loop %.9g ref %.9g",                                  \
                              tA, tB, M, N, K, gc.pad, alpha, beta, i, j, b, l, d);            \
            }                                                                                  \
        free(A);                                                                               \
        free(B);                                                                               \
        free(C0);                                                                              \
        free(Cb);                                                                              \
        free(Cl);                                                                              \
        free(Ad);                                                                              \
        free(Bd);                                                                              \
        free(Cd);                                                                              \
        return bad;                                                                            \
    }
GEMM_CASE(float, f)
GEMM_CASE(double, d)

/* --- GEMM --------------------------------------------------------------- */

TEST(nn_gemm_blas_vs_loop_f)
{
    Rng r;
    rng_seed(&r, 1);
    for (int t = 0; t < 4; t++)
        for (int c = 0; c < N_GEMM_CASES; c++)
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    gemm_case_f(&r, t & 1, t >> 1, GEMM_CASES[c], GEMM_ALPHA[a], GEMM_BETA[b], 1e-5);
}

TEST(nn_gemm_blas_vs_loop_d)
{
    Rng r;
    rng_seed(&r, 2);
    for (int t = 0; t < 4; t++)
        for (int c = 0; c < N_GEMM_CASES; c++)
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    gemm_case_d(&r, t & 1, t >> 1, GEMM_CASES[c], GEMM_ALPHA[a], GEMM_BETA[b], 1e-12);
}

/* K = 0 leaves C = beta C (and beta = 0 clears garbage); M or N = 0 is a
 * no-op that must not touch C. */
TEST(nn_gemm_degenerate)
{
    for (int blas = 0; blas < 2; blas++) {
        float A[1] = {0}, B[1] = {0};
        float C[6] = {1, 2, 3, 4, 5, 6};
        nn_gemm_f(blas, 0, 0, 2, 3, 0, 1.5f, A, 1, B, 3, 0.5f, C, 3);
        for (int i = 0; i < 6; i++)
            CHECK_MSG(C[i] == 0.5f * (float)(i + 1), "blas=%d K=0: C[%d] = %g", blas, i, C[i]);
        double Cd[4] = {NAN, NAN, NAN, NAN}, Ad[1] = {0}, Bd[1] = {0};
        nn_gemm_d(blas, 1, 1, 2, 2, 0, 1, Ad, 2, Bd, 1, 0, Cd, 2);
        for (int i = 0; i < 4; i++)
            CHECK_MSG(Cd[i] == 0, "blas=%d K=0 beta=0: C[%d] = %g", blas, i, Cd[i]);
        float Cz[2] = {7, 8};
        nn_gemm_f(blas, 0, 0, 0, 2, 3, 1, A, 3, B, 2, 0, Cz, 2);
        nn_gemm_f(blas, 0, 0, 2, 0, 3, 1, A, 3, B, 1, 0, Cz, 1);
        CHECK(Cz[0] == 7 && Cz[1] == 8);
    }
}

/* --- linear layers ------------------------------------------------------ */

static const int LIN_SHAPES[][3] = {{5, 7, 3}, {1, 4, 6}, {9, 1, 2}, {3, 8, 1}, {12, 10, 11}};
#define N_LIN_SHAPES ((int)(sizeof LIN_SHAPES / sizeof LIN_SHAPES[0]))

/* Forward and backward of one linear layer in type R, with BLAS and with
 * loops: Y (over NaN garbage), dW and db (accumulated onto random values) and
 * dX (over NaN garbage) must agree. */
#define LINEAR_CASE(R, S)                                                                        \
    static void linear_case_##S(Rng *r, int n, int in, int out, double tol)                    \
    {                                                                                          \
        size_t nx = (size_t)(n * in), nw = (size_t)(in * out), ny = (size_t)(n * out);         \
        R *X = XMALLOC(R, nx), *W = XMALLOC(R, nw), *b = XMALLOC(R, out);                      \
        R *dY = XMALLOC(R, ny), *Y[2], *dX[2], *dW[2], *db[2];                                 \
        fill_##S(r, X, nx);                                                                    \
        fill_##S(r, W, nw);                                                                    \
        fill_##S(r, b, (size_t)out);                                                           \
        fill_##S(r, dY, ny);                                                                   \
        R *dW0 = XMALLOC(R, nw), *db0 = XMALLOC(R, out);                                       \
        fill_##S(r, dW0, nw);                                                                  \
        fill_##S(r, db0, (size_t)out);                                                         \
        for (int k = 0; k < 2; k++) {                                                          \
            Y[k] = XMALLOC(R, ny);                                                             \
            dX[k] = XMALLOC(R, nx);                                                            \
            dW[k] = XMALLOC(R, nw);                                                            \
            db[k] = XMALLOC(R, out);                                                           \
            for (size_t i = 0; i < ny; i++)                                                    \
                Y[k][i] = (R)NAN;                                                              \
            for (size_t i = 0; i < nx; i++)                                                    \
                dX[k][i] = (R)NAN;                                                             \
            memcpy(dW[k], dW0, nw * sizeof *dW0);                                              \
            memcpy(db[k], db0, (size_t)out * sizeof *db0);                                     \
            int blas = k;                                                                      \
            nn_linear_fwd_##S(blas, n, in, out, X, W, b, Y[k]);                                \
            nn_linear_bwd_##S(blas, n, in, out, X, W, dY, dX[k], dW[k], db[k]);                \
        }                                                                                      \
        int bad = 0;                                                                           \
        for (int i = 0; i < n; i++)                                                            \
            for (int j = 0; j < out; j++) {                                                    \
                double y = b[j];                                                               \
                for (int k = 0; k < in; k++)                                                   \
                    y += (double)X[i * in + k] * (double)W[k * out + j];                       \
                bad += !close_rel(Y[0][i * out + j], y, tol) || !close_rel(Y[1][i * out + j], y, tol); \
            }                                                                                  \
        for (size_t i = 0; i < nx; i++)                                                        \
            bad += !close_rel(dX[1][i], dX[0][i], tol);                                        \
        for (int r_ = 0; r_ < in; r_++)                                                        \
            for (int c_ = 0; c_ < out; c_++) {                                                 \
                double s = dW0[r_ * out + c_];                                                 \
                for (int i = 0; i < n; i++)                                                    \
                    s += (double)X[i * in + r_] * (double)dY[i * out + c_];                    \
                bad += !close_rel(dW[0][r_ * out + c_], s, tol) ||                             \
                       !close_rel(dW[1][r_ * out + c_], s, tol);                               \
            }                                                                                  \
        for (int j = 0; j < out; j++) {                                                        \
            double s = db0[j];                                                                 \
            for (int i = 0; i < n; i++)                                                        \
                s += dY[i * out + j];                                                          \
            bad += !close_rel(db[0][j], s, tol) || !close_rel(db[1][j], s, tol);               \
        }                                                                                      \
        CHECK_MSG(bad == 0, #S " linear n=%d in=%d out=%d: %d mismatches BLAS vs loops", n, in, out, bad); \
        free(X);                                                                               \
        free(W);                                                                               \
        free(b);                                                                               \
        free(dY);                                                                              \
        free(dW0);                                                                             \
        free(db0);                                                                             \
        for (int k = 0; k < 2; k++) {                                                          \
            free(Y[k]);                                                                        \
            free(dX[k]);                                                                       \
            free(dW[k]);                                                                       \
            free(db[k]);                                                                       \
        }                                                                                      \
    }
LINEAR_CASE(float, f)
LINEAR_CASE(double, d)

TEST(nn_linear_blas_vs_loop)
{
    Rng r;
    rng_seed(&r, 3);
    for (int s = 0; s < N_LIN_SHAPES; s++) {
        linear_case_f(&r, LIN_SHAPES[s][0], LIN_SHAPES[s][1], LIN_SHAPES[s][2], 1e-5);
        linear_case_d(&r, LIN_SHAPES[s][0], LIN_SHAPES[s][1], LIN_SHAPES[s][2], 1e-12);
    }
}

/* L = sum(Y .* R) with Y = X W + b. */
static double linear_loss(int n, int in, int out, const double *X, const double *W,
                          const double *b, const double *Rm, double *Y)
{
    nn_linear_fwd_d(0, n, in, out, X, W, b, Y);
    double L = 0;
    for (int i = 0; i < n * out; i++)
        L += Y[i] * Rm[i];
    return L;
}

/* Central difference of linear_loss in x[i] (x one of X, W, b). */
static double linear_fd(int n, int in, int out, double *X, double *W, double *b,
                        const double *Rm, double *Y, double *x, int i)
{
    const double h = 1e-6;
    double x0 = x[i];
    x[i] = x0 + h;
    double lp = linear_loss(n, in, out, X, W, b, Rm, Y);
    x[i] = x0 - h;
    double lm = linear_loss(n, in, out, X, W, b, Rm, Y);
    x[i] = x0;
    return (lp - lm) / (2 * h);
}

/* The backward pass is the gradient of L: dW, db and dX against central
 * differences, for BLAS and loops; a second call adds to dW and db and
 * rewrites dX. */
TEST(nn_linear_bwd_finite_differences)
{
    Rng r;
    rng_seed(&r, 4);
    for (int s = 0; s < N_LIN_SHAPES; s++)
        for (int blas = 0; blas < 2; blas++) {
            int n = LIN_SHAPES[s][0], in = LIN_SHAPES[s][1], out = LIN_SHAPES[s][2];
            double *X = XMALLOC(double, n * in), *W = XMALLOC(double, in * out);
            double *b = XMALLOC(double, out), *Rm = XMALLOC(double, n * out);
            double *Y = XMALLOC(double, n * out);
            double *dX = XMALLOC(double, n * in);
            double *dW = XNEW(double, in * out), *db = XNEW(double, out);
            fill_d(&r, X, (size_t)(n * in));
            fill_d(&r, W, (size_t)(in * out));
            fill_d(&r, b, (size_t)out);
            fill_d(&r, Rm, (size_t)(n * out));
            nn_linear_bwd_d(blas, n, in, out, X, W, Rm, dX, dW, db);
            int bad = 0;
            for (int i = 0; i < in * out; i++)
                bad += !close_rel(dW[i], linear_fd(n, in, out, X, W, b, Rm, Y, W, i), 1e-7);
            for (int i = 0; i < out; i++)
                bad += !close_rel(db[i], linear_fd(n, in, out, X, W, b, Rm, Y, b, i), 1e-7);
            for (int i = 0; i < n * in; i++)
                bad += !close_rel(dX[i], linear_fd(n, in, out, X, W, b, Rm, Y, X, i), 1e-7);
            CHECK_MSG(bad == 0, "blas=%d n=%d in=%d out=%d: %d gradient entries off", blas, n, in, out, bad);

            /* accumulate / overwrite */
            double *dW1 = XMALLOC(double, in * out), *db1 = XMALLOC(double, out);
            double *dX1 = XMALLOC(double, n * in);
            memcpy(dW1, dW, (size_t)(in * out) * sizeof *dW);
            memcpy(db1, db, (size_t)out * sizeof *db);
            memcpy(dX1, dX, (size_t)(n * in) * sizeof *dX);
            nn_linear_bwd_d(blas, n, in, out, X, W, Rm, dX, dW, db);
            for (int i = 0; i < in * out; i++)
                CHECK_MSG(close_rel(dW[i], 2 * dW1[i], 1e-14), "blas=%d dW[%d] not accumulated", blas, i);
            for (int i = 0; i < out; i++)
                CHECK_MSG(close_rel(db[i], 2 * db1[i], 1e-14), "blas=%d db[%d] not accumulated", blas, i);
            for (int i = 0; i < n * in; i++)
                CHECK_MSG(close_rel(dX[i], dX1[i], 1e-14), "blas=%d dX[%d] not overwritten", blas, i);
            /* dX may be NULL */
            nn_linear_bwd_d(blas, n, in, out, X, W, Rm, NULL, dW, db);
            for (int i = 0; i < out; i++)
                CHECK(close_rel(db[i], 3 * db1[i], 1e-14));
            free(X);
            free(W);
            free(b);
            free(Rm);
            free(Y);
            free(dX);
            free(dW);
            free(db);
            free(dW1);
            free(db1);
            free(dX1);
        }
}

/* --- activations, softmax, entropy ------------------------------------- */

TEST(nn_relu)
{
    float x[6] = {-2, -0.0f, 0, 0.5f, 3, -1e-30f};
    const float want[6] = {0, 0, 0, 0.5f, 3, 0};
    nn_relu_f(x, 6);
    for (int i = 0; i < 6; i++)
        CHECK_MSG(x[i] == want[i], "relu_f[%d] = %g", i, x[i]);
    double xd[4] = {-1, 0, 1e-300, 7};
    nn_relu_d(xd, 4);
    CHECK(xd[0] == 0 && xd[1] == 0 && xd[2] == 1e-300 && xd[3] == 7);
    /* the gradient passes where the output is positive, only */
    float y[5] = {0, 0.5f, 0, 2, 1e-30f}, dx[5] = {1, 2, 3, 4, 5};
    nn_relu_bwd_f(y, dx, 5);
    CHECK(dx[0] == 0 && dx[1] == 2 && dx[2] == 0 && dx[3] == 4 && dx[4] == 5);
    double yd[3] = {0, 1, 0}, dxd[3] = {-1, -2, -3};
    nn_relu_bwd_d(yd, dxd, 3);
    CHECK(dxd[0] == 0 && dxd[1] == -2 && dxd[2] == 0);
}

TEST(nn_softmax)
{
    Rng r;
    rng_seed(&r, 5);
    for (int n = 1; n <= 9; n++) {
        double z[9], p[9], lp[9], p2[9], zs[9];
        float zf[9], pf[9], lpf[9];
        for (int i = 0; i < n; i++) {
            z[i] = 10 * (2 * rng_uniform(&r) - 1);
            zs[i] = z[i] + 37.5; /* softmax is shift-invariant */
            zf[i] = (float)z[i];
        }
        nn_softmax_d(z, n, p, lp);
        nn_softmax_d(zs, n, p2, NULL);
        nn_softmax_f(zf, n, pf, lpf);
        double sum = 0, sumf = 0;
        for (int i = 0; i < n; i++) {
            sum += p[i];
            sumf += pf[i];
            CHECK(p[i] >= 0 && p[i] <= 1);
            CHECK_NEAR(lp[i], log(p[i]), 1e-12);
            CHECK_NEAR(p2[i], p[i], 1e-12);
            CHECK_NEAR(pf[i], p[i], 1e-6);
            CHECK_NEAR(lpf[i], lp[i], 1e-5 * (1 + fabs(lp[i])));
        }
        CHECK_NEAR(sum, 1, 1e-12);
        CHECK_NEAR(sumf, 1, 1e-6);
    }
    /* huge logits: no overflow, exact limits */
    double z[3] = {1000, -1000, 0}, p[3], lp[3];
    nn_softmax_d(z, 3, p, lp);
    CHECK_NEAR(p[0], 1, 1e-15);
    CHECK(p[1] == 0 && p[2] >= 0 && p[2] < 1e-300);
    CHECK_NEAR(lp[0], 0, 1e-15);
    CHECK_NEAR(lp[1], -2000, 1e-9);
    CHECK_NEAR(lp[2], -1000, 1e-9);
    /* in float, z - lse with lse = max + log(sum) rounds to the spacing of
     * floats near |max| (6.1e-5 at 1000): that much, no more */
    float zf[3] = {1000, 1000, -1000}, pf[3], lpf[3];
    nn_softmax_f(zf, 3, pf, lpf);
    CHECK_NEAR(pf[0], 0.5, 1e-4);
    CHECK_NEAR(pf[1], 0.5, 1e-4);
    CHECK(pf[2] == 0);
    CHECK_NEAR(lpf[0], -log(2.0), 1e-4);
    CHECK(isfinite(lpf[2]) && lpf[2] < -1999);
    /* either output may be NULL */
    float pf2[3], lpf2[3];
    nn_softmax_f(zf, 3, NULL, lpf2);
    nn_softmax_f(zf, 3, pf2, NULL);
    CHECK(memcmp(pf, pf2, sizeof pf) == 0 && memcmp(lpf, lpf2, sizeof lpf) == 0);
}

TEST(nn_entropy_value)
{
    /* H = -sum p log(p + eps) */
    double q[3] = {0.5, 0.25, 0.25};
    CHECK_NEAR(nn_entropy_d(q, 3, 0), 1.5 * log(2.0), 1e-15);
    float qf[3] = {0.5f, 0.25f, 0.25f};
    CHECK_NEAR(nn_entropy_f(qf, 3, 0), 1.5 * log(2.0), 1e-6);
    double u[8];
    for (int i = 0; i < 8; i++)
        u[i] = 0.125;
    CHECK_NEAR(nn_entropy_d(u, 8, 0), log(8.0), 1e-14);
    double eps = 1e-3;
    CHECK_NEAR(nn_entropy_d(q, 3, eps),
               -(0.5 * log(0.5 + eps) + 0.5 * log(0.25 + eps)), 1e-15);
    /* a zero probability is harmless with eps > 0 */
    double one[3] = {0, 1, 0};
    CHECK_NEAR(nn_entropy_d(one, 3, eps), -log(1 + eps), 1e-15);
}

static double entropy_of_logits(const double *z, int n, double eps)
{
    double p[8];
    nn_softmax_d(z, n, p, NULL);
    return nn_entropy_d(p, n, eps);
}

/* dz += scale dH/dz against central differences of H(softmax(z)). */
TEST(nn_entropy_grad_finite_differences)
{
    static const int NS[] = {2, 3, 8};
    static const double EPSS[] = {1e-3, 1e-8};
    Rng r;
    rng_seed(&r, 6);
    for (int a = 0; a < 3; a++)
        for (int e = 0; e < 2; e++)
            for (int rep = 0; rep < 5; rep++) {
                int n = NS[a];
                double eps = EPSS[e], z[8], p[8], dz[8], dz0[8];
                float zf[8], pf[8], dzf[8];
                double spread = rep == 4 ? 8 : 2; /* one peaked distribution */
                for (int i = 0; i < n; i++) {
                    z[i] = spread * (2 * rng_uniform(&r) - 1);
                    dz0[i] = dz[i] = 2 * rng_uniform(&r) - 1;
                    zf[i] = (float)z[i];
                    dzf[i] = (float)dz[i];
                }
                double scale = rep % 2 ? -0.37 : 1;
                nn_softmax_d(z, n, p, NULL);
                nn_entropy_grad_d(p, n, eps, scale, dz);
                nn_softmax_f(zf, n, pf, NULL);
                nn_entropy_grad_f(pf, n, (float)eps, (float)scale, dzf);
                for (int j = 0; j < n; j++) {
                    const double h = 1e-5;
                    double zj = z[j];
                    z[j] = zj + h;
                    double hp = entropy_of_logits(z, n, eps);
                    z[j] = zj - h;
                    double hm = entropy_of_logits(z, n, eps);
                    z[j] = zj;
                    double num = (hp - hm) / (2 * h), an = (dz[j] - dz0[j]) / scale;
                    CHECK_MSG(fabs(an - num) <= 1e-7 * (1 + fabs(num)),
                              "n=%d eps=%g z[%d]: analytic %.12g numeric %.12g", n, eps, j, an, num);
                    CHECK_MSG(fabs(dzf[j] - dz[j]) <= 1e-5 * (1 + fabs(dz[j])),
                              "n=%d eps=%g float dz[%d] %.9g double %.12g", n, eps, j, dzf[j], dz[j]);
                }
            }
}

/* --- parameter store ---------------------------------------------------- */

static int disjoint(const float *a, const float *b, size_t n)
{
    return a + n <= b || b + n <= a;
}

TEST(nn_params_layout)
{
    NnParams p;
    nn_params_init(&p);
    CHECK_INT(nn_params_add(&p, "t.w1", 3, 4), 0);
    CHECK_INT(nn_params_add(&p, "t.b1", 1, 4), 1);
    CHECK_INT(nn_params_add(&p, "h.w", 5, 1), 2);
    /* more than the first capacity */
    char name[NN_NAME_MAX];
    for (int i = 3; i < 40; i++) {
        snprintf(name, sizeof name, "x%d", i);
        CHECK_INT(nn_params_add(&p, name, i % 3 + 1, 2), i);
    }
    nn_params_alloc(&p);
    CHECK_INT(p.n_tensors, 40);
    size_t off = 0;
    for (int i = 0; i < p.n_tensors; i++) {
        CHECK_INT(p.t[i].off, off);
        off += (size_t)p.t[i].rows * (size_t)p.t[i].cols;
    }
    CHECK_INT(p.n, off);
    CHECK_INT(p.t[0].off, 0);
    CHECK_INT(p.t[1].off, 12);
    CHECK_INT(p.t[2].off, 16);
    CHECK_INT(nn_params_find(&p, "t.w1"), 0);
    CHECK_INT(nn_params_find(&p, "h.w"), 2);
    CHECK_INT(nn_params_find(&p, "x39"), 39);
    CHECK_INT(nn_params_find(&p, "nope"), -1);
    CHECK_INT(nn_params_find(&p, "t.w"), -1);
    CHECK(strcmp(p.t[1].name, "t.b1") == 0);
    CHECK(p.t[1].rows == 1 && p.t[1].cols == 4);

    float *arr[4] = {p.w, p.g, p.m, p.v};
    for (int a = 0; a < 4; a++) {
        CHECK(arr[a] != NULL);
        for (int b = a + 1; b < 4; b++)
            CHECK_MSG(disjoint(arr[a], arr[b], p.n), "arrays %d and %d overlap", a, b);
    }
    int zero = 1;
    for (int a = 0; a < 4; a++)
        for (size_t i = 0; i < p.n; i++)
            zero &= arr[a][i] == 0;
    CHECK_MSG(zero, "arrays not zeroed by nn_params_alloc");
    for (int a = 0; a < 4; a++)
        for (size_t i = 0; i < p.n; i++)
            arr[a][i] = (float)(a + 1);
    int ok = 1;
    for (int a = 0; a < 4; a++)
        for (size_t i = 0; i < p.n; i++)
            ok &= arr[a][i] == (float)(a + 1);
    CHECK_MSG(ok, "writing one array changed another");
    nn_params_zero_grad(&p);
    ok = 1;
    for (size_t i = 0; i < p.n; i++)
        ok &= p.g[i] == 0 && p.w[i] == 1 && p.m[i] == 3 && p.v[i] == 4;
    CHECK_MSG(ok, "nn_params_zero_grad touched more or less than g");
    nn_params_done(&p);
    CHECK(p.mem == NULL && p.t == NULL && p.n == 0 && p.n_tensors == 0);
    nn_params_done(&p); /* twice is harmless */
}

static void glorot_params(NnParams *p)
{
    nn_params_init(p);
    nn_params_add(p, "w1", 7, 7);
    nn_params_add(p, "b1", 1, 7);
    nn_params_add(p, "w2", 56, 112);
    nn_params_add(p, "b2", 1, 112);
    nn_params_add(p, "w3", 112, 3);
    nn_params_alloc(p);
}

TEST(nn_glorot_init)
{
    NnParams p, q;
    glorot_params(&p);
    glorot_params(&q);
    for (size_t i = 0; i < p.n; i++)
        p.w[i] = 9; /* biases must be reset, not left alone */
    nn_params_glorot(&p, 42);
    nn_params_glorot(&q, 42);
    CHECK_MSG(memcmp(p.w, q.w, p.n * sizeof *p.w) == 0, "same seed, different weights");
    for (int k = 0; k < p.n_tensors; k++) {
        const NnTensor *t = &p.t[k];
        size_t n = (size_t)t->rows * (size_t)t->cols;
        const float *w = p.w + t->off;
        if (t->rows <= 1) {
            int zero = 1;
            for (size_t i = 0; i < n; i++)
                zero &= w[i] == 0;
            CHECK_MSG(zero, "bias %s not zero", t->name);
            continue;
        }
        double lim = sqrt(6.0 / (t->rows + t->cols)), mx = 0, mean = 0;
        for (size_t i = 0; i < n; i++) {
            CHECK_MSG(fabs(w[i]) <= lim, "%s[%zu] = %g outside +-%g", t->name, i, w[i], lim);
            mx = fmax(mx, fabs(w[i]));
            mean += w[i];
        }
        mean /= (double)n;
        /* uniform on [-lim, lim]: the extremes are reached and the mean is ~0 */
        CHECK_MSG(mx > 0.7 * lim, "%s: max |w| %g of limit %g", t->name, mx, lim);
        CHECK_MSG(fabs(mean) < 4 * lim / sqrt(3.0 * (double)n), "%s: mean %g", t->name, mean);
    }
    nn_params_glorot(&q, 43);
    CHECK_MSG(memcmp(p.w, q.w, p.n * sizeof *p.w) != 0, "another seed, same weights");
    int differ = 0;
    for (size_t i = 0; i < p.n; i++)
        differ += p.w[i] != q.w[i];
    CHECK_MSG(differ > (int)p.n / 2, "only %d of %zu weights differ", differ, p.n);
    nn_params_done(&p);
    nn_params_done(&q);
}

/* --- clipping and Adam -------------------------------------------------- */

static double norm_f(const float *g, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += (double)g[i] * g[i];
    return sqrt(s);
}

TEST(nn_clip_grad_norm)
{
    Rng r;
    rng_seed(&r, 7);
    float g[100], g0[100];
    fill_f(&r, g, 100);
    memcpy(g0, g, sizeof g);
    double n0 = norm_f(g, 100);
    /* under the limit: untouched, bit for bit */
    CHECK_NEAR(nn_clip_grad(g, 100, n0 * 1.01), n0, 1e-9 * n0);
    CHECK(memcmp(g, g0, sizeof g) == 0);
    /* over it: scaled to the limit, direction kept */
    double lim = 0.25;
    CHECK_NEAR(nn_clip_grad(g, 100, lim), n0, 1e-9 * n0);
    CHECK_NEAR(norm_f(g, 100), lim, 1e-6 * lim);
    for (int i = 0; i < 100; i++)
        CHECK_NEAR(g[i], g0[i] * (lim / n0), 1e-6 * fabs(g0[i]) + 1e-12);
    /* large values: the norm is computed in double */
    float big[4] = {3e20f, 4e20f, 0, 0};
    CHECK_NEAR(nn_clip_grad(big, 4, 1), 5e20, 1e-6 * 5e20);
    CHECK_NEAR(big[0], 0.6, 1e-6);
    CHECK_NEAR(big[1], 0.8, 1e-6);
    /* zero gradient */
    float z[3] = {0, 0, 0};
    CHECK(nn_clip_grad(z, 3, 1) == 0);
    CHECK(z[0] == 0 && z[1] == 0 && z[2] == 0);
}

/* Three Adam steps against bias-corrected Adam in double:
 * m = b1 m + (1-b1) g, v = b2 v + (1-b2) g^2,
 * w -= lr (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps). */
TEST(nn_adam_vs_reference)
{
    enum { NP = 8 };
    NnParams p;
    nn_params_init(&p);
    nn_params_add(&p, "w", 2, 3);
    nn_params_add(&p, "b", 1, 2);
    nn_params_alloc(&p);
    CHECK_INT(p.n, NP);
    static const float w0[NP] = {0.5f, -0.25f, 1.5f, 0, -2, 0.125f, 3, -0.75f};
    static const float gs[3][NP] = {
        {0.1f, -2, 1e-3f, 0, 5, -0.3f, 1e-6f, 0.7f},
        {0.2f, 1, -1e-3f, 0, 4, 0.3f, 2e-6f, -0.7f},
        {-0.1f, -1.5f, 2e-3f, 0, -3, 0.1f, 0, 0.7f},
    };
    memcpy(p.w, w0, sizeof w0);
    NnAdam a;
    nn_adam_init(&a, 1e-3);
    CHECK(a.lr == 1e-3 && a.beta1 == 0.9 && a.beta2 == 0.999 && a.eps == 1e-8 && a.step == 0);
    double w[NP], m[NP] = {0}, v[NP] = {0};
    for (int i = 0; i < NP; i++)
        w[i] = w0[i];
    for (int t = 1; t <= 3; t++) {
        memcpy(p.g, gs[t - 1], sizeof gs[0]);
        nn_adam_step(&a, &p);
        double c1 = 1 - pow(0.9, t), c2 = 1 - pow(0.999, t);
        for (int i = 0; i < NP; i++) {
            double g = gs[t - 1][i];
            m[i] = 0.9 * m[i] + 0.1 * g;
            v[i] = 0.999 * v[i] + 0.001 * g * g;
            w[i] -= 1e-3 * (m[i] / c1) / (sqrt(v[i] / c2) + 1e-8);
        }
        for (int i = 0; i < NP; i++) {
            CHECK_MSG(fabs(p.w[i] - w[i]) <= 1e-6 * fmax(fabs(w[i]), 1e-3),
                      "step %d w[%d] = %.9g, reference %.12g", t, i, p.w[i], w[i]);
            CHECK_MSG(fabs(p.m[i] - m[i]) <= 1e-6 * fabs(m[i]) + 1e-30, "step %d m[%d] = %.9g, reference %.12g",
                      t, i, p.m[i], m[i]);
            /* 1 - (float)0.999 is 1.3e-5 off 0.001: v carries that relative error
             * (sqrt(v) half of it, a few 1e-9 of w over these steps) */
            CHECK_MSG(fabs(p.v[i] - v[i]) <= 2e-5 * fabs(v[i]) + 1e-30,
                      "step %d v[%d] = %.9g, reference %.12g", t, i, p.v[i], v[i]);
            /* the step itself, to float precision of w */
            double step = w[i] - w0[i], got = (double)p.w[i] - w0[i];
            CHECK_MSG(fabs(got - step) <= 1e-3 * fabs(step) + 4e-7 * fmax(1, fabs(w[i])),
                      "step %d: w[%d] moved %.9g, reference %.9g", t, i, got, step);
        }
    }
    CHECK_INT(a.step, 3);
    /* a zero gradient never moves its weight */
    CHECK(p.w[3] == 0);
    nn_params_done(&p);
}
