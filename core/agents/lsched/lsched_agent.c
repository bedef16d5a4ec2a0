/* lsched_agent: the learned list scheduler as a registered agent (agent.h;
 * the decoder itself: lsched.h). Its rows of `place` and `compare` are
 * "lsched" (the best of the heuristics and the decodes within --budget
 * placements, default 20: never worse than the best heuristic) and, for a
 * graph it trained on, "lsched-trained"; `train --agent lsched` samples
 * --decodes decodes of a drawn training graph per episode and takes one
 * REINFORCE step. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "lsched.h"
#include "policy_file.h"

/* ---- the policy file: a scorer's (scorer.h), {"agent": "lsched", ...} ---- */

typedef ScorerPolicy LscPolicy;

static int read_arch(const JDoc *d, void *arch, Err *e) { return scorer_read_arch(d, arch, LSC_FEATURES, e); }
static void *create_arch(const void *arch, const OpVocab *v, Err *e)
{
    (void)v;
    return scorer_policy_new("lsched", arch, e);
}
/* No baseline rows (check_state NULL): each episode's decodes are their own baseline. */
static const PolicyFileKind file_kind = {
    .agent = "lsched",
    .read_arch = read_arch, .n_devices = scorer_arch_devices, .n_types = scorer_arch_types,
    .param_count = scorer_arch_params,
    .create = create_arch, .params = scorer_policy_params, .free = scorer_policy_free,
    .lr = 0.01, .entropy = 0,
};

static void *load(const AgentFile *f, TrainState *ts, Err *e) { return policy_file_load_doc(&file_kind, &f->doc, ts, e); }

/* ---- placing ---- */

static int runs(const AgentKind *k, const Problem *p, const char *path, const void *pol, const TrainState *ts,
                const AgentPlaceOpts *o, PlaceRun rows[2], const char **start_name, Err *e)
{
    const LscPolicy *lp = pol;
    LscGraph *lg = lsc_graph_new(p->g, p->gr, p->c, e);
    if (!lg) {
        err_prefix(e, path);
        return -1;
    }
    int G = p->gr->n_groups, n = agent_trained_row(ts, p, k->place.trained_row, &rows[0]);
    int *gd = xnew_array((size_t)G, sizeof *gd);
    LscResult res;
    double t0 = util_now();
    lsc_place(lg, lp->net, o->budget, o->seed, gd, &res);
    place_run_groups(p, k->name, gd, util_now() - t0, &rows[n]);
    rows[n++].placements = res.used;
    if (start_name)
        *start_name = res.start;
    free(gd);
    lsc_graph_free(lg);
    return n;
}

/* ---- training: one REINFORCE step over --decodes sampled decodes per episode ---- */

typedef struct LscCfg {
    ScorerCfg s;
    long decodes;
} LscCfg;

static const AgentOpt train_opts[] = {
    SCORER_TRAIN_OPTS(NULL),
    {.name = "decodes", .arg = "K", .type = AGENT_OPT_INT, .min = 2, .max = 256, .def = "8",
     .help = "sampled decodes per episode, each one placement simulated"},
    {0},
};
static const char *const shape[] = {"hidden", NULL};

static int configure(const AgentArgs *a, uint64_t seed, void *cfg, Err *e)
{
    LscCfg *c = cfg;
    return scorer_configure(a, seed, &c->s, e) || agent_opt_int(a, "decodes", &c->decodes, e) ? -1 : 0;
}
static void state_init(TrainState *ts, const void *cfg)
{
    const LscCfg *c = cfg;
    train_state_init(ts, c->s.lr, 0, c->s.seed);
}
static void *create(const void *cfg, const Problem *pb, int n, const Cluster *c, Err *e)
{
    (void)pb, (void)n;
    return scorer_policy_create("lsched", LSC_FEATURES, &((const LscCfg *)cfg)->s, c, e);
}

/* What the trainer keeps of a training graph once it was first drawn. */
typedef struct TrainerGraph {
    LscGraph *lg;      /* NULL until the graph is first drawn */
    double start_score; /* the best heuristic's: the rewards' unit */
} TrainerGraph;

typedef struct Trainer {
    LscPolicy *pol;
    TrainState *ts;
    LscCfg cfg;
    const TrainGraph *tg;
    int n;
    const Cluster *c;
    TrainerGraph *g;   /* per graph */
    int *gd;           /* [decodes x largest group count]: the episode's decodes */
    double *score;     /* per decode */
    EpisodeConfig env; /* the training state's scores (train_best_verify's) */
} Trainer;

static void *trainer_new(void *pol, TrainState *ts, const void *cfg, const TrainGraph *tg, int n, const Cluster *c,
                         Err *e)
{
    for (int i = 0; i < n; i++)
        if ((int64_t)tg[i].gr->n_groups * c->n_devices > LSC_MAX_CHOICES) {
            err_set(e, "%s: the learned list scheduler scores at most %d choices (groups x devices); it has %d groups "
                       "on %d devices", tg[i].g->name, LSC_MAX_CHOICES, tg[i].gr->n_groups, c->n_devices);
            return NULL;
        }
    if (ts->n_base != 0) { /* the policy file's is checked on loading (check_state); this is the checkpoint's */
        err_set(e, "training.baseline (in the checkpoint beside it): expected [] (the learned list scheduler keeps "
                   "no baseline)");
        return NULL;
    }
    ((LscPolicy *)pol)->n_devices = c->n_devices; /* its best placements are this cluster's */
    Trainer *t = xcalloc(1, sizeof *t);
    *t = (Trainer){pol, ts, *(const LscCfg *)cfg, tg, n, c, NULL, NULL, NULL, {0}};
    t->ts->adam.lr = t->cfg.s.lr;
    t->g = xnew_array((size_t)n, sizeof *t->g);
    int max_groups = 1;
    for (int i = 0; i < n; i++)
        max_groups = tg[i].gr->n_groups > max_groups ? tg[i].gr->n_groups : max_groups;
    t->gd = xnew_array((size_t)t->cfg.decodes * (size_t)max_groups, sizeof *t->gd);
    t->score = xnew_array((size_t)t->cfg.decodes, sizeof *t->score);
    episode_config_default(&t->env);
    train_best_verify(ts, &t->env, tg, n, c);
    return t;
}

static int64_t run(void *trainer, int64_t n_eps, TrainCallback cb, void *ud, volatile int *stop)
{
    Trainer *t = trainer;
    TrainState *ts = t->ts;
    Scorer *net = t->pol->net;
    int K = (int)t->cfg.decodes;
    int64_t done = 0;
    for (; done < n_eps && !(stop && *stop); done++) {
        int gi = t->n > 1 ? (int)(rng_next(&ts->rng) % (uint64_t)t->n) : 0;
        Rng rng;
        rng_seed(&rng, rng_next(&ts->rng));
        const TrainGraph *tg = &t->tg[gi];
        int G = tg->gr->n_groups;
        int64_t sims = 0;
        TrainBest *b = train_best_for(ts, tg->g->name, tg->g->checksum, G);
        TrainerGraph *tgs = &t->g[gi];
        if (!tgs->lg) { /* the heuristics once per graph: the rewards' unit */
            int *start = xnew_array((size_t)G, sizeof *start);
            const char *name;
            PlaceCtx ctx = {.g = tg->g, .gr = tg->gr, .c = t->c, .seed = t->cfg.s.seed * 1000003u + (uint64_t)gi};
            int64_t used = place_best_heuristic(&ctx, start, &tgs->start_score, &name);
            if (!isfinite(b->runtime_us)) /* counted the first time the training ever draws the graph */
                sims += used;
            free(start);
            tgs->lg = lsc_graph_new(tg->g, tg->gr, t->c, NULL); /* cannot fail: trainer_new checked the graphs */
        }
        double mean = 0, var = 0;
        int best = 0;
        for (int i = 0; i < K; i++) {
            int *gd = &t->gd[(size_t)i * (size_t)G];
            lsc_decode(tgs->lg, net, &rng, NULL, 0, 0, gd);
            t->score[i] = lsc_eval(tgs->lg, gd);
            mean += t->score[i] / K;
            best = t->score[i] < t->score[best] ? i : best;
        }
        sims += K;
        for (int i = 0; i < K; i++)
            var += (t->score[i] - mean) * (t->score[i] - mean) / K;
        /* the spread, at least 1e-9 of the start (tiny costs: at least the
         * smallest normal number, below which the advantages would be 0/0) */
        double sd = sqrt(var) + 1e-9 * (tgs->start_score > 0 ? tgs->start_score : 1);
        sd = sd > DBL_MIN ? sd : DBL_MIN;
        nn_params_zero_grad(&net->p);
        for (int i = 0; i < K; i++) /* reward -score: advantage (mean - score) / sd, per group and decode */
            lsc_decode(tgs->lg, net, NULL, &t->gd[(size_t)i * (size_t)G], (mean - t->score[i]) / sd, 1.0 / (K * G),
                       &t->gd[(size_t)i * (size_t)G]);
        double norm = nn_clip_grad(net->p.g, net->p.n, t->cfg.s.clip);
        nn_adam_step(&ts->adam, &net->p);
        ts->simulations += sims;
        /* the episode's best, scored as the training state keeps them (the same placement again) */
        int *bgd = &t->gd[(size_t)best * (size_t)G];
        const SimResult *r = lsc_full(tgs->lg, bgd);
        double rt = r->makespan_us, score = episode_score(&t->env, t->c, r);
        train_best_offer(b, score, rt, bgd, ts->simulations - (K - 1 - best));
        ts->episodes++;
        if (cb) {
            double gain = tgs->start_score > 0 ? (tgs->start_score - t->score[best]) / tgs->start_score : 0;
            TrainReport rep = {ts->episodes, gi, rt, rt, gain, 0, norm, b->runtime_us, ts->simulations, NAN, 0};
            cb(&rep, ud);
        }
    }
    return done;
}

static void trainer_free(void *trainer)
{
    Trainer *t = trainer;
    for (int i = 0; i < t->n; i++)
        lsc_graph_free(t->g[i].lg);
    free(t->g);
    free(t->gd);
    free(t->score);
    free(t);
}

/* Its paragraph of `train --help` (the defaults come from the rows). */
static const char train_help[] =
    "With --agent lsched, the learned list scheduler trains on one graph or a family: each episode\n"
    "draws a graph, samples --decodes decodes of it (each one placement simulated) and takes one\n"
    "REINFORCE step, each decode's advantage its reward against the episode's others. Its policy\n"
    "places any graph on any cluster in one pass (place --budget, default 20 placements).\n"
    "example: placeto train graphs/families/nmt --agent lsched --episodes 1000 -o lsched.json";

const AgentKind agent_lsched = {
    .name = "lsched",
    .a_name = "an lsched",
    .title = "the learned list scheduler: a one-shot placer whose device choices a trained scorer makes",
    .file = {.load = load, .save = scorer_policy_save, .free = scorer_policy_free, .info = scorer_policy_info,
             .params = scorer_policy_params, .untrained = scorer_policy_untrained},
    .place = {.runs = runs, .trained_row = "lsched-trained", .refine = AGENT_REFINE_NONE},
    .train = {.unit = "episode", .max_groups = POLICY_MAX_GROUPS, .opts = train_opts, .shape = shape,
              .help = train_help,
              .config_size = sizeof(LscCfg), .configure = configure, .state_init = state_init, .create = create,
              .trainer_new = trainer_new, .run = run, .trainer_free = trainer_free},
};
