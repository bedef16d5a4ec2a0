/* bench_hsdag: the HSDAG placer's costs (bench_hsdag.h).
 *
 * 1. graphs/inference/inception_v3.json in its default grouping on
 *    graphs/clusters/cpu_gpu1.json, an untrained network with the default
 *    architecture (h = 128, the faithful features): a forward pass (a
 *    sampled placement) and its backward pass, the mean of 50 each, with
 *    BLAS and with the plain loops (the ratio), and a placement's
 *    simulation; then one training update (an episode of 20 steps: 20
 *    forwards and simulations, 20 backward passes) and the share of it the
 *    simulator takes.
 * 2. Generated DAGs (tests/unit/gen.c, 2 edges per op on average) with one
 *    group per op, 2 000 and 20 000 groups, on 2 default devices: the input
 *    (features, including the BFS-based structural ones), a forward pass, a
 *    backward pass, and the peak resident memory. */
#include "bench_hsdag.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "cluster.h"
#include "gen.h"
#include "hsdag.h"
#include "hsdag_train.h"
#include "sim.h"

/* Mean seconds of a forward and of a backward pass over reps of each. */
static void time_passes(HsdagNet *net, const HsdagInput *in, HsdagWork *w, int *place, int reps, double *fwd,
                        double *bwd)
{
    Rng r;
    rng_seed(&r, 1);
    double t0 = util_now();
    for (int k = 0; k < reps; k++)
        hsdag_forward(net, in, in->xf, w, HSDAG_SAMPLE, &r, place, NULL);
    *fwd = (util_now() - t0) / reps;
    t0 = util_now();
    for (int k = 0; k < reps; k++)
        hsdag_backward(net, in, in->xf, w, 1.0, net->p.g);
    *bwd = (util_now() - t0) / reps;
}

static HsdagNet *new_net(const Graph *g, int n_devices, OpVocab *v, Err *e)
{
    const Graph *gs[1] = {g};
    vocab_build(v, gs, 1);
    HsdagArch a;
    hsdag_arch_default(&a, n_devices, v->n);
    return hsdag_new(&a, v, 1, e);
}

static void bench_inference(void)
{
    Err e = {{0}};
    Graph *g = graph_load("graphs/inference/inception_v3.json", &e);
    Cluster *c = g ? cluster_load("graphs/clusters/cpu_gpu1.json", &e) : NULL;
    Grouping *gr = c ? group_build(g, 0, &e) : NULL;
    OpVocab v = {0, NULL};
    HsdagNet *net = gr ? new_net(g, c->n_devices, &v, &e) : NULL;
    HsdagInput *in = net ? hsdag_input_new(net, g, gr, c, &e) : NULL;
    if (!in) {
        printf("hsdag       inception_v3 inference: %s\n", e.msg);
    } else {
        HsdagWork *w = hsdag_work_new(&net->arch, in);
        int *place = xnew_array((size_t)in->G, sizeof *place);
        double fb, bb, fp, bp;
        net->blas = 1;
        time_passes(net, in, w, place, 50, &fb, &bb);
        net->blas = 0;
        time_passes(net, in, w, place, 50, &fp, &bp);
        net->blas = 1;
        /* 50 different placements (sampled), so that no simulation repeats the previous one */
        Sim *sim = sim_new(g, c);
        int *ops = xnew_array((size_t)50 * (size_t)g->n_nodes, sizeof *ops);
        Rng r;
        rng_seed(&r, 2);
        for (int k = 0; k < 50; k++) {
            for (int q = 0; q < in->G; q++)
                place[q] = (int)rng_below(&r, (uint64_t)c->n_devices);
            group_expand(gr, place, ops + (size_t)k * (size_t)g->n_nodes);
        }
        double t0 = util_now();
        for (int k = 0; k < 50; k++)
            sim_run(sim, ops + (size_t)k * (size_t)g->n_nodes);
        double ts = (util_now() - t0) / 50;
        free(ops);
        printf("hsdag       inception_v3 inference, %d groups, %zu weights: forward %.2f ms, backward %.2f ms "
               "(plain loops %.2f / %.2f ms: BLAS %.1fx / %.1fx faster); a simulation %.3f ms\n",
               in->G, net->p.n, fb * 1e3, bb * 1e3, fp * 1e3, bp * 1e3, fp / fb, bp / bb, ts * 1e3);
        /* one training update: an episode of 20 steps */
        HsdagTrainConfig cfg;
        hsdag_train_config_default(&cfg);
        cfg.greedy_every = 0;
        TrainState st;
        train_state_init(&st, cfg.lr, 0, cfg.seed);
        TrainGraph tg = {g, gr, NULL};
        HsdagTrainer *t = hsdag_train_new(net, &st, &cfg, &tg, 1, c, &e);
        if (t) {
            hsdag_train_run(t, 1, NULL, NULL, NULL); /* warm: the simulator and work spaces */
            t0 = util_now();
            hsdag_train_run(t, 5, NULL, NULL, NULL);
            double tu = (util_now() - t0) / 5;
            printf("hsdag       a training update (20 placements): %.1f ms, %.0f %% of it simulating, %.0f "
                   "placements/s\n", tu * 1e3, 100 * 20 * ts / tu, 20 / tu);
        }
        hsdag_train_free(t);
        train_state_done(&st);
        sim_free(sim);
        free(place);
        hsdag_work_free(w);
    }
    hsdag_input_free(in);
    hsdag_free(net);
    vocab_done(&v);
    group_free(gr);
    cluster_free(c);
    graph_free(g);
}

static void bench_scale(int n_ops)
{
    Err e = {{0}};
    Graph *g = gen_random_dag(n_ops, 2.0, 3);
    Grouping *gr = group_build(g, n_ops, &e);
    OpVocab v = {0, NULL};
    HsdagNet *net = gr ? new_net(g, 2, &v, &e) : NULL;
    double t0 = util_now();
    HsdagInput *in = net ? hsdag_input_new(net, g, gr, NULL, &e) : NULL;
    double t_in = util_now() - t0;
    if (!in) {
        printf("hsdag       %d ops: %s\n", n_ops, e.msg);
    } else {
        HsdagWork *w = hsdag_work_new(&net->arch, in);
        int *place = xnew_array((size_t)in->G, sizeof *place), nc = 0;
        double f, b;
        time_passes(net, in, w, place, 3, &f, &b);
        hsdag_work_clusters(w, &nc);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        printf("hsdag       %d groups (one per op), %d edges: input %.2f s (structural features: a BFS per "
               "group), forward %.1f ms (%d clusters), backward %.1f ms; peak memory %.0f MB\n",
               in->G, in->n_edges, t_in, f * 1e3, nc, b * 1e3, (double)ru.ru_maxrss / 1024.0);
        free(place);
        hsdag_work_free(w);
    }
    hsdag_input_free(in);
    hsdag_free(net);
    vocab_done(&v);
    group_free(gr);
    graph_free(g);
}

void bench_hsdag(void)
{
    bench_inference();
    bench_scale(2000);
    bench_scale(20000);
}
