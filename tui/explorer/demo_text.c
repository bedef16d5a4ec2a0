/* demo_text: the tour's captions (see demo_text.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_race.h"
#include "data.h"
#include "demo_text.h"
#include "place.h"

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

const PlaceRun *tour_best_row(const App *a, unsigned kinds)
{
    const PlaceRun *best = NULL;
    for (int k = 0; k < a->base.n; k++) {
        const PlaceRun *r = &a->base.rows[k];
        int is_learned = 0;
        for (int j = 0; j < a->base.n_learned; j++)
            is_learned |= r->method == a->base.learned_names[j];
        const PlaceMethod *m = is_learned ? NULL : place_find(r->method);
        unsigned kind = is_learned ? TOUR_ROWS_LEARNED : m && place_is_search(m) ? TOUR_ROWS_SEARCH
                                                                                  : TOUR_ROWS_HEURISTIC;
        if (r->oom || !(kinds & kind))
            continue;
        if (!best || r->runtime_us < best->runtime_us)
            best = r;
    }
    return best;
}

/* ---- captions ---- */

void tour_text_problem(const App *a, char *buf, size_t n)
{
    const Cluster *c = a->data.pb.c;
    const AppTourProblem *p = &a->tour.problem;
    char b1[32], b2[32], b3[32], b4[32];
    if (!p->ok) {
        snprintf(buf, n, "Why place a network on several devices? When it does not fit one device's memory, or when "
                 "independent branches could run at the same time; but every edge between two devices costs a "
                 "transfer. This graph runs on %d device%s here: there is nothing to split (placeto demo GRAPH "
                 "--devices 2 shows it).", c->n_devices, c->n_devices == 1 ? "" : "s");
        return;
    }
    double groups = a->data.pb.gr->n_groups;
    snprintf(buf, n, "Why place a network on several devices? %s, one training step of %s, needs %.1f GB on one "
             "device; %s holds %.1f GB, so on one device it does not run at all: out of memory (red in the Devices "
             "pane). Split over %d devices the memory is shared, and independent branches can run at the same time; "
             "but every edge between two devices costs a transfer (%s plus the bytes at %.1f GB/s) on the sender's "
             "bus (> below). The best classic placer's split (%s) takes %s, against %s on one device (below, on one "
             "time axis). There are %d^%.0f ways to place %.0f groups: the search space Placeto learns to cross. "
             "The status line's bound (%s) is what no placement can beat: the longest chain of ops, or the work "
             "shared evenly.",
             a->data.pb.g->name, a->data.pb.g->name[0] == 'n' ? "an LSTM translation model (GNMT)" : "a network",
             p->peak_gb[0][0], c->devices[0].name, p->cap_gb[0], c->n_devices,
             util_fmt_time(b1, c->transfer_overhead_us), c->bandwidth_bytes_per_us / 1000, p->heuristic,
             util_fmt_time(b2, p->runtime_us[1]), util_fmt_time(b3, p->runtime_us[0]), c->n_devices, groups, groups,
             util_fmt_time(b4, a->data.lower_bound_us));
}

void tour_text_groups(const App *a, char *buf, size_t n)
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

void tour_text_simulator(const App *a, char *buf, size_t n)
{
    char b1[32], start[200] = "";
    const Episode *ep = a->data.ep;
    if (ep->cfg.init == EPISODE_INIT_DEVICE0)
        snprintf(start, sizeof start, " The policy's episode starts here, every group on %s (out of memory when it "
                 "does not fit: the run is still timed, and the score adds a penalty per GB over).",
                 a->data.pb.c->devices[0].name);
    snprintf(buf, n, "An event-driven simulator runs every op on its group's device: an op starts when its inputs "
             "have arrived, one op at a time per device, transfers queue on the sender's bus. Each lane is a device "
             "(%d here), the line below it its outgoing transfers; the marks under the ops are the critical path "
             "(the legend below). The runtime of this placement, %s, is when the last op ends.%s",
             a->data.pb.c->n_devices, fmt_ms(b1, ep->runtime_us), start);
}

void tour_text_state(const App *a, char *buf, size_t n)
{
    if (!app_placeto_insides(a)) {
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
    snprintf(buf, n, "For the node being placed, every group gets a feature row: its cost and output bytes (as shares "
             "of the largest), vis: how often the episode visited it, cur: 1 for the current node, its start time "
             "relative to the current node's in the last simulation, and its device (one-hot)%s.%s",
             ext ? "; this policy also reads crit: how near it is to the critical path (1: on it), load: its "
                   "device's work against an even share, mem: its device's peak memory against its capacity, and "
                   "its neighbours' devices" : "",
             below);
}

void tour_text_message_passing(const App *a, char *buf, size_t n)
{
    int rounds = a->policy.pol ? a->policy.pol->arch.rounds : 8;
    int k = a->dialog.kind == DLG_WHY ? a->dialog.menu_pos : -1;
    char now[200] = "";
    if (k > 0)
        snprintf(now, sizeof now, " Shown: round %d, the groups whose messages have reached the current node lit "
                 "in the graph (the panel counts them).", k);
    else if (k == 0)
        snprintf(now, sizeof now, " Shown: round 0, the pooling sets of the current node (the next stage).");
    snprintf(buf, n, "Placeto's core idea: a graph neural network embeds every group. In each of %d rounds every "
             "group adds up what its parents send (top-down) and, with other weights, what its children send "
             "(bottom-up); after k rounds a group's embedding summarises the groups up to k edges away. The weights "
             "are shared by every group, so the same network works on any graph, of any size.%s", rounds, now);
}

void tour_text_sets(const App *a, char *buf, size_t n)
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
        snprintf(which, sizeof which, "Here %s has %d ancestors, %d descendants and %d parallel group%s (the legend "
                 "below gives their colours): %s can run beside it, on the other device.", a->data.pb.gr->names[cur],
                 an, de, pa, pa == 1 ? "" : "s", pa == 1 ? "that one" : "those");
    snprintf(buf, n, "For the current node the policy pools the embeddings of three sets: its ancestors (they run "
             "before it), its descendants (after it) and the parallel groups (neither: they can run at the same "
             "time, on another device). The tour let the policy place %d of the %d groups. %s", a->data.ep->cursor,
             a->data.ep->n_order, which);
}

void tour_text_probs(const App *a, char *buf, size_t n)
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

/* The training preset whose rules an episode follows. */
static const char *rules_name(const EpisodeConfig *c)
{
    if (c->init == EPISODE_INIT_DEVICE0 && c->accept_improving)
        return "train --preset tuned";
    if (c->init == EPISODE_INIT_GIVEN && c->accept_improving)
        return "train's default, --preset search";
    if (!c->accept_improving)
        return "the paper's";
    return "this policy's training";
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
    char b1[32], b2[32], r[48];
    app_fmt_reward(ep, s->reward, r);
    double before = ep->n_hist >= 2 ? ep->hist[ep->n_hist - 2].runtime_us : ep->init_runtime_us;
    if (s->proposed != s->new_device)
        snprintf(buf, n, "The policy tried %s on %s: slower, so the move was undone and it stays on %s (reward %s, "
                 "the runtime stays %s).", g, dev_name(a, s->proposed), dev_name(a, s->new_device), r,
                 fmt_ms(b1, s->runtime_us));
    else if (s->new_device == s->old_device)
        snprintf(buf, n, "The policy kept %s on %s; the graph was simulated again: %s, reward %s.", g,
                 dev_name(a, s->new_device), fmt_ms(b1, s->runtime_us), r);
    else
        snprintf(buf, n, "The policy moved %s from %s to %s; the graph was simulated again: %s before, %s after, "
                 "reward %s.", g, dev_name(a, s->old_device), dev_name(a, s->new_device), fmt_ms(b1, before),
                 fmt_ms(b2, s->runtime_us), r);
}

void tour_text_reward(const App *a, char *buf, size_t n)
{
    char move[400], pen[300] = "";
    last_move(a, move, sizeof move);
    const Episode *ep = a->data.ep;
    const EpisodeConfig *c = &ep->cfg;
    if (ep->n_hist > 0 && !c->relative_reward && !c->log_runtime) {
        const EpisodeStep *s = &ep->hist[ep->n_hist - 1];
        double before = ep->n_hist >= 2 ? ep->hist[ep->n_hist - 2].runtime_us : ep->init_runtime_us;
        if (fabs(s->reward * 1e6 - (before - s->runtime_us)) > 1.0)
            snprintf(pen, sizeof pen, " It is not the runtime's change alone: the score the reward compares adds "
                     "%g s per GB over a device's memory, and this placement is out of memory (the Devices pane): "
                     "moving work off the full device is rewarded twice.", c->oom_penalty);
    }
    snprintf(buf, n, "%s%s The reward is the score before minus after%s. This policy's rules (%s): "
             "the episode starts %s; %s; each step's own reward is its return (gamma = 0). One episode visits every "
             "group once; REINFORCE raises the probability of the actions whose return beat the average at that "
             "step. The paper's rules differ: stage 11 steps them.", move, pen,
             c->relative_reward ? ", as a share of the start's runtime" : "", rules_name(c),
             c->init == EPISODE_INIT_DEVICE0 ? "with every group on device 0" : c->init == EPISODE_INIT_GIVEN ?
             "from the best heuristic's placement" : "from a fixed random placement",
             c->accept_improving ? (c->reject_zero ? "a move that makes it slower is undone and rewarded 0" :
                                    "a move that makes it slower is undone, its negative reward still teaching")
                                 : "every move is kept");
}

void tour_text_override(const App *a, char *buf, size_t n)
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

/* The graph's path as a command would name it: from graphs/ when the file
 * is the bundled one, else as given. */
static const char *graph_arg(const App *a)
{
    const char *p = a->data.pb.g->path ? a->data.pb.g->path : a->data.pb.g->name;
    const char *b = strstr(p, "graphs/");
    return b ? b : p;
}

/* The table's seed and budget, and the command that gives its rows. */
static void table_source(const App *a, char *buf, size_t n)
{
    snprintf(buf, n, "seed %llu, anneal and ils %lld placements each: placeto compare %s --devices %d --seed %llu "
             "--budget %lld gives the same rows", (unsigned long long)a->base.seed, (long long)a->base.budget,
             graph_arg(a), a->data.pb.c->n_devices, (unsigned long long)a->base.seed, (long long)a->base.budget);
}

/* "12.3% faster than" / "4.0% slower than" / "as fast as" x against y. */
static const char *versus(char b[48], double x, double y)
{
    if (fabs(x - y) < 0.0005 * y)
        snprintf(b, 48, "as fast as");
    else if (x < y)
        snprintf(b, 48, "%.1f%% faster than", 100.0 * (y - x) / y);
    else
        snprintf(b, 48, "%.1f%% slower than", 100.0 * (x - y) / y);
    return b;
}

void tour_text_baselines(const App *a, char *buf, size_t n)
{
    const PlaceRun *best = tour_best_row(a, TOUR_ROWS_HEURISTIC | TOUR_ROWS_SEARCH),
                   *heur = tour_best_row(a, TOUR_ROWS_HEURISTIC);
    const Episode *ep = a->data.ep;
    char b1[32], b2[32], b3[32], v1[48], v2[48], src[300], verdict[1200] = "", ctl[500] = "";
    table_source(a, src, sizeof src);
    double control = a->tour.facts[TOUR_FACT_CONTROL_US];
    if (!isnan(control) && a->tour.app == TOUR_APP_DEFAULT && !a->tour.own_graph) {
        /* how sure the policy was: the mean probability of its pick over the episode's policy steps */
        double sure = 0;
        int np = 0, nd = a->data.pb.c->n_devices;
        for (int k = 0; k < ep->n_hist; k++) {
            if (ep->hist[k].actor != EPISODE_ACTOR_POLICY)
                continue;
            const float *p = ep->hist_probs + (size_t)k * (size_t)nd;
            float mx = p[0];
            for (int d = 1; d < nd; d++)
                mx = p[d] > mx ? p[d] : mx;
            sure += mx;
            np++;
        }
        sure = np ? sure / np : 0;
        char why[300] = "";
        if (control <= ep->best_runtime_us && sure > 0.98)
            snprintf(why, sizeof why, ": training did not beat it here. The network is sure from the start (its "
                     "pick's probability %.1f%% on average over the episode), so sampling explores almost nothing "
                     "and REINFORCE has little to learn from; the undo rule and the features do the work",
                     100 * sure);
        snprintf(ctl, sizeof ctl, "; its untrained control (the same network with the weights its training started "
                 "from, the same procedure) reaches %s%s", fmt_ms(b3, control), why);
    }
    if (heur && best)
        snprintf(verdict, sizeof verdict, " The tour's policy finished its episode (greedy, one simulation per "
                 "step, %d in all): its best placement, %s, is %s the best heuristic (%s, %s)%s. The local searches "
                 "simulate %lld placements each; %s leads the table with %s (%s the policy).", ep->n_hist,
                 fmt_ms(b1, ep->best_runtime_us), versus(v1, ep->best_runtime_us, heur->runtime_us), heur->method,
                 fmt_ms(b2, heur->runtime_us), ctl, (long long)a->base.budget, best->method,
                 fmt_ms(b3, best->runtime_us), versus(v2, best->runtime_us, ep->best_runtime_us));
    snprintf(buf, n, "Every classic placer on the same simulator (%s): one device (single), random, round-robin, "
             "expert stages, Baechi's m-TOPO and m-ETF, HEFT, METIS and Scotch, and the local searches anneal and ils. "
             "vs bound: the runtime over the lower bound; vs single: the speed-up over one device; OOM: out of "
             "memory, ranked last.%s", src, verdict);
}

/* The paper's rules, stepped, beside this tour's. */
void tour_text_paper(const App *a, char *buf, size_t n)
{
    const Episode *ep = a->data.ep;
    char b1[32], b2[32], b3[32], b4[32], r[48], ret[300] = "", ctl[300] = "";
    int worse = 0, kept_worse = 0;
    for (int k = 0; k < ep->n_hist; k++) {
        worse += ep->hist[k].reward < 0;
        kept_worse += ep->hist[k].reward < 0 && ep->hist[k].new_device == ep->hist[k].proposed;
    }
    if (ep->n_hist >= 2) { /* the min-runtime return of the first step: its runtime minus the best after it */
        double mn = ep->hist[1].runtime_us;
        for (int k = 2; k < ep->n_hist; k++)
            if (ep->hist[k].runtime_us < mn)
                mn = ep->hist[k].runtime_us;
        snprintf(ret, sizeof ret, " The return of a step is no longer its own reward: it is its runtime minus the "
                 "lowest runtime after it, to the episode's end (step 1: %s - %s).",
                 fmt_ms(b1, ep->hist[0].runtime_us), fmt_ms(b2, mn));
    }
    double pol = a->tour.facts[TOUR_FACT_POLICY_US], control = a->tour.facts[TOUR_FACT_CONTROL_US];
    if (!isnan(pol) && !isnan(control))
        snprintf(ctl, sizeof ctl, " With its own rules this policy reached %s, its untrained control %s: training "
                 "made it %s its control.", fmt_ms(b3, pol), fmt_ms(b4, control), versus(r, pol, control));
    char b5[32], b6[32], why[300] = "";
    if (a->tour.app == TOUR_APP_DEFAULT && !a->tour.own_graph)
        snprintf(why, sizeof why, " Why: trained by the paper's rules on this graph (docs/results.md, 20 000 "
                 "placements, seeds 1-3) its greedy episode ended 27.6 %% behind Scotch.");
    snprintf(buf, n, "The paper's rules, stepped by the same network (History): the episode starts from a fixed "
             "random placement (%s), and every move is kept, even a slower one: %d of %d steps here made it slower "
             "and stayed. It ends at %s%s.%s This tour's policy (train --preset tuned) departs in three "
             "ways: it starts on device 0; a slower move is undone; each step's return is its own reward (gamma = 0), "
             "relative to the start: a move is judged by what it did, and the episode never drifts away from its "
             "best.%s Train's default (--preset search) starts from the best "
             "heuristic's placement instead, so that what it places is never slower than that heuristic; --preset "
             "paper restores every rule (docs/agent.md).%s",
             fmt_ms(b5, ep->init_runtime_us), kept_worse, ep->n_hist, fmt_ms(b6, ep->runtime_us),
             ep->result && ep->result->any_oom ? ", out of memory (its score adds the penalty)" : "", ret, why, ctl);
    (void)worse;
}

void tour_text_zero_shot(const App *a, char *buf, size_t n)
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

void tour_text_learned(const App *a, char *buf, size_t n)
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
    const PlaceRun *best = tour_best_row(a, TOUR_ROWS_ALL);
    if (best)
        snprintf(best_txt, sizeof best_txt, " The fastest row is %s, %s.", best->method, fmt_ms(b1, best->runtime_us));
    char mine[80], row[120];
    if (a->policy.path && app_placeto_insides(a)) {
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
    char src[300];
    table_source(a, src, sizeof src);
    snprintf(buf, n, "The same table with the learned placers (%s): each policy that fits this graph, zero-shot from "
             "its start and, for Placeto, also refining the best heuristic's placement (never worse than it), each "
             "the best of a greedy and 8 sampled episodes (compare --samples 8; %s).%s%s%s The race next runs each "
             "policy as compare --budget %lld does: episodes until %lld placements are simulated (the table's 9 episodes "
             "simulate at most %d), so the same policy shows two numbers: two procedures, not two policies.",
             present[0] ? present : "none", src, best_txt, zs, hs, (long long)a->base.budget,
             (long long)a->base.budget, 9 * a->data.pb.gr->n_groups);
}

static const char rnn_text[] =
    "The RNN-based placer (Mirhoseini et al., 2017): an LSTM reads the groups in topological order and a decoder "
    "emits one device per group, each choice fed to the next: one decode is one whole placement, made from nothing "
    "(dimmed: not decoded yet). Its why would be attention, the groups it looked at most; where every weight "
    "is about the same the Policy pane's title says uniform attention and its list is dimmed: no group explains the choice. "
    "While it decodes, the runtime shown is that of a partial placement (the groups not yet decoded wait on device "
    "0), so it means little until the last group. Placeto instead improves a placement one group at a time, seeing its simulated "
    "timing; the RNN's weights are tied to this graph's groups.";

static const char gdp_text[] =
    "GDP (Zhou et al., 2019, trained with PPO): a graph network and attention over the groups give every group its "
    "distribution in one forward pass, applied here one group per step from device 0 (until the last step the "
    "runtime is that of a partial placement, the rest still on device 0). Its why would be attention, heads "
    "averaged; where every weight is about the same the Policy pane's title says uniform attention and its list "
    "is dimmed, not a reason: this policy then places from each group's own embedding.";

static const char hsdag_text[] =
    "HSDAG (Duan et al., 2024) learns its own grouping: one pass of its network clusters the groups and gives each "
    "cluster a device, so a cluster's later groups follow its first. The graph is coloured by learned cluster (C "
    "switches back to devices); the Policy pane lists the current group's cluster.";

/* The actors' stages: the kind in use, or where the default tour shows it. */
static void text_actor(const App *a, const char *kind, const char *text, const char *where, char *buf, size_t n)
{
    int here = !app_placeto_insides(a) && strcmp(a->policy.kind->name, kind) == 0;
    char b1[32];
    if (here)
        snprintf(buf, n, "%s Here on %s (%d groups, %s): %d greedy steps, %s so far; q leaves the tour to step it "
                 "yourself.", text, a->data.pb.g->name, a->data.pb.gr->n_groups, a->data.pb.c->name,
                 a->data.ep->cursor, fmt_ms(b1, a->data.ep->runtime_us));
    else
        snprintf(buf, n, "%s (The policy in use here is %s: the default tour, placeto demo, shows it %s; placeto "
                 "explore GRAPH --policy FILE opens one.)", text,
                 !app_placeto_insides(a) ? a->policy.kind->name : "Placeto's", where);
}

void tour_text_rnn(const App *a, char *buf, size_t n)
{
    text_actor(a, "rnn", rnn_text, "on ResNet-18", buf, n);
}

void tour_text_gdp(const App *a, char *buf, size_t n)
{
    char t[900];
    snprintf(t, sizeof t, "%s%s", gdp_text,
             a->tour.app == TOUR_APP_GDP ? " It was trained on the same 24 NMT graphs as Placeto's family "
                                           "policy (its row: stage 13)." : "");
    text_actor(a, "gdp", t, "on the held-out NMT graph", buf, n);
}

void tour_text_hsdag(const App *a, char *buf, size_t n)
{
    char t[900];
    snprintf(t, sizeof t, "%s", hsdag_text);
    if (!app_placeto_insides(a) && a->cache.cluster) {
        char c[200];
        snprintf(c, sizeof c, " It made %d clusters of the %d groups.", a->cache.n_clusters, a->data.pb.gr->n_groups);
        strncat(t, c, sizeof t - strlen(t) - 1);
    }
    text_actor(a, "hsdag", t, "on Inception-V3 inference, one CPU and one GPU", buf, n);
}

/* A fact for the recap: a time, or "(stage N)" when not measured. */
static const char *fact_time(const App *a, int f, int stage, char b[48])
{
    double v = a->tour.facts[f];
    if (isnan(v))
        snprintf(b, 48, "(stage %d measures it)", stage);
    else
        util_fmt_time(b, v);
    return b;
}

void tour_text_end(const App *a, char *buf, size_t n)
{
    const double *f = a->tour.facts;
    if (a->tour.own_graph || isnan(f[TOUR_FACT_GROUPS])) {
        snprintf(buf, n, "The chain: groups -> simulator -> features -> message passing -> pooling -> probabilities "
                 "-> reward -> generalisation. q leaves the tour and keeps the explorer open (D comes back): space "
                 "steps, ? lists every key. Train your own policy with  placeto train GRAPH -o p.json  and open it "
                 "with  placeto explore GRAPH --policy p.json.");
        return;
    }
    char t[10][48], v1[48], v2[48], who[400];
    double pol = f[TOUR_FACT_POLICY_US], heur = f[TOUR_FACT_HEUR_US], ctl = f[TOUR_FACT_CONTROL_US],
           srch = f[TOUR_FACT_SEARCH_US];
    if (!isnan(pol) && !isnan(heur) && !isnan(ctl))
        snprintf(who, sizeof who, "Who won: the policy, %s the best heuristic and %s its untrained control%s",
                 versus(v1, pol, heur), versus(v2, pol, ctl),
                 !isnan(srch) && srch < pol ? "; but the local searches, with many more simulations, did better "
                                             "still (stage 10)" : "");
    else
        snprintf(who, sizeof who, "Who won: stages 10 and 11 measure it");
    snprintf(buf, n, "The chain, with this tour's numbers. Groups: %.0f ops in %.0f groups. Simulator: one device "
             "%s and %.1f GB of %.1f GB, out of memory; the best heuristic's split %s. Features, message passing "
             "(8 rounds), pooling (ancestors, descendants, parallel groups) and probabilities place one group a "
             "step; the reward, the score before minus after, trains it. The tour's policy ended at %s; its untrained "
             "control %s; the paper's rules %s. Generalisation: the family's policy placed an NMT graph it never saw "
             "at %s. %s. q leaves the tour in the explorer on this graph (D comes back); placeto train GRAPH -o "
             "p.json trains your own.",
             f[TOUR_FACT_OPS], f[TOUR_FACT_GROUPS], fact_time(a, TOUR_FACT_SINGLE_US, 1, t[0]), f[TOUR_FACT_SINGLE_GB],
             f[TOUR_FACT_CAP_GB], fact_time(a, TOUR_FACT_HEUR_US, 1, t[1]), fact_time(a, TOUR_FACT_POLICY_US, 10, t[2]),
             fact_time(a, TOUR_FACT_CONTROL_US, 10, t[3]), fact_time(a, TOUR_FACT_PAPER_US, 11, t[4]),
             fact_time(a, TOUR_FACT_HELD_US, 12, t[5]), who);
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
        *us = race_lane_best(l, l->n - 1);
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

void tour_text_race(const App *a, char *buf, size_t n)
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
        len = append(buf, n, len, " The race: the learned policies of the table and the bundled learned list scheduler and "
                     "local search (%d)%s, and the local "
                     "searches anneal and ils, %lld placements each (the table's budget and seed: their final numbers "
                     "are its rows), advancing together one slice at a time; the chart draws each one's best runtime "
                     "against the simulations it made, on a logarithmic axis. A policy's lane is compare's row at that "
                     "budget (its episodes until the budget is spent), not the table's best of 9 episodes. Lanes: ",
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
