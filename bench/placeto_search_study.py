#!/usr/bin/python3
"""Which setting makes Placeto's training pay as a search: each family's
policy trained on graphs 00-19 (2 devices, 800 episodes, seed 1) with one
setting changed at a time, and measured on that family's graphs 20-23 (a
validation split: the bundled policies' own held-out graphs 24-31 and the
fresh ones stay untouched) by the budgeted search (`compare --budget B
--start heuristic --untrained`: from the best heuristic's placement, exactly
B placements), against its untrained control and ILS at the same B.

  tuned       the tuned defaults: from device 0, an undone move rewarded
              with its slow-down (negative)
  heuristic   --init heuristic: every episode from the best placement so
              far on its graph, the best heuristic's first
  zero        --rejected zero: an undone move rewarded 0
  search      --preset search: both

Also the share of the trained policy's proposals that were moves, and what
its training simulated. The network kernels are the plain loops
(PLACETO_KERNELS=plain). Writes bench/results/placeto_search_study.{json,md}.

    /usr/bin/python3 bench/placeto_search_study.py [./placeto] [--budget 500] [--out DIR]
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchargs  # noqa: E402

import lib  # bench/lib.py: write_result, read_result

os.environ["PLACETO_KERNELS"] = "plain"
PROG, OPT = benchargs.options("placeto_search_study.py", ["budget", "out"])
BUDGET = int(OPT.get("budget", 500))
OUT = OPT.get("out") or tempfile.mkdtemp(prefix="placeto_search_study.")
os.makedirs(OUT, exist_ok=True)
SETTINGS = [("tuned", ()), ("heuristic", ("--init", "heuristic")), ("zero", ("--rejected", "zero")),
            ("search", ("--preset", "search"))]


def graphs(m, fam, lo, hi):
    return ["graphs/families/%s/%s_%02d.json" % (fam, m, i) for i in range(lo, hi + 1)]


def train(job):
    (fam, m), (name, args) = job
    out = os.path.join(OUT, "%s_%s.json" % (fam, name))
    cmd = [PROG, "train"] + graphs(m, fam, 0, 19) + ["--devices", "2", "--episodes", "800", "--seed", "1",
                                                     "--checkpoint-every", "100000", "-o", out, "--json"] + list(args)
    log = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()
    return job, {"policy": out, "command": " ".join(["placeto"] + cmd[1:]).replace(OUT + "/", ""),
                 "simulated": json.loads(log[-1])["placements_simulated"]}


def measure(job):
    (fam, m), (name, _), path, policy = job
    d = json.loads(subprocess.run([PROG, "compare", path, "--devices", "2", "--policy", policy, "--start", "heuristic",
                                   "--untrained", "--methods", "ils", "--budget", str(BUDGET), "--seed", "1", "--json"],
                                  check=True, capture_output=True, text=True).stdout)
    r = {x["method"]: x for x in d["methods"]}
    lb = d["lower_bound_us"]
    return job, {"trained": r["placeto-refine"]["runtime_us"] / lb,
                 "untrained": r["placeto-refine-untrained"]["runtime_us"] / lb, "ils": r["ils"]["runtime_us"] / lb}


def main():
    jobs = [(f, s) for f in benchargs.FAMILIES for s in SETTINGS]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as ex:
        trained = dict(ex.map(train, jobs))
        mjobs = [(f, s, g, trained[(f, s)]["policy"]) for f, s in jobs for g in graphs(f[1], f[0], 20, 23)]
        res = dict(ex.map(measure, mjobs))
    rows = []
    for f, s in jobs:
        xs = [res[j] for j in mjobs if j[0] == f and j[1] == s]
        row = {"family": f[0], "setting": s[0], "command": trained[(f, s)]["command"],
               "train_simulated": trained[(f, s)]["simulated"]}
        for k in ("trained", "untrained", "ils"):
            row[k] = sum(x[k] for x in xs) / len(xs)
        row["gain"] = benchargs.gain(xs)
        rows.append(row)
    cmd = "/usr/bin/python3 bench/placeto_search_study.py --budget %d" % BUDGET
    with lib.open_result("bench/results/placeto_search_study.json") as fh:
        json.dump({"command": cmd, "kernels": "plain", "rows": rows}, fh, indent=1)
    md = ["`%s`: each family's Placeto policy trained on graphs 00-19 (2 devices, 800 episodes, seed 1) with one "
          "setting changed, measured on graphs 20-23 by the search at %d placements from the best heuristic's "
          "placement; runtime / lower bound, mean of 4 graphs; *gain*: 1 − the geometric mean of trained / "
          "untrained. Each row's training command is in bench/results/placeto_search_study.json." % (cmd, BUDGET), "",
          "| family | setting | placements simulated in training | trained | untrained | gain | ils |",
          "|---|---|---|---|---|---|---|"]
    for r in rows:
        md.append("| %s | %s | %d | %.3f | %.3f | %+.1f %% | %.3f |" % (r["family"], r["setting"], r["train_simulated"],
                                                                     r["trained"], r["untrained"], 100 * r["gain"], r["ils"]))
    md.append("")
    for name, _ in SETTINGS:
        rs = [r for r in rows if r["setting"] == name]
        md.append("%s: mean gain %+.1f %%  " % (name, 100 * sum(r["gain"] for r in rs) / len(rs)))
    with lib.open_result("bench/results/placeto_search_study.md") as fh:
        fh.write("\n".join(md) + "\n")
    print("\n".join(md))


main()
