/* bench_lsched: the one-shot policy's costs (bench_lsched.h).
 *
 * On inception_v3 (2 and 4 devices) and nmt (4) in their default
 * groupings, with an untrained scorer of the default width (the cost does
 * not depend on the weights): a greedy decode and a sampled one against a
 * simulation of the decoded placement (the median of five batches of 20),
 * and a zero-shot placement at the default budget of 20 placements (the
 * heuristics' nine included): its wall time, and the share of it the
 * decodes take. */
#include "bench_lsched.h"

#include <stdio.h>
#include <stdlib.h>

#include "lsched.h"
#include "problem.h"
#include "util.h"

static double median5(double *v)
{
    for (int i = 1; i < 5; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return v[2];
}

static void one(const char *path, int n_devices)
{
    Err e = {{0}};
    Problem pb;
    ProblemSpec spec = {.graph_path = path, .n_devices = n_devices};
    Scorer *net = NULL;
    LscGraph *lg = NULL;
    if (problem_load(&pb, &spec, &e) != 0 || !(net = scorer_new(LSC_FEATURES, 16, &e)) ||
        !(lg = lsc_graph_new(pb.g, pb.gr, pb.c, &e))) {
        printf("lsched      %s: %s\n", path, e.msg);
        goto done;
    }
    scorer_init(net, 1);
    int G = pb.gr->n_groups, *gd = xnew_array((size_t)G, sizeof *gd);
    Rng rng;
    rng_seed(&rng, 1);
    double greedy[5], sampled[5], sim[5];
    for (int b = 0; b < 5; b++) {
        double t0 = util_now();
        for (int k = 0; k < 20; k++)
            lsc_decode(lg, net, NULL, NULL, 0, 0, gd);
        greedy[b] = (util_now() - t0) / 20;
        t0 = util_now();
        for (int k = 0; k < 20; k++)
            lsc_decode(lg, net, &rng, NULL, 0, 0, gd);
        sampled[b] = (util_now() - t0) / 20;
        t0 = util_now();
        for (int k = 0; k < 20; k++)
            lsc_eval(lg, gd);
        sim[b] = (util_now() - t0) / 20;
    }
    double g = median5(greedy), s = median5(sampled), m = median5(sim);
    LscResult res;
    double t0 = util_now();
    lsc_place(lg, net, 0, 1, gd, &res);
    double place = util_now() - t0;
    printf("lsched      %-14s %d devices  %3d groups  decode %6.1f us (greedy), %6.1f us (sampled) = %4.2fx a "
           "simulation (%6.1f us)  placing: %lld placements in %5.1f ms, %2.0f%% of it decoding\n",
           pb.g->name, n_devices, G, g * 1e6, s * 1e6, s / m, m * 1e6, (long long)res.used, place * 1e3,
           100 * (double)res.decodes * s / place);
    free(gd);
done:
    lsc_graph_free(lg);
    scorer_free(net);
    problem_free(&pb);
}

void bench_lsched(void)
{
    one("graphs/inception_v3.json", 2);
    one("graphs/inception_v3.json", 4);
    one("graphs/nmt.json", 4);
}
