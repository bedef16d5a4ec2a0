#!/usr/bin/python3
"""Generalization of the learned agents (the README's "Zero-shot on held-out
family graphs: Placeto and the RNN-based placer"): per family, the bundled
Placeto family policy and the RNN-based placer's family policy, both trained
on the family's graphs 00-23, place each held-out graph 24-31 zero-shot on 2
devices: one greedy placement and the best of 8 sampled ones more (the
simulations each spends: 9 for the RNN placer's one-shot decodes, 9 x G for
Placeto's episodes), next to one device and the best heuristic.

With --train the RNN family policies are trained first (their commands are
in tests/results/rnn_families.json and graphs/policies/train.sh) and written
to graphs/policies/rnn_family_FAMILY.json.

Writes tests/results/rnn_families.{json,md}.

    /usr/bin/python3 bench/rnn_families.py [./placeto] [--train] [--updates U] [--jobs J]
"""
import concurrent.futures
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROG, TRAIN, UPDATES, JOBS = "./placeto", False, 5000, os.cpu_count() or 1
FAMILIES = ["enas-cifar10", "enas-ptb", "nmt"]
HEURISTICS = "single,random,round-robin,expert,m-topo,m-etf,heft,metis,scotch"

args = sys.argv[1:]
if args and not args[0].startswith("--"):
    PROG = args.pop(0)
while args:
    k = args.pop(0)
    if k == "--train":
        TRAIN = True
        continue
    if not args:
        sys.exit("rnn_families.py: %s needs a value" % k)
    v = args.pop(0)
    if k == "--updates":
        UPDATES = int(v)
    elif k == "--jobs":
        JOBS = int(v)
    else:
        sys.exit("rnn_families.py: unknown option %s" % k)


def run(*a):
    r = subprocess.run([PROG] + [str(x) for x in a], cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s %s: %s" % (PROG, " ".join(str(x) for x in a), r.stderr.strip()))
    return r.stdout


def members(f):
    d = os.path.join(ROOT, "graphs/families", f)
    return sorted("graphs/families/%s/%s" % (f, n) for n in os.listdir(d) if n.endswith(".json"))


def train_cmd(f):
    return ["train"] + members(f)[:24] + ["--agent", "rnn", "--devices", 2, "--hidden", 64, "--group-capacity",
                                          200, "--episodes", UPDATES, "--seed", 1, "-o",
                                          "graphs/policies/rnn_family_%s.json" % f]


def train(f):
    summary = json.loads(run(*(train_cmd(f) + ["--json"])).strip().splitlines()[-1])
    return f, summary["seconds"]


def held_out(job):
    f, g = job
    ref = json.loads(run("compare", g, "--devices", 2, "--methods", HEURISTICS, "--no-policy", "--json"))
    heur = min(ref["methods"], key=lambda m: (m["oom"], m["runtime_us"]))
    single = [m for m in ref["methods"] if m["method"] == "single"][0]
    out = {"family": f, "graph": ref["graph"], "groups": ref["groups"], "lower_bound_us": ref["lower_bound_us"],
           "single_us": single["runtime_us"], "best_heuristic": heur["method"], "best_heuristic_us": heur["runtime_us"]}
    for agent, pol in (("placeto", "graphs/policies/family_%s.json" % f),
                       ("rnn", "graphs/policies/rnn_family_%s.json" % f)):
        greedy = json.loads(run("place", g, "--devices", 2, "--policy", pol, "--json"))
        best8 = json.loads(run("place", g, "--devices", 2, "--policy", pol, "--samples", 8, "--json"))
        out[agent] = {"greedy_us": greedy["runtime_us"], "best_of_9_us": best8["runtime_us"],
                      "placements": best8["placements"], "seconds": best8["seconds"]}
    return out


def main():
    seconds = {}
    if TRAIN:
        with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as pool:
            seconds = dict(pool.map(train, FAMILIES))
    jobs = [(f, g) for f in FAMILIES for g in members(f)[24:]]
    with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as pool:
        rows = list(pool.map(held_out, jobs))
    doc = {"updates": UPDATES, "train_seconds": seconds,
           "commands": {f: "placeto " + " ".join(str(x) for x in train_cmd(f)) for f in FAMILIES}, "rows": rows}
    out = os.path.join(ROOT, "tests/results")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "rnn_families.json.tmp"), "w") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    os.replace(os.path.join(out, "rnn_families.json.tmp"), os.path.join(out, "rnn_families.json"))
    md = markdown(rows)
    with open(os.path.join(out, "rnn_families.md.tmp"), "w") as fh:
        fh.write(md)
    os.replace(os.path.join(out, "rnn_families.md.tmp"), os.path.join(out, "rnn_families.md"))
    print(md)


def markdown(rows):
    lines = ["Held-out graphs 24-31 of each family on 2 devices, zero-shot: runtime as a multiple of the lower "
             "bound, the mean over the 8 graphs (lower is better). *greedy*: the policy's one greedy placement; "
             "*best of 9*: that and 8 sampled ones; *placements*: simulations spent per graph (mean).",
             "",
             "| family | one device | best heuristic | Placeto greedy | Placeto best of 9 | placements | "
             "RNN-based greedy | RNN-based best of 9 | placements |",
             "|---|---|---|---|---|---|---|---|---|"]
    for f in FAMILIES:
        rs = [r for r in rows if r["family"] == f]
        m = lambda fn: sum(fn(r) for r in rs) / len(rs)
        x = lambda key: "%.2f" % m(lambda r: r[key] / r["lower_bound_us"])
        a = lambda agent, key: "%.2f" % m(lambda r: r[agent][key] / r["lower_bound_us"])
        p = lambda agent: "%.0f" % m(lambda r: r[agent]["placements"])
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            f, x("single_us"), x("best_heuristic_us"), a("placeto", "greedy_us"), a("placeto", "best_of_9_us"),
            p("placeto"), a("rnn", "greedy_us"), a("rnn", "best_of_9_us"), p("rnn")))
    return "\n".join(lines) + "\n"


main()
