#!/usr/bin/python3
"""make bench, part search: where users wait, each figure beside its anchor
from the same run (speed round 3).

Per bundled graph (2 devices, and nmt on 4):
  - full simulations per second: `simulate --repeat` of ils's own placement
    (sim_run: the whole result, peak memory included);
  - placements per second of ils and anneal (`place --method M --budget B
    --json`: the method's own seconds, loading excluded), and their ratio
    to the full simulations (target: ils at least 2x); B is raised to
    2e7 / ops (a few tenths of a second a run), and each rate is the median
    of 3 runs;
  - the learned local search's time per placement against ils's
    (`place --policy graphs/policies/lsearch.json --budget B`; target at
    most 1.3x);
  - compare's wall time at its defaults, loading included (target 5 s).
Writes bench/results/search.json.

  /usr/bin/python3 bench/bench_search.py [./placeto] [--budget B] [--graphs a,b]
"""
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lib  # noqa: E402

PROG = "./placeto"
BUDGET = 3000
GRAPHS = ["googlenet", "inception_v3", "mobilenet_v2", "nasnet", "nmt", "resnet18", "resnet50", "vgg16",
          "inference/bert_base", "inference/inception_v3", "inference/resnet50"]
ILS_TARGET, LSEARCH_TARGET, COMPARE_TARGET = 2.0, 1.3, 5.0


def run(*args):
    return subprocess.run([PROG] + [str(a) for a in args], check=True, capture_output=True, text=True).stdout


def place(path, nd, budget, *how):
    return json.loads(run("place", path, "--devices", nd, "--budget", budget, "--json", *how))


def median3(f):
    """The median of three runs of f (a rate): the machine is shared."""
    return sorted(f() for _ in range(3))[1]


def one(name, nd, budget, tmp):
    path = "graphs/%s.json" % name
    pl = os.path.join(tmp, "p.json")
    place(path, nd, budget, "--method", "ils", "-o", pl)

    def sims_rate(repeat):
        out = run("simulate", path, "--placement", pl, "--repeat", repeat, "--json")
        return json.loads(out)["simulations_per_second"]

    # each measurement runs for a few tenths of a second at least, so that
    # the process's start and the searches' heuristic start do not weigh on
    # small graphs; the searches' budget follows the graph's size only, so
    # that every run of the bench searches as long
    with open(path) as f:
        n_ops = len(json.load(f)["nodes"])
    sims = median3(lambda: sims_rate(max(300, int(0.4 * sims_rate(300)))))
    budget = max(budget, 20000000 // n_ops)

    def rate(*how):
        r = place(path, nd, budget, *how)
        return r["placements"] / r["seconds"]

    ils_rate = median3(lambda: rate("--method", "ils"))
    ann_rate = median3(lambda: rate("--method", "anneal"))
    ls_per = 1 / median3(lambda: rate("--policy", "graphs/policies/lsearch.json"))
    t0 = time.monotonic()
    run("compare", path, "--devices", nd)
    wall = time.monotonic() - t0
    return {"graph": name, "devices": nd, "budget": budget, "full_sims_per_second": sims,
            "ils_per_second": ils_rate, "anneal_per_second": ann_rate, "ils_vs_full": ils_rate / sims,
            "anneal_vs_full": ann_rate / sims, "lsearch_vs_ils_per_placement": ls_per * ils_rate,
            "compare_default_seconds": wall}


def verdict(ok):
    return "ok" if ok else "MISSED"


def main():
    global PROG, BUDGET
    args = sys.argv[1:]
    graphs = GRAPHS
    while args:
        a = args.pop(0)
        if a == "--budget":
            BUDGET = int(args.pop(0))
        elif a == "--graphs":
            graphs = args.pop(0).split(",")
        else:
            PROG = a
    cases = [(g, 2) for g in graphs] + ([("nmt", 4)] if "nmt" in graphs else [])
    rows = []
    print("search    graph/devices           full sims/s   ils/s (vs full; target %.0fx)   anneal/s (vs full)   "
          "lsearch/ils per placement (target %.1fx)   compare at defaults (target %.0f s)"
          % (ILS_TARGET, LSEARCH_TARGET, COMPARE_TARGET))
    with tempfile.TemporaryDirectory() as tmp:
        for g, nd in cases:
            r = one(g, nd, BUDGET, tmp)
            rows.append(r)
            print("search    %-22s %10.0f   %8.0f (%.2fx %s)   %8.0f (%.2fx)   %6.2fx %s   %5.1f s %s" % (
                "%s/%d" % (g, nd), r["full_sims_per_second"], r["ils_per_second"], r["ils_vs_full"],
                verdict(r["ils_vs_full"] >= ILS_TARGET), r["anneal_per_second"], r["anneal_vs_full"],
                r["lsearch_vs_ils_per_placement"], verdict(r["lsearch_vs_ils_per_placement"] <= LSEARCH_TARGET),
                r["compare_default_seconds"], verdict(r["compare_default_seconds"] <= COMPARE_TARGET)), flush=True)
    lib.write_result(os.path.join(lib.RESULTS, "search.json"), rows)


if __name__ == "__main__":
    main()
