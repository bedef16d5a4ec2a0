#!/usr/bin/python3
"""What `--policy auto` gives a user on graphs it never saw, before and
after it took the learned local search: `place GRAPH --policy auto` with
this program (auto: the graph's own bundled policy, else lsearch.json at
its default 1 000 placements) against the previous choice, the general
Placeto policy from the best heuristic (`--policy graphs/policies/general_D.json
--start heuristic`, its default one greedy episode), ILS given exactly the
placements each of them simulated, and the best heuristic. Held-out
family members 24-31 and, with --fresh DIR, freshly generated ones (new
importer seeds, never tuned on); 2 and 4 devices. Runtimes as multiples
of each graph's lower bound, averaged per set. The kernels are pinned
(PLACETO_KERNELS=plain), so the table is the same on any CPU. Writes
bench/results/auto_policy.{json,md}.

    /usr/bin/python3 bench/auto_policy.py [./placeto] [--fresh DIR] [--devices 2,4]
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchargs  # noqa: E402

import lib  # bench/lib.py: write_result, read_result

os.environ["PLACETO_KERNELS"] = "plain"
PROG, OPT = benchargs.options("auto_policy.py", ["fresh", "devices", "seed", "only", "tag"])
FRESH = OPT.get("fresh")
DEVICES = [int(x) for x in OPT.get("devices", "2,4").split(",")]
TAG = "_" + OPT["tag"] if "tag" in OPT else ""
HEURISTICS = "single,random,round-robin,expert,m-topo,m-etf,heft,metis,scotch"


def place(args):
    r = subprocess.run([PROG, "place"] + args + ["--json"], check=True, capture_output=True, text=True)
    return json.loads(r.stdout)


def run(job):
    path, nd = job
    d = ["--devices", str(nd), "--seed", benchargs.SEED]
    new = place([path, "--policy", "auto"] + d)
    old = place([path, "--policy", "graphs/policies/general_%d.json" % nd, "--start", "heuristic"] + d)
    heur = json.loads(subprocess.run([PROG, "compare", path, "--methods", HEURISTICS, "--json"] + d, check=True,
                                     capture_output=True, text=True).stdout)
    lb = heur["lower_bound_us"]
    best = min(m["runtime_us"] for m in heur["methods"])
    out = {"heuristic": best / lb, "policy": os.path.basename(new["policy"])}
    for name, r in (("auto", new), ("old_auto", old)):
        ils = place([path, "--method", "ils", "--budget", str(max(r["placements"], 1))] + d)
        out[name] = r["runtime_us"] / lb
        out[name + "_placements"] = r["placements"]
        out[name + "_ils"] = ils["runtime_us"] / lb
    return job, out


def main():
    rows = []
    for nd, kind, fam, rs in benchargs.per_set(run, benchargs.family_sets(FRESH), DEVICES):
        mean = lambda k: sum(r[k] for r in rs) / len(rs)  # noqa: E731
        rows.append({"devices": nd, "set": kind, "family": fam, "graphs": len(rs),
                     "policies": sorted(set(r["policy"] for r in rs)),
                     **{k: mean(k) for k in ("heuristic", "auto", "auto_placements", "auto_ils", "old_auto",
                                              "old_auto_placements", "old_auto_ils")},
                     "auto_beats_old": sum(r["auto"] < r["old_auto"] for r in rs),
                     "auto_beats_ils": sum(r["auto"] < r["auto_ils"] for r in rs)})
    os.makedirs("bench/results", exist_ok=True)
    with lib.open_result("bench/results/auto_policy%s.json" % TAG) as f:
        json.dump(rows, f, indent=1)
    with lib.open_result("bench/results/auto_policy%s.md" % TAG) as f:
        f.write("# `--policy auto` on graphs it never saw: the learned local search against the general Placeto policy\n\n")
        f.write("`/usr/bin/python3 bench/auto_policy.py%s` (runtime / lower bound, mean over each set's graphs; "
                "*placements*: simulated, the heuristics' included; *ils*: ILS given the same placements).\n\n"
                % (" --fresh DIR" if FRESH else ""))
        f.write("| devices | set | family | graphs | best heuristic | auto (lsearch) | placements | ils at those | "
                "graphs auto < ils | previous auto (general Placeto policy) | placements | ils at those | graphs auto < previous |\n")
        f.write("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write("| %d | %s | %s | %d | %.3f | %.3f | %.0f | %.3f | %d of %d | %.3f | %.0f | %.3f | %d of %d |\n" % (
                r["devices"], r["set"], r["family"], r["graphs"], r["heuristic"], r["auto"], r["auto_placements"],
                r["auto_ils"], r["auto_beats_ils"], r["graphs"], r["old_auto"], r["old_auto_placements"],
                r["old_auto_ils"], r["auto_beats_old"], r["graphs"]))
    print(lib.read_result("bench/results/auto_policy%s.md" % TAG))


main()
