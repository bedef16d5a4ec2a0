/* bench_lsched: the one-shot policy's costs (make bench PARTS=lsched): a
 * decode of the learned list scheduler against a simulation of the same
 * graph, and a whole zero-shot placement at its default budget. */
#ifndef PLACETO_BENCH_LSCHED_H
#define PLACETO_BENCH_LSCHED_H

void bench_lsched(void);

#endif
