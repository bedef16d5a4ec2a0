/* What Placeto's trainer reports and keeps (placeto_train.c): the episode's total
 * reward, the policy's mean entropy and beta in each report; --keep best's
 * snapshot, never worse than the weights training started from, written as
 * the policy file's weights with the training weights in the checkpoint. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "placeto_io.h"
#include "placeto_place.h"
#include "problem.h"
#include "test.h"
#include "placeto_train.h"

typedef struct Seen {
    int n;
    double ret[16], final_us[16], entropy[16], beta[16];
} Seen;

static void on_episode(const TrainReport *r, void *ud)
{
    Seen *s = ud;
    if (s->n < 16) {
        s->ret[s->n] = r->ret;
        s->final_us[s->n] = r->final_runtime_us;
        s->entropy[s->n] = r->entropy;
        s->beta[s->n] = r->beta;
        s->n++;
    }
}

static Policy *new_policy(const PlacetoTrainConfig *cfg, int n_devices)
{
    PolicyArch a;
    Err e = {{0}};
    policy_arch_for(&a, n_devices, cfg->env.mem_feature, cfg->env.extended_features);
    a.start_device0 = cfg->env.init == EPISODE_INIT_DEVICE0;
    a.accept_improving = cfg->env.accept_improving;
    return policy_new(&a, cfg->seed, &e);
}

/* With every move kept and rewards relative to the start, the rewards of
 * an episode add up to (start - end) / start: its total reward, whatever
 * gamma (the report used to give the first step's return, its reward alone
 * with gamma 0). The entropy is the policy's (near ln 2 untrained on 2
 * devices), not beta. */
TEST(train_report_total_reward_entropy_and_beta)
{
    ProblemSpec s = {.graph_path = "graphs/toy/crown.json", .n_devices = 2};
    Problem p;
    Err e = {{0}};
    REQUIRE_MSG(problem_load(&p, &s, &e) == 0, "%s", e.msg);
    PlacetoTrainConfig cfg;
    placeto_train_config_tuned(&cfg); /* device 0, relative rewards, gamma 0 */
    cfg.env.accept_improving = 0;
    cfg.entropy = 0.05;
    PolicyGraph *pg = policy_graph_new(p.gr, &e);
    Policy *pol = new_policy(&cfg, 2);
    REQUIRE(pg && pol);
    TrainState ts;
    train_state_init(&ts, cfg.lr, cfg.entropy, cfg.seed);
    TrainGraph tg = {p.g, p.gr, pg};
    PlacetoTrainer *t = placeto_train_new(pol, &ts, &cfg, &tg, 1, p.c, &e);
    REQUIRE_MSG(t, "%s", e.msg);
    Seen seen = {0};
    CHECK(placeto_train_run(t, 6, on_episode, &seen, NULL) == 6);
    int *zero = calloc((size_t)p.gr->n_groups, sizeof *zero);
    int *ops = calloc((size_t)p.g->n_nodes, sizeof *ops);
    group_expand(p.gr, zero, ops);
    double start = sim_run(p.sim, ops)->makespan_us;
    CHECK(seen.n == 6);
    for (int k = 0; k < seen.n; k++) {
        double want = (start - seen.final_us[k]) / start;
        CHECK_MSG(fabs(seen.ret[k] - want) <= 1e-9 * (1 + fabs(want)), "episode %d: total reward %.12g, want %.12g", k + 1,
                  seen.ret[k], want);
        CHECK_MSG(seen.entropy[k] > 0.3 && seen.entropy[k] <= log(2) + 1e-6, "episode %d: entropy %g", k + 1,
                  seen.entropy[k]);
        CHECK(seen.beta[k] == 0.05);
    }
    free(zero);
    free(ops);
    placeto_train_free(t);
    train_state_done(&ts);
    policy_free(pol);
    policy_graph_free(pg);
    problem_free(&p);
}

/* The own placement's runtime of the policy with weights w. */
static double own_runtime(Policy *pol, const float *w, const Problem *p)
{
    memcpy(pol->p.w, w, pol->p.n * sizeof *w);
    int *gd = calloc((size_t)p->gr->n_groups, sizeof *gd);
    double rt;
    Err e = {{0}};
    int64_t n = placeto_place_procedure(pol, p->g, p->gr, p->c, AGENT_START_DEFAULT, 0, 0, 0, gd, &rt, NULL, NULL, &e);
    free(gd);
    return n < 0 ? INFINITY : rt;
}

/* --keep best: the kept snapshot evaluates no worse than the weights
 * training started from; the policy file holds it, and its checkpoint
 * the weights training goes on from, which a resume gets back. */
TEST(train_keep_best_snapshot_and_checkpoint)
{
    ProblemSpec s = {.graph_path = "graphs/toy/crown.json", .n_devices = 2};
    Problem p;
    Err e = {{0}};
    REQUIRE_MSG(problem_load(&p, &s, &e) == 0, "%s", e.msg);
    PlacetoTrainConfig cfg;
    placeto_train_config_tuned(&cfg); /* from device 0: a start training can make worse */
    cfg.keep_best = 1;
    cfg.eval_every = 3;
    cfg.lr = 0.05; /* moves the weights far in a few episodes */
    PolicyGraph *pg = policy_graph_new(p.gr, &e);
    Policy *pol = new_policy(&cfg, 2);
    REQUIRE(pg && pol);
    float *w0 = malloc(pol->p.n * sizeof *w0);
    memcpy(w0, pol->p.w, pol->p.n * sizeof *w0);
    TrainState ts;
    train_state_init(&ts, cfg.lr, cfg.entropy, cfg.seed);
    TrainGraph tg = {p.g, p.gr, pg};
    PlacetoTrainer *t = placeto_train_new(pol, &ts, &cfg, &tg, 1, p.c, &e);
    REQUIRE_MSG(t, "%s", e.msg);
    CHECK(placeto_train_run(t, 9, NULL, NULL, NULL) == 9);
    REQUIRE(ts.kept_w && ts.kept_n == pol->p.n);
    CHECK(ts.kept_episode >= 0 && ts.kept_episode <= 9 && ts.kept_episode % 3 == 0);
    float *wt = malloc(pol->p.n * sizeof *wt);
    memcpy(wt, pol->p.w, pol->p.n * sizeof *wt);
    double r0 = own_runtime(pol, w0, &p), rk = own_runtime(pol, ts.kept_w, &p);
    CHECK_MSG(rk <= r0, "kept %.3f us, the start's weights %.3f us", rk, r0);
    memcpy(pol->p.w, wt, pol->p.n * sizeof *wt);
    char path[] = "/tmp/placeto_keep_XXXXXX.json";
    int fd = mkstemps(path, 5);
    REQUIRE(fd >= 0);
    close(fd);
    CHECK_MSG(placeto_policy_save(pol, &ts, path, &e) == 0, "%s", e.msg);
    size_t len;
    char *text = util_read_file(path, &len, &e);
    REQUIRE_MSG(text, "%s", e.msg);
    Policy *placed = placeto_policy_load_text(path, text, len, NULL, &e); /* what place reads: no checkpoint */
    free(text);
    REQUIRE_MSG(placed, "%s", e.msg);
    CHECK(memcmp(placed->p.w, ts.kept_w, pol->p.n * sizeof *wt) == 0);
    TrainState rs;
    Policy *resumed = placeto_policy_load(path, &rs, &e); /* what train --resume reads */
    REQUIRE_MSG(resumed, "%s", e.msg);
    CHECK(memcmp(resumed->p.w, wt, pol->p.n * sizeof *wt) == 0);
    CHECK(rs.kept_w && memcmp(rs.kept_w, ts.kept_w, pol->p.n * sizeof *wt) == 0);
    CHECK(rs.kept_score == ts.kept_score && rs.kept_episode == ts.kept_episode);
    char ck[4200];
    policy_file_checkpoint_path(ck, sizeof ck, path);
    unlink(ck);
    unlink(path);
    train_state_done(&rs);
    policy_free(resumed);
    policy_free(placed);
    free(w0);
    free(wt);
    placeto_train_free(t);
    train_state_done(&ts);
    policy_free(pol);
    policy_graph_free(pg);
    problem_free(&p);
}
