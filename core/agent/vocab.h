/* vocab: the op-type vocabulary shared by the learned placers that embed
 * op types (rnn, gdp, hsdag): built from training graphs, stored in their
 * policy files (policy_file.h), looked up per op. Implemented in vocab.c. */
#ifndef PLACETO_VOCAB_H
#define PLACETO_VOCAB_H

#include "graph.h"
#include "problem.h"

/* The op-type vocabulary: the distinct GraphNode.op strings of the training
 * graphs, sorted (bytewise); a type not in it maps to row n ("other"). */
typedef struct OpVocab {
    int n;
    char **names;
} OpVocab;

void vocab_build(OpVocab *v, const Graph *const *graphs, int n_graphs);
void vocab_done(OpVocab *v);
/* dst = a copy of src (its own strings). */
void vocab_copy(OpVocab *dst, const OpVocab *src);
/* The embedding row of op type s: its index, or v->n when unknown. */
int vocab_find(const OpVocab *v, const char *s);
/* The vocabulary of the training problems pb[0..n) (initialised by the
 * call); returns their most groups. */
int vocab_build_problems(OpVocab *v, const Problem *pb, int n);

#endif
