/* rnn_train: REINFORCE for the RNN-based placer (rnn_train.h). */
#include "rnn_train.h"

#include <math.h>
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

struct RnnTrainer {
    RnnNet *net;
    TrainState *ts;
    RnnTrainConfig cfg;
    EpisodeConfig env; /* for episode_score: seconds plus the OOM penalty */
    const Graph *g;
    const Grouping *gr;
    const Cluster *c;
    RnnInput *in;
    RnnWork *w;
    Sim *sim;
    int *place, *op;
    double *logp, *ent, *wt;
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
    if (cfg->samples < 1 || cfg->samples > 1024) {
        err_set(e, "samples per update must be in [1, 1024], got %d", cfg->samples);
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
    t->w = rnn_work_new(&net->arch);
    t->sim = sim_new(g, c);
    size_t G = (size_t)gr->n_groups;
    t->place = xnew_array(G, sizeof *t->place);
    t->op = xnew_array((size_t)g->n_nodes, sizeof *t->op);
    t->logp = xnew_array(G, sizeof *t->logp);
    t->ent = xnew_array(G, sizeof *t->ent);
    t->wt = xnew_array(G, sizeof *t->wt);
    rnn_train_set_baseline(ts, rnn_train_baseline(ts));
    TrainGraph tg = {(Graph *)g, (Grouping *)gr, NULL};
    train_best_verify(ts, &t->env, &tg, 1, c);
    return t;
}

void rnn_train_free(RnnTrainer *t)
{
    if (!t)
        return;
    rnn_input_free(t->in);
    rnn_work_free(t->w);
    sim_free(t->sim);
    free(t->place);
    free(t->op);
    free(t->logp);
    free(t->ent);
    free(t->wt);
    free(t);
}

int64_t rnn_train_run(RnnTrainer *t, int64_t n, TrainCallback cb, void *ud, volatile int *stop)
{
    TrainState *ts = t->ts;
    NnParams *p = &t->net->p;
    int G = t->gr->n_groups, K = t->cfg.samples;
    int64_t done = 0;
    while (done < n && !(stop && *stop)) {
        nn_params_zero_grad(p);
        double beta = t->cfg.entropy, loss = 0, cost = 0, best_us = INFINITY, last_us = 0;
        TrainBest *b = train_best_for(ts, t->g->name, t->g->checksum, G);
        for (int k = 0; k < K; k++) {
            double lp = rnn_forward(t->net, t->in, t->w, RNN_SAMPLE, &ts->rng, t->place, t->logp, t->ent);
            group_expand(t->gr, t->place, t->op);
            const SimResult *r = sim_run(t->sim, t->op);
            double score = episode_score(&t->env, t->c, r);
            double R = sqrt(score > 0 ? score : 0);
            double base = rnn_train_baseline(ts), adv = R - base;
            rnn_train_set_baseline(ts, 0.9 * base + 0.1 * R);
            /* minimise adv log pi - beta H: J of rnn_backward with w = adv / K and -beta / K */
            for (int s = 0; s < G; s++)
                t->wt[s] = adv / K;
            rnn_backward(t->net, t->in, t->w, t->wt, -beta / K, p->g);
            double H = 0;
            for (int s = 0; s < G; s++)
                H += t->ent[s];
            loss += (adv * lp - beta * H) / K;
            cost += R / K;
            ts->simulations++;
            last_us = r->makespan_us;
            if (r->makespan_us < best_us)
                best_us = r->makespan_us;
            if (score < b->score) {
                b->score = score;
                b->runtime_us = r->makespan_us;
                memcpy(b->group_device, t->place, (size_t)G * sizeof *b->group_device);
                b->found_after = ts->simulations;
            }
        }
        double norm = nn_clip_grad(p->g, p->n, t->cfg.clip);
        ts->adam.lr = rnn_train_lr(&t->cfg, ts->episodes);
        nn_adam_step(&ts->adam, p);
        ts->episodes++;
        ts->entropy = beta;
        done++;
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
            rep.entropy = beta;
            cb(&rep, ud);
        }
    }
    return done;
}
