/* nn_vec: the dense layers of the policy on vectors of NN_LANES floats.
 *
 * The policy's layers are narrow (d = 7 to 16 columns) and tall (one row per
 * group): too narrow for BLAS, whose kernels spend more time packing than
 * multiplying at these shapes. Here a row's outputs are one or two vectors:
 * a row of X times W is d broadcasts, multiplies and adds on whole vectors,
 * and dW += X^T dY keeps a block of its rows in registers over all of X's rows.
 *
 * Bits: every output element is formed in the order of the plain loops of
 * nn_impl.h (a sum from 0 over the inner index in order, then the bias or
 * the old value added), each product rounded before its add (ISO C does not
 * contract a * b + c into a fused multiply-add unless asked), so the results
 * are the plain loops' bits, whichever clone runs. The clones: an AVX2 one
 * where the CPU has it (chosen when the program loads), SSE2 otherwise.
 *
 * Strides: the vector kernels read and write whole vectors, so the rows they
 * write and the rows of dY they read need a stride that is a multiple of
 * NN_LANES and at least the row width rounded up to it (the pad columns are
 * written with zeros, or read and ignored). Other strides, and compilers
 * without GCC's vector extension, leave the work to the plain loops. */
#include "nn_vec.h"

#include <string.h>

#include "nn.h"

#define VEC_BLAS_WIDTH 16
/* the largest padded weight matrix copied to the stack (floats) */
#define VEC_WMAX 8192
#define VEC_BMAX 1024

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__) || defined(__aarch64__))
#define NN_VEC_ON 1
#endif

/* the widest vectors used (nn_vec_limit) */
static int vec_max_lanes = 16;

void nn_vec_limit(int max_lanes)
{
    vec_max_lanes = max_lanes;
}

#ifdef NN_VEC_ON

#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define CLONES __attribute__((target_clones("avx2", "default")))
#define WIDE_ATTR __attribute__((target("avx512f")))
#define WIDE_ON 1
#endif
#endif
#ifndef CLONES
#define CLONES
#endif

/* loads and stores as memcpy: no alignment assumed, and no vector passed by
 * value to a function (whose ABI would depend on the clone) */
#define VLOAD(v, p) memcpy(&(v), (p), sizeof(v))
#define VSTORE(p, v) memcpy((p), &(v), sizeof(v))

typedef float V8 __attribute__((vector_size(8 * sizeof(float))));
typedef int I8 __attribute__((vector_size(8 * sizeof(int))));

#define LANES 8
#define V V8
#define I I8
#define K(name) name##_8
#define ATTR CLONES
#include "nn_vec_impl.h"
#undef LANES
#undef V
#undef I
#undef K
#undef ATTR

#ifdef WIDE_ON
/* Rows wider than 8 on CPUs with AVX-512: vectors of 16 floats (nn_pad
 * rounds such rows up to 16) */
typedef float V16 __attribute__((vector_size(16 * sizeof(float))));
typedef int I16 __attribute__((vector_size(16 * sizeof(int))));

#define LANES 16
#define V V16
#define I I16
#define K(name) name##_16
#define ATTR WIDE_ATTR
#include "nn_vec_impl.h"
#undef LANES
#undef V
#undef I
#undef K
#undef ATTR

static int wide_cpu(void) { return vec_max_lanes >= 16 && __builtin_cpu_supports("avx512f") != 0; }
#else
static int wide_cpu(void) { return 0; }
#endif

static int round_up(int x, int m) { return (x + m - 1) / m * m; }

/* The vector width for rows of `width` columns written or read with stride
 * ld: 16 for wide rows where the CPU has AVX-512 and the stride allows, else
 * 8 where the stride allows, else 0 (the plain loops). */
static int lanes_for(int width, int ld)
{
    if (vec_max_lanes < 8)
        return 0;
    if (width > 8 && wide_cpu() && ld % 16 == 0 && ld >= round_up(width, 16))
        return 16;
    return ld % 8 == 0 && ld >= round_up(width, 8) ? 8 : 0;
}

/* The vector kernels run instead of BLAS up to this width (columns of Y,
 * or of dX): measured on the policy's layers, OpenBLAS's sgemm (Haswell
 * kernels) is slower up to one 16-float vector and about even above. */
static int beats_blas(int width) { return width <= VEC_BLAS_WIDTH; }

static void fwd_any(int lanes, int n, int in, int ncol, const float *X, int ldx, const float *Wp, int ldw,
                    const float *bp, int relu, const float *M, int ldm, float *Y, int ldy)
{
#ifdef WIDE_ON
    if (lanes == 16) {
        fwd_16(n, in, ncol, X, ldx, Wp, ldw, bp, relu, M, ldm, Y, ldy);
        return;
    }
#endif
    fwd_8(n, in, ncol, X, ldx, Wp, ldw, bp, relu, M, ldm, Y, ldy);
}

/* dx[i] = y[i] > 0 ? dx[i] : 0 */
CLONES static void relu_bwd_kernel(const float *restrict y, float *restrict dx, size_t count)
{
    const V8 zero = {0};
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        V8 a, m;
        VLOAD(a, dx + i);
        VLOAD(m, y + i);
        a = (V8)((I8)a & (m > zero));
        VSTORE(dx + i, a);
    }
    for (; i < count; i++)
        dx[i] = y[i] > 0 ? dx[i] : 0;
}

/* Y[i] = sum of X[idx[q]], q in off[i] .. off[i + 1), over ld columns */
CLONES static void gather_kernel(int n, const int *restrict off, const int *restrict idx, const float *restrict X,
                                 int ld, float *restrict Y)
{
    for (int i = 0; i < n; i++)
        for (int c = 0; c < ld; c += 8) {
            V8 acc = {0};
            for (int q = off[i]; q < off[i + 1]; q++) {
                V8 x;
                VLOAD(x, X + (size_t)idx[q] * (size_t)ld + c);
                acc += x;
            }
            VSTORE(Y + (size_t)i * (size_t)ld + c, acc);
        }
}

/* Y[idx[q]] += X[i] for i and q in order */
CLONES static void scatter_kernel(int n, const int *restrict off, const int *restrict idx, const float *restrict X,
                                  int ld, float *restrict Y)
{
    for (int i = 0; i < n; i++)
        for (int q = off[i]; q < off[i + 1]; q++) {
            float *y = Y + (size_t)idx[q] * (size_t)ld;
            const float *x = X + (size_t)i * (size_t)ld;
            for (int c = 0; c < ld; c += 8) {
                V8 a, b;
                VLOAD(a, y + c);
                VLOAD(b, x + c);
                a += b;
                VSTORE(y + c, a);
            }
        }
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
#ifdef WIDE_ON
    if (lanes == 16) {
        bwd_w_16(n, in, out, X, ldx, dY, ldy, dW, db);
        return 1;
    }
#endif
    bwd_w_8(n, in, out, X, ldx, dY, ldy, dW, db);
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
    relu_bwd_kernel(y, dx, count);
}

int nn_vec_gather(int n, const int *off, const int *idx, const float *X, int ld, float *Y)
{
    if (ld % 8)
        return 0;
    gather_kernel(n, off, idx, X, ld, Y);
    return 1;
}

int nn_vec_scatter(int n, const int *off, const int *idx, const float *X, int ld, float *Y)
{
    if (ld % 8)
        return 0;
    scatter_kernel(n, off, idx, X, ld, Y);
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
