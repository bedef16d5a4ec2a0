#!/usr/bin/python3
"""make bench, part 2: `placeto compare --json` on every bundled graph for 2, 4
and 8 default devices, the local searches (anneal, ils) with a budget of
20 000 placements simulated each (given: the default is smaller on graphs of
more than 2 500 ops). Writes bench/results/compare.json
(every row) and bench/results/compare.md (the markdown table in the README).
Runs one compare per core at a time; the rows do not depend on that.

  /usr/bin/python3 bench/bench_compare.py [./placeto]
"""
import concurrent.futures
import glob
import json
import os
import subprocess
import sys

import lib  # bench/lib.py: write_result, read_result

PROG = sys.argv[1] if len(sys.argv) > 1 else "./placeto"
OUT = "bench/results"


def main():
    os.makedirs(OUT, exist_ok=True)
    graphs = sorted(glob.glob("graphs/*.json"))
    jobs = [(g, n) for g in graphs for n in (2, 4, 8)]

    def compare(job):
        g, n = job
        # the baselines alone: the Placeto rows are the agent tables' (bench/agent_results.py)
        r = subprocess.run([PROG, "compare", g, "--devices", str(n), "--json", "--no-policy", "--budget", "20000"], check=True,
                           capture_output=True, text=True)
        d = json.loads(r.stdout)
        d["file"] = g
        return d

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        runs = list(pool.map(compare, jobs))
    with lib.open_result(os.path.join(OUT, "compare.json")) as f:
        json.dump(runs, f, indent=1)
        f.write("\n")
    methods = [m["method"] for m in sorted(runs[0]["methods"], key=lambda m: m["method"])]
    lines = ["Runtime of each method as a multiple of the lower bound (lower is better; "
             "**bold** = best; OOM = some device over its memory; anneal and ils simulate "
             "20 000 placements each, their start from the best heuristic included).",
             "",
             "| graph | devices | lower bound (ms) | " + " | ".join(methods) + " |",
             "|---|---|---|" + "---|" * len(methods)]
    for d in runs:
        by = {m["method"]: m for m in d["methods"]}
        best = min(m["runtime_us"] for m in d["methods"])
        cells = []
        for name in methods:
            m = by[name]
            s = "%.2f" % (m["runtime_us"] / d["lower_bound_us"])
            if m["runtime_us"] == best:
                s = "**%s**" % s
            if m["oom"]:
                s += " OOM"
            cells.append(s)
        lines.append("| %s | %d | %.1f | %s |" % (d["graph"], d["devices"], d["lower_bound_us"] / 1000.0,
                                                 " | ".join(cells)))
    with lib.open_result(os.path.join(OUT, "compare.md")) as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    print("\nwrote %s/compare.json and %s/compare.md" % (OUT, OUT))


if __name__ == "__main__":
    main()
