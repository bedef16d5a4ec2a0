/* gen: deterministic random computation graphs for tests and benchmarks.
 *
 * Every generator draws from its own Rng seeded with `seed` (util.h), so the
 * same arguments give the same graph, byte for byte, on every platform. Ops
 * are listed in a topological order (every edge goes from a lower to a higher
 * node index), graph_finish() has run, and the caller owns the result and
 * frees it with graph_free(). Generators never fail for n_ops >= 1. */
#ifndef PLACETO_GEN_H
#define PLACETO_GEN_H

#include <stdint.h>

#include "graph.h"

/* A random DAG shaped like a neural-network graph: ops "op0".."op<n-1>",
 * mostly local edges (to the next few ops) with some long skips, about
 * avg_out_degree edges per op drawn (repeated pairs are kept in the edge
 * list and count once after graph_finish(), so the final mean is lower, by
 * about 15% at degree 2). Costs are uniform in
 * [1, 1000) µs with about 5% zero-cost ops; output sizes are log-uniform in
 * 1 KB .. 4 MB; about 10% of the ops have two outputs and about half of their
 * outgoing edges carry output 1; about 1% of the edges are control edges whose
 * output index lies past the source's outputs (0 bytes). Named
 * "random_dag_<n>_s<seed>". n_ops >= 1; avg_out_degree >= 0. */
Graph *gen_random_dag(int n_ops, double avg_out_degree, uint64_t seed);

/* A graph shaped like one training step with SGD and momentum, in the
 * conventions of graphs/import/arch_graph.py: inputs "data" and "labels", a
 * forward chain of layers (plain layers: matmul + relu; branch blocks: two
 * convolutions on the same input joined by an add), a loss, the mirrored
 * backward ops (input gradients flowing back, weight gradients reading the
 * saved forward tensors) and per parameter a momentum buffer and an update.
 * A parameter's variable, weight-gradient op, momentum buffer and update
 * share the parameter's name as colocate key (grouping holds the variable in
 * that group, see group.h). Exactly n_ops ops (small sizes are a prefix of the pattern,
 * left-over ops are "metric.<k>" consumers of the loss). Named
 * "layered_training_<n>_s<seed>". n_ops >= 1. */
Graph *gen_layered_training_graph(int n_ops, uint64_t seed);

/* Stars: n_hubs ops ("hub<k>") each feeding its share of the other
 * n_ops - n_hubs ops ("leaf<k>"), which feed nothing (n_hubs 1: one op
 * feeding all the others; n_hubs = n_ops: no edges). Costs uniform in
 * [1, 10) µs, outputs of 1 KB. Named "star_<n>_h<hubs>_s<seed>". The shape
 * that once made grouping quadratic. n_ops >= 1, 1 <= n_hubs <= n_ops. */
Graph *gen_star(int n_ops, int n_hubs, uint64_t seed);

#endif
