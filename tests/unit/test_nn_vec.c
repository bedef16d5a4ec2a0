/* nn_vec: the float kernels on vectors give the plain loops' bits.
 *
 * - dense layers (nn_dense_fwd_f, nn_dense_bwd_f with blas 0) on padded
 *   strides, with and without the ReLU and the gradient mask, accumulating
 *   twice into dW and db: vectors of 16, 8 and 4 floats (nn_vec_limit; the
 *   widths this CPU lacks fall back to narrower ones) against the plain
 *   loops (limit 0), bit for bit; pad columns are left alone or zeroed;
 * - a stride the vectors cannot use takes the loops, same bits;
 * - row sums (gather, scatter) and the ReLU gradient, bit for bit;
 * - the policy's forward and backward passes (blas 0) at every width, bit
 *   for bit, on architectures with rows of 8 and of 16 floats;
 * - with blas 1 (the narrow layers on vectors, BLAS for the head) every
 *   width gives the same bits. */
#include <stdlib.h>

#include "gen.h"
#include "nn.h"
#include "nn_vec.h"
#include "policy.h"
#include "policy_fixture.h"
#include "test.h"
#include "util.h"

static const int WIDTHS[] = {16, 8, 4};
#define N_WIDTHS 3

static void fill(Rng *r, float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double u = rng_uniform(r);
        /* exact zeros and negatives, as after a ReLU and in gradients */
        x[i] = u < 0.15 ? 0.0f : (float)(4 * rng_uniform(r) - 2);
    }
}

/* One layer's forward and backward at nn_vec_limit(lanes): Y, dX, dW, db. */
typedef struct DenseOut {
    float *Y, *dX, *dW, *db;
} DenseOut;

typedef struct DenseCase {
    int n, in, out, ldx, ldy, lddx, relu, mask;
    float *X, *W, *b, *dY, *M;
} DenseCase;

static DenseOut dense_run(const DenseCase *c, int lanes)
{
    DenseOut o;
    size_t ny = (size_t)c->n * (size_t)c->ldy, nx = (size_t)c->n * (size_t)c->lddx;
    o.Y = XMALLOC(float, ny + 1);
    o.dX = XMALLOC(float, nx + 1);
    o.dW = XNEW(float, (size_t)c->in * (size_t)c->out);
    o.db = XNEW(float, (size_t)c->out);
    for (size_t i = 0; i < ny; i++)
        o.Y[i] = 7.0f; /* the pad columns: zeros from the vectors, 7 from the loops */
    for (size_t i = 0; i < nx; i++)
        o.dX[i] = 7.0f;
    nn_vec_limit(lanes);
    nn_dense_fwd_f(0, c->n, c->in, c->out, c->X, c->ldx, c->W, c->b, c->relu, o.Y, c->ldy);
    for (int t = 0; t < 2; t++)
        nn_dense_bwd_f(0, c->n, c->in, c->out, c->X, c->ldx, c->W, c->dY, c->ldy, c->mask ? c->M : NULL, o.dX,
                       c->lddx, o.dW, o.db);
    nn_vec_limit(16);
    return o;
}

static void dense_free(DenseOut *o)
{
    free(o->Y);
    free(o->dX);
    free(o->dW);
    free(o->db);
}

/* Bit-equal on the real columns; returns the mismatches (first reported). */
static int same_bits(const char *what, const DenseCase *c, int lanes, const float *a, const float *b, int rows,
                     int cols, int ld)
{
    int bad = 0;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            size_t k = (size_t)i * (size_t)ld + (size_t)j;
            if (memcmp(&a[k], &b[k], sizeof a[k]) != 0 && bad++ == 0)
                test_fail(__FILE__, __LINE__, "%s n=%d in=%d out=%d relu=%d mask=%d lanes=%d [%d][%d]: %.9g vs loops %.9g",
                          what, c->n, c->in, c->out, c->relu, c->mask, lanes, i, j, a[k], b[k]);
        }
    return bad;
}

static void dense_case(Rng *r, int n, int in, int out, int relu, int mask, int padded)
{
    DenseCase c = {n, in, out, in + 3, padded ? nn_pad(out) : out, padded ? nn_pad(in) : in, relu, mask,
                   NULL, NULL, NULL, NULL, NULL};
    c.X = XMALLOC(float, (size_t)n * (size_t)c.ldx);
    c.W = XMALLOC(float, (size_t)in * (size_t)out);
    c.b = XMALLOC(float, out);
    c.dY = XMALLOC(float, (size_t)n * (size_t)c.ldy);
    c.M = XMALLOC(float, (size_t)n * (size_t)c.lddx);
    fill(r, c.X, (size_t)n * (size_t)c.ldx);
    fill(r, c.W, (size_t)in * (size_t)out);
    fill(r, c.b, (size_t)out);
    fill(r, c.dY, (size_t)n * (size_t)c.ldy);
    fill(r, c.M, (size_t)n * (size_t)c.lddx);
    DenseOut ref = dense_run(&c, 0);
    for (int w = 0; w < N_WIDTHS; w++) {
        DenseOut o = dense_run(&c, WIDTHS[w]);
        same_bits("Y", &c, WIDTHS[w], o.Y, ref.Y, n, out, c.ldy);
        same_bits("dX", &c, WIDTHS[w], o.dX, ref.dX, n, in, c.lddx);
        same_bits("dW", &c, WIDTHS[w], o.dW, ref.dW, in, out, out);
        same_bits("db", &c, WIDTHS[w], o.db, ref.db, 1, out, out);
        if (padded) { /* the pad columns of Y: written with zeros, or left alone */
            int ok = 1;
            for (int i = 0; i < n; i++)
                for (int j = out; j < c.ldy; j++) {
                    float y = o.Y[(size_t)i * (size_t)c.ldy + (size_t)j];
                    ok &= y == 0.0f || y == 7.0f;
                }
            CHECK_MSG(ok, "n=%d in=%d out=%d lanes=%d: Y's pad columns hold other values", n, in, out, WIDTHS[w]);
        }
        dense_free(&o);
    }
    dense_free(&ref);
    free(c.X);
    free(c.W);
    free(c.b);
    free(c.dY);
    free(c.M);
}

TEST(nn_vec_dense_bits)
{
    static const int SHAPES[][3] = {{169, 7, 7}, {1, 7, 7}, {2, 14, 14}, {5, 9, 9},   {33, 12, 24},
                                    {1, 56, 112}, {1, 112, 56}, {4, 56, 2}, {3, 16, 16}, {6, 20, 18},
                                    {3, 1, 1},    {2, 17, 33},  {7, 8, 3}, {11, 32, 32}};
    Rng r;
    rng_seed(&r, 21);
    for (size_t s = 0; s < sizeof SHAPES / sizeof SHAPES[0]; s++)
        for (int relu = 0; relu < 2; relu++)
            for (int padded = 0; padded < 2; padded++)
                dense_case(&r, SHAPES[s][0], SHAPES[s][1], SHAPES[s][2], relu, !relu, padded);
}

TEST(nn_vec_rows_bits)
{
    Rng r;
    rng_seed(&r, 22);
    static const int LDS[] = {8, 16, 32, 7};
    for (int li = 0; li < 4; li++) {
        int n = 23, ld = LDS[li];
        int *off = XMALLOC(int, n + 1), *idx = XMALLOC(int, 4 * n);
        off[0] = 0;
        for (int i = 0; i < n; i++) {
            int deg = (int)rng_below(&r, 4);
            for (int q = 0; q < deg; q++)
                idx[off[i] + q] = (int)rng_below(&r, (uint64_t)n); /* repeats allowed */
            off[i + 1] = off[i] + deg;
        }
        size_t m = (size_t)n * (size_t)ld;
        float *X = XMALLOC(float, m), *ref = XMALLOC(float, m), *got = XMALLOC(float, m);
        float *Y0 = XMALLOC(float, m), *dr = XMALLOC(float, m), *dg = XMALLOC(float, m);
        fill(&r, X, m);
        fill(&r, Y0, m);
        nn_vec_limit(0);
        nn_rows_gather_f(n, off, idx, X, ld, ref);
        memcpy(dr, Y0, m * sizeof *dr);
        nn_rows_scatter_f(n, off, idx, X, ld, dr);
        for (int w = 0; w < N_WIDTHS; w++) {
            nn_vec_limit(WIDTHS[w]);
            nn_rows_gather_f(n, off, idx, X, ld, got);
            memcpy(dg, Y0, m * sizeof *dg);
            nn_rows_scatter_f(n, off, idx, X, ld, dg);
            CHECK_MSG(memcmp(got, ref, m * sizeof *got) == 0, "gather ld=%d lanes=%d: other bits", ld, WIDTHS[w]);
            CHECK_MSG(memcmp(dg, dr, m * sizeof *dg) == 0, "scatter ld=%d lanes=%d: other bits", ld, WIDTHS[w]);
        }
        /* the ReLU gradient, on a count that leaves a tail */
        size_t cnt = m - 3;
        nn_vec_limit(0);
        memcpy(dr, Y0, m * sizeof *dr);
        nn_relu_bwd_f(X, dr, cnt);
        for (int w = 0; w < N_WIDTHS; w++) {
            nn_vec_limit(WIDTHS[w]);
            memcpy(dg, Y0, m * sizeof *dg);
            nn_relu_bwd_f(X, dg, cnt);
            CHECK_MSG(memcmp(dg, dr, m * sizeof *dg) == 0, "relu_bwd lanes=%d: other bits", WIDTHS[w]);
        }
        nn_vec_limit(16);
        free(off);
        free(idx);
        free(X);
        free(ref);
        free(got);
        free(Y0);
        free(dr);
        free(dg);
    }
}

/* The policy's passes at nn_vec_limit(lanes): logits and the gradient of
 * sum_j c_j logits_j. */
static void policy_run(Policy *pol, const PolicyGraph *pg, const float *feats, int v, int lanes, float *logits,
                       float *grad)
{
    float c[POLICY_MAX_DEVICES];
    for (int j = 0; j < pol->arch.n_devices; j++)
        c[j] = (float)(j + 1) * (j % 2 ? -0.75f : 0.5f);
    nn_vec_limit(lanes);
    PolicyWork *w = policy_work_new(&pol->arch, pg);
    memset(grad, 0, pol->p.n * sizeof *grad);
    policy_forward(pol, pg, w, feats, v, logits, NULL);
    policy_backward(pol, pg, w, c, grad);
    policy_work_free(w);
    nn_vec_limit(16);
}

TEST(nn_vec_policy_bits)
{
    /* d = 7 (rows of 8), 9 and 12 (rows of 16), extended 16 */
    static const int CASES[][3] = {{2, 0, 0}, {4, 0, 0}, {2, 0, 1}, {4, 1, 1}};
    for (int ci = 0; ci < 4; ci++) {
        PolicyArch a;
        policy_arch_for(&a, CASES[ci][0], CASES[ci][1], CASES[ci][2]);
        Fix f;
        if (fix_from_graph(&f, gen_random_dag(40, 2.0, 70 + (uint64_t)ci), 0) != 0) {
            fix_done(&f);
            continue;
        }
        Policy *pol = new_policy(&a, 5 + (uint64_t)ci);
        REQUIRE(pol != NULL);
        int n = f.pg->n, F = a.n_features, v = middle_node(f.pg);
        Rng r;
        rng_seed(&r, 23);
        double *fd = XMALLOC(double, (size_t)n * (size_t)F);
        float *ff = XMALLOC(float, (size_t)n * (size_t)F);
        make_feats(&r, &a, n, v, fd, ff);
        float lref[POLICY_MAX_DEVICES], lgot[POLICY_MAX_DEVICES];
        float *gref = XMALLOC(float, pol->p.n), *ggot = XMALLOC(float, pol->p.n);
        /* blas 0: every width gives the loops' bits; blas 1 (BLAS for the
         * head, wider than 16): every width gives the same bits */
        for (int blas = 0; blas < 2; blas++) {
            pol->blas = blas;
            policy_run(pol, f.pg, ff, v, blas ? WIDTHS[0] : 0, lref, gref);
            for (int w = blas; w < N_WIDTHS; w++) {
                policy_run(pol, f.pg, ff, v, WIDTHS[w], lgot, ggot);
                CHECK_MSG(memcmp(lgot, lref, (size_t)a.n_devices * sizeof *lgot) == 0,
                          "d=%d blas=%d lanes=%d: other logits", a.d, blas, WIDTHS[w]);
                CHECK_MSG(memcmp(ggot, gref, pol->p.n * sizeof *ggot) == 0, "d=%d blas=%d lanes=%d: other gradient",
                          a.d, blas, WIDTHS[w]);
            }
        }
        pol->blas = nn_default_blas();
        free(fd);
        free(ff);
        free(gref);
        free(ggot);
        policy_free(pol);
        fix_done(&f);
    }
}
