#!/usr/bin/python3
"""Placeto as a learned improvement search (train --preset search) against
its untrained control and against ILS, at equal budgets of placements,
zero-shot on graphs it never trained on: the held-out members (24-31) of
enas-cifar10, enas-ptb and nmt and, with --fresh DIR, freshly generated
members (new importer seeds, never tuned on), on 2 and 4 devices. Per
graph, device count and budget B:

  trained    `compare GRAPH --devices D --policy search_family_F_D.json
             --untrained --budget B`: the search from the best heuristic's
             placement, exactly B placements (the heuristics' included);
  untrained  the same network with the weights its training starts from,
             by the same search and budget (the control);
  ils        `place GRAPH --method ils --budget B`;
  tuned      on 2 devices, the tuned family policy (family_F.json, trained
             from device 0 with the negative reward of an undone move) by
             the same search and budget.

Runtimes / lower bound, averaged per set. The network kernels are the plain
loops (PLACETO_KERNELS=plain), so the table is the same on another CPU.
Writes bench/results/placeto_search.{json,md}.

    /usr/bin/python3 bench/placeto_search.py [./placeto] [--fresh DIR] [--budgets 200,500,1000]
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchargs  # noqa: E402

import lib  # bench/lib.py: write_result, read_result

os.environ["PLACETO_KERNELS"] = "plain"
PROG, OPT = benchargs.options("placeto_search.py", ["fresh", "budgets", "seed", "only", "tag"])
FRESH = OPT.get("fresh")
BUDGETS = [int(b) for b in OPT.get("budgets", "200,500,1000").split(",")]
DEVICES = (2, 4)
TAG = "_" + OPT["tag"] if "tag" in OPT else ""


def fam_of(path):
    for fam, m in benchargs.FAMILIES:
        if os.path.basename(path).startswith(m + "_"):
            return fam
    raise SystemExit("placeto_search.py: %s is of no family" % path)


def compare(path, nd, policy, budget):
    cmd = [PROG, "compare", path, "--devices", str(nd), "--policy", policy, "--start", "heuristic", "--untrained",
           "--methods", "single", "--budget", str(budget), "--seed", benchargs.SEED, "--json"]
    d = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    m = {x["method"]: x for x in d["methods"]}
    return d["lower_bound_us"], m["placeto-refine"], m["placeto-refine-untrained"]


def run(job):
    path, nd = job
    fam = fam_of(path)
    out = {}
    for b in BUDGETS:
        lb, t, u = compare(path, nd, "graphs/policies/search_family_%s_%d.json" % (fam, nd), b)
        ils = json.loads(subprocess.run([PROG, "place", path, "--devices", str(nd), "--method", "ils", "--budget",
                                         str(b), "--seed", benchargs.SEED, "--json"], check=True, capture_output=True,
                                        text=True).stdout)
        r = {"trained": t["runtime_us"] / lb, "untrained": u["runtime_us"] / lb, "ils": ils["runtime_us"] / lb,
             "placements": t["placements"], "untrained_placements": u["placements"]}
        if nd == 2:
            _, old, _ = compare(path, nd, "graphs/policies/family_%s.json" % fam, b)
            r["tuned"] = old["runtime_us"] / lb
        out[b] = r
    return job, out


def main():
    sets = benchargs.family_sets(FRESH)
    per = benchargs.per_set(run, sets, DEVICES)
    rows = []
    for nd, kind, fam, rs in per:
        for b in BUDGETS:
            xs = [r[b] for r in rs]
            row = {"devices": nd, "set": kind, "family": fam, "budget": b, "graphs": len(xs)}
            for k in ("trained", "untrained", "ils", "placements", "untrained_placements") + (("tuned",) if nd == 2 else ()):
                row[k] = sum(x[k] for x in xs) / len(xs)
            row["gain"] = benchargs.gain(xs)
            row["vs_ils"] = benchargs.gain(xs, "trained", "ils")
            row["beats_control"] = sum(x["trained"] < x["untrained"] for x in xs)
            row["beats_ils"] = sum(x["trained"] < x["ils"] for x in xs)
            rows.append(row)
    cmd = "/usr/bin/python3 bench/placeto_search.py%s --budgets %s" % (" --fresh DIR" if FRESH else "",
                                                                      ",".join(map(str, BUDGETS))) + "".join(
        " --%s %s" % (k, OPT[k]) for k in ("seed", "only", "tag") if k in OPT)
    with lib.open_result("bench/results/placeto_search%s.json" % TAG) as f:
        json.dump({"command": cmd, "kernels": "plain", "rows": rows}, f, indent=1)
    md = ["`%s`: Placeto trained as a search (`search_family_F_D.json`), zero-shot from the best heuristic's "
          "placement with exactly B placements, against the same network untrained (the control) and ILS at the "
          "same B; *tuned*: the tuned family policy (`family_F.json`, 2 devices) by the same search. Runtime / lower "
          "bound, mean per set; *gain*: 1 − the geometric mean of trained / untrained (> 0: training helped); "
          "*vs ils*: the same against ILS." % cmd, "",
          "| devices | set | family | B | trained | untrained | gain | better than control | ils | vs ils | tuned |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        md.append("| %d | %s | %s | %d | %.3f | %.3f | %+.1f %% | %d of %d | %.3f | %+.1f %% | %s |" % (
            r["devices"], r["set"], r["family"], r["budget"], r["trained"], r["untrained"], 100 * r["gain"],
            r["beats_control"], r["graphs"], r["ils"], 100 * r["vs_ils"], "%.3f" % r["tuned"] if "tuned" in r else "—"))
    md.append("")
    for nd in DEVICES:
        for b in BUDGETS:
            rs = [r for r in rows if r["devices"] == nd and r["budget"] == b]
            md.append("%d devices, %d placements: mean gain over its control %+.1f %% (%d of %d sets at least +5 %%), "
                      "against ILS %+.1f %%  " % (nd, b, 100 * sum(r["gain"] for r in rs) / len(rs),
                                                 sum(r["gain"] >= 0.05 for r in rs), len(rs),
                                                 100 * sum(r["vs_ils"] for r in rs) / len(rs)))
    with lib.open_result("bench/results/placeto_search%s.md" % TAG) as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))


main()
