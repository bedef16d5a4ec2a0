/* app_train: the explorer's model, continued (see app.h): training the
 * policy in a background thread, through its agent's training hooks
 * (agent.h: AgentTrainOps.explore, trainer_new, run; the file's untrained,
 * params and save). The thread trains a copy of the policy (its
 * own episodes and simulators; the graph, grouping and cluster are only
 * read) and appends to the learning curve under a lock; app_train_poll, on
 * the main thread, copies what is new for the view; stopping joins the
 * thread, adopts the new weights (the cached probabilities follow) and
 * writes them to GRAPH.trained-policy.json (GRAPH.trained-policy-2.json, ...
 * when that exists: a file an earlier episode names is never replaced, nor
 * one this session reads or keeps, app_write_target) so that saved episodes
 * can name the policy they used. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"

static void on_episode(const TrainReport *r, void *ud)
{
    AppTrain *t = ud;
    pthread_mutex_lock(&t->lock);
    if (t->n_curve == t->cap_curve) {
        t->cap_curve = t->cap_curve ? 2 * t->cap_curve : 256;
        t->curve = xrealloc_array(t->curve, (size_t)t->cap_curve, sizeof *t->curve);
        t->ret = xrealloc_array(t->ret, (size_t)t->cap_curve, sizeof *t->ret);
    }
    t->curve[t->n_curve] = r->best_runtime_us;
    t->ret[t->n_curve] = r->runtime_us;
    t->n_curve++;
    t->ran++;
    pthread_mutex_unlock(&t->lock);
}

static void *train_main(void *arg)
{
    App *a = arg;
    AppTrain *t = &a->train;
    a->policy.kind->train.run(t->trainer, t->target, on_episode, t, &t->stop);
    pthread_mutex_lock(&t->lock);
    t->done = 1;
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

/* A copy of the agent's network net: its architecture (the untrained
 * control's), then its weights and Adam moments. */
static void *net_copy(const AgentKind *k, const void *net, Err *e)
{
    void *q = k->file.untrained(net, 0, e);
    if (q) {
        const NnParams *from = k->file.params((void *)net);
        memcpy(k->file.params(q)->mem, from->mem, 4 * from->n * sizeof *from->mem);
    }
    return q;
}

/* Frees what a run holds besides its curve. */
static void run_free(App *a)
{
    AppTrain *t = &a->train;
    const AgentKind *k = a->policy.kind;
    if (t->trainer)
        k->train.trainer_free(t->trainer);
    if (t->net)
        k->file.free(t->net);
    free(t->cfg);
    t->trainer = t->net = t->cfg = NULL;
}

int app_train_start(App *a, int64_t episodes)
{
    AppTrain *t = &a->train;
    const AppData *d = &a->data;
    if (t->running || app_actor_refuse_training(a))
        return -1;
    const AgentKind *k = a->policy.kind; /* through the contract: its explore, trainer and file hooks */
    const void *live = app_policy_net(&a->policy);
    Err e = {{0}};
    if (!(t->net = net_copy(k, live, &e))) {
        app_msg(a, GS_ERROR, "cannot train: %s", e.msg);
        return -1;
    }
    t->cfg = xcalloc(1, k->train.config_size ? k->train.config_size : 1);
    k->train.explore(live, &d->ep->cfg, d->ep->seed, t->cfg, &t->ts, !t->ts_ready);
    t->ts_ready = 1;
    t->tg = (TrainGraph){d->pb.g, d->pb.gr, d->pg};
    if (!(t->trainer = k->train.trainer_new(t->net, &t->ts, t->cfg, &t->tg, 1, d->pb.c, &e))) {
        app_msg(a, GS_ERROR, "cannot train: %s", e.msg);
        run_free(a);
        return -1;
    }
    t->target = episodes;
    t->ran = 0;
    t->stop = 0;
    t->done = 0;
    t->n_curve = 0;
    t->n_shown = 0;
    t->shown_ran = 0;
    if (pthread_create(&t->thread, NULL, train_main, a) != 0) {
        app_msg(a, GS_ERROR, "cannot start the training thread");
        run_free(a);
        return -1;
    }
    t->running = 1;
    app_msg(a, GS_NONE, "training %lld %ss in the background (T stops); the curve is in the history pane",
            (long long)episodes, k->train.unit);
    return 0;
}

/* Copies the curve's entries the view has not seen yet (the thread only
 * appends); returns whether the thread has finished. */
static int take_curve(AppTrain *t)
{
    pthread_mutex_lock(&t->lock);
    if (t->n_curve > t->cap_shown) {
        t->cap_shown = t->cap_curve;
        t->shown_curve = xrealloc_array(t->shown_curve, (size_t)t->cap_shown, sizeof *t->shown_curve);
        t->shown_ret = xrealloc_array(t->shown_ret, (size_t)t->cap_shown, sizeof *t->shown_ret);
    }
    size_t from = (size_t)t->n_shown, n = (size_t)(t->n_curve - t->n_shown);
    if (n > 0) {
        memcpy(t->shown_curve + from, t->curve + from, n * sizeof *t->curve);
        memcpy(t->shown_ret + from, t->ret + from, n * sizeof *t->ret);
    }
    t->n_shown = t->n_curve;
    t->shown_ran = t->ran;
    int done = t->done;
    pthread_mutex_unlock(&t->lock);
    return done;
}

void app_train_poll(App *a)
{
    if (a->train.running && take_curve(&a->train))
        app_train_stop(a);
}

void app_train_stop(App *a)
{
    AppTrain *t = &a->train;
    if (!t->running)
        return;
    t->stop = 1;
    pthread_join(t->thread, NULL);
    t->running = 0;
    take_curve(t);
    const AgentKind *k = a->policy.kind;
    NnParams *in_use = k->file.params((void *)app_policy_net(&a->policy)), *trained = k->file.params(t->net);
    memcpy(in_use->w, trained->w, in_use->n * sizeof *in_use->w); /* the actor reads them in place */
    app_cache_update(a);
    double best = INFINITY;
    for (int i = 0; i < t->ts.n_best; i++)
        if (t->ts.best[i].runtime_us < best)
            best = t->ts.best[i].runtime_us;
    /* a name no earlier file has: an episode saved with an earlier training's policy names that file and its
     * checksum, and must go on resuming */
    char base[4096], path[4200], note[4400] = "";
    app_out_path(a, ".trained-policy.json", base, sizeof base);
    const char *kept = app_write_target(a, base, 1, path, sizeof path); /* nor a file read or kept */
    if (kept)
        snprintf(note, sizeof note, " (%s is %s and was not replaced)", base, kept);
    Err e = {{0}};
    t->ts.cluster = a->data.pb.c; /* recorded in the policy file */
    if (k->file.save(t->net, &t->ts, path, &e) == 0) {
        size_t len;
        char *text = util_read_file(path, &len, &e);
        if (text) {
            free(a->policy.path);
            a->policy.path = xstrdup(path);
            a->policy.checksum = util_hash64(text, len, 0);
            free(text);
        }
        app_msg(a, kept ? GS_WARN : GS_GOOD, "trained %lld episodes (best %s); the policy now uses the new weights, "
                "saved as %s%s", (long long)t->ran, app_t(best), path, note);
    } else {
        app_msg(a, GS_WARN, "trained %lld episodes; the new weights are in use but not saved: %s", (long long)t->ran,
                e.msg);
    }
    run_free(a);
}
