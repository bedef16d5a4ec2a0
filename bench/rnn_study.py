#!/usr/bin/python3
"""Why the RNN-based placer's greedy decode is one device, and which of its
training settings fixes it (docs/comparators.md, "What makes the RNN placer
place"). For each setting (the head's squash C and temperature tau, samples
per update K, learning rate, the out-of-memory signal), train an RNN policy
of --hidden 64 for U updates (seed 1) on each case, then place with it:
the greedy decode's runtime / lower bound, whether it runs out of memory,
how many devices it uses, and the most probability the squashed head can
give one device, e^C / (e^C + (n - 1) e^-C); beside it the best placement
seen in training.
The untrained network (--episodes 0 is not a run: 1 update at --lr 0) is
the first row of each case.

    PLACETO_KERNELS=plain /usr/bin/python3 bench/rnn_study.py [./placeto] [--updates U]
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

PROG, OPT = benchargs.options("rnn_study.py", ["updates", "cases", "settings"])
UPDATES = int(OPT.get("updates", 1000))
CASES = [(c.rsplit("/", 1)[0], int(c.rsplit("/", 1)[1])) for c in OPT.get("cases", "inception_v3/2,nmt/2,nasnet/4").split(",")]
# name: (options, what it is)
SETTINGS = [
    ("untrained", ["--lr", "0", "--episodes", "1"], "the network before any update (C = tau = 1)"),
    ("code", [], "the public code's values: C = tau = 1, K = 1, lr 0.1, graded OOM"),
    ("code-failing", ["--oom", "faithful"], "the same with the failing signal (an OOM sample costs 100 s)"),
    ("lr0.01", ["--lr", "0.01"], "C = tau = 1, lr 0.01"),
    ("K4", ["--samples-per-update", "4"], "C = tau = 1, 4 samples per update"),
    ("C2.5", ["--squash", "2.5"], "C = 2.5, tau = 1"),
    ("C5", ["--squash", "5"], "C = 5, tau = 1"),
    ("C5-tau5", ["--squash", "5", "--temperature", "5"], "C = 5, tau = 5"),
    ("C2.5-tau5", ["--squash", "2.5", "--temperature", "5"], "C = 2.5, tau = 5 (ENAS's controller)"),
    ("C5-K4", ["--squash", "5", "--samples-per-update", "4"], "C = 5, tau = 1, 4 samples per update"),
    ("C5-failing", ["--squash", "5", "--oom", "faithful"], "C = 5, tau = 1, the failing signal"),
    ("C5-lr0.01", ["--squash", "5", "--lr", "0.01"], "C = 5, tau = 1, lr 0.01"),
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
        ups = UPDATES if "--episodes" not in opts else None
        cmd = ["train", graph, "--agent", "rnn", "--devices", d, "--hidden", 64, "--seed", 1, "-o", pol,
               "--checkpoint-every", 1 << 30, "--json"] + (["--episodes", ups] if ups else []) + opts
        summary = json.loads(run(*cmd).strip().splitlines()[-1])
        placed = json.loads(run("place", graph, "--policy", pol, "--devices", d, "--json"))
    devs = set(placed["placement"]["ops"].values())
    return j, {"greedy_us": placed["runtime_us"], "oom": placed["oom"], "devices_used": len(devs),
               "best_us": summary["best_runtime_us"], "updates": summary["episodes"],
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
            C = float(s[1][s[1].index("--squash") + 1]) if "--squash" in s[1] else 1.0
            r["cap"] = math.exp(C) / (math.exp(C) + (c[1] - 1) * math.exp(-C))
            rows.append(r)
    doc = {"updates": UPDATES, "kernels": os.environ.get("PLACETO_KERNELS", ""), "rows": rows}
    os.makedirs("bench/results", exist_ok=True)
    with open("bench/results/rnn_study.json", "w") as f:
        json.dump(doc, f, indent=1)
    md = ["RNN-based placer, %d updates (h = 64, seed 1): the greedy decode and the best placement seen in "
          "training, runtime / lower bound; cap: the most probability the head can give a device." % UPDATES,
          "", "| case | setting | greedy | OOM | devices used | cap | best in training |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        md.append("| %s/%d | %s | %.3f | %s | %d | %s | %.3f |" % (
            r["graph"], r["devices"], r["setting"], r["greedy"], "yes" if r["oom"] else "no", r["devices_used"],
            "%.4f" % r["cap"], r["best"]))
    md += ["", "Settings:", ""] + ["- `%s`: %s (`%s`)" % (s[0], s[2], " ".join(s[1]) or "defaults") for s in SETTINGS]
    with open("bench/results/rnn_study.md", "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))


main()
