/* The RNN placer's network (core/agent/rnn.h): the vocabulary and inputs;
 * the gradient check of rnn_backward_d against central differences of
 * J = sum_t w_t log pi(a_t) + beta sum_t H_t on EVERY entry of every tensor,
 * in double, on small graphs, with the proof that it can fail (the same
 * comparison must reject, for each tensor, its analytic gradient with one
 * entry scaled by 1.01 and with one entry's sign flipped); the float path
 * against the double one; sampling determinism and greedy = argmax; the
 * fixed-seed reference tests/data/rnn_reference.json (relative 1e-4;
 * regenerate after an intended change with PLACETO_UPDATE_REFERENCE=1
 * build/unit rnn_reference, and review the diff). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "gen.h"
#include "gradref.h"
#include "rnn.h"
#include "test.h"

#define REF_PATH "tests/data/rnn_reference.json"

/* A graph grouped into about `target` groups, its vocabulary built from
 * vocab_graph (so that ops outside it map to the "other" row). */
typedef struct RFix {
    Graph *g, *vg;
    Grouping *gr;
    OpVocab voc;
    RnnInput *in;
} RFix;

static int rfix_new(RFix *f, int n_ops, int target, uint64_t seed, int vocab_ops)
{
    Err e = {{0}};
    memset(f, 0, sizeof *f);
    f->g = gen_random_dag(n_ops, 2.0, seed);
    f->vg = gen_random_dag(vocab_ops, 2.0, seed + 1);
    f->gr = group_build(f->g, target, &e);
    REQUIRE_OR(f->gr != NULL, -1, "group_build: %s", e.msg);
    const Graph *gs[1] = {f->vg};
    vocab_build(&f->voc, gs, 1);
    f->in = rnn_input_new(f->g, f->gr, &f->voc, f->gr->n_groups, &e);
    REQUIRE_OR(f->in != NULL, -1, "rnn_input_new: %s", e.msg);
    return 0;
}

static void rfix_done(RFix *f)
{
    rnn_input_free(f->in);
    vocab_done(&f->voc);
    group_free(f->gr);
    graph_free(f->g);
    graph_free(f->vg);
}

static RnnNet *small_net(const RFix *f, int n, int h, int e, uint64_t seed)
{
    RnnArch a;
    rnn_arch_default(&a, n, f->gr->n_groups, f->voc.n);
    a.hidden = h;
    a.emb = e;
    a.squash_c = 1; /* the public code's head, which the reference values and the cap below assume */
    Err err = {{0}};
    RnnNet *net = rnn_new(&a, &f->voc, seed, &err);
    CHECK_MSG(net != NULL, "rnn_new: %s", err.msg);
    return net;
}

TEST(vocab_and_input)
{
    RFix f;
    if (rfix_new(&f, 40, 8, 3, 40) == 0) {
        for (int i = 1; i < f.voc.n; i++)
            CHECK(strcmp(f.voc.names[i - 1], f.voc.names[i]) < 0);
        for (int i = 0; i < f.voc.n; i++)
            CHECK_INT(vocab_find(&f.voc, f.voc.names[i]), i);
        CHECK_INT(vocab_find(&f.voc, "no such op type"), f.voc.n);
        const RnnInput *in = f.in;
        CHECK_INT(in->G, f.gr->n_groups);
        CHECK_INT(in->nf, 2 * in->G + 2);
        for (int k = 0; k < in->G; k++) {
            double wsum = 0, mx = 0;
            for (int q = in->ty_off[k]; q < in->ty_off[k + 1]; q++)
                wsum += in->ty_w[q];
            CHECK_NEAR(wsum, 1, 1e-12);
            for (int c = 0; c < in->nf; c++) {
                double x = in->xd[(size_t)k * (size_t)in->nf + (size_t)c];
                CHECK(x >= 0 && x < 1);
                mx = fmax(mx, x);
                CHECK(in->xf[(size_t)k * (size_t)in->nf + (size_t)c] == (float)x);
            }
            CHECK(mx > 0);
        }
        /* out-edge counts of k to j and in-edge counts of j from k agree up to each row's scale */
        for (int k = 0; k < in->G; k++)
            for (int j = 0; j < in->G; j++) {
                double o = in->xd[(size_t)k * (size_t)in->nf + (size_t)j];
                double i = in->xd[(size_t)j * (size_t)in->nf + (size_t)(in->G + k)];
                CHECK((o > 0) == (i > 0));
            }
    }
    rfix_done(&f);
    /* a vocabulary without some of the graph's types: those ops take the other row */
    if (rfix_new(&f, 40, 8, 3, 2) == 0) {
        int other = 0;
        for (int q = 0; q < f.in->n_ty; q++)
            other += f.in->ty[q] == f.voc.n;
        CHECK(other > 0);
    }
    rfix_done(&f);
}

/* --- the gradient check ------------------------------------------------------- */

typedef struct GProb {
    const RnnNet *net;
    const RnnInput *in;
    RnnWorkD *w;
    double *wd, *wt, beta;
    int *place;
} GProb;

static double objective(GProb *p)
{
    int G = p->in->G;
    double lp[RNN_MAX_GROUPS], H[RNN_MAX_GROUPS];
    rnn_forward_d(p->net, p->wd, p->in, p->w, RNN_SCORE, NULL, p->place, lp, H);
    double J = 0;
    for (int t = 0; t < G; t++)
        J += p->wt[t] * lp[t] + p->beta * H[t];
    return J;
}

#define GRAD_TOL 1e-5
#define GRAD_FLOOR 1e-4

/* Checks every entry of every tensor of net on in for the placement that
 * a sample of seed gives; returns the number of tensors failing (or whose
 * mutants pass). */
static int grad_check(const char *label, const RnnNet *net, const RnnInput *in, uint64_t seed, int *covered)
{
    const NnParams *P = &net->p;
    int G = in->G, bad = 0;
    double *wd = XMALLOC(double, P->n), *grad = XNEW(double, P->n), *num = XMALLOC(double, P->n);
    double *wt = XMALLOC(double, G);
    int *place = XMALLOC(int, G);
    /* Glorot weights of these tiny sizes leave the attention almost uniform
     * (small W2 and v gradients): the check runs at 3 times them */
    for (size_t i = 0; i < P->n; i++)
        wd[i] = 3.0 * P->w[i];
    Rng r;
    rng_seed(&r, seed);
    wd[P->t[nn_params_find(P, "enc_fb")].off] = 0.5 + rng_uniform(&r);
    wd[P->t[nn_params_find(P, "dec_fb")].off] = 0.5 + rng_uniform(&r);
    for (int t = 0; t < G; t++)
        wt[t] = 2 * rng_uniform(&r) - 1;
    RnnWorkD *w = rnn_work_new_d(&net->arch);
    GProb p = {net, in, w, wd, wt, 0.3, place};
    rnn_forward_d(net, wd, in, w, RNN_SAMPLE, &r, place, NULL, NULL);
    double J0 = objective(&p);
    rnn_backward_d(net, wd, in, w, wt, p.beta, grad);
    double floor = GRAD_FLOOR * fmax(1, fabs(J0));
    const double hstep = 1e-6;
    for (size_t i = 0; i < P->n; i++) {
        double w0 = wd[i];
        wd[i] = w0 + hstep;
        double jp = objective(&p);
        wd[i] = w0 - hstep;
        double jm = objective(&p);
        wd[i] = w0;
        num[i] = (jp - jm) / (2 * hstep);
    }
    for (int k = 0; k < P->n_tensors; k++) {
        const NnTensor *t = &P->t[k];
        size_t m = (size_t)t->rows * (size_t)t->cols, at = 0, big = 0;
        const double *a = grad + t->off, *nu = num + t->off;
        double worst = gradref_compare(a, nu, m, floor, &at);
        if (worst >= GRAD_TOL) {
            bad++;
            CHECK_MSG(0, "%s: tensor %s [%dx%d]: relative error %.3g at entry %zu (analytic %.12g, numeric %.12g)",
                      label, t->name, t->rows, t->cols, worst, at, a[at], nu[at]);
        }
        for (size_t i = 1; i < m; i++)
            if (fabs(a[i]) > fabs(a[big]))
                big = i;
        if (fabs(a[big]) < 10 * floor)
            continue; /* no gradient here in this case: covered by another */
        if (covered)
            covered[k] = 1;
        /* the checker must catch one entry scaled by 1.01, and one sign flipped */
        double *mut = XMALLOC(double, m);
        for (int kind = 0; kind < 2; kind++) {
            memcpy(mut, a, m * sizeof *mut);
            mut[big] = kind ? -mut[big] : 1.01 * mut[big];
            size_t at2 = 0, at3 = 0;
            double e2 = gradref_compare(mut, nu, m, floor, &at2);
            double e3 = gradref_compare(mut + big, nu + big, 1, floor, &at3);
            if (!(e2 >= GRAD_TOL && e3 >= GRAD_TOL)) {
                bad++;
                CHECK_MSG(0, "%s: tensor %s: the checker passes a gradient with entry %zu %s", label, t->name, big,
                          kind ? "sign-flipped" : "scaled by 1.01");
            }
        }
        free(mut);
    }
    if (getenv("TEST_VERBOSE"))
        fprintf(stderr, "  %s: %zu entries checked, J = %g\n", label, P->n, J0);
    rnn_work_free_d(w);
    free(wd);
    free(grad);
    free(num);
    free(wt);
    free(place);
    return bad;
}

TEST(rnn_gradient_check)
{
    /* G = 6 groups of 14 ops (type means over several ops), n = 3, h = 8,
     * a type missing from the vocabulary; G = 5, n = 2, h = 4; one group */
    struct { int ops, target, vocab_ops, n, h, e; uint64_t seed; } cases[] = {
        {14, 6, 5, 3, 8, 4, 1}, {5, 5, 5, 2, 4, 3, 2}, {3, 1, 3, 2, 4, 2, 3}};
    int covered[16] = {0}, n_tensors = 0;
    char label[64];
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        RFix f;
        if (rfix_new(&f, cases[c].ops, cases[c].target, cases[c].seed, cases[c].vocab_ops) == 0) {
            RnnNet *net = small_net(&f, cases[c].n, cases[c].h, cases[c].e, 40 + cases[c].seed);
            if (net) {
                snprintf(label, sizeof label, "G=%d n=%d h=%d T=%d", f.gr->n_groups, cases[c].n, cases[c].h,
                         f.voc.n);
                net->blas = c % 2 ? 0 : 1;
                grad_check(label, net, f.in, 100 + cases[c].seed, covered);
                n_tensors = net->p.n_tensors;
            }
            if (c == 0 && net) {
                int other = 0;
                for (int q = 0; q < f.in->n_ty; q++)
                    other += f.in->ty[q] == f.voc.n;
                CHECK(f.gr->n_groups == 6 && f.voc.n >= 3 && other > 0);
            }
            rnn_free(net);
        }
        rfix_done(&f);
    }
    CHECK_INT(n_tensors, 12);
    static const char *const names[12] = {"type_emb", "enc_fw", "enc_bw", "enc_fb", "W1", "dec",
                                          "dec_fb", "go", "dev_emb", "W2", "v", "Wout"};
    for (int k = 0; k < n_tensors && k < 12; k++)
        CHECK_MSG(covered[k], "tensor %s: no case checked a nonzero gradient", names[k]);
}

/* The float path against the double one, BLAS and plain loops. */
TEST(rnn_float_matches_double)
{
    RFix f;
    if (rfix_new(&f, 30, 10, 7, 30) == 0) {
        RnnNet *net = small_net(&f, 3, 16, 4, 9);
        if (net) {
            int G = f.in->G;
            const NnParams *P = &net->p;
            double *wd = XMALLOC(double, P->n), *gd = XNEW(double, P->n), *wt = XMALLOC(double, G);
            float *gf = XNEW(float, P->n);
            int *place = XMALLOC(int, G), *pd = XMALLOC(int, G);
            for (size_t i = 0; i < P->n; i++)
                wd[i] = P->w[i];
            for (int t = 0; t < G; t++)
                wt[t] = t % 3 ? 0.5 : -1;
            for (int blas = 0; blas < 2; blas++) {
                net->blas = blas;
                RnnWork *w = rnn_work_new(&net->arch);
                RnnWorkD *w2 = rnn_work_new_d(&net->arch);
                Rng r;
                rng_seed(&r, 5);
                double lf = rnn_forward(net, f.in, w, RNN_SAMPLE, &r, place, NULL, NULL);
                memcpy(pd, place, (size_t)G * sizeof *pd);
                double ld = rnn_forward_d(net, wd, f.in, w2, RNN_SCORE, NULL, pd, NULL, NULL);
                CHECK_MSG(fabs(lf - ld) <= 1e-4 * fmax(1, fabs(ld)), "blas %d: log pi %.9g (float), %.9g (double)",
                          blas, lf, ld);
                memset(gf, 0, P->n * sizeof *gf);
                memset(gd, 0, P->n * sizeof *gd);
                rnn_backward(net, f.in, w, wt, 0.05, gf);
                rnn_backward_d(net, wd, f.in, w2, wt, 0.05, gd);
                size_t off = gradref_float_off(gf, gd, P->n, 1e-3);
                CHECK_MSG(off == 0, "blas %d: %zu gradient entries differ from double", blas, off);
                rnn_work_free(w);
                rnn_work_free_d(w2);
            }
            free(wd);
            free(gd);
            free(gf);
            free(wt);
            free(place);
            free(pd);
        }
        rnn_free(net);
    }
    rfix_done(&f);
}

/* The same seed gives the same placement and log pi; greedy takes the argmax
 * at every step; scoring a placement gives the log pi its decode gave. */
TEST(rnn_sampling)
{
    RFix f;
    if (rfix_new(&f, 60, 20, 11, 60) == 0) {
        RnnNet *net = small_net(&f, 4, 16, 4, 12);
        if (net) {
            int G = f.in->G;
            int *a = XMALLOC(int, G), *b = XMALLOC(int, G);
            double *lpa = XMALLOC(double, G), *lpb = XMALLOC(double, G);
            RnnWork *w = rnn_work_new(&net->arch);
            Rng r1, r2;
            rng_seed(&r1, 77);
            rng_seed(&r2, 77);
            double la = rnn_forward(net, f.in, w, RNN_SAMPLE, &r1, a, lpa, NULL);
            double lb = rnn_forward(net, f.in, w, RNN_SAMPLE, &r2, b, lpb, NULL);
            CHECK_EXACT(la, lb);
            CHECK(memcmp(a, b, (size_t)G * sizeof *a) == 0);
            double ls = rnn_forward(net, f.in, w, RNN_SCORE, NULL, a, lpb, NULL);
            CHECK_EXACT(ls, la);
            double sum = 0;
            for (int t = 0; t < G; t++)
                sum += lpb[t];
            CHECK_NEAR(sum, la, 1e-9 * fmax(1, fabs(la)));
            int differs = 0;
            for (uint64_t s = 1; s <= 4 && !differs; s++) {
                rng_seed(&r1, 77 + s);
                rnn_forward(net, f.in, w, RNN_SAMPLE, &r1, b, NULL, NULL);
                differs = memcmp(a, b, (size_t)G * sizeof *a) != 0;
            }
            CHECK_MSG(differs, "four other seeds gave the same placement");
            double lg = rnn_forward(net, f.in, w, RNN_GREEDY, NULL, a, lpa, NULL);
            for (int t = 0; t < G; t++) {
                const float *p = rnn_work_probs(w, t);
                float psum = 0;
                for (int d = 0; d < 4; d++) {
                    CHECK(p[a[t]] >= p[d]);
                    psum += p[d];
                }
                CHECK_NEAR(psum, 1, 1e-5);
                CHECK_NEAR(lpa[t], log(p[a[t]]), 1e-5);
                const float *al = rnn_work_attention(w, t);
                float asum = 0;
                for (int j = 0; j < G; j++)
                    asum += al[j];
                CHECK_NEAR(asum, 1, 1e-5);
            }
            /* greedy beats a sample in log pi at every step, so in total */
            CHECK(lg >= la - 1e-9);
            /* C = 1 bounds the largest probability: e / (e + (n - 1) / e) */
            double cap = exp(1) / (exp(1) + 3 / exp(1));
            for (int t = 0; t < G; t++)
                CHECK(rnn_work_probs(w, t)[a[t]] <= cap + 1e-6);
            rnn_work_free(w);
            free(a);
            free(b);
            free(lpa);
            free(lpb);
        }
        rnn_free(net);
    }
    rfix_done(&f);
}

/* --- the fixed-seed reference ----------------------------------------------- */

static void write_array(FILE *f, const char *name, const double *x, int n, int last)
{
    fprintf(f, "  \"%s\": [", name);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%.9g", i ? ", " : "", x[i]);
    fprintf(f, "]%s\n", last ? "" : ",");
}

static void check_array(const cJSON *root, const char *name, const double *x, int n)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, name);
    REQUIRE_MSG(cJSON_IsArray(a) && cJSON_GetArraySize(a) == n, "%s: expected %d numbers in %s", name, n, REF_PATH);
    for (int i = 0; i < n; i++) {
        double want = cJSON_GetArrayItem(a, i)->valuedouble;
        CHECK_MSG(fabs(x[i] - want) <= 1e-4 * fmax(1e-3, fabs(want)), "%s[%d] = %.9g, reference %.9g", name, i, x[i],
                  want);
    }
}

TEST(rnn_reference)
{
    RFix f;
    if (rfix_new(&f, 40, 12, 5, 40) == 0) {
        RnnNet *net = small_net(&f, 3, 16, 4, 42);
        if (net) {
            int G = f.in->G;
            int *place = XMALLOC(int, G);
            double *wt = XMALLOC(double, G), out[2], norms[12], gplace[2 * RNN_MAX_GROUPS];
            RnnWork *w = rnn_work_new(&net->arch);
            Rng r;
            rng_seed(&r, 7);
            out[0] = rnn_forward(net, f.in, w, RNN_GREEDY, NULL, place, NULL, NULL);
            for (int t = 0; t < G; t++)
                gplace[t] = place[t];
            out[1] = rnn_forward(net, f.in, w, RNN_SAMPLE, &r, place, NULL, NULL);
            for (int t = 0; t < G; t++) {
                gplace[G + t] = place[t];
                wt[t] = 1;
            }
            nn_params_zero_grad(&net->p);
            rnn_backward(net, f.in, w, wt, 0.01, net->p.g);
            for (int k = 0; k < net->p.n_tensors && k < 12; k++) {
                const NnTensor *t = &net->p.t[k];
                double s = 0;
                for (size_t i = 0; i < (size_t)t->rows * (size_t)t->cols; i++)
                    s += (double)net->p.g[t->off + i] * (double)net->p.g[t->off + i];
                norms[k] = sqrt(s);
            }
            if (getenv("PLACETO_UPDATE_REFERENCE")) {
                FILE *fp = fopen(REF_PATH, "w");
                CHECK(fp != NULL);
                if (fp) {
                    fputs("{\n", fp);
                    write_array(fp, "log_pi_greedy_sampled", out, 2, 0);
                    write_array(fp, "placements_greedy_sampled", gplace, 2 * G, 0);
                    write_array(fp, "grad_norms", norms, 12, 1);
                    fputs("}\n", fp);
                    fclose(fp);
                }
            } else {
                Err e = {{0}};
                size_t len;
                char *text = util_read_file(REF_PATH, &len, &e);
                CHECK_MSG(text != NULL, "%s", e.msg);
                cJSON *root = text ? cJSON_Parse(text) : NULL;
                CHECK_MSG(root != NULL, "%s: not JSON", REF_PATH);
                if (root) {
                    check_array(root, "log_pi_greedy_sampled", out, 2);
                    check_array(root, "placements_greedy_sampled", gplace, 2 * G);
                    check_array(root, "grad_norms", norms, 12);
                }
                cJSON_Delete(root);
                free(text);
            }
            rnn_work_free(w);
            free(place);
            free(wt);
        }
        rnn_free(net);
    }
    rfix_done(&f);
}
