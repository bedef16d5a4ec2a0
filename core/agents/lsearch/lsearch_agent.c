/* lsearch_agent: the learned local search as a registered agent (agent.h;
 * the search itself: lsearch.h). Its rows of `place` and `compare` are
 * "lsearch" (a search of --budget placements from the best heuristic,
 * never worse than it) and, for a graph it trained on, "lsearch-trained";
 * `train --agent lsearch` runs one search per episode on a drawn training
 * graph, learning as it goes. Its moves are scored by the MLP of twelve
 * move features (scorer.h) or, with `--scorer placeto`, by Placeto's
 * network (lsearch_gnn.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "lsearch.h"
#include "policy_file.h"

#define LS_DEFAULT_PLACE_BUDGET 1000 /* place/compare give their --budget; this when none */

/* ---- the policy file: {"agent": "lsearch", ...}: the MLP's a scorer's
 * (scorer.h), Placeto's network's with "architecture": {"scorer":
 * "placeto", "n_devices", "n_features", "d", "rounds", "extended"} ---- */

#define LS_GNN_LR 0.001 /* --lr's default with --scorer placeto (Placeto's) */

/* The network: one of the two. */
typedef struct LsPolicy {
    ScorerPolicy *mlp;
    Policy *gnn;
} LsPolicy;

typedef struct LsArch {
    int gnn;
    ScorerArch s;
    PolicyArch p;
} LsArch;

static LsPolicy *wrap(ScorerPolicy *mlp, Policy *gnn)
{
    if (!mlp && !gnn)
        return NULL;
    LsPolicy *p = xcalloc(1, sizeof *p);
    *p = (LsPolicy){mlp, gnn};
    return p;
}

static int read_arch(const JDoc *d, void *arch, Err *e)
{
    LsArch *a = arch;
    memset(a, 0, sizeof *a);
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(d->root, "architecture");
    const char *sc = NULL;
    if (cJSON_IsObject(o) && jget_string(d, o, "scorer", "architecture.scorer", 0, &sc, e) < 0)
        return -1;
    if (!sc || strcmp(sc, "mlp") == 0)
        return scorer_read_arch(d, &a->s, LS_FEATURES, e);
    if (strcmp(sc, "placeto") != 0)
        return jdoc_err(d, e, "architecture.scorer", "expected \"mlp\" or \"placeto\", got \"%s\"", sc);
    int64_t nd, nf, dd, r, ext = 1;
    if (jget_int(d, o, "n_devices", "architecture.n_devices", 1, 2, POLICY_MAX_DEVICES, &nd, e) < 0 ||
        jget_int(d, o, "extended", "architecture.extended", 0, 0, 1, &ext, e) < 0 ||
        jget_int(d, o, "n_features", "architecture.n_features", 1, 1, 1 << 20, &nf, e) < 0 ||
        jget_int(d, o, "d", "architecture.d", 1, 1, 1024, &dd, e) < 0 ||
        jget_int(d, o, "rounds", "architecture.rounds", 1, 0, 64, &r, e) < 0)
        return -1;
    long long want = policy_n_features((int)nd, 0, (int)ext);
    if (nf != want)
        return jdoc_err(d, e, "architecture.n_features", "expected %lld (%s), got %lld", want,
                        ext ? "8 + 2 n_devices, extended" : "5 + n_devices", (long long)nf);
    a->gnn = 1;
    policy_arch_default(&a->p, (int)nd);
    a->p.extended = (int)ext;
    a->p.n_features = (int)nf;
    a->p.d = (int)dd;
    a->p.rounds = (int)r;
    return 0;
}
static int arch_devices(const void *arch)
{
    const LsArch *a = arch;
    return a->gnn ? a->p.n_devices : scorer_arch_devices(&a->s);
}
static size_t arch_params(const void *arch)
{
    const LsArch *a = arch;
    return a->gnn ? policy_param_count(&a->p) : scorer_arch_params(&a->s);
}
static void *create_arch(const void *arch, const OpVocab *v, Err *e)
{
    (void)v;
    const LsArch *a = arch;
    return a->gnn ? wrap(NULL, policy_new(&a->p, 0, e)) : wrap(scorer_policy_new("lsearch", &a->s, e), NULL);
}
static NnParams *params(void *net)
{
    LsPolicy *p = net;
    return p->gnn ? &p->gnn->p : scorer_policy_params(p->mlp);
}
static void net_free(void *net)
{
    LsPolicy *p = net;
    if (!p)
        return;
    scorer_policy_free(p->mlp);
    policy_free(p->gnn);
    free(p);
}
static void gnn_head(FILE *f, const void *ud)
{
    const PolicyArch *a = ud;
    fprintf(f, " \"agent\": \"lsearch\",\n \"architecture\": {\"scorer\": \"placeto\", \"n_devices\": %d, "
               "\"n_features\": %d, \"d\": %d, \"rounds\": %d, \"extended\": %d},\n",
            a->n_devices, a->n_features, a->d, a->rounds, a->extended);
    OpVocab none = {0, NULL};
    policy_file_write_vocab(f, &none);
}
static int save(const void *net, const TrainState *ts, const char *path, Err *e)
{
    const LsPolicy *p = net;
    if (p->gnn)
        return policy_file_write(path, &p->gnn->p, ts, gnn_head, &p->gnn->arch, e);
    return scorer_policy_save(p->mlp, ts, path, e);
}
static void info(const void *net, AgentInfo *out)
{
    const LsPolicy *p = net;
    if (p->gnn) /* Placeto's network reads a one-hot of the devices: its own count only */
        *out = (AgentInfo){p->gnn->arch.n_devices, 0, 0, 0};
    else
        scorer_policy_info(p->mlp, out);
}
static void *untrained(const void *net, uint64_t seed, Err *e)
{
    const LsPolicy *p = net;
    if (p->gnn)
        return wrap(NULL, policy_new(&p->gnn->arch, seed, e));
    return wrap(scorer_policy_untrained(p->mlp, seed, e), NULL);
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
static const PolicyFileKind file_kind = {
    .agent = "lsearch",
    .read_arch = read_arch, .n_devices = arch_devices, .n_types = scorer_arch_types, .param_count = arch_params,
    .create = create_arch, .params = params, .free = net_free,
    .lr = 0.01, .entropy = 0,
    .fresh = fresh_state, .check_state = check_state,
};

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
    int64_t budget = o->budget > 0 ? o->budget : LS_DEFAULT_PLACE_BUDGET;
    LsGnn *gnn = lp->gnn ? ls_gnn_new(lp->gnn, p->g, p->gr, p->c, e) : NULL;
    int rc = lp->gnn && !gnn ? -1
             : gnn ? ls_search_with(ls_gnn_scorer(gnn), p->g, p->gr, p->c, budget, o->seed, NULL, 0, 0, gd, &res,
                                    NULL, e)
                   : ls_search(lp->mlp->net, p->g, p->gr, p->c, budget, o->seed, NULL, 0, 0, gd, &res, NULL, e);
    ls_gnn_free(gnn);
    if (rc != 0) {
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
    int gnn, extended; /* --scorer placeto, and its feature set */
} LsCfg;

static const AgentOpt train_opts[] = {
    SCORER_TRAIN_OPTS("0.001 with --scorer placeto"),
    {.name = "search-budget", .arg = "K", .type = AGENT_OPT_INT, .min = 100, .max = 1L << 30, .def = "500",
     .help = "placements each training search simulates, its start's heuristics included"},
    {.name = "update-every", .arg = "K", .type = AGENT_OPT_INT, .min = 1, .max = 4096, .def = "32",
     .help = "moves tried per Adam step"},
    {.name = "scorer", .arg = "S", .type = AGENT_OPT_WORD, .choices = "mlp placeto", .def = "mlp",
     .help = "mlp (12 move features) or placeto (Placeto's network)"},
    {.name = "features", .arg = "SET", .type = AGENT_OPT_WORD, .choices = "extended paper", .def = "extended",
     .help = "with --scorer placeto: extended or paper"},
    {0},
};
static const char *const shape[] = {"hidden", "scorer", "features", NULL};

static int configure(const AgentArgs *a, uint64_t seed, void *cfg, Err *e)
{
    LsCfg *c = cfg;
    if (scorer_configure(a, seed, &c->s, e) || agent_opt_int(a, "search-budget", &c->budget, e) ||
        agent_opt_int(a, "update-every", &c->every, e))
        return -1;
    const char *sc = agent_opt_word(a, "scorer", e), *fs;
    if (!sc)
        return -1;
    c->gnn = strcmp(sc, "placeto") == 0;
    if (!(fs = agent_opt_word(a, "features", e)))
        return -1;
    if (agent_arg(a, "features") && !c->gnn)
        return err_set(e, "--features applies to --scorer placeto (the MLP reads its 12 move features)");
    if (c->gnn && agent_arg(a, "hidden"))
        return err_set(e, "--hidden applies to --scorer mlp (Placeto's network is as wide as its features)");
    c->extended = strcmp(fs, "extended") == 0;
    if (c->gnn && !agent_arg(a, "lr"))
        c->s.lr = LS_GNN_LR;
    return 0;
}

/* A resumed Placeto-scored policy trains at its own default rate unless --lr says otherwise. */
static void resumed(void *net, void *cfg, const AgentArgs *a)
{
    LsCfg *c = cfg;
    c->gnn = ((LsPolicy *)net)->gnn != NULL;
    if (c->gnn && !agent_arg(a, "lr"))
        c->s.lr = LS_GNN_LR;
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
    const LsCfg *lc = cfg;
    if (!lc->gnn)
        return wrap(scorer_policy_create("lsearch", LS_FEATURES, &lc->s, c, e), NULL);
    if (c->n_devices < 2 || c->n_devices > POLICY_MAX_DEVICES) {
        err_set(e, "--scorer placeto: Placeto's network places on 2 to %d devices, not %d", POLICY_MAX_DEVICES,
                c->n_devices);
        return NULL;
    }
    PolicyArch a;
    policy_arch_for(&a, c->n_devices, 0, lc->extended);
    return wrap(NULL, policy_new(&a, lc->s.seed, e));
}

/* What the trainer keeps of a training graph once it was first drawn. */
typedef struct TrainerGraph {
    int *start;         /* the best heuristic's placement (NULL until the graph is first drawn) */
    double start_score;
    int64_t start_used; /* the placements the heuristics simulated */
    Sim *sim;           /* scores the episodes' best placements */
    LsGnn *gnn;         /* Placeto's network's scorer on this graph (--scorer placeto) */
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
    LsPolicy *lp = pol;
    if (lp->gnn && lp->gnn->arch.n_devices != c->n_devices) {
        err_set(e, "the policy's Placeto network places on %d devices (its architecture.n_devices), the training "
                   "cluster has %d", lp->gnn->arch.n_devices, c->n_devices);
        return NULL;
    }
    if (lp->mlp)
        lp->mlp->n_devices = c->n_devices; /* its best placements are this cluster's */
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
            PlaceCtx ctx = {.g = tg->g, .gr = tg->gr, .c = t->c, .seed = t->cfg.s.seed * 1000003u + (uint64_t)gi};
            tgs->start_used = place_best_heuristic(&ctx, tgs->start, &tgs->start_score, &name);
            if (!isfinite(b->runtime_us)) /* counted the first time the training ever draws the graph */
                sims += tgs->start_used;
        }
        LsLearn learn = {&ts->adam, t->cfg.s.clip, (int)t->cfg.every, train_state_baseline(ts, 0),
                         train_state_baseline(ts, 1), 0, 0, 0};
        int *gd = xnew_array((size_t)G, sizeof *gd);
        LsResult res;
        NnParams *np = params(t->pol);
        nn_params_zero_grad(np);
        if (t->pol->gnn) {
            if (!tgs->gnn) /* cannot fail: trainer_new checked the device count, train the group count */
                tgs->gnn = ls_gnn_new(t->pol->gnn, tg->g, tg->gr, t->c, NULL);
            const LsScorer *sc = ls_gnn_scorer(tgs->gnn);
            ls_search_with(sc, tg->g, tg->gr, t->c, t->cfg.budget, seed, tgs->start, tgs->start_score,
                           tgs->start_used, gd, &res, &learn, NULL);
            sc->flush(sc->ctx);
        } else {
            ls_search(t->pol->mlp->net, tg->g, tg->gr, t->c, t->cfg.budget, seed, tgs->start, tgs->start_score,
                      tgs->start_used, gd, &res, &learn, NULL); /* cannot fail: trainer_new checked the graphs */
        }
        if (learn.pending > 0) /* the episode's last proposals: one more step */
            ls_learn_update_params(np, &learn);
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
        ls_gnn_free(t->g[i].gnn);
    }
    free(t->g);
    free(t->op);
    free(t);
}

/* Its paragraph of `train --help` (the defaults come from the rows). */
static const char train_help[] =
    "With --agent lsearch, the learned local search trains on one graph or a family: each episode is one\n"
    "search of --search-budget placements on a drawn graph from its best heuristic placement, learning\n"
    "as it goes (REINFORCE over the untried moves, rewarded by the improvement a move made, one Adam\n"
    "step every --update-every moves). Its policy places any graph on any cluster (--scorer placeto:\n"
    "on its training device count).\n"
    "example: placeto train graphs/families/nmt --agent lsearch --episodes 100 -o lsearch.json";

const AgentKind agent_lsearch = {
    .name = "lsearch",
    .a_name = "an lsearch",
    .title = "the learned local search: iterated local search whose moves a trained scorer orders",
    .file = {.load = load, .save = save, .free = net_free, .info = info, .params = params, .untrained = untrained},
    .place = {.runs = runs, .trained_row = "lsearch-trained", .refine = AGENT_REFINE_NONE},
    .train = {.unit = "episode", .max_groups = POLICY_MAX_GROUPS, .opts = train_opts, .shape = shape,
              .help = train_help,
              .config_size = sizeof(LsCfg), .configure = configure, .state_init = state_init, .create = create,
              .resumed = resumed, .trainer_new = trainer_new, .run = run, .trainer_free = trainer_free},
};
