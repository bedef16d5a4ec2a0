/* The local searches (anneal, ils; core/place/place_search.c): deterministic
 * per seed, spend exactly their budget, never worse than the best heuristic
 * they start from, and memory-aware; place_best_heuristic picks the lowest
 * scoring heuristic as running each one would. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "place.h"
#include "place_run.h"
#include "problem.h"
#include "test.h"

static const char *const SEARCHES[] = {"anneal", "ils"};

/* The best score of the heuristics on p (what the searches start from). */
static double best_heuristic_score(const Problem *p)
{
    int n;
    const PlaceMethod *m = place_methods(&n);
    double best = INFINITY;
    for (int k = 0; k < n; k++) {
        PlaceRun r;
        Err e;
        if (place_is_search(&m[k]) || place_run(p, &m[k], 0, 0, &r, &e) != 0)
            continue;
        double s = place_score(p->c, sim_run(p->sim, r.op_device));
        if (s < best)
            best = s;
        place_run_free(&r);
    }
    return best;
}

TEST(place_search_methods_are_listed_last)
{
    int n;
    const PlaceMethod *m = place_methods(&n);
    REQUIRE(n >= 2);
    CHECK(strcmp(m[n - 2].name, "anneal") == 0 && strcmp(m[n - 1].name, "ils") == 0);
    for (int k = 0; k < n; k++)
        CHECK_MSG(place_is_search(&m[k]) == (k >= n - 2), "%s", m[k].name);
}

TEST(place_search_is_deterministic_and_spends_its_budget)
{
    Problem p;
    Err e = {{0}};
    ProblemSpec s = {.graph_path = "graphs/inception_v3.json", .n_devices = 4};
    REQUIRE_MSG(problem_load(&p, &s, &e) == 0, "%s", e.msg);
    double start = best_heuristic_score(&p);
    for (int k = 0; k < 2; k++) {
        const PlaceMethod *m = place_find(SEARCHES[k]);
        REQUIRE(m != NULL);
        PlaceRun a, b, c;
        REQUIRE(place_run(&p, m, 7, 400, &a, &e) == 0);
        REQUIRE(place_run(&p, m, 7, 400, &b, &e) == 0);
        CHECK_MSG(memcmp(a.op_device, b.op_device, (size_t)p.g->n_nodes * sizeof *a.op_device) == 0,
                  "%s: two runs with one seed differ", m->name);
        CHECK_EXACT(a.runtime_us, b.runtime_us);
        CHECK_INT(a.placements, 400); /* the heuristics' placements of the start included */
        /* never worse than its start */
        double got = place_score(p.c, sim_run(p.sim, a.op_device));
        CHECK_MSG(got <= start, "%s: %.17g is worse than the best heuristic's %.17g", m->name, got, start);
        /* a budget smaller than the heuristics: only that many placements */
        REQUIRE(place_run(&p, m, 7, 3, &c, &e) == 0);
        CHECK_INT(c.placements, 3);
        place_run_free(&a);
        place_run_free(&b);
        place_run_free(&c);
    }
    problem_free(&p);
}

TEST(place_search_improves_on_the_heuristics)
{
    Problem p;
    Err e = {{0}};
    ProblemSpec s = {.graph_path = "graphs/toy/crown.json", .n_devices = 2};
    REQUIRE_MSG(problem_load(&p, &s, &e) == 0, "%s", e.msg);
    double start = best_heuristic_score(&p);
    for (int k = 0; k < 2; k++) {
        PlaceRun r;
        REQUIRE(place_run(&p, place_find(SEARCHES[k]), 1, 3000, &r, &e) == 0);
        CHECK_MSG(r.runtime_us < start, "%s: %.1f is not below the best heuristic's %.1f", SEARCHES[k],
                  r.runtime_us, start);
        place_run_free(&r);
    }
    problem_free(&p);
}

TEST(place_search_is_memory_aware)
{
    /* device 0 is four times faster but holds 2 MB: the fastest placements
     * run out of its memory; device 1 holds everything */
    Cluster *c = cluster_default(2);
    c->devices[0].speed = 4;
    c->devices[0].memory_bytes = 2000000;
    Problem p;
    Err e = {{0}};
    ProblemSpec s = {.graph_path = "graphs/toy/crown.json", .cluster = c};
    REQUIRE_MSG(problem_load(&p, &s, &e) == 0, "%s", e.msg);
    PlaceRun single;
    REQUIRE(place_run(&p, place_find("single"), 0, 0, &single, &e) == 0);
    CHECK_MSG(single.oom, "the trap: everything on the fast device must run out of memory");
    place_run_free(&single);
    for (int k = 0; k < 2; k++) {
        PlaceRun r;
        REQUIRE(place_run(&p, place_find(SEARCHES[k]), 1, 2000, &r, &e) == 0);
        CHECK_MSG(!r.oom, "%s: out of memory (peak %lld of %lld bytes on device 0)", SEARCHES[k],
                  (long long)r.peak_memory_bytes[0], (long long)c->devices[0].memory_bytes);
        place_run_free(&r);
    }
    problem_free(&p);
    cluster_free(c);
}

/* What place_best_heuristic must match on p: the heuristics that run
 * (place_run succeeds), and the first of the lowest place_score. */
typedef struct Heur {
    int ran;
    double score;
    PlaceRun best;
} Heur;

static void heuristics_by_hand(const Problem *p, uint64_t seed, Heur *h)
{
    int n;
    const PlaceMethod *m = place_methods(&n);
    memset(h, 0, sizeof *h);
    h->score = INFINITY;
    for (int k = 0; k < n; k++) {
        PlaceRun r;
        Err e;
        if (place_is_search(&m[k]) || place_run(p, &m[k], seed, 0, &r, &e) != 0)
            continue;
        h->ran++;
        double s = place_score(p->c, sim_run(p->sim, r.op_device));
        if (s < h->score) {
            place_run_free(&h->best);
            h->score = s;
            h->best = r;
        } else {
            place_run_free(&r);
        }
    }
}

static void check_best_heuristic(const char *graph, int n_devices, uint64_t seed)
{
    Problem p;
    Err e = {{0}};
    ProblemSpec s = {.graph_path = graph, .n_devices = n_devices};
    REQUIRE_MSG(problem_load(&p, &s, &e) == 0, "%s", e.msg);
    Heur h;
    heuristics_by_hand(&p, seed, &h);
    PlaceCtx ctx = {.g = p.g, .gr = p.gr, .c = p.c, .seed = seed};
    int *gd = XMALLOC(int, p.gr->n_groups);
    double score = -1;
    const char *name = NULL;
    int64_t used = place_best_heuristic(&ctx, gd, &score, &name);
    CHECK_MSG(used == h.ran, "%s on %d: %lld placements, %d heuristics ran", graph, n_devices, (long long)used, h.ran);
    CHECK_MSG(name && h.best.method && strcmp(name, h.best.method) == 0, "%s on %d: %s, expected %s", graph,
              n_devices, name ? name : "(null)", h.best.method ? h.best.method : "(none)");
    CHECK_EXACT(score, h.score);
    CHECK(h.best.group_device && memcmp(gd, h.best.group_device, (size_t)p.gr->n_groups * sizeof *gd) == 0);
    free(gd);
    place_run_free(&h.best);
    problem_free(&p);
}

TEST(place_best_heuristic_is_the_best_non_search_method)
{
    check_best_heuristic("graphs/toy/crown.json", 2, 0);
    check_best_heuristic("graphs/toy/crown.json", 3, 5);
    check_best_heuristic("graphs/resnet18.json", 4, 1);
}

/* The searches score a placement by the makespan alone (the simulator's
 * makespan-only path) when the output bytes placed on each device fit in
 * its memory: that needs a device's peak memory to be at most those bytes,
 * and the makespan-only path to give the full run's makespan. Checked on
 * random placements of graphs that run out of memory and that do not. */
TEST(place_search_memory_bound_behind_its_fast_path)
{
    const char *graphs[] = {"graphs/inception_v3.json", "graphs/nmt.json", "graphs/toy/crown.json"};
    Rng rng;
    rng_seed(&rng, 3);
    for (int gi = 0; gi < 3; gi++) {
        Problem p;
        Err e = {{0}};
        ProblemSpec s = {.graph_path = graphs[gi], .n_devices = 3};
        REQUIRE_MSG(problem_load(&p, &s, &e) == 0, "%s", e.msg);
        int n = p.g->n_nodes, G = p.gr->n_groups, fitting = 0;
        int *gd = malloc((size_t)G * sizeof *gd), *op = malloc((size_t)n * sizeof *op);
        for (int t = 0; t < 40; t++) {
            int skew = (int)rng_below(&rng, 4); /* 0: uniform; more: mostly device 0 */
            for (int k = 0; k < G; k++)
                gd[k] = rng_below(&rng, 4) < (uint64_t)skew ? 0 : (int)rng_below(&rng, 3);
            group_expand(p.gr, gd, op);
            double bytes[3] = {0, 0, 0};
            for (int i = 0; i < n; i++)
                bytes[op[i]] += (double)graph_node_bytes(p.g, i);
            const SimResult *r = sim_run(p.sim, op);
            double full = r->makespan_us;
            int fits = 1;
            for (int d = 0; d < 3; d++) {
                CHECK_MSG((double)r->peak_memory_bytes[d] <= bytes[d], "%s: device %d peaks above its bytes",
                          graphs[gi], d);
                fits &= bytes[d] <= (double)p.c->devices[d].memory_bytes;
            }
            fitting += fits;
            CHECK_EXACT(sim_makespan(p.sim, op), full);
        }
        CHECK_MSG(fitting > 0 || gi == 1, "%s: no random placement took the fast path", graphs[gi]);
        free(gd);
        free(op);
        problem_free(&p);
    }
}
