#!/usr/bin/python3
"""What makes the Placeto agent learn: one training run per configuration,
each judged four ways, because the best placement any training episode
happened to see is not what the trained policy does:

  best seen      the best placement simulated during training (and after how
                 many placements), the figure the bundled results report;
  greedy         the trained policy run once, greedily, from its default
                 start (the one its file records): what the policy itself
                 has learned;
  best of 8      the trained policy, greedy then 8 sampled episodes;
  refine         the trained policy, greedy then 8 sampled episodes, from the
                 best heuristic's placement (never worse than it).

The configurations, on one graph (default inception_v3, 2 devices): the
paper's reference settings and the variations the earlier study tried
(--paper-variations; their rows without the refine column are in
bench/results/learn_study.json), then the tuned preset with each of its
changes undone one at a time, and what else was tried on top of it. The
same comparison on the other graphs, device counts and two family graphs,
at an equal budget of placements, is bench/agent_budget.py.

Every row is one command (kept in the JSON) and deterministic for its seed.
Writes bench/results/learn_study_configs.{json,md}.

    /usr/bin/python3 bench/learn_study.py [./placeto] [--graph G] [--devices N] [--episodes K] [--jobs J]
                                          [--paper-variations 1] [--only NAME,...]
    /usr/bin/python3 bench/learn_study.py [./placeto] --across 1 [--episodes K] [--jobs J]

--across 1 runs the tuned preset's main ablations (and the tuned preset with
a second seed) on the other graphs and device counts the study covers
(inception_v3 on 4 devices, NASNet and NMT on 2 and 4, a graph of the
enas-ptb and of the nmt family), 150 episodes each unless --episodes says
otherwise; writes bench/results/learn_study_across.{json,md}.

--only runs the configurations whose names contain one of the words given
and keeps the other rows of bench/results/learn_study_configs.json.
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

import lib  # bench/lib.py: write_result, read_result

PROG = "./placeto"
GRAPH, DEVICES, EPISODES, JOBS, VARIATIONS = "graphs/inception_v3.json", 2, 300, os.cpu_count() or 1, False
ONLY = []
ACROSS = False
args = sys.argv[1:]
if args and not args[0].startswith("--"):
    PROG = args.pop(0)
while args:
    k = args.pop(0)
    if not args:
        sys.exit("learn_study.py: %s needs a value" % k)
    v = args.pop(0)
    if k == "--only":
        ONLY = v.split(",")
    elif k == "--paper-variations":
        VARIATIONS = v == "1"
    elif k == "--across":
        ACROSS = v == "1"
        if "--episodes" not in sys.argv:
            EPISODES = 150
    elif k == "--graph":
        GRAPH = v
    elif k == "--devices":
        DEVICES = int(v)
    elif k == "--episodes":
        EPISODES = int(v)
    elif k == "--jobs":
        JOBS = int(v)
    else:
        sys.exit("learn_study.py: unknown option %s" % k)

PAPER = ["--preset", "paper"]
TUNED = ["--preset", "tuned"]
# name, training options (on top of --episodes, --devices, --seed 1)
CONFIGS = [
    ("paper: reference settings (entropy 1)", PAPER),
]
PAPER_VARIATIONS = [
    ("paper, entropy 0.1", PAPER + ["--entropy", "0.1"]),
    ("paper, entropy 0.01", PAPER + ["--entropy", "0.01"]),
    ("paper, entropy 0.001", PAPER + ["--entropy", "0.001"]),
    ("paper, entropy 0.001, decaying to 0", PAPER + ["--entropy", "0.001", "--entropy-decay", str(EPISODES)]),
    ("paper, entropy 0.001, lr 0.0001", PAPER + ["--entropy", "0.001", "--lr", "0.0001"]),
    ("paper, entropy 0.001, lr 0.003", PAPER + ["--entropy", "0.001", "--lr", "0.003"]),
    ("paper, entropy 0.001, normalised advantages", PAPER + ["--entropy", "0.001", "--normalize"]),
    ("paper, entropy 0.001, log-runtime rewards", PAPER + ["--entropy", "0.001", "--reward", "log"]),
    ("paper, entropy 0.001, gamma 0.9", PAPER + ["--entropy", "0.001", "--gamma", "0.9"]),
    ("paper, entropy 0.001, 2 passes", PAPER + ["--entropy", "0.001", "--passes", "2"]),
    ("paper, entropy 0.001, start from the best so far", PAPER + ["--entropy", "0.001", "--init", "best"]),
    ("paper, entropy 0.001, start from heft", PAPER + ["--entropy", "0.001", "--init", "heft"]),
    ("paper, entropy 0.001, start from anneal", PAPER + ["--entropy", "0.001", "--init", "anneal"]),
]
TUNED_CONFIGS = [
    ("paper, entropy 0.001 (the bundled per-graph policies' settings)", PAPER + ["--entropy", "0.001"]),
    ("tuned (the default): extended features, device 0 start, relative rewards, only improving moves kept, "
     "gamma 0, entropy 0.01", TUNED),
    ("tuned, but the paper's features", TUNED + ["--features", "paper"]),
    ("tuned, but the fixed random start", TUNED + ["--init", "random-fixed"]),
    ("tuned, but rewards in seconds", TUNED + ["--reward", "seconds"]),
    ("tuned, but every move kept", TUNED + ["--accept", "all"]),
    ("tuned, but gamma 1", TUNED + ["--gamma", "1"]),
    ("tuned, but entropy 0.1", TUNED + ["--entropy", "0.1"]),
    ("tuned, but entropy 0.001", TUNED + ["--entropy", "0.001"]),
    ("tuned, with normalised advantages", TUNED + ["--normalize"]),
    ("tuned, with a random start per episode", TUNED + ["--init", "random-each"]),
    ("tuned, from the best heuristic (then the best so far)", TUNED + ["--init", "heuristic"]),
    ("tuned, sampling temperature 0.5", TUNED + ["--temperature", "0.5"]),
    ("tuned, sampling temperature 2", TUNED + ["--temperature", "2"]),
    ("tuned, 80 groups", TUNED + ["--groups", "80"]),
    ("tuned, 320 groups", TUNED + ["--groups", "320"]),
]


def run(*a):
    r = subprocess.run([PROG] + list(a), capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s %s: %s" % (PROG, " ".join(a), r.stderr.strip()))
    return r.stdout


def place(graph, devices, *opts):
    return json.loads(run("place", graph, "--devices", str(devices), "--json", *opts))


def study(job):
    name, graph, devices, opts = job
    seed = opts[opts.index("--seed") + 1] if "--seed" in opts else "1"
    opts = [o for i, o in enumerate(opts) if o != "--seed" and (i == 0 or opts[i - 1] != "--seed")]
    with tempfile.TemporaryDirectory() as tmp:
        pol = os.path.join(tmp, "p.json")
        train = ["train", graph, "--devices", str(devices), "--episodes", str(EPISODES), "--seed", seed] + opts
        lines = [json.loads(l) for l in run(*(train + ["-o", pol, "--json"])).splitlines() if l.strip()]
        summary = lines[-1]
        best = summary["graphs"][0]
        grouping = opts[opts.index("--groups"):opts.index("--groups") + 2] if "--groups" in opts else []
        greedy = place(graph, devices, "--policy", pol, *grouping)
        sampled = place(graph, devices, "--policy", pol, "--samples", "8", *grouping)
        refine = place(graph, devices, "--policy", pol, "--samples", "8", "--start", "heuristic", *grouping)
    return {"name": name, "graph": graph, "devices": devices, "command": "placeto " + " ".join(train),
            "best_seen_us": best["best_runtime_us"], "found_after": best["found_after"],
            "placements": summary["placements_simulated"], "greedy_us": greedy["runtime_us"],
            "best_of_8_us": sampled["runtime_us"], "refine_us": refine["runtime_us"],
            "refine_placements": refine["placements"], "seconds": summary["seconds"]}


def reference(graph, devices):
    info = json.loads(run("compare", graph, "--devices", str(devices), "--json", "--budget", "20000",
                          "--no-policy"))
    ref = {m["method"]: m["runtime_us"] for m in info["methods"]}
    return {"graph": info["graph"], "lower_bound_us": info["lower_bound_us"], "single_us": ref["single"],
            "best_heuristic_us": min(v for k, v in ref.items() if k not in ("anneal", "ils")),
            "best_heuristic": min((v, k) for k, v in ref.items() if k not in ("anneal", "ils"))[1],
            "best_search_us": min(ref["anneal"], ref["ils"])}


def write(name, doc, md):
    out = "bench/results"
    os.makedirs(out, exist_ok=True)
    lib.write_result(os.path.join(out, name + ".json"), doc)
    lib.write_result(os.path.join(out, name + ".md"), "\n".join(md) + "\n")
    print("\n".join(md))


def part_configs():
    ref = reference(GRAPH, DEVICES)
    lb = ref["lower_bound_us"]
    configs = CONFIGS + (PAPER_VARIATIONS if VARIATIONS else []) + TUNED_CONFIGS
    old = {}
    if ONLY:  # run the configurations named ONLY, keep the other rows from the last run
        old = {x["name"]: x for x in lib.read_result("bench/results/learn_study_configs.json")["rows"]}
    todo = [(n, GRAPH, DEVICES, o) for n, o in configs if not ONLY or any(w in n for w in ONLY)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as pool:
        fresh = {x["name"]: x for x in pool.map(study, todo)}
    rows = [fresh.get(n) or old[n] for n, _ in configs if n in fresh or n in old]
    r = lambda us: "%.2f" % (us / lb)
    md = ["%s on %d devices, %d episodes, seed 1; runtimes as multiples of the lower bound (%.1f ms). For "
          "reference: single %s, best heuristic (%s) %s, best local search (20 000 placements) %s. *greedy* and "
          "*best of 8* start where the policy was trained from (its file says), *refine* from the best "
          "heuristic." % (ref["graph"], DEVICES, EPISODES, lb / 1000, r(ref["single_us"]), ref["best_heuristic"],
                          r(ref["best_heuristic_us"]), r(ref["best_search_us"])),
          "",
          "| configuration | best seen | found after | greedy policy | best of 8 | refine | training |",
          "|---|---|---|---|---|---|---|"]
    for x in rows:
        md.append("| %s | %s | %d | %s | %s | %s | %.0f s |" % (
            x["name"], r(x["best_seen_us"]), x["found_after"], r(x["greedy_us"]), r(x["best_of_8_us"]),
            r(x["refine_us"]), x["seconds"]))
    write("learn_study_configs", {"graph": GRAPH, "devices": DEVICES, "episodes": EPISODES, "reference": ref,
                                  "rows": rows}, md)


# The main ablations on the other settings (--across 1).
ACROSS_CASES = [("graphs/inception_v3.json", 4), ("graphs/nasnet.json", 2), ("graphs/nasnet.json", 4),
                ("graphs/nmt.json", 2), ("graphs/nmt.json", 4), ("graphs/families/enas-ptb/enas_ptb_00.json", 2),
                ("graphs/families/nmt/nmt_variant_00.json", 2)]
ACROSS_CONFIGS = [
    ("tuned", TUNED),
    ("tuned, seed 2", TUNED + ["--seed", "2"]),
    ("tuned, paper's features", TUNED + ["--features", "paper"]),
    ("tuned, fixed random start", TUNED + ["--init", "random-fixed"]),
    ("tuned, every move kept", TUNED + ["--accept", "all"]),
    ("tuned, gamma 1", TUNED + ["--gamma", "1"]),
    ("paper, entropy 0.001", PAPER + ["--entropy", "0.001"]),
]


def part_across():
    refs = {case: reference(*case) for case in ACROSS_CASES}
    todo = [(n, g, d, o) for g, d in ACROSS_CASES for n, o in ACROSS_CONFIGS]
    with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as pool:
        rows = list(pool.map(study, todo))
    md = ["%d episodes per row; runtimes as multiples of each graph's lower bound. Each cell: best placement "
          "seen in training / the policy's greedy placement from its start / refining the best heuristic "
          "(greedy and 8 samples). *heuristic* is the best non-search heuristic, *search* the better of anneal "
          "and ils with 20 000 placements." % EPISODES, "",
          "| graph | devices | single | heuristic | search | " + " | ".join(n for n, _ in ACROSS_CONFIGS) + " |",
          "|---|---|---|---|---|" + "---|" * len(ACROSS_CONFIGS)]
    for case in ACROSS_CASES:
        ref = refs[case]
        lb = ref["lower_bound_us"]
        r = lambda us: "%.2f" % (us / lb)
        cells = []
        for n, _ in ACROSS_CONFIGS:
            x = next(x for x in rows if x["name"] == n and (x["graph"], x["devices"]) == case)
            cells.append("%s / %s / %s" % (r(x["best_seen_us"]), r(x["greedy_us"]), r(x["refine_us"])))
        md.append("| %s | %d | %s | %s %s | %s | %s |" % (ref["graph"], case[1], r(ref["single_us"]),
                                                         ref["best_heuristic"], r(ref["best_heuristic_us"]),
                                                         r(ref["best_search_us"]), " | ".join(cells)))
    write("learn_study_across", {"episodes": EPISODES, "references": [dict(r, devices=c[1]) for c, r in refs.items()],
                                 "rows": rows}, md)


part_across() if ACROSS else part_configs()
