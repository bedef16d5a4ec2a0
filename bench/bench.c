/* Benchmarks (make bench): simulator speed on every bundled graph
 * (bench_sim.c) and on generated graphs, and grouping time on 100 000 ops. Prints one line per
 * figure; timings are medians of several runs. */
#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>

#include "bench_gdp.h"
#include "bench_hsdag.h"
#include "bench_lsched.h"
#include "bench_sim.h"
#include "bound.h"
#include "dag.h"
#include "gen.h"
#include "group.h"
#include "place.h"
#include "problem.h"
#include "sim.h"
#include "placeto_train.h"
#include "app.h"
#include "ctl.h"
#include "draw.h"
#include "testutil.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* Simulations per second of one placement, measured over ~0.5 s batches. */
static void bench_sim(const char *label, const Graph *g, int n_devices, int full)
{
    Cluster *c = cluster_default(n_devices);
    Sim *s = sim_new(g, c);
    int *dev = xmalloc_array((size_t)g->n_nodes, sizeof *dev);
    Rng r;
    rng_seed(&r, 42);
    for (int i = 0; i < g->n_nodes; i++)
        dev[i] = (int)rng_below(&r, (uint64_t)n_devices);
    double sps = 1e9 / (bench_sim_ns_per_op(s, dev, g->n_nodes, full, 0.2) * g->n_nodes);
    printf("simulate  %-28s %6d ops %d dev %-9s %10.0f sims/s %8.1f ns/op\n", label, g->n_nodes, n_devices,
           full ? "full" : "makespan", sps, 1e9 / (sps * g->n_nodes));
    free(dev);
    sim_free(s);
    cluster_free(c);
}

static void bench_group(const char *label, const Graph *g, int target)
{
    double t[3];
    int groups = 0;
    for (int k = 0; k < 3; k++) {
        Err e;
        double t0 = util_now();
        Grouping *gr = group_build(g, target, &e);
        t[k] = util_now() - t0;
        groups = gr ? gr->n_groups : -1;
        group_free(gr);
    }
    printf("group     %-28s %6d ops -> %d groups (target %d) %8.3f s\n", label, g->n_nodes, groups, target,
           median(t, 3));
}

/* Each method's gap to the optimum found by brute force, and how tight the
 * lower bound is, over 24 tiny random graphs (7 ops, 2 or 3 devices). */
static void bench_gaps(void)
{
    int nm;
    const PlaceMethod *m = place_methods(&nm);
    double *sum = xnew_array((size_t)nm, sizeof *sum), *worst = xnew_array((size_t)nm, sizeof *worst);
    double lb_sum = 0, lb_worst = 1;
    int cases = 24;
    for (int k = 0; k < cases; k++) {
        Graph *g = gen_random_dag(7, 1.5, 1000 + (uint64_t)k);
        Cluster *c = cluster_default(2 + k % 2);
        Err e;
        Grouping *gr = group_build(g, g->n_nodes, &e);
        Sim *s = sim_new(g, c);
        double opt = test_brute_force(g, c), lb = bound_lower(g, c);
        lb_sum += lb / opt;
        if (lb / opt < lb_worst)
            lb_worst = lb / opt;
        int *dev = xmalloc_array((size_t)g->n_nodes, sizeof *dev);
        PlaceCtx ctx = {.g = g, .gr = gr, .c = c};
        for (int j = 0; j < nm; j++) {
            double gap = m[j].fn(&ctx, dev, &e) == 0 ? sim_makespan(s, dev) / opt : 0;
            sum[j] += gap;
            if (gap > worst[j])
                worst[j] = gap;
        }
        free(dev);
        sim_free(s);
        group_free(gr);
        cluster_free(c);
        graph_free(g);
    }
    printf("gaps      brute force over %d tiny graphs (7 ops, 2-3 devices): runtime / optimum\n", cases);
    for (int j = 0; j < nm; j++)
        printf("gaps        %-12s mean %.3f  worst %.3f\n", m[j].name, sum[j] / cases, worst[j]);
    printf("gaps        %-12s mean %.3f  worst %.3f  (bound / optimum)\n", "lower bound", lb_sum / cases, lb_worst);
    free(sum);
    free(worst);
}

/* The agent on one graph: training episodes per second with 1 and 2
 * threads (the paper's settings), policy steps per second (greedy, no
 * training), the share of a step spent in the simulator, and where a
 * training step's time goes. */
static void bench_agent(const char *path, int n_devices)
{
    Err e = {{0}};
    Problem pb;
    ProblemSpec spec = {.graph_path = path, .n_devices = n_devices};
    if (problem_load(&pb, &spec, &e) != 0) {
        printf("agent       %s: %s\n", path, e.msg);
        problem_free(&pb);
        return;
    }
    Graph *g = pb.g;
    Grouping *gr = pb.gr;
    Cluster *c = pb.c;
    PolicyGraph *pg = policy_graph_new(gr, &e);
    PolicyArch arch;
    policy_arch_default(&arch, n_devices);
    double eps_rate[2] = {0, 0};
    for (int threads = 1; threads <= 2; threads++) {
        Policy *pol = policy_new(&arch, 1, &e);
        PlacetoTrainConfig tc;
        placeto_train_config_default(&tc);
        tc.threads = threads;
        TrainState ts;
        train_state_init(&ts, tc.lr, tc.entropy, 1);
        TrainGraph tg = {g, gr, pg};
        PlacetoTrainer *t = placeto_train_new(pol, &ts, &tc, &tg, 1, c, &e);
        /* the median of three batches of 6 episodes (the machine may be
         * shared), the first batch making the trainer's work spaces */
        int episodes = 6;
        double batch[3];
        for (int k = 0; k < 3; k++) {
            double t0 = util_now();
            placeto_train_run(t, episodes, NULL, NULL, NULL);
            batch[k] = util_now() - t0;
        }
        eps_rate[threads - 1] = episodes / median(batch, 3);
        placeto_train_free(t);
        train_state_done(&ts);
        policy_free(pol);
    }
    /* greedy policy steps (forward pass, sampling, simulation) */
    Policy *pol = policy_new(&arch, 1, &e);
    EpisodeConfig cfg;
    episode_config_default(&cfg);
    Episode *ep = episode_new(g, gr, c, pg, &cfg, 1, NULL, &e);
    PolicyWork *w = policy_work_new(&arch, pg);
    int steps = 0;
    double t0 = util_now();
    while (!episode_done(ep)) {
        placeto_episode_step(ep, pol, w, 1, NULL);
        steps++;
    }
    double step_s = (util_now() - t0) / steps;
    /* the simulation alone, on the placements of that episode */
    int reps = 50;
    t0 = util_now();
    for (int k = 0; k < reps; k++)
        sim_run(pb.sim, ep->op_device);
    double sim_s = (util_now() - t0) / reps;
    printf("agent       %-14s %d devices  %3d groups  %6.2f episodes/s (1 thread)  %6.2f episodes/s "
           "(2 threads, %.2fx)  %7.0f policy steps/s  simulation %6.1f us = %2.0f%% of a step\n",
           g->name, n_devices, gr->n_groups, eps_rate[0], eps_rate[1], eps_rate[1] / eps_rate[0], 1 / step_s,
           sim_s * 1e6, 100 * sim_s / step_s);
    /* where a training step's time goes (1 thread): the parts of a sampled
     * episode (what training rolls out) timed one by one on that episode's
     * own steps: the simulation of each placement it reached, the features
     * and the forward pass of each step, and the backward pass; the rest is
     * the trainer's and the episode's own work (moving the group, the
     * history, the returns, Adam) */
    int n = gr->n_groups, F = arch.n_features, L = ep->n_order;
    size_t nf = (size_t)n * (size_t)F;
    float *feats = XMALLOC(float, (size_t)L * nf), probs[POLICY_MAX_DEVICES];
    float *grad = XNEW(float, pol->p.n), dz[POLICY_MAX_DEVICES] = {0.5f, -0.5f};
    int *placed = XMALLOC(int, (size_t)L * (size_t)g->n_nodes), *vs = XMALLOC(int, L);
    episode_reset(ep, 2, NULL);
    for (int k = 0; k < L; k++) {
        vs[k] = episode_current(ep);
        placeto_episode_step(ep, pol, w, 0, feats + (size_t)k * nf);
        memcpy(placed + (size_t)k * (size_t)g->n_nodes, ep->op_device, (size_t)g->n_nodes * sizeof *placed);
    }
    t0 = util_now();
    for (int k = 0; k < L; k++)
        sim_run(pb.sim, placed + (size_t)k * (size_t)g->n_nodes);
    double tsim_s = (util_now() - t0) / L;
    t0 = util_now();
    for (int k = 0; k < L; k++)
        episode_features(ep, vs[k], feats + (size_t)k * nf);
    double feat_s = (util_now() - t0) / L;
    t0 = util_now();
    for (int k = 0; k < L; k++)
        policy_forward(pol, pg, w, feats + (size_t)k * nf, vs[k], NULL, probs);
    double fwd_s = (util_now() - t0) / L;
    t0 = util_now();
    for (int k = 0; k < L; k++) {
        policy_forward(pol, pg, w, feats + (size_t)k * nf, vs[k], NULL, probs);
        policy_backward(pol, pg, w, dz, grad);
    }
    double bwd_s = (util_now() - t0) / L - fwd_s;
    double train_s = 1 / (eps_rate[0] * L), rest_s = train_s - feat_s - 2 * fwd_s - bwd_s - tsim_s;
    if (rest_s < 0) /* the parts timed alone can add up to a little more */
        rest_s = 0;
    printf("agent       %-14s %d devices  a training step (1 thread) %6.1f us: simulation %5.1f us (%2.0f%%), "
           "policy forward %5.1f us x2 (rollout, gradient; %2.0f%%), backward %5.1f us (%2.0f%%), features %4.1f us, "
           "the rest %5.1f us\n",
           g->name, n_devices, train_s * 1e6, tsim_s * 1e6, 100 * tsim_s / train_s, fwd_s * 1e6,
           200 * fwd_s / train_s, bwd_s * 1e6, 100 * bwd_s / train_s, feat_s * 1e6, rest_s * 1e6);
    free(feats);
    free(grad);
    free(placed);
    free(vs);
    policy_work_free(w);
    episode_free(ep);
    policy_free(pol);
    policy_graph_free(pg);
    problem_free(&pb);
}

/* ---- layouts: the layered DAG layout against Graphviz (issue 6) ---- */

/* One layout of both zoom levels plus one render of the whole full-view
 * canvas, median of 3; *vert and *w x *h describe the result. */
static double layout_seconds(int n, const int *off, const int *succ, int *vert, int *w, int *h)
{
    double t[3];
    for (int k = 0; k < 3; k++) {
        double t0 = util_now();
        DagLayout *L = dag_layout(n, off, succ, NULL);
        const DagGeom *G = dag_geom(L, DAG_FULL);
        Grid *g = grid_new(G->width, G->height);
        DagView v = {DAG_FULL, 0, 0, {0, 0, G->width, G->height}, NULL, NULL, NULL, NULL, 0, NULL};
        dag_render(L, &v, g);
        t[k] = util_now() - t0;
        *vert = L->n_vert;
        *w = G->width;
        *h = G->height;
        grid_free(g);
        dag_free(L);
    }
    return median(t, 3);
}

/* Wall time of `dot -Tplain` (layout only, plain-text output) on the same
 * DAG written to a temporary DOT file, capped at DOT_LIMIT seconds; -1 when
 * dot fails or is missing, -2 when it hit the cap. */
enum { DOT_LIMIT = 60 }; /* dot needs minutes on these graphs; a lower bound of the ratio is enough */

static double dot_seconds(int n, const int *off, const int *succ)
{
    char path[] = "/tmp/placeto-bench-XXXXXX", cmd[128];
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f)
        return -1;
    fputs("digraph G {\n  node [shape=box];\n", f);
    for (int u = 0; u < n; u++) {
        fprintf(f, "  n%d;\n", u);
        for (int j = off[u]; j < off[u + 1]; j++)
            fprintf(f, "  n%d -> n%d;\n", u, succ[j]);
    }
    fputs("}\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "timeout %d dot -Tplain %s > /dev/null 2>&1", DOT_LIMIT, path);
    double t0 = util_now();
    int rc = system(cmd);
    double t = util_now() - t0;
    remove(path);
    if (rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 124)
        return -2;
    return rc == 0 ? t : -1;
}

static void bench_layout_one(const char *label, int n, const int *off, const int *succ)
{
    int vert, w, h;
    double ours = layout_seconds(n, off, succ, &vert, &w, &h), dot = dot_seconds(n, off, succ);
    printf("layout    %-26s %5d nodes %6d edges %6d vertices  full canvas %dx%d  %8.3f s", label, n, off[n], vert, w,
           h, ours);
    if (dot == -2)
        printf("  dot -Tplain > %d s (stopped)  dot/ours > %.0fx\n", DOT_LIMIT, DOT_LIMIT / ours);
    else if (dot < 0)
        printf("  dot -Tplain failed or missing\n");
    else
        printf("  dot -Tplain %8.2f s  dot/ours %.0fx\n", dot, dot / ours);
    fflush(stdout);
}

/* The layered layout (layouts/dag.h) of the bundled group graph with the
 * most groups (then the most group edges), of resnet18's (where dot
 * finishes in seconds) and of a 2 000-op random DAG, next to Graphviz's dot
 * on the same DAGs in the same run. */
static void bench_layout(void)
{
    DIR *dir = opendir("graphs");
    Graph *bg = NULL;
    Grouping *best = NULL;
    struct dirent *ent;
    while (dir && (ent = readdir(dir))) {
        size_t len = strlen(ent->d_name);
        char path[1024];
        Err e;
        if (len < 6 || strcmp(ent->d_name + len - 5, ".json") != 0)
            continue;
        snprintf(path, sizeof path, "graphs/%s", ent->d_name);
        Graph *g = graph_load(path, &e);
        Grouping *gr = g ? group_build(g, 0, &e) : NULL;
        if (gr && (!best || gr->n_groups > best->n_groups ||
                   (gr->n_groups == best->n_groups && gr->n_edges > best->n_edges))) {
            group_free(best);
            graph_free(bg);
            best = gr;
            bg = g;
        } else {
            group_free(gr);
            graph_free(g);
        }
    }
    if (dir)
        closedir(dir);
    for (int k = 0; k < 2; k++) {
        Err e;
        if (k == 1) {
            group_free(best);
            graph_free(bg);
            bg = graph_load("graphs/resnet18.json", &e);
            best = bg ? group_build(bg, 0, &e) : NULL;
        }
        if (!best)
            continue;
        char label[64];
        snprintf(label, sizeof label, "%s groups", bg->name);
        bench_layout_one(label, best->n_groups, best->succ_off, best->succ);
    }
    group_free(best);
    graph_free(bg);
    Graph *r = gen_random_dag(2000, 2.0, 1);
    int *off = xnew_array((size_t)r->n_nodes + 1, sizeof *off), *succ = xmalloc_array((size_t)r->n_edges, sizeof *succ);
    for (int i = 0; i < r->n_nodes; i++) {
        off[i + 1] = off[i] + r->nodes[i].n_children;
        memcpy(succ + off[i], r->nodes[i].children, (size_t)r->nodes[i].n_children * sizeof *succ);
    }
    bench_layout_one("random_dag 2000 ops", r->n_nodes, off, succ);
    free(off);
    free(succ);
    graph_free(r);
}

/* The explorer's responsiveness on a bundled graph with its trained policy:
 * from a key (a step) to the redrawn frame, and frames per second while
 * running (a step and a frame each), on a 200 x 60 screen. */
static void bench_explorer(const char *graph, const char *policy, int n_devices)
{
    AppOptions o = {0};
    o.graph_path = graph;
    o.policy_path = policy;
    o.n_devices = n_devices;
    o.seed = 1;
    o.episode_path = "/tmp/placeto-bench.episode.json";
    Err e = {{0}};
    App *a = app_new(&o, &e);
    if (!a) {
        printf("explorer    %s\n", e.msg);
        return;
    }
    Grid *g = grid_new(200, 60);
    app_draw(a, g, NULL);
    int steps = 40;
    double *t = xmalloc_array((size_t)steps, sizeof *t);
    for (int k = 0; k < steps; k++) {
        double t0 = util_now();
        ctl_key(a, ' ');
        app_draw(a, g, NULL);
        t[k] = util_now() - t0;
    }
    double med = median(t, steps);
    a->run.running = 1;
    int frames = 0;
    double t0 = util_now();
    while (!episode_done(a->data.ep) && frames < 100) {
        ctl_tick(a, util_now(), 0);
        app_draw(a, g, NULL);
        frames++;
    }
    double fps = frames / (util_now() - t0);
    /* a frame alone, nothing changed */
    t0 = util_now();
    for (int k = 0; k < 20; k++)
        app_draw(a, g, NULL);
    double frame = (util_now() - t0) / 20;
    printf("explorer    %-14s %d devices  key (step) to frame %6.2f ms (median)  %6.1f frames/s running  "
           "redraw alone %5.2f ms\n", a->data.pb.g->name, n_devices, med * 1e3, fps, frame * 1e3);
    free(t);
    grid_free(g);
    app_free(a);
}

/* A 100 000-op graph end to end: load from JSON, group, simulate, open in
 * the explorer and draw its first frame; time of each and the peak memory
 * of the process. */
static void bench_extreme(void)
{
    char path[] = "/tmp/placeto-bench-100k-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return;
    close(fd);
    Err e = {{0}};
    Graph *src = gen_random_dag(100000, 2.0, 3);
    graph_write_json(src, path, &e);
    graph_free(src);
    double t0 = util_now();
    Graph *g = graph_load(path, &e);
    double t_load = util_now() - t0;
    t0 = util_now();
    Grouping *gr = g ? group_build(g, 0, &e) : NULL;
    double t_group = util_now() - t0;
    Cluster *c = cluster_default(4);
    int *dev = xnew_array(g ? (size_t)g->n_nodes : 0, sizeof *dev);
    for (int i = 0; g && gr && i < g->n_nodes; i++)
        dev[i] = gr->op_group[i] % 4;
    Sim *sim = g ? sim_new(g, c) : NULL;
    t0 = util_now();
    if (sim)
        sim_run(sim, dev);
    double t_sim = util_now() - t0;
    AppOptions o = {0};
    o.graph_path = path;
    o.n_devices = 4;
    o.seed = 1;
    o.episode_path = "/tmp/placeto-bench-100k.episode.json";
    t0 = util_now();
    App *a = app_new(&o, &e);
    Grid *grid = grid_new(200, 60);
    if (a)
        app_draw(a, grid, NULL);
    double t_open = util_now() - t0;
    t0 = util_now();
    if (a) {
        ctl_key(a, ' ');
        app_draw(a, grid, NULL);
    }
    double t_step = util_now() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("extreme     100 000 ops, %d groups: load %.2f s, group %.2f s, simulate %.3f s, open in the explorer "
           "(layout, first frame) %.2f s, a step %.3f s; peak memory %.0f MB\n",
           gr ? gr->n_groups : 0, t_load, t_group, t_sim, t_open, t_step, (double)ru.ru_maxrss / 1024.0);
    grid_free(grid);
    app_free(a);
    sim_free(sim);
    free(dev);
    cluster_free(c);
    group_free(gr);
    graph_free(g);
    remove(path);
}

/* build/placeto-bench [--sim-dir DIR] [PART...]: the parts named (explorer,
 * agent, gaps, sim, simx (sim_run against a minimal list scheduler, also in sim), inc, group, layout, extreme, gdp, hsdag), or all of them. With --sim-dir,
 * the simulator's table goes to DIR for bench/bench_sim.py (bench_sim.h).
 * build/placeto-bench --write-graph N SEED OUT: gen_random_dag(N, 2.0, SEED)
 * written as a placeto-graph (bench/load_bench.sh).
 * build/placeto-bench --gdp-input GRAPH DEVICES OUT [POLICY]: GDP's network
 * input of GRAPH as JSON (bench_gdp_input; bench/gdp_speed.sh). */
static int want(int argc, char **argv, const char *part)
{
    if (argc < 2)
        return 1;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], part) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *sim_dir = NULL;
    if (argc == 5 && strcmp(argv[1], "--write-graph") == 0) { /* bench/load_bench.sh */
        Err e = {{0}};
        Graph *g = gen_random_dag(atoi(argv[2]), 2.0, (uint64_t)strtoull(argv[3], NULL, 10));
        int rc = graph_write_json(g, argv[4], &e);
        graph_free(g);
        if (rc != 0)
            fprintf(stderr, "placeto-bench: %s\n", e.msg);
        return rc != 0;
    }
    if ((argc == 5 || argc == 6) && strcmp(argv[1], "--gdp-input") == 0)
        return bench_gdp_input(argv[2], atoi(argv[3]), argv[4], argc == 6 ? argv[5] : NULL);
    if (argc >= 3 && strcmp(argv[1], "--sim-dir") == 0) {
        sim_dir = argv[2];
        argv[2] = argv[0];
        argv += 2;
        argc -= 2;
    }
    nn_blas_init();
    if (want(argc, argv, "explorer")) {
        bench_explorer("graphs/inception_v3.json", "graphs/policies/inception_v3_2.json", 2);
        bench_explorer("graphs/nmt.json", "graphs/policies/nmt_4.json", 4);
    }
    if (want(argc, argv, "agent")) {
        bench_agent("graphs/inception_v3.json", 2);
        bench_agent("graphs/inception_v3.json", 4);
    }
    if (want(argc, argv, "lsched"))
        bench_lsched();
    if (want(argc, argv, "gaps"))
        bench_gaps();
    if (want(argc, argv, "sim"))
        bench_sim_table(sim_dir);
    if (want(argc, argv, "sim") || want(argc, argv, "simx"))
        bench_sim_vs_minimal();
    if (want(argc, argv, "cut"))
        bench_sim_cut();
    if (want(argc, argv, "inc")) {
        bench_sim_incremental("graphs/inception_v3.json", 2);
        bench_sim_policy_episode("graphs/inception_v3.json", "graphs/policies/inception_v3_2.json", 2);
        bench_sim_incremental("graphs/nmt.json", 4);
        bench_sim_policy_episode("graphs/nmt.json", "graphs/policies/nmt_4.json", 4);
    }
    int sim = want(argc, argv, "sim"), group = want(argc, argv, "group");
    if (sim || group) {
        Graph *r = gen_random_dag(100000, 2.0, 1);
        if (sim)
            bench_sim("random_dag 100k", r, 4, 1);
        if (group)
            bench_group("random_dag 100k", r, 200);
        graph_free(r);
        Graph *t = gen_layered_training_graph(100000, 1);
        if (sim)
            bench_sim("layered_training 100k", t, 4, 1);
        if (group)
            bench_group("layered_training 100k", t, 200);
        graph_free(t);
    }
    if (group) { /* the shapes that once made grouping quadratic: one op feeding a million, a forest of fans */
        Graph *st = gen_star(1000000, 1, 1);
        bench_group("star 1M (one hub)", st, 200);
        graph_free(st);
        Graph *fo = gen_star(1000000, 5000, 1);
        bench_group("forest 1M (5 000 hubs)", fo, 200);
        graph_free(fo);
    }
    if (want(argc, argv, "layout"))
        bench_layout();
    if (want(argc, argv, "extreme"))
        bench_extreme();
    if (want(argc, argv, "gdp")) {
        bench_gdp_scale(50000);
        bench_gdp_scale(100000);
    }
    if (want(argc, argv, "hsdag"))
        bench_hsdag();
    return 0;
}
