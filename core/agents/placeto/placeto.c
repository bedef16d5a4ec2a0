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
    {.name = "threads", .short_name = 't', .arg = "T", .type = AGENT_OPT_INT, .min = 1, .max = 256, .def = "1",
     .note = "paper 4; W with --workers W", .help = "rollouts in parallel; results depend on T, deterministically"},
    {.name = "preset", .arg = "P", .type = AGENT_OPT_WORD, .choices = "search tuned paper", .def = "search",
     .help = "default settings: search (a learned improvement search from the best heuristic's placement), "
             "tuned (from device 0) or paper (the authors' code)"},
    {.name = "keep", .arg = "K", .type = AGENT_OPT_WORD, .choices = "best last", .def = "best",
     .note = "paper: last",
     .help = "the weights the file holds: best, those whose placement evaluated best at the start and every "
             "--eval-every episodes, or last"},
    {.name = "eval-every", .arg = "K", .type = AGENT_OPT_INT, .min = 1, .max = 1L << 40, .def = "50",
     .help = "episodes between the evaluations of --keep best"},
    {.name = "lr", .arg = "X", .type = AGENT_OPT_NUM, .min = 0, .max = 10, .def = "0.001",
     .help = "Adam learning rate"},
    {.name = "entropy", .arg = "B", .type = AGENT_OPT_NUM, .min = 0, .max = 1e6, .def = "0.01", .note = "paper 1.0",
     .help = "entropy weight beta"},
    {.name = "entropy-decay", .arg = "K", .type = AGENT_OPT_INT, .min = 0, .max = 1L << 40, .def = "0",
     .help = "beta falls linearly to 0 over K episodes; 0: constant"},
    {.name = "clip", .arg = "X", .type = AGENT_OPT_NUM, .min = 1e-9, .max = 1e9, .def = "1.25",
     .help = "global gradient-norm clip"},
    {.name = "gamma", .arg = "X", .type = AGENT_OPT_NUM, .min = 0, .max = 1, .def = "0", .note = "paper 1",
     .help = "discount of the returns; 0: each step's own reward"},
    {.name = "normalize", .help = "scale each episode's advantages to unit standard deviation"},
    {.name = "temperature", .arg = "T", .type = AGENT_OPT_NUM, .min = 0.01, .max = 100, .def = "1",
     .help = "train the policy softmax(logits / T): sampling sharper (T < 1) or flatter (T > 1)"},
    {.name = "passes", .arg = "P", .type = AGENT_OPT_INT, .min = 1, .max = 1000, .def = "1",
     .help = "walks over the groups per episode"},
    {.name = "init", .arg = "MODE", .note = "heuristic; tuned: device0, paper: random-per-worker",
     .help = "start: heuristic (the best so far, the best heuristic's first), device0, random-fixed, "
             "random-per-worker (paper code: each worker its own), random-each, best, or a method (metis, ...)"},
    {.name = "random-order", .help = "visit the groups in a random order instead of the topological one"},
    {.name = "reward", .arg = "R", .type = AGENT_OPT_WORD, .choices = "relative seconds log", .def = "relative",
     .note = "paper: seconds", .help = "relative (improvement / the start's runtime), seconds or log (log seconds)"},
    {.name = "log-runtime", .help = "the same as --reward log"},
    {.name = "relative-reward", .help = "the same as --reward relative"},
    {.name = "accept", .arg = "A", .type = AGENT_OPT_WORD, .choices = "improving all", .def = "improving",
     .note = "paper: all; on --resume the policy's",
     .help = "improving (undo, after its reward, every move that makes the placement slower) or all"},
    {.name = "accept-improving", .help = "the same as --accept improving"},
    {.name = "rejected", .arg = "R", .type = AGENT_OPT_WORD, .choices = "negative zero", .def = "zero",
     .note = "tuned, paper: negative",
     .help = "with --accept improving, an undone move's reward: negative (the slow-down) or zero (nothing changed)"},
    {.name = "features", .arg = "SET", .type = AGENT_OPT_WORD, .choices = "extended paper", .def = "extended",
     .note = "--preset paper: paper; on --resume the policy's",
     .help = "extended (+ critical path, load, memory, neighbours) or paper"},
    {.name = "oom-penalty", .arg = "X", .type = AGENT_OPT_NUM, .min = 0, .max = 1e9, .def = "2",
     .help = "seconds per GB over a device's memory"},
    {.name = "oom-mode", .arg = "MODE", .type = AGENT_OPT_WORD, .choices = "per-device fullest", .def = "per-device",
     .note = "paper: fullest",
     .help = "the memory penalty: per-device (each device's excess over its memory, summed) or fullest (the "
             "fullest device's over --max-mem)"},
    {.name = "max-mem", .arg = "GB", .type = AGENT_OPT_NUM, .min = 0, .max = 1e9, .def = "8",
     .note = "the authors' hyperparameters", .help = "with --oom-mode fullest: the memory cap"},
    {.name = "runtime-cap", .arg = "S", .type = AGENT_OPT_NUM, .min = 0, .max = 1e9, .def = "0", .note = "paper 10",
     .help = "the penalised runtime capped at S seconds; 0: none"},
    {.name = "return", .arg = "R", .type = AGENT_OPT_WORD, .choices = "sum min-runtime", .def = "sum",
     .note = "paper: min-runtime",
     .help = "sum (the discounted sum of the rewards, --gamma) or min-runtime (the runtime at step t minus the "
             "best reached later)"},
    {.name = "workers", .arg = "W", .type = AGENT_OPT_INT, .min = 1, .max = 256, .def = "1", .note = "paper 4",
     .help = "W episodes a round (on W threads) whose gradients are summed into one Adam step; without it, one "
             "step per episode"},
    {.name = "lr-final", .arg = "X", .type = AGENT_OPT_NUM, .min = 0, .max = 10, .def = "0", .note = "paper 1e-4",
     .help = "with --lr-decay-steps: the learning rate falls linearly to X"},
    {.name = "lr-decay-steps", .arg = "K", .type = AGENT_OPT_INT, .min = 0, .max = 1L << 40, .def = "0",
     .note = "paper 1000", .help = "updates over which the learning rate falls to --lr-final; 0: constant"},
    {.name = "entropy-schedule", .arg = "S", .type = AGENT_OPT_WORD, .choices = "constant linear exponential step",
     .def = "constant",
     .help = "beta over the updates: constant, linear, exponential or step, from --entropy-start updates on"},
    {.name = "entropy-start", .arg = "K", .type = AGENT_OPT_INT, .min = 0, .max = 1L << 40, .def = "0",
     .help = "updates before the entropy schedule starts"},
    {.name = "entropy-steps", .arg = "K", .type = AGENT_OPT_INT, .min = 0, .max = 1L << 40, .def = "100",
     .help = "linear: updates to reach --entropy-min; exponential: the period of --entropy-rate"},
    {.name = "entropy-rate", .arg = "X", .type = AGENT_OPT_NUM, .min = 0, .max = 1, .def = "0.95",
     .help = "exponential: beta times X every --entropy-steps updates"},
    {.name = "entropy-min", .arg = "X", .type = AGENT_OPT_NUM, .min = 0, .max = 1e6, .def = "0",
     .help = "the lowest beta of a schedule"},
    {.name = "mem-feature", .help = "add the peak-memory feature column"},
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
    const char *preset = agent_opt_word(a, "preset", e);
    if (!preset)
        return -1;
    int paper = strcmp(preset, "paper") == 0;
    int search = strcmp(preset, "search") == 0;
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
    /* the words given (agent_arg) set what the preset left; agent_opt_word checks them */
    const char *ret = agent_opt_word(a, "return", e), *oom, *sched;
    if (!ret)
        return -1;
    if (agent_arg(a, "return"))
        cfg->min_runtime_return = strcmp(ret, "min-runtime") == 0;
    if (!(oom = agent_opt_word(a, "oom-mode", e)))
        return -1;
    if (agent_arg(a, "oom-mode"))
        cfg->env.oom_fullest = strcmp(oom, "fullest") == 0;
    if (!(sched = agent_opt_word(a, "entropy-schedule", e)))
        return -1;
    static const char *const schedules[] = {"constant", "linear", "exponential", "step"}; /* PLACETO_ENT_* */
    int k = 0;
    while (k < 3 && strcmp(sched, schedules[k]) != 0)
        k++;
    cfg->ent_schedule = k;
    if (agent_opt_int_or(a, "workers", cfg->sum_gradients ? cfg->threads : 1, &workers, e) ||
        agent_opt_int_or(a, "lr-decay-steps", cfg->lr_decay_steps, &lr_steps, e) ||
        agent_opt_int(a, "entropy-start", &ent_start, e) || agent_opt_int(a, "entropy-steps", &ent_steps, e) ||
        agent_opt_num_or(a, "lr-final", cfg->lr_final, &cfg->lr_final, e) ||
        agent_opt_num(a, "entropy-rate", &cfg->ent_rate, e) || agent_opt_num(a, "entropy-min", &cfg->ent_min, e) ||
        agent_opt_num(a, "max-mem", &cfg->env.max_mem_gb, e) ||
        agent_opt_num_or(a, "runtime-cap", cfg->env.runtime_cap, &cfg->env.runtime_cap, e))
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
    const char *keep = agent_opt_word(a, "keep", e);
    if (!keep)
        return -1;
    if (agent_arg(a, "keep"))
        cfg->keep_best = strcmp(keep, "best") == 0;
    if (agent_opt_int(a, "eval-every", &eval_every, e))
        return -1;
    if (agent_arg(a, "eval-every") && !cfg->keep_best)
        return err_set(e, "--eval-every applies to --keep best");
    cfg->eval_every = eval_every;
    if (agent_opt_int_or(a, "threads", cfg->sum_gradients ? workers : 1, &threads, e) ||
        agent_opt_int(a, "entropy-decay", &decay, e) || agent_opt_int(a, "passes", &passes, e) ||
        agent_opt_num(a, "lr", &cfg->lr, e) || agent_opt_num_or(a, "entropy", cfg->entropy, &cfg->entropy, e) ||
        agent_opt_num(a, "clip", &cfg->clip, e) || agent_opt_num_or(a, "gamma", cfg->gamma, &cfg->gamma, e) ||
        agent_opt_num(a, "temperature", &cfg->temperature, e) ||
        agent_opt_num(a, "oom-penalty", &cfg->env.oom_penalty, e))
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
    if (!agent_opt_word(a, "reward", e)) /* reward: the word given, else the preset's */
        return -1;
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
    const char *accept = agent_arg(a, "accept"); /* given, else the preset's or a resumed policy's */
    if (!agent_opt_word(a, "accept", e))
        return -1;
    if (accept && strcmp(accept, "all") == 0 && agent_arg(a, "accept-improving"))
        return err_set(e, "--accept-improving contradicts --accept all");
    if (accept)
        cfg->env.accept_improving = strcmp(accept, "improving") == 0;
    else if (agent_arg(a, "accept-improving"))
        cfg->env.accept_improving = 1;
    pc->accept_given = accept || agent_arg(a, "accept-improving");
    const char *rejected = agent_arg(a, "rejected");
    if (!agent_opt_word(a, "rejected", e))
        return -1;
    if (rejected)
        cfg->env.reject_zero = strcmp(rejected, "zero") == 0;
    if (cfg->env.reject_zero && !cfg->env.accept_improving)
        return err_set(e, "--rejected zero (and --preset search) apply to --accept improving: with --accept all no move is undone");
    pc->rejected_given = rejected != NULL || search;
    const char *fset = agent_arg(a, "features");
    if (!agent_opt_word(a, "features", e))
        return -1;
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

/* The explorer's background training: a policy with the extended features
 * was made with the tuned settings and goes on with them, from the
 * episode's own start and rewards relative; one with the paper's features
 * with entropy 0.001, each episode from the best so far (the fixed random
 * start first). The episode's features and acceptance either way. */
static void explore(const void *net, const EpisodeConfig *ep_cfg, uint64_t seed, void *config, TrainState *ts,
                    int first)
{
    PlacetoTrainConfig *tc = &((PlacetoCfg *)config)->cfg;
    int tuned = ((const Policy *)net)->arch.extended;
    if (tuned)
        placeto_train_config_tuned(tc);
    else
        placeto_train_config_default(tc);
    if (first)
        train_state_init(ts, 1e-3, tuned ? tc->entropy : 0.001, seed + 1000);
    if (!tuned)
        tc->entropy = 0.001;
    tc->seed = seed;
    tc->env = *ep_cfg;
    if (!tuned)
        tc->env.init = EPISODE_INIT_GIVEN;
    else
        tc->env.relative_reward = 1;
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
              .help = NULL, /* its paragraph is the command's own text (cmd_train.c) */
              .config_size = sizeof(PlacetoCfg), .configure = configure, .state_init = state_init, .create = create,
              .resumed = resumed, .policy_graphs = 1, .explore = explore, .trainer_new = trainer_new, .run = run,
              .trainer_free = trainer_free, .prepare = prepare, .round = round_size},
    .actor = &placeto_actor,
};
