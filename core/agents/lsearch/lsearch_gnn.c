/* lsearch_gnn: Placeto's network as the learned local search's move
 * scorer (lsearch.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "episode.h"
#include "lsearch.h"

struct LsGnn {
    LsScorer sc;
    Policy *pol;
    PolicyGraph *pg;
    PolicyBatch *b;
    Episode *ep;     /* Placeto's features of the current placement */
    int n, nd;
    int *cur;        /* the placement scored last */
    float *feats;    /* n x F */
    float *logits;   /* n x nd */
    float *dlog;     /* n x nd: the gradient pending at this forward state */
    int pending;
};

/* The scores of the moves from the logits. */
static void scores(LsGnn *s, double *score)
{
    int nd = s->nd;
    for (int k = 0; k < s->n; k++) {
        const float *l = s->logits + (size_t)k * (size_t)nd;
        for (int e = 0; e < nd - 1; e++) {
            int d = e < s->cur[k] ? e : e + 1;
            score[k * (nd - 1) + e] = (double)l[d] - (double)l[s->cur[k]];
        }
    }
}

static void flush(void *ctx)
{
    LsGnn *s = ctx;
    if (!s->pending)
        return;
    policy_backward_all(s->pol, s->pg, s->b, s->dlog, s->pol->p.g);
    memset(s->dlog, 0, (size_t)s->n * (size_t)s->nd * sizeof *s->dlog);
    s->pending = 0;
}

static void score(void *ctx, const int *cur, double *out)
{
    LsGnn *s = ctx;
    flush(s); /* the pending gradient belongs to the last forward state */
    memcpy(s->cur, cur, (size_t)s->n * sizeof *cur);
    episode_reset(s->ep, 0, cur);
    episode_features(s->ep, -1, s->feats);
    policy_forward_all(s->pol, s->pg, s->b, s->feats, s->logits);
    scores(s, out);
}

static void rescore(void *ctx, double *out)
{
    LsGnn *s = ctx;
    flush(s);
    policy_forward_all(s->pol, s->pg, s->b, s->feats, s->logits);
    scores(s, out);
}

static void grad(void *ctx, const double *p, int M, int chosen, double adv, double scale)
{
    LsGnn *s = ctx;
    int nd = s->nd;
    for (int j = 0; j < M; j++) {
        if (p[j] == 0)
            continue;
        double cj = -adv * ((j == chosen) - p[j]) * scale; /* dL/dscore_j */
        if (fabs(cj) < 1e-12)
            continue;
        int k = j / (nd - 1), e = j % (nd - 1), d = e < s->cur[k] ? e : e + 1;
        float *row = s->dlog + (size_t)k * (size_t)nd;
        row[d] += (float)cj;
        row[s->cur[k]] -= (float)cj;
        s->pending = 1;
    }
}

LsGnn *ls_gnn_new(Policy *pol, const Graph *g, const Grouping *gr, const Cluster *c, Err *e)
{
    if (c->n_devices != pol->arch.n_devices) {
        err_set(e, "the search's Placeto network places on %d devices (its architecture.n_devices), not %d",
                pol->arch.n_devices, c->n_devices);
        return NULL;
    }
    PolicyGraph *pg = policy_graph_new(gr, e);
    if (!pg)
        return NULL;
    EpisodeConfig cfg;
    episode_config_default(&cfg);
    cfg.init = EPISODE_INIT_GIVEN;
    cfg.extended_features = pol->arch.extended;
    cfg.mem_feature = pol->arch.mem_feature;
    int n = gr->n_groups, nd = c->n_devices;
    int *zero = xnew_array((size_t)n, sizeof *zero);
    Episode *ep = episode_new(g, gr, c, pg, &cfg, 0, zero, e);
    free(zero);
    if (!ep) {
        policy_graph_free(pg);
        return NULL;
    }
    LsGnn *s = xcalloc(1, sizeof *s);
    s->pol = pol;
    s->pg = pg;
    s->ep = ep;
    s->b = policy_batch_new(&pol->arch, pg);
    s->n = n;
    s->nd = nd;
    s->cur = xnew_array((size_t)n, sizeof *s->cur);
    s->feats = xnew_array((size_t)n * (size_t)pol->arch.n_features, sizeof *s->feats);
    s->logits = xnew_array((size_t)n * (size_t)nd, sizeof *s->logits);
    s->dlog = xnew_array((size_t)n * (size_t)nd, sizeof *s->dlog);
    s->sc = (LsScorer){s, score, rescore, grad, flush, &pol->p};
    return s;
}

void ls_gnn_free(LsGnn *s)
{
    if (!s)
        return;
    episode_free(s->ep);
    policy_graph_free(s->pg);
    policy_batch_free(s->b);
    free(s->cur);
    free(s->feats);
    free(s->logits);
    free(s->dlog);
    free(s);
}

const LsScorer *ls_gnn_scorer(LsGnn *s) { return &s->sc; }
