/* rnn_train: REINFORCE for the RNN-based placer (rnn_train.h). */
#include "rnn_train.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void rnn_train_config_default(RnnTrainConfig *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->lr = 0.1;
    cfg->entropy = 0;
    cfg->clip = 1.0;
    cfg->oom_penalty = 2.0;
    cfg->samples = 1;
    cfg->threads = 1;
    cfg->greedy_every = 50;
    cfg->decay_start = 400;
    cfg->decay_every = 50;
    cfg->decay_rate = 0.95;
    cfg->seed = 1;
}

double rnn_train_lr(const RnnTrainConfig *cfg, int64_t u)
{
    if (u < cfg->decay_start || cfg->decay_every <= 0)
        return cfg->lr;
    return cfg->lr * pow(cfg->decay_rate, (double)((u - cfg->decay_start) / cfg->decay_every));
}

void rnn_train_set_baseline(TrainState *ts, double b)
{
    if (ts->n_base != 1 || ts->base_len[0] != 1) {
        for (int i = 0; i < ts->n_base; i++)
            free(ts->base_ret[i]);
        ts->n_base = 1;
        ts->base_len[0] = 1;
        ts->base_ret[0] = xnew_array(1, sizeof *ts->base_ret[0]);
    }
    ts->base_ret[0][0] = b;
}

double rnn_train_baseline(const TrainState *ts)
{
    return ts->n_base == 1 && ts->base_len[0] == 1 ? ts->base_ret[0][0] : RNN_BASELINE_START;
}

void rnn_train_state_init(TrainState *ts, double lr, double entropy, uint64_t seed)
{
    train_state_init(ts, lr, entropy, seed);
    rnn_train_set_baseline(ts, RNN_BASELINE_START);
}

/* One sample of an update: its decode, simulation and gradient. */
typedef struct RSlot {
    RnnWork *w;
    Sim *sim;
    Rng rng;
    int *place, *op;
    double *logp, *ent, *wt;
    float *grad;
    double lp, H, score, makespan_us;
} RSlot;

struct RnnTrainer {
    RnnNet *net;
    TrainState *ts;
    RnnTrainConfig cfg;
    EpisodeConfig env; /* for episode_score: seconds plus the OOM penalty */
    const Graph *g;
    const Grouping *gr;
    const Cluster *c;
    RnnInput *in;
    int K, T;
    RSlot *slots;
    double beta;
};

RnnTrainer *rnn_train_new(RnnNet *net, TrainState *ts, const RnnTrainConfig *cfg, const Graph *g,
                          const Grouping *gr, const Cluster *c, Err *e)
{
    if (net->arch.n_devices != c->n_devices) {
        err_set(e, "the rnn policy is for %d devices but the cluster has %d", net->arch.n_devices, c->n_devices);
        return NULL;
    }
    if (net->arch.n_groups != gr->n_groups) {
        err_set(e, "the rnn policy is for %d groups but %s is grouped into %d", net->arch.n_groups, g->name,
                gr->n_groups);
        return NULL;
    }
    if (cfg->samples < 1 || cfg->samples > RNN_TRAIN_MAX_SAMPLES) {
        err_set(e, "samples per update must be in [1, %d], got %d", RNN_TRAIN_MAX_SAMPLES, cfg->samples);
        return NULL;
    }
    if (cfg->threads < 1 || cfg->threads > RNN_TRAIN_MAX_SAMPLES) {
        err_set(e, "threads must be in [1, %d], got %d", RNN_TRAIN_MAX_SAMPLES, cfg->threads);
        return NULL;
    }
    RnnInput *in = rnn_input_new(g, gr, &net->vocab, e);
    if (!in)
        return NULL;
    RnnTrainer *t = xcalloc(1, sizeof *t);
    t->net = net;
    t->ts = ts;
    t->cfg = *cfg;
    episode_config_default(&t->env);
    t->env.oom_penalty = cfg->oom_penalty;
    t->env.log_runtime = 0;
    t->g = g;
    t->gr = gr;
    t->c = c;
    t->in = in;
    t->K = cfg->samples;
    t->T = cfg->threads < cfg->samples ? cfg->threads : cfg->samples;
    t->slots = xnew_array((size_t)t->K, sizeof *t->slots);
    size_t G = (size_t)gr->n_groups;
    for (int k = 0; k < t->K; k++) {
        RSlot *sl = &t->slots[k];
        sl->w = rnn_work_new(&net->arch);
        sl->sim = sim_new(g, c);
        sl->place = xnew_array(G, sizeof *sl->place);
        sl->op = xnew_array((size_t)g->n_nodes, sizeof *sl->op);
        sl->logp = xnew_array(G, sizeof *sl->logp);
        sl->ent = xnew_array(G, sizeof *sl->ent);
        sl->wt = xnew_array(G, sizeof *sl->wt);
        sl->grad = t->K > 1 ? xnew_array(net->p.n, sizeof *sl->grad) : NULL; /* K = 1: p.g itself */
    }
    rnn_train_set_baseline(ts, rnn_train_baseline(ts));
    TrainGraph tg = {(Graph *)g, (Grouping *)gr, NULL};
    train_best_verify(ts, &t->env, &tg, 1, c);
    train_best_for(ts, g->name, g->checksum, gr->n_groups); /* present even before the first update */
    return t;
}

void rnn_train_free(RnnTrainer *t)
{
    if (!t)
        return;
    for (int k = 0; k < t->K; k++) {
        RSlot *sl = &t->slots[k];
        rnn_work_free(sl->w);
        sim_free(sl->sim);
        free(sl->place);
        free(sl->op);
        free(sl->logp);
        free(sl->ent);
        free(sl->wt);
        free(sl->grad);
    }
    free(t->slots);
    rnn_input_free(t->in);
    free(t);
}

/* A greedy decode of the current weights, simulated (slot 0's buffers). */
static void greedy_probe(RnnTrainer *t, TrainBest *b)
{
    RSlot *sl = &t->slots[0];
    int G = t->gr->n_groups;
    rnn_forward(t->net, t->in, sl->w, RNN_GREEDY, NULL, sl->place, NULL, NULL);
    group_expand(t->gr, sl->place, sl->op);
    const SimResult *r = sim_run(sl->sim, sl->op);
    double score = episode_score(&t->env, t->c, r);
    t->ts->simulations++;
    if (score < b->score) {
        b->score = score;
        b->runtime_us = r->makespan_us;
        memcpy(b->group_device, sl->place, (size_t)G * sizeof *b->group_device);
        b->found_after = t->ts->simulations;
    }
}

/* Phase 0: sample k's decode and simulation; phase 1: its gradient. */
static void slot_run(RnnTrainer *t, int k, int phase)
{
    RSlot *sl = &t->slots[k];
    int G = t->gr->n_groups;
    if (phase == 0) {
        sl->lp = rnn_forward(t->net, t->in, sl->w, RNN_SAMPLE, &sl->rng, sl->place, sl->logp, sl->ent);
        group_expand(t->gr, sl->place, sl->op);
        const SimResult *r = sim_run(sl->sim, sl->op);
        sl->score = episode_score(&t->env, t->c, r);
        sl->makespan_us = r->makespan_us;
        sl->H = 0;
        for (int s = 0; s < G; s++)
            sl->H += sl->ent[s];
    } else {
        float *grad = sl->grad ? sl->grad : t->net->p.g;
        memset(grad, 0, t->net->p.n * sizeof *grad);
        rnn_backward(t->net, t->in, sl->w, sl->wt, -t->beta / t->K, grad);
    }
}

typedef struct RJob {
    RnnTrainer *t;
    int first, phase;
} RJob;

static void *job_run(void *arg)
{
    RJob *j = arg;
    for (int k = j->first; k < j->t->K; k += j->t->T)
        slot_run(j->t, k, j->phase);
    return NULL;
}

/* Runs a phase over the K samples on T threads: thread j takes samples j,
 * j + T, ...; every sample's result is its own, so the result does not
 * depend on T. */
static void run_phase(RnnTrainer *t, int phase)
{
    RJob jobs[RNN_TRAIN_MAX_SAMPLES];
    pthread_t th[RNN_TRAIN_MAX_SAMPLES];
    int started[RNN_TRAIN_MAX_SAMPLES];
    for (int j = 0; j < t->T; j++) {
        jobs[j] = (RJob){t, j, phase};
        started[j] = j > 0 && pthread_create(&th[j], NULL, job_run, &jobs[j]) == 0;
    }
    job_run(&jobs[0]);
    for (int j = 1; j < t->T; j++) {
        if (started[j])
            pthread_join(th[j], NULL);
        else
            job_run(&jobs[j]); /* no thread: run it here, same result */
    }
}

int64_t rnn_train_run(RnnTrainer *t, int64_t n, TrainCallback cb, void *ud, volatile int *stop)
{
    TrainState *ts = t->ts;
    NnParams *p = &t->net->p;
    int G = t->gr->n_groups, K = t->K;
    int64_t done = 0;
    while (done < n && !(stop && *stop)) {
        t->beta = t->cfg.entropy;
        double loss = 0, cost = 0, best_us = INFINITY, last_us = 0;
        TrainBest *b = train_best_for(ts, t->g->name, t->g->checksum, G);
        for (int k = 0; k < K; k++) /* each sample's stream, in order */
            rng_seed(&t->slots[k].rng, rng_next(&ts->rng));
        run_phase(t, 0);
        for (int k = 0; k < K; k++) {
            RSlot *sl = &t->slots[k];
            double R = sqrt(sl->score > 0 ? sl->score : 0);
            double base = rnn_train_baseline(ts), adv = R - base;
            rnn_train_set_baseline(ts, 0.9 * base + 0.1 * R);
            /* minimise adv log pi - beta H: J of rnn_backward with w = adv / K and -beta / K */
            for (int s = 0; s < G; s++)
                sl->wt[s] = adv / K;
            loss += (adv * sl->lp - t->beta * sl->H) / K;
            cost += R / K;
            ts->simulations++;
            last_us = sl->makespan_us;
            if (sl->makespan_us < best_us)
                best_us = sl->makespan_us;
            if (sl->score < b->score) {
                b->score = sl->score;
                b->runtime_us = sl->makespan_us;
                memcpy(b->group_device, sl->place, (size_t)G * sizeof *b->group_device);
                b->found_after = ts->simulations;
            }
        }
        run_phase(t, 1);
        if (K > 1) { /* the samples' gradients summed in sample order */
            memset(p->g, 0, p->n * sizeof *p->g);
            for (int k = 0; k < K; k++) {
                const float *gk = t->slots[k].grad;
                for (size_t i = 0; i < p->n; i++)
                    p->g[i] += gk[i];
            }
        }
        double norm = nn_clip_grad(p->g, p->n, t->cfg.clip);
        ts->adam.lr = rnn_train_lr(&t->cfg, ts->episodes);
        nn_adam_step(&ts->adam, p);
        ts->episodes++;
        ts->entropy = t->beta;
        done++;
        if (t->cfg.greedy_every > 0 && ts->episodes % t->cfg.greedy_every == 0)
            greedy_probe(t, b);
        if (cb) {
            TrainReport rep;
            rep.episode = ts->episodes;
            rep.graph = 0;
            rep.runtime_us = best_us;
            rep.final_runtime_us = last_us;
            rep.ret = -cost;
            rep.loss = loss;
            rep.grad_norm = norm;
            rep.best_runtime_us = b->runtime_us;
            rep.simulations = ts->simulations;
            rep.entropy = t->beta;
            cb(&rep, ud);
        }
    }
    return done;
}
