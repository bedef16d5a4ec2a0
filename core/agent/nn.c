/* nn: kernels (instantiated from nn_impl.h for float and double), the
 * parameter store, Glorot init, gradient clipping and Adam. */
#include "nn.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define NN_CAT_(a, b) a##b
#define NN_CAT(a, b) NN_CAT_(a, b)

#define R float
#define S f
#define GEMM cblas_sgemm
#define EXP expf
#define LOG logf
#include "nn_impl.h"
#undef R
#undef S
#undef GEMM
#undef EXP
#undef LOG

#define R double
#define S d
#define GEMM cblas_dgemm
#define EXP exp
#define LOG log
#include "nn_impl.h"
#undef R
#undef S
#undef GEMM
#undef EXP
#undef LOG

void openblas_set_num_threads(int n); /* OpenBLAS's own entry point */

static int default_blas = 1;

void nn_blas_init(void)
{
    const char *env = getenv("OPENBLAS_NUM_THREADS");
    if (!env || !*env)
        openblas_set_num_threads(1);
    const char *k = getenv("PLACETO_KERNELS");
    default_blas = !(k && strcmp(k, "plain") == 0);
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
