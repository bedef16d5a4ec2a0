/* Refining a start with a policy: placeto_place from a given placement keeps
 * the start among the candidates, so an untrained policy never makes the
 * best heuristic's placement worse; placeto_place_runs with
 * AGENT_START_HEURISTIC names its row "placeto-refine" and counts the
 * heuristics' placements with the episodes'. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "placeto_episode.h"
#include "gen.h"
#include "place.h"
#include "place_run.h"
#include "policy_fixture.h"
#include "placeto_io.h"
#include "placeto_place.h"
#include "problem.h"
#include "agent.h"
#include "test.h"
#include "testutil.h"

/* episode_score with the default configuration of group placement gd. */
static double default_score(const Fix *f, const Cluster *c, const int *gd, double *runtime_us)
{
    EpisodeConfig cfg;
    episode_config_default(&cfg);
    Sim *s = sim_new(f->g, c);
    int *op = XMALLOC(int, f->g->n_nodes);
    group_expand(f->gr, gd, op);
    const SimResult *r = sim_run(s, op);
    double v = episode_score(&cfg, c, r);
    if (runtime_us)
        *runtime_us = r->makespan_us;
    free(op);
    sim_free(s);
    return v;
}

/* The lowest score placeto_place's episodes (greedy, then `samples` sampled
 * from seed + k) reach after a step: what it would give without the start. */
static double best_without_start(const Policy *pol, const Fix *f, const Cluster *c, const EpisodeConfig *cfg,
                                 const int *start, int samples, uint64_t seed)
{
    EpisodeConfig given = *cfg;
    given.init = EPISODE_INIT_GIVEN;
    Err e = {{0}};
    Episode *ep = episode_new(f->g, f->gr, c, f->pg, &given, seed, start, &e);
    PolicyWork *w = policy_work_new(&pol->arch, f->pg);
    double best = INFINITY;
    for (int k = 0; ep && k <= samples; k++) {
        if (k > 0)
            episode_reset(ep, seed + (uint64_t)k, start);
        while (!episode_done(ep)) {
            placeto_episode_step(ep, pol, w, k == 0, NULL);
            best = fmin(best, ep->score);
        }
    }
    policy_work_free(w);
    episode_free(ep);
    return best;
}

/* Makes pol choose device d almost surely: a large bias on its logit. */
static void push_away(Policy *pol, int d)
{
    const NnTensor *b = &pol->p.t[pol->p.n_tensors - 1];
    CHECK(strcmp(b->name, "head2.b") == 0);
    pol->p.w[b->off + (size_t)d] = 100;
}

/* A random policy (extended features when ext) refines the best heuristic's
 * placement of a generated graph on nd devices: never worse than it. The
 * policy is pushed to move the first group off its start device, so that
 * its episodes leave the start at once. Returns 1 when the policy's
 * episodes alone only found worse placements. */
static int check_refine(uint64_t seed, int nd)
{
    int ext = (int)(seed + (uint64_t)nd) % 2;
    Fix f;
    Cluster *c = cluster_default(nd);
    PolicyArch a;
    policy_arch_for(&a, nd, 0, ext);
    Policy *pol = new_policy(&a, seed);
    int worse = 0;
    if (fix_from_graph(&f, gen_random_dag(30 + 10 * (int)seed, 2.0, seed), 0) == 0 && pol) {
        int n = f.gr->n_groups, *start = XMALLOC(int, n), *out = XMALLOC(int, n);
        PlaceCtx ctx = {.g = f.g, .gr = f.gr, .c = c, .seed = seed};
        double hs, rt = -1, got_rt = -2;
        const char *name;
        place_best_heuristic(&ctx, start, &hs, &name);
        push_away(pol, (start[0] + 1) % nd);
        EpisodeConfig cfg;
        episode_config_default(&cfg);
        placeto_episode_config(&cfg, &a);
        Err e = {{0}};
        int64_t sims = placeto_place(pol, f.g, f.gr, c, &cfg, 2, 0, seed, start, out, &rt, &e);
        CHECK_MSG(sims > 0, "%s", e.msg);
        double s0 = default_score(&f, c, start, NULL), s1 = default_score(&f, c, out, &got_rt);
        CHECK_MSG(s1 <= s0, "seed %d, %d devices: %.9g is worse than the start's %.9g", (int)seed, nd, s1, s0);
        CHECK_EXACT(rt, got_rt);
        worse = best_without_start(pol, &f, c, &cfg, start, 2, seed) > s0;
        free(start);
        free(out);
    }
    fix_done(&f);
    policy_free(pol);
    cluster_free(c);
    return worse;
}

/* check(seed, nd) summed over seeds 1-3 and 2..nd_hi devices. */
static int over_cases(int (*check)(uint64_t seed, int nd), int nd_hi)
{
    int sum = 0;
    for (uint64_t seed = 1; seed <= 3; seed++)
        for (int nd = 2; nd <= nd_hi; nd++)
            sum += check(seed, nd);
    return sum;
}

TEST(placeto_place_from_a_start_is_never_worse)
{
    int worse = over_cases(check_refine, 4);
    CHECK_MSG(worse > 0, "the policy alone was never worse than the start: the check could not fail");
}

/* What placeto_place_runs must give, by hand: the heuristics, then
 * placeto_place from the best one's placement (start != 0) or the default
 * start. */
typedef struct Want {
    int64_t placements;
    double runtime_us, start_score;
    const char *start_name;
    int *gd;
} Want;

static void want_rows(const Problem *p, const Policy *pol, int samples, uint64_t seed, int start, Want *w)
{
    int n = p->gr->n_groups, *init = start ? XMALLOC(int, n) : NULL;
    PlaceCtx ctx = {.g = p->g, .gr = p->gr, .c = p->c, .seed = seed};
    w->placements = start ? place_best_heuristic(&ctx, init, &w->start_score, &w->start_name) : 0;
    EpisodeConfig cfg;
    episode_config_default(&cfg);
    placeto_episode_config(&cfg, &pol->arch);
    w->gd = XMALLOC(int, n);
    Err e = {{0}};
    int64_t sims = placeto_place(pol, p->g, p->gr, p->c, &cfg, samples, 0, seed, init, w->gd, &w->runtime_us, &e);
    CHECK_MSG(sims > 0, "%s", e.msg);
    w->placements += sims;
    free(init);
}

static void check_runs_row(const Problem *p, const Policy *pol, const char *path, AgentStart start)
{
    PlaceRun rows[2];
    const char *name = NULL;
    Err e = {{0}};
    int k = agent_place_file(path, p, &(AgentPlaceOpts){1, 7, start, 0}, rows, &name, &e);
    REQUIRE_MSG(k == 1, "%d rows: %s", k, e.msg);
    Want w;
    want_rows(p, pol, 1, 7, start == AGENT_START_HEURISTIC, &w);
    const char *want_name = start == AGENT_START_HEURISTIC ? "placeto-refine" : "placeto";
    CHECK_MSG(strcmp(rows[0].method, want_name) == 0, "row %s, expected %s", rows[0].method, want_name);
    CHECK_INT(rows[0].placements, w.placements);
    CHECK_EXACT(rows[0].runtime_us, w.runtime_us);
    CHECK(memcmp(rows[0].group_device, w.gd, (size_t)p->gr->n_groups * sizeof *w.gd) == 0);
    if (start == AGENT_START_HEURISTIC) {
        CHECK(name && w.start_name && strcmp(name, w.start_name) == 0);
        CHECK(place_score(p->c, sim_run(p->sim, rows[0].op_device)) <= w.start_score);
    }
    free(w.gd);
    place_run_free(&rows[0]);
}

/* A policy of architecture a (seed 4) saved in a temporary directory, and
 * the toy crown on 2 devices to place with it. */
typedef struct Saved {
    TmpDir td;
    char path[128];
    Problem p;
    Policy *pol;
    Err e;
} Saved;

/* 1 when sv is ready (saved_close it then), else 0 with a failed check. */
static int saved_open(Saved *sv, const PolicyArch *a, const char *tag)
{
    memset(sv, 0, sizeof *sv);
    if (!tmp_open(&sv->td, tag)) {
        CHECK_MSG(0, "mkdtemp failed");
        return 0;
    }
    tmp_file(sv->path, sizeof sv->path, &sv->td, "pol.json");
    ProblemSpec s = {.graph_path = "graphs/toy/crown.json", .n_devices = 2};
    sv->pol = new_policy(a, 4);
    if (sv->pol && problem_load(&sv->p, &s, &sv->e) == 0) {
        CHECK_MSG(placeto_policy_save(sv->pol, NULL, sv->path, &sv->e) == 0, "%s", sv->e.msg);
        return 1;
    }
    CHECK_MSG(0, "%s", sv->e.msg);
    policy_free(sv->pol);
    tmp_close(&sv->td);
    return 0;
}

static void saved_close(Saved *sv)
{
    CHECK_MSG(!sv->e.msg[0], "%s", sv->e.msg);
    problem_free(&sv->p);
    policy_free(sv->pol);
    tmp_close(&sv->td);
}

TEST(placeto_place_runs_refine_row)
{
    PolicyArch a;
    policy_arch_for(&a, 2, 0, 1);
    Saved sv;
    if (saved_open(&sv, &a, "placeto_refine")) {
        check_runs_row(&sv.p, sv.pol, sv.path, AGENT_START_HEURISTIC);
        check_runs_row(&sv.p, sv.pol, sv.path, AGENT_START_DEFAULT);
        saved_close(&sv);
    }
}

TEST(placeto_place_refuses_a_feature_mismatch)
{
    Fix f;
    Cluster *c = cluster_default(2);
    PolicyArch a;
    policy_arch_for(&a, 2, 0, 1);
    Policy *pol = new_policy(&a, 1);
    if (fix_from_graph(&f, gen_random_dag(20, 2.0, 1), 0) == 0 && pol) {
        EpisodeConfig cfg;
        episode_config_default(&cfg); /* the paper's features */
        int *out = XMALLOC(int, f.gr->n_groups);
        double rt;
        Err e = {{0}};
        CHECK(placeto_place(pol, f.g, f.gr, c, &cfg, 0, 0, 1, NULL, out, &rt, &e) == -1);
        CHECK_STR_CONTAINS(e.msg, "extended features");
        free(out);
    }
    fix_done(&f);
    policy_free(pol);
    cluster_free(c);
}

/* A kick moves max(2, n / 20) draws of a group to another device: the
 * result differs from the input, stays in range and is the same for the
 * same random state. */
TEST(place_kick_moves_groups_deterministically)
{
    for (int nd = 2; nd <= 4; nd++) {
        int n = 64, gd[64], a[64], b[64];
        for (int k = 0; k < n; k++)
            gd[k] = k % nd;
        memcpy(a, gd, sizeof gd);
        memcpy(b, gd, sizeof gd);
        Rng r1, r2;
        rng_seed(&r1, 9);
        rng_seed(&r2, 9);
        place_kick(a, n, nd, &r1);
        place_kick(b, n, nd, &r2);
        CHECK(memcmp(a, b, sizeof a) == 0);
        int moved = 0;
        for (int k = 0; k < n; k++) {
            CHECK(a[k] >= 0 && a[k] < nd);
            moved += a[k] != gd[k];
        }
        CHECK_MSG(moved >= 1 && moved <= 3, "%d devices: %d groups moved, expected 1 to 3 (3 draws)", nd, moved);
    }
    int one[3] = {0, 0, 0};
    Rng r;
    rng_seed(&r, 1);
    place_kick(one, 3, 1, &r); /* one device: nowhere to go */
    CHECK(one[0] == 0 && one[1] == 0 && one[2] == 0);
}

/* With a budget, placeto_place is a search: it simulates exactly the budget
 * (a policy that proposes little still spends it, a kick per episode that
 * kept nothing), gives the same placement for the same seed and is never
 * worse than its start. Returns 1 when the 150-placement search found a
 * better placement than the greedy episode alone (so the continued
 * episodes and the kicks do something). */
static int check_search(uint64_t seed, int nd)
{
    int stay = seed == 2;
    Fix f;
    Cluster *c = cluster_default(nd);
    PolicyArch a;
    policy_arch_for(&a, nd, 0, 1);
    a.start_heuristic = 1;
    Policy *pol = new_policy(&a, seed);
    int better = 0;
    if (fix_from_graph(&f, gen_random_dag(60, 2.0, seed), 0) == 0 && pol) {
        int n = f.gr->n_groups, *start = XMALLOC(int, n), *o1 = XMALLOC(int, n), *o2 = XMALLOC(int, n);
        double r1 = 0, r2 = 0, rg = 0;
        for (int k = 0; k < n; k++) /* a poor start: a search has room */
            start[k] = k % 7 == 0;
        if (stay) /* every group's own device is nearly sure only for device 0's groups: push to 0 */
            push_away(pol, 0);
        EpisodeConfig cfg;
        episode_config_default(&cfg);
        placeto_episode_config(&cfg, &a);
        Err e = {{0}};
        for (int64_t budget = 1; budget <= 150; budget += 37) {
            CHECK_INT(placeto_place(pol, f.g, f.gr, c, &cfg, 0, budget, seed, start, o1, &r1, &e), budget);
            CHECK_INT(placeto_place(pol, f.g, f.gr, c, &cfg, 0, budget, seed, start, o2, &r2, &e), budget);
            CHECK(memcmp(o1, o2, (size_t)n * sizeof *o1) == 0);
            CHECK_EXACT(r1, r2);
            CHECK(default_score(&f, c, o1, NULL) <= default_score(&f, c, start, NULL));
        }
        /* the greedy episode alone (no budget, no samples) against the 150-placement search */
        CHECK(placeto_place(pol, f.g, f.gr, c, &cfg, 0, 0, seed, start, o2, &rg, &e) > 0);
        better = default_score(&f, c, o1, NULL) < default_score(&f, c, o2, NULL);
        CHECK_MSG(!e.msg[0], "%s", e.msg);
        free(start);
        free(o1);
        free(o2);
    }
    fix_done(&f);
    policy_free(pol);
    cluster_free(c);
    return better;
}

TEST(policy_search_spends_exactly_its_budget)
{
    int better = over_cases(check_search, 3);
    CHECK_MSG(better > 0, "the search never beat its greedy episode: its later episodes did nothing");
}

/* A policy file trained as a search ("start": "heuristic") places from the
 * best heuristic's placement with PLACETO_SEARCH_BUDGET placements when
 * none is given, and with exactly the budget given otherwise. */
TEST(policy_search_file_places_with_its_budget)
{
    PolicyArch a;
    policy_arch_for(&a, 2, 0, 1);
    a.start_heuristic = 1;
    a.accept_improving = 1;
    a.reject_zero = 1;
    Saved sv;
    if (!saved_open(&sv, &a, "placeto_search"))
        return;
    int64_t budgets[] = {0, 30};
    for (int i = 0; i < 2; i++) {
        PlaceRun rows[2];
        const char *name = NULL;
        AgentPlaceOpts o = {8, 7, AGENT_START_DEFAULT, budgets[i]};
        int k = agent_place_file(sv.path, &sv.p, &o, rows, &name, &sv.e);
        CHECK_MSG(k == 1, "%d rows: %s", k, sv.e.msg);
        if (k != 1)
            break;
        CHECK_MSG(strcmp(rows[0].method, "placeto-refine") == 0, "row %s", rows[0].method);
        CHECK_INT(rows[0].placements, budgets[i] ? budgets[i] : PLACETO_SEARCH_BUDGET);
        CHECK(name != NULL);
        place_run_free(&rows[0]);
    }
    saved_close(&sv);
}
