/* lsearch_agent: the learned local search as a registered agent (agent.h;
 * the search itself: lsearch.h). Its rows of `place` and `compare` are
 * "lsearch" (a search of --budget placements from the best heuristic,
 * never worse than it) and, for a graph it trained on, "lsearch-trained";
 * `train --agent lsearch` runs one search per episode on a drawn training
 * graph, learning as it goes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "lsearch.h"
#include "policy_file.h"

#define LS_DEFAULT_PLACE_BUDGET 1000 /* place/compare give their --budget; this when none */

/* ---- the policy file: a scorer's (scorer.h), {"agent": "lsearch", ...} ---- */

typedef ScorerPolicy LsPolicy;

static int read_arch(const JDoc *d, void *arch, Err *e) { return scorer_read_arch(d, arch, LS_FEATURES, e); }
static void *create_arch(const void *arch, const OpVocab *v, Err *e)
{
    (void)v;
    return scorer_policy_new("lsearch", arch, e);
}

/* The training state's one baseline row: the reward's moving mean and variance. */
static void fresh_state(TrainState *ts)
{
    double stats[2] = {0, 1};
    for (int i = 0; i < 2; i++)
        train_state_set_baseline(ts, i, 2, stats[i]);
}
static int check_state(const JDoc *d, TrainState *ts, Err *e)
{
    if (ts->n_base == 0) {
        fresh_state(ts);
        return 0;
    }
    if (ts->n_base != 1 || ts->base_len[0] != 2 || !(ts->base_ret[0][1] >= 0))
        return jdoc_err(d, e, "training.baseline", "expected [[mean, variance]], the rewards' moving statistics");
    return 0;
}
static const PolicyFileKind file_kind = {"lsearch", read_arch, scorer_arch_devices, scorer_arch_types,
                                         scorer_arch_params, create_arch, scorer_policy_params, scorer_policy_free,
                                         0.01, 0, fresh_state, check_state};

static void *load(const AgentFile *f, TrainState *ts, Err *e) { return policy_file_load_doc(&file_kind, &f->doc, ts, e); }
/* ---- placing ---- */

static int runs(const AgentKind *k, const Problem *p, const char *path, const void *pol, const TrainState *ts,
                const AgentPlaceOpts *o, PlaceRun rows[2], const char **start_name, Err *e)
{
    const LsPolicy *lp = pol;
    int G = p->gr->n_groups, n = agent_trained_row(ts, p, k->place.trained_row, &rows[0]);
    int *gd = xnew_array((size_t)G, sizeof *gd);
    LsResult res;
    double t0 = util_now();
    if (ls_search(lp->net, p->g, p->gr, p->c, o->budget > 0 ? o->budget : LS_DEFAULT_PLACE_BUDGET, o->seed, NULL, 0,
                  0, gd, &res, NULL, e) != 0) {
        err_prefix(e, path);
        for (int r = 0; r < n; r++)
            place_run_free(&rows[r]);
        free(gd);
        return -1;
    }
    place_run_groups(p, k->name, gd, util_now() - t0, &rows[n]);
    rows[n++].placements = res.used;
    if (start_name)
        *start_name = res.start;
    free(gd);
    return n;
}

/* ---- training: one learning search per episode ---- */

typedef struct LsCfg {
    ScorerCfg s;
    long budget, every;
} LsCfg;

static const AgentOpt train_opts[] = {
    SCORER_TRAIN_OPTS,
    {"search-budget", 0, "K", "placements each training search simulates, its start's heuristics included, 100 or more (default 500)"},
    {"update-every", 0, "K", "moves tried per Adam step, 1-4096 (default 32)"},
    {0},
};
static const char *const shape[] = {"hidden", NULL};

static int configure(const AgentArgs *a, uint64_t seed, void *cfg, Err *e)
{
    LsCfg *c = cfg;
    if (scorer_configure(a, seed, &c->s, e) || agent_arg_int(a, "search-budget", 100, 1L << 30, 500, &c->budget, e) ||
        agent_arg_int(a, "update-every", 1, 4096, 32, &c->every, e))
        return -1;
    return 0;
}
static void state_init(TrainState *ts, const void *cfg)
{
    const LsCfg *c = cfg;
    train_state_init(ts, c->s.lr, 0, c->s.seed);
    fresh_state(ts);
}
static void *create(const void *cfg, const Problem *pb, int n, const Cluster *c, Err *e)
{
    (void)pb, (void)n;
    return scorer_policy_create("lsearch", LS_FEATURES, &((const LsCfg *)cfg)->s, c, e);
}

/* What the trainer keeps of a training graph once it was first drawn. */
typedef struct TrainerGraph {
    int *start;         /* the best heuristic's placement (NULL until the graph is first drawn) */
    double start_score;
    int64_t start_used; /* the placements the heuristics simulated */
    Sim *sim;           /* scores the episodes' best placements */
} TrainerGraph;

typedef struct Trainer {
    LsPolicy *pol;
    TrainState *ts;
    LsCfg cfg;
    const TrainGraph *tg;
    int n;
    const Cluster *c;
    TrainerGraph *g;  /* per graph */
    int *op;          /* per op of the largest graph: the workspace of an episode's best */
    EpisodeConfig env; /* the training state's scores (train_best_verify's) */
} Trainer;

static void *trainer_new(void *pol, TrainState *ts, const void *cfg, const TrainGraph *tg, int n, const Cluster *c,
                         Err *e)
{
    for (int i = 0; i < n; i++)
        if ((int64_t)tg[i].gr->n_groups * (c->n_devices - 1) > LS_MAX_MOVES) {
            err_set(e, "%s: the learned search scores at most %d moves (groups x (devices - 1)); it has %d groups on "
                       "%d devices", tg[i].g->name, LS_MAX_MOVES, tg[i].gr->n_groups, c->n_devices);
            return NULL;
        }
    if (ts->n_base != 1 || ts->base_len[0] != 2 || !(ts->base_ret[0][1] >= 0) || !isfinite(ts->base_ret[0][0])) {
        /* the policy file's is checked on loading (check_state); this is the checkpoint's, which replaced it */
        err_set(e, "training.baseline (in the checkpoint beside it): expected [[mean, variance]], the rewards' "
                   "moving statistics, the variance at least 0");
        return NULL;
    }
    ((LsPolicy *)pol)->n_devices = c->n_devices; /* its best placements are this cluster's */
    Trainer *t = xcalloc(1, sizeof *t);
    *t = (Trainer){pol, ts, *(const LsCfg *)cfg, tg, n, c, NULL, NULL, {0}};
    t->ts->adam.lr = t->cfg.s.lr;
    t->g = xnew_array((size_t)n, sizeof *t->g);
    int max_ops = 1;
    for (int i = 0; i < n; i++)
        max_ops = tg[i].g->n_nodes > max_ops ? tg[i].g->n_nodes : max_ops;
    t->op = xnew_array((size_t)max_ops, sizeof *t->op);
    episode_config_default(&t->env);
    train_best_verify(ts, &t->env, tg, n, c);
    return t;
}

static int64_t run(void *trainer, int64_t n_eps, TrainCallback cb, void *ud, volatile int *stop)
{
    Trainer *t = trainer;
    TrainState *ts = t->ts;
    int64_t done = 0;
    for (; done < n_eps && !(stop && *stop); done++) {
        int gi = t->n > 1 ? (int)(rng_next(&ts->rng) % (uint64_t)t->n) : 0;
        uint64_t seed = rng_next(&ts->rng);
        const TrainGraph *tg = &t->tg[gi];
        int G = tg->gr->n_groups;
        int64_t sims = 0;
        TrainBest *b = train_best_for(ts, tg->g->name, tg->g->checksum, G);
        TrainerGraph *tgs = &t->g[gi];
        if (!tgs->start) { /* the heuristics once per graph (seeded by its index, so a resumed run has the same) */
            tgs->start = xnew_array((size_t)G, sizeof *tgs->start);
            tgs->sim = sim_new(tg->g, t->c);
            const char *name;
            PlaceCtx ctx = {tg->g, tg->gr, t->c, t->cfg.s.seed * 1000003u + (uint64_t)gi, 0, NULL};
            tgs->start_used = place_best_heuristic(&ctx, tgs->start, &tgs->start_score, &name);
            if (!isfinite(b->runtime_us)) /* counted the first time the training ever draws the graph */
                sims += tgs->start_used;
        }
        LsLearn learn = {&ts->adam, t->cfg.s.clip, (int)t->cfg.every, train_state_baseline(ts, 0),
                         train_state_baseline(ts, 1), 0, 0, 0};
        int *gd = xnew_array((size_t)G, sizeof *gd);
        LsResult res;
        nn_params_zero_grad(&t->pol->net->p);
        ls_search(t->pol->net, tg->g, tg->gr, t->c, t->cfg.budget, seed, tgs->start, tgs->start_score,
                  tgs->start_used, gd, &res, &learn, NULL); /* cannot fail: trainer_new checked the graphs */
        if (learn.pending > 0) /* the episode's last proposals: one more step */
            ls_learn_update(t->pol->net, &learn);
        train_state_set_baseline(ts, 0, 2, learn.mean);
        train_state_set_baseline(ts, 1, 2, learn.var);
        sims += res.used - tgs->start_used;
        ts->simulations += sims;
        /* the episode's best, scored as the training state keeps them (the same placement again) */
        group_expand(tg->gr, gd, t->op);
        double score = episode_score(&t->env, t->c, sim_run(tgs->sim, t->op));
        train_best_offer(b, score, res.best_runtime_us, gd, ts->simulations - (res.used - res.found_after));
        ts->episodes++;
        if (cb) {
            double gain = res.start_score > 0 ? (res.start_score - res.best_score) / res.start_score : 0;
            TrainReport rep = {ts->episodes, gi, res.best_runtime_us, res.best_runtime_us, gain, 0, learn.last_norm,
                               b->runtime_us, ts->simulations, NAN, 0};
            cb(&rep, ud);
        }
        free(gd);
    }
    return done;
}

static void trainer_free(void *trainer)
{
    Trainer *t = trainer;
    for (int i = 0; i < t->n; i++) {
        free(t->g[i].start);
        sim_free(t->g[i].sim);
    }
    free(t->g);
    free(t->op);
    free(t);
}

const AgentKind agent_lsearch = {
    "lsearch", "an lsearch", "the learned local search: iterated local search whose moves a trained scorer orders",
    {load, scorer_policy_save, scorer_policy_free, scorer_policy_info, scorer_policy_params, scorer_policy_untrained},
    {runs, "lsearch-trained", 0, NULL},
    {"episode", POLICY_MAX_GROUPS, train_opts, shape, sizeof(LsCfg), configure, state_init, create, NULL, 0,
     trainer_new, run, trainer_free, NULL, NULL},
    NULL,
};
