/* gdp_agent: GDP as a registered agent (agent.h). */
#include <string.h>

#include "agent.h"
#include "gdp_episode.h"
#include "gdp_io.h"
#include "gdp_place.h"
#include "gdp_train.h"
#include "oneshot.h"

static void *load(const AgentFile *f, TrainState *ts, Err *e) { return gdp_policy_load_doc(&f->doc, ts, e); }
static int save(const void *net, const TrainState *ts, const char *path, Err *e)
{
    return gdp_policy_save(net, ts, path, e);
}
static void net_free(void *net) { gdp_free(net); }
static void info(const void *net, AgentInfo *out)
{
    const GdpNet *n = net;
    *out = (AgentInfo){n->arch.n_devices, 0, n->arch.heads, 0};
}
static NnParams *params(void *net) { return &((GdpNet *)net)->p; }
static void *untrained(const void *net, uint64_t seed, Err *e)
{
    const GdpNet *n = net;
    return gdp_new(&n->arch, &n->vocab, seed, e);
}
static int64_t place(const void *net, const Graph *g, const Grouping *gr, const Cluster *c, int samples,
                     uint64_t seed, int *group_device, double *runtime_us, Err *e)
{
    return gdp_place(net, g, gr, c, samples, seed, group_device, runtime_us, e);
}

static int check(const Episode *ep, const void *net, Err *e) { return gdp_episode_check(ep, net, e); }
static void *actor_new(const void *net, const Graph *g, const Grouping *gr, const Cluster *c, Err *e)
{
    (void)c;
    return gdp_actor_new(net, g, gr, e);
}
static void actor_free(void *ac) { gdp_actor_free(ac); }
static const float *probs(void *ac, const Episode *ep, const float **att) { return gdp_actor_probs(ac, ep, att); }
static const EpisodeStep *step(Episode *ep, void *ac, int greedy) { return gdp_episode_step(ep, ac, greedy); }

static const AgentActorOps actor = {
    .does = "gives every group its distribution in one forward pass, applied once, in order, from device 0",
    .start = "gives them all their distributions in one forward pass, applied in order from device 0",
    .attends = "the groups the gdp network's attention weighs most for the current group",
    .reads = {"(these feature rows are Placeto's and do not apply to the gdp policy: it reads each",
              " group's op types, size, cost and edges once, never the devices: one pass places all)"},
    .check = check,
    .actor_new = actor_new,
    .actor_free = actor_free,
    .config = oneshot_actor_config,
    .one_pass = 1,
    .probs = probs,
    .step = step,
};

/* ---- training ---- */

/* --groups' bound for gdp: its network has no size of its own (segments of
 * --segment rows), so it trains on op-level graphs past Placeto's
 * POLICY_MAX_GROUPS (GDP's scale: 50 000 ops and more, docs/results.md) */
#define GDP_TRAIN_MAX_GROUPS (1 << 22)

static const AgentOpt train_opts[] = {
    {.name = "threads", .short_name = 't', .arg = "T", .type = AGENT_OPT_INT, .min = 1, .max = GDP_TRAIN_MAX_SAMPLES,
     .def = "1", .help = "samples and graphs in parallel; the same result for every T"},
    {.name = "lr", .arg = "X", .type = AGENT_OPT_NUM, .min = 0, .max = 10, .def = "3e-4", .help = "Adam learning rate"},
    {.name = "entropy", .arg = "B", .type = AGENT_OPT_NUM, .min = 0, .max = 1e6, .def = "0.01",
     .help = "entropy weight"},
    {.name = "clip", .arg = "X", .type = AGENT_OPT_NUM, .min = 1e-9, .max = 1e9, .def = "1",
     .help = "global gradient-norm clip"},
    {.name = "oom-penalty", .arg = "X", .type = AGENT_OPT_NUM, .min = 0, .max = 1e9, .def = "2",
     .help = "seconds per GB over a device's memory"},
    {.name = "samples-per-update", .arg = "K", .type = AGENT_OPT_INT, .min = 1, .max = GDP_TRAIN_MAX_SAMPLES,
     .def = "16", .help = "placements sampled per update and graph"},
    {.name = "hidden", .arg = "H", .type = AGENT_OPT_INT, .min = 4, .max = 4096, .def = "128",
     .help = "width of a new policy, a multiple of --heads"},
    {.name = "greedy-every", .arg = "K", .type = AGENT_OPT_INT, .min = 0, .max = 1L << 40, .def = "10",
     .help = "also simulate a greedy placement after every K-th update; 0: never"},
    {.name = "epochs", .arg = "E", .type = AGENT_OPT_INT, .min = 1, .max = GDP_TRAIN_MAX_EPOCHS, .def = "4",
     .help = "PPO passes (one Adam step each) per update"},
    {.name = "clip-ratio", .arg = "X", .type = AGENT_OPT_NUM, .min = 1e-6, .max = 10, .def = "0.2",
     .help = "PPO's clip range epsilon"},
    {.name = "batch-graphs", .arg = "B", .type = AGENT_OPT_INT, .min = 1, .max = GDP_TRAIN_MAX_BATCH, .def = "1",
     .help = "graphs drawn per update"},
    {.name = "heads", .arg = "H", .type = AGENT_OPT_INT, .min = 1, .max = 256, .def = "4",
     .help = "attention heads of a new policy, dividing --hidden"},
    {.name = "gnn-layers", .arg = "L", .type = AGENT_OPT_INT, .min = 1, .max = GDP_MAX_LAYERS, .def = "2",
     .help = "GraphSAGE layers of a new policy"},
    {.name = "blocks", .arg = "L", .type = AGENT_OPT_INT, .min = 1, .max = GDP_MAX_LAYERS, .def = "1",
     .help = "attention blocks of a new policy"},
    {.name = "segment", .arg = "S", .type = AGENT_OPT_INT, .min = 1, .max = 1L << 20, .def = "256",
     .help = "rows per attention segment of a new policy"},
    {.name = "no-superposition", .help = "a new policy without the per-graph conditioning"},
    {.name = "imitate", .arg = "K", .type = AGENT_OPT_INT, .min = 0, .max = 1L << 40, .def = "0",
     .help = "the first K updates imitate an expert search's placements, then PPO"},
    {.name = "expert-budget", .arg = "K", .type = AGENT_OPT_INT, .min = 1, .max = 1L << 30, .def = "2000",
     .help = "placements of the expert's ils search per training graph"},
    {0},
};
static const char *const shape[] = {"hidden", "heads", "gnn-layers", "blocks", "segment", "no-superposition", NULL};

typedef struct GdpOpts {
    GdpTrainConfig cfg;
    long hidden, heads, gnn_layers, blocks, segment;
    int superposition;
} GdpOpts;

static int gdp_options(const AgentArgs *a, uint64_t seed, void *opts, Err *e)
{
    GdpOpts *o = opts;
    GdpTrainConfig *cfg = &o->cfg;
    long threads, samples, greedy, epochs, batch, imitate, expert;
    gdp_train_config_default(cfg);
    cfg->seed = seed;
    /* the rows' defaults are gdp_train_config_default's */
    if (agent_opt_int(a, "threads", &threads, e) || agent_opt_int(a, "samples-per-update", &samples, e) ||
        agent_opt_int(a, "hidden", &o->hidden, e) || agent_opt_int(a, "heads", &o->heads, e) ||
        agent_opt_int(a, "gnn-layers", &o->gnn_layers, e) || agent_opt_int(a, "blocks", &o->blocks, e) ||
        agent_opt_int(a, "segment", &o->segment, e) || agent_opt_int(a, "greedy-every", &greedy, e) ||
        agent_opt_int(a, "epochs", &epochs, e) || agent_opt_int(a, "batch-graphs", &batch, e) ||
        agent_opt_int(a, "imitate", &imitate, e) || agent_opt_int(a, "expert-budget", &expert, e) ||
        agent_opt_num(a, "lr", &cfg->lr, e) || agent_opt_num(a, "entropy", &cfg->entropy, e) ||
        agent_opt_num(a, "clip", &cfg->clip, e) || agent_opt_num(a, "clip-ratio", &cfg->clip_ratio, e) ||
        agent_opt_num(a, "oom-penalty", &cfg->oom_penalty, e))
        return -1;
    if (o->hidden % o->heads)
        return err_set(e, "--hidden: expected a multiple of the %ld attention heads (--heads), got %ld",
                               o->heads, o->hidden);
    o->superposition = !agent_arg(a, "no-superposition");
    cfg->samples = (int)samples;
    cfg->threads = (int)threads;
    cfg->greedy_every = greedy;
    cfg->epochs = (int)epochs;
    cfg->batch_graphs = (int)batch;
    cfg->imitate = imitate;
    cfg->expert_budget = expert;
    return 0;
}

static void gdp_state(TrainState *ts, const void *opts)
{
    const GdpOpts *o = opts;
    train_state_init(ts, o->cfg.lr, o->cfg.entropy, o->cfg.seed);
}

static void *gdp_create(const void *opts, const Problem *pb, int n, const Cluster *c, Err *e)
{
    const GdpOpts *o = opts;
    OpVocab voc;
    vocab_build_problems(&voc, pb, n);
    GdpArch arch;
    gdp_arch_default(&arch, c->n_devices, voc.n);
    arch.hidden = (int)o->hidden;
    arch.heads = (int)o->heads;
    arch.gnn_layers = (int)o->gnn_layers;
    arch.blocks = (int)o->blocks;
    arch.segment = (int)o->segment;
    arch.superposition = o->superposition;
    GdpNet *net = gdp_new(&arch, &voc, o->cfg.seed, e);
    vocab_done(&voc);
    return net;
}

static void *gdp_trainer(void *net, TrainState *ts, const void *opts, const TrainGraph *tg, int n, const Cluster *c,
                         Err *e)
{
    return gdp_train_new(net, ts, &((const GdpOpts *)opts)->cfg, tg, n, c, e);
}

static void gdp_trainer_free(void *t) { gdp_train_free(t); }
static int64_t run(void *t, int64_t n, TrainCallback cb, void *ud, volatile int *stop)
{
    return gdp_train_run(t, n, cb, ud, stop);
}

/* Its paragraph of `train --help` (the defaults come from the rows). */
static const char train_help[] =
    "With --agent gdp, the GDP placer trains with PPO on one graph or a family: each episode is one\n"
    "update (--batch-graphs B graphs drawn, K placements of each, then --epochs E passes, one Adam\n"
    "step each). Its policy places any graph on its device count: --resume FAMILY.json on a new graph\n"
    "fine-tunes it.\n"
    "example: placeto train graphs/families/nmt --agent gdp --episodes 300 -o gdp.json";

const AgentKind agent_gdp = {
    .name = "gdp",
    .a_name = "a gdp",
    .title = "GDP, the graph placer trained with PPO (Zhou et al. 2019)",
    .file = {.load = load, .save = save, .free = net_free, .info = info, .params = params, .untrained = untrained},
    .place = {.runs = gdp_place_runs, .trained_row = "gdp-trained", .refine = AGENT_REFINE_FALLBACK, .place = place},
    .train = {.unit = "update", .max_groups = GDP_TRAIN_MAX_GROUPS, .opts = train_opts, .shape = shape,
              .help = train_help,
              .config_size = sizeof(GdpOpts), .configure = gdp_options, .state_init = gdp_state, .create = gdp_create,
              .trainer_new = gdp_trainer, .run = run, .trainer_free = gdp_trainer_free},
    .actor = &actor,
};
