/* scorer: the candidate-scoring network (scorer.h). */
#include "scorer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cluster.h"
#include "policy_file.h"

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

/* (float)tanh(x) to the last bit, for about 60 % of what tanh costs: tanh
 * from exp (from its series near 0) to within about 2^-42 of its value,
 * rounded to float. Where anything within 2^-36 of that, glibc's tanh
 * (within 2 ulp, 2^-51) included, might round to another float, tanh
 * itself decides: about one call in 2 000. */
float scorer_tanh(double x)
{
    double ax = fabs(x), t;
    if (!(ax < 19.0))
        return (float)tanh(x);
    if (ax < 0x1p-30) { /* x itself to within 2^-61, and -0 stays -0 */
        t = x;
    } else if (ax < 0x1p-8) {
        double x2 = x * x;
        t = x + x * x2 * (-1.0 / 3 + x2 * (2.0 / 15 + x2 * (-17.0 / 315)));
    } else {
        t = 1 - 2 / (exp(2 * ax) + 1);
        t = x < 0 ? -t : t;
    }
    float f = (float)t;
    if ((float)(t * (1 - 0x1p-36)) != f || (float)(t * (1 + 0x1p-36)) != f)
        return (float)tanh(x);
    return f;
}

/* Each unit's sum takes the features in order, as one unit at a time
 * would (the same numbers), but eight units at once in registers, so that
 * their chains of adds run side by side rather than one after another. */
double scorer_score(const Scorer *s, const float *phi, float *hid)
{
    int H = s->hidden, F = s->features, h = 0;
    const float *w1 = s->p.w, *b1 = w1 + F * H, *w2 = b1 + H;
    double a[SCORER_HIDDEN_MAX], out = 0;
    for (; h + 8 <= H; h += 8) {
        double a0 = b1[h], a1 = b1[h + 1], a2 = b1[h + 2], a3 = b1[h + 3];
        double a4 = b1[h + 4], a5 = b1[h + 5], a6 = b1[h + 6], a7 = b1[h + 7];
        for (int f = 0; f < F; f++) {
            double x = phi[f];
            const float *w = w1 + f * H + h;
            a0 += x * w[0];
            a1 += x * w[1];
            a2 += x * w[2];
            a3 += x * w[3];
            a4 += x * w[4];
            a5 += x * w[5];
            a6 += x * w[6];
            a7 += x * w[7];
        }
        a[h] = a0, a[h + 1] = a1, a[h + 2] = a2, a[h + 3] = a3;
        a[h + 4] = a4, a[h + 5] = a5, a[h + 6] = a6, a[h + 7] = a7;
    }
    for (; h < H; h++) {
        double x = b1[h];
        for (int f = 0; f < F; f++)
            x += (double)phi[f] * w1[f * H + h];
        a[h] = x;
    }
    for (h = 0; h < H; h++) {
        hid[h] = scorer_tanh(a[h]);
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

ScorerPolicy *scorer_policy_new(const char *agent, const ScorerArch *a, Err *e)
{
    Scorer *net = scorer_new(a->features, a->hidden, e);
    if (!net)
        return NULL;
    ScorerPolicy *p = xcalloc(1, sizeof *p);
    *p = (ScorerPolicy){agent, net, a->n_devices};
    return p;
}

void scorer_policy_free(void *pol)
{
    ScorerPolicy *p = pol;
    if (!p)
        return;
    scorer_free(p->net);
    free(p);
}

static void head(FILE *f, const void *ud)
{
    const ScorerPolicy *p = ud;
    fprintf(f, " \"agent\": \"%s\",\n \"architecture\": {\"features\": %d, \"hidden\": %d, \"n_devices\": %d},\n",
            p->agent, p->net->features, p->net->hidden, p->n_devices);
    OpVocab none = {0, NULL};
    policy_file_write_vocab(f, &none);
}

int scorer_policy_save(const void *pol, const TrainState *ts, const char *path, Err *e)
{
    return policy_file_write(path, &((const ScorerPolicy *)pol)->net->p, ts, head, pol, e);
}

int scorer_read_arch(const JDoc *d, void *arch, int features, Err *e)
{
    const cJSON *o = policy_file_member(d, d->root, "architecture", "", cJSON_IsObject,
                                        "an object {\"features\", \"hidden\", \"n_devices\"}", e);
    int64_t f, h, nd;
    if (!o || jget_int(d, o, "features", "architecture.features", 1, features, features, &f, e) < 0 ||
        jget_int(d, o, "hidden", "architecture.hidden", 1, 1, SCORER_HIDDEN_MAX, &h, e) < 0 ||
        jget_int(d, o, "n_devices", "architecture.n_devices", 1, 1, CLUSTER_MAX_DEVICES, &nd, e) < 0)
        return -1;
    *(ScorerArch *)arch = (ScorerArch){(int)f, (int)h, (int)nd};
    return 0;
}

int scorer_arch_devices(const void *arch) { return ((const ScorerArch *)arch)->n_devices; }
int scorer_arch_types(const void *arch)
{
    (void)arch;
    return 0;
}
size_t scorer_arch_params(const void *arch)
{
    const ScorerArch *a = arch;
    return (size_t)(a->features + 2) * (size_t)a->hidden;
}
NnParams *scorer_policy_params(void *pol) { return &((ScorerPolicy *)pol)->net->p; }

void scorer_policy_info(const void *pol, AgentInfo *out)
{
    *out = (AgentInfo){((const ScorerPolicy *)pol)->n_devices, 0, 0, 1};
}

void *scorer_policy_untrained(const void *pol, uint64_t seed, Err *e)
{
    const ScorerPolicy *p = pol;
    ScorerArch a = {p->net->features, p->net->hidden, p->n_devices};
    ScorerPolicy *u = scorer_policy_new(p->agent, &a, e);
    if (u)
        scorer_init(u->net, seed);
    return u;
}

int scorer_configure(const AgentArgs *a, uint64_t seed, ScorerCfg *c, Err *e)
{
    c->seed = seed;
    return agent_opt_num(a, "lr", &c->lr, e) || agent_opt_num(a, "clip", &c->clip, e) ||
                   agent_opt_int(a, "hidden", &c->hidden, e)
               ? -1
               : 0;
}

ScorerPolicy *scorer_policy_create(const char *agent, int features, const ScorerCfg *c, const Cluster *cl, Err *e)
{
    ScorerArch a = {features, (int)c->hidden, cl->n_devices};
    ScorerPolicy *p = scorer_policy_new(agent, &a, e);
    if (p)
        scorer_init(p->net, c->seed);
    return p;
}
