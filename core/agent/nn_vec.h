/* nn_vec: the float kernels of nn.h's dense layers and row sums on vectors of
 * NN_LANES floats (internal to nn.c). Each returns 1 when it did the work
 * and 0 when the shapes or strides do not allow it (the caller then runs the
 * plain loops): the results are the plain loops' bits either way. blas: 1
 * when the caller would run BLAS otherwise; the vector kernels then take only
 * the narrow layers, where they are faster than BLAS (nn_vec.c). */
#ifndef PLACETO_NN_VEC_H
#define PLACETO_NN_VEC_H

#include <stddef.h>

int nn_vec_fwd(int blas, int n, int in, int out, const float *X, int ldx, const float *W, const float *b, int relu,
               float *Y, int ldy);
int nn_vec_bwd_w(int blas, int n, int in, int out, const float *X, int ldx, const float *dY, int ldy, float *dW,
                 float *db);
int nn_vec_bwd_x(int blas, int n, int in, int out, const float *W, const float *dY, int ldy, const float *M,
                 float *dX, int lddx);
void nn_vec_relu_bwd(const float *y, float *dx, size_t count);
/* Tests: the widest vectors the kernels may use (16, 8, or 0: the plain
 * loops only); not thread-safe, set before any kernel runs. */
void nn_vec_limit(int max_lanes);
int nn_vec_gather(int n, const int *off, const int *idx, const float *X, int ld, float *Y);
int nn_vec_scatter(int n, const int *off, const int *idx, const float *X, int ld, float *Y);

#endif
