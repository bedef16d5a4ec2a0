/* nn_vec_impl: the text of nn_vec.c's kernels, included once per vector
 * width with LANES (floats per vector), V and I (the float and int vector
 * types of that width), K(name) (the kernel's name for this width) and ATTR
 * (the instruction set it is compiled for, or nothing) defined. Not a
 * public header. */

/* Two rows of Y at columns jb .. jb + LANES over a k loop of IN steps (a
 * constant where the caller knows it, so that the loop unrolls) */
#define FWD_ROWS(IN)                                                                  \
    do {                                                                              \
        int i = 0;                                                                    \
        for (; i + 2 <= n; i += 2) {                                                  \
            const float *x0 = X + (size_t)i * (size_t)ldx, *x1 = x0 + ldx;            \
            V a0 = zero, a1 = zero;                                                   \
            for (int k = 0; k < (IN); k++) {                                          \
                V wk;                                                                 \
                VLOAD(wk, w + (size_t)k * (size_t)ldw);                               \
                a0 += x0[k] * wk;                                                     \
                a1 += x1[k] * wk;                                                     \
            }                                                                         \
            a0 += b;                                                                  \
            a1 += b;                                                                  \
            if (relu) {                                                               \
                a0 = (V)((I)a0 & (a0 > zero));                                        \
                a1 = (V)((I)a1 & (a1 > zero));                                        \
            } else if (M) {                                                           \
                V m0, m1;                                                             \
                VLOAD(m0, M + (size_t)i * (size_t)ldm + jb);                          \
                VLOAD(m1, M + (size_t)(i + 1) * (size_t)ldm + jb);                    \
                a0 = (V)((I)a0 & (m0 > zero));                                        \
                a1 = (V)((I)a1 & (m1 > zero));                                        \
            }                                                                         \
            VSTORE(Y + (size_t)i * (size_t)ldy + jb, a0);                             \
            VSTORE(Y + (size_t)(i + 1) * (size_t)ldy + jb, a1);                       \
        }                                                                             \
        if (i < n) {                                                                  \
            const float *x0 = X + (size_t)i * (size_t)ldx;                            \
            V a0 = zero;                                                              \
            for (int k = 0; k < (IN); k++) {                                          \
                V wk;                                                                 \
                VLOAD(wk, w + (size_t)k * (size_t)ldw);                               \
                a0 += x0[k] * wk;                                                     \
            }                                                                         \
            a0 += b;                                                                  \
            if (relu) {                                                               \
                a0 = (V)((I)a0 & (a0 > zero));                                        \
            } else if (M) {                                                           \
                V m0;                                                                 \
                VLOAD(m0, M + (size_t)i * (size_t)ldm + jb);                          \
                a0 = (V)((I)a0 & (m0 > zero));                                        \
            }                                                                         \
            VSTORE(Y + (size_t)i * (size_t)ldy + jb, a0);                             \
        }                                                                             \
    } while (0)

/* Y[i][jb..] = sum_k X[i][k] Wp[k][jb..] + bp[jb..] over the ncol (a
 * multiple of LANES) columns of Wp (row stride ldw), two rows at a time, then
 * ReLU'd (relu) or kept where M, a matrix like Y (row stride ldm), is
 * positive (M not NULL: the ReLU of the layer whose gradient Y is). The k
 * loop is unrolled for the inner sizes of the policy (up to 16). */
ATTR static void K(fwd)(int n, int in, int ncol, const float *restrict X, int ldx, const float *restrict Wp,
                        int ldw, const float *restrict bp, int relu, const float *restrict M, int ldm,
                        float *restrict Y, int ldy)
{
    const V zero = {0};
    for (int jb = 0; jb < ncol; jb += LANES) {
        V b;
        VLOAD(b, bp + jb);
        const float *w = Wp + jb;
        switch (in) {
        case 1: FWD_ROWS(1); break;
        case 2: FWD_ROWS(2); break;
        case 3: FWD_ROWS(3); break;
        case 4: FWD_ROWS(4); break;
        case 5: FWD_ROWS(5); break;
        case 6: FWD_ROWS(6); break;
        case 7: FWD_ROWS(7); break;
        case 8: FWD_ROWS(8); break;
        case 9: FWD_ROWS(9); break;
        case 10: FWD_ROWS(10); break;
        case 11: FWD_ROWS(11); break;
        case 12: FWD_ROWS(12); break;
        case 13: FWD_ROWS(13); break;
        case 14: FWD_ROWS(14); break;
        case 15: FWD_ROWS(15); break;
        case 16: FWD_ROWS(16); break;
        default: FWD_ROWS(in); break;
        }
    }
}

#undef FWD_ROWS

/* KB rows of dW (k .. k + KB) over the columns jb .. jb + LANES: each
 * element's sum over the n rows from 0, then added to dW (row stride out);
 * the first pass (k = 0) also adds the rows of dY to bacc, the bias
 * gradient (in the same pass: its chain of adds hides behind the others). */
#define DW_PASS(KB)                                                                   \
    do {                                                                              \
        V a[KB];                                                                      \
        for (int q = 0; q < (KB); q++)                                                \
            a[q] = zero;                                                              \
        for (int i = 0; i < n; i++) {                                                 \
            V yi;                                                                     \
            VLOAD(yi, dY + (size_t)i * (size_t)ldy + jb);                             \
            const float *xi = X + (size_t)i * (size_t)ldx + k;                        \
            for (int q = 0; q < (KB); q++)                                            \
                a[q] += xi[q] * yi;                                                   \
            if (k == 0)                                                               \
                bacc += yi;                                                           \
        }                                                                             \
        for (int q = 0; q < (KB); q++) {                                              \
            float t[LANES];                                                           \
            VSTORE(t, a[q]);                                                          \
            float *row = dW + (size_t)(k + q) * (size_t)out;                          \
            for (int j = jb; j < jend; j++)                                           \
                row[j] = t[j - jb] + row[j];                                          \
        }                                                                             \
    } while (0)

/* dW[in x out] += X^T dY, db += column sums of dY (in row order, straight
 * into db); in >= 1 */
ATTR static void K(bwd_w)(int n, int in, int out, const float *restrict X, int ldx, const float *restrict dY,
                          int ldy, float *restrict dW, float *restrict db)
{
    const V zero = {0};
    for (int jb = 0; jb < out; jb += LANES) {
        int jend = jb + LANES < out ? jb + LANES : out;
        float bt[LANES];
        for (int j = jb; j < jb + LANES; j++)
            bt[j - jb] = j < jend ? db[j] : 0;
        V bacc;
        VLOAD(bacc, bt);
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
        VSTORE(bt, bacc);
        for (int j = jb; j < jend; j++)
            db[j] = bt[j - jb];
    }
}

#undef DW_PASS

/* dx[i] = y[i] > 0 ? dx[i] : 0 */
ATTR static void K(relu_bwd)(const float *restrict y, float *restrict dx, size_t count)
{
    const V zero = {0};
    size_t i = 0;
    for (; i + LANES <= count; i += LANES) {
        V a, m;
        VLOAD(a, dx + i);
        VLOAD(m, y + i);
        a = (V)((I)a & (m > zero));
        VSTORE(dx + i, a);
    }
    for (; i < count; i++)
        dx[i] = y[i] > 0 ? dx[i] : 0;
}

/* Y[i] = sum of X[idx[q]], q in off[i] .. off[i + 1), over ld (a multiple of
 * LANES) columns */
ATTR static void K(gather)(int n, const int *restrict off, const int *restrict idx, const float *restrict X, int ld,
                           float *restrict Y)
{
    for (int i = 0; i < n; i++)
        for (int c = 0; c < ld; c += LANES) {
            V acc = {0};
            for (int q = off[i]; q < off[i + 1]; q++) {
                V x;
                VLOAD(x, X + (size_t)idx[q] * (size_t)ld + c);
                acc += x;
            }
            VSTORE(Y + (size_t)i * (size_t)ld + c, acc);
        }
}

/* Y[idx[q]] += X[i] for i and q in order */
ATTR static void K(scatter)(int n, const int *restrict off, const int *restrict idx, const float *restrict X, int ld,
                            float *restrict Y)
{
    for (int i = 0; i < n; i++)
        for (int q = off[i]; q < off[i + 1]; q++) {
            float *y = Y + (size_t)idx[q] * (size_t)ld;
            const float *x = X + (size_t)i * (size_t)ld;
            for (int c = 0; c < ld; c += LANES) {
                V a, b;
                VLOAD(a, y + c);
                VLOAD(b, x + c);
                a += b;
                VSTORE(y + c, a);
            }
        }
}
