/* nn_vec: the dense layers of the policy on vectors of floats.
 *
 * The policy's layers are narrow (d = 7 to 16 columns) and tall (one row per
 * group): too narrow for BLAS, whose kernels spend more time packing than
 * multiplying at these shapes. Here a row's outputs are one or two vectors:
 * a row of X times W is d broadcasts, multiplies and adds on whole vectors
 * (the loop over d unrolled for the policy's sizes), and dW += X^T dY keeps a
 * block of its rows in registers over all of X's rows.
 *
 * Bits: every output element is formed in the order of the plain loops of
 * nn_impl.h (a sum from 0 over the inner index in order, then the bias or
 * the old value added), each product rounded before its add (ISO C does not
 * contract a * b + c into a fused multiply-add unless asked), so the results
 * are the plain loops' bits whatever the vector width. The widths: 16 floats
 * (AVX-512) for rows wider than 8 where the CPU has it, 8 (AVX2) where it has
 * that, 4 (SSE2, or the 128-bit vectors of other CPUs) otherwise; chosen at
 * run time.
 *
 * Strides: the vector kernels read and write whole vectors, so the rows they
 * write and the rows of dY and M they read need a stride that is a multiple
 * of 8 and at least the row width rounded up to 8, or to 16 for the 16-float
 * vectors (nn_pad gives both); the pad columns may be written (with zeros)
 * or read, never used. Other strides, and compilers without GCC's vector
 * extension, leave the work to the plain loops. */
#include "nn_vec.h"

/* Every product is rounded before its sum (the plain loops' bits): GCC does
 * not contract a * b + c into a fused multiply-add in ISO C mode, clang
 * would unless told. */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

#include <string.h>

#include "nn.h"

/* The vector kernels run instead of BLAS up to this width (columns of Y,
 * or of dX): measured on the policy's layers, OpenBLAS's sgemm (Haswell
 * kernels) is slower up to one 16-float vector and about even above. */
#define VEC_BLAS_WIDTH 16
/* the largest padded weight matrix copied to the stack (floats) */
#define VEC_WMAX 8192
#define VEC_BMAX 1024

/* the widest vectors used (nn_vec_limit) */
static int vec_max_lanes = 16;

void nn_vec_limit(int max_lanes)
{
    vec_max_lanes = max_lanes;
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__aarch64__))

/* loads and stores as memcpy: no alignment assumed, and no vector passed by
 * value to a function (whose ABI would depend on the instruction set) */
#define VLOAD(v, p) memcpy(&(v), (p), sizeof(v))
#define VSTORE(p, v) memcpy((p), &(v), sizeof(v))

typedef float V4 __attribute__((vector_size(4 * sizeof(float))));
typedef int I4 __attribute__((vector_size(4 * sizeof(int))));

#define LANES 4
#define V V4
#define I I4
#define K(name) name##_4
#define ATTR
#include "nn_vec_impl.h"
#undef LANES
#undef V
#undef I
#undef K
#undef ATTR

#if defined(__x86_64__)
#define VEC_X86 1
typedef float V8 __attribute__((vector_size(8 * sizeof(float))));
typedef int I8 __attribute__((vector_size(8 * sizeof(int))));
typedef float V16 __attribute__((vector_size(16 * sizeof(float))));
typedef int I16 __attribute__((vector_size(16 * sizeof(int))));

#define LANES 8
#define V V8
#define I I8
#define K(name) name##_8
#define ATTR __attribute__((target("avx2")))
#include "nn_vec_impl.h"
#undef LANES
#undef V
#undef I
#undef K
#undef ATTR

#define LANES 16
#define V V16
#define I I16
#define K(name) name##_16
#define ATTR __attribute__((target("avx512f")))
#include "nn_vec_impl.h"
#undef LANES
#undef V
#undef I
#undef K
#undef ATTR
#endif

/* The widest vectors this CPU runs (within nn_vec_limit): 16, 8 or 4. */
static int cpu_lanes(void)
{
#ifdef VEC_X86
    if (vec_max_lanes >= 16 && __builtin_cpu_supports("avx512f"))
        return 16;
    if (vec_max_lanes >= 8 && __builtin_cpu_supports("avx2"))
        return 8;
#endif
    return 4;
}

static int round_up(int x, int m) { return (x + m - 1) / m * m; }

/* The vector width for rows of `width` columns written or read with stride
 * ld: 16 for rows wider than 8 where the CPU has it and the stride allows,
 * else 8 or 4 (the CPU's) where the stride is a multiple of 8 of at least
 * the width, else 0 (the plain loops). */
static int lanes_for(int width, int ld)
{
    if (vec_max_lanes < 4)
        return 0;
    int cpu = cpu_lanes();
    if (width > 8 && cpu == 16 && ld % 16 == 0 && ld >= round_up(width, 16))
        return 16;
    if (ld % 8 || ld < round_up(width, 8))
        return 0;
    return cpu >= 8 ? 8 : 4;
}

static int beats_blas(int width) { return width <= VEC_BLAS_WIDTH; }

/* the kernels of one width */
static void fwd_any(int lanes, int n, int in, int ncol, const float *X, int ldx, const float *Wp, int ldw,
                    const float *bp, int relu, const float *M, int ldm, float *Y, int ldy)
{
#ifdef VEC_X86
    if (lanes == 16) {
        fwd_16(n, in, ncol, X, ldx, Wp, ldw, bp, relu, M, ldm, Y, ldy);
        return;
    }
    if (lanes == 8) {
        fwd_8(n, in, ncol, X, ldx, Wp, ldw, bp, relu, M, ldm, Y, ldy);
        return;
    }
#endif
    fwd_4(n, in, ncol, X, ldx, Wp, ldw, bp, relu, M, ldm, Y, ldy);
}

int nn_vec_fwd(int blas, int n, int in, int out, const float *X, int ldx, const float *W, const float *b, int relu,
               float *Y, int ldy)
{
    int lanes = lanes_for(out, ldy);
    if (n <= 0 || in <= 0 || out <= 0 || !lanes || (blas && !beats_blas(out)))
        return 0;
    int outp = round_up(out, lanes);
    if (out == outp) {
        fwd_any(lanes, n, in, outp, X, ldx, W, out, b, relu, NULL, 0, Y, ldy);
        return 1;
    }
    if ((size_t)in * (size_t)outp > VEC_WMAX || outp > VEC_BMAX)
        return 0;
    float Wp[VEC_WMAX], bp[VEC_BMAX];
    for (int j = 0; j < outp; j++)
        bp[j] = j < out ? b[j] : 0;
    for (int k = 0; k < in; k++) {
        float *row = Wp + (size_t)k * (size_t)outp;
        const float *src = W + (size_t)k * (size_t)out;
        for (int j = 0; j < outp; j++)
            row[j] = j < out ? src[j] : 0;
    }
    fwd_any(lanes, n, in, outp, X, ldx, Wp, outp, bp, relu, NULL, 0, Y, ldy);
    return 1;
}

int nn_vec_bwd_w(int blas, int n, int in, int out, const float *X, int ldx, const float *dY, int ldy, float *dW,
                 float *db)
{
    int lanes = lanes_for(out, ldy);
    if (n <= 0 || in <= 0 || out <= 0 || !lanes || (blas && !beats_blas(out)))
        return 0;
#ifdef VEC_X86
    if (lanes == 16) {
        bwd_w_16(n, in, out, X, ldx, dY, ldy, dW, db);
        return 1;
    }
    if (lanes == 8) {
        bwd_w_8(n, in, out, X, ldx, dY, ldy, dW, db);
        return 1;
    }
#endif
    bwd_w_4(n, in, out, X, ldx, dY, ldy, dW, db);
    return 1;
}

int nn_vec_bwd_x(int blas, int n, int in, int out, const float *W, const float *dY, int ldy, const float *M,
                 float *dX, int lddx)
{
    int lanes = lanes_for(in, lddx);
    if (n <= 0 || in <= 0 || out <= 0 || !lanes || (blas && !beats_blas(in)))
        return 0;
    int inp = round_up(in, lanes);
    if ((size_t)out * (size_t)inp > VEC_WMAX || inp > VEC_BMAX)
        return 0;
    /* dX = dY W^T: the fwd kernel on W^T, zero-padded to inp columns, with
     * a zero bias (a sum from +0 plus +0 is itself), masked by M */
    float WT[VEC_WMAX], zb[VEC_BMAX];
    for (int j = 0; j < out; j++) {
        float *row = WT + (size_t)j * (size_t)inp;
        for (int k = 0; k < inp; k++)
            row[k] = k < in ? W[(size_t)k * (size_t)out + (size_t)j] : 0;
    }
    for (int k = 0; k < inp; k++)
        zb[k] = 0;
    fwd_any(lanes, n, out, inp, dY, ldy, WT, inp, zb, 0, M, lddx, dX, lddx);
    return 1;
}

void nn_vec_relu_bwd(const float *y, float *dx, size_t count)
{
    int lanes = vec_max_lanes < 4 ? 0 : cpu_lanes();
#ifdef VEC_X86
    if (lanes == 16) {
        relu_bwd_16(y, dx, count);
        return;
    }
    if (lanes == 8) {
        relu_bwd_8(y, dx, count);
        return;
    }
#endif
    if (lanes)
        relu_bwd_4(y, dx, count);
    else
        for (size_t i = 0; i < count; i++)
            dx[i] = y[i] > 0 ? dx[i] : 0;
}

int nn_vec_gather(int n, const int *off, const int *idx, const float *X, int ld, float *Y)
{
    int lanes = lanes_for(ld, ld);
    if (!lanes)
        return 0;
#ifdef VEC_X86
    if (lanes == 16) {
        gather_16(n, off, idx, X, ld, Y);
        return 1;
    }
    if (lanes == 8) {
        gather_8(n, off, idx, X, ld, Y);
        return 1;
    }
#endif
    gather_4(n, off, idx, X, ld, Y);
    return 1;
}

int nn_vec_scatter(int n, const int *off, const int *idx, const float *X, int ld, float *Y)
{
    int lanes = lanes_for(ld, ld);
    if (!lanes)
        return 0;
#ifdef VEC_X86
    if (lanes == 16) {
        scatter_16(n, off, idx, X, ld, Y);
        return 1;
    }
    if (lanes == 8) {
        scatter_8(n, off, idx, X, ld, Y);
        return 1;
    }
#endif
    scatter_4(n, off, idx, X, ld, Y);
    return 1;
}

#else /* no vector extension: the plain loops do it all */

int nn_vec_fwd(int blas, int n, int in, int out, const float *X, int ldx, const float *W, const float *b, int relu,
               float *Y, int ldy)
{
    return 0;
}

int nn_vec_bwd_w(int blas, int n, int in, int out, const float *X, int ldx, const float *dY, int ldy, float *dW,
                 float *db)
{
    return 0;
}

int nn_vec_bwd_x(int blas, int n, int in, int out, const float *W, const float *dY, int ldy, const float *M,
                 float *dX, int lddx)
{
    return 0;
}

void nn_vec_relu_bwd(const float *y, float *dx, size_t count)
{
    for (size_t i = 0; i < count; i++)
        dx[i] = y[i] > 0 ? dx[i] : 0;
}

int nn_vec_gather(int n, const int *off, const int *idx, const float *X, int ld, float *Y) { return 0; }
int nn_vec_scatter(int n, const int *off, const int *idx, const float *X, int ld, float *Y) { return 0; }

#endif
