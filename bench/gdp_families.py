#!/usr/bin/python3
"""GDP's family policies zero-shot against the best heuristic, graph by graph.

Per family (enas-cifar10, enas-ptb, nmt) and evaluation set, each graph is
placed on 2 devices by the family's GDP policy: its one greedy placement
(`place --policy P`) and the best of that and 8 sampled ones (`place
--policy P --samples 8`, as bench/rnn_families.py does) and the explicit
fallback row gdp-or-heuristic (`--start heuristic`: the better of that and
the best heuristic's placement), next to one device and the best heuristic (`compare --methods HEURISTICS --no-policy`: the
placement methods that are not searches). Counts the graphs where the
policy is slower than the best heuristic and than one device.

Sets (--sets, comma-separated): held-out (graphs 24-31), fresh (--fresh
DIR: members generated with new importer seeds, bench/fresh_families.py),
validation (graphs 20-23: for choosing training settings on policies
trained on 00-19 only; never 24-31 or the fresh ones); --families F,...
only those families. --policy PATTERN
takes the policy of family F from PATTERN % F (default
graphs/policies/gdp_family_%s.json). --tag T writes
bench/results/gdp_families_T.{json,md} instead of gdp_families.{json,md};
--out none writes nothing. The plain kernels (PLACETO_KERNELS=plain), so
the figures are the same on another CPU.

    /usr/bin/python3 bench/gdp_families.py [./placeto] [--policy PATTERN] [--sets S] [--fresh DIR] [--tag T]
"""
import concurrent.futures
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchargs  # noqa: E402

import lib  # bench/lib.py: write_result, read_result

os.environ["PLACETO_KERNELS"] = "plain"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEURISTICS = "single,random,round-robin,expert,m-topo,m-etf,heft,metis,scotch"
PROG, OPT = benchargs.options("gdp_families.py", ["policy", "sets", "fresh", "tag", "jobs", "out", "families", "seed"])
PATTERN = OPT.get("policy", "graphs/policies/gdp_family_%s.json")
SETS = OPT.get("sets", "held-out,fresh" if "fresh" in OPT else "held-out").split(",")
JOBS = int(OPT.get("jobs", os.cpu_count() or 1))
FAMS = OPT.get("families", "enas-cifar10,enas-ptb,nmt").split(",")


def run(*a):
    r = subprocess.run([PROG] + [str(x) for x in a], cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s %s: %s" % (PROG, " ".join(str(x) for x in a), r.stderr.strip()))
    return json.loads(r.stdout)


def sets():
    out = []
    for kind, fam, gs in benchargs.family_sets(OPT.get("fresh")):
        if kind in SETS and fam in FAMS:
            out.append((kind, fam, gs))
    if "validation" in SETS:
        for fam, m in benchargs.FAMILIES:
            if fam in FAMS:
                out.append(("validation", fam, ["graphs/families/%s/%s_%02d.json" % (fam, m, i) for i in range(20, 24)]))
    return out


def one(job):
    fam, g = job
    ref = run("compare", g, "--devices", 2, "--methods", HEURISTICS, "--no-policy", "--json")
    heur = min(ref["methods"], key=lambda m: (m["oom"], m["runtime_us"]))
    single = [m for m in ref["methods"] if m["method"] == "single"][0]
    pol = PATTERN % fam
    greedy = run("place", g, "--devices", 2, "--policy", pol, "--seed", benchargs.SEED, "--json")
    best9 = run("place", g, "--devices", 2, "--policy", pol, "--samples", 8, "--seed", benchargs.SEED, "--json")
    fb = run("place", g, "--devices", 2, "--policy", pol, "--samples", 8, "--start", "heuristic", "--seed", benchargs.SEED,
             "--json")
    lb = ref["lower_bound_us"]
    return job, {"graph": g, "groups": ref["groups"], "lower_bound_us": lb, "single": single["runtime_us"] / lb,
                 "heuristic": heur["runtime_us"] / lb, "heuristic_method": heur["method"],
                 "greedy": greedy["runtime_us"] / lb, "greedy_oom": greedy["oom"],
                 "best_of_9": best9["runtime_us"] / lb, "best_of_9_oom": best9["oom"],
                 "or_heuristic": fb["runtime_us"] / lb, "or_heuristic_oom": fb["oom"], "or_heuristic_placements": fb["placements"],
                 "heuristic_taken": fb["runtime_us"] != best9["runtime_us"]}


def main():
    ss = sets()
    jobs = [(fam, g) for _, fam, gs in ss for g in gs]
    with concurrent.futures.ThreadPoolExecutor(JOBS) as ex:
        res = dict(ex.map(one, jobs))
    rows = []
    for kind, fam, gs in ss:
        rs = [res[(fam, g)] for g in gs]
        mean = lambda k: sum(r[k] for r in rs) / len(rs)
        rows.append({"set": kind, "family": fam, "policy": PATTERN % fam, "graphs": len(rs),
                     "single": mean("single"), "heuristic": mean("heuristic"), "greedy": mean("greedy"),
                     "best_of_9": mean("best_of_9"), "or_heuristic": mean("or_heuristic"),
                     "or_heuristic_worse_than_heuristic": sum(r["or_heuristic"] > r["heuristic"] * (1 + 1e-9) for r in rs),
                     "heuristic_taken": sum(r["heuristic_taken"] for r in rs),
                     "greedy_worse_than_heuristic": sum(r["greedy"] > r["heuristic"] * (1 + 1e-9) for r in rs),
                     "best_of_9_worse_than_heuristic": sum(r["best_of_9"] > r["heuristic"] * (1 + 1e-9) for r in rs),
                     "greedy_worse_than_single": sum(r["greedy"] > r["single"] * (1 + 1e-9) for r in rs),
                     "best_of_9_worse_than_single": sum(r["best_of_9"] > r["single"] * (1 + 1e-9) for r in rs),
                     "per_graph": rs})
    cmd = "/usr/bin/python3 bench/gdp_families.py" + "".join(
        " --%s %s" % (k, OPT[k]) for k in ("policy", "sets", "families", "fresh", "seed", "tag") if k in OPT)
    md = ["`%s` (2 devices, the plain kernels; runtime / lower bound, mean over each set's graphs; *greedy*: the "
          "policy's one greedy placement, *best of 9*: that and 8 sampled ones; *worse*: graphs where the policy is "
          "slower than the best heuristic / than one device; *gdp-or-heuristic*: the fallback row, `--start heuristic`, the "
          "better of the best of 9 and the best heuristic's placement, and the graphs where it took the heuristic's)." % cmd, "",
          "| set | family | graphs | one device | best heuristic | GDP greedy | GDP best of 9 | greedy worse (heuristic / one device) | best of 9 worse (heuristic / one device) | gdp-or-heuristic (heuristic taken) |",
          "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        md.append("| %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %d / %d | %d / %d | %.3f (%d) |" % (
            r["set"], r["family"], r["graphs"], r["single"], r["heuristic"], r["greedy"], r["best_of_9"],
            r["greedy_worse_than_heuristic"], r["greedy_worse_than_single"], r["best_of_9_worse_than_heuristic"],
            r["best_of_9_worse_than_single"], r["or_heuristic"], r["heuristic_taken"]))
    text = "\n".join(md) + "\n"
    if OPT.get("out") != "none":
        name = "gdp_families" + ("_" + OPT["tag"] if "tag" in OPT else "")
        os.makedirs(os.path.join(ROOT, "bench/results"), exist_ok=True)
        with lib.open_result(os.path.join(ROOT, "bench/results", name + ".json")) as fh:
            json.dump({"command": cmd, "kernels": "plain", "rows": rows}, fh, indent=1)
            fh.write("\n")
        with lib.open_result(os.path.join(ROOT, "bench/results", name + ".md")) as fh:
            fh.write(text)
    print(text)


main()
