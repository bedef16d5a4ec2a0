/* bench_gdp: the GDP placer on op-level graphs of tens of thousands of ops
 * (bench_gdp.h): GDP's claim is placing graphs of over 50 000 nodes. A
 * generated DAG (tests/unit/gen.c, 2 edges per op on average) grouped with
 * one group per op, an untrained network with the default architecture
 * (h = 128, 4 heads, 2 GraphSAGE layers, one block, segments of 256 rows
 * with a memory of the previous segment) on 4 default devices: the time
 * of a sampled forward pass (one placement), of its backward pass, of the
 * placement's simulation, of one PPO update (train_update: K samples and
 * E epochs, smaller than training's defaults so that the benchmark stays
 * short), and the peak resident memory of the process. bench_gdp_input
 * writes a graph's network input for the PyTorch twin (bench/gdp_torch.py,
 * bench/gdp_speed.sh). */
#include "bench_gdp.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "cluster.h"
#include "gdp.h"
#include "gdp_io.h"
#include "gdp_train.h"
#include "gen.h"
#include "problem.h"
#include "sim.h"

void bench_gdp_scale(int n_ops)
{
    Err e = {{0}};
    Graph *g = gen_random_dag(n_ops, 2.0, 3);
    Grouping *gr = group_build(g, n_ops, &e);
    if (!gr) {
        printf("gdp         %d ops: %s\n", n_ops, e.msg);
        graph_free(g);
        return;
    }
    const Graph *gs[1] = {g};
    OpVocab v;
    vocab_build(&v, gs, 1);
    GdpArch a;
    gdp_arch_default(&a, 4, v.n);
    GdpNet *net = gdp_new(&a, &v, 1, &e);
    GdpInput *in = net ? gdp_input_new(g, gr, &v, &e) : NULL;
    if (!in) {
        printf("gdp         %d ops: %s\n", n_ops, e.msg);
    } else {
        int G = gr->n_groups;
        GdpWork *w = gdp_work_new(&a, G);
        int *place = xnew_array((size_t)G, sizeof *place), *op = xnew_array((size_t)g->n_nodes, sizeof *op);
        double *wt = xnew_array((size_t)G, sizeof *wt);
        Rng r;
        rng_seed(&r, 1);
        double t0 = util_now();
        gdp_forward(net, in, w, GDP_SAMPLE, &r, place, NULL, NULL);
        double t_fwd = util_now() - t0;
        for (int i = 0; i < G; i++)
            wt[i] = 1.0 / G;
        t0 = util_now();
        gdp_backward(net, in, w, wt, 0.01, net->p.g);
        double t_bwd = util_now() - t0;
        Cluster *c = cluster_default(4);
        Sim *sim = sim_new(g, c);
        group_expand(gr, place, op);
        t0 = util_now();
        sim_run(sim, op);
        double t_sim = util_now() - t0;
        /* one PPO update: K = 2 placements, E = 1 epoch */
        double t_upd = -1;
        if (n_ops <= 50000) {
            GdpTrainConfig cfg;
            gdp_train_config_default(&cfg);
            cfg.samples = 2;
            cfg.epochs = 1;
            cfg.greedy_every = 0;
            TrainState ts;
            train_state_init(&ts, cfg.lr, cfg.entropy, cfg.seed);
            TrainGraph tg = {g, gr, NULL};
            GdpTrainer *t = gdp_train_new(net, &ts, &cfg, &tg, 1, c, &e);
            if (t) {
                t0 = util_now();
                gdp_train_run(t, 1, NULL, NULL, NULL);
                t_upd = util_now() - t0;
            }
            gdp_train_free(t);
            train_state_done(&ts);
        }
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        char upd[64] = "";
        if (t_upd >= 0)
            snprintf(upd, sizeof upd, ", a PPO update of 2 placements and 1 epoch %.1f s", t_upd);
        printf("gdp         %d ops, %d groups (one per op), %zu weights: a placement (forward) %.2f s, its backward "
               "%.2f s, its simulation %.3f s%s; peak memory %.0f MB\n",
               g->n_nodes, G, net->p.n, t_fwd, t_bwd, t_sim, upd, (double)ru.ru_maxrss / 1024.0);
        sim_free(sim);
        cluster_free(c);
        free(wt);
        free(op);
        free(place);
        gdp_work_free(w);
    }
    gdp_input_free(in);
    gdp_free(net);
    vocab_done(&v);
    group_free(gr);
    graph_free(g);
}

int bench_gdp_input(const char *graph_path, int n_devices, const char *out_path, const char *policy_path)
{
    Problem pb;
    ProblemSpec s = {0};
    s.graph_path = graph_path;
    s.n_devices = n_devices;
    s.no_sim = 1;
    Err e = {{0}};
    if (problem_load(&pb, &s, &e) != 0) {
        fprintf(stderr, "placeto-bench: %s\n", e.msg);
        problem_free(&pb);
        return 1;
    }
    OpVocab v;
    GdpNet *net = NULL;
    if (policy_path) {
        TrainState ts;
        net = gdp_policy_load(policy_path, &ts, &e);
        train_state_done(&ts);
        if (!net) {
            fprintf(stderr, "placeto-bench: %s\n", e.msg);
            problem_free(&pb);
            return 1;
        }
        vocab_copy(&v, &net->vocab);
    } else {
        vocab_build_problems(&v, &pb, 1); /* as `train --agent gdp` builds a new policy's */
    }
    GdpInput *in = gdp_input_new(pb.g, pb.gr, &v, &e);
    FILE *f = in ? fopen(out_path, "w") : NULL;
    if (!f) {
        fprintf(stderr, "placeto-bench: %s\n", in ? out_path : e.msg);
    } else {
        fprintf(f, "{\"graph\": \"%s\", \"G\": %d, \"F\": %d, \"n_devices\": %d,\n\"x\": [", pb.g->name, in->G,
                in->F, pb.c->n_devices);
        for (int r = 0; r < in->G; r++) {
            fputs(r ? ",\n[" : "[", f);
            for (int c = 0; c < in->F; c++)
                fprintf(f, c ? ", %.17g" : "%.17g", in->xd[(size_t)r * (size_t)in->F + (size_t)c]);
            fputc(']', f);
        }
        fputs("],\n\"nb_off\": [", f);
        for (int r = 0; r <= in->G; r++)
            fprintf(f, r ? ", %d" : "%d", in->nb_off[r]);
        fputs("],\n\"nb\": [", f);
        for (int q = 0; q < in->nb_off[in->G]; q++)
            fprintf(f, q ? ", %d" : "%d", in->nb[q]);
        fputc(']', f);
        if (net) { /* the policy's probabilities: the check of the PyTorch twin */
            GdpWork *w = gdp_work_new(&net->arch, in->G);
            gdp_forward(net, in, w, GDP_PROBS, NULL, NULL, NULL, NULL);
            fputs(",\n\"probs\": [", f);
            for (int r = 0; r < in->G; r++) {
                const float *pr = gdp_work_probs(w, r);
                fputs(r ? ",\n[" : "[", f);
                for (int c = 0; c < net->arch.n_devices; c++)
                    fprintf(f, c ? ", %.9g" : "%.9g", (double)pr[c]);
                fputc(']', f);
            }
            fputc(']', f);
            gdp_work_free(w);
        }
        fputs("}\n", f);
        fclose(f);
    }
    int rc = f ? 0 : 1;
    gdp_input_free(in);
    gdp_free(net);
    vocab_done(&v);
    problem_free(&pb);
    return rc;
}
