/* scorer: the candidate-scoring network (scorer.h). */
#include "scorer.h"

#include <math.h>
#include <stdlib.h>

Scorer *scorer_new(int features, int hidden, Err *e)
{
    if (hidden < 1 || hidden > SCORER_HIDDEN_MAX) {
        err_set(e, "hidden must be 1 to %d, got %d", SCORER_HIDDEN_MAX, hidden);
        return NULL;
    }
    Scorer *s = xcalloc(1, sizeof *s);
    s->features = features;
    s->hidden = hidden;
    nn_params_init(&s->p);
    nn_params_add(&s->p, "w1", features, hidden);
    nn_params_add(&s->p, "b1", 1, hidden);
    nn_params_add(&s->p, "w2", hidden, 1);
    nn_params_alloc(&s->p);
    return s;
}

void scorer_free(void *s)
{
    Scorer *n = s;
    if (!n)
        return;
    nn_params_done(&n->p);
    free(n);
}

void scorer_init(Scorer *s, uint64_t seed) { nn_params_glorot(&s->p, seed); }

double scorer_score(const Scorer *s, const float *phi, float *hid)
{
    int H = s->hidden, F = s->features;
    const float *w1 = s->p.w, *b1 = w1 + F * H, *w2 = b1 + H;
    double out = 0;
    for (int h = 0; h < H; h++) {
        double a = b1[h];
        for (int f = 0; f < F; f++)
            a += (double)phi[f] * w1[f * H + h];
        hid[h] = (float)tanh(a);
        out += (double)hid[h] * w2[h];
    }
    return out;
}

void scorer_policy_grad(Scorer *s, const float *phi, const float *hid, const double *p, int M, int chosen, double adv,
                        double scale)
{
    int H = s->hidden, F = s->features;
    float *g1 = s->p.g, *gb = g1 + F * H, *g2 = gb + H;
    const float *w2 = s->p.w + F * H + H;
    for (int j = 0; j < M; j++) {
        if (p[j] == 0)
            continue;
        double cj = -adv * ((j == chosen) - p[j]) * scale; /* dL/dscore_j */
        if (fabs(cj) < 1e-12)
            continue;
        const float *f = &phi[(size_t)j * (size_t)F], *h = &hid[(size_t)j * (size_t)H];
        for (int u = 0; u < H; u++) {
            g2[u] += (float)(cj * h[u]);
            double d = cj * w2[u] * (1 - (double)h[u] * h[u]);
            gb[u] += (float)d;
            for (int q = 0; q < F; q++)
                g1[q * H + u] += (float)(d * f[q]);
        }
    }
}
