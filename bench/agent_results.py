#!/usr/bin/python3
"""The Placeto agent's results, from real runs of ./placeto and the bundled
policies (graphs/policies/, trained by graphs/policies/train.sh):

 1. per graph and device count: the best runtime training found, the
    placements simulated to reach it and the training's wall time, the
    zero-shot placement of the trained policy, next to every baseline and
    the lower bound (the shape of Table 1 of the Placeto paper);
 2. generalization: on the 8 held-out graphs of each family, the family's
    policy zero-shot vs a policy trained on that graph alone vs the best
    baseline;
 3. the general policies (general_D.json) zero-shot on every bundled graph
    and device count, from device 0 and from the best heuristic, next to the
    heuristics and the local searches of bench/results/compare.json.

Writes bench/results/agent.json and bench/results/agent.md.
    /usr/bin/python3 bench/agent_results.py [./placeto] [--episodes N] [--part single|generalization|general]
                                            [--family F]
--family F redoes the generalization rows of family F alone and keeps the
others from bench/results/agent.json. The baselines here are the heuristics
in the generalization part (the table on the bundled graphs also has the
local searches, anneal and ils, with 20 000 placements simulated each).
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

import lib  # bench/lib.py: write_result, read_result

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SINGLE = [("inception_v3", 2), ("inception_v3", 4), ("nasnet", 2), ("nasnet", 4), ("nmt", 2), ("nmt", 4)]
FAMILIES = ["enas-cifar10", "enas-ptb", "nmt"]
SAMPLES = 8           # sampled episodes after the greedy one, zero-shot
HELDOUT_EPISODES = 150  # training of a policy on one held-out graph


def run(prog, *args):
    out = subprocess.run([prog] + list(args), cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("agent_results.py: %s %s failed: %s" % (prog, " ".join(args), out.stderr.strip()))
    return out.stdout


def summary(path):
    """The final summary line of a train --json log."""
    with open(os.path.join(ROOT, path)) as f:
        lines = [json.loads(l) for l in f if l.strip()]
    return lines[-1]


HEURISTICS = "single,random,round-robin,expert,m-topo,m-etf,heft,metis,scotch"


def compare(prog, graph, devices, policy=None, methods=HEURISTICS):
    args = ["compare", graph, "--devices", str(devices), "--json", "--methods", methods]
    if policy:
        args += ["--policy", policy, "--samples", str(SAMPLES)]
    else:
        args += ["--no-policy"]
    return json.loads(run(prog, *args))


def place(prog, graph, devices, policy, *opts):
    """The policy placing graph: greedy and SAMPLES sampled episodes."""
    return json.loads(run(prog, "place", graph, "--devices", str(devices), "--policy", policy, "--samples",
                          str(SAMPLES), "--json", *opts))


def best_baseline(rows):
    base = [r for r in rows if not r["method"].startswith("placeto")]
    return min(base, key=lambda r: (r["oom"], r["runtime_us"]))


def single_graphs(prog):
    out = []
    for g, d in SINGLE:
        pol = "graphs/policies/%s_%d.json" % (g, d)
        if not os.path.exists(os.path.join(ROOT, pol)):
            print("agent_results.py: %s missing, skipped" % pol, file=sys.stderr)
            continue
        c = compare(prog, "graphs/%s.json" % g, d, pol, HEURISTICS + ",anneal,ils")
        rows = {r["method"]: r for r in c["methods"]}
        s = summary("bench/results/train/%s_%d.jsonl" % (g, d))
        refine = place(prog, "graphs/%s.json" % g, d, pol, "--start", "heuristic")
        tr = [x for x in s["graphs"] if x["graph"] == c["graph"]][0]
        out.append({
            "graph": g, "devices": d, "lower_bound_us": c["lower_bound_us"], "single_us": c["single_us"],
            "placeto_trained_us": rows["placeto-trained"]["runtime_us"],
            "placeto_trained_oom": rows["placeto-trained"]["oom"],
            "placements_to_best": tr["found_after"], "episodes": s["episodes"],
            "placements_simulated": s["placements_simulated"], "train_seconds": s["seconds"],
            "placeto_zero_shot_us": rows["placeto"]["runtime_us"], "zero_shot_seconds": rows["placeto"]["seconds"],
            "placeto_refine_us": refine["runtime_us"], "refine_placements": refine["placements"],
            "baselines": {r["method"]: r["runtime_us"] for r in c["methods"] if not r["method"].startswith("placeto")},
            "baseline_oom": {r["method"]: r["oom"] for r in c["methods"] if not r["method"].startswith("placeto")},
        })
    return out


def generalization(prog, episodes, families=FAMILIES):
    out = []
    tmp = tempfile.mkdtemp()
    for fam in families:
        pol = "graphs/policies/family_%s.json" % fam
        if not os.path.exists(os.path.join(ROOT, pol)):
            print("agent_results.py: %s missing, skipped" % pol, file=sys.stderr)
            continue
        for path in sorted(glob.glob(os.path.join(ROOT, "graphs/families/%s/*.json" % fam)))[24:]:
            rel = os.path.relpath(path, ROOT)
            c = compare(prog, rel, 2, pol)
            rows = {r["method"]: r for r in c["methods"]}
            general = os.path.join(ROOT, "graphs/policies/general_2.json")
            gen_own = place(prog, rel, 2, general)
            gen_refine = place(prog, rel, 2, general, "--start", "heuristic")
            own = os.path.join(tmp, "own.json")
            lines = run(prog, "train", rel, "--devices", "2", "--episodes", str(episodes), "--seed", "1", "-o", own,
                        "--json").strip().splitlines()
            s = json.loads(lines[-1])
            b = best_baseline(c["methods"])
            out.append({
                "family": fam, "graph": c["graph"], "lower_bound_us": c["lower_bound_us"],
                "single_us": c["single_us"], "zero_shot_us": rows["placeto"]["runtime_us"],
                "zero_shot_placements": SAMPLES + 1, "own_policy_us": s["best_runtime_us"],
                "general_us": gen_own["runtime_us"], "general_refine_us": gen_refine["runtime_us"],
                "own_policy_placements": s["placements_simulated"], "own_policy_episodes": episodes,
                "best_baseline": b["method"], "best_baseline_us": b["runtime_us"],
            })
    return out


def general_rows(prog):
    out = []
    searches = {(r["graph_file"] if "graph_file" in r else r["graph"], r["devices"]): r
                for r in lib.read_result("bench/results/compare.json")}
    for path in sorted(glob.glob(os.path.join(ROOT, "graphs/*.json"))):
        rel = os.path.relpath(path, ROOT)
        for d in (2, 4, 8):
            pol = "graphs/policies/general_%d.json" % d
            if not os.path.exists(os.path.join(ROOT, pol)):
                continue
            c = compare(prog, rel, d)
            b = best_baseline(c["methods"])
            own = place(prog, rel, d, pol)
            ref = place(prog, rel, d, pol, "--start", "heuristic")
            s = searches.get((c["graph"], d)) or {}
            ms = {m["method"]: m["runtime_us"] for m in s.get("methods", [])}
            out.append({"graph": c["graph"], "devices": d, "lower_bound_us": c["lower_bound_us"],
                        "single_us": c["single_us"], "best_heuristic": b["method"],
                        "best_heuristic_us": b["runtime_us"], "general_us": own["runtime_us"],
                        "general_placements": own["placements"], "general_refine_us": ref["runtime_us"],
                        "general_refine_start": ref.get("start"), "general_refine_placements": ref["placements"],
                        "anneal_us": ms.get("anneal"), "ils_us": ms.get("ils")})
    return out


def fmt_ms(us):
    return "%.1f" % (us / 1000.0)


def markdown_general(rows):
    lines = ["### The general policies", "",
             "`general_D.json` placing every bundled graph with no training on it (one greedy and %d sampled "
             "episodes): *from device 0* starts where it was trained from, *refining* from the best heuristic's "
             "placement (what `--policy auto` does; never slower than that heuristic). *placements* is what "
             "each simulated. *anneal* / *ils*: the local searches with 20 000 placements "
             "(`bench/results/compare.json`). Runtime / lower bound." % SAMPLES, "",
             "| graph | devices | single | best heuristic | general from device 0 | placements | general refining "
             "| placements | anneal | ils |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lb = r["lower_bound_us"]
        x = lambda us: "–" if us is None else "%.2f" % (us / lb)
        lines.append("| %s | %d | %s | %s %s | %s | %d | %s (from %s) | %d | %s | %s |" % (
            r["graph"], r["devices"], x(r["single_us"]), r["best_heuristic"], x(r["best_heuristic_us"]),
            x(r["general_us"]), r["general_placements"], x(r["general_refine_us"]), r["general_refine_start"],
            r["general_refine_placements"], x(r["anneal_us"]), x(r["ils_us"])))
    beat = sum(r["general_us"] < r["best_heuristic_us"] for r in rows)
    lines += ["", "From device 0 the general policy beats the best heuristic on %d of %d graphs and device counts; "
              "refining, it is never slower than it and faster on %d." % (
                  beat, len(rows), sum(r["general_refine_us"] < r["best_heuristic_us"] for r in rows))]
    return "\n".join(lines) + "\n"


def markdown(single, gen):
    methods = ["single", "random", "round-robin", "expert", "m-topo", "m-etf", "heft", "metis", "scotch", "anneal",
               "ils"]
    lines = ["### Placeto on the bundled graphs", "",
             "Runtime as a multiple of the lower bound (lower is better; **bold** = best; OOM = a device over "
             "its memory) on the default K80 cluster. *Placeto trained* is the best placement training found; "
             "*placements* is how many placements training had simulated when it found it, and *time* the "
             "training's wall time on one core. *zero-shot* is the trained policy run again from the start it "
             "was trained from, everything on device 0 (one greedy and %d sampled episodes, no training); "
             "*refine* the same from the best heuristic's placement. *anneal* and *ils* are the local "
             "searches with 20 000 placements simulated each." % SAMPLES, "",
             "| graph | devices | lower bound (ms) | Placeto trained | placements | time | zero-shot | refine | " +
             " | ".join(methods) + " |", "|---" * (8 + len(methods)) + "|"]
    for r in single:
        lb = r["lower_bound_us"]
        vals = {"trained": (r["placeto_trained_us"], r["placeto_trained_oom"])}
        vals["zero"] = (r["placeto_zero_shot_us"], False)
        vals["refine"] = (r.get("placeto_refine_us", float("inf")), False)
        for m in methods:
            vals[m] = (r["baselines"].get(m, float("inf")), r["baseline_oom"].get(m, False))
        ok = [v for v, oom in vals.values() if not oom]
        best = min(ok) if ok else None

        def cell(key):
            v, oom = vals[key]
            t = "%.2f" % (v / lb) + (" OOM" if oom else "")
            return "**%s**" % t if v == best else t
        lines.append("| %s | %d | %s | %s | %d | %.0f s | %s | %s | %s |" % (
            r["graph"], r["devices"], fmt_ms(lb), cell("trained"), r["placements_to_best"], r["train_seconds"],
            cell("zero"), cell("refine"), " | ".join(cell(m) for m in methods)))
    lines += ["", "### Generalization to held-out graphs", "",
              "Each family's policy was trained on graphs 00–23 and is run zero-shot (%d episodes, no "
              "training) on graphs 24–31, from the start it was trained from (everything on device 0). "
              "*general* is the general policy (`general_2.json`, trained on every bundled model and graphs "
              "00–23 of every family) zero-shot the same way, and *general refine* the same from the best "
              "heuristic's placement (what `--policy auto` does). *own policy* is the best placement of a "
              "policy trained on that graph alone for %d episodes. All with the default (tuned) settings. "
              "Runtimes in ms, 2 default devices; ratios to the lower bound." % (
                  SAMPLES + 1, gen[0]["own_policy_episodes"] if gen else HELDOUT_EPISODES), "",
              "| family | graph | lower bound | single | best baseline | zero-shot | general | general refine "
              "| own policy |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in gen:
        lb = r["lower_bound_us"]
        ms = lambda k: "%s (%.2f)" % (fmt_ms(r[k]), r[k] / lb) if k in r else "–"
        lines.append("| %s | %s | %s | %s | %s %s | %s | %s | %s | %s |" % (
            r["family"], r["graph"], fmt_ms(lb), fmt_ms(r["single_us"]), r["best_baseline"], ms("best_baseline_us"),
            ms("zero_shot_us"), ms("general_us"), ms("general_refine_us"), ms("own_policy_us")))
    for fam in FAMILIES:
        rs = [r for r in gen if r["family"] == fam]
        if not rs:
            continue
        zs = sum(r["zero_shot_us"] / r["lower_bound_us"] for r in rs) / len(rs)
        own = sum(r["own_policy_us"] / r["lower_bound_us"] for r in rs) / len(rs)
        bb = sum(r["best_baseline_us"] / r["lower_bound_us"] for r in rs) / len(rs)
        sg = sum(r["single_us"] / r["lower_bound_us"] for r in rs) / len(rs)
        mean = lambda k: "%.2f" % (sum(r[k] / r["lower_bound_us"] for r in rs) / len(rs)) if all(
            k in r for r in rs) else "–"
        lines.append("| %s | **mean of 8** | | %.2f | %.2f | %.2f | %s | %s | %.2f |" % (
            fam, sg, bb, zs, mean("general_us"), mean("general_refine_us"), own))
    return "\n".join(lines) + "\n"


def main(argv):
    prog = "./placeto"
    episodes = HELDOUT_EPISODES
    part = "all"
    family = None
    args = argv[1:]
    if args and not args[0].startswith("--"):
        prog = args.pop(0)
    while args:
        opt = args.pop(0)
        if opt == "--episodes":
            episodes = int(args.pop(0))
        elif opt == "--part":
            part = args.pop(0)
        elif opt == "--family":
            family = args.pop(0)
            if family not in FAMILIES:
                sys.exit("agent_results.py: --family: expected one of %s" % ", ".join(FAMILIES))
            part = "family"
        else:
            sys.exit("agent_results.py: unknown option %s" % opt)
    res = os.path.join(ROOT, "bench/results")
    path = os.path.join(res, "agent.json")
    old = {"single": [], "generalization": []}
    if os.path.exists(path):
        old = lib.read_result(path)
    single = single_graphs(prog) if part in ("all", "single") else old["single"]  # --part none: tables only
    gen = generalization(prog, episodes) if part in ("all", "generalization") else old["generalization"]
    general = general_rows(prog) if part in ("all", "general") else old.get("general", [])
    if part == "family":  # the family's rows anew, in the family's place
        new = generalization(prog, episodes, [family])
        gen = [r for r in gen if r["family"] != family]
        at = next((i for i, r in enumerate(old["generalization"]) if r["family"] == family), len(gen))
        gen[at:at] = new
    lib.write_result(path, {"single": single, "generalization": gen, "general": general})
    md = markdown(single, gen) + ("\n" + markdown_general(general) if general else "")
    lib.write_result(os.path.join(res, "agent.md"), md)
    print(md)
    print("wrote bench/results/agent.json and bench/results/agent.md")


if __name__ == "__main__":
    main(sys.argv)
