/* app: the explorer's model (see app.h): loading and freeing, the cache
 * derived from the episode and the policy, the message line and the
 * baselines (saving and exports: app_files.c). */
#include "app.h"
#include "app_race.h"
#include "data.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bound.h"
#include "place.h"
#include "placeto_place.h"
#include "why.h"

void app_msg(App *a, int style, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->msg.text, sizeof a->msg.text, fmt, ap);
    va_end(ap);
    a->msg.style = style;
}

/* ------------------------------------------------------------------ */
/* Loading                                                             */

/* The stem of the graph file's name: no directory, no ".json", only letters,
 * digits, '.', '-' and '_' (others become '_'), never starting with '.'; so
 * a file's name, never its content, chooses where the explorer writes. */
static char *file_stem(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".json") == 0)
        n -= 5;
    char *s = xmalloc(n + 8);
    size_t k = 0;
    if (n == 0 || base[0] == '.')
        k = (size_t)snprintf(s, 8, "graph");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)base[i];
        s[k++] = (isalnum(c) || c == '.' || c == '-' || c == '_') ? (char)c : '_';
    }
    s[k] = 0;
    return s;
}

/* Loads the policy at path, or makes an untrained one (seed 1) without a
 * path; with a resumed episode's configuration cfg, the policy must read the
 * features that episode gives (an untrained one is built for them). An rnn
 * or gdp policy file loads that placer (app_actor.c); every policy is
 * stepped through its agent's actor table. */
static int load_policy(App *a, const char *path, const EpisodeConfig *cfg, Err *e)
{
    AppPolicy *p = &a->policy;
    if (!path) {
        PolicyArch arch;
        policy_arch_for(&arch, a->data.pb.c->n_devices, cfg ? cfg->mem_feature : 0, cfg ? cfg->extended_features : 0);
        p->kind = agent_find("placeto");
        p->pol = policy_new(&arch, 1, e);
        return p->pol ? 0 : -1;
    }
    AgentPolicy ap; /* read and parsed once: the command line's look at it is the same */
    if (agent_policy_take(path, &ap, e) != 0)
        return -1;
    p->checksum = ap.checksum;
    if (ap.kind->actor && strcmp(ap.kind->name, "placeto") != 0) {
        int rc = app_actor_load(a, &ap, e);
        agent_policy_close(&ap);
        if (rc != 0)
            return -1;
        p->path = xstrdup(path);
        return 0;
    }
    if (!ap.kind->actor) {
        err_set(e, "%s: the explorer steps Placeto's policy and the agents with an explorer actor; %s policy has "
                   "none", path, ap.kind->a_name);
        agent_policy_close(&ap);
        return -1;
    }
    p->kind = ap.kind;
    p->pol = ap.net;
    ap.net = NULL; /* ours */
    agent_policy_close(&ap);
    if (p->pol->arch.n_devices != a->data.pb.c->n_devices) {
        err_set(e, "%s: the policy is for %d devices but the cluster has %d (use --devices %d)", path,
                p->pol->arch.n_devices, a->data.pb.c->n_devices, p->pol->arch.n_devices);
        return -1;
    }
    if (cfg && placeto_episode_check(cfg, &p->pol->arch, a->data.pb.c->n_devices, e) != 0) {
        err_prefix(e, path);
        return -1;
    }
    p->path = xstrdup(path);
    return 0;
}

/* load_policy for the policy an episode file names (episode: its path,
 * NULL when the command line chose the policy): an error names the
 * episode and its field first, since the user gave the episode. */
static int load_policy_named(App *a, const char *path, const char *episode, const EpisodeConfig *cfg, Err *e)
{
    if (load_policy(a, path, cfg, e) == 0)
        return 0;
    if (episode && path) {
        char pre[4200];
        snprintf(pre, sizeof pre, "%s: policy.path", episode);
        err_prefix(e, pre);
    }
    return -1;
}

/* The distinctive part of a path segment: what follows its leading letters
 * and underscores when that holds a digit ("Mixed_6b" -> "6b",
 * "branch7x7_1" -> "7x7_1"), else the segment. */
static size_t segment_skip(const char *s, size_t len)
{
    size_t k = 0;
    while (k < len && (isalpha((unsigned char)s[k]) || s[k] == '_'))
        k++;
    for (size_t j = k; j < len; j++)
        if (isdigit((unsigned char)s[j]))
            return k;
    return 0;
}

/* A box's label of w cells for the short name label: the name when it
 * fits; else every segment but the last (split at '.' and '/') cut to its
 * distinctive part, so that "Mixed_6b.branch7x7_1.bn" reads "6b.7x7_1.bn"
 * instead of the same "Mixed_~.bn" for every branch (the renderer still
 * cuts the middle of what does not fit). */
static char *box_label(const char *label, int w)
{
    size_t n = strlen(label);
    if ((int)n <= w)
        return xstrdup(label);
    char *out = xmalloc(n + 1);
    size_t o = 0, start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && label[i] != '.' && label[i] != '/')
            continue;
        size_t skip = i < n ? segment_skip(label + start, i - start) : 0; /* the last segment whole */
        memcpy(out + o, label + start + skip, i - start - skip);
        o += i - start - skip;
        if (i < n)
            out[o++] = label[i];
        start = i + 1;
    }
    out[o] = '\0';
    return out;
}

/* The group graph's layouts (AppData.dag_all and dag_fold), computed in a
 * thread of their own from the moment the grouping is there, while the
 * start placement is chosen and the episode is built: those read the graph,
 * the grouping and the cluster, as the layouts do, and none of them writes
 * any. With them the figures the first frame shows beside the placement:
 * the lower bound and, when the problem was loaded without its simulator,
 * the simulator and the runtime of every op on the fastest device. On a
 * 100 000-op graph these and the best heuristic's simulations then share
 * two cores instead of taking turns. The results are the same as computed
 * in line. */
struct AppLayouts {
    const Graph *g;
    const Grouping *gr;
    const Cluster *c;
    int make_sim;      /* 1: create the problem's simulator (sim) and single_us */
    DagLayout *all, *fold;
    Sim *sim;
    double lower_bound_us, single_us;
    pthread_t thread;
    int running; /* the thread was started and not joined */
};

/* The runtime of every op on the fastest device. */
static double single_device_us(const Graph *g, const Cluster *c, Sim *sim)
{
    int *dev = xnew_array((size_t)g->n_nodes, sizeof *dev);
    int fast = place_fastest_device(c);
    for (int i = 0; i < g->n_nodes; i++)
        dev[i] = fast;
    double us = sim_makespan(sim, dev);
    free(dev);
    return us;
}

static void layouts_compute(struct AppLayouts *j)
{
    j->lower_bound_us = bound_lower(j->g, j->c);
    if (j->make_sim) {
        j->sim = sim_new(j->g, j->c);
        j->single_us = single_device_us(j->g, j->c, j->sim);
    }
    int n = j->gr->n_groups;
    j->all = dag_layout(n, j->gr->succ_off, j->gr->succ, NULL);
    int *host = xnew_array((size_t)n + 1, sizeof *host);
    DagOptions fold_opt; /* the forward pass alone is narrow: room for longer labels */
    dag_options_default(&fold_opt);
    fold_opt.label_width = DAG_FOLD_LABEL_WIDTH;
    if (dag_fold_training(j->g, j->gr, host) > 0)
        j->fold = dag_layout_folded(n, j->gr->succ_off, j->gr->succ, host, &fold_opt);
    free(host);
}

static void *layouts_main(void *arg)
{
    layouts_compute(arg);
    return NULL;
}

/* Starts the layouts of the loaded grouping (in line later when no thread
 * can be started). */
static void layouts_start(App *a)
{
    struct AppLayouts *j = xcalloc(1, sizeof *j);
    j->g = a->data.pb.g;
    j->gr = a->data.pb.gr;
    j->c = a->data.pb.c;
    j->make_sim = a->data.pb.sim == NULL;
    a->data.layouts = j;
    j->running = pthread_create(&j->thread, NULL, layouts_main, j) == 0;
}

/* Waits for the layouts (or computes them) and hands them to AppData. */
static void layouts_take(App *a)
{
    if (!a->data.layouts)
        layouts_start(a);
    struct AppLayouts *j = a->data.layouts;
    if (j->running)
        pthread_join(j->thread, NULL);
    else
        layouts_compute(j);
    a->data.dag_all = j->all;
    a->data.dag_fold = j->fold;
    a->data.lower_bound_us = j->lower_bound_us;
    if (j->make_sim) {
        a->data.pb.sim = j->sim;
        a->data.single_us = j->single_us;
    } else {
        a->data.single_us = single_device_us(a->data.pb.g, a->data.pb.c, a->data.pb.sim);
    }
    a->data.layouts = NULL;
    free(j);
}

/* Waits for a thread still computing layouts that nobody will take (a load
 * that failed after starting it) and frees them. */
static void layouts_drop(App *a)
{
    struct AppLayouts *j = a->data.layouts;
    if (!j)
        return;
    if (j->running)
        pthread_join(j->thread, NULL);
    dag_free(j->all);
    dag_free(j->fold);
    sim_free(j->sim);
    free(j);
    a->data.layouts = NULL;
}

/* What every way of loading shares once graph, cluster, grouping, policy and
 * episode exist. */
static void finish_load(App *a)
{
    AppData *d = &a->data;
    int n = d->pb.gr->n_groups;
    d->labels = xnew_array((size_t)n, sizeof *d->labels);
    for (int k = 0; k < n; k++)
        d->labels[k] = dag_short_label(d->pb.gr->names[k]);
    layouts_take(a);
    d->dag = d->dag_fold ? d->dag_fold : d->dag_all;
    a->view.fold = d->dag_fold != NULL;
    for (int k = 0; k < 2; k++) {
        const DagLayout *L = k ? d->dag_fold : d->dag_all;
        if (!L)
            continue;
        d->box_labels[k] = xnew_array((size_t)n, sizeof *d->box_labels[k]);
        for (int u = 0; u < n; u++)
            d->box_labels[k][u] = box_label(d->labels[u], dag_geom(L, DAG_FULL)->label_w);
    }
    if (!app_placeto_insides(a))
        a->cache.attention = xnew_array((size_t)n, sizeof *a->cache.attention);
    a->cache.feats = xnew_array(APP_FEATURE_ROWS * (size_t)d->ep->n_features, sizeof *a->cache.feats);
    app_cache_update(a);
    a->view.zoom = DAG_FULL;
    a->view.follow = 1;
    a->view.maximized = -1;
    a->run.speed = 10;
    a->view.selected = episode_current(d->ep) >= 0 ? episode_current(d->ep) : 0;
    if (!a->files.stem)
        a->files.stem = file_stem(d->pb.g->path ? d->pb.g->path : "graph");
    if (!a->files.episode) {
        size_t n_ep = strlen(a->files.stem) + 16;
        a->files.episode = xmalloc(n_ep);
        snprintf(a->files.episode, n_ep, "%s.episode.json", a->files.stem);
    }
    app_name_autosave(a);
    pthread_mutex_init(&a->train.lock, NULL);
    a->train.lock_ready = 1;
    a->run.last_autosave = util_now();
}

App *app_new(const AppOptions *o, Err *e)
{
    App *a = xcalloc(1, sizeof *a);
    a->run.greedy = o->greedy;
    a->tour.stage = -1;
    a->tour.left = -1;
    a->tour.pending = -1;
    const char *load_path = o->resume_path ? o->resume_path : o->replay_path;
    if (load_path) {
        EpisodeFile f;
        if (episode_load(load_path, &f, e) != 0) {
            free(a);
            return NULL;
        }
        a->data.pb = f.pb;
        a->data.pg = f.pg;
        a->data.ep = f.ep;
        layouts_start(a);
        const char *pp = o->policy_path ? o->policy_path : f.policy_path;
        /* a file holds counters up to 2^53; stepping on continues only from 2^52 (see agent.h) */
        int64_t past = f.ep->simulations > AGENT_RESUME_MAX ? f.ep->simulations
                       : f.ep->best_at > AGENT_RESUME_MAX   ? f.ep->best_at
                                                            : -1;
        if ((past >= 0 && err_set(e, "%s: %s is %lld, past 2^52 = %lld, the most an episode may continue from (a "
                                     "file holds counters up to 2^53)", load_path,
                                  past == f.ep->simulations ? "simulations" : "best.found_after", (long long)past,
                                  (long long)AGENT_RESUME_MAX) < 0) ||
            load_policy_named(a, pp, o->policy_path ? NULL : load_path, &f.ep->cfg, e) != 0 || app_actor_attach(a, f.ep, load_path, e) != 0 ||
            (!o->policy_path && f.policy_path && a->policy.checksum != f.policy_checksum &&
             err_set(e, "%s: the policy file %s changed since the episode was saved (checksum %016llx, expected %016llx)",
                     load_path, f.policy_path, (unsigned long long)a->policy.checksum,
                     (unsigned long long)f.policy_checksum) < 0)) {
            free(f.policy_path);
            a->data.ep = NULL;
            episode_free(f.ep);
            app_free(a);
            return NULL;
        }
        free(f.policy_path);
        /* s saves back to the resumed file, or where --save says (the resumed one is then kept) */
        int elsewhere = o->resume_path && o->episode_path && !util_same_file(o->episode_path, load_path);
        a->files.resumed = xstrdup(load_path);
        a->files.episode = xstrdup(elsewhere ? o->episode_path : load_path);
        a->files.owned = o->resume_path && !elsewhere;
        if (o->replay_path) {
            while (episode_undo(a->data.ep) == 0)
                ;
            a->replay.active = 1;
        }
        finish_load(a);
        if (a->replay.active) {
            a->run.dirty = 0;
            app_msg(a, GS_GOOD, "replaying %s: %d steps; space/Right forwards, Left/u backwards, Home/End, r plays",
                    load_path, a->data.ep->n_redo);
        } else if (elsewhere) {
            app_msg(a, GS_GOOD, "resumed %s: step %d of %d; s saves to %s (--save), %s is kept as it is", load_path,
                    a->data.ep->cursor, a->data.ep->n_order, a->files.episode, load_path);
        } else {
            app_msg(a, GS_GOOD, "resumed %s: step %d of %d", load_path, a->data.ep->cursor, a->data.ep->n_order);
        }
        return a;
    }
    ProblemSpec spec = {.graph_path = o->graph_path, .cluster_path = o->cluster_path, .n_devices = o->n_devices,
                        .groups = o->groups, .no_sim = 1}; /* the simulator: beside the layouts */
    if (o->cluster) { /* a copy the problem owns */
        spec.cluster = cluster_clone(o->cluster);
        spec.cluster_path = NULL;
    }
    int loaded = problem_load(&a->data.pb, &spec, e);
    if (spec.cluster && a->data.pb.c == spec.cluster)
        a->data.pb.own_cluster = 1;
    else
        cluster_free(spec.cluster);
    if (loaded != 0)
        goto fail;
    layouts_start(a);
    if (!(a->data.pg = policy_graph_new(a->data.pb.gr, e))) {
        err_prefix(e, o->graph_path);
        goto fail;
    }
    if (load_policy(a, o->policy_path, NULL, e) != 0)
        goto fail;
    if (app_actor_attach(a, NULL, NULL, e) != 0)
        goto fail;
    EpisodeConfig cfg;
    int *start = NULL;
    const char *start_name = NULL;
    a->policy.kind->actor->config(app_policy_net(&a->policy), &cfg);
    if (app_placeto_insides(a)) {
        if (a->policy.pol->arch.start_heuristic || o->start_heuristic) { /* trained as a search, or the general
                                                                      policy on one's own graph: from the best
                                                                      heuristic's placement */
            PlaceCtx ctx = {.g = a->data.pb.g, .gr = a->data.pb.gr, .c = a->data.pb.c, .seed = o->seed};
            double score;
            start = xnew_array((size_t)a->data.pb.gr->n_groups, sizeof *start);
            place_best_heuristic(&ctx, start, &score, &start_name);
            cfg.init = EPISODE_INIT_GIVEN;
        }
    }
    a->data.ep = episode_new(a->data.pb.g, a->data.pb.gr, a->data.pb.c, a->data.pg, &cfg, o->seed, start, e);
    free(start);
    if (!a->data.ep)
        goto fail;
    if (o->episode_path)
        a->files.episode = xstrdup(o->episode_path);
    if (o->cluster_path)
        a->files.cluster = xstrdup(o->cluster_path);
    finish_load(a);
    if (!app_placeto_insides(a))
        app_msg(a, GS_NONE, "%s: %d groups on %d devices, the %s policy %s; space steps, ? shows every key",
                a->data.pb.g->name, a->data.pb.gr->n_groups, a->data.pb.c->n_devices, a->policy.kind->name,
                a->policy.kind->actor->start);
    else if (start_name)
        app_msg(a, GS_NONE, "%s: %d groups on %d devices, from %s's placement (%s); space steps, ? shows every key",
                a->data.pb.g->name, a->data.pb.gr->n_groups, a->data.pb.c->n_devices, start_name,
                a->policy.pol->arch.start_heuristic ? "a policy trained as a search"
                                                    : "the best heuristic's, where place --policy auto starts");
    else
        app_msg(a, GS_NONE, "%s: %d groups on %d devices; space steps, ? shows every key", a->data.pb.g->name,
                a->data.pb.gr->n_groups, a->data.pb.c->n_devices);
    if (o->demo)
        app_tour_start(a, o);
    return a;
fail:
    app_free(a);
    return NULL;
}

static void free_baselines(App *a)
{
    for (int k = 0; k < a->base.n; k++)
        place_run_free(&a->base.rows[k]);
    free(a->base.rows);
    a->base.rows = NULL;
    a->base.n = 0;
    for (int k = 0; k < a->base.n_learned_files; k++)
        free(a->base.learned_files[k]);
    a->base.n_learned_files = 0;
}

void app_free(App *a)
{
    if (!a)
        return;
    AppTrain *t = &a->train;
    layouts_drop(a);
    app_race_close(a);
    app_train_stop(a);
    if (t->ts_ready)
        train_state_done(&t->ts);
    free(t->curve);
    free(t->ret);
    free(t->shown_curve);
    free(t->shown_ret);
    if (t->lock_ready)
        pthread_mutex_destroy(&t->lock);
    free_baselines(a);
    AppData *d = &a->data;
    for (int k = 0; d->labels && k < d->pb.gr->n_groups; k++)
        free(d->labels[k]);
    free(d->labels);
    for (int k = 0; k < 2; k++) {
        for (int u = 0; d->box_labels[k] && u < d->pb.gr->n_groups; u++)
            free(d->box_labels[k][u]);
        free(d->box_labels[k]);
    }
    tl_free(a->cache.tl);
    free(a->cache.feats);
    free(a->cache.attention);
    free(a->cache.why_placement);
    app_actor_free(&a->policy);
    dag_free(d->dag_all);
    dag_free(d->dag_fold);
    episode_free(d->ep);
    app_episodes_free(a);
    policy_free(a->policy.pol);
    policy_graph_free(d->pg);
    problem_free(&d->pb);
    free(a->policy.path);
    free(a->files.episode);
    free(a->files.autosave);
    free(a->files.stem);
    free(a->files.resumed);
    free(a->files.cluster);
    free(a);
}

/* ------------------------------------------------------------------ */
/* The cache                                                           */

/* The groups whose feature rows the tour shows: the current node, up to two
 * parents and two children, and the first group on another device. */
static void pick_feature_groups(const App *a, int cur, int *out)
{
    const Grouping *gr = a->data.pb.gr;
    const int *dev = a->data.ep->group_device;
    int n = 0;
    out[n++] = cur;
    for (int j = gr->pred_off[cur]; j < gr->pred_off[cur + 1] && j < gr->pred_off[cur] + 2; j++)
        out[n++] = gr->pred[j];
    for (int j = gr->succ_off[cur]; j < gr->succ_off[cur + 1] && j < gr->succ_off[cur] + 2; j++)
        out[n++] = gr->succ[j];
    for (int k = 0; k < gr->n_groups && n < APP_FEATURE_ROWS; k++)
        if (dev[k] != dev[cur]) {
            int seen = 0;
            for (int j = 0; j < n; j++)
                seen |= out[j] == k;
            if (!seen)
                out[n++] = k;
            break;
        }
    while (n < APP_FEATURE_ROWS)
        out[n++] = -1;
}

/* The actor's probabilities for the current step and its attention over
 * the groups, the largest weights first (a set_why kind: the heading counts
 * the set); its learned clusters. */
static void update_actor_view(App *a)
{
    AppCache *c = &a->cache;
    const AgentActorOps *kind = a->policy.kind->actor;
    const Episode *ep = a->data.ep;
    int n = ep->n_groups, in_set = 0;
    if (kind->clusters)
        c->n_clusters = kind->clusters(a->policy.actor, &c->cluster);
    for (int k = 0; k < APP_ATTENTION_ROWS; k++)
        c->attn_top[k] = -1;
    const float *att = NULL, *p = app_actor_probs(a, &att);
    if (!p) {
        memset(c->attention, 0, (size_t)n * sizeof *c->attention);
        return;
    }
    memcpy(c->probs, p, (size_t)ep->n_devices * sizeof *c->probs);
    if (!att) { /* an agent that attends to no group */
        memset(c->attention, 0, (size_t)n * sizeof *c->attention);
        return;
    }
    memcpy(c->attention, att, (size_t)n * sizeof *c->attention);
    for (int k = 0; k < n; k++)
        in_set += att[k] > 0;
    if (kind->set_why)
        snprintf(a->policy.why, sizeof a->policy.why, "why: %s (%d group%s)", kind->set_why, in_set,
                 in_set == 1 ? "" : "s");
    for (int k = 0; k < n; k++) { /* insertion into the short list (a set: its members alone) */
        if (kind->set_why && att[k] <= 0)
            continue;
        int j = APP_ATTENTION_ROWS;
        while (j > 0 && (c->attn_top[j - 1] < 0 || att[k] > att[c->attn_top[j - 1]]))
            j--;
        if (j >= APP_ATTENTION_ROWS)
            continue;
        memmove(c->attn_top + j + 1, c->attn_top + j, (size_t)(APP_ATTENTION_ROWS - 1 - j) * sizeof *c->attn_top);
        c->attn_top[j] = k;
    }
}

/* The policy's probabilities for the current node, and the feature rows of
 * the groups the tour shows (Placeto's; an actor reads no state). */
static void update_policy_view(App *a)
{
    AppCache *c = &a->cache;
    Episode *ep = a->data.ep;
    int cur = episode_current(ep);
    c->node = cur;
    for (int k = 0; k < APP_FEATURE_ROWS; k++)
        c->feat_group[k] = -1;
    if (!app_placeto_insides(a)) {
        update_actor_view(a);
        return;
    }
    if (cur < 0)
        return;
    const float *p = app_actor_probs(a, NULL); /* the features of this step into ep->feats, read below */
    memcpy(c->probs, p, (size_t)ep->n_devices * sizeof *c->probs);
    pick_feature_groups(a, cur, c->feat_group);
    size_t F = (size_t)ep->n_features;
    for (int k = 0; k < APP_FEATURE_ROWS; k++)
        if (c->feat_group[k] >= 0)
            memcpy(c->feats + (size_t)k * F, ep->feats + (size_t)c->feat_group[k] * F, F * sizeof *c->feats);
}

void app_cache_update(App *a)
{
    tl_free(a->cache.tl);
    a->cache.tl = tl_new(a->data.pb.g, a->data.pb.c, a->data.ep->result);
    update_policy_view(a);
    app_why_update(a);
}

void app_changed(App *a)
{
    app_cache_update(a);
    a->run.dirty = 1;
    int cur = episode_current(a->data.ep);
    if (a->view.follow && cur >= 0)
        a->view.selected = cur;
}

/* ------------------------------------------------------------------ */
/* The baselines                                                       */

/* Sorts the rows by runtime, those out of memory last (their runtime is
 * not one they could run at). */
static void sort_rows(PlaceRun *rows, int n)
{
    place_run_sort(rows, n);
    PlaceRun *tmp = xnew_array((size_t)n + 1, sizeof *tmp);
    int k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int j = 0; j < n; j++)
            if (!!rows[j].oom == pass)
                tmp[k++] = rows[j];
    memcpy(rows, tmp, (size_t)n * sizeof *rows);
    free(tmp);
}

/* Baselines: every method on the episode's cluster, sorted by runtime. */
void app_run_baselines(App *a)
{
    free_baselines(a);
    a->base.n_learned = 0;
    int n;
    const PlaceMethod *m = place_methods(&n);
    a->base.rows = xnew_array((size_t)n, sizeof *a->base.rows);
    a->base.budget = app_search_budget(a);
    a->base.seed = a->data.ep->seed;
    for (int k = 0; k < n; k++) {
        Err e = {{0}};
        if (place_run(&a->data.pb, &m[k], a->data.ep->seed, a->base.budget, &a->base.rows[a->base.n], &e) == 0)
            a->base.n++; /* a method that fails is left out */
    }
    sort_rows(a->base.rows, a->base.n);
    a->base.ran = 1;
}

int64_t app_search_budget(const App *a)
{
    int64_t budget = APP_SEARCH_WORK / (a->data.pb.g->n_nodes > 0 ? a->data.pb.g->n_nodes : 1);
    return budget < 100 ? 100 : budget > APP_SEARCH_BUDGET ? APP_SEARCH_BUDGET : budget;
}

/* Adds the rows of the policy at path (named label) from both starts. */
void app_add_learned(App *a, const char *path, const char *label)
{
    AppBaselines *b = &a->base;
    Err pe = {{0}};
    const AgentPolicy *ap = agent_policy_cached(path, NULL, &pe);
    int starts = ap && ap->kind->place.refine == AGENT_REFINE_START ? 2 : 1; /* a one-shot placer starts from nothing (gdp's
                                                               fallback, refine 2, is not a start) */
    for (int start = 0; start < starts && b->n_learned + 2 <= APP_LEARNED_MAX; start++) {
        PlaceRun rows[2];
        Err e = {{0}};
        AgentPlaceOpts po = {8, a->data.ep->seed, start ? AGENT_START_HEURISTIC : AGENT_START_DEFAULT, 0};
        int n = agent_place_file(path, &a->data.pb, &po, rows, NULL, &e);
        if (n < 0) {
            app_msg(a, GS_WARN, "%s left out: %s", label, e.msg);
            return;
        }
        for (int k = 0; k < n; k++) {
            int trained = rows[k].method && ap && strcmp(rows[k].method, ap->kind->place.trained_row) == 0;
            if (trained && start) { /* listed once, with the first start */
                place_run_free(&rows[k]);
                continue;
            }
            char *name = b->learned_names[b->n_learned++];
            snprintf(name, 64, "%s %s", label, trained ? "(trained)" : start ? "refine" : "zero-shot");
            rows[k].method = name;
            b->rows = XRENEW(b->rows, b->n + 1);
            b->rows[b->n++] = rows[k];
            int known = 0; /* its file, for the race's lanes */
            for (int j = 0; j < b->n_learned_files; j++)
                known |= strcmp(b->learned_files[j], path) == 0;
            if (!known && b->n_learned_files < APP_LEARNED_MAX)
                b->learned_files[b->n_learned_files++] = xstrdup(path);
        }
    }
}

void app_policy_name(const char *path, const char *prefix, int max, char *buf, size_t n)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".json") == 0)
        len -= 5;
    snprintf(buf, n, "%s%.*s", prefix, (int)(len > (size_t)max ? (size_t)max : len), base);
}

/* "placeto NAME": NAME the file's name without directory and ".json". */
static void policy_label(const char *path, char *buf, size_t n)
{
    app_policy_name(path, "placeto ", 40, buf, n);
}

void app_run_learned(App *a)
{
    if (!a->base.ran || a->base.n_learned)
        app_run_baselines(a);
    int nd = a->data.pb.c->n_devices;
    const char *mine = a->policy.path;
    char label[64], mine_label[64] = "", path[4096], rel[512];
    if (mine) {
        policy_label(mine, mine_label, sizeof mine_label);
        app_add_learned(a, mine, mine_label);
    }
    for (int k = 0; k < 2; k++) { /* the graph's own bundled policy, the general one */
        if (k == 0)
            snprintf(rel, sizeof rel, "policies/%.400s_%d.json", a->files.stem, nd);
        else
            snprintf(rel, sizeof rel, "policies/general_%d.json", nd);
        data_path(path, sizeof path, rel);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        fclose(f);
        policy_label(path, label, sizeof label);
        if (strcmp(label, mine_label) != 0)
            app_add_learned(a, path, label);
    }
    sort_rows(a->base.rows, a->base.n);
}
