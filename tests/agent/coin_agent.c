/* coin: a test-only learned placer, registered in the test build of the
 * program (build/placeto-coin) to show that the registry alone drives
 * `place`, `compare`, `train` and the explorer: nothing in tui/ names it.
 *
 * Its network is one logit per device; a placement puts every group on a
 * device drawn from softmax(logits) (greedy: the argmax), and training is
 * REINFORCE on the runtime with a moving-average baseline. Small, but real:
 * its policy file goes through the shared framework (policy_file.h), its
 * placing through the one-shot helpers (oneshot.h) and its explorer actor
 * steps the episode like the other one-shot agents. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "oneshot.h"
#include "policy_file.h"
#include "sample.h"

#define COIN_MAX_DEVICES 64

typedef struct CoinNet {
    int n_devices;
    NnParams p; /* one tensor "logits" [1 x n_devices] */
} CoinNet;

static CoinNet *coin_new(int n_devices, Err *e)
{
    if (n_devices < 1 || n_devices > COIN_MAX_DEVICES) {
        err_set(e, "coin: n_devices must be 1 to %d, got %d", COIN_MAX_DEVICES, n_devices);
        return NULL;
    }
    CoinNet *net = xcalloc(1, sizeof *net);
    net->n_devices = n_devices;
    nn_params_init(&net->p);
    nn_params_add(&net->p, "logits", 1, n_devices);
    nn_params_alloc(&net->p);
    return net;
}

static void coin_free(void *net)
{
    CoinNet *n = net;
    if (!n)
        return;
    nn_params_done(&n->p);
    free(n);
}

static void coin_probs(const CoinNet *net, float *p)
{
    nn_softmax_f(net->p.w, net->n_devices, p, NULL);
}

/* ---- the policy file ---- */

static void head(FILE *f, const void *ud)
{
    const CoinNet *net = ud;
    fprintf(f, " \"agent\": \"coin\",\n \"architecture\": {\"n_devices\": %d},\n", net->n_devices);
    OpVocab none = {0, NULL};
    policy_file_write_vocab(f, &none);
}
static int save(const void *net, const TrainState *ts, const char *path, Err *e)
{
    const CoinNet *n = net;
    return policy_file_write(path, &n->p, ts, head, n, e);
}
static int read_arch(const JDoc *d, void *arch, Err *e)
{
    const cJSON *o = policy_file_member(d, d->root, "architecture", "", cJSON_IsObject, "an object {\"n_devices\"}", e);
    int64_t nd;
    if (!o || jget_int(d, o, "n_devices", "architecture.n_devices", 1, 1, COIN_MAX_DEVICES, &nd, e) < 0)
        return -1;
    *(int *)arch = (int)nd;
    return 0;
}
static int n_devices(const void *arch) { return *(const int *)arch; }
static int n_types(const void *arch)
{
    (void)arch;
    return 0;
}
static size_t param_count(const void *arch) { return (size_t)*(const int *)arch; }
static void *create(const void *arch, const OpVocab *v, Err *e)
{
    (void)v;
    return coin_new(*(const int *)arch, e);
}
static NnParams *params(void *net) { return &((CoinNet *)net)->p; }
static int check_state(const JDoc *d, TrainState *ts, Err *e)
{
    if (ts->n_base > 1)
        return jdoc_err(d, e, "training.baseline", "expected [[b, ...]], the baseline of each training graph");
    return 0;
}
static const PolicyFileKind file_kind = {
    .agent = "coin",
    .read_arch = read_arch, .n_devices = n_devices, .n_types = n_types, .param_count = param_count,
    .create = create, .params = params, .free = coin_free,
    .lr = 0.1, .entropy = 0,
    .check_state = check_state,
};

/* untrained: every logit 0, the uniform distribution */
static void *untrained(const void *net, uint64_t seed, Err *e)
{
    (void)seed;
    return coin_new(((const CoinNet *)net)->n_devices, e);
}
static void *load(const AgentFile *f, TrainState *ts, Err *e) { return policy_file_load_doc(&file_kind, &f->doc, ts, e); }
static void info(const void *net, AgentInfo *out) { *out = (AgentInfo){((const CoinNet *)net)->n_devices, 0, 0, 0}; }

/* ---- placing ---- */

typedef struct Decode {
    const CoinNet *net;
    int n_groups;
} Decode;

static void decode(void *ctx, int greedy, Rng *rng, int *place)
{
    const Decode *d = ctx;
    float p[COIN_MAX_DEVICES];
    coin_probs(d->net, p);
    for (int v = 0; v < d->n_groups; v++)
        place[v] = greedy ? sample_argmax_f(p, d->net->n_devices) : sample_draw_f(p, d->net->n_devices, rng_uniform(rng));
}

static int64_t place(const void *net, const Graph *g, const Grouping *gr, const Cluster *c, int samples, uint64_t seed,
                     int *group_device, double *runtime_us, Err *e)
{
    const CoinNet *n = net;
    if (n->n_devices != c->n_devices)
        return err_set(e, "the coin policy is for %d devices but the cluster has %d", n->n_devices, c->n_devices);
    Decode d = {n, gr->n_groups};
    return oneshot_place_decodes(decode, &d, g, gr, c, samples, seed, group_device, runtime_us);
}

/* ---- training: REINFORCE on -runtime (seconds), a moving-average baseline ---- */

typedef struct CoinCfg {
    double lr;
    uint64_t seed;
} CoinCfg;

static const AgentOpt train_opts[] = {
    {.name = "lr", .arg = "X", .type = AGENT_OPT_NUM, .min = 0, .max = 10, .def = "0.1", .help = "Adam learning rate"},
    {0},
};

static int configure(const AgentArgs *a, uint64_t seed, void *cfg, Err *e)
{
    CoinCfg *c = cfg;
    c->seed = seed;
    return agent_opt_num(a, "lr", &c->lr, e);
}
static void state_init(TrainState *ts, const void *cfg)
{
    const CoinCfg *c = cfg;
    train_state_init(ts, c->lr, 0, c->seed);
}
static void *coin_create(const void *cfg, const Problem *pb, int n, const Cluster *c, Err *e)
{
    (void)cfg, (void)pb, (void)n;
    return coin_new(c->n_devices, e);
}

typedef struct Trainer {
    CoinNet *net;
    TrainState *ts;
    const TrainGraph *tg;
    int n;
    const Cluster *c;
    EpisodeConfig env;
} Trainer;

static void *trainer_new(void *net, TrainState *ts, const void *cfg, const TrainGraph *tg, int n, const Cluster *c,
                         Err *e)
{
    (void)cfg;
    CoinNet *cn = net;
    if (cn->n_devices != c->n_devices) {
        err_set(e, "the coin policy is for %d devices but the cluster has %d", cn->n_devices, c->n_devices);
        return NULL;
    }
    Trainer *t = xcalloc(1, sizeof *t);
    *t = (Trainer){cn, ts, tg, n, c, {0}};
    oneshot_episode_config(&t->env);
    train_best_verify(ts, &t->env, tg, n, c);
    return t;
}

static int64_t run(void *trainer, int64_t n_updates, TrainCallback cb, void *ud, volatile int *stop)
{
    Trainer *t = trainer;
    int nd = t->net->n_devices;
    int64_t done = 0;
    for (; done < n_updates && !(stop && *stop); done++) {
        int gi = t->n > 1 ? (int)(rng_next(&t->ts->rng) % (uint64_t)t->n) : 0;
        const TrainGraph *tg = &t->tg[gi];
        int G = tg->gr->n_groups;
        int *place = xnew_array((size_t)G, sizeof *place), *op = xnew_array((size_t)tg->g->n_nodes, sizeof *op);
        float p[COIN_MAX_DEVICES];
        coin_probs(t->net, p);
        for (int v = 0; v < G; v++)
            place[v] = sample_draw_f(p, nd, rng_uniform(&t->ts->rng));
        group_expand(tg->gr, place, op);
        Sim *sim = sim_new(tg->g, t->c);
        const SimResult *r = sim_run(sim, op);
        double score = episode_score(&t->env, t->c, r), makespan = r->makespan_us;
        sim_free(sim);
        t->ts->simulations++;
        TrainBest *b = train_best_for(t->ts, tg->g->name, tg->g->checksum, G);
        if (score < b->score) {
            b->score = score;
            b->runtime_us = makespan;
            memcpy(b->group_device, place, (size_t)G * sizeof *place);
            b->found_after = t->ts->simulations;
        }
        double base = train_state_baseline(t->ts, gi), ret = -score, adv = ret - (base == TRAIN_BASELINE_START ? ret : base);
        train_state_set_baseline(t->ts, gi, t->n, base == TRAIN_BASELINE_START ? ret : 0.9 * base + 0.1 * ret);
        /* d(-log pi)/dlogit_d = G p_d - count_d, times the advantage */
        nn_params_zero_grad(&t->net->p);
        for (int d = 0; d < nd; d++) {
            int count = 0;
            for (int v = 0; v < G; v++)
                count += place[v] == d;
            t->net->p.g[d] = (float)(adv * ((double)G * p[d] - count) / G);
        }
        nn_adam_step(&t->ts->adam, &t->net->p);
        t->ts->episodes++;
        if (cb) {
            TrainReport rep = {t->ts->episodes, gi, makespan, makespan, ret, -adv, 0, b->runtime_us, t->ts->simulations, NAN, 0};
            cb(&rep, ud);
        }
        free(op);
        free(place);
    }
    return done;
}
static void trainer_free(void *t) { free(t); }

/* ---- the explorer's actor: every group from the same distribution ---- */

typedef struct Actor {
    const CoinNet *net;
    float p[COIN_MAX_DEVICES];
} Actor;

static int check(const Episode *ep, const void *net, Err *e)
{
    return episode_check_one_pass(ep, "a", "coin", ((const CoinNet *)net)->n_devices, e);
}
static void *actor_new(const void *net, const Graph *g, const Grouping *gr, const Cluster *c, Err *e)
{
    (void)g, (void)gr, (void)c, (void)e;
    Actor *ac = xcalloc(1, sizeof *ac);
    ac->net = net;
    coin_probs(net, ac->p);
    return ac;
}
static void actor_free(void *ac) { free(ac); }
static const float *probs(void *actor, const Episode *ep, const float **attention)
{
    if (attention)
        *attention = NULL;
    return episode_done(ep) ? NULL : ((Actor *)actor)->p;
}
static const EpisodeStep *step(Episode *ep, void *actor, int greedy)
{
    Actor *ac = actor;
    if (episode_done(ep))
        return NULL;
    Rng before = ep->rng;
    int a = episode_draw_one_shot(ep, ac->p, ac->net->n_devices, greedy);
    return episode_step_choice(ep, a, ac->p, greedy, &before);
}

static const AgentActorOps actor = {
    .does = "draws every group's device from one learned distribution, in order, from device 0",
    .start = "draws them in order from device 0",
    .attends = "nothing: the coin placer attends to no group",
    .reads = {"(these feature rows are Placeto's and do not apply to the coin policy: it reads",
              " nothing of the graph)"},
    .check = check,
    .actor_new = actor_new,
    .actor_free = actor_free,
    .config = oneshot_actor_config,
    .one_pass = 1,
    .probs = probs,
    .step = step,
};

const AgentKind agent_coin = {
    .name = "coin",
    .a_name = "a coin",
    .title = "a test-only placer: one learned distribution over the devices",
    .file = {.load = load, .save = save, .free = coin_free, .info = info, .params = params, .untrained = untrained},
    .place = {.runs = oneshot_place_runs, .trained_row = "coin-trained", .refine = AGENT_REFINE_NONE, .place = place},
    .train = {.unit = "update", .max_groups = 20000, .opts = train_opts, .config_size = sizeof(CoinCfg),
              .configure = configure, .state_init = state_init, .create = coin_create, .trainer_new = trainer_new,
              .run = run, .trainer_free = trainer_free},
    .actor = &actor,
};

/* Registered before main runs: the test build's one addition. */
__attribute__((constructor)) static void register_coin(void) { agent_register(&agent_coin); }
