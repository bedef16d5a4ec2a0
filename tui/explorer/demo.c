/* demo: the guided tour of `placeto demo`, part of the explorer's model
 * (see app.h). Each stage sets the explorer up, through the model's
 * functions, to show one idea (the groups, the simulator, the state,
 * message passing, the pooled sets, the probabilities, the reward, an
 * override, the baselines, generalization, the RNN placer beside
 * Placeto); the view draws the stage's
 * caption over the screen (draw.c) and the controller advances on a key or,
 * with autoplay, on a timer (ctl.c). The last stages open a graph the
 * family's policy never saw, then the tour's graph again with the RNN
 * placer's policy. */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "data.h"

#define HELD_OUT_GRAPH "families/nmt/nmt_variant_24.json"
#define HELD_OUT_POLICY "policies/family_nmt.json"
#define DEFAULT_GRAPH "resnet18.json"
#define DEFAULT_POLICY "policies/resnet18_2.json"
#define RNN_POLICY "policies/rnn_resnet18_2.json"


static const AppTourStage stages[] = {
    {"The computation graph and its groups",
     "One training step of a network: forward, backward and weight updates, one node per op. "
     "Placeto places groups, not ops: a parameter stays with its gradient and update, chains and "
     "neighbours are merged, about 100-200 groups remain. Each box is a group; its colour and tag "
     "(d0, d1) say which device runs it, and the cells after < are the backward and update groups "
     "that belong to it (v shows every group in layers instead). The highlighted box is the current "
     "node; the map in the corner shows the whole graph and where the view is.",
     0, TOUR_TEXT},
    {"The simulator and the timeline",
     "An event-driven simulator runs every op on its group's device: an op starts when its inputs "
     "have arrived, one op at a time per device, transfers queue on the sender's bus. Each lane is a "
     "device, the line below it its outgoing transfers, ^ the critical path. The runtime of the "
     "placement is when the last op ends.",
     1, TOUR_TEXT},
    {"The state: what the policy sees",
     "For the node being placed, every group gets a feature row: its cost, its output bytes, how "
     "often it was visited, whether it is the current node, its start time relative to the current "
     "node's in the last simulation, and its device (one-hot); by default also how near it is to the "
     "critical path, its device's load and memory, and its neighbours' devices. Below: the current "
     "node, its parents and children, and a group on another device.",
     0, TOUR_FEATURES},
    {"Message passing",
     "A graph neural network embeds every group: 8 rounds in which each group adds up what its "
     "parents send (top-down) and, with other weights, what its children send (bottom-up). After k "
     "rounds a group's embedding summarises the groups up to k edges away, so the same network works "
     "on any graph, of any size.",
     0, TOUR_TEXT},
    {"Ancestors, descendants, parallel groups",
     "For the current node the policy pools the embeddings of three sets: its ancestors (they run "
     "before it), its descendants (after it) and the parallel groups (neither: they can run at the "
     "same time, on another device). The colours in the graph show the three sets; the tour let the "
     "policy place the first third of the groups, so that all three are there.",
     0, TOUR_TEXT},
    {"Probabilities and the action",
     "The pooled sets and the node's own embedding go through a small network: one probability per "
     "device (the Policy pane). Training samples a device from it; evaluation takes the most likely "
     "one. The next stage takes the step.",
     0, TOUR_TEXT},
    {"The reward: the runtime improvement",
     "The group moved; the graph was simulated again. The reward is the runtime before minus after; "
     "a move that made it slower is undone (its negative reward still teaches). One episode visits "
     "every group once; REINFORCE raises the probability of the actions whose reward beat the "
     "average at that step.",
     0, TOUR_TEXT},
    {"An override by hand, and the policy goes on",
     "You can place the current group yourself: press a device digit, and that is this step's "
     "decision; the policy goes on with the next group. The tour just did so, choosing another "
     "device than the policy preferred, and let the policy take the next step. A digit on any other "
     "selected group moves it aside, without moving the episode on. u undoes any step, yours or "
     "the policy's; U redoes it. The History pane says who chose what.",
     0, TOUR_TEXT},
    {"Compared with the baselines",
     "b runs every classic placer on the same simulator: one device, random, round-robin, expert "
     "stages, Baechi's m-TOPO and m-ETF, HEFT, METIS and Scotch, and the local searches anneal and "
     "ils. Enter starts an episode from one of them, so the policy refines its placement.",
     1, TOUR_TEXT},
    {"Generalization to an unseen graph",
     "",
     1, TOUR_ZERO_SHOT},
    {"Every learned agent beside the baselines",
     "The same table with the learned placers the project has: each Placeto policy that fits this "
     "graph (the one the tour uses, the graph's own bundled policy, the general policy), zero-shot "
     "from its start and refining the best heuristic's placement (never worse than it), each the "
     "best of a greedy and 8 sampled episodes, and the best placement its training found when it "
     "was trained on this graph.",
     1, TOUR_LEARNED},
    {"Another learned agent: the RNN placer",
     "",
     0, TOUR_TEXT},
    {"That is Placeto",
     "Learned placement that improves one group at a time and carries over to new graphs. q leaves "
     "the tour and keeps the explorer open: space steps, ? lists every key. Train your own policy "
     "with  placeto train GRAPH -o p.json  and open it with  placeto explore GRAPH --policy p.json; "
     "take this tour on your own graph with  placeto demo GRAPH.",
     0, TOUR_TEXT},
};
enum { N_STAGES = sizeof stages / sizeof stages[0], GENERALIZATION = 9, LEARNED = 10, RNN_AGENT = 11 };
_Static_assert((int)N_STAGES <= (int)APP_TOUR_MAX_STAGES, "AppTour.hist_at holds every stage");

/* The generalization stage's text: on the default tour a held-out family
 * graph; on the user's graph, whatever the policy in use is. */
static const char rnn_text[] =
    "The RNN-based placer (Mirhoseini et al., 2017) on the same graph and devices places everything at once "
    "with a sequence model: an LSTM reads the groups in topological order, then a decoder emits one device per "
    "group, each choice fed to the next, so one decode is one whole placement, made from nothing (the dimmed "
    "groups are not decoded yet). Its why is attention: the Policy pane lists the groups it looked at most for "
    "this one, highlighted in the graph. Placeto instead improves one group at a time with a graph network: it "
    "sees the current placement and its simulated timing, and its weights carry over to graphs it never saw; "
    "the RNN's are tied to this graph's groups.";

const char *app_tour_text(const App *a, int k, char *buf, size_t n)
{
    if (k == RNN_AGENT) {
        if (app_is_rnn(a))
            snprintf(buf, n, "%s q leaves the tour here to step the decoder yourself.", rnn_text);
        else
            snprintf(buf, n, "%s (Here the policy in use is Placeto's: the default tour, placeto demo, shows the "
                     "RNN placer on ResNet-18; placeto explore GRAPH --policy RNN.json opens one.)", rnn_text);
        return buf;
    }
    if (k != GENERALIZATION)
        return stages[k].text;
    if (a->tour.held_out)
        snprintf(buf, n, "This translation model is one of 8 graphs the family's policy never saw: it was "
                 "trained on 24 other graphs of the family. Without any training it placed this one in one "
                 "greedy episode (the best placement it passed through counts); the baselines are below.");
    else
        snprintf(buf, n, "The policy in use (%s) placed this graph in one greedy episode, with no training on "
                 "it here (the best placement it passed through counts); the baselines are below. A policy "
                 "trained on other graphs places a new one this way, zero-shot.",
                 a->policy.path ? a->policy.path : "untrained");
    return buf;
}

const AppTourStage *app_tour_stage(int k, int *count)
{
    *count = N_STAGES;
    return k >= 0 && k < N_STAGES ? &stages[k] : NULL;
}

static void step_policy(App *a)
{
    if (!episode_done(a->data.ep))
        app_step(a);
}

void app_tour_enter(App *a, int stage)
{
    AppView *v = &a->view;
    if (stage < 0 || stage >= N_STAGES) {
        a->tour.active = 0;
        a->tour.stage = -1;
        app_maximize(a, 0);
        app_dialog_close(a);
        app_msg(a, GS_NONE, "the tour is over: explore on (space steps, ? shows every key)");
        return;
    }
    a->tour.active = 1;
    a->tour.stage = stage;
    a->tour.since = util_now();
    a->tour.hist_at[stage] = a->data.ep->n_hist;
    app_maximize(a, 0);
    app_dialog_close(a);
    /* the screen set up without a message: the stage's caption explains it */
    v->show_sets = 0;
    v->follow = 1;
    v->zoom = stage == 4 ? DAG_COMPACT : DAG_FULL; /* the sets need the whole graph in view */
    switch (stage) {
    case 0: app_focus(a, PANE_GRAPH); break;
    case 1:
        app_focus(a, PANE_TIMELINE);
        app_maximize(a, 1);
        break;
    case 2: app_focus(a, PANE_INSPECTOR); break;
    case 3: app_focus(a, PANE_GRAPH); break;
    case 4:
        app_focus(a, PANE_GRAPH);
        v->show_sets = 1;
        while (a->data.ep->cursor < a->data.ep->n_order / 3 && !episode_done(a->data.ep)) /* all three sets non-empty */
            app_step(a);
        break;
    case 5: app_focus(a, PANE_POLICY); break;
    case 6:
        app_focus(a, PANE_POLICY);
        step_policy(a);
        break;
    case 7: {
        app_focus(a, PANE_HISTORY);
        int cur = episode_current(a->data.ep);
        if (cur >= 0) { /* the device after the one the policy likes best */
            int best = 0;
            for (int d = 1; d < a->data.pb.c->n_devices; d++)
                if (a->cache.probs[d] > a->cache.probs[best])
                    best = d;
            app_override(a, cur, (best + 1) % a->data.pb.c->n_devices);
        }
        step_policy(a);
        break;
    }
    case 8:
        app_focus(a, PANE_GRAPH);
        app_run_baselines(a);
        app_dialog_open(a, DLG_BASELINES, NULL);
        break;
    case GENERALIZATION:
        app_focus(a, PANE_GRAPH);
        a->run.greedy = 1;
        while (!episode_done(a->data.ep))
            app_step(a);
        app_run_baselines(a);
        app_dialog_open(a, DLG_BASELINES, NULL);
        break;
    case LEARNED:
        app_focus(a, PANE_GRAPH);
        app_run_learned(a);
        app_dialog_open(a, DLG_BASELINES, NULL);
        break;
    case RNN_AGENT:
        app_focus(a, PANE_POLICY);
        if (app_is_rnn(a)) { /* a few greedy decoder steps, the attention shown */
            if (episode_done(a->data.ep)) /* the user's own graph, decoded at generalization */
                app_new_episode(a);
            v->show_sets = 1;
            a->run.greedy = 1;
            while (a->data.ep->cursor < 6 && !episode_done(a->data.ep))
                app_step(a);
        }
        break;
    default: app_focus(a, PANE_GRAPH); break;
    }
}

/* Where the tour goes when it opens another App. */
enum { TO_DEFAULT, TO_HELD_OUT, TO_RNN };

/* Asks for another App at stage: the default tour's graph and policy, the
 * held-out graph and its family's policy, or the tour's graph with the RNN
 * placer's policy. */
static void ask_reload(App *a, int where, int stage)
{
    AppTour *t = &a->tour;
    data_path(t->next_path[0], sizeof t->next_path[0], where == TO_HELD_OUT ? HELD_OUT_GRAPH : DEFAULT_GRAPH);
    data_path(t->next_path[1], sizeof t->next_path[1],
                  where == TO_HELD_OUT ? HELD_OUT_POLICY : where == TO_RNN ? RNN_POLICY : DEFAULT_POLICY);
    memset(&t->next, 0, sizeof t->next);
    t->next.graph_path = t->next_path[0];
    t->next.policy_path = t->next_path[1];
    t->next.n_devices = 2;
    t->next.seed = 1;
    t->next.demo = t->autoplay ? 2 : 1;
    t->next.demo_seconds = t->seconds;
    t->next.demo_stage = stage;
    t->next.demo_held_out = where == TO_HELD_OUT;
    t->next.demo_rnn = where == TO_RNN;
    if (where == TO_RNN) { /* the network reads the grouping it was trained on */
        Err e = {{0}};
        const AgentPolicy *p = agent_policy_cached(t->next_path[1], NULL, &e); /* the reload takes it */
        if (p)
            t->next.groups = p->info.n_groups;
    }
}

int app_tour_next(App *a)
{
    int s = a->tour.stage + 1;
    if (s == GENERALIZATION && !a->tour.own_graph && !a->tour.held_out) {
        ask_reload(a, TO_HELD_OUT, GENERALIZATION);
        return 1;
    }
    if (s == RNN_AGENT && !a->tour.own_graph && !a->tour.rnn_app && !app_is_rnn(a)) {
        char path[4096];
        data_path(path, sizeof path, RNN_POLICY);
        FILE *f = fopen(path, "r");
        if (f) {
            fclose(f);
            ask_reload(a, TO_RNN, RNN_AGENT);
            return 1;
        }
        app_tour_enter(a, s); /* the bundled file is missing: the stage's text alone */
        app_msg(a, GS_WARN, "%s is missing: the RNN placer is not shown", path);
        return 0;
    }
    app_tour_enter(a, s);
    return 0;
}

int app_tour_prev(App *a)
{
    AppTour *t = &a->tour;
    int s = t->stage - 1;
    if (s < 0) {
        app_msg(a, GS_DIM, "this is the tour's first stage");
        return 0;
    }
    if (t->stage == GENERALIZATION && t->held_out) {
        ask_reload(a, TO_DEFAULT, GENERALIZATION - 1);
        return 1;
    }
    if (t->stage == RNN_AGENT && t->rnn_app) { /* back to the held-out graph */
        ask_reload(a, TO_HELD_OUT, LEARNED);
        return 1;
    }
    /* the stage's effects undone, so that entering it again shows it as it was */
    Episode *ep = a->data.ep;
    if (t->hist_at[s] >= 0)
        while (ep->n_hist > t->hist_at[s] && episode_undo(ep) == 0)
            ;
    app_changed(a);
    app_tour_enter(a, s);
    return 0;
}

int app_tour_due(const App *a, double now)
{
    return a->tour.active && a->tour.autoplay && now - a->tour.since >= a->tour.seconds;
}
