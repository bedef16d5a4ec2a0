/* rnn_agent: the RNN-based placer as a registered agent (agent.h). */
#include <string.h>

#include "agent.h"
#include "oneshot.h"
#include "rnn_episode.h"
#include "rnn_hdp.h"
#include "rnn_io.h"
#include "rnn_place.h"
#include "rnn_train.h"

static void *load(const AgentFile *f, TrainState *ts, Err *e) { return rnn_policy_load_doc(&f->doc, ts, e); }
static int save(const void *net, const TrainState *ts, const char *path, Err *e)
{
    return rnn_policy_save(net, ts, path, e);
}
static void net_free(void *net) { rnn_free(net); }
static void info(const void *net, AgentInfo *out)
{
    const RnnNet *n = net;
    /* an hdp policy reads any grouping; its training graphs' one is the default */
    *out = (AgentInfo){n->arch.n_devices, n->arch.grouper ? n->arch.units : n->arch.n_groups, 0, 0};
}
static NnParams *params(void *net) { return &((RnnNet *)net)->p; }
static void *untrained(const void *net, uint64_t seed, Err *e)
{
    const RnnNet *n = net;
    return rnn_new(&n->arch, &n->vocab, seed, e);
}
static int64_t place(const void *net, const Graph *g, const Grouping *gr, const Cluster *c, int samples,
                     uint64_t seed, int *group_device, double *runtime_us, Err *e)
{
    return rnn_place(net, g, gr, c, samples, seed, group_device, runtime_us, e);
}
/* The one-shot rows; an hdp policy's zero-shot row also tells its greedy grouping. */
static int runs(const AgentKind *k, const Problem *p, const char *path, const void *net, const TrainState *ts,
                const AgentPlaceOpts *o, PlaceRun rows[2], const char **start_name, Err *e)
{
    int n = oneshot_place_runs(k, p, path, net, ts, o, rows, start_name, e);
    if (n > 0)
        rows[n - 1].learned_groups = rnn_place_grouping(net, p->g, p->gr, &rows[n - 1].grouping);
    return n;
}

static int check(const Episode *ep, const void *net, Err *e) { return rnn_episode_check(ep, net, e); }
static void *actor_new(const void *net, const Graph *g, const Grouping *gr, const Cluster *c, Err *e)
{
    (void)c;
    return rnn_actor_new(net, g, gr, e);
}
static void actor_free(void *ac) { rnn_actor_free(ac); }
static const float *probs(void *ac, const Episode *ep, const float **att) { return rnn_actor_probs(ac, ep, att); }
static const EpisodeStep *step(Episode *ep, void *ac, int greedy) { return rnn_episode_step(ep, ac, greedy); }

static const AgentActorOps actor = {
    .does = "decodes every group once, in order, from device 0",
    .start = "decodes them in order from device 0",
    .attends = "the groups the rnn decoder attends to most at this step",
    .reads = {"(these feature rows are Placeto's and do not apply to the rnn policy: it reads",
              " each group's op types, edges and output size once, and the devices it decoded)"},
    .check = check,
    .actor_new = actor_new,
    .actor_free = actor_free,
    .config = oneshot_episode_config,
    .probs = probs,
    .step = step,
};

/* ---- training ---- */

static const AgentOpt train_opts[] = {
    {"preset", 0, "P", "default settings: tuned (default: C = 5, 16 samples per update, --baseline batch, lr 0.001) or paper (the public code's: C = 1, 1 sample, --baseline ema, lr 0.1)"},
    {"threads", 't', "T", "samples decoded in parallel (default 1); the same result for every T"},
    {"lr", 0, "X", "Adam learning rate (default 0.001; paper 0.1)"},
    {"entropy", 0, "B", "entropy weight (default 0)"},
    {"clip", 0, "X", "global gradient-norm clip (default 1)"},
    {"temperature", 0, "T", "a new policy's logits are divided by T inside the squash (default 1)"},
    {"oom-penalty", 0, "X", "seconds per GB over a device's memory (default 2)"},
    {"baseline", 0, "B", "batch (default: the K samples' rewards normalised) or ema (paper: R minus a moving average)"},
    {"oom", 0, "M", "graded (default: + --oom-penalty) or faithful (an OOM sample costs 100 s, the public code's failing signal)"},
    {"samples-per-update", 0, "K", "placements sampled per update, 1-64 (default 16; paper 1)"},
    {"hidden", 0, "H", "width of a new policy's LSTMs, even (default 256)"},
    {"greedy-every", 0, "K", "also simulate a greedy placement after every K-th update (default 50; 0: never)"},
    {"squash", 0, "C", "a new policy's logits are C tanh(logits / T), T the --temperature (default 5; paper 1)"},
    {"noise", 0, "X", "logits noise (times their RMS) in the first 750 updates (default 0.5; 0: none)"},
    {"group-capacity", 0, "G", "groups a new policy can place (default: the most of its training graphs)"},
    {"grouper", 0, "G", "none (default) or hdp: a new policy learns a grouping of the groups ahead of its placer (HDP, 2018)"},
    {"learned-groups", 0, "L", "with --grouper hdp: the groups it learns, 2-2048 (default min(256, 20 x devices))"},
    {"freeze-placer", 0, "U", "hdp: from update U on the placer keeps its placement, the grouper alone learns (default 500; 0: never)"},
    {0},
};
static const char *const shape[] = {"hidden", "squash", "temperature", "group-capacity", "grouper", "learned-groups", NULL};

typedef struct RnnOpts {
    RnnTrainConfig cfg;
    long hidden, cap;
    double squash, tau;
    int grouper;  /* RNN_GROUPER_NONE or RNN_GROUPER_HDP */
    long learned; /* hdp: the learned groups (0: the default) */
} RnnOpts;

/* --grouper, --learned-groups, --freeze-placer (rnn_hdp.h). */
static int hdp_options(const AgentArgs *a, RnnOpts *o, Err *e)
{
    const char *grouper = agent_arg(a, "grouper");
    long freeze;
    if (grouper && strcmp(grouper, "hdp") != 0 && strcmp(grouper, "none") != 0)
        return err_set(e, "--grouper: expected none or hdp, got '%s'", grouper);
    o->grouper = grouper && strcmp(grouper, "hdp") == 0 ? RNN_GROUPER_HDP : RNN_GROUPER_NONE;
    if (agent_arg_int(a, "learned-groups", 2, RNN_MAX_GROUPS, 0, &o->learned, e) ||
        agent_arg_int(a, "freeze-placer", 0, 1L << 40, -1, &freeze, e))
        return -1;
    o->cfg.freeze_placer = freeze;
    if (!o->grouper && agent_arg(a, "learned-groups"))
        return err_set(e, "--learned-groups applies with --grouper hdp (the groups its grouper learns)");
    if (!o->grouper && agent_arg(a, "freeze-placer") && !agent_arg(a, "resume"))
        return err_set(e, "--freeze-placer applies with --grouper hdp (or --resume of an hdp policy)");
    if (o->grouper && agent_arg(a, "group-capacity"))
        return err_set(e, "--group-capacity does not apply with --grouper hdp: the placer places the learned "
                          "groups (--learned-groups)");
    return 0;
}

static int rnn_options(const AgentArgs *a, uint64_t seed, void *opts, Err *e)
{
    RnnOpts *o = opts;
    RnnTrainConfig *cfg = &o->cfg;
    long threads, samples, greedy;
    const char *preset = agent_arg(a, "preset");
    if (preset && strcmp(preset, "tuned") != 0 && strcmp(preset, "paper") != 0)
        return err_set(e, "--preset: expected tuned or paper with --agent rnn, got '%s'", preset);
    int paper = preset && strcmp(preset, "paper") == 0;
    if (paper)
        rnn_train_config_paper(cfg);
    else
        rnn_train_config_default(cfg);
    cfg->seed = seed;
    if (agent_arg_int(a, "threads", 1, RNN_TRAIN_MAX_SAMPLES, 1, &threads, e) ||
        agent_arg_int(a, "samples-per-update", 1, RNN_TRAIN_MAX_SAMPLES, cfg->samples, &samples, e) ||
        agent_arg_int(a, "hidden", 2, 4096, 256, &o->hidden, e) ||
        agent_arg_int(a, "greedy-every", 0, 1L << 40, 50, &greedy, e) ||
        agent_arg_int(a, "group-capacity", 1, RNN_MAX_GROUPS, 0, &o->cap, e) ||
        agent_arg_double(a, "lr", 0, 10, cfg->lr, &cfg->lr, e) ||
        agent_arg_double(a, "entropy", 0, 1e6, cfg->entropy, &cfg->entropy, e) ||
        agent_arg_double(a, "clip", 1e-9, 1e9, cfg->clip, &cfg->clip, e) ||
        agent_arg_double(a, "squash", 1e-3, 1e3, paper ? 1 : RNN_DEFAULT_SQUASH, &o->squash, e) ||
        agent_arg_double(a, "temperature", 1e-3, 1e3, 1, &o->tau, e) ||
        agent_arg_double(a, "noise", 0, 100, cfg->noise, &cfg->noise, e) ||
        agent_arg_double(a, "oom-penalty", 0, 1e9, cfg->oom_penalty, &cfg->oom_penalty, e))
        return -1;
    const char *oom = agent_arg(a, "oom");
    if (oom && strcmp(oom, "faithful") != 0 && strcmp(oom, "graded") != 0)
        return err_set(e, "--oom: expected faithful or graded, got '%s'", oom);
    cfg->oom_faithful = oom && strcmp(oom, "faithful") == 0;
    const char *base = agent_arg(a, "baseline");
    if (base && strcmp(base, "ema") != 0 && strcmp(base, "batch") != 0)
        return err_set(e, "--baseline: expected ema or batch, got '%s'", base);
    if (base)
        cfg->batch_baseline = strcmp(base, "batch") == 0;
    if (o->hidden % 2)
        return err_set(e, "--hidden: expected an even number, got %ld", o->hidden);
    cfg->samples = (int)samples;
    cfg->threads = (int)threads;
    cfg->greedy_every = greedy;
    return hdp_options(a, o, e);
}

static void rnn_state(TrainState *ts, const void *opts)
{
    const RnnOpts *o = opts;
    rnn_train_state_init(ts, o->cfg.lr, o->cfg.entropy, o->cfg.seed);
}

static void *rnn_create(const void *opts, const Problem *pb, int n, const Cluster *c, Err *e)
{
    const RnnOpts *o = opts;
    OpVocab voc;
    int most = vocab_build_problems(&voc, pb, n);
    RnnArch arch;
    rnn_arch_default(&arch, c->n_devices, o->cap ? (int)o->cap : most, voc.n);
    arch.hidden = (int)o->hidden;
    arch.squash_c = o->squash;
    arch.squash_tau = o->tau;
    if (o->grouper == RNN_GROUPER_HDP) { /* the placer places the learned groups */
        arch.grouper = RNN_GROUPER_HDP;
        arch.grouper_hidden = RNN_HDP_HIDDEN;
        arch.units = most;
        arch.n_groups = o->learned ? (int)o->learned : rnn_hdp_default_groups(c->n_devices);
    }
    RnnNet *net = rnn_new(&arch, &voc, o->cfg.seed, e);
    vocab_done(&voc);
    return net;
}

static void *rnn_trainer(void *net, TrainState *ts, const void *opts, const TrainGraph *tg, int n, const Cluster *c,
                         Err *e)
{
    return rnn_train_new(net, ts, &((const RnnOpts *)opts)->cfg, tg, n, c, e);
}

static void rnn_trainer_free(void *t) { rnn_train_free(t); }
static int64_t run(void *t, int64_t n, TrainCallback cb, void *ud, volatile int *stop)
{
    return rnn_train_run(t, n, cb, ud, stop);
}

const AgentKind agent_rnn = {
    .name = "rnn",
    .a_name = "an rnn",
    .title = "the RNN-based placer (Mirhoseini et al. 2017)",
    .file = {.load = load, .save = save, .free = net_free, .info = info, .params = params, .untrained = untrained},
    .place = {.runs = runs, .trained_row = "rnn-trained", .refine = AGENT_REFINE_NONE, .place = place},
    .train = {.unit = "update", .max_groups = RNN_MAX_GROUPS, .opts = train_opts, .shape = shape,
              .config_size = sizeof(RnnOpts), .configure = rnn_options, .state_init = rnn_state, .create = rnn_create,
              .trainer_new = rnn_trainer, .run = run, .trainer_free = rnn_trainer_free},
    .actor = &actor,
};
