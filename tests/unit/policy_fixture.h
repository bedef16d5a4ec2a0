/* policy_fixture: the graphs, features and policies the policy tests share
 * (test_policy.c, test_policy_grad.c). Implemented in policy_fixture.c. */
#ifndef PLACETO_POLICY_FIXTURE_H
#define PLACETO_POLICY_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "graph.h"
#include "group.h"
#include "policy.h"
#include "util.h"

typedef struct Fix {
    Graph *g;
    Grouping *gr;
    PolicyGraph *pg;
} Fix;

int fix_from_graph(Fix *f, Graph *g, int target);
Graph *make_graph(int n, const int (*edges)[2], int m);
void fix_done(Fix *f);
void make_feats(Rng *r, const PolicyArch *a, int n, int v, double *fd, float *ff);
size_t spec_param_count(const PolicyArch *a);
void randomize_biases(Policy *pol, double *wd, uint64_t seed);
double *weights_d(const Policy *pol);
Policy *new_policy(const PolicyArch *a, uint64_t seed);
int middle_node(const PolicyGraph *pg);

#endif
