/* bench_gdp: the GDP placer at scale (make bench PARTS=gdp): one op-level
 * graph of n_ops ops placed op by op, its forward, backward and simulation
 * times and the process's peak memory. */
#ifndef PLACETO_BENCH_GDP_H
#define PLACETO_BENCH_GDP_H

void bench_gdp_scale(int n_ops);

#endif
