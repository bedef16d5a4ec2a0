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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_race.h"
#include "data.h"
#include "demo_text.h"
#include "place.h"
#include "why.h"

/* ------------------------------------------------------------------ */
/* The default tour's Apps                                             */

typedef struct TourApp {
    const char *graph, *policy, *cluster; /* under the data directory; cluster NULL: 2 default devices */
} TourApp;

static const TourApp tour_apps[TOUR_APP_COUNT] = {
    [TOUR_APP_DEFAULT] = {"nmt.json", "policies/nmt_2.json", NULL},
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

static void step_policy(App *a)
{
    if (!episode_done(a->data.ep))
        app_step(a);
}

/* ---- effects ---- */

static double gb(int64_t bytes)
{
    return (double)bytes / 1e9;
}

/* Placement k's timeline (0: every group on device 0, 1: the best
 * heuristic's) into p, on the axis p->axis_us. */
static void problem_bins(AppTourProblem *p, int k, const SimResult *r, const Graph *g)
{
    int nd = p->n_devices;
    double per = p->axis_us / TOUR_PROBLEM_COLS;
    double acc[TOUR_PROBLEM_DEVICES][TOUR_PROBLEM_COLS] = {{0}}, tx[TOUR_PROBLEM_DEVICES][TOUR_PROBLEM_COLS] = {{0}};
    for (int v = 0; v < g->n_nodes; v++) {
        int d = r->device[v];
        for (int c = (int)(r->start_us[v] / per); d < nd && c < TOUR_PROBLEM_COLS && c * per < r->end_us[v]; c++) {
            double lo = fmax(r->start_us[v], c * per), hi = fmin(r->end_us[v], (c + 1) * per);
            if (hi > lo)
                acc[d][c] += hi - lo;
        }
    }
    for (int t = 0; t < r->n_transfers; t++) {
        const SimTransfer *x = &r->transfers[t];
        for (int c = (int)(x->start_us / per); x->from < nd && c < TOUR_PROBLEM_COLS && c * per < x->end_us; c++) {
            double lo = fmax(x->start_us, c * per), hi = fmin(x->end_us, (c + 1) * per);
            if (hi > lo)
                tx[x->from][c] += hi - lo;
        }
    }
    for (int d = 0; d < nd; d++)
        for (int c = 0; c < TOUR_PROBLEM_COLS; c++) {
            double b = acc[d][c] / per, t = tx[d][c] / per;
            p->busy[k][d][c] = (unsigned char)(b >= 1 ? 255 : b * 255);
            p->xfer[k][d][c] = (unsigned char)(t >= 1 ? 255 : t > 0 && t < 0.02 ? 5 : t * 255);
        }
    p->runtime_us[k] = r->makespan_us;
    p->oom[k] = r->any_oom;
    for (int d = 0; d < nd; d++)
        p->peak_gb[k][d] = gb(r->peak_memory_bytes[d]);
}

/* The first stage's two timelines: every group on the first device, and
 * the best heuristic's split (its facts kept for the last stage). */
static void compute_problem(App *a)
{
    AppTourProblem *p = &a->tour.problem;
    if (p->ok)
        return;
    const Graph *g = a->data.pb.g;
    const Grouping *gr = a->data.pb.gr;
    const Cluster *c = a->data.pb.c;
    int nd = c->n_devices < TOUR_PROBLEM_DEVICES ? c->n_devices : TOUR_PROBLEM_DEVICES;
    memset(p, 0, sizeof *p);
    p->n_devices = nd;
    int *gdev = xnew_array((size_t)gr->n_groups, sizeof *gdev), *odev = xnew_array((size_t)g->n_nodes, sizeof *odev);
    PlaceCtx ctx = {.g = g, .gr = gr, .c = c, .seed = a->data.ep->seed};
    double score;
    const char *name = "device0";
    place_best_heuristic(&ctx, gdev, &score, &name);
    snprintf(p->heuristic, sizeof p->heuristic, "%s", name);
    Sim *sim = sim_new(g, c);
    for (int v = 0; v < g->n_nodes; v++) /* one device first: its runtime sets the common axis with the split's */
        odev[v] = 0;
    double single = sim_run(sim, odev)->makespan_us;
    for (int v = 0; v < g->n_nodes; v++)
        odev[v] = gdev[gr->op_group[v]];
    const SimResult *r = sim_run(sim, odev);
    p->axis_us = fmax(single, r->makespan_us);
    problem_bins(p, 1, r, g);
    for (int v = 0; v < g->n_nodes; v++)
        odev[v] = 0;
    problem_bins(p, 0, sim_run(sim, odev), g);
    for (int d = 0; d < nd; d++)
        p->cap_gb[d] = gb(c->devices[d].memory_bytes);
    sim_free(sim);
    free(gdev);
    free(odev);
    p->ok = 1;
    double *f = a->tour.facts;
    f[TOUR_FACT_SINGLE_US] = p->runtime_us[0];
    f[TOUR_FACT_SINGLE_GB] = p->peak_gb[0][0];
    f[TOUR_FACT_CAP_GB] = p->cap_gb[0];
    f[TOUR_FACT_HEUR_US] = p->runtime_us[1];
    f[TOUR_FACT_GROUPS] = gr->n_groups;
    f[TOUR_FACT_OPS] = g->n_nodes;
}

static void effect_problem(App *a)
{
    if (!a->tour.own_graph || a->data.pb.c->n_devices > 1)
        compute_problem(a);
}

static void effect_sets(App *a)
{
    a->run.greedy = 1; /* the tour shows the policy as it is evaluated: its most likely device */
    while (a->data.ep->cursor < a->data.ep->n_order / 3 && !episode_done(a->data.ep))
        app_step(a);
    int an, de, pa; /* on to a node with parallel groups, the set that makes model parallelism pay */
    app_tour_sets(a, &an, &de, &pa);
    while (pa == 0 && a->data.ep->cursor < 2 * a->data.ep->n_order / 3 && !episode_done(a->data.ep)) {
        app_step(a);
        app_tour_sets(a, &an, &de, &pa);
    }
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

/* The tour's policy to the end of its episode, and its untrained control
 * by the same procedure from the same start (the numbers of stages 10, 11
 * and the last). */
static void control_fact(App *a)
{
    double *f = a->tour.facts;
    if (!isnan(f[TOUR_FACT_CONTROL_US]) || !a->policy.path || !app_placeto_insides(a))
        return;
    Err e = {{0}};
    const AgentPolicy *p = agent_policy_cached(a->policy.path, NULL, &e);
    AgentPlaceOpts o = {0, a->data.ep->seed, AGENT_START_DEFAULT, 0};
    PlaceRun row;
    memset(&row, 0, sizeof row);
    if (p && agent_place_untrained(p, &a->data.pb, &o, &row, &e) == 0) {
        f[TOUR_FACT_CONTROL_US] = row.runtime_us;
        place_run_free(&row);
    }
}

static void effect_finish(App *a)
{
    effect_greedy_to_end(a);
    if (a->tour.app == TOUR_APP_DEFAULT && !a->tour.own_graph) {
        a->tour.facts[TOUR_FACT_POLICY_US] = a->data.ep->best_runtime_us;
        control_fact(a);
    }
}

/* The paper's rules: a new episode from the fixed random placement, every
 * move kept, the reward in seconds; the policy steps it to the end. */
static void effect_paper(App *a)
{
    if (!app_placeto_insides(a))
        return;
    control_fact(a);
    EpisodeConfig cfg = a->data.ep->cfg;
    cfg.init = EPISODE_INIT_RANDOM_FIXED;
    cfg.accept_improving = 0;
    cfg.reject_zero = 0;
    cfg.relative_reward = 0;
    if (app_new_episode_with(a, &cfg) != 0)
        return;
    a->run.greedy = 1;
    while (!episode_done(a->data.ep))
        app_step(a);
    if (a->tour.app == TOUR_APP_DEFAULT && !a->tour.own_graph)
        a->tour.facts[TOUR_FACT_PAPER_US] = a->data.ep->runtime_us;
}

static void effect_zero_shot(App *a)
{
    effect_greedy_to_end(a);
    if (a->tour.app == TOUR_APP_HELD_OUT && !a->tour.own_graph)
        a->tour.facts[TOUR_FACT_HELD_US] = a->data.ep->best_runtime_us;
}

/* A learned single-pass placer: its first six greedy steps. */
static void effect_actor(App *a)
{
    if (app_placeto_insides(a))
        return;
    if (episode_done(a->data.ep))
        app_new_episode(a);
    a->run.greedy = 1;
    while (a->data.ep->cursor < 6 && !episode_done(a->data.ep))
        app_step(a);
}

/* The closing stage: what an earlier stage measured and this App can. */
static void effect_closing(App *a)
{
    if (a->tour.own_graph || !app_placeto_insides(a))
        return;
    effect_problem(a);
    if (a->data.ep->cfg.init == EPISODE_INIT_RANDOM_FIXED && !a->data.ep->cfg.accept_improving &&
        app_episode_back(a) == 0) /* the paper stage's episode: back to the tour's policy's */
        app_msg(a, GS_NONE, "the tour's policy's episode again (U: the paper's rules' episode)");
    if (isnan(a->tour.facts[TOUR_FACT_POLICY_US]))
        effect_finish(a);
    control_fact(a);
}

/* ---- shows ---- */


/* The graph over the whole screen beside the caption: the groups stage. */
static void show_groups(App *a)
{
    app_focus(a, PANE_GRAPH);
    app_maximize(a, 1);
}
static void show_devices(App *a) { app_focus(a, PANE_DEVICES); }

/* Message passing round by round: the why panel at round 1 (j/k step the
 * rounds; the groups reached are lit in the graph). */
static void show_rounds(App *a)
{
    app_focus(a, PANE_GRAPH);
    if (!app_placeto_insides(a))
        return;
    app_why_open(a);
    a->dialog.menu_pos = 1;
}

static void show_paper(App *a)
{
    app_focus(a, PANE_HISTORY);
}
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
    if (a->tour.own_graph)
        return;
    const PlaceRun *srch = tour_best_row(a, TOUR_ROWS_SEARCH), *heur = tour_best_row(a, TOUR_ROWS_HEURISTIC);
    if (a->tour.app == TOUR_APP_DEFAULT)
        a->tour.facts[TOUR_FACT_SEARCH_US] = srch ? srch->runtime_us : NAN;
    else if (a->tour.app == TOUR_APP_HELD_OUT)
        a->tour.facts[TOUR_FACT_HELD_HEUR_US] = heur ? heur->runtime_us : NAN;
}

/* The learned rows of the table: the App's own policies and, on the
 * held-out graph, the family's other agents (the race races them too). */
static void learned_rows(App *a)
{
    app_run_learned(a);
    if (a->tour.app == TOUR_APP_HELD_OUT && !a->tour.own_graph)
        for (size_t k = 0; k < sizeof extra_agents / sizeof extra_agents[0]; k++) {
            char path[4096];
            data_path(path, sizeof path, extra_agents[k][0]);
            app_add_learned(a, path, extra_agents[k][1]);
        }
    place_run_sort(a->base.rows, a->base.n);
}

static void show_learned(App *a)
{
    app_focus(a, PANE_GRAPH);
    learned_rows(a);
    app_dialog_open(a, DLG_BASELINES, NULL);
}

static void show_actor(App *a)
{
    app_focus(a, PANE_POLICY);
    if (!app_placeto_insides(a))
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
    if (!a->base.n_learned) /* reached without the table's stage: its learned rows first, the race's lanes */
        learned_rows(a);
    app_race_open(a, app_search_budget(a));
}

/* The stage table. */
static const TourStage stages[] = {
    {.pub = {.title = "The problem: one device, or several", .extra = TOUR_PROBLEM, .rows = 6},
     .app = TOUR_APP_DEFAULT, .effect = effect_problem, .show = show_devices, .text = tour_text_problem},
    {.pub = {.title = "The computation graph and its groups", .extra = TOUR_TEXT, .rows = 10},
     .app = TOUR_APP_DEFAULT, .show = show_groups, .text = tour_text_groups},
    {.pub = {.title = "The simulator and the timeline", .extra = TOUR_CRITICAL, .rows = 6},
     .app = TOUR_APP_DEFAULT, .show = show_timeline, .text = tour_text_simulator},
    {.pub = {.title = "The state: what the policy sees", .extra = TOUR_FEATURES, .rows = 5},
     .app = TOUR_APP_DEFAULT, .show = show_inspector, .text = tour_text_state},
    {.pub = {.title = "Message passing, round by round", .extra = TOUR_ROUNDS, .rows = 12},
     .app = TOUR_APP_DEFAULT, .show = show_rounds, .text = tour_text_message_passing},
    {.pub = {.title = "Ancestors, descendants, parallel groups", .extra = TOUR_SETS, .rows = 10},
     .app = TOUR_APP_DEFAULT, .effect = effect_sets, .show = show_sets, .text = tour_text_sets},
    {.pub = {.title = "Probabilities and the action", .extra = TOUR_TEXT, .rows = 6},
     .app = TOUR_APP_DEFAULT, .show = show_policy, .text = tour_text_probs},
    {.pub = {.title = "The reward: the runtime improvement", .extra = TOUR_TEXT, .rows = 6},
     .app = TOUR_APP_DEFAULT, .effect = step_policy, .show = show_policy, .text = tour_text_reward},
    {.pub = {.title = "An override by hand, and the policy goes on", .extra = TOUR_TEXT, .rows = 7},
     .app = TOUR_APP_DEFAULT, .effect = effect_override, .show = show_history, .text = tour_text_override},
    {.pub = {.title = "Compared with the baselines", .top = 1, .extra = TOUR_TEXT, .rows = 13, .slow = 1},
     .app = TOUR_APP_DEFAULT, .effect = effect_finish, .show = show_baselines, .text = tour_text_baselines},
    {.pub = {.title = "The paper's rules beside this tour's", .extra = TOUR_TEXT, .rows = 8, .slow = 1},
     .app = TOUR_APP_DEFAULT, .effect = effect_paper, .show = show_paper, .text = tour_text_paper},
    {.pub = {.title = "Generalization to an unseen graph", .top = 1, .extra = TOUR_ZERO_SHOT, .rows = 12, .slow = 1},
     .app = TOUR_APP_HELD_OUT, .effect = effect_zero_shot, .show = show_baselines, .text = tour_text_zero_shot},
    {.pub = {.title = "Every learned agent beside the baselines", .top = 1, .extra = TOUR_TEXT, .rows = 13, .slow = 1},
     .app = TOUR_APP_HELD_OUT, .show = show_learned, .text = tour_text_learned},
    {.pub = {.title = "The race of the placers, live", .top = 1, .extra = TOUR_TEXT, .rows = 22, .slow = 1},
     .app = TOUR_APP_HELD_OUT, .show = show_race, .text = tour_text_race},
    {.pub = {.title = "Another learned agent: GDP", .extra = TOUR_TEXT, .rows = 11},
     .app = TOUR_APP_GDP, .effect = effect_actor, .show = show_actor, .text = tour_text_gdp},
    {.pub = {.title = "Another learned agent: the RNN placer", .extra = TOUR_TEXT, .rows = 11},
     .app = TOUR_APP_RNN, .effect = effect_actor, .show = show_actor, .text = tour_text_rnn},
    {.pub = {.title = "Another learned agent: HSDAG, its own grouping", .extra = TOUR_TEXT, .rows = 11},
     .app = TOUR_APP_HSDAG, .effect = effect_actor, .show = show_clusters, .text = tour_text_hsdag},
    {.pub = {.title = "The chain, with this tour's numbers", .extra = TOUR_TEXT, .rows = 6, .slow = 1},
     .app = TOUR_APP_DEFAULT, .effect = effect_closing, .show = show_groups, .text = tour_text_end},
};
enum { N_STAGES = sizeof stages / sizeof stages[0] };
_Static_assert((int)N_STAGES <= (int)APP_TOUR_MAX_STAGES, "AppTour.hist_at holds every stage");
_Static_assert((int)N_STAGES == (int)APP_TOUR_STAGES, "app.h counts the stages");

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
    if (!app_placeto_insides(a) && (s->text == tour_text_message_passing || s->text == tour_text_sets || s->text == tour_text_probs)) {
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
    memcpy(t->next_facts, t->facts, sizeof t->next_facts);
    t->next.demo_facts = t->next_facts;
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
    for (int j = k + 1; j <= t->done && known; j++) /* undo does not forget an episode's best: back across */
        known = stages[j].effect != effect_finish || stage_app(a, j) != where; /* its end, a fresh App */
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
    for (int k = 0; k < TOUR_FACT_COUNT; k++)
        t->facts[k] = o->demo_facts ? o->demo_facts[k] : NAN;
    t->problem.ok = 0;
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
