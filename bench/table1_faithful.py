#!/usr/bin/python3
"""Table 1, faithful (docs/results.md, "Table 1, faithful"): for the paper's
six cases (inception_v3, nasnet, nmt on 2 and 4 devices), every learned
placer trained from scratch with the same budget of placements simulated
(default 10 000), each beside its untrained control (the same command at
--lr 0: the network never moves, so what it finds is what sampling the
untouched network finds), with the single device, the expert placement,
Scotch, the best heuristic and ILS at the same budget. Rows:

  placeto-paper   train --preset paper (the paper's settings)
  placeto-tuned   train (the tuned defaults)
  rnn             train --agent rnn with RNN_ARGS (the placer on Placeto's groups)
  rnn-hdp         the same with --grouper hdp (the hierarchical planner)
  gdp             train --agent gdp (its defaults)

Per row: the best runtime within the budget, the placements to first come
within 1 % of it, the wall time, and the trained policy's own placement
(`place --policy`). Then each of the paper's relative claims checked one
by one: Placeto level with the RNN placer in runtime (the paper: on par or
better), Placeto needs fewer placements (to within 1 % of the weaker one's
best), both beat the best of single, expert and Scotch.

    PLACETO_KERNELS=plain /usr/bin/python3 bench/table1_faithful.py [./placeto] [--budget N] [--only GRAPH:D]
        [--agents placeto-paper,...] [--controls yes|no|rnn-greedy] [--rnn-args "ARGS"] [--keep yes]

--keep yes writes the rnn and gdp rows' policies to the bundled
graphs/policies/rnn_GRAPH_D.json and gdp_GRAPH_D.json (their training
state is stripped afterwards by `make strip-policies`).

Writes bench/results/table1_faithful.{json,md} (with --only: ..._GRAPH_D);
each run's result is kept in bench/results/table1_faithful.cache/ as it
ends, so that an interrupted run resumes (delete it after a change to the
program).
"""
import concurrent.futures
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchargs  # noqa: E402

import lib  # bench/lib.py: write_result, read_result

PROG, OPT = benchargs.options("table1_faithful.py", ["budget", "only", "agents", "controls", "rnn-args", "keep", "from-cache"])
BUDGET = int(OPT.get("budget", 10000))
CASES = [("inception_v3", 2), ("inception_v3", 4), ("nasnet", 2), ("nasnet", 4), ("nmt", 2), ("nmt", 4)]
if "only" in OPT:
    g, d = OPT["only"].split(":")
    CASES = [(g, int(d))]
HIDDEN = 64
RNN_ARGS = OPT.get("rnn-args", "").split()
AGENTS = ["placeto-paper", "placeto-tuned", "rnn", "rnn-hdp", "gdp"]
if "agents" in OPT:
    AGENTS = OPT["agents"].split(",")
CONTROLS = OPT.get("controls", "yes") != "no"
# --controls rnn-greedy: the rnn row's control is its untrained network's greedy placement (seconds) rather than
# a --lr 0 run of the whole budget (about 5 CPU-minutes a case); it needs --keep yes
RNN_GREEDY_CONTROL = OPT.get("controls") == "rnn-greedy"
KEEP = OPT.get("keep", "no") == "yes"
# --from-cache yes: the table from the runs in the cache only (an interrupted run's; the others "not run")
FROM_CACHE = OPT.get("from-cache", "no") == "yes"  # the rnn and gdp rows' policies become graphs/policies/AGENT_GRAPH_D.json
HEURISTICS = "single,random,round-robin,expert,m-topo,m-etf,heft,metis,scotch"
RNN_GREEDY, GDP_K, GDP_GREEDY = 50, 16, 10


def run(*a):
    r = subprocess.run([PROG] + [str(x) for x in a], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s %s: %s" % (PROG, " ".join(str(x) for x in a), r.stderr.strip()))
    return r.stdout


def command(g, d, agent, groups, pol):
    """The training command of an agent on one case with about BUDGET placements."""
    base = ["train", "graphs/%s.json" % g, "--devices", d, "--seed", 1, "-o", pol]
    if agent.startswith("placeto"):
        eps = max(1, BUDGET // groups)
        return base + ["--episodes", eps] + (["--preset", "paper"] if agent == "placeto-paper" else [])
    if agent.startswith("rnn"):
        # K: the options' --samples-per-update, else the preset's (tuned 16, paper 1)
        k = int(RNN_ARGS[RNN_ARGS.index("--samples-per-update") + 1]) if "--samples-per-update" in RNN_ARGS else \
            1 if "paper" in RNN_ARGS else 16
        ups = BUDGET * RNN_GREEDY // (k * RNN_GREEDY + 1)
        return base + ["--agent", "rnn", "--hidden", HIDDEN, "--episodes", ups, "--greedy-every", RNN_GREEDY] + \
            RNN_ARGS + (["--grouper", "hdp"] if agent == "rnn-hdp" else [])
    ups = BUDGET * GDP_GREEDY // (GDP_K * GDP_GREEDY + 1)
    return base + ["--agent", "gdp", "--hidden", HIDDEN, "--episodes", ups]


def first_within(points, best):
    for placements, runtime in points:
        if runtime <= best * 1.01:
            return placements
    return None


CACHE = "bench/results/table1_faithful.cache"


def train(job):
    """One training run and its placement; a run already in CACHE (from an interrupted run of the same budget,
    options and program) is read from there."""
    g, d, agent, groups, control = job
    key = "%s_%d_%s%s_%d.json" % (g, d, agent, "_control" if control else "", BUDGET)
    cached = os.path.join(CACHE, key)
    if os.path.exists(cached):
        with open(cached) as f:
            return job, json.load(f)
    job, res = train_run(job)
    os.makedirs(CACHE, exist_ok=True)
    with open(cached + ".tmp", "w") as f:
        json.dump(res, f)
    os.replace(cached + ".tmp", cached)
    return job, res


def cached_only(job):
    g, d, agent, groups, control = job
    cached = os.path.join(CACHE, "%s_%d_%s%s_%d.json" % (g, d, agent, "_control" if control else "", BUDGET))
    if not os.path.exists(cached):
        return job, None
    with open(cached) as f:
        return job, json.load(f)


def untrained_greedy(job):
    """The rnn control under --controls rnn-greedy: the untrained network's own (greedy) placement, from the
    trained policy's file (compare --untrained), instead of a --lr 0 run of the whole budget."""
    g, d, agent, groups, control = job
    pol = "graphs/policies/rnn_%s_%d.json" % (g, d)
    doc = json.loads(run("compare", "graphs/%s.json" % g, "--devices", d, "--policy", pol, "--untrained", "--methods",
                         "single", "--json"))
    m = [x for x in doc["methods"] if x["method"] == "rnn-untrained"][0]
    return job, {"command": "placeto compare graphs/%s.json --devices %d --policy %s --untrained" % (g, d, pol),
                 "best_us": m["runtime_us"], "to_1pct": None, "placements": 1, "seconds": m["seconds"] or 0,
                 "policy_us": m["runtime_us"], "policy_oom": m["oom"], "curve": [], "greedy_only": True}


def train_run(job):
    g, d, agent, groups, control = job
    if control and agent == "rnn" and RNN_GREEDY_CONTROL:
        return untrained_greedy(job)
    tmp = tempfile.mkdtemp()
    pol, curve = os.path.join(tmp, "p.json"), os.path.join(tmp, "c.csv")
    if KEEP and not control and agent in ("rnn", "gdp"):
        pol = "graphs/policies/%s_%s_%d.json" % (agent, g, d)
    cmd = command(g, d, agent, groups, pol) + (["--lr", 0] if control else [])
    summary = json.loads(run(*(cmd + ["--curve", curve, "--checkpoint-every", 1 << 30, "--json"])).splitlines()[-1])
    with open(curve) as f:
        points = [(int(r["placements_simulated"]), float(r["best_runtime_us"])) for r in csv.DictReader(f)]
    best = min(p[1] for p in points)
    placed = json.loads(run("place", "graphs/%s.json" % g, "--devices", d, "--policy", pol, "--json"))
    used = len(set(placed["placement"]["ops"].values()))
    shutil.rmtree(tmp)
    shown = ["placeto"] + [str(x) for x in cmd]
    if not pol.startswith("graphs/"):
        shown[shown.index("-o") + 1] = "POLICY.json"
    return job, {"command": " ".join(shown), "best_us": best, "to_1pct": first_within(points, best),
                 "placements": summary["placements_simulated"], "seconds": summary["seconds"],
                 "policy_us": placed["runtime_us"], "policy_oom": placed["oom"], "policy_devices": used, "curve": points}


def reference(case):
    g, d = case
    ref = json.loads(run("compare", "graphs/%s.json" % g, "--devices", d, "--methods", HEURISTICS, "--no-policy",
                         "--json"))
    ils = json.loads(run("compare", "graphs/%s.json" % g, "--devices", d, "--methods", "ils", "--budget", BUDGET,
                         "--seed", 1, "--no-policy", "--json"))
    return case, ref, [m for m in ils["methods"] if m["method"] == "ils"][0]


def main():
    jobs_n = os.cpu_count() or 1
    with concurrent.futures.ThreadPoolExecutor(jobs_n) as pool:
        refs = {c: (ref, ils) for c, ref, ils in pool.map(reference, CASES)}
        # the trained runs first, the controls after; the short runs first (Placeto, GDP, hdp, then the RNN
        # placer), so that an interrupted run leaves whole columns in the cache
        order = sorted(AGENTS, key=lambda a: 3 if a == "rnn" else 2 if a == "rnn-hdp" else 1 if a == "gdp" else 0)
        jobs = [(g, d, a, refs[(g, d)][0]["groups"], ctl) for ctl in ([False, True] if CONTROLS else [False])
                for a in order for g, d in sorted(CASES, key=lambda c: c[0] != "nmt")]  # NMT (out of memory on one
        # device) first
        res = dict(pool.map(cached_only if FROM_CACHE else train, jobs))
    for (g, d, a, _, control), t in res.items():
        # runs cached before the count was kept: the rnn row's policy is the bundled one (--keep yes)
        if t and a == "rnn" and not control and "policy_devices" not in t and t["command"].count("graphs/policies/"):
            placed = json.loads(run("place", "graphs/%s.json" % g, "--devices", d, "--policy",
                                    "graphs/policies/rnn_%s_%d.json" % (g, d), "--json"))
            t["policy_devices"] = len(set(placed["placement"]["ops"].values()))
    rows = []
    for g, d in CASES:
        ref, ils = refs[(g, d)]
        by = {m["method"]: m for m in ref["methods"]}
        heur = min(ref["methods"], key=lambda m: (m["oom"], m["runtime_us"]))
        row = {"graph": g, "devices": d, "groups": ref["groups"], "lower_bound_us": ref["lower_bound_us"],
               "single": by["single"], "expert": by["expert"], "scotch": by["scotch"],
               "best_heuristic": heur, "ils": ils, "agents": {}}
        for a in AGENTS:
            row["agents"][a] = {"trained": res[(g, d, a, ref["groups"], False)]}
            if CONTROLS:
                row["agents"][a]["control"] = res[(g, d, a, ref["groups"], True)]
        rows.append(row)
    doc = {"budget": BUDGET, "hidden": HIDDEN, "rnn_args": " ".join(RNN_ARGS), "rnn_greedy_control": RNN_GREEDY_CONTROL,
           "kernels": os.environ.get("PLACETO_KERNELS", ""), "rows": rows}
    name = "table1_faithful" + ("" if "only" not in OPT else "_%s_%d" % CASES[0])
    os.makedirs("bench/results", exist_ok=True)
    with lib.open_result("bench/results/%s.json" % name) as f:
        json.dump(doc, f, indent=1)
    md = markdown(doc)
    with lib.open_result("bench/results/%s.md" % name) as f:
        f.write(md)
    print(md)


def fmt(us, lb, oom=False):
    return "%.3f (%.2f)%s" % (us / 1e6, us / lb, " OOM" if oom else "")


def markdown(doc):
    rows = doc["rows"]
    agents = list(rows[0]["agents"])
    out = ["Table 1, faithful: every agent trained from scratch with %d placements simulated (h = 64 for the RNN "
           "placer and GDP; RNN options: `%s`), seed 1. Runtime in seconds (× the lower bound); *best*: within "
           "the budget; *to 1 %%*: placements simulated to first come within 1 %% of it; *policy*: the trained "
           "policy's own placement; *control*: the same command at `--lr 0` (the network never moves)%s." % (
               doc["budget"], doc["rnn_args"] or "defaults",
               "; for the RNN placer, its untrained network's own placement (greedy)" if doc.get("rnn_greedy_control")
               else ""), ""]
    out += ["| graph | devices | single | expert | Scotch | best heuristic | ILS at the budget |",
            "|---|---|---|---|---|---|---|"]
    for r in rows:
        lb = r["lower_bound_us"]
        h = r["best_heuristic"]
        out.append("| %s | %d | %s | %s | %s | %s %s | %s |" % (
            r["graph"], r["devices"], fmt(r["single"]["runtime_us"], lb, r["single"]["oom"]),
            fmt(r["expert"]["runtime_us"], lb, r["expert"]["oom"]), fmt(r["scotch"]["runtime_us"], lb,
                                                                       r["scotch"]["oom"]),
            h["method"], fmt(h["runtime_us"], lb, h["oom"]), fmt(r["ils"]["runtime_us"], lb, r["ils"]["oom"])))
    out += ["", "| graph | devices | agent | best | to 1 % | time | policy | control: best | control: policy |",
            "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lb = r["lower_bound_us"]
        for a in agents:
            t = r["agents"][a]["trained"]
            c = r["agents"][a].get("control")
            if t is None:
                out.append("| %s | %d | %s | not run | | | | | |" % (r["graph"], r["devices"], a))
                continue
            out.append("| %s | %d | %s | %s | %s | %.0f s | %s | %s | %s |" % (
                r["graph"], r["devices"], a, fmt(t["best_us"], lb), t["to_1pct"], t["seconds"],
                fmt(t["policy_us"], lb, t["policy_oom"]), fmt(c["best_us"], lb) if c and not c.get("greedy_only") else
                "— (greedy only)" if c else "—",
                fmt(c["policy_us"], lb, c["policy_oom"]) if c else "—"))
    out += ["", "The paper's claims, case by case:", ""]
    out += claims(rows)
    out += ["", "Compact (the README's table):", ""] + compact(rows)
    return "\n".join(out) + "\n"


def compact(rows):
    """One line per case, every learned placer's best within the budget beside its untrained control's, as a
    multiple of the lower bound; the RNN placer's own (greedy) placement, which its paper reports."""
    names = {"placeto-paper": "Placeto, paper preset", "placeto-tuned": "Placeto, tuned", "rnn": "RNN-based",
             "rnn-hdp": "RNN-based + grouper", "gdp": "GDP"}
    agents = [a for a in names if a in rows[0]["agents"]]
    out = ["| graph | devices | best heuristic | ILS | " + " | ".join(names[a] for a in agents) +
           (" | RNN-based, its own placement |" if "rnn" in agents else " |"),
           "|---|---|---|---|" + "---|" * len(agents) + ("---|" if "rnn" in agents else "")]
    for r in rows:
        lb = r["lower_bound_us"]
        h = r["best_heuristic"]
        cells = []
        for a in agents:
            t, c = r["agents"][a]["trained"], r["agents"][a].get("control")
            if t is None:
                cells.append("not run")
                continue
            ctl = c["policy_us"] if c and c.get("greedy_only") else c["best_us"] if c else None
            cells.append("%.2f" % (t["best_us"] / lb) + (" / %.2f" % (ctl / lb) if ctl else ""))
        line = "| %s | %d | %s %.2f | %.2f | %s |" % (r["graph"], r["devices"], h["method"], h["runtime_us"] / lb,
                                                     r["ils"]["runtime_us"] / lb, " | ".join(cells))
        if "rnn" in agents:
            t = r["agents"]["rnn"]["trained"]
            if t is None:
                line += " not run |"
            else:
                used = t.get("policy_devices")
                line += " %.2f%s%s |" % (t["policy_us"] / lb, " OOM" if t["policy_oom"] else "",
                                         ", one device" if used == 1 else ", %d devices" % used if used else "")
        out.append(line)
    return out


def claims(all_rows):
    out = []
    have = all_rows[0]["agents"]
    for p in ("placeto-paper", "placeto-tuned"):
        for q in ("rnn", "rnn-hdp"):
            if p not in have or q not in have:
                continue
            rows = [r for r in all_rows if r["agents"][p]["trained"] and r["agents"][q]["trained"]]
            if not rows:
                continue
            level = [r["agents"][p]["trained"]["best_us"] / r["agents"][q]["trained"]["best_us"] for r in rows]
            ok = sum(x <= 1.05 for x in level)
            out.append("- **%s on par with or better than %s in runtime** (best ≤ 1.05 × the RNN's): %s, met on %d "
                       "of the %d cases run; %s / %s = %s." % (p, q, "reproduced" if ok == len(rows) else
                                                               "not reproduced", ok, len(rows), p, q,
                                                               ", ".join("%.3f" % x for x in level)))
            fewer = []
            for r in rows:
                a, b = r["agents"][p]["trained"], r["agents"][q]["trained"]
                level_us = max(a["best_us"], b["best_us"])
                na, nb = first_within(a["curve"], level_us), first_within(b["curve"], level_us)
                fewer.append((na, nb))
            ok = sum(na is not None and nb is not None and na < nb for na, nb in fewer)
            out.append("- **%s needs fewer placements than %s** (to within 1 %% of the weaker one's best): %s, met on "
                       "%d of the %d cases run; %s." % (p, q, "reproduced" if ok == len(rows) else "not reproduced",
                                                        ok, len(rows), ", ".join("%s vs %s" % f for f in fewer)))
    for a in have:
        beat = []
        rows = [r for r in all_rows if r["agents"][a]["trained"]]
        if not rows:
            continue
        for r in rows:
            ref = min(x["runtime_us"] for x in (r["single"], r["expert"], r["scotch"]) if not x["oom"])
            beat.append(r["agents"][a]["trained"]["best_us"] / ref)
        ok = sum(x < 1 for x in beat)
        out.append("- **%s beats the best of single, expert and Scotch**: %s, met on %d of the %d cases run; best / "
                   "that = %s." % (a, "reproduced" if ok == len(rows) else "not reproduced", ok, len(rows),
                                   ", ".join("%.3f" % x for x in beat)))
    return out


main()
