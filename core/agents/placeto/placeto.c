/* placeto: Placeto as a registered agent (agent.h): its policy file, its
 * rows of place and compare, and its trainer with every option `train`
 * takes for it. The explorer steps it natively (its features, message
 * passing and background training), so it has no actor table. */
#include <string.h>

#include "agent.h"
#include "place.h"
#include "placeto_episode.h"
#include "policy_io.h"
#include "policy_place.h"
#include "train.h"

static void *load(const AgentFile *f, TrainState *ts, Err *e) { return policy_load_doc(&f->doc, ts, e); }
static int save(const void *net, const TrainState *ts, const char *path, Err *e)
{
    return policy_save(net, ts, path, e);
}
static void net_free(void *net) { policy_free(net); }
static void info(const void *net, AgentInfo *out)
{
    const Policy *p = net;
    *out = (AgentInfo){p->arch.n_devices, 0, 0, 0};
}

/* ---- training (train.h) ---- */

static const AgentOpt train_opts[] = {
    {"threads", 't', "T", "rollouts in parallel (default 1); results depend on T, deterministically"},
    {"preset", 0, "P", "default settings: tuned (default), search (a learned improvement search: --init heuristic --rejected zero) or paper"},
    {"lr", 0, "X", "Adam learning rate (default 0.001)"},
    {"entropy", 0, "B", "entropy weight beta (default 0.01; paper 1.0)"},
    {"entropy-decay", 0, "K", "beta falls linearly to 0 over K episodes (default: constant)"},
    {"clip", 0, "X", "global gradient-norm clip (default 1.25)"},
    {"gamma", 0, "X", "discount of the returns (default 0: each step's own reward; paper 1)"},
    {"normalize", 0, NULL, "scale each episode's advantages to unit standard deviation"},
    {"temperature", 0, "T", "train the policy softmax(logits / T): sampling sharper (T < 1) or flatter (default 1)"},
    {"passes", 0, "P", "walks over the groups per episode (default 1)"},
    {"init", 0, "MODE", "start: device0 (default; paper random-fixed), random-fixed, random-each, best, heuristic (the best one's), or a method (metis, ...)"},
    {"random-order", 0, NULL, "visit the groups in a random order (default: topological)"},
    {"reward", 0, "R", "relative (default: improvement / the start's runtime), seconds (paper) or log (log seconds)"},
    {"log-runtime", 0, NULL, "the same as --reward log"},
    {"relative-reward", 0, NULL, "the same as --reward relative"},
    {"accept", 0, "A", "improving (default: undo, after its reward, every move that makes the placement slower) or all (paper)"},
    {"accept-improving", 0, NULL, "the same as --accept improving"},
    {"rejected", 0, "R", "with --accept improving, an undone move's reward: negative (default: the slow-down) or zero (nothing changed)"},
    {"features", 0, "SET", "extended (default: + critical path, load, memory, neighbours) or paper"},
    {"oom-penalty", 0, "X", "seconds per GB over a device's memory (default 2)"},
    {"mem-feature", 0, NULL, "add the peak-memory feature column"},
    {0},
};
static NnParams *params(void *net) { return &((Policy *)net)->p; }
static void *untrained(const void *net, uint64_t seed, Err *e) { return policy_new(&((const Policy *)net)->arch, seed, e); }

/* The configuration `train` gives Placeto's trainer. */
typedef struct PlacetoCfg {
    TrainConfig cfg;
    const PlaceMethod *init_method; /* --init METHOD */
    int init_heuristic;             /* --init heuristic */
    /* given on the command line (else a resumed policy's own) */
    int features_given, accept_given, init_given, rejected_given;
} PlacetoCfg;

static int parse_init(const char *s, EpisodeInit *out)
{
    static const struct {
        const char *name;
        EpisodeInit v;
    } modes[] = {
        {"random-fixed", EPISODE_INIT_RANDOM_FIXED}, {"device0", EPISODE_INIT_DEVICE0},
        {"random-each", EPISODE_INIT_RANDOM_EACH}, {"best", EPISODE_INIT_GIVEN},
    };
    for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++)
        if (strcmp(s, modes[k].name) == 0) {
            *out = modes[k].v;
            return 0;
        }
    return -1;
}

static int configure(const AgentArgs *a, uint64_t seed, void *config, Err *e)
{
    PlacetoCfg *pc = config;
    TrainConfig *cfg = &pc->cfg;
    const char *preset = agent_arg(a, "preset");
    if (preset && strcmp(preset, "tuned") != 0 && strcmp(preset, "paper") != 0 && strcmp(preset, "search") != 0)
        return err_set(e, "--preset: expected tuned, search or paper, got '%s'", preset);
    int search = preset && strcmp(preset, "search") == 0;
    if (preset && strcmp(preset, "paper") == 0)
        train_config_default(cfg);
    else
        train_config_tuned(cfg);
    if (search) { /* from the best placement so far, the best heuristic's first; undone moves rewarded 0 */
        cfg->env.init = EPISODE_INIT_GIVEN;
        pc->init_heuristic = 1;
        cfg->env.reject_zero = 1;
    }
    cfg->seed = seed;
    long threads, decay, passes;
    if (agent_arg_int(a, "threads", 1, 256, 1, &threads, e) || agent_arg_int(a, "entropy-decay", 0, 1L << 40, 0, &decay, e) ||
        agent_arg_int(a, "passes", 1, 1000, 1, &passes, e) || agent_arg_double(a, "lr", 0, 10, 1e-3, &cfg->lr, e) ||
        agent_arg_double(a, "entropy", 0, 1e6, cfg->entropy, &cfg->entropy, e) ||
        agent_arg_double(a, "clip", 1e-9, 1e9, 1.25, &cfg->clip, e) ||
        agent_arg_double(a, "gamma", 0, 1, cfg->gamma, &cfg->gamma, e) ||
        agent_arg_double(a, "temperature", 0.01, 100, 1.0, &cfg->temperature, e) ||
        agent_arg_double(a, "oom-penalty", 0, 1e9, 2.0, &cfg->env.oom_penalty, e))
        return -1;
    const char *init = agent_arg(a, "init");
    pc->init_given = init != NULL || search;
    if (init)
        pc->init_heuristic = strcmp(init, "heuristic") == 0;
    if (pc->init_heuristic) {
        cfg->env.init = EPISODE_INIT_GIVEN;
    } else if (init && parse_init(init, &cfg->env.init) != 0) {
        if (!(pc->init_method = place_find(init)))
            return err_set(e, "--init: expected random-fixed, device0, random-each, best, heuristic or a placement "
                              "method, got '%s'", init);
        cfg->env.init = EPISODE_INIT_GIVEN;
    }
    cfg->entropy_decay = decay;
    cfg->threads = (int)threads;
    cfg->env.passes = (int)passes;
    cfg->env.random_order = agent_arg(a, "random-order") != NULL;
    const char *reward = agent_arg(a, "reward");
    const char *logr = agent_arg(a, "log-runtime"), *relr = agent_arg(a, "relative-reward");
    if (reward && strcmp(reward, "relative") != 0 && strcmp(reward, "seconds") != 0 && strcmp(reward, "log") != 0)
        return err_set(e, "--reward: expected relative, seconds or log, got '%s'", reward);
    if (reward && logr && strcmp(reward, "log") != 0)
        return err_set(e, "--log-runtime contradicts --reward %s", reward);
    if (relr && (logr || (reward && strcmp(reward, "relative") != 0)))
        return err_set(e, "--relative-reward contradicts --%s", logr ? "log-runtime" : "reward");
    if (logr)
        reward = "log";
    if (relr)
        reward = "relative";
    if (reward) {
        cfg->env.log_runtime = strcmp(reward, "log") == 0;
        cfg->env.relative_reward = strcmp(reward, "relative") == 0;
    }
    cfg->env.mem_feature = agent_arg(a, "mem-feature") != NULL;
    const char *accept = agent_arg(a, "accept");
    if (accept && strcmp(accept, "improving") != 0 && strcmp(accept, "all") != 0)
        return err_set(e, "--accept: expected improving or all, got '%s'", accept);
    if (accept && strcmp(accept, "all") == 0 && agent_arg(a, "accept-improving"))
        return err_set(e, "--accept-improving contradicts --accept all");
    if (accept)
        cfg->env.accept_improving = strcmp(accept, "improving") == 0;
    else if (agent_arg(a, "accept-improving"))
        cfg->env.accept_improving = 1;
    pc->accept_given = accept || agent_arg(a, "accept-improving");
    const char *rejected = agent_arg(a, "rejected");
    if (rejected && strcmp(rejected, "zero") != 0 && strcmp(rejected, "negative") != 0)
        return err_set(e, "--rejected: expected zero or negative, got '%s'", rejected);
    if (rejected)
        cfg->env.reject_zero = strcmp(rejected, "zero") == 0;
    if (cfg->env.reject_zero && !cfg->env.accept_improving)
        return err_set(e, "--rejected zero (and --preset search) apply to --accept improving: with --accept all no move is undone");
    pc->rejected_given = rejected != NULL || search;
    const char *fset = agent_arg(a, "features");
    if (fset && strcmp(fset, "paper") != 0 && strcmp(fset, "extended") != 0)
        return err_set(e, "--features: expected paper or extended, got '%s'", fset);
    if (fset)
        cfg->env.extended_features = strcmp(fset, "extended") == 0;
    pc->features_given = fset || cfg->env.mem_feature;
    cfg->normalize_adv = agent_arg(a, "normalize") != NULL;
    return 0;
}

static void state_init(TrainState *ts, const void *config)
{
    const TrainConfig *cfg = &((const PlacetoCfg *)config)->cfg;
    train_state_init(ts, cfg->lr, cfg->entropy, cfg->seed);
}

static void *create(const void *config, const Problem *pb, int n, const Cluster *c, Err *e)
{
    (void)pb, (void)n;
    const TrainConfig *cfg = &((const PlacetoCfg *)config)->cfg;
    PolicyArch arch;
    policy_arch_for(&arch, c->n_devices, cfg->env.mem_feature, cfg->env.extended_features);
    arch.start_device0 = cfg->env.init == EPISODE_INIT_DEVICE0;
    arch.accept_improving = cfg->env.accept_improving;
    arch.start_heuristic = ((const PlacetoCfg *)config)->init_heuristic;
    arch.reject_zero = cfg->env.reject_zero;
    return policy_new(&arch, cfg->seed, e);
}

static void resumed(void *net, void *config, const AgentArgs *a)
{
    (void)a;
    Policy *pol = net;
    PlacetoCfg *pc = config;
    if (!pc->features_given) /* the features the policy was built with */
        episode_config_features(&pc->cfg.env, &pol->arch);
    if (!pc->accept_given) /* as the policy was trained */
        pc->cfg.env.accept_improving = pol->arch.accept_improving;
    pol->arch.accept_improving = pc->cfg.env.accept_improving; /* how it now places */
    if (!pc->rejected_given)
        pc->cfg.env.reject_zero = pol->arch.reject_zero && pc->cfg.env.accept_improving;
    pol->arch.reject_zero = pc->cfg.env.reject_zero;
    if (!pc->init_given) /* the start the policy was trained from (heuristic: the best so far, kept in the file) */
        pc->cfg.env.init = pol->arch.start_device0    ? EPISODE_INIT_DEVICE0
                           : pol->arch.start_heuristic ? EPISODE_INIT_GIVEN
                                                       : EPISODE_INIT_RANDOM_FIXED;
}

static void *trainer_new(void *net, TrainState *ts, const void *config, const TrainGraph *tg, int n, const Cluster *c,
                         Err *e)
{
    return train_new(net, ts, &((const PlacetoCfg *)config)->cfg, tg, n, c, e);
}
static int64_t run(void *t, int64_t n, TrainCallback cb, void *ud, volatile int *stop)
{
    return train_run(t, n, cb, ud, stop);
}
static void trainer_free(void *t) { train_free(t); }
static int prepare(TrainState *ts, const void *config, const Problem *pb, int n, Err *e)
{
    const PlacetoCfg *pc = config;
    if (!pc->init_method && !pc->init_heuristic)
        return 0;
    return train_seed_from_method(ts, pc->init_method, pb, n, &pc->cfg, e);
}
static long round_size(const void *config) { return ((const PlacetoCfg *)config)->cfg.threads; }

const AgentKind agent_placeto = {
    "placeto", "a Placeto", "Placeto, the graph-embedding placer that improves a placement step by step "
                            "(Addanki et al. 2019)",
    {load, save, net_free, info, params, untrained},
    {placeto_place_runs, "placeto-trained", AGENT_REFINE_START, NULL},
    {"episode", POLICY_MAX_GROUPS, train_opts, NULL, sizeof(PlacetoCfg), configure, state_init, create, resumed, 1,
     trainer_new, run, trainer_free, prepare, round_size},
    NULL,
};
