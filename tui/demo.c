/* demo: the guided tour of `placeto demo`. Each stage sets up the explorer
 * to show one idea (the groups, the simulator, the state, message passing,
 * the pooled sets, the probabilities, the reward, an override, the
 * baselines, generalization), draws a short caption over the screen and
 * waits for a key, or advances on a timer with --auto. The last stages open
 * a graph the family's policy never saw. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "place.h"
#include "term.h"

#define DEMO_SECONDS 7.0
#define HELD_OUT_GRAPH "families/nmt/nmt_variant_24.json"
#define HELD_OUT_POLICY "policies/family_nmt.json"

const char *cli_data_path(char *buf, size_t n, const char *rel); /* tui/cli.c */

typedef struct Stage {
    const char *title;
    const char *text; /* lines separated by \n; %s-free: dynamic lines come from demo_draw */
} Stage;

static const Stage stages[] = {
    {"The computation graph and its groups",
     "One training step of a network: forward, backward and weight updates, one node per op.\n"
     "Placeto places groups, not ops: a parameter stays with its gradient and update, chains\n"
     "and neighbours are merged, about 100-200 groups remain. Each box is a group; its colour\n"
     "and tag (d0, d1) say which device runs it. The highlighted box is the current node."},
    {"The simulator and the timeline",
     "An event-driven simulator runs every op on its group's device: an op starts when its\n"
     "inputs have arrived, one op at a time per device, transfers queue on the sender's bus.\n"
     "Each lane is a device, the line below it its outgoing transfers, ^ the critical path.\n"
     "The runtime of the placement is when the last op ends."},
    {"The state: what the policy sees",
     "For the node being placed, every group gets a feature row: its cost, its output bytes,\n"
     "how often it was visited, whether it is the current node, its start time relative to\n"
     "the current node's in the last simulation, and its device (one-hot)."},
    {"Message passing",
     "A graph neural network embeds every group: 8 rounds in which each group adds up what its\n"
     "parents send (top-down) and, with other weights, what its children send (bottom-up).\n"
     "After k rounds a group's embedding summarises the groups up to k edges away, so the same\n"
     "network works on any graph, of any size."},
    {"Ancestors, descendants, parallel groups",
     "For the current node the policy pools the embeddings of three sets: its ancestors (they\n"
     "run before it), its descendants (after it) and the parallel groups (neither: they can run\n"
     "at the same time, on another device). The colours in the graph show the three sets; the\n"
     "tour let the policy place the first third of the groups, so that all three are there."},
    {"Probabilities and the action",
     "The pooled sets and the node's own embedding go through a small network: one probability\n"
     "per device (the Policy pane). Training samples a device from it; evaluation takes the\n"
     "most likely one. The next stage takes the step."},
    {"The reward: the runtime improvement",
     "The group moved; the graph was simulated again. The reward is the runtime before minus\n"
     "after, in seconds. One episode visits every group once; REINFORCE raises the probability\n"
     "of the actions whose return beat the average return at that step."},
    {"An override by hand, and the policy goes on",
     "You can move any group yourself: select it and press a device digit. The tour just moved\n"
     "the last placed group to another device and let the policy take the next step from your\n"
     "placement. u undoes any step, yours or the policy's; U redoes it."},
    {"Compared with the baselines",
     "b runs every classic placer on the same simulator: one device, random, round-robin,\n"
     "expert stages, Baechi's m-TOPO and m-ETF, HEFT, METIS and Scotch. Enter starts an\n"
     "episode from one of them, so the policy refines its placement."},
    {"Generalization to an unseen graph",
     "This translation model is one of 8 graphs the family's policy never saw: it was trained\n"
     "on 24 other graphs of the family. Without any training it placed this one in one greedy\n"
     "episode (the best placement it passed through counts); the baselines are below."},
    {"That is Placeto",
     "Learned placement that improves one group at a time and carries over to new graphs.\n"
     "q leaves the tour and keeps the explorer open: space steps, ? lists every key.\n"
     "Train your own policy with  placeto train GRAPH -o p.json  and open it with --policy."},
};
enum { N_STAGES = sizeof stages / sizeof stages[0], GENERALIZATION = 9 };

static void step_policy(App *a)
{
    if (!episode_done(a->data.ep))
        app_key_step(a);
}

void demo_enter(App *a, int stage)
{
    if (stage < 0 || stage >= N_STAGES) {
        a->tour.active = 0;
        a->tour.stage = -1;
        a->view.maximized = -1;
        a->dialog.kind = DLG_NONE;
        app_msg(a, GS_NONE, "the tour is over: explore on (space steps, ? shows every key)");
        return;
    }
    a->tour.active = 1;
    a->tour.stage = stage;
    a->tour.since = util_now();
    a->view.maximized = -1;
    a->dialog.kind = DLG_NONE;
    a->view.show_sets = 0;
    a->view.follow = 1;
    a->view.zoom = stage == 4 ? DAG_COMPACT : DAG_FULL; /* the sets need the whole graph in view */
    switch (stage) {
    case 0: a->view.focus = PANE_GRAPH; break;
    case 1:
        a->view.focus = PANE_TIMELINE;
        a->view.maximized = PANE_TIMELINE;
        break;
    case 2: a->view.focus = PANE_INSPECTOR; break;
    case 3: a->view.focus = PANE_GRAPH; break;
    case 4:
        a->view.focus = PANE_GRAPH;
        a->view.show_sets = 1;
        while (a->data.ep->cursor < a->data.ep->n_order / 3 && !episode_done(a->data.ep)) /* all three sets non-empty */
            app_key_step(a);
        break;
    case 5: a->view.focus = PANE_POLICY; break;
    case 6:
        a->view.focus = PANE_POLICY;
        step_policy(a);
        break;
    case 7: {
        a->view.focus = PANE_HISTORY;
        if (a->data.ep->n_hist > 0) {
            const EpisodeStep *s = &a->data.ep->hist[a->data.ep->n_hist - 1];
            int g = s->group, d = (s->new_device + 1) % a->data.c->n_devices;
            a->view.selected = g;
            app_key_override(a, g, d);
        }
        step_policy(a);
        break;
    }
    case 8:
        a->view.focus = PANE_GRAPH;
        app_key(a, 'b'); /* runs the baselines and opens their table */
        break;
    case GENERALIZATION:
        a->view.focus = PANE_GRAPH;
        a->run.greedy = 1;
        while (!episode_done(a->data.ep))
            app_key_step(a);
        app_key(a, 'b');
        break;
    default: a->view.focus = PANE_GRAPH; break;
    }
}

/* Opens the held-out graph for the generalization stage. */
static int reload_held_out(App *a)
{
    cli_data_path(a->tour.next_path[0], sizeof a->tour.next_path[0], HELD_OUT_GRAPH);
    cli_data_path(a->tour.next_path[1], sizeof a->tour.next_path[1], HELD_OUT_POLICY);
    memset(&a->tour.next, 0, sizeof a->tour.next);
    a->tour.next.graph_path = a->tour.next_path[0];
    a->tour.next.policy_path = a->tour.next_path[1];
    a->tour.next.n_devices = 2;
    a->tour.next.seed = 1;
    a->tour.next.demo = a->tour.autoplay ? 2 : 1;
    a->tour.next.demo_stage = GENERALIZATION;
    return APP_RELOAD | APP_REDRAW;
}

static int next(App *a)
{
    int s = a->tour.stage + 1;
    if (s == GENERALIZATION && strstr(a->data.g->path, "nmt_variant") == NULL)
        return reload_held_out(a);
    demo_enter(a, s);
    return APP_REDRAW;
}

int demo_key(App *a, int key)
{
    if (key == 'q' || key == TERM_KEY_ESC) {
        demo_enter(a, -1);
        return APP_REDRAW;
    }
    if (key == ' ' || key == TERM_KEY_ENTER || key == TERM_KEY_RIGHT || key == 'n' || key == '\n')
        return next(a);
    return -1; /* any other key works as in the explorer */
}

int demo_tick(App *a, double now)
{
    if (!a->tour.autoplay || now - a->tour.since < DEMO_SECONDS)
        return APP_NOTHING;
    return next(a);
}

/* The feature row of the current node and of one neighbour, for stage 2. */
static int feature_lines(App *a, char lines[3][160])
{
    int v = episode_current(a->data.ep);
    if (v < 0)
        return 0;
    int F = a->data.ep->n_features, nd = a->data.c->n_devices;
    float *x = a->data.ep->feats;
    episode_features(a->data.ep, v, x);
    int rows[2] = {v, a->data.gr->pred_off[v + 1] > a->data.gr->pred_off[v] ? a->data.gr->pred[a->data.gr->pred_off[v]] : -1};
    snprintf(lines[0], 160, "%-22s %6s %6s %6s %4s %7s  device", "group", "cost", "bytes", "visits", "cur", "start");
    int n = 1;
    for (int k = 0; k < 2; k++) {
        if (rows[k] < 0)
            continue;
        const float *r = x + (size_t)rows[k] * (size_t)F;
        char dev[64] = "";
        size_t len = 0;
        for (int d = 0; d < nd && len < sizeof dev - 4; d++)
            len += (size_t)snprintf(dev + len, sizeof dev - len, "%s%.0f", d ? " " : "", r[POLICY_F_DEVICE + d]);
        snprintf(lines[n++], 160, "%-22.22s %6.3f %6.3f %6.0f %4.0f %7.3f  [%s]", a->data.gr->names[rows[k]],
                 r[POLICY_F_COST], r[POLICY_F_BYTES], r[POLICY_F_VISITS], r[POLICY_F_CURRENT], r[POLICY_F_START], dev);
    }
    return n;
}

void demo_draw(App *a, Grid *g)
{
    if (!a->tour.active)
        return;
    const Stage *s = &stages[a->tour.stage];
    char extra[3][160];
    int n_extra = a->tour.stage == 2 ? feature_lines(a, extra) : 0;
    if (a->tour.stage == GENERALIZATION) {
        double best = INFINITY;
        const char *bm = "";
        for (int k = 0; k < a->base.n; k++)
            if (!a->base.rows[k].oom && a->base.rows[k].runtime_us < best) {
                best = a->base.rows[k].runtime_us;
                bm = a->base.rows[k].method;
            }
        char b1[32], b2[32], b3[32];
        snprintf(extra[0], 160, "zero-shot Placeto: %s   best baseline (%s): %s   one device: %s",
                 util_fmt_time(b1, a->data.ep->best_runtime_us), bm, util_fmt_time(b2, best),
                 util_fmt_time(b3, a->data.single_us));
        n_extra = 1;
    }
    int lines = 1;
    for (const char *p = s->text; *p; p++)
        lines += *p == '\n';
    int w = g->w - 4 < 96 ? g->w - 4 : 96, h = lines + n_extra + 2;
    /* at the top when the stage shows something at the bottom or in the middle */
    int top = a->tour.stage == 1 || a->tour.stage == 8 || a->tour.stage == GENERALIZATION;
    GridRect r = {(g->w - w) / 2, top ? 1 : g->h - h - 1, w, h};
    if (r.y < 1)
        r.y = 1;
    grid_fill(g, r, ' ', GS_NONE);
    grid_box(g, r, GS_BORDER);
    char title[160];
    snprintf(title, sizeof title, " Tour %d/%d: %s ", a->tour.stage + 1, N_STAGES, s->title);
    grid_text_fit(g, r.x + 2, r.y, title, r.w - 4, GS_TITLE);
    int y = r.y + 1;
    const char *p = s->text;
    while (*p && y < r.y + r.h - 1) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char line[256];
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        grid_text_fit(g, r.x + 2, y++, line, r.w - 4, GS_NONE);
        p += len + (e ? 1 : 0);
    }
    for (int k = 0; k < n_extra && y < r.y + r.h - 1; k++)
        grid_text_fit(g, r.x + 2, y++, extra[k], r.w - 4, k == 0 && a->tour.stage == 2 ? GS_LABEL : GS_GOOD);
    grid_text_fit(g, r.x + 2, r.y + r.h - 1,
                  a->tour.autoplay ? " advancing on its own; q leaves the tour " : " space: next   q: leave the tour ",
                  r.w - 4, GS_KEY);
}
