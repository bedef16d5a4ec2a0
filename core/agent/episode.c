/* episode: the MDP and the episode API (see episode.h). */
#include "episode.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void episode_config_default(EpisodeConfig *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->passes = 1;
    cfg->random_order = 0;
    cfg->init = EPISODE_INIT_RANDOM_FIXED;
    cfg->oom_penalty = 2.0;
    cfg->log_runtime = 0;
    cfg->mem_feature = 0;
    cfg->extended_features = 0;
    cfg->relative_reward = 0;
    cfg->accept_improving = 0;
    cfg->reject_zero = 0;
}

/* The static data of the extended features: bottom levels and the
 * undirected group adjacency with bytes. */
static void static_features(Episode *ep)
{
    const Grouping *gr = ep->gr;
    int n = gr->n_groups;
    ep->blevel = xnew_array((size_t)n, sizeof *ep->blevel);
    group_bottom_levels(gr, ep->blevel);
    ep->total_cost = 0;
    for (int k = n - 1; k >= 0; k--) /* in the order it always was summed */
        ep->total_cost += gr->cost_us[k];
    ep->nbr_off = xnew_array((size_t)n + 1, sizeof *ep->nbr_off);
    for (int k = 0; k < n; k++)
        for (int j = gr->succ_off[k]; j < gr->succ_off[k + 1]; j++) {
            ep->nbr_off[k + 1]++;
            ep->nbr_off[gr->succ[j] + 1]++;
        }
    for (int k = 0; k < n; k++)
        ep->nbr_off[k + 1] += ep->nbr_off[k];
    size_t m = (size_t)ep->nbr_off[n];
    ep->nbr = xnew_array(m, sizeof *ep->nbr);
    ep->nbr_bytes = xnew_array(m, sizeof *ep->nbr_bytes);
    int *fill = xnew_array((size_t)n, sizeof *fill);
    for (int k = 0; k < n; k++)
        for (int j = gr->succ_off[k]; j < gr->succ_off[k + 1]; j++) {
            int t = gr->succ[j];
            int a = ep->nbr_off[k] + fill[k]++, b = ep->nbr_off[t] + fill[t]++;
            ep->nbr[a] = t;
            ep->nbr[b] = k;
            ep->nbr_bytes[a] = ep->nbr_bytes[b] = (double)gr->succ_bytes[j];
        }
    free(fill);
}

double episode_score(const EpisodeConfig *cfg, const Cluster *c, const SimResult *r)
{
    double s = r->makespan_us / 1e6, over = 0;
    if (cfg->oom_fullest) { /* the fullest device over one cap */
        double peak = 0;
        for (int d = 0; d < c->n_devices; d++)
            if ((double)r->peak_memory_bytes[d] > peak)
                peak = (double)r->peak_memory_bytes[d];
        over = peak / 1e9 > cfg->max_mem_gb ? peak / 1e9 - cfg->max_mem_gb : 0;
    } else {
        for (int d = 0; d < c->n_devices; d++) {
            double x = (double)r->peak_memory_bytes[d] - (double)c->devices[d].memory_bytes;
            if (x > 0)
                over += x / 1e9;
        }
    }
    s += cfg->oom_penalty * over;
    if (cfg->runtime_cap > 0 && s > cfg->runtime_cap)
        s = cfg->runtime_cap;
    return cfg->log_runtime ? log(s > 0 ? s : 1e-12) : s;
}

Episode *episode_new(const Graph *g, const Grouping *gr, const Cluster *c, const PolicyGraph *pg,
                     const EpisodeConfig *cfg, uint64_t seed, const int *init_device, Err *e)
{
    if (pg && pg->n != gr->n_groups) {
        err_set(e, "the policy graph has %d nodes but the grouping %d groups", pg->n, gr->n_groups);
        return NULL;
    }
    if (c->n_devices > POLICY_MAX_DEVICES) {
        err_set(e, "%d devices: episodes handle at most %d", c->n_devices, POLICY_MAX_DEVICES);
        return NULL;
    }
    if (cfg->passes < 1 || cfg->passes > 1000) {
        err_set(e, "passes must be in [1, 1000], got %d", cfg->passes);
        return NULL;
    }
    Episode *ep = xcalloc(1, sizeof *ep);
    ep->g = g;
    ep->gr = gr;
    ep->c = c;
    ep->pg = pg;
    ep->cfg = *cfg;
    ep->n_groups = gr->n_groups;
    ep->n_devices = c->n_devices;
    ep->n_features = policy_n_features(c->n_devices, cfg->mem_feature, cfg->extended_features);
    size_t n = (size_t)gr->n_groups;
    ep->n_order = cfg->passes * gr->n_groups;
    ep->order = xmalloc_array((size_t)ep->n_order, sizeof *ep->order);
    ep->group_device = xnew_array(n, sizeof *ep->group_device);
    ep->op_device = xnew_array((size_t)g->n_nodes, sizeof *ep->op_device);
    ep->init_device = xnew_array(n, sizeof *ep->init_device);
    ep->visits = xnew_array(n, sizeof *ep->visits);
    ep->group_start = xnew_array(n, sizeof *ep->group_start);
    ep->group_peak = xnew_array(n, sizeof *ep->group_peak);
    ep->best_device = xnew_array(n, sizeof *ep->best_device);
    ep->feats = xmalloc_array(n * (size_t)ep->n_features, sizeof *ep->feats);
    ep->temperature = 1.0;
    ep->sim = sim_new(g, c);
    if (cfg->accept_improving) {
        ep->sim_spare = sim_new(g, c);
        ep->save_start = xnew_array(n, sizeof *ep->save_start);
        ep->save_peak = xnew_array(n, sizeof *ep->save_peak);
    }
    static_features(ep);
    episode_reset(ep, seed, init_device);
    return ep;
}

void episode_free(Episode *ep)
{
    if (!ep)
        return;
    free(ep->hist);
    free(ep->hist_probs);
    free(ep->order);
    free(ep->group_device);
    free(ep->op_device);
    free(ep->init_device);
    free(ep->visits);
    free(ep->group_start);
    free(ep->group_peak);
    free(ep->best_device);
    free(ep->feats);
    free(ep->blevel);
    free(ep->nbr_off);
    free(ep->nbr);
    free(ep->nbr_bytes);
    free(ep->save_start);
    free(ep->save_peak);
    sim_free(ep->sim_spare);
    sim_free(ep->sim);
    free(ep);
}

/* Simulates the current placement; count: whether it is a new placement
 * (counted, and a candidate for the best) or a revisit (undo, redo). The
 * simulator starts again from its record of the last placement it ran,
 * from just before the moved group's ops make a difference (sim_run_from:
 * the same result as a whole simulation). */
static void simulate(Episode *ep, int count)
{
    const Grouping *gr = ep->gr;
    group_expand(gr, ep->group_device, ep->op_device);
    const SimResult *r = sim_run_from(ep->sim, ep->op_device);
    ep->result = r;
    ep->runtime_us = r->makespan_us;
    ep->score = episode_score(&ep->cfg, ep->c, r);
    ep->oom = r->any_oom;
    for (int k = 0; k < ep->n_groups; k++) {
        double s = INFINITY, s_all = INFINITY;
        for (int j = gr->member_off[k]; j < gr->member_off[k + 1]; j++) {
            int op = gr->members[j];
            if (r->start_us[op] < s_all)
                s_all = r->start_us[op];
            if (!gr->held[op] && r->start_us[op] < s)
                s = r->start_us[op];
        }
        ep->group_start[k] = isfinite(s) ? s : isfinite(s_all) ? s_all : 0;
        int64_t cap = ep->c->devices[ep->group_device[k]].memory_bytes;
        ep->group_peak[k] = cap > 0 ? (double)gr->bytes[k] / (double)cap : 0;
    }
    if (!count)
        return;
    ep->simulations++;
    if (ep->score < ep->best_score) {
        ep->best_score = ep->score;
        ep->best_runtime_us = ep->runtime_us;
        ep->best_at = ep->simulations;
        memcpy(ep->best_device, ep->group_device, (size_t)ep->n_groups * sizeof *ep->best_device);
    }
}

void episode_simulate(Episode *ep)
{
    simulate(ep, 1);
}

void episode_reset(Episode *ep, uint64_t seed, const int *init_device)
{
    int n = ep->n_groups, nd = ep->n_devices;
    ep->seed = seed;
    rng_seed(&ep->rng, seed);
    Rng r0;
    EpisodeInit mode = ep->cfg.init;
    if (mode == EPISODE_INIT_GIVEN && !init_device) /* nothing given yet: the default start */
        mode = EPISODE_INIT_RANDOM_FIXED;
    switch (mode) {
    case EPISODE_INIT_RANDOM_FIXED:
        rng_seed(&r0, 0);
        for (int k = 0; k < n; k++)
            ep->init_device[k] = (int)rng_below(&r0, (uint64_t)nd);
        break;
    case EPISODE_INIT_RANDOM_EACH:
        rng_seed(&r0, seed ^ 0x9e3779b97f4a7c15ULL);
        for (int k = 0; k < n; k++)
            ep->init_device[k] = (int)rng_below(&r0, (uint64_t)nd);
        break;
    case EPISODE_INIT_GIVEN:
        memcpy(ep->init_device, init_device, (size_t)n * sizeof *ep->init_device);
        break;
    case EPISODE_INIT_DEVICE0:
        memset(ep->init_device, 0, (size_t)n * sizeof *ep->init_device);
        break;
    }
    memcpy(ep->group_device, ep->init_device, (size_t)n * sizeof *ep->group_device);
    for (int p = 0; p < ep->cfg.passes; p++) {
        int *o = ep->order + (size_t)p * (size_t)n;
        for (int k = 0; k < n; k++)
            o[k] = k;
        if (ep->cfg.random_order)
            for (int k = n - 1; k > 0; k--) {
                int j = (int)rng_below(&ep->rng, (uint64_t)k + 1), t = o[k];
                o[k] = o[j];
                o[j] = t;
            }
    }
    ep->cursor = 0;
    memset(ep->visits, 0, (size_t)n * sizeof *ep->visits);
    ep->n_hist = ep->n_redo = 0;
    ep->simulations = 0;
    ep->best_score = INFINITY;
    ep->best_runtime_us = INFINITY;
    simulate(ep, 1);
    ep->init_runtime_us = ep->runtime_us;
    ep->init_score = ep->score;
}

/* The extended columns of every row (docs/agent.md, "Features"). */
static void extended_features(const Episode *ep, float *out)
{
    int n = ep->n_groups, F = ep->n_features, nd = ep->n_devices;
    int x = policy_ext_offset(nd, ep->cfg.mem_feature);
    const Grouping *gr = ep->gr;
    const SimResult *r = ep->result;
    double load[POLICY_MAX_DEVICES] = {0}, mem[POLICY_MAX_DEVICES] = {0};
    for (int k = 0; k < n; k++)
        load[ep->group_device[k]] += gr->cost_us[k];
    double share = ep->total_cost > 0 ? ep->total_cost / nd : 0;
    for (int d = 0; d < nd; d++) {
        load[d] = share > 0 ? load[d] / share : 0;
        int64_t cap = ep->c->devices[d].memory_bytes;
        mem[d] = r && cap > 0 ? (double)r->peak_memory_bytes[d] / (double)cap : 0;
    }
    double span = ep->runtime_us > 0 ? ep->runtime_us : 0;
    for (int k = 0; k < n; k++) {
        float *row = out + (size_t)k * (size_t)F + x;
        int dev = ep->group_device[k];
        double crit = span > 0 ? (ep->group_start[k] + ep->blevel[k]) / span : 0;
        row[POLICY_FX_CRIT] = (float)(crit < 2 ? crit : 2);
        row[POLICY_FX_LOAD] = (float)load[dev];
        row[POLICY_FX_MEM] = (float)(mem[dev] < 4 ? mem[dev] : 4);
        double nb[POLICY_MAX_DEVICES] = {0}, tot = 0;
        for (int j = ep->nbr_off[k]; j < ep->nbr_off[k + 1]; j++) {
            nb[ep->group_device[ep->nbr[j]]] += ep->nbr_bytes[j];
            tot += ep->nbr_bytes[j];
        }
        for (int d = 0; d < nd; d++)
            row[POLICY_FX_NBR + d] = (float)(tot > 0 ? nb[d] / tot : 0);
    }
}

void episode_features(const Episode *ep, int v, float *out)
{
    int n = ep->n_groups, F = ep->n_features, nd = ep->n_devices;
    const Grouping *gr = ep->gr;
    double mx_cost = 0, mx_bytes = 0, mx_start = 0, v_start = v >= 0 ? ep->group_start[v] : 0;
    for (int k = 0; k < n; k++) {
        double s = fabs(ep->group_start[k] - v_start);
        if (gr->cost_us[k] > mx_cost)
            mx_cost = gr->cost_us[k];
        if ((double)gr->bytes[k] > mx_bytes)
            mx_bytes = (double)gr->bytes[k];
        if (s > mx_start)
            mx_start = s;
    }
    for (int k = 0; k < n; k++) {
        float *row = out + (size_t)k * (size_t)F;
        double start = ep->group_start[k] - v_start;
        row[POLICY_F_COST] = (float)(mx_cost > 0 ? gr->cost_us[k] / mx_cost : gr->cost_us[k]);
        row[POLICY_F_BYTES] = (float)(mx_bytes > 0 ? (double)gr->bytes[k] / mx_bytes : 0);
        row[POLICY_F_VISITS] = (float)ep->visits[k];
        row[POLICY_F_CURRENT] = k == v ? 1.0f : 0.0f;
        row[POLICY_F_START] = (float)(mx_start > 0 ? start / mx_start : start);
        for (int d = 0; d < nd; d++)
            row[POLICY_F_DEVICE + d] = ep->group_device[k] == d ? 1.0f : 0.0f;
        if (ep->cfg.mem_feature)
            row[POLICY_F_DEVICE + nd] = (float)ep->group_peak[k];
    }
    if (ep->cfg.extended_features)
        extended_features(ep, out);
}

EpisodeStep *episode_push(Episode *ep, const EpisodeStep *s, const float *probs)
{
    size_t nd = (size_t)ep->n_devices;
    ep->n_redo = 0;
    if (ep->n_hist == ep->cap_hist) {
        /* entry i's probabilities live at hist_probs + i nd: both grow
         * together, and the entries point into the moved block */
        ep->cap_hist = ep->cap_hist ? 2 * ep->cap_hist : 256;
        ep->hist = xrealloc_array(ep->hist, (size_t)ep->cap_hist, sizeof *ep->hist);
        ep->hist_probs = xrealloc_array(ep->hist_probs, xmul((size_t)ep->cap_hist, nd), sizeof *ep->hist_probs);
        for (int i = 0; i < ep->n_hist; i++)
            if (ep->hist[i].probs)
                ep->hist[i].probs = ep->hist_probs + (size_t)i * nd;
    }
    int i = ep->n_hist++;
    EpisodeStep *h = &ep->hist[i];
    *h = *s;
    h->probs = NULL;
    if (probs) {
        h->probs = ep->hist_probs + (size_t)i * nd;
        memcpy(h->probs, probs, nd * sizeof *h->probs);
    }
    return h;
}

/* The reward of a change from score `before` to `after`. */
static double episode_reward(const Episode *ep, double before, double after)
{
    double r = before - after;
    if (ep->cfg.relative_reward && ep->init_score != 0)
        r /= fabs(ep->init_score);
    return r;
}

/* accept_improving: simulates the moved placement on the spare simulator
 * and keeps it unless its score is worse; a rejected move is undone and the
 * state before it restored without simulating again. The move's own
 * simulation is counted either way; s->new_device tells which happened.
 * Returns the candidate's score. (A no-op never comes here: move.) */
static double try_move(Episode *ep, EpisodeStep *s)
{
    size_t n = (size_t)ep->n_groups;
    double runtime = ep->runtime_us, score = ep->score;
    int oom = ep->oom;
    const SimResult *result = ep->result;
    memcpy(ep->save_start, ep->group_start, n * sizeof *ep->save_start);
    memcpy(ep->save_peak, ep->group_peak, n * sizeof *ep->save_peak);
    Sim *cur = ep->sim;
    ep->sim = ep->sim_spare;
    ep->sim_spare = cur;
    simulate(ep, 1);
    if (ep->score <= score)
        return ep->score; /* kept: the spare simulator is now the current one */
    double candidate = ep->score;
    ep->sim_spare = ep->sim; /* rejected: back to where it was */
    ep->sim = cur;
    ep->group_device[s->group] = s->new_device = s->old_device;
    group_expand(ep->gr, ep->group_device, ep->op_device);
    ep->result = result;
    ep->runtime_us = runtime;
    ep->oom = oom;
    memcpy(ep->group_start, ep->save_start, n * sizeof *ep->group_start);
    memcpy(ep->group_peak, ep->save_peak, n * sizeof *ep->group_peak);
    ep->score = score;
    return candidate;
}

/* The placement after step s (its group already on s->new_device) and its
 * score: a no-op (the group's own device) is the placement as it was, with
 * its score, and simulates nothing (no placement of the budget spent: its
 * reward is 0 whatever the settings); a move is simulated (try_move under
 * accept_improving). */
static double move(Episode *ep, EpisodeStep *s)
{
    if (s->new_device == s->old_device)
        return ep->score;
    if (ep->sim_spare)
        return try_move(ep, s);
    simulate(ep, 1);
    return ep->score;
}

const EpisodeStep *episode_step_choice(Episode *ep, int device, const float *probs, int greedy,
                                       const Rng *rng_before)
{
    int v = episode_current(ep);
    if (v < 0 || device < 0 || device >= ep->n_devices)
        return NULL;
    EpisodeStep s;
    memset(&s, 0, sizeof s);
    s.rng_before = *rng_before;
    s.rng_after = ep->rng;
    s.cursor = ep->cursor;
    s.group = v;
    s.old_device = ep->group_device[v];
    s.new_device = s.proposed = device;
    s.actor = EPISODE_ACTOR_POLICY;
    s.takes_step = 1;
    s.greedy = greedy;
    double before = ep->score;
    ep->group_device[v] = device;
    ep->visits[v]++;
    ep->cursor++;
    double after = move(ep, &s); /* the candidate's score, kept or undone */
    /* reject_zero: the reward of what the episode kept (0 for an undone move) */
    s.reward = episode_reward(ep, before, ep->cfg.reject_zero ? ep->score : after);
    s.runtime_us = ep->runtime_us;
    return episode_push(ep, &s, probs);
}

const EpisodeStep *episode_override(Episode *ep, int group, int device, Err *e)
{
    if (group < 0 || group >= ep->n_groups) {
        err_set(e, "group %d does not exist (the graph has %d groups)", group, ep->n_groups);
        return NULL;
    }
    if (device < 0 || device >= ep->n_devices) {
        err_set(e, "device %d does not exist (the cluster has %d devices)", device, ep->n_devices);
        return NULL;
    }
    EpisodeStep s;
    memset(&s, 0, sizeof s);
    s.rng_before = s.rng_after = ep->rng;
    s.cursor = ep->cursor;
    s.group = group;
    s.old_device = ep->group_device[group];
    s.new_device = s.proposed = device;
    s.actor = EPISODE_ACTOR_USER;
    s.takes_step = !episode_done(ep) && ep->order[ep->cursor] == group;
    double before = ep->score;
    ep->group_device[group] = device;
    if (s.takes_step) {
        ep->cursor++;
        ep->visits[group]++;
    }
    if (s.new_device != s.old_device) /* a no-op simulates nothing */
        simulate(ep, 1);
    s.runtime_us = ep->runtime_us;
    s.reward = episode_reward(ep, before, ep->score);
    return episode_push(ep, &s, NULL);
}

int episode_undo(Episode *ep)
{
    if (ep->n_hist == 0)
        return -1;
    const EpisodeStep *s = &ep->hist[ep->n_hist - 1];
    ep->group_device[s->group] = s->old_device;
    if (s->takes_step) {
        ep->cursor = s->cursor;
        ep->visits[s->group]--;
    }
    ep->rng = s->rng_before;
    ep->n_hist--;
    ep->n_redo++;
    simulate(ep, 0);
    return 0;
}

int episode_redo(Episode *ep)
{
    if (ep->n_redo == 0)
        return -1;
    const EpisodeStep *s = &ep->hist[ep->n_hist];
    ep->group_device[s->group] = s->new_device;
    if (s->takes_step) {
        ep->cursor = s->cursor + 1;
        ep->visits[s->group]++;
    }
    ep->rng = s->rng_after;
    ep->n_hist++;
    ep->n_redo--;
    simulate(ep, 0);
    return 0;
}

int episode_check_state(const Episode *ep, char *field, size_t fieldn, Err *e)
{
    int total = ep->n_hist + ep->n_redo, taken = 0, rc = 0;
    int *visits = xnew_array((size_t)ep->n_groups, sizeof *visits);
    field[0] = '\0';
    for (int i = 0; i < total && rc == 0; i++) {
        const EpisodeStep *s = &ep->hist[i];
        if (s->cursor != taken) {
            snprintf(field, fieldn, "history[%d].cursor", i);
            rc = err_set(e, "expected %d (the steps taken before this entry), got %d", taken, s->cursor);
        } else if (!isfinite(s->runtime_us) || !isfinite(s->reward)) {
            snprintf(field, fieldn, "history[%d]", i);
            rc = err_set(e, "a non-finite runtime or reward");
        }
        if (s->takes_step) {
            taken++;
            if (i < ep->n_hist)
                visits[s->group]++;
        }
        if (i + 1 == ep->n_hist && rc == 0 && ep->cursor != taken) {
            snprintf(field, fieldn, "cursor");
            rc = err_set(e, "expected %d (the steps taken in the history before redo), got %d", taken, ep->cursor);
        }
    }
    if (rc == 0 && ep->n_hist == 0 && ep->cursor != 0) {
        snprintf(field, fieldn, "cursor");
        rc = err_set(e, "expected 0 (no step taken in the history), got %d", ep->cursor);
    }
    for (int k = 0; k < ep->n_groups && rc == 0; k++)
        if (ep->visits[k] != visits[k]) {
            snprintf(field, fieldn, "visits[%d]", k);
            rc = err_set(e, "expected %d (the steps of group \"%s\" in the history before redo), got %d", visits[k],
                         ep->gr->names[k], ep->visits[k]);
        }
    if (rc == 0 && (!isfinite(ep->best_runtime_us) || !isfinite(ep->best_score))) {
        snprintf(field, fieldn, "best");
        rc = err_set(e, "no finite best runtime and score");
    }
    free(visits);
    return rc;
}
