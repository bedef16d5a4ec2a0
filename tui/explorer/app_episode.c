/* app_episode: the explorer's model, continued (see app.h): stepping the
 * episode with the policy, the user's overrides, undo and redo, new
 * episodes, running on a timer, and walking a replayed recording. Every
 * change rebuilds the cache (app_changed) and says what happened in the
 * message line. */
#include "app.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The message style of a change from before to after (lower is better). */
static int change_style(double before, double after)
{
    return after < before ? GS_GOOD : after > before ? GS_WARN : GS_NONE;
}

void app_entry_text(const App *a, const EpisodeStep *s, int compact, char *buf, size_t n)
{
    const Device *dev = a->data.pb.c->devices;
    char from[64], to[64], tried[64];
    if (compact) {
        snprintf(from, sizeof from, "d%d", s->old_device);
        snprintf(to, sizeof to, "d%d", s->new_device);
        snprintf(tried, sizeof tried, "d%d", s->proposed);
    } else {
        snprintf(from, sizeof from, "%s", dev[s->old_device].name);
        snprintf(to, sizeof to, "%s", dev[s->new_device].name);
        snprintf(tried, sizeof tried, "%s", dev[s->proposed].name);
    }
    const char *name = a->data.pb.gr->names[s->group];
    const char *who = s->actor == EPISODE_ACTOR_USER ? "you" : s->greedy && !compact ? "policy (greedy)" : "policy";
    const char *why = s->actor != EPISODE_ACTOR_USER ? "" : s->takes_step ? (compact ? " (step)" : " (this step)")
                                                                          : " (aside)";
    if (s->proposed != s->new_device) /* --accept improving: the move was slower and was undone */
        snprintf(buf, n, "%s tried %s on %s: slower, kept on %s", who, name, tried, from);
    else if (s->new_device == s->old_device)
        snprintf(buf, n, "%s kept %s on %s%s", who, name, from, why);
    else if (compact)
        snprintf(buf, n, "%s moved %s %s->%s%s", who, name, from, to, why);
    else
        snprintf(buf, n, "%s moved %s from %s to %s%s", who, name, from, to, why);
}

void app_step(App *a)
{
    Episode *ep = a->data.ep;
    if (episode_done(ep)) {
        a->run.running = 0;
        app_msg(a, GS_DIM, "the episode is complete (best %s): e starts a new one, u undoes",
                app_t(ep->best_runtime_us));
        return;
    }
    double before = ep->runtime_us;
    const EpisodeStep *s = app_actor_step(a);
    if (!s) { /* not reached: the episode is not done */
        a->run.running = 0;
        return;
    }
    app_changed(a);
    char what[512];
    app_entry_text(a, s, 0, what, sizeof what);
    if (s->proposed != s->new_device)
    {
        char r[48];
        app_msg(a, GS_DIM, "step %d: %s (reward %s): %s", s->cursor + 1, what, app_fmt_reward(ep, s->reward, r),
                app_t(s->runtime_us));
    }
    else if (s->new_device == s->old_device)
        app_msg(a, GS_DIM, "step %d: %s: %s", s->cursor + 1, what, app_t(s->runtime_us));
    else
        app_msg(a, change_style(before, s->runtime_us), "step %d: %s: %s -> %s", s->cursor + 1, what,
                app_t(before), app_t(s->runtime_us));
    if (episode_done(ep))
        a->run.running = 0;
}

void app_finish(App *a)
{
    Episode *ep = a->data.ep;
    int steps = 0;
    while (!episode_done(ep) && app_actor_step(a))
        steps++;
    a->run.running = 0;
    app_changed(a);
    app_msg(a, GS_NONE, "finished the episode in %d steps: runtime %s, best %s", steps,
            app_t(ep->runtime_us), app_t(ep->best_runtime_us));
}

/* Replaces the episode by a new one with the next seed (from init, or with
 * init NULL as the configuration says); the old one is kept for undo.
 * 0, or -1 with the message set. */
const char *app_t(double us)
{
    static char buf[8][32];
    static int next;
    char *b = buf[next];
    next = (next + 1) % 8;
    return util_fmt_time(b, us);
}

const char *app_fmt_reward(const Episode *ep, double reward, char b[48])
{
    if (ep->cfg.relative_reward)
        snprintf(b, 48, "%+.2f%% of the start", 100.0 * reward);
    else if (ep->cfg.log_runtime)
        snprintf(b, 48, "%+.4f (log s)", reward);
    else {
        char t[32];
        util_fmt_time(t, fabs(reward) * 1e6);
        snprintf(b, 48, "%s%s", reward < 0 ? "-" : "+", t);
    }
    return b;
}

static int begin_episode(App *a, const int *init, const EpisodeConfig *cfg)
{
    AppData *d = &a->data;
    AppEpisodes *h = &a->episodes;
    Episode *old = d->ep;
    Err e = {{0}};
    Episode *ep = episode_new(d->pb.g, d->pb.gr, d->pb.c, d->pg, cfg ? cfg : &old->cfg, old->seed + 1,
                              init ? init : old->init_device, &e);
    if (!ep) {
        app_msg(a, GS_ERROR, "no new episode: %s", e.msg);
        return -1;
    }
    a->run.running = 0;
    for (int k = 0; k < h->n_newer; k++) /* a new branch: what redo would have reached goes */
        episode_free(h->newer[k]);
    h->n_newer = 0;
    if (h->n_older == APP_EPISODES_KEPT) { /* the oldest goes */
        episode_free(h->older[0]);
        memmove(h->older, h->older + 1, (APP_EPISODES_KEPT - 1) * sizeof *h->older);
        h->n_older--;
    }
    h->older[h->n_older++] = old;
    d->ep = ep;
    app_changed(a);
    return 0;
}

/* Swaps the episode for the previous one (dir < 0) or the next one. */
static int switch_episode(App *a, int dir)
{
    AppEpisodes *h = &a->episodes;
    Episode **from = dir < 0 ? h->older : h->newer, **to = dir < 0 ? h->newer : h->older;
    int *n_from = dir < 0 ? &h->n_older : &h->n_newer, *n_to = dir < 0 ? &h->n_newer : &h->n_older;
    if (*n_from == 0)
        return -1;
    if (*n_to == APP_EPISODES_KEPT) {
        episode_free(to[0]);
        memmove(to, to + 1, (APP_EPISODES_KEPT - 1) * sizeof *to);
        (*n_to)--;
    }
    to[(*n_to)++] = a->data.ep;
    a->data.ep = from[--*n_from];
    a->run.running = 0;
    app_changed(a);
    const Episode *ep = a->data.ep;
    app_msg(a, GS_NONE, "%s: %s episode (seed %llu, step %d/%d, %s)%s", dir < 0 ? "undo" : "redo",
            dir < 0 ? "back to the previous" : "forward to the next", (unsigned long long)ep->seed, ep->cursor,
            ep->n_order, app_t(ep->runtime_us),
            dir < 0 ? ": U goes forward again" : "");
    return 0;
}

void app_episodes_free(App *a)
{
    AppEpisodes *h = &a->episodes;
    for (int k = 0; k < h->n_older; k++)
        episode_free(h->older[k]);
    for (int k = 0; k < h->n_newer; k++)
        episode_free(h->newer[k]);
    h->n_older = h->n_newer = 0;
}

void app_new_episode(App *a)
{
    if (a->replay.active)
        return;
    if (begin_episode(a, NULL, NULL) != 0)
        return;
    const Episode *ep = a->data.ep;
    app_msg(a, GS_NONE, "new episode (seed %llu) from %s: %s; u at its start goes back to the last one",
            (unsigned long long)ep->seed,
            ep->cfg.init == EPISODE_INIT_GIVEN ? "the given placement" : ep->cfg.init == EPISODE_INIT_DEVICE0 ?
            "everything on device 0" : "the fixed random placement", app_t(ep->runtime_us));
}

int app_new_episode_with(App *a, const EpisodeConfig *cfg)
{
    if (a->replay.active)
        return -1;
    return begin_episode(a, NULL, cfg);
}

int app_episode_back(App *a)
{
    return switch_episode(a, -1);
}

void app_history_seek(App *a, int dir)
{
    Episode *ep = a->data.ep;
    int n = 0;
    while ((dir < 0 ? episode_undo(ep) : episode_redo(ep)) == 0)
        n++;
    a->run.running = 0;
    app_changed(a);
    if (n == 0)
        app_msg(a, GS_DIM, dir < 0 ? "at the start of the history already" : "at the end of the history already");
    else
        app_msg(a, GS_NONE, "%s %d entries: step %d/%d, %s (%s)", dir < 0 ? "undid" : "redid", n, ep->cursor,
                ep->n_order, app_t(ep->runtime_us), dir < 0 ? "G or End redoes them all" : "g or Home undoes them all");
}

void app_override(App *a, int group, int device)
{
    const AppData *d = &a->data;
    if (group < 0 || group >= d->pb.gr->n_groups)
        return;
    a->view.selected = group;
    if (device < 0 || device >= d->pb.c->n_devices) {
        app_msg(a, GS_WARN, "there is no device %d (devices 0-%d)", device, d->pb.c->n_devices - 1);
        return;
    }
    double before = d->ep->runtime_us;
    Err e = {{0}};
    const EpisodeStep *s = episode_override(d->ep, group, device, &e);
    if (!s) {
        app_msg(a, GS_ERROR, "%s", e.msg);
        return;
    }
    a->run.running = 0;
    int took = s->takes_step, cursor = s->cursor;
    char what[512];
    app_entry_text(a, s, 0, what, sizeof what);
    app_changed(a);
    a->view.selected = group;
    int next = episode_current(d->ep);
    if (took && next >= 0)
        app_msg(a, change_style(before, d->ep->runtime_us),
                "step %d: %s: %s -> %s; the policy goes on with %s (u undoes)", cursor + 1, what,
                app_t(before), app_t(d->ep->runtime_us), d->pb.gr->names[next]);
    else if (took)
        app_msg(a, change_style(before, d->ep->runtime_us), "step %d: %s: %s -> %s; the episode is complete",
                cursor + 1, what, app_t(before), app_t(d->ep->runtime_us));
    else
        app_msg(a, change_style(before, d->ep->runtime_us), "%s: %s -> %s; the episode stays at step %d (u undoes)",
                what, app_t(before), app_t(d->ep->runtime_us), d->ep->cursor + 1);
}

/* Undo (redo 0) or redo one history entry. */
static void undo_redo(App *a, int redo)
{
    Episode *ep = a->data.ep;
    const EpisodeStep *s = !redo ? (ep->n_hist ? &ep->hist[ep->n_hist - 1] : NULL)
                                 : (ep->n_redo ? &ep->hist[ep->n_hist] : NULL);
    if (!s && !a->replay.active && switch_episode(a, redo ? 1 : -1) == 0)
        return;
    if (!s || (!redo ? episode_undo(ep) : episode_redo(ep)) != 0) {
        app_msg(a, GS_DIM, !redo ? "nothing to undo" : "nothing to redo");
        return;
    }
    a->run.running = 0;
    int g = s->group, from = !redo ? s->new_device : s->old_device;
    int to = !redo ? s->old_device : s->new_device;
    app_changed(a);
    a->view.selected = g;
    if (from == to) /* a kept step (or a move undone as slower): nothing moved */
        app_msg(a, GS_NONE, "%s: a kept step: %s stays on %s (%s)", !redo ? "undo" : "redo",
                a->data.pb.gr->names[g], a->data.pb.c->devices[to].name, app_t(ep->runtime_us));
    else
        app_msg(a, GS_NONE, "%s: %s back from %s to %s (%s)", !redo ? "undo" : "redo", a->data.pb.gr->names[g],
                a->data.pb.c->devices[from].name, a->data.pb.c->devices[to].name, app_t(ep->runtime_us));
}

void app_undo(App *a)
{
    undo_redo(a, 0);
}

void app_redo(App *a)
{
    undo_redo(a, 1);
}

void app_start_from(App *a, int k)
{
    if (k < 0 || k >= a->base.n || app_actor_refuse(a, "starting from a baseline's placement"))
        return;
    EpisodeInit init = a->data.ep->cfg.init;
    a->data.ep->cfg.init = EPISODE_INIT_GIVEN; /* kept: the episode file records this start */
    if (begin_episode(a, a->base.rows[k].group_device, NULL) != 0) {
        a->data.ep->cfg.init = init;
        return;
    }
    a->episodes.older[a->episodes.n_older - 1]->cfg.init = init;
    app_msg(a, GS_NONE, "new episode from %s's placement (%s): the policy refines it (u at its start goes back)",
            a->base.rows[k].method, app_t(a->data.ep->runtime_us));
}

/* ------------------------------------------------------------------ */
/* Running                                                             */

void app_set_running(App *a, int on)
{
    if (a->replay.active) {
        a->run.running = on;
        app_msg(a, GS_NONE, on ? "playing the recording (r pauses)" : "paused");
        return;
    }
    if (on && episode_done(a->data.ep)) {
        app_msg(a, GS_DIM, "the episode is complete: e starts a new one");
        return;
    }
    a->run.running = on;
    app_msg(a, GS_NONE, on ? "running at %d steps/s (+/- to change, r to pause)" : "paused", a->run.speed);
}

static const int speeds[] = {1, 2, 5, 10, 20, 50, 100};
enum { N_SPEEDS = sizeof speeds / sizeof speeds[0] };

int app_speed_step(int speed, int dir)
{
    int k = 0;
    while (k < N_SPEEDS - 1 && speeds[k] < speed)
        k++;
    k += dir > 0 ? 1 : -1;
    return speeds[k < 0 ? 0 : k >= N_SPEEDS ? N_SPEEDS - 1 : k];
}

void app_set_speed(App *a, int steps_per_second)
{
    a->run.speed = steps_per_second < 1 ? 1 : steps_per_second > 100 ? 100 : steps_per_second;
    app_msg(a, GS_NONE, "speed: %d steps/s", a->run.speed);
}

void app_set_greedy(App *a, int greedy)
{
    a->run.greedy = greedy;
    app_msg(a, GS_NONE, greedy ? "greedy: the policy takes its most likely device" :
                                 "sampling: the policy draws from its distribution");
}

/* ------------------------------------------------------------------ */
/* Replay: the recorded history walked with undo and redo; nothing new is
 * recorded and the episode stays saved. */

/* After moving n entries through the recording (n < 0: backwards). */
static void replay_moved(App *a, int n)
{
    Episode *ep = a->data.ep;
    app_changed(a);
    a->run.dirty = 0;
    int total = ep->n_hist + ep->n_redo;
    if (n == 0) {
        a->run.running = 0;
        app_msg(a, GS_DIM, "replay: %s of the recording (%d/%d)", ep->n_hist ? "the end" : "the start", ep->n_hist,
                total);
        return;
    }
    const EpisodeStep *s = &ep->hist[ep->n_hist - (n > 0 ? 1 : 0)];
    a->view.selected = s->group;
    char what[512];
    app_entry_text(a, s, 0, what, sizeof what);
    app_msg(a, GS_NONE, "replay %d/%d%s: %s, %s", ep->n_hist, total, n < 0 ? ", back over" : "", what,
            app_t(ep->runtime_us));
}

void app_replay_step(App *a, int dir)
{
    int n = 0;
    if (dir > 0 && episode_redo(a->data.ep) == 0)
        n = 1;
    else if (dir < 0 && episode_undo(a->data.ep) == 0)
        n = -1;
    replay_moved(a, n);
}

void app_replay_seek(App *a, int dir)
{
    int n = 0;
    if (dir > 0)
        while (episode_redo(a->data.ep) == 0)
            n++;
    else
        while (episode_undo(a->data.ep) == 0)
            n--;
    replay_moved(a, n);
}
