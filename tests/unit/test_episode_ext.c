/* The extended feature set (docs/agent.md, "Features") and relative rewards:
 * the sizes of the architecture, the neighbour shares, load, critical-path
 * and memory columns checked against values computed by hand on small
 * graphs, invariants on generated graphs, rewards as shares of the initial
 * score, and placeto_episode_check's refusals. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "placeto_episode.h"
#include "gen.h"
#include "policy_fixture.h"
#include "sim.h"
#include "test.h"

/* n0 -> n1, n0 -> n2, n1 -> n3, n2 -> n3 and n4 alone (make_graph: cost
 * 10 (i + 1) µs, one output of 1000 (i + 1) bytes). */
static const int DIAMOND[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
static const int CHAIN[][2] = {{0, 1}, {1, 2}, {2, 3}};

/* An episode with the extended features (and the memory column when mem)
 * started from op_device (per op; groups are whole). */
static Episode *ext_episode(const Fix *f, const Cluster *c, const int *op_device, int mem)
{
    int *gd = XMALLOC(int, f->gr->n_groups);
    group_collapse(f->gr, op_device, gd);
    EpisodeConfig cfg;
    episode_config_default(&cfg);
    cfg.init = EPISODE_INIT_GIVEN;
    cfg.mem_feature = mem;
    cfg.extended_features = 1;
    Err e = {{0}};
    Episode *ep = episode_new(f->g, f->gr, c, f->pg, &cfg, 1, gd, &e);
    CHECK_MSG(ep != NULL, "%s", e.msg);
    free(gd);
    return ep;
}

/* The features of ep with the first group current (caller frees). */
static float *ext_feats(const Episode *ep)
{
    float *x = XMALLOC(float, (size_t)ep->n_groups * (size_t)ep->n_features);
    episode_features(ep, 0, x);
    return x;
}

/* The extended columns of op i's group. */
static const float *ext_row(const Episode *ep, const float *x, int i)
{
    size_t k = (size_t)ep->gr->op_group[i];
    return x + k * (size_t)ep->n_features + policy_ext_offset(ep->n_devices, ep->cfg.mem_feature);
}

TEST(ext_arch_sizes_and_hidden_cap)
{
    CHECK_INT(policy_n_features(2, 0, 0), 7);
    CHECK_INT(policy_n_features(2, 0, 1), 5 + 2 + 3 + 2);
    CHECK_INT(policy_n_features(8, 1, 1), 5 + 8 + 1 + 3 + 8);
    CHECK_INT(policy_ext_offset(3, 0), 8);
    CHECK_INT(policy_ext_offset(3, 1), 9);
    PolicyArch a;
    policy_arch_for(&a, 2, 0, 1);
    CHECK(a.extended == 1 && a.mem_feature == 0 && a.n_features == 12 && a.d == 12);
    policy_arch_for(&a, 8, 0, 1); /* 24 features, hidden size capped */
    CHECK(a.n_features == 24 && a.d == POLICY_EXT_HIDDEN_MAX && POLICY_EXT_HIDDEN_MAX == 16);
    policy_arch_for(&a, 8, 1, 1);
    CHECK(a.n_features == 25 && a.d == 16 && a.mem_feature == 1);
    policy_arch_for(&a, 16, 0, 0); /* no cap without the extended set */
    CHECK(a.n_features == 21 && a.d == 21 && a.extended == 0);
    policy_arch_for(&a, 8, 0, 1);
    Policy *pol = new_policy(&a, 3);
    if (pol) {
        CHECK(memcmp(&pol->arch, &a, sizeof a) == 0);
        CHECK_INT(pol->p.n, spec_param_count(&a));
    }
    policy_free(pol);
}

TEST(ext_policy_new_rejects_wrong_feature_counts)
{
    PolicyArch a;
    policy_arch_for(&a, 8, 0, 1);
    a.n_features = policy_n_features(8, 0, 0); /* the paper's count */
    Err e = {{0}};
    Policy *pol = policy_new(&a, 1, &e);
    CHECK(pol == NULL);
    CHECK_STR_CONTAINS(e.msg, "n_features must be 24");
    CHECK_STR_CONTAINS(e.msg, "extended");
    policy_free(pol);
    policy_arch_for(&a, 3, 0, 0);
    a.n_features = policy_n_features(3, 0, 1); /* extended count, flag off */
    pol = policy_new(&a, 1, &e);
    CHECK(pol == NULL);
    CHECK_STR_CONTAINS(e.msg, "n_features must be 8");
    policy_free(pol);
}

/* Neighbour shares and load on the diamond on 3 devices, n0 n2 n4 on
 * device 0, n1 on 1, n3 on 2. Edge bytes: n0->n1 and n0->n2 1000, n1->n3
 * 2000, n2->n3 3000. Costs 10..50, 150 in all: an even share is 50, so
 * device 0 carries 90 / 50, device 1 20 / 50, device 2 40 / 50. */
static void check_diamond(int mem)
{
    static const int dev[5] = {0, 1, 0, 2, 0};
    static const double nbr[5][3] = {{.5, .5, 0}, {1 / 3., 0, 2 / 3.}, {.25, 0, .75}, {.6, .4, 0}, {0, 0, 0}};
    static const double load[5] = {1.8, .4, 1.8, .8, 1.8};
    Fix f;
    Cluster *c = cluster_default(3);
    if (fix_from_graph(&f, make_graph(5, DIAMOND, 4), 0) == 0 && f.gr->n_groups == 5) {
        Episode *ep = ext_episode(&f, c, dev, mem);
        float *x = ep ? ext_feats(ep) : NULL;
        CHECK_INT(ep ? ep->n_features : 0, 5 + 3 + mem + 3 + 3);
        for (int i = 0; x && i < 5; i++) {
            const float *r = ext_row(ep, x, i);
            for (int d = 0; d < 3; d++)
                CHECK_MSG(fabs(r[POLICY_FX_NBR + d] - nbr[i][d]) < 1e-6, "mem %d: n%d NBR[%d] %g, expected %g", mem,
                          i, d, (double)r[POLICY_FX_NBR + d], nbr[i][d]);
            CHECK_MSG(fabs(r[POLICY_FX_LOAD] - load[i]) < 1e-6, "mem %d: n%d LOAD %g, expected %g", mem, i,
                      (double)r[POLICY_FX_LOAD], load[i]);
            CHECK(r[POLICY_FX_CRIT] >= 0 && r[POLICY_FX_CRIT] <= 2);
        }
        free(x);
        episode_free(ep);
    } else {
        CHECK_MSG(0, "the diamond should keep its 5 ops as 5 groups");
    }
    fix_done(&f);
    cluster_free(c);
}

TEST(ext_features_neighbour_shares_and_load_by_hand)
{
    check_diamond(0);
    check_diamond(1); /* the extended columns move one place right */
}

/* CRIT of every group of the chain n0..n3 (costs 10..40) all on device 0:
 * with no gap between ops, start + bottom level = the makespan, so 1; on a
 * device 4x faster than the reference every group's ratio is above 2. */
static void check_chain_crit(double speed, double want)
{
    Fix f;
    Cluster *c = cluster_default(2);
    c->op_gap_us = 0;
    c->devices[0].speed = speed;
    static const int dev[4] = {0, 0, 0, 0};
    if (fix_from_graph(&f, make_graph(4, CHAIN, 3), 0) == 0) {
        Episode *ep = ext_episode(&f, c, dev, 0);
        float *x = ep ? ext_feats(ep) : NULL;
        for (int i = 0; x && i < 4; i++)
            CHECK_MSG(fabs(ext_row(ep, x, i)[POLICY_FX_CRIT] - want) < 1e-6, "speed %g: n%d CRIT %.9g, expected %g",
                      speed, i, (double)ext_row(ep, x, i)[POLICY_FX_CRIT], want);
        free(x);
        episode_free(ep);
    }
    fix_done(&f);
    cluster_free(c);
}

TEST(ext_features_critical_path_on_a_single_device_chain)
{
    check_chain_crit(1.0, 1.0);
    check_chain_crit(4.0, 2.0); /* clamped */
}

TEST(ext_features_memory_is_peak_over_capacity)
{
    static const int dev[5] = {0, 1, 0, 2, 0};
    Fix f;
    Cluster *c = cluster_default(3);
    for (int d = 0; d < 3; d++)
        c->devices[d].memory_bytes = 3000 * (d + 2);
    if (fix_from_graph(&f, make_graph(5, DIAMOND, 4), 0) == 0) {
        Episode *ep = ext_episode(&f, c, dev, 0);
        float *x = ep ? ext_feats(ep) : NULL;
        Sim *s = sim_new(f.g, c);
        const SimResult *r = sim_run(s, dev);
        for (int i = 0; x && i < 5; i++) {
            double want = (double)r->peak_memory_bytes[dev[i]] / (double)c->devices[dev[i]].memory_bytes;
            REQUIRE_MSG(want > 0 && want < 4, "n%d: peak share %g: pick capacities that need no clamp", i, want);
            CHECK_MSG(fabs(ext_row(ep, x, i)[POLICY_FX_MEM] - want) < 1e-6, "n%d MEM %g, expected %g", i,
                      (double)ext_row(ep, x, i)[POLICY_FX_MEM], want);
        }
        sim_free(s);
        free(x);
        episode_free(ep);
    }
    fix_done(&f);
    cluster_free(c);
}

/* The neighbour shares of every group of ep, computed from the group graph
 * (caller frees; n_groups x n_devices). */
static double *expected_shares(const Episode *ep)
{
    const Grouping *gr = ep->gr;
    int n = gr->n_groups, nd = ep->n_devices;
    double *nb = XNEW(double, (size_t)n * (size_t)nd), *tot = XNEW(double, n);
    for (int k = 0; k < n; k++)
        for (int j = gr->succ_off[k]; j < gr->succ_off[k + 1]; j++) {
            int t = gr->succ[j];
            double b = (double)gr->succ_bytes[j];
            nb[(size_t)k * (size_t)nd + (size_t)ep->group_device[t]] += b;
            nb[(size_t)t * (size_t)nd + (size_t)ep->group_device[k]] += b;
            tot[k] += b;
            tot[t] += b;
        }
    for (int k = 0; k < n; k++)
        for (int d = 0; d < nd; d++)
            nb[(size_t)k * (size_t)nd + (size_t)d] /= tot[k] > 0 ? tot[k] : 1;
    free(tot);
    return nb;
}

/* Rows of a generated graph: NBR as computed from the group graph (summing
 * to 1, or 0 without edges), CRIT in [0, 2], and the load of the devices
 * summing to the device count. */
static void check_invariants(const Episode *ep)
{
    int n = ep->n_groups, nd = ep->n_devices;
    float *x = ext_feats(ep);
    double *nb = expected_shares(ep), dev_load[POLICY_MAX_DEVICES] = {0};
    for (int k = 0; k < n; k++) {
        const float *r = x + (size_t)k * (size_t)ep->n_features + policy_ext_offset(nd, 0);
        double sum = 0;
        for (int d = 0; d < nd; d++) {
            sum += r[POLICY_FX_NBR + d];
            CHECK(fabs(r[POLICY_FX_NBR + d] - nb[(size_t)k * (size_t)nd + (size_t)d]) < 1e-6);
        }
        int edges = ep->gr->succ_off[k + 1] > ep->gr->succ_off[k] || ep->gr->pred_off[k + 1] > ep->gr->pred_off[k];
        CHECK_MSG(fabs(sum - (edges ? 1.0 : 0.0)) < 1e-5, "group %d: NBR sums to %g", k, sum);
        CHECK(r[POLICY_FX_CRIT] >= 0 && r[POLICY_FX_CRIT] <= 2);
        dev_load[ep->group_device[k]] = r[POLICY_FX_LOAD];
    }
    double total = 0;
    for (int d = 0; d < nd; d++)
        total += dev_load[d];
    CHECK_MSG(fabs(total - nd) < 1e-4, "device loads sum to %g, expected %d", total, nd);
    free(nb);
    free(x);
}

TEST(ext_features_invariants_on_generated_graphs)
{
    for (int nd = 2; nd <= 4; nd++) {
        Fix f;
        Cluster *c = cluster_default(nd);
        if (fix_from_graph(&f, gen_random_dag(50, 2.0, (uint64_t)nd), 0) == 0) {
            EpisodeConfig cfg;
            episode_config_default(&cfg);
            cfg.extended_features = 1;
            cfg.init = EPISODE_INIT_RANDOM_EACH;
            Err e = {{0}};
            Episode *ep = episode_new(f.g, f.gr, c, f.pg, &cfg, 7, NULL, &e);
            CHECK_MSG(ep != NULL, "%s", e.msg);
            if (ep) {
                CHECK_INT(ep->n_features, 5 + nd + 3 + nd);
                check_invariants(ep);
                for (int k = 0; k < ep->n_groups; k += 3) /* the columns follow the moves */
                    episode_override(ep, k, (ep->group_device[k] + 1) % nd, &e);
                check_invariants(ep);
            }
            episode_free(ep);
        }
        fix_done(&f);
        cluster_free(c);
    }
}

TEST(ext_policy_steps_an_extended_episode_on_8_devices)
{
    Fix f;
    Cluster *c = cluster_default(8);
    PolicyArch a;
    policy_arch_for(&a, 8, 0, 1);
    Policy *pol = new_policy(&a, 5);
    if (fix_from_graph(&f, gen_random_dag(30, 2.0, 4), 0) == 0 && pol) {
        EpisodeConfig cfg;
        episode_config_default(&cfg);
        placeto_episode_config(&cfg, &pol->arch);
        CHECK(cfg.extended_features == 1 && cfg.mem_feature == 0);
        Err e = {{0}};
        Episode *ep = episode_new(f.g, f.gr, c, f.pg, &cfg, 2, NULL, &e);
        PolicyWork *w = policy_work_new(&a, f.pg);
        while (ep && !episode_done(ep)) {
            const EpisodeStep *s = placeto_episode_step(ep, pol, w, 0, NULL);
            double sum = 0;
            for (int d = 0; d < 8; d++)
                sum += s->probs[d];
            CHECK_NEAR(sum, 1.0, 1e-5);
        }
        policy_work_free(w);
        episode_free(ep);
    }
    fix_done(&f);
    policy_free(pol);
    cluster_free(c);
}

/* Walks a whole episode with relative rewards (and log runtimes when lg:
 * the initial score is then negative) and a user override: every reward is
 * the score change over |initial score|, and they add up. */
static void check_relative_rewards(int lg)
{
    Fix f;
    Cluster *c = cluster_default(2);
    PolicyArch a;
    policy_arch_for(&a, 2, 0, 0);
    Policy *pol = new_policy(&a, 9);
    if (fix_from_graph(&f, gen_random_dag(40, 2.0, 6), 0) == 0 && pol) {
        EpisodeConfig cfg;
        episode_config_default(&cfg);
        cfg.relative_reward = 1;
        cfg.log_runtime = lg;
        Err e = {{0}};
        Episode *ep = episode_new(f.g, f.gr, c, f.pg, &cfg, 3, NULL, &e);
        PolicyWork *w = policy_work_new(&a, f.pg);
        double init = ep ? ep->score : 0, sum = 0;
        int overridden = 0;
        CHECK(ep && ep->init_score == init && (lg ? init < 0 : init > 0) && fabs(init) != 1);
        while (ep && !episode_done(ep)) {
            double before = ep->score;
            const EpisodeStep *s = ep->cursor == 5 && !overridden++
                                       ? episode_override(ep, 0, 1 - ep->group_device[0], &e)
                                       : placeto_episode_step(ep, pol, w, 0, NULL);
            CHECK_NEAR(s->reward, (before - ep->score) / fabs(init), 1e-12);
            sum += s->reward;
        }
        CHECK(overridden > 1);
        CHECK_NEAR(sum, (init - (ep ? ep->score : 0)) / fabs(init), 1e-9);
        policy_work_free(w);
        episode_free(ep);
    }
    fix_done(&f);
    policy_free(pol);
    cluster_free(c);
}

TEST(episode_relative_rewards_are_shares_of_the_initial_score)
{
    check_relative_rewards(0);
    check_relative_rewards(1);
}

TEST(episode_check_policy_names_the_option)
{
    EpisodeConfig cfg;
    episode_config_default(&cfg);
    PolicyArch a;
    Err e = {{0}};
    policy_arch_for(&a, 2, 0, 0);
    CHECK(placeto_episode_check(&cfg, &a, 2, &e) == 0);
    CHECK(placeto_episode_check(&cfg, &a, 3, &e) == -1);
    CHECK_STR_CONTAINS(e.msg, "the policy is for 2 devices but the cluster has 3");
    policy_arch_for(&a, 2, 1, 0);
    CHECK(placeto_episode_check(&cfg, &a, 2, &e) == -1);
    CHECK_STR_CONTAINS(e.msg, "memory feature");
    policy_arch_for(&a, 2, 0, 1);
    CHECK(placeto_episode_check(&cfg, &a, 2, &e) == -1);
    CHECK_STR_CONTAINS(e.msg, "extended features");
    cfg.extended_features = 1; /* the episode extended, the policy not */
    policy_arch_for(&a, 2, 0, 0);
    CHECK(placeto_episode_check(&cfg, &a, 2, &e) == -1);
    CHECK_STR_CONTAINS(e.msg, "without the extended features");
    policy_arch_for(&a, 2, 1, 1);
    placeto_episode_config(&cfg, &a);
    CHECK(cfg.mem_feature == 1 && cfg.extended_features == 1);
    CHECK(placeto_episode_check(&cfg, &a, 2, &e) == 0);
    a.n_features--; /* an architecture that does not add up */
    CHECK(placeto_episode_check(&cfg, &a, 2, &e) == -1);
    CHECK_STR_CONTAINS(e.msg, "features");
}

/* --accept-improving: every policy step leaves the score no worse than
 * before it; a rejected step keeps the device (new == old) but remembers
 * the rejected choice in `proposed` and its negative reward (0 with
 * reject_zero, --rejected zero); undo and redo
 * of a rejected step restore the same placement. Without the option the
 * same seeds make at least one step worse (so the check can fail). */
static int accept_walk(int accept, int reject_zero)
{
    Fix f;
    Cluster *c = cluster_default(3);
    PolicyArch a;
    policy_arch_for(&a, 3, 0, 1);
    Policy *pol = new_policy(&a, 11);
    int worse = 0, rejected = 0;
    if (fix_from_graph(&f, gen_random_dag(40, 2.0, 8), 0) == 0 && pol) {
        EpisodeConfig cfg;
        episode_config_default(&cfg);
        placeto_episode_config(&cfg, &pol->arch);
        cfg.accept_improving = accept;
        cfg.reject_zero = reject_zero;
        Err e = {{0}};
        Episode *ep = episode_new(f.g, f.gr, c, f.pg, &cfg, 4, NULL, &e);
        PolicyWork *w = policy_work_new(&a, f.pg);
        while (ep && !episode_done(ep)) {
            double before = ep->score;
            const EpisodeStep *s = placeto_episode_step(ep, pol, w, 0, NULL);
            worse += ep->score > before;
            if (s->proposed != s->new_device) {
                rejected++;
                CHECK(accept && s->new_device == s->old_device && (reject_zero ? s->reward == 0 : s->reward < 0));
                CHECK(ep->group_device[s->group] == s->old_device && ep->score == before);
                CHECK(episode_undo(ep) == 0 && ep->score == before && episode_redo(ep) == 0);
                CHECK(ep->group_device[s->group] == s->old_device && ep->score == before);
            }
        }
        CHECK(!accept || (worse == 0 && rejected > 0));
        policy_work_free(w);
        episode_free(ep);
    }
    fix_done(&f);
    policy_free(pol);
    cluster_free(c);
    return worse;
}

TEST(episode_accept_improving_keeps_only_moves_that_do_not_hurt)
{
    CHECK(accept_walk(0, 0) > 0);
    CHECK_INT(accept_walk(1, 0), 0);
    CHECK_INT(accept_walk(1, 1), 0); /* --rejected zero: the same walk, an undone move rewarded 0 */
}
