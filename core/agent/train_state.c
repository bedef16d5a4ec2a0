/* train_state: what a training checkpoint keeps besides the weights, for
 * every learned placer (train_state.h). */
#include "train_state.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void train_state_init(TrainState *ts, double lr, double entropy, uint64_t seed)
{
    memset(ts, 0, sizeof *ts);
    nn_adam_init(&ts->adam, lr);
    rng_seed(&ts->rng, seed);
    ts->entropy = entropy;
    ts->kept_score = INFINITY;
    ts->kept_episode = -1;
}

void train_state_keep(TrainState *ts, const float *w, size_t n, double score)
{
    if (ts->kept_n != n) {
        free(ts->kept_w);
        ts->kept_w = xnew_array(n, sizeof *ts->kept_w);
        ts->kept_n = n;
    }
    memcpy(ts->kept_w, w, n * sizeof *w);
    ts->kept_score = score;
    ts->kept_episode = ts->episodes;
}

static void best_done(TrainBest *b)
{
    free(b->graph);
    free(b->group_device);
}

void train_state_done(TrainState *ts)
{
    for (int i = 0; i < ts->n_base && i < TRAIN_BASELINE_WINDOW; i++)
        free(ts->base_ret[i]);
    for (int i = 0; i < ts->n_best; i++)
        best_done(&ts->best[i]);
    free(ts->best);
    free(ts->kept_w);
    memset(ts, 0, sizeof *ts);
}

void train_state_keep_progress(TrainState *fresh, TrainState *ts)
{
    fresh->best = ts->best;
    fresh->n_best = ts->n_best;
    fresh->episodes = ts->episodes;
    fresh->simulations = ts->simulations;
    fresh->seconds = ts->seconds;
    ts->best = NULL;
    ts->n_best = 0;
    train_state_done(ts);
    *ts = *fresh;
}

static void best_fresh(TrainBest *b, uint64_t checksum, int n_groups)
{
    b->checksum = checksum;
    b->n_groups = n_groups;
    b->runtime_us = INFINITY;
    b->score = INFINITY;
    b->group_device = xnew_array((size_t)n_groups, sizeof *b->group_device);
    b->found_after = 0;
}

TrainBest *train_best_for(TrainState *ts, const char *graph, uint64_t checksum, int n_groups)
{
    for (int i = 0; i < ts->n_best; i++) {
        TrainBest *b = &ts->best[i];
        if (strcmp(b->graph, graph) != 0)
            continue;
        if (b->checksum != checksum || b->n_groups != n_groups) {
            /* the graph file or its grouping changed: the old best is void */
            free(b->group_device);
            best_fresh(b, checksum, n_groups);
        }
        return b;
    }
    ts->best = xrealloc_array(ts->best, (size_t)(ts->n_best + 1), sizeof *ts->best);
    TrainBest *b = &ts->best[ts->n_best++];
    memset(b, 0, sizeof *b);
    b->graph = xstrdup(graph);
    best_fresh(b, checksum, n_groups);
    return b;
}

const TrainBest *train_best_find(const TrainState *ts, const Graph *g, int n_groups)
{
    for (int i = 0; i < ts->n_best; i++) {
        const TrainBest *b = &ts->best[i];
        if (strcmp(b->graph, g->name) == 0 && b->checksum == g->checksum && b->n_groups == n_groups)
            return b;
    }
    return NULL;
}

/* ---- the per-graph baseline of the one-shot trainers ---- */

void train_state_set_baseline(TrainState *ts, int graph, int n_graphs, double b)
{
    if (ts->n_base != 1 || ts->base_len[0] != n_graphs) {
        double *old = ts->n_base == 1 ? ts->base_ret[0] : NULL;
        int n_old = ts->n_base == 1 ? ts->base_len[0] : 0;
        double *nb = xnew_array((size_t)n_graphs, sizeof *nb);
        for (int i = 0; i < n_graphs; i++)
            nb[i] = i < n_old ? old[i] : TRAIN_BASELINE_START;
        for (int i = 0; i < ts->n_base; i++)
            free(ts->base_ret[i]);
        ts->n_base = 1;
        ts->base_len[0] = n_graphs;
        ts->base_ret[0] = nb;
    }
    ts->base_ret[0][graph] = b;
}

int train_state_draw_graph(TrainState *ts, int n_graphs)
{
    return n_graphs > 1 ? (int)rng_below(&ts->rng, (uint64_t)n_graphs) : 0;
}

double train_state_baseline(const TrainState *ts, int graph)
{
    return ts->n_base == 1 && graph < ts->base_len[0] ? ts->base_ret[0][graph] : TRAIN_BASELINE_START;
}

void train_best_verify(TrainState *ts, const EpisodeConfig *env, const TrainGraph *graphs, int n_graphs,
                       const Cluster *c)
{
    for (int i = 0; i < n_graphs; i++) {
        const TrainGraph *tg = &graphs[i];
        TrainBest *b = (TrainBest *)train_best_find(ts, tg->g, tg->gr->n_groups);
        if (!b || !b->group_device || !isfinite(b->runtime_us))
            continue; /* none found yet */
        int ok = 1;
        for (int k = 0; k < b->n_groups && ok; k++)
            ok = b->group_device[k] >= 0 && b->group_device[k] < c->n_devices;
        if (!ok) { /* a placement for another cluster: nothing found on this one yet */
            free(b->group_device);
            best_fresh(b, b->checksum, b->n_groups);
            continue;
        }
        Sim *sim = sim_new(tg->g, c);
        int *op = XMALLOC(int, tg->g->n_nodes);
        group_expand(tg->gr, b->group_device, op);
        const SimResult *r = sim_run(sim, op);
        b->runtime_us = r->makespan_us;
        b->score = episode_score(env, c, r);
        free(op);
        sim_free(sim);
    }
}

int train_best_offer(TrainBest *b, double score, double runtime_us, const int *group_device, int64_t found_after)
{
    if (!(score < b->score))
        return 0;
    b->score = score;
    b->runtime_us = runtime_us;
    memcpy(b->group_device, group_device, (size_t)b->n_groups * sizeof *b->group_device);
    b->found_after = found_after;
    return 1;
}
