/* An Episode stepped by the GDP placer (core/agent/gdp_episode.h): greedy
 * steps give gdp_forward's greedy placement; sampled steps give its sampled
 * placement from the same RNG (so they are deterministic per seed); each
 * history entry keeps its group's probabilities; after undo, redo,
 * overrides and a switch to another episode the cached probabilities and
 * attention equal a fresh forward pass byte for byte, and no pass runs
 * again; a larger graph than it was built for is placed (the episodes it
 * refuses: test_contract.c). */
#include <stdlib.h>
#include <string.h>

#include "actor_test.h"
#include "gdp_episode.h"
#include "gen.h"
#include "test.h"

typedef struct GFix {
    ActorGraph b; /* g, gr, c, voc */
    GdpNet *net;
    Episode *ep;
    GdpActor *ac;
} GFix;

static int gfix_new(GFix *f, int n_ops, int target, int n_dev, uint64_t seed)
{
    Err e = {{0}};
    memset(f, 0, sizeof *f);
    if (actor_graph_new(&f->b, n_ops, target, n_dev, seed) != 0)
        return -1;
    GdpArch a;
    gdp_arch_default(&a, n_dev, f->b.voc.n);
    a.hidden = 8;
    a.heads = 2;
    a.blocks = 2;
    a.segment = 5; /* several segments: the rows see a memory */
    f->net = gdp_new(&a, &f->b.voc, seed + 7, &e);
    REQUIRE_OR(f->net != NULL, -1, "gdp_new: %s", e.msg);
    f->net->blas = 0;
    EpisodeConfig cfg;
    gdp_episode_config(&cfg);
    f->ep = episode_new(f->b.g, f->b.gr, f->b.c, NULL, &cfg, 5, NULL, &e);
    REQUIRE_OR(f->ep != NULL, -1, "episode_new: %s", e.msg);
    f->ac = gdp_actor_new(f->net, f->b.g, f->b.gr, &e);
    REQUIRE_OR(f->ac != NULL, -1, "gdp_actor_new: %s", e.msg);
    return 0;
}

static void gfix_done(GFix *f)
{
    gdp_actor_free(f->ac);
    episode_free(f->ep);
    gdp_free(f->net);
    actor_graph_done(&f->b);
}

/* A fresh actor's answer for ep's current group equals ac's, byte for byte. */
static void check_fresh(const GFix *f, const Episode *ep, GdpActor *ac, const char *what)
{
    Err e = {{0}};
    GdpActor *fresh = gdp_actor_new(f->net, f->b.g, f->b.gr, &e);
    REQUIRE_MSG(fresh != NULL, "%s", e.msg);
    const float *att = NULL, *fatt = NULL;
    const float *p = gdp_actor_probs(ac, ep, &att), *fp = gdp_actor_probs(fresh, ep, &fatt);
    if (!fp) {
        CHECK_MSG(p == NULL, "%s: probabilities of a done episode", what);
    } else {
        REQUIRE_MSG(p != NULL && att != NULL && fatt != NULL, "%s: no probabilities", what);
        CHECK_MSG(memcmp(p, fp, (size_t)ep->n_devices * sizeof *p) == 0, "%s: the cached probabilities differ", what);
        CHECK_MSG(memcmp(att, fatt, (size_t)ep->n_groups * sizeof *att) == 0, "%s: the cached attention differs",
                  what);
    }
    gdp_actor_free(fresh);
}

TEST(gdp_episode_greedy_is_forward)
{
    GFix f;
    if (gfix_new(&f, 60, 12, 3, 11) != 0) {
        gfix_done(&f);
        return;
    }
    Err e = {{0}};
    CHECK_MSG(gdp_episode_check(f.ep, f.net, &e) == 0, "%s", e.msg);
    int G = f.b.gr->n_groups;
    REQUIRE(G > 5);
    for (int k = 0; k < G; k++)
        CHECK_INT(f.ep->group_device[k], 0); /* from everything on device 0 */
    GdpWork *w = gdp_work_new(&f.net->arch, G);
    GdpInput *in = gdp_input_new(f.b.g, f.b.gr, &f.net->vocab, &e);
    REQUIRE(in != NULL);
    int *place = xnew_array((size_t)G, sizeof *place);
    gdp_forward(f.net, in, w, GDP_GREEDY, NULL, place, NULL, NULL);
    int steps = 0;
    while (gdp_episode_step(f.ep, f.ac, 1))
        steps++;
    CHECK_INT(steps, G);
    CHECK(episode_done(f.ep));
    for (int k = 0; k < G; k++)
        CHECK_INT(f.ep->group_device[k], place[k]);
    for (int t = 0; t < G; t++) { /* each entry keeps its group's probabilities */
        const EpisodeStep *s = &f.ep->hist[t];
        CHECK_INT(s->group, t);
        CHECK(s->greedy);
        REQUIRE(s->probs != NULL);
        CHECK(memcmp(s->probs, gdp_work_probs(w, t), (size_t)f.ep->n_devices * sizeof(float)) == 0);
    }
    CHECK_INT(f.ac->passes_run, 1); /* one forward pass for the whole episode */
    /* the attention row: a distribution over the keys the row sees */
    episode_reset(f.ep, 77, NULL);
    for (int k = 0; k < 7; k++)
        REQUIRE(gdp_episode_step(f.ep, f.ac, 1) != NULL);
    const float *att = NULL;
    REQUIRE(gdp_actor_probs(f.ac, f.ep, &att) != NULL);
    double sum = 0;
    for (int k = 0; k < G; k++) {
        CHECK(att[k] >= 0);
        sum += att[k];
    }
    CHECK_NEAR(sum, 1.0, 1e-4);
    for (int k = 10; k < G; k++) /* group 7 sees segments 0 and 1 (rows 0 .. 9) alone */
        CHECK(att[k] == 0);
    /* sampled: the episode's RNG draws as gdp_forward's would, the same per seed */
    for (int rep = 0; rep < 2; rep++) {
        episode_reset(f.ep, 77, NULL);
        Rng r;
        rng_seed(&r, 77);
        gdp_forward(f.net, in, w, GDP_SAMPLE, &r, place, NULL, NULL);
        while (gdp_episode_step(f.ep, f.ac, 0))
            ;
        for (int k = 0; k < G; k++)
            CHECK_INT(f.ep->group_device[k], place[k]);
        CHECK(memcmp(&f.ep->rng, &r, sizeof r) == 0);
    }
    int differs = 0; /* another seed, another placement (the net is untrained: spread out) */
    episode_reset(f.ep, 78, NULL);
    while (gdp_episode_step(f.ep, f.ac, 0))
        ;
    for (int k = 0; k < G; k++)
        differs |= f.ep->group_device[k] != place[k];
    CHECK(differs);
    CHECK_INT(f.ac->passes_run, 1);
    free(place);
    gdp_input_free(in);
    gdp_work_free(w);
    gfix_done(&f);
}

TEST(gdp_episode_cache)
{
    GFix f;
    if (gfix_new(&f, 80, 16, 2, 3) != 0) {
        gfix_done(&f);
        return;
    }
    Episode *ep = f.ep;
    int G = f.b.gr->n_groups;
    REQUIRE(G >= 8);
    Err e = {{0}};
    check_fresh(&f, ep, f.ac, "start");
    for (int k = 0; k < G / 2; k++)
        REQUIRE(gdp_episode_step(ep, f.ac, 0) != NULL);
    check_fresh(&f, ep, f.ac, "half way");
    /* an override of an earlier group: the later distributions do not change */
    const float *p0 = gdp_actor_probs(f.ac, ep, NULL);
    REQUIRE(p0 != NULL);
    float before[GDP_MAX_DEVICES];
    memcpy(before, p0, (size_t)ep->n_devices * sizeof *before);
    REQUIRE(episode_override(ep, 1, 1 - ep->group_device[1], &e) != NULL);
    check_fresh(&f, ep, f.ac, "after an override aside");
    CHECK(memcmp(gdp_actor_probs(f.ac, ep, NULL), before, (size_t)ep->n_devices * sizeof *before) == 0);
    for (int k = 0; k < 3; k++) {
        REQUIRE(episode_undo(ep) == 0);
        check_fresh(&f, ep, f.ac, "after undo");
    }
    for (int k = 0; k < 2; k++) {
        REQUIRE(episode_redo(ep) == 0);
        check_fresh(&f, ep, f.ac, "after redo");
    }
    /* an override of the current group takes the step; then the network goes on */
    int cur = episode_current(ep);
    REQUIRE(episode_override(ep, cur, 1, &e) != NULL);
    CHECK_INT(episode_current(ep), cur + 1);
    check_fresh(&f, ep, f.ac, "after overriding the current group");
    const EpisodeStep *s = gdp_episode_step(ep, f.ac, 0);
    REQUIRE(s != NULL);
    CHECK_INT(s->group, cur + 1);
    REQUIRE(s->probs != NULL);
    CHECK(memcmp(s->probs, gdp_work_probs(f.ac->w, cur + 1), (size_t)ep->n_devices * sizeof(float)) == 0);
    /* stepping after undo gives what it gave the first time (the RNG is restored) */
    int dev = s->new_device;
    REQUIRE(episode_undo(ep) == 0);
    s = gdp_episode_step(ep, f.ac, 0);
    CHECK_INT(s->new_device, dev);
    /* another episode on the same actor */
    Episode *other = episode_new(f.b.g, f.b.gr, f.b.c, NULL, &ep->cfg, 9, NULL, &e);
    REQUIRE(other != NULL);
    check_fresh(&f, other, f.ac, "another episode");
    for (int k = 0; k < 3; k++)
        gdp_episode_step(other, f.ac, 0);
    check_fresh(&f, other, f.ac, "another episode, stepped");
    check_fresh(&f, ep, f.ac, "back to the first episode");
    CHECK_INT(f.ac->passes_run, 1); /* nothing ever ran the network again */
    gdp_actor_reset(f.ac);
    check_fresh(&f, ep, f.ac, "after a reset");
    CHECK_INT(f.ac->passes_run, 2);
    while (gdp_episode_step(ep, f.ac, 0))
        ;
    CHECK(gdp_actor_probs(f.ac, ep, NULL) == NULL);
    CHECK(gdp_episode_step(ep, f.ac, 1) == NULL);
    episode_free(other);
    gfix_done(&f);
}

TEST(gdp_episode_refused)
{
    GFix f;
    if (gfix_new(&f, 40, 8, 2, 5) != 0) {
        gfix_done(&f);
        return;
    }
    Err e = {{0}};
    /* the episodes it refuses: test_contract.c (check_actor_refusals). Inductive: a larger graph than the one it was built for is placed */
    Graph *big = gen_random_dag(200, 2.0, 8);
    Grouping *gr = group_build(big, 40, &e);
    REQUIRE(gr != NULL);
    GdpActor *ac = gdp_actor_new(f.net, big, gr, &e);
    CHECK_MSG(ac != NULL, "%s", e.msg);
    gdp_actor_free(ac);
    group_free(gr);
    graph_free(big);
    gfix_done(&f);
}
