/* Training the HSDAG placer with REINFORCE (core/agent/hsdag_train.h) and
 * its policy file (hsdag_io.h): the reward's forbidden placements; on
 * toy_chain grouped into 4 groups on 2 devices (every split pays a
 * transfer, so the one-device placements are the best once allowed), the
 * moving-average variant makes them far more likely; a run is
 * deterministic per seed and gives the same bits on 1, 2 or 3 threads;
 * N + M updates in one run and N, save, load, M give byte-identical files
 * (with threads and the greedy period crossing the resume; the defaults:
 * test_contract.c, with the file's round trip and the other loaders'
 * refusals); the file names its agent and architecture; a bad hsdag file
 * is refused with the field named (placing and training on a graph of op
 * types it never saw: test_contract.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gdp_io.h"
#include "hsdag_io.h"
#include "hsdag_place.h"
#include "hsdag_train.h"
#include "placeto_io.h"
#include "problem.h"
#include "rnn_io.h"
#include "test.h"
#include "testutil.h"
#include "text_cases.h"
#include "agent_fixture.h"

static HsdagNet *tiny_net(const TrainFix *f, uint64_t seed)
{
    HsdagArch a;
    hsdag_arch_default(&a, f->pb.c->n_devices, f->voc.n);
    a.hidden = 8;
    Err e = {{0}};
    HsdagNet *net = hsdag_new(&a, &f->voc, seed, &e);
    CHECK_MSG(net != NULL, "hsdag_new: %s", e.msg);
    return net;
}

/* P(every group on one device) from the base features: pi(all 0) + pi(all 1). */
static double p_one_device(const HsdagNet *net, const TrainFix *f)
{
    Err e = {{0}};
    HsdagInput *in = hsdag_input_new(net, f->pb.g, f->pb.gr, f->pb.c, &e);
    HsdagWork *w = in ? hsdag_work_new(&net->arch, in) : NULL;
    int G = f->pb.gr->n_groups, place[64];
    double p = 0;
    for (int d = 0; d < 2 && w && G <= 64; d++) {
        for (int k = 0; k < G; k++)
            place[k] = d;
        p += exp(hsdag_forward(net, in, in->xf, w, HSDAG_SCORE, NULL, place, NULL));
    }
    hsdag_work_free(w);
    hsdag_input_free(in);
    return p;
}

TEST(hsdag_reward_forbids_one_device_and_oom)
{
    HsdagTrainConfig cfg;
    hsdag_train_config_default(&cfg);
    SimResult r;
    memset(&r, 0, sizeof r);
    r.makespan_us = 2e6;
    int split[3] = {0, 1, 0}, one[3] = {1, 1, 1};
    CHECK_NEAR(hsdag_reward_runtime(&cfg, NULL, &r, 2.0, split, 3), 2.0, 0);
    CHECK_NEAR(hsdag_reward_runtime(&cfg, NULL, &r, 2.0, one, 3), HSDAG_FORBIDDEN_S, 0);
    CHECK_NEAR(hsdag_reward_runtime(&cfg, NULL, &r, 2.0, one, 1), 2.0, 0); /* one group: nothing to split */
    cfg.allow_single = 1;
    CHECK_NEAR(hsdag_reward_runtime(&cfg, NULL, &r, 2.0, one, 3), 2.0, 0);
    r.any_oom = 1;
    CHECK_NEAR(hsdag_reward_runtime(&cfg, NULL, &r, 5.0, split, 3), HSDAG_FORBIDDEN_S, 0);
    cfg.oom_graded = 1; /* Placeto's penalty, already in the score */
    CHECK_NEAR(hsdag_reward_runtime(&cfg, NULL, &r, 5.0, split, 3), 5.0, 0);
}

TEST(hsdag_train_learns_the_best_placement)
{
    TrainFix f;
    if (train_fix_new(&f, "graphs/toy/chain.json", 4) != 0)
        return;
    REQUIRE_MSG(f.pb.gr->n_groups >= 3 && f.pb.gr->n_groups <= 8, "chain grouped into %d groups", f.pb.gr->n_groups);
    HsdagNet *net = tiny_net(&f, 3);
    REQUIRE(net);
    HsdagTrainConfig cfg;
    hsdag_train_config_default(&cfg);
    cfg.allow_single = 1;
    cfg.baseline = 1;
    cfg.lr = 0.01;
    cfg.steps = 5;
    TrainState ts;
    train_state_init(&ts, cfg.lr, 0, 5);
    double before = p_one_device(net, &f);
    CHECK_INT(hsdag_fix_train(net, &ts, &cfg, &f, 60), 60);
    double after = p_one_device(net, &f);
    CHECK_MSG(after > 2 * before && after > 0.5, "P(one device) %.4f before, %.4f after 60 updates", before, after);
    CHECK_INT(ts.episodes, 60);
    CHECK_INT(ts.adam.step, 60);
    CHECK_INT(ts.simulations, 60 * 5 + 12); /* and a greedy placement after every 5th update */
    REQUIRE(ts.n_best == 1);
    CHECK_INT(ts.n_base, 1); /* the moving average of the one graph */
    int *op = calloc((size_t)f.pb.g->n_nodes, sizeof *op); /* every op on device 0 */
    double one = op ? sim_run(f.pb.sim, op)->makespan_us : 0;
    free(op);
    CHECK_MSG(ts.best[0].runtime_us <= one, "best %.1f us, one device %.1f us", ts.best[0].runtime_us, one);
    train_state_done(&ts);
    hsdag_free(net);
    train_fix_done(&f);
}

/* n1 updates, save (with state), load, n2 more, save to path. */
static int run_split(const TrainFix *f, int n1, int n2, int episodes, int threads, int baseline, const char *mid,
                     const char *path)
{
    HsdagTrainConfig cfg;
    hsdag_train_config_default(&cfg);
    cfg.episodes = episodes;
    cfg.threads = threads;
    cfg.steps = 4;
    cfg.baseline = baseline;
    cfg.greedy_every = 2; /* the greedy placement's period crosses the resume */
    TrainState ts;
    train_state_init(&ts, cfg.lr, 0, 9);
    return split_run(agent_find("hsdag"), hsdag_fix_train, f, &cfg, tiny_net(f, 4), &ts, n1, n2, mid, path);
}

TEST(hsdag_train_resume_is_bit_exact)
{
    TrainFix f;
    SplitFiles sf;
    if (train_fix_new(&f, "graphs/toy/crown.json", 0) != 0)
        return;
    REQUIRE_MSG(split_files_open(&sf, "placeto_hsdag_train"), "mkdtemp failed");
    const char *a = sf.a, *b = sf.b, *c = sf.c, *m = sf.m;
    for (int episodes = 1; episodes <= 3; episodes += 2) {
        int baseline = episodes > 1;
        if (run_split(&f, 5, 0, episodes, 1, baseline, m, a) == 0 &&
            run_split(&f, 2, 3, episodes, 1, baseline, m, b) == 0)
            CHECK_MSG(same_file_bytes(a, b), "E=%d: 5 updates differ from 2 + resume + 3", episodes);
        /* determinism: the same run twice; and on 2 or 3 threads the same bits */
        if (run_split(&f, 5, 0, episodes, 1, baseline, m, c) == 0)
            CHECK(same_file_bytes(a, c));
        for (int threads = 2; threads <= 3; threads++)
            if (run_split(&f, 5, 0, episodes, threads, baseline, m, c) == 0)
                CHECK_MSG(same_file_bytes(a, c), "E=%d: %d threads differ from 1", episodes, threads);
    }
    /* load -> save is byte-identical */
    TrainState ts;
    HsdagNet *net = split_reload(agent_find("hsdag"), a, c, &ts);
    if (net) {
        CHECK_INT(ts.episodes, 5);
        CHECK_INT(ts.adam.step, 5);
        CHECK_INT(ts.simulations, 5 * 3 * 4 + 2); /* 5 updates of 3 episodes of 4 steps, greedy after 2 and 4 */
        CHECK_INT(ts.n_base, 1);
    }
    train_state_done(&ts);
    hsdag_free(net);
    split_files_close(&sf);
    train_fix_done(&f);
}

TEST(hsdag_policy_file_names_its_agent)
{
    TrainFix f;
    TmpDir td;
    if (train_fix_new(&f, "graphs/toy/chain.json", 4) != 0)
        return;
    REQUIRE_MSG(tmp_open(&td, "placeto_hsdag_io"), "mkdtemp failed");
    char p[128];
    tmp_file(p, sizeof p, &td, "hsdag.json");
    HsdagNet *net = tiny_net(&f, 1);
    Err e = {{0}};
    if (net && hsdag_policy_save(net, NULL, p, &e) == 0) {
        size_t len;
        char *text = read_all(p, &len);
        CHECK(text && strstr(text, "\"agent\": \"hsdag\""));
        CHECK(text && strstr(text, "\"features\": \"type,shape,id,struct\""));
        free(text);
        int nd = 0, nt = -1;
        CHECK_INT(hsdag_policy_peek(p, &nd, &nt, &e), 1);
        CHECK_INT(nd, 2);
        CHECK_INT(nt, 0);
        CHECK_STR(agent_name_of(p), "hsdag");
        CHECK_INT(gdp_policy_peek(p, NULL, NULL, &e), 0);
    } else {
        CHECK_MSG(0, "save: %s", e.msg);
    }
    /* a Placeto file: hsdag's peek passes it by (its loader refuses it: test_contract.c) */
    const char *old = "graphs/policies/inception_v3_2.json";
    CHECK_INT(hsdag_policy_peek(old, NULL, NULL, &e), 0);
    CHECK_STR(agent_name_of(old), "placeto");
    hsdag_free(net);
    tmp_close(&td);
    train_fix_done(&f);
}

/* A bad hsdag policy file is refused with the field named, nothing loaded. */
TEST(hsdag_policy_file_errors)
{
    TrainFix f;
    if (train_fix_new(&f, "graphs/toy/chain.json", 4) != 0)
        return;
    HsdagNet *net = tiny_net(&f, 1);
    TrainState ts;
    train_state_init(&ts, 1e-3, 0, 1);
    static const TextCase bad[] = {
        {"\"hidden\": 8", "\"hidden\": 0", "architecture.hidden"},
        {"\"n_devices\": 2", "\"n_devices\": 0", "architecture.n_devices"},
        {"\"features\": \"type,shape,id,struct\"", "\"features\": \"type,colour\"", "architecture.features: expected"},
        {"\"features\": \"type,shape,id,struct\"", "\"features\": 3", "architecture.features: expected a string"},
        {"\"min_clusters\": 4", "\"min_clusters\": 0", "architecture.min_clusters"},
        {"\"steps\": 20", "\"steps\": 0", "architecture.steps"},
        {"\"n_types\": ", "\"n_types\": 1", "vocabulary: expected"},
        {"\"baseline\": []", "\"baseline\": [[1], [2]]", "training.baseline: expected [] or [[b, ...]]"},
        {"\"shape\": [", "\"shape\": [9", "parameters[0].shape"},
    };
    fix_text_cases(agent_find("hsdag"), net, &ts, bad, sizeof bad / sizeof *bad);
    train_state_done(&ts);
    hsdag_free(net);
    train_fix_done(&f);
}
