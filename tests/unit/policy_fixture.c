/* policy_fixture: see policy_fixture.h. */
#include "policy_fixture.h"

#include <stdlib.h>
#include <string.h>

#include "test.h"

/* Groups g (every op its own group up to 200 ops, or down to target) and
 * builds its PolicyGraph; takes ownership of g. Returns 0 on success. */
int fix_from_graph(Fix *f, Graph *g, int target)
{
    Err e = {{0}};
    f->g = g;
    f->gr = g ? group_build(g, target, &e) : NULL;
    f->pg = f->gr ? policy_graph_new(f->gr, &e) : NULL;
    CHECK_MSG(f->pg != NULL, "fixture: %s", e.msg);
    return f->pg ? 0 : -1;
}

/* A graph of n ops "n0".. with the given edges. */
Graph *make_graph(int n, const int (*edges)[2], int m)
{
    Graph *g = graph_new("policy_test");
    char name[16];
    for (int i = 0; i < n; i++) {
        int64_t bytes = 1000 * (int64_t)(i + 1);
        snprintf(name, sizeof name, "n%d", i);
        graph_add_node(g, name, "op", 10.0 * (i + 1), &bytes, 1);
    }
    for (int j = 0; j < m; j++)
        graph_add_edge(g, edges[j][0], edges[j][1], 0);
    Err e = {{0}};
    if (graph_finish(g, &e) != 0) {
        test_fail(__FILE__, __LINE__, "make_graph: %s", e.msg);
        graph_free(g);
        return NULL;
    }
    return g;
}

void fix_done(Fix *f)
{
    policy_graph_free(f->pg);
    group_free(f->gr);
    graph_free(f->g);
}

/* Features as the environment would give them: cost, bytes, visits and start
 * in [0, 1), the current-node flag on v, a valid one-hot device per node, the
 * optional memory column in [0, 1). */
void make_feats(Rng *r, const PolicyArch *a, int n, int v, double *fd, float *ff)
{
    int F = a->n_features;
    for (int i = 0; i < n; i++) {
        double *row = fd + (size_t)i * (size_t)F;
        for (int c = 0; c < F; c++)
            row[c] = 0;
        row[POLICY_F_COST] = rng_uniform(r);
        row[POLICY_F_BYTES] = rng_uniform(r);
        row[POLICY_F_VISITS] = (double)rng_below(r, 3);
        row[POLICY_F_CURRENT] = i == v;
        row[POLICY_F_START] = rng_uniform(r);
        row[POLICY_F_DEVICE + (int)rng_below(r, (uint64_t)a->n_devices)] = 1;
        if (a->mem_feature)
            row[POLICY_F_DEVICE + a->n_devices] = rng_uniform(r);
    }
    if (ff)
        for (size_t q = 0; q < (size_t)n * (size_t)F; q++)
            ff[q] = (float)fd[q];
}

/* The parameter count of docs/agent.md, "Network": T F->d->d->d; per
 * direction f, g each d->d->d; per pooled set f, g each 2d->2d->2d; head
 * 8d->16d->8d->D; every layer with a bias. */
size_t spec_param_count(const PolicyArch *a)
{
    size_t F = (size_t)a->n_features, d = (size_t)a->d, d2 = 2 * d, D = (size_t)a->n_devices;
    size_t t = F * d + d + 2 * (d * d + d);
    size_t mp = 2 * 4 * (d * d + d);
    size_t pool = 3 * 4 * (d2 * d2 + d2);
    size_t head = 8 * d * 16 * d + 16 * d + 16 * d * 8 * d + 8 * d + 8 * d * D + D;
    return t + mp + pool + head;
}

/* Sets every bias (tensors with one row) to uniform values in [-0.1, 0.1),
 * in float and in the double copy: zero biases would put pre-activations at
 * exactly 0 (on empty pooled sets), a ReLU kink at the point of the check. */
void randomize_biases(Policy *pol, double *wd, uint64_t seed)
{
    Rng r;
    rng_seed(&r, seed);
    for (int k = 0; k < pol->p.n_tensors; k++) {
        const NnTensor *t = &pol->p.t[k];
        if (t->rows > 1)
            continue;
        for (size_t i = 0; i < (size_t)t->cols; i++) {
            float b = (float)(0.2 * rng_uniform(&r) - 0.1);
            pol->p.w[t->off + i] = b;
            if (wd)
                wd[t->off + i] = b;
        }
    }
}

double *weights_d(const Policy *pol)
{
    double *wd = XMALLOC(double, pol->p.n);
    for (size_t i = 0; i < pol->p.n; i++)
        wd[i] = pol->p.w[i];
    return wd;
}

Policy *new_policy(const PolicyArch *a, uint64_t seed)
{
    Err e = {{0}};
    Policy *pol = policy_new(a, seed, &e);
    CHECK_MSG(pol != NULL, "policy_new: %s", e.msg);
    return pol;
}

/* A middle node of pg: one with both ancestors and descendants if any. */
int middle_node(const PolicyGraph *pg)
{
    for (int i = pg->n / 2; i < pg->n; i++)
        if (pg->par_off[i + 1] > pg->par_off[i] && pg->ch_off[i + 1] > pg->ch_off[i])
            return i;
    return pg->n / 2;
}
