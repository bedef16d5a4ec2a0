/* bench_hsdag: the HSDAG placer's costs (make bench PARTS=hsdag): its
 * network on an inference graph, BLAS against the plain loops, a training
 * update split between the network and the simulator, and the network on
 * generated graphs of thousands of groups. */
#ifndef PLACETO_BENCH_HSDAG_H
#define PLACETO_BENCH_HSDAG_H

void bench_hsdag(void);

#endif
