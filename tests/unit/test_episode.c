/* env: the episode API. Features follow the spec's columns and
 * normalisation; policy steps walk the topological order; overrides do not
 * move the cursor; undo restores placement, cursor, visits and RNG so that
 * stepping again repeats the step; redo replays; a new action drops the redo
 * entries; rewards add up to the runtime change; the best placement is the
 * lowest runtime seen; a no-op proposal simulates nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "placeto_episode.h"
#include "gen.h"
#include "sim.h"
#include "test.h"

typedef struct Fix {
    Graph *g;
    Grouping *gr;
    Cluster *c;
    PolicyGraph *pg;
    Policy *pol;
    PolicyWork *w;
    Episode *ep;
} Fix;

static int fix_init(Fix *f, int n_ops, int n_devices, uint64_t seed)
{
    Err e = {{0}};
    memset(f, 0, sizeof *f);
    f->g = gen_random_dag(n_ops, 2.0, seed);
    f->gr = group_build(f->g, 0, &e);
    f->c = cluster_default(n_devices);
    f->pg = f->gr ? policy_graph_new(f->gr, &e) : NULL;
    PolicyArch a;
    policy_arch_default(&a, n_devices);
    f->pol = policy_new(&a, 3, &e);
    EpisodeConfig cfg;
    episode_config_default(&cfg);
    f->ep = f->pg ? episode_new(f->g, f->gr, f->c, f->pg, &cfg, 9, NULL, &e) : NULL;
    f->w = f->pg ? policy_work_new(&a, f->pg) : NULL;
    CHECK_MSG(f->ep && f->pol && f->w, "%s", e.msg);
    return f->ep && f->pol && f->w;
}

static void fix_done(Fix *f)
{
    episode_free(f->ep);
    policy_work_free(f->w);
    policy_free(f->pol);
    policy_graph_free(f->pg);
    cluster_free(f->c);
    group_free(f->gr);
    graph_free(f->g);
}

/* The makespan of the episode's placement, simulated afresh. */
static double fresh_runtime(const Fix *f)
{
    Sim *s = sim_new(f->g, f->c);
    int *dev = XMALLOC(int, f->g->n_nodes);
    for (int i = 0; i < f->g->n_nodes; i++)
        dev[i] = f->ep->group_device[f->gr->op_group[i]];
    double m = sim_makespan(s, dev);
    free(dev);
    sim_free(s);
    return m;
}

TEST(episode_features_columns)
{
    Fix f;
    if (!fix_init(&f, 30, 3, 4))
        return;
    Episode *ep = f.ep;
    int n = ep->n_groups, F = ep->n_features, v = 5;
    CHECK_INT(F, 5 + 3);
    float *x = XMALLOC(float, xmul((size_t)n, (size_t)F));
    episode_features(ep, v, x);
    float mx_cost = 0, mx_bytes = 0, mx_start = 0;
    for (int k = 0; k < n; k++) {
        const float *row = x + (size_t)k * (size_t)F;
        mx_cost = fmaxf(mx_cost, row[POLICY_F_COST]);
        mx_bytes = fmaxf(mx_bytes, row[POLICY_F_BYTES]);
        mx_start = fmaxf(mx_start, fabsf(row[POLICY_F_START]));
        CHECK(row[POLICY_F_CURRENT] == (k == v ? 1.0f : 0.0f));
        CHECK(row[POLICY_F_VISITS] == 0.0f);
        int ones = 0;
        for (int d = 0; d < 3; d++) {
            float h = row[POLICY_F_DEVICE + d];
            CHECK(h == 0.0f || h == 1.0f);
            ones += h == 1.0f;
            if (h == 1.0f)
                CHECK_INT(d, ep->group_device[k]);
        }
        CHECK_INT(ones, 1);
    }
    CHECK(mx_cost == 1.0f && mx_bytes == 1.0f && mx_start == 1.0f);
    CHECK(x[(size_t)v * (size_t)F + POLICY_F_START] == 0.0f); /* relative to the current node */
    free(x);
    fix_done(&f);
}

TEST(episode_steps_walk_the_order_and_rewards_add_up)
{
    Fix f;
    if (!fix_init(&f, 40, 2, 5))
        return;
    Episode *ep = f.ep;
    double start = ep->score, sum = 0;
    int steps = 0, moves = 0;
    while (!episode_done(ep)) {
        int v = episode_current(ep), old = ep->group_device[v];
        int64_t sims = ep->simulations;
        double before = ep->score;
        CHECK_INT(v, steps); /* topological order: group ids */
        const EpisodeStep *s = placeto_episode_step(ep, f.pol, f.w, 0, NULL);
        /* the no-op rule: a proposal of the group's own device simulates
           nothing (no placement counted) and is rewarded 0 */
        if (s->proposed == old) {
            CHECK(ep->simulations == sims && s->reward == 0 && ep->score == before);
        } else {
            CHECK(ep->simulations == sims + 1);
            moves++;
        }
        CHECK(s->group == v && s->actor == EPISODE_ACTOR_POLICY && s->probs);
        double ps = 0;
        for (int d = 0; d < 2; d++)
            ps += s->probs[d];
        CHECK_NEAR(ps, 1.0, 1e-5);
        CHECK_INT(ep->group_device[v], s->new_device);
        CHECK_INT(ep->visits[v], 1);
        CHECK_EXACT(s->runtime_us, ep->runtime_us);
        sum += s->reward;
        steps++;
    }
    CHECK_INT(steps, ep->n_groups);
    CHECK_NEAR(sum, start - ep->score, 1e-12);
    CHECK_EXACT(ep->runtime_us, fresh_runtime(&f));
    CHECK(ep->best_runtime_us <= ep->runtime_us && ep->best_runtime_us <= ep->init_runtime_us);
    CHECK_INT((int)ep->simulations, moves + 1);
    CHECK_MSG(moves > 0 && moves < steps, "%d moves in %d steps: both kinds of proposal should occur", moves, steps);
    CHECK(placeto_episode_step(ep, f.pol, f.w, 0, NULL) == NULL);
    fix_done(&f);
}

TEST(episode_undo_redo_and_repeat)
{
    Fix f;
    if (!fix_init(&f, 40, 3, 6))
        return;
    Episode *ep = f.ep;
    int n = ep->n_groups;
    for (int k = 0; k < 5; k++)
        placeto_episode_step(ep, f.pol, f.w, 0, NULL);
    int *dev5 = XMALLOC(int, n);
    memcpy(dev5, ep->group_device, (size_t)n * sizeof *dev5);
    double rt5 = ep->runtime_us;
    const EpisodeStep *s6 = placeto_episode_step(ep, f.pol, f.w, 0, NULL);
    int a6 = s6->new_device, g6 = s6->group;
    double rt6 = ep->runtime_us;
    /* a user override does not move the cursor */
    int cur = ep->cursor, tgt = 2, old = ep->group_device[tgt];
    Err e = {{0}};
    const EpisodeStep *u = episode_override(ep, tgt, (old + 1) % 3, &e);
    CHECK(u && u->actor == EPISODE_ACTOR_USER && !u->probs && ep->cursor == cur);
    CHECK_EXACT(ep->runtime_us, fresh_runtime(&f));
    /* undo the override and the sixth step */
    CHECK_INT(episode_undo(ep), 0);
    CHECK_INT(ep->group_device[tgt], old);
    CHECK_EXACT(ep->runtime_us, rt6);
    CHECK_INT(episode_undo(ep), 0);
    CHECK(memcmp(ep->group_device, dev5, (size_t)n * sizeof *dev5) == 0);
    CHECK_INT(ep->cursor, 5);
    CHECK_INT(ep->visits[g6], 0);
    CHECK_EXACT(ep->runtime_us, rt5);
    CHECK_INT(ep->n_redo, 2);
    /* redo twice gives back both entries */
    CHECK_INT(episode_redo(ep), 0);
    CHECK_INT(ep->group_device[g6], a6);
    CHECK_INT(episode_redo(ep), 0);
    CHECK_INT(ep->group_device[tgt], (old + 1) % 3);
    CHECK_INT(episode_redo(ep), -1);
    /* undo both, then step: the RNG was restored, the same action follows,
     * and the redo entries are gone */
    episode_undo(ep);
    episode_undo(ep);
    const EpisodeStep *again = placeto_episode_step(ep, f.pol, f.w, 0, NULL);
    CHECK_INT(again->new_device, a6);
    CHECK_EXACT(ep->runtime_us, rt6);
    CHECK_INT(ep->n_redo, 0);
    CHECK_INT(episode_redo(ep), -1);
    /* undo everything back to the start */
    while (episode_undo(ep) == 0)
        ;
    CHECK_INT(ep->cursor, 0);
    CHECK(memcmp(ep->group_device, ep->init_device, (size_t)n * sizeof *dev5) == 0);
    CHECK_EXACT(ep->runtime_us, ep->init_runtime_us);
    /* errors */
    CHECK(episode_override(ep, n, 0, &e) == NULL);
    CHECK(strstr(e.msg, "does not exist") != NULL);
    CHECK(episode_override(ep, 0, 3, &e) == NULL);
    free(dev5);
    fix_done(&f);
}

/* Overriding the current group is that step's decision: the cursor moves
 * on, undo takes it back, and the policy goes on with the next group. */
TEST(episode_override_of_the_current_group_takes_the_step)
{
    Fix f;
    if (!fix_init(&f, 40, 3, 6))
        return;
    Episode *ep = f.ep;
    for (int k = 0; k < 3; k++)
        placeto_episode_step(ep, f.pol, f.w, 0, NULL);
    int cur = episode_current(ep), at = ep->cursor, old = ep->group_device[cur];
    Err e = {{0}};
    const EpisodeStep *u = episode_override(ep, cur, (old + 1) % 3, &e);
    REQUIRE(u != NULL);
    CHECK(u->actor == EPISODE_ACTOR_USER && u->takes_step && u->cursor == at);
    CHECK_INT(ep->cursor, at + 1);
    CHECK_INT(ep->visits[cur], 1);
    CHECK_EXACT(ep->runtime_us, fresh_runtime(&f));
    /* the next policy step decides the next group, not the overridden one */
    const EpisodeStep *p = placeto_episode_step(ep, f.pol, f.w, 0, NULL);
    CHECK(p->group == ep->order[at + 1] && p->group != cur);
    CHECK_INT(ep->group_device[cur], (old + 1) % 3);
    /* undo both: the cursor and the visit count come back */
    CHECK_INT(episode_undo(ep), 0);
    CHECK_INT(episode_undo(ep), 0);
    CHECK_INT(ep->cursor, at);
    CHECK_INT(ep->visits[cur], 0);
    CHECK_INT(ep->group_device[cur], old);
    CHECK_INT(episode_redo(ep), 0);
    CHECK_INT(ep->cursor, at + 1);
    CHECK_INT(ep->visits[cur], 1);
    /* an override of another group leaves the cursor */
    int other = ep->order[0];
    const EpisodeStep *o = episode_override(ep, other, (ep->group_device[other] + 1) % 3, &e);
    CHECK(o && !o->takes_step && ep->cursor == at + 1);
    /* at the end of the episode an override takes no step */
    while (!episode_done(ep))
        placeto_episode_step(ep, f.pol, f.w, 0, NULL);
    o = episode_override(ep, 0, 1, &e);
    CHECK(o && !o->takes_step && episode_done(ep));
    fix_done(&f);
}

TEST(episode_greedy_is_deterministic_and_reset_repeats)
{
    Fix f;
    if (!fix_init(&f, 30, 2, 7))
        return;
    Episode *ep = f.ep;
    int n = ep->n_groups;
    while (!episode_done(ep))
        placeto_episode_step(ep, f.pol, f.w, 0, NULL);
    int *first = XMALLOC(int, n);
    memcpy(first, ep->group_device, (size_t)n * sizeof *first);
    double rt = ep->runtime_us;
    episode_reset(ep, 9, NULL); /* same seed: the same sampled episode */
    while (!episode_done(ep))
        placeto_episode_step(ep, f.pol, f.w, 0, NULL);
    CHECK(memcmp(first, ep->group_device, (size_t)n * sizeof *first) == 0);
    CHECK_EXACT(ep->runtime_us, rt);
    /* greedy takes the most likely device every time */
    episode_reset(ep, 10, NULL);
    while (!episode_done(ep)) {
        const EpisodeStep *s = placeto_episode_step(ep, f.pol, f.w, 1, NULL);
        for (int d = 0; d < 2; d++)
            CHECK(s->probs[s->new_device] >= s->probs[d]);
    }
    free(first);
    fix_done(&f);
}

TEST(episode_oom_penalty_and_log_runtime)
{
    Fix f;
    if (!fix_init(&f, 20, 2, 8))
        return;
    SimResult r;
    memset(&r, 0, sizeof r);
    int64_t peak[2] = {f.c->devices[0].memory_bytes + 3000000000LL, 5};
    r.makespan_us = 2e6;
    r.peak_memory_bytes = peak;
    EpisodeConfig cfg;
    episode_config_default(&cfg);
    CHECK_NEAR(episode_score(&cfg, f.c, &r), 2.0 + 2.0 * 3.0, 1e-12);
    cfg.log_runtime = 1;
    CHECK_NEAR(episode_score(&cfg, f.c, &r), log(8.0), 1e-12);
    fix_done(&f);
}
