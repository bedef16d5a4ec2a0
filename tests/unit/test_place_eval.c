/* The searches' scorer (place_eval, place_eval_cut, place_eval_score in
 * core/place/place_search.c), which skips the memory pass of placements
 * that cannot be kept: on every bundled graph,
 * over random moves of the kinds the searches make (one group to another
 * device, its undo, a kick, a placement given twice), its score is the one
 * a fresh full simulation gives to the last bit; with a cutoff, a score
 * below it is exact and any other answer lies in [cutoff, score], also
 * when the run stopped at a bound (sim_makespan_cut); and the
 * observer hears of each placement once. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "place.h"
#include "problem.h"
#include "test.h"

static const char *const BUNDLED[] = {
    "graphs/googlenet.json",    "graphs/inception_v3.json",           "graphs/mobilenet_v2.json",
    "graphs/nasnet.json",       "graphs/nmt.json",                    "graphs/resnet18.json",
    "graphs/resnet50.json",     "graphs/vgg16.json",                  "graphs/inference/bert_base.json",
    "graphs/inference/inception_v3.json", "graphs/inference/resnet50.json",
};

static void count_sims(void *ud, double makespan_us, const SimResult *r)
{
    (void)makespan_us;
    (void)r;
    ++*(long *)ud;
}

/* The score of group placement gd by a fresh full simulation; *oom: it
 * carries a memory penalty. */
static double fresh_score(const Problem *p, const int *gd, int *op, int *oom)
{
    group_expand(p->gr, gd, op);
    const SimResult *res = sim_run(p->sim, op);
    double s = place_score(p->c, res);
    *oom = s > res->makespan_us;
    return s;
}

/* One move as the searches make them: kind 0 one group, 1 the undo of the
 * last move, 2 a kick, 3 nothing (the same placement again). */
static void move(Rng *r, int *gd, int *undo, int n, int nd, int kind)
{
    if (kind == 1) {
        int *t = XMALLOC(int, n);
        memcpy(t, gd, (size_t)n * sizeof *gd);
        memcpy(gd, undo, (size_t)n * sizeof *gd);
        memcpy(undo, t, (size_t)n * sizeof *gd);
        free(t);
        return;
    }
    memcpy(undo, gd, (size_t)n * sizeof *gd);
    if (kind == 0) {
        int k = (int)rng_below(r, (uint64_t)n);
        gd[k] = (gd[k] + 1 + (int)rng_below(r, (uint64_t)nd - 1)) % nd;
    } else if (kind == 2) {
        place_kick(gd, n, nd, r);
    }
}

/* Runs the steps from a random placement (skew: 49 groups in 50 on
 * device 0, the rest on device 1); *n_oom and *n_bound: how many placements carried a memory
 * penalty, and how many answers were bounds. */
static void check_graph(const char *path, int nd, int steps, uint64_t seed, int skew, int *n_oom, int *n_bound)
{
    Problem p;
    Err e = {{0}};
    ProblemSpec spec = {.graph_path = path, .n_devices = nd};
    REQUIRE_MSG(problem_load(&p, &spec, &e) == 0, "%s: %s", path, e.msg);
    int n = p.gr->n_groups;
    PlaceEval *pe = place_eval_new(p.g, p.gr, p.c);
    int *gd = XNEW(int, n), *undo = XNEW(int, n), *op = XMALLOC(int, p.g->n_nodes);
    Rng r;
    rng_seed(&r, seed);
    for (int k = 0; k < n; k++)
        gd[k] = skew ? rng_below(&r, 50) == 0 : (int)rng_below(&r, (uint64_t)nd);
    memcpy(undo, gd, (size_t)n * sizeof *gd);
    long heard = 0;
    int bad = 0, bounds = 0, ooms = 0;
    for (int step = 0; step < steps && !bad; step++) {
        move(&r, gd, undo, n, nd, step == 0 ? 3 : (int)rng_below(&r, 8) % 4 == 3 ? 3 : (int)rng_below(&r, 3));
        int oom;
        double want = fresh_score(&p, gd, op, &oom);
        ooms += oom;
        /* a cutoff below, at or above the score, just either side of it
         * (the margin of the bounds a run stops on), or none */
        const double cutoffs[] = {INFINITY, want * 0.99, want, want * 1.01, nextafter(want, 0), want * (1 + 1e-10)};
        double cutoff = cutoffs[rng_below(&r, sizeof cutoffs / sizeof cutoffs[0])];
        sim_observe(count_sims, &heard);
        double got = place_eval_cut(pe, gd, cutoff);
        sim_observe(NULL, NULL);
        if (got < cutoff) {
            CHECK_MSG(!(bad = got != want), "%s on %d devices, step %d: %.17g, a full simulation %.17g", path, nd,
                      step, got, want);
        } else {
            bounds++;
            CHECK_MSG(!(bad = !(got >= cutoff && got <= want)), "%s on %d devices, step %d: %.17g outside [%.17g, %.17g]",
                      path, nd, step, got, cutoff, want);
            CHECK_MSG(!(bad |= place_eval_score(pe) != want), "%s, step %d: place_eval_score %.17g, want %.17g", path,
                      step, place_eval_score(pe), want);
        }
        CHECK_MSG(!(bad |= heard != step + 1), "%s, step %d: the observer heard of %ld placements", path, step, heard);
        if (!bad && rng_below(&r, 5) == 0)
            CHECK_MSG(!(bad = place_eval(pe, gd) != want), "%s, step %d: the same placement again", path, step);
        heard = step + 1;
    }
    *n_oom = ooms;
    *n_bound = bounds;
    free(gd);
    free(undo);
    free(op);
    place_eval_free(pe);
    problem_free(&p);
}

TEST(place_eval_is_a_full_simulation_on_every_bundled_graph)
{
    for (size_t k = 0; k < sizeof BUNDLED / sizeof BUNDLED[0]; k++) {
        int big = strstr(BUNDLED[k], "nmt") || strstr(BUNDLED[k], "nasnet");
        int oom, bound;
        check_graph(BUNDLED[k], 2 + (int)(k % 3) * 2, big ? 40 : 120, 11 + k, 0, &oom, &bound);
    }
}

/* Out of memory on one device, so that the memory pass decides (the
 * makespan alone would be below the score). */
TEST(place_eval_cut_takes_memory_into_account_when_it_decides)
{
    int oom, bound;
    check_graph("graphs/nmt.json", 2, 80, 6, 1, &oom, &bound);
    CHECK_MSG(oom > 0 && bound > 0, "nmt on 2 devices: %d placements out of memory, %d bounds (both wanted)", oom,
              bound);
}
