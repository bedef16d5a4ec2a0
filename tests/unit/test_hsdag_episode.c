/* An Episode stepped by the HSDAG placer (core/agent/hsdag_episode.h):
 * stepped to the end without overrides it is hsdag_forward's placement
 * (sampled from the same RNG, or greedy); a cluster's later groups follow
 * where its first group is, an override of the first included; undo and
 * redo give the same placements; the actor runs one forward pass
 * (the episodes it refuses: test_contract.c); group_cluster_stats on a
 * hand-made case. */
#include <stdlib.h>
#include <string.h>

#include "actor_test.h"
#include "hsdag_episode.h"
#include "hsdag_place.h"
#include "test.h"

typedef struct HeFix {
    ActorGraph b; /* g, gr, c, voc */
    HsdagNet *net;
    Episode *ep;
    HsdagActor *ac;
} HeFix;

static int hefix_new(HeFix *f, int n_ops, int target, int n_dev, uint64_t seed)
{
    Err e = {{0}};
    memset(f, 0, sizeof *f);
    if (actor_graph_new(&f->b, n_ops, target, n_dev, seed) != 0)
        return -1;
    HsdagArch a;
    hsdag_arch_default(&a, n_dev, f->b.voc.n);
    a.hidden = 8;
    a.features = HSDAG_F_PARITY; /* the cost family too: the actor reads the cluster */
    f->net = hsdag_new(&a, &f->b.voc, seed + 7, &e);
    REQUIRE_OR(f->net != NULL, -1, "hsdag_new: %s", e.msg);
    f->net->blas = 0;
    EpisodeConfig cfg;
    hsdag_episode_config(&cfg);
    f->ep = episode_new(f->b.g, f->b.gr, f->b.c, NULL, &cfg, 5, NULL, &e);
    REQUIRE_OR(f->ep != NULL, -1, "episode_new: %s", e.msg);
    f->ac = hsdag_actor_new(f->net, f->b.g, f->b.gr, f->b.c, &e);
    REQUIRE_OR(f->ac != NULL, -1, "hsdag_actor_new: %s", e.msg);
    return 0;
}

static void hefix_done(HeFix *f)
{
    hsdag_actor_free(f->ac);
    episode_free(f->ep);
    hsdag_free(f->net);
    actor_graph_done(&f->b);
}

/* A cluster with at least two groups: its first group in *first and a later
 * one in *later (the last of them); -1 when every cluster is one group. */
static int pick_cluster(HsdagActor *ac, int *first, int *later)
{
    hsdag_actor_ensure(ac);
    for (int k = 0; k < ac->n_clusters; k++) {
        if (ac->size[k] < 2)
            continue;
        *first = ac->first[k];
        for (int v = 0; v < ac->G; v++)
            if (ac->cluster[v] == k)
                *later = v;
        return k;
    }
    return -1;
}

/* Steps ep until the group at the cursor is v (or the episode is done). */
static void step_to(Episode *ep, HsdagActor *ac, int v)
{
    while (episode_current(ep) >= 0 && episode_current(ep) != v)
        hsdag_episode_step(ep, ac, 0);
}

TEST(hsdag_episode_is_forward)
{
    HeFix f;
    if (hefix_new(&f, 60, 16, 3, 11) != 0) {
        hefix_done(&f);
        return;
    }
    Err e = {{0}};
    CHECK_MSG(hsdag_episode_check(f.ep, f.net, &e) == 0, "%s", e.msg);
    int G = f.b.gr->n_groups;
    REQUIRE(G > 6);
    for (int k = 0; k < G; k++)
        CHECK_INT(f.ep->group_device[k], 0); /* from everything on device 0 */
    CHECK_INT(f.ac->passes_run, 0);          /* the pass runs on the first request */
    HsdagInput *in = hsdag_input_new(f.net, f.b.g, f.b.gr, f.b.c, &e);
    REQUIRE_MSG(in != NULL, "%s", e.msg);
    HsdagWork *w = hsdag_work_new(&f.net->arch, in);
    int *place = xnew_array((size_t)G, sizeof *place);
    /* the pass is on the state of an episode's last step (arch.steps - 1 passes from the base rows) */
    float *x = xnew_array((size_t)G * (size_t)in->F, sizeof *x);
    hsdag_place_state(f.net, in, w, x);
    /* greedy: HSDAG_GREEDY's placement; each entry keeps its cluster's probabilities */
    hsdag_forward(f.net, in, x, w, HSDAG_GREEDY, NULL, place, NULL);
    int n_cl = 0;
    const int *cl = hsdag_work_clusters(w, &n_cl);
    int steps = 0;
    while (hsdag_episode_step(f.ep, f.ac, 1))
        steps++;
    CHECK_INT(steps, G);
    CHECK(episode_done(f.ep));
    CHECK_INT(f.ac->n_clusters, n_cl);
    for (int k = 0; k < G; k++) {
        CHECK_INT(f.ep->group_device[k], place[k]);
        CHECK_INT(f.ac->cluster[k], cl[k]);
    }
    for (int t = 0; t < G; t++) {
        const EpisodeStep *s = &f.ep->hist[t];
        CHECK_INT(s->group, t);
        REQUIRE(s->probs != NULL);
        CHECK(memcmp(s->probs, hsdag_work_probs(w, cl[t]), (size_t)f.ep->n_devices * sizeof(float)) == 0);
    }
    /* sampled: the episode's RNG draws as HSDAG_SAMPLE does, one uniform per cluster */
    for (uint64_t seed = 77; seed < 81; seed++) {
        episode_reset(f.ep, seed, NULL);
        Rng r;
        rng_seed(&r, seed);
        hsdag_forward(f.net, in, x, w, HSDAG_SAMPLE, &r, place, NULL);
        while (hsdag_episode_step(f.ep, f.ac, 0))
            ;
        for (int k = 0; k < G; k++)
            CHECK_MSG(f.ep->group_device[k] == place[k], "seed %llu: group %d on %d, the forward says %d",
                      (unsigned long long)seed, k, f.ep->group_device[k], place[k]);
        CHECK(memcmp(&f.ep->rng, &r, sizeof r) == 0);
    }
    /* the members row: 1 / size on the current group's cluster, 0 elsewhere */
    episode_reset(f.ep, 3, NULL);
    for (int k = 0; k < 4; k++)
        REQUIRE(hsdag_episode_step(f.ep, f.ac, 0) != NULL);
    const float *mem = NULL;
    REQUIRE(hsdag_actor_probs(f.ac, f.ep, &mem) != NULL && mem != NULL);
    int kc = f.ac->cluster[4];
    for (int v = 0; v < G; v++)
        CHECK(mem[v] == (f.ac->cluster[v] == kc ? 1.0f / (float)f.ac->size[kc] : 0.0f));
    CHECK_INT(f.ac->passes_run, 1); /* one forward pass for every episode */
    free(place);
    free(x);
    hsdag_work_free(w);
    hsdag_input_free(in);
    hefix_done(&f);
}

TEST(hsdag_episode_cluster_follows)
{
    HeFix f;
    if (hefix_new(&f, 60, 16, 3, 4) != 0) {
        hefix_done(&f);
        return;
    }
    Episode *ep = f.ep;
    Err e = {{0}};
    int first = -1, later = -1;
    REQUIRE_MSG(pick_cluster(f.ac, &first, &later) >= 0, "every cluster is one group");
    REQUIRE(later > first);
    /* an override of the first group when it is the current one: the cluster follows */
    step_to(ep, f.ac, first);
    REQUIRE(episode_current(ep) == first);
    for (int dev = 0; dev < 3; dev++) {
        REQUIRE(episode_override(ep, first, dev, &e) != NULL);
        CHECK_INT(episode_current(ep), first + 1); /* it took the step */
        while (hsdag_episode_step(ep, f.ac, 0))
            ;
        for (int v = 0; v < f.ac->G; v++)
            if (f.ac->cluster[v] == f.ac->cluster[first])
                CHECK_INT(ep->group_device[v], dev);
        while (episode_current(ep) != first) /* back before the override */
            REQUIRE(episode_undo(ep) == 0);
    }
    /* an override of the first group aside (after its step, before the later
     * group's): the later group follows its new device */
    hsdag_episode_step(ep, f.ac, 0);
    step_to(ep, f.ac, later);
    int moved = (ep->group_device[first] + 1) % 3;
    REQUIRE(episode_override(ep, first, moved, &e) != NULL);
    CHECK_INT(episode_current(ep), later); /* the cursor stays */
    const EpisodeStep *s = hsdag_episode_step(ep, f.ac, 0);
    REQUIRE(s != NULL && s->group == later);
    CHECK_INT(ep->group_device[later], moved);
    CHECK_INT(f.ac->passes_run, 1);
    hefix_done(&f);
}

TEST(hsdag_episode_undo_redo)
{
    HeFix f;
    if (hefix_new(&f, 70, 20, 2, 9) != 0) {
        hefix_done(&f);
        return;
    }
    Episode *ep = f.ep;
    int G = f.b.gr->n_groups;
    int *whole = xnew_array((size_t)G, sizeof *whole);
    while (hsdag_episode_step(ep, f.ac, 0))
        ;
    memcpy(whole, ep->group_device, (size_t)G * sizeof *whole);
    int undone = 0;
    while (episode_undo(ep) == 0)
        undone++;
    CHECK_INT(undone, G);
    for (int v = 0; v < G; v++)
        CHECK_INT(ep->group_device[v], 0);
    while (episode_redo(ep) == 0)
        ;
    CHECK(memcmp(ep->group_device, whole, (size_t)G * sizeof *whole) == 0);
    /* stepping again after undo gives the same steps (the RNG is restored) */
    for (int k = 0; k < G / 2; k++)
        REQUIRE(episode_undo(ep) == 0);
    while (hsdag_episode_step(ep, f.ac, 0))
        ;
    CHECK(memcmp(ep->group_device, whole, (size_t)G * sizeof *whole) == 0);
    CHECK(hsdag_actor_probs(f.ac, ep, NULL) == NULL);
    CHECK(hsdag_episode_step(ep, f.ac, 1) == NULL);
    CHECK_INT(f.ac->passes_run, 1);
    free(whole);
    hefix_done(&f);
}

/* a -> b -> c -> d and a -> c: four groups of one op each.
 *   costs  a 10, b 20, c 30, d 40 (total 100)
 *   edges  a->b 100 B, a->c 100 B (a's output), b->c 1000 B, c->d 10 B (1210 B)
 * Placeto's groups (every group its own cluster): every edge is cut,
 * 1210 B; the largest cost 40 over the mean 100 / 4 = 25: 1.6.
 * Clusters {a, b} and {c, d}: a->c and b->c are cut, 1100 B; costs 30 and
 * 70, the mean 50: 1.4. One cluster: nothing cut, balance 1. */
TEST(group_cluster_stats_by_hand)
{
    Graph *g = graph_new("stats");
    const char *names[4] = {"a", "b", "c", "d"};
    double cost[4] = {10, 20, 30, 40};
    int64_t by[4] = {100, 1000, 10, 7};
    for (int i = 0; i < 4; i++)
        graph_add_node(g, names[i], "Conv", cost[i], &by[i], 1);
    graph_add_edge(g, 0, 1, 0);
    graph_add_edge(g, 1, 2, 0);
    graph_add_edge(g, 0, 2, 0);
    graph_add_edge(g, 2, 3, 0);
    Err e = {{0}};
    REQUIRE_MSG(graph_finish(g, &e) == 0, "%s", e.msg);
    Grouping *gr = group_build(g, 4, &e);
    REQUIRE_MSG(gr != NULL && gr->n_groups == 4, "%s", e.msg);
    for (int i = 0; i < 4; i++)
        CHECK_INT(group_find(gr, names[i]), i);
    GroupClusterStats s;
    group_cluster_stats(gr, NULL, 0, &s);
    CHECK_INT(s.n_clusters, 4);
    CHECK_INT(s.cut_bytes, 1210);
    CHECK_NEAR(s.balance, 1.6, 1e-12);
    static const int two[4] = {0, 0, 1, 1}, one[4] = {0, 0, 0, 0};
    group_cluster_stats(gr, two, 2, &s);
    CHECK_INT(s.n_clusters, 2);
    CHECK_INT(s.cut_bytes, 1100);
    CHECK_NEAR(s.balance, 1.4, 1e-12);
    group_cluster_stats(gr, one, 1, &s);
    CHECK_INT(s.n_clusters, 1);
    CHECK_INT(s.cut_bytes, 0);
    CHECK_NEAR(s.balance, 1.0, 1e-12);
    group_free(gr);
    graph_free(g);
}
