/* train_fixture: what the learned placers' training tests share
 * (test_rnn_train.c, test_gdp_train.c, test_hsdag_train.c, test_hdp.c): a
 * problem on 2 devices with its op vocabulary; a number of updates on it;
 * the policy file's text for the bad-file tests and its loader; and the
 * resume check's run: n1 updates, save, load, n2 more, save, whose file
 * must equal that of n1 + n2 updates in one go. Implemented in
 * train_fixture.c. */
#ifndef PLACETO_TRAIN_FIXTURE_H
#define PLACETO_TRAIN_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "gdp_train.h"
#include "hsdag_train.h"
#include "problem.h"
#include "rnn_train.h"
#include "testutil.h"
#include "train_state.h"
#include "util.h"
#include "vocab.h"

typedef struct TrainFix {
    Problem pb;
    OpVocab voc;
} TrainFix;

/* The graph at path on 2 devices in `groups` groups (0: the graph's own)
 * and its vocabulary; -1 (a failed check) when it does not load. */
int train_fix_new(TrainFix *f, const char *path, int groups);
void train_fix_done(TrainFix *f);
/* The two graphs of the tests that train on a pair: f[0] toy_chain in 4
 * groups, f[1] toy_crown in its own; -1 (f[0] freed) when either does not
 * load. */
int train_fix_pair(TrainFix f[2]);
void train_fix_pair_done(TrainFix f[2]);

/* n updates of net on f's graph; the number run (0, a failed check, when
 * the trainer cannot be made). */
int64_t rnn_fix_train(RnnNet *net, TrainState *ts, const RnnTrainConfig *cfg, const TrainFix *f, int64_t n);
int64_t gdp_fix_train(GdpNet *net, TrainState *ts, const GdpTrainConfig *cfg, const TrainFix *f, int64_t n);
int64_t hsdag_fix_train(HsdagNet *net, TrainState *ts, const HsdagTrainConfig *cfg, const TrainFix *f, int64_t n);

/* check_text_cases' loader of each agent's policy files: 1 when text
 * loads (with a training state to fill). */
int rnn_fix_load_text(const char *path, const char *text, size_t len, Err *e);
int gdp_fix_load_text(const char *path, const char *text, size_t len, Err *e);
int hsdag_fix_load_text(const char *path, const char *text, size_t len, Err *e);

/* An agent as the helpers below see it: its network and configuration
 * untyped. */
typedef struct FixAgent {
    int64_t (*train)(void *net, TrainState *ts, const void *cfg, const TrainFix *f, int64_t n);
    int (*save)(const void *net, const TrainState *ts, const char *path, Err *e);
    void *(*load)(const char *path, TrainState *ts, Err *e);
    void (*free)(void *net);
} FixAgent;
extern const FixAgent fix_rnn, fix_gdp, fix_hsdag;

/* n1 updates of net (NULL when it could not be made) from ts (initialised)
 * under cfg; when n2 > 0, save (with the state) to mid, load, n2 more; then
 * save to path. Frees net and ts; 0 when all of it ran. */
int split_run(const FixAgent *ag, const TrainFix *f, const void *cfg, void *net, TrainState *ts, int n1, int n2,
              const char *mid, const char *path);

/* net's policy file saved (with ts) at path, as
 * policy_text_with_checkpoint reads it, its length in *len; NULL (a failed
 * check naming e's message) when net is NULL or either step fails. */
char *fix_saved_text(const FixAgent *ag, const void *net, const TrainState *ts, const char *path, size_t *len,
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
void *split_reload(const FixAgent *ag, const char *a, const char *c, TrainState *ts);

#endif
