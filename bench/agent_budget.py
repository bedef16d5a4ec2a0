#!/usr/bin/python3
"""Placeto against what a user would pick instead, at the same budget of
placements simulated (the README's "Results: the Placeto agent"):

per graph and device count, the lower bound, one device, the best
heuristic, the local searches anneal and ils with BUDGET placements, Placeto
trained from scratch (the tuned defaults, from device 0) and Placeto
refining (the same, from the best heuristic's placement: --init heuristic)
and the paper's settings (--preset paper --entropy 0.001, as the bundled
per-graph policies),
each trained for the episodes that simulate about BUDGET placements. For
each: the best runtime within the budget, the placements it took to come
within 1 % of that best, and the wall time; for the policies also their own
placement (greedy from their start, then the best of 8 samples more), so
that the best placement training happened to see is not taken for what the
policy does.

The searches' "placements to within 1 %" come from runs with budgets of
1 000, 2 000, 5 000, 10 000, 20 000 and BUDGET (each run is deterministic
and independent; the smallest that reaches within 1 % of the BUDGET run's
result is reported). The policies' come from their learning curve.

Writes bench/results/agent_budget.{json,md} and, with gnuplot,
screenshots/learning_inception_v3.png (best runtime by placements simulated
on inception_v3, 2 devices, Placeto against anneal and ils).

    /usr/bin/python3 bench/agent_budget.py [./placeto] [--budget N] [--jobs J] [--only GRAPH:D]
    /usr/bin/python3 bench/agent_budget.py [./placeto] --long N [--jobs J]

--long N runs anneal and ils once more with N placements (200 000 in the
README) on every case and adds that column to the last run's table.
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
PROG, BUDGET, JOBS, ONLY, LONG = "./placeto", 50000, os.cpu_count() or 1, None, None
CASES = [("inception_v3", 2), ("inception_v3", 4), ("nasnet", 2), ("nasnet", 4), ("nmt", 2), ("nmt", 4),
         ("families/enas-ptb/enas_ptb_00", 2), ("families/nmt/nmt_variant_00", 2)]
MODES = ("paper", "scratch", "refine")
LADDER = [1000, 2000, 5000, 10000, 20000]
HEURISTICS = "single,random,round-robin,expert,m-topo,m-etf,heft,metis,scotch"
CURVE_GRAPH = ("inception_v3", 2)

args = sys.argv[1:]
if args and not args[0].startswith("--"):
    PROG = args.pop(0)
while args:
    k = args.pop(0)
    if not args:
        sys.exit("agent_budget.py: %s needs a value" % k)
    v = args.pop(0)
    if k == "--budget":
        BUDGET = int(v)
    elif k == "--jobs":
        JOBS = int(v)
    elif k == "--long":
        LONG = int(v)
    elif k == "--only":
        g, d = v.split(":")
        ONLY = (g, int(d))
    else:
        sys.exit("agent_budget.py: unknown option %s" % k)
if ONLY:
    CASES = [ONLY]


def run(*a):
    r = subprocess.run([PROG] + [str(x) for x in a], cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s %s: %s" % (PROG, " ".join(str(x) for x in a), r.stderr.strip()))
    return r.stdout


def place_json(*a):
    return json.loads(run("place", *a, "--json"))


def search(job):
    """One local search at one budget."""
    g, d, method, budget = job
    r = place_json("graphs/%s.json" % g, "--devices", d, "--method", method, "--budget", budget)
    return {"graph": g, "devices": d, "method": method, "budget": budget, "runtime_us": r["runtime_us"],
            "placements": r["placements"], "seconds": r["seconds"]}


def within(points, best):
    """The placements of the first point within 1 % of best."""
    for placements, runtime in points:
        if runtime <= best * 1.01:
            return placements
    return None


def train(job):
    """Placeto trained on one graph for about BUDGET placements."""
    g, d, mode, groups = job
    episodes = max(1, BUDGET // (groups + 1))
    graph = "graphs/%s.json" % g
    tmp = tempfile.mkdtemp()
    pol, curve = os.path.join(tmp, "p.json"), os.path.join(tmp, "c.csv")
    cmd = ["train", graph, "--devices", str(d), "--episodes", str(episodes), "--seed", "1"]
    if mode == "refine":
        cmd += ["--init", "heuristic"]
    elif mode == "paper":
        cmd += ["--preset", "paper", "--entropy", "0.001"]
    summary = json.loads(run(*(cmd + ["-o", pol, "--curve", curve, "--json"])).strip().splitlines()[-1])
    with open(curve) as f:
        rows = list(csv.DictReader(f))
    points = [(int(r["placements_simulated"]), float(r["best_runtime_us"])) for r in rows
              if int(r["placements_simulated"]) <= BUDGET]
    best = min(p[1] for p in points) if points else float(rows[0]["best_runtime_us"])
    start = [] if mode == "scratch" else ["--start", "heuristic"]
    greedy = place_json(graph, "--devices", d, "--policy", pol, *start)
    sampled = place_json(graph, "--devices", d, "--policy", pol, "--samples", 8, *start)
    shutil.rmtree(tmp)
    return {"graph": g, "devices": d, "mode": mode, "command": "placeto " + " ".join(cmd), "episodes": episodes,
            "best_us": best, "to_within_1pct": within(points, best), "placements": summary["placements_simulated"],
            "seconds": summary["seconds"], "greedy_us": greedy["runtime_us"], "best_of_8_us": sampled["runtime_us"],
            "curve": points}


def main():
    with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as pool:
        refs = list(pool.map(lambda c: json.loads(run("compare", "graphs/%s.json" % c[0], "--devices", c[1],
                                                      "--methods", HEURISTICS, "--no-policy", "--json")), CASES))
        groups = [r["groups"] for r in refs]
        jobs = [(g, d, m) for g, d in CASES for m in ("anneal", "ils")]
        searches = list(pool.map(search, [(g, d, m, b) for g, d, m in jobs for b in [x for x in LADDER if x < BUDGET] + [BUDGET]]))
        trains = list(pool.map(train, [(g, d, mode, n) for (g, d), n in zip(CASES, groups)
                                       for mode in MODES]))
    rows = []
    for (g, d), ref in zip(CASES, refs):
        base = {m["method"]: m for m in ref["methods"]}
        heur = min(ref["methods"], key=lambda m: (m["oom"], m["runtime_us"]))
        row = {"graph": ref["graph"], "path": g, "devices": d, "groups": ref["groups"], "lower_bound_us": ref["lower_bound_us"],
               "single_us": base["single"]["runtime_us"], "single_oom": base["single"]["oom"],
               "best_heuristic": heur["method"], "best_heuristic_us": heur["runtime_us"]}
        for m in ("anneal", "ils"):
            runs = sorted((s for s in searches if s["graph"] == g and s["devices"] == d and s["method"] == m),
                          key=lambda s: s["budget"])
            full = runs[-1]
            row[m] = {"best_us": full["runtime_us"], "seconds": full["seconds"],
                      "to_within_1pct": within([(s["placements"], s["runtime_us"]) for s in runs], full["runtime_us"]),
                      "ladder": [(s["budget"], s["runtime_us"]) for s in runs]}
        for t in trains:
            if t["graph"] == g and t["devices"] == d:
                row["placeto_" + t["mode"]] = t
        rows.append(row)
    doc = {"budget": BUDGET, "rows": rows}
    lib.write_result("bench/results/agent_budget.json", doc)
    md = markdown(rows)
    lib.write_result("bench/results/agent_budget.md", md)
    print(md)
    for row in rows:
        if ((row["path"], row["devices"]) == CURVE_GRAPH or ONLY) and shutil.which("gnuplot"):
            plot(row)


def long_searches():
    """anneal and ils with LONG placements, merged into the last run's rows."""
    path = "bench/results/agent_budget.json"
    doc = lib.read_result(path)
    jobs = [(r["path"], r["devices"], m, LONG) for r in doc["rows"] for m in ("anneal", "ils")]
    with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as pool:
        done = list(pool.map(search, jobs))
    for r in doc["rows"]:
        for s in done:
            if s["graph"] == r["path"] and s["devices"] == r["devices"]:
                r.setdefault("long", {})[s["method"]] = {"budget": LONG, "best_us": s["runtime_us"],
                                                          "seconds": s["seconds"]}
    doc["long_budget"] = LONG
    lib.write_result(path, doc)
    return doc


def markdown(rows):
    b = "{:,}".format(BUDGET).replace(",", " ")
    lines = ["Runtime as a multiple of the lower bound (lower is better); every method gets the same budget, %s "
             "placements simulated. *best* is the best placement found within the budget, *to 1 %%* the "
             "placements it took to come within 1 %% of it, *time* the wall time on one core. *Placeto scratch* "
             "trains with the defaults from everything on device 0; *Placeto refine* the same from the best "
             "heuristic's placement (`--init heuristic`); *Placeto paper* with the paper's settings and entropy 0.001 "
             "(`--preset paper --entropy 0.001`, as the bundled per-graph policies were trained) from its fixed "
             "random start. *policy* is the trained policy's own placement: one "
             "greedy episode from its start, then the best of 8 sampled ones. OOM: a device over its memory.%s" % (
                 b, "" if not any("long" in r for r in rows) else " The last column: anneal and ils with %s "
                 "placements." % "{:,}".format(rows[0]["long"]["anneal"]["budget"]).replace(",", " ")),
             "",
             "| graph | devices | lower bound (ms) | single | best heuristic | anneal: best, to 1 %, time | "
             "ils: best, to 1 %, time | Placeto paper: best, to 1 %, time | policy | Placeto scratch: best, to 1 %, "
             "time | policy | Placeto refine: best, to 1 %, time | policy |" + (
                 " anneal / ils at %s |" % "{:,}".format(rows[0]["long"]["anneal"]["budget"]).replace(",", " ")
                 if any("long" in r for r in rows) else ""),
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|" + ("---|" if any("long" in r for r in rows) else "")]
    for r in rows:
        lb = r["lower_bound_us"]
        x = lambda us: "%.2f" % (us / lb)
        cell = lambda c: "%s, %s, %.0f s" % (x(c["best_us"]), "–" if c["to_within_1pct"] is None else
                                             "{:,}".format(c["to_within_1pct"]).replace(",", " "), c["seconds"])
        pol = lambda c: "%s / %s" % (x(c["greedy_us"]), x(c["best_of_8_us"]))
        lines.append("| %s | %d | %.1f | %s%s | %s %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["graph"], r["devices"], lb / 1000, x(r["single_us"]), " OOM" if r["single_oom"] else "",
            r["best_heuristic"], x(r["best_heuristic_us"]), cell(r["anneal"]), cell(r["ils"]),
            cell(r["placeto_paper"]), pol(r["placeto_paper"]), cell(r["placeto_scratch"]),
            pol(r["placeto_scratch"]), cell(r["placeto_refine"]), pol(r["placeto_refine"])) + (
            " %s / %s |" % (x(r["long"]["anneal"]["best_us"]), x(r["long"]["ils"]["best_us"])) if "long" in r else ""))
    return "\n".join(lines) + "\n"


def plot(row):
    tmp = tempfile.mkdtemp()
    lb = row["lower_bound_us"]
    files = {}
    for name, pts in (("scratch", row["placeto_scratch"]["curve"]), ("refine", row["placeto_refine"]["curve"]),
                      ("paper", row["placeto_paper"]["curve"]),
                      ("anneal", row["anneal"]["ladder"]), ("ils", row["ils"]["ladder"])):
        files[name] = os.path.join(tmp, name + ".dat")
        with open(files[name], "w") as f:
            for p, us in pts:
                f.write("%d %.6f\n" % (max(p, 1), us / lb))
    png = os.path.join(ROOT, "screenshots/learning_%s.png" % row["graph"])
    script = """set terminal pngcairo noenhanced size 900,520 font 'DejaVu Sans,11'
set output '%s.tmp'
set title '%s, %d devices: best runtime found by placements simulated'
set xlabel 'placements simulated'
set ylabel 'runtime / lower bound'
set logscale x
set key top right
set grid
plot '%s' using 1:2 with steps lw 2 title 'Placeto from device 0 (tuned defaults)', \\
     '%s' using 1:2 with steps lw 2 title 'Placeto refining the best heuristic', \\
     '%s' using 1:2 with steps lw 2 title 'Placeto, paper settings (entropy 0.001)', \\
     '%s' using 1:2 with linespoints lw 2 pt 7 title 'anneal (one run per budget)', \\
     '%s' using 1:2 with linespoints lw 2 pt 5 title 'ils (one run per budget)', \\
     %.6f with lines dt 2 lw 2 title 'best heuristic (%s)', %.6f with lines dt 3 lw 2 title 'one device'
""" % (png, row["graph"], row["devices"], files["scratch"], files["refine"], files["paper"], files["anneal"],
       files["ils"],
       row["best_heuristic_us"] / lb, row["best_heuristic"], row["single_us"] / lb)
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    os.replace(png + ".tmp", png)
    shutil.rmtree(tmp)
    print("agent_budget.py: wrote %s" % os.path.relpath(png, ROOT))


if LONG:
    doc = long_searches()
    md = markdown(doc["rows"])
    lib.write_result("bench/results/agent_budget.md", md)
    print(md)
else:
    main()
