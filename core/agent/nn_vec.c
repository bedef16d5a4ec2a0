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

/* Layers up to this many output columns (input columns for dX) take the
 * vector kernels even when BLAS is on: measured on inception_v3's policy,
 * they beat OpenBLAS's sgemm below about two vectors of width. */
#define VEC_BLAS_WIDTH 16
/* the largest padded weight matrix copied to the stack (floats) */
#define VEC_WMAX 8192
#define VEC_BMAX 1024

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__) || defined(__aarch64__))
#define NN_VEC_ON 1
#endif

#ifdef NN_VEC_ON

#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef CLONES
#define CLONES
#endif

typedef float V8 __attribute__((vector_size(NN_LANES * sizeof(float))));
typedef int I8 __attribute__((vector_size(NN_LANES * sizeof(int))));

/* loads and stores as memcpy: no alignment assumed, and no vector passed by
 * value to a function (whose ABI would depend on the clone) */
#define VLOAD(v, p) memcpy(&(v), (p), sizeof(V8))
#define VSTORE(p, v) memcpy((p), &(v), sizeof(V8))
/* x > 0 ? x : 0 per lane (NaN and -0 give +0, as the scalar ReLU) */
#define VRELU(v) ((v) = (V8)((I8)(v) & ((v) > zero)))

static int pad8(int x) { return (x + NN_LANES - 1) / NN_LANES * NN_LANES; }

/* Y[i][jb..] = relu?(sum_k X[i][k] Wp[k][jb..] + bp[jb..]) for the ncol
 * (a multiple of NN_LANES) columns of Wp (row stride ldw), two rows at a
 * time. */
CLONES static void fwd_kernel(int n, int in, int ncol, const float *restrict X, int ldx, const float *restrict Wp,
                              int ldw, const float *restrict bp, int relu, float *restrict Y, int ldy)
{
    const V8 zero = {0};
    for (int jb = 0; jb < ncol; jb += NN_LANES) {
        V8 b;
        VLOAD(b, bp + jb);
        const float *w = Wp + jb;
        int i = 0;
        for (; i + 2 <= n; i += 2) {
            const float *x0 = X + (size_t)i * (size_t)ldx, *x1 = x0 + ldx;
            V8 a0 = zero, a1 = zero;
            for (int k = 0; k < in; k++) {
                V8 wk;
                VLOAD(wk, w + (size_t)k * (size_t)ldw);
                a0 += x0[k] * wk;
                a1 += x1[k] * wk;
            }
            a0 += b;
            a1 += b;
            if (relu) {
                VRELU(a0);
                VRELU(a1);
            }
            VSTORE(Y + (size_t)i * (size_t)ldy + jb, a0);
            VSTORE(Y + (size_t)(i + 1) * (size_t)ldy + jb, a1);
        }
        if (i < n) {
            const float *x0 = X + (size_t)i * (size_t)ldx;
            V8 a0 = zero;
            for (int k = 0; k < in; k++) {
                V8 wk;
                VLOAD(wk, w + (size_t)k * (size_t)ldw);
                a0 += x0[k] * wk;
            }
            a0 += b;
            if (relu)
                VRELU(a0);
            VSTORE(Y + (size_t)i * (size_t)ldy + jb, a0);
        }
    }
}

/* KB rows of dW (k .. k + KB) over the columns jb .. jb + NN_LANES: each
 * element's sum over the n rows from 0, then added to dW (row stride out). */
#define DW_PASS(KB)                                                                   \
    do {                                                                              \
        V8 a[KB];                                                                     \
        for (int q = 0; q < (KB); q++)                                                \
            a[q] = zero;                                                              \
        for (int i = 0; i < n; i++) {                                                 \
            V8 yi;                                                                    \
            VLOAD(yi, dY + (size_t)i * (size_t)ldy + jb);                             \
            const float *xi = X + (size_t)i * (size_t)ldx + k;                        \
            for (int q = 0; q < (KB); q++)                                            \
                a[q] += xi[q] * yi;                                                   \
        }                                                                             \
        for (int q = 0; q < (KB); q++) {                                              \
            float t[NN_LANES];                                                        \
            VSTORE(t, a[q]);                                                          \
            float *row = dW + (size_t)(k + q) * (size_t)out;                          \
            for (int j = jb; j < jend; j++)                                           \
                row[j] = t[j - jb] + row[j];                                          \
        }                                                                             \
    } while (0)

/* dW[in x out] += X^T dY, db += column sums of dY (in row order, straight
 * into db) */
CLONES static void bwd_w_kernel(int n, int in, int out, const float *restrict X, int ldx, const float *restrict dY,
                                int ldy, float *restrict dW, float *restrict db)
{
    const V8 zero = {0};
    for (int jb = 0; jb < out; jb += NN_LANES) {
        int jend = jb + NN_LANES < out ? jb + NN_LANES : out;
        for (int k = 0; k < in;) {
            int kk = in - k < 8 ? in - k : 8;
            switch (kk) {
            case 8: DW_PASS(8); break;
            case 7: DW_PASS(7); break;
            case 6: DW_PASS(6); break;
            case 5: DW_PASS(5); break;
            case 4: DW_PASS(4); break;
            case 3: DW_PASS(3); break;
            case 2: DW_PASS(2); break;
            default: DW_PASS(1); break;
            }
            k += kk;
        }
        float t[NN_LANES] = {0};
        for (int j = jb; j < jend; j++)
            t[j - jb] = db[j];
        V8 acc;
        VLOAD(acc, t);
        for (int i = 0; i < n; i++) {
            V8 yi;
            VLOAD(yi, dY + (size_t)i * (size_t)ldy + jb);
            acc += yi;
        }
        VSTORE(t, acc);
        for (int j = jb; j < jend; j++)
            db[j] = t[j - jb];
    }
}

/* Y[i] = sum of X[idx[q]], q in off[i] .. off[i + 1), over ld columns */
CLONES static void gather_kernel(int n, const int *restrict off, const int *restrict idx, const float *restrict X,
                                 int ld, float *restrict Y)
{
    for (int i = 0; i < n; i++)
        for (int c = 0; c < ld; c += NN_LANES) {
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
            for (int c = 0; c < ld; c += NN_LANES) {
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
    int outp = pad8(out);
    if (n <= 0 || in <= 0 || out <= 0 || (blas && out > VEC_BLAS_WIDTH) || ldy % NN_LANES || ldy < outp ||
        outp > VEC_BMAX)
        return 0;
    float bp[VEC_BMAX];
    memset(bp, 0, (size_t)outp * sizeof *bp);
    memcpy(bp, b, (size_t)out * sizeof *bp);
    if (out == outp) {
        fwd_kernel(n, in, outp, X, ldx, W, out, bp, relu, Y, ldy);
        return 1;
    }
    if ((size_t)in * (size_t)outp > VEC_WMAX)
        return 0;
    float Wp[VEC_WMAX];
    for (int k = 0; k < in; k++) {
        float *row = Wp + (size_t)k * (size_t)outp;
        memcpy(row, W + (size_t)k * (size_t)out, (size_t)out * sizeof *row);
        memset(row + out, 0, (size_t)(outp - out) * sizeof *row);
    }
    fwd_kernel(n, in, outp, X, ldx, Wp, outp, bp, relu, Y, ldy);
    return 1;
}

int nn_vec_bwd_w(int blas, int n, int in, int out, const float *X, int ldx, const float *dY, int ldy, float *dW,
                 float *db)
{
    if (n <= 0 || in <= 0 || out <= 0 || (blas && out > VEC_BLAS_WIDTH) || ldy % NN_LANES || ldy < pad8(out))
        return 0;
    bwd_w_kernel(n, in, out, X, ldx, dY, ldy, dW, db);
    return 1;
}

int nn_vec_bwd_x(int blas, int n, int in, int out, const float *W, const float *dY, int ldy, float *dX, int lddx)
{
    int inp = pad8(in);
    if (n <= 0 || in <= 0 || out <= 0 || (blas && in > VEC_BLAS_WIDTH) || lddx % NN_LANES || lddx < inp ||
        (size_t)out * (size_t)inp > VEC_WMAX || inp > VEC_BMAX)
        return 0;
    /* dX = dY W^T: the fwd kernel on W^T, zero-padded to inp columns, with
     * a zero bias (a sum from +0 plus +0 is itself) */
    float WT[VEC_WMAX], zb[VEC_BMAX];
    for (int j = 0; j < out; j++) {
        float *row = WT + (size_t)j * (size_t)inp;
        for (int k = 0; k < in; k++)
            row[k] = W[(size_t)k * (size_t)out + (size_t)j];
        memset(row + in, 0, (size_t)(inp - in) * sizeof *row);
    }
    memset(zb, 0, (size_t)inp * sizeof *zb);
    fwd_kernel(n, out, inp, dY, ldy, WT, inp, zb, 0, dX, lddx);
    return 1;
}

int nn_vec_gather(int n, const int *off, const int *idx, const float *X, int ld, float *Y)
{
    if (ld % NN_LANES)
        return 0;
    gather_kernel(n, off, idx, X, ld, Y);
    return 1;
}

int nn_vec_scatter(int n, const int *off, const int *idx, const float *X, int ld, float *Y)
{
    if (ld % NN_LANES)
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

int nn_vec_bwd_x(int blas, int n, int in, int out, const float *W, const float *dY, int ldy, float *dX, int lddx)
{
    return 0;
}

int nn_vec_gather(int n, const int *off, const int *idx, const float *X, int ld, float *Y) { return 0; }
int nn_vec_scatter(int n, const int *off, const int *idx, const float *X, int ld, float *Y) { return 0; }

#endif
