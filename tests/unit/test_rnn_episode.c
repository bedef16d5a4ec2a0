/* An Episode stepped by the RNN placer's decoder (core/agent/rnn_episode.h):
 * greedy steps give rnn_forward's greedy decode; sampled steps give its
 * sampled decode from the same RNG; each history entry keeps its step's
 * probabilities; the cached decoder state after undo, redo, overrides of
 * earlier groups and a switch to another episode gives the same bytes
 * (probabilities and attention) as a decode from scratch, and the cache
 * re-runs only the steps after the first changed device; an override
 * conditions the later steps as teacher forcing does; a graph of more
 * groups than the net places is refused (the other episodes it refuses:
 * test_contract.c). */
#include <stdlib.h>
#include <string.h>

#include "actor_test.h"
#include "gen.h"
#include "rnn_episode.h"
#include "test.h"

typedef struct EFix {
    ActorGraph b; /* g, gr, c, voc */
    RnnNet *net;
    Episode *ep;
    RnnActor *ac;
} EFix;

static int efix_new(EFix *f, int n_ops, int target, int n_dev, uint64_t seed)
{
    Err e = {{0}};
    memset(f, 0, sizeof *f);
    if (actor_graph_new(&f->b, n_ops, target, n_dev, seed) != 0)
        return -1;
    RnnArch a;
    rnn_arch_default(&a, n_dev, f->b.gr->n_groups, f->b.voc.n);
    a.hidden = 16;
    a.emb = 4;
    f->net = rnn_new(&a, &f->b.voc, seed + 7, &e);
    REQUIRE_OR(f->net != NULL, -1, "rnn_new: %s", e.msg);
    EpisodeConfig cfg;
    oneshot_episode_config(&cfg);
    f->ep = episode_new(f->b.g, f->b.gr, f->b.c, NULL, &cfg, 5, NULL, &e);
    REQUIRE_OR(f->ep != NULL, -1, "episode_new: %s", e.msg);
    f->ac = rnn_actor_new(f->net, f->b.g, f->b.gr, &e);
    REQUIRE_OR(f->ac != NULL, -1, "rnn_actor_new: %s", e.msg);
    return 0;
}

static void efix_done(EFix *f)
{
    rnn_actor_free(f->ac);
    episode_free(f->ep);
    rnn_free(f->net);
    actor_graph_done(&f->b);
}

/* The decode from scratch of ep's current step: a fresh actor's answer. */
static void check_fresh(const EFix *f, const Episode *ep, RnnActor *ac, const char *what)
{
    Err e = {{0}};
    RnnActor *fresh = rnn_actor_new(f->net, f->b.g, f->b.gr, &e);
    REQUIRE_MSG(fresh != NULL, "%s", e.msg);
    const float *att = NULL, *fatt = NULL;
    const float *p = rnn_actor_probs(ac, ep, &att), *fp = rnn_actor_probs(fresh, ep, &fatt);
    if (!fp) {
        CHECK_MSG(p == NULL, "%s: probabilities of a done episode", what);
    } else {
        REQUIRE_MSG(p != NULL && att != NULL && fatt != NULL, "%s: no probabilities", what);
        CHECK_MSG(memcmp(p, fp, (size_t)ep->n_devices * sizeof *p) == 0, "%s: the cached probabilities differ", what);
        CHECK_MSG(memcmp(att, fatt, (size_t)ep->n_groups * sizeof *att) == 0, "%s: the cached attention differs",
                  what);
    }
    rnn_actor_free(fresh);
}

TEST(rnn_episode_greedy_is_forward)
{
    EFix f;
    if (efix_new(&f, 60, 12, 3, 11) != 0) {
        efix_done(&f);
        return;
    }
    Err e = {{0}};
    CHECK_MSG(rnn_episode_check(f.ep, f.net, &e) == 0, "%s", e.msg);
    int G = f.b.gr->n_groups;
    for (int k = 0; k < G; k++)
        CHECK_INT(f.ep->group_device[k], 0); /* from everything on device 0 */
    RnnWork *w = rnn_work_new(&f.net->arch);
    RnnInput *in = rnn_input_new(f.b.g, f.b.gr, &f.net->vocab, f.net->arch.n_groups, &e);
    REQUIRE(in != NULL);
    int *place = xnew_array((size_t)G, sizeof *place);
    rnn_forward(f.net, in, w, RNN_GREEDY, NULL, place, NULL, NULL);
    int steps = 0;
    while (rnn_episode_step(f.ep, f.ac, 1))
        steps++;
    CHECK_INT(steps, G);
    CHECK(episode_done(f.ep));
    for (int k = 0; k < G; k++)
        CHECK_INT(f.ep->group_device[k], place[k]);
    for (int t = 0; t < G; t++) { /* each entry keeps its step's probabilities */
        const EpisodeStep *s = &f.ep->hist[t];
        CHECK_INT(s->group, t);
        CHECK(s->greedy);
        REQUIRE(s->probs != NULL);
        CHECK(memcmp(s->probs, rnn_work_probs(w, t), (size_t)f.ep->n_devices * sizeof(float)) == 0);
    }
    CHECK_INT(f.ac->steps_run, G); /* one decoder step each: nothing decoded twice */
    /* sampled: the episode's RNG draws as rnn_forward's would */
    episode_reset(f.ep, 77, NULL);
    Rng r;
    rng_seed(&r, 77);
    rnn_forward(f.net, in, w, RNN_SAMPLE, &r, place, NULL, NULL);
    while (rnn_episode_step(f.ep, f.ac, 0))
        ;
    for (int k = 0; k < G; k++)
        CHECK_INT(f.ep->group_device[k], place[k]);
    CHECK(memcmp(&f.ep->rng, &r, sizeof r) == 0);
    free(place);
    rnn_input_free(in);
    rnn_work_free(w);
    efix_done(&f);
}

TEST(rnn_episode_cache)
{
    EFix f;
    if (efix_new(&f, 80, 16, 2, 3) != 0) {
        efix_done(&f);
        return;
    }
    Episode *ep = f.ep;
    int G = f.b.gr->n_groups;
    REQUIRE(G >= 8);
    Err e = {{0}};
    check_fresh(&f, ep, f.ac, "start");
    for (int k = 0; k < G / 2; k++)
        REQUIRE(rnn_episode_step(ep, f.ac, 0) != NULL);
    check_fresh(&f, ep, f.ac, "half way");
    /* an override of an earlier group: the later steps follow it */
    int g = 1, d = 1 - ep->group_device[1];
    REQUIRE(episode_override(ep, g, d, &e) != NULL);
    int64_t before = f.ac->steps_run;
    check_fresh(&f, ep, f.ac, "after an override aside");
    /* re-ran steps 1 .. cursor - 1 and computed the cursor's */
    CHECK_INT(f.ac->steps_run - before, ep->cursor - g + 1);
    /* the decoder conditioned: the teacher-forced decode of the placement so far */
    RnnWork *w = rnn_work_new(&f.net->arch);
    RnnInput *in = rnn_input_new(f.b.g, f.b.gr, &f.net->vocab, f.net->arch.n_groups, &e);
    REQUIRE(in != NULL);
    int *place = xnew_array((size_t)G, sizeof *place);
    memcpy(place, ep->group_device, (size_t)G * sizeof *place);
    rnn_forward(f.net, in, w, RNN_SCORE, NULL, place, NULL, NULL);
    const float *p = rnn_actor_probs(f.ac, ep, NULL);
    REQUIRE(p != NULL);
    CHECK(memcmp(p, rnn_work_probs(w, ep->cursor), (size_t)ep->n_devices * sizeof *p) == 0);
    /* asking again computes nothing */
    before = f.ac->steps_run;
    rnn_actor_probs(f.ac, ep, NULL);
    CHECK_INT(f.ac->steps_run, before);
    /* undo and redo */
    for (int k = 0; k < 3; k++) {
        REQUIRE(episode_undo(ep) == 0);
        check_fresh(&f, ep, f.ac, "after undo");
    }
    for (int k = 0; k < 2; k++) {
        REQUIRE(episode_redo(ep) == 0);
        check_fresh(&f, ep, f.ac, "after redo");
    }
    /* an override of the current group takes the step; then the decoder goes on */
    int cur = episode_current(ep);
    REQUIRE(episode_override(ep, cur, 1, &e) != NULL);
    CHECK_INT(episode_current(ep), cur + 1);
    check_fresh(&f, ep, f.ac, "after overriding the current group");
    const EpisodeStep *s = rnn_episode_step(ep, f.ac, 1);
    REQUIRE(s != NULL);
    CHECK_INT(s->group, cur + 1);
    /* stepping after undo gives what it gave the first time */
    int dev = s->new_device;
    REQUIRE(episode_undo(ep) == 0);
    s = rnn_episode_step(ep, f.ac, 1);
    CHECK_INT(s->new_device, dev);
    /* another episode on the same actor: the cache follows the placement */
    Episode *other = episode_new(f.b.g, f.b.gr, f.b.c, NULL, &ep->cfg, 9, NULL, &e);
    REQUIRE(other != NULL);
    check_fresh(&f, other, f.ac, "another episode");
    for (int k = 0; k < 3; k++)
        rnn_episode_step(other, f.ac, 0);
    check_fresh(&f, other, f.ac, "another episode, stepped");
    check_fresh(&f, ep, f.ac, "back to the first episode");
    while (rnn_episode_step(ep, f.ac, 0))
        ;
    CHECK(rnn_actor_probs(f.ac, ep, NULL) == NULL);
    episode_free(other);
    free(place);
    rnn_input_free(in);
    rnn_work_free(w);
    efix_done(&f);
}

TEST(rnn_episode_refused)
{
    EFix f;
    if (efix_new(&f, 40, 8, 2, 5) != 0) {
        efix_done(&f);
        return;
    }
    Err e = {{0}};
    /* the episodes it refuses: test_contract.c (check_actor_refusals); a graph of more groups than the net places */
    Graph *big = gen_random_dag(200, 2.0, 8);
    Grouping *gr = group_build(big, 40, &e);
    REQUIRE(gr != NULL);
    if (gr->n_groups > f.net->arch.n_groups)
        CHECK(rnn_actor_new(f.net, big, gr, &e) == NULL && strstr(e.msg, "at most"));
    group_free(gr);
    graph_free(big);
    efix_done(&f);
}
