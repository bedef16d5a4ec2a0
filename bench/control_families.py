#!/usr/bin/python3
"""Every family policy against its untrained control and against ILS at its
own budget, zero-shot on graphs it never trained on: the held-out members
(24-31) of enas-cifar10, enas-ptb and nmt and, with --fresh DIR, freshly
generated members (new importer seeds, never tuned on). Per agent and
graph:

  trained    `compare GRAPH --policy P --untrained --samples 8`: the policy's
             zero-shot row (one greedy and 8 sampled episodes or decodes
             from its own start; the learned search: --budget placements);
  untrained  the same network with the weights its training starts from,
             by the same procedure and budget (the control);
  ils        `place GRAPH --method ils --budget K` with K the placements the
             trained row simulated (at least the heuristics').

Runtimes / lower bound, averaged per set; the agents are Placeto's, the RNN
placer's and GDP's bundled family policies, an lsearch policy (--lsearch
P, at --lsearch-budget placements) and a one-shot lsched policy (--lsched
P, at its default 20 placements); with --placeto-budget B also Placeto's
family policy and its control both spending exactly B placements (row
placeto@B), and Placeto trained as a learned improvement search
(search_family_F_2.json, `train --preset search`) at the same B (row
placeto-search@B). The network kernels are the plain loops
(PLACETO_KERNELS=plain), so the table is the same on another CPU. Writes
bench/results/control_families.{json,md}.

    /usr/bin/python3 bench/control_families.py [./placeto] [--fresh DIR] [--lsearch P] [--lsearch-budget B] [--lsched P]
        [--placeto-budget B]
"""
import concurrent.futures
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchargs  # noqa: E402

import lib  # bench/lib.py: write_result, read_result

os.environ["PLACETO_KERNELS"] = "plain"
FRESH, LSEARCH, LS_BUDGET = None, None, 200
PROG, OPT = benchargs.options("control_families.py", ["fresh", "lsearch", "lsearch-budget", "lsched", "placeto-budget",
                                                            "seed", "only", "tag"])
FRESH, LSEARCH, LSCHED = OPT.get("fresh"), OPT.get("lsearch"), OPT.get("lsched")
PLACETO_BUDGET = int(OPT["placeto-budget"]) if "placeto-budget" in OPT else None
LS_BUDGET = int(OPT.get("lsearch-budget", LS_BUDGET))
TAG = "_" + OPT["tag"] if "tag" in OPT else ""

def policies(fam):
    ps = [("placeto", "graphs/policies/family_%s.json" % fam), ("rnn", "graphs/policies/rnn_family_%s.json" % fam),
          ("gdp", "graphs/policies/gdp_family_%s.json" % fam)]
    if LSEARCH:
        ps.append(("lsearch", LSEARCH))
    if LSCHED:
        ps.append(("lsched", LSCHED))
    if PLACETO_BUDGET:  # the family policy and its control at one equal budget of placements
        ps.append(("placeto@%d" % PLACETO_BUDGET, "graphs/policies/family_%s.json" % fam))
        ps.append(("placeto-search@%d" % PLACETO_BUDGET, "graphs/policies/search_family_%s_2.json" % fam))
    return ps


def run(job):
    agent, policy, path = job
    row = {"placeto-search": "placeto-refine"}.get(agent.split("@")[0], agent.split("@")[0])
    cmd = [PROG, "compare", path, "--devices", "2", "--policy", policy, "--untrained", "--samples", "8",
           "--methods", "single", "--seed", benchargs.SEED, "--json"]
    if agent == "lsearch":
        cmd += ["--budget", str(LS_BUDGET)]
    if "@" in agent:
        cmd += ["--budget", agent.split("@")[1]]
    d = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    m = {x["method"]: x for x in d["methods"]}
    t, u = m[row], m[row + "-untrained"]
    budget = max(t["placements"], 9)
    ils = json.loads(subprocess.run([PROG, "place", path, "--devices", "2", "--method", "ils", "--budget", str(budget),
                                     "--seed", benchargs.SEED, "--json"], check=True, capture_output=True, text=True).stdout)
    lb = d["lower_bound_us"]
    return job, {"trained": t["runtime_us"] / lb, "untrained": u["runtime_us"] / lb, "ils": ils["runtime_us"] / lb,
                 "placements": t["placements"], "untrained_placements": u["placements"], "trained_oom": t["oom"], "untrained_oom": u["oom"]}


def main():
    sets = benchargs.family_sets(FRESH)
    jobs = [(a, p, g) for _, fam, gs in sets for a, p in policies(fam) for g in gs]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as ex:
        res = dict(ex.map(run, jobs))
    rows = []
    for kind, fam, gs in sets:
        for a, p in policies(fam):
            rs = [res[(a, p, g)] for g in gs]
            row = {"set": kind, "family": fam, "agent": a, "policy": p, "graphs": len(gs)}
            for k in ("trained", "untrained", "ils", "placements", "untrained_placements"):
                row[k] = sum(r[k] for r in rs) / len(rs)
            row["gain"] = benchargs.gain(rs)
            row["beats_control"] = sum(r["trained"] < r["untrained"] for r in rs)
            row["per_graph"] = {g: res[(a, p, g)] for g in gs}
            rows.append(row)
    doc = {"command": "/usr/bin/python3 bench/control_families.py%s%s%s%s" % (
        " --fresh DIR" if FRESH else "", " --lsearch %s --lsearch-budget %d" % (LSEARCH, LS_BUDGET) if LSEARCH else "",
        " --lsched %s" % LSCHED if LSCHED else "", " --placeto-budget %d" % PLACETO_BUDGET if PLACETO_BUDGET else "") +
        "".join(" --%s %s" % (k, OPT[k]) for k in ("seed", "only", "tag") if k in OPT),
        "kernels": "plain", "rows": rows}
    with lib.open_result("bench/results/control_families%s.json" % TAG) as f:
        json.dump(doc, f, indent=1)
    md = ["# Every family policy against its untrained control, zero-shot", "",
          "`%s` (2 devices; runtime / lower bound, mean over each set's graphs; *gain*: 1 − the geometric mean of "
          "trained / untrained, > 0 when training helped; *ils*: ILS given the trained row's placements)." % doc["command"],
          "", "| set | family | agent | placements (trained / untrained) | trained | untrained | gain | graphs better than control | ils at the trained budget |",
          "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        md.append("| %s | %s | %s | %.0f / %.0f | %.3f | %.3f | %+.1f %% | %d of %d | %.3f |" % (
            r["set"], r["family"], r["agent"], r["placements"], r["untrained_placements"], r["trained"], r["untrained"], 100 * r["gain"],
            r["beats_control"], r["graphs"], r["ils"]))
    md.append("")
    for a in sorted({r["agent"] for r in rows}):
        rs = [r for r in rows if r["agent"] == a]
        md.append("%s: mean gain over the %d sets %+.1f %%  " % (a, len(rs), 100 * sum(r["gain"] for r in rs) / len(rs)))
    with lib.open_result("bench/results/control_families%s.md" % TAG) as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))


main()
