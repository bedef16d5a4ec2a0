#!/usr/bin/python3
"""Placeto's network as the learned search (issue 42, item 5): the learned
local search with its moves scored by Placeto's network (`train --agent
lsearch --scorer placeto`) beside its untrained control, the bundled MLP
lsearch policy (graphs/policies/lsearch.json) and its control, and uniform
ILS, every row spending exactly the budget's placements, on freshly
generated family members.

Trains one Placeto-scored policy on the families' training graphs (00-23
of enas-cifar10, enas-ptb and nmt) unless --policy P gives one, generates
the fresh graphs (importer seeds 340-343 of each family; needs Debian's
python3-torch; about a minute each) into FRESH when missing and refuses
any whose ops equal a bundled member's (nmt_variant seed s is
configuration s mod 75: 340-343 are configurations 40-43, the bundled
00-31 are 0-31), then runs, per graph, budget and seed,

    compare G --devices D --methods ils --policy P --untrained --budget B --seed S

for the Placeto-scored policy and for the MLP one. Reports per budget the
mean relative difference of each learned search against ILS over graphs x
seeds, (1 - runtime / ILS's runtime) in %, positive when faster, with a
95 % t interval, and the paired difference of the Placeto-scored search
against the MLP lsearch. Writes bench/results/gnn_search[TAG]_D.{json,md}.

    PLACETO_KERNELS=plain /usr/bin/python3 bench/gnn_search.py [./placeto] [--devices 2] [--episodes 600]
        [--budgets 200,1000,10000] [--seeds 3] [--fresh DIR] [--policy P] [--lsearch L] [--jobs J]
        [--tag T] [--train-opts "--lr 0.003 ..."]
"""
import concurrent.futures
import json
import math
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchargs  # noqa: E402

import lib  # bench/lib.py: write_result, read_result

PROG, OPT = benchargs.options("gnn_search.py", ["devices", "episodes", "budgets", "seeds", "fresh", "policy",
                                                "lsearch", "jobs", "tag", "train-opts"])
DEVICES, EPISODES = int(OPT.get("devices", 2)), int(OPT.get("episodes", 600))
BUDGETS = [int(x) for x in OPT.get("budgets", "200,1000,10000").split(",")]
SEEDS = int(OPT.get("seeds", 3))
FRESH = OPT.get("fresh", os.path.join(os.environ.get("TMPDIR", "/tmp"), "placeto-fresh340"))
POLICY, LSEARCH = OPT.get("policy"), OPT.get("lsearch", "graphs/policies/lsearch.json")
JOBS, TAG = int(OPT.get("jobs", os.cpu_count() or 1)), OPT.get("tag", "")
TRAIN_OPTS = OPT["train-opts"].split() if "train-opts" in OPT else []
FRESH_SEEDS = [340, 341, 342, 343]
ROWS = [("placeto-scored", "gnn", "lsearch"), ("its control", "gnn", "lsearch-untrained"),
        ("lsearch (MLP)", "mlp", "lsearch"), ("lsearch control", "mlp", "lsearch-untrained")]


def ops_signature(path):
    d = json.load(open(path))
    return tuple(sorted((str(n["op"]), round(n["cost_us"], 6), str(n["output_bytes"])) for n in d["nodes"]))


def fresh_graphs():
    os.makedirs(FRESH, exist_ok=True)
    paths = []
    for _, m in benchargs.FAMILIES:
        for s in FRESH_SEEDS:
            p = os.path.join(FRESH, "%s_%d.json" % (m, s))
            if not os.path.exists(p):
                subprocess.run(["/usr/bin/python3", "graphs/import/torch_graph.py", "--model", m, "--seed", str(s),
                                "-o", p], check=True, capture_output=True)
            paths.append(p)
    bundled = {}
    for fam, m in benchargs.FAMILIES:
        for i in range(32):
            q = "graphs/families/%s/%s_%02d.json" % (fam, m, i)
            bundled[ops_signature(q)] = q
    for p in paths:
        if ops_signature(p) in bundled:
            sys.exit("gnn_search.py: %s has the ops of the bundled %s: not a fresh graph" % (p, bundled[ops_signature(p)]))
    return paths


def train():
    out = "bench/results/gnn_search%s_%d.policy.json" % (TAG, DEVICES)
    paths = ["graphs/families/%s/%s_%02d.json" % (d, m, i) for d, m in benchargs.FAMILIES for i in range(24)]
    cmd = [PROG, "train"] + paths + ["--agent", "lsearch", "--scorer", "placeto", "--devices", str(DEVICES),
                                     "--episodes", str(EPISODES), "-o", out, "--checkpoint-every", "100000"] + TRAIN_OPTS
    subprocess.run(cmd, check=True, capture_output=True)
    shown = ["./placeto", "train"] + ["graphs/families/%s/%s_{00..23}.json" % f for f in benchargs.FAMILIES] + \
        cmd[2 + len(paths):]
    return out, " ".join(shown)


def run(job):
    path, budget, seed, which, policy = job
    r = subprocess.run(["nice", "-n", "10", PROG, "compare", path, "--devices", str(DEVICES), "--methods", "ils",
                        "--policy", policy, "--untrained", "--budget", str(budget), "--seed", str(seed), "--json"],
                       check=True, capture_output=True, text=True)
    d = json.loads(r.stdout)
    return job, {m["method"]: m["runtime_us"] / d["lower_bound_us"] for m in d["methods"]}, \
        {m["method"]: m["seconds"] for m in d["methods"]}


def t975(df):
    """The 0.975 quantile of Student's t with df degrees of freedom
    (Cornish-Fisher expansion; within 1e-3 from df 5)."""
    z = 1.959963984540054
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2) + \
        (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3)


def interval(xs):
    m = statistics.mean(xs)
    h = t975(len(xs) - 1) * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")
    return m, h


def main():
    graphs = fresh_graphs()
    policy, train_cmd = (POLICY, None) if POLICY else train()
    pols = {"gnn": policy, "mlp": LSEARCH}
    jobs = [(p, b, s, w, pols[w]) for p in graphs for b in BUDGETS for s in range(1, SEEDS + 1) for w in pols]
    with concurrent.futures.ThreadPoolExecutor(JOBS) as ex:
        res = {j[:4]: (r, t) for j, r, t in ex.map(run, jobs)}
    for p in graphs:  # ILS is the same search in both runs
        for b in BUDGETS:
            for s in range(1, SEEDS + 1):
                assert res[(p, b, s, "gnn")][0]["ils"] == res[(p, b, s, "mlp")][0]["ils"], (p, b, s)
    table = []
    for b in BUDGETS:
        row = {"budget": b, "n": len(graphs) * SEEDS}
        keys = [(p, s) for p in graphs for s in range(1, SEEDS + 1)]
        ils = [res[(p, b, s, "gnn")][0]["ils"] for p, s in keys]
        row["ils"] = statistics.mean(ils)
        row["ils_seconds"] = statistics.mean(res[(p, b, s, "gnn")][1]["ils"] for p, s in keys)
        for label, w, m in ROWS:
            xs = [res[(p, b, s, w)][0][m] for p, s in keys]
            rel = [100 * (1 - x / i) for x, i in zip(xs, ils)]
            mean, half = interval(rel)
            row[label] = {"mean_ratio": statistics.mean(xs), "vs_ils": mean, "ci": half,
                          "seconds": statistics.mean(res[(p, b, s, w)][1][m] for p, s in keys),
                          "per_family": {fam: statistics.mean(r for (p, _), r in zip(keys, rel) if os.path.basename(p).startswith(mm + "_"))
                                         for fam, mm in benchargs.FAMILIES}}
        g = [res[(p, b, s, "gnn")][0]["lsearch"] for p, s in keys]
        ml = [res[(p, b, s, "mlp")][0]["lsearch"] for p, s in keys]
        gu = [res[(p, b, s, "gnn")][0]["lsearch-untrained"] for p, s in keys]
        row["gnn_vs_lsearch"] = interval([100 * (1 - x / y) for x, y in zip(g, ml)])
        row["gnn_vs_control"] = interval([100 * (1 - x / y) for x, y in zip(g, gu)])
        table.append(row)
    doc = {"devices": DEVICES, "episodes": EPISODES, "seeds": SEEDS, "graphs": graphs, "policy": policy,
           "lsearch": LSEARCH, "train_command": train_cmd, "kernels": os.environ.get("PLACETO_KERNELS", ""),
           "compare_command": "%s compare G --devices %d --methods ils --policy P --untrained --budget B --seed S "
                              "--json" % (PROG, DEVICES), "rows": table}
    os.makedirs("bench/results", exist_ok=True)
    base = "bench/results/gnn_search%s_%d" % (TAG, DEVICES)
    with lib.open_result(base + ".json") as f:
        json.dump(doc, f, indent=1)
    md = ["Placeto's network as the learned search, %d devices, %d fresh graphs (importer seeds %s of each family) x "
          "seeds 1-%d: mean (1 - runtime / ILS's) in %%, positive when faster than ILS, with its 95 %% interval; "
          "every row spends exactly the budget's placements." % (DEVICES, len(graphs), "-".join(
              str(s) for s in (FRESH_SEEDS[0], FRESH_SEEDS[-1])), SEEDS), "",
          "Trained with: `%s`" % (train_cmd or "(given policy %s)" % policy), "",
          "Each cell: `%s`, P the Placeto-scored policy and %s" % (doc["compare_command"], LSEARCH), "",
          "| budget | ILS (runtime / bound) | placeto-scored | its control | lsearch (MLP) | lsearch control "
          "| placeto-scored vs lsearch | placeto-scored vs its control |",
          "|---|---|---|---|---|---|---|---|"]
    for r in table:
        cells = ["%+.1f ± %.1f %%" % (r[lab]["vs_ils"], r[lab]["ci"]) for lab, _, _ in ROWS]
        md.append("| %d | %.3f | %s | %+.1f ± %.1f %% | %+.1f ± %.1f %% |" % (
            r["budget"], r["ils"], " | ".join(cells), r["gnn_vs_lsearch"][0], r["gnn_vs_lsearch"][1],
            r["gnn_vs_control"][0], r["gnn_vs_control"][1]))
    md += ["", "Seconds per search (mean): " + "; ".join(
        "%d: %s, ils %.3f" % (r["budget"], ", ".join("%s %.3f" % (lab, r[lab]["seconds"]) for lab, _, _ in ROWS),
                              r["ils_seconds"]) for r in table)]
    with lib.open_result(base + ".md") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))


main()
