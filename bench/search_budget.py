#!/usr/bin/python3
"""The paper's six cases (Inception-V3, NASNet and NMT on 2 and 4 devices)
at budgets of placements simulated: how many placements each search needs
to come within 5 % of a 50 000-placement ILS run, and its quality and wall
time at 100 to 10 000 placements. The searches: uniform ILS and annealing,
the learned local search with the bundled policy (graphs/policies/
lsearch.json, trained on the three families only, so every case is a
graph it never saw) and the same network untrained (its control); and the
zero-shot learned placers given the same budget: the one-shot policy
(graphs/policies/lsched_D.json: the heuristics, then decodes until the
budget is spent) and Placeto's general policy (general_D.json from the
best heuristic: sampled episodes after the greedy one until it is spent),
each with its untrained control. ILS and
the learned search follow one trajectory per seed whatever the budget
(the budget only stops them), so their first budget of the grid within
5 % is where the trajectory got there (to the grid's resolution); anneal's
temperature schedule depends on the budget, so its row is the first budget
whose whole run gets there. The network kernels are the plain loops
(PLACETO_KERNELS=plain): the table is the same on another CPU. Writes
bench/results/search_budget.{json,md}.

    /usr/bin/python3 bench/search_budget.py [./placeto] [--seeds 2] [--policy P]
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
SEEDS, POLICY = 2, "graphs/policies/lsearch.json"
GRID = [50, 100, 200, 500, 1000, 2000, 5000, 10000]
REF = 50000
CASES = [(g, d) for g in ("inception_v3", "nasnet", "nmt") for d in (2, 4)]
PROG, OPT = benchargs.options("search_budget.py", ["seeds", "policy"])
SEEDS, POLICY = int(OPT.get("seeds", SEEDS)), OPT.get("policy", POLICY)
ROWS = ["lsearch", "lsearch-untrained", "ils", "anneal", "lsched", "lsched-untrained", "placeto-refine",
        "placeto-refine-untrained"]


def compare(g, d, budget, seed, args):
    r = subprocess.run([PROG, "compare", "graphs/%s.json" % g, "--devices", str(d), "--untrained", "--budget",
                        str(budget), "--seed", str(seed), "--json"] + args, check=True, capture_output=True, text=True)
    doc = json.loads(r.stdout)
    return doc["lower_bound_us"], {m["method"]: (m["runtime_us"], m["seconds"]) for m in doc["methods"]}


def run(job):
    g, d, budget, seed = job
    lb, rows = compare(g, d, budget, seed, ["--methods", "ils,anneal", "--policy", POLICY])
    rows.update(compare(g, d, budget, seed, ["--methods", "single", "--policy",
                                             "graphs/policies/lsched_%d.json" % d])[1])
    rows.update(compare(g, d, budget, seed, ["--methods", "single", "--policy", "graphs/policies/general_%d.json" % d,
                                             "--start", "heuristic"])[1])
    return job, lb, rows


def ref(job):
    g, d = job
    r = subprocess.run([PROG, "place", "graphs/%s.json" % g, "--devices", str(d), "--method", "ils", "--budget",
                        str(REF), "--seed", "1", "--json"], check=True, capture_output=True, text=True)
    return job, json.loads(r.stdout)["runtime_us"]


def main():
    jobs = [(g, d, b, s) for g, d in CASES for b in GRID for s in range(1, SEEDS + 1)]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as ex:
        refs = dict(ex.map(ref, CASES))
        res = {j: (lb, m) for j, lb, m in ex.map(run, jobs)}
    rows = []
    for g, d in CASES:
        target = 1.05 * refs[(g, d)]
        lb = res[(g, d, GRID[0], 1)][0]
        row = {"graph": g, "devices": d, "reference_us": refs[(g, d)], "lower_bound_us": lb}
        for m in ROWS:
            q = {b: sum(res[(g, d, b, s)][1][m][0] for s in range(1, SEEDS + 1)) / SEEDS for b in GRID}
            t = {b: sum(res[(g, d, b, s)][1][m][1] for s in range(1, SEEDS + 1)) / SEEDS for b in GRID}
            within = [b for b in GRID if q[b] <= target]
            row[m] = {"to_5pct": within[0] if within else None, "quality": {str(b): q[b] / lb for b in GRID},
                      "seconds": {str(b): t[b] for b in GRID}}
        rows.append(row)
    doc = {"command": "/usr/bin/python3 bench/search_budget.py --seeds %d --policy %s" % (SEEDS, POLICY),
           "reference": "ils, %d placements, seed 1" % REF, "grid": GRID, "seeds": SEEDS, "kernels": "plain",
           "rows": rows}
    with lib.open_result("bench/results/search_budget.json") as f:
        json.dump(doc, f, indent=1)
    md = ["# The searches at a budget of placements, on the paper's cases", "",
          "`%s` (the plain kernels). Runtime / lower bound, mean of seeds 1-%d; *to 5 %%*: the first budget of "
          "the grid (%s) whose mean comes within 5 %% of a %d-placement ILS run (—: none). The learned search's "
          "and the one-shot policy's were trained on the families only: every case is new to them; *placeto-refine*: "
          "the general Placeto policy from the best heuristic." % (
              doc["command"], SEEDS, ", ".join(map(str, GRID)), REF), "",
          "| graph | devices | 50k ILS | placer | to 5 % | 100 | 1 000 | 10 000 | time at 1 000 |",
          "|---|---|---|---|---|---|---|---|---|"]
    n_met = 0
    for r in rows:
        for m in ROWS:
            x = r[m]
            md.append("| %s | %d | %.3f | %s | %s | %.3f | %.3f | %.3f | %.3f s |" % (
                r["graph"], r["devices"], r["reference_us"] / r["lower_bound_us"], m,
                x["to_5pct"] if x["to_5pct"] else "—", x["quality"]["100"], x["quality"]["1000"],
                x["quality"]["10000"], x["seconds"]["1000"]))
        n_met += bool(r["lsearch"]["to_5pct"] and r["lsearch"]["to_5pct"] <= 500)
    md += ["", "The learned search within 5 %% of the 50k-placement search in at most 500 placements: %d of %d cases." %
           (n_met, len(rows))]
    with lib.open_result("bench/results/search_budget.md") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))


main()
