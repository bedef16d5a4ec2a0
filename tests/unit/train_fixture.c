/* train_fixture: see train_fixture.h. */
#include "train_fixture.h"

#include <string.h>

#include "gdp_io.h"
#include "hsdag_io.h"
#include "rnn_io.h"
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
    return 0;
}

void train_fix_done(TrainFix *f)
{
    vocab_done(&f->voc);
    problem_free(&f->pb);
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

/* For each agent (rnn, gdp, hsdag: its functions' prefix) its typed
 * training run, its text loader and its FixAgent, their code the same
 * but for the types. */
#define TRAIN_FIXTURE_AGENT(ag, Net, Config, Trainer)                                                      \
    int64_t ag##_fix_train(Net *net, TrainState *ts, const Config *cfg, const TrainFix *f, int64_t n)      \
    {                                                                                                      \
        Err e = {{0}};                                                                                     \
        Trainer *t = ag##_train_new(net, ts, cfg, &(TrainGraph){f->pb.g, f->pb.gr, NULL}, 1, f->pb.c, &e); \
        CHECK_MSG(t != NULL, #ag "_train_new: %s", e.msg);                                                 \
        if (!t)                                                                                            \
            return 0;                                                                                      \
        int64_t ran = ag##_train_run(t, n, NULL, NULL, NULL);                                              \
        ag##_train_free(t);                                                                                \
        return ran;                                                                                        \
    }                                                                                                      \
    int ag##_fix_load_text(const char *path, const char *text, size_t len, Err *e)                         \
    {                                                                                                      \
        TrainState ts;                                                                                     \
        Net *net = ag##_policy_load_text(path, text, len, &ts, e);                                         \
        train_state_done(&ts);                                                                             \
        ag##_free(net);                                                                                    \
        return net != NULL;                                                                                \
    }                                                                                                      \
    static int64_t ag##_op_train(void *net, TrainState *ts, const void *cfg, const TrainFix *f, int64_t n) \
    {                                                                                                      \
        return ag##_fix_train(net, ts, cfg, f, n);                                                         \
    }                                                                                                      \
    static int ag##_op_save(const void *net, const TrainState *ts, const char *path, Err *e)               \
    {                                                                                                      \
        return ag##_policy_save(net, ts, path, e);                                                         \
    }                                                                                                      \
    static void *ag##_op_load(const char *path, TrainState *ts, Err *e)                                    \
    {                                                                                                      \
        return ag##_policy_load(path, ts, e);                                                              \
    }                                                                                                      \
    static void ag##_op_free(void *net) { ag##_free(net); }                                                \
    const FixAgent fix_##ag = {ag##_op_train, ag##_op_save, ag##_op_load, ag##_op_free};

TRAIN_FIXTURE_AGENT(rnn, RnnNet, RnnTrainConfig, RnnTrainer)
TRAIN_FIXTURE_AGENT(gdp, GdpNet, GdpTrainConfig, GdpTrainer)
TRAIN_FIXTURE_AGENT(hsdag, HsdagNet, HsdagTrainConfig, HsdagTrainer)

int split_run(const FixAgent *ag, const TrainFix *f, const void *cfg, void *net, TrainState *ts, int n1, int n2,
              const char *mid, const char *path)
{
    Err e = {{0}};
    int ok = net != NULL;
    if (ok)
        ag->train(net, ts, cfg, f, n1);
    if (ok && n2 > 0) {
        ok = ag->save(net, ts, mid, &e) == 0;
        CHECK_MSG(ok, "save: %s", e.msg);
        ag->free(net);
        train_state_done(ts);
        net = ok ? ag->load(mid, ts, &e) : NULL;
        CHECK_MSG(net != NULL, "load: %s", e.msg);
        ok = net != NULL;
        if (ok)
            ag->train(net, ts, cfg, f, n2);
    }
    if (ok) {
        ok = ag->save(net, ts, path, &e) == 0;
        CHECK_MSG(ok, "save: %s", e.msg);
    }
    ag->free(net);
    train_state_done(ts);
    return ok ? 0 : -1;
}

char *fix_saved_text(const FixAgent *ag, const void *net, const TrainState *ts, const char *path, size_t *len,
                     Err *e)
{
    char *text = NULL;
    if (net && ag->save(net, ts, path, e) == 0)
        text = policy_text_with_checkpoint(path, len);
    CHECK_MSG(text != NULL, "%s", e->msg);
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

void *split_reload(const FixAgent *ag, const char *a, const char *c, TrainState *ts)
{
    Err e = {{0}};
    void *net = ag->load(a, ts, &e);
    CHECK_MSG(net != NULL, "%s", e.msg);
    if (net) {
        CHECK(ag->save(net, ts, c, &e) == 0);
        CHECK(same_file_bytes(a, c));
    }
    return net;
}
