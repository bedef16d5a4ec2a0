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
    vsnprintf(a->message, sizeof a->message, fmt, ap);
    va_end(ap);
    a->message_style = style;
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
        policy_arch_default(&arch, a->c->n_devices);
        a->pol = policy_new(&arch, 1, e);
        return a->pol ? 0 : -1;
    }
    size_t len;
    char *text = util_read_file(path, &len, e);
    if (!text)
        return -1;
    a->pol = policy_load_text(path, text, len, NULL, e);
    a->policy_checksum = util_hash64(text, len, 0);
    free(text);
    if (!a->pol)
        return -1;
    if (a->pol->arch.n_devices != a->c->n_devices) {
        err_set(e, "%s: the policy is for %d devices but the cluster has %d (use --devices %d)", path,
                a->pol->arch.n_devices, a->c->n_devices, a->pol->arch.n_devices);
        return -1;
    }
    a->policy_path = xstrdup(path);
    return 0;
}

/* What every way of loading shares once graph, cluster, grouping, policy and
 * episode exist. */
static void finish_load(App *a)
{
    int n = a->gr->n_groups;
    a->labels = xcalloc((size_t)n + 1, sizeof *a->labels);
    for (int k = 0; k < n; k++)
        a->labels[k] = dag_short_label(a->gr->names[k]);
    a->dag = dag_layout(n, a->gr->succ_off, a->gr->succ, NULL);
    a->work = policy_work_new(&a->pol->arch, a->pg);
    a->sim = sim_new(a->g, a->c);
    a->lower_bound_us = bound_lower(a->g, a->c);
    int *dev = xcalloc((size_t)a->g->n_nodes + 1, sizeof *dev);
    int fast = place_fastest_device(a->c);
    for (int i = 0; i < a->g->n_nodes; i++)
        dev[i] = fast;
    a->single_us = sim_makespan(a->sim, dev);
    free(dev);
    a->tl = tl_new(a->g, a->c, a->ep->result);
    a->zoom = DAG_FULL;
    a->follow = 1;
    a->maximized = -1;
    a->speed = 10;
    a->selected = episode_current(a->ep) >= 0 ? episode_current(a->ep) : 0;
    size_t m = strlen(a->episode_path) + 16;
    a->autosave_path = xmalloc(m);
    snprintf(a->autosave_path, m, "%s.autosave", a->episode_path);
    pthread_mutex_init(&a->train.lock, NULL);
    a->last_autosave = util_now();
}

App *app_new(const AppOptions *o, Err *e)
{
    App *a = xcalloc(1, sizeof *a);
    a->greedy = o->greedy;
    a->demo_stage = -1;
    const char *load_path = o->resume_path ? o->resume_path : o->replay_path;
    if (load_path) {
        EpisodeFile f;
        if (episode_load(load_path, &f, e) != 0) {
            free(a);
            return NULL;
        }
        a->g = f.g;
        a->c = f.c;
        a->gr = f.gr;
        a->pg = f.pg;
        a->ep = f.ep;
        const char *pp = o->policy_path ? o->policy_path : f.policy_path;
        if (load_policy(a, pp, e) != 0 ||
            (!o->policy_path && f.policy_path && a->policy_checksum != f.policy_checksum &&
             err_set(e, "%s: the policy file %s changed since the episode was saved (checksum %016llx, expected %016llx)",
                     load_path, f.policy_path, (unsigned long long)a->policy_checksum,
                     (unsigned long long)f.policy_checksum) < 0)) {
            free(f.policy_path);
            a->ep = NULL;
            episode_free(f.ep);
            app_free(a);
            return NULL;
        }
        free(f.policy_path);
        a->episode_path = xstrdup(load_path);
        if (o->replay_path) {
            while (episode_undo(a->ep) == 0)
                ;
            a->replay = 1;
        }
        finish_load(a);
        if (a->replay) {
            a->dirty = 0;
            app_msg(a, GS_GOOD, "replaying %s: %d steps; space/Right forwards, Left/u backwards, Home/End, r plays",
                    load_path, a->ep->n_redo);
        } else {
            app_msg(a, GS_GOOD, "resumed %s: step %d of %d", load_path, a->ep->cursor, a->ep->n_order);
        }
        return a;
    }
    if (!(a->g = graph_load(o->graph_path, e)))
        goto fail;
    if (o->cluster_path) {
        if (!(a->c = cluster_load(o->cluster_path, e)))
            goto fail;
    } else {
        a->c = cluster_default(o->n_devices > 0 ? o->n_devices : 2);
    }
    if (!(a->gr = group_build(a->g, o->groups, e)) || !(a->pg = policy_graph_new(a->gr, e))) {
        err_prefix(e, o->graph_path);
        goto fail;
    }
    if (load_policy(a, o->policy_path, e) != 0)
        goto fail;
    EpisodeConfig cfg;
    episode_config_default(&cfg);
    cfg.mem_feature = a->pol->arch.mem_feature;
    if (!(a->ep = episode_new(a->g, a->gr, a->c, a->pg, &cfg, o->seed, NULL, e)))
        goto fail;
    a->episode_path = o->episode_path ? xstrdup(o->episode_path) : default_episode_path(a->g);
    finish_load(a);
    app_msg(a, GS_NONE, "%s: %d groups on %d devices; space steps, ? shows every key", a->g->name,
            a->gr->n_groups, a->c->n_devices);
    if (o->demo) {
        a->demo_auto = o->demo == 2;
        demo_enter(a, o->demo_stage);
    }
    return a;
fail:
    app_free(a);
    return NULL;
}

static void free_baselines(App *a)
{
    for (int k = 0; k < a->n_base; k++)
        free(a->base[k].group_device);
    free(a->base);
    a->base = NULL;
    a->n_base = 0;
}

void app_free(App *a)
{
    if (!a)
        return;
    app_train_stop(a);
    if (a->train.ts.adam.lr)
        train_state_done(&a->train.ts);
    free(a->train.curve);
    free(a->train.ret);
    if (a->labels)
        pthread_mutex_destroy(&a->train.lock);
    free_baselines(a);
    for (int k = 0; a->labels && k < a->gr->n_groups; k++)
        free(a->labels[k]);
    free(a->labels);
    tl_free(a->tl);
    dag_free(a->dag);
    sim_free(a->sim);
    policy_work_free(a->work);
    episode_free(a->ep);
    policy_free(a->pol);
    policy_graph_free(a->pg);
    group_free(a->gr);
    cluster_free(a->c);
    graph_free(a->g);
    free(a->policy_path);
    free(a->episode_path);
    free(a->autosave_path);
    free(a);
}

/* ------------------------------------------------------------------ */
/* After the episode changed                                           */

void app_refresh(App *a)
{
    tl_free(a->tl);
    a->tl = tl_new(a->g, a->c, a->ep->result);
    a->dirty = 1;
    int cur = episode_current(a->ep);
    if (a->follow && cur >= 0)
        a->selected = cur;
}

static const char *actor_name(const EpisodeStep *s)
{
    return s->actor == EPISODE_ACTOR_USER ? "you" : s->greedy ? "policy (greedy)" : "policy";
}

int app_key_step(App *a)
{
    Episode *ep = a->ep;
    if (episode_done(ep)) {
        a->running = 0;
        app_msg(a, GS_DIM, "the episode is complete (best %.3f ms): n starts a new one, u undoes",
                ep->best_runtime_us / 1000);
        return APP_REDRAW;
    }
    double before = ep->runtime_us;
    const EpisodeStep *s = episode_step_policy(ep, a->pol, a->work, a->greedy, NULL);
    app_refresh(a);
    app_msg(a, s->runtime_us < before ? GS_GOOD : s->runtime_us > before ? GS_WARN : GS_NONE,
            "step %d: %s moved %s from %s to %s: %.3f -> %.3f ms", s->cursor + 1, actor_name(s),
            a->gr->names[s->group], a->c->devices[s->old_device].name, a->c->devices[s->new_device].name,
            before / 1000, s->runtime_us / 1000);
    if (episode_done(ep))
        a->running = 0;
    return APP_REDRAW;
}

/* ------------------------------------------------------------------ */
/* Saving and the baselines                                            */

int app_save(App *a, const char *path)
{
    Err e = {{0}};
    if (episode_save(a->ep, a->policy_path, a->policy_checksum, path, &e) != 0) {
        app_msg(a, GS_ERROR, "not saved: %s (the episode is still here)", e.msg);
        return -1;
    }
    if (strcmp(path, a->episode_path) == 0) {
        a->dirty = 0;
        remove(a->autosave_path);
    }
    app_msg(a, GS_GOOD, "saved %s (step %d, %d history entries)", path, a->ep->cursor, a->ep->n_hist);
    return 0;
}

void app_autosave(App *a)
{
    a->last_autosave = util_now();
    if (!a->dirty)
        return;
    Err e = {{0}};
    if (episode_save(a->ep, a->policy_path, a->policy_checksum, a->autosave_path, &e) == 0)
        app_msg(a, GS_DIM, "autosaved %s", a->autosave_path);
    else
        app_msg(a, GS_ERROR, "autosave failed: %s", e.msg);
}

/* Baselines: every method on the episode's cluster, sorted by runtime. */
void app_run_baselines(App *a)
{
    free_baselines(a);
    int n;
    const PlaceMethod *m = place_methods(&n);
    a->base = xcalloc((size_t)n, sizeof *a->base);
    int *dev = xmalloc(((size_t)a->g->n_nodes + 1) * sizeof *dev);
    for (int k = 0; k < n; k++) {
        PlaceCtx ctx = {a->g, a->gr, a->c, a->ep->seed};
        Err e = {{0}};
        double t0 = util_now();
        if (m[k].fn(&ctx, dev, &e) != 0)
            continue;
        AppBaseline *b = &a->base[a->n_base++];
        b->seconds = util_now() - t0;
        b->method = m[k].name;
        const SimResult *r = sim_run(a->sim, dev);
        b->runtime_us = r->makespan_us;
        b->oom = r->any_oom;
        b->group_device = xmalloc(((size_t)a->gr->n_groups + 1) * sizeof *b->group_device);
        place_collapse_groups(a->gr, dev, b->group_device);
    }
    free(dev);
    for (int i = 1; i < a->n_base; i++) /* insertion sort: stable, by runtime */
        for (int j = i; j > 0 && a->base[j].runtime_us < a->base[j - 1].runtime_us; j--) {
            AppBaseline t = a->base[j];
            a->base[j] = a->base[j - 1];
            a->base[j - 1] = t;
        }
}

void app_start_from(App *a, int k)
{
    a->running = 0;
    a->ep->cfg.init = EPISODE_INIT_GIVEN; /* kept: the episode file records this start */
    episode_reset(a->ep, a->ep->seed + 1, a->base[k].group_device);
    app_refresh(a);
    app_msg(a, GS_NONE, "new episode from %s's placement (%.3f ms): the policy refines it", a->base[k].method,
            a->ep->runtime_us / 1000);
}

int app_timeout_ms(const App *a)
{
    if (a->demo_auto && a->demo_stage >= 0)
        return 200;
    if (a->running)
        return 1000 / a->speed;
    if (a->train.running)
        return 100;
    return -1;
}

int app_tick(App *a, double now)
{
    int r = APP_NOTHING;
    if (a->running && a->replay)
        r |= app_replay_key(a, ' ');
    else if (a->running)
        r |= app_key_step(a);
    if (a->demo_stage >= 0)
        r |= demo_tick(a, now);
    if (a->train.running) {
        pthread_mutex_lock(&a->train.lock);
        int done = a->train.done;
        pthread_mutex_unlock(&a->train.lock);
        if (done)
            app_train_stop(a);
        r |= APP_REDRAW;
    }
    if (now - a->last_autosave > 60)
        app_autosave(a);
    return r;
}
