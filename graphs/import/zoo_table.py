#!/usr/bin/python3
"""Prints the markdown table of graphs/README.md from real runs of placeto:
`placeto info --json` for every bundled graph and `placeto simulate --json`
of everything on one default device (runtime and peak memory).

  /usr/bin/python3 graphs/import/zoo_table.py [./placeto]
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

PROG = sys.argv[1] if len(sys.argv) > 1 else "./placeto"
CAPACITY = 11811160064


def run(*args):
    return json.loads(subprocess.run([PROG, *args], check=True, capture_output=True, text=True).stdout)


def measure(path, tmp):
    info = run("info", path, "--json")
    g = json.load(open(path))
    place = {"format": "placeto-placement", "version": 1, "devices": 1, "ops": {n["name"]: 0 for n in g["nodes"]}}
    p = os.path.join(tmp, "p.json")
    json.dump(place, open(p, "w"))
    sim = run("simulate", path, "--placement", p, "--json")
    info["single_us"] = sim["makespan_us"]
    info["single_mem"] = sim["devices"][0]["peak_memory_bytes"]
    return info


def ms(us):
    return "%.1f" % (us / 1000.0)


def gb(b):
    return "%.2f" % (b / 1e9)


def row(label, i):
    lb = i["lower_bound_us"]
    oom = " (OOM)" if i["single_mem"] > CAPACITY else ""
    return "| %s | %d | %d | %d | %s | %s | %s / %s / %s / %s | %s | %s%s |" % (
        label, i["ops"], i["edges"], i["groups"], ms(i["total_cost_us"]), ms(i["critical_path_us"]),
        ms(lb["1"]), ms(lb["2"]), ms(lb["4"]), ms(lb["8"]), ms(i["single_us"]), gb(i["single_mem"]), oom)


def span(vals, fmt):
    return "%s–%s" % (fmt(min(vals)), fmt(max(vals)))


def main():
    print("| graph | ops | edges | groups | total cost (ms) | critical path (ms) | lower bound 1/2/4/8 devices (ms) "
          "| 1 device: runtime (ms) | 1 device: peak memory (GB) |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(glob.glob("graphs/*.json")) + sorted(glob.glob("graphs/inference/*.json")) + \
                sorted(glob.glob("graphs/toy/*.json")):
            print(row("`%s`" % os.path.relpath(path, "graphs"), measure(path, tmp)))
        for fam in sorted(glob.glob("graphs/families/*")):
            infos = [measure(p, tmp) for p in sorted(glob.glob(fam + "/*.json"))]
            if not infos:
                continue
            k = lambda key: [i[key] for i in infos]
            lb = lambda d: [i["lower_bound_us"][d] for i in infos]
            print("| `%s/` (%d graphs) | %s | %s | %s | %s | %s | %s / %s / %s / %s | %s | %s |" % (
                os.path.relpath(fam, "graphs"), len(infos), span(k("ops"), str), span(k("edges"), str),
                span(k("groups"), str), span(k("total_cost_us"), ms), span(k("critical_path_us"), ms),
                span(lb("1"), ms), span(lb("2"), ms), span(lb("4"), ms), span(lb("8"), ms),
                span(k("single_us"), ms), span(k("single_mem"), gb)))


if __name__ == "__main__":
    main()
