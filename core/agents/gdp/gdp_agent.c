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
    .config = oneshot_episode_config,
    .probs = probs,
    .step = step,
};

/* ---- training ---- */

/* --groups' bound for gdp: its network has no size of its own (segments of
 * --segment rows), so it trains on op-level graphs past Placeto's
 * POLICY_MAX_GROUPS (GDP's scale: 50 000 ops and more, docs/results.md) */
#define GDP_TRAIN_MAX_GROUPS (1 << 22)

static const AgentOpt train_opts[] = {
    {"threads", 't', "T", "samples and graphs in parallel (default 1); the same result for every T"},
    {"lr", 0, "X", "Adam learning rate (default 3e-4)"},
    {"entropy", 0, "B", "entropy weight (default 0.01)"},
    {"clip", 0, "X", "global gradient-norm clip (default 1)"},
    {"oom-penalty", 0, "X", "seconds per GB over a device's memory (default 2)"},
    {"samples-per-update", 0, "K", "placements sampled per update and graph, 1-64 (default 16)"},
    {"hidden", 0, "H", "width of a new policy, a multiple of --heads (default 128)"},
    {"greedy-every", 0, "K", "also simulate a greedy placement after every K-th update (default 10; 0: never)"},
    {"epochs", 0, "E", "PPO passes (one Adam step each) per update, 1-64 (default 4)"},
    {"clip-ratio", 0, "X", "PPO's clip range epsilon (default 0.2)"},
    {"batch-graphs", 0, "B", "graphs drawn per update, 1-16 (default 1)"},
    {"heads", 0, "H", "attention heads of a new policy, dividing --hidden (default 4)"},
    {"gnn-layers", 0, "L", "GraphSAGE layers of a new policy, 1-8 (default 2)"},
    {"blocks", 0, "L", "attention blocks of a new policy, 1-8 (default 1)"},
    {"segment", 0, "S", "rows per attention segment of a new policy (default 256)"},
    {"no-superposition", 0, NULL, "a new policy without the per-graph conditioning"},
    {"imitate", 0, "K", "the first K updates imitate an expert search's placements, then PPO (default 0)"},
    {"expert-budget", 0, "K", "placements of the expert's ils search per training graph (default 2000)"},
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
    if (agent_arg_int(a, "threads", 1, GDP_TRAIN_MAX_SAMPLES, 1, &threads, e) ||
        agent_arg_int(a, "samples-per-update", 1, GDP_TRAIN_MAX_SAMPLES, cfg->samples, &samples, e) ||
        agent_arg_int(a, "hidden", 4, 4096, 128, &o->hidden, e) ||
        agent_arg_int(a, "heads", 1, 256, 4, &o->heads, e) ||
        agent_arg_int(a, "gnn-layers", 1, GDP_MAX_LAYERS, 2, &o->gnn_layers, e) ||
        agent_arg_int(a, "blocks", 1, GDP_MAX_LAYERS, 1, &o->blocks, e) ||
        agent_arg_int(a, "segment", 1, 1L << 20, 256, &o->segment, e) ||
        agent_arg_int(a, "greedy-every", 0, 1L << 40, cfg->greedy_every, &greedy, e) ||
        agent_arg_int(a, "epochs", 1, GDP_TRAIN_MAX_EPOCHS, cfg->epochs, &epochs, e) ||
        agent_arg_int(a, "batch-graphs", 1, GDP_TRAIN_MAX_BATCH, cfg->batch_graphs, &batch, e) ||
        agent_arg_int(a, "imitate", 0, 1L << 40, 0, &imitate, e) ||
        agent_arg_int(a, "expert-budget", 1, 1L << 30, cfg->expert_budget, &expert, e) ||
        agent_arg_double(a, "lr", 0, 10, cfg->lr, &cfg->lr, e) ||
        agent_arg_double(a, "entropy", 0, 1e6, cfg->entropy, &cfg->entropy, e) ||
        agent_arg_double(a, "clip", 1e-9, 1e9, cfg->clip, &cfg->clip, e) ||
        agent_arg_double(a, "clip-ratio", 1e-6, 10, cfg->clip_ratio, &cfg->clip_ratio, e) ||
        agent_arg_double(a, "oom-penalty", 0, 1e9, cfg->oom_penalty, &cfg->oom_penalty, e))
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

const AgentKind agent_gdp = {
    .name = "gdp",
    .a_name = "a gdp",
    .title = "GDP, the graph placer trained with PPO (Zhou et al. 2019)",
    .file = {.load = load, .save = save, .free = net_free, .info = info, .params = params, .untrained = untrained},
    .place = {.runs = gdp_place_runs, .trained_row = "gdp-trained", .refine = AGENT_REFINE_FALLBACK, .place = place},
    .train = {.unit = "update", .max_groups = GDP_TRAIN_MAX_GROUPS, .opts = train_opts, .shape = shape,
              .config_size = sizeof(GdpOpts), .configure = gdp_options, .state_init = gdp_state, .create = gdp_create,
              .trainer_new = gdp_trainer, .run = run, .trainer_free = gdp_trainer_free},
    .actor = &actor,
};
