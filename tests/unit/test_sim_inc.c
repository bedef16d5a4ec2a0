/* Incremental re-simulation (sim_run_from) against the plain simulator
 * (sim_naive.c): after any sequence of placements — one op moved, a group of
 * ops, several groups, a move and its undo, nothing, a root, most ops — the
 * result is the one a fresh simulation gives, to the last bit (every start
 * and end, the transfers in order with every field, busy time, peaks, OOM).
 * Also on bundled graphs with their grouping, replaying an episode's group
 * moves. */
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "placeto_episode.h"
#include "gen.h"
#include "graph.h"
#include "group.h"
#include "policy_fixture.h"
#include "sim.h"
#include "sim_cases.h"
#include "sim_naive.h"
#include "test.h"

/* sim_run_from(s, dev) against the oracle; 1 when equal. */
static int inc_check(Sim *s, NaiveSim *ns, const int *dev, const char *what, int step)
{
    char why[512];
    const SimResult *want = naive_sim_run(ns, dev);
    const SimResult *got = sim_run_from(s, dev);
    int bad = sim_result_diff(got, want, why, sizeof why);
    CHECK_MSG(!bad, "%s, step %d: sim_run_from: %s", what, step, why);
    CHECK_MSG(got->device == dev, "%s, step %d: the result's placement is not the one given", what, step);
    return !bad;
}

/* One random move of the placement dev (in place); kind picks what moves. */
static void random_move(Rng *r, const Graph *g, int nd, int kind, int *dev, int *saved)
{
    int n = g->n_nodes;
    memcpy(saved, dev, (size_t)n * sizeof *dev);
    switch (kind) {
    case 0: { /* one op */
        int i = (int)rng_below(r, (uint64_t)n);
        dev[i] = (int)rng_below(r, (uint64_t)nd);
        break;
    }
    case 1: { /* a run of consecutive ops ("a group") to one device */
        int a = (int)rng_below(r, (uint64_t)n), len = 1 + (int)rng_below(r, 12), d = (int)rng_below(r, (uint64_t)nd);
        for (int i = a; i < n && i < a + len; i++)
            dev[i] = d;
        break;
    }
    case 2: /* several groups */
        for (int k = 0; k < 3; k++) {
            int a = (int)rng_below(r, (uint64_t)n), d = (int)rng_below(r, (uint64_t)nd);
            for (int i = a; i < n && i < a + 4; i++)
                dev[i] = d;
        }
        break;
    case 3: /* nothing */
        break;
    case 4: /* the last ops only (late in the run) */
        for (int i = n - 1 - (int)rng_below(r, 3); i >= 0 && i < n; i++)
            dev[i] = (int)rng_below(r, (uint64_t)nd);
        break;
    case 5: { /* a root */
        for (int i = 0; i < n; i++)
            if (g->nodes[i].n_parents == 0) {
                dev[i] = (dev[i] + 1) % nd;
                break;
            }
        break;
    }
    default: /* most ops */
        for (int i = 0; i < n; i++)
            if (rng_uniform(r) < 0.7)
                dev[i] = (int)rng_below(r, (uint64_t)nd);
        break;
    }
}

TEST(sim_inc_matches_a_fresh_simulation_over_random_moves)
{
    Rng r;
    rng_seed(&r, 1818);
    int steps = 0, restarts = 0, ok = 1;
    for (int k = 0; k < 160 && ok; k++) {
        Cluster *c;
        Graph *g = simcase_graph(k, &r, &c);
        int n = g->n_nodes, nd = c->n_devices;
        Sim *s = sim_new(g, c);
        NaiveSim *ns = naive_sim_new(g, c);
        /* checkpoints every few events, so that restores land everywhere */
        static const int every[] = {1, 2, 3, 7, 0};
        sim_set_checkpoint_interval(s, every[k % 5]);
        int *dev = XMALLOC(int, n), *saved = XMALLOC(int, n), *copy = XMALLOC(int, n);
        simcase_placement(&r, g, nd, k % 3, dev);
        memcpy(saved, dev, (size_t)n * sizeof *dev);
        char what[160];
        snprintf(what, sizeof what, "case %d (%s, %d devices, cluster %d, checkpoint every %d)", k, g->name, nd, k % 4,
                 every[k % 5]);
        ok = inc_check(s, ns, dev, what, 0);
        for (int step = 1; step <= 40 && ok; step++, steps++) {
            int kind = (int)rng_below(&r, 8);
            if (kind == 7) { /* the previous move undone */
                memcpy(copy, saved, (size_t)n * sizeof *dev);
                memcpy(saved, dev, (size_t)n * sizeof *dev);
                memcpy(dev, copy, (size_t)n * sizeof *dev);
            } else {
                random_move(&r, g, nd, kind, dev, saved);
            }
            if (step % 13 == 0) { /* a whole simulation in between drops the history */
                if (step % 2)
                    sim_run(s, saved);
                else
                    sim_makespan(s, saved);
                restarts++;
            }
            if (step % 11 == 0) { /* a placement in another array */
                memcpy(copy, dev, (size_t)n * sizeof *dev);
                ok = inc_check(s, ns, copy, what, step);
            } else {
                ok = inc_check(s, ns, dev, what, step);
            }
        }
        free(dev);
        free(saved);
        free(copy);
        naive_sim_free(ns);
        sim_free(s);
        cluster_free(c);
        graph_free(g);
    }
    CHECK(steps >= 6000);
    CHECK(restarts > 0);
}

/* A placement by group changed one group at a time, in group order (an
 * episode), each to a random device, with some moves taken back. */
static void episode_replay(const char *path, int nd, uint64_t seed)
{
    Err e = {{0}};
    Graph *g = graph_load(path, &e);
    REQUIRE_MSG(g != NULL, "%s", e.msg);
    Grouping *gr = group_build(g, 0, &e);
    REQUIRE_MSG(gr != NULL, "%s", e.msg);
    Cluster *c = cluster_default(nd);
    Sim *s = sim_new(g, c);
    NaiveSim *ns = naive_sim_new(g, c);
    Rng r;
    rng_seed(&r, seed);
    int *gd = XMALLOC(int, gr->n_groups), *dev = XMALLOC(int, g->n_nodes);
    for (int k = 0; k < gr->n_groups; k++)
        gd[k] = (int)rng_below(&r, (uint64_t)nd);
    group_expand(gr, gd, dev);
    char what[600];
    snprintf(what, sizeof what, "%s on %d devices", path, nd);
    int ok = inc_check(s, ns, dev, what, 0);
    for (int k = 0; k < gr->n_groups && ok; k++) {
        int old = gd[k];
        gd[k] = (int)rng_below(&r, (uint64_t)nd);
        group_expand(gr, gd, dev);
        ok = inc_check(s, ns, dev, what, k + 1);
        if (ok && rng_uniform(&r) < 0.3) { /* rejected: back to where it was */
            gd[k] = old;
            group_expand(gr, gd, dev);
            ok = inc_check(s, ns, dev, what, k + 1);
        }
    }
    free(gd);
    free(dev);
    naive_sim_free(ns);
    sim_free(s);
    cluster_free(c);
    group_free(gr);
    graph_free(g);
}

TEST(sim_inc_matches_a_fresh_simulation_over_bundled_episodes)
{
    episode_replay("graphs/inception_v3.json", 2, 1);
    episode_replay("graphs/nmt.json", 4, 2);
    episode_replay("graphs/nasnet.json", 3, 3);
    episode_replay("graphs/resnet18.json", 8, 4);
}

/* Episodes (which simulate every step with sim_run_from, on two simulators
 * with --accept improving): after each policy step, override, undo and redo
 * the episode's result is the plain simulator's for its placement. */
static void episode_walk(int accept, uint64_t seed)
{
    Fix f;
    Cluster *c = cluster_default(3);
    PolicyArch a;
    policy_arch_for(&a, 3, 0, 1);
    Policy *pol = new_policy(&a, seed);
    REQUIRE(pol != NULL);
    REQUIRE(fix_from_graph(&f, gen_random_dag(120, 2.0, seed), 0) == 0);
    EpisodeConfig cfg;
    episode_config_default(&cfg);
    placeto_episode_config(&cfg, &pol->arch);
    cfg.accept_improving = accept;
    cfg.passes = 2;
    Err e = {{0}};
    Episode *ep = episode_new(f.g, f.gr, c, f.pg, &cfg, seed, NULL, &e);
    REQUIRE_MSG(ep != NULL, "%s", e.msg);
    PolicyWork *w = policy_work_new(&a, f.pg);
    NaiveSim *ns = naive_sim_new(f.g, c);
    Rng r;
    rng_seed(&r, seed);
    char what[64];
    snprintf(what, sizeof what, "episode (accept improving %d, seed %llu)", accept, (unsigned long long)seed);
    int ok = 1;
    for (int step = 0; ok && !episode_done(ep); step++) {
        int act = (int)rng_below(&r, 10);
        if (act < 6) {
            placeto_episode_step(ep, pol, w, 0, NULL);
        } else if (act < 8) {
            episode_override(ep, (int)rng_below(&r, (uint64_t)ep->n_groups), (int)rng_below(&r, 3), &e);
        } else if (act < 9) {
            episode_undo(ep);
        } else {
            episode_redo(ep);
        }
        char why[512];
        const SimResult *want = naive_sim_run(ns, ep->op_device);
        ok = !sim_result_diff(ep->result, want, why, sizeof why);
        CHECK_MSG(ok, "%s, step %d: %s", what, step, why);
        CHECK(ep->runtime_us == want->makespan_us);
    }
    naive_sim_free(ns);
    policy_work_free(w);
    episode_free(ep);
    fix_done(&f);
    policy_free(pol);
    cluster_free(c);
}

TEST(sim_inc_episodes_match_the_plain_simulator)
{
    for (uint64_t seed = 1; seed <= 3; seed++) {
        episode_walk(0, seed);
        episode_walk(1, seed);
    }
}
