/* demo: the guided tour of `placeto demo`, part of the explorer's model
 * (see app.h). Each stage is a row of the table below: its title, where
 * its subject is (the caption goes on the other side, draw.c), the App it
 * runs in (the default tour opens another graph or policy for some), its
 * effect on the episode (steps, an override) and how it sets the screen up,
 * and its caption, made from what the stage shows (counts, moves, the
 * table's rows), so that a caption never claims what the screen does not
 * show. Going to a stage brings the episode to that stage's state: the
 * effects of the stages before it applied once, and undone or redone to
 * it afterwards, so that going back shows a stage as it was. The
 * controller (ctl.c) maps the tour's keys and the timer to these calls. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_race.h"
#include "data.h"

/* ------------------------------------------------------------------ */
/* The default tour's Apps                                             */

typedef struct TourApp {
    const char *graph, *policy, *cluster; /* under the data directory; cluster NULL: 2 default devices */
} TourApp;

static const TourApp tour_apps[TOUR_APP_COUNT] = {
    [TOUR_APP_DEFAULT] = {"resnet18.json", "policies/resnet18_2.json", NULL},
    [TOUR_APP_HELD_OUT] = {"families/nmt/nmt_variant_24.json", "policies/family_nmt.json", NULL},
    [TOUR_APP_GDP] = {"families/nmt/nmt_variant_24.json", "policies/gdp_family_nmt.json", NULL},
    [TOUR_APP_RNN] = {"resnet18.json", "policies/rnn_resnet18_2.json", NULL},
    [TOUR_APP_HSDAG] = {"inference/inception_v3.json", "policies/hsdag_inception_v3.json", "clusters/cpu_gpu1.json"},
};
/* The learned agents' bundled policies for the held-out graph's family,
 * beside Placeto's in the agents' stage. */
static const char *const extra_agents[][2] = {
    {"policies/rnn_family_nmt.json", "rnn family_nmt"},
    {"policies/gdp_family_nmt.json", "gdp family_nmt"},
    {"policies/hsdag_inception_v3.json", "hsdag inception_v3"},
};
enum { TOUR_APP_SAME = -1 }; /* a stage that runs in whatever App is open */

/* ------------------------------------------------------------------ */
/* The stages                                                          */

typedef void (*StageFn)(App *a);
typedef void (*StageText)(const App *a, char *buf, size_t n);

typedef struct TourStage {
    AppTourStage pub;
    int app;          /* AppTourApp, or TOUR_APP_SAME */
    StageFn effect;   /* what the stage does to the episode (NULL: nothing) */
    StageFn show;     /* how it sets the screen up */
    StageText text;   /* its caption */
} TourStage;

static int n_stages(void);
static const TourStage *stage_at(int k);

/* ---- helpers ---- */

static const char *dev_name(const App *a, int d)
{
    return a->data.pb.c->devices[d].name;
}

static const char *fmt_ms(char *b, double us)
{
    return util_fmt_time(b, us);
}

/* A policy file's name without directory and .json. */
static void file_stem(const char *path, char *buf, size_t n)
{
    app_policy_name(path, "", 60, buf, n);
}

static int is_training_graph(const App *a)
{
    return a->data.dag_fold != NULL;
}

/* The baselines' row of method name (exact), or NULL. */
static const PlaceRun *row_named(const App *a, const char *name)
{
    for (int k = 0; k < a->base.n; k++)
        if (a->base.rows[k].method && strcmp(a->base.rows[k].method, name) == 0)
            return &a->base.rows[k];
    return NULL;
}

/* The fastest row without OOM (learned rows included when learned). */
static const PlaceRun *best_row(const App *a, int learned)
{
    const PlaceRun *best = NULL;
    for (int k = 0; k < a->base.n; k++) {
        const PlaceRun *r = &a->base.rows[k];
        int is_learned = 0;
        for (int j = 0; j < a->base.n_learned; j++)
            is_learned |= r->method == a->base.learned_names[j];
        if (r->oom || (is_learned && !learned))
            continue;
        if (!best || r->runtime_us < best->runtime_us)
            best = r;
    }
    return best;
}

/* The device that holds most groups and how many it holds. */
static int busiest_device(const App *a, int *count)
{
    int nd = a->data.pb.c->n_devices, best = 0;
    int *c = xnew_array((size_t)nd, sizeof *c);
    for (int k = 0; k < a->data.pb.gr->n_groups; k++)
        c[a->data.ep->group_device[k]]++;
    for (int d = 1; d < nd; d++)
        if (c[d] > c[best])
            best = d;
    *count = c[best];
    free(c);
    return best;
}

static void step_policy(App *a)
{
    if (!episode_done(a->data.ep))
        app_step(a);
}

/* ---- effects ---- */

static void effect_sets(App *a)
{
    while (a->data.ep->cursor < a->data.ep->n_order / 3 && !episode_done(a->data.ep))
        app_step(a);
}

static void effect_override(App *a)
{
    int cur = episode_current(a->data.ep);
    if (cur >= 0) { /* the device after the one the policy likes best */
        int best = 0;
        for (int d = 1; d < a->data.pb.c->n_devices; d++)
            if (a->cache.probs[d] > a->cache.probs[best])
                best = d;
        app_override(a, cur, (best + 1) % a->data.pb.c->n_devices);
    }
    step_policy(a);
}

static void effect_greedy_to_end(App *a)
{
    a->run.greedy = 1;
    while (!episode_done(a->data.ep))
        app_step(a);
}

/* A learned single-pass placer: its first six greedy steps. */
static void effect_actor(App *a)
{
    if (!app_is_actor(a))
        return;
    if (episode_done(a->data.ep))
        app_new_episode(a);
    a->run.greedy = 1;
    while (a->data.ep->cursor < 6 && !episode_done(a->data.ep))
        app_step(a);
}

/* ---- shows ---- */

static void show_graph(App *a) { app_focus(a, PANE_GRAPH); }
static void show_inspector(App *a) { app_focus(a, PANE_INSPECTOR); }
static void show_policy(App *a) { app_focus(a, PANE_POLICY); }
static void show_history(App *a) { app_focus(a, PANE_HISTORY); }

static void show_timeline(App *a)
{
    app_focus(a, PANE_TIMELINE);
    app_maximize(a, 1);
}

static void show_sets(App *a)
{
    app_focus(a, PANE_GRAPH);
    app_maximize(a, 1);
    a->view.zoom = DAG_COMPACT; /* the sets need the whole graph in view */
    a->view.show_sets = 1;
}

static void show_baselines(App *a)
{
    app_focus(a, PANE_GRAPH);
    if (!a->base.ran || a->base.n_learned)
        app_run_baselines(a);
    app_dialog_open(a, DLG_BASELINES, NULL);
}

static void show_learned(App *a)
{
    app_focus(a, PANE_GRAPH);
    app_run_learned(a);
    if (a->tour.app == TOUR_APP_HELD_OUT && !a->tour.own_graph)
        for (size_t k = 0; k < sizeof extra_agents / sizeof extra_agents[0]; k++) {
            char path[4096];
            data_path(path, sizeof path, extra_agents[k][0]);
            app_add_learned(a, path, extra_agents[k][1]);
        }
    place_run_sort(a->base.rows, a->base.n);
    app_dialog_open(a, DLG_BASELINES, NULL);
}

static void show_actor(App *a)
{
    app_focus(a, PANE_POLICY);
    if (app_is_actor(a))
        a->view.show_sets = 1;
}

static void show_clusters(App *a)
{
    app_focus(a, PANE_POLICY); /* the why: the current group's cluster */
    if (a->cache.cluster)
        a->view.by_cluster = 1;
}

/* The race on the stage's graph at the budget of the baselines' searches
 * (app_search_budget: their work bounded, it ends in seconds), so that
 * anneal's and ils's final numbers are the table's rows. Shown again as it
 * was when it is there with that budget, else started (the same seed gives
 * the same race). Leaving the stage closes its dialog (show_stage,
 * end_tour), which stops it; a reload frees it. */
static void show_race(App *a)
{
    app_focus(a, PANE_GRAPH);
    app_race_open(a, app_search_budget(a));
}

/* ---- captions ---- */

static void text_groups(const App *a, char *buf, size_t n)
{
    const Grouping *gr = a->data.pb.gr;
    int train = is_training_graph(a);
    snprintf(buf, n, "%s one node per op (%d ops). Placeto places groups, not ops: %s; here %d groups remain. "
             "Each box is a group; its tag (d0, d1...) and colour say which device runs it%s. The highlighted box "
             "is the current node; on a graph larger than the pane, the map in the corner shows where the view is.",
             train ? "One training step of a network: forward, backward and weight updates,"
                   : "A network's computation graph:",
             a->data.pb.g->n_nodes,
             train ? "a parameter stays with its gradient and update, chains and neighbours are merged"
                   : "chains and neighbours are merged",
             gr->n_groups,
             a->view.fold && train ? ", and the cells after < are the backward and update groups that belong to "
                                     "it (v shows every group in layers instead)"
                                   : "");
}

static void text_simulator(const App *a, char *buf, size_t n)
{
    char b1[32];
    snprintf(buf, n, "An event-driven simulator runs every op on its group's device: an op starts when its inputs "
             "have arrived, one op at a time per device, transfers queue on the sender's bus. Each lane is a device "
             "(%d here), the line below it its outgoing transfers; the marks under the ops are the critical path "
             "(the legend below). The runtime of this placement, %s, is when the last op ends.",
             a->data.pb.c->n_devices, fmt_ms(b1, a->data.ep->runtime_us));
}

static void text_state(const App *a, char *buf, size_t n)
{
    if (app_is_actor(a)) {
        snprintf(buf, n, "Placeto's state is a feature row per group; the policy in use (%s) reads none: what it "
                 "reads is below.", a->policy.kind->name);
        return;
    }
    int cnt[4] = {0, 0, 0, 0}; /* current, parent, child, other */
    static const char *const roles[4] = {"current", "parent", "child", "other"};
    for (int k = 0; k < APP_FEATURE_ROWS; k++) {
        if (a->cache.feat_group[k] < 0)
            continue;
        const char *r = app_tour_feature_role(a, k);
        for (int j = 0; j < 4; j++)
            cnt[j] += strcmp(r, roles[j]) == 0;
    }
    const Grouping *gr = a->data.pb.gr;
    int cur = a->cache.node;
    char below[256] = "";
    if (cur >= 0) {
        int np = gr->pred_off[cur + 1] - gr->pred_off[cur], nc = gr->succ_off[cur + 1] - gr->succ_off[cur];
        snprintf(below, sizeof below, " Below: the current node (%s); %s; %s%s.", gr->names[cur],
                 np == 0 ? "it has no parents" : cnt[1] == np ? (np == 1 ? "its parent" : "its parents")
                                                               : "two of its parents",
                 nc == 0 ? "no children" : cnt[2] == nc ? (nc == 1 ? "its child" : "its children")
                                                         : "two of its children",
                 cnt[3] ? "; a group on another device" : "");
    }
    int ext = a->data.ep->cfg.extended_features;
    snprintf(buf, n, "For the node being placed, every group gets a feature row: its cost, its output bytes, how often "
             "it was visited, whether it is the current node, its start time relative to the current node's in "
             "the last simulation, and its device (one-hot)%s.%s",
             ext ? "; this policy also reads how near it is to the critical path, its device's load and memory, "
                   "and its neighbours' devices" : "",
             below);
}

static void text_message_passing(const App *a, char *buf, size_t n)
{
    int rounds = a->policy.pol ? a->policy.pol->arch.rounds : 8;
    snprintf(buf, n, "A graph neural network embeds every group: %d rounds in which each group adds up what its "
             "parents send (top-down) and, with other weights, what its children send (bottom-up). After k rounds "
             "a group's embedding summarises the groups up to k edges away, so the same network works on any graph, "
             "of any size.", rounds);
}

static void text_sets(const App *a, char *buf, size_t n)
{
    int an, de, pa;
    app_tour_sets(a, &an, &de, &pa);
    int cur = a->cache.node;
    char which[400];
    if (cur < 0)
        snprintf(which, sizeof which, "The episode is complete: there is no current node.");
    else if (pa == 0)
        snprintf(which, sizeof which, "Here %s has %d ancestors and %d descendants and no parallel group: in this "
                 "graph every other group runs before or after it, so that set is empty (the legend below).",
                 a->data.pb.gr->names[cur], an, de);
    else
        snprintf(which, sizeof which, "Here %s has %d ancestors, %d descendants and %d parallel groups (the legend "
                 "below gives their colours).", a->data.pb.gr->names[cur], an, de, pa);
    snprintf(buf, n, "For the current node the policy pools the embeddings of three sets: its ancestors (they run "
             "before it), its descendants (after it) and the parallel groups (neither: they can run at the same "
             "time, on another device). The tour let the policy place the first third of the groups. %s", which);
}

static void text_probs(const App *a, char *buf, size_t n)
{
    int cur = a->cache.node;
    char tail[200] = "";
    if (cur >= 0) {
        int best = 0;
        for (int d = 1; d < a->data.pb.c->n_devices; d++)
            if (a->cache.probs[d] > a->cache.probs[best])
                best = d;
        snprintf(tail, sizeof tail, " For %s it gives d%d %.1f%%.", a->data.pb.gr->names[cur], best,
                 100.0 * a->cache.probs[best]);
    }
    snprintf(buf, n, "The pooled sets and the node's own embedding go through a small network: one probability per "
             "device (the Policy pane).%s Training samples a device from it; evaluation takes the most likely "
             "one. The next stage takes the step.", tail);
}

/* The last history entry in words, with its reward in full. */
static void last_move(const App *a, char *buf, size_t n)
{
    const Episode *ep = a->data.ep;
    if (ep->n_hist == 0) {
        snprintf(buf, n, "No step was taken.");
        return;
    }
    const EpisodeStep *s = &ep->hist[ep->n_hist - 1];
    const char *g = a->data.pb.gr->names[s->group];
    char b1[32], b2[32];
    double before = s->runtime_us + s->reward * 1e6;
    if (s->proposed != s->new_device)
        snprintf(buf, n, "The policy tried %s on %s: slower, so the move was undone and it stays on %s (reward "
                 "%+.3f ms, the runtime stays %s).", g, dev_name(a, s->proposed), dev_name(a, s->new_device),
                 s->reward * 1e3, fmt_ms(b1, s->runtime_us));
    else if (s->new_device == s->old_device)
        snprintf(buf, n, "The policy kept %s on %s; the graph was simulated again: %s before, %s after, reward "
                 "%+.3f ms.", g, dev_name(a, s->new_device), fmt_ms(b1, before), fmt_ms(b2, s->runtime_us),
                 s->reward * 1e3);
    else
        snprintf(buf, n, "The policy moved %s from %s to %s; the graph was simulated again: %s before, %s after, "
                 "reward %+.3f ms.", g, dev_name(a, s->old_device), dev_name(a, s->new_device), fmt_ms(b1, before),
                 fmt_ms(b2, s->runtime_us), s->reward * 1e3);
}

static void text_reward(const App *a, char *buf, size_t n)
{
    char move[400];
    last_move(a, move, sizeof move);
    snprintf(buf, n, "%s The reward is the runtime before minus after; a move that made it slower is undone (its "
             "negative reward still teaches). One episode visits every group once; REINFORCE raises the probability "
             "of the actions whose reward beat the average at that step.", move);
}

static void text_override(const App *a, char *buf, size_t n)
{
    const Episode *ep = a->data.ep;
    char did[400] = "";
    if (ep->n_hist >= 2 && ep->hist[ep->n_hist - 2].actor == EPISODE_ACTOR_USER) {
        const EpisodeStep *u = &ep->hist[ep->n_hist - 2], *p = &ep->hist[ep->n_hist - 1];
        snprintf(did, sizeof did, "The tour just did so: it put %s on %s, not the device the policy preferred "
                 "(History row %d, shown as yours), and the policy took the next step (row %d: %s %s).",
                 a->data.pb.gr->names[u->group], dev_name(a, u->new_device), ep->n_hist - 1, ep->n_hist,
                 p->new_device != p->old_device ? "it moved" : "it kept", a->data.pb.gr->names[p->group]);
    }
    snprintf(buf, n, "After the tour (q), you can place the current group yourself: a device digit is this step's "
             "decision, and the policy goes on with the next group. %s A digit on any other selected group moves "
             "it aside, without moving the episode on; u undoes any step, yours or the policy's, U redoes it.", did);
}

static void text_baselines(const App *a, char *buf, size_t n)
{
    const PlaceRun *best = best_row(a, 0), *heft = row_named(a, "heft");
    const Episode *ep = a->data.ep;
    char b1[32], b2[32], b3[32], b4[32], verdict[700] = "";
    if (best) {
        int cnt, d = busiest_device(a, &cnt);
        if (ep->best_runtime_us > best->runtime_us * 1.005)
            snprintf(verdict, sizeof verdict, " Here %s wins with %s (HEFT %s); the tour's policy is at %s, its best "
                     "%s: %.0f%% slower than %s, with %d of %d groups on %s. The tour shows it for how a learned "
                     "policy decides, not because it wins on this graph; refining the best heuristic's placement, a "
                     "policy is never worse than that heuristic, and the next stages show one on a graph it never saw.",
                     best->method, fmt_ms(b1, best->runtime_us), heft ? fmt_ms(b2, heft->runtime_us) : "-",
                     fmt_ms(b3, ep->runtime_us), fmt_ms(b4, ep->best_runtime_us),
                     100.0 * (ep->best_runtime_us / best->runtime_us - 1), best->method, cnt,
                     a->data.pb.gr->n_groups, dev_name(a, d));
        else
            snprintf(verdict, sizeof verdict, " Here the best placer is %s with %s; the tour's policy reached %s.",
                     best->method, fmt_ms(b1, best->runtime_us), fmt_ms(b2, ep->best_runtime_us));
    }
    snprintf(buf, n, "Every classic placer on the same simulator: one device, random, round-robin, expert stages, "
             "Baechi's m-TOPO and m-ETF, HEFT, METIS and Scotch, and the local searches anneal and ils (b after the "
             "tour; Enter there starts an episode from the highlighted one).%s", verdict);
}

static void text_zero_shot(const App *a, char *buf, size_t n)
{
    char name[80];
    file_stem(a->policy.path ? a->policy.path : "untrained", name, sizeof name);
    if (a->tour.app == TOUR_APP_HELD_OUT && !a->tour.own_graph)
        snprintf(buf, n, "This translation model is one of 8 graphs the family's policy (%s) never saw: it was "
                 "trained on 24 other graphs of the family. Without any training it placed this one in one greedy "
                 "episode (the best placement it passed through counts); the baselines are below.", name);
    else
        snprintf(buf, n, "The policy in use (%s) placed this graph in one greedy episode, with no training on it "
                 "here (the best placement it passed through counts); the baselines are below. A policy trained on "
                 "other graphs places a new one this way, zero-shot.", name);
}

static void text_learned(const App *a, char *buf, size_t n)
{
    static const char *const kinds[] = {"placeto", "rnn", "gdp", "hsdag", "lsched", "lsearch"};
    char present[200] = "";
    size_t len = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        int seen = 0;
        size_t kl = strlen(kinds[k]);
        for (int j = 0; j < a->base.n_learned; j++)
            seen |= strncmp(a->base.learned_names[j], kinds[k], kl) == 0 && a->base.learned_names[j][kl] == ' ';
        if (seen)
            len += (size_t)snprintf(present + len, sizeof present - len, "%s%s", len ? ", " : "",
                                    strcmp(kinds[k], "placeto") == 0 ? "Placeto" : kinds[k]);
    }
    char b1[32], b2[32], zs[300] = "", best_txt[200] = "", hs[300] = "";
    const PlaceRun *best = best_row(a, 1);
    if (best)
        snprintf(best_txt, sizeof best_txt, " The fastest row is %s, %s.", best->method, fmt_ms(b1, best->runtime_us));
    char mine[80], row[120];
    if (a->policy.path && !app_is_actor(a)) {
        file_stem(a->policy.path, mine, sizeof mine);
        snprintf(row, sizeof row, "placeto %s zero-shot", mine);
        const PlaceRun *r = row_named(a, row);
        if (r && fabs(r->runtime_us - a->data.ep->best_runtime_us) > 0.5)
            snprintf(zs, sizeof zs, " Its row %s (%s, the best of 9 episodes) is not the previous stage's single "
                     "greedy episode (%s).", row, fmt_ms(b1, r->runtime_us), fmt_ms(b2, a->data.ep->best_runtime_us));
    }
    const PlaceRun *h = row_named(a, "hsdag inception_v3 zero-shot"), *single = row_named(a, "single");
    if (h)
        snprintf(hs, sizeof hs, " HSDAG's bundled policies are for a CPU and a GPU (a later stage shows one there); "
                 "on these two GPUs it gives %s%s.", fmt_ms(b1, h->runtime_us),
                 single && fabs(h->runtime_us - single->runtime_us) < 0.5 ? ", one device's runtime" : "");
    snprintf(buf, n, "The same table with the learned placers (%s): each policy that fits this graph, zero-shot from "
             "its start and, for Placeto, also refining the best heuristic's placement (never worse than it), each "
             "the best of a greedy and 8 sampled episodes.%s%s%s", present[0] ? present : "none", best_txt, zs, hs);
}

static const char rnn_text[] =
    "The RNN-based placer (Mirhoseini et al., 2017): an LSTM reads the groups in topological order and a decoder "
    "emits one device per group, each choice fed to the next: one decode is one whole placement, made from nothing "
    "(dimmed: not decoded yet). Its why is attention: the Policy pane lists the groups it looked at most, "
    "highlighted in the graph. Placeto instead improves a placement one group at a time, seeing its simulated "
    "timing; the RNN's weights are tied to this graph's groups.";

static const char gdp_text[] =
    "GDP (Zhou et al., 2019, trained with PPO): a graph network and attention over the groups give every group its "
    "distribution in one forward pass, applied here one group per step from device 0. Its why is attention, heads "
    "averaged: the Policy pane lists the groups it attended to most, highlighted in the graph.";

static const char hsdag_text[] =
    "HSDAG (Duan et al., 2024) learns its own grouping: one pass of its network clusters the groups and gives each "
    "cluster a device, so a cluster's later groups follow its first. The graph is coloured by learned cluster (C "
    "switches back to devices); the Policy pane lists the current group's cluster.";

/* The actors' stages: the kind in use, or where the default tour shows it. */
static void text_actor(const App *a, const char *kind, const char *text, const char *where, char *buf, size_t n)
{
    int here = app_is_actor(a) && strcmp(a->policy.kind->name, kind) == 0;
    char b1[32];
    if (here)
        snprintf(buf, n, "%s Here on %s (%d groups, %s): %d greedy steps, %s so far; q leaves the tour to step it "
                 "yourself.", text, a->data.pb.g->name, a->data.pb.gr->n_groups, a->data.pb.c->name,
                 a->data.ep->cursor, fmt_ms(b1, a->data.ep->runtime_us));
    else
        snprintf(buf, n, "%s (The policy in use here is %s: the default tour, placeto demo, shows it %s; placeto "
                 "explore GRAPH --policy FILE opens one.)", text,
                 app_is_actor(a) ? a->policy.kind->name : "Placeto's", where);
}

static void text_rnn(const App *a, char *buf, size_t n)
{
    text_actor(a, "rnn", rnn_text, "on ResNet-18", buf, n);
}

static void text_gdp(const App *a, char *buf, size_t n)
{
    char t[900];
    snprintf(t, sizeof t, "%s%s", gdp_text,
             a->tour.app == TOUR_APP_GDP ? " It was trained on the same 24 NMT graphs as Placeto's family "
                                           "policy (its row: stage 11)." : "");
    text_actor(a, "gdp", t, "on the held-out NMT graph", buf, n);
}

static void text_hsdag(const App *a, char *buf, size_t n)
{
    char t[900];
    snprintf(t, sizeof t, "%s", hsdag_text);
    if (app_is_actor(a) && a->cache.cluster) {
        char c[200];
        snprintf(c, sizeof c, " It made %d clusters of the %d groups.", a->cache.n_clusters, a->data.pb.gr->n_groups);
        strncat(t, c, sizeof t - strlen(t) - 1);
    }
    text_actor(a, "hsdag", t, "on Inception-V3 inference, one CPU and one GPU", buf, n);
}

static void text_end(const App *a, char *buf, size_t n)
{
    (void)a;
    snprintf(buf, n, "Learned placement that improves one group at a time and carries over to new graphs. q leaves "
             "the tour and keeps the explorer open (D comes back): space steps, ? lists every key. Train your own "
             "policy with  placeto train GRAPH -o p.json  and open it with  placeto explore GRAPH --policy p.json; "
             "take this tour on your own graph with  placeto demo GRAPH.");
}

/* A race lane's number as its legend shows it: the final row's runtime
 * once done, before that its best so far; 0 when it has none (not started,
 * failed, out of memory). */
static int lane_value(const RaceLane *l, double *us)
{
    if (l->done) {
        *us = l->row.runtime_us;
        return !l->failed && !l->row.oom;
    }
    if (l->n > 0)
        *us = l->best[l->n - 1];
    return l->n > 0;
}

/* A percentage as the captions print it: one decimal, two below 0.1. */
static const char *fmt_pct(char b[16], double p)
{
    snprintf(b, 16, p < 0.095 ? "%.2f%%" : "%.1f%%", p);
    return b;
}

/* Appends to buf (of n, holding len) with snprintf's arguments. */
static size_t append(char *buf, size_t n, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static size_t append(char *buf, size_t n, size_t len, const char *fmt, ...)
{
    if (len >= n)
        return len;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + len, n - len, fmt, ap);
    va_end(ap);
    return w < 0 ? len : len + (size_t)w >= n ? n - 1 : len + (size_t)w;
}

/* Who is ahead: the lanes with the lowest number as the screen shows it
 * (tied when their numbers print the same), and the next one behind. */
static size_t race_leaders(const Race *r, char *buf, size_t n, size_t len)
{
    int nl = race_lanes(r), best = -1, next = -1, n_best = 0;
    double v, bv = 0, nv = 0;
    char b1[32], b2[32], b3[32], name[128];
    for (int k = 0; k < nl; k++)
        if (lane_value(race_lane(r, k), &v) && (best < 0 || v < bv)) {
            best = k;
            bv = v;
        }
    if (best < 0)
        return append(buf, n, len, "no lane has a runtime yet.");
    fmt_ms(b1, bv);
    for (int k = 0; k < nl; k++) {
        if (!lane_value(race_lane(r, k), &v))
            continue;
        if (strcmp(fmt_ms(b2, v), b1) == 0)
            n_best++;
        else if (next < 0 || v < nv) {
            next = k;
            nv = v;
        }
    }
    if (n_best == 1) {
        app_race_lane_name(race_lane(r, best), name, sizeof name);
        len = append(buf, n, len, "%s is ahead with %s", name, b1);
    } else {
        int j = 0;
        for (int k = 0; k < nl; k++) {
            if (!lane_value(race_lane(r, k), &v) || strcmp(fmt_ms(b2, v), b1) != 0)
                continue;
            app_race_lane_name(race_lane(r, k), name, sizeof name);
            len = append(buf, n, len, "%s%s", j == 0 ? "" : j == n_best - 1 ? " and " : ", ", name);
            j++;
        }
        len = append(buf, n, len, " are ahead together with %s", b1);
    }
    if (next < 0)
        return append(buf, n, len, ", every lane with a runtime alike.");
    app_race_lane_name(race_lane(r, next), name, sizeof name);
    char pc[16];
    return append(buf, n, len, ", %s (%s) less than the next, %s, at %s.", fmt_ms(b2, nv - bv),
                  fmt_pct(pc, 100.0 * (nv - bv) / nv), name, fmt_ms(b3, nv));
}

/* Each learned placer against its untrained control, once both are done. */
static size_t race_controls(const Race *r, char *buf, size_t n, size_t len)
{
    int nl = race_lanes(r), shown = 0;
    char b1[32], b2[32], name[128], pc[16];
    for (int k = 0; k < nl; k++) {
        const RaceLane *p = race_lane(r, k), *c = NULL;
        if (p->kind != RACE_POLICY)
            continue;
        for (int j = 0; j < nl && !c; j++)
            if (race_lane(r, j)->kind == RACE_CONTROL && race_lane(r, j)->policy == p->policy)
                c = race_lane(r, j);
        double pv, cv;
        if (!c || !p->done || !c->done)
            continue;
        app_race_lane_name(p, name, sizeof name);
        len = append(buf, n, len, "%s%s ", shown ? "; " : " Trained against untrained: ", name);
        shown++;
        if (!lane_value(p, &pv) || !lane_value(c, &cv)) {
            len = append(buf, n, len, "%s, its control %s", p->failed ? "failed" : p->row.oom ? "out of memory" :
                         fmt_ms(b1, p->row.runtime_us), c->failed ? "failed" : c->row.oom ? "out of memory" :
                         fmt_ms(b2, c->row.runtime_us));
            continue;
        }
        len = append(buf, n, len, "%s, its untrained control %s", fmt_ms(b1, pv), fmt_ms(b2, cv));
        if (strcmp(b1, b2) == 0)
            len = append(buf, n, len, " (the same)");
        else if (pv < cv)
            len = append(buf, n, len, " (%s less)", fmt_pct(pc, 100.0 * (cv - pv) / cv));
        else
            len = append(buf, n, len, " (the control is ahead, %s less)", fmt_pct(pc, 100.0 * (pv - cv) / pv));
    }
    return shown ? append(buf, n, len, ".") : len;
}

static void text_race(const App *a, char *buf, size_t n)
{
    int64_t budget;
    int paused;
    const Race *r = app_race_state(a, &budget, &paused);
    if (!r || a->dialog.kind != DLG_RACE) {
        snprintf(buf, n, "The race is closed (Esc, or another dialog, closed it): R shows it again, as it was.");
        return;
    }
    int nl = race_lanes(r), learned = 0, controls = 0;
    for (int k = 0; k < nl; k++) {
        learned += race_lane(r, k)->kind == RACE_POLICY;
        controls += race_lane(r, k)->kind == RACE_CONTROL;
    }
    size_t len = 0;
    if (race_done(r)) {
        len = append(buf, n, len, "Finished: ");
        len = race_leaders(r, buf, n, len);
        len = race_controls(r, buf, n, len);
    } else {
        len = append(buf, n, len, "%s: the furthest lane has made %lld of about %lld simulations; so far ",
                     paused ? "Paused (space in the race goes on, after q leaves the tour)" : "Running",
                     (long long)race_max_n(r), (long long)budget);
        len = race_leaders(r, buf, n, len);
    }
    if (learned)
        len = append(buf, n, len, " The race: every learned placer whose bundled policy fits this graph (%d)%s, and "
                     "the local searches anneal and ils, %lld placements each (the baselines table's budget: "
                     "their final numbers are its rows), advancing together one slice at a time; the chart draws "
                     "each one's best runtime against the simulations it made. Lanes: ",
                     learned, controls ? ", each beside its untrained control (the same network with the weights its "
                     "training starts from)" : "", (long long)budget);
    else
        len = append(buf, n, len, " No bundled learned policy fits this graph (below the chart: why); the local "
                     "searches race alone, %lld placements each (the baselines table's budget). Lanes: ", (long long)budget);
    char name[128];
    for (int k = 0; k < nl; k++) {
        app_race_lane_name(race_lane(r, k), name, sizeof name);
        len = append(buf, n, len, "%s%s", k == 0 ? "" : k == nl - 1 ? " and " : ", ", name);
    }
    append(buf, n, len, ".");
}

/* The stage table. */
static const TourStage stages[] = {
    {{"The computation graph and its groups", 0, TOUR_TEXT, 8, 0}, TOUR_APP_DEFAULT, NULL, show_graph, text_groups},
    {{"The simulator and the timeline", 0, TOUR_CRITICAL, 6, 0}, TOUR_APP_DEFAULT, NULL, show_timeline,
     text_simulator},
    {{"The state: what the policy sees", 0, TOUR_FEATURES, 5, 0}, TOUR_APP_DEFAULT, NULL, show_inspector, text_state},
    {{"Message passing", 0, TOUR_TEXT, 8, 0}, TOUR_APP_DEFAULT, NULL, show_graph, text_message_passing},
    {{"Ancestors, descendants, parallel groups", 0, TOUR_SETS, 8, 0}, TOUR_APP_DEFAULT, effect_sets, show_sets,
     text_sets},
    {{"Probabilities and the action", 0, TOUR_TEXT, 6, 0}, TOUR_APP_DEFAULT, NULL, show_policy, text_probs},
    {{"The reward: the runtime improvement", 0, TOUR_TEXT, 6, 0}, TOUR_APP_DEFAULT, step_policy, show_policy,
     text_reward},
    {{"An override by hand, and the policy goes on", 0, TOUR_TEXT, 7, 0}, TOUR_APP_DEFAULT, effect_override,
     show_history, text_override},
    {{"Compared with the baselines", 1, TOUR_TEXT, 7, 1}, TOUR_APP_DEFAULT, NULL, show_baselines, text_baselines},
    {{"Generalization to an unseen graph", 1, TOUR_ZERO_SHOT, 7, 1}, TOUR_APP_HELD_OUT, effect_greedy_to_end,
     show_baselines, text_zero_shot},
    {{"Every learned agent beside the baselines", 1, TOUR_TEXT, 7, 1}, TOUR_APP_HELD_OUT, NULL, show_learned,
     text_learned},
    {{"The race of the placers, live", 1, TOUR_TEXT, 20, 0}, TOUR_APP_HELD_OUT, NULL, show_race, text_race},
    {{"Another learned agent: GDP", 0, TOUR_TEXT, 11, 0}, TOUR_APP_GDP, effect_actor, show_actor, text_gdp},
    {{"Another learned agent: the RNN placer", 0, TOUR_TEXT, 11, 0}, TOUR_APP_RNN, effect_actor, show_actor, text_rnn},
    {{"Another learned agent: HSDAG, its own grouping", 0, TOUR_TEXT, 11, 0}, TOUR_APP_HSDAG, effect_actor,
     show_clusters, text_hsdag},
    {{"That is Placeto", 0, TOUR_TEXT, 4, 0}, TOUR_APP_SAME, NULL, show_graph, text_end},
};
enum { N_STAGES = sizeof stages / sizeof stages[0] };
_Static_assert((int)N_STAGES <= (int)APP_TOUR_MAX_STAGES, "AppTour.hist_at holds every stage");

static int n_stages(void)
{
    return N_STAGES;
}

static const TourStage *stage_at(int k)
{
    return k >= 0 && k < N_STAGES ? &stages[k] : NULL;
}

const AppTourStage *app_tour_stage(int k, int *count)
{
    *count = n_stages();
    const TourStage *s = stage_at(k);
    return s ? &s->pub : NULL;
}

const char *app_tour_text(const App *a, int k, char *buf, size_t n)
{
    const TourStage *s = stage_at(k);
    if (!s || n == 0)
        return "";
    s->text(a, buf, n);
    if (app_is_actor(a) && (s->text == text_message_passing || s->text == text_sets || s->text == text_probs)) {
        size_t len = strlen(buf); /* Placeto's network: not the policy stepping this episode */
        snprintf(buf + len, n - len, " (This is Placeto's network; the policy in use here is the %s placer's, "
                 "whose own stage comes later.)", a->policy.kind->name);
    }
    return buf;
}

const char *app_tour_feature_role(const App *a, int k)
{
    int g = a->cache.feat_group[k], cur = a->cache.node;
    if (g < 0 || cur < 0)
        return "";
    if (g == cur)
        return "current";
    const Grouping *gr = a->data.pb.gr;
    for (int j = gr->pred_off[cur]; j < gr->pred_off[cur + 1]; j++)
        if (gr->pred[j] == g)
            return "parent";
    for (int j = gr->succ_off[cur]; j < gr->succ_off[cur + 1]; j++)
        if (gr->succ[j] == g)
            return "child";
    return "other";
}

void app_tour_sets(const App *a, int *anc, int *desc, int *par)
{
    *anc = *desc = *par = 0;
    int cur = episode_current(a->data.ep);
    if (cur < 0 || !a->data.pg)
        return;
    for (int j = 0; j < a->data.pb.gr->n_groups; j++) {
        if (j == cur)
            continue;
        if (policy_graph_is_anc(a->data.pg, cur, j))
            (*anc)++;
        else if (policy_graph_is_desc(a->data.pg, cur, j))
            (*desc)++;
        else
            (*par)++;
    }
}

/* ------------------------------------------------------------------ */
/* Going to a stage                                                    */

/* The App stage k runs in (the user's graph: always the open one). */
static int stage_app(const App *a, int k)
{
    const TourStage *s = stage_at(k);
    return a->tour.own_graph || !s || s->app == TOUR_APP_SAME ? a->tour.app : s->app;
}

/* Sets o's graph, policy, cluster and devices to the tour's App where
 * (paths: three buffers for them). */
static void app_options(int where, AppOptions *o, char paths[3][4096])
{
    const TourApp *ta = &tour_apps[where];
    data_path(paths[0], 4096, ta->graph);
    data_path(paths[1], 4096, ta->policy);
    if (ta->cluster)
        data_path(paths[2], 4096, ta->cluster);
    o->graph_path = paths[0];
    o->policy_path = paths[1];
    o->cluster_path = ta->cluster ? paths[2] : NULL;
    o->n_devices = ta->cluster ? 0 : 2;
    o->groups = 0;
    o->demo_app = where;
    Err e = {{0}};
    const AgentPolicy *p = agent_policy_cached(paths[1], NULL, &e); /* the App takes it from the cache */
    if (p && p->kind && strcmp(p->kind->name, "rnn") == 0) /* the network reads the grouping it was trained on */
        o->groups = p->info.n_groups;
    if (p && !ta->cluster && p->info.n_devices > 0)
        o->n_devices = p->info.n_devices;
}

void app_tour_options(int stage, AppOptions *o, char paths[3][4096])
{
    const TourStage *s = stage_at(stage);
    app_options(s && s->app != TOUR_APP_SAME ? s->app : TOUR_APP_DEFAULT, o, paths);
}

/* Asks for the tour's App where, at stage. */
static void ask_reload(App *a, int where, int stage)
{
    AppTour *t = &a->tour;
    memset(&t->next, 0, sizeof t->next);
    app_options(where, &t->next, t->next_path);
    t->next.seed = 1;
    t->next.demo = t->autoplay ? 2 : 1;
    t->next.demo_seconds = t->seconds;
    t->next.demo_stage = stage;
    t->next.demo_loop = t->loop;
    t->next.demo_paused = t->paused;
}

/* Forgets what the stages did when the episode is another than theirs. */
static void check_records(App *a)
{
    AppTour *t = &a->tour;
    if (t->ep == (const void *)a->data.ep)
        return;
    t->ep = a->data.ep;
    t->done = -1;
    for (int k = 0; k < APP_TOUR_MAX_STAGES; k++)
        t->hist_at[k] = -1;
}

/* Undoes or redoes the episode's history to n entries; 0, or -1 when the
 * history does not reach it. */
static int seek_history(App *a, int n)
{
    Episode *ep = a->data.ep;
    if (n < 0 || n > ep->n_hist + ep->n_redo)
        return -1;
    int moved = 0;
    while (ep->n_hist > n && episode_undo(ep) == 0)
        moved = 1;
    while (ep->n_hist < n && episode_redo(ep) == 0)
        moved = 1;
    if (moved) {
        app_cache_update(a);
        int cur = episode_current(ep);
        a->view.follow = 1;
        if (cur >= 0)
            a->view.selected = cur;
    }
    return ep->n_hist == n ? 0 : -1;
}

/* Sets the screen up for stage k (the episode already in its state). */
static void show_stage(App *a, int k)
{
    AppView *v = &a->view;
    AppTour *t = &a->tour;
    t->active = 1;
    t->stage = k;
    t->left = -1;
    t->since = util_now();
    t->expand = 0;
    app_maximize(a, 0);
    app_dialog_close(a);
    v->show_sets = 0;
    v->by_cluster = 0;
    v->follow = 1;
    v->zoom = DAG_FULL;
    if (t->hist_at[k] >= 0)
        a->run.greedy = t->greedy_at[k];
    int cur = episode_current(a->data.ep);
    if (cur >= 0)
        v->selected = cur;
    stages[k].show(a);
}

/* Brings the episode to stage k's state; 0, or -1 when only a fresh App
 * can (the history no longer reaches it). */
static int reach(App *a, int k)
{
    AppTour *t = &a->tour;
    check_records(a);
    if (t->hist_at[k] >= 0 && seek_history(a, t->hist_at[k]) == 0) {
        t->done = k;
        return 0;
    }
    if (k < t->done)
        return -1;
    if (t->done >= 0 && t->hist_at[t->done] >= 0)
        seek_history(a, t->hist_at[t->done]);
    for (int j = t->done + 1; j <= k; j++) {
        if (stage_app(a, j) != t->app)
            continue;
        if (stages[j].effect)
            stages[j].effect(a);
        check_records(a); /* an effect may begin a new episode */
        t->hist_at[j] = a->data.ep->n_hist;
        t->greedy_at[j] = a->run.greedy;
        t->done = j;
    }
    t->done = k;
    return 0;
}

static void end_tour(App *a)
{
    AppTour *t = &a->tour;
    t->active = 0;
    t->stage = -1;
    t->pending = -1;
    t->jump = 0;
    app_maximize(a, 0);
    app_dialog_close(a);
}

int app_tour_goto(App *a, int k)
{
    AppTour *t = &a->tour;
    t->jump = 0;
    if (k < 0 || k >= N_STAGES) {
        end_tour(a);
        t->left = -1;
        app_msg(a, GS_NONE, "the tour is over: explore on (space steps, ? shows every key)");
        return 0;
    }
    int where = stage_app(a, k);
    if (where != t->app) {
        ask_reload(a, where, k);
        return 1;
    }
    check_records(a);
    int known = t->hist_at[k] >= 0 && t->hist_at[k] <= a->data.ep->n_hist + a->data.ep->n_redo;
    if (!known && k < t->done) { /* only a fresh App has the stage as it was */
        ask_reload(a, where, k);
        return 1;
    }
    if (stages[k].pub.slow) { /* drawn first with the busy sign */
        t->active = 1;
        t->stage = k;
        t->left = -1;
        t->pending = k;
        t->pending_as_is = 0;
        app_dialog_close(a);
        return 0;
    }
    if (reach(a, k) != 0) { /* only a fresh App has the stage as it was */
        ask_reload(a, where, k);
        return 1;
    }
    show_stage(a, k);
    return 0;
}

void app_tour_settle(App *a)
{
    AppTour *t = &a->tour;
    int k = t->pending;
    if (k < 0)
        return;
    t->pending = -1;
    if (t->pending_as_is) { /* R: the stage shown on the episode as the user left it */
        t->pending_as_is = 0;
        show_stage(a, k);
        return;
    }
    if (reach(a, k) != 0) { /* not reached: ends the tour rather than showing another state */
        end_tour(a);
        app_msg(a, GS_WARN, "the tour cannot show stage %d again here: R restarts it", k + 1);
        t->left = 0;
        return;
    }
    show_stage(a, k);
}

void app_tour_start(App *a, const AppOptions *o)
{
    AppTour *t = &a->tour;
    t->autoplay = o->demo == 2;
    t->seconds = o->demo_seconds > 0 ? o->demo_seconds : 7.0;
    t->own_graph = o->demo_own_graph;
    t->app = o->demo_app;
    t->loop = o->demo_loop;
    t->paused = o->demo_paused;
    t->left = -1;
    t->pending = -1;
    t->ep = NULL;
    check_records(a);
    int k = o->demo_stage < 0 ? 0 : o->demo_stage >= N_STAGES ? N_STAGES - 1 : o->demo_stage;
    if (!t->own_graph && stage_app(a, k) != t->app) /* not this App's stage: its App's first */
        k = 0;
    t->active = 1;
    t->stage = k;
    t->pending = k; /* computed once the first frame is up */
    if (!stages[k].pub.slow)
        app_tour_settle(a);
}

int app_tour_next(App *a)
{
    int k = a->tour.stage + 1;
    if (k >= N_STAGES && a->tour.autoplay && a->tour.loop)
        k = 0;
    if (k < N_STAGES && !a->tour.own_graph && stage_app(a, k) != a->tour.app) {
        char path[4096];
        data_path(path, sizeof path, tour_apps[stage_app(a, k)].policy);
        FILE *f = fopen(path, "r");
        if (!f) { /* a bundled file is missing: the stages of that App are left out */
            app_msg(a, GS_WARN, "%s is missing: stage %d is left out", path, k + 1);
            while (k < N_STAGES && stage_app(a, k) != a->tour.app && stages[k].app != TOUR_APP_SAME)
                k++;
        } else {
            fclose(f);
        }
    }
    return app_tour_goto(a, k);
}

int app_tour_prev(App *a)
{
    int k = a->tour.stage - 1;
    if (k < 0) {
        app_msg(a, GS_DIM, "this is the tour's first stage");
        return 0;
    }
    return app_tour_goto(a, k);
}

void app_tour_leave(App *a)
{
    int k = a->tour.stage;
    end_tour(a);
    a->tour.left = k;
    app_msg(a, GS_NONE, "left the tour at stage %d: D goes back to it; space steps, ? shows every key", k + 1);
}

int app_tour_resume(App *a)
{
    int k = a->tour.left;
    if (k < 0)
        return 0;
    a->tour.left = -1;
    if (a->tour.pending >= 0)
        return 0;
    check_records(a);
    if (stage_app(a, k) != a->tour.app) {
        ask_reload(a, stage_app(a, k), k);
        return 1;
    }
    if (stages[k].pub.slow) {
        a->tour.active = 1;
        a->tour.stage = k;
        a->tour.pending = k;
        a->tour.pending_as_is = 1;
        return 0;
    }
    /* as the user left it: the screen set up again, the episode as it is now */
    show_stage(a, k);
    app_msg(a, GS_NONE, "back in the tour at stage %d", k + 1);
    return 0;
}

int app_tour_digit(App *a, int digit)
{
    AppTour *t = &a->tour;
    int v = t->jump * 10 + digit;
    if (v < 1 || v > N_STAGES) {
        t->jump = 0;
        app_msg(a, GS_WARN, "no stage %d: the tour has stages 1 to %d", v, N_STAGES);
        return 0;
    }
    if (v * 10 <= N_STAGES) { /* a longer number could follow */
        t->jump = v;
        app_msg(a, GS_NONE, "go to stage %d_ (another digit, or Enter)", v);
        return 0;
    }
    return app_tour_goto(a, v - 1);
}

void app_tour_play(App *a)
{
    AppTour *t = &a->tour;
    if (!t->autoplay) {
        t->autoplay = 1;
        t->paused = 0;
    } else {
        t->paused = !t->paused;
    }
    t->since = util_now();
    app_msg(a, GS_NONE, t->paused ? "the tour is paused: r plays it on" :
            "the tour plays on its own, a stage every %.0f s: r pauses it", t->seconds);
}

int app_tour_due(const App *a, double now)
{
    return a->tour.active && a->tour.autoplay && !a->tour.paused && a->tour.pending < 0 &&
           now - a->tour.since >= a->tour.seconds;
}
