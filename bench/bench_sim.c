/* The simulator's benchmarks (make bench, part "sim"): nanoseconds per op of
 * a full simulation and of a makespan-only one on every bundled graph with
 * 1-8 default devices, on HEFT's placement of the graph's default grouping.
 * bench.sh times the Python statement of the simulator (tests/sim_ref.py) on
 * the same placements in the same run and prints the ratios
 * (bench/bench_sim.py). */
#include "bench_sim.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_minsched.h"
#include "gen.h"
#include "placeto_episode.h"
#include "group.h"
#include "place.h"
#include "placement.h"
#include "placeto_io.h"
#include "sim.h"
#include "sim_impl.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_sim_ns_per_op(Sim *s, const int *dev, int n_ops, int full, double batch_s)
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
        } while (t < batch_s);
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
    PlaceCtx ctx = {.g = g, .gr = gr, .c = c};
    Err e = {{0}};
    if (m && m->fn(&ctx, dev, &e) == 0)
        return;
    for (int i = 0; i < g->n_nodes; i++)
        dev[i] = gr->op_group[i] % c->n_devices;
}

/* The bundled graph graphs/NAME with its default grouping in *gr, or NULL
 * with the error printed after TAG. */
static Graph *load_bundled(const char *name, Grouping **gr, const char *tag)
{
    char gpath[512];
    snprintf(gpath, sizeof gpath, "graphs/%s", name);
    Err e = {{0}};
    Graph *g = graph_load(gpath, &e);
    *gr = g ? group_build(g, 0, &e) : NULL;
    if (!*gr) {
        printf("%s %s: %s\n", tag, gpath, e.msg);
        graph_free(g);
        return NULL;
    }
    return g;
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
        Grouping *gr;
        Graph *g = load_bundled(ents[k]->d_name, &gr, "sim      ");
        free(ents[k]);
        if (!g)
            continue;
        int n = g->n_nodes;
        Placement *p = placement_new(n, 1);
        for (int nd = 1; nd <= 8; nd++) {
            Cluster *c = cluster_default(nd);
            p->n_devices = nd;
            heft_placement(g, gr, c, p->op_device);
            Sim *s = sim_new(g, c);
            double full = bench_sim_ns_per_op(s, p->op_device, n, 1, 0.03), mk = bench_sim_ns_per_op(s, p->op_device, n, 0, 0.03);
            if (tsv) {
                char ppath[1024];
                Err e = {{0}};
                snprintf(ppath, sizeof ppath, "%s/%s_%d.placement.json", dir, g->name, nd);
                if (placement_write(p, g, c, ppath, &e) == 0)
                    fprintf(tsv, "%s\t%d\t%d\t%.2f\t%.2f\t%s\t%s\n", g->name, nd, n, full, mk, g->path, ppath);
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

#define MINSCHED_TARGET 1.5

/* One line: the ratio of sim_run's time to the list scheduler's on each
 * placement (dev: n_dev placements of n ops, on 2, 4, 8 devices). */
static void vs_minimal_line(const char *label, const Graph *g, int *const dev[3])
{
    static const int nds[3] = {2, 4, 8};
    int n = g->n_nodes, same = 0;
    double worst = 0, ratio[3], sim_ns[3], min_ns[3];
    for (int j = 0; j < 3; j++) {
        Cluster *c = cluster_default(nds[j]);
        Sim *s = sim_new(g, c);
        MinSched *m = minsched_new(s);
        same += minsched_run(m, dev[j]) == sim_run(s, dev[j])->makespan_us;
        minsched_free(m);
        double batch = n >= 50000 ? 0.05 : 0.02;
        ratio[j] = minsched_ratio(s, dev[j], n, 7, batch, &sim_ns[j], &min_ns[j]);
        if (ratio[j] > worst)
            worst = ratio[j];
        sim_free(s);
        cluster_free(c);
    }
    printf("sim-vs-min %-15s %6d ops  2/4/8 dev: sim %5.1f %5.1f %5.1f ns/op, list scheduler %5.1f %5.1f %5.1f ns/op"
           "  ratio %4.2f %4.2f %4.2f  max %4.2fx (target %.1fx) %s  (same makespan on %d of 3)\n",
           label, n, sim_ns[0], sim_ns[1], sim_ns[2], min_ns[0], min_ns[1], min_ns[2], ratio[0], ratio[1],
           ratio[2], worst, MINSCHED_TARGET, worst <= MINSCHED_TARGET ? "ok" : "OVER", same);
    fflush(stdout);
}

void bench_sim_vs_minimal(void)
{
    printf("sim-vs-min sim_run (full result) against a minimal list scheduler of the same model "
           "(bench/bench_minsched.c), one run of each in turn, CPU time, median of 7 batches\n");
    struct dirent **ents;
    int ne = scandir("graphs", &ents, json_name, alphasort);
    for (int k = 0; k < ne; k++) {
        Grouping *gr;
        Graph *g = load_bundled(ents[k]->d_name, &gr, "sim-vs-min");
        free(ents[k]);
        if (!g)
            continue;
        int *dev[3];
        for (int j = 0; j < 3; j++) {
            Cluster *c = cluster_default(2 << j);
            dev[j] = XMALLOC(int, g->n_nodes);
            heft_placement(g, gr, c, dev[j]);
            cluster_free(c);
        }
        vs_minimal_line(g->name, g, dev);
        for (int j = 0; j < 3; j++)
            free(dev[j]);
        group_free(gr);
        graph_free(g);
    }
    free(ents);
    for (int size = 10000; size <= 100000; size *= 10) {
        Graph *g = gen_random_dag(size, 2.0, 1);
        int *dev[3];
        Rng r;
        rng_seed(&r, 42);
        for (int j = 0; j < 3; j++) {
            dev[j] = XMALLOC(int, size);
            for (int i = 0; i < size; i++)
                dev[j][i] = (int)rng_below(&r, (uint64_t)(2 << j));
        }
        char label[32];
        snprintf(label, sizeof label, "random_dag %dk", size / 1000);
        vs_minimal_line(label, g, dev);
        for (int j = 0; j < 3; j++)
            free(dev[j]);
        graph_free(g);
    }
}

/* One episode's worth of simulations, timed: every group once in order,
 * each moved to a random device (from a random start, as the episodes
 * start), simulated in full (sim_run) or incrementally (sim_run_from). With
 * `improving`, as episodes with --accept improving do: the candidate is
 * simulated on a second simulator and taken back when it is slower. Returns
 * the median time per step in µs over 5 episodes. */
static double episode_us(const Graph *g, const Grouping *gr, const Cluster *c, int incremental, int improving,
                         double *check)
{
    int n = g->n_nodes, ng = gr->n_groups, nd = c->n_devices;
    Sim *sa = sim_new(g, c), *sb = sim_new(g, c);
    int *gd = xmalloc_array((size_t)ng, sizeof *gd), *dev = xmalloc_array((size_t)n, sizeof *dev);
    double t[5];
    *check = 0;
    for (int rep = 0; rep < 5; rep++) {
        Rng r0, r1;
        rng_seed(&r0, 0);
        rng_seed(&r1, 1);
        for (int k = 0; k < ng; k++)
            gd[k] = (int)rng_below(&r0, (uint64_t)nd);
        group_expand(gr, gd, dev);
        Sim *cur = sa, *spare = sb;
        double best = incremental ? sim_run_from(cur, dev)->makespan_us : sim_run(cur, dev)->makespan_us;
        if (incremental && improving)
            sim_run_from(spare, dev);
        double t0 = util_now();
        for (int k = 0; k < ng; k++) {
            int old = gd[k], d = (int)rng_below(&r1, (uint64_t)nd);
            gd[k] = d;
            for (int j = gr->member_off[k]; j < gr->member_off[k + 1]; j++)
                dev[gr->members[j]] = d;
            Sim *s = improving ? spare : cur;
            double ms = incremental ? sim_run_from(s, dev)->makespan_us : sim_run(s, dev)->makespan_us;
            *check += ms;
            if (!improving)
                continue;
            if (ms <= best) { /* kept: the spare simulator holds it */
                best = ms;
                spare = cur;
                cur = s;
            } else {
                gd[k] = old;
                for (int j = gr->member_off[k]; j < gr->member_off[k + 1]; j++)
                    dev[gr->members[j]] = old;
            }
        }
        t[rep] = (util_now() - t0) * 1e6 / ng;
    }
    qsort(t, 5, sizeof *t, cmp_double);
    free(gd);
    free(dev);
    sim_free(sa);
    sim_free(sb);
    return t[2];
}

void bench_sim_incremental(const char *path, int nd)
{
    Err e = {{0}};
    Graph *g = graph_load(path, &e);
    Grouping *gr = g ? group_build(g, 0, &e) : NULL;
    if (!gr) {
        printf("sim-inc   %s: %s\n", path, e.msg);
        graph_free(g);
        return;
    }
    Cluster *c = cluster_default(nd);
    for (int improving = 0; improving <= 1; improving++) {
        double ca, cb;
        double full = episode_us(g, gr, c, 0, improving, &ca), inc = episode_us(g, gr, c, 1, improving, &cb);
        printf("sim-inc   %-13s %d dev %3d groups %-27s per step: full %7.1f us, incremental %7.1f us: %4.2fx%s\n",
               g->name, nd, gr->n_groups, improving ? "(accept improving, 2 sims)" : "(every move kept)", full, inc,
               full / inc, ca == cb ? "" : "  RESULTS DIFFER");
    }
    cluster_free(c);
    group_free(gr);
    graph_free(g);
}

/* A trained policy's greedy episode (graphs/policies/), replayed: the
 * placements it simulated, each a group moved from the current placement,
 * kept or taken back (--accept improving, as the policy was trained). µs
 * per step, median of 5 replays: every candidate in full, and as the
 * episode runs them (sim_run_from on two simulators, see episode.c). */
void bench_sim_policy_episode(const char *graph, const char *policy, int nd)
{
    Err e = {{0}};
    Graph *g = graph_load(graph, &e);
    Grouping *gr = g ? group_build(g, 0, &e) : NULL;
    PolicyGraph *pg = gr ? policy_graph_new(gr, &e) : NULL;
    Policy *pol = pg ? placeto_policy_load(policy, NULL, &e) : NULL;
    Cluster *c = cluster_default(nd);
    EpisodeConfig cfg;
    episode_config_default(&cfg);
    if (pol)
        placeto_episode_config(&cfg, &pol->arch);
    Episode *ep = pol ? episode_new(g, gr, c, pg, &cfg, 1, NULL, &e) : NULL;
    if (!ep) {
        printf("sim-inc   %s: %s\n", policy, e.msg);
    } else {
        int ng = gr->n_groups, cap = ep->n_order, steps = 0, kept = 0, moved = 0;
        int *grp = xmalloc_array((size_t)cap, sizeof *grp), *to = xmalloc_array((size_t)cap, sizeof *to);
        int *keep = xmalloc_array((size_t)cap, sizeof *keep), *init = xmalloc_array((size_t)ng, sizeof *init);
        memcpy(init, ep->init_device, (size_t)ng * sizeof *init);
        PolicyWork *w = policy_work_new(&pol->arch, pg);
        while (!episode_done(ep) && steps < cap) {
            const EpisodeStep *st = placeto_episode_step(ep, pol, w, 1, NULL);
            grp[steps] = st->group;
            to[steps] = st->proposed;
            keep[steps] = st->new_device == st->proposed;
            moved += st->proposed != st->old_device;
            kept += keep[steps] && st->proposed != st->old_device;
            steps++;
        }
        policy_work_free(w);
        int *gd = xmalloc_array((size_t)ng, sizeof *gd), *dev = xmalloc_array((size_t)g->n_nodes, sizeof *dev);
        double us[2];
        for (int incremental = 0; incremental <= 1; incremental++) {
            double t[5];
            for (int rep = 0; rep < 5; rep++) {
                Sim *sa = sim_new(g, c), *sb = sim_new(g, c);
                memcpy(gd, init, (size_t)ng * sizeof *gd);
                group_expand(gr, gd, dev);
                if (incremental) { /* as episode_new leaves them: one has run the start */
                    sim_run_from(sa, dev);
                }
                Sim *cur = sa, *spare = sb;
                double t0 = util_now();
                for (int k = 0; k < steps; k++) {
                    int old = gd[grp[k]];
                    gd[grp[k]] = to[k];
                    for (int j = gr->member_off[grp[k]]; j < gr->member_off[grp[k] + 1]; j++)
                        dev[gr->members[j]] = to[k];
                    if (to[k] == old) { /* as try_move: on the simulator that holds it */
                        if (incremental)
                            sim_run_from(cur, dev);
                        else
                            sim_run(cur, dev);
                        continue;
                    }
                    if (incremental)
                        sim_run_from(spare, dev);
                    else
                        sim_run(spare, dev);
                    if (keep[k]) {
                        Sim *x = cur;
                        cur = spare;
                        spare = x;
                    } else {
                        gd[grp[k]] = old;
                        for (int j = gr->member_off[grp[k]]; j < gr->member_off[grp[k] + 1]; j++)
                            dev[gr->members[j]] = old;
                    }
                }
                t[rep] = (util_now() - t0) * 1e6 / (steps ? steps : 1);
                sim_free(sa);
                sim_free(sb);
            }
            qsort(t, 5, sizeof *t, cmp_double);
            us[incremental] = t[2];
        }
        printf("sim-inc   %-13s %d dev %3d groups %-27s per step: full %7.1f us, incremental %7.1f us: %4.2fx\n",
               g->name, nd, ng, "(trained policy, greedy)", us[0], us[1], us[0] / us[1]);
        printf("sim-inc     (%d steps: %d moved a group, %d of those kept; --accept improving, two simulators as "
               "episodes run them)\n", steps, moved, kept);
        free(grp);
        free(to);
        free(keep);
        free(init);
        free(gd);
        free(dev);
    }
    episode_free(ep);
    policy_free(pol);
    cluster_free(c);
    policy_graph_free(pg);
    group_free(gr);
    graph_free(g);
}

/* One move, as the searches evaluate it: the placement with group k on
 * device d, run with the cutoff (mode 0), as a makespan run (1), as
 * sim_run (2), or through the searches' own scorer (3: place_eval_cut,
 * which also keeps the op placement and each device's work from the
 * groups). */
static double cut_move(Sim *s, PlaceEval *pe, const Grouping *gr, int *gd, int *dev, int k, int d, double cutoff,
                       int mode)
{
    int old = gd[k];
    double m;
    gd[k] = d;
    if (mode == 3) {
        m = place_eval_cut(pe, gd, cutoff);
    } else {
        group_expand(gr, gd, dev);
        m = mode == 0 ? sim_makespan_cut(s, dev, cutoff) : mode == 1 ? sim_makespan(s, dev) : sim_run(s, dev)->makespan_us;
    }
    gd[k] = old;
    return m;
}

void bench_sim_cut(void)
{
    static const struct {
        const char *name;
        int nd;
    } cases[] = {{"googlenet.json", 2}, {"inception_v3.json", 2}, {"mobilenet_v2.json", 2}, {"nasnet.json", 2},
                 {"nmt.json", 2},       {"resnet18.json", 2},     {"resnet50.json", 2},     {"vgg16.json", 2},
                 {"nmt.json", 4}};
    enum { MOVES = 600 };
    for (size_t j = 0; j < sizeof cases / sizeof cases[0]; j++) {
        Grouping *gr;
        Graph *g = load_bundled(cases[j].name, &gr, "sim-cut  ");
        if (!g)
            continue;
        int n = g->n_nodes, nd = cases[j].nd, ng = gr->n_groups;
        Cluster *c = cluster_default(nd);
        int *dev = XMALLOC(int, n), *gd = XMALLOC(int, ng), *mk = XMALLOC(int, 2 * MOVES);
        const PlaceMethod *ils = place_find("ils");
        PlaceCtx ctx = {.g = g, .gr = gr, .c = c, .seed = 1, .budget = 3000};
        Err e = {{0}};
        if (!ils || ils->fn(&ctx, dev, &e) != 0)
            heft_placement(g, gr, c, dev);
        for (int k = 0; k < ng; k++)
            gd[k] = dev[gr->members[gr->member_off[k]]];
        Sim *s = sim_new(g, c);
        PlaceEval *pe = place_eval_new(g, gr, c);
        double base = sim_makespan(s, dev), ev_cut = 0, ev_full = 0, t[4] = {0, 0, 0, 0};
        int stopped = 0, better = 0, same = 1;
        Rng r;
        rng_seed(&r, 11);
        for (int i = 0; i < MOVES; i++) {
            mk[2 * i] = (int)rng_below(&r, (uint64_t)ng);
            int d = (int)rng_below(&r, (uint64_t)(nd - 1));
            mk[2 * i + 1] = d >= gd[mk[2 * i]] ? d + 1 : d;
        }
        /* the four kinds of run over the same moves, in turn, three rounds */
        for (int round = 0; round < 3; round++)
            for (int mode = 0; mode < 4; mode++) {
                double t0 = util_now();
                for (int i = 0; i < MOVES; i++)
                    cut_move(s, pe, gr, gd, dev, mk[2 * i], mk[2 * i + 1], mode == 0 || mode == 3 ? base : INFINITY,
                             mode);
                t[mode] += util_now() - t0;
            }
        /* untimed: the events, stops and answers; a cut run's number is the
         * makespan below the cutoff, else >= it */
        for (int i = 0; i < MOVES; i++) {
            double m = cut_move(s, pe, gr, gd, dev, mk[2 * i], mk[2 * i + 1], INFINITY, 1);
            ev_full += (double)s->events;
            double ms = cut_move(s, pe, gr, gd, dev, mk[2 * i], mk[2 * i + 1], base, 3);
            same &= m < base ? ms >= m : ms >= base; /* a score: the makespan and any memory penalty */
            double mc = cut_move(s, pe, gr, gd, dev, mk[2 * i], mk[2 * i + 1], base, 0);
            ev_cut += (double)s->events;
            stopped += s->stopped;
            better += m < base;
            same &= m < base ? mc == m : mc >= base;
        }
        printf("sim-cut   %-13s %d dev %3d groups, %d moves from ils's placement: %5.1f %% stop, %4.1f %% better;"
               " events %.2f of a run; us per move: cut %7.1f, search's %7.1f, makespan %7.1f, sim_run %7.1f;"
               " cut/sim_run %.2f, search's/sim_run %.2f%s\n",
               g->name, nd, ng, MOVES, 100.0 * stopped / MOVES, 100.0 * better / MOVES, ev_cut / ev_full,
               t[0] * 1e6 / (3 * MOVES), t[3] * 1e6 / (3 * MOVES), t[1] * 1e6 / (3 * MOVES), t[2] * 1e6 / (3 * MOVES),
               t[0] / t[2], t[3] / t[2], same ? "" : "  CUT RESULTS DIFFER");
        fflush(stdout);
        sim_free(s);
        place_eval_free(pe);
        free(dev);
        free(gd);
        free(mk);
        cluster_free(c);
        group_free(gr);
        graph_free(g);
    }
}
