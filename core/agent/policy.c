/* policy: the network's parameters and the
 * forward/backward passes instantiated from policy_impl.h in float (the
 * production path) and double (the gradient check). */
#include "policy.h"

/* Every product is rounded before its sum (the plain loops' bits): GCC does
 * not contract a * b + c into a fused multiply-add in ISO C mode, clang
 * would unless told. */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NN_CAT_(a, b) a##b
#define NN_CAT(a, b) NN_CAT_(a, b)

/* Tensor indices, in registration order: each layer is a weight [in x out]
 * followed by its bias [1 x out]. */
enum {
    P_T0 = 0, P_T1 = 2, P_T2 = 4,
    P_MP = 6,    /* direction dir: P_MP + 8 dir + {0 f0, 2 f1, 4 g0, 6 g1} */
    P_POOL = 22, /* set s: P_POOL + 8 s + {0 f0, 2 f1, 4 g0, 6 g1} */
    P_HEAD = 46, /* + {0 h0, 2 h1, 4 h2} */
    P_COUNT = 52
};

void policy_arch_default(PolicyArch *a, int n_devices)
{
    memset(a, 0, sizeof *a);
    a->n_devices = n_devices;
    a->mem_feature = 0;
    a->n_features = POLICY_F_DEVICE + n_devices;
    a->d = a->n_features;
    a->rounds = 8;
}

void policy_arch_for(PolicyArch *a, int n_devices, int mem_feature, int extended)
{
    policy_arch_default(a, n_devices);
    a->mem_feature = mem_feature ? 1 : 0;
    a->extended = extended ? 1 : 0;
    a->n_features = policy_n_features(n_devices, a->mem_feature, a->extended);
    a->d = a->n_features;
    if (a->extended && a->d > POLICY_EXT_HIDDEN_MAX)
        a->d = POLICY_EXT_HIDDEN_MAX;
}

static void add_layer(NnParams *p, const char *name, int in, int out)
{
    char buf[NN_NAME_MAX + 8];
    snprintf(buf, sizeof buf, "%s.W", name);
    nn_params_add(p, buf, in, out);
    snprintf(buf, sizeof buf, "%s.b", name);
    nn_params_add(p, buf, 1, out);
}

/* Declares every tensor of architecture a in p (nothing is allocated). */
static void declare_tensors(NnParams *p, const PolicyArch *a)
{
    nn_params_init(p);
    int F = a->n_features, d = a->d, d2 = 2 * d;
    add_layer(p, "T0", F, d);
    add_layer(p, "T1", d, d);
    add_layer(p, "T2", d, d);
    static const char *const dirs[2] = {"down", "up"}, *const sets[3] = {"anc", "desc", "par"};
    static const char *const parts[4] = {"f0", "f1", "g0", "g1"};
    char name[NN_NAME_MAX];
    for (int dir = 0; dir < 2; dir++)
        for (int q = 0; q < 4; q++) {
            snprintf(name, sizeof name, "%s.%s", dirs[dir], parts[q]);
            add_layer(p, name, d, d);
        }
    for (int s = 0; s < 3; s++)
        for (int q = 0; q < 4; q++) {
            snprintf(name, sizeof name, "%s.%s", sets[s], parts[q]);
            add_layer(p, name, d2, d2);
        }
    add_layer(p, "head0", 8 * d, 16 * d);
    add_layer(p, "head1", 16 * d, 8 * d);
    add_layer(p, "head2", 8 * d, a->n_devices);
}

size_t policy_param_count(const PolicyArch *a)
{
    NnParams p;
    declare_tensors(&p, a);
    size_t n = p.n;
    nn_params_done(&p);
    return n;
}

Policy *policy_new(const PolicyArch *a, uint64_t seed, Err *e)
{
    int want_f = policy_n_features(a->n_devices, a->mem_feature, a->extended);
    if (a->n_devices < 1 || a->n_devices > POLICY_MAX_DEVICES) {
        err_set(e, "architecture: n_devices must be in [1, %d], got %d", POLICY_MAX_DEVICES, a->n_devices);
        return NULL;
    }
    if (a->n_features != want_f) {
        err_set(e, "architecture: n_features must be %d for %d devices%s%s, got %d", want_f, a->n_devices,
                a->mem_feature ? " with the memory feature" : "", a->extended ? " and extended features" : "",
                a->n_features);
        return NULL;
    }
    if (a->d < 1 || a->d > 1024 || a->rounds < 0 || a->rounds > 64) {
        err_set(e, "architecture: d must be in [1, 1024] and rounds in [0, 64], got d %d, rounds %d",
                a->d, a->rounds);
        return NULL;
    }
    Policy *pol = xcalloc(1, sizeof *pol);
    pol->arch = *a;
    pol->blas = nn_default_blas();
    declare_tensors(&pol->p, a);
    if (pol->p.n_tensors != P_COUNT)
        util_die("policy: %d tensors registered, expected %d", pol->p.n_tensors, P_COUNT);
    nn_params_alloc(&pol->p);
    nn_params_glorot(&pol->p, seed);
    return pol;
}

void policy_free(Policy *pol)
{
    if (!pol)
        return;
    nn_params_done(&pol->p);
    free(pol);
}

/* ------------------------------------------------------------------ */
/* Forward and backward, float and double                              */

#define R float
#define S f
#define WORK PolicyWork
#define WORKB PolicyBatch
#define FN(x) NN_CAT(pf_, x)
#include "policy_impl.h"
#undef R
#undef S
#undef WORK
#undef WORKB
#undef FN

#define R double
#define S d
#define WORK PolicyWorkD
#define WORKB PolicyBatchD
#define FN(x) NN_CAT(pd_, x)
#include "policy_impl.h"
#undef R
#undef S
#undef WORK
#undef WORKB
#undef FN

PolicyWork *policy_work_new(const PolicyArch *a, const PolicyGraph *pg)
{
    return pf_work_new(a, pg);
}

void policy_work_free(PolicyWork *w)
{
    pf_work_free(w);
}

void policy_forward(const Policy *pol, const PolicyGraph *pg, PolicyWork *w, const float *feats,
                    int v, float *logits, float *probs)
{
    pf_forward(pol, pol->p.w, pg, w, feats, v);
    if (logits)
        memcpy(logits, w->logits, (size_t)w->D * sizeof *logits);
    if (probs)
        nn_softmax_f(w->logits, w->D, probs, NULL);
}

void policy_backward(const Policy *pol, const PolicyGraph *pg, PolicyWork *w,
                     const float *dlogits, float *grad)
{
    pf_backward(pol, pol->p.w, pg, w, dlogits, grad);
}

PolicyWorkD *policy_work_new_d(const PolicyArch *a, const PolicyGraph *pg)
{
    return pd_work_new(a, pg);
}

void policy_work_free_d(PolicyWorkD *w)
{
    pd_work_free(w);
}

void policy_forward_d(const Policy *pol, const double *wd, const PolicyGraph *pg, PolicyWorkD *w,
                      const double *feats, int v, double *logits)
{
    pd_forward(pol, wd, pg, w, feats, v);
    if (logits)
        memcpy(logits, w->logits, (size_t)w->D * sizeof *logits);
}

void policy_backward_d(const Policy *pol, const double *wd, const PolicyGraph *pg, PolicyWorkD *w,
                       const double *dlogits, double *grad)
{
    pd_backward(pol, wd, pg, w, dlogits, grad);
}

PolicyBatch *policy_batch_new(const PolicyArch *a, const PolicyGraph *pg)
{
    return pf_batch_new(a, pg);
}

void policy_batch_free(PolicyBatch *b)
{
    pf_batch_free(b);
}

void policy_forward_all(const Policy *pol, const PolicyGraph *pg, PolicyBatch *b, const float *feats, float *logits)
{
    pf_forward_all(pol, pol->p.w, pg, b, feats);
    int n = b->w->n, D = b->w->D;
    if (logits)
        for (int v = 0; v < n; v++)
            memcpy(logits + (size_t)v * (size_t)D, b->logits + (size_t)v * (size_t)b->pD, (size_t)D * sizeof *logits);
}

void policy_backward_all(const Policy *pol, const PolicyGraph *pg, PolicyBatch *b, const float *dlogits, float *grad)
{
    pf_backward_all(pol, pol->p.w, pg, b, dlogits, grad);
}

PolicyBatchD *policy_batch_new_d(const PolicyArch *a, const PolicyGraph *pg)
{
    return pd_batch_new(a, pg);
}

void policy_batch_free_d(PolicyBatchD *b)
{
    pd_batch_free(b);
}

void policy_forward_all_d(const Policy *pol, const double *wd, const PolicyGraph *pg, PolicyBatchD *b,
                          const double *feats, double *logits)
{
    pd_forward_all(pol, wd, pg, b, feats);
    int n = b->w->n, D = b->w->D;
    if (logits)
        for (int v = 0; v < n; v++)
            memcpy(logits + (size_t)v * (size_t)D, b->logits + (size_t)v * (size_t)b->pD, (size_t)D * sizeof *logits);
}

void policy_backward_all_d(const Policy *pol, const double *wd, const PolicyGraph *pg, PolicyBatchD *b,
                           const double *dlogits, double *grad)
{
    pd_backward_all(pol, wd, pg, b, dlogits, grad);
}
