/* The episode file: save -> load restores every field of the Episode (state,
 * history with undone entries, RNG, best, counters) bit for bit, re-saving
 * gives the same bytes, the resumed episode steps on exactly like the
 * original, and bad files (changed graph, unknown groups, devices out of
 * range, truncation, ...) get a FILE:LINE:COL: field: message error with
 * nothing half-loaded. */
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "placeto_episode.h"
#include "nn.h"
#include "placeto_train.h"
#include "gen.h"
#include "jdoc.h"
#include "test.h"
#include "testutil.h"

/* ---- helpers ---- */


static int bits(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }
#define SAME_D(a, b) bits(&(a), &(b), sizeof(double))

/* Everything of the world an episode lives in. */
/* Whether paths a and b name one existing file. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}


typedef struct Fix {
    TmpDir td;
    char gpath[128];
    Graph *g;
    Cluster *c;
    Grouping *gr;
    PolicyGraph *pg;
    Policy *pol;
    PolicyWork *w;
    EpisodeConfig cfg;
} Fix;

static void fix_done(Fix *f)
{
    policy_work_free(f->w);
    policy_free(f->pol);
    policy_graph_free(f->pg);
    group_free(f->gr);
    cluster_free(f->c);
    graph_free(f->g);
    tmp_close(&f->td);
}

/* A 40-op graph written to a file and loaded back (so it has a path and a
 * checksum), an uneven 3-device cluster with a small memory on device 2,
 * about 12 groups, a random policy; variant 1 uses every non-default option
 * but the extended features and relative rewards, which variant 2 adds. */
static int fix_init(Fix *f, int variant)
{
    memset(f, 0, sizeof *f);
    REQUIRE_OR(tmp_open(&f->td, "placeto_episode_io"), 0, "mkdtemp failed");
    Err e = {{0}};
    tmp_file(f->gpath, sizeof f->gpath, &f->td, "g.json");
    Graph *g0 = gen_random_dag(40, 2.0, 3 + (uint64_t)variant);
    int ok = graph_write_json(g0, f->gpath, &e) == 0;
    graph_free(g0);
    CHECK_MSG(ok, "%s", e.msg);
    f->g = ok ? graph_load(f->gpath, &e) : NULL;
    REQUIRE_OR(f->g != NULL, 0, "%s", e.msg);
    f->c = cluster_default(3);
    free(f->c->name);
    f->c->name = xstrdup("3 devices, \"uneven\" \xc2\xb5");
    f->c->devices[1].speed = 1.7;
    free(f->c->devices[2].kind);
    f->c->devices[2].kind = xstrdup("cpu");
    f->c->devices[2].memory_bytes = 3000000;
    f->c->bandwidth_bytes_per_us = 1234.5;
    f->gr = group_build(f->g, 12, &e);
    CHECK_MSG(f->gr != NULL, "%s", e.msg);
    f->pg = f->gr ? policy_graph_new(f->gr, &e) : NULL;
    CHECK_MSG(f->pg != NULL, "%s", e.msg);
    episode_config_default(&f->cfg);
    if (variant >= 1) {
        f->cfg.passes = 2;
        f->cfg.random_order = 1;
        f->cfg.init = EPISODE_INIT_RANDOM_EACH;
        f->cfg.oom_penalty = 3.25;
        f->cfg.log_runtime = 1;
        f->cfg.mem_feature = 1;
    }
    f->cfg.extended_features = f->cfg.relative_reward = variant == 2;
    PolicyArch a;
    policy_arch_default(&a, 3);
    if (variant == 2)
        policy_arch_for(&a, 3, 1, 1);
    a.mem_feature = f->cfg.mem_feature;
    a.n_features = policy_n_features(3, a.mem_feature, a.extended);
    a.rounds = 2;
    f->pol = policy_new(&a, 17, &e);
    CHECK_MSG(f->pol != NULL, "%s", e.msg);
    if (!f->pg || !f->pol)
        return 0;
    f->w = policy_work_new(&a, f->pg);
    return 1;
}

/* The first difference between two episodes' state, or "" when equal. */
static void diff_episodes(char *why, size_t n, const Episode *a, const Episode *b)
{
    why[0] = '\0';
#define D(cond, ...)                                   \
    do {                                               \
        if (!why[0] && !(cond))                        \
            snprintf(why, n, __VA_ARGS__);             \
    } while (0)
    size_t ng = (size_t)a->n_groups * sizeof(int);
    D(a->n_groups == b->n_groups && a->n_devices == b->n_devices && a->n_features == b->n_features &&
          a->n_order == b->n_order, "sizes");
    if (why[0])
        return;
    D(a->cfg.passes == b->cfg.passes && a->cfg.random_order == b->cfg.random_order && a->cfg.init == b->cfg.init &&
          SAME_D(a->cfg.oom_penalty, b->cfg.oom_penalty) && a->cfg.log_runtime == b->cfg.log_runtime &&
          a->cfg.mem_feature == b->cfg.mem_feature && a->cfg.extended_features == b->cfg.extended_features &&
          a->cfg.relative_reward == b->cfg.relative_reward, "config");
    D(a->seed == b->seed, "seed");
    D(bits(a->order, b->order, (size_t)a->n_order * sizeof(int)), "order");
    D(a->cursor == b->cursor, "cursor %d vs %d", a->cursor, b->cursor);
    D(bits(a->group_device, b->group_device, ng), "group_device");
    D(bits(a->op_device, b->op_device, (size_t)a->g->n_nodes * sizeof(int)), "op_device");
    D(bits(a->init_device, b->init_device, ng), "init_device");
    D(bits(a->visits, b->visits, ng), "visits");
    D(SAME_D(a->runtime_us, b->runtime_us), "runtime_us %.17g vs %.17g", a->runtime_us, b->runtime_us);
    D(SAME_D(a->score, b->score), "score");
    D(a->oom == b->oom, "oom");
    D(bits(a->group_start, b->group_start, (size_t)a->n_groups * sizeof(double)), "group_start");
    D(bits(a->group_peak, b->group_peak, (size_t)a->n_groups * sizeof(double)), "group_peak");
    D(SAME_D(a->init_runtime_us, b->init_runtime_us), "init_runtime_us");
    D(SAME_D(a->init_score, b->init_score), "init_score");
    D(a->n_hist == b->n_hist && a->n_redo == b->n_redo, "history %d+%d vs %d+%d", a->n_hist, a->n_redo,
      b->n_hist, b->n_redo);
    for (int i = 0; !why[0] && i < a->n_hist + a->n_redo; i++) {
        const EpisodeStep *x = &a->hist[i], *y = &b->hist[i];
        D(x->cursor == y->cursor && x->group == y->group && x->old_device == y->old_device &&
              x->new_device == y->new_device && x->actor == y->actor && x->greedy == y->greedy &&
              x->takes_step == y->takes_step && SAME_D(x->runtime_us, y->runtime_us) && SAME_D(x->reward, y->reward) &&
              bits(&x->rng_before, &y->rng_before, sizeof(Rng)) && bits(&x->rng_after, &y->rng_after, sizeof(Rng)) &&
              (!x->probs) == (!y->probs) &&
              (!x->probs || bits(x->probs, y->probs, (size_t)a->n_devices * sizeof(float))),
          "history[%d]", i);
    }
    D(bits(&a->rng, &b->rng, sizeof(Rng)), "rng");
    D(a->simulations == b->simulations, "simulations %lld vs %lld", (long long)a->simulations,
      (long long)b->simulations);
    D(SAME_D(a->best_runtime_us, b->best_runtime_us) && SAME_D(a->best_score, b->best_score) &&
          a->best_at == b->best_at && bits(a->best_device, b->best_device, ng), "best");
#undef D
}

static int same_cluster(const Cluster *a, const Cluster *b)
{
    int ok = strcmp(a->name, b->name) == 0 && a->n_devices == b->n_devices && SAME_D(a->op_gap_us, b->op_gap_us) &&
             SAME_D(a->transfer_overhead_us, b->transfer_overhead_us) &&
             SAME_D(a->bandwidth_bytes_per_us, b->bandwidth_bytes_per_us);
    for (int d = 0; ok && d < a->n_devices; d++)
        ok = strcmp(a->devices[d].name, b->devices[d].name) == 0 && strcmp(a->devices[d].kind, b->devices[d].kind) == 0 &&
             SAME_D(a->devices[d].speed, b->devices[d].speed) && a->devices[d].memory_bytes == b->devices[d].memory_bytes;
    return ok;
}

static int same_step(const EpisodeStep *x, const EpisodeStep *y, int n_devices)
{
    return x && y && x->cursor == y->cursor && x->group == y->group && x->old_device == y->old_device &&
           x->new_device == y->new_device && x->actor == y->actor && SAME_D(x->runtime_us, y->runtime_us) &&
           SAME_D(x->reward, y->reward) && bits(&x->rng_after, &y->rng_after, sizeof(Rng)) &&
           (!x->probs) == (!y->probs) && (!x->probs || bits(x->probs, y->probs, (size_t)n_devices * sizeof(float)));
}

/* A history with policy steps (sampled and greedy), user overrides (one a
 * no-op move, one of the current group, which takes the step) and two
 * undone entries at the end. */
static Episode *played_episode(Fix *f, uint64_t seed)
{
    Err e = {{0}};
    Episode *ep = episode_new(f->g, f->gr, f->c, f->pg, &f->cfg, seed, NULL, &e);
    REQUIRE_OR(ep != NULL, NULL, "%s", e.msg);
    for (int k = 0; k < 5; k++)
        placeto_episode_step(ep, f->pol, f->w, k == 3, NULL);
    CHECK(episode_override(ep, 2, 2, &e) != NULL);
    CHECK(episode_override(ep, 4, ep->group_device[4], &e) != NULL);
    const EpisodeStep *u = episode_override(ep, episode_current(ep), 1, &e);
    CHECK(u && u->takes_step);
    placeto_episode_step(ep, f->pol, f->w, 0, NULL);
    placeto_episode_step(ep, f->pol, f->w, 0, NULL);
    CHECK(episode_undo(ep) == 0);
    CHECK(episode_undo(ep) == 0);
    CHECK_INT(ep->n_redo, 2);
    return ep;
}

/* The optional config keys of the file at path: written exactly when set. */
static void check_optional_keys(const char *path, const EpisodeConfig *cfg)
{
    char *text = read_all(path, NULL);
    REQUIRE(text != NULL);
    CHECK_INT(strstr(text, "\"extended_features\": true") != NULL, cfg->extended_features);
    CHECK_INT(strstr(text, "\"relative_reward\": true") != NULL, cfg->relative_reward);
    CHECK(!strstr(text, "\"extended_features\": false") && !strstr(text, "\"relative_reward\": false"));
    free(text);
}

/* ---- round trip and resume ---- */

static void roundtrip_variant(int variant)
{
    Fix f;
    if (!fix_init(&f, variant)) {
        fix_done(&f);
        return;
    }
    char p1[128], p2[128], why[256];
    tmp_file(p1, sizeof p1, &f.td, "ep.json");
    tmp_file(p2, sizeof p2, &f.td, "ep2.json");
    Episode *ep = played_episode(&f, 1000 + (uint64_t)variant);
    Err e = {{0}};
    EpisodeFile ef;
    memset(&ef, 0, sizeof ef);
    const char *ppath = variant ? "graphs/some \"policy\".json" : NULL;
    if (ep && episode_save(ep, ppath, 0xabcdef0123456789ULL, p1, &e) != 0)
        CHECK_MSG(0, "%s", e.msg);
    if (ep && episode_load(p1, &ef, &e) != 0)
        CHECK_MSG(0, "variant %d: %s", variant, e.msg);
    if (ep && ef.ep) {
        diff_episodes(why, sizeof why, ep, ef.ep);
        CHECK_MSG(!why[0], "variant %d: loaded episode differs: %s", variant, why);
        CHECK(same_cluster(f.c, ef.pb.c));
        CHECK_INT(ef.pb.gr->n_groups, f.gr->n_groups);
        CHECK(ef.pb.g->checksum == f.g->checksum);
        CHECK(same_file(ef.pb.g->path, f.gpath));
        if (ppath) { /* a policy file that does not exist is kept as it was named, from the episode's directory */
            size_t lp = ef.policy_path ? strlen(ef.policy_path) : 0, lq = strlen(ppath);
            CHECK(lp > lq && strcmp(ef.policy_path + lp - lq, ppath) == 0);
            CHECK(ef.policy_checksum == 0xabcdef0123456789ULL);
        } else {
            CHECK(ef.policy_path == NULL);
        }
        CHECK_MSG(episode_save(ef.ep, ppath, ef.policy_checksum, p2, &e) == 0, "%s", e.msg);
        CHECK_MSG(same_file_bytes(p1, p2), "variant %d: re-saved file differs", variant);
        check_optional_keys(p1, &f.cfg);

        /* both go on identically: redo, policy steps to the end, an
         * override, undo and redo again */
        PolicyWork *w2 = policy_work_new(&f.pol->arch, ef.pg);
        Episode *a = ep, *b = ef.ep;
        CHECK(episode_redo(a) == 0 && episode_redo(b) == 0);
        int steps = 0;
        while (!episode_done(a) && !episode_done(b) && steps < 1000) {
            int greedy = steps % 4 == 1;
            const EpisodeStep *x = placeto_episode_step(a, f.pol, f.w, greedy, NULL);
            const EpisodeStep *y = placeto_episode_step(b, f.pol, w2, greedy, NULL);
            CHECK_MSG(same_step(x, y, a->n_devices), "variant %d: step %d differs", variant, steps);
            steps++;
        }
        CHECK(episode_done(a) && episode_done(b));
        CHECK(steps > 3);
        CHECK(same_step(episode_override(a, 1, 0, &e), episode_override(b, 1, 0, &e), a->n_devices));
        for (int k = 0; k < 3; k++)
            CHECK(episode_undo(a) == 0 && episode_undo(b) == 0);
        CHECK(episode_redo(a) == 0 && episode_redo(b) == 0);
        const EpisodeStep *x = placeto_episode_step(a, f.pol, f.w, 0, NULL);
        const EpisodeStep *y = placeto_episode_step(b, f.pol, w2, 0, NULL);
        CHECK((x == NULL) == (y == NULL));
        if (x && y)
            CHECK(same_step(x, y, a->n_devices));
        diff_episodes(why, sizeof why, a, b);
        CHECK_MSG(!why[0], "variant %d: after resuming: %s", variant, why);
        policy_work_free(w2);
    }
    episode_file_free(&ef);
    episode_free(ep);
    fix_done(&f);
}

TEST(episode_io_roundtrip_and_resume_default_config)
{
    roundtrip_variant(0);
}

TEST(episode_io_roundtrip_and_resume_every_option)
{
    roundtrip_variant(1);
}

TEST(episode_io_roundtrip_and_resume_extended_relative)
{
    roundtrip_variant(2);
}

TEST(episode_io_fresh_and_finished_episodes)
{
    Fix f;
    if (!fix_init(&f, 0)) {
        fix_done(&f);
        return;
    }
    char p1[128], p2[128], why[256];
    tmp_file(p1, sizeof p1, &f.td, "a.json");
    tmp_file(p2, sizeof p2, &f.td, "b.json");
    Err e = {{0}};
    Episode *ep = episode_new(f.g, f.gr, f.c, f.pg, &f.cfg, 5, NULL, &e);
    CHECK_MSG(ep != NULL, "%s", e.msg);
    for (int round = 0; ep && round < 2; round++) {
        if (round == 1) /* run to the end, then undo everything */
            while (!episode_done(ep))
                placeto_episode_step(ep, f.pol, f.w, 0, NULL);
        EpisodeFile ef;
        CHECK_MSG(episode_save(ep, NULL, 0, p1, &e) == 0, "%s", e.msg);
        CHECK_MSG(episode_load(p1, &ef, &e) == 0, "%s", e.msg);
        if (ef.ep) {
            diff_episodes(why, sizeof why, ep, ef.ep);
            CHECK_MSG(!why[0], "round %d: %s", round, why);
            CHECK(episode_save(ef.ep, NULL, 0, p2, &e) == 0 && same_file_bytes(p1, p2));
            if (round == 1) {
                while (episode_undo(ep) == 0)
                    CHECK(episode_undo(ef.ep) == 0);
                CHECK(episode_undo(ef.ep) != 0);
                diff_episodes(why, sizeof why, ep, ef.ep);
                CHECK_MSG(!why[0], "after undoing everything: %s", why);
            }
        }
        episode_file_free(&ef);
    }
    episode_free(ep);
    fix_done(&f);
}

/* ---- errors ---- */

/* Replaces the first old by rep in text, where '@' in rep marks where the
 * error must point (and is removed); writes it to path and loads it.
 * Checks the error is "PATH:LINE:COL: msg..." and that nothing is left. */
static void expect_bad(const char *good, const char *old, const char *rep, const char *path, const char *msg,
                       const char *what)
{
    char *text = text_subst(good, old, rep, 1);
    REQUIRE_MSG(text != NULL, "%s: \"%s\" not in the file", what, old);
    size_t at = 0;
    take_marker(text, &at);
    Err e = {{0}};
    CHECK(util_write_atomic(path, text, strlen(text), &e) == 0);
    EpisodeFile ef;
    memset(&ef, 0x5a, sizeof ef);
    int rc = episode_load(path, &ef, &e);
    CHECK_MSG(rc != 0, "%s: loaded", what);
    CHECK_MSG(ef.pb.g == NULL && ef.pb.c == NULL && ef.pb.gr == NULL && ef.pg == NULL && ef.ep == NULL &&
                  ef.policy_path == NULL, "%s: not zeroed", what);
    if (rc == 0)
        episode_file_free(&ef);
    char want[1024];
    error_at(want, sizeof want, path, text, at, msg);
    CHECK_MSG(strncmp(e.msg, want, strlen(want)) == 0, "%s: \"%s\", expected \"%s...\"", what, e.msg, want);
    free(text);
}

/* Bad values of the fields of the episode saved by the errors test (a fix of
 * variant 1): the first old becomes rep, the error starts with msg. */
static const struct {
    const char *old, *rep, *msg;
} episode_bad_fields[] = {
    {"\"placeto-episode\"", "@\"placeto-policy\"", "format: expected \"placeto-episode\""},
    {"\"version\": 1", "\"version\": @3", "version: expected 1"},
    {"\"speed\": 1.7", "\"speed\": @0", "cluster.devices[1].speed: expected a number >= 1e-06"},
    {"\"devices\": [", "\"devices\": @5, \"devs\": [", "cluster.devices: expected a non-empty array of devices"},
    {"\"cluster\": {\"format\": \"placeto-cluster\", \"version\": 1", "\"cluster\": @{\"format\": \"placeto-cluster\", \"vers\": 1",
     "cluster: missing \"version\": expected 1"},
    {"\"bandwidth_bytes_per_us\": 1234.5", "\"bandwidth_bytes_per_us\": @\"fast\"",
     "cluster.bandwidth_bytes_per_us: expected a number"},
    {"\"n_groups\": ", "\"n_groups\": @999, \"x\": ", "grouping.n_groups: the graph gives"},
    {"\"groups\": ", "\"groups\": @-1, \"x\": ", "grouping.groups: expected an integer from 0 to"},
    {"\"policy\": {", "\"policy\": @7, \"x\": {", "policy: expected null or an object"},
    {"\"passes\": 2", "\"passes\": @0", "config.passes: expected an integer from 1 to 1000"},
    {"\"init\": \"", "\"init\": @\"x", "config.init: expected \"random-fixed\", \"device0\", \"random-each\" or \"given\""},
    {"\"random_order\": true", "\"random_order\": @1", "config.random_order: expected true or false"},
    {"\"mem_feature\": true", "\"mem_feature\": true, \"extended_features\": @1", "config.extended_features: expected true or false"},
    {"\"mem_feature\": true", "\"mem_feature\": true, \"relative_reward\": @\"yes\"", "config.relative_reward: expected true or false"},
    {"\"seed\": \"", "\"seed\": @\"g", "seed: expected a string of 1 to 16 hex digits"},
    {"\"rng\": [", "\"rng\": @[\"0\", \"0\", \"0\", \"0\"], \"x\": [", "rng: the all-zero state is not a valid"},
    {"\"order\": [", "\"order\": @[\"nope\", ", "order: expected 24 group names (passes x groups), got 25"},
    {"\"order\": [\n  \"", "\"order\": [\n  @\"x", "order[0]: unknown group \"x"},
    {"\"order\": [", "\"order\": @7, \"x\": [", "order: expected an array of group names"},
    {"\"cursor\": ", "\"cursor\": @999, \"x\": ", "cursor: expected an integer from 0 to 24"},
    {"\"visits\": [", "\"visits\": @[1, ", "visits: expected 12 visit counts (one per group), got 13"},
    {"\"placement\": {\n  ", "\"placement\": {\n  \"nope\": @0,\n  ", "placement.nope: unknown group \"nope\""},
    {"\"group\": \"", "\"group\": @\"x", "history[0].group: unknown group \"x"},
    {"\"actor\": \"policy\"", "\"actor\": @\"robot\"", "history[0].actor: expected \"policy\" or \"user\", got \"robot\""},
    {"\"old\": ", "\"old\": @3, \"x\": ", "history[0].old: expected an integer from 0 to 2"},
    {"\"new\": ", "\"new\": @-1, \"x\": ", "history[0].new: expected an integer from 0 to 2"},
    {"\"probs\": [", "\"probs\": @[0.5, ", "history[0].probs: expected null or an array of 3 probabilities"},
    {"\"greedy\": false", "\"greedy\": @0", "history[0].greedy: expected true or false"},
    {"\"rng_after\": [", "\"rng_after\": @[\"1\"], \"x\": [", "history[0].rng_after: expected 4 hex strings"},
    {"\"runtime_us\": ", "\"runtime_us\": @\"x\", \"y\": ", "best.runtime_us: expected a number"},
    {"\"history\": [", "\"history\": [@7, ", "history[0]: expected a history entry object"},
    {"\"history\": [\n  {\"cursor\": 0", "\"history\": [\n  {\"cursor\": @1", "history[0].cursor: a policy step at cursor 1 places order[1] = "},
    {"\"history\": [\n  {\"cursor\": 0", "\"history\": [\n  {\"cursor\": @24", "history[0].cursor: a policy step needs a cursor below 24"},
    {"\"redo\": 2", "\"redo\": @99", "redo: expected an integer from 0 to 10"},
    {"\"takes_step\": true", "\"takes_step\": @1", "history[5].takes_step: expected true or false"},
    {"\"actor\": \"policy\", \"greedy\"", "\"actor\": \"policy\", \"takes_step\": @false, \"greedy\"",
     "history[0].takes_step: a policy step always takes the step at its cursor"},
    {"\"simulations\": ", "\"simulations\": @-1, \"x\": ", "simulations: expected an integer from 0 to"},
    {"\"best\": {\"runtime_us\"", "\"best\": @{\"runtime\"", "best: missing \"runtime_us\""},
    {"\"cluster\": {", "\"cluster\": {\"x\": [@}], \"old\": {", "JSON syntax error near '}'"},
};

/* Each field of the table above, bad in its own way. */
static void expect_bad_fields(const char *good, const char *bad)
{
    for (size_t k = 0; k < sizeof episode_bad_fields / sizeof *episode_bad_fields; k++) {
        char what[32];
        snprintf(what, sizeof what, "case %zu", k);
        expect_bad(good, episode_bad_fields[k].old, episode_bad_fields[k].rep, bad, episode_bad_fields[k].msg, what);
    }
}

/* Placements naming the first group g0 with a device out of range, or
 * groups that do not exist. */
static void expect_bad_group_names(const char *good, const char *g0, const char *bad)
{
    char o1[256], r1[256], m1[512], field[300];
    snprintf(o1, sizeof o1, "\"placement\": {\n  \"%s\": ", g0);
    snprintf(r1, sizeof r1, "\"placement\": {\n  \"%s\": @7, \"x\": ", g0);
    jpath_key(field, sizeof field, "placement", g0);
    snprintf(m1, sizeof m1, "%s: expected an integer from 0 to 2, got 7", field);
    expect_bad(good, o1, r1, bad, m1, "device out of range");
    snprintf(o1, sizeof o1, "\"init_placement\": {\n  \"%s\": ", g0);
    snprintf(r1, sizeof r1, "\"init_placement\": {\n  \"x%s\": @", g0);
    snprintf(m1, sizeof m1, "init_placement.x%s: unknown group", g0);
    expect_bad(good, o1, r1, bad, m1, "unknown group");
    snprintf(o1, sizeof o1, "\"placement\": {\n  \"%s\": ", g0);
    snprintf(r1, sizeof r1, "\"placement\": {\n  \"x\": @0, \"%s-\": ", g0);
    snprintf(m1, sizeof m1, "placement.x: unknown group \"x\"");
    expect_bad(good, o1, r1, bad, m1, "unknown group 2");
}

/* A visit count and a probability (of the first step with probabilities,
 * when that is history[0]) out of range. */
static void expect_bad_visit_and_probability(const char *good, const Episode *ep, const char *bad)
{
    char o1[256], m1[512];
    snprintf(o1, sizeof o1, "\"visits\": [%d, ", ep->visits[0]);
    expect_bad(good, o1, "\"visits\": [@-1, ", bad, "visits[0]: expected an integer from 0 to", "visits");
    for (int i = 0; i < ep->n_hist; i++)
        if (ep->hist[i].probs) {
            char pf[40];
            snprintf(pf, sizeof pf, "%.9g", (double)ep->hist[i].probs[0]);
            snprintf(o1, sizeof o1, "\"probs\": [%s, ", pf);
            snprintf(m1, sizeof m1, "history[%d].probs[0]: expected a number <= 1, got 1.5", i);
            if (i == 0)
                expect_bad(good, o1, "\"probs\": [@1.5, ", bad, m1, "probability");
            break;
        }
}

/* The graph an episode names: a checksum that does not match, a path that
 * does not load, and the graph file itself changed since the save. */
static void expect_bad_graph_reference(const char *good, const Fix *f, const char *bad)
{
    char o1[256], r1[256], m1[512], sum[64], rep_sum[64];
    snprintf(sum, sizeof sum, "\"checksum\": \"%016llx\"", (unsigned long long)f->g->checksum);
    snprintf(rep_sum, sizeof rep_sum, "\"checksum\": @\"%016llx\"", (unsigned long long)(f->g->checksum ^ 1));
    snprintf(m1, sizeof m1, "graph.checksum: graph %s changed since the episode was saved", f->gpath);
    expect_bad(good, sum, rep_sum, bad, m1, "checksum");
    snprintf(o1, sizeof o1, "\"path\": \"g.json\""); /* saved relative to the episode file */
    snprintf(r1, sizeof r1, "\"path\": @\"%s/missing.json\"", f->td.path);
    expect_bad(good, o1, r1, bad, "graph.path: cannot load the episode's graph:", "missing graph");

    /* the graph file itself changed */
    size_t glen;
    char *gtext = read_all(f->gpath, &glen);
    REQUIRE(gtext != NULL);
    Err e = {{0}};
    char *changed = text_subst(gtext, "\"cost_us\": ", "\"cost_us\": 1", 1);
    CHECK(changed && util_write_atomic(f->gpath, changed, strlen(changed), &e) == 0);
    char at[64];
    snprintf(at, sizeof at, "\"checksum\": @\"%016llx\"", (unsigned long long)f->g->checksum);
    expect_bad(good, sum, at, bad, m1, "changed graph");
    CHECK(util_write_atomic(f->gpath, gtext, glen, &e) == 0);
    free(changed);
    free(gtext);
}

/* The good file cut short at about ten places. */
static void expect_truncated_files_fail(const char *good, size_t len, const char *bad)
{
    Err e = {{0}};
    for (size_t cut = 1; cut < len; cut += len / 9 + 1) {
        CHECK(util_write_atomic(bad, good, cut, &e) == 0);
        EpisodeFile ef;
        int rc = episode_load(bad, &ef, &e);
        CHECK_MSG(rc != 0, "loaded a file cut at %zu", cut);
        if (rc == 0)
            episode_file_free(&ef);
        CHECK_MSG(strncmp(e.msg, bad, strlen(bad)) == 0, "%s", e.msg);
    }
}

/* A graph built in memory has no file to name. */
static void expect_in_memory_graph_unsaveable(const Fix *f, const char *bad)
{
    Err e = {{0}};
    Graph *mem = gen_random_dag(5, 1.0, 1);
    Grouping *mgr = group_build(mem, 0, &e);
    Episode *mep = mgr ? episode_new(mem, mgr, f->c, NULL, &f->cfg, 1, NULL, &e) : NULL;
    CHECK_MSG(mep != NULL, "%s", e.msg);
    if (mep) {
        CHECK(episode_save(mep, NULL, 0, bad, &e) != 0);
        CHECK_STR_CONTAINS(e.msg, "was not read from a file");
    }
    episode_free(mep);
    group_free(mgr);
    graph_free(mem);
}

TEST(episode_io_errors_name_field_and_position)
{
    Fix f;
    if (!fix_init(&f, 1)) {
        fix_done(&f);
        return;
    }
    char p1[128], bad[128];
    tmp_file(p1, sizeof p1, &f.td, "ep.json");
    tmp_file(bad, sizeof bad, &f.td, "bad.json");
    Episode *ep = played_episode(&f, 77);
    Err e = {{0}};
    size_t len = 0;
    char *good = NULL;
    if (ep && episode_save(ep, "p.json", 1, p1, &e) == 0)
        good = read_all(p1, &len);
    CHECK_MSG(good != NULL, "%s", e.msg);
    if (!good) {
        episode_free(ep);
        fix_done(&f);
        return;
    }
    expect_bad_fields(good, bad);
    expect_bad_group_names(good, f.gr->names[0], bad);
    expect_bad_visit_and_probability(good, ep, bad);
    expect_bad_graph_reference(good, &f, bad);
    expect_truncated_files_fail(good, len, bad);
    EpisodeFile ef;
    CHECK(episode_load(p1, &ef, &e) == 0); /* the good file still loads */
    episode_file_free(&ef);
    CHECK(episode_load("/nonexistent/ep.json", &ef, &e) != 0);
    CHECK_STR_CONTAINS(e.msg, "/nonexistent/ep.json");
    expect_in_memory_graph_unsaveable(&f, bad);
    free(good);
    episode_free(ep);
    fix_done(&f);
}

/* ---- what save writes, load accepts, and the other way round ---- */

/* The visit counts and cursors a history implies: a file whose counts
 * disagree with its history is refused on load (it would otherwise be
 * accepted, and undoing its steps would give counts below 0 that no load
 * accepts), and a state that disagrees is never written. */
TEST(episode_io_visits_and_cursors_agree_with_the_history)
{
    Fix f;
    if (!fix_init(&f, 1)) {
        fix_done(&f);
        return;
    }
    char p1[128], p2[128];
    tmp_file(p1, sizeof p1, &f.td, "a.json");
    tmp_file(p2, sizeof p2, &f.td, "b.json");
    Err e = {{0}};
    Episode *ep = episode_new(f.g, f.gr, f.c, f.pg, &f.cfg, 5, NULL, &e);
    REQUIRE_MSG(ep, "%s", e.msg);
    for (int i = 0; i < 5; i++)
        placeto_episode_step(ep, f.pol, f.w, 0, NULL);
    int cur = episode_current(ep);
    CHECK(episode_override(ep, cur, 1, &e) != NULL);          /* takes the step */
    CHECK(episode_override(ep, ep->order[0], 2, &e) != NULL); /* another group: no step */
    CHECK(episode_undo(ep) == 0 && episode_undo(ep) == 0 && episode_undo(ep) == 0);
    /* saved after undo, loaded, saved again: the same bytes */
    CHECK_MSG(episode_save(ep, NULL, 0, p1, &e) == 0, "%s", e.msg);
    EpisodeFile ef;
    CHECK_MSG(episode_load(p1, &ef, &e) == 0, "%s", e.msg);
    if (ef.ep) {
        CHECK(episode_save(ef.ep, NULL, 0, p2, &e) == 0 && same_file_bytes(p1, p2));
        while (episode_undo(ef.ep) == 0)
            ;
        CHECK_MSG(episode_save(ef.ep, NULL, 0, p2, &e) == 0, "%s", e.msg);
        EpisodeFile back;
        CHECK_MSG(episode_load(p2, &back, &e) == 0, "after undoing everything: %s", e.msg);
        CHECK(util_reading_path() == NULL); /* the episode's and its graph's reads both ended */
        episode_file_free(&back);
    }
    episode_file_free(&ef);

    /* a file with the counts of no step at all: refused, with the count */
    size_t len;
    char *good = read_all(p1, &len);
    REQUIRE(good);
    const char *v = strstr(good, "\"visits\": [");
    REQUIRE(v);
    int k0 = -1;
    for (int k = 0; k < ep->n_groups && k0 < 0; k++)
        if (ep->visits[k] > 0)
            k0 = k;
    REQUIRE(k0 >= 0);
    StrBuf b = {0};
    sb_printf(&b, "%.*s\"visits\": [", (int)(v - good), good);
    for (int k = 0; k < ep->n_groups; k++)
        sb_printf(&b, k ? ", %d" : "%d", 0);
    sb_puts(&b, strchr(v, ']'));
    char bad[160];
    tmp_file(bad, sizeof bad, &f.td, "bad.json");
    REQUIRE(util_write_atomic(bad, b.s, b.len, &e) == 0);
    e.msg[0] = '\0';
    CHECK(episode_load(bad, &ef, &e) != 0);
    episode_file_free(&ef);
    char want[200];
    snprintf(want, sizeof want, "visits[%d]: expected %d (the steps of group", k0, ep->visits[k0]);
    CHECK_STR_CONTAINS(e.msg, want);
    sb_free(&b);
    /* a history entry whose cursor skips a step */
    char *skip = text_subst(good, "\"cursor\": 1,", "\"cursor\": 2,", 1);
    if (skip) {
        REQUIRE(util_write_atomic(bad, skip, strlen(skip), &e) == 0);
        e.msg[0] = '\0';
        CHECK(episode_load(bad, &ef, &e) != 0);
        episode_file_free(&ef);
        CHECK_MSG(strstr(e.msg, "history[1].cursor") || strstr(e.msg, "places order[2]"), "%s", e.msg);
        free(skip);
    }
    free(good);

    /* a state that disagrees is not written */
    ep->visits[k0]++;
    e.msg[0] = '\0';
    CHECK(episode_save(ep, NULL, 0, p2, &e) != 0);
    CHECK_STR_CONTAINS(e.msg, "cannot save: visits[");
    ep->visits[k0]--;
    ep->cursor++;
    CHECK(episode_save(ep, NULL, 0, p2, &e) != 0);
    CHECK_STR_CONTAINS(e.msg, "cannot save: cursor: expected");
    ep->cursor--;
    CHECK_MSG(episode_save(ep, NULL, 0, p2, &e) == 0, "%s", e.msg);
    episode_free(ep);
    fix_done(&f);
}

/* A policy whose forward pass overflows (finite weights near FLT_MAX)
 * still gives finite probabilities, so the episode it steps saves and
 * loads. */
TEST(episode_io_overflowing_policy_still_saves)
{
    Fix f;
    if (!fix_init(&f, 0)) {
        fix_done(&f);
        return;
    }
    for (size_t i = 0; i < f.pol->p.n; i++)
        f.pol->p.w[i] = (i % 3 ? 3e38f : -3e38f);
    char p1[128];
    tmp_file(p1, sizeof p1, &f.td, "a.json");
    Err e = {{0}};
    Episode *ep = episode_new(f.g, f.gr, f.c, f.pg, &f.cfg, 5, NULL, &e);
    REQUIRE_MSG(ep, "%s", e.msg);
    for (int i = 0; i < 4; i++) {
        const EpisodeStep *s = placeto_episode_step(ep, f.pol, f.w, i % 2, NULL);
        REQUIRE(s && s->probs);
        double sum = 0;
        for (int d = 0; d < ep->n_devices; d++) {
            CHECK_MSG(isfinite(s->probs[d]) && s->probs[d] >= 0 && s->probs[d] <= 1, "step %d: p[%d] = %g", i, d,
                      (double)s->probs[d]);
            sum += s->probs[d];
        }
        CHECK_MSG(fabs(sum - 1) < 1e-5, "step %d: probabilities sum to %g", i, sum);
    }
    CHECK_MSG(episode_save(ep, NULL, 0, p1, &e) == 0, "%s", e.msg);
    EpisodeFile ef;
    CHECK_MSG(episode_load(p1, &ef, &e) == 0, "%s", e.msg);
    episode_file_free(&ef);
    /* the softmax itself on logits that are not finite */
    float z1[3] = {INFINITY, 1, INFINITY}, z2[3] = {NAN, NAN, NAN}, z3[3] = {NAN, 0, -INFINITY}, p[3], lp[3];
    nn_softmax_f(z1, 3, p, lp);
    CHECK(p[0] == 0.5f && p[1] == 0 && p[2] == 0.5f);
    nn_softmax_f(z2, 3, p, lp);
    CHECK(p[0] == p[1] && p[1] == p[2] && fabsf(p[0] - 1.0f / 3) < 1e-7f);
    nn_softmax_f(z3, 3, p, lp);
    CHECK(p[0] == 0 && p[1] == 1 && p[2] == 0);
    episode_free(ep);
    fix_done(&f);
}

/* A stored best is what its placement simulates to: a resumed file that
 * claims a runtime of 0 does not become training's best. */
TEST(train_stored_best_is_resimulated)
{
    Fix f;
    if (!fix_init(&f, 0)) {
        fix_done(&f);
        return;
    }
    PlacetoTrainConfig tc;
    placeto_train_config_default(&tc);
    tc.env = f.cfg;
    TrainState ts;
    train_state_init(&ts, tc.lr, tc.entropy, 1);
    TrainBest *b = train_best_for(&ts, f.g->name, f.g->checksum, f.gr->n_groups);
    for (int k = 0; k < f.gr->n_groups; k++)
        b->group_device[k] = k % 2;
    b->runtime_us = 0;
    b->score = 0;
    TrainGraph tg = {f.g, f.gr, f.pg};
    Err e = {{0}};
    PlacetoTrainer *t = placeto_train_new(f.pol, &ts, &tc, &tg, 1, f.c, &e);
    REQUIRE_MSG(t, "%s", e.msg);
    Sim *sim = sim_new(f.g, f.c);
    int *op = XMALLOC(int, f.g->n_nodes);
    group_expand(f.gr, ts.best[0].group_device, op);
    double rt = sim_run(sim, op)->makespan_us;
    CHECK(rt > 0);
    CHECK_EXACT(ts.best[0].runtime_us, rt);
    CHECK(ts.best[0].score > 0 && isfinite(ts.best[0].score));
    free(op);
    sim_free(sim);
    placeto_train_free(t);
    train_state_done(&ts);
    fix_done(&f);
}

/* A graph path a JSON string cannot hold is refused at save, not written
 * into a file that no load accepts. */
TEST(episode_io_non_utf8_path_not_written)
{
    Fix f;
    if (!fix_init(&f, 0)) {
        fix_done(&f);
        return;
    }
    char p1[128];
    tmp_file(p1, sizeof p1, &f.td, "a.json");
    Err e = {{0}};
    Episode *ep = episode_new(f.g, f.gr, f.c, f.pg, &f.cfg, 5, NULL, &e);
    REQUIRE_MSG(ep, "%s", e.msg);
    char *saved = f.g->path;
    f.g->path = xstrdup("/tmp/caf\xe9.json");
    CHECK(episode_save(ep, NULL, 0, p1, &e) != 0);
    CHECK_STR_CONTAINS(e.msg, "cannot save: the graph file's path is not UTF-8 text");
    free(f.g->path);
    f.g->path = saved;
    CHECK_MSG(episode_save(ep, NULL, 0, p1, &e) == 0, "%s", e.msg);
    episode_free(ep);
    fix_done(&f);
}
