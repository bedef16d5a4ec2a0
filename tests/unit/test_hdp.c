/* The hierarchical grouper of the RNN placer (`--grouper hdp`,
 * core/agents/rnn/rnn_hdp.h): its inputs; the gradient check of
 * rnn_hdp_backward_d against central differences of J = wt log pi_grouper
 * on every entry of both tensors, in double, with the proof that it can
 * fail (one entry scaled by 1.01, one sign-flipped), the float path
 * against the double one, and nothing written to the placer's tensors; the
 * placer's input of a learned grouping (empty learned groups keep zero
 * rows); training on toy_crown on 2 devices lowers the expected cost under
 * the policy (estimated from the same 300 sampled decodes before and
 * after) and the placer freezes at --freeze-placer (its weights and Adam
 * moments unchanged after, the grouper still learning); the same bits on
 * 1, 2 and 3 threads; N + M updates = N, save, load, M (byte-identical
 * files, the freeze falling in either part); load -> save byte-identical;
 * bad hdp files refused with the field named; placing reports exactly the
 * placements it simulated; the explorer's actor refuses an hdp policy. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "gradref.h"
#include "oneshot.h"
#include "problem.h"
#include "rnn_episode.h"
#include "rnn_hdp.h"
#include "rnn_io.h"
#include "rnn_place.h"
#include "rnn_train.h"
#include "test.h"
#include "testutil.h"
#include "text_cases.h"
#include "agent_fixture.h"

/* --- fixtures ----------------------------------------------------------------- */

/* An hdp net of L learned groups: a small placer (h 16, e 4) and a grouper of width gh. */
static RnnNet *hdp_net(const OpVocab *voc, int n_devices, int units, int L, int gh, uint64_t seed)
{
    RnnArch a;
    rnn_arch_default(&a, n_devices, L, voc->n);
    a.hidden = 16;
    a.emb = 4;
    a.squash_c = a.squash_tau = 1; /* the head these tests were tuned with, whatever the defaults */
    a.grouper = RNN_GROUPER_HDP;
    a.grouper_hidden = gh;
    a.units = units;
    Err e = {{0}};
    RnnNet *net = rnn_new(&a, voc, seed, &e);
    CHECK_MSG(net != NULL, "rnn_new: %s", e.msg);
    return net;
}

/* toy_crown on 2 devices in its own grouping, the graph of every test
 * here but the gradient check's, and an hdp net on it of L learned groups
 * (0: as many as the graph's groups) and grouper width gh; 0, or -1 (a
 * failed check, f freed) when either cannot be made. */
static int crown_new(TrainFix *f, RnnNet **net, int L, int gh, uint64_t seed)
{
    if (train_fix_new(f, "graphs/toy/crown.json", 0) != 0)
        return -1;
    int N = f->pb.gr->n_groups;
    *net = hdp_net(&f->voc, 2, N, L ? L : N, gh, seed);
    if (!*net)
        train_fix_done(f);
    REQUIRE_OR(*net != NULL, -1, "REQUIRE(net)");
    return 0;
}

TEST(hdp_inputs)
{
    TrainFix f;
    if (train_fix_new(&f, "graphs/toy/crown.json", 0) != 0)
        return;
    const Grouping *gr = f.pb.gr;
    RnnHdpInput *in = rnn_hdp_input_new(f.pb.g, gr, &f.voc);
    int T = f.voc.n;
    CHECK_INT(in->N, gr->n_groups);
    CHECK_INT(in->F, T + 23);
    for (int k = 0; k < in->N; k++) {
        const double *x = in->x + (size_t)k * (size_t)in->F;
        double mix = 0;
        for (int c = 0; c <= T; c++)
            mix += x[c];
        CHECK_NEAR(mix, 1, 1e-12);
        CHECK(x[T + 1] >= 0 && x[T + 1] < 1);
        CHECK(x[T + 2] == (double)k / in->N);
        /* the neighbours: successors (+1), then predecessors (-1), then zeros */
        int m = 0;
        for (int j = gr->succ_off[k]; j < gr->succ_off[k + 1] && m < RNN_HDP_NEIGHBOURS; j++, m++)
            CHECK(x[T + 3 + 2 * m] == (double)gr->succ[j] / in->N && x[T + 4 + 2 * m] == 1);
        for (int j = gr->pred_off[k]; j < gr->pred_off[k + 1] && m < RNN_HDP_NEIGHBOURS; j++, m++)
            CHECK(x[T + 3 + 2 * m] == (double)gr->pred[j] / in->N && x[T + 4 + 2 * m] == -1);
        for (; m < RNN_HDP_NEIGHBOURS; m++)
            CHECK(x[T + 3 + 2 * m] == 0 && x[T + 4 + 2 * m] == 0);
    }
    /* the source has six successors, the concat six predecessors and one successor */
    CHECK_INT(gr->succ_off[1] - gr->succ_off[0], 6);
    rnn_hdp_input_free(in);
    CHECK_INT(rnn_hdp_default_groups(2), 40);
    CHECK_INT(rnn_hdp_default_groups(16), 256);
    train_fix_done(&f);
}

/* The placer's input of a learned grouping is rnn_input_new's of the
 * grouping it makes: the identity grouping gives the graph's own input;
 * all units in learned group 2 of 4 leave rows 0, 1 and 3 zero. */
TEST(hdp_placer_input)
{
    TrainFix f;
    RnnNet *net;
    if (crown_new(&f, &net, 0, 8, 1) != 0)
        return;
    const Grouping *gr = f.pb.gr;
    int N = gr->n_groups;
    int *grp = calloc((size_t)N, sizeof *grp);
    REQUIRE(grp);
    for (int k = 0; k < N; k++)
        grp[k] = k;
    Err e = {{0}};
    RnnInput *a = rnn_hdp_placer_input(net, f.pb.g, gr, grp), *b = rnn_input_new(f.pb.g, gr, &f.voc, N, &e);
    REQUIRE_MSG(a && b, "%s", e.msg);
    CHECK(a->G == b->G && a->nf == b->nf && a->n_ty == b->n_ty);
    CHECK(memcmp(a->xd, b->xd, (size_t)a->G * (size_t)a->nf * sizeof *a->xd) == 0);
    CHECK(memcmp(a->ty, b->ty, (size_t)a->n_ty * sizeof *a->ty) == 0);
    CHECK(memcmp(a->ty_w, b->ty_w, (size_t)a->n_ty * sizeof *a->ty_w) == 0);
    rnn_input_free(a);
    rnn_input_free(b);
    rnn_free(net);
    net = hdp_net(&f.voc, 2, N, 4, 8, 1);
    for (int k = 0; k < N; k++)
        grp[k] = 2;
    a = rnn_hdp_placer_input(net, f.pb.g, gr, grp);
    for (int j = 0; j < 4; j++) {
        double s = 0;
        for (int c = 0; c < a->nf; c++)
            s += fabs(a->xd[(size_t)j * (size_t)a->nf + (size_t)c]);
        CHECK_MSG((s > 0) == (j == 2), "learned group %d: row sum %g", j, s);
        CHECK_INT(a->ty_off[j + 1] > a->ty_off[j], j == 2);
    }
    /* every edge inside learned group 2: its out- and in-edge columns to itself only */
    CHECK(a->xd[(size_t)2 * (size_t)a->nf + 2] > 0 && a->xd[(size_t)2 * (size_t)a->nf + 4 + 2] > 0);
    GroupClusterStats st;
    rnn_hdp_stats(gr, grp, 4, &st);
    CHECK_INT(st.n_clusters, 1);
    CHECK_INT(st.cut_bytes, 0);
    CHECK(st.balance == 1);
    rnn_input_free(a);
    free(grp);
    rnn_free(net);
    train_fix_done(&f);
}

/* --- the gradient check ---------------------------------------------------------- */

#define GRAD_TOL 1e-5

/* Checks both grouper tensors of an hdp net of L learned groups on a random
 * graph of n_ops ops grouped to about `target`; returns the tensors that had
 * a gradient to check. */
static int grad_check(int n_ops, int target, int L, int gh, uint64_t seed)
{
    Err e = {{0}};
    Graph *g = gen_random_dag(n_ops, 2.0, seed), *vg = gen_random_dag(n_ops / 2 + 2, 2.0, seed + 1);
    Grouping *gr = group_build(g, target, &e);
    REQUIRE_OR(gr != NULL, 0, "group_build: %s", e.msg);
    OpVocab voc;
    const Graph *gs[1] = {vg}; /* some of g's types are not in it: the "other" column */
    vocab_build(&voc, gs, 1);
    int N = gr->n_groups, covered = 0;
    RnnNet *net = hdp_net(&voc, 3, N, L, gh, 40 + seed);
    RnnHdpInput *in = rnn_hdp_input_new(g, gr, &voc);
    RnnHdpWork *w = net ? rnn_hdp_work_new(&net->arch, N) : NULL;
    if (net) {
        const NnParams *P = &net->p;
        double *wd = XMALLOC(double, P->n), *grad = XNEW(double, P->n), *num = XNEW(double, P->n);
        int *grp = XMALLOC(int, N);
        for (size_t i = 0; i < P->n; i++) /* 4x Glorot: the logits far from uniform */
            wd[i] = 4.0 * P->w[i];
        Rng r;
        rng_seed(&r, seed);
        const double wt = -0.7;
        rnn_hdp_forward_d(net, wd, in, w, RNN_SAMPLE, &r, grp);
        rnn_hdp_backward_d(net, wd, in, w, wt, grad);
        double J0 = wt * rnn_hdp_forward_d(net, wd, in, w, RNN_SCORE, NULL, grp);
        const double hstep = 1e-6;
        int first = nn_params_find(P, "grouper_ff");
        size_t from = P->t[first].off;
        for (size_t i = from; i < P->n; i++) {
            double w0 = wd[i];
            wd[i] = w0 + hstep;
            double jp = wt * rnn_hdp_forward_d(net, wd, in, w, RNN_SCORE, NULL, grp);
            wd[i] = w0 - hstep;
            double jm = wt * rnn_hdp_forward_d(net, wd, in, w, RNN_SCORE, NULL, grp);
            wd[i] = w0;
            num[i] = (jp - jm) / (2 * hstep);
        }
        double floor = 1e-4 * fmax(1, fabs(J0));
        char label[64];
        snprintf(label, sizeof label, "N=%d L=%d Hg=%d T=%d", N, L, gh, voc.n);
        for (int k = first; k < P->n_tensors; k++) {
            const NnTensor *t = &P->t[k];
            covered += gradref_check_tensor(label, t->name, grad + t->off, num + t->off,
                                            (size_t)t->rows * (size_t)t->cols, floor, GRAD_TOL);
        }
        /* the placer's tensors get nothing from the grouper */
        for (size_t i = 0; i < from; i++)
            if (grad[i] != 0) {
                CHECK_MSG(0, "%s: the grouper's backward wrote placer entry %zu", label, i);
                break;
            }
        /* the float path (float weights, float gradient) against the double one on the net's own weights */
        for (size_t i = 0; i < P->n; i++)
            wd[i] = P->w[i];
        memset(grad, 0, P->n * sizeof *grad);
        int *gf = XMALLOC(int, N);
        double lpd = rnn_hdp_forward_d(net, wd, in, w, RNN_GREEDY, NULL, grp);
        rnn_hdp_backward_d(net, wd, in, w, wt, grad);
        double lpf = rnn_hdp_forward(net, in, w, RNN_GREEDY, NULL, gf);
        float *gfl = XNEW(float, P->n);
        rnn_hdp_backward(net, in, w, wt, gfl);
        CHECK(memcmp(grp, gf, (size_t)N * sizeof *gf) == 0 && lpd == lpf); /* the same double arithmetic */
        CHECK_INT(gradref_float_off(gfl + from, grad + from, P->n - from, 1e-6), 0);
        /* greedy is the argmax of each unit's distribution */
        for (int k = 0; k < N; k++) {
            const double *p = rnn_hdp_probs(w, k);
            for (int j = 0; j < L; j++)
                CHECK(p[j] <= p[gf[k]]);
        }
        free(gfl);
        free(gf);
        free(wd);
        free(grad);
        free(num);
        free(grp);
    }
    rnn_hdp_work_free(w);
    rnn_hdp_input_free(in);
    rnn_free(net);
    vocab_done(&voc);
    group_free(gr);
    graph_free(g);
    graph_free(vg);
    return covered;
}

TEST(hdp_gradient_check)
{
    /* 6 units of several ops (type mixes), L = 5, width 7; 12 single-op units, L = 3, width 4 */
    CHECK_INT(grad_check(20, 6, 5, 7, 1), 2);
    CHECK_INT(grad_check(12, 12, 3, 4, 2), 2);
}

/* --- training -------------------------------------------------------------------- */

/* The mean cost sqrt(runtime s) of `n` sampled hierarchical decodes (a fixed stream). */
static double mean_cost(const RnnNet *net, const TrainFix *f, int n)
{
    const Grouping *gr = f->pb.gr;
    RnnHdpInput *in = rnn_hdp_input_new(f->pb.g, gr, &net->vocab);
    RnnHdpDecoder *d = rnn_hdp_decoder_new(net, gr->n_groups);
    int *place = calloc((size_t)gr->n_groups, sizeof *place), *op = calloc((size_t)f->pb.g->n_nodes, sizeof *op);
    Rng r;
    rng_seed(&r, 77);
    double s = 0, used = 0, ent = 0, same = 0;
    for (int k = 0; k < n && place && op; k++) {
        rnn_hdp_decode(d, f->pb.g, gr, in, 0, &r, place);
        group_expand(gr, place, op);
        s += sqrt(sim_run(f->pb.sim, op)->makespan_us / 1e6);
        GroupClusterStats st;
        rnn_hdp_stats(gr, d->grp, net->arch.n_groups, &st);
        used += st.n_clusters;
        int on0 = 0;
        for (int u = 0; u < gr->n_groups; u++)
            on0 += place[u] == 0;
        same += on0 == 0 || on0 == gr->n_groups;
        for (int u = 0; u < gr->n_groups; u++) {
            const double *p = rnn_hdp_probs(d->hw, u);
            for (int j = 0; j < net->arch.n_groups; j++)
                ent -= p[j] > 0 ? p[j] * log(p[j]) : 0;
        }
    }
    if (getenv("TEST_VERBOSE"))
        fprintf(stderr, "  %d sampled decodes: %.2f learned groups used, unit entropy %.3f, %.2f on one device\n", n,
                used / n, ent / n / gr->n_groups, same / n);
    free(place);
    free(op);
    rnn_hdp_decoder_free(d);
    rnn_hdp_input_free(in);
    return s / n;
}

TEST(hdp_train_learns_and_freezes)
{
    TrainFix f;
    RnnNet *net;
    if (crown_new(&f, &net, 40, RNN_HDP_HIDDEN, 3) != 0)
        return;
    RnnTrainConfig cfg;
    rnn_train_config_default(&cfg);
    cfg.lr = 0.01;
    cfg.samples = 4;
    cfg.freeze_placer = 200;
    TrainState ts;
    rnn_train_state_init(&ts, cfg.lr, cfg.entropy, 5);
    train_state_set_baseline(&ts, 0, 1, sqrt(6e-3)); /* near the costs */
    double c0 = mean_cost(net, &f, 300);
    CHECK_INT(rnn_fix_train(net, &ts, &cfg, &f, 199), 199);
    CHECK(net->frozen == NULL);
    CHECK_INT(rnn_fix_train(net, &ts, &cfg, &f, 1), 1);
    REQUIRE(net->frozen != NULL); /* after update 200: its last sample's placement of the learned groups */
    double c1 = mean_cost(net, &f, 300);
    /* frozen: the placer's weights and moments stay, the grouper's move */
    size_t tail = net->p.t[nn_params_find(&net->p, "grouper_ff")].off, n = net->p.n;
    float *before = XMALLOC(float, 3 * n);
    memcpy(before, net->p.w, n * sizeof *before);
    memcpy(before + n, net->p.m, n * sizeof *before);
    memcpy(before + 2 * n, net->p.v, n * sizeof *before);
    CHECK_INT(rnn_fix_train(net, &ts, &cfg, &f, 200), 200);
    CHECK(memcmp(before, net->p.w, tail * sizeof *before) == 0);
    CHECK(memcmp(before + n, net->p.m, tail * sizeof *before) == 0);
    CHECK(memcmp(before + 2 * n, net->p.v, tail * sizeof *before) == 0);
    CHECK(memcmp(before + tail, net->p.w + tail, (n - tail) * sizeof *before) != 0);
    double c2 = mean_cost(net, &f, 300);
    CHECK_MSG(c2 < 0.97 * c0 && c2 < 0.97 * c1, "mean sqrt(seconds) of 300 samples: %.6f untrained, %.6f after 200 "
                                                "updates, %.6f after 200 more with the placer frozen",
              c0, c1, c2);
    if (getenv("TEST_VERBOSE"))
        fprintf(stderr, "  hdp crown: mean cost %.6f -> %.6f -> %.6f; best %.1f us\n", c0, c1, c2,
                ts.best[0].runtime_us);
    CHECK_INT(ts.episodes, 400);
    CHECK_INT(ts.simulations, 1608); /* 4 samples per update, and a greedy decode after every 50th */
    int *op = calloc((size_t)f.pb.g->n_nodes, sizeof *op); /* every op on device 0 */
    double one = op ? sim_run(f.pb.sim, op)->makespan_us : 0;
    free(op);
    REQUIRE(ts.n_best == 1);
    CHECK_MSG(ts.best[0].runtime_us < 0.7 * one, "best %.1f us, one device %.1f us", ts.best[0].runtime_us, one);
    free(before);
    train_state_done(&ts);
    rnn_free(net);
    train_fix_done(&f);
}

/* n1 updates, save (with state), load, n2 more, save to path. */
static int run_split(const TrainFix *f, int n1, int n2, int samples, int threads, const char *mid, const char *path)
{
    RnnTrainConfig cfg;
    rnn_train_config_default(&cfg);
    cfg.samples = samples;
    cfg.threads = threads;
    cfg.entropy = 0.01;
    cfg.decay_start = 2;
    cfg.decay_every = 2;
    cfg.greedy_every = 2;
    cfg.noise_updates = 3;   /* the noise ends inside the run */
    cfg.freeze_placer = 4;   /* and the placer freezes after the resume point of 3 */
    TrainState ts;
    rnn_train_state_init(&ts, cfg.lr, cfg.entropy, 9);
    return split_run(agent_find("rnn"), rnn_fix_train, f, &cfg, hdp_net(&f->voc, 2, f->pb.gr->n_groups, 6, 8, 4), &ts, n1, n2, mid, path);
}

TEST(hdp_train_resume_threads_and_file)
{
    TrainFix f;
    SplitFiles sf;
    if (train_fix_new(&f, "graphs/toy/crown.json", 0) != 0)
        return;
    REQUIRE_MSG(split_files_open(&sf, "placeto_hdp"), "mkdtemp failed");
    const char *a = sf.a, *b = sf.b, *c = sf.c, *m = sf.m;
    for (int samples = 1; samples <= 3; samples += 2) {
        if (run_split(&f, 7, 0, samples, 1, m, a) != 0)
            continue;
        if (run_split(&f, 3, 4, samples, 1, m, b) == 0) /* the freeze after the resume */
            CHECK_MSG(same_file_bytes(a, b), "K=%d: 7 updates differ from 3 + resume + 4", samples);
        if (run_split(&f, 5, 2, samples, 1, m, b) == 0) /* the frozen placement in the file */
            CHECK_MSG(same_file_bytes(a, b), "K=%d: 7 updates differ from 5 + resume + 2", samples);
        if (run_split(&f, 7, 0, samples, 1, m, c) == 0)
            CHECK(same_file_bytes(a, c));
        for (int th = 2; samples > 1 && th <= samples; th++)
            if (run_split(&f, 7, 0, samples, th, m, c) == 0)
                CHECK_MSG(same_file_bytes(a, c), "K=%d: %d threads differ from 1", samples, th);
    }
    /* load -> save is byte-identical; the file names the grouper and the frozen placement */
    TrainState ts;
    RnnNet *net = split_reload(agent_find("rnn"), a, c, &ts);
    if (net) {
        CHECK(net->arch.grouper == RNN_GROUPER_HDP && net->arch.n_groups == 6 && net->frozen != NULL);
        CHECK_INT(ts.episodes, 7);
        CHECK_INT(ts.simulations, 21 + 3);
        size_t len;
        char *text = read_all(a, &len);
        CHECK(text && strstr(text, "\"grouper\": \"hdp\", \"grouper_hidden\": 8, \"units\": 18}") &&
              strstr(text, "\"placer_frozen\": [") && strstr(text, "\"name\": \"grouper_g\", \"shape\": [8, 6]"));
        free(text);
        int n_dev = 0, n_groups = 0;
        Err e = {{0}};
        CHECK(rnn_policy_peek(a, &n_dev, &n_groups, NULL, &e) == 1 && n_dev == 2 && n_groups == 6);
    }
    train_state_done(&ts);
    rnn_free(net);
    split_files_close(&sf);
    train_fix_done(&f);
}

TEST(hdp_policy_file_errors)
{
    TrainFix f;
    RnnNet *net;
    TmpDir td;
    if (crown_new(&f, &net, 3, 8, 1) != 0)
        return;
    REQUIRE_MSG(tmp_open(&td, "placeto_hdp_bad"), "mkdtemp failed");
    char p[128];
    tmp_file(p, sizeof p, &td, "hdp.json");
    net->frozen = XNEW(int, 3);
    net->frozen[1] = 1;
    TrainState ts;
    rnn_train_state_init(&ts, 0.1, 0, 1);
    Err e = {{0}};
    size_t len = 0;
    static const TextCase bad[] = {
        {"\"grouper\": \"hdp\"", "\"grouper\": \"hpd\"", "architecture.grouper: expected \"none\" or \"hdp\""},
        {"\"grouper\": \"hdp\"", "\"grouper\": 1", "architecture.grouper: expected \"none\" or \"hdp\""},
        {"\"grouper\": \"hdp\"", "\"grouper\": \"none\"", "architecture.grouper_hidden: only an hdp policy"},
        {"\"grouper_hidden\": 8", "\"grouper_hidden\": 0", "architecture.grouper_hidden"},
        {"\"grouper_hidden\": 8", "\"grouper_hidden\": 9", "parameters"},
        {", \"units\": 18", "", "architecture: missing \"units\""},
        {"\"units\": 18", "\"units\": -1", "architecture.units"},
        {"\"n_groups\": 3", "\"n_groups\": 1", "architecture.n_groups: an hdp policy has 2 or more learned groups"},
        {"\"n_groups\": 3", "\"n_groups\": 4", "parameters"},
        {"\"placer_frozen\": [0, 1, 0]", "\"placer_frozen\": [0, 2, 0]", "placer_frozen[1]: expected an integer"},
        {"\"placer_frozen\": [0, 1, 0]", "\"placer_frozen\": [0, 1]", "placer_frozen: expected an array of 3 devices"},
        {"\"placer_frozen\": [0, 1, 0]", "\"placer_frozen\": {}", "placer_frozen: expected an array of 3 devices"},
        {"\"name\": \"grouper_g\"", "\"name\": \"grouper_x\"", "parameters[13].name"},
    };
    fix_text_cases(agent_find("rnn"), net, &ts, bad, sizeof bad / sizeof *bad);
    /* a plain rnn file with a frozen placement or grouper fields is refused too */
    RnnArch pa = net->arch;
    pa.grouper = RNN_GROUPER_NONE;
    pa.grouper_hidden = pa.units = 0;
    RnnNet *plain = rnn_new(&pa, &f.voc, 1, &e);
    char *ptext = fix_saved_text(agent_find("rnn"), plain, &ts, p, &len, &e);
    static const TextCase pbad[] = {
        {"\"vocabulary\": [", "\"placer_frozen\": [0, 1, 0],\n \"vocabulary\": [", "placer_frozen: only an hdp policy"},
        {"\"squash_tau\": 1.0", "\"squash_tau\": 1.0, \"units\": 4", "architecture.units: only an hdp policy"},
        {"\"squash_tau\": 1.0", "\"squash_tau\": 1.0, \"grouper\": \"none\"", ""}, /* loads: checked below */
    };
    fix_text_cases(agent_find("rnn"), plain, &ts, pbad, 2);
    char *none = ptext ? text_subst(ptext, pbad[2].old, pbad[2].rep, 1) : NULL;
    CHECK(none && fix_loads_text(agent_find("rnn"), "none.json", none, strlen(none), &e));
    free(none);
    free(ptext);
    rnn_free(plain);
    train_state_done(&ts);
    rnn_free(net);
    tmp_close(&td);
    train_fix_done(&f);
}

/* Placing: the placements simulated are 1 + samples, the result the best of
 * the decodes (the greedy one alone with 0 samples), on any grouping of the
 * graph; the explorer's actor refuses the policy. */
TEST(hdp_place_and_actor)
{
    TrainFix f;
    RnnNet *net;
    if (crown_new(&f, &net, 5, 8, 2) != 0)
        return;
    const Grouping *gr = f.pb.gr;
    int N = gr->n_groups;
    Err e = {{0}};
    int *gd = calloc((size_t)N, sizeof *gd), *dev = calloc((size_t)N, sizeof *dev);
    int *op = calloc((size_t)f.pb.g->n_nodes, sizeof *op);
    REQUIRE(gd && dev && op);
    double rt = 0;
    CHECK_INT(rnn_place(net, f.pb.g, gr, f.pb.c, 0, 1, gd, &rt, &e), 1);
    RnnHdpInput *in = rnn_hdp_input_new(f.pb.g, gr, &f.voc);
    RnnHdpDecoder *d = rnn_hdp_decoder_new(net, N);
    rnn_hdp_decode(d, f.pb.g, gr, in, 1, NULL, dev);
    CHECK(memcmp(gd, dev, (size_t)N * sizeof *gd) == 0);
    group_expand(gr, dev, op);
    CHECK(sim_run(f.pb.sim, op)->makespan_us == rt);
    double rt5 = 0;
    CHECK_INT(rnn_place(net, f.pb.g, gr, f.pb.c, 5, 1, gd, &rt5, &e), 6);
    CHECK(rt5 <= rt);
    /* a frozen placer: every unit on the frozen device of its learned group */
    net->frozen = XNEW(int, 5);
    net->frozen[3] = 1;
    rnn_hdp_decode(d, f.pb.g, gr, in, 1, NULL, dev);
    for (int k = 0; k < N; k++)
        CHECK_INT(dev[k], net->frozen[d->grp[k]]);
    GroupClusterStats st;
    CHECK_INT(rnn_place_grouping(net, f.pb.g, gr, &st), 5);
    CHECK(st.n_clusters >= 1 && st.n_clusters <= 5);
    rnn_hdp_decoder_free(d);
    rnn_hdp_input_free(in);
    /* another grouping of the same graph: the grouper reads any */
    Grouping *g6 = group_build(f.pb.g, 6, &e);
    REQUIRE(g6);
    CHECK_INT(rnn_place(net, f.pb.g, g6, f.pb.c, 2, 1, gd, &rt, &e), 3);
    group_free(g6);
    /* the explorer */
    CHECK(rnn_actor_new(net, f.pb.g, gr, &e) == NULL);
    CHECK_STR_CONTAINS(e.msg, "cannot be stepped in the explorer");
    free(gd);
    free(dev);
    free(op);
    rnn_free(net);
    train_fix_done(&f);
}

