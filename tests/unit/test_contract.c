/* The agent contract (agent.h), checked on every registered agent
 * (agent_count, agent_at) through its AgentKind alone, as ggml's
 * test-backend-ops runs every op on every backend: a new agent (the test
 * build's "coin" too) is covered with no edit here. On toy_crown on 2
 * devices, for each agent:
 *   - its untrained policy saved, loaded and saved again gives the same
 *     bytes; the network says it is for 2 devices (or any), its parameters
 *     are there;
 *   - its zero-shot row and its untrained control row (agent_place_untrained)
 *     place every group on a device in range, at the runtime a full
 *     simulation of the placement gives;
 *   - training a few steps is deterministic per seed, and n1 steps, save,
 *     load (as train --resume), n2 more give the bytes of n1 + n2 in one
 *     run; the trained file loads and saves back to the same bytes; an
 *     inductive one (AgentInfo.n_groups 0) places toy_chain, whose "loss"
 *     op it never saw, and trains on there, keeping a best placement of
 *     each graph;
 *   - its explorer actor (when it has one) accepts its own episodes and
 *     refuses the others (actor_test.h), and steps an episode to its end
 *     with a valid placement at its simulated runtime;
 *   - its loader refuses every other agent's file, naming both agents and
 *     what trains the file (train --agent NAME); a
 *     truncated or garbage file, or one naming the agent and nothing else,
 *     gives a message naming the file; one naming an agent no one
 *     registered, a message listing the registered ones (agent_names_quoted). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actor_test.h"
#include "agent_fixture.h"
#include "test.h"

#define SEED 7

/* every group of a placement of f's problem on a device in range, and its
 * runtime that of a full simulation */
static void check_placement(const AgentKind *k, const char *what, const TrainFix *f, const int *group_device,
                            double runtime_us)
{
    const Grouping *gr = f->pb.gr;
    int nd = f->pb.c->n_devices;
    for (int v = 0; v < gr->n_groups; v++)
        REQUIRE_MSG(group_device[v] >= 0 && group_device[v] < nd, "%s: %s: group %d on device %d of %d", k->name,
                    what, v, group_device[v], nd);
    int *op = xnew_array((size_t)f->pb.g->n_nodes, sizeof *op);
    group_expand(gr, group_device, op);
    Sim *sim = sim_new(f->pb.g, f->pb.c);
    double want = sim_run(sim, op)->makespan_us;
    sim_free(sim);
    free(op);
    CHECK_MSG(fabs(runtime_us - want) <= 1e-9 * want, "%s: %s: runtime %.17g, simulated %.17g", k->name, what,
              runtime_us, want);
}

static const char *no_option(void *ctx, const char *name)
{
    (void)ctx, (void)name;
    return NULL;
}

/* k's configuration with its defaults and SEED (the caller frees it), NULL
 * (a failed check) when refused */
static void *default_config(const AgentKind *k)
{
    Err e = {{0}};
    void *cfg = xcalloc(1, k->train.config_size ? k->train.config_size : 1);
    AgentArgs none = {.get = no_option, .opts = k->train.opts};
    if (k->train.configure(&none, SEED, cfg, &e) != 0) {
        free(cfg);
        REQUIRE_OR(0, NULL, "%s: configure: %s", k->name, e.msg);
    }
    return cfg;
}

/* a new network for f under cfg and its fresh training state, as `train`
 * makes them; NULL (a failed check, ts initialised) when it cannot */
static void *fresh_net(const AgentKind *k, const TrainFix *f, const void *cfg, TrainState *ts)
{
    Err e = {{0}};
    k->train.state_init(ts, cfg);
    void *net = k->train.create(cfg, &f->pb, 1, f->pb.c, &e);
    REQUIRE_OR(net != NULL, NULL, "%s: create: %s", k->name, e.msg);
    if (k->train.prepare && k->train.prepare(ts, cfg, &f->pb, 1, &e) != 0) {
        k->file.free(net);
        REQUIRE_OR(0, NULL, "%s: prepare: %s", k->name, e.msg);
    }
    return net;
}

/* k's untrained policy for f saved at path (no training state); 0 or -1
 * (a failed check) */
static int save_untrained(const AgentKind *k, const TrainFix *f, const char *path)
{
    Err e = {{0}};
    void *cfg = default_config(k);
    if (!cfg)
        return -1;
    TrainState ts;
    void *net = fresh_net(k, f, cfg, &ts), *u = net ? k->file.untrained(net, SEED, &e) : NULL;
    CHECK_MSG(!net || u, "%s: untrained: %s", k->name, e.msg);
    int rc = u && k->file.save(u, NULL, path, &e) == 0 ? 0 : -1;
    CHECK_MSG(!u || rc == 0, "%s: save %s: %s", k->name, path, e.msg);
    if (u)
        k->file.free(u);
    if (net)
        k->file.free(net);
    train_state_done(&ts);
    free(cfg);
    return rc;
}

/* the policy at path (k's untrained one): what it says of itself, save ->
 * load -> save, its rows */
static void check_policy(const AgentKind *k, const TrainFix *f, const char *path, const char *again)
{
    Err e = {{0}};
    AgentPolicy p;
    REQUIRE_MSG(agent_policy_open(path, &p, NULL, &e) == 0, "%s: open %s: %s", k->name, path, e.msg);
    CHECK_MSG(p.kind == k, "%s: %s names agent %s", k->name, path, p.kind->name);
    CHECK_MSG(p.info.n_devices == 2 || p.info.any_devices, "%s: for %d devices", k->name, p.info.n_devices);
    CHECK_MSG(p.info.n_groups >= 0 && p.info.heads >= 0, "%s: %d groups, %d heads", k->name, p.info.n_groups,
              p.info.heads);
    const NnParams *w = k->file.params(p.net);
    CHECK_MSG(w && w->n > 0 && w->n_tensors > 0, "%s: no parameters", k->name);
    CHECK_MSG(k->file.save(p.net, NULL, again, &e) == 0, "%s: save: %s", k->name, e.msg);
    CHECK_MSG(same_file_bytes(path, again), "%s: save -> load -> save changed the file", k->name);

    AgentPlaceOpts o = {.samples = 2, .seed = SEED, .start = AGENT_START_DEFAULT, .budget = 64};
    PlaceRun rows[2];
    int n = agent_place_runs(&p, NULL, &f->pb, &o, rows, NULL, &e);
    CHECK_MSG(n == 1, "%s: %d rows of an untrained policy: %s", k->name, n, e.msg);
    for (int i = 0; i < n; i++) {
        check_placement(k, rows[i].method, f, rows[i].group_device, rows[i].runtime_us);
        place_run_free(&rows[i]);
    }
    PlaceRun row;
    int rc = agent_place_untrained(&p, &f->pb, &o, &row, &e);
    CHECK_MSG(rc == 0, "%s: agent_place_untrained: %s", k->name, e.msg);
    if (rc == 0) {
        size_t len = strlen(row.method), suf = strlen("-untrained");
        CHECK_MSG(len > suf && strcmp(row.method + len - suf, "-untrained") == 0, "%s: control row '%s'", k->name,
                  row.method);
        check_placement(k, row.method, f, row.group_device, row.runtime_us);
        place_run_free(&row);
    }
    agent_policy_close(&p);
}

/* An inductive network (info.n_groups 0: any graph, each its own
 * grouping) trained on f's graph and saved at path with ts: it places
 * another graph h with op types it never saw (no "-trained" row: it never
 * trained there), and training goes on there, keeping a best placement of
 * each graph. */
static void check_other_graph(const AgentKind *k, const TrainFix *h, const char *path, void *net, TrainState *ts)
{
    Err e = {{0}};
    AgentPolicy p;
    REQUIRE_MSG(agent_policy_open(path, &p, NULL, &e) == 0, "%s: open %s: %s", k->name, path, e.msg);
    AgentPlaceOpts o = {.samples = 2, .seed = SEED, .start = AGENT_START_DEFAULT, .budget = 64};
    PlaceRun rows[2];
    int n = agent_place_runs(&p, ts, &h->pb, &o, rows, NULL, &e);
    CHECK_MSG(n == 1, "%s: %d rows on a graph it never trained on: %s", k->name, n, e.msg);
    for (int i = 0; i < n; i++) {
        check_placement(k, "another graph", h, rows[i].group_device, rows[i].runtime_us);
        place_run_free(&rows[i]);
    }
    agent_policy_close(&p);
    void *cfg = default_config(k);
    int64_t w = cfg && k->train.round ? k->train.round(cfg) : 1;
    if (cfg && k->train.resumed)
        k->train.resumed(net, cfg, &(AgentArgs){.get = no_option, .opts = k->train.opts});
    if (cfg)
        CHECK_INT(fix_train(k, net, ts, cfg, h, w), w);
    CHECK_MSG(ts->n_best == 2 && isfinite(ts->best[0].runtime_us) && isfinite(ts->best[1].runtime_us),
              "%s: %d best placements after training on a second graph", k->name, ts->n_best);
    free(cfg);
}

/* the same seed twice, and n1 + resume + n2, give the bytes of one run;
 * then another graph h (check_other_graph) */
static void check_training(const AgentKind *k, const TrainFix *f, const TrainFix *h, SplitFiles *s)
{
    void *cfg = default_config(k);
    if (!cfg)
        return;
    int64_t w = k->train.round ? k->train.round(cfg) : 1, n1 = 2 * w, n2 = w; /* whole rounds */
    TrainState ts;
    int ok = split_run(k, NULL, f, cfg, fresh_net(k, f, cfg, &ts), &ts, n1 + n2, 0, s->m, s->a) == 0;
    if (ok && split_run(k, NULL, f, cfg, fresh_net(k, f, cfg, &ts), &ts, n1 + n2, 0, s->m, s->c) == 0)
        CHECK_MSG(same_file_bytes(s->a, s->c), "%s: the same seed twice gives two policies", k->name);
    free(cfg);
    cfg = default_config(k); /* resumed() may have changed it */
    if (ok && cfg && split_run(k, NULL, f, cfg, fresh_net(k, f, cfg, &ts), &ts, n1, n2, s->m, s->b) == 0)
        CHECK_MSG(same_file_bytes(s->a, s->b), "%s: %lld %ss differ from %lld + resume + %lld", k->name,
                  (long long)(n1 + n2), k->train.unit, (long long)n1, (long long)n2);
    free(cfg);
    if (!ok)
        return;
    void *net = split_reload(k, s->a, s->c, &ts);
    if (net) {
        CHECK_MSG(ts.episodes == n1 + n2, "%s: %lld %ss recorded, %lld run", k->name, (long long)ts.episodes,
                  k->train.unit, (long long)(n1 + n2));
        AgentInfo in;
        k->file.info(net, &in);
        if (in.n_groups == 0)
            check_other_graph(k, h, s->a, net, &ts);
        k->file.free(net);
    }
    train_state_done(&ts);
}

/* the actor's episode of the policy at path, stepped to its end */
static void check_actor(const AgentKind *k, const TrainFix *f, const char *path)
{
    const AgentActorOps *a = k->actor;
    Err e = {{0}};
    AgentPolicy p;
    REQUIRE_MSG(agent_policy_open(path, &p, NULL, &e) == 0, "%s: open %s: %s", k->name, path, e.msg);
    if (a->one_pass)
        check_actor_refusals(f->pb.g, f->pb.gr, 2, a->config, a->check, p.net);
    EpisodeConfig cfg;
    a->config(p.net, &cfg);
    Episode *ep = episode_new(f->pb.g, f->pb.gr, f->pb.c, NULL, &cfg, SEED, NULL, &e);
    void *actor = ep ? a->actor_new(p.net, f->pb.g, f->pb.gr, f->pb.c, &e) : NULL;
    CHECK_MSG(actor != NULL, "%s: actor: %s", k->name, e.msg);
    int steps = 0;
    while (actor && !episode_done(ep) && steps <= ep->n_order) {
        const float *att = NULL, *pr = a->probs(actor, ep, &att);
        double sum = 0;
        for (int d = 0; pr && d < ep->n_devices; d++)
            sum += pr[d];
        CHECK_MSG(pr && fabs(sum - 1) < 1e-4, "%s: step %d: probabilities sum to %g", k->name, steps, sum);
        if (!a->step(ep, actor, steps % 2)) {
            CHECK_MSG(0, "%s: step %d of %d refused", k->name, steps, ep->n_order);
            break;
        }
        steps++;
    }
    if (actor) {
        CHECK_MSG(episode_done(ep) && steps == ep->n_order, "%s: %d steps of %d", k->name, steps, ep->n_order);
        CHECK_MSG(a->probs(actor, ep, NULL) == NULL, "%s: probabilities after the end", k->name);
        check_placement(k, "actor", f, ep->group_device, ep->runtime_us);
        a->actor_free(actor);
    }
    episode_free(ep);
    agent_policy_close(&p);
}

/* The explorer's background training (train.explore): a copy of the
 * untrained policy trained 2 episodes on the actor's episode configuration,
 * the same bytes twice (the explorer's T, through the contract alone). */
static void check_explore(const AgentKind *k, const TrainFix *f, const char *path)
{
    Err e = {{0}};
    AgentPolicy p;
    REQUIRE_MSG(agent_policy_open(path, &p, NULL, &e) == 0, "%s: open %s: %s", k->name, path, e.msg);
    float *first = NULL;
    for (int round = 0; round < 2; round++) {
        EpisodeConfig ep_cfg;
        k->actor->config(p.net, &ep_cfg);
        void *net = k->file.untrained(p.net, 0, &e), *cfg = xcalloc(1, k->train.config_size);
        TrainState ts = {0};
        REQUIRE_MSG(net != NULL, "%s: untrained: %s", k->name, e.msg);
        k->train.explore(p.net, &ep_cfg, SEED, cfg, &ts, 1);
        TrainGraph tg = {f->pb.g, f->pb.gr, f->pg};
        void *t = k->train.trainer_new(net, &ts, cfg, &tg, 1, f->pb.c, &e);
        CHECK_MSG(t != NULL, "%s: explore: trainer: %s", k->name, e.msg);
        volatile int stop = 0;
        if (t) {
            CHECK_MSG(k->train.run(t, 2, NULL, NULL, &stop) == 2, "%s: explore: 2 episodes", k->name);
            k->train.trainer_free(t);
        }
        const NnParams *w = k->file.params(net);
        if (round == 0) {
            first = xnew_array(w->n, sizeof *first);
            memcpy(first, w->w, w->n * sizeof *first);
        } else
            CHECK_MSG(memcmp(first, w->w, w->n * sizeof *w->w) == 0, "%s: explore: two runs differ", k->name);
        train_state_done(&ts);
        free(cfg);
        k->file.free(net);
    }
    free(first);
    agent_policy_close(&p);
}

TEST(contract_every_agent)
{
    TrainFix f, h;
    SplitFiles s;
    REQUIRE(agent_count() >= 6);
    if (train_fix_new(&f, "graphs/toy/crown.json", 0) != 0)
        return;
    if (train_fix_new(&h, "graphs/toy/chain.json", 4) != 0) { /* its "loss" op is no type of the crown's */
        train_fix_done(&f);
        return;
    }
    if (!split_files_open(&s, "placeto_contract")) {
        train_fix_done(&h);
        train_fix_done(&f);
        REQUIRE_MSG(0, "mkdtemp failed");
    }
    char untrained[160];
    tmp_file(untrained, sizeof untrained, &s.td, "untrained.json");
    for (int i = 0; i < agent_count(); i++) {
        const AgentKind *k = agent_at(i);
        CHECK_MSG(agent_find(k->name) == k, "%s: agent_find", k->name);
        if (save_untrained(k, &f, untrained) != 0)
            continue;
        check_policy(k, &f, untrained, s.c);
        if (k->actor)
            check_actor(k, &f, untrained);
        if (k->train.explore && k->actor)
            check_explore(k, &f, untrained);
        check_training(k, &f, &h, &s);
    }
    split_files_close(&s);
    train_fix_done(&h);
    train_fix_done(&f);
}

/* path's first len bytes written to bad; opening it fails naming it */
static void check_bad_file(const AgentKind *k, const char *bad, const char *text, size_t len)
{
    FILE *out = fopen(bad, "wb");
    REQUIRE(out != NULL);
    fwrite(text, 1, len, out);
    fclose(out);
    Err e = {{0}};
    AgentPolicy p;
    int rc = agent_policy_open(bad, &p, NULL, &e);
    CHECK_MSG(rc == -1 && strstr(e.msg, bad), "%s: %zu bytes of its file: %d, '%s'", k->name, len, rc, e.msg);
    if (rc == 0)
        agent_policy_close(&p);
}

TEST(contract_file_errors)
{
    TrainFix f;
    TmpDir td;
    if (train_fix_new(&f, "graphs/toy/crown.json", 0) != 0)
        return;
    if (!tmp_open(&td, "placeto_contract_err")) {
        train_fix_done(&f);
        REQUIRE_MSG(0, "mkdtemp failed");
    }
    char path[160], bad[160];
    tmp_file(path, sizeof path, &td, "policy.json");
    tmp_file(bad, sizeof bad, &td, "bad.json");
    for (int i = 0; i < agent_count(); i++) {
        const AgentKind *o = agent_at(i);
        Err e = {{0}};
        AgentFile af;
        if (save_untrained(o, &f, path) != 0)
            continue;
        if (agent_file_open(path, &af, &e) != 0) {
            CHECK_MSG(0, "%s: %s", o->name, e.msg);
            continue;
        }
        CHECK_MSG(af.kind == o, "%s: its file names agent %s", o->name, af.kind->name);
        /* every other agent's loader refuses it, naming both */
        for (int j = 0; j < agent_count(); j++) {
            const AgentKind *k = agent_at(j);
            if (k == o)
                continue;
            TrainState ts;
            e.msg[0] = 0;
            af.kind = k;
            void *net = k->file.load(&af, &ts, &e);
            train_state_done(&ts);
            char how[64]; /* and says what trains it */
            if (o == agent_at(0))
                snprintf(how, sizeof how, "train without --agent");
            else
                snprintf(how, sizeof how, "train --agent %s", o->name);
            CHECK_MSG(!net && strstr(e.msg, k->a_name) && strstr(e.msg, o->a_name) && strstr(e.msg, how),
                      "%s loads %s's file: '%s'", k->name, o->name, e.msg);
            if (net)
                k->file.free(net);
        }
        /* truncated, garbage, the agent named and nothing else */
        check_bad_file(o, bad, af.text, af.len / 2);
        check_bad_file(o, bad, af.text, 1);
        check_bad_file(o, bad, "\x01garbage\n", 9);
        /* an agent no one registered: the message lists the registry */
        char field[64], want[1024];
        snprintf(field, sizeof field, "\"agent\": \"%s\"", o->name);
        snprintf(want, sizeof want, "agent: expected %s, got \"nosuch\"", agent_names_quoted());
        char *renamed = text_subst(af.text, field, "\"agent\": \"nosuch\"", 1);
        if (renamed) {
            check_bad_file(o, bad, renamed, strlen(renamed));
            CHECK_MSG(agent_file_open(bad, &(AgentFile){0}, &e) == -1 && strstr(e.msg, want), "%s: '%s'", o->name,
                      e.msg);
            free(renamed);
        }
        char only[128];
        int n = snprintf(only, sizeof only, "{\"format\": \"placeto-policy\", \"agent\": \"%s\"}\n", o->name);
        check_bad_file(o, bad, only, (size_t)n);
        af.kind = o;
        agent_file_done(&af);
    }
    tmp_close(&td);
    train_fix_done(&f);
}
