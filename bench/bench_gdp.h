/* bench_gdp: the GDP placer at scale (make bench PARTS=gdp): one op-level
 * graph of n_ops ops placed op by op, its forward, backward and simulation
 * times and the process's peak memory. */
#ifndef PLACETO_BENCH_GDP_H
#define PLACETO_BENCH_GDP_H

void bench_gdp_scale(int n_ops);
/* The network input gdp_train gives a new policy on graph_path with
 * n_devices default devices (the default grouping, the graph's own
 * vocabulary) as JSON for bench/gdp_torch.py: {"G", "F", "n_devices",
 * "x": G x F rows, "nb_off": G + 1, "nb"}. With policy_path (or NULL),
 * that policy's vocabulary, and "probs" (G x n) of its forward: the check
 * that the PyTorch twin is the same network. Returns 0, or 1 with a message. */
int bench_gdp_input(const char *graph_path, int n_devices, const char *out_path, const char *policy_path);

#endif
