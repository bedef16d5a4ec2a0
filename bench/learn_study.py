#!/usr/bin/python3
"""What makes the Placeto agent learn: one training run per configuration on
one graph, each judged three ways, because the best placement any training
episode happened to see is not what the trained policy does:

  best seen      the best placement simulated during training (and after how
                 many placements), the figure the bundled results report;
  greedy         the trained policy run once, greedily, from the default
                 start (the fixed random placement): what the policy itself
                 has learned;
  best of 8      the trained policy, greedy then 8 sampled episodes.

Every row is one command (printed in the table) and deterministic for its
seed. Writes tests/results/learn_study.{json,md}.

    /usr/bin/python3 bench/learn_study.py [./placeto] [--graph G] [--devices N] [--episodes K]
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

PROG = "./placeto"
GRAPH, DEVICES, EPISODES = "graphs/inception_v3.json", 2, 300
args = sys.argv[1:]
if args and not args[0].startswith("--"):
    PROG = args.pop(0)
while args:
    k, v = args.pop(0), args.pop(0)
    if k == "--graph":
        GRAPH = v
    elif k == "--devices":
        DEVICES = int(v)
    elif k == "--episodes":
        EPISODES = int(v)
    else:
        sys.exit("learn_study.py: unknown option %s" % k)

# name, training options (on top of --episodes, --devices, --seed 1)
CONFIGS = [
    ("reference settings (entropy 1)", []),
    ("entropy 0.1", ["--entropy", "0.1"]),
    ("entropy 0.01", ["--entropy", "0.01"]),
    ("entropy 0.001", ["--entropy", "0.001"]),
    ("entropy 0.001, decaying to 0", ["--entropy", "0.001", "--entropy-decay", str(EPISODES)]),
    ("entropy 0.001, lr 0.0001", ["--entropy", "0.001", "--lr", "0.0001"]),
    ("entropy 0.001, lr 0.003", ["--entropy", "0.001", "--lr", "0.003"]),
    ("entropy 0.001, normalised advantages", ["--entropy", "0.001", "--normalize"]),
    ("entropy 0.001, log-runtime rewards", ["--entropy", "0.001", "--log-runtime"]),
    ("entropy 0.001, gamma 0.9", ["--entropy", "0.001", "--gamma", "0.9"]),
    ("entropy 0.001, 2 passes", ["--entropy", "0.001", "--passes", "2"]),
    ("entropy 0.001, start from the best so far", ["--entropy", "0.001", "--init", "best"]),
    ("entropy 0.001, start from heft", ["--entropy", "0.001", "--init", "heft"]),
    ("entropy 0.001, start from anneal", ["--entropy", "0.001", "--init", "anneal"]),
]


def run(*a):
    r = subprocess.run([PROG] + list(a), capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s %s: %s" % (PROG, " ".join(a), r.stderr.strip()))
    return r.stdout


def study(cfg):
    name, opts = cfg
    with tempfile.TemporaryDirectory() as tmp:
        pol = os.path.join(tmp, "p.json")
        train = ["train", GRAPH, "--devices", str(DEVICES), "--episodes", str(EPISODES), "--seed", "1"] + opts
        lines = [json.loads(l) for l in run(*(train + ["-o", pol, "--json"])).splitlines() if l.strip()]
        summary = lines[-1]
        best = summary["graphs"][0]
        greedy = json.loads(run("place", GRAPH, "--devices", str(DEVICES), "--policy", pol, "--json"))
        sampled = json.loads(run("place", GRAPH, "--devices", str(DEVICES), "--policy", pol, "--samples", "8",
                                 "--json"))
    return {"name": name, "command": "placeto " + " ".join(train), "best_seen_us": best["best_runtime_us"],
            "found_after": best["found_after"], "placements": summary["placements_simulated"],
            "greedy_us": greedy["runtime_us"], "best_of_8_us": sampled["runtime_us"],
            "seconds": summary["seconds"]}


def main():
    info = json.loads(run("compare", GRAPH, "--devices", str(DEVICES), "--json", "--budget", "20000"))
    lb = info["lower_bound_us"]
    ref = {m["method"]: m["runtime_us"] for m in info["methods"]}
    heuristic = min(v for k, v in ref.items() if k not in ("anneal", "ils"))
    search = min(ref["anneal"], ref["ils"])
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        rows = list(pool.map(study, CONFIGS))
    out = "tests/results"
    os.makedirs(out, exist_ok=True)
    doc = {"graph": GRAPH, "devices": DEVICES, "episodes": EPISODES, "lower_bound_us": lb, "single_us": ref["single"],
           "best_heuristic_us": heuristic, "best_search_us": search, "rows": rows}
    with open(os.path.join(out, "learn_study.json.tmp"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(os.path.join(out, "learn_study.json.tmp"), os.path.join(out, "learn_study.json"))
    r = lambda us: "%.2f" % (us / lb)
    md = ["%s on %d devices, %d episodes from the default start unless said, seed 1; runtimes as multiples of "
          "the lower bound (%.1f ms). For reference: single %s, best heuristic %s, best local search "
          "(20 000 placements) %s." % (info["graph"], DEVICES, EPISODES, lb / 1000, r(ref["single"]), r(heuristic),
                                       r(search)),
          "",
          "| configuration | best seen | found after | greedy policy | best of 8 | training |",
          "|---|---|---|---|---|---|"]
    for x in rows:
        md.append("| %s | %s | %d | %s | %s | %.0f s |" % (x["name"], r(x["best_seen_us"]), x["found_after"],
                                                          r(x["greedy_us"]), r(x["best_of_8_us"]), x["seconds"]))
    with open(os.path.join(out, "learn_study.md.tmp"), "w") as f:
        f.write("\n".join(md) + "\n")
    os.replace(os.path.join(out, "learn_study.md.tmp"), os.path.join(out, "learn_study.md"))
    print("\n".join(md))


main()
