/* rnn_train: REINFORCE for the RNN-based placer (rnn_train.h). */
#include "rnn_train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "oneshot.h"
#include "par.h"
#include "ppo.h"
#include "rnn_hdp.h"

void rnn_train_config_default(RnnTrainConfig *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->lr = 0.001;
    cfg->entropy = 0;
    cfg->clip = 1.0;
    cfg->oom_penalty = 2.0;
    cfg->samples = 16;
    cfg->batch_baseline = 1;
    cfg->threads = 1;
    cfg->greedy_every = 50;
    cfg->decay_start = 400;
    cfg->decay_every = 50;
    cfg->decay_rate = 0.95;
    cfg->noise = 0.5;
    cfg->noise_updates = 750;
    cfg->drop_failing_after = 1000;
    cfg->seed = 1;
    cfg->freeze_placer = -1;
}

void rnn_train_config_paper(RnnTrainConfig *cfg)
{
    rnn_train_config_default(cfg);
    cfg->lr = 0.1;
    cfg->samples = 1;
    cfg->batch_baseline = 0;
}

double rnn_train_lr(const RnnTrainConfig *cfg, int64_t u)
{
    if (u < cfg->decay_start || cfg->decay_every <= 0)
        return cfg->lr;
    return cfg->lr * pow(cfg->decay_rate, (double)((u - cfg->decay_start) / cfg->decay_every));
}

/* The moving averages, one per training graph, are the one baseline
 * window of the training state (graph i's at index i). */
void rnn_train_state_init(TrainState *ts, double lr, double entropy, uint64_t seed)
{
    train_state_init(ts, lr, entropy, seed);
    train_state_set_baseline(ts, 0, 1, RNN_BASELINE_START);
}

/* One sample of an update: its decode, simulation and gradient. */
typedef struct RSlot {
    RnnWork *w;
    Sim **sim; /* per training graph */
    Rng rng;
    int *place, *op;
    double *logp, *ent, *wt;
    double lp, H, score, makespan_us;
    int oom, dropped;
    /* hdp: the grouper's work space, the sample's grouping, the placer's placement of the learned groups and
       its input; the grouper's gradient weight */
    RnnHdpWork *hw;
    int *grp, *pl;
    RnnInput *pin;
    double wg;
} RSlot;

/* A training graph and its decoder input (the grouper's with hdp). */
typedef struct RGraph {
    const Graph *g;
    const Grouping *gr;
    RnnInput *in;
    RnnHdpInput *hin;
} RGraph;

struct RnnTrainer {
    RnnNet *net;
    TrainState *ts;
    RnnTrainConfig cfg;
    EpisodeConfig env; /* for episode_score: seconds plus the OOM penalty */
    RGraph *graphs;
    int n_graphs, cur; /* cur: the graph of the update in progress */
    const Cluster *c;
    int K, T;
    RSlot *slots;
    float *grads; /* the samples' gradients (oneshot_grads_new) */
    double beta;
    int hdp;        /* the net has a grouper */
    int64_t freeze; /* hdp: the update at which the placer freezes (0: never) */
    size_t tail;    /* hdp: the grouper's tensors' offset (the tail a frozen placer leaves to Adam) */
};

RnnTrainer *rnn_train_new(RnnNet *net, TrainState *ts, const RnnTrainConfig *cfg, const TrainGraph *graphs,
                          int n_graphs, const Cluster *c, Err *e)
{
    OneShotTrainSetup su;
    if (oneshot_train_setup(&su, "rnn", net->arch.n_devices, cfg->oom_penalty, graphs, n_graphs, c, e) != 0)
        return NULL;
    if (cfg->samples < 1 || cfg->samples > RNN_TRAIN_MAX_SAMPLES) {
        err_set(e, "samples per update must be in [1, %d], got %d", RNN_TRAIN_MAX_SAMPLES, cfg->samples);
        return NULL;
    }
    if (cfg->threads < 1 || cfg->threads > RNN_TRAIN_MAX_SAMPLES) {
        err_set(e, "threads must be in [1, %d], got %d", RNN_TRAIN_MAX_SAMPLES, cfg->threads);
        return NULL;
    }
    int hdp = net->arch.grouper == RNN_GROUPER_HDP;
    if (!hdp && cfg->freeze_placer > 0) {
        err_set(e, "--freeze-placer: the policy has no grouper (train a new one with --grouper hdp)");
        return NULL;
    }
    RGraph *rg = xnew_array((size_t)n_graphs, sizeof *rg);
    int maxg = su.max_groups, maxn = su.max_nodes;
    for (int i = 0; i < n_graphs; i++) {
        rg[i].g = graphs[i].g;
        rg[i].gr = graphs[i].gr;
        if (hdp)
            rg[i].hin = rnn_hdp_input_new(graphs[i].g, graphs[i].gr, &net->vocab);
        else if (!(rg[i].in = rnn_input_new(graphs[i].g, graphs[i].gr, &net->vocab, net->arch.n_groups, e))) {
            for (int j = 0; j < i; j++)
                rnn_input_free(rg[j].in);
            free(rg);
            return NULL;
        }
    }
    RnnTrainer *t = xcalloc(1, sizeof *t);
    t->net = net;
    t->ts = ts;
    t->cfg = *cfg;
    t->env = su.env;
    t->graphs = rg;
    t->n_graphs = n_graphs;
    t->c = c;
    t->K = cfg->samples;
    t->T = cfg->threads < cfg->samples ? cfg->threads : cfg->samples;
    t->slots = xnew_array((size_t)t->K, sizeof *t->slots);
    t->hdp = hdp;
    t->freeze = hdp ? (cfg->freeze_placer < 0 ? RNN_HDP_FREEZE : cfg->freeze_placer) : 0;
    t->tail = hdp ? net->p.t[nn_params_find(&net->p, "grouper_ff")].off : 0;
    size_t G = (size_t)maxg, steps = hdp ? (size_t)net->arch.n_groups : G; /* decoder steps */
    if (steps > G)
        G = steps;
    for (int k = 0; k < t->K; k++) {
        RSlot *sl = &t->slots[k];
        sl->w = rnn_work_new(&net->arch);
        if (hdp) {
            sl->hw = rnn_hdp_work_new(&net->arch, maxg);
            sl->grp = xnew_array((size_t)maxg, sizeof *sl->grp);
            sl->pl = xnew_array(steps, sizeof *sl->pl);
        }
        sl->sim = xnew_array((size_t)n_graphs, sizeof *sl->sim);
        for (int i = 0; i < n_graphs; i++)
            sl->sim[i] = sim_new(graphs[i].g, c);
        sl->place = xnew_array(G, sizeof *sl->place);
        sl->op = xnew_array((size_t)maxn, sizeof *sl->op);
        sl->logp = xnew_array(G, sizeof *sl->logp);
        sl->ent = xnew_array(G, sizeof *sl->ent);
        sl->wt = xnew_array(G, sizeof *sl->wt);
    }
    t->grads = oneshot_grads_new(t->K, net->p.n);
    train_state_set_baseline(ts, 0, n_graphs, train_state_baseline(ts, 0));
    oneshot_train_bests(ts, &t->env, graphs, n_graphs, c);
    return t;
}

void rnn_train_free(RnnTrainer *t)
{
    if (!t)
        return;
    for (int k = 0; k < t->K; k++) {
        RSlot *sl = &t->slots[k];
        rnn_work_free(sl->w);
        for (int i = 0; i < t->n_graphs; i++)
            sim_free(sl->sim[i]);
        free(sl->sim);
        free(sl->place);
        free(sl->op);
        free(sl->logp);
        free(sl->ent);
        free(sl->wt);
        rnn_hdp_work_free(sl->hw);
        free(sl->grp);
        free(sl->pl);
        rnn_input_free(sl->pin);
    }
    free(t->slots);
    free(t->grads);
    for (int i = 0; i < t->n_graphs; i++) {
        rnn_input_free(t->graphs[i].in);
        rnn_hdp_input_free(t->graphs[i].hin);
    }
    free(t->graphs);
    free(t);
}

/* hdp: the greedy grouping of graph cur and the placer's greedy decode of
 * it (or its frozen placement) to sl->place (per group of the graph). */
static void hdp_greedy(RnnTrainer *t, RSlot *sl)
{
    const RGraph *rg = &t->graphs[t->cur];
    rnn_hdp_forward(t->net, rg->hin, sl->hw, RNN_GREEDY, NULL, sl->grp);
    const int *pl = t->net->frozen;
    if (!pl) {
        RnnInput *pin = rnn_hdp_placer_input(t->net, rg->g, rg->gr, sl->grp);
        rnn_forward(t->net, pin, sl->w, RNN_GREEDY, NULL, sl->pl, NULL, NULL);
        rnn_input_free(pin);
        pl = sl->pl;
    }
    rnn_hdp_expand(rg->gr, sl->grp, pl, sl->place);
}

/* hdp: the placer freezes on its last sampled placement (of the learned
 * groups): the update's last sample's, as the reference's cache of its
 * last sample. */
static void freeze_placer(RnnTrainer *t)
{
    const RSlot *sl = &t->slots[t->K - 1];
    t->net->frozen = xnew_array((size_t)t->net->arch.n_groups, sizeof *t->net->frozen);
    memcpy(t->net->frozen, sl->pl, (size_t)t->net->arch.n_groups * sizeof *sl->pl);
}

/* A greedy decode of the current weights on graph cur, simulated (slot 0's buffers). */
static void greedy_probe(RnnTrainer *t, TrainBest *b)
{
    RSlot *sl = &t->slots[0];
    const RGraph *rg = &t->graphs[t->cur];
    if (t->hdp)
        hdp_greedy(t, sl);
    else
        rnn_forward(t->net, rg->in, sl->w, RNN_GREEDY, NULL, sl->place, NULL, NULL);
    group_expand(rg->gr, sl->place, sl->op);
    const SimResult *r = sim_run(sl->sim[t->cur], sl->op);
    double score = episode_score(&t->env, t->c, r);
    t->ts->simulations++;
    train_best_offer(b, score, r->makespan_us, sl->place, t->ts->simulations);
}

/* Phase 0: sample k's decode and simulation; phase 1: its gradient. */
static void slot_run(RnnTrainer *t, int k, int phase)
{
    RSlot *sl = &t->slots[k];
    const RGraph *rg = &t->graphs[t->cur];
    int G = rg->gr->n_groups, frozen = t->net->frozen != NULL;
    if (phase == 0) {
        rnn_work_set_noise(sl->w, t->ts->episodes < t->cfg.noise_updates ? t->cfg.noise : 0);
        if (t->hdp) { /* a grouping, then the placer's decode of it (or its frozen placement) */
            double lpg = rnn_hdp_forward(t->net, rg->hin, sl->hw, RNN_SAMPLE, &sl->rng, sl->grp);
            G = frozen ? 0 : t->net->arch.n_groups;
            sl->lp = lpg;
            if (!frozen) {
                rnn_input_free(sl->pin);
                sl->pin = rnn_hdp_placer_input(t->net, rg->g, rg->gr, sl->grp);
                sl->lp += rnn_forward(t->net, sl->pin, sl->w, RNN_SAMPLE, &sl->rng, sl->pl, sl->logp, sl->ent);
            }
            rnn_hdp_expand(rg->gr, sl->grp, frozen ? t->net->frozen : sl->pl, sl->place);
        } else {
            sl->lp = rnn_forward(t->net, rg->in, sl->w, RNN_SAMPLE, &sl->rng, sl->place, sl->logp, sl->ent);
        }
        group_expand(rg->gr, sl->place, sl->op);
        const SimResult *r = sim_run(sl->sim[t->cur], sl->op);
        sl->score = episode_score(&t->env, t->c, r);
        sl->makespan_us = r->makespan_us;
        sl->oom = r->any_oom;
        sl->H = 0;
        for (int s = 0; s < G; s++)
            sl->H += sl->ent[s];
    } else {
        float *grad = oneshot_grad_of(t->grads, k, &t->net->p);
        size_t from = frozen ? t->tail : 0; /* a frozen placer's part is never read */
        memset(grad + from, 0, (t->net->p.n - from) * sizeof *grad);
        if (!sl->dropped && !frozen)
            rnn_backward(t->net, t->hdp ? sl->pin : rg->in, sl->w, sl->wt, -t->beta / t->K, grad);
        if (!sl->dropped && t->hdp)
            rnn_hdp_backward(t->net, rg->hin, sl->hw, sl->wg, grad);
    }
}

typedef struct PhaseCtx {
    RnnTrainer *t;
    int phase;
} PhaseCtx;

static void phase_item(void *ctx, int k, int thread)
{
    (void)thread;
    PhaseCtx *c = ctx;
    slot_run(c->t, k, c->phase);
}

/* What the other ranks need of sample k: its decode and simulation (phase
 * 0), its gradient (phase 1). */
static void phase_io(void *ctx, int k, DistBuf *b)
{
    PhaseCtx *c = ctx;
    RSlot *sl = &c->t->slots[k];
    if (c->phase == 0) {
        dist_io(b, &sl->lp, sizeof sl->lp);
        dist_io(b, &sl->H, sizeof sl->H);
        dist_io(b, &sl->score, sizeof sl->score);
        dist_io(b, &sl->makespan_us, sizeof sl->makespan_us);
        dist_io(b, &sl->oom, sizeof sl->oom);
        dist_io(b, sl->place, (size_t)c->t->graphs[c->t->cur].gr->n_groups * sizeof *sl->place);
        if (c->t->hdp && !c->t->net->frozen) /* the placer's placement of the learned groups: the freeze takes it */
            dist_io(b, sl->pl, (size_t)c->t->net->arch.n_groups * sizeof *sl->pl);
    } else {
        dist_io(b, oneshot_grad_of(c->t->grads, k, &c->t->net->p), c->t->net->p.n * sizeof(float));
    }
}

/* Runs a phase over this rank's samples on T threads (par_for_rank; every
 * sample's result is its own, so the result does not depend on T), then
 * gives every rank every sample's results (dist_share). */
static void run_phase(RnnTrainer *t, int phase)
{
    PhaseCtx c = {t, phase};
    par_for_rank(t->K, t->T, phase_item, &c);
    dist_share(t->K, phase_io, &c);
}

int64_t rnn_train_run(RnnTrainer *t, int64_t n, TrainCallback cb, void *ud, volatile int *stop)
{
    TrainState *ts = t->ts;
    NnParams *p = &t->net->p;
    int K = t->K;
    int64_t done = 0;
    while (done < n && !dist_any(stop && *stop)) {
        t->beta = t->cfg.entropy;
        t->cur = train_state_draw_graph(ts, t->n_graphs);
        const RGraph *rg = &t->graphs[t->cur];
        int G = rg->gr->n_groups;
        int frozen = t->net->frozen != NULL, steps = t->hdp ? (frozen ? 0 : t->net->arch.n_groups) : G;
        int drop = t->cfg.drop_failing_after > 0 && ts->episodes >= t->cfg.drop_failing_after;
        double loss = 0, cost = 0, best_us = INFINITY, last_us = 0;
        TrainBest *b = train_best_for(ts, rg->g->name, rg->g->checksum, G);
        for (int k = 0; k < K; k++) /* each sample's stream, in order */
            rng_seed(&t->slots[k].rng, rng_next(&ts->rng));
        run_phase(t, 0);
        /* each sample's cost R, and with the batch baseline the rewards -R normalised within the update */
        double cost_R[RNN_TRAIN_MAX_SAMPLES], rew[RNN_TRAIN_MAX_SAMPLES], batch_adv[RNN_TRAIN_MAX_SAMPLES];
        for (int k = 0; k < K; k++) {
            double c = t->cfg.oom_faithful && t->slots[k].oom ? RNN_FAILING_SIGNAL : t->slots[k].score;
            cost_R[k] = sqrt(c > 0 ? c : 0);
            rew[k] = -cost_R[k];
        }
        if (t->cfg.batch_baseline)
            ppo_advantages(K, rew, batch_adv);
        for (int k = 0; k < K; k++) {
            RSlot *sl = &t->slots[k];
            double R = cost_R[k];
            ts->simulations++;
            last_us = sl->makespan_us;
            if (sl->makespan_us < best_us)
                best_us = sl->makespan_us;
            train_best_offer(b, sl->score, sl->makespan_us, sl->place, ts->simulations);
            cost += R / K;
            /* late in training, an out-of-memory sample leaves the loss and the baseline */
            sl->dropped = drop && sl->oom;
            if (sl->dropped)
                continue;
            double base = train_state_baseline(ts, t->cur), adv = t->cfg.batch_baseline ? -batch_adv[k] : R - base;
            train_state_set_baseline(ts, t->cur, t->n_graphs, 0.9 * base + 0.1 * R);
            /* minimise adv log pi - beta H: J of rnn_backward with w = adv / K and -beta / K */
            for (int s = 0; s < steps; s++)
                sl->wt[s] = adv / K;
            sl->wg = adv / K;
            loss += (adv * sl->lp - t->beta * sl->H) / K;
        }
        run_phase(t, 1);
        /* a frozen placer has no gradient: the grouper's tensors (the tail) alone are summed, clipped and stepped */
        size_t from = frozen ? t->tail : 0;
        oneshot_grads_sum(t->grads, K, p, from); /* the samples' gradients, in sample order */
        double norm = nn_clip_grad(p->g + from, p->n - from, t->cfg.clip);
        ts->adam.lr = rnn_train_lr(&t->cfg, ts->episodes);
        NnParams view = *p;
        view.w += from;
        view.g += from;
        view.m += from;
        view.v += from;
        view.n -= from;
        nn_adam_step(&ts->adam, &view);
        ts->episodes++;
        ts->entropy = t->beta;
        done++;
        if (t->hdp && t->freeze > 0 && !frozen && ts->episodes >= t->freeze)
            freeze_placer(t); /* the next update's samples take it */
        if (t->cfg.greedy_every > 0 && ts->episodes % t->cfg.greedy_every == 0)
            greedy_probe(t, b);
        if (cb)
            cb(&(TrainReport){ts->episodes, t->cur, best_us, last_us, -cost, loss, norm, b->runtime_us,
                              ts->simulations, NAN, t->beta}, ud);
    }
    return done;
}
