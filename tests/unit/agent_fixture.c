/* agent_fixture: see agent_fixture.h. */
#include "agent_fixture.h"

#include <stdlib.h>
#include <string.h>

#include "gdp_train.h"
#include "hsdag_train.h"
#include "policy_graph.h"
#include "rnn_train.h"
#include "test.h"

int train_fix_new(TrainFix *f, const char *path, int groups)
{
    memset(f, 0, sizeof *f);
    ProblemSpec s = {0};
    s.graph_path = path;
    s.n_devices = 2;
    s.groups = groups;
    Err e = {{0}};
    REQUIRE_OR(problem_load(&f->pb, &s, &e) == 0, -1, "problem_load: %s", e.msg);
    const Graph *gs[1] = {f->pb.g};
    vocab_build(&f->voc, gs, 1);
    f->pg = policy_graph_new(f->pb.gr, &e);
    if (!f->pg) {
        train_fix_done(f);
        REQUIRE_OR(0, -1, "policy_graph_new: %s", e.msg);
    }
    return 0;
}

void train_fix_done(TrainFix *f)
{
    policy_graph_free(f->pg);
    vocab_done(&f->voc);
    problem_free(&f->pb);
    f->pg = NULL;
}

int train_fix_pair(TrainFix f[2])
{
    if (train_fix_new(&f[0], "graphs/toy/chain.json", 4) != 0)
        return -1;
    if (train_fix_new(&f[1], "graphs/toy/crown.json", 0) != 0) {
        train_fix_done(&f[0]);
        return -1;
    }
    return 0;
}

void train_fix_pair_done(TrainFix f[2])
{
    train_fix_done(&f[1]);
    train_fix_done(&f[0]);
}

int64_t fix_train(const AgentKind *k, void *net, TrainState *ts, const void *cfg, const TrainFix *f, int64_t n)
{
    Err e = {{0}};
    TrainGraph tg = {f->pb.g, f->pb.gr, k->train.policy_graphs ? f->pg : NULL};
    void *t = k->train.trainer_new(net, ts, cfg, &tg, 1, f->pb.c, &e);
    REQUIRE_OR(t != NULL, 0, "%s: trainer_new: %s", k->name, e.msg);
    int64_t ran = k->train.run(t, n, NULL, NULL, NULL);
    k->train.trainer_free(t);
    return ran;
}

/* rnn, gdp, hsdag (its functions' prefix): its trainer on its own
 * configuration */
#define FIX_TRAIN(ag, Trainer)                                                                              \
    int64_t ag##_fix_train(void *net, TrainState *ts, const void *cfg, const TrainFix *f, int64_t n)        \
    {                                                                                                       \
        Err e = {{0}};                                                                                      \
        Trainer *t = ag##_train_new(net, ts, cfg, &(TrainGraph){f->pb.g, f->pb.gr, NULL}, 1, f->pb.c, &e); \
        REQUIRE_OR(t != NULL, 0, #ag "_train_new: %s", e.msg);                                              \
        int64_t ran = ag##_train_run(t, n, NULL, NULL, NULL);                                               \
        ag##_train_free(t);                                                                                 \
        return ran;                                                                                         \
    }
FIX_TRAIN(rnn, RnnTrainer)
FIX_TRAIN(gdp, GdpTrainer)
FIX_TRAIN(hsdag, HsdagTrainer)

void *fix_load_text(const AgentKind *k, const char *path, const char *text, size_t len, TrainState *ts, Err *e)
{
    AgentFile af = {k, (char *)path, (char *)text, len, {0}};
    TrainState drop;
    if (jdoc_parse(&af.doc, path, text, len, e) != 0) {
        if (ts)
            train_state_init(ts, 1e-3, 0, 0);
        return NULL;
    }
    void *net = k->file.load(&af, ts ? ts : &drop, e);
    if (!ts)
        train_state_done(&drop);
    jdoc_done(&af.doc);
    return net;
}

int fix_loads_text(const AgentKind *k, const char *path, const char *text, size_t len, Err *e)
{
    TrainState ts;
    void *net = fix_load_text(k, path, text, len, &ts, e);
    train_state_done(&ts);
    if (net)
        k->file.free(net);
    return net != NULL;
}
/* the agent whose cases fix_text_cases checks (check_text_cases' loader takes no context) */
static const AgentKind *cases_kind;
static int cases_load(const char *path, const char *text, size_t len, Err *e)
{
    return fix_loads_text(cases_kind, path, text, len, e);
}

void fix_text_cases(const AgentKind *k, const void *net, const TrainState *ts, const TextCase *cases, size_t n)
{
    TmpDir td;
    REQUIRE_MSG(tmp_open(&td, "placeto_bad"), "mkdtemp failed");
    char p[160];
    tmp_file(p, sizeof p, &td, "policy.json");
    Err e = {{0}};
    size_t len = 0;
    char *good = fix_saved_text(k, net, ts, p, &len, &e);
    cases_kind = k;
    if (good)
        check_text_cases(good, len, cases, n, cases_load);
    free(good);
    tmp_close(&td);
}

void *fix_load(const AgentKind *k, const char *path, TrainState *ts)
{
    Err e = {{0}};
    AgentPolicy p;
    if (agent_policy_resume(path, &p, ts, &e) != 0) {
        REQUIRE_OR(0, NULL, "%s: load %s: %s", k->name, path, e.msg);
    }
    void *net = p.net;
    CHECK_MSG(p.kind == k, "%s: %s names agent %s", k->name, path, p.kind->name);
    if (ts->cluster == p.cluster) /* the fixture's runs record no cluster */
        ts->cluster = NULL;
    p.net = NULL;
    agent_policy_close(&p);
    return net;
}

static const char *no_option(void *ctx, const char *name)
{
    (void)ctx, (void)name;
    return NULL;
}

int split_run(const AgentKind *k, FixTrain train, const TrainFix *f, void *cfg, void *net, TrainState *ts,
              int64_t n1, int64_t n2, const char *mid, const char *path)
{
    Err e = {{0}};
    int ok = net != NULL;
    if (ok)
        CHECK_INT(train ? train(net, ts, cfg, f, n1) : fix_train(k, net, ts, cfg, f, n1), n1);
    if (ok && n2 > 0) {
        ok = k->file.save(net, ts, mid, &e) == 0;
        CHECK_MSG(ok, "%s: save: %s", k->name, e.msg);
        k->file.free(net);
        train_state_done(ts);
        net = ok ? fix_load(k, mid, ts) : NULL;
        ok = net != NULL;
        if (ok && !train && k->train.resumed) /* as train --resume with no options */
            k->train.resumed(net, cfg, &(AgentArgs){.get = no_option, .opts = k->train.opts});
        if (ok)
            CHECK_INT(train ? train(net, ts, cfg, f, n2) : fix_train(k, net, ts, cfg, f, n2), n2);
    }
    if (ok) {
        ok = k->file.save(net, ts, path, &e) == 0;
        CHECK_MSG(ok, "%s: save: %s", k->name, e.msg);
    }
    if (net)
        k->file.free(net);
    train_state_done(ts);
    return ok ? 0 : -1;
}

char *fix_saved_text(const AgentKind *k, const void *net, const TrainState *ts, const char *path, size_t *len,
                     Err *e)
{
    char *text = NULL;
    if (net && k->file.save(net, ts, path, e) == 0)
        text = policy_text_with_checkpoint(path, len);
    CHECK_MSG(text != NULL, "%s: %s", k->name, e->msg);
    return text;
}

int split_files_open(SplitFiles *s, const char *prefix)
{
    if (!tmp_open(&s->td, prefix))
        return 0;
    tmp_file(s->a, sizeof s->a, &s->td, "a.json");
    tmp_file(s->b, sizeof s->b, &s->td, "b.json");
    tmp_file(s->c, sizeof s->c, &s->td, "c.json");
    tmp_file(s->m, sizeof s->m, &s->td, "mid.json");
    return 1;
}

void split_files_close(SplitFiles *s) { tmp_close(&s->td); }

void *split_reload(const AgentKind *k, const char *a, const char *c, TrainState *ts)
{
    Err e = {{0}};
    void *net = fix_load(k, a, ts);
    if (net) {
        CHECK_MSG(k->file.save(net, ts, c, &e) == 0, "%s: save: %s", k->name, e.msg);
        CHECK_MSG(same_file_bytes(a, c), "%s: load -> save changed %s", k->name, a);
    }
    return net;
}
