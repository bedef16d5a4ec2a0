#!/usr/bin/python3
"""Headroom on the paper's six cases (Inception-V3, NASNet and NMT on 2 and
4 devices): how much any placement can gain over one device on this
simulator, how much the best placements known gain, and how much the
paper's agents gained on real K80s.

Per case: ops and groups (`info`), the critical path (the longest path of
op costs, `info`) and its share of the single-device runtime, the lower
bound (`compare`: max(critical path, work / devices)), the single-device
runtime, the best heuristic (the fastest placement of compare's classic
methods, one device included, that fits in memory), and the best-known
placement: the best of `place --method ils` and `place --method anneal`
at BUDGET placements simulated (default 50 000) with seeds 1..SEEDS
(default 3). Speed-up = single-device runtime / runtime. The paper's
figures (seconds on real K80s, as quoted in graphs/README.md "Realism" and
docs/results.md "Table 1: Placeto against the RNN-based placer"): one
K80, Placeto and the RNN-based placer; its best method is the faster of
those two (the repository does not quote the paper's expert and Scotch
rows). NMT does not fit on one device, here or in the paper: its speed-up
is over the runtime one device would have without the memory limit.

Then what the costs do to the headroom (--variants yes, the default): the
same search (ILS, seed 1, VARIANT_BUDGET placements, default 50 000) and
the best heuristic on clusters that change one thing of the default
(`--devices D`: 7600 bytes/us, 25 us per transfer, 5.7 us per op, 11 GiB,
the Placeto simulator's parameters):

  no-latency      transfer_overhead_us 0 (bandwidth kept)
  inf-bandwidth   bandwidth_bytes_per_us 1e15 (overhead kept)
  ideal-link      both: a transfer is free
  pcie-x16        bandwidth 15 750 bytes/us (PCIe 3.0 x16's 15.75 GB/s peak, 2.07x the default)
  paper-k80       every op 1.52x slower (speed 1026.4 / 1560: the paper's measured one-K80
                  Inception-V3 step over this simulator's roofline one), the link kept
  no-memory-limit memory 2^50 bytes (only on cases whose one-device placement is out of memory)

Writes bench/results/headroom.{json,md} (not with --cases) and prints the
tables; the CPU time of the whole run is in the caption (818 s with the
defaults, 32 minutes of wall time on the shared 2-core machine; NMT's
searches are three quarters of it). --table yes prints the tables again
from bench/results/headroom.json without simulating.

    /usr/bin/python3 bench/headroom.py [./placeto] [--budget 50000] [--seeds 3] [--variant-budget 50000]
                                       [--variants yes|no] [--cases inception_v3:2,nmt:4] [--jobs 2]
                                       [--table yes]
"""
import concurrent.futures
import json
import os
import resource
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchargs  # noqa: E402

import lib  # bench/lib.py: write_result, read_result

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROG, OPT = benchargs.options("headroom.py", ["budget", "seeds", "variant-budget", "variants", "cases", "jobs", "table"])
BUDGET = int(OPT.get("budget", 50000))
SEEDS = int(OPT.get("seeds", 3))
VBUDGET = int(OPT.get("variant-budget", 50000))
VARIANTS = OPT.get("variants", "yes") == "yes"
JOBS = int(OPT.get("jobs", min(2, os.cpu_count() or 1)))
CASES = [(g, d) for g in ("inception_v3", "nasnet", "nmt") for d in (2, 4)]
if "cases" in OPT:
    CASES = [(c.split(":")[0], int(c.split(":")[1])) for c in OPT["cases"].split(",")]
HEURISTICS = ["single", "random", "round-robin", "heft", "m-topo", "m-etf", "expert", "metis", "scotch"]

# The paper's Table 1, seconds on real K80s (graphs/README.md "Realism": one K80; docs/results.md "Table 1:
# Placeto against the RNN-based placer": Placeto and the RNN-based placer). None: out of memory on one K80.
PAPER = {("inception_v3", 2): (1.56, 1.18, 1.17), ("inception_v3", 4): (1.56, 1.13, 1.19),
         ("nmt", 2): (None, 2.32, 2.35), ("nmt", 4): (None, 2.63, 3.15),
         ("nasnet", 2): (1.28, 0.86, 0.89), ("nasnet", 4): (1.28, 0.74, 0.76)}
DEFAULT = {"op_gap_us": 5.7, "transfer_overhead_us": 25.0, "bandwidth_bytes_per_us": 7600.0,
           "speed": 1.0, "memory_bytes": 11811160064}
VARIANT_DEFS = [("no-latency", {"transfer_overhead_us": 0.0}),
                ("inf-bandwidth", {"bandwidth_bytes_per_us": 1e15}),
                ("ideal-link", {"transfer_overhead_us": 0.0, "bandwidth_bytes_per_us": 1e15}),
                ("pcie-x16", {"bandwidth_bytes_per_us": 15750.0}),
                ("paper-k80", {"speed": 1026.413549 / 1560.0}),
                ("no-memory-limit", {"memory_bytes": 1 << 50})]


def run(args):
    r = subprocess.run([PROG] + args + ["--json"], check=True, capture_output=True, text=True, cwd=ROOT)
    return json.loads(r.stdout)


def cluster_file(tmp, name, d, change):
    p = dict(DEFAULT, **change)
    doc = {"format": "placeto-cluster", "version": 1, "name": "%dx K80, %s" % (d, name),
           "devices": [{"name": "/GPU:%d" % i, "kind": "gpu", "speed": p["speed"], "memory_bytes": p["memory_bytes"]}
                       for i in range(d)],
           "op_gap_us": p["op_gap_us"], "transfer_overhead_us": p["transfer_overhead_us"],
           "bandwidth_bytes_per_us": p["bandwidth_bytes_per_us"]}
    path = os.path.join(tmp, "%s_%d.json" % (name, d))
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def heuristics(g, where):
    doc = run(["compare", "graphs/%s.json" % g, "--no-policy", "--methods", ",".join(HEURISTICS)] + where)
    fits = [m for m in doc["methods"] if not m["oom"]]
    best = min(fits, key=lambda m: m["runtime_us"])
    single = next(m for m in doc["methods"] if m["method"] == "single")
    return {"lower_bound_us": doc["lower_bound_us"], "single_us": doc["single_us"], "single_oom": single["oom"],
            "best_heuristic": best["method"], "best_heuristic_us": best["runtime_us"]}


def search(job):
    g, d, method, seed, budget, where = job
    doc = run(["place", "graphs/%s.json" % g, "--method", method, "--budget", str(budget), "--seed", str(seed)]
              + list(where))
    return job, {"runtime_us": doc["runtime_us"], "oom": doc["oom"]}


def speedup(single, t):
    return single / t


def main():
    if OPT.get("table") == "yes":  # the tables again from the last whole run, without simulating
        md = table(lib.read_result(os.path.join(ROOT, "bench/results/headroom.json")))
        with lib.open_result(os.path.join(ROOT, "bench/results/headroom.md")) as f:
            f.write(md)
        print(md, end="")
        return
    tmpdir = tempfile.TemporaryDirectory(prefix="headroom.")
    tmp = tmpdir.name
    rows = []
    jobs = []
    for g, d in CASES:
        info = run(["info", "graphs/%s.json" % g, "--devices", str(d)])
        h = heuristics(g, ["--devices", str(d)])
        row = {"graph": g, "devices": d, "ops": info["ops"], "groups": info["groups"],
               "critical_path_us": info["critical_path_us"], "total_cost_us": info["total_cost_us"], **h}
        row["critical_path_share"] = info["critical_path_us"] / h["single_us"]
        row["variants"] = {}
        rows.append(row)
        jobs += [(g, d, m, s, BUDGET, ("--devices", str(d))) for m in ("ils", "anneal") for s in range(1, SEEDS + 1)]
        if VARIANTS:
            for name, change in VARIANT_DEFS:
                if name == "no-memory-limit" and not h["single_oom"]:
                    continue
                c = cluster_file(tmp, name, d, change)
                vh = heuristics(g, ["--cluster", c])
                row["variants"][name] = dict(vh, change=change, cluster=c)
                jobs.append((g, d, "ils", 1, VBUDGET, ("--cluster", c)))
    with concurrent.futures.ThreadPoolExecutor(JOBS) as ex:
        res = dict(ex.map(search, jobs))
    for row in rows:
        g, d = row["graph"], row["devices"]
        runs = {"%s seed %d" % (m, s): res[(g, d, m, s, BUDGET, ("--devices", str(d)))]
                for m in ("ils", "anneal") for s in range(1, SEEDS + 1)}
        row["searches"] = runs
        best = min(((k, v) for k, v in runs.items() if not v["oom"]), key=lambda kv: kv[1]["runtime_us"])
        row["best_known"], row["best_known_us"] = best[0], best[1]["runtime_us"]
        row["ils_seed1_us"] = runs["ils seed 1"]["runtime_us"]
        single, cp_bound = row["single_us"], row["single_us"] / row["lower_bound_us"]
        row["speedup_bound"] = cp_bound
        row["speedup_best_heuristic"] = speedup(single, row["best_heuristic_us"])
        row["speedup_best_known"] = speedup(single, row["best_known_us"])
        p1, pp, pr = PAPER[(g, d)]
        row["paper"] = {"single_s": p1, "placeto_s": pp, "rnn_s": pr,
                        "best": "placeto" if pp <= pr else "rnn", "best_s": min(pp, pr),
                        "speedup_placeto": p1 / pp if p1 else None,
                        "speedup_best": p1 / min(pp, pr) if p1 else None}
        for name, v in row["variants"].items():
            v["ils_seed1_us"] = res[(g, d, "ils", 1, VBUDGET, ("--cluster", v["cluster"]))]["runtime_us"]
            v["ils_seed1_oom"] = res[(g, d, "ils", 1, VBUDGET, ("--cluster", v["cluster"]))]["oom"]
            v["speedup_bound"] = v["single_us"] / v["lower_bound_us"]
            v["speedup_best_heuristic"] = speedup(v["single_us"], v["best_heuristic_us"])
            v["speedup_ils"] = speedup(v["single_us"], v["ils_seed1_us"])
            del v["cluster"]
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = ru.ru_utime + ru.ru_stime
    out = {"budget": BUDGET, "seeds": SEEDS, "variant_budget": VBUDGET, "cpu_seconds": cpu, "rows": rows,
           "command": " ".join(["/usr/bin/python3", "bench/headroom.py"] + sys.argv[1:])}
    md = table(out)
    os.makedirs(os.path.join(ROOT, "bench/results"), exist_ok=True)
    if not OPT.get("cases"):
        with lib.open_result(os.path.join(ROOT, "bench/results/headroom.json")) as f:
            json.dump(out, f, indent=1)
        with lib.open_result(os.path.join(ROOT, "bench/results/headroom.md")) as f:
            f.write(md)
    print(md, end="")


def table(out):
    def s(us):
        return "%.3f" % (us / 1e6)
    lines = ["Headroom on the paper's cases: `%s` (CPU %.0f s). Runtime in s on the simulator (`--devices D`); "
             "*cp share*: critical path / single-device runtime; *bound*: single / lower bound, the largest "
             "speed-up any placement can have; *best known*: the best of ILS and anneal, seeds 1-%d, %d "
             "placements each; speed-ups over one device. *paper*: one K80 → Placeto (its speed-up); the "
             "paper's best of Placeto and the RNN-based placer. OOM: one device is out of memory (the speed-up "
             "is over its runtime without the limit)." % (out["command"], out["cpu_seconds"], out["seeds"],
                                                          out["budget"]), "",
             "| case | ops / groups | cp share | bound | single | best heuristic (speed-up) | best known "
             "(speed-up, search) | paper: one K80 → Placeto (speed-up) | paper's best (speed-up) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in out["rows"]:
        p = r["paper"]
        if p["single_s"]:
            pl = "%.2f → %.2f (%.2f×)" % (p["single_s"], p["placeto_s"], p["speedup_placeto"])
            pb = "%s %.2f (%.2f×)" % (p["best"], p["best_s"], p["speedup_best"])
        else:
            pl = "OOM → %.2f (—)" % p["placeto_s"]
            pb = "%s %.2f (—)" % (p["best"], p["best_s"])
        lines.append("| %s/%d | %d / %d | %.1f %% | %.2f× | %s%s | %s %s (%.2f×) | %s (%.2f×, %s) | %s | %s |" % (
            r["graph"], r["devices"], r["ops"], r["groups"], 100 * r["critical_path_share"], r["speedup_bound"],
            s(r["single_us"]), " OOM" if r["single_oom"] else "", r["best_heuristic"], s(r["best_heuristic_us"]),
            r["speedup_best_heuristic"], s(r["best_known_us"]), r["speedup_best_known"], r["best_known"], pl, pb))
    if any(r["variants"] for r in out["rows"]):
        names = [n for n, _ in VARIANT_DEFS if any(n in r["variants"] for r in out["rows"])]
        lines += ["", "Speed-up over one device of ILS (seed 1, %d placements) / the best heuristic, on the "
                  "default cluster and on clusters that change one thing (bound: single / lower bound, the "
                  "same on every link)." % out["variant_budget"], "",
                  "| case | bound | default | " + " | ".join(names) + " |", "|---|---|---|" + "---|" * len(names)]
        for r in out["rows"]:
            cells = []
            for n in names:
                v = r["variants"].get(n)
                cells.append("%.2f× / %.2f×" % (v["speedup_ils"], v["speedup_best_heuristic"]) if v else "—")
            lines.append("| %s/%d | %.2f× | %.2f× / %.2f× | %s |" % (
                r["graph"], r["devices"], r["speedup_bound"], r["single_us"] / r["ils_seed1_us"],
                r["speedup_best_heuristic"], " | ".join(cells)))
    return "\n".join(lines) + "\n"


main()
