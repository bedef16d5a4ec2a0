/* app: loading and freeing the explorer's state, stepping, saving, the
 * baselines and the timer (see app.h); the keys and their actions are in
 * app_keys.c. */
#include "app.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bound.h"
#include "export.h"
#include "place.h"
#include "term.h"

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

static char *default_episode_path(const Graph *g)
{
    size_t n = strlen(g->name) + 32;
    char *p = xmalloc(n);
    snprintf(p, n, "%s.episode.json", g->name);
    return p;
}

static int load_policy(App *a, const char *path, Err *e)
{
    if (!path) {
        PolicyArch arch;
        policy_arch_default(&arch, a->data.c->n_devices);
        a->policy.pol = policy_new(&arch, 1, e);
        return a->policy.pol ? 0 : -1;
    }
    size_t len;
    char *text = util_read_file(path, &len, e);
    if (!text)
        return -1;
    a->policy.pol = policy_load_text(path, text, len, NULL, e);
    a->policy.checksum = util_hash64(text, len, 0);
    free(text);
    if (!a->policy.pol)
        return -1;
    if (a->policy.pol->arch.n_devices != a->data.c->n_devices) {
        err_set(e, "%s: the policy is for %d devices but the cluster has %d (use --devices %d)", path,
                a->policy.pol->arch.n_devices, a->data.c->n_devices, a->policy.pol->arch.n_devices);
        return -1;
    }
    a->policy.path = xstrdup(path);
    return 0;
}

/* What every way of loading shares once graph, cluster, grouping, policy and
 * episode exist. */
static void finish_load(App *a)
{
    int n = a->data.gr->n_groups;
    a->data.labels = xcalloc((size_t)n + 1, sizeof *a->data.labels);
    for (int k = 0; k < n; k++)
        a->data.labels[k] = dag_short_label(a->data.gr->names[k]);
    a->data.dag = dag_layout(n, a->data.gr->succ_off, a->data.gr->succ, NULL);
    a->policy.work = policy_work_new(&a->policy.pol->arch, a->data.pg);
    a->data.sim = sim_new(a->data.g, a->data.c);
    a->data.lower_bound_us = bound_lower(a->data.g, a->data.c);
    int *dev = xcalloc((size_t)a->data.g->n_nodes + 1, sizeof *dev);
    int fast = place_fastest_device(a->data.c);
    for (int i = 0; i < a->data.g->n_nodes; i++)
        dev[i] = fast;
    a->data.single_us = sim_makespan(a->data.sim, dev);
    free(dev);
    a->cache.tl = tl_new(a->data.g, a->data.c, a->data.ep->result);
    a->view.zoom = DAG_FULL;
    a->view.follow = 1;
    a->view.maximized = -1;
    a->run.speed = 10;
    a->view.selected = episode_current(a->data.ep) >= 0 ? episode_current(a->data.ep) : 0;
    size_t m = strlen(a->files.episode) + 16;
    a->files.autosave = xmalloc(m);
    snprintf(a->files.autosave, m, "%s.autosave", a->files.episode);
    pthread_mutex_init(&a->train.lock, NULL);
    a->train.lock_ready = 1;
    a->run.last_autosave = util_now();
}

App *app_new(const AppOptions *o, Err *e)
{
    App *a = xcalloc(1, sizeof *a);
    a->run.greedy = o->greedy;
    a->tour.stage = -1;
    const char *load_path = o->resume_path ? o->resume_path : o->replay_path;
    if (load_path) {
        EpisodeFile f;
        if (episode_load(load_path, &f, e) != 0) {
            free(a);
            return NULL;
        }
        a->data.g = f.g;
        a->data.c = f.c;
        a->data.gr = f.gr;
        a->data.pg = f.pg;
        a->data.ep = f.ep;
        const char *pp = o->policy_path ? o->policy_path : f.policy_path;
        if (load_policy(a, pp, e) != 0 ||
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
        a->files.episode = xstrdup(load_path);
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
        } else {
            app_msg(a, GS_GOOD, "resumed %s: step %d of %d", load_path, a->data.ep->cursor, a->data.ep->n_order);
        }
        return a;
    }
    if (!(a->data.g = graph_load(o->graph_path, e)))
        goto fail;
    if (o->cluster_path) {
        if (!(a->data.c = cluster_load(o->cluster_path, e)))
            goto fail;
    } else {
        a->data.c = cluster_default(o->n_devices > 0 ? o->n_devices : 2);
    }
    if (!(a->data.gr = group_build(a->data.g, o->groups, e)) || !(a->data.pg = policy_graph_new(a->data.gr, e))) {
        err_prefix(e, o->graph_path);
        goto fail;
    }
    if (load_policy(a, o->policy_path, e) != 0)
        goto fail;
    EpisodeConfig cfg;
    episode_config_default(&cfg);
    cfg.mem_feature = a->policy.pol->arch.mem_feature;
    if (!(a->data.ep = episode_new(a->data.g, a->data.gr, a->data.c, a->data.pg, &cfg, o->seed, NULL, e)))
        goto fail;
    a->files.episode = o->episode_path ? xstrdup(o->episode_path) : default_episode_path(a->data.g);
    finish_load(a);
    app_msg(a, GS_NONE, "%s: %d groups on %d devices; space steps, ? shows every key", a->data.g->name,
            a->data.gr->n_groups, a->data.c->n_devices);
    if (o->demo) {
        a->tour.autoplay = o->demo == 2;
        demo_enter(a, o->demo_stage);
    }
    return a;
fail:
    app_free(a);
    return NULL;
}

static void free_baselines(App *a)
{
    for (int k = 0; k < a->base.n; k++)
        free(a->base.rows[k].group_device);
    free(a->base.rows);
    a->base.rows = NULL;
    a->base.n = 0;
}

void app_free(App *a)
{
    if (!a)
        return;
    app_train_stop(a);
    if (a->train.ts_ready)
        train_state_done(&a->train.ts);
    free(a->train.curve);
    free(a->train.ret);
    if (a->train.lock_ready)
        pthread_mutex_destroy(&a->train.lock);
    free_baselines(a);
    for (int k = 0; a->data.labels && k < a->data.gr->n_groups; k++)
        free(a->data.labels[k]);
    free(a->data.labels);
    tl_free(a->cache.tl);
    dag_free(a->data.dag);
    sim_free(a->data.sim);
    policy_work_free(a->policy.work);
    episode_free(a->data.ep);
    policy_free(a->policy.pol);
    policy_graph_free(a->data.pg);
    group_free(a->data.gr);
    cluster_free(a->data.c);
    graph_free(a->data.g);
    free(a->policy.path);
    free(a->files.episode);
    free(a->files.autosave);
    free(a);
}

/* ------------------------------------------------------------------ */
/* After the episode changed                                           */

void app_refresh(App *a)
{
    tl_free(a->cache.tl);
    a->cache.tl = tl_new(a->data.g, a->data.c, a->data.ep->result);
    a->run.dirty = 1;
    int cur = episode_current(a->data.ep);
    if (a->view.follow && cur >= 0)
        a->view.selected = cur;
}

static const char *actor_name(const EpisodeStep *s)
{
    return s->actor == EPISODE_ACTOR_USER ? "you" : s->greedy ? "policy (greedy)" : "policy";
}

int app_key_step(App *a)
{
    Episode *ep = a->data.ep;
    if (episode_done(ep)) {
        a->run.running = 0;
        app_msg(a, GS_DIM, "the episode is complete (best %.3f ms): n starts a new one, u undoes",
                ep->best_runtime_us / 1000);
        return APP_REDRAW;
    }
    double before = ep->runtime_us;
    const EpisodeStep *s = episode_step_policy(ep, a->policy.pol, a->policy.work, a->run.greedy, NULL);
    app_refresh(a);
    app_msg(a, s->runtime_us < before ? GS_GOOD : s->runtime_us > before ? GS_WARN : GS_NONE,
            "step %d: %s moved %s from %s to %s: %.3f -> %.3f ms", s->cursor + 1, actor_name(s),
            a->data.gr->names[s->group], a->data.c->devices[s->old_device].name, a->data.c->devices[s->new_device].name,
            before / 1000, s->runtime_us / 1000);
    if (episode_done(ep))
        a->run.running = 0;
    return APP_REDRAW;
}

/* ------------------------------------------------------------------ */
/* Saving and the baselines                                            */

int app_save(App *a, const char *path)
{
    Err e = {{0}};
    if (episode_save(a->data.ep, a->policy.path, a->policy.checksum, path, &e) != 0) {
        app_msg(a, GS_ERROR, "not saved: %s (the episode is still here)", e.msg);
        return -1;
    }
    if (strcmp(path, a->files.episode) == 0) {
        a->run.dirty = 0;
        remove(a->files.autosave);
    }
    app_msg(a, GS_GOOD, "saved %s (step %d, %d history entries)", path, a->data.ep->cursor, a->data.ep->n_hist);
    return 0;
}

void app_autosave(App *a)
{
    a->run.last_autosave = util_now();
    if (!a->run.dirty)
        return;
    Err e = {{0}};
    if (episode_save(a->data.ep, a->policy.path, a->policy.checksum, a->files.autosave, &e) == 0)
        app_msg(a, GS_DIM, "autosaved %s", a->files.autosave);
    else
        app_msg(a, GS_ERROR, "autosave failed: %s", e.msg);
}

/* Baselines: every method on the episode's cluster, sorted by runtime. */
void app_run_baselines(App *a)
{
    free_baselines(a);
    int n;
    const PlaceMethod *m = place_methods(&n);
    a->base.rows = xcalloc((size_t)n, sizeof *a->base.rows);
    int *dev = xmalloc(((size_t)a->data.g->n_nodes + 1) * sizeof *dev);
    for (int k = 0; k < n; k++) {
        PlaceCtx ctx = {a->data.g, a->data.gr, a->data.c, a->data.ep->seed};
        Err e = {{0}};
        double t0 = util_now();
        if (m[k].fn(&ctx, dev, &e) != 0)
            continue;
        AppBaseline *b = &a->base.rows[a->base.n++];
        b->seconds = util_now() - t0;
        b->method = m[k].name;
        const SimResult *r = sim_run(a->data.sim, dev);
        b->runtime_us = r->makespan_us;
        b->oom = r->any_oom;
        b->group_device = xmalloc(((size_t)a->data.gr->n_groups + 1) * sizeof *b->group_device);
        place_collapse_groups(a->data.gr, dev, b->group_device);
    }
    free(dev);
    for (int i = 1; i < a->base.n; i++) /* insertion sort: stable, by runtime */
        for (int j = i; j > 0 && a->base.rows[j].runtime_us < a->base.rows[j - 1].runtime_us; j--) {
            AppBaseline t = a->base.rows[j];
            a->base.rows[j] = a->base.rows[j - 1];
            a->base.rows[j - 1] = t;
        }
    a->base.ran = 1;
}

void app_start_from(App *a, int k)
{
    a->run.running = 0;
    a->data.ep->cfg.init = EPISODE_INIT_GIVEN; /* kept: the episode file records this start */
    episode_reset(a->data.ep, a->data.ep->seed + 1, a->base.rows[k].group_device);
    app_refresh(a);
    app_msg(a, GS_NONE, "new episode from %s's placement (%.3f ms): the policy refines it", a->base.rows[k].method,
            a->data.ep->runtime_us / 1000);
}

int app_timeout_ms(const App *a)
{
    if (a->tour.autoplay && a->tour.active)
        return 200;
    if (a->run.running)
        return 1000 / a->run.speed;
    if (a->train.running)
        return 100;
    return -1;
}

int app_tick(App *a, double now)
{
    int r = APP_NOTHING;
    if (a->run.running && a->replay.active)
        r |= app_replay_key(a, ' ');
    else if (a->run.running)
        r |= app_key_step(a);
    if (a->tour.active)
        r |= demo_tick(a, now);
    if (a->train.running) {
        pthread_mutex_lock(&a->train.lock);
        int done = a->train.done;
        pthread_mutex_unlock(&a->train.lock);
        if (done)
            app_train_stop(a);
        r |= APP_REDRAW;
    }
    if (now - a->run.last_autosave > 60)
        app_autosave(a);
    return r;
}
