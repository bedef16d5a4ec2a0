/* nn: the neural-network kernels of the Placeto policy, and the parameter
 * store.
 *
 * Every kernel exists twice, generated from one text (nn_impl.h): in float
 * with the suffix _f (the production path: the dense layers on the vector
 * kernels of nn_vec.c where they are narrow, cblas_sgemm where wide) and in
 * double with the suffix _d (cblas_dgemm; used by the double-precision
 * gradient check). Each kernel that calls BLAS takes a flag `blas`: 0 runs
 * its plain-loop twin (for float, the vector kernels: the same bits), the
 * oracle the tests compare against. Matrices are row-major; a linear
 * layer maps X[n x in] to Y[n x out] = X W + b with W[in x out], b[out].
 * Backward passes accumulate into parameter gradients (+=); input gradients
 * are overwritten unless stated.
 *
 * The parameter store keeps every tensor's weights, gradients and Adam
 * moments in one allocation: four arrays of the same layout, so zeroing the
 * gradients is one memset and the optimizer is one flat loop. No global
 * state: OpenBLAS's thread count is set once by the program (nn_blas_init). */
#ifndef PLACETO_NN_H
#define PLACETO_NN_H

#include <stddef.h>
#include <stdint.h>

#define NN_DECLARE(R, S)                                                                        \
    /* C[M x N] = alpha op(A) op(B) + beta C; op(X) = X or X^T (tX); ld* are row strides */     \
    void nn_gemm_##S(int blas, int tA, int tB, int M, int N, int K, R alpha, const R *A, int lda, \
                     const R *B, int ldb, R beta, R *C, int ldc);                              \
    /* Y = X W + b (Y overwritten) */                                                          \
    void nn_linear_fwd_##S(int blas, int n, int in, int out, const R *X, const R *W, const R *b, \
                           R *Y);                                                              \
    /* dW += X^T dY, db += column sums of dY, dX = dY W^T (dX may be NULL) */                  \
    void nn_linear_bwd_##S(int blas, int n, int in, int out, const R *X, const R *W, const R *dY, \
                           R *dX, R *dW, R *db);                                               \
    void nn_relu_##S(R *x, size_t n);                                                          \
    /* dx *= (y > 0), y the ReLU's output */                                                   \
    void nn_relu_bwd_##S(const R *y, R *dx, size_t n);                                         \
    /* probabilities, log-probabilities (either may be NULL) of n logits */                    \
    void nn_softmax_##S(const R *z, int n, R *p, R *logp);                                     \
    /* H = -sum p log(p + eps) */                                                              \
    R nn_entropy_##S(const R *p, int n, R eps);                                                \
    /* dz[j] += scale * dH/dz_j for H = nn_entropy(softmax(z)) */                              \
    void nn_entropy_grad_##S(const R *p, int n, R eps, R scale, R *dz);                        \
    /* The dense layers of the policy, on strided rows (see "Dense layers" below). */          \
    /* Y = X W + b over n rows (strides ldx, ldy), ReLU'd when relu is 1 */                     \
    void nn_dense_fwd_##S(int blas, int n, int in, int out, const R *X, int ldx, const R *W,    \
                          const R *b, int relu, R *Y, int ldy);                                 \
    /* dW += X^T dY, db += column sums of dY, dX = dY W^T (dX may be NULL), then zeroed where   \
     * M (NULL, or a matrix like dX: the ReLU'd input of this layer) is not positive */         \
    void nn_dense_bwd_##S(int blas, int n, int in, int out, const R *X, int ldx, const R *W,    \
                          const R *dY, int ldy, const R *M, R *dX, int lddx, R *dW, R *db);     \
    /* Y[i] = the sum of the rows X[idx[q]], q in off[i] .. off[i+1), in order (rows of ld) */  \
    void nn_rows_gather_##S(int n, const int *off, const int *idx, const R *X, int ld, R *Y);  \
    /* Y[idx[q]] += X[i] for i and q in order (rows of ld) */                                   \
    void nn_rows_scatter_##S(int n, const int *off, const int *idx, const R *X, int ld, R *Y);  \
    /* Layer norm of n rows of width h (x, y, xhat rows of stride ld; y may be x):             \
     * y = gamma (x - mu) / sigma + b, sigma = sqrt(var + eps); keeps xhat and sigma (n) */    \
    void nn_layer_norm_##S(int n, int h, int ld, R eps, const R *x, const R *gamma, const R *b, \
                           R *y, R *xhat, R *sig);                                             \
    /* Its backward: dx = (g - mean g - xhat mean(g xhat)) / sigma for g = dy gamma (dx        \
     * overwritten, may be dy), dgamma += sum dy xhat, dbeta += sum dy */                      \
    void nn_layer_norm_bwd_##S(int n, int h, int ld, const R *dy, const R *gamma, const R *xhat, \
                               const R *sig, R *dx, R *dgamma, R *dbeta);

NN_DECLARE(float, f)
NN_DECLARE(double, d)

/* Dense layers. nn_linear_* are nn_dense_* on packed rows (ld = in, out).
 * The float kernels run on vectors of 8 floats (16 for rows wider than 8 on
 * CPUs with AVX-512) where the strides allow it: the rows written (Y, dX)
 * and the rows of dY and M read need a stride of at least nn_pad(width),
 * a multiple of the vector; their pad columns may then be written (with
 * zeros) or read, and never change the other columns. The vector
 * kernels sum in the plain loops' order and give their bits (nn_vec.c); they
 * take every layer with blas 0, and the narrow ones (up to 16 columns, where
 * BLAS is slower) with blas 1. The row sums run on vectors when ld is a
 * multiple of 8, with the same bits as the loops. */
static inline int nn_pad(int x) { return x <= 8 ? 8 : (x + 15) / 16 * 16; }

/* Opens OpenBLAS (at run time, single-threaded unless OPENBLAS_NUM_THREADS
 * is set) and chooses the default kernels; without the library (or the
 * memory to map it) the plain loops are the default. */
void nn_blas_init(void);
/* The kernels a new policy uses: 1 (BLAS for the wide layers) unless
 * PLACETO_KERNELS=plain was set when nn_blas_init ran. BLAS libraries pick
 * their kernels by CPU, so the same training gives other bits on another
 * machine; the plain loops (and the vector kernels, which give their bits)
 * are compiled into placeto and give the same bits wherever it runs. */
int nn_default_blas(void);

/* --- parameter store --------------------------------------------------- */

#define NN_NAME_MAX 32

typedef struct NnTensor {
    char name[NN_NAME_MAX];
    int rows, cols; /* a bias is 1 x cols */
    size_t off;     /* offset in the flat arrays */
} NnTensor;

typedef struct NnParams {
    NnTensor *t;
    int n_tensors, cap;
    size_t n;        /* total floats per array */
    float *mem;      /* one allocation of 4 n floats: */
    float *w, *g, *m, *v; /* weights, gradients, Adam first and second moments */
} NnParams;

void nn_params_init(NnParams *p);
void nn_params_done(NnParams *p);
/* Declares a tensor before nn_params_alloc; returns its index. */
int nn_params_add(NnParams *p, const char *name, int rows, int cols);
/* Allocates the four arrays, zeroed. */
void nn_params_alloc(NnParams *p);
/* Index of the tensor named name, or -1. */
int nn_params_find(const NnParams *p, const char *name);
void nn_params_zero_grad(NnParams *p);

/* Glorot-uniform init of every tensor with more than one row (weights),
 * zero for the rest (biases); draws from the xoshiro stream seeded by seed. */
void nn_params_glorot(NnParams *p, uint64_t seed);

/* Scales g so that its global L2 norm is at most max_norm; returns the norm
 * before clipping (computed in double). */
double nn_clip_grad(float *g, size_t n, double max_norm);

typedef struct NnAdam {
    double lr, beta1, beta2, eps;
    int64_t step; /* updates done */
} NnAdam;

void nn_adam_init(NnAdam *a, double lr);
/* One Adam update of p->w with p->g (bias-corrected). */
void nn_adam_step(NnAdam *a, NnParams *p);

#endif
