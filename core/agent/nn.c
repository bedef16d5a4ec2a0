/* nn: kernels (instantiated from nn_impl.h for float and double), the
 * parameter store, Glorot init, gradient clipping and Adam. */
#include "nn.h"

/* Every product is rounded before its sum (the plain loops' bits): GCC does
 * not contract a * b + c into a fused multiply-add in ISO C mode, clang
 * would unless told. */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

#include <cblas.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "nn_vec.h"
#include "util.h"

/* OpenBLAS is opened at run time, not linked: a linked OpenBLAS starts its
 * worker threads while the program loads, before main could ask for one
 * thread, and under an address-space limit one of them can hang allocating
 * its buffer and block the exit. Opened here after OPENBLAS_NUM_THREADS is
 * set to 1 (unless the user set it), it starts single-threaded; when it
 * cannot be opened (no library, no memory to map it) the plain-loop kernels
 * run instead. */
typedef void (*SgemmFn)(const enum CBLAS_ORDER, const enum CBLAS_TRANSPOSE, const enum CBLAS_TRANSPOSE,
                        const blasint, const blasint, const blasint, const float, const float *, const blasint,
                        const float *, const blasint, const float, float *, const blasint);
typedef void (*DgemmFn)(const enum CBLAS_ORDER, const enum CBLAS_TRANSPOSE, const enum CBLAS_TRANSPOSE,
                        const blasint, const blasint, const blasint, const double, const double *, const blasint,
                        const double *, const blasint, const double, double *, const blasint);
static SgemmFn blas_sgemm_fn;
static DgemmFn blas_dgemm_fn;
static char blas_error[256];
static pthread_once_t blas_once = PTHREAD_ONCE_INIT;

/* OpenBLAS maps a buffer of tens of megabytes on its first call and spins,
 * forever, when the map fails: under an address-space (or data) limit
 * below this the plain kernels run instead. */
#define BLAS_MIN_ADDRESS_SPACE (1024.0 * 1024 * 1024)

static int memory_limited(void)
{
    static const int which[] = {RLIMIT_AS, RLIMIT_DATA};
    for (size_t k = 0; k < sizeof which / sizeof *which; k++) {
        struct rlimit rl;
        if (getrlimit(which[k], &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (double)rl.rlim_cur < BLAS_MIN_ADDRESS_SPACE)
            return 1;
    }
    return 0;
}

static void blas_open(void)
{
    if (memory_limited()) {
        snprintf(blas_error, sizeof blas_error, "the address space is limited below 1 GiB");
        return;
    }
    const char *env = getenv("OPENBLAS_NUM_THREADS");
    if (!env || !*env)
        setenv("OPENBLAS_NUM_THREADS", "1", 1);
    static const char *const names[] = {"libopenblas.so.0", "libopenblas.so"};
    void *h = NULL;
    for (size_t k = 0; k < sizeof names / sizeof *names && !h; k++)
        h = dlopen(names[k], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        snprintf(blas_error, sizeof blas_error, "%s", why ? why : "libopenblas.so.0 not found");
        return;
    }
    *(void **)&blas_sgemm_fn = dlsym(h, "cblas_sgemm");
    *(void **)&blas_dgemm_fn = dlsym(h, "cblas_dgemm");
    if (!blas_sgemm_fn || !blas_dgemm_fn) {
        snprintf(blas_error, sizeof blas_error, "libopenblas.so.0 lacks cblas_sgemm or cblas_dgemm");
        blas_sgemm_fn = NULL;
        blas_dgemm_fn = NULL;
    }
}

/* Opens OpenBLAS once; 1 when its kernels can run. */
static int blas_ready(void)
{
    pthread_once(&blas_once, blas_open);
    return blas_sgemm_fn != NULL;
}

static void blas_sgemm(const enum CBLAS_ORDER o, const enum CBLAS_TRANSPOSE ta, const enum CBLAS_TRANSPOSE tb,
                       const blasint m, const blasint n, const blasint k, const float alpha, const float *a,
                       const blasint lda, const float *b, const blasint ldb, const float beta, float *c,
                       const blasint ldc)
{
    if (!blas_ready())
        util_die("OpenBLAS could not be opened (%s): run with PLACETO_KERNELS=plain", blas_error);
    blas_sgemm_fn(o, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

static void blas_dgemm(const enum CBLAS_ORDER o, const enum CBLAS_TRANSPOSE ta, const enum CBLAS_TRANSPOSE tb,
                       const blasint m, const blasint n, const blasint k, const double alpha, const double *a,
                       const blasint lda, const double *b, const blasint ldb, const double beta, double *c,
                       const blasint ldc)
{
    if (!blas_ready())
        util_die("OpenBLAS could not be opened (%s): run with PLACETO_KERNELS=plain", blas_error);
    blas_dgemm_fn(o, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

#define NN_CAT_(a, b) a##b
#define NN_CAT(a, b) NN_CAT_(a, b)

#define R float
#define S f
#define GEMM blas_sgemm
#define EXP expf
#define LOG logf
#define SQRT sqrtf
#include "nn_impl.h"
#undef R
#undef S
#undef GEMM
#undef EXP
#undef LOG
#undef SQRT

#define R double
#define S d
#define GEMM blas_dgemm
#define EXP exp
#define LOG log
#define SQRT sqrt
#include "nn_impl.h"
#undef R
#undef S
#undef GEMM
#undef EXP
#undef LOG
#undef SQRT

void nn_dense_fwd_f(int blas, int n, int in, int out, const float *X, int ldx, const float *W, const float *b,
                    int relu, float *Y, int ldy)
{
    if (!nn_vec_fwd(blas, n, in, out, X, ldx, W, b, relu, Y, ldy))
        dense_fwd_loops_f(blas, n, in, out, X, ldx, W, b, relu, Y, ldy);
}

void nn_dense_bwd_f(int blas, int n, int in, int out, const float *X, int ldx, const float *W, const float *dY,
                    int ldy, const float *M, float *dX, int lddx, float *dW, float *db)
{
    if (!nn_vec_bwd_w(blas, n, in, out, X, ldx, dY, ldy, dW, db))
        dense_bwd_w_loops_f(blas, n, in, out, X, ldx, dY, ldy, dW, db);
    if (dX && !nn_vec_bwd_x(blas, n, in, out, W, dY, ldy, M, dX, lddx))
        dense_bwd_x_loops_f(blas, n, in, out, W, dY, ldy, M, dX, lddx);
}

void nn_relu_bwd_f(const float *y, float *dx, size_t n)
{
    nn_vec_relu_bwd(y, dx, n);
}

void nn_relu_bwd_d(const double *y, double *dx, size_t n)
{
    relu_bwd_loops_d(y, dx, n);
}

void nn_rows_gather_f(int n, const int *off, const int *idx, const float *X, int ld, float *Y)
{
    if (!nn_vec_gather(n, off, idx, X, ld, Y))
        rows_gather_loops_f(n, off, idx, X, ld, Y);
}

void nn_rows_scatter_f(int n, const int *off, const int *idx, const float *X, int ld, float *Y)
{
    if (!nn_vec_scatter(n, off, idx, X, ld, Y))
        rows_scatter_loops_f(n, off, idx, X, ld, Y);
}

void nn_dense_fwd_d(int blas, int n, int in, int out, const double *X, int ldx, const double *W, const double *b,
                    int relu, double *Y, int ldy)
{
    dense_fwd_loops_d(blas, n, in, out, X, ldx, W, b, relu, Y, ldy);
}

void nn_dense_bwd_d(int blas, int n, int in, int out, const double *X, int ldx, const double *W, const double *dY,
                    int ldy, const double *M, double *dX, int lddx, double *dW, double *db)
{
    dense_bwd_w_loops_d(blas, n, in, out, X, ldx, dY, ldy, dW, db);
    if (dX)
        dense_bwd_x_loops_d(blas, n, in, out, W, dY, ldy, M, dX, lddx);
}

void nn_rows_gather_d(int n, const int *off, const int *idx, const double *X, int ld, double *Y)
{
    rows_gather_loops_d(n, off, idx, X, ld, Y);
}

void nn_rows_scatter_d(int n, const int *off, const int *idx, const double *X, int ld, double *Y)
{
    rows_scatter_loops_d(n, off, idx, X, ld, Y);
}

static int default_blas = 1;

void nn_blas_init(void)
{
    const char *k = getenv("PLACETO_KERNELS");
    default_blas = !(k && strcmp(k, "plain") == 0) && blas_ready();
}

int nn_default_blas(void) { return default_blas; }

void nn_params_init(NnParams *p)
{
    memset(p, 0, sizeof *p);
}

void nn_params_done(NnParams *p)
{
    free(p->t);
    free(p->mem);
    memset(p, 0, sizeof *p);
}

int nn_params_add(NnParams *p, const char *name, int rows, int cols)
{
    if (p->n_tensors == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 16;
        p->t = xrealloc_array(p->t, (size_t)p->cap, sizeof *p->t);
    }
    NnTensor *t = &p->t[p->n_tensors];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->rows = rows;
    t->cols = cols;
    t->off = p->n;
    p->n += (size_t)rows * (size_t)cols;
    return p->n_tensors++;
}

void nn_params_alloc(NnParams *p)
{
    free(p->mem);
    p->mem = xnew_array(4 * p->n, sizeof *p->mem);
    p->w = p->mem;
    p->g = p->mem + p->n;
    p->m = p->mem + 2 * p->n;
    p->v = p->mem + 3 * p->n;
}

int nn_params_find(const NnParams *p, const char *name)
{
    for (int i = 0; i < p->n_tensors; i++)
        if (strcmp(p->t[i].name, name) == 0)
            return i;
    return -1;
}

void nn_params_zero_grad(NnParams *p)
{
    memset(p->g, 0, p->n * sizeof *p->g);
}

void nn_params_glorot(NnParams *p, uint64_t seed)
{
    Rng r;
    rng_seed(&r, seed);
    for (int i = 0; i < p->n_tensors; i++) {
        const NnTensor *t = &p->t[i];
        float *w = p->w + t->off;
        size_t n = (size_t)t->rows * (size_t)t->cols;
        if (t->rows <= 1) {
            memset(w, 0, n * sizeof *w);
            continue;
        }
        double limit = sqrt(6.0 / (double)(t->rows + t->cols));
        for (size_t k = 0; k < n; k++)
            w[k] = (float)((2 * rng_uniform(&r) - 1) * limit);
    }
}

double nn_clip_grad(float *g, size_t n, double max_norm)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += (double)g[i] * (double)g[i];
    double norm = sqrt(s);
    if (norm > max_norm && norm > 0) {
        float k = (float)(max_norm / norm);
        for (size_t i = 0; i < n; i++)
            g[i] *= k;
    }
    return norm;
}

void nn_adam_init(NnAdam *a, double lr)
{
    a->lr = lr;
    a->beta1 = 0.9;
    a->beta2 = 0.999;
    a->eps = 1e-8;
    a->step = 0;
}

void nn_adam_step(NnAdam *a, NnParams *p)
{
    a->step++;
    double c1 = 1 - pow(a->beta1, (double)a->step), c2 = 1 - pow(a->beta2, (double)a->step);
    float b1 = (float)a->beta1, b2 = (float)a->beta2;
    float c1m = (float)(1 - a->beta1), c2m = (float)(1 - a->beta2); /* not 1 - (float)beta */
    float lr = (float)(a->lr / c1), k2 = (float)(1 / sqrt(c2)), eps = (float)a->eps;
    for (size_t i = 0; i < p->n; i++) {
        float g = p->g[i];
        p->m[i] = b1 * p->m[i] + c1m * g;
        p->v[i] = b2 * p->v[i] + c2m * g * g;
        p->w[i] -= lr * p->m[i] / (sqrtf(p->v[i]) * k2 + eps);
    }
}
