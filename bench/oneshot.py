#!/usr/bin/python3
"""The one-shot policy (the learned list scheduler, lsched) at its default
budget of 20 placements against what a user would pick instead: the best
heuristic (the 9 heuristics are 9 of its 20 placements), ILS given the same
20 placements and given 200, and the same network untrained (the control,
`compare --untrained`, same procedure and budget). Held-out family members
24-31 and, with --fresh DIR, freshly generated ones (new importer seeds,
never tuned on); 2 and 4 devices.
Runtimes as multiples of each graph's lower bound, averaged per set. The
kernels are pinned (PLACETO_KERNELS=plain), so the table is the same on any
CPU. Writes bench/results/oneshot.{json,md}.

    /usr/bin/python3 bench/oneshot.py [./placeto] [--policy P] [--fresh DIR] [--devices 2,4]

The policy on D devices is graphs/policies/lsched_D.json (trained on D
devices), or P for every device count.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchargs  # noqa: E402

import lib  # bench/lib.py: write_result, read_result

os.environ["PLACETO_KERNELS"] = "plain"
PROG, OPT = benchargs.options("oneshot.py", ["policy", "fresh", "devices", "seed", "only", "tag"])
POLICY = OPT.get("policy")
FRESH = OPT.get("fresh")
DEVICES = [int(x) for x in OPT.get("devices", "2,4").split(",")]
TAG = "_" + OPT["tag"] if "tag" in OPT else ""
HEURISTICS = "single,random,round-robin,expert,m-topo,m-etf,heft,metis,scotch"


def policy(nd):
    return POLICY or "graphs/policies/lsched_%d.json" % nd


def js(args):
    return json.loads(subprocess.run([PROG] + args + ["--json"], check=True, capture_output=True, text=True).stdout)


def run(job):
    path, nd = job
    d = ["--devices", str(nd), "--seed", benchargs.SEED]
    c = js(["compare", path, "--methods", HEURISTICS, "--policy", policy(nd), "--untrained"] + d)
    m = {r["method"]: r for r in c["methods"]}
    lb = c["lower_bound_us"]
    heur = min(r["runtime_us"] for k, r in m.items() if not k.startswith("lsched"))
    out = {"heuristic": heur / lb, "lsched": m["lsched"]["runtime_us"] / lb,
           "untrained": m["lsched-untrained"]["runtime_us"] / lb, "placements": m["lsched"]["placements"],
           "seconds": m["lsched"]["seconds"]}
    for b in (20, 200):
        out["ils%d" % b] = js(["place", path, "--method", "ils", "--budget", str(b)] + d)["runtime_us"] / lb
    return job, out


def main():
    rows = []
    for nd, kind, fam, rs in benchargs.per_set(run, benchargs.family_sets(FRESH), DEVICES):
        row = {"devices": nd, "set": kind, "family": fam, "graphs": len(rs)}
        for k in ("heuristic", "lsched", "untrained", "ils20", "ils200", "placements", "seconds"):
            row[k] = sum(r[k] for r in rs) / len(rs)
        row["max_seconds"] = max(r["seconds"] for r in rs)
        row["beats_ils200"] = sum(r["lsched"] < r["ils200"] for r in rs)
        row["beats_control"] = sum(r["lsched"] < r["untrained"] for r in rs)
        row["worse_than_heuristic"] = sum(r["lsched"] > r["heuristic"] for r in rs)
        rows.append(row)
    os.makedirs("bench/results", exist_ok=True)
    with lib.open_result("bench/results/oneshot%s.json" % TAG) as f:
        json.dump({"policies": {nd: policy(nd) for nd in DEVICES}, "rows": rows}, f, indent=1)
    md = ["# The one-shot policy (lsched, 20 placements) against the best heuristic, ILS and its untrained control", "",
          "`/usr/bin/python3 bench/oneshot.py%s` with `%s` (runtime / lower bound, mean over each set's graphs; "
          "each cell from `compare GRAPH --methods HEURISTICS --policy P --untrained --seed %s` and "
          "`place GRAPH --method ils --budget B --seed %s`)." % (" --fresh DIR" if FRESH else "",
                                                                  ", ".join(policy(nd) for nd in DEVICES),
                                                                  benchargs.SEED, benchargs.SEED), "",
          "| devices | set | family | graphs | best heuristic | lsched (20) | untrained (20) | ils (20) | ils (200) | "
          "lsched vs ils (200) | graphs lsched < ils (200) | graphs lsched < control | seconds (mean, max) |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        md.append("| %d | %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %+.1f %% | %d of %d | %d of %d | %.3f, %.3f |" % (
            r["devices"], r["set"], r["family"], r["graphs"], r["heuristic"], r["lsched"], r["untrained"], r["ils20"],
            r["ils200"], 100 * (1 - r["lsched"] / r["ils200"]), r["beats_ils200"], r["graphs"], r["beats_control"],
            r["graphs"], r["seconds"], r["max_seconds"]))
    worse = sum(r["worse_than_heuristic"] for r in rows)
    md += ["", "Graphs where lsched is worse than the best heuristic: %d (its fallback makes it never worse)." % worse]
    lib.write_result("bench/results/oneshot%s.md" % TAG, "\n".join(md) + "\n")
    print("\n".join(md))


main()
