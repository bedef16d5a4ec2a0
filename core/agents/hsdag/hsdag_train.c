/* hsdag_train: REINFORCE for the HSDAG placer (hsdag_train.h). */
#include "hsdag_train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "oneshot.h"
#include "par.h"
#include "train_state.h"

void hsdag_train_config_default(HsdagTrainConfig *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->lr = 1e-3;
    cfg->gamma = 0.95;
    cfg->clip = 0;
    cfg->oom_penalty = 2.0;
    cfg->decay = 0.9;
    cfg->steps = 20;
    cfg->episodes = 1;
    cfg->threads = 1;
    cfg->greedy_every = 5;
    cfg->seed = 1;
}

double hsdag_reward_runtime(const HsdagTrainConfig *cfg, const Cluster *c, const SimResult *r, double score,
                            const int *group_device, int n_groups)
{
    (void)c;
    if (!cfg->allow_single && n_groups > 1) {
        int one = 1;
        for (int v = 1; v < n_groups && one; v++)
            one = group_device[v] == group_device[0];
        if (one)
            return HSDAG_FORBIDDEN_S;
    }
    if (r->any_oom && !cfg->oom_graded)
        return HSDAG_FORBIDDEN_S;
    return score;
}

/* A training graph and its input. */
typedef struct HGraph {
    const Graph *g;
    const Grouping *gr;
    HsdagInput *in;
} HGraph;

/* One episode of an update: its graph, stream, states, placements and rewards. */
typedef struct HEpisode {
    int gi;
    Rng rng;
    float *x;     /* (T + 1) x G x F: the states x_0 .. x_T */
    int *place;   /* T x G */
    double *rt;   /* T: reward runtimes (s) */
    double *us;   /* T: simulated runtimes (us) */
    double *score; /* T */
    double *lp;   /* T: log pi */
    double ret, base, loss;
} HEpisode;

struct HsdagTrainer {
    HsdagNet *net;
    TrainState *ts;
    HsdagTrainConfig cfg;
    EpisodeConfig env; /* for episode_score: seconds plus the OOM penalty */
    HGraph *graphs;
    int n_graphs;
    const Cluster *c;
    int E, T, W;      /* episodes, steps, threads (work spaces) */
    int maxg, maxf, maxn;
    HEpisode *eps;
    HsdagWork ***work; /* per thread, per graph (made when first needed, by that thread) */
    Sim ***sim;       /* per thread, per graph (made when first needed) */
    int **op;         /* per thread: an op placement */
    float *grads;     /* the E T steps' gradients (oneshot_grads_new) */
};

HsdagTrainer *hsdag_train_new(HsdagNet *net, TrainState *ts, const HsdagTrainConfig *cfg, const TrainGraph *graphs,
                              int n_graphs, const Cluster *c, Err *e)
{
    OneShotTrainSetup su;
    if (oneshot_train_setup(&su, "hsdag", net->arch.n_devices, cfg->oom_penalty, graphs, n_graphs, c, e) != 0)
        return NULL;
    if (cfg->episodes < 1 || cfg->episodes > HSDAG_TRAIN_MAX_EPISODES || cfg->threads < 1 ||
        cfg->threads > HSDAG_TRAIN_MAX_EPISODES || cfg->steps < 1 || cfg->steps > HSDAG_TRAIN_MAX_STEPS ||
        !(cfg->gamma >= 0 && cfg->gamma <= 1) || !(cfg->decay >= 0 && cfg->decay < 1)) {
        err_set(e, "hsdag training: episodes per update and threads must be in [1, %d], steps in [1, %d], the "
                   "discount in [0, 1] and the baseline decay in [0, 1); got %d, %d, %d, %g, %g",
                HSDAG_TRAIN_MAX_EPISODES, HSDAG_TRAIN_MAX_STEPS, cfg->episodes, cfg->threads, cfg->steps, cfg->gamma,
                cfg->decay);
        return NULL;
    }
    HGraph *hg = xnew_array((size_t)n_graphs, sizeof *hg);
    for (int i = 0; i < n_graphs; i++) {
        hg[i].g = graphs[i].g;
        hg[i].gr = graphs[i].gr;
        if (!(hg[i].in = hsdag_input_new(net, graphs[i].g, graphs[i].gr, c, e))) {
            err_prefix(e, graphs[i].g->name);
            for (int j = 0; j < i; j++)
                hsdag_input_free(hg[j].in);
            free(hg);
            return NULL;
        }
    }
    HsdagTrainer *t = xcalloc(1, sizeof *t);
    t->net = net;
    net->arch.steps = cfg->steps; /* the policy file keeps it for placing */
    t->ts = ts;
    t->cfg = *cfg;
    t->env = su.env;
    t->graphs = hg;
    t->n_graphs = n_graphs;
    t->c = c;
    t->E = cfg->episodes;
    t->T = cfg->steps;
    t->W = cfg->threads < t->E * t->T ? cfg->threads : t->E * t->T;
    t->maxg = su.max_groups;
    t->maxn = su.max_nodes;
    t->maxf = hsdag_n_inputs(&net->arch);
    size_t GF = (size_t)t->maxg * (size_t)t->maxf, T = (size_t)t->T;
    t->eps = xnew_array((size_t)t->E, sizeof *t->eps);
    for (int k = 0; k < t->E; k++) {
        HEpisode *ep = &t->eps[k];
        memset(ep, 0, sizeof *ep);
        ep->x = xnew_array((T + 1) * GF, sizeof *ep->x);
        ep->place = xnew_array(T * (size_t)t->maxg, sizeof *ep->place);
        ep->rt = xnew_array(T, sizeof *ep->rt);
        ep->us = xnew_array(T, sizeof *ep->us);
        ep->score = xnew_array(T, sizeof *ep->score);
        ep->lp = xnew_array(T, sizeof *ep->lp);
    }
    t->work = xnew_array((size_t)t->W, sizeof *t->work);
    t->sim = xnew_array((size_t)t->W, sizeof *t->sim);
    t->op = xnew_array((size_t)t->W, sizeof *t->op);
    for (int j = 0; j < t->W; j++) {
        t->work[j] = xcalloc((size_t)n_graphs, sizeof **t->work);
        t->sim[j] = xcalloc((size_t)n_graphs, sizeof **t->sim);
        t->op[j] = xnew_array((size_t)t->maxn, sizeof **t->op);
    }
    t->grads = oneshot_grads_new(t->E * t->T, net->p.n);
    oneshot_train_bests(ts, &t->env, graphs, n_graphs, c);
    return t;
}

void hsdag_train_free(HsdagTrainer *t)
{
    if (!t)
        return;
    for (int k = 0; k < t->E; k++) {
        HEpisode *ep = &t->eps[k];
        free(ep->x);
        free(ep->place);
        free(ep->rt);
        free(ep->us);
        free(ep->score);
        free(ep->lp);
    }
    free(t->eps);
    for (int j = 0; j < t->W; j++) {
        for (int i = 0; i < t->n_graphs; i++) {
            hsdag_work_free(t->work[j][i]);
            sim_free(t->sim[j][i]);
        }
        free(t->work[j]);
        free(t->sim[j]);
        free(t->op[j]);
    }
    free(t->work);
    free(t->sim);
    free(t->op);
    free(t->grads);
    for (int i = 0; i < t->n_graphs; i++)
        hsdag_input_free(t->graphs[i].in);
    free(t->graphs);
    free(t);
}

/* Thread j's work space for graph gi (only thread j touches it). */
static HsdagWork *work_for(HsdagTrainer *t, int j, int gi)
{
    if (!t->work[j][gi])
        t->work[j][gi] = hsdag_work_new(&t->net->arch, t->graphs[gi].in);
    return t->work[j][gi];
}

/* Simulates `place` of graph gi on thread j; returns the score, with the
 * runtime in *us and the reward runtime in *rt. */
static double simulate(HsdagTrainer *t, int j, int gi, const int *place, double *us, double *rt)
{
    const HGraph *hg = &t->graphs[gi];
    if (!t->sim[j][gi])
        t->sim[j][gi] = sim_new(hg->g, t->c);
    group_expand(hg->gr, place, t->op[j]);
    const SimResult *r = sim_run(t->sim[j][gi], t->op[j]);
    *us = r->makespan_us;
    double score = episode_score(&t->env, t->c, r);
    *rt = hsdag_reward_runtime(&t->cfg, t->c, r, score, place, hg->gr->n_groups);
    return score;
}

typedef struct Ctx {
    HsdagTrainer *t;
} Ctx;

/* Episode k's rollout on thread j. */
static void rollout(void *ctx, int k, int j)
{
    HsdagTrainer *t = ((Ctx *)ctx)->t;
    HEpisode *ep = &t->eps[k];
    const HGraph *hg = &t->graphs[ep->gi];
    int G = hg->in->G, F = hg->in->F;
    size_t GF = (size_t)G * (size_t)F;
    HsdagWork *w = work_for(t, j, ep->gi);
    memcpy(ep->x, hg->in->xf, GF * sizeof *ep->x);
    for (int s = 0; s < t->T; s++) {
        float *x = ep->x + (size_t)s * GF, *nx = x + GF;
        int *place = ep->place + (size_t)s * (size_t)G;
        ep->lp[s] = hsdag_forward(t->net, hg->in, x, w, HSDAG_SAMPLE, &ep->rng, place, nx);
        for (size_t i = 0; i < GF; i++)
            nx[i] += x[i];
        ep->score[s] = simulate(t, j, ep->gi, place, &ep->us[s], &ep->rt[s]);
    }
}

/* What the other ranks need of episode k: the states, placements and
 * simulations of its steps. */
static void rollout_io(void *ctx, int k, DistBuf *b)
{
    HsdagTrainer *t = ((Ctx *)ctx)->t;
    HEpisode *ep = &t->eps[k];
    const HsdagInput *in = t->graphs[ep->gi].in;
    size_t T = (size_t)t->T;
    dist_io(b, ep->x, T * (size_t)in->G * (size_t)in->F * sizeof *ep->x);
    dist_io(b, ep->place, T * (size_t)in->G * sizeof *ep->place);
    dist_io(b, ep->rt, T * sizeof *ep->rt);
    dist_io(b, ep->us, T * sizeof *ep->us);
    dist_io(b, ep->score, T * sizeof *ep->score);
    dist_io(b, ep->lp, T * sizeof *ep->lp);
}

/* Item i = k T + s: the gradient of episode k's step s, on thread j. */
static void backward(void *ctx, int i, int j)
{
    HsdagTrainer *t = ((Ctx *)ctx)->t;
    int k = i / t->T, s = i % t->T;
    HEpisode *ep = &t->eps[k];
    const HGraph *hg = &t->graphs[ep->gi];
    size_t GF = (size_t)hg->in->G * (size_t)hg->in->F;
    const float *x = ep->x + (size_t)s * GF;
    int *place = ep->place + (size_t)s * (size_t)hg->in->G;
    HsdagWork *w = work_for(t, j, ep->gi);
    NnParams *p = &t->net->p;
    float *grad = oneshot_grad_of(t->grads, i, p);
    memset(grad, 0, p->n * sizeof *grad);
    double adv = ep->ret - ep->base;
    if (adv == 0)
        return;
    hsdag_forward(t->net, hg->in, x, w, HSDAG_SCORE, NULL, place, NULL);
    /* the loss -(R - b) sum_t log pi_t, averaged over the E episodes */
    hsdag_backward(t->net, hg->in, x, w, -adv / t->E, grad);
}

static void backward_io(void *ctx, int i, DistBuf *b)
{
    HsdagTrainer *t = ((Ctx *)ctx)->t;
    NnParams *p = &t->net->p;
    dist_io(b, oneshot_grad_of(t->grads, i, p), p->n * sizeof *p->g);
}

/* A greedy placement of graph gi from x_0 with the current weights, simulated. */
static void greedy_probe(HsdagTrainer *t, int gi, TrainBest *b)
{
    const HGraph *hg = &t->graphs[gi];
    int *place = t->eps[0].place; /* free between updates */
    hsdag_forward(t->net, hg->in, hg->in->xf, work_for(t, 0, gi), HSDAG_GREEDY, NULL, place, NULL);
    double us, rt, score = simulate(t, 0, gi, place, &us, &rt);
    t->ts->simulations++;
    train_best_offer(b, score, us, place, t->ts->simulations);
}

int64_t hsdag_train_run(HsdagTrainer *t, int64_t n, TrainCallback cb, void *ud, volatile int *stop)
{
    TrainState *ts = t->ts;
    NnParams *p = &t->net->p;
    int E = t->E, T = t->T;
    int64_t done = 0;
    Ctx ctx = {t};
    while (done < n && !dist_any(stop && *stop)) {
        for (int k = 0; k < E; k++)
            t->eps[k].gi = train_state_draw_graph(ts, t->n_graphs);
        for (int k = 0; k < E; k++) /* each episode's stream, in order */
            rng_seed(&t->eps[k].rng, rng_next(&ts->rng));
        par_for_rank(E, t->W, rollout, &ctx); /* this rank's episodes, then every rank all of them */
        dist_share(E, rollout_io, &ctx);
        double best_us = INFINITY, last_us = 0, mean_ret = 0, loss = 0;
        for (int k = 0; k < E; k++) { /* bests, returns and baselines in episode order */
            HEpisode *ep = &t->eps[k];
            const HGraph *hg = &t->graphs[ep->gi];
            int G = hg->gr->n_groups;
            TrainBest *b = train_best_for(ts, hg->g->name, hg->g->checksum, G);
            double R = 0, sum_lp = 0;
            for (int s = 0; s < T; s++) {
                ts->simulations++;
                train_best_offer(b, ep->score[s], ep->us[s], ep->place + (size_t)s * (size_t)G, ts->simulations);
                if (ep->us[s] < best_us)
                    best_us = ep->us[s];
                last_us = ep->us[s];
                R = R * t->cfg.gamma + 1.0 / ep->rt[s]; /* sum_i gamma^i r_{T-1-i} */
                sum_lp += ep->lp[s];
            }
            ep->ret = R;
            ep->base = 0;
            if (t->cfg.baseline) {
                int have = ts->n_base == 1 && ts->base_len[0] == t->n_graphs;
                double b0 = have ? train_state_baseline(ts, ep->gi) : -1;
                if (!have) /* no moving average yet: every graph's starts unset (-1: returns are > 0) */
                    for (int i = 0; i < t->n_graphs; i++)
                        train_state_set_baseline(ts, i, t->n_graphs, -1);
                ep->base = b0 < 0 ? R : b0;
                train_state_set_baseline(ts, ep->gi, t->n_graphs,
                                       t->cfg.decay * ep->base + (1 - t->cfg.decay) * R);
            }
            ep->loss = -(R - ep->base) * sum_lp;
            mean_ret += R / E;
            loss += ep->loss / E;
        }
        par_for_rank(E * T, t->W, backward, &ctx);
        dist_share(E * T, backward_io, &ctx);
        oneshot_grads_sum(t->grads, E * T, p, 0); /* the steps' gradients, in (episode, step) order */
        double norm = nn_clip_grad(p->g, p->n, t->cfg.clip > 0 ? t->cfg.clip : INFINITY);
        ts->adam.lr = t->cfg.lr;
        nn_adam_step(&ts->adam, p);
        ts->episodes++;
        ts->entropy = 0;
        done++;
        int g0 = t->eps[0].gi;
        const HGraph *hg = &t->graphs[g0];
        TrainBest *b0 = train_best_for(ts, hg->g->name, hg->g->checksum, hg->gr->n_groups);
        if (t->cfg.greedy_every > 0 && ts->episodes % t->cfg.greedy_every == 0)
            greedy_probe(t, g0, b0);
        if (cb)
            cb(&(TrainReport){ts->episodes, g0, best_us, last_us, mean_ret, loss, norm, b0->runtime_us, ts->simulations, NAN, 0}, ud);
    }
    return done;
}
