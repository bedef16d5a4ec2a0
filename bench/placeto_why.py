#!/usr/bin/python3
"""Why Placeto's training adds little: one training run per setting, each
judged against the same network untrained (the control) by the same
zero-shot procedure, one greedy and 8 sampled episodes (`compare --policy P
--untrained --samples 8`), and against ILS given the placements the trained
row simulated. The settings vary one thing each from the tuned default:
the acceptance rule, the discount, the start, the device count (two devices
make every step a binary choice), the passes over the groups, the sampling
temperature, and the paper's reference settings. *moves* is the share of
the zero-shot episodes' steps that proposed another device (a proposal of
the group's own device simulates nothing and is not counted).

Every row is one command (kept in the JSON), deterministic for its seed; the
network kernels are the plain loops (PLACETO_KERNELS=plain), so the table is
the same on another CPU. Writes bench/results/placeto_why.{json,md}.

    /usr/bin/python3 bench/placeto_why.py [./placeto] [--graph G] [--episodes K] [--only NAME,...]
"""
import concurrent.futures
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchargs  # noqa: E402
import tempfile

import lib  # bench/lib.py: write_result, read_result

os.environ["PLACETO_KERNELS"] = "plain"
GRAPH, EPISODES, ONLY = "graphs/inception_v3.json", 100, []
PROG, OPT = benchargs.options("placeto_why.py", ["graph", "episodes", "only"])
GRAPH, EPISODES = OPT.get("graph", GRAPH), int(OPT.get("episodes", EPISODES))
ONLY = OPT["only"].split(",") if "only" in OPT else []

# name, devices, train options
CONFIGS = [
    ("tuned (default): only improving moves kept, gamma 0, device-0 start", 2, []),
    ("every move kept (--accept all)", 2, ["--accept", "all"]),
    ("gamma 1 (--gamma 1)", 2, ["--gamma", "1"]),
    ("every move kept and gamma 1", 2, ["--accept", "all", "--gamma", "1"]),
    ("a random start per episode (--init random-each)", 2, ["--init", "random-each"]),
    ("from the best heuristic (--init heuristic)", 2, ["--init", "heuristic"]),
    ("two passes over the groups (--passes 2)", 2, ["--passes", "2"]),
    ("sampling temperature 2 (--temperature 2)", 2, ["--temperature", "2"]),
    ("4 devices: not a binary choice", 4, []),
    ("the paper's settings (--preset paper)", 2, ["--preset", "paper"]),
]


def run(cfg):
    name, devices, opts = cfg
    tmp = tempfile.mkdtemp()
    pol = os.path.join(tmp, "p.json")
    train = [PROG, "train", GRAPH, "--devices", str(devices), "--episodes", str(EPISODES), "--seed", "1", "-o", pol,
             "--checkpoint-every", "100000"] + opts
    subprocess.run(train, check=True, capture_output=True)
    cmp = [PROG, "compare", GRAPH, "--devices", str(devices), "--policy", pol, "--untrained", "--samples", "8",
           "--methods", "single", "--seed", "1", "--json"]
    d = json.loads(subprocess.run(cmp, check=True, capture_output=True, text=True).stdout)
    m = {x["method"]: x for x in d["methods"]}
    t, u = m["placeto"], m["placeto-untrained"]
    tr = m.get("placeto-trained")
    ils = json.loads(subprocess.run([PROG, "place", GRAPH, "--devices", str(devices), "--method", "ils", "--budget",
                                     str(max(t["placements"], 9)), "--seed", "1", "--json"],
                                    check=True, capture_output=True, text=True).stdout)
    lb = d["lower_bound_us"]
    steps = 9 * d["groups"] * (2 if "--passes" in opts else 1)
    return cfg, {"command": " ".join(train).replace(pol, "P.json") + " && " + " ".join(cmp).replace(pol, "P.json"),
                 "trained": t["runtime_us"] / lb, "untrained": u["runtime_us"] / lb,
                 "best_seen": tr["runtime_us"] / lb if tr else None, "placements": t["placements"],
                 "untrained_placements": u["placements"], "moves": t["placements"] / steps,
                 "untrained_moves": u["placements"] / steps, "ils": ils["runtime_us"] / lb}


def main():
    cfgs = [c for c in CONFIGS if not ONLY or any(w in c[0] for w in ONLY)]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as ex:
        res = list(ex.map(run, cfgs))
    rows = [dict(name=c[0], devices=c[1], **r) for c, r in res]
    with lib.open_result("bench/results/placeto_why.json") as f:
        json.dump({"graph": GRAPH, "episodes": EPISODES, "kernels": "plain", "rows": rows}, f, indent=1)
    md = ["# Why Placeto's training adds little", "",
          "`/usr/bin/python3 bench/placeto_why.py --graph %s --episodes %d`: %s, %d training episodes per row, seed 1; "
          "zero-shot: one greedy and 8 sampled episodes from the policy's start; runtime / lower bound. "
          "*trained / untrained* < 1: training helped. *moves*: the share of zero-shot steps that proposed another "
          "device (trained, untrained). Each row's command is in bench/results/placeto_why.json." % (
              GRAPH, EPISODES, os.path.basename(GRAPH), EPISODES), "",
          "| setting | devices | best seen in training | trained | untrained | trained / untrained | placements | moves | ils at that budget |",
          "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        md.append("| %s | %d | %s | %.3f | %.3f | %.3f | %d | %.0f %% / %.0f %% | %.3f |" % (
            r["name"], r["devices"], "%.3f" % r["best_seen"] if r["best_seen"] else "-", r["trained"], r["untrained"],
            r["trained"] / r["untrained"], r["placements"], 100 * r["moves"], 100 * r["untrained_moves"], r["ils"]))
    with lib.open_result("bench/results/placeto_why.md") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))


main()
