/* The learned list scheduler (core/agents/lsched): the gradient of a
 * replayed decode against central differences of adv log p(devices) on
 * every weight (and the proof that the comparison can fail); the budget
 * accounting of a placement (exactly the budget spent, the heuristics'
 * placements included as far as the budget goes); never worse than the
 * best heuristic; the score it reports is the placement's; deterministic
 * per seed; a decode replayed gives the devices it was told. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lsched.h"
#include "place.h"
#include "problem.h"
#include "test.h"

typedef struct Fix {
    Problem p;
    Scorer *net;
    LscGraph *lg;
} Fix;

static int fix_new(Fix *f, const char *graph, int devices)
{
    Err e = {{0}};
    ProblemSpec s = {.graph_path = graph, .n_devices = devices};
    REQUIRE_OR(problem_load(&f->p, &s, &e) == 0, -1, "%s", e.msg);
    f->net = scorer_new(LSC_FEATURES, 6, &e);
    REQUIRE_OR(f->net != NULL, -1, "%s", e.msg);
    scorer_init(f->net, 3);
    f->lg = lsc_graph_new(f->p.g, f->p.gr, f->p.c, &e);
    REQUIRE_OR(f->lg != NULL, -1, "%s", e.msg);
    return 0;
}

static void fix_done(Fix *f)
{
    lsc_graph_free(f->lg);
    scorer_free(f->net);
    problem_free(&f->p);
}

TEST(lsched_gradient_matches_central_differences)
{
    Fix f;
    REQUIRE(fix_new(&f, "graphs/toy/crown.json", 3) == 0);
    int G = f.p.gr->n_groups, *force = malloc((size_t)G * sizeof *force), *gd = malloc((size_t)G * sizeof *gd);
    Rng rng;
    rng_seed(&rng, 8);
    lsc_decode(f.lg, f.net, &rng, NULL, 0, 0, force); /* a sampled decode, then replayed */
    double adv = -1.3;
    nn_params_zero_grad(&f.net->p);
    double lp = lsc_decode(f.lg, f.net, NULL, force, adv, 1.0, gd);
    CHECK(memcmp(gd, force, (size_t)G * sizeof *gd) == 0);
    CHECK(lp < 0 && isfinite(lp));
    int bad = 0, bad_scaled = 0, nonzero = 0;
    for (size_t i = 0; i < f.net->p.n; i++) {
        float w = f.net->p.w[i];
        f.net->p.w[i] = w + 1e-3f;
        double up = adv * lsc_decode(f.lg, f.net, NULL, force, 0, 0, gd);
        f.net->p.w[i] = w - 1e-3f;
        double down = adv * lsc_decode(f.lg, f.net, NULL, force, 0, 0, gd);
        f.net->p.w[i] = w;
        double num = -(up - down) / 2e-3, an = f.net->p.g[i], tol = 3e-3 * (fabs(num) > 1 ? fabs(num) : 1);
        bad += fabs(num - an) > tol;
        bad_scaled += fabs(num) > 0.1 && fabs(num - an * 1.05) <= tol;
        nonzero += fabs(num) > 0.1;
    }
    CHECK_MSG(bad == 0, "%d of %zu weights' gradients differ from central differences", bad, f.net->p.n);
    CHECK_MSG(bad_scaled == 0, "the check accepted a gradient 5 %% off on %d weights", bad_scaled);
    CHECK_MSG(nonzero > 10, "only %d weights with a gradient: the check says little", nonzero);
    free(force);
    free(gd);
    fix_done(&f);
}

/* The score place_score gives gd (a full simulation). */
static double score_of(const Problem *p, const int *gd)
{
    int *op = malloc((size_t)p->g->n_nodes * sizeof *op);
    group_expand(p->gr, gd, op);
    double s = place_score(p->c, sim_run(p->sim, op));
    free(op);
    return s;
}

TEST(lsched_spends_its_budget_and_is_never_worse_than_the_best_heuristic)
{
    Fix f;
    REQUIRE(fix_new(&f, "graphs/families/enas-ptb/enas_ptb_24.json", 3) == 0);
    int G = f.p.gr->n_groups, *a = malloc((size_t)G * sizeof *a), *b = malloc((size_t)G * sizeof *b);
    int *h = malloc((size_t)G * sizeof *h);
    PlaceCtx ctx = {.g = f.p.g, .gr = f.p.gr, .c = f.p.c, .seed = 9};
    double hs;
    const char *name;
    int64_t heur = place_best_heuristic(&ctx, h, &hs, &name);
    CHECK(heur > 2);
    Scorer *nets[2] = {f.net, NULL};
    for (int k = 0; k < 2; k++)
        for (int64_t budget = 1; budget <= 60; budget = budget * 2 + 3) {
            LscResult r1, r2;
            lsc_place(f.lg, nets[k], budget, 9, a, &r1);
            lsc_place(f.lg, nets[k], budget, 9, b, &r2);
            int64_t want = nets[k] || budget < heur ? budget : heur; /* no network: the heuristics only */
            CHECK_MSG(r1.used == want, "budget %lld: %lld placements simulated, expected %lld", (long long)budget,
                      (long long)r1.used, (long long)want);
            CHECK(r1.decodes == (budget > heur && nets[k] ? budget - heur : 0));
            CHECK(memcmp(a, b, (size_t)G * sizeof *a) == 0 && r1.best_score == r2.best_score);
            CHECK_EXACT(score_of(&f.p, a), r1.best_score);
            if (budget >= heur) {
                CHECK_MSG(r1.best_score <= hs, "budget %lld: %g worse than the best heuristic's %g",
                          (long long)budget, r1.best_score, hs);
                CHECK(strcmp(r1.start, name) == 0 && r1.start_score == hs);
            }
        }
    /* the default budget: 20 */
    LscResult r;
    lsc_place(f.lg, f.net, 0, 9, a, &r);
    CHECK(r.used == LSC_DEFAULT_BUDGET);
    /* the seed reaches the sampled decodes */
    Rng r1, r2;
    rng_seed(&r1, 1);
    rng_seed(&r2, 2);
    lsc_decode(f.lg, f.net, &r1, NULL, 0, 0, a);
    lsc_decode(f.lg, f.net, &r2, NULL, 0, 0, b);
    CHECK(memcmp(a, b, (size_t)G * sizeof *a) != 0);
    lsc_decode(f.lg, f.net, NULL, NULL, 0, 0, a);
    lsc_decode(f.lg, f.net, NULL, NULL, 0, 0, b);
    CHECK(memcmp(a, b, (size_t)G * sizeof *a) == 0);
    for (int k = 0; k < G; k++)
        CHECK(a[k] >= 0 && a[k] < 3);
    free(a);
    free(b);
    free(h);
    fix_done(&f);
}
