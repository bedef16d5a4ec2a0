/* Training the GDP placer with PPO (core/agent/gdp_train.h) and its policy
 * file (gdp_io.h): on toy_chain grouped into 4 groups on 2 devices, where
 * every split pays a transfer and so the two one-device placements are the
 * best, a hundred updates make them far more likely; a run is deterministic
 * per seed and gives the same bits on 1, 2 or K threads; N + M updates in
 * one run and N, save, load, M give byte-identical files (with threads
 * and the greedy period crossing the resume; the defaults:
 * test_contract.c, with the file's round trip and the other loaders'
 * refusals); the file names its agent and architecture; a bad gdp file is
 * refused with the field named (placing and training on a graph of op
 * types it never saw: test_contract.c); an update's gradient (one
 * forward and one backward per graph) equals the per-sample gradients of
 * the unbatched update summed, within float rounding; a family batch
 * gives the same weights on 1, 2 and 3 threads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gdp_io.h"
#include "gdp_place.h"
#include "gdp_train.h"
#include "gradref.h"
#include "placeto_io.h"
#include "ppo.h"
#include "problem.h"
#include "rnn_io.h"
#include "test.h"
#include "testutil.h"
#include "text_cases.h"
#include "agent_fixture.h"

static GdpNet *tiny_net(const TrainFix *f, uint64_t seed)
{
    GdpArch a;
    gdp_arch_default(&a, f->pb.c->n_devices, f->voc.n);
    a.hidden = 8;
    a.heads = 2;
    a.segment = 3; /* the memory is crossed */
    Err e = {{0}};
    GdpNet *net = gdp_new(&a, &f->voc, seed, &e);
    CHECK_MSG(net != NULL, "gdp_new: %s", e.msg);
    return net;
}

/* P(every group on one device), exactly: the groups are independent given
 * the graph, so it is pi(all 0) + pi(all 1). */
static double p_one_device(const GdpNet *net, const TrainFix *f)
{
    Err e = {{0}};
    GdpInput *in = gdp_input_new(f->pb.g, f->pb.gr, &net->vocab, &e);
    GdpWork *w = gdp_work_new(&net->arch, f->pb.gr->n_groups);
    int G = f->pb.gr->n_groups, place[64];
    double p = 0;
    for (int d = 0; d < 2 && in && G <= 64; d++) {
        for (int k = 0; k < G; k++)
            place[k] = d;
        p += exp(gdp_forward(net, in, w, GDP_SCORE, NULL, place, NULL, NULL));
    }
    gdp_work_free(w);
    gdp_input_free(in);
    return p;
}

TEST(gdp_train_learns_the_best_placement)
{
    TrainFix f;
    if (train_fix_new(&f, "graphs/toy/chain.json", 4) != 0)
        return;
    REQUIRE_MSG(f.pb.gr->n_groups >= 3 && f.pb.gr->n_groups <= 8, "chain grouped into %d groups", f.pb.gr->n_groups);
    GdpNet *net = tiny_net(&f, 3);
    REQUIRE(net);
    GdpTrainConfig cfg;
    gdp_train_config_default(&cfg);
    cfg.lr = 0.01;
    TrainState ts;
    train_state_init(&ts, cfg.lr, cfg.entropy, 5);
    double before = p_one_device(net, &f);
    CHECK_INT(gdp_fix_train(net, &ts, &cfg, &f, 60), 60);
    double after = p_one_device(net, &f);
    CHECK_MSG(after > 2 * before && after > 0.5, "P(one device) %.4f before, %.4f after 60 updates", before, after);
    CHECK_INT(ts.episodes, 60);
    CHECK_INT(ts.adam.step, 240); /* 4 epochs per update */
    CHECK_INT(ts.simulations, 60 * 16 + 6); /* and a greedy placement after every 10th update */
    REQUIRE(ts.n_best == 1);
    int *op = calloc((size_t)f.pb.g->n_nodes, sizeof *op); /* every op on device 0 */
    double one = op ? sim_run(f.pb.sim, op)->makespan_us : 0;
    free(op);
    CHECK_MSG(ts.best[0].runtime_us <= one, "best %.1f us, one device %.1f us", ts.best[0].runtime_us, one);
    train_state_done(&ts);
    gdp_free(net);
    train_fix_done(&f);
}

/* n1 updates, save (with state), load, n2 more, save to path. */
static int run_split(const TrainFix *f, int n1, int n2, int samples, int threads, const char *mid, const char *path)
{
    GdpTrainConfig cfg;
    gdp_train_config_default(&cfg);
    cfg.samples = samples;
    cfg.threads = threads;
    cfg.epochs = 2;
    cfg.lr = 0.003;
    cfg.greedy_every = 2; /* the greedy placement's period crosses the resume */
    TrainState ts;
    train_state_init(&ts, cfg.lr, cfg.entropy, 9);
    return split_run(agent_find("gdp"), gdp_fix_train, f, &cfg, tiny_net(f, 4), &ts, n1, n2, mid, path);
}

TEST(gdp_train_resume_is_bit_exact)
{
    TrainFix f;
    SplitFiles sf;
    if (train_fix_new(&f, "graphs/toy/chain.json", 4) != 0)
        return;
    REQUIRE_MSG(split_files_open(&sf, "placeto_gdp_train"), "mkdtemp failed");
    const char *a = sf.a, *b = sf.b, *c = sf.c, *m = sf.m;
    for (int samples = 1; samples <= 3; samples += 2) {
        if (run_split(&f, 5, 0, samples, 1, m, a) == 0 && run_split(&f, 2, 3, samples, 1, m, b) == 0)
            CHECK_MSG(same_file_bytes(a, b), "K=%d: 5 updates differ from 2 + resume + 3", samples);
        /* determinism: the same run twice; and on K threads the same bits */
        if (run_split(&f, 5, 0, samples, 1, m, c) == 0)
            CHECK(same_file_bytes(a, c));
        if (samples > 1 && run_split(&f, 5, 0, samples, samples, m, c) == 0)
            CHECK_MSG(same_file_bytes(a, c), "K=%d: %d threads differ from 1", samples, samples);
        if (samples > 1 && run_split(&f, 5, 0, samples, 2, m, c) == 0)
            CHECK_MSG(same_file_bytes(a, c), "K=%d: 2 threads differ from 1", samples);
    }
    /* load -> save is byte-identical */
    TrainState ts;
    GdpNet *net = split_reload(agent_find("gdp"), a, c, &ts);
    if (net) {
        CHECK_INT(ts.episodes, 5);
        CHECK_INT(ts.adam.step, 10);
        CHECK_INT(ts.simulations, 15 + 2); /* 5 updates of 3 samples, greedy after updates 2 and 4 */
    }
    train_state_done(&ts);
    gdp_free(net);
    split_files_close(&sf);
    train_fix_done(&f);
}

TEST(gdp_policy_file_names_its_agent)
{
    TrainFix f;
    TmpDir td;
    if (train_fix_new(&f, "graphs/toy/chain.json", 4) != 0)
        return;
    REQUIRE_MSG(tmp_open(&td, "placeto_gdp_io"), "mkdtemp failed");
    char p[128];
    tmp_file(p, sizeof p, &td, "gdp.json");
    GdpNet *net = tiny_net(&f, 1);
    Err e = {{0}};
    if (net && gdp_policy_save(net, NULL, p, &e) == 0) {
        size_t len;
        char *text = read_all(p, &len);
        CHECK(text && strstr(text, "\"agent\": \"gdp\""));
        CHECK(text && strstr(text, "\"superposition\": true"));
        free(text);
        int nd = 0, nt = -1;
        CHECK_INT(gdp_policy_peek(p, &nd, &nt, &e), 1);
        CHECK_INT(nd, 2);
        CHECK_INT(nt, 0);
        CHECK_INT(rnn_policy_peek(p, NULL, NULL, NULL, &e), 0);
    } else {
        CHECK_MSG(0, "save: %s", e.msg);
    }
    /* the other agents' files: gdp's peek passes them by (its loader
       refuses them: test_contract.c) */
    CHECK_INT(gdp_policy_peek("graphs/policies/inception_v3_2.json", NULL, NULL, &e), 0);
    gdp_free(net);
    tmp_close(&td);
    train_fix_done(&f);
}

/* A bad gdp policy file is refused with the field named, nothing loaded. */
TEST(gdp_policy_file_errors)
{
    TrainFix f;
    if (train_fix_new(&f, "graphs/toy/chain.json", 4) != 0)
        return;
    GdpNet *net = tiny_net(&f, 1);
    TrainState ts;
    train_state_init(&ts, 3e-4, 0.01, 1);
    static const TextCase bad[] = {
        {"\"hidden\": 8", "\"hidden\": 7", "architecture.hidden: expected a multiple of heads"},
        {"\"n_devices\": 2", "\"n_devices\": 0", "architecture.n_devices"},
        {"\"blocks\": 1", "\"blocks\": 9", "architecture.blocks"},
        {"\"superposition\": true", "\"superposition\": 1", "architecture.superposition: expected true or false"},
        {"\"n_types\": ", "\"n_types\": 1", "vocabulary: expected"},
        {"\"vocabulary\": [", "\"vocabulary\": [\"zzz\", ", "vocabulary"},
        {"\"baseline\": []", "\"baseline\": [[1]]", "training.baseline: expected []"},
        {"\"shape\": [", "\"shape\": [9", "parameters[0].shape"},
    };
    fix_text_cases(agent_find("gdp"), net, &ts, bad, sizeof bad / sizeof *bad);
    train_state_done(&ts);
    gdp_free(net);
    train_fix_done(&f);
}

/* Imitation (gdp_train.h): the first `imitate` updates raise the expert's
 * likelihood, with no sampling simulated besides the expert's own search
 * (counted once) and the greedy probes; the expert's placement, its device
 * labels in order of first use (group 0 on device 0), is the best
 * placement recorded; deterministic per seed; PPO takes over after. */
TEST(gdp_train_imitates_the_expert_then_ppo)
{
    TrainFix f;
    REQUIRE(train_fix_new(&f, "graphs/families/enas-ptb/enas_ptb_00.json", 24) == 0);
    int G = f.pb.gr->n_groups;
    GdpTrainConfig cfg;
    gdp_train_config_default(&cfg);
    cfg.imitate = 40;
    cfg.expert_budget = 300;
    cfg.greedy_every = 0;
    cfg.lr = 1e-3;
    GdpNet *a = tiny_net(&f, 5), *b = tiny_net(&f, 5);
    REQUIRE(a && b);
    Err e = {{0}};
    GdpInput *in = gdp_input_new(f.pb.g, f.pb.gr, &a->vocab, &e);
    GdpWork *w = gdp_work_new(&a->arch, G);
    TrainState ts, ts2;
    train_state_init(&ts, cfg.lr, cfg.entropy, 1);
    train_state_init(&ts2, cfg.lr, cfg.entropy, 1);
    CHECK_INT((int)gdp_fix_train(a, &ts, &cfg, &f, 40), 40);
    CHECK_MSG(ts.simulations == 300, "%lld simulations: the expert's 300 alone", (long long)ts.simulations);
    const TrainBest *best = train_best_find(&ts, f.pb.g, G);
    REQUIRE(best && isfinite(best->runtime_us));
    int *expert = malloc((size_t)G * sizeof *expert);
    memcpy(expert, best->group_device, (size_t)G * sizeof *expert);
    CHECK_MSG(expert[0] == 0, "the expert's labels are not in order of first use");
    GdpNet *fresh = tiny_net(&f, 5);
    double before = gdp_forward(fresh, in, w, GDP_SCORE, NULL, expert, NULL, NULL);
    double after = gdp_forward(a, in, w, GDP_SCORE, NULL, expert, NULL, NULL);
    CHECK_MSG(after > before + 2, "log-likelihood of the expert %g -> %g over %d groups", before, after, G);
    /* the same run again: the same weights */
    gdp_fix_train(b, &ts2, &cfg, &f, 40);
    CHECK(memcmp(a->p.w, b->p.w, a->p.n * sizeof *a->p.w) == 0);
    /* then PPO: sampled placements simulated */
    int64_t sims = ts.simulations;
    CHECK_INT((int)gdp_fix_train(a, &ts, &cfg, &f, 2), 2);
    CHECK_MSG(ts.simulations == sims + 2 * cfg.samples, "PPO after imitation: %lld simulations",
              (long long)(ts.simulations - sims));
    free(expert);
    gdp_work_free(w);
    gdp_input_free(in);
    gdp_free(fresh);
    gdp_free(a);
    gdp_free(b);
    train_state_done(&ts);
    train_state_done(&ts2);
    train_fix_done(&f);
}

/* Trains n updates on the graphs of fixtures f[0 .. ng-1] (the net's vocabulary is f[0]'s). */
static GdpTrainer *trainer_on(GdpNet *net, TrainState *ts, const GdpTrainConfig *cfg, TrainFix *f, int ng)
{
    TrainGraph tg[4];
    for (int i = 0; i < ng; i++)
        tg[i] = (TrainGraph){f[i].pb.g, f[i].pb.gr, NULL};
    Err e = {{0}};
    GdpTrainer *t = gdp_train_new(net, ts, cfg, tg, ng, f[0].pb.c, &e);
    CHECK_MSG(t != NULL, "gdp_train_new: %s", e.msg);
    return t;
}

/* The unbatched update (the trainer before one forward and one backward
 * per graph): per sample, its own forward scoring its placement and its
 * own backward of J = sum_v wt_v log p_v - beta/(S G) sum_v H_v, the
 * gradients summed in sample order. */
static void old_gradient(const GdpNet *ref, GdpTrainer *t, TrainFix *f, const GdpTrainConfig *cfg, float *sum)
{
    int S = cfg->samples * cfg->batch_graphs;
    float *gs = calloc(ref->p.n, sizeof *gs);
    memset(sum, 0, ref->p.n * sizeof *sum);
    for (int s = 0; s < S && gs; s++) {
        int gi, *place;
        const int *pl;
        const double *lp_old;
        double adv;
        int G = gdp_train_sample(t, s, &gi, &pl, &lp_old, &adv);
        Err e = {{0}};
        GdpInput *in = gdp_input_new(f[gi].pb.g, f[gi].pb.gr, &ref->vocab, &e);
        GdpWork *w = gdp_work_new(&ref->arch, G);
        place = malloc((size_t)G * sizeof *place);
        double *lp = malloc((size_t)G * sizeof *lp), *ent = malloc((size_t)G * sizeof *ent);
        double *av = malloc((size_t)G * sizeof *av), *wt = malloc((size_t)G * sizeof *wt);
        memcpy(place, pl, (size_t)G * sizeof *place);
        for (int v = 0; v < G; v++)
            av[v] = adv;
        gdp_forward(ref, in, w, GDP_SCORE, NULL, place, lp, ent);
        ppo_surrogate(G, lp, lp_old, av, cfg->clip_ratio, wt, NULL);
        for (int v = 0; v < G; v++)
            wt[v] /= S;
        memset(gs, 0, ref->p.n * sizeof *gs);
        gdp_backward(ref, in, w, wt, -cfg->entropy / ((double)S * G), gs);
        for (size_t i = 0; i < ref->p.n; i++)
            sum[i] += gs[i];
        free(place);
        free(lp);
        free(ent);
        free(av);
        free(wt);
        gdp_work_free(w);
        gdp_input_free(in);
    }
    free(gs);
}

TEST(gdp_train_batched_gradient_is_the_per_sample_sum)
{
    TrainFix f[2];
    if (train_fix_pair(f) != 0)
        return;
    for (int ng = 1; ng <= 2; ng++) {
        GdpTrainConfig cfg;
        gdp_train_config_default(&cfg);
        cfg.samples = 5;
        cfg.batch_graphs = ng == 1 ? 1 : 3;
        cfg.epochs = 1;       /* the gradient left in p.g is the update's, at the weights before it */
        cfg.clip = 1e30;      /* and not clipped */
        cfg.entropy = 0.05;
        cfg.greedy_every = 0;
        GdpNet *net = tiny_net(&f[0], 11), *ref = tiny_net(&f[0], 11);
        REQUIRE(net && ref);
        TrainState ts;
        train_state_init(&ts, cfg.lr, cfg.entropy, 3);
        GdpTrainer *t = trainer_on(net, &ts, &cfg, f, ng);
        if (t) {
            CHECK_INT((int)gdp_train_run(t, 1, NULL, NULL, NULL), 1);
            float *old = malloc(net->p.n * sizeof *old);
            double *gd = malloc(net->p.n * sizeof *gd);
            old_gradient(ref, t, f, &cfg, old);
            double mx = 0;
            for (size_t i = 0; i < net->p.n; i++) {
                gd[i] = old[i];
                mx = fmax(mx, fabs(gd[i]));
            }
            CHECK_MSG(mx > 1e-6, "B=%d: the per-sample gradient is zero", cfg.batch_graphs);
            size_t off = gradref_float_off(net->p.g, gd, net->p.n, 1e-5);
            CHECK_MSG(off == 0, "B=%d: %zu of %zu gradient entries differ from the per-sample sum", cfg.batch_graphs,
                      off, net->p.n);
            free(old);
            free(gd);
        }
        gdp_train_free(t);
        train_state_done(&ts);
        gdp_free(net);
        gdp_free(ref);
    }
    train_fix_pair_done(f);
}

/* A family batch (B = 2 graphs drawn per update, K = 3): the same weights,
 * training state and best placements on 1, 2 and 3 threads. */
TEST(gdp_train_family_threads_same_bits)
{
    TrainFix f[2];
    if (train_fix_pair(f) != 0)
        return;
    GdpTrainConfig cfg;
    gdp_train_config_default(&cfg);
    cfg.samples = 3;
    cfg.batch_graphs = 2;
    cfg.epochs = 2;
    cfg.lr = 0.003;
    cfg.greedy_every = 2;
    float *w1 = NULL;
    int64_t sims1 = 0;
    double best1[2] = {0, 0};
    for (int threads = 1; threads <= 3; threads++) {
        cfg.threads = threads;
        GdpNet *net = tiny_net(&f[0], 6);
        REQUIRE(net);
        TrainState ts;
        train_state_init(&ts, cfg.lr, cfg.entropy, 4);
        GdpTrainer *t = trainer_on(net, &ts, &cfg, f, 2);
        if (t) {
            CHECK_INT((int)gdp_train_run(t, 4, NULL, NULL, NULL), 4);
            REQUIRE(ts.n_best == 2);
            if (threads == 1) {
                w1 = malloc(net->p.n * sizeof *w1);
                memcpy(w1, net->p.w, net->p.n * sizeof *w1);
                sims1 = ts.simulations;
                best1[0] = ts.best[0].runtime_us;
                best1[1] = ts.best[1].runtime_us;
            } else if (w1) {
                CHECK_MSG(memcmp(w1, net->p.w, net->p.n * sizeof *w1) == 0, "%d threads: other weights", threads);
                CHECK(ts.simulations == sims1);
                CHECK(ts.best[0].runtime_us == best1[0] && ts.best[1].runtime_us == best1[1]);
            }
        }
        gdp_train_free(t);
        train_state_done(&ts);
        gdp_free(net);
    }
    free(w1);
    train_fix_pair_done(f);
}
