#!/usr/bin/env python3
"""The simulator's table of `make bench`: the C figures that
build/placeto-bench wrote to DIR/sim_c.tsv (ns per op of a full simulation
and of a makespan-only one, HEFT's placements), next to the Python statement
of the simulator (tests/sim_ref.py) timed here on the same placements, in the
same run.

    python3 bench/bench_sim.py DIR

The Python figure is the median of repeated simulate() calls (the graph and
placement are read once, outside the timing) over about SECONDS per row, at
least two calls; it is compared with both C figures (the statement has no
makespan-only path).
"""

import importlib.util
import os
import sys
import time

SECONDS = 0.4
BIG = ("inception_v3", "nasnet", "nmt")


def load_ref():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "sim_ref.py")
    spec = importlib.util.spec_from_file_location("sim_ref", path)
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    return ref


def python_ns_per_op(ref, graph, device_of, n_devices):
    times = []
    t_end = time.perf_counter() + SECONDS
    while len(times) < 2 or time.perf_counter() < t_end:
        t0 = time.perf_counter()
        ref.simulate(graph, device_of, n_devices)
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2] * 1e9 / len(graph.ops)


def main():
    d = sys.argv[1]
    ref = load_ref()
    rows = [line.rstrip("\n").split("\t") for line in open(os.path.join(d, "sim_c.tsv"))]
    graphs = {}
    print("sim       %-14s %5s %3s %11s %14s %13s %8s %10s" %
          ("graph", "ops", "dev", "full ns/op", "makespan ns/op", "python ns/op", "full x", "makespan x"))
    worst = {"full": None, "makespan": None}
    big_max = [0.0, 0.0]
    for name, nd, n, full, mk, gpath, ppath in rows:
        nd, n, full, mk = int(nd), int(n), float(full), float(mk)
        if gpath not in graphs:
            graphs[gpath] = ref.load_graph(gpath)
        graph = graphs[gpath]
        device_of, _ = ref.load_placement(ppath, graph)
        py = python_ns_per_op(ref, graph, device_of, nd)
        rf, rm = py / full, py / mk
        print("sim       %-14s %5d %3d %11.1f %14.1f %13.0f %7.0fx %9.0fx" % (name, n, nd, full, mk, py, rf, rm))
        sys.stdout.flush()
        for key, r in (("full", rf), ("makespan", rm)):
            if worst[key] is None or r < worst[key][0]:
                worst[key] = (r, name, nd)
        if name in BIG:
            big_max = [max(big_max[0], full), max(big_max[1], mk)]
    if rows:
        print("sim       smallest ratio: full %.0fx (%s, %d dev), makespan-only %.0fx (%s, %d dev); "
              "slowest on %s: full %.1f ns/op, makespan-only %.1f ns/op" %
              (worst["full"] + worst["makespan"] + (", ".join(BIG),) + tuple(big_max)))


if __name__ == "__main__":
    main()
