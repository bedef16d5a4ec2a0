/* The RNN placer beyond one graph and one whole decode (core/agent/rnn.h,
 * rnn_train.h): a network's group capacity pads the adjacency blocks with
 * zeros and decodes a smaller graph's own groups (a graph of more groups is
 * refused by name); decoding one step at a time gives the bits of a whole
 * decode, and re-running from a step with another device gives a fresh
 * decode's; the logits noise changes samples deterministically and leaves
 * greedy and scored decodes alone; training on two graphs draws both,
 * keeps a baseline and a best per graph and is deterministic on any thread
 * count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "problem.h"
#include "rnn.h"
#include "rnn_io.h"
#include "rnn_train.h"
#include "test.h"
#include "testutil.h"

typedef struct FFix {
    Graph *g;
    Grouping *gr;
    OpVocab voc;
} FFix;

static int ffix_new(FFix *f, int n_ops, int target, uint64_t seed)
{
    Err e = {{0}};
    memset(f, 0, sizeof *f);
    f->g = gen_random_dag(n_ops, 2.0, seed);
    f->gr = group_build(f->g, target, &e);
    REQUIRE_OR(f->gr != NULL, -1, "group_build: %s", e.msg);
    const Graph *gs[1] = {f->g};
    vocab_build(&f->voc, gs, 1);
    return 0;
}

static void ffix_done(FFix *f)
{
    vocab_done(&f->voc);
    group_free(f->gr);
    graph_free(f->g);
}

static RnnNet *net_for(const FFix *f, int n, int cap, uint64_t seed)
{
    RnnArch a;
    rnn_arch_default(&a, n, cap, f->voc.n);
    a.hidden = 12;
    a.emb = 4;
    Err e = {{0}};
    RnnNet *net = rnn_new(&a, &f->voc, seed, &e);
    CHECK_MSG(net != NULL, "rnn_new: %s", e.msg);
    return net;
}

TEST(rnn_capacity_pads_the_input)
{
    FFix f;
    if (ffix_new(&f, 50, 14, 3) != 0)
        return;
    int G = f.gr->n_groups, cap = G + 7;
    Err e = {{0}};
    RnnInput *a = rnn_input_new(f.g, f.gr, &f.voc, G, &e), *b = rnn_input_new(f.g, f.gr, &f.voc, cap, &e);
    REQUIRE_MSG(a && b, "rnn_input_new: %s", e.msg);
    CHECK_INT(b->G, G);
    CHECK_INT(b->cap, cap);
    CHECK_INT(b->nf, 2 * cap + 2);
    for (int k = 0; k < G; k++) {
        const double *x = a->xd + (size_t)k * (size_t)a->nf, *y = b->xd + (size_t)k * (size_t)b->nf;
        for (int j = 0; j < cap; j++) {
            CHECK_EXACT(y[j], j < G ? x[j] : 0.0);
            CHECK_EXACT(y[cap + j], j < G ? x[G + j] : 0.0);
        }
        CHECK_EXACT(y[2 * cap], x[2 * G]);
        CHECK_EXACT(y[2 * cap + 1], x[2 * G + 1]);
    }
    /* a network of that capacity decodes the graph's G groups */
    RnnNet *net = net_for(&f, 3, cap, 5);
    if (net) {
        RnnWork *w = rnn_work_new(&net->arch);
        int *place = XMALLOC(int, G);
        Rng r;
        rng_seed(&r, 9);
        double lp = rnn_forward(net, b, w, RNN_SAMPLE, &r, place, NULL, NULL);
        CHECK(isfinite(lp) && lp < 0);
        for (int t = 0; t < G; t++) {
            CHECK(place[t] >= 0 && place[t] < 3);
            const float *al = rnn_work_attention(w, t);
            double s = 0;
            for (int j = 0; j < G; j++)
                s += al[j];
            CHECK_NEAR(s, 1, 1e-5);
        }
        free(place);
        rnn_work_free(w);
    }
    rnn_free(net);
    /* more groups than the capacity: refused, naming the graph */
    RnnInput *c = rnn_input_new(f.g, f.gr, &f.voc, G - 1, &e);
    CHECK(c == NULL);
    CHECK_MSG(strstr(e.msg, "places at most") && strstr(e.msg, f.g->name), "message: %s", e.msg);
    rnn_input_free(a);
    rnn_input_free(b);
    ffix_done(&f);
}

TEST(rnn_decode_steps_match_forward)
{
    FFix f;
    if (ffix_new(&f, 60, 16, 7) != 0)
        return;
    Err e = {{0}};
    int G = f.gr->n_groups;
    RnnInput *in = rnn_input_new(f.g, f.gr, &f.voc, G, &e);
    RnnNet *net = in ? net_for(&f, 4, G, 11) : NULL;
    if (net) {
        RnnWork *w = rnn_work_new(&net->arch), *w2 = rnn_work_new(&net->arch);
        int *a = XMALLOC(int, G), *b = XMALLOC(int, G);
        double *lpa = XMALLOC(double, G);
        Rng r1, r2;
        rng_seed(&r1, 21);
        rng_seed(&r2, 21);
        rnn_forward(net, in, w, RNN_SAMPLE, &r1, a, lpa, NULL);
        rnn_decode_begin(net, in, w2);
        for (int t = 0; t < G; t++) {
            double lp;
            b[t] = rnn_decode_step(net, w2, t, RNN_SAMPLE, &r2, 0, &lp, NULL);
            CHECK_INT(b[t], a[t]);
            CHECK_EXACT(lp, lpa[t]);
            CHECK(memcmp(rnn_work_probs(w2, t), rnn_work_probs(w, t), 4 * sizeof(float)) == 0);
        }
        /* another device at step t0, then greedy from there: the same as a
         * fresh decode teacher-forced on that prefix */
        int t0 = G / 2;
        b[t0] = (a[t0] + 1) % 4;
        rnn_decode_step(net, w2, t0, RNN_SCORE, NULL, b[t0], NULL, NULL);
        for (int t = t0 + 1; t < G; t++)
            b[t] = rnn_decode_step(net, w2, t, RNN_GREEDY, NULL, 0, NULL, NULL);
        rnn_decode_begin(net, in, w);
        for (int t = 0; t < G; t++) {
            int d = rnn_decode_step(net, w, t, t <= t0 ? RNN_SCORE : RNN_GREEDY, NULL, b[t], NULL, NULL);
            CHECK_INT(d, b[t]);
            CHECK(memcmp(rnn_work_probs(w2, t), rnn_work_probs(w, t), 4 * sizeof(float)) == 0);
            CHECK(memcmp(rnn_work_attention(w2, t), rnn_work_attention(w, t), (size_t)G * sizeof(float)) == 0);
        }
        free(a);
        free(b);
        free(lpa);
        rnn_work_free(w);
        rnn_work_free(w2);
    }
    rnn_free(net);
    rnn_input_free(in);
    ffix_done(&f);
}

TEST(rnn_logits_noise)
{
    FFix f;
    if (ffix_new(&f, 60, 16, 9) != 0)
        return;
    Err e = {{0}};
    int G = f.gr->n_groups;
    RnnInput *in = rnn_input_new(f.g, f.gr, &f.voc, G, &e);
    RnnNet *net = in ? net_for(&f, 2, G, 13) : NULL;
    if (net) {
        RnnWork *w = rnn_work_new(&net->arch);
        int *a = XMALLOC(int, G), *b = XMALLOC(int, G), *c = XMALLOC(int, G);
        double *lp = XMALLOC(double, G);
        Rng r;
        rng_seed(&r, 5);
        double quiet = rnn_forward(net, in, w, RNN_GREEDY, NULL, a, NULL, NULL);
        rnn_work_set_noise(w, 0.5);
        CHECK_EXACT(rnn_forward(net, in, w, RNN_GREEDY, NULL, b, NULL, NULL), quiet);
        CHECK(memcmp(a, b, (size_t)G * sizeof *a) == 0);
        CHECK_EXACT(rnn_forward(net, in, w, RNN_SCORE, NULL, b, NULL, NULL), quiet);
        /* noisy samples: deterministic per seed; different from quiet ones */
        rng_seed(&r, 5);
        double n1 = rnn_forward(net, in, w, RNN_SAMPLE, &r, b, lp, NULL);
        rng_seed(&r, 5);
        CHECK_EXACT(rnn_forward(net, in, w, RNN_SAMPLE, &r, c, NULL, NULL), n1);
        CHECK(memcmp(b, c, (size_t)G * sizeof *b) == 0);
        /* the log-probabilities are those of the noisy distribution */
        for (int t = 0; t < G; t++) {
            const float *p = rnn_work_probs(w, t);
            CHECK_NEAR(lp[t], log(p[b[t]]), 1e-5);
            CHECK_NEAR(p[0] + p[1], 1, 1e-6);
        }
        rnn_work_set_noise(w, 0);
        rng_seed(&r, 5);
        double q1 = rnn_forward(net, in, w, RNN_SAMPLE, &r, c, NULL, NULL);
        CHECK_MSG(q1 != n1, "noise 0.5 gave the quiet sample's log-probability");
        free(a);
        free(b);
        free(c);
        free(lp);
        rnn_work_free(w);
    }
    rnn_free(net);
    rnn_input_free(in);
    ffix_done(&f);
}

/* Two toy graphs on 2 devices, a network with room for the larger. */
typedef struct TFix {
    Problem pb[2];
    TrainGraph tg[2];
    OpVocab voc;
} TFix;

static int tfix_new(TFix *f)
{
    memset(f, 0, sizeof *f);
    const char *paths[2] = {"graphs/toy/chain.json", "graphs/toy/crown.json"};
    for (int i = 0; i < 2; i++) {
        ProblemSpec s = {0};
        s.graph_path = paths[i];
        s.n_devices = 2;
        Err e = {{0}};
        REQUIRE_OR(problem_load(&f->pb[i], &s, &e) == 0, -1, "problem_load: %s", e.msg);
        f->tg[i] = (TrainGraph){f->pb[i].g, f->pb[i].gr, NULL};
    }
    const Graph *gs[2] = {f->pb[0].g, f->pb[1].g};
    vocab_build(&f->voc, gs, 2);
    return 0;
}

static void tfix_done(TFix *f)
{
    vocab_done(&f->voc);
    for (int i = 0; i < 2; i++)
        problem_free(&f->pb[i]);
}

/* Trains a fresh net for n updates on both graphs with K samples on T
 * threads and saves it to path. */
static int train_both(TFix *f, int n, int K, int T, const char *path, int draws[2])
{
    RnnArch a;
    int cap = f->pb[0].gr->n_groups > f->pb[1].gr->n_groups ? f->pb[0].gr->n_groups : f->pb[1].gr->n_groups;
    rnn_arch_default(&a, 2, cap, f->voc.n);
    a.hidden = 12;
    a.emb = 4;
    Err e = {{0}};
    RnnNet *net = rnn_new(&a, &f->voc, 3, &e);
    REQUIRE_OR(net != NULL, -1, "rnn_new: %s", e.msg);
    RnnTrainConfig cfg;
    rnn_train_config_default(&cfg);
    cfg.samples = K;
    cfg.threads = T;
    cfg.greedy_every = 4;
    TrainState ts;
    rnn_train_state_init(&ts, cfg.lr, cfg.entropy, cfg.seed);
    RnnTrainer *t = rnn_train_new(net, &ts, &cfg, f->tg, 2, f->pb[0].c, &e);
    int rc = -1;
    if (t) {
        CHECK(rnn_train_run(t, n, NULL, NULL, NULL) == n);
        for (int i = 0; i < 2; i++) /* drawn: its baseline moved off the start */
            draws[i] = train_state_baseline(&ts, i) != RNN_BASELINE_START;
        CHECK_INT(ts.n_best, 2);
        CHECK_INT(ts.n_base, 1);
        CHECK_INT(ts.base_len[0], 2);
        rc = rnn_policy_save(net, &ts, path, &e);
        CHECK_MSG(rc == 0, "save: %s", e.msg);
    } else {
        CHECK_MSG(0, "rnn_train_new: %s", e.msg);
    }
    rnn_train_free(t);
    train_state_done(&ts);
    rnn_free(net);
    return rc;
}

TEST(rnn_train_on_a_family)
{
    TFix f;
    TmpDir td;
    if (tfix_new(&f) != 0)
        return;
    REQUIRE_MSG(tmp_open(&td, "placeto_rnn_family"), "mkdtemp failed");
    char a[128], b[128], c[128];
    tmp_file(a, sizeof a, &td, "a.json");
    tmp_file(b, sizeof b, &td, "b.json");
    tmp_file(c, sizeof c, &td, "c.json");
    int d1[2], d2[2];
    if (train_both(&f, 12, 3, 1, a, d1) == 0 && train_both(&f, 12, 3, 1, b, d2) == 0 &&
        train_both(&f, 12, 3, 2, c, d2) == 0) {
        CHECK_MSG(d1[0] && d1[1], "12 updates did not draw both graphs");
        CHECK(same_file_bytes(a, b));
        CHECK_MSG(same_file_bytes(a, c), "2 threads differ from 1");
        /* the policy reloads with both graphs' bests and baselines */
        TrainState ts;
        Err e = {{0}};
        RnnNet *net = rnn_policy_load(a, &ts, &e);
        CHECK_MSG(net != NULL, "%s", e.msg);
        if (net) {
            CHECK_INT(ts.n_best, 2);
            for (int i = 0; i < 2; i++) {
                const TrainBest *bst = train_best_find(&ts, f.pb[i].g, f.pb[i].gr->n_groups);
                CHECK(bst != NULL && isfinite(bst->runtime_us));
                CHECK(train_state_baseline(&ts, i) < RNN_BASELINE_START);
            }
        }
        rnn_free(net);
        train_state_done(&ts);
    }
    tmp_close(&td);
    tfix_done(&f);
}
