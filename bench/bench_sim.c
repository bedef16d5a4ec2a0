/* The simulator's benchmarks (make bench, part "sim"): nanoseconds per op of
 * a full simulation and of a makespan-only one on every bundled graph with
 * 1-8 default devices, on HEFT's placement of the graph's default grouping.
 * bench.sh times the Python statement of the simulator (tests/sim_ref.py) on
 * the same placements in the same run and prints the ratios
 * (bench/bench_sim.py). */
#include "bench_sim.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "group.h"
#include "place.h"
#include "placement.h"
#include "sim.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nanoseconds per op of one simulation of dev: the median of 5 batches of at
 * least 30 ms each. */
static double ns_per_op(Sim *s, const int *dev, int n_ops, int full)
{
    double v[5];
    for (int k = 0; k < 5; k++) {
        long reps = 0;
        double t0 = util_now(), t;
        do {
            if (full)
                sim_run(s, dev);
            else
                sim_makespan(s, dev);
            reps++;
            t = util_now() - t0;
        } while (t < 0.03);
        v[k] = t * 1e9 / ((double)reps * n_ops);
    }
    qsort(v, 5, sizeof *v, cmp_double);
    return v[2];
}

static int json_name(const struct dirent *d)
{
    size_t len = strlen(d->d_name);
    return len > 5 && strcmp(d->d_name + len - 5, ".json") == 0;
}

/* HEFT on the default grouping; round-robin by group if it fails. */
static void heft_placement(const Graph *g, const Grouping *gr, const Cluster *c, int *dev)
{
    const PlaceMethod *m = place_find("heft");
    PlaceCtx ctx = {g, gr, c, 0, 0, NULL};
    Err e = {{0}};
    if (m && m->fn(&ctx, dev, &e) == 0)
        return;
    for (int i = 0; i < g->n_nodes; i++)
        dev[i] = gr->op_group[i] % c->n_devices;
}

void bench_sim_table(const char *dir)
{
    struct dirent **ents;
    int ne = scandir("graphs", &ents, json_name, alphasort);
    FILE *tsv = NULL;
    if (dir) {
        char path[1024];
        snprintf(path, sizeof path, "%s/sim_c.tsv", dir);
        tsv = fopen(path, "w");
    }
    if (!tsv)
        printf("sim       %-14s %5s %3s %11s %14s\n", "graph", "ops", "dev", "full ns/op", "makespan ns/op");
    for (int k = 0; k < ne; k++) {
        char gpath[512];
        snprintf(gpath, sizeof gpath, "graphs/%s", ents[k]->d_name);
        free(ents[k]);
        Err e = {{0}};
        Graph *g = graph_load(gpath, &e);
        Grouping *gr = g ? group_build(g, 0, &e) : NULL;
        if (!gr) {
            printf("sim       %s: %s\n", gpath, e.msg);
            graph_free(g);
            continue;
        }
        int n = g->n_nodes;
        Placement *p = placement_new(n, 1);
        for (int nd = 1; nd <= 8; nd++) {
            Cluster *c = cluster_default(nd);
            p->n_devices = nd;
            heft_placement(g, gr, c, p->op_device);
            Sim *s = sim_new(g, c);
            double full = ns_per_op(s, p->op_device, n, 1), mk = ns_per_op(s, p->op_device, n, 0);
            if (tsv) {
                char ppath[1024];
                snprintf(ppath, sizeof ppath, "%s/%s_%d.placement.json", dir, g->name, nd);
                if (placement_write(p, g, c, ppath, &e) == 0)
                    fprintf(tsv, "%s\t%d\t%d\t%.2f\t%.2f\t%s\t%s\n", g->name, nd, n, full, mk, gpath, ppath);
            } else {
                printf("sim       %-14s %5d %3d %11.1f %14.1f\n", g->name, n, nd, full, mk);
            }
            fflush(stdout);
            sim_free(s);
            cluster_free(c);
        }
        placement_free(p);
        group_free(gr);
        graph_free(g);
    }
    free(ents);
    if (tsv)
        fclose(tsv);
}
