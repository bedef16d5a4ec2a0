#!/usr/bin/python3
"""The learned local search (lsearch) against the uniform searches at equal
placements: trains one lsearch policy on the families' training graphs
(00-23 of enas-cifar10, enas-ptb and nmt), then places held-out graphs
(24-31 of each family) and, with --fresh DIR, freshly generated members
(new importer seeds, never tuned on) with `compare --methods ils,anneal
--policy P --untrained --budget B` for each budget and seed: the trained
scorer, the same network untrained (the control), uniform ILS and
annealing, every row spending exactly B placements (the start's
heuristics included). Runtimes as multiples of each graph's lower bound,
averaged per family; with the BLAS kernels pinned (PLACETO_KERNELS=plain)
the table is the same on any CPU. Writes bench/results/learned_search.{json,md}.

    PLACETO_KERNELS=plain /usr/bin/python3 bench/learned_search.py [./placeto] [--devices N] [--episodes K]
        [--budgets 200,1000,2000,10000] [--seeds 2] [--fresh DIR] [--policy P] [--held 24-31] [--tag T]
        [--train-opts "--search-budget 2000 ..."]

--policy P evaluates an existing lsearch policy instead of training one (it
places on any device count: --devices 4 with a policy trained on 2 is a
zero-shot test on a new cluster too); --train-opts adds options to the
training command.
"""
import concurrent.futures
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchargs  # noqa: E402

import lib  # bench/lib.py: write_result, read_result

DEVICES, EPISODES, BUDGETS, SEEDS, FRESH, POLICY, HELD, TAG = 2, 600, [200, 1000, 2000, 10000], 2, None, None, (24, 31), ""
TRAIN_OPTS = []
FAMILIES = [("enas-cifar10", "enas_cifar10"), ("enas-ptb", "enas_ptb"), ("nmt", "nmt_variant")]
ROWS = ["lsearch", "lsearch-untrained", "ils", "anneal"]
PROG, OPT = benchargs.options("learned_search.py", ["devices", "episodes", "budgets", "seeds", "fresh", "policy",
                                                    "held", "tag", "train-opts", "seed", "only"])
DEVICES, EPISODES = int(OPT.get("devices", DEVICES)), int(OPT.get("episodes", EPISODES))
BUDGETS = [int(x) for x in OPT["budgets"].split(",")] if "budgets" in OPT else BUDGETS
SEEDS, FRESH, POLICY, TAG = int(OPT.get("seeds", SEEDS)), OPT.get("fresh"), OPT.get("policy"), OPT.get("tag", TAG)
HELD = tuple(int(x) for x in OPT["held"].split("-")) if "held" in OPT else HELD
TRAIN_OPTS = OPT["train-opts"].split() if "train-opts" in OPT else []
JOBS = os.cpu_count() or 1
# --seed S: that seed alone (default: seeds 1..SEEDS); --only WHAT,...: the
# sets whose kind (held-out, fresh) and family are named, as benchargs says
SEED_LIST = [int(OPT["seed"])] if "seed" in OPT else list(range(1, SEEDS + 1))
ONLY = OPT["only"].split(",") if "only" in OPT else []


def train():
    out = "bench/results/learned_search%s_%d.policy.json" % (TAG, DEVICES)
    paths = ["graphs/families/%s/%s_%02d.json" % (d, m, i) for d, m in FAMILIES for i in range(24)]
    cmd = [PROG, "train"] + paths + ["--agent", "lsearch", "--devices", str(DEVICES), "--episodes", str(EPISODES),
                                     "-o", out, "--checkpoint-every", "100000"] + TRAIN_OPTS
    subprocess.run(cmd, check=True, capture_output=True)
    shown = ["./placeto", "train"] + ["graphs/families/%s/%s_{00..23}.json" % f for f in FAMILIES] + cmd[2 + len(paths):]
    return out, " ".join(shown)


def run(job):
    path, budget, seed, policy = job
    r = subprocess.run([PROG, "compare", path, "--devices", str(DEVICES), "--methods", "ils,anneal", "--policy",
                        policy, "--untrained", "--budget", str(budget), "--seed", str(seed), "--json"],
                       check=True, capture_output=True, text=True)
    d = json.loads(r.stdout)
    lb = d["lower_bound_us"]
    return job, {m["method"]: m["runtime_us"] / lb for m in d["methods"]}, {m["method"]: m["seconds"]
                                                                          for m in d["methods"]}


def main():
    policy, train_cmd = (POLICY, None) if POLICY else train()
    sets = []
    for d, m in FAMILIES:
        sets.append(("held-out " + d, ["graphs/families/%s/%s_%02d.json" % (d, m, i)
                                       for i in range(HELD[0], HELD[1] + 1)]))
    if FRESH:
        for d, m in FAMILIES:
            fs = benchargs.fresh_members(FRESH, m)
            if fs:
                sets.append(("fresh " + d, fs))
    kinds = [w for w in ONLY if w in ("held-out", "fresh")]
    fams = [w for w in ONLY if w not in kinds]
    sets = [(n, ps) for n, ps in sets if (not kinds or n.split()[0] in kinds) and (not fams or n.split()[1] in fams)]
    jobs = [(p, b, s, policy) for _, ps in sets for p in ps for b in BUDGETS for s in SEED_LIST]
    with concurrent.futures.ThreadPoolExecutor(JOBS) as ex:
        res = {(j[0], j[1], j[2]): (r, t) for j, r, t in ex.map(run, jobs)}
    table = []
    for name, ps in sets:
        for b in BUDGETS:
            row = {"set": name, "graphs": len(ps), "budget": b}
            for m in ROWS:
                vals = [res[(p, b, s)][0][m] for p in ps for s in SEED_LIST]
                row[m] = sum(vals) / len(vals)
                row[m + "_seconds"] = sum(res[(p, b, s)][1][m] for p in ps for s in SEED_LIST) / len(vals)
            # graphs where the trained scorer's mean over seeds beats ILS's
            row["wins_vs_ils"] = sum(
                sum(res[(p, b, s)][0]["lsearch"] for s in SEED_LIST) <
                sum(res[(p, b, s)][0]["ils"] for s in SEED_LIST) for p in ps)
            table.append(row)
    doc = {"devices": DEVICES, "episodes": EPISODES, "seeds": len(SEED_LIST), "seed_list": SEED_LIST, "policy": policy,
           "train_command": train_cmd,
           "compare_command": "%s compare GRAPH --devices %d --methods ils,anneal --policy %s --untrained "
                              "--budget B --seed S --json" % (PROG, DEVICES, policy),
           "kernels": os.environ.get("PLACETO_KERNELS", ""), "rows": table}
    base = "bench/results/learned_search%s_%d" % (TAG, DEVICES)
    with lib.open_result(base + ".json") as f:
        json.dump(doc, f, indent=1)
    md = ["Learned local search against the uniform searches, %d devices, mean runtime / lower bound over each "
          "set's graphs and seeds %s; every row spends exactly the budget's placements." % (
              DEVICES, "%d-%d" % (SEED_LIST[0], SEED_LIST[-1]) if len(SEED_LIST) > 1 else SEED_LIST[0]), "",
          "Trained with: `%s`" % (train_cmd or "(given policy %s)" % policy), "",
          "Each cell: `%s`" % doc["compare_command"], "",
          "| set | graphs | budget | lsearch | untrained | ils | anneal | lsearch vs ils | graphs lsearch < ils |",
          "|---|---|---|---|---|---|---|---|---|"]
    for r in table:
        md.append("| %s | %d | %d | %.3f | %.3f | %.3f | %.3f | %+.1f %% | %d of %d |" % (
            r["set"], r["graphs"], r["budget"], r["lsearch"], r["lsearch-untrained"], r["ils"], r["anneal"],
            100 * (r["ils"] / r["lsearch"] - 1), r["wins_vs_ils"], r["graphs"]))
    with lib.open_result(base + ".md") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))


main()
