/* rnn_place: a trained RNN placer's policy as a placement method (`place
 * --policy`, `compare --policy` with an rnn policy file): one greedy decode,
 * then `samples` sampled ones; the best placement seen wins (lowest score:
 * runtime plus Placeto's OOM penalty). With an hdp grouper a decode is a
 * grouping then the placer's decode of it, greedy or sampled alike
 * (rnn_hdp_decode). */
#ifndef PLACETO_RNN_PLACE_H
#define PLACETO_RNN_PLACE_H

#include "place_run.h"
#include "oneshot.h"
#include "rnn.h"

/* Decodes and simulates 1 + samples placements of g (grouped by gr, on c;
 * the net's device and group counts must match); the sampled ones draw
 * from a stream seeded with seed. Writes the best to group_device and its
 * runtime to *runtime_us; returns the placements simulated, or -1 with e
 * set. */
int64_t rnn_place(const RnnNet *net, const Graph *g, const Grouping *gr, const Cluster *c, int samples,
                  uint64_t seed, int *group_device, double *runtime_us, Err *e);

/* An hdp net's greedy grouping of g's groups (rnn_hdp.h): its statistics
 * to s (rnn_hdp_stats); returns the learned groups, or 0 (s untouched) for
 * a net without a grouper. */
int rnn_place_grouping(const RnnNet *net, const Graph *g, const Grouping *gr, GroupClusterStats *s);

#endif
