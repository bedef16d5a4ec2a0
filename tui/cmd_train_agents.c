/* train --agent rnn, gdp and hsdag: the learned placers that place a whole
 * graph per sample, trained on one graph or a family through one runner
 * (learned_run) that differs per agent only in its options, its policy file
 * and its trainer (LearnedAgent). */
#include <stdlib.h>
#include <string.h>

#include "cmd_train.h"
#include "dist.h"
#include "gdp_io.h"
#include "gdp_train.h"
#include "hsdag_io.h"
#include "hsdag_train.h"
#include "rnn_io.h"
#include "rnn_train.h"

typedef struct LearnedAgent {
    const char *name;
    long max_groups;
    const char *const *refused[4]; /* option lists this agent refuses, NULL-ended */
    const char *const *shape;      /* options setting a new policy's architecture: refused with --resume */
    void *opts;                    /* the agent's options, filled by options() */
    int (*options)(const CliCmd *cmd, const CliArgs *a, void *opts, uint64_t seed);
    void (*state_init)(TrainState *ts, const void *opts);
    /* loads a policy file: the network, its device count and (0: none) the grouping it read */
    void *(*load)(const char *path, TrainState *ts, int *n_devices, int *n_groups, Err *e);
    void *(*create)(const void *opts, const Problem *pb, int n, const Cluster *c, Err *e);
    void *(*trainer_new)(void *net, TrainState *ts, const void *opts, const TrainGraph *tg, int n, const Cluster *c,
                         Err *e);
    void (*trainer_free)(void *t);
    void (*net_free)(void *net);
    int64_t (*run)(void *t, int64_t n, Progress *pr);
    int (*save)(void *net, const TrainState *ts, const char *out, Err *e);
} LearnedAgent;

/* The op-type vocabulary of the training graphs, and their most groups. */
static int build_vocab(RnnVocab *v, const Problem *pb, int n)
{
    const Graph **gs = xnew_array((size_t)n, sizeof *gs);
    int most = 0;
    for (int i = 0; i < n; i++) {
        gs[i] = pb[i].g;
        if (pb[i].gr->n_groups > most)
            most = pb[i].gr->n_groups;
    }
    rnn_vocab_build(v, gs, n);
    free(gs);
    return most;
}

static int learned_run(const CliCmd *cmd, const CliArgs *a, const LearnedAgent *ag)
{
    for (int l = 0; l < 4 && ag->refused[l]; l++)
        for (int k = 0; ag->refused[l][k]; k++)
            if (cli_get(cmd, a, ag->refused[l][k]))
                return cli_usage_error(cmd, "--%s does not apply to --agent %s", ag->refused[l][k], ag->name);
    long episodes, every;
    uint64_t seed;
    ProblemSpec spec;
    if (cli_problem(cmd, a, a->pos[0], ag->max_groups, 1, &spec, &seed) ||
        cli_int(cmd, a, "episodes", 1, 100000000, 200, &episodes) ||
        cli_int(cmd, a, "checkpoint-every", 1, 1L << 40, 50, &every) || ag->options(cmd, a, ag->opts, seed))
        return EXIT_USAGE;
    for (int k = 0; ag->shape[k]; k++)
        if (cli_get(cmd, a, ag->shape[k]) && cli_get(cmd, a, "resume"))
            return cli_usage_error(cmd, "--%s sets a new policy's architecture; --resume keeps the file's", ag->shape[k]);
    const char *resume = cli_get(cmd, a, "resume"), *out = cli_get(cmd, a, "output");
    if (!out)
        out = resume ? resume : "policy.json";
    Err e = {{0}};
    TrainState ts;
    ag->state_init(&ts, ag->opts);
    void *net = NULL, *t = NULL;
    Cluster *c = NULL;
    int n_graphs = 0, rc = EXIT_FAIL, n_devices = 0, n_groups = 0;
    char **paths = NULL;
    Problem *pb = NULL;
    TrainGraph *tg = NULL;
    int begun = 0; /* train_cli_begin called */
    if (resume) {
        train_state_done(&ts);
        if (!(net = ag->load(resume, &ts, &n_devices, &n_groups, &e)))
            goto done;
        const char *devs = cli_get(cmd, a, "devices");
        if (devs && strtol(devs, NULL, 10) != n_devices) {
            err_set(&e, "%s: the policy is for %d devices but the cluster has %s (--devices %s; leave it out to use %d)",
                    resume, n_devices, devs, devs, n_devices);
            goto done;
        }
        if (ts.adam.step == 0 && ts.episodes == 0) { /* no training state in the file */
            train_state_done(&ts);
            ag->state_init(&ts, ag->opts);
        }
    }
    if (!(paths = train_cli_paths(a, &n_graphs, &e)) || !(c = cli_cluster(cmd, a, net ? n_devices : 2, &e)))
        goto done;
    spec.cluster = c;
    if (resume && n_graphs == 1 && !cli_get(cmd, a, "groups") && n_groups > 0 && n_groups <= ag->max_groups)
        spec.groups = n_groups; /* one graph: the grouping the policy was trained on */
    tg = xnew_array((size_t)n_graphs, sizeof *tg);
    pb = xnew_array((size_t)n_graphs, sizeof *pb);
    if (train_cli_load_graphs(&spec, paths, n_graphs, pb, tg, 0, &e) != 0)
        goto done;
    if (!net && !(net = ag->create(ag->opts, pb, n_graphs, c, &e)))
        goto done;
    if (!(t = ag->trainer_new(net, &ts, ag->opts, tg, n_graphs, c, &e))) {
        err_prefix(&e, resume ? resume : "policy");
        goto done;
    }
    begun = 1;
    if (train_cli_begin(0, pb, n_graphs, &ts, &e) != 0)
        goto done;
    Progress pr = {0};
    pr.json = cli_get(cmd, a, "json") != NULL;
    pr.first = ts.episodes;
    pr.total = episodes;
    pr.graphs = tg;
    pr.n_graphs = n_graphs;
    TrainLoop loop = {ag->run, ag->save, t, net, "update"};
    if (train_cli_loop(&loop, &pr, &ts, every, out, cli_get(cmd, a, "curve"), &e) != 0)
        goto done;
    rc = EXIT_OK;
done:
    if (!begun)
        dist_agree(1, &e);
    if (t)
        ag->trainer_free(t);
    if (net)
        ag->net_free(net);
    train_state_done(&ts);
    if (tg)
        train_cli_free_graphs(pb, tg, n_graphs);
    cluster_free(c);
    for (int i = 0; i < n_graphs; i++)
        free(paths[i]);
    free(paths);
    return rc == EXIT_OK ? rc : cli_fail(&e);
}

/* --- rnn (rnn_train.h) -------------------------------------------------------- */

typedef struct RnnOpts {
    RnnTrainConfig cfg;
    long hidden, cap;
    double squash, tau;
} RnnOpts;

static int rnn_options(const CliCmd *cmd, const CliArgs *a, void *opts, uint64_t seed)
{
    RnnOpts *o = opts;
    RnnTrainConfig *cfg = &o->cfg;
    long threads, samples, greedy;
    rnn_train_config_default(cfg);
    cfg->seed = seed;
    if (cli_int(cmd, a, "threads", 1, RNN_TRAIN_MAX_SAMPLES, 1, &threads) ||
        cli_int(cmd, a, "samples-per-update", 1, RNN_TRAIN_MAX_SAMPLES, 1, &samples) ||
        cli_int(cmd, a, "hidden", 2, 4096, 256, &o->hidden) ||
        cli_int(cmd, a, "greedy-every", 0, 1L << 40, 50, &greedy) ||
        cli_int(cmd, a, "group-capacity", 1, RNN_MAX_GROUPS, 0, &o->cap) ||
        cli_double(cmd, a, "lr", 0, 10, cfg->lr, &cfg->lr) ||
        cli_double(cmd, a, "entropy", 0, 1e6, cfg->entropy, &cfg->entropy) ||
        cli_double(cmd, a, "clip", 1e-9, 1e9, cfg->clip, &cfg->clip) ||
        cli_double(cmd, a, "squash", 1e-3, 1e3, 1, &o->squash) ||
        cli_double(cmd, a, "temperature", 1e-3, 1e3, 1, &o->tau) ||
        cli_double(cmd, a, "noise", 0, 100, cfg->noise, &cfg->noise) ||
        cli_double(cmd, a, "oom-penalty", 0, 1e9, cfg->oom_penalty, &cfg->oom_penalty))
        return EXIT_USAGE;
    if (o->hidden % 2)
        return cli_usage_error(cmd, "--hidden: expected an even number, got %ld", o->hidden);
    cfg->samples = (int)samples;
    cfg->threads = (int)threads;
    cfg->greedy_every = greedy;
    return 0;
}

static void rnn_state(TrainState *ts, const void *opts)
{
    const RnnOpts *o = opts;
    rnn_train_state_init(ts, o->cfg.lr, o->cfg.entropy, o->cfg.seed);
}

static void *rnn_load(const char *path, TrainState *ts, int *n_devices, int *n_groups, Err *e)
{
    RnnNet *net = rnn_policy_load(path, ts, e);
    if (net) {
        *n_devices = net->arch.n_devices;
        *n_groups = net->arch.n_groups;
    }
    return net;
}

static void *rnn_create(const void *opts, const Problem *pb, int n, const Cluster *c, Err *e)
{
    const RnnOpts *o = opts;
    RnnVocab voc;
    int most = build_vocab(&voc, pb, n);
    RnnArch arch;
    rnn_arch_default(&arch, c->n_devices, o->cap ? (int)o->cap : most, voc.n);
    arch.hidden = (int)o->hidden;
    arch.squash_c = o->squash;
    arch.squash_tau = o->tau;
    RnnNet *net = rnn_new(&arch, &voc, o->cfg.seed, e);
    rnn_vocab_done(&voc);
    return net;
}

static void *rnn_trainer(void *net, TrainState *ts, const void *opts, const TrainGraph *tg, int n, const Cluster *c,
                         Err *e)
{
    return rnn_train_new(net, ts, &((const RnnOpts *)opts)->cfg, tg, n, c, e);
}

static void rnn_trainer_free(void *t) { rnn_train_free(t); }
static void rnn_net_free(void *net) { rnn_free(net); }
static int64_t rnn_run(void *t, int64_t n, Progress *pr)
{
    return rnn_train_run(t, n, train_cli_on_episode, pr, &train_cli_stop);
}
static int rnn_save(void *p, const TrainState *ts, const char *out, Err *e) { return rnn_policy_save(p, ts, out, e); }

int train_cli_rnn(const CliCmd *cmd, const CliArgs *a)
{
    static const char *const shape[] = {"hidden", "squash", "temperature", "group-capacity", NULL};
    RnnOpts o;
    LearnedAgent ag = {"rnn", RNN_MAX_GROUPS, {train_cli_placeto_only, train_cli_placeto_hsdag, train_cli_gdp_only, train_cli_hsdag_only}, shape, &o,
                       rnn_options, rnn_state, rnn_load, rnn_create, rnn_trainer, rnn_trainer_free, rnn_net_free,
                       rnn_run, rnn_save};
    return learned_run(cmd, a, &ag);
}

/* --- gdp (gdp_train.h) -------------------------------------------------------- */

typedef struct GdpOpts {
    GdpTrainConfig cfg;
    long hidden, heads, gnn_layers, blocks, segment;
    int superposition;
} GdpOpts;

static int gdp_options(const CliCmd *cmd, const CliArgs *a, void *opts, uint64_t seed)
{
    GdpOpts *o = opts;
    GdpTrainConfig *cfg = &o->cfg;
    long threads, samples, greedy, epochs, batch;
    gdp_train_config_default(cfg);
    cfg->seed = seed;
    if (cli_int(cmd, a, "threads", 1, GDP_TRAIN_MAX_SAMPLES, 1, &threads) ||
        cli_int(cmd, a, "samples-per-update", 1, GDP_TRAIN_MAX_SAMPLES, cfg->samples, &samples) ||
        cli_int(cmd, a, "hidden", 4, 4096, 128, &o->hidden) ||
        cli_int(cmd, a, "heads", 1, 256, 4, &o->heads) ||
        cli_int(cmd, a, "gnn-layers", 1, GDP_MAX_LAYERS, 2, &o->gnn_layers) ||
        cli_int(cmd, a, "blocks", 1, GDP_MAX_LAYERS, 1, &o->blocks) ||
        cli_int(cmd, a, "segment", 1, 1L << 20, 256, &o->segment) ||
        cli_int(cmd, a, "greedy-every", 0, 1L << 40, cfg->greedy_every, &greedy) ||
        cli_int(cmd, a, "epochs", 1, GDP_TRAIN_MAX_EPOCHS, cfg->epochs, &epochs) ||
        cli_int(cmd, a, "batch-graphs", 1, GDP_TRAIN_MAX_BATCH, cfg->batch_graphs, &batch) ||
        cli_double(cmd, a, "lr", 0, 10, cfg->lr, &cfg->lr) ||
        cli_double(cmd, a, "entropy", 0, 1e6, cfg->entropy, &cfg->entropy) ||
        cli_double(cmd, a, "clip", 1e-9, 1e9, cfg->clip, &cfg->clip) ||
        cli_double(cmd, a, "clip-ratio", 1e-6, 10, cfg->clip_ratio, &cfg->clip_ratio) ||
        cli_double(cmd, a, "oom-penalty", 0, 1e9, cfg->oom_penalty, &cfg->oom_penalty))
        return EXIT_USAGE;
    if (o->hidden % o->heads)
        return cli_usage_error(cmd, "--hidden: expected a multiple of the %ld attention heads (--heads), got %ld",
                               o->heads, o->hidden);
    o->superposition = !cli_get(cmd, a, "no-superposition");
    cfg->samples = (int)samples;
    cfg->threads = (int)threads;
    cfg->greedy_every = greedy;
    cfg->epochs = (int)epochs;
    cfg->batch_graphs = (int)batch;
    return 0;
}

static void gdp_state(TrainState *ts, const void *opts)
{
    const GdpOpts *o = opts;
    train_state_init(ts, o->cfg.lr, o->cfg.entropy, o->cfg.seed);
}

static void *gdp_load(const char *path, TrainState *ts, int *n_devices, int *n_groups, Err *e)
{
    GdpNet *net = gdp_policy_load(path, ts, e);
    if (net) {
        *n_devices = net->arch.n_devices;
        *n_groups = 0; /* inductive: each graph its default grouping */
    }
    return net;
}

static void *gdp_create(const void *opts, const Problem *pb, int n, const Cluster *c, Err *e)
{
    const GdpOpts *o = opts;
    RnnVocab voc;
    build_vocab(&voc, pb, n);
    GdpArch arch;
    gdp_arch_default(&arch, c->n_devices, voc.n);
    arch.hidden = (int)o->hidden;
    arch.heads = (int)o->heads;
    arch.gnn_layers = (int)o->gnn_layers;
    arch.blocks = (int)o->blocks;
    arch.segment = (int)o->segment;
    arch.superposition = o->superposition;
    GdpNet *net = gdp_new(&arch, &voc, o->cfg.seed, e);
    rnn_vocab_done(&voc);
    return net;
}

static void *gdp_trainer(void *net, TrainState *ts, const void *opts, const TrainGraph *tg, int n, const Cluster *c,
                         Err *e)
{
    return gdp_train_new(net, ts, &((const GdpOpts *)opts)->cfg, tg, n, c, e);
}

static void gdp_trainer_free(void *t) { gdp_train_free(t); }
static void gdp_net_free(void *net) { gdp_free(net); }
static int64_t gdp_run(void *t, int64_t n, Progress *pr)
{
    return gdp_train_run(t, n, train_cli_on_episode, pr, &train_cli_stop);
}
static int gdp_save(void *p, const TrainState *ts, const char *out, Err *e) { return gdp_policy_save(p, ts, out, e); }

int train_cli_gdp(const CliCmd *cmd, const CliArgs *a)
{
    static const char *const temperature[] = {"temperature", "steps", "episodes-per-update", "baseline", "oom",
                                              "allow-single", "min-clusters", NULL};
    static const char *const shape[] = {"hidden", "heads", "gnn-layers", "blocks", "segment", "no-superposition", NULL};
    GdpOpts o;
    LearnedAgent ag = {"gdp", POLICY_MAX_GROUPS, {train_cli_placeto_only, train_cli_placeto_hsdag, train_cli_rnn_only, temperature}, shape,
                       &o, gdp_options, gdp_state, gdp_load, gdp_create, gdp_trainer, gdp_trainer_free,
                       gdp_net_free, gdp_run, gdp_save};
    return learned_run(cmd, a, &ag);
}

/* --- hsdag (hsdag_train.h) ------------------------------------------------------ */

typedef struct HsdagOpts {
    HsdagTrainConfig cfg;
    long hidden, min_clusters;
    int features, steps_given;
} HsdagOpts;

static int hsdag_options(const CliCmd *cmd, const CliArgs *a, void *opts, uint64_t seed)
{
    HsdagOpts *o = opts;
    HsdagTrainConfig *cfg = &o->cfg;
    long threads, steps, eps, greedy;
    hsdag_train_config_default(cfg);
    cfg->seed = seed;
    if (cli_int(cmd, a, "threads", 1, HSDAG_TRAIN_MAX_EPISODES, 1, &threads) ||
        cli_int(cmd, a, "steps", 1, HSDAG_TRAIN_MAX_STEPS, cfg->steps, &steps) ||
        cli_int(cmd, a, "episodes-per-update", 1, HSDAG_TRAIN_MAX_EPISODES, cfg->episodes, &eps) ||
        cli_int(cmd, a, "hidden", 2, 4096, 128, &o->hidden) ||
        cli_int(cmd, a, "min-clusters", 0, 1L << 20, 0, &o->min_clusters) ||
        cli_int(cmd, a, "greedy-every", 0, 1L << 40, cfg->greedy_every, &greedy) ||
        cli_double(cmd, a, "lr", 0, 10, cfg->lr, &cfg->lr) ||
        cli_double(cmd, a, "gamma", 0, 1, cfg->gamma, &cfg->gamma) ||
        cli_double(cmd, a, "clip", 0, 1e9, cfg->clip, &cfg->clip) ||
        cli_double(cmd, a, "oom-penalty", 0, 1e9, cfg->oom_penalty, &cfg->oom_penalty))
        return EXIT_USAGE;
    const char *f = cli_get(cmd, a, "features"), *b = cli_get(cmd, a, "baseline"), *oom = cli_get(cmd, a, "oom");
    o->features = f ? hsdag_features_parse(f) : HSDAG_F_FAITHFUL;
    if (!o->features)
        return cli_usage_error(cmd, "--features: expected faithful, parity or a comma list of type, shape, id, struct "
                                    "and cost, got '%s'", f);
    if (b && strcmp(b, "none") != 0 && strcmp(b, "ema") != 0)
        return cli_usage_error(cmd, "--baseline: expected none or ema, got '%s'", b);
    if (oom && strcmp(oom, "faithful") != 0 && strcmp(oom, "graded") != 0)
        return cli_usage_error(cmd, "--oom: expected faithful or graded, got '%s'", oom);
    cfg->baseline = b && strcmp(b, "ema") == 0;
    cfg->oom_graded = oom && strcmp(oom, "graded") == 0;
    cfg->allow_single = cli_get(cmd, a, "allow-single") != NULL;
    o->steps_given = cli_get(cmd, a, "steps") != NULL;
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

static void *hsdag_load(const char *path, TrainState *ts, int *n_devices, int *n_groups, Err *e)
{
    HsdagNet *net = hsdag_policy_load(path, ts, e);
    if (net) {
        *n_devices = net->arch.n_devices;
        *n_groups = 0; /* inductive: each graph its default grouping */
    }
    return net;
}

static void *hsdag_create(const void *opts, const Problem *pb, int n, const Cluster *c, Err *e)
{
    const HsdagOpts *o = opts;
    RnnVocab voc;
    build_vocab(&voc, pb, n);
    HsdagArch arch;
    hsdag_arch_default(&arch, c->n_devices, voc.n);
    arch.hidden = (int)o->hidden;
    arch.features = o->features;
    arch.steps = o->cfg.steps;
    if (o->min_clusters > 0)
        arch.min_clusters = (int)o->min_clusters;
    HsdagNet *net = hsdag_new(&arch, &voc, o->cfg.seed, e);
    rnn_vocab_done(&voc);
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
static void hsdag_net_free(void *net) { hsdag_free(net); }
static int64_t hsdag_run(void *t, int64_t n, Progress *pr)
{
    return hsdag_train_run(t, n, train_cli_on_episode, pr, &train_cli_stop);
}
static int hsdag_save(void *p, const TrainState *ts, const char *out, Err *e)
{
    return hsdag_policy_save(p, ts, out, e);
}

int train_cli_hsdag(const CliCmd *cmd, const CliArgs *a)
{
    static const char *const other[] = {"temperature", "samples-per-update", "entropy", NULL};
    static const char *const shape[] = {"hidden", "features", "min-clusters", NULL};
    HsdagOpts o;
    LearnedAgent ag = {"hsdag", POLICY_MAX_GROUPS, {train_cli_placeto_only, train_cli_rnn_only, train_cli_gdp_only, other},
                       shape, &o, hsdag_options, hsdag_state, hsdag_load, hsdag_create, hsdag_trainer,
                       hsdag_trainer_free, hsdag_net_free, hsdag_run, hsdag_save};
    return learned_run(cmd, a, &ag);
}
