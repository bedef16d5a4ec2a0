/* gdp_train: PPO for the GDP placer (gdp_train.h). */
#include "gdp_train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "oneshot.h"
#include "par.h"
#include "place.h"

#include "ppo.h"

void gdp_train_config_default(GdpTrainConfig *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->lr = 3e-4;
    cfg->entropy = 0.01;
    cfg->clip = 1.0;
    cfg->clip_ratio = 0.2;
    cfg->oom_penalty = 2.0;
    cfg->samples = 16;
    cfg->epochs = 4;
    cfg->batch_graphs = 1;
    cfg->threads = 1;
    cfg->greedy_every = 10;
    cfg->expert_budget = 2000;
    cfg->seed = 1;
}

/* One sample of an update: its placement, simulation and surrogate. */
typedef struct GSlot {
    Sim **sim; /* per training graph, made when first needed */
    Rng rng;
    int gi; /* its graph */
    int *place, *op;
    double *lp_old, *lp, *adv, *wt;
    double score, makespan_us, reward, loss;
} GSlot;

/* One graph of an update: the forward its K samples share, their summed
 * logit gradient and the one backward's gradient. */
typedef struct GBatch {
    GdpWork *w;
    int gi;
    float *dl;   /* G x n: dJ/dlogits summed over the K samples */
    double *ent; /* G: the entropies */
} GBatch;

typedef struct GGraph {
    const Graph *g;
    const Grouping *gr;
    GdpInput *in;
} GGraph;

struct GdpTrainer {
    GdpNet *net;
    TrainState *ts;
    GdpTrainConfig cfg;
    EpisodeConfig env; /* for episode_score: seconds plus the OOM penalty */
    GGraph *graphs;
    int n_graphs;
    const Cluster *c;
    int K, B, S, T, TB; /* samples per graph, graphs per update, slots (K B), threads for the samples, for the graphs */
    int epoch;          /* of the phase in progress */
    GSlot *slots;
    GBatch *batch;
    float *grads;   /* the graphs' gradients (oneshot_grads_new) */
    int **expert;   /* per graph: the expert placement (imitation), made when first needed */
    int identical;  /* the cluster's devices are interchangeable */
};

GdpTrainer *gdp_train_new(GdpNet *net, TrainState *ts, const GdpTrainConfig *cfg, const TrainGraph *graphs,
                          int n_graphs, const Cluster *c, Err *e)
{
    OneShotTrainSetup su;
    if (oneshot_train_setup(&su, "gdp", net->arch.n_devices, cfg->oom_penalty, graphs, n_graphs, c, e) != 0)
        return NULL;
    if (cfg->samples < 1 || cfg->samples > GDP_TRAIN_MAX_SAMPLES || cfg->threads < 1 ||
        cfg->threads > GDP_TRAIN_MAX_SAMPLES || cfg->batch_graphs < 1 || cfg->batch_graphs > GDP_TRAIN_MAX_BATCH ||
        cfg->epochs < 1 || cfg->epochs > GDP_TRAIN_MAX_EPOCHS || !(cfg->clip_ratio > 0)) {
        err_set(e, "gdp training: samples and threads must be in [1, %d], graphs per update in [1, %d], epochs in "
                   "[1, %d] and the clip ratio above 0; got %d, %d, %d, %d, %g",
                GDP_TRAIN_MAX_SAMPLES, GDP_TRAIN_MAX_BATCH, GDP_TRAIN_MAX_EPOCHS, cfg->samples, cfg->threads,
                cfg->batch_graphs, cfg->epochs, cfg->clip_ratio);
        return NULL;
    }
    GGraph *gg = xnew_array((size_t)n_graphs, sizeof *gg);
    int maxg = su.max_groups, maxn = su.max_nodes;
    for (int i = 0; i < n_graphs; i++) {
        gg[i].g = graphs[i].g;
        gg[i].gr = graphs[i].gr;
        if (!(gg[i].in = gdp_input_new(graphs[i].g, graphs[i].gr, &net->vocab, e))) {
            for (int j = 0; j < i; j++)
                gdp_input_free(gg[j].in);
            free(gg);
            return NULL;
        }
    }
    GdpTrainer *t = xcalloc(1, sizeof *t);
    t->net = net;
    t->ts = ts;
    t->cfg = *cfg;
    t->env = su.env;
    t->graphs = gg;
    t->n_graphs = n_graphs;
    t->c = c;
    t->K = cfg->samples;
    t->B = cfg->batch_graphs;
    t->S = t->K * t->B;
    t->T = cfg->threads < t->S ? cfg->threads : t->S;
    t->TB = cfg->threads < t->B ? cfg->threads : t->B;
    t->slots = xnew_array((size_t)t->S, sizeof *t->slots);
    size_t G = (size_t)maxg;
    for (int s = 0; s < t->S; s++) {
        GSlot *sl = &t->slots[s];
        sl->sim = xnew_array((size_t)n_graphs, sizeof *sl->sim);
        for (int i = 0; i < n_graphs; i++)
            sl->sim[i] = NULL;
        sl->place = xnew_array(G, sizeof *sl->place);
        sl->op = xnew_array((size_t)maxn, sizeof *sl->op);
        sl->lp_old = xnew_array(G, sizeof *sl->lp_old);
        sl->lp = xnew_array(G, sizeof *sl->lp);
        sl->adv = xnew_array(G, sizeof *sl->adv);
        sl->wt = xnew_array(G, sizeof *sl->wt);
    }
    t->batch = xnew_array((size_t)t->B, sizeof *t->batch);
    for (int b = 0; b < t->B; b++) {
        GBatch *gb = &t->batch[b];
        gb->w = gdp_work_new(&net->arch, maxg);
        gb->dl = xnew_array(xmul(G, (size_t)net->arch.n_devices), sizeof *gb->dl);
        gb->ent = xnew_array(G, sizeof *gb->ent);
    }
    t->grads = oneshot_grads_new(t->B, net->p.n);
    t->expert = xnew_array((size_t)n_graphs, sizeof *t->expert);
    t->identical = 1;
    for (int d = 1; d < c->n_devices; d++) {
        const Device *a = &c->devices[0], *b = &c->devices[d];
        t->identical &= a->speed == b->speed && a->memory_bytes == b->memory_bytes &&
                        (a->kind && b->kind ? strcmp(a->kind, b->kind) == 0 : a->kind == b->kind);
    }
    oneshot_train_bests(ts, &t->env, graphs, n_graphs, c);
    return t;
}

void gdp_train_free(GdpTrainer *t)
{
    if (!t)
        return;
    for (int s = 0; s < t->S; s++) {
        GSlot *sl = &t->slots[s];
        for (int i = 0; i < t->n_graphs; i++)
            sim_free(sl->sim[i]);
        free(sl->sim);
        free(sl->place);
        free(sl->op);
        free(sl->lp_old);
        free(sl->lp);
        free(sl->adv);
        free(sl->wt);
    }
    free(t->slots);
    for (int b = 0; b < t->B; b++) {
        gdp_work_free(t->batch[b].w);
        free(t->batch[b].dl);
        free(t->batch[b].ent);
    }
    free(t->batch);
    free(t->grads);
    for (int i = 0; i < t->n_graphs; i++) {
        gdp_input_free(t->graphs[i].in);
        free(t->expert[i]);
    }
    free(t->expert);
    free(t->graphs);
    free(t);
}

/* Simulates sl's placement of its graph; returns the score. */
static double simulate(GdpTrainer *t, GSlot *sl)
{
    const GGraph *gg = &t->graphs[sl->gi];
    if (!sl->sim[sl->gi])
        sl->sim[sl->gi] = sim_new(gg->g, t->c);
    group_expand(gg->gr, sl->place, sl->op);
    const SimResult *r = sim_run(sl->sim[sl->gi], sl->op);
    sl->makespan_us = r->makespan_us;
    return episode_score(&t->env, t->c, r);
}

/* A greedy placement of graph gi with the current weights, simulated (graph 0's work space, slot 0's buffers). */
static void greedy_probe(GdpTrainer *t, int gi, TrainBest *b)
{
    GSlot *sl = &t->slots[0];
    sl->gi = gi;
    gdp_forward(t->net, t->graphs[gi].in, t->batch[0].w, GDP_GREEDY, NULL, sl->place, NULL, NULL);
    double score = simulate(t, sl);
    t->ts->simulations++;
    train_best_offer(b, score, sl->makespan_us, sl->place, t->ts->simulations);
}

typedef struct PhaseCtx {
    GdpTrainer *t;
    int phase;
} PhaseCtx;

/* The forward of the update's graph b, whose probabilities its K samples draw from. */
static void forward_item(void *ctx, int b, int thread)
{
    (void)thread;
    GdpTrainer *t = ((PhaseCtx *)ctx)->t;
    GBatch *gb = &t->batch[b];
    gdp_forward(t->net, t->graphs[gb->gi].in, gb->w, GDP_PROBS, NULL, NULL, NULL, NULL);
}

/* Sample s: its placement drawn from its graph's forward with its own
 * stream (one uniform per group in order), and its simulation. */
static void sample_item(void *ctx, int s, int thread)
{
    (void)thread;
    GdpTrainer *t = ((PhaseCtx *)ctx)->t;
    GSlot *sl = &t->slots[s];
    gdp_work_pick(t->batch[s / t->K].w, GDP_SAMPLE, &sl->rng, sl->place, sl->lp_old, NULL);
    sl->score = simulate(t, sl);
}

/* Graph b in epoch t->epoch: its forward (the first epoch reuses the
 * sampling forward: the weights have not moved), its K samples' surrogates
 * and losses, their summed logit gradient and one backward. */
static void graph_item(void *ctx, int b, int thread)
{
    (void)thread;
    GdpTrainer *t = ((PhaseCtx *)ctx)->t;
    GBatch *gb = &t->batch[b];
    const GGraph *gg = &t->graphs[gb->gi];
    int G = gg->gr->n_groups, K = t->K;
    if (t->epoch > 0)
        gdp_forward(t->net, gg->in, gb->w, GDP_PROBS, NULL, NULL, NULL, NULL);
    const int *pl[GDP_TRAIN_MAX_SAMPLES];
    const double *wt[GDP_TRAIN_MAX_SAMPLES];
    double beta = t->cfg.entropy;
    for (int k = 0; k < K; k++) {
        GSlot *sl = &t->slots[b * K + k];
        gdp_work_pick(gb->w, GDP_SCORE, NULL, sl->place, sl->lp, gb->ent);
        double L = ppo_surrogate(G, sl->lp, sl->lp_old, sl->adv, t->cfg.clip_ratio, sl->wt, NULL), H = 0;
        for (int v = 0; v < G; v++) {
            sl->wt[v] /= t->S;
            H += gb->ent[v];
        }
        sl->loss = (L - beta * H / G) / t->S;
        pl[k] = sl->place;
        wt[k] = sl->wt;
    }
    gdp_logit_grad(gb->w, K, pl, wt, -beta / ((double)t->S * G), gb->dl);
    float *grad = oneshot_grad_of(t->grads, b, &t->net->p);
    memset(grad, 0, t->net->p.n * sizeof *grad);
    gdp_backward_logits(t->net, gg->in, gb->w, gb->dl, grad);
}

/* What the other ranks need: of sample s (phase 0) its placement,
 * log-probabilities and simulation; of graph s (phase 1) its samples'
 * losses and its gradient. */
static void phase_io(void *ctx, int s, DistBuf *b)
{
    PhaseCtx *c = ctx;
    GdpTrainer *t = c->t;
    if (c->phase == 0) {
        GSlot *sl = &t->slots[s];
        size_t G = (size_t)t->graphs[sl->gi].gr->n_groups;
        dist_io(b, sl->place, G * sizeof *sl->place);
        dist_io(b, sl->lp_old, G * sizeof *sl->lp_old);
        dist_io(b, &sl->score, sizeof sl->score);
        dist_io(b, &sl->makespan_us, sizeof sl->makespan_us);
    } else {
        for (int k = 0; k < t->K; k++)
            dist_io(b, &t->slots[s * t->K + k].loss, sizeof t->slots[0].loss);
        dist_io(b, oneshot_grad_of(t->grads, s, &t->net->p), t->net->p.n * sizeof(float));
    }
}

/* Phase 0: the B graphs' forwards (on every rank: each rank's samples draw
 * from them and its epoch 0 reuses them), then this rank's samples, drawn
 * and simulated; phase 1: this rank's graphs' backwards. Each on T threads
 * (par_for; every item's result is its own, so the result does not depend
 * on T), then every rank gets every item's results (dist_share). */
static void run_phase(GdpTrainer *t, int phase)
{
    PhaseCtx c = {t, phase};
    if (phase == 0) {
        par_for(0, t->B, t->TB, forward_item, &c);
        par_for_rank(t->S, t->T, sample_item, &c);
        dist_share(t->S, phase_io, &c);
    } else {
        par_for_rank(t->B, t->TB, graph_item, &c);
        dist_share(t->B, phase_io, &c);
    }
}

/* The expert placement of graph gi (gdp_train.h, imitation), made once. */
static const int *expert_of(GdpTrainer *t, int gi)
{
    if (t->expert[gi])
        return t->expert[gi];
    const GGraph *gg = &t->graphs[gi];
    int G = gg->gr->n_groups, *op = xnew_array((size_t)gg->g->n_nodes, sizeof *op);
    int *gd = t->expert[gi] = xnew_array((size_t)G, sizeof *gd);
    int64_t used = 0;
    PlaceCtx ctx = {.g = gg->g, .gr = gg->gr, .c = t->c, .seed = t->cfg.seed * 1000003u + (uint64_t)gi,
                    .budget = t->cfg.expert_budget, .simulated = &used};
    Err e = {{0}};
    if (place_find("ils")->fn(&ctx, op, &e) != 0) /* ils cannot fail: every group on device 0 at worst */
        memset(op, 0, (size_t)gg->g->n_nodes * sizeof *op);
    group_collapse(gg->gr, op, gd);
    if (t->identical) { /* devices in order of first use */
        int map[GDP_MAX_DEVICES], next = 0;
        for (int d = 0; d < t->c->n_devices; d++)
            map[d] = -1;
        for (int v = 0; v < G; v++) {
            if (map[gd[v]] < 0)
                map[gd[v]] = next++;
            gd[v] = map[gd[v]];
        }
    }
    TrainBest *b = train_best_for(t->ts, gg->g->name, gg->g->checksum, G);
    if (!isfinite(b->runtime_us)) /* counted once in a training's history: a resumed run has its best already */
        t->ts->simulations += used;
    GSlot *sl = &t->slots[0];
    sl->gi = gi;
    memcpy(sl->place, gd, (size_t)G * sizeof *gd);
    double score = simulate(t, sl); /* the expert's placement, simulated again (not counted: the search did) */
    train_best_offer(b, score, sl->makespan_us, gd, t->ts->simulations);
    free(op);
    return gd;
}

/* One imitation update: B graphs drawn, the expert's log-likelihood. */
static void imitate(GdpTrainer *t, double *loss, double *norm, int *g0)
{
    TrainState *ts = t->ts;
    NnParams *p = &t->net->p;
    memset(p->g, 0, p->n * sizeof *p->g);
    *loss = 0;
    for (int b = 0; b < t->B; b++) {
        int gi = train_state_draw_graph(ts, t->n_graphs);
        if (b == 0)
            *g0 = gi;
        const int *target = expert_of(t, gi);
        GSlot *sl = &t->slots[0];
        const GGraph *gg = &t->graphs[gi];
        int G = gg->gr->n_groups;
        memcpy(sl->place, target, (size_t)G * sizeof *target);
        gdp_forward(t->net, gg->in, t->batch[0].w, GDP_SCORE, NULL, sl->place, sl->lp, NULL);
        for (int v = 0; v < G; v++) {
            *loss -= sl->lp[v] / ((double)G * t->B);
            sl->wt[v] = -1.0 / ((double)G * t->B);
        }
        gdp_backward(t->net, gg->in, t->batch[0].w, sl->wt, 0, p->g);
    }
    *norm = nn_clip_grad(p->g, p->n, t->cfg.clip);
    ts->adam.lr = t->cfg.lr;
    nn_adam_step(&ts->adam, p);
}

int gdp_train_sample(const GdpTrainer *t, int s, int *graph, const int **place, const double **lp_old, double *adv)
{
    if (s < 0 || s >= t->S)
        util_die("gdp_train_sample: sample %d of %d", s, t->S);
    const GSlot *sl = &t->slots[s];
    *graph = sl->gi;
    *place = sl->place;
    *lp_old = sl->lp_old;
    *adv = sl->adv[0];
    return t->graphs[sl->gi].gr->n_groups;
}

int64_t gdp_train_run(GdpTrainer *t, int64_t n, TrainCallback cb, void *ud, volatile int *stop)
{
    TrainState *ts = t->ts;
    NnParams *p = &t->net->p;
    int K = t->K, S = t->S;
    int64_t done = 0;
    double r[GDP_TRAIN_MAX_SAMPLES], adv[GDP_TRAIN_MAX_SAMPLES];
    while (done < n && !dist_any(stop && *stop)) {
        if (ts->episodes < t->cfg.imitate) {
            double loss, norm;
            int g0 = 0;
            imitate(t, &loss, &norm, &g0);
            ts->episodes++;
            done++;
            const GGraph *gg = &t->graphs[g0];
            TrainBest *b0 = train_best_for(ts, gg->g->name, gg->g->checksum, gg->gr->n_groups);
            if (t->cfg.greedy_every > 0 && ts->episodes % t->cfg.greedy_every == 0)
                greedy_probe(t, g0, b0);
            if (cb)
                cb(&(TrainReport){ts->episodes, g0, b0->runtime_us, b0->runtime_us, -loss, loss, norm, b0->runtime_us,
                                  ts->simulations, NAN, 0}, ud);
            continue;
        }
        for (int b = 0; b < t->B; b++) {
            int gi = train_state_draw_graph(ts, t->n_graphs);
            t->batch[b].gi = gi;
            for (int k = 0; k < K; k++)
                t->slots[b * K + k].gi = gi;
        }
        for (int s = 0; s < S; s++) /* each sample's stream, in order */
            rng_seed(&t->slots[s].rng, rng_next(&ts->rng));
        run_phase(t, 0);
        double mean_r = 0, best_us = INFINITY, last_us = 0;
        for (int s = 0; s < S; s++) {
            GSlot *sl = &t->slots[s];
            const GGraph *gg = &t->graphs[sl->gi];
            int G = gg->gr->n_groups;
            TrainBest *b = train_best_for(ts, gg->g->name, gg->g->checksum, G);
            ts->simulations++;
            last_us = sl->makespan_us;
            if (sl->makespan_us < best_us)
                best_us = sl->makespan_us;
            train_best_offer(b, sl->score, sl->makespan_us, sl->place, ts->simulations);
            sl->reward = -sqrt(sl->score > 0 ? sl->score : 0);
            mean_r += sl->reward / S;
        }
        for (int b = 0; b < t->B; b++) { /* advantages within each graph's K samples */
            for (int k = 0; k < K; k++)
                r[k] = t->slots[b * K + k].reward;
            ppo_advantages(K, r, adv);
            for (int k = 0; k < K; k++) {
                GSlot *sl = &t->slots[b * K + k];
                for (int v = 0; v < t->graphs[sl->gi].gr->n_groups; v++)
                    sl->adv[v] = adv[k];
            }
        }
        double loss = 0, norm = 0;
        for (t->epoch = 0; t->epoch < t->cfg.epochs; t->epoch++) {
            run_phase(t, 1);
            oneshot_grads_sum(t->grads, t->B, p, 0); /* the graphs' gradients, in graph order */
            for (int s = 0; s < S; s++)
                loss += t->slots[s].loss / t->cfg.epochs;
            norm = nn_clip_grad(p->g, p->n, t->cfg.clip);
            ts->adam.lr = t->cfg.lr;
            nn_adam_step(&ts->adam, p);
        }
        ts->episodes++;
        ts->entropy = t->cfg.entropy;
        done++;
        int g0 = t->slots[0].gi;
        const GGraph *gg = &t->graphs[g0];
        TrainBest *b0 = train_best_for(ts, gg->g->name, gg->g->checksum, gg->gr->n_groups);
        if (t->cfg.greedy_every > 0 && ts->episodes % t->cfg.greedy_every == 0)
            greedy_probe(t, g0, b0);
        if (cb)
            cb(&(TrainReport){ts->episodes, g0, best_us, last_us, mean_r, loss, norm, b0->runtime_us, ts->simulations, NAN, t->cfg.entropy}, ud);
    }
    return done;
}
