/* scorer: the small network of the learned searches and schedulers: it
 * scores a candidate (a move, a device) from a row of features with one
 * tanh hidden layer, score = w2 . tanh(W1 phi + b1), and a policy is the
 * softmax of the scores of a set of candidates. The learned local search
 * (lsearch) scores moves with it, the learned list scheduler (lsched)
 * devices. */
#ifndef PLACETO_SCORER_H
#define PLACETO_SCORER_H

#include <math.h>
#include <stdint.h>

#include "agent.h"
#include "jdoc.h"
#include "nn.h"
#include "util.h"

#define SCORER_HIDDEN_MAX 256

typedef struct Scorer {
    int features, hidden;
    NnParams p; /* "w1" [features x hidden], "b1" [1 x hidden], "w2" [hidden x 1] */
} Scorer;

/* sign(x) log(1 + |x|): how the scorers' features take times and ratios
 * that can be large. */
static inline float scorer_slog(double x) { return (float)(x < 0 ? -log1p(-x) : log1p(x)); }

/* A network of `features` inputs and `hidden` units (1..SCORER_HIDDEN_MAX),
 * weights zero; NULL with e set. */
Scorer *scorer_new(int features, int hidden, Err *e);
void scorer_free(void *s);
/* The weights a new training run starts from with seed (Glorot). */
void scorer_init(Scorer *s, uint64_t seed);

/* The score of one candidate with features phi, its hidden activations
 * into hid (hidden). */
double scorer_score(const Scorer *s, const float *phi, float *hid);
/* (float)tanh(x), the same float to the last bit, faster (scorer_score's
 * hidden units). */
float scorer_tanh(double x);
/* Adds to s->p.g, times scale, the gradient of -adv log p[chosen], where p
 * is the softmax of the scores of the candidates j with p[j] > 0 (the
 * others left out), candidate j having features phi[j * features ..] and
 * hidden activations hid[j * hidden ..]. */
void scorer_policy_grad(Scorer *s, const float *phi, const float *hid, const double *p, int M, int chosen, double adv,
                        double scale);

/* ---- a scorer as a policy (lsearch's, lsched's) ----
 * The file: {"agent": NAME, "architecture": {"features", "hidden",
 * "n_devices"}, "vocabulary": [], parameters w1, b1, w2}; n_devices is
 * the training cluster's (its best placements'), 1..CLUSTER_MAX_DEVICES like
 * a cluster's; the network itself places on any device count. */
typedef struct ScorerArch {
    int features, hidden, n_devices;
} ScorerArch;

typedef struct ScorerPolicy {
    const char *agent; /* the file's "agent" (a string literal) */
    Scorer *net;
    int n_devices;     /* of the training cluster */
} ScorerPolicy;

ScorerPolicy *scorer_policy_new(const char *agent, const ScorerArch *a, Err *e);
void scorer_policy_free(void *pol);
int scorer_policy_save(const void *pol, const TrainState *ts, const char *path, Err *e);
/* Reads "architecture" with exactly `features` features into arch (a
 * ScorerArch); -1 with e set naming the field. */
int scorer_read_arch(const JDoc *d, void *arch, int features, Err *e);
int scorer_arch_devices(const void *arch);
int scorer_arch_types(const void *arch);
size_t scorer_arch_params(const void *arch);
NnParams *scorer_policy_params(void *pol);
/* Any device count (the training cluster's the default), any grouping. */
void scorer_policy_info(const void *pol, AgentInfo *out);
/* The control: the same architecture with the weights training starts from. */
void *scorer_policy_untrained(const void *pol, uint64_t seed, Err *e);

/* ---- a scorer's trainer: the options every one takes ---- */
#define SCORER_DEFAULT_HIDDEN 16
#define SCORER_STR_(x) #x
#define SCORER_STR(x) SCORER_STR_(x)
/* Their rows (agent.h), lr_note what else sets --lr's default (NULL: nothing). */
#define SCORER_TRAIN_OPTS(lr_note)                                                                            \
    {.name = "lr", .arg = "X", .type = AGENT_OPT_NUM, .min = 0, .max = 10, .def = "0.01", .note = lr_note,    \
     .help = "Adam learning rate"},                                                                           \
        {.name = "clip", .arg = "X", .type = AGENT_OPT_NUM, .min = 0, .max = 1e9, .def = "1",                 \
         .help = "global gradient-norm clip"},                                                                \
        {.name = "hidden", .arg = "H", .type = AGENT_OPT_INT, .min = 1, .max = SCORER_HIDDEN_MAX,              \
         .def = SCORER_STR(SCORER_DEFAULT_HIDDEN), .help = "width of a new policy's scorer"}
typedef struct ScorerCfg {
    double lr, clip;
    long hidden;
    uint64_t seed;
} ScorerCfg;
/* Reads --lr, --clip and --hidden into c by their rows (SCORER_TRAIN_OPTS), with seed; -1 with e set. */
int scorer_configure(const AgentArgs *a, uint64_t seed, ScorerCfg *c, Err *e);
/* A new policy of c's width and `features` inputs for cluster cl, with the
 * weights of c's seed; NULL with e set. */
ScorerPolicy *scorer_policy_create(const char *agent, int features, const ScorerCfg *c, const Cluster *cl, Err *e);

#endif
