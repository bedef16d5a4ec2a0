#!/usr/bin/python3
"""Generalization of the learned agents (the README's "Zero-shot on held-out
family graphs"): per family, the bundled family policies of Placeto, the
RNN-based placer and GDP (each trained on the family's graphs 00-23) place
each held-out graph 24-31 zero-shot on 2 devices: one greedy placement and
the best of 8 sampled ones more (the simulations each spends: 9 for the
one-shot placers, 9 x G for Placeto's episodes), next to one device and the
best heuristic. An agent whose family policies are missing is left out.

With --train the RNN family policies are trained first (U updates of one
placement), with --train-gdp the GDP ones (3 000 updates of 16 placements
without the superposition, whatever U: the setting bench/gdp_families.py's
validation split chose); the commands are in
bench/results/rnn_families.json and graphs/policies/train.sh; the files are
graphs/policies/rnn_family_FAMILY.json and gdp_family_FAMILY.json.

Writes bench/results/rnn_families.{json,md}.

    /usr/bin/python3 bench/rnn_families.py [./placeto] [--train] [--train-gdp] [--updates U] [--jobs J]
"""
import concurrent.futures
import json
import os
import subprocess
import sys

import lib  # bench/lib.py: write_result, read_result

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROG, TRAIN, UPDATES, JOBS, TRAIN_GDP = "./placeto", False, 5000, os.cpu_count() or 1, False
GDP_UPDATES = 3000
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
    if k == "--train-gdp":
        TRAIN_GDP = True
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


def train_cmd(f, agent="rnn"):
    if agent == "gdp":
        # 3 000 updates of 16 (48 000 placements) without the superposition: the setting a validation
        # split chose (bench/gdp_families.py, docs/results.md); graphs/policies/train.sh's command
        return ["train"] + members(f)[:24] + ["--agent", "gdp", "--devices", 2, "--hidden", 64, "--episodes",
                                              GDP_UPDATES, "--no-superposition", "--seed", 1, "-o",
                                              "graphs/policies/gdp_family_%s.json" % f]
    return ["train"] + members(f)[:24] + ["--agent", "rnn", "--devices", 2, "--hidden", 64, "--group-capacity",
                                          200, "--episodes", UPDATES, "--seed", 1, "-o",
                                          "graphs/policies/rnn_family_%s.json" % f]


def train(job):
    f, agent = job
    summary = json.loads(run(*(train_cmd(f, agent) + ["--json"])).strip().splitlines()[-1])
    return "%s %s" % (agent, f), summary["seconds"]


AGENTS = [("placeto", "graphs/policies/family_%s.json"), ("rnn", "graphs/policies/rnn_family_%s.json"),
          ("gdp", "graphs/policies/gdp_family_%s.json")]


def agents():
    return [(a, p) for a, p in AGENTS if all(os.path.exists(os.path.join(ROOT, p % f)) for f in FAMILIES)]


def held_out(job):
    f, g = job
    ref = json.loads(run("compare", g, "--devices", 2, "--methods", HEURISTICS, "--no-policy", "--json"))
    heur = min(ref["methods"], key=lambda m: (m["oom"], m["runtime_us"]))
    single = [m for m in ref["methods"] if m["method"] == "single"][0]
    out = {"family": f, "graph": ref["graph"], "groups": ref["groups"], "lower_bound_us": ref["lower_bound_us"],
           "single_us": single["runtime_us"], "best_heuristic": heur["method"], "best_heuristic_us": heur["runtime_us"]}
    for agent, pattern in agents():
        pol = pattern % f
        greedy = json.loads(run("place", g, "--devices", 2, "--policy", pol, "--json"))
        best8 = json.loads(run("place", g, "--devices", 2, "--policy", pol, "--samples", 8, "--json"))
        out[agent] = {"greedy_us": greedy["runtime_us"], "best_of_9_us": best8["runtime_us"],
                      "placements": best8["placements"], "seconds": best8["seconds"]}
    return out


def main():
    seconds = {}
    jobs = [(f, "rnn") for f in FAMILIES if TRAIN] + [(f, "gdp") for f in FAMILIES if TRAIN_GDP]
    old = os.path.join(ROOT, "bench/results/rnn_families.json")
    if os.path.exists(old):
        seconds = lib.read_result(old).get("train_seconds", {})
    if jobs:
        with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as pool:
            seconds.update(dict(pool.map(train, jobs)))
    jobs = [(f, g) for f in FAMILIES for g in members(f)[24:]]
    with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as pool:
        rows = list(pool.map(held_out, jobs))
    doc = {"updates": UPDATES, "train_seconds": seconds,
           "commands": {"%s %s" % (a, f): "placeto " + " ".join(str(x) for x in train_cmd(f, a))
                        for f in FAMILIES for a in ("rnn", "gdp")}, "rows": rows}
    out = os.path.join(ROOT, "bench/results")
    os.makedirs(out, exist_ok=True)
    with lib.open_result(os.path.join(out, "rnn_families.json")) as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    md = markdown(rows)
    with lib.open_result(os.path.join(out, "rnn_families.md")) as fh:
        fh.write(md)
    print(md)


def markdown(rows):
    names = {"placeto": "Placeto", "rnn": "RNN-based", "gdp": "GDP"}
    have = [a for a, _ in AGENTS if a in rows[0]]
    lines = ["Held-out graphs 24-31 of each family on 2 devices, zero-shot: runtime as a multiple of the lower "
             "bound, the mean over the 8 graphs (lower is better). *greedy*: the policy's one greedy placement; "
             "*best of 9*: that and 8 sampled ones; *placements*: simulations spent per graph (mean).",
             "",
             "| family | one device | best heuristic |" + "".join(
                 " %s greedy | %s best of 9 | placements |" % (names[a], names[a]) for a in have),
             "|---|---|---|" + "---|---|---|" * len(have)]
    for f in FAMILIES:
        rs = [r for r in rows if r["family"] == f]
        m = lambda fn: sum(fn(r) for r in rs) / len(rs)
        x = lambda key: "%.2f" % m(lambda r: r[key] / r["lower_bound_us"])
        a = lambda agent, key: "%.2f" % m(lambda r: r[agent][key] / r["lower_bound_us"])
        p = lambda agent: "%.0f" % m(lambda r: r[agent]["placements"])
        lines.append("| %s | %s | %s |" % (f, x("single_us"), x("best_heuristic_us")) + "".join(
            " %s | %s | %s |" % (a(ag, "greedy_us"), a(ag, "best_of_9_us"), p(ag)) for ag in have))
    return "\n".join(lines) + "\n"


main()
