/* placeto_train: REINFORCE with a per-step baseline (docs/agent.md, "Training").
 *
 * A round runs T episodes (T = threads) with the same weights: rollouts in
 * parallel, then, in episode order, the returns enter the baseline window
 * and give each episode's advantages; the episodes' gradients are computed
 * in parallel (each recomputes its forward passes from the features it
 * recorded) and applied one after another, one Adam update per episode.
 * Everything random comes from the TrainState's RNG in episode order, so a
 * run is deterministic for a given seed and thread count, and T = 1 is the
 * plain sequential algorithm.
 *
 * With R ranks (dist.h) a round has W = R T episodes: rank r rolls out and
 * differentiates episodes [r T, (r + 1) T) on its T threads, exactly as a
 * W-thread process does them, and every rank receives every episode's
 * returns, best placement and gradient (dist_share), so that all ranks
 * apply the same round in the same order: the weights depend on W, not on
 * how it is split into ranks and threads. */
#include "placeto_train.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "place.h"
#include "placeto_episode.h"
#include "placeto_place.h"

#define ENTROPY_EPS 1e-3f

void placeto_train_config_default(PlacetoTrainConfig *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    episode_config_default(&cfg->env);
    cfg->lr = 1e-3;
    cfg->entropy = 1.0;
    cfg->entropy_decay = 0;
    cfg->clip = 1.25;
    cfg->gamma = 1.0;
    cfg->normalize_adv = 0;
    cfg->temperature = 1.0;
    cfg->threads = 1;
    cfg->seed = 1;
    cfg->eval_every = PLACETO_EVAL_EVERY;
    cfg->ent_rate = 0.95;
    cfg->ent_steps = 100;
}

void placeto_train_config_tuned(PlacetoTrainConfig *cfg)
{
    placeto_train_config_default(cfg);
    cfg->env.extended_features = 1;
    cfg->env.init = EPISODE_INIT_DEVICE0;
    cfg->env.relative_reward = 1;
    cfg->env.accept_improving = 1;
    cfg->gamma = 0;
    cfg->entropy = 0.01;
}

/* One episode slot of a round: its rollout and its gradient. */
typedef struct Slot {
    Episode **eps;      /* per graph, created on first use */
    PolicyWork **works; /* per graph */
    int gi;             /* graph of this round's episode */
    uint64_t seed;
    double beta;
    const int *init;    /* initial placement (EPISODE_INIT_GIVEN) or NULL */
    float *feats;       /* len x n x F */
    size_t cap_feats;
    int *v, *act;
    double *rew, *ret, *adv;
    int len, cap_len;
    float *grad;
    double loss;
    double total_reward; /* the sum of the episode's rewards */
    double *score;       /* len + 1: the score before each step and at the end (min-runtime return) */
    int **start;         /* per graph: this worker's own fixed random start (worker_starts) */
    double entropy;      /* the policy's mean entropy over the episode's steps */
    /* the episode's outcome, on every rank (the owner's Episode is only on its rank) */
    double best_score, best_runtime_us, runtime_us;
    int64_t best_at, simulations;
    int *best_device; /* the largest grouping's size */
} Slot;

struct PlacetoTrainer {
    Policy *pol;
    TrainState *ts;
    PlacetoTrainConfig cfg;
    const TrainGraph *graphs;
    int n_graphs;
    const Cluster *c;
    int T, W;   /* threads of this rank; episodes of a round (T times the ranks) */
    int lo, hi; /* this rank's episodes of a round */
    Slot *slots;
    /* --keep best: the graphs evaluated (at most PLACETO_EVAL_GRAPHS, spread
     * over the family), each one's best heuristic score (the normaliser)
     * and the placement's scratch */
    int n_eval, eval_graph[PLACETO_EVAL_GRAPHS];
    double eval_norm[PLACETO_EVAL_GRAPHS];
    int *eval_gd;
};

PlacetoTrainer *placeto_train_new(Policy *pol, TrainState *ts, const PlacetoTrainConfig *cfg, const TrainGraph *graphs,
                   int n_graphs, const Cluster *c, Err *e)
{
    if (n_graphs < 1) {
        err_set(e, "no graph to train on");
        return NULL;
    }
    if (placeto_episode_check(&cfg->env, &pol->arch, c->n_devices, e) != 0)
        return NULL;
    if (!(cfg->temperature >= 0.01 && cfg->temperature <= 100)) {
        err_set(e, "temperature must be in [0.01, 100], got %g", cfg->temperature);
        return NULL;
    }
    if (cfg->threads < 1 || cfg->threads > 256) {
        err_set(e, "threads must be in [1, 256], got %d", cfg->threads);
        return NULL;
    }
    for (int i = 0; i < n_graphs; i++)
        if (graphs[i].pg->n != graphs[i].gr->n_groups) {
            err_set(e, "%s: policy graph and grouping disagree", graphs[i].g->name);
            return NULL;
        }
    train_best_verify(ts, &cfg->env, graphs, n_graphs, c);
    PlacetoTrainer *t = xcalloc(1, sizeof *t);
    t->pol = pol;
    t->ts = ts;
    t->cfg = *cfg;
    t->graphs = graphs;
    t->n_graphs = n_graphs;
    t->c = c;
    t->T = cfg->threads;
    t->W = t->T * dist_size();
    dist_span(t->W, &t->lo, &t->hi);
    int maxg = 1;
    for (int i = 0; i < n_graphs; i++)
        if (graphs[i].gr->n_groups > maxg)
            maxg = graphs[i].gr->n_groups;
    t->slots = xnew_array((size_t)t->W, sizeof *t->slots);
    for (int s = 0; s < t->W; s++) {
        t->slots[s].eps = xnew_array((size_t)n_graphs, sizeof *t->slots[s].eps);
        t->slots[s].works = xnew_array((size_t)n_graphs, sizeof *t->slots[s].works);
        t->slots[s].grad = xnew_array(pol->p.n, sizeof *t->slots[s].grad);
        t->slots[s].best_device = xnew_array((size_t)maxg, sizeof *t->slots[s].best_device);
    }
    ts->adam.lr = cfg->lr;
    if (!cfg->keep_best && ts->kept_w) { /* --keep last on a resumed --keep best run: the file gets the weights */
        free(ts->kept_w);
        ts->kept_w = NULL;
        ts->kept_n = 0;
        ts->kept_score = INFINITY;
        ts->kept_episode = -1;
    }
    if (cfg->keep_best) {
        t->n_eval = n_graphs < PLACETO_EVAL_GRAPHS ? n_graphs : PLACETO_EVAL_GRAPHS;
        t->eval_gd = xnew_array((size_t)maxg, sizeof *t->eval_gd);
        for (int k = 0; k < t->n_eval; k++) {
            const TrainGraph *tg = &graphs[t->eval_graph[k] = (int)((int64_t)k * n_graphs / t->n_eval)];
            PlaceCtx ctx = {.g = tg->g, .gr = tg->gr, .c = c};
            const char *name;
            place_best_heuristic(&ctx, t->eval_gd, &t->eval_norm[k], &name);
        }
    }
    return t;
}

/* The evaluation of the current weights (--keep best): on each evaluated
 * graph, the score of the placement `place --policy` would give (the
 * procedure of placeto_place_procedure, seed 0), over the best heuristic's
 * score, averaged. Deterministic; uses no training randomness. */
static double evaluate(PlacetoTrainer *t)
{
    double sum = 0;
    for (int k = 0; k < t->n_eval; k++) {
        const TrainGraph *tg = &t->graphs[t->eval_graph[k]];
        double rt;
        Err e;
        if (placeto_place_procedure(t->pol, tg->g, tg->gr, t->c, AGENT_START_DEFAULT, 0, 0, 0, t->eval_gd, &rt, NULL,
                                   NULL, &e) < 0)
            util_die("train: %s", e.msg); /* checked in placeto_train_new: cannot happen */
        PlaceEval *pe = place_eval_new(tg->g, tg->gr, t->c);
        double score = place_eval(pe, t->eval_gd);
        place_eval_free(pe);
        sum += t->eval_norm[k] > 0 ? score / t->eval_norm[k] : score;
    }
    return sum / t->n_eval;
}

/* --keep best at an evaluation point: the current weights become the kept
 * snapshot when they evaluate better than it (the first evaluation, of the
 * weights training starts from, is always kept). */
static void evaluate_and_keep(PlacetoTrainer *t)
{
    double score = evaluate(t);
    TrainState *ts = t->ts;
    if (!ts->kept_w || ts->kept_n != t->pol->p.n || score < ts->kept_score)
        train_state_keep(ts, t->pol->p.w, t->pol->p.n, score);
}

void placeto_train_free(PlacetoTrainer *t)
{
    if (!t)
        return;
    for (int s = 0; s < t->W; s++) {
        Slot *sl = &t->slots[s];
        for (int i = 0; i < t->n_graphs; i++) {
            episode_free(sl->eps[i]);
            policy_work_free(sl->works[i]);
        }
        free(sl->eps);
        free(sl->works);
        free(sl->feats);
        free(sl->v);
        free(sl->act);
        free(sl->rew);
        free(sl->ret);
        free(sl->adv);
        free(sl->score);
        for (int i = 0; sl->start && i < t->n_graphs; i++)
            free(sl->start[i]);
        free(sl->start);
        free(sl->grad);
        free(sl->best_device);
    }
    free(t->slots);
    free(t->eval_gd);
    free(t);
}

static Episode *slot_episode(PlacetoTrainer *t, Slot *sl, int gi)
{
    if (!sl->eps[gi]) {
        const TrainGraph *tg = &t->graphs[gi];
        Err e;
        sl->eps[gi] = episode_new(tg->g, tg->gr, t->c, tg->pg, &t->cfg.env, 0, NULL, &e);
        if (!sl->eps[gi]) /* checked in placeto_train_new; cannot happen */
            util_die("train: %s", e.msg);
        sl->eps[gi]->temperature = t->cfg.temperature;
        sl->works[gi] = policy_work_new(&t->pol->arch, tg->pg);
    }
    return sl->eps[gi];
}

/* Room for len steps in sl's per-step arrays. */
static void slot_reserve(Slot *sl, int len)
{
    if (sl->cap_len < len) {
        sl->cap_len = len;
        size_t L = (size_t)sl->cap_len;
        sl->v = xrealloc_array(sl->v, L, sizeof *sl->v);
        sl->act = xrealloc_array(sl->act, L, sizeof *sl->act);
        sl->rew = xrealloc_array(sl->rew, L, sizeof *sl->rew);
        sl->ret = xrealloc_array(sl->ret, L, sizeof *sl->ret);
        sl->adv = xrealloc_array(sl->adv, L, sizeof *sl->adv);
        sl->score = xrealloc_array(sl->score, L + 1, sizeof *sl->score);
    }
}

/* Rolls out one episode with sampling, recording what the update needs. */
static void rollout(PlacetoTrainer *t, Slot *sl)
{
    Episode *ep = sl->eps[sl->gi];
    PolicyWork *w = sl->works[sl->gi];
    episode_reset(ep, sl->seed, sl->init);
    size_t nf = (size_t)ep->n_groups * (size_t)ep->n_features;
    slot_reserve(sl, ep->n_order);
    if (sl->cap_feats < (size_t)ep->n_order * nf) {
        sl->cap_feats = (size_t)ep->n_order * nf;
        sl->feats = xrealloc_array(sl->feats, sl->cap_feats, sizeof *sl->feats);
    }
    sl->len = 0;
    while (!episode_done(ep)) {
        int k = sl->len;
        sl->score[k] = ep->score;
        sl->v[k] = episode_current(ep);
        const EpisodeStep *s = placeto_episode_step(ep, t->pol, w, 0, sl->feats + (size_t)k * nf);
        sl->act[k] = s->proposed;
        sl->rew[k] = s->reward;
        sl->len++;
    }
    sl->score[sl->len] = ep->score;
    double acc = 0;
    sl->total_reward = 0;
    for (int k = sl->len - 1; k >= 0; k--) {
        acc = sl->rew[k] + t->cfg.gamma * acc;
        sl->ret[k] = acc;
        sl->total_reward += sl->rew[k];
    }
    if (t->cfg.min_runtime_return) { /* R_t = s_t - min_{k>t} s_k, in the rewards' unit */
        double unit = t->cfg.env.relative_reward && ep->init_score != 0 ? fabs(ep->init_score) : 1;
        double later = INFINITY;
        for (int k = sl->len - 1; k >= 0; k--) {
            if (sl->score[k + 1] < later)
                later = sl->score[k + 1];
            sl->ret[k] = (sl->score[k] - later) / unit;
        }
    }
    sl->best_score = ep->best_score;
    sl->best_runtime_us = ep->best_runtime_us;
    sl->runtime_us = ep->runtime_us;
    sl->best_at = ep->best_at;
    sl->simulations = ep->simulations;
    memcpy(sl->best_device, ep->best_device, (size_t)ep->n_groups * sizeof *sl->best_device);
}

/* The episode's gradient of -(R_t - b_t) log pi(a_t) - beta H(pi) summed
 * over its steps, into sl->grad (zeroed first). */
static void gradient(PlacetoTrainer *t, Slot *sl)
{
    const Policy *pol = t->pol;
    Episode *ep = sl->eps[sl->gi];
    PolicyWork *w = sl->works[sl->gi];
    int nd = pol->arch.n_devices;
    size_t nf = (size_t)ep->n_groups * (size_t)ep->n_features;
    float logits[POLICY_MAX_DEVICES], p[POLICY_MAX_DEVICES], lp[POLICY_MAX_DEVICES];
    float dz[POLICY_MAX_DEVICES];
    float temp = (float)t->cfg.temperature;
    memset(sl->grad, 0, pol->p.n * sizeof *sl->grad);
    double loss = 0, ent = 0;
    for (int k = 0; k < sl->len; k++) {
        policy_forward(pol, ep->pg, w, sl->feats + (size_t)k * nf, sl->v[k], logits, NULL);
        if (temp != 1.0f)
            for (int j = 0; j < nd; j++)
                logits[j] /= temp;
        nn_softmax_f(logits, nd, p, lp);
        for (int j = 0; j < nd; j++) /* the policy's own entropy, in nats (the loss's has an epsilon) */
            if (p[j] > 0)
                ent -= (double)p[j] * (double)lp[j];
        float A = (float)sl->adv[k], beta = (float)sl->beta;
        for (int j = 0; j < nd; j++)
            dz[j] = A * (p[j] - (j == sl->act[k] ? 1.0f : 0.0f));
        nn_entropy_grad_f(p, nd, ENTROPY_EPS, -beta, dz);
        if (temp != 1.0f) /* d/dlogits = d/d(logits / T) / T */
            for (int j = 0; j < nd; j++)
                dz[j] /= temp;
        loss += -(double)A * lp[sl->act[k]] - (double)beta * nn_entropy_f(p, nd, ENTROPY_EPS);
        policy_backward(pol, ep->pg, w, dz, sl->grad);
    }
    sl->loss = loss;
    sl->entropy = sl->len > 0 ? ent / sl->len : NAN;
}

typedef struct Job {
    PlacetoTrainer *t;
    Slot *sl;
    int phase; /* 0 rollout, 1 gradient */
} Job;

static void *job_run(void *arg)
{
    Job *j = arg;
    if (j->phase == 0)
        rollout(j->t, j->sl);
    else
        gradient(j->t, j->sl);
    return NULL;
}

/* What the other ranks need of episode s: its returns and outcome (phase
 * 0), its loss and gradient (phase 1). */
static void slot_io(void *ctx, int s, DistBuf *b)
{
    const Job *j = ctx;
    PlacetoTrainer *t = j->t;
    Slot *sl = &t->slots[s];
    if (j->phase == 1) {
        dist_io(b, &sl->loss, sizeof sl->loss);
        dist_io(b, &sl->entropy, sizeof sl->entropy);
        dist_io(b, sl->grad, t->pol->p.n * sizeof *sl->grad);
        return;
    }
    dist_io(b, &sl->len, sizeof sl->len);
    if (b->reading)
        slot_reserve(sl, sl->len);
    dist_io(b, sl->ret, (size_t)sl->len * sizeof *sl->ret);
    dist_io(b, &sl->total_reward, sizeof sl->total_reward);
    dist_io(b, &sl->best_score, sizeof sl->best_score);
    dist_io(b, &sl->best_runtime_us, sizeof sl->best_runtime_us);
    dist_io(b, &sl->runtime_us, sizeof sl->runtime_us);
    dist_io(b, &sl->best_at, sizeof sl->best_at);
    dist_io(b, &sl->simulations, sizeof sl->simulations);
    dist_io(b, sl->best_device, (size_t)t->graphs[sl->gi].gr->n_groups * sizeof *sl->best_device);
}

/* Runs a phase on this rank's episodes, one thread each, then gives every
 * rank every episode's results. */
static void run_phase(PlacetoTrainer *t, int phase)
{
    Job jobs[256];
    pthread_t th[256];
    int started[256];
    int lo = t->lo, count = t->hi - t->lo;
    for (int s = 0; s < count; s++) {
        jobs[s] = (Job){t, &t->slots[lo + s], phase};
        started[s] = 0;
    }
    Job share = {t, NULL, phase};
    if (count == 1) {
        job_run(&jobs[0]);
    } else {
        for (int s = 1; s < count; s++)
            started[s] = pthread_create(&th[s], NULL, job_run, &jobs[s]) == 0;
        job_run(&jobs[0]);
        for (int s = 1; s < count; s++) {
            if (started[s])
                pthread_join(th[s], NULL);
            else
                job_run(&jobs[s]); /* no thread: run it here, same result */
        }
    }
    dist_share(t->W, slot_io, &share);
}

/* beta at an episode and update: --entropy-decay (linear to 0 over
 * episodes), else the schedule over the updates, as the authors' code
 * offers them (constant until ent_start, then linear to ent_min over
 * ent_steps, exponential with rate ent_rate per ent_steps, or a step to
 * ent_min; never below ent_min once decaying). */
static double beta_at(const PlacetoTrainConfig *cfg, int64_t episode, int64_t update)
{
    if (cfg->entropy_decay > 0) {
        double f = 1.0 - (double)episode / (double)cfg->entropy_decay;
        return cfg->entropy * (f > 0 ? f : 0);
    }
    if (cfg->ent_schedule == PLACETO_ENT_CONSTANT || update < cfg->ent_start)
        return cfg->entropy;
    double g = (double)(update - cfg->ent_start), b = cfg->ent_min;
    if (cfg->ent_schedule == PLACETO_ENT_LINEAR) {
        double f = cfg->ent_steps > 0 ? fmin(g, (double)cfg->ent_steps) / (double)cfg->ent_steps : 1;
        b = (cfg->entropy - cfg->ent_min) * (1 - f) + cfg->ent_min;
    } else if (cfg->ent_schedule == PLACETO_ENT_EXPONENTIAL) {
        b = cfg->entropy * pow(cfg->ent_rate, g / (double)(cfg->ent_steps > 0 ? cfg->ent_steps : 1));
    }
    return b > cfg->ent_min ? b : cfg->ent_min;
}

/* The learning rate of an update: linear from lr to lr_final over
 * lr_decay_steps updates (the authors' "linear" decay), else constant. */
static double lr_at(const PlacetoTrainConfig *cfg, int64_t update)
{
    if (cfg->lr_decay_steps <= 0)
        return cfg->lr;
    double f = fmin((double)update, (double)cfg->lr_decay_steps) / (double)cfg->lr_decay_steps;
    return cfg->lr + (cfg->lr_final - cfg->lr) * f;
}

/* Worker s's own fixed random start on graph gi (worker_starts): drawn once
 * with seed s, as each of the authors' workers draws its own. */
static const int *worker_start(PlacetoTrainer *t, Slot *sl, int s, int gi)
{
    if (!sl->start)
        sl->start = xnew_array((size_t)t->n_graphs, sizeof *sl->start);
    if (!sl->start[gi]) {
        int n = t->graphs[gi].gr->n_groups, nd = t->c->n_devices;
        Rng r;
        rng_seed(&r, (uint64_t)s);
        sl->start[gi] = xnew_array((size_t)n, sizeof *sl->start[gi]);
        for (int k = 0; k < n; k++)
            sl->start[gi][k] = (int)rng_below(&r, (uint64_t)nd);
    }
    return sl->start[gi];
}

/* Adds an episode's returns to the baseline window (oldest dropped) and
 * computes its advantages R_t - b_t, b_t the mean return at step t over the
 * window's episodes that have a step t (this one included). */
static void baseline(TrainState *ts, Slot *sl)
{
    double *reuse = NULL; /* the oldest episode's array, once the window is full */
    if (ts->n_base == TRAIN_BASELINE_WINDOW) {
        reuse = ts->base_ret[0];
        memmove(ts->base_ret, ts->base_ret + 1, (TRAIN_BASELINE_WINDOW - 1) * sizeof ts->base_ret[0]);
        memmove(ts->base_len, ts->base_len + 1, (TRAIN_BASELINE_WINDOW - 1) * sizeof ts->base_len[0]);
        ts->n_base--;
    }
    ts->base_ret[ts->n_base] = xrealloc_array(reuse, (size_t)(sl->len > 0 ? sl->len : 1), sizeof *ts->base_ret[0]);
    memcpy(ts->base_ret[ts->n_base], sl->ret, (size_t)sl->len * sizeof *sl->ret);
    ts->base_len[ts->n_base] = sl->len;
    ts->n_base++;
    for (int k = 0; k < sl->len; k++) {
        double s = 0;
        int m = 0;
        for (int q = 0; q < ts->n_base; q++)
            if (k < ts->base_len[q]) {
                s += ts->base_ret[q][k];
                m++;
            }
        sl->adv[k] = sl->ret[k] - s / m;
    }
}

/* Scales an episode's advantages to unit standard deviation (option). */
static void normalize(Slot *sl)
{
    double ss = 0;
    for (int k = 0; k < sl->len; k++)
        ss += sl->adv[k] * sl->adv[k];
    double sd = sl->len > 0 ? sqrt(ss / sl->len) : 0;
    if (sd > 0)
        for (int k = 0; k < sl->len; k++)
            sl->adv[k] /= sd;
}

int64_t placeto_train_run(PlacetoTrainer *t, int64_t n_episodes, TrainCallback cb, void *ud, volatile int *stop)
{
    TrainState *ts = t->ts;
    int64_t done = 0;
    if (t->cfg.keep_best && !ts->kept_w) /* the weights training starts from: the first candidate */
        evaluate_and_keep(t);
    while (done < n_episodes && !dist_any(stop && *stop)) {
        int64_t before = ts->episodes;
        int T = t->W;
        for (int s = 0; s < T; s++) {
            Slot *sl = &t->slots[s];
            sl->gi = train_state_draw_graph(ts, t->n_graphs);
            sl->seed = rng_next(&ts->rng);
            sl->beta = beta_at(&t->cfg, ts->episodes + s, ts->adam.step + (t->cfg.sum_gradients ? 0 : s));
            if (s >= t->lo && s < t->hi)
                slot_episode(t, sl, sl->gi);
            sl->init = NULL;
            if (t->cfg.worker_starts && t->cfg.env.init == EPISODE_INIT_RANDOM_FIXED) {
                sl->init = worker_start(t, sl, s, sl->gi);
                if (sl->eps[sl->gi])
                    sl->eps[sl->gi]->cfg.init = EPISODE_INIT_GIVEN;
            }
            if (t->cfg.env.init == EPISODE_INIT_GIVEN) {
                const Graph *g = t->graphs[sl->gi].g;
                TrainBest *b = train_best_for(ts, g->name, g->checksum, t->graphs[sl->gi].gr->n_groups);
                if (isfinite(b->score))
                    sl->init = b->group_device;
            }
        }
        run_phase(t, 0);
        for (int s = 0; s < T; s++) {
            baseline(ts, &t->slots[s]);
            if (t->cfg.normalize_adv)
                normalize(&t->slots[s]);
        }
        run_phase(t, 1);
        double norm = 0;
        if (t->cfg.sum_gradients) { /* the round's workers: one step of their summed gradient */
            float *g = t->pol->p.g;
            memcpy(g, t->slots[0].grad, t->pol->p.n * sizeof *g);
            for (int s = 1; s < T; s++)
                for (size_t j = 0; j < t->pol->p.n; j++)
                    g[j] += t->slots[s].grad[j];
            norm = nn_clip_grad(g, t->pol->p.n, t->cfg.clip);
            ts->adam.lr = lr_at(&t->cfg, ts->adam.step);
            nn_adam_step(&ts->adam, &t->pol->p);
        }
        for (int s = 0; s < T; s++) {
            Slot *sl = &t->slots[s];
            int G = t->graphs[sl->gi].gr->n_groups;
            if (!t->cfg.sum_gradients) {
                memcpy(t->pol->p.g, sl->grad, t->pol->p.n * sizeof *sl->grad);
                norm = nn_clip_grad(t->pol->p.g, t->pol->p.n, t->cfg.clip);
                ts->adam.lr = lr_at(&t->cfg, ts->adam.step);
                nn_adam_step(&ts->adam, &t->pol->p);
            }
            const Graph *g = t->graphs[sl->gi].g;
            TrainBest *b = train_best_for(ts, g->name, g->checksum, G);
            train_best_offer(b, sl->best_score, sl->best_runtime_us, sl->best_device, ts->simulations + sl->best_at);
            ts->simulations += sl->simulations;
            ts->episodes++;
            ts->entropy = sl->beta;
            done++;
            if (cb) {
                TrainReport r;
                r.episode = ts->episodes;
                r.graph = sl->gi;
                r.runtime_us = sl->best_runtime_us;
                r.final_runtime_us = sl->runtime_us;
                r.ret = sl->total_reward;
                r.loss = sl->loss;
                r.grad_norm = norm;
                r.best_runtime_us = b->runtime_us;
                r.simulations = ts->simulations;
                r.entropy = sl->entropy;
                r.beta = sl->beta;
                cb(&r, ud);
            }
        }
        /* an evaluation point: a multiple of eval_every episodes passed */
        if (t->cfg.keep_best && ts->episodes / t->cfg.eval_every != before / t->cfg.eval_every)
            evaluate_and_keep(t);
    }
    return done;
}

int placeto_train_seed_from_method(TrainState *ts, const PlaceMethod *m, const Problem *problems, int n,
                           const PlacetoTrainConfig *cfg, Err *e)
{
    for (int i = 0; i < n; i++) {
        const Problem *p = &problems[i];
        PlaceRun run;
        if (!m) {
            PlaceCtx ctx = {.g = p->g, .gr = p->gr, .c = p->c, .seed = cfg->seed};
            int *gd = xnew_array((size_t)p->gr->n_groups, sizeof *gd);
            double score;
            const char *name;
            place_best_heuristic(&ctx, gd, &score, &name);
            place_run_groups(p, name, gd, NAN, &run);
            free(gd);
        } else if (place_run(p, m, cfg->seed, 0, &run, e) != 0) {
            err_prefix(e, p->g->path);
            return -1;
        }
        TrainBest *b = train_best_for(ts, p->g->name, p->g->checksum, p->gr->n_groups);
        double score = episode_score(&cfg->env, p->c, sim_run(p->sim, run.op_device));
        train_best_offer(b, score, run.runtime_us, run.group_device, 0);
        place_run_free(&run);
    }
    return 0;
}
