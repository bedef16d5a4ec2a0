#!/usr/bin/python3
"""HSDAG's table on this project's simulator (the README's "Results: HSDAG,
learned grouping, on CPU + GPU inference"): for the inference graphs of
inception_v3, resnet50 and BERT-base on one CPU and one GPU
(graphs/clusters/cpu_gpu1.json), CPU-only, GPU-only, the best heuristic,
Placeto, the RNN-based placer and HSDAG, the three agents trained from
scratch with the same budget of placements simulated, over SEEDS seeds.
Per agent: the best runtime found (mean over the seeds, and the best
seed's), the latency reduction over CPU-only (the paper's measure:
1 - runtime / CPU-only), the placements simulated when the best was first
found, and the wall time. HSDAG is also read at 500 placements (its own
setting: 25 episodes of 20 steps).

Then the feature ablation: HSDAG with each feature family left out
(type, shape, id, struct), with the cost family added (parity), with the
moving-average baseline and with one-device placements allowed, same
budget and seeds.

Writes bench/results/hsdag.{json,md}.

    /usr/bin/python3 bench/hsdag_table.py [./placeto] [--budget N] [--seeds S] [--jobs J] [--only GRAPH]
                                          [--cluster FILE] [--tag NAME] [--no-ablation] [--keep]
    /usr/bin/python3 bench/hsdag_table.py [./placeto] --sweep B1,B2,... [--seeds S] [--jobs J] [--only GRAPH]
    /usr/bin/python3 bench/hsdag_table.py [./placeto] --add-variant NAME | --refresh-refs [--jobs J]

--keep writes the first seed's HSDAG policies of the "ema baseline" variant to
graphs/policies/hsdag_GRAPH.json (the bundled ones; with --no-ablation that
variant still runs, for its first seed only).
--add-variant NAME runs one more variant (by its name in VARIANTS, or
"placeto NAME" for PLACETO_VARIANTS) on every graph and seed of
bench/results/hsdag.json and adds its runs there (replacing its old ones).
--refresh-refs recomputes the reference columns of bench/results/hsdag.json
(CPU-only, GPU-only, the best heuristic) and keeps its training runs.
--sweep B1,B2,... trains Placeto, HSDAG and HSDAG with the moving-average
baseline at each budget (SEEDS seeds) against the best heuristic at that
budget, into bench/results/hsdag_budget.{json,md} (hsdag_budget_GRAPH with
--only, hsdag_budget_TAG with --tag). The local searches (anneal,
ils) get the agents' budget of placements simulated, as the agents do.
"""
import concurrent.futures
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

import lib  # bench/lib.py: write_result, read_result

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROG, BUDGET, SEEDS, JOBS, ONLY, TAG, ABLATION, KEEP = "./placeto", 5000, 3, os.cpu_count() or 1, None, None, True, False
CLUSTER = "graphs/clusters/cpu_gpu1.json"
ADD_VARIANT = None
REFRESH = False
SWEEP = None
KEEP_VARIANT = "ema baseline"  # the bundled policies' (the faithful recipe's can end all on the CPU)
GRAPHS = ["inception_v3", "resnet50", "bert_base"]
HSDAG_STEPS, HSDAG_GREEDY, RNN_GREEDY, RNN_HIDDEN = 20, 5, 50, 64
FAMILIES = ["type", "shape", "id", "struct"]
FAITHFUL = "type,shape,id,struct"
# (name, --features, other options): the faithful method, each feature family left out, the cost family
# added, and the two variants of the training recipe
VARIANTS = [("faithful", FAITHFUL, "")] + \
           [("no " + f, ",".join(x for x in FAMILIES if x != f), "") for f in FAMILIES] + \
           [("parity (+cost)", FAITHFUL + ",cost", ""), ("ema baseline", FAITHFUL, "--baseline ema"),
            ("one device allowed", FAITHFUL, "--allow-single"),
            ("no learned grouping", FAITHFUL, "--min-clusters 1000000"),
            ("chain coarsening", FAITHFUL, "--groups chains"),
            ("untrained control", FAITHFUL, "--lr 0")]
# Placeto's runs: its defaults (every episode starts with everything on device 0, the CPU here), every
# episode starting from everything on the fastest device, the GPU-only placement (--init single), and the
# untrained control (the same network never updated: --lr 0). HSDAG's "untrained control" likewise.
PLACETO_VARIANTS = [("defaults", ""), ("from GPU-only", "--init single"), ("untrained control", "--lr 0")]

args = sys.argv[1:]
if args and not args[0].startswith("--"):
    PROG = args.pop(0)
while args:
    k = args.pop(0)
    if k == "--no-ablation":
        ABLATION = False
        continue
    if k == "--keep":
        KEEP = True
        continue
    if k == "--refresh-refs":
        REFRESH = True
        continue
    if not args:
        sys.exit("hsdag_table.py: %s needs a value" % k)
    v = args.pop(0)
    if k == "--add-variant":
        ADD_VARIANT = v
    elif k == "--budget":
        BUDGET = int(v)
    elif k == "--seeds":
        SEEDS = int(v)
    elif k == "--jobs":
        JOBS = int(v)
    elif k == "--only":
        ONLY = v
    elif k == "--cluster":
        CLUSTER = v
    elif k == "--tag":
        TAG = v
    elif k == "--sweep":
        SWEEP = [int(x) for x in v.split(",")]
    else:
        sys.exit("hsdag_table.py: unknown option %s" % k)
if ONLY:
    GRAPHS = [ONLY]
if SWEEP and KEEP:
    sys.exit("hsdag_table.py: --keep writes the bundled policies of the main table, not of --sweep")


def run(*a):
    r = subprocess.run([PROG] + [str(x) for x in a], cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s %s: %s" % (PROG, " ".join(str(x) for x in a), r.stderr.strip()))
    return r.stdout


def best_within(points, budget):
    """The best runtime among the curve's points up to `budget` placements."""
    v = [us for p, us in points if p <= budget]
    return min(v) if v else None


def train(job):
    """One agent (or HSDAG variant) trained on one graph for about BUDGET placements."""
    g, agent, groups, seed, variant = job[:5]
    budget = job[5] if len(job) > 5 else BUDGET
    graph = "graphs/inference/%s.json" % g
    tmp = tempfile.mkdtemp()
    curve = os.path.join(tmp, "c.csv")
    pol = os.path.join(tmp, "p.json")
    if agent == "hsdag":
        # an update simulates HSDAG_STEPS placements, plus a greedy one every HSDAG_GREEDY updates
        updates = max(1, budget * HSDAG_GREEDY // (HSDAG_STEPS * HSDAG_GREEDY + 1))
        _, feats, extra = VARIANTS[variant]
        if KEEP and seed == 1 and VARIANTS[variant][0] == KEEP_VARIANT:
            pol = "graphs/policies/hsdag_%s.json" % g
        cmd = ["train", graph, "--agent", "hsdag", "--cluster", CLUSTER, "--episodes", updates, "--features", feats,
               "--greedy-every", HSDAG_GREEDY, "--seed", seed, "-o", pol] + extra.split()
    elif agent == "rnn":
        updates = budget * RNN_GREEDY // (RNN_GREEDY + 1)
        cmd = ["train", graph, "--agent", "rnn", "--cluster", CLUSTER, "--hidden", RNN_HIDDEN, "--episodes", updates,
               "--greedy-every", RNN_GREEDY, "--seed", seed, "-o", pol]
    else:
        cmd = ["train", graph, "--cluster", CLUSTER, "--episodes", max(1, budget // groups), "--seed", seed,
               "-o", pol] + PLACETO_VARIANTS[variant][1].split()
    summary = json.loads(run(*(cmd + ["--curve", curve, "--json"])).strip().splitlines()[-1])
    with open(curve) as f:
        rows = list(csv.DictReader(f))
    points = [(int(r["placements_simulated"]), float(r["best_runtime_us"])) for r in rows]
    best = min(p[1] for p in points)
    found = next(p for p, us in points if us <= best)
    shutil.rmtree(tmp)
    shown = ["placeto"] + [str(x) for x in cmd]
    if not pol.startswith("graphs/"):
        shown[shown.index("-o") + 1] = "POLICY.json"
    return {"graph": g, "agent": agent, "seed": seed, "variant": variant, "budget": budget,
            "command": " ".join(shown), "best_us": best,
            "found_after": found, "at500_us": best_within(points, 500), "placements": summary["placements_simulated"],
            "seconds": summary["seconds"]}


def compare(g, budget=None):
    """Every heuristic on graph g, the local searches (anneal, ils) with the agents' budget of placements."""
    return json.loads(run("compare", "graphs/inference/%s.json" % g, "--cluster", CLUSTER, "--budget",
                          budget or BUDGET, "--no-policy", "--json"))


def sweep():
    """--sweep B1,B2,...: Placeto, HSDAG and HSDAG with the moving-average baseline at each budget (the RNN
    placer, 45 s per 5 000 placements, is left out), against the best heuristic with the same budget."""
    ema = [v[0] for v in VARIANTS].index("ema baseline")
    with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as pool:
        refs = {(g, b): r for (g, b), r in zip([(g, b) for g in GRAPHS for b in SWEEP],
                                                pool.map(lambda x: compare(*x), [(g, b) for g in GRAPHS for b in SWEEP]))}
        groups = {g: refs[(g, SWEEP[0])]["groups"] for g in GRAPHS}
        jobs = [(g, a, groups[g], s, v, b) for b in SWEEP for g in GRAPHS for s in range(1, SEEDS + 1)
                for a, v in (("placeto", 0), ("hsdag", 0), ("hsdag", ema))]
        trains = list(pool.map(train, sorted(jobs, key=lambda j: -j[5])))  # the longest first
    rows = []
    for g in GRAPHS:
        for b in SWEEP:
            row = dict(ref_fields(refs[(g, b)]), path=g, budget=b)
            row["runs"] = [t for t in trains if t["graph"] == g and t["budget"] == b]
            rows.append(row)
    doc = {"budgets": SWEEP, "seeds": SEEDS, "cluster": CLUSTER, "rows": rows, "variants": [list(v) for v in VARIANTS]}
    name = "hsdag_budget" + ("_" + TAG if TAG else "_" + ONLY if ONLY else "")
    write(os.path.join(ROOT, "bench/results", name + ".json"), json.dumps(doc, indent=1) + "\n")
    ms = lambda us: "%.2f" % (us / 1e3)
    lines = ["Simulated inference latency in ms on %s by budget of placements simulated, %d seeds: the mean over "
             "the seeds of the best placement found, then the best seed's; the best heuristic with the same budget "
             "for its local searches." % (CLUSTER, SEEDS), "",
             "| graph | budget | GPU-only | best heuristic | Placeto: mean, best | HSDAG: mean, best "
             "| HSDAG, ema baseline: mean, best | HSDAG time |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        def cell(rs):
            return "%s, %s" % (ms(mean([t["best_us"] for t in rs])), ms(min(t["best_us"] for t in rs)))
        lines.append("| %s | %s | %s | %s %s | %s | %s | %s | %.0f s |" % (
            r["graph"], "{:,}".format(r["budget"]).replace(",", " "), ms(r["gpu_only_us"]), r["best_heuristic"],
            ms(r["best_heuristic_us"]), cell(runs_of(r, "placeto")), cell(runs_of(r, "hsdag", 0)),
            cell(runs_of(r, "hsdag", ema)), mean([t["seconds"] for t in runs_of(r, "hsdag", 0)])))
    md = "\n".join(lines) + "\n"
    write(os.path.join(ROOT, "bench/results", name + ".md"), md)
    print(md)


def ref_fields(ref):
    """A table row's reference fields from compare's output: CPU-only and GPU-only (everything on the
    cluster's CPU, on its GPU), the best heuristic and every method's runtime."""
    m = {x["method"]: x for x in ref["methods"]}
    cpu, gpu = m["cpu-only"], m["gpu-only"]
    ok = [x for x in ref["methods"] if not x["oom"] and x["method"] not in ("cpu-only", "gpu-only")]
    heur = min(ok, key=lambda x: x["runtime_us"])
    return {"graph": ref["graph"], "groups": ref["groups"], "lower_bound_us": ref["lower_bound_us"],
            "cpu_only_us": cpu["runtime_us"], "gpu_only_us": gpu["runtime_us"], "gpu_only_oom": gpu["oom"],
            "best_heuristic": heur["method"], "best_heuristic_us": heur["runtime_us"],
            "methods": {x["method"]: x["runtime_us"] for x in ref["methods"]}}


def refresh_refs():
    """--refresh-refs: the reference columns of bench/results/hsdag.json again (compare at the file's
    budget), keeping its training runs."""
    path = os.path.join(ROOT, "bench/results/hsdag.json")
    doc = lib.read_result(path)
    global BUDGET, CLUSTER
    BUDGET, CLUSTER = doc["budget"], doc["cluster"]
    for r in doc["rows"]:
        r.update(ref_fields(compare(r["path"])))
    write(path, json.dumps(doc, indent=1) + "\n")
    md = markdown(doc)
    write(os.path.join(ROOT, "bench/results/hsdag.md"), md)
    print(md)


def main():
    with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as pool:
        refs = list(pool.map(compare, GRAPHS))
        groups = {g: r["groups"] for g, r in zip(GRAPHS, refs)}
        jobs = [(g, "rnn", groups[g], s, 0) for g in GRAPHS for s in range(1, SEEDS + 1)]
        jobs += [(g, "hsdag", groups[g], s, v) for g in GRAPHS for s in range(1, SEEDS + 1)
                 for v in range(len(VARIANTS) if ABLATION else 1)]
        if KEEP and not ABLATION:
            keep = [v[0] for v in VARIANTS].index(KEEP_VARIANT)
            jobs += [(g, "hsdag", groups[g], 1, keep) for g in GRAPHS]
        jobs += [(g, "placeto", groups[g], s, v) for g in GRAPHS for s in range(1, SEEDS + 1)
                 for v in range(len(PLACETO_VARIANTS))]
        trains = list(pool.map(train, jobs))
    rows = []
    for g, ref in zip(GRAPHS, refs):
        row = dict(ref_fields(ref), path=g)
        # without the ablation, the kept variant's runs only wrote the policies
        row["runs"] = [t for t in trains if t["graph"] == g and (ABLATION or t["variant"] == 0)]
        rows.append(row)
    doc = {"budget": BUDGET, "seeds": SEEDS, "cluster": CLUSTER, "rows": rows,
           "variants": [list(v) for v in VARIANTS], "placeto_variants": [list(v) for v in PLACETO_VARIANTS]}
    out = os.path.join(ROOT, "bench/results")
    os.makedirs(out, exist_ok=True)
    name = "hsdag_" + TAG if TAG else "hsdag" if not ONLY else "hsdag_" + ONLY
    write(os.path.join(out, name + ".json"), json.dumps(doc, indent=1) + "\n")
    md = markdown(doc)
    write(os.path.join(out, name + ".md"), md)
    print(md)


def add_variant():
    path = os.path.join(ROOT, "bench/results/hsdag.json")
    doc = lib.read_result(path)
    global BUDGET, CLUSTER
    BUDGET, CLUSTER = doc["budget"], doc["cluster"]
    names = [v[0] for v in VARIANTS] + ["placeto " + v[0] for v in PLACETO_VARIANTS]
    if ADD_VARIANT not in names:
        sys.exit("hsdag_table.py: --add-variant: expected one of %s" % ", ".join(names))
    agent, v = ("hsdag", names.index(ADD_VARIANT)) if names.index(ADD_VARIANT) < len(VARIANTS) else \
        ("placeto", names.index(ADD_VARIANT) - len(VARIANTS))
    doc["variants"] = [list(x) for x in VARIANTS]
    doc["placeto_variants"] = [list(x) for x in PLACETO_VARIANTS]
    jobs = [(r["path"], agent, r["groups"], s, v) for r in doc["rows"] for s in range(1, doc["seeds"] + 1)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as pool:
        done = list(pool.map(train, jobs))
    for r in doc["rows"]:
        r["runs"] = [t for t in r["runs"] if not (t["agent"] == agent and t["variant"] == v)]
        r["runs"] += [t for t in done if t["graph"] == r["path"]]
    write(path, json.dumps(doc, indent=1) + "\n")
    md = markdown(doc)
    write(os.path.join(ROOT, "bench/results/hsdag.md"), md)
    print(md)


def write(path, text):
    lib.write_result(path, json.loads(text) if path.endswith(".json") else text)


def runs_of(row, agent, variant=0):
    """The runs of an agent (hsdag and placeto: of one of their variants)."""
    return [t for t in row["runs"] if t["agent"] == agent and (agent == "rnn" or t["variant"] == variant)]


def mean(v):
    v = [x for x in v if x is not None]
    return sum(v) / len(v) if v else None


def markdown(doc):
    b = "{:,}".format(doc["budget"]).replace(",", " ")
    lines = ["Simulated inference latency in ms on %s; lower is better. *reduction* is 1 − latency / CPU-only "
             "(the paper's measure). Each agent trains from scratch with the same budget, %s placements simulated, "
             "%d seeds: *mean* is the mean over the seeds of the best placement found, *best* the best seed's, "
             "*found* the placements simulated when the best seed's best was first found, *time* the mean wall time "
             "of a training run on one core. *best heuristic* is the best of every method of `compare`, the local "
             "searches (anneal, ils) given the same budget. HSDAG at 500 placements is its own setting (25 episodes "
             "of 20 steps)." % (doc["cluster"], b, doc["seeds"]), "",
             "| graph | groups | CPU-only | GPU-only | best heuristic | Placeto: mean, best (reduction), found, time "
             "| RNN-based: mean, best (reduction), found, time | HSDAG: mean, best (reduction), found, time "
             "| HSDAG at 500 |",
             "|---|---|---|---|---|---|---|---|---|"]
    gpu_start = any(runs_of(r, "placeto", 1) for r in doc["rows"])
    if gpu_start:
        lines[0] += (" *Placeto from GPU-only* starts every episode from everything on the GPU (`--init single`) "
                     "instead of its default, everything on device 0 (the CPU).")
        lines[2] = lines[2].replace("| RNN-based", "| Placeto from GPU-only: mean, best (reduction), found, time "
                                    "| RNN-based")
        lines[3] += "---|"
    ms = lambda us: "%.2f" % (us / 1e3)
    n = lambda v: "{:,}".format(v).replace(",", " ")
    for r in doc["rows"]:
        cpu = r["cpu_only_us"]
        red = lambda us: "%.1f %%" % (100 * (1 - us / cpu))

        def cell(rs):
            if not rs:
                return "–"
            best = min(rs, key=lambda t: t["best_us"])
            return "%s, %s (%s), %s, %.0f s" % (ms(mean([t["best_us"] for t in rs])), ms(best["best_us"]),
                                                red(best["best_us"]), n(best["found_after"]),
                                                mean([t["seconds"] for t in rs]))
        h500 = mean([t["at500_us"] for t in runs_of(r, "hsdag")])
        lines.append("| %s | %d | %s | %s%s (%s) | %s %s (%s) | %s | %s%s | %s | %s |" % (
            r["graph"], r["groups"], ms(cpu), ms(r["gpu_only_us"]), " OOM" if r["gpu_only_oom"] else "",
            red(r["gpu_only_us"]), r["best_heuristic"], ms(r["best_heuristic_us"]), red(r["best_heuristic_us"]),
            cell(runs_of(r, "placeto")), cell(runs_of(r, "placeto", 1)) + " | " if gpu_start else "",
            cell(runs_of(r, "rnn")), cell(runs_of(r, "hsdag")),
            "–" if h500 is None else "%s (%s)" % (ms(h500), red(h500))))
    variants = [i for i in range(len(doc["variants"])) if any(runs_of(r, "hsdag", i) for r in doc["rows"])]
    if len(variants) > 1:
        lines += ["", "Feature ablation and variants: HSDAG's mean best latency in ms over the seeds (same budget), "
                  "and its change against the faithful method (features type, shape, id, struct; no baseline; "
                  "one-device placements forbidden).", "",
                  "| graph | " + " | ".join(doc["variants"][i][0] for i in variants) + " |",
                  "|---|" + "---|" * len(variants)]
        for r in doc["rows"]:
            base = mean([t["best_us"] for t in runs_of(r, "hsdag", 0)])
            cells = []
            for i in variants:
                m = mean([t["best_us"] for t in runs_of(r, "hsdag", i)])
                cells.append(ms(m) if i == 0 else "%s (%+.1f %%)" % (ms(m), 100 * (m / base - 1)))
            lines.append("| %s | %s |" % (r["graph"], " | ".join(cells)))
    controls = [(agent, v, names.index("untrained control")) for agent, names in
                (("placeto", [x[0] for x in doc.get("placeto_variants", [])]), ("hsdag", [x[0] for x in doc["variants"]]))
                if "untrained control" in names for v in (0,)]
    if controls and all(runs_of(r, a, c) for r in doc["rows"] for a, _, c in controls):
        lines += ["", "Each agent against its untrained control: the same network never updated (`--lr 0`), trained "
                  "with the same budget and seeds, so that it samples as many placements from its initial weights; "
                  "mean best latency in ms over the seeds, trained / untrained (< 1: training helped).", "",
                  "| graph | " + " | ".join("%s: trained, untrained, ratio" % a for a, _, _ in controls) + " |",
                  "|---|" + "---|" * len(controls)]
        for r in doc["rows"]:
            cells = []
            for a, v, c in controls:
                t, u = mean([x["best_us"] for x in runs_of(r, a, v)]), mean([x["best_us"] for x in runs_of(r, a, c)])
                cells.append("%s, %s, %.3f" % (ms(t), ms(u), t / u))
            lines.append("| %s | %s |" % (r["graph"], " | ".join(cells)))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    add_variant() if ADD_VARIANT else refresh_refs() if REFRESH else sweep() if SWEEP else main()
