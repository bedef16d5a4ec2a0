#!/usr/bin/python3
"""The paper's Table 1 on this project's simulator (the README's "Table 1:
Placeto against the RNN-based placer"): for inception_v3, nasnet and nmt on
2 and 4 devices, one device, the expert placement, Scotch, the best
heuristic, the RNN-based placer and Placeto, each agent trained from
scratch with the same budget of placements simulated. For each agent: the
best runtime found within the budget, the placements it took to first come
within 1 % of that best, and the wall time; the learning curves of both
agents (best runtime so far against placements simulated) in one PNG.

The RNN runs use the public code's settings (`--preset paper`); the bundled
graphs/policies/rnn_GRAPH_D.json are now the tuned recipe's
(bench/table1_faithful.py --keep yes), so --keep here would replace them
with these (the command of each row is in bench/results/table1.json). Placeto trains with its defaults (tuned
preset, from device 0) for the episodes that simulate about BUDGET
placements (an episode simulates one placement per group); the RNN placer
with the public code's settings and h = HIDDEN, one sampled placement per
update and a greedy decode every 50 updates (both counted), for the updates
that simulate about BUDGET placements.

Writes bench/results/table1.{json,md} and, with gnuplot,
screenshots/table1_curves.png.

    /usr/bin/python3 bench/table1.py [./placeto] [--budget N] [--jobs J] [--hidden H] [--only GRAPH:D] [--keep]
                                     [--rnn-args "ARGS"] [--tag NAME] [--seed S]

--add-agent gdp trains the GDP placer (`--agent gdp`, its defaults: 16
placements per update, 4 PPO epochs, a greedy decode every 10 updates) on
every case of bench/results/table1.json with the same budget and adds its
column to that table and curve (with --keep its policies are written to
graphs/policies/gdp_GRAPH_D.json).
--seeds summarises bench/results/table1.json (seed 1) and every
bench/results/table1_seedS.json (runs with --seed S --tag seedS) into
bench/results/table1_seeds.md: per case and agent, the best runtime and
the placements to within 1 % of it, seed by seed, and their mean.
--controls sets each agent's Table 1 policy beside its untrained control
(the same network with the weights its training started from: compare
--untrained), both greedy, without training anything but Placeto's runs
again (the commands in bench/results/table1.json, seconds each; its
policies are not kept): the RNN and GDP columns' policies are the bundled
graphs/policies/rnn_GRAPH_D.json and gdp_GRAPH_D.json. Writes
bench/results/table1_controls.{json,md}; the plain kernels
(PLACETO_KERNELS=plain), so the table is the same on another CPU.
--plot redraws the PNG (and the table) from bench/results/table1.json
without training. --rnn-args adds options to every RNN run (a variant: "--lr 0.01",
"--samples-per-update 8"); --tag NAME writes bench/results/table1_NAME.*
instead (and no PNG).
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
PROG, BUDGET, JOBS, HIDDEN, ONLY, KEEP = "./placeto", 10000, os.cpu_count() or 1, 64, None, False
RNN_ARGS, TAG, PLOT_ONLY, SEED, SEEDS, ADD, CONTROLS = [], None, False, 1, False, None, False
GDP_K, GDP_GREEDY = 16, 10
CASES = [("inception_v3", 2), ("inception_v3", 4), ("nasnet", 2), ("nasnet", 4), ("nmt", 2), ("nmt", 4)]
HEURISTICS = "single,random,round-robin,expert,m-topo,m-etf,heft,metis,scotch"
GREEDY_EVERY = 50

args = sys.argv[1:]
if args and not args[0].startswith("--"):
    PROG = args.pop(0)
while args:
    k = args.pop(0)
    if k == "--keep":
        KEEP = True
        continue
    if k == "--plot":
        PLOT_ONLY = True
        continue
    if k == "--seeds":
        SEEDS = True
        continue
    if k == "--controls":
        CONTROLS = True
        continue
    if not args:
        sys.exit("table1.py: %s needs a value" % k)
    v = args.pop(0)
    if k == "--budget":
        BUDGET = int(v)
    elif k == "--jobs":
        JOBS = int(v)
    elif k == "--hidden":
        HIDDEN = int(v)
    elif k == "--only":
        g, d = v.split(":")
        ONLY = (g, int(d))
    elif k == "--rnn-args":
        RNN_ARGS = v.split()
    elif k == "--tag":
        TAG = v
    elif k == "--seed":
        SEED = int(v)
    elif k == "--add-agent":
        if v != "gdp":
            sys.exit("table1.py: --add-agent: expected gdp, got %s" % v)
        ADD = v
    else:
        sys.exit("table1.py: unknown option %s" % k)
if ONLY:
    CASES = [ONLY]


def run(*a):
    r = subprocess.run([PROG] + [str(x) for x in a], cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s %s: %s" % (PROG, " ".join(str(x) for x in a), r.stderr.strip()))
    return r.stdout


def within(points, best):
    """The placements of the first point within 1 % of best."""
    for placements, runtime in points:
        if runtime <= best * 1.01:
            return placements
    return None


def train(job):
    """One agent trained on one graph for about BUDGET placements."""
    g, d, agent, groups = job
    graph = "graphs/%s.json" % g
    tmp = tempfile.mkdtemp()
    curve = os.path.join(tmp, "c.csv")
    if agent == "rnn":
        k = int(RNN_ARGS[RNN_ARGS.index("--samples-per-update") + 1]) if "--samples-per-update" in RNN_ARGS else 1
        updates = BUDGET * GREEDY_EVERY // (k * GREEDY_EVERY + 1)
        pol = "graphs/policies/rnn_%s_%d.json" % (g, d) if KEEP else os.path.join(tmp, "p.json")
        cmd = ["train", graph, "--agent", "rnn", "--preset", "paper", "--devices", d, "--hidden", HIDDEN, "--episodes",
               updates, "--greedy-every", GREEDY_EVERY, "--seed", SEED, "-o", pol] + RNN_ARGS
    elif agent == "gdp":
        updates = BUDGET * GDP_GREEDY // (GDP_K * GDP_GREEDY + 1)
        pol = "graphs/policies/gdp_%s_%d.json" % (g, d) if KEEP else os.path.join(tmp, "p.json")
        cmd = ["train", graph, "--agent", "gdp", "--devices", d, "--hidden", HIDDEN, "--episodes", updates, "--seed",
               SEED, "-o", pol]
    else:
        pol = os.path.join(tmp, "p.json")
        cmd = ["train", graph, "--devices", d, "--episodes", max(1, BUDGET // groups), "--seed", SEED, "-o", pol]
    summary = json.loads(run(*(cmd + ["--curve", curve, "--json"])).strip().splitlines()[-1])
    with open(curve) as f:
        rows = list(csv.DictReader(f))
    points = [(int(r["placements_simulated"]), float(r["best_runtime_us"])) for r in rows]
    best = min(p[1] for p in points)
    greedy = json.loads(run("place", graph, "--devices", d, "--policy", pol, "--json"))
    shutil.rmtree(tmp)
    shown = ["placeto"] + [str(x) for x in cmd]
    if agent == "placeto":
        shown[shown.index("-o") + 1] = "POLICY.json"
    return {"graph": g, "devices": d, "agent": agent, "command": " ".join(shown), "best_us": best,
            "to_within_1pct": within(points, best), "placements": summary["placements_simulated"],
            "seconds": summary["seconds"], "policy_us": greedy["runtime_us"], "curve": points}


def main():
    with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as pool:
        refs = list(pool.map(lambda c: json.loads(run("compare", "graphs/%s.json" % c[0], "--devices", c[1],
                                                      "--methods", HEURISTICS, "--no-policy", "--json")), CASES))
        groups = [r["groups"] for r in refs]
        # the long RNN runs first, so that the short Placeto ones fill the gaps
        jobs = [(g, d, "rnn", n) for (g, d), n in zip(CASES, groups)] + \
               [(g, d, "placeto", n) for (g, d), n in zip(CASES, groups)]
        trains = list(pool.map(train, jobs))
    rows = []
    for (g, d), ref in zip(CASES, refs):
        base = {m["method"]: m for m in ref["methods"]}
        heur = min(ref["methods"], key=lambda m: (m["oom"], m["runtime_us"]))
        row = {"graph": ref["graph"], "path": g, "devices": d, "groups": ref["groups"],
               "lower_bound_us": ref["lower_bound_us"], "best_heuristic": heur["method"],
               "best_heuristic_us": heur["runtime_us"]}
        for m in ("single", "expert", "scotch"):
            row[m] = {"runtime_us": base[m]["runtime_us"], "oom": base[m]["oom"]}
        for t in trains:
            if t["graph"] == g and t["devices"] == d:
                row[t["agent"]] = t
        rows.append(row)
    doc = {"budget": BUDGET, "hidden": HIDDEN, "seed": SEED, "rnn_args": " ".join(RNN_ARGS), "rows": rows}
    out = os.path.join(ROOT, "bench/results")
    os.makedirs(out, exist_ok=True)
    name = "table1_" + TAG if TAG else "table1" if not ONLY else "table1_%s_%d" % ONLY
    with lib.open_result(os.path.join(out, name + ".json")) as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    md = markdown(rows)
    with lib.open_result(os.path.join(out, name + ".md")) as f:
        f.write(md)
    print(md)
    if shutil.which("gnuplot") and not ONLY and not TAG:
        plot(rows)


def add_agent():
    path = os.path.join(ROOT, "bench/results/table1.json")
    doc = lib.read_result(path)
    global BUDGET, HIDDEN
    BUDGET, HIDDEN = doc["budget"], doc["hidden"]
    rows = [r for r in doc["rows"] if not ONLY or (r["path"], r["devices"]) == ONLY]
    with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as pool:
        done = list(pool.map(train, [(r["path"], r["devices"], ADD, r["groups"]) for r in rows]))
    for r, t in zip(rows, done):
        r[ADD] = t
    with lib.open_result(path) as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    text = markdown(doc["rows"])
    with lib.open_result(os.path.join(ROOT, "bench/results/table1.md")) as fh:
        fh.write(text)
    print(text)
    if shutil.which("gnuplot"):
        plot(doc["rows"])


def common(r):
    """Placements each agent took to come within 1 % of the weaker agent's
    best (a level both reach): (rnn, placeto)."""
    level = max(r["rnn"]["best_us"], r["placeto"]["best_us"])
    return within(r["rnn"]["curve"], level), within(r["placeto"]["curve"], level)


def markdown(rows):
    b = "{:,}".format(BUDGET).replace(",", " ")
    gdp = all("gdp" in r for r in rows)
    lines = ["Simulated runtime in seconds (and as a multiple of the lower bound); lower is better. Both agents "
             "train from scratch with the same budget, %s placements simulated. *best* is the best placement "
             "found within the budget, *to 1 %%* the placements simulated when the agent first came within 1 %% "
             "of its own best, *time* the wall time of the training run on one core; *policy* is the trained "
             "policy's own greedy placement. *RNN-based*: `--agent rnn`, h = %d. *to the common level*: the "
             "placements each agent simulated before coming within 1 %% of the weaker agent's best (a level both "
             "reach), RNN-based / Placeto, and their ratio. *GDP*: `--agent gdp` with its defaults (16 placements per "
             "update, 4 PPO epochs) and the same h. OOM: a device over its memory." % (b, HIDDEN),
             "",
             "| graph | devices | single | expert | Scotch | best heuristic | RNN-based: best, to 1 %, time | policy "
             "| Placeto: best, to 1 %, time | policy | to the common level: RNN / Placeto (ratio) |" +
             (" GDP: best, to 1 %, time | policy |" if gdp else ""),
             "|---|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if gdp else "")]
    for r in rows:
        lb = r["lower_bound_us"]
        x = lambda us: "%.3f (%.2f)" % (us / 1e6, us / lb)
        xo = lambda c: x(c["runtime_us"]) + (" OOM" if c["oom"] else "")
        n = lambda v: "–" if v is None else "{:,}".format(v).replace(",", " ")
        cell = lambda c: "%s, %s, %.0f s" % (x(c["best_us"]), n(c["to_within_1pct"]), c["seconds"])
        rn, pl = r["rnn"], r["placeto"]
        cr, cp = common(r)
        ratio = "–" if not cr or not cp else "%.3g" % (cr / cp)
        lines.append("| %s | %d | %s | %s | %s | %s %s | %s | %s | %s | %s | %s / %s (%s) |" % (
            r["graph"], r["devices"], xo(r["single"]), xo(r["expert"]), xo(r["scotch"]), r["best_heuristic"],
            x(r["best_heuristic_us"]), cell(rn), x(rn["policy_us"]), cell(pl), x(pl["policy_us"]), n(cr), n(cp),
            ratio) + (" %s | %s |" % (cell(r["gdp"]), x(r["gdp"]["policy_us"])) if gdp else ""))
    return "\n".join(lines) + "\n"


def plot(rows):
    tmp = tempfile.mkdtemp()
    parts = []
    for i, r in enumerate(rows):
        lb = r["lower_bound_us"]
        files = []
        agents = ("placeto", "rnn", "gdp") if "gdp" in r else ("placeto", "rnn")
        for agent in agents:
            fn = os.path.join(tmp, "%d_%s.dat" % (i, agent))
            with open(fn, "w") as f:
                for p, us in r[agent]["curve"]:
                    f.write("%d %.6f\n" % (max(p, 1), us / lb))
            files.append(fn)
        parts.append("""set title '%s, %d devices'
plot '%s' using 1:2 with steps lw 2 title 'Placeto', '%s' using 1:2 with steps lw 2 title 'RNN-based', \\
%s     %.6f with lines dt 2 lw 2 title 'best heuristic (%s)', %.6f with lines dt 3 lw 2 title 'one device'
""" % (r["graph"], r["devices"], files[0], files[1],
       "     '%s' using 1:2 with steps lw 2 title 'GDP', \\\n" % files[2] if len(files) > 2 else "",
       r["best_heuristic_us"] / lb, r["best_heuristic"], r["single"]["runtime_us"] / lb))
    png = os.path.join(ROOT, "screenshots/table1_curves.png")
    script = """set terminal pngcairo noenhanced size 1200,1200 font 'DejaVu Sans,10'
set output '%s.tmp'
set multiplot layout 3,2 title 'Best runtime found (runtime / lower bound) by placements simulated'
set xlabel 'placements simulated'
set ylabel 'runtime / lower bound'
set logscale x
set key top right
set grid
%sunset multiplot
""" % (png, "".join(parts))
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    os.replace(png + ".tmp", png)
    shutil.rmtree(tmp)
    print("table1.py: wrote %s" % os.path.relpath(png, ROOT))


def seeds_summary():
    import glob
    runs = [lib.read_result(os.path.join(ROOT, "bench/results/table1.json"))]
    for fn in sorted(glob.glob(os.path.join(ROOT, "bench/results/table1_seed*.json"))):
        runs.append(lib.read_result(fn))
    seeds = [r.get("seed", 1) for r in runs]
    lines = ["Best runtime (× the lower bound) and placements to within 1 %% of it, per seed (%s), and the mean of "
             "the bests; %s placements each, h = %d." % (", ".join(str(x) for x in seeds),
                                                         "{:,}".format(runs[0]["budget"]).replace(",", " "),
                                                         runs[0]["hidden"]), "",
             "| graph | devices | RNN-based: best (to 1 %) per seed | mean | Placeto: best (to 1 %) per seed | mean |"
             " Placeto better by |",
             "|---|---|---|---|---|---|---|"]
    for i, r0 in enumerate(runs[0]["rows"]):
        lb = r0["lower_bound_us"]
        cells, means = [], []
        for agent in ("rnn", "placeto"):
            vals = [run["rows"][i][agent] for run in runs]
            cells.append(", ".join("%.2f (%s)" % (v["best_us"] / lb, "–" if v["to_within_1pct"] is None else
                                                  "{:,}".format(v["to_within_1pct"]).replace(",", " ")) for v in vals))
            means.append(sum(v["best_us"] for v in vals) / len(vals))
        lines.append("| %s | %d | %s | %.2f | %s | %.2f | %.0f %% |" % (
            r0["graph"], r0["devices"], cells[0], means[0] / lb, cells[1], means[1] / lb,
            100 * (1 - means[1] / means[0])))
    text = "\n".join(lines) + "\n"
    with lib.open_result(os.path.join(ROOT, "bench/results/table1_seeds.md")) as fh:
        fh.write(text)
    print(text)


def controls():
    os.environ["PLACETO_KERNELS"] = "plain"
    saved = lib.read_result(os.path.join(ROOT, "bench/results/table1.json"))

    def one(job):
        row, agent = job
        g, d = row["path"], row["devices"]
        tmp = tempfile.mkdtemp()
        if agent == "placeto":
            pol = os.path.join(tmp, "p.json")
            cmd = row["placeto"]["command"].split()[1:]
            cmd[cmd.index("POLICY.json")] = pol
            run(*cmd)
        else:
            pol = "graphs/policies/%s_%s_%d.json" % (agent, g, d)
        doc = json.loads(run("compare", "graphs/%s.json" % g, "--devices", d, "--policy", pol, "--untrained",
                             "--methods", "single", "--seed", SEED, "--json"))
        shutil.rmtree(tmp)
        m = {x["method"]: x for x in doc["methods"]}
        lb = doc["lower_bound_us"]
        return {"graph": g, "devices": d, "agent": agent, "trained": m[agent]["runtime_us"] / lb,
                "untrained": m[agent + "-untrained"]["runtime_us"] / lb, "trained_oom": m[agent]["oom"],
                "untrained_oom": m[agent + "-untrained"]["oom"],
                "policy": "Table 1's run (retrained: its command)" if agent == "placeto" else pol}
    jobs = [(r, a) for r in saved["rows"] for a in ("placeto", "rnn", "gdp")]
    with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as pool:
        res = list(pool.map(one, jobs))
    with lib.open_result(os.path.join(ROOT, "bench/results/table1_controls.json")) as fh:
        json.dump({"command": "/usr/bin/python3 bench/table1.py --controls", "kernels": "plain", "rows": res}, fh,
                  indent=1)
    md = ["# Table 1's policies against their untrained controls", "",
          "`/usr/bin/python3 bench/table1.py --controls` (the plain kernels): each agent's Table 1 policy, greedy "
          "from its own start, against the same network with the weights its training started from (`compare "
          "--policy P --untrained`), greedy too. Runtime / lower bound; ratio < 1: training helped. Placeto's "
          "policies are its Table 1 commands run again on this version, whose greedy placements need not be the "
          "ones in bench/results/table1.json (made on an earlier one).", "",
          "| graph | devices | agent | trained | untrained | trained / untrained |", "|---|---|---|---|---|---|"]
    for r in res:
        md.append("| %s | %d | %s | %.3f%s | %.3f%s | %.3f |" % (
            r["graph"], r["devices"], r["agent"], r["trained"], " (OOM)" if r["trained_oom"] else "", r["untrained"],
            " (OOM)" if r["untrained_oom"] else "", r["trained"] / r["untrained"]))
    md.append("")
    import math
    for a in ("placeto", "rnn", "gdp"):
        rs = [r for r in res if r["agent"] == a]
        md.append("%s: geometric mean trained / untrained %.3f  " % (
            a, math.exp(sum(math.log(r["trained"] / r["untrained"]) for r in rs) / len(rs))))
    with lib.open_result(os.path.join(ROOT, "bench/results/table1_controls.md")) as fh:
        fh.write("\n".join(md) + "\n")
    print("\n".join(md))


if SEEDS:
    seeds_summary()
elif CONTROLS:
    controls()
elif ADD:
    add_agent()
elif PLOT_ONLY:
    saved = lib.read_result(os.path.join(ROOT, "bench/results/table1.json"))
    BUDGET, HIDDEN = saved["budget"], saved["hidden"]
    text = markdown(saved["rows"])
    with lib.open_result(os.path.join(ROOT, "bench/results/table1.md")) as fh:
        fh.write(text)
    print(text)
    plot(saved["rows"])
else:
    main()
