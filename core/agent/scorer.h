/* scorer: the small network of the learned searches and schedulers: it
 * scores a candidate (a move, a device) from a row of features with one
 * tanh hidden layer, score = w2 . tanh(W1 phi + b1), and a policy is the
 * softmax of the scores of a set of candidates. The learned local search
 * (lsearch) scores moves with it, the learned list scheduler (lsched)
 * devices. */
#ifndef PLACETO_SCORER_H
#define PLACETO_SCORER_H

#include <stdint.h>

#include "nn.h"
#include "util.h"

#define SCORER_HIDDEN_MAX 256

typedef struct Scorer {
    int features, hidden;
    NnParams p; /* "w1" [features x hidden], "b1" [1 x hidden], "w2" [hidden x 1] */
} Scorer;

/* A network of `features` inputs and `hidden` units (1..SCORER_HIDDEN_MAX),
 * weights zero; NULL with e set. */
Scorer *scorer_new(int features, int hidden, Err *e);
void scorer_free(void *s);
/* The weights a new training run starts from with seed (Glorot). */
void scorer_init(Scorer *s, uint64_t seed);

/* The score of one candidate with features phi, its hidden activations
 * into hid (hidden). */
double scorer_score(const Scorer *s, const float *phi, float *hid);
/* Adds to s->p.g, times scale, the gradient of -adv log p[chosen], where p
 * is the softmax of the scores of the candidates j with p[j] > 0 (the
 * others left out), candidate j having features phi[j * features ..] and
 * hidden activations hid[j * hidden ..]. */
void scorer_policy_grad(Scorer *s, const float *phi, const float *hid, const double *p, int M, int chosen, double adv,
                        double scale);

#endif
