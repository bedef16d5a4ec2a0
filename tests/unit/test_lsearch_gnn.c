/* The learned local search with Placeto's network as its scorer
 * (lsearch_gnn.c): a move's score is its group's logit for the target
 * device less the logit for its own device (against policy_forward with
 * that group current, from Placeto's features with no current group); the
 * search spends exactly its budget (the start's heuristics included, or a
 * caller's start counted as given), is never worse than its start and is
 * deterministic per seed, with and without learning; learning changes the
 * weights, the same way twice; a policy of `train --agent lsearch --scorer
 * placeto` saves and loads back to the same weights and bytes, and the
 * scorer refuses a cluster of another device count. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "episode.h"
#include "lsearch.h"
#include "place.h"
#include "problem.h"
#include "test.h"

typedef struct Fix {
    Problem p;
    Policy *pol;
    LsGnn *gnn;
} Fix;

static int fix_new(Fix *f, const char *graph, int devices, uint64_t seed)
{
    Err e = {{0}};
    memset(f, 0, sizeof *f);
    ProblemSpec s = {.graph_path = graph, .n_devices = devices};
    REQUIRE_OR(problem_load(&f->p, &s, &e) == 0, -1, "%s", e.msg);
    PolicyArch a;
    policy_arch_for(&a, devices, 0, 1);
    f->pol = policy_new(&a, seed, &e);
    REQUIRE_OR(f->pol != NULL, -1, "%s", e.msg);
    f->gnn = ls_gnn_new(f->pol, f->p.g, f->p.gr, f->p.c, &e);
    REQUIRE_OR(f->gnn != NULL, -1, "%s", e.msg);
    return 0;
}

static void fix_done(Fix *f)
{
    ls_gnn_free(f->gnn);
    policy_free(f->pol);
    problem_free(&f->p);
}

static double score_of(const Problem *p, const int *gd)
{
    int *op = malloc((size_t)p->g->n_nodes * sizeof *op);
    group_expand(p->gr, gd, op);
    double s = place_score(p->c, sim_run(p->sim, op));
    free(op);
    return s;
}

TEST(lsearch_gnn_scores_are_the_networks_log_odds)
{
    Fix f;
    REQUIRE(fix_new(&f, "graphs/families/enas-ptb/enas_ptb_24.json", 3, 7) == 0);
    int G = f.p.gr->n_groups, nd = 3, M = G * (nd - 1);
    int *cur = malloc((size_t)G * sizeof *cur);
    Rng r;
    rng_seed(&r, 4);
    for (int k = 0; k < G; k++)
        cur[k] = (int)rng_below(&r, (uint64_t)nd);
    double *score = malloc((size_t)M * sizeof *score);
    const LsScorer *sc = ls_gnn_scorer(f.gnn);
    sc->score(sc->ctx, cur, score);
    /* Placeto's own episode at that placement, each group current in turn */
    Err e = {{0}};
    PolicyGraph *pg = policy_graph_new(f.p.gr, &e);
    EpisodeConfig cfg;
    episode_config_default(&cfg);
    cfg.init = EPISODE_INIT_GIVEN;
    cfg.extended_features = 1;
    Episode *ep = episode_new(f.p.g, f.p.gr, f.p.c, pg, &cfg, 0, cur, &e);
    REQUIRE_MSG(ep != NULL, "%s", e.msg);
    float *feats = malloc((size_t)G * (size_t)f.pol->arch.n_features * sizeof *feats);
    episode_features(ep, -1, feats);
    PolicyWork *w = policy_work_new(&f.pol->arch, pg);
    double worst = 0;
    for (int k = 0; k < G; k++) {
        float l[3];
        policy_forward(f.pol, pg, w, feats, k, l, NULL);
        for (int x = 0; x < nd - 1; x++) {
            int d = x < cur[k] ? x : x + 1;
            worst = fmax(worst, fabs(score[k * (nd - 1) + x] - ((double)l[d] - l[cur[k]])));
        }
    }
    CHECK_MSG(worst < 1e-4, "the move scores differ from Placeto's logits by %g", worst);
    policy_work_free(w);
    episode_free(ep);
    policy_graph_free(pg);
    free(feats);
    free(score);
    free(cur);
    fix_done(&f);
}

TEST(lsearch_gnn_spends_its_budget_and_is_never_worse_than_its_start)
{
    Err e = {{0}};
    Fix f;
    REQUIRE(fix_new(&f, "graphs/families/enas-ptb/enas_ptb_24.json", 2, 3) == 0);
    int G = f.p.gr->n_groups, *a = malloc((size_t)G * sizeof *a), *b = malloc((size_t)G * sizeof *b);
    int *h = malloc((size_t)G * sizeof *h);
    PlaceCtx ctx = {.g = f.p.g, .gr = f.p.gr, .c = f.p.c, .seed = 9};
    double hs;
    const char *name;
    int64_t heur = place_best_heuristic(&ctx, h, &hs, &name);
    const LsScorer *sc = ls_gnn_scorer(f.gnn);
    for (int64_t budget = 1; budget <= 400; budget = budget * 5 + 3) {
        LsResult r1, r2;
        CHECK(ls_search_with(sc, f.p.g, f.p.gr, f.p.c, budget, 9, NULL, 0, 0, a, &r1, NULL, &e) == 0);
        CHECK(ls_search_with(sc, f.p.g, f.p.gr, f.p.c, budget, 9, NULL, 0, 0, b, &r2, NULL, &e) == 0);
        CHECK_MSG(r1.used == budget, "budget %lld: %lld placements simulated", (long long)budget, (long long)r1.used);
        CHECK_MSG(memcmp(a, b, (size_t)G * sizeof *a) == 0 && r1.best_score == r2.best_score,
                  "budget %lld: two searches differ", (long long)budget);
        CHECK_EXACT(score_of(&f.p, a), r1.best_score);
        if (budget >= heur) {
            CHECK_MSG(r1.best_score <= hs, "budget %lld: %g worse than the best heuristic's %g", (long long)budget,
                      r1.best_score, hs);
            CHECK(strcmp(r1.start, name) == 0 && r1.start_score == hs);
        }
        if (budget >= 200)
            CHECK_MSG(r1.accepted > 0 && r1.best_score < hs, "budget %lld: no improvement", (long long)budget);
    }
    LsResult r;
    ls_search_with(sc, f.p.g, f.p.gr, f.p.c, 250, 4, h, hs, 17, a, &r, NULL, &e);
    CHECK(r.used == 250 && strcmp(r.start, "given") == 0 && r.best_score <= hs);
    ls_search_with(sc, f.p.g, f.p.gr, f.p.c, 10, 4, h, hs, 17, a, &r, NULL, &e);
    CHECK_MSG(r.used == 17 && memcmp(a, h, (size_t)G * sizeof *a) == 0, "a spent budget searches nothing");
    /* another device count is refused, with the reason */
    ProblemSpec s4 = {.graph_path = "graphs/families/enas-ptb/enas_ptb_24.json", .n_devices = 4};
    Problem p4;
    REQUIRE(problem_load(&p4, &s4, &e) == 0);
    CHECK(ls_gnn_new(f.pol, p4.g, p4.gr, p4.c, &e) == NULL && strstr(e.msg, "2 devices") != NULL);
    problem_free(&p4);
    free(a);
    free(b);
    free(h);
    fix_done(&f);
}

TEST(lsearch_gnn_learning_changes_the_weights_deterministically)
{
    Fix f[2];
    Err e = {{0}};
    for (int k = 0; k < 2; k++)
        REQUIRE(fix_new(&f[k], "graphs/families/enas-cifar10/enas_cifar10_00.json", 2, 5) == 0);
    size_t n = f[0].pol->p.n;
    float *before = malloc(n * sizeof *before);
    memcpy(before, f[0].pol->p.w, n * sizeof *before);
    int G = f[0].p.gr->n_groups, *gd = malloc((size_t)G * sizeof *gd);
    LsResult r[2];
    int64_t updates[2];
    for (int k = 0; k < 2; k++) {
        NnAdam adam;
        nn_adam_init(&adam, 0.001);
        LsLearn l = {&adam, 1, 16, 0, 1, 0, 0, 0};
        nn_params_zero_grad(&f[k].pol->p);
        const LsScorer *sc = ls_gnn_scorer(f[k].gnn);
        CHECK(ls_search_with(sc, f[k].p.g, f[k].p.gr, f[k].p.c, 300, 5, NULL, 0, 0, gd, &r[k], &l, &e) == 0);
        updates[k] = l.updates;
    }
    CHECK_MSG(updates[0] >= 300 / 16 - 2 && updates[0] == updates[1], "%lld Adam steps", (long long)updates[0]);
    CHECK_MSG(memcmp(before, f[0].pol->p.w, n * sizeof *before) != 0, "learning left the weights as they were");
    CHECK_MSG(memcmp(f[1].pol->p.w, f[0].pol->p.w, n * sizeof *before) == 0, "two learning runs differ");
    CHECK_EXACT(r[0].best_score, r[1].best_score);
    free(before);
    free(gd);
    for (int k = 0; k < 2; k++)
        fix_done(&f[k]);
}

static const char *args_get(void *ctx, const char *name)
{
    const char *const *kv = ctx;
    for (; kv[0]; kv += 2)
        if (strcmp(kv[0], name) == 0)
            return kv[1];
    return NULL;
}

static char *slurp(const char *path)
{
    size_t len;
    Err e = {{0}};
    return util_read_file(path, &len, &e);
}

TEST(lsearch_gnn_policy_file_round_trips)
{
    Err e = {{0}};
    const AgentKind *k = agent_find("lsearch");
    REQUIRE(k != NULL);
    const char *kv[] = {"scorer", "placeto", "features", "paper", NULL, NULL};
    AgentArgs args = {.get = args_get, .ctx = (void *)kv, .opts = k->train.opts};
    _Alignas(max_align_t) unsigned char cfg[512] = {0};
    REQUIRE(k->train.config_size <= sizeof cfg);
    REQUIRE_MSG(k->train.configure(&args, 13, cfg, &e) == 0, "%s", e.msg);
    Problem p;
    ProblemSpec s = {.graph_path = "graphs/toy/crown.json", .n_devices = 3};
    REQUIRE(problem_load(&p, &s, &e) == 0);
    void *net = k->train.create(cfg, &p, 1, p.c, &e);
    REQUIRE_MSG(net != NULL, "%s", e.msg);
    char dir[] = "/tmp/placeto_gnnXXXXXX", a[64], b[64];
    REQUIRE(mkdtemp(dir) != NULL);
    snprintf(a, sizeof a, "%s/a.json", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    REQUIRE_MSG(k->file.save(net, NULL, a, &e) == 0, "%s", e.msg);
    AgentPolicy ap;
    REQUIRE_MSG(agent_policy_open(a, &ap, NULL, &e) == 0, "%s", e.msg);
    CHECK(ap.kind == k && ap.info.n_devices == 3 && !ap.info.any_devices);
    NnParams *p0 = k->file.params(net), *p1 = k->file.params(ap.net);
    CHECK(p0->n == p1->n && p0->n_tensors == 52 && memcmp(p0->w, p1->w, p0->n * sizeof *p0->w) == 0);
    REQUIRE_MSG(k->file.save(ap.net, NULL, b, &e) == 0, "%s", e.msg);
    char *ta = slurp(a), *tb = slurp(b);
    CHECK(ta && tb && strcmp(ta, tb) == 0);
    CHECK(ta && strstr(ta, "\"scorer\": \"placeto\", \"n_devices\": 3, \"n_features\": 8, \"d\": 8") != NULL);
    /* the control: the same architecture, the weights of a fresh run with the seed */
    void *u = k->file.untrained(ap.net, 13, &e);
    REQUIRE(u != NULL);
    CHECK(memcmp(k->file.params(u)->w, p0->w, p0->n * sizeof *p0->w) == 0);
    k->file.free(u);
    free(ta);
    free(tb);
    agent_policy_close(&ap);
    k->file.free(net);
    problem_free(&p);
    unlink(a);
    unlink(b);
    rmdir(dir);
}
