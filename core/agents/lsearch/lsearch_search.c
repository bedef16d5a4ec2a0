/* lsearch_search: the learned local search's network, features and search
 * loop (lsearch.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "critpath.h"
#include "lsearch.h"
#include "place.h"
#include "sample.h"
#include "sim.h"

/* The search's state on one graph. */
typedef struct Ls {
    LsNet *net;
    const LsScorer *sc; /* another scorer (NULL: net's MLP) */
    const Graph *g;
    const Grouping *gr;
    const Cluster *c;
    PlaceEval *pe;
    int n, nd, M;       /* groups, devices, moves (n (nd - 1)) */
    int *cur, *best;
    double cur_score, best_score, best_runtime;
    double *cost;       /* [k * nd + d]: group k's time on device d */
    double comm_per_byte;
    /* the current placement's */
    double *on;         /* [k * nd + d]: bytes between k and its neighbours on d */
    double *nb_bytes;   /* per group: bytes to and from its neighbours */
    double *crit, *late, *span;
    uint8_t *op_crit;
    int *path;
    /* per move j = k * (nd - 1) + e, to device e < cur[k] ? e : e + 1 */
    float *phi;         /* [j * LS_FEATURES + f] */
    float *hid;         /* [j * hidden + h] */
    double *score, *p;
    double *ex, ex_hi;  /* exp(score - ex_hi) per move, kept while the scores and ex_hi stay */
    int ex_ok;
    double hi;          /* the largest untried score, while hi_ok */
    int hi_ok;
    int keep_p;         /* learning: the probabilities of every draw in p */
    uint8_t *tried;     /* in this pass */
    int untried, moved; /* moves untried in this pass; whether one was kept */
    Rng rng;
} Ls;

static int move_device(const Ls *s, int j)
{
    int k = j / (s->nd - 1), e = j % (s->nd - 1);
    return e < s->cur[k] ? e : e + 1;
}

/* Every move untried: a new pass. */
static void new_pass(Ls *s)
{
    memset(s->tried, 0, (size_t)s->M);
    s->untried = s->M;
    s->hi_ok = 0;
    s->moved = 0;
}

/* The features of every move and their scores at the current placement,
 * from its full simulation (the same placement, not another one). */
static void refresh(Ls *s)
{
    s->ex_ok = s->hi_ok = 0;
    if (s->sc) {
        s->sc->score(s->sc->ctx, s->cur, s->score);
        return;
    }
    const SimResult *r = place_eval_full(s->pe, s->cur);
    const Grouping *gr = s->gr;
    int nd = s->nd, H = s->net ? s->net->hidden : 0, n_path;
    double m = r->makespan_us > 0 ? r->makespan_us : 1;
    sim_critical_path(s->g, s->c, r, s->path, &n_path, s->op_crit, NULL);
    for (int k = 0; k < s->n; k++) {
        int n_crit = 0;
        double lo = INFINITY, hi = 0;
        for (int j = gr->member_off[k]; j < gr->member_off[k + 1]; j++) {
            int i = gr->members[j];
            n_crit += s->op_crit[i];
            lo = r->start_us[i] < lo ? r->start_us[i] : lo;
            hi = r->end_us[i] > hi ? r->end_us[i] : hi;
        }
        int size = gr->member_off[k + 1] - gr->member_off[k];
        s->crit[k] = size ? (double)n_crit / size : 0;
        s->late[k] = size ? hi / m : 0;
        s->span[k] = size ? (hi - lo) / m : 0;
    }
    memset(s->on, 0, (size_t)s->n * (size_t)nd * sizeof *s->on);
    for (int k = 0; k < s->n; k++)
        for (int j = gr->succ_off[k]; j < gr->succ_off[k + 1]; j++) {
            int b = gr->succ[j];
            double w = (double)gr->succ_bytes[j];
            s->on[k * nd + s->cur[b]] += w;
            s->on[b * nd + s->cur[k]] += w;
        }
    for (int j = 0; j < s->M; j++) {
        int k = j / (nd - 1), d = move_device(s, j), o = s->cur[k];
        float *f = &s->phi[(size_t)j * LS_FEATURES];
        double cm = s->comm_per_byte / m;
        double mem_d = (double)s->c->devices[d].memory_bytes, mem_o = (double)s->c->devices[o].memory_bytes;
        double after = ((double)r->peak_memory_bytes[d] + (double)gr->bytes[k]) / (mem_d > 0 ? mem_d : 1);
        double now = (double)r->peak_memory_bytes[o] / (mem_o > 0 ? mem_o : 1);
        f[0] = 1;
        f[1] = (float)s->crit[k];
        f[2] = (float)s->late[k];
        f[3] = (float)s->span[k];
        f[4] = scorer_slog(s->cost[k * nd + o] / m * 10);
        f[5] = scorer_slog((s->cost[k * nd + d] - s->cost[k * nd + o]) / m * 10);
        f[6] = scorer_slog((s->on[k * nd + d] - s->on[k * nd + o]) * cm * 10);
        f[7] = scorer_slog(s->nb_bytes[k] * cm * 10);
        f[8] = (float)(r->busy_us[o] / m);
        f[9] = (float)(r->busy_us[d] / m);
        f[10] = (float)(after < 2 ? after : 2);
        f[11] = (float)(now < 2 ? now : 2);
        s->score[j] = s->net ? scorer_score(s->net, f, &s->hid[(size_t)j * (size_t)H]) : 0;
    }
}

/* Scores again with changed weights (the features stay). */
static void rescore(Ls *s)
{
    s->ex_ok = s->hi_ok = 0;
    if (s->sc) {
        s->sc->rescore(s->sc->ctx, s->score);
        return;
    }
    int H = s->net->hidden;
    for (int j = 0; j < s->M; j++)
        s->score[j] = scorer_score(s->net, &s->phi[(size_t)j * LS_FEATURES], &s->hid[(size_t)j * (size_t)H]);
}

/* The softmax of the untried moves' scores into s->p (0 for the tried),
 * and one move drawn from it. The exponentials are computed again only
 * when the scores or their largest untried one changed (the same numbers:
 * one exp per move and pass, not per draw). Without learning nothing reads
 * s->p: the draw takes each probability as it walks to the move drawn (the
 * same quotients and the same running sum, so the same move) and stops
 * there, and the largest untried score is kept between draws (a move tried
 * below it leaves it), so a draw costs one pass and part of another instead
 * of five. */
static int draw(Ls *s)
{
    double hi = s->hi, sum = 0;
    if (!s->hi_ok) {
        hi = -INFINITY;
        for (int j = 0; j < s->M; j++)
            if (!s->tried[j] && s->score[j] > hi)
                hi = s->score[j];
        s->hi = hi;
        s->hi_ok = !s->keep_p;
    }
    if (!s->ex_ok || !(hi == s->ex_hi)) {
        for (int j = 0; j < s->M; j++)
            s->ex[j] = exp(s->score[j] - hi);
        s->ex_hi = hi;
        s->ex_ok = 1;
    }
    const double *ex = s->ex;
    const uint8_t *tried = s->tried;
    if (!s->keep_p) {
        for (int j = 0; j < s->M; j++)
            sum += tried[j] ? 0 : ex[j];
        double u = rng_uniform(&s->rng), acc = 0;
        for (int j = 0; j < s->M; j++) {
            acc += tried[j] ? 0 : ex[j] / sum;
            if (u < acc)
                return j;
        }
        for (int j = s->M - 1; j > 0; j--) /* as sample_draw_d: rounding left u past the sum */
            if (!tried[j] && ex[j] / sum > 0)
                return j;
        return 0;
    }
    for (int j = 0; j < s->M; j++) {
        s->p[j] = tried[j] ? 0 : ex[j];
        sum += s->p[j];
    }
    for (int j = 0; j < s->M; j++)
        s->p[j] /= sum;
    return sample_draw_d(s->p, s->M, rng_uniform(&s->rng));
}

/* Move j is tried in this pass: the largest untried score stays unless j
 * held it. */
static void set_tried(Ls *s, int j)
{
    s->tried[j] = 1;
    s->untried--;
    if (s->score[j] >= s->hi)
        s->hi_ok = 0;
}

void ls_learn_update_params(NnParams *p, LsLearn *l)
{
    l->last_norm = nn_clip_grad(p->g, p->n, l->clip);
    nn_adam_step(l->adam, p);
    nn_params_zero_grad(p);
    l->pending = 0;
    l->updates++;
}

void ls_learn_update(LsNet *net, LsLearn *l) { ls_learn_update_params(&net->p, l); }

/* After each proposal with reward r: the gradient, and an update every
 * learn->every proposals. Returns 1 when the weights changed. */
static int learn_step(Ls *s, LsLearn *l, int chosen, double r)
{
    double sd = sqrt(l->var) + 1e-6;
    if (s->sc)
        s->sc->grad(s->sc->ctx, s->p, s->M, chosen, (r - l->mean) / sd, 1.0 / l->every);
    else
        scorer_policy_grad(s->net, s->phi, s->hid, s->p, s->M, chosen, (r - l->mean) / sd, 1.0 / l->every);
    double dlt = r - l->mean;
    l->mean += 0.01 * dlt;
    l->var = 0.99 * (l->var + 0.01 * dlt * dlt);
    if (++l->pending < l->every)
        return 0;
    if (s->sc) {
        s->sc->flush(s->sc->ctx);
        ls_learn_update_params(s->sc->params, l);
    } else {
        ls_learn_update(s->net, l);
    }
    return 1;
}

static void note(Ls *s, double score, LsResult *res)
{
    if (score < s->best_score) {
        s->best_score = score;
        memcpy(s->best, s->cur, (size_t)s->n * sizeof *s->cur);
        res->found_after = res->used;
    }
}

static int search(LsNet *net, const LsScorer *sc, const Graph *g, const Grouping *gr, const Cluster *c,
                  int64_t budget, uint64_t seed, const int *start, double start_score, int64_t start_used,
                  int *best_gd, LsResult *res, LsLearn *learn, Err *e)
{
    int64_t moves = (int64_t)gr->n_groups * (c->n_devices - 1);
    if (moves > LS_MAX_MOVES)
        return err_set(e, "the learned search scores at most %d moves (groups x (devices - 1)); %s has %d groups on "
                          "%d devices: %lld", LS_MAX_MOVES, g->name, gr->n_groups, c->n_devices, (long long)moves);
    Ls s = {0};
    s.net = sc ? NULL : net;
    s.sc = sc;
    s.g = g;
    s.gr = gr;
    s.c = c;
    s.n = gr->n_groups;
    s.nd = c->n_devices;
    s.M = s.n * (s.nd - 1);
    s.keep_p = learn && (s.net || sc);
    s.cur = XNEW(int, s.n);
    s.best = XNEW(int, s.n);
    memset(res, 0, sizeof *res);
    PlaceCtx ctx = {.g = g, .gr = gr, .c = c, .seed = seed, .budget = budget > 0 ? budget : 1};
    if (start) {
        memcpy(s.cur, start, (size_t)s.n * sizeof *s.cur);
        s.cur_score = start_score;
        res->used = start_used;
        res->start = "given";
    } else {
        res->used = place_search_start(&ctx, s.cur, &s.cur_score, &res->start);
    }
    res->start_score = s.cur_score;
    s.best_score = INFINITY;
    note(&s, s.cur_score, res);
    s.pe = place_eval_new(g, gr, c);
    if (s.M == 0 || res->used >= budget)
        goto done;
    rng_seed(&s.rng, seed);
    int nd = s.nd, H = s.net ? s.net->hidden : 0;
    s.cost = XMALLOC(double, (size_t)s.n * (size_t)nd);
    for (int k = 0; k < s.n; k++)
        for (int d = 0; d < nd; d++)
            s.cost[k * nd + d] = place_group_cost(&ctx, k, d);
    s.comm_per_byte = c->bandwidth_bytes_per_us > 0 ? 1 / c->bandwidth_bytes_per_us : 0;
    s.on = XMALLOC(double, (size_t)s.n * (size_t)nd);
    s.nb_bytes = XNEW(double, s.n);
    for (int k = 0; k < s.n; k++)
        for (int j = gr->succ_off[k]; j < gr->succ_off[k + 1]; j++) {
            s.nb_bytes[k] += (double)gr->succ_bytes[j];
            s.nb_bytes[gr->succ[j]] += (double)gr->succ_bytes[j];
        }
    s.crit = XMALLOC(double, s.n);
    s.late = XMALLOC(double, s.n);
    s.span = XMALLOC(double, s.n);
    s.op_crit = XMALLOC(uint8_t, g->n_nodes);
    s.path = XMALLOC(int, g->n_nodes);
    s.phi = XMALLOC(float, (size_t)s.M * LS_FEATURES);
    s.hid = XMALLOC(float, (size_t)s.M * (size_t)(H ? H : 1));
    s.score = XMALLOC(double, s.M);
    s.p = XMALLOC(double, s.M);
    s.ex = XMALLOC(double, s.M);
    s.tried = XMALLOC(uint8_t, s.M);
    refresh(&s);
    new_pass(&s);
    while (res->used < budget) {
        if (s.untried == 0 && s.moved) { /* a pass that kept a move: another */
            new_pass(&s);
            continue;
        }
        if (s.untried == 0) { /* a local optimum: kick the best placement */
            memcpy(s.cur, s.best, (size_t)s.n * sizeof *s.cur);
            place_kick(s.cur, s.n, nd, &s.rng);
            s.cur_score = place_eval(s.pe, s.cur);
            res->used++;
            res->kicks++;
            note(&s, s.cur_score, res);
            refresh(&s);
            new_pass(&s);
            continue;
        }
        int j = draw(&s), k = j / (nd - 1), old = s.cur[k];
        s.cur[k] = move_device(&s, j);
        /* exact below the current score, which is all a move is kept for */
        double score = place_eval_cut(s.pe, s.cur, s.cur_score);
        res->used++;
        int better = score < s.cur_score;
        if (learn && (s.net || sc) &&
            learn_step(&s, learn, j, better ? (s.cur_score - score) / res->start_score * 100 : 0))
            if (!better)
                rescore(&s);
        set_tried(&s, j); /* kept or not, not again in this pass (as ils's scan) */
        for (int x = k * (nd - 1); better && x < (k + 1) * (nd - 1); x++)
            if (!s.tried[x]) /* k's moves are relative to its device: none of them again in this pass */
                set_tried(&s, x);
        if (better) {
            s.cur_score = score;
            s.moved = 1;
            res->accepted++;
            note(&s, score, res);
            refresh(&s);
        } else {
            s.cur[k] = old;
        }
    }
done:
    memcpy(best_gd, s.best, (size_t)s.n * sizeof *s.best);
    res->best_score = s.best_score;
    res->best_runtime_us = place_eval_full(s.pe, s.best)->makespan_us;
    place_eval_free(s.pe);
    free(s.cur);
    free(s.best);
    free(s.cost);
    free(s.on);
    free(s.nb_bytes);
    free(s.crit);
    free(s.late);
    free(s.span);
    free(s.op_crit);
    free(s.path);
    free(s.phi);
    free(s.hid);
    free(s.score);
    free(s.p);
    free(s.ex);
    free(s.tried);
    return 0;
}

int ls_search(LsNet *net, const Graph *g, const Grouping *gr, const Cluster *c, int64_t budget, uint64_t seed,
              const int *start, double start_score, int64_t start_used, int *best_gd, LsResult *res, LsLearn *learn,
              Err *e)
{
    return search(net, NULL, g, gr, c, budget, seed, start, start_score, start_used, best_gd, res, learn, e);
}

int ls_search_with(const LsScorer *sc, const Graph *g, const Grouping *gr, const Cluster *c, int64_t budget,
                   uint64_t seed, const int *start, double start_score, int64_t start_used, int *best_gd,
                   LsResult *res, LsLearn *learn, Err *e)
{
    return search(NULL, sc, g, gr, c, budget, seed, start, start_score, start_used, best_gd, res, learn, e);
}
