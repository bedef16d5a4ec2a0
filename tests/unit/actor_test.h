/* actor_test: what the tests of the learned single-pass placers' episodes
 * (the RNN placer, GDP, HSDAG) share: a random graph to place; and the
 * episodes every agent's explorer actor must refuse to step (checked on
 * each registered one by test_contract.c). */
#ifndef PLACETO_ACTOR_TEST_H
#define PLACETO_ACTOR_TEST_H

#include "episode.h"
#include "vocab.h"

/* A random DAG of n_ops ops grouped to target groups, n_dev default
 * devices and the op-type vocabulary of the graph. */
typedef struct ActorGraph {
    Graph *g;
    Grouping *gr;
    Cluster *c;
    OpVocab voc;
} ActorGraph;

/* 0, or -1 with a test failure recorded; actor_graph_done frees what was
 * built either way. */
int actor_graph_new(ActorGraph *b, int n_ops, int target, int n_dev, uint64_t seed);
void actor_graph_done(ActorGraph *b);

/* A placer's episode check on its net (rnn_episode_check and the like). */
typedef int (*ActorCheck)(const Episode *ep, const void *net, Err *e);

/* Checks that check accepts an episode of config (the placer's
 * configuration) on g grouped by gr on n_devices default devices, and
 * refuses, naming what differs, Placeto's configuration (a random start:
 * "device 0"), two passes ("one pass"), a random order ("topological"),
 * keeping improving choices alone ("improving") and a cluster of
 * n_devices + 1 devices ("N devices"). */
void check_actor_refusals(const Graph *g, const Grouping *gr, int n_devices, void (*config)(const void *, EpisodeConfig *),
                          ActorCheck check, const void *net);

#endif
