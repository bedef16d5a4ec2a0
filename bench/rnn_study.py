#!/usr/bin/python3
"""Why the RNN-based placer's greedy decode is one device, and which of its
training settings fixes it (docs/comparators.md, "What makes the RNN placer
place"). For each setting (the head's squash C and temperature tau, samples
per update K, learning rate, the baseline, the out-of-memory signal), train
an RNN policy of --hidden 64 (seed 1) with about B placements simulated on
each case, then place with it:
the greedy decode's runtime / lower bound, whether it runs out of memory,
how many devices it uses, and the most probability the squashed head can
give one device, e^C / (e^C + (n - 1) e^-C); beside it the best placement
seen in training.
The untrained network (one update at --lr 0: its weights do not move) is
the first row of each case.

    PLACETO_KERNELS=plain /usr/bin/python3 bench/rnn_study.py [./placeto] [--budget B]
        [--cases inception_v3/2,nmt/2,nasnet/4] [--settings NAME,...]

Writes bench/results/rnn_study.{json,md}.
"""
import concurrent.futures
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchargs  # noqa: E402

import lib  # bench/lib.py: write_result, read_result

PROG, OPT = benchargs.options("rnn_study.py", ["budget", "cases", "settings"])
BUDGET = int(OPT.get("budget", 2000))
CASES = [(c.rsplit("/", 1)[0], int(c.rsplit("/", 1)[1])) for c in OPT.get("cases", "inception_v3/2,nmt/2,nasnet/4").split(",")]
# name: (options, what it is)
SETTINGS = [
    ("untrained", ["--preset", "paper", "--lr", "0"], "the network before any update (C = tau = 1)"),
    ("code", ["--preset", "paper"], "the public code's values: C = tau = 1, K = 1, lr 0.1, moving-average baseline, "
     "graded OOM"),
    ("code-failing", ["--preset", "paper", "--oom", "faithful"],
     "the same with the failing signal (an OOM sample costs 100 s)"),
    ("C5", ["--preset", "paper", "--squash", "5"], "C = 5 (tau = 1), otherwise the code's"),
    ("C5-lr0.001", ["--preset", "paper", "--squash", "5", "--lr", "0.001"], "C = 5, lr 0.001"),
    ("K16-lr0.001", ["--preset", "paper", "--squash", "5", "--lr", "0.001", "--samples-per-update", "16"],
     "C = 5, lr 0.001, 16 samples per update, moving-average baseline"),
    ("batch-C1", ["--preset", "paper", "--lr", "0.001", "--samples-per-update", "16", "--baseline", "batch"],
     "C = 1, lr 0.001, 16 samples per update, advantages normalised within the update"),
    ("batch-C5", [], "C = 5, lr 0.001, 16 samples per update, advantages normalised within the update: the "
     "tuned defaults"),
    ("batch-C5-failing", ["--oom", "faithful"], "the same with the failing signal"),
]
if "settings" in OPT:
    keep = OPT["settings"].split(",")
    SETTINGS = [s for s in SETTINGS if s[0] in keep]


def run(*a):
    r = subprocess.run([PROG] + [str(x) for x in a], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s %s: %s" % (PROG, " ".join(str(x) for x in a), r.stderr.strip()))
    return r.stdout


def job(j):
    (g, d), si = j
    name, opts, _ = SETTINGS[si]
    graph = "graphs/%s.json" % g
    with tempfile.TemporaryDirectory() as tmp:
        pol = os.path.join(tmp, "p.json")
        k = int(opts[opts.index("--samples-per-update") + 1]) if "--samples-per-update" in opts else 1
        # updates of K samples and a greedy decode every 50 updates, about BUDGET placements; the control: one
        # update at lr 0 (its weights do not move)
        ups = 1 if name == "untrained" else max(1, round(BUDGET / (k + 1 / 50)))
        cmd = ["train", graph, "--agent", "rnn", "--devices", d, "--hidden", 64, "--seed", 1, "-o", pol,
               "--checkpoint-every", 1 << 30, "--episodes", ups, "--json"] + opts
        summary = json.loads(run(*cmd).strip().splitlines()[-1])
        placed = json.loads(run("place", graph, "--policy", pol, "--devices", d, "--json"))
    devs = set(placed["placement"]["ops"].values())
    return j, {"greedy_us": placed["runtime_us"], "oom": placed["oom"], "devices_used": len(devs),
               "best_us": summary["best_runtime_us"], "updates": summary["episodes"],
               "placements": summary["placements_simulated"],
               "command": "placeto " + " ".join(str(x) for x in cmd[:-1])}


def main():
    lb = {}
    for g, d in CASES:
        lb[(g, d)] = json.loads(run("compare", "graphs/%s.json" % g, "--devices", d, "--methods", "single,heft",
                                    "--json"))["lower_bound_us"]
    jobs = [(c, i) for c in CASES for i in range(len(SETTINGS))]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as ex:
        res = dict(ex.map(job, jobs))
    rows = []
    for c in CASES:
        for i, s in enumerate(SETTINGS):
            r = dict(res[(c, i)], graph=c[0], devices=c[1], setting=s[0], what=s[2])
            r["greedy"] = r["greedy_us"] / lb[c]
            r["best"] = r["best_us"] / lb[c]
            C = float(s[1][s[1].index("--squash") + 1]) if "--squash" in s[1] else 1.0 if "paper" in s[1] else 5.0
            r["cap"] = math.exp(C) / (math.exp(C) + (c[1] - 1) * math.exp(-C))
            rows.append(r)
    doc = {"budget": BUDGET, "kernels": os.environ.get("PLACETO_KERNELS", ""), "rows": rows}
    os.makedirs("bench/results", exist_ok=True)
    with lib.open_result("bench/results/rnn_study.json") as f:
        json.dump(doc, f, indent=1)
    md = ["RNN-based placer trained with about %d placements simulated (h = 64, seed 1): the greedy decode and the "
          "best placement seen in training, runtime / lower bound; cap: the most probability the head can give a "
          "device." % BUDGET,
          "", "| case | setting | greedy | OOM | devices used | cap | best in training |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        md.append("| %s/%d | %s | %.3f | %s | %d | %s | %.3f |" % (
            r["graph"], r["devices"], r["setting"], r["greedy"], "yes" if r["oom"] else "no", r["devices_used"],
            "%.4f" % r["cap"], r["best"]))
    md += ["", "Settings:", ""] + ["- `%s`: %s (`%s`)" % (s[0], s[2], " ".join(s[1]) or "defaults") for s in SETTINGS]
    with lib.open_result("bench/results/rnn_study.md") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))


main()
