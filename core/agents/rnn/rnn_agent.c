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
    .config = oneshot_actor_config,
    .one_pass = 1,
    .probs = probs,
    .step = step,
};

/* ---- training ---- */

static const AgentOpt train_opts[] = {
    {.name = "preset", .arg = "P", .type = AGENT_OPT_WORD, .choices = "tuned paper", .def = "tuned",
     .help = "default settings: tuned (C = 5, 16 samples per update, --baseline batch, lr 0.001) or paper (the "
             "public code's: C = 1, 1 sample, --baseline ema, lr 0.1)"},
    {.name = "threads", .short_name = 't', .arg = "T", .type = AGENT_OPT_INT, .min = 1, .max = RNN_TRAIN_MAX_SAMPLES,
     .def = "1", .help = "samples decoded in parallel; the same result for every T"},
    {.name = "lr", .arg = "X", .type = AGENT_OPT_NUM, .min = 0, .max = 10, .def = "0.001", .note = "paper 0.1",
     .help = "Adam learning rate"},
    {.name = "entropy", .arg = "B", .type = AGENT_OPT_NUM, .min = 0, .max = 1e6, .def = "0", .help = "entropy weight"},
    {.name = "clip", .arg = "X", .type = AGENT_OPT_NUM, .min = 1e-9, .max = 1e9, .def = "1",
     .help = "global gradient-norm clip"},
    {.name = "temperature", .arg = "T", .type = AGENT_OPT_NUM, .min = 1e-3, .max = 1e3, .def = "1",
     .help = "a new policy's logits are divided by T inside the squash"},
    {.name = "oom-penalty", .arg = "X", .type = AGENT_OPT_NUM, .min = 0, .max = 1e9, .def = "2",
     .help = "seconds per GB over a device's memory"},
    {.name = "baseline", .arg = "B", .type = AGENT_OPT_WORD, .choices = "batch ema", .def = "batch",
     .note = "paper: ema", .help = "batch (the K samples' rewards normalised) or ema (R minus a moving average)"},
    {.name = "oom", .arg = "M", .type = AGENT_OPT_WORD, .choices = "graded faithful", .def = "graded",
     .help = "graded (+ --oom-penalty) or faithful (an OOM sample costs 100 s, the public code's failing signal)"},
    {.name = "samples-per-update", .arg = "K", .type = AGENT_OPT_INT, .min = 1, .max = RNN_TRAIN_MAX_SAMPLES,
     .def = "16", .note = "paper 1", .help = "placements sampled per update"},
    {.name = "hidden", .arg = "H", .type = AGENT_OPT_INT, .min = 2, .max = 4096, .def = "256",
     .help = "width of a new policy's LSTMs, even"},
    {.name = "greedy-every", .arg = "K", .type = AGENT_OPT_INT, .min = 0, .max = 1L << 40, .def = "50",
     .help = "also simulate a greedy placement after every K-th update; 0: never"},
    {.name = "squash", .arg = "C", .type = AGENT_OPT_NUM, .min = 1e-3, .max = 1e3, .def = "5", .note = "paper 1",
     .help = "a new policy's logits are C tanh(logits / T), T the --temperature"},
    {.name = "noise", .arg = "X", .type = AGENT_OPT_NUM, .min = 0, .max = 100, .def = "0.5",
     .help = "logits noise (times their RMS) in the first 750 updates; 0: none"},
    {.name = "group-capacity", .arg = "G", .type = AGENT_OPT_INT, .min = 1, .max = RNN_MAX_GROUPS,
     .note = "the most of its training graphs", .help = "groups a new policy can place"},
    {.name = "grouper", .arg = "G", .type = AGENT_OPT_WORD, .choices = "none hdp", .def = "none",
     .help = "none or hdp: a new policy learns a grouping of the groups ahead of its placer (HDP, 2018)"},
    {.name = "learned-groups", .arg = "L", .type = AGENT_OPT_INT, .min = 2, .max = RNN_MAX_GROUPS,
     .note = "min(256, 20 x devices)", .help = "with --grouper hdp: the groups it learns"},
    {.name = "freeze-placer", .arg = "U", .type = AGENT_OPT_INT, .min = 0, .max = 1L << 40, .def = "500",
     .help = "hdp: from update U on the placer keeps its placement, the grouper alone learns; 0: never"},
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
    const char *grouper = agent_opt_word(a, "grouper", e);
    long freeze;
    if (!grouper)
        return -1;
    o->grouper = strcmp(grouper, "hdp") == 0 ? RNN_GROUPER_HDP : RNN_GROUPER_NONE;
    /* 0: rnn_hdp_default_groups; -1: RNN_HDP_FREEZE (500), and no error on resuming a plain policy */
    if (agent_opt_int_or(a, "learned-groups", 0, &o->learned, e) ||
        agent_opt_int_or(a, "freeze-placer", -1, &freeze, e))
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
    const char *preset = agent_opt_word(a, "preset", e);
    if (!preset) /* the message names the agent: Placeto's --preset takes search too */
        return err_set(e, "--preset: expected tuned or paper with --agent rnn, got '%s'", agent_arg(a, "preset"));
    int paper = strcmp(preset, "paper") == 0;
    if (paper)
        rnn_train_config_paper(cfg);
    else
        rnn_train_config_default(cfg);
    cfg->seed = seed;
    if (agent_opt_int(a, "threads", &threads, e) ||
        agent_opt_int_or(a, "samples-per-update", cfg->samples, &samples, e) ||
        agent_opt_int(a, "hidden", &o->hidden, e) || agent_opt_int(a, "greedy-every", &greedy, e) ||
        agent_opt_int_or(a, "group-capacity", 0, &o->cap, e) || /* 0: its training graphs' most */
        agent_opt_num_or(a, "lr", cfg->lr, &cfg->lr, e) || agent_opt_num(a, "entropy", &cfg->entropy, e) ||
        agent_opt_num(a, "clip", &cfg->clip, e) ||
        agent_opt_num_or(a, "squash", paper ? 1 : RNN_DEFAULT_SQUASH, &o->squash, e) ||
        agent_opt_num(a, "temperature", &o->tau, e) || agent_opt_num(a, "noise", &cfg->noise, e) ||
        agent_opt_num(a, "oom-penalty", &cfg->oom_penalty, e))
        return -1;
    const char *oom = agent_opt_word(a, "oom", e);
    if (!oom)
        return -1;
    cfg->oom_faithful = strcmp(oom, "faithful") == 0;
    const char *base = agent_opt_word(a, "baseline", e);
    if (!base)
        return -1;
    if (agent_arg(a, "baseline")) /* else the preset's */
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

/* Its paragraph of `train --help` (the defaults come from the rows). */
static const char train_help[] =
    "With --agent rnn, the RNN-based placer trains on one graph or a family (each update draws one):\n"
    "each episode is one update (K sampled placements, --samples-per-update, on --threads threads:\n"
    "the same result for every T), their advantages normalised within the update (--preset paper:\n"
    "the public code's K 1, moving average, lr 0.1, squash 1); Placeto's own options are refused.\n"
    "example: placeto train graphs/inception_v3.json --agent rnn --episodes 500 -o rnn.json";

const AgentKind agent_rnn = {
    .name = "rnn",
    .a_name = "an rnn",
    .title = "the RNN-based placer (Mirhoseini et al. 2017)",
    .file = {.load = load, .save = save, .free = net_free, .info = info, .params = params, .untrained = untrained},
    .place = {.runs = runs, .trained_row = "rnn-trained", .refine = AGENT_REFINE_NONE, .place = place},
    .train = {.unit = "update", .max_groups = RNN_MAX_GROUPS, .opts = train_opts, .shape = shape,
              .help = train_help,
              .config_size = sizeof(RnnOpts), .configure = rnn_options, .state_init = rnn_state, .create = rnn_create,
              .trainer_new = rnn_trainer, .run = run, .trainer_free = rnn_trainer_free},
    .actor = &actor,
};
