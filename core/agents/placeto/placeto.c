/* placeto: Placeto as a registered agent (agent.h): its policy file, its
 * rows of place and compare, and its trainer with every option `train`
 * takes for it. The explorer steps it natively (its features, message
 * passing and background training), so it has no actor table. */
#include <string.h>

#include "agent.h"
#include "place.h"
#include "placeto_episode.h"
#include "placeto_io.h"
#include "placeto_place.h"
#include "placeto_train.h"

static void *load(const AgentFile *f, TrainState *ts, Err *e) { return placeto_policy_load_doc(&f->doc, ts, e); }
static int save(const void *net, const TrainState *ts, const char *path, Err *e)
{
    return placeto_policy_save(net, ts, path, e);
}
static void net_free(void *net) { policy_free(net); }
static void info(const void *net, AgentInfo *out)
{
    const Policy *p = net;
    *out = (AgentInfo){p->arch.n_devices, 0, 0, 0};
}

/* ---- training (placeto_train.h) ---- */

static const AgentOpt train_opts[] = {
    {"threads", 't', "T", "rollouts in parallel (default 1); results depend on T, deterministically"},
    {"preset", 0, "P", "default settings: search (default: a learned improvement search from the best heuristic's placement), tuned (from device 0) or paper (the authors' code)"},
    {"keep", 0, "K", "the weights the file holds: best (default; paper: last), those whose placement evaluated best at the start and every --eval-every episodes, or last"},
    {"eval-every", 0, "K", "episodes between the evaluations of --keep best (default 50)"},
    {"lr", 0, "X", "Adam learning rate (default 0.001)"},
    {"entropy", 0, "B", "entropy weight beta (default 0.01; paper 1.0)"},
    {"entropy-decay", 0, "K", "beta falls linearly to 0 over K episodes (default: constant)"},
    {"clip", 0, "X", "global gradient-norm clip (default 1.25)"},
    {"gamma", 0, "X", "discount of the returns (default 0: each step's own reward; paper 1)"},
    {"normalize", 0, NULL, "scale each episode's advantages to unit standard deviation"},
    {"temperature", 0, "T", "train the policy softmax(logits / T): sampling sharper (T < 1) or flatter (default 1)"},
    {"passes", 0, "P", "walks over the groups per episode (default 1)"},
    {"init", 0, "MODE", "start: heuristic (default: the best so far, the best heuristic's first), device0 (tuned), random-fixed, random-per-worker (paper code: each worker its own), random-each, best, or a method (metis, ...)"},
    {"random-order", 0, NULL, "visit the groups in a random order (default: topological)"},
    {"reward", 0, "R", "relative (default: improvement / the start's runtime), seconds (paper) or log (log seconds)"},
    {"log-runtime", 0, NULL, "the same as --reward log"},
    {"relative-reward", 0, NULL, "the same as --reward relative"},
    {"accept", 0, "A", "improving (default: undo, after its reward, every move that makes the placement slower) or all (paper)"},
    {"accept-improving", 0, NULL, "the same as --accept improving"},
    {"rejected", 0, "R", "with --accept improving, an undone move's reward: negative (default: the slow-down) or zero (nothing changed)"},
    {"features", 0, "SET", "extended (default: + critical path, load, memory, neighbours) or paper"},
    {"oom-penalty", 0, "X", "seconds per GB over a device's memory (default 2)"},
    {"oom-mode", 0, "MODE", "the memory penalty: per-device (default: each device's excess over its memory, summed) or fullest (paper code: the fullest device's over --max-mem)"},
    {"max-mem", 0, "GB", "with --oom-mode fullest: the memory cap (default 8, the authors' hyperparameters)"},
    {"runtime-cap", 0, "S", "the penalised runtime capped at S seconds (default: none; paper 10)"},
    {"return", 0, "R", "sum (default: the discounted sum of the rewards, --gamma) or min-runtime (paper code: the runtime at step t minus the best reached later)"},
    {"workers", 0, "W", "W episodes a round (on W threads) whose gradients are summed into one Adam step (paper: 4); without it, one step per episode"},
    {"lr-final", 0, "X", "with --lr-decay-steps: the learning rate falls linearly to X (paper 1e-4)"},
    {"lr-decay-steps", 0, "K", "updates over which the learning rate falls to --lr-final (default: constant; paper 1000)"},
    {"entropy-schedule", 0, "S", "beta over the updates: constant (default), linear, exponential or step, from --entropy-start updates on"},
    {"entropy-start", 0, "K", "updates before the entropy schedule starts (default 0)"},
    {"entropy-steps", 0, "K", "linear: updates to reach --entropy-min; exponential: the period of --entropy-rate (default 100)"},
    {"entropy-rate", 0, "X", "exponential: beta times X every --entropy-steps updates (default 0.95)"},
    {"entropy-min", 0, "X", "the lowest beta of a schedule (default 0)"},
    {"mem-feature", 0, NULL, "add the peak-memory feature column"},
    {0},
};
static NnParams *params(void *net) { return &((Policy *)net)->p; }
/* The control: the weights training started from (the file's init_seed), or
 * those of seed for a file that does not record it. */
static void *untrained(const void *net, uint64_t seed, Err *e)
{
    const PolicyArch *a = &((const Policy *)net)->arch;
    return policy_new(a, a->has_init_seed ? a->init_seed : seed, e);
}

/* The configuration `train` gives Placeto's trainer. */
typedef struct PlacetoCfg {
    PlacetoTrainConfig cfg;
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
        {"random-per-worker", EPISODE_INIT_RANDOM_FIXED},
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
    PlacetoTrainConfig *cfg = &pc->cfg;
    const char *preset = agent_arg(a, "preset");
    if (preset && strcmp(preset, "tuned") != 0 && strcmp(preset, "paper") != 0 && strcmp(preset, "search") != 0)
        return err_set(e, "--preset: expected search, tuned or paper, got '%s'", preset);
    int paper = preset && strcmp(preset, "paper") == 0;
    int search = !preset || strcmp(preset, "search") == 0;
    if (paper)
        placeto_train_config_default(cfg);
    else
        placeto_train_config_tuned(cfg);
    cfg->keep_best = !paper;
    if (paper) { /* the authors' code as it runs (docs/agent.md, "The paper preset") */
        cfg->min_runtime_return = 1;
        cfg->sum_gradients = 1;
        cfg->threads = 4;
        cfg->worker_starts = 1;
        cfg->lr_final = 1e-4;
        cfg->lr_decay_steps = 1000;
        cfg->env.oom_fullest = 1;
        cfg->env.max_mem_gb = 8;
        cfg->env.runtime_cap = 10;
    } else {
        cfg->env.max_mem_gb = 8;
    }
    if (search) { /* from the best placement so far, the best heuristic's first; undone moves rewarded 0 */
        cfg->env.init = EPISODE_INIT_GIVEN;
        pc->init_heuristic = 1;
        cfg->env.reject_zero = 1;
    }
    cfg->seed = seed;
    long threads, decay, passes, eval_every, workers, lr_steps, ent_start, ent_steps;
    const char *ret = agent_arg(a, "return"), *oom = agent_arg(a, "oom-mode"), *sched = agent_arg(a, "entropy-schedule");
    if (ret && strcmp(ret, "sum") != 0 && strcmp(ret, "min-runtime") != 0)
        return err_set(e, "--return: expected sum or min-runtime, got '%s'", ret);
    if (ret)
        cfg->min_runtime_return = strcmp(ret, "min-runtime") == 0;
    if (oom && strcmp(oom, "per-device") != 0 && strcmp(oom, "fullest") != 0)
        return err_set(e, "--oom-mode: expected per-device or fullest, got '%s'", oom);
    if (oom)
        cfg->env.oom_fullest = strcmp(oom, "fullest") == 0;
    static const char *const schedules[] = {"constant", "linear", "exponential", "step"};
    if (sched) {
        int k = 0;
        while (k < 4 && strcmp(sched, schedules[k]) != 0)
            k++;
        if (k == 4)
            return err_set(e, "--entropy-schedule: expected constant, linear, exponential or step, got '%s'", sched);
        cfg->ent_schedule = k;
    }
    if (agent_arg_int(a, "workers", 1, 256, cfg->sum_gradients ? cfg->threads : 1, &workers, e) ||
        agent_arg_int(a, "lr-decay-steps", 0, 1L << 40, cfg->lr_decay_steps, &lr_steps, e) ||
        agent_arg_int(a, "entropy-start", 0, 1L << 40, 0, &ent_start, e) ||
        agent_arg_int(a, "entropy-steps", 0, 1L << 40, 100, &ent_steps, e) ||
        agent_arg_double(a, "lr-final", 0, 10, cfg->lr_final, &cfg->lr_final, e) ||
        agent_arg_double(a, "entropy-rate", 0, 1, 0.95, &cfg->ent_rate, e) ||
        agent_arg_double(a, "entropy-min", 0, 1e6, 0, &cfg->ent_min, e) ||
        agent_arg_double(a, "max-mem", 0, 1e9, cfg->env.max_mem_gb, &cfg->env.max_mem_gb, e) ||
        agent_arg_double(a, "runtime-cap", 0, 1e9, cfg->env.runtime_cap, &cfg->env.runtime_cap, e))
        return -1;
    if (agent_arg(a, "workers") && agent_arg(a, "threads"))
        return err_set(e, "--workers sets the threads too (one per worker): give one of them");
    if (agent_arg(a, "workers"))
        cfg->sum_gradients = 1;
    cfg->lr_decay_steps = lr_steps;
    cfg->ent_start = ent_start;
    cfg->ent_steps = ent_steps;
    if (agent_arg(a, "lr-final") && lr_steps == 0)
        return err_set(e, "--lr-final needs --lr-decay-steps K (the updates over which the rate falls)");
    const char *keep = agent_arg(a, "keep");
    if (keep && strcmp(keep, "best") != 0 && strcmp(keep, "last") != 0)
        return err_set(e, "--keep: expected best or last, got '%s'", keep);
    if (keep)
        cfg->keep_best = strcmp(keep, "best") == 0;
    if (agent_arg_int(a, "eval-every", 1, 1L << 40, PLACETO_EVAL_EVERY, &eval_every, e))
        return -1;
    if (agent_arg(a, "eval-every") && !cfg->keep_best)
        return err_set(e, "--eval-every applies to --keep best");
    cfg->eval_every = eval_every;
    if (agent_arg_int(a, "threads", 1, 256, cfg->sum_gradients ? workers : 1, &threads, e) || agent_arg_int(a, "entropy-decay", 0, 1L << 40, 0, &decay, e) ||
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
    } else if (init && parse_init(init, &cfg->env.init) == 0) {
        cfg->worker_starts = strcmp(init, "random-per-worker") == 0;
    } else if (init) {
        if (!(pc->init_method = place_find(init)))
            return err_set(e, "--init: expected heuristic, device0, random-fixed, random-per-worker, random-each, best or a placement "
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
    const PlacetoTrainConfig *cfg = &((const PlacetoCfg *)config)->cfg;
    train_state_init(ts, cfg->lr, cfg->entropy, cfg->seed);
}

static void *create(const void *config, const Problem *pb, int n, const Cluster *c, Err *e)
{
    (void)pb, (void)n;
    const PlacetoTrainConfig *cfg = &((const PlacetoCfg *)config)->cfg;
    PolicyArch arch;
    policy_arch_for(&arch, c->n_devices, cfg->env.mem_feature, cfg->env.extended_features);
    arch.start_device0 = cfg->env.init == EPISODE_INIT_DEVICE0;
    arch.accept_improving = cfg->env.accept_improving;
    arch.start_heuristic = ((const PlacetoCfg *)config)->init_heuristic;
    arch.reject_zero = cfg->env.reject_zero;
    arch.has_init_seed = 1;
    arch.init_seed = cfg->seed;
    return policy_new(&arch, cfg->seed, e);
}

static void resumed(void *net, void *config, const AgentArgs *a)
{
    (void)a;
    Policy *pol = net;
    PlacetoCfg *pc = config;
    if (!pc->features_given) /* the features the policy was built with */
        placeto_episode_config(&pc->cfg.env, &pol->arch);
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
    return placeto_train_new(net, ts, &((const PlacetoCfg *)config)->cfg, tg, n, c, e);
}
static int64_t run(void *t, int64_t n, TrainCallback cb, void *ud, volatile int *stop)
{
    return placeto_train_run(t, n, cb, ud, stop);
}
static void trainer_free(void *t) { placeto_train_free(t); }
static int prepare(TrainState *ts, const void *config, const Problem *pb, int n, Err *e)
{
    const PlacetoCfg *pc = config;
    if (!pc->init_method && !pc->init_heuristic)
        return 0;
    return placeto_train_seed_from_method(ts, pc->init_method, pb, n, &pc->cfg, e);
}
static long round_size(const void *config) { return ((const PlacetoCfg *)config)->cfg.threads; }

const AgentKind agent_placeto = {
    .name = "placeto",
    .a_name = "a Placeto",
    .title = "Placeto, the graph-embedding placer that improves a placement step by step (Addanki et al. 2019)",
    .file = {.load = load, .save = save, .free = net_free, .info = info, .params = params, .untrained = untrained},
    .place = {.runs = placeto_place_runs, .trained_row = "placeto-trained", .refine = AGENT_REFINE_START},
    .train = {.unit = "episode", .max_groups = POLICY_MAX_GROUPS, .opts = train_opts,
              .config_size = sizeof(PlacetoCfg), .configure = configure, .state_init = state_init, .create = create,
              .resumed = resumed, .policy_graphs = 1, .trainer_new = trainer_new, .run = run,
              .trainer_free = trainer_free, .prepare = prepare, .round = round_size},
    .actor = NULL, /* the explorer steps Placeto natively */
};
