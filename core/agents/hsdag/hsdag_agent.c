/* hsdag_agent: HSDAG as a registered agent (agent.h). */
#include <string.h>

#include "agent.h"
#include "hsdag_episode.h"
#include "hsdag_io.h"
#include "hsdag_place.h"
#include "hsdag_train.h"
#include "oneshot.h"

static void *load(const AgentFile *f, TrainState *ts, Err *e) { return hsdag_policy_load_doc(&f->doc, ts, e); }
static int save(const void *net, const TrainState *ts, const char *path, Err *e)
{
    return hsdag_policy_save(net, ts, path, e);
}
static void net_free(void *net) { hsdag_free(net); }
static void info(const void *net, AgentInfo *out)
{
    const HsdagNet *n = net;
    *out = (AgentInfo){n->arch.n_devices, 0, 0, 0};
}
static NnParams *params(void *net) { return &((HsdagNet *)net)->p; }
static void *untrained(const void *net, uint64_t seed, Err *e)
{
    const HsdagNet *n = net;
    return hsdag_new(&n->arch, &n->vocab, seed, e);
}
static int64_t place(const void *net, const Graph *g, const Grouping *gr, const Cluster *c, int samples,
                     uint64_t seed, int *group_device, double *runtime_us, Err *e)
{
    return hsdag_place(net, g, gr, c, samples, seed, group_device, runtime_us, e);
}

static int check(const Episode *ep, const void *net, Err *e) { return hsdag_episode_check(ep, net, e); }
static void *actor_new(const void *net, const Graph *g, const Grouping *gr, const Cluster *c, Err *e)
{
    return hsdag_actor_new(net, g, gr, c, e);
}
static void actor_free(void *ac) { hsdag_actor_free(ac); }
static const float *probs(void *ac, const Episode *ep, const float **members)
{
    return hsdag_actor_probs(ac, ep, members);
}
static const EpisodeStep *step(Episode *ep, void *ac, int greedy) { return hsdag_episode_step(ep, ac, greedy); }
static int clusters(void *actor, const int **cluster)
{
    HsdagActor *ac = actor;
    hsdag_actor_ensure(ac);
    *cluster = ac->cluster;
    return ac->n_clusters;
}

static const AgentActorOps actor = {
    .does = "places each learned cluster once, in order from device 0: one forward pass gives the clusters and "
            "their distributions",
    .start = "gives the learned clusters their distributions in one forward pass, applied in order from device 0 "
             "(a cluster's later groups follow its first)",
    .attends = "the groups of the current group's learned cluster (they all go where its first group goes)",
    .reads = {"(these feature rows are Placeto's and do not apply to the hsdag policy: it reads each group's",
              " op types, size, structure and cost once, never the devices: one pass clusters and places all)"},
    .set_why = "its learned cluster",
    .check = check,
    .actor_new = actor_new,
    .actor_free = actor_free,
    .config = oneshot_actor_config,
    .one_pass = 1,
    .probs = probs,
    .step = step,
    .clusters = clusters,
};

/* ---- training ---- */

static const AgentOpt train_opts[] = {
    {.name = "threads", .short_name = 't', .arg = "T", .type = AGENT_OPT_INT, .min = 1,
     .max = HSDAG_TRAIN_MAX_EPISODES, .def = "1", .help = "episodes in parallel; the same result for every T"},
    {.name = "lr", .arg = "X", .type = AGENT_OPT_NUM, .min = 0, .max = 10, .def = "0.001",
     .help = "Adam learning rate"},
    {.name = "gamma", .arg = "X", .type = AGENT_OPT_NUM, .min = 0, .max = 1, .def = "0.95",
     .help = "discount of the returns"},
    {.name = "clip", .arg = "X", .type = AGENT_OPT_NUM, .min = 0, .max = 1e9, .def = "0",
     .help = "global gradient-norm clip; 0: none"},
    {.name = "oom-penalty", .arg = "X", .type = AGENT_OPT_NUM, .min = 0, .max = 1e9, .def = "2",
     .help = "seconds per GB over a device's memory, with --oom graded"},
    {.name = "hidden", .arg = "H", .type = AGENT_OPT_INT, .min = 2, .max = 4096, .def = "128",
     .help = "width of a new policy"},
    {.name = "greedy-every", .arg = "K", .type = AGENT_OPT_INT, .min = 0, .max = 1L << 40, .def = "5",
     .help = "also simulate a greedy placement after every K-th update; 0: never"},
    {.name = "features", .arg = "SET", .def = "faithful",
     .help = "faithful, parity (+ per-device cost) or a list of type,shape,id,struct,cost"},
    {.name = "steps", .arg = "T", .type = AGENT_OPT_INT, .min = 1, .max = HSDAG_TRAIN_MAX_STEPS, .def = "20",
     .note = "on --resume the policy's", .help = "placements per episode, the state carried between them"},
    {.name = "episodes-per-update", .arg = "E", .type = AGENT_OPT_INT, .min = 1, .max = HSDAG_TRAIN_MAX_EPISODES,
     .def = "1", .help = "episodes per update"},
    {.name = "baseline", .arg = "B", .type = AGENT_OPT_WORD, .choices = "none ema", .def = "none",
     .help = "none (the reference's) or ema (a moving average of the returns)"},
    {.name = "oom", .arg = "M", .type = AGENT_OPT_WORD, .choices = "faithful graded", .def = "faithful",
     .help = "faithful (an OOM placement is a failing run, 1e10 s) or graded (+ --oom-penalty)"},
    {.name = "allow-single", .help = "do not forbid one-device placements (without it they are failing runs, 1e10 s)"},
    {.name = "min-clusters", .arg = "N", .type = AGENT_OPT_INT, .min = 0, .max = 1L << 20, .note = "2 x devices",
     .help = "a new policy's parse keeps at least N clusters"},
    {0},
};
static const char *const shape[] = {"hidden", "features", "min-clusters", NULL};

typedef struct HsdagOpts {
    HsdagTrainConfig cfg;
    long hidden, min_clusters;
    int features, steps_given;
} HsdagOpts;

static int hsdag_options(const AgentArgs *a, uint64_t seed, void *opts, Err *e)
{
    HsdagOpts *o = opts;
    HsdagTrainConfig *cfg = &o->cfg;
    long threads, steps, eps, greedy;
    hsdag_train_config_default(cfg);
    cfg->seed = seed;
    /* the rows' defaults are hsdag_train_config_default's; --min-clusters 0: the architecture's */
    if (agent_opt_int(a, "threads", &threads, e) || agent_opt_int(a, "steps", &steps, e) ||
        agent_opt_int(a, "episodes-per-update", &eps, e) || agent_opt_int(a, "hidden", &o->hidden, e) ||
        agent_opt_int_or(a, "min-clusters", 0, &o->min_clusters, e) || agent_opt_int(a, "greedy-every", &greedy, e) ||
        agent_opt_num(a, "lr", &cfg->lr, e) || agent_opt_num(a, "gamma", &cfg->gamma, e) ||
        agent_opt_num(a, "clip", &cfg->clip, e) || agent_opt_num(a, "oom-penalty", &cfg->oom_penalty, e))
        return -1;
    const char *f = agent_arg(a, "features"), *b, *oom;
    o->features = f ? hsdag_features_parse(f) : HSDAG_F_FAITHFUL;
    if (!o->features)
        return err_set(e, "--features: expected faithful, parity or a comma list of type, shape, id, struct "
                                    "and cost, got '%s'", f);
    if (!(b = agent_opt_word(a, "baseline", e)) || !(oom = agent_opt_word(a, "oom", e)))
        return -1;
    cfg->baseline = strcmp(b, "ema") == 0;
    cfg->oom_graded = strcmp(oom, "graded") == 0;
    cfg->allow_single = agent_arg(a, "allow-single") != NULL;
    o->steps_given = agent_arg(a, "steps") != NULL;
    cfg->threads = (int)threads;
    cfg->steps = (int)steps;
    cfg->episodes = (int)eps;
    cfg->greedy_every = greedy;
    return 0;
}

static void hsdag_state(TrainState *ts, const void *opts)
{
    const HsdagOpts *o = opts;
    train_state_init(ts, o->cfg.lr, 0, o->cfg.seed);
}

static void *hsdag_create(const void *opts, const Problem *pb, int n, const Cluster *c, Err *e)
{
    const HsdagOpts *o = opts;
    OpVocab voc;
    vocab_build_problems(&voc, pb, n);
    HsdagArch arch;
    hsdag_arch_default(&arch, c->n_devices, voc.n);
    arch.hidden = (int)o->hidden;
    arch.features = o->features;
    arch.steps = o->cfg.steps;
    if (o->min_clusters > 0)
        arch.min_clusters = (int)o->min_clusters;
    HsdagNet *net = hsdag_new(&arch, &voc, o->cfg.seed, e);
    vocab_done(&voc);
    return net;
}

static void *hsdag_trainer(void *net, TrainState *ts, const void *opts, const TrainGraph *tg, int n, const Cluster *c,
                           Err *e)
{
    const HsdagOpts *o = opts;
    HsdagTrainConfig cfg = o->cfg;
    if (!o->steps_given) /* a resumed policy goes on with its own episode length */
        cfg.steps = ((const HsdagNet *)net)->arch.steps;
    return hsdag_train_new(net, ts, &cfg, tg, n, c, e);
}

static void hsdag_trainer_free(void *t) { hsdag_train_free(t); }
static int64_t run(void *t, int64_t n, TrainCallback cb, void *ud, volatile int *stop)
{
    return hsdag_train_run(t, n, cb, ud, stop);
}

/* Its paragraph of `train --help` (the defaults come from the rows). */
static const char train_help[] =
    "With --agent hsdag, the HSDAG grouper-placer trains with REINFORCE: each episode is one update of\n"
    "--episodes-per-update E episodes of --steps T placements (the state carried between them), reward\n"
    "1/runtime, return discounted by --gamma; one-device and OOM placements count as failing runs\n"
    "(--allow-single, --oom graded).\n"
    "example: placeto train graphs/inference/resnet50.json --agent hsdag -c graphs/clusters/cpu_gpu1.json";

const AgentKind agent_hsdag = {
    .name = "hsdag",
    .a_name = "an hsdag",
    .title = "HSDAG, the hierarchical grouper-placer (Duan et al. 2024)",
    .file = {.load = load, .save = save, .free = net_free, .info = info, .params = params, .untrained = untrained},
    .place = {.runs = oneshot_place_runs, .trained_row = "hsdag-trained", .refine = AGENT_REFINE_NONE, .place = place},
    .train = {.unit = "update", .max_groups = POLICY_MAX_GROUPS, .opts = train_opts, .shape = shape,
              .help = train_help,
              .config_size = sizeof(HsdagOpts), .configure = hsdag_options, .state_init = hsdag_state,
              .create = hsdag_create, .trainer_new = hsdag_trainer, .run = run, .trainer_free = hsdag_trainer_free},
    .actor = &actor,
};
