/* agent_fixture: any learned placer driven through its AgentKind alone
 * (agent.h), for the contract test (test_contract.c) and the agents' own
 * training tests (test_rnn_train.c, test_gdp_train.c, test_hsdag_train.c,
 * test_hdp.c): a problem on 2 devices with its op vocabulary (and the
 * policy graph an agent's trainer may need); a number of updates with an
 * agent's trainer; its policy files saved, loaded and loaded from text; and
 * the resume check's run: n1 updates, save, load, n2 more, save, whose
 * file must equal that of n1 + n2 updates in one go. Implemented in
 * agent_fixture.c. */
#ifndef PLACETO_AGENT_FIXTURE_H
#define PLACETO_AGENT_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "agent.h"
#include "testutil.h"
#include "text_cases.h"
#include "vocab.h"

typedef struct TrainFix {
    Problem pb;
    OpVocab voc;
    PolicyGraph *pg; /* for a trainer that needs one (train.policy_graphs) */
} TrainFix;

/* The graph at path on 2 devices in `groups` groups (0: the graph's own),
 * its vocabulary and policy graph; -1 (a failed check) when it does not
 * load. */
int train_fix_new(TrainFix *f, const char *path, int groups);
void train_fix_done(TrainFix *f);
/* The two graphs of the tests that train on a pair: f[0] toy_chain in 4
 * groups, f[1] toy_crown in its own; -1 (f[0] freed) when either does not
 * load. */
int train_fix_pair(TrainFix f[2]);
void train_fix_pair_done(TrainFix f[2]);

/* n updates (episodes) of k's trainer on net from ts under cfg (k's
 * configuration) on f's graph; the number run (0, a failed check, when
 * the trainer cannot be made). */
int64_t fix_train(const AgentKind *k, void *net, TrainState *ts, const void *cfg, const TrainFix *f, int64_t n);

/* An agent's own trainer, driven with its own configuration (an agent's
 * tests set what no option reaches: its threads, its schedules): n
 * updates of net, as fix_train. */
typedef int64_t (*FixTrain)(void *net, TrainState *ts, const void *cfg, const TrainFix *f, int64_t n);
int64_t rnn_fix_train(void *net, TrainState *ts, const void *cfg, const TrainFix *f, int64_t n);    /* RnnTrainConfig */
int64_t gdp_fix_train(void *net, TrainState *ts, const void *cfg, const TrainFix *f, int64_t n);    /* GdpTrainConfig */
int64_t hsdag_fix_train(void *net, TrainState *ts, const void *cfg, const TrainFix *f, int64_t n);  /* HsdagTrainConfig */

/* k's network of the policy text read from path (its training state into
 * ts when not NULL, else dropped); NULL with e set. */
void *fix_load_text(const AgentKind *k, const char *path, const char *text, size_t len, TrainState *ts, Err *e);
/* 1 when text loads as k's policy (with a training state to fill), else 0
 * with e set. */
int fix_loads_text(const AgentKind *k, const char *path, const char *text, size_t len, Err *e);
/* An agent's bad-file cases (text_cases.h): net's policy file saved with
 * ts, each case's edit of it refused by k's loader with the message the
 * case names, and the file itself loading. */
void fix_text_cases(const AgentKind *k, const void *net, const TrainState *ts, const TextCase *cases, size_t n);
/* Loads the policy file at path as `train --resume` does (its checkpoint
 * beside it into ts, initialised by the call), checking that it is k's:
 * the network, or NULL (a failed check). */
void *fix_load(const AgentKind *k, const char *path, TrainState *ts);

/* n1 updates of net (NULL when it could not be made) from ts (initialised)
 * under cfg, with train (NULL: k's own, cfg k's configuration, as
 * fix_train); when n2 > 0, save (with the state) to mid, load (as train
 * --resume), n2 more; then save to path. Frees net and ts; 0 when all of
 * it ran. */
int split_run(const AgentKind *k, FixTrain train, const TrainFix *f, void *cfg, void *net, TrainState *ts, int64_t n1, int64_t n2,
              const char *mid, const char *path);

/* net's policy file saved (with ts) at path, as
 * policy_text_with_checkpoint reads it, its length in *len; NULL (a failed
 * check naming e's message) when net is NULL or either step fails. */
char *fix_saved_text(const AgentKind *k, const void *net, const TrainState *ts, const char *path, size_t *len,
                     Err *e);

/* A resume test's temporary directory and its files a.json, b.json,
 * c.json and mid.json; split_files_open returns 0 on failure. */
typedef struct SplitFiles {
    TmpDir td;
    char a[128], b[128], c[128], m[128];
} SplitFiles;
int split_files_open(SplitFiles *s, const char *prefix);
void split_files_close(SplitFiles *s);

/* Loads the policy at a into ts (which the caller then finishes with
 * train_state_done) and saves it to c: the same bytes (two checks); the
 * network loaded (the caller's to free), NULL (a failed check) when it
 * does not load. */
void *split_reload(const AgentKind *k, const char *a, const char *c, TrainState *ts);

#endif
