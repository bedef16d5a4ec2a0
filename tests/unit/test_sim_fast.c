/* The optimised simulator against its oracle (sim_naive.c, the plain
 * statement of docs/simulator.md): the same result to the last bit on random
 * graphs, placements and clusters, on graphs made of ties (zero costs,
 * integer times, zero-byte transfers, no gap or overhead) and on every
 * bundled graph; sim_makespan gives the same number. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "graph.h"
#include "group.h"
#include "sim.h"
#include "sim_cases.h"
#include "sim_naive.h"
#include "test.h"

TEST(sim_fast_matches_the_plain_simulator_on_random_cases)
{
    Rng r;
    rng_seed(&r, 18);
    int runs = 0, ok = 1;
    for (int k = 0; k < 240 && ok; k++) {
        Cluster *c;
        Graph *g = simcase_graph(k, &r, &c);
        int n = g->n_nodes, nd = c->n_devices;
        Sim *s = sim_new(g, c);
        NaiveSim *ns = naive_sim_new(g, c);
        int *dev = XMALLOC(int, n);
        for (int p = 0; p < 4 && ok; p++, runs++) {
            simcase_placement(&r, g, nd, p, dev);
            char what[160];
            snprintf(what, sizeof what, "case %d (%s, %d devices, cluster %d), placement kind %d", k, g->name, nd,
                     k % 4, p);
            ok = simcase_check(s, ns, dev, what);
        }
        free(dev);
        naive_sim_free(ns);
        sim_free(s);
        cluster_free(c);
        graph_free(g);
    }
    CHECK(runs >= 900);
}

/* Every bundled graph on 1-8 devices, with a placement by group (round
 * robin, and random) and a random one by op. */
TEST(sim_fast_matches_the_plain_simulator_on_bundled_graphs)
{
    DIR *dir = opendir("graphs");
    REQUIRE(dir != NULL);
    struct dirent *ent;
    int graphs = 0;
    Rng r;
    rng_seed(&r, 77);
    while ((ent = readdir(dir))) {
        size_t len = strlen(ent->d_name);
        if (len < 6 || strcmp(ent->d_name + len - 5, ".json") != 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "graphs/%s", ent->d_name);
        Err e = {{0}};
        Graph *g = graph_load(path, &e);
        Grouping *gr = g ? group_build(g, 0, &e) : NULL;
        CHECK_MSG(gr != NULL, "%s: %s", path, e.msg);
        if (!gr) {
            graph_free(g);
            continue;
        }
        graphs++;
        int n = g->n_nodes, *dev = XMALLOC(int, n), *gd = XMALLOC(int, gr->n_groups);
        for (int nd = 1; nd <= 8; nd++) {
            Cluster *c = cluster_default(nd);
            Sim *s = sim_new(g, c);
            NaiveSim *ns = naive_sim_new(g, c);
            for (int p = 0; p < 3; p++) {
                for (int k = 0; k < gr->n_groups; k++)
                    gd[k] = p == 0 ? k % nd : (int)rng_below(&r, (uint64_t)nd);
                group_expand(gr, gd, dev);
                if (p == 2)
                    simcase_placement(&r, g, nd, 0, dev);
                char what[600];
                snprintf(what, sizeof what, "%s on %d devices, placement %d", path, nd, p);
                simcase_check(s, ns, dev, what);
            }
            naive_sim_free(ns);
            sim_free(s);
            cluster_free(c);
        }
        free(dev);
        free(gd);
        group_free(gr);
        graph_free(g);
    }
    closedir(dir);
    CHECK(graphs >= 8);
}

/* A run with a cutoff on s and dev: below the cutoff the makespan to the
 * last bit, else a number in [cutoff, makespan]; either way the next
 * sim_result_memory gives sim_run's whole result (full), transfers and
 * their destinations included. 1 when it holds. */
static int cut_holds(Sim *s, const int *dev, const SimResult *full, double cutoff, int lazy, const char *what)
{
    double want = full->makespan_us;
    double got = lazy ? sim_run_lazy_cut(s, dev, cutoff) : sim_makespan_cut(s, dev, cutoff);
    int ok = got < cutoff ? got == want : got >= cutoff && got <= want;
    CHECK_MSG(ok, "%s, cutoff %.17g (%s): %.17g, the makespan %.17g", what, cutoff, lazy ? "lazy" : "makespan", got,
              want);
    char why[256] = "";
    ok = ok && !sim_result_diff(sim_result_memory(s), full, why, sizeof why);
    CHECK_MSG(ok, "%s, cutoff %.17g: the result after it is not sim_run's: %s", what, cutoff, why);
    return ok;
}

/* sim_makespan_cut and sim_run_lazy_cut on the random cases (uneven speeds,
 * zero costs, ties, no gap) with cutoffs at, around and far from the
 * makespan: the bounds they stop on never pass the makespan. */
TEST(sim_cut_runs_stop_only_above_the_makespan)
{
    Rng r;
    rng_seed(&r, 29);
    int runs = 0, stopped = 0, ok = 1;
    for (int k = 0; k < 160 && ok; k++) {
        Cluster *c;
        Graph *g = simcase_graph(k, &r, &c);
        int n = g->n_nodes, nd = c->n_devices;
        Sim *s = sim_new(g, c), *s_full = sim_new(g, c);
        int *dev = XMALLOC(int, n);
        for (int p = 0; p < 4 && ok; p++) {
            simcase_placement(&r, g, nd, p, dev);
            const SimResult *full = sim_run(s_full, dev);
            double want = full->makespan_us;
            const double cuts[] = {want, nextafter(want, INFINITY), nextafter(want, 0), want * (1 - 1e-12),
                                   want * (1 + 1e-12), want * 0.999, want * 0.5, want * 1.01, 0, INFINITY};
            for (size_t j = 0; j < sizeof cuts / sizeof cuts[0] && ok; j++, runs++) {
                char what[160];
                snprintf(what, sizeof what, "case %d (%s, %d devices, cluster %d), placement kind %d", k, g->name,
                         nd, k % 4, p);
                ok = cut_holds(s, dev, full, cuts[j], (int)(j & 1), what);
                stopped += cuts[j] < want;
            }
        }
        free(dev);
        sim_free(s);
        sim_free(s_full);
        cluster_free(c);
        graph_free(g);
    }
    CHECK(runs >= 6000 && stopped > 0);
}

/* The work of each device given by the caller (sim_give_device_work),
 * summed in another order than the run's: the cut runs hold as with their
 * own sum. An overstated one (a test only: it breaks the bound) is read by
 * the next run alone, cut, whole or incremental: it stops a run that
 * should not stop, and the run after it is exact again. */
TEST(sim_given_device_work_serves_the_next_run_only)
{
    Rng r;
    rng_seed(&r, 31);
    int ok = 1, runs = 0;
    for (int k = 0; k < 80 && ok; k++) {
        Cluster *c;
        Graph *g = simcase_graph(k, &r, &c);
        int n = g->n_nodes, nd = c->n_devices;
        Sim *s = sim_new(g, c), *s_full = sim_new(g, c);
        int *dev = XMALLOC(int, n);
        double *work = XMALLOC(double, nd), *big = XMALLOC(double, nd);
        for (int p = 0; p < 4 && ok; p++) {
            simcase_placement(&r, g, nd, p, dev);
            const SimResult *full = sim_run(s_full, dev);
            double want = full->makespan_us;
            for (int d = 0; d < nd; d++)
                work[d] = 0;
            for (int i = n - 1; i >= 0; i--) { /* the ops backwards: another rounding */
                double cost = cluster_op_cost(c, g, i, dev[i]);
                work[dev[i]] += cost + (cost > 0 ? c->op_gap_us : 0);
            }
            for (int d = 0; d < nd; d++)
                big[d] = 4 * want + 1e6;
            const double cuts[] = {want, nextafter(want, INFINITY), want * (1 - 1e-12), want * 0.999, want * 1.01};
            char what[160];
            snprintf(what, sizeof what, "case %d (%s, %d devices), placement kind %d, given work", k, g->name, nd, p);
            for (size_t j = 0; j < sizeof cuts / sizeof cuts[0] && ok; j++, runs++) {
                sim_give_device_work(s, work);
                ok = cut_holds(s, dev, full, cuts[j], (int)(j & 1), what);
            }
            if (!ok || want <= 0)
                continue;
            double cutoff = want * 1.5;
            sim_give_device_work(s, big);
            double got = sim_makespan_cut(s, dev, cutoff);
            CHECK_MSG(ok = got >= cutoff, "%s: the overstated work was not read (%.17g, cutoff %.17g)", what, got, cutoff);
            ok = ok && cut_holds(s, dev, full, cutoff, 0, what); /* not again */
            sim_give_device_work(s, big);
            sim_run(s, dev); /* read by this run, which has no cutoff */
            ok = ok && cut_holds(s, dev, full, cutoff, 1, what);
            sim_give_device_work(s, big);
            sim_run_from(s, dev); /* and by an incremental one */
            ok = ok && cut_holds(s, dev, full, cutoff, 0, what);
        }
        free(dev);
        free(work);
        free(big);
        sim_free(s);
        sim_free(s_full);
        cluster_free(c);
        graph_free(g);
    }
    CHECK(runs >= 1000);
}
