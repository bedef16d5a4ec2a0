/* Training the HSDAG placer with REINFORCE (core/agent/hsdag_train.h) and
 * its policy file (hsdag_io.h): the reward's forbidden placements; on
 * toy_chain grouped into 4 groups on 2 devices (every split pays a
 * transfer, so the one-device placements are the best once allowed), the
 * moving-average variant makes them far more likely; a run is
 * deterministic per seed and gives the same bits on 1, 2 or 3 threads;
 * N + M updates in one run and N, save, load, M give byte-identical files;
 * save -> load -> save is byte-identical; the file names its agent and
 * each agent's loader refuses the others' files; a bad hsdag file is
 * refused with the field named; a policy trained on one graph places (and
 * trains on) another whose op types it has partly never seen. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gdp_io.h"
#include "hsdag_io.h"
#include "hsdag_place.h"
#include "hsdag_train.h"
#include "policy_io.h"
#include "problem.h"
#include "rnn_io.h"
#include "test.h"
#include "testutil.h"
#include "text_cases.h"

typedef struct Fix {
    Problem pb;
    OpVocab voc;
} Fix;

static int fix_new(Fix *f, const char *path, int groups)
{
    memset(f, 0, sizeof *f);
    ProblemSpec s = {0};
    s.graph_path = path;
    s.n_devices = 2;
    s.groups = groups;
    Err e = {{0}};
    REQUIRE_OR(problem_load(&f->pb, &s, &e) == 0, -1, "problem_load: %s", e.msg);
    const Graph *gs[1] = {f->pb.g};
    vocab_build(&f->voc, gs, 1);
    return 0;
}

static void fix_done(Fix *f)
{
    vocab_done(&f->voc);
    problem_free(&f->pb);
}

static HsdagNet *tiny_net(const Fix *f, uint64_t seed)
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
static double p_one_device(const HsdagNet *net, const Fix *f)
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

static int64_t train(HsdagNet *net, TrainState *ts, const HsdagTrainConfig *cfg, const Fix *f, int64_t n)
{
    Err e = {{0}};
    HsdagTrainer *t = hsdag_train_new(net, ts, cfg, &(TrainGraph){f->pb.g, f->pb.gr, NULL}, 1, f->pb.c, &e);
    CHECK_MSG(t != NULL, "hsdag_train_new: %s", e.msg);
    if (!t)
        return 0;
    int64_t ran = hsdag_train_run(t, n, NULL, NULL, NULL);
    hsdag_train_free(t);
    return ran;
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
    Fix f;
    if (fix_new(&f, "graphs/toy/chain.json", 4) != 0)
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
    CHECK_INT(train(net, &ts, &cfg, &f, 60), 60);
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
    fix_done(&f);
}

/* n1 updates, save (with state), load, n2 more, save to path. */
static int run_split(const Fix *f, int n1, int n2, int episodes, int threads, int baseline, const char *mid,
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
    HsdagNet *net = tiny_net(f, 4);
    Err e = {{0}};
    int ok = net != NULL;
    if (ok)
        train(net, &ts, &cfg, f, n1);
    if (ok && n2 > 0) {
        ok = hsdag_policy_save(net, &ts, mid, &e) == 0;
        CHECK_MSG(ok, "save: %s", e.msg);
        hsdag_free(net);
        train_state_done(&ts);
        net = ok ? hsdag_policy_load(mid, &ts, &e) : NULL;
        CHECK_MSG(net != NULL, "load: %s", e.msg);
        ok = net != NULL;
        if (ok)
            train(net, &ts, &cfg, f, n2);
    }
    if (ok) {
        ok = hsdag_policy_save(net, &ts, path, &e) == 0;
        CHECK_MSG(ok, "save: %s", e.msg);
    }
    hsdag_free(net);
    train_state_done(&ts);
    return ok ? 0 : -1;
}

TEST(hsdag_train_resume_is_bit_exact)
{
    Fix f;
    TmpDir td;
    if (fix_new(&f, "graphs/toy/crown.json", 0) != 0)
        return;
    REQUIRE_MSG(tmp_open(&td, "placeto_hsdag_train"), "mkdtemp failed");
    char a[128], b[128], m[128], c[128];
    tmp_file(a, sizeof a, &td, "a.json");
    tmp_file(b, sizeof b, &td, "b.json");
    tmp_file(c, sizeof c, &td, "c.json");
    tmp_file(m, sizeof m, &td, "mid.json");
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
    Err e = {{0}};
    HsdagNet *net = hsdag_policy_load(a, &ts, &e);
    CHECK_MSG(net != NULL, "%s", e.msg);
    if (net) {
        CHECK(hsdag_policy_save(net, &ts, c, &e) == 0);
        CHECK(same_file_bytes(a, c));
        CHECK_INT(ts.episodes, 5);
        CHECK_INT(ts.adam.step, 5);
        CHECK_INT(ts.simulations, 5 * 3 * 4 + 2); /* 5 updates of 3 episodes of 4 steps, greedy after 2 and 4 */
        CHECK_INT(ts.n_base, 1);
    }
    train_state_done(&ts);
    hsdag_free(net);
    tmp_close(&td);
    fix_done(&f);
}

TEST(hsdag_policy_file_names_its_agent)
{
    Fix f;
    TmpDir td;
    if (fix_new(&f, "graphs/toy/chain.json", 4) != 0)
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
        Err pe = {{0}}, re = {{0}}, ge = {{0}};
        CHECK(policy_load(p, NULL, &pe) == NULL);
        CHECK_STR_CONTAINS(pe.msg, "an hsdag policy");
        CHECK_STR_CONTAINS(pe.msg, "train --agent hsdag");
        TrainState rts;
        CHECK(rnn_policy_load(p, &rts, &re) == NULL);
        CHECK_STR_CONTAINS(re.msg, "an hsdag policy, not an rnn policy");
        train_state_done(&rts);
        CHECK(gdp_policy_load(p, &rts, &ge) == NULL);
        CHECK_STR_CONTAINS(ge.msg, "an hsdag policy, not a gdp policy");
        train_state_done(&rts);
        int nd = 0, nt = -1;
        CHECK_INT(hsdag_policy_peek(p, &nd, &nt, &e), 1);
        CHECK_INT(nd, 2);
        CHECK_INT(nt, 0);
        CHECK_STR(agent_name_of(p), "hsdag");
        CHECK_INT(gdp_policy_peek(p, NULL, NULL, &e), 0);
        TrainState ts;
        HsdagNet *back = hsdag_policy_load(p, &ts, &e);
        CHECK_MSG(back != NULL, "%s", e.msg);
        if (back) {
            CHECK(memcmp(&back->arch, &net->arch, sizeof net->arch) == 0);
            CHECK_INT(back->p.n, net->p.n);
            CHECK(memcmp(back->p.w, net->p.w, net->p.n * sizeof *net->p.w) == 0);
            CHECK_INT(back->vocab.n, net->vocab.n);
        }
        train_state_done(&ts);
        hsdag_free(back);
    } else {
        CHECK_MSG(0, "save: %s", e.msg);
    }
    const char *old = "graphs/policies/inception_v3_2.json";
    TrainState ts;
    Err he = {{0}};
    CHECK(hsdag_policy_load(old, &ts, &he) == NULL);
    CHECK_STR_CONTAINS(he.msg, "a Placeto policy, not an hsdag policy");
    train_state_done(&ts);
    CHECK_INT(hsdag_policy_peek(old, NULL, NULL, &he), 0);
    CHECK_STR(agent_name_of(old), "placeto");
    hsdag_free(net);
    tmp_close(&td);
    fix_done(&f);
}

/* check_text_cases' loader: 1 when text loads (with a training state to fill). */
static int load_text(const char *path, const char *text, size_t len, Err *e)
{
    TrainState ts;
    HsdagNet *net = hsdag_policy_load_text(path, text, len, &ts, e);
    train_state_done(&ts);
    hsdag_free(net);
    return net != NULL;
}

/* A bad hsdag policy file is refused with the field named, nothing loaded. */
TEST(hsdag_policy_file_errors)
{
    Fix f;
    TmpDir td;
    if (fix_new(&f, "graphs/toy/chain.json", 4) != 0)
        return;
    REQUIRE_MSG(tmp_open(&td, "placeto_hsdag_bad"), "mkdtemp failed");
    char p[128];
    tmp_file(p, sizeof p, &td, "hsdag.json");
    HsdagNet *net = tiny_net(&f, 1);
    TrainState ts;
    train_state_init(&ts, 1e-3, 0, 1);
    Err e = {{0}};
    size_t len = 0;
    char *good = NULL;
    if (net && hsdag_policy_save(net, &ts, p, &e) == 0)
        good = policy_text_with_checkpoint(p, &len);
    CHECK_MSG(good != NULL, "%s", e.msg);
    static const TextCase bad[] = {
        {"\"agent\": \"hsdag\"", "\"agent\": \"hsdg\"", "agent: expected \"placeto\", \"rnn\", \"gdp\", \"hsdag\", \"lsearch\" or \"lsched\""},
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
    check_text_cases(good, len, bad, sizeof bad / sizeof *bad, load_text);
    free(good);
    train_state_done(&ts);
    hsdag_free(net);
    tmp_close(&td);
    fix_done(&f);
}

/* The inductive network: trained on the chain, it places and trains on the
 * crown (op types outside its vocabulary count as "other"). */
TEST(hsdag_train_places_another_graph)
{
    Fix f, h;
    if (fix_new(&f, "graphs/toy/chain.json", 4) != 0)
        return;
    if (fix_new(&h, "graphs/toy/crown.json", 0) != 0) {
        fix_done(&f);
        return;
    }
    HsdagNet *net = tiny_net(&f, 2);
    REQUIRE(net);
    HsdagTrainConfig cfg;
    hsdag_train_config_default(&cfg);
    cfg.steps = 3;
    TrainState ts;
    train_state_init(&ts, cfg.lr, 0, 5);
    CHECK_INT(train(net, &ts, &cfg, &f, 2), 2);
    int *gd = calloc((size_t)h.pb.gr->n_groups, sizeof *gd);
    double rt = 0;
    Err e = {{0}};
    CHECK_INT(hsdag_place(net, h.pb.g, h.pb.gr, h.pb.c, 3, 1, gd, &rt, &e), 4);
    CHECK(rt > 0);
    CHECK_INT(train(net, &ts, &cfg, &h, 2), 2);
    CHECK_INT(ts.n_best, 2);
    CHECK(ts.n_best == 2 && isfinite(ts.best[1].runtime_us));
    free(gd);
    train_state_done(&ts);
    hsdag_free(net);
    fix_done(&h);
    fix_done(&f);
}
