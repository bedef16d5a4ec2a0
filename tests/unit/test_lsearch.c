/* The learned local search (core/agents/lsearch): its REINFORCE gradient
 * against central differences of adv log p(chosen) on every weight (and
 * the proof that the comparison can fail); the budget accounting (exactly
 * the budget spent, the start's heuristics included (as far as the budget
 * goes, as ils), or a caller's start
 * counted as given); never worse than the start; deterministic per seed,
 * with and without learning; the uniform search (no network) and a
 * learning search that changes the weights and stays deterministic. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lsearch.h"
#include "place.h"
#include "problem.h"
#include "test.h"

/* J = adv log softmax(scores over the moves with mask[j])[chosen] */
static double objective(const LsNet *net, const float *phi, const uint8_t *mask, int M, int chosen, double adv)
{
    float hid[SCORER_HIDDEN_MAX];
    double hi = -INFINITY, s[16];
    for (int j = 0; j < M; j++) {
        s[j] = scorer_score(net, &phi[j * LS_FEATURES], hid);
        if (mask[j] && s[j] > hi)
            hi = s[j];
    }
    double sum = 0;
    for (int j = 0; j < M; j++)
        sum += mask[j] ? exp(s[j] - hi) : 0;
    return adv * (s[chosen] - hi - log(sum));
}

TEST(lsearch_gradient_matches_central_differences)
{
    Err e = {{0}};
    LsNet *net = scorer_new(LS_FEATURES, 5, &e);
    REQUIRE_MSG(net != NULL, "%s", e.msg);
    scorer_init(net, 11);
    enum { M = 7 };
    float phi[M * LS_FEATURES], hid[M * 5];
    uint8_t mask[M] = {1, 1, 0, 1, 1, 0, 1};
    Rng rng;
    rng_seed(&rng, 5);
    for (int i = 0; i < M * LS_FEATURES; i++)
        phi[i] = (float)(2 * rng_uniform(&rng) - 1);
    double score[M], hi = -INFINITY, sum = 0, p[M];
    for (int j = 0; j < M; j++) {
        score[j] = scorer_score(net, &phi[j * LS_FEATURES], &hid[j * 5]);
        hi = mask[j] && score[j] > hi ? score[j] : hi;
    }
    for (int j = 0; j < M; j++)
        sum += p[j] = mask[j] ? exp(score[j] - hi) : 0;
    for (int j = 0; j < M; j++)
        p[j] /= sum;
    int chosen = 3;
    double adv = 1.7;
    nn_params_zero_grad(&net->p);
    scorer_policy_grad(net, phi, hid, p, M, chosen, adv, 1.0);
    /* the gradient is of the loss -J; the weights are floats: differences of 1e-3 */
    int bad = 0, bad_scaled = 0;
    for (size_t i = 0; i < net->p.n; i++) {
        float w = net->p.w[i];
        net->p.w[i] = w + 1e-3f;
        double up = objective(net, phi, mask, M, chosen, adv);
        net->p.w[i] = w - 1e-3f;
        double down = objective(net, phi, mask, M, chosen, adv);
        net->p.w[i] = w;
        double num = -(up - down) / (2e-3), an = net->p.g[i], tol = 2e-3 * (fabs(num) > 1 ? fabs(num) : 1);
        bad += fabs(num - an) > tol;
        /* the same check must reject a wrong gradient */
        bad_scaled += fabs(num) > 0.05 && fabs(num - an * 1.05) <= tol;
    }
    CHECK_MSG(bad == 0, "%d of %zu weights' gradients differ from central differences", bad, net->p.n);
    CHECK_MSG(bad_scaled == 0, "the check accepted a gradient 5 %% off on %d weights", bad_scaled);
    scorer_free(net);
}

typedef struct Fix {
    Problem p;
    LsNet *net;
} Fix;

static int fix_new(Fix *f, const char *graph, int devices)
{
    Err e = {{0}};
    ProblemSpec s = {.graph_path = graph, .n_devices = devices};
    REQUIRE_OR(problem_load(&f->p, &s, &e) == 0, -1, "%s", e.msg);
    f->net = scorer_new(LS_FEATURES, 8, &e);
    REQUIRE_OR(f->net != NULL, -1, "%s", e.msg);
    scorer_init(f->net, 3);
    return 0;
}

static void fix_done(Fix *f)
{
    scorer_free(f->net);
    problem_free(&f->p);
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

TEST(lsearch_spends_its_budget_and_is_never_worse_than_its_start)
{
    Err e = {{0}};
    Fix f;
    REQUIRE(fix_new(&f, "graphs/families/enas-ptb/enas_ptb_24.json", 3) == 0);
    int G = f.p.gr->n_groups, *a = malloc((size_t)G * sizeof *a), *b = malloc((size_t)G * sizeof *b);
    int *h = malloc((size_t)G * sizeof *h);
    PlaceCtx ctx = {.g = f.p.g, .gr = f.p.gr, .c = f.p.c, .seed = 9}; /* the seed of the searches below */
    double hs;
    const char *name;
    int64_t heur = place_best_heuristic(&ctx, h, &hs, &name);
    LsNet *nets[2] = {f.net, NULL};
    for (int k = 0; k < 2; k++)
        for (int64_t budget = 1; budget <= 400; budget = budget * 5 + 3) {
            LsResult r1, r2;
            ls_search(nets[k], f.p.g, f.p.gr, f.p.c, budget, 9, NULL, 0, 0, a, &r1, NULL, &e);
            ls_search(nets[k], f.p.g, f.p.gr, f.p.c, budget, 9, NULL, 0, 0, b, &r2, NULL, &e);
            CHECK_MSG(r1.used == budget, "budget %lld: %lld placements simulated", (long long)budget,
                      (long long)r1.used);
            CHECK(memcmp(a, b, (size_t)G * sizeof *a) == 0 && r1.best_score == r2.best_score);
            CHECK_EXACT(score_of(&f.p, a), r1.best_score);
            if (budget >= heur) { /* every heuristic ran */
                CHECK_MSG(r1.best_score <= hs, "budget %lld: %g worse than the best heuristic's %g",
                          (long long)budget, r1.best_score, hs);
                CHECK(strcmp(r1.start, name) == 0 && r1.start_score == hs);
            }
        }
    /* a caller's start: its placements counted as given */
    LsResult r;
    ls_search(f.net, f.p.g, f.p.gr, f.p.c, 250, 4, h, hs, 17, a, &r, NULL, &e);
    CHECK(r.used == 250 && strcmp(r.start, "given") == 0 && r.best_score <= hs);
    ls_search(f.net, f.p.g, f.p.gr, f.p.c, 10, 4, h, hs, 17, a, &r, NULL, &e);
    CHECK_MSG(r.used == 17 && memcmp(a, h, (size_t)G * sizeof *a) == 0, "a spent budget searches nothing");
    free(a);
    free(b);
    free(h);
    fix_done(&f);
}

TEST(lsearch_improves_on_its_start_and_the_network_matters)
{
    Err e = {{0}};
    Fix f;
    REQUIRE(fix_new(&f, "graphs/families/enas-cifar10/enas_cifar10_24.json", 2) == 0);
    int G = f.p.gr->n_groups, *a = malloc((size_t)G * sizeof *a), *b = malloc((size_t)G * sizeof *b);
    LsResult ru, rn;
    ls_search(NULL, f.p.g, f.p.gr, f.p.c, 300, 2, NULL, 0, 0, a, &ru, NULL, &e);
    ls_search(f.net, f.p.g, f.p.gr, f.p.c, 300, 2, NULL, 0, 0, b, &rn, NULL, &e);
    CHECK_MSG(ru.best_score < ru.start_score && rn.best_score < rn.start_score && ru.accepted > 0 && rn.accepted > 0,
              "no improvement in 300 placements");
    CHECK_MSG(memcmp(a, b, (size_t)G * sizeof *a) != 0, "the scorer's order made no difference");
    free(a);
    free(b);
    fix_done(&f);
}

TEST(lsearch_learning_changes_the_weights_deterministically)
{
    Fix f;
    REQUIRE(fix_new(&f, "graphs/families/enas-cifar10/enas_cifar10_00.json", 2) == 0);
    Err e = {{0}};
    LsNet *twin = scorer_new(LS_FEATURES, 8, &e);
    REQUIRE(twin != NULL);
    scorer_init(twin, 3);
    REQUIRE(memcmp(twin->p.w, f.net->p.w, f.net->p.n * sizeof *twin->p.w) == 0);
    float *before = malloc(f.net->p.n * sizeof *before);
    memcpy(before, f.net->p.w, f.net->p.n * sizeof *before);
    int G = f.p.gr->n_groups, *gd = malloc((size_t)G * sizeof *gd);
    LsNet *nets[2] = {f.net, twin};
    LsResult r[2];
    int64_t updates[2];
    for (int k = 0; k < 2; k++) {
        NnAdam adam;
        nn_adam_init(&adam, 0.01);
        LsLearn l = {&adam, 1, 16, 0, 1, 0, 0, 0};
        nn_params_zero_grad(&nets[k]->p);
        ls_search(nets[k], f.p.g, f.p.gr, f.p.c, 300, 5, NULL, 0, 0, gd, &r[k], &l, &e);
        updates[k] = l.updates;
    }
    CHECK_MSG(updates[0] >= 300 / 16 - 2 && updates[0] == updates[1], "%lld Adam steps", (long long)updates[0]);
    CHECK_MSG(memcmp(before, f.net->p.w, f.net->p.n * sizeof *before) != 0, "learning left the weights as they were");
    CHECK_MSG(memcmp(twin->p.w, f.net->p.w, f.net->p.n * sizeof *twin->p.w) == 0, "two learning runs differ");
    CHECK_EXACT(r[0].best_score, r[1].best_score);
    free(before);
    free(gd);
    scorer_free(twin);
    fix_done(&f);
}

/* scorer_tanh gives the float (float)tanh gives, bit for bit, near 0 (its
 * series), across the range of exp, where tanh is +-1, and on the special
 * values; half a million values drawn in each range. */
TEST(scorer_tanh_is_tanh_rounded_to_float)
{
    Rng rng;
    rng_seed(&rng, 11);
    const double special[] = {0.0, -0.0, 0x1p-8, -0x1p-8, nextafter(0x1p-8, 0), 19.0, -19.0, nextafter(19.0, 0),
                              0x1p-1074, -0x1p-1030, 1e-30, 0.5, -0.5, 1.0, 30.0, -700.0, INFINITY, -INFINITY};
    int bad = 0, n = 0;
    for (size_t k = 0; k < sizeof special / sizeof special[0]; k++, n++) {
        float a = (float)tanh(special[k]), b = scorer_tanh(special[k]);
        if (memcmp(&a, &b, sizeof a) != 0 && bad++ < 5)
            CHECK_MSG(0, "scorer_tanh(%a) = %a, (float)tanh = %a", special[k], (double)b, (double)a);
    }
    float a = (float)tanh(NAN), b = scorer_tanh(NAN);
    CHECK(isnan(a) && isnan(b));
    for (int range = 0; range < 4; range++)
        for (int i = 0; i < 500000; i++, n++) {
            double u = rng_uniform(&rng) - 0.5, x = range == 0 ? u * 0.04 /* the series and just past it */
                                                 : range == 1 ? u * 10
                                                 : range == 2 ? u * 60 /* +-1 */
                                                              : ldexp(u, (int)(rng_next(&rng) % 64) - 56);
            a = (float)tanh(x);
            b = scorer_tanh(x);
            if (memcmp(&a, &b, sizeof a) != 0 && bad++ < 5)
                CHECK_MSG(0, "scorer_tanh(%a) = %a, (float)tanh = %a", x, (double)b, (double)a);
        }
    CHECK_MSG(bad == 0, "%d of %d differ", bad, n);
}

/* scorer_score, which sums several hidden units at once, gives the scores
 * and activations of one unit at a time, each summing its features in
 * order, to the last bit: for unit counts below, at and past its blocks.
 * Half the draws have two large features that cancel, so that a sum taken
 * in another order rounds to another activation. */
TEST(scorer_score_is_the_sum_of_one_unit_at_a_time)
{
    const int hidden[] = {1, 7, 8, 9, 16, 17, 64};
    Rng rng;
    rng_seed(&rng, 12);
    for (size_t k = 0; k < sizeof hidden / sizeof hidden[0]; k++) {
        int H = hidden[k], F = LS_FEATURES;
        Err e = {{0}};
        Scorer *s = scorer_new(F, H, &e);
        CHECK(s != NULL);
        if (!s)
            return;
        scorer_init(s, 100 + k);
        float *w1 = s->p.w;
        const float *b1 = w1 + F * H, *w2 = b1 + H;
        for (int h = 0; h < H; h++) /* features 0 and 1 weighed alike: below, they cancel */
            w1[H + h] = w1[h];
        float phi[LS_FEATURES], hid[SCORER_HIDDEN_MAX];
        for (int t = 0; t < 200; t++) {
            for (int f = 0; f < F; f++)
                phi[f] = (float)((rng_uniform(&rng) - 0.5) * (f % 3 ? 4 : 40));
            if (t % 2) { /* two large features that cancel: the sum's rounding shows its order */
                phi[0] = (float)ldexp(1 + rng_uniform(&rng), 20 + t % 12);
                phi[1] = -phi[0];
            }
            double want = 0;
            int same = 1;
            double got = scorer_score(s, phi, hid);
            for (int h = 0; h < H; h++) {
                double x = b1[h];
                for (int f = 0; f < F; f++)
                    x += (double)phi[f] * w1[f * H + h];
                float y = (float)tanh(x);
                same &= memcmp(&y, &hid[h], sizeof y) == 0;
                want += (double)y * w2[h];
            }
            CHECK_MSG(same && memcmp(&got, &want, sizeof got) == 0, "hidden %d, draw %d: %.17g against %.17g", H, t,
                      got, want);
            if (!same || got != want)
                break;
        }
        scorer_free(s);
    }
}

/* The draw without learning (one pass and part of another, the largest
 * untried score kept between draws) takes the moves the draw with
 * learning takes (its probabilities written out for the gradient, the
 * largest score found again each time): with no update within the
 * budget, the two searches are the same search. A sharp scorer (scores
 * hundreds apart, where a stale largest score would leave every
 * exponential at 0) as well as a gentle one. */
TEST(lsearch_draws_as_when_it_learns)
{
    const char *graphs[] = {"graphs/families/enas-cifar10/enas_cifar10_00.json", "graphs/googlenet.json"};
    for (int k = 0; k < 4; k++) {
        Fix f;
        REQUIRE(fix_new(&f, graphs[k / 2], 2 + k / 2) == 0);
        if (k % 2) { /* sharp: the output weights scaled up */
            int H = f.net->hidden, F = f.net->features;
            float *w2 = f.net->p.w + F * H + H;
            for (int h = 0; h < H; h++)
                w2[h] *= 2000;
        }
        Err e = {{0}};
        int G = f.p.gr->n_groups, *gd[2] = {malloc((size_t)G * sizeof(int)), malloc((size_t)G * sizeof(int))};
        LsResult r[2];
        NnAdam adam;
        nn_adam_init(&adam, 0.01);
        LsLearn l = {&adam, 1, 1 << 30, 0, 1, 0, 0, 0}; /* no update within the budget */
        nn_params_zero_grad(&f.net->p);
        CHECK(ls_search(f.net, f.p.g, f.p.gr, f.p.c, 1500, 9, NULL, 0, 0, gd[0], &r[0], NULL, &e) == 0);
        CHECK(ls_search(f.net, f.p.g, f.p.gr, f.p.c, 1500, 9, NULL, 0, 0, gd[1], &r[1], &l, &e) == 0);
        CHECK_INT(l.updates, 0);
        CHECK_MSG(memcmp(gd[0], gd[1], (size_t)G * sizeof(int)) == 0 && r[0].accepted == r[1].accepted &&
                      r[0].kicks == r[1].kicks && r[0].found_after == r[1].found_after,
                  "%s, %s scorer: the searches part (%lld/%lld kept, %lld/%lld kicks)", graphs[k / 2],
                  k % 2 ? "sharp" : "gentle", (long long)r[0].accepted, (long long)r[1].accepted,
                  (long long)r[0].kicks, (long long)r[1].kicks);
        CHECK_EXACT(r[0].best_score, r[1].best_score);
        free(gd[0]);
        free(gd[1]);
        fix_done(&f);
    }
}
