/* oneshot: what the one-shot placers share (oneshot.h). */
#include "oneshot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"

void oneshot_episode_config(EpisodeConfig *cfg)
{
    episode_config_default(cfg);
    cfg->init = EPISODE_INIT_DEVICE0;
}

void oneshot_actor_config(const void *net, EpisodeConfig *cfg)
{
    (void)net;
    oneshot_episode_config(cfg);
}

int episode_check_one_pass(const Episode *ep, const char *article, const char *agent, int n_devices, Err *e)
{
    const EpisodeConfig *c = &ep->cfg;
    if (n_devices != ep->n_devices)
        return err_set(e, "the %s policy is for %d devices but the cluster has %d", agent, n_devices, ep->n_devices);
    if (c->passes != 1)
        return err_set(e, "%s %s episode makes one pass over the groups, the configuration has %d", article, agent,
                       c->passes);
    if (c->random_order)
        return err_set(e, "%s %s episode visits the groups in topological order, the configuration is random",
                       article, agent);
    if (c->init != EPISODE_INIT_DEVICE0)
        return err_set(e, "%s %s episode starts from everything on device 0, the configuration starts elsewhere",
                       article, agent);
    if (c->accept_improving)
        return err_set(e, "%s %s episode keeps every choice of the network, the configuration keeps only improving "
                          "ones", article, agent);
    return 0;
}

int episode_draw_one_shot(Episode *ep, const float *p, int n, int greedy)
{
    return greedy ? sample_argmax_f(p, n) : sample_draw_f(p, n, rng_uniform(&ep->rng));
}

int64_t oneshot_place_decodes(OneShotDecode decode, void *ctx, const Graph *g, const Grouping *gr,
                             const Cluster *c, int samples, uint64_t seed, int *group_device, double *runtime_us)
{
    Sim *sim = sim_new(g, c);
    EpisodeConfig env;
    episode_config_default(&env);
    int *place = xnew_array((size_t)gr->n_groups, sizeof *place);
    int *op = xnew_array((size_t)g->n_nodes, sizeof *op);
    Rng rng;
    rng_seed(&rng, seed);
    double best = INFINITY;
    for (int k = 0; k <= samples; k++) {
        decode(ctx, k == 0, &rng, place);
        group_expand(gr, place, op);
        const SimResult *r = sim_run(sim, op);
        double score = episode_score(&env, c, r);
        if (score < best) {
            best = score;
            *runtime_us = r->makespan_us;
            memcpy(group_device, place, (size_t)gr->n_groups * sizeof *group_device);
        }
    }
    free(op);
    free(place);
    sim_free(sim);
    return 1 + (int64_t)samples;
}

int oneshot_place_runs(const AgentKind *k, const Problem *p, const char *path, const void *net,
                       const TrainState *ts, const AgentPlaceOpts *o, PlaceRun rows[2], const char **start_name,
                       Err *e)
{
    (void)start_name;
    int *gd = xnew_array((size_t)p->gr->n_groups, sizeof *gd);
    double rt = 0, t0 = util_now();
    int n = 0;
    int64_t sims = k->place.place(net, p->g, p->gr, p->c, o->samples, o->seed, gd, &rt, e);
    if (sims < 0) {
        err_prefix(e, path);
        free(gd);
        return -1;
    }
    double seconds = util_now() - t0;
    n += agent_trained_row(ts, p, k->place.trained_row, &rows[n]);
    place_run_groups(p, k->name, gd, seconds, &rows[n]);
    rows[n++].placements = sims;
    free(gd);
    return n;
}

int oneshot_train_setup(OneShotTrainSetup *s, const char *agent, int n_devices, double oom_penalty,
                        const TrainGraph *graphs, int n_graphs, const Cluster *c, Err *e)
{
    if (n_devices != c->n_devices)
        return err_set(e, "the %s policy is for %d devices but the cluster has %d", agent, n_devices, c->n_devices);
    if (n_graphs < 1)
        return err_set(e, "no graph to train on");
    episode_config_default(&s->env);
    s->env.oom_penalty = oom_penalty;
    s->env.log_runtime = 0;
    s->max_groups = s->max_nodes = 0;
    for (int i = 0; i < n_graphs; i++) {
        if (graphs[i].gr->n_groups > s->max_groups)
            s->max_groups = graphs[i].gr->n_groups;
        if (graphs[i].g->n_nodes > s->max_nodes)
            s->max_nodes = graphs[i].g->n_nodes;
    }
    return 0;
}

void oneshot_train_bests(TrainState *ts, const EpisodeConfig *env, const TrainGraph *graphs, int n_graphs,
                         const Cluster *c)
{
    train_best_verify(ts, env, graphs, n_graphs, c);
    for (int i = 0; i < n_graphs; i++)
        train_best_for(ts, graphs[i].g->name, graphs[i].g->checksum, graphs[i].gr->n_groups);
}

float *oneshot_grads_new(int m, size_t n) { return m > 1 ? xnew_array(xmul((size_t)m, n), sizeof(float)) : NULL; }

float *oneshot_grad_of(float *grads, int k, const NnParams *p) { return grads ? grads + (size_t)k * p->n : p->g; }

void oneshot_grads_sum(const float *grads, int m, NnParams *p, size_t from)
{
    if (!grads)
        return;
    memset(p->g + from, 0, (p->n - from) * sizeof *p->g);
    for (int k = 0; k < m; k++) {
        const float *gk = grads + (size_t)k * p->n;
        for (size_t i = from; i < p->n; i++)
            p->g[i] += gk[i];
    }
}
