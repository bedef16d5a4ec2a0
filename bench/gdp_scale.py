#!/usr/bin/python3
"""GDP at its paper's scale: op-level training graphs of over 50 000 ops
(an 8-layer GNMT and an 8-layer LSTM language model, bench/gdp_scale_models.py)
placed by GDP on 8 devices, one group per op (every colocation class its own
group), against the heuristics, ILS and annealing at GDP's budget of
placements simulated, and the expert placement; and a family policy
fine-tuned on such a graph against the same budget from scratch.

    /usr/bin/python3 bench/gdp_scale.py import [--dir DIR]
        imports DIR/gnmt8.json (72 steps) and DIR/rnnlm8.json (165 steps)
        with graphs/import/torch_graph.py --module (about 14 minutes each on
        this 2-core machine) and tags their layers (graphs/import/layers.py's
        tag_layers: one layer per LSTM layer, embedding, softmax) for the
        expert placement. The files are about 10 MB each: keep them out of git.
    /usr/bin/python3 bench/gdp_scale.py run [--dir DIR] [--graphs gnmt8,rnnlm8] [--devices 8]
        [--updates U] [--samples K] [--epochs E] [--hidden H]
        per graph: the heuristics (compare --no-policy), GDP trained from
        scratch for U updates of K placements and E epochs under
        /usr/bin/time -v (wall time, the updates' rate, peak memory, the
        best placement and the trained policy's greedy one), then ILS and
        annealing given the placements GDP simulated (compare --methods
        ils,anneal --budget N)
    /usr/bin/python3 bench/gdp_scale.py finetune [--dir DIR] [--graphs gnmt8] [--policy P] [--devices D]
        [--updates U] [--samples K] [--epochs E] [--grouping op|default]
        the family policy P (default graphs/policies/gdp_family_nmt.json, 2
        devices) fine-tuned on the graph (train --resume P) against a new
        network of P's shape trained from scratch, U updates each: the best
        runtime by placements simulated, one group per op (--grouping op)
        or in the graph's default grouping (--grouping default, at most
        200 groups, as the family policy was trained)

Every run's command is kept in bench/results/gdp_scale.json (each
subcommand replaces its own part); bench/results/gdp_scale.md is the
tables. DIR defaults to /tmp/gdp_scale. The network runs on OpenBLAS,
one thread (as training does by default)."""
import csv
import json
import os
import re
import subprocess
import sys
import time

import lib  # bench/lib.py: write_result, read_result

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "graphs", "import"))
HEURISTICS = "single,random,round-robin,expert,m-topo,m-etf,heft,metis,scotch"
GRAPHS = {
    "gnmt8": {"factory": "gnmt8", "steps": 72,
              "inputs": ["source_tokens=steps:int64:32000", "target_tokens=steps:int64:32000",
                         "labels=steps:int64:32000"],
              "rules": [(r"^net\.m\.(src_emb|tgt_emb)\.", lambda m: "embedding"),
                        (r"^net\.m\.(enc_fw|enc_bw)\.", lambda m: "enc.0"),
                        (r"^net\.m\.enc\.(\d+)\.", lambda m: "enc.%d" % (int(m.group(1)) + 1)),
                        (r"^net\.m\.dec\.(\d+)\.", lambda m: "dec.%d" % int(m.group(1))),
                        (r"^net\.m\.(attn|combine|out)\.", lambda m: "softmax")]},
    "rnnlm8": {"factory": "rnnlm8", "steps": 165,
               "inputs": ["tokens=steps:int64:10000", "labels=steps:int64:10000"],
               "rules": [(r"^net\.m\.emb\.", lambda m: "embedding"),
                         (r"^net\.m\.cells\.(\d+)\.", lambda m: "lstm.%d" % int(m.group(1))),
                         (r"^net\.m\.out\.", lambda m: "softmax")]},
}


def die(msg):
    sys.exit("gdp_scale.py: %s" % msg)


def options(argv, known):
    got = {}
    while argv:
        k = argv.pop(0)
        if not k.startswith("--") or k[2:] not in known or not argv:
            die("unknown option or missing value: %s (known: %s)" % (k, ", ".join("--" + n for n in known)))
        got[k[2:]] = argv.pop(0)
    return got


def sh(cmd, timed=False):
    """Runs cmd (a list) from the repository root; returns (stdout, stderr, seconds)."""
    cmd = [str(x) for x in cmd]
    if timed:
        cmd = ["/usr/bin/time", "-v"] + cmd
    t = time.time()
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        die("%s: exit %d: %s" % (" ".join(cmd), r.returncode, r.stderr.strip()[-2000:]))
    return r.stdout, r.stderr, time.time() - t


def peak_kb(stderr):
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    return int(m.group(1)) if m else None


def import_cmd(name, path):
    g = GRAPHS[name]
    cmd = ["/usr/bin/python3", "graphs/import/torch_graph.py", "--module",
           "bench/gdp_scale_models.py:%s" % g["factory"]]
    for i in g["inputs"]:
        cmd += ["--input", i]
    return cmd + ["--dim", "steps=%d" % g["steps"], "--batch", 64, "--name", name, "-q", "-o", path]


def tag(name, path):
    """Adds the layer tags (layers.tag_layers with the graph's rules) in place."""
    import layers
    rules = [(re.compile(rx), fn) for rx, fn in GRAPHS[name]["rules"]]
    with open(path) as f:
        doc = json.load(f)
    layers.tag_layers(doc["nodes"], doc.get("edges", []), rules)
    text = json.dumps(doc, indent=None, separators=(",", ":"), sort_keys=False)
    text = text.replace('{"name"', '\n{"name"').replace('{"src"', '\n{"src"') + "\n"
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)
    return sorted({n["layer"] for n in doc["nodes"]})


def results():
    p = os.path.join(ROOT, "bench/results/gdp_scale.json")
    if os.path.exists(p):
        return lib.read_result(p)
    return {}


def save(doc):
    os.makedirs(os.path.join(ROOT, "bench/results"), exist_ok=True)
    with lib.open_result(os.path.join(ROOT, "bench/results/gdp_scale.json")) as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    with lib.open_result(os.path.join(ROOT, "bench/results/gdp_scale.md")) as f:
        f.write(markdown(doc))


def info(path, devices):
    d = json.loads(sh(["./placeto", "info", path, "--json"])[0])
    return d["ops"], d["lower_bound_us"][str(devices)] if str(devices) in d["lower_bound_us"] else None


def curve_best(path, marks, offset=0):
    """[(placements, best runtime so far)] at each mark of placements simulated (the last row at or below it),
    counting from offset (a resumed policy's earlier placements)."""
    rows = list(csv.DictReader(open(path)))
    last = int(rows[-1]["placements_simulated"]) - offset
    out = []
    for m in sorted({m for m in marks if m < last} | {last}):
        seen = [r for r in rows if int(r["placements_simulated"]) - offset <= m]
        if seen:
            out.append((int(seen[-1]["placements_simulated"]) - offset, min(float(r["best_runtime_us"]) for r in seen)))
    return out


def do_import(opt):
    d = opt.get("dir", "/tmp/gdp_scale")
    os.makedirs(d, exist_ok=True)
    doc = results()
    doc.setdefault("import", {})
    for name in opt.get("graphs", "gnmt8,rnnlm8").split(","):
        path = os.path.join(d, name + ".json")
        cmd = import_cmd(name, path)
        out, err, secs = sh(cmd)
        lays = tag(name, path)
        ops, _ = info(path, 8)
        doc["import"][name] = {"command": " ".join(str(x) for x in cmd), "seconds": round(secs, 1), "ops": ops,
                               "layers": lays, "bytes": os.path.getsize(path), "summary": out.strip()}
        print("%s: %d ops, %d layers, %.0f s" % (name, ops, len(lays), secs), flush=True)
        save(doc)


def train_cmd(path, devices, groups, updates, k, e, out, extra):
    return ["./placeto", "train", path, "--agent", "gdp", "--devices", devices, "--groups", groups,
            "--samples-per-update", k, "--epochs", e, "--episodes", updates, "--seed", 1, "-o", out,
            "--curve", out[:-5] + ".csv", "--checkpoint-every", 100000, "--json"] + extra


def do_run(opt):
    d = opt.get("dir", "/tmp/gdp_scale")
    nd, u, k, e, h = (int(opt.get(x, v)) for x, v in
                      (("devices", 8), ("updates", 40), ("samples", 16), ("epochs", 1), ("hidden", 128)))
    doc = results()
    doc.setdefault("run", {})
    for name in opt.get("graphs", "gnmt8,rnnlm8").split(","):
        path = os.path.join(d, name + ".json")
        ops, lb = info(path, nd)
        groups = ops  # every colocation class its own group
        base = ["--devices", nd, "--groups", groups, "--json"]
        ref, _, hsecs = sh(["./placeto", "compare", path, "--methods", HEURISTICS, "--no-policy"] + base)
        ref = json.loads(ref)
        heur = {m["method"]: {"runtime_us": m["runtime_us"], "oom": m["oom"]} for m in ref["methods"]}
        pol = os.path.join(d, "gdp_%s_%d.json" % (name, nd))
        cmd = train_cmd(path, nd, groups, u, k, e, pol, ["--hidden", h])
        out, err, secs = sh(cmd, timed=True)
        lines = [json.loads(x) for x in out.strip().splitlines()]
        summ = lines[-1]
        rates = [x["episodes_per_second"] for x in lines[:-1] if "episodes_per_second" in x]
        greedy = json.loads(sh(["./placeto", "place", path, "--policy", pol] + base)[0])
        n = summ["placements_simulated"]
        srch = json.loads(sh(["./placeto", "compare", path, "--methods", "ils,anneal", "--budget", n,
                              "--seed", 1] + base)[0])
        row = {"ops": ops, "groups": ref["groups"], "devices": nd, "lower_bound_us": ref["lower_bound_us"],
               "heuristics": heur, "heuristics_seconds": round(hsecs, 1),
               "gdp": {"command": " ".join(str(x) for x in cmd), "updates": u, "samples": k, "epochs": e,
                       "hidden": h, "seconds": summ["seconds"], "placements": n,
                       "seconds_per_update": summ["seconds"] / u, "last_rate": rates[-1] if rates else None,
                       "peak_rss_kb": peak_kb(err),
                       "best_us": [x for x in summ["graphs"] if x["graph"] == name][0]["best_runtime_us"],
                       "greedy_us": greedy["runtime_us"], "greedy_oom": greedy["oom"],
                       "curve": curve_best(pol[:-5] + ".csv", [k * 2 ** i for i in range(12)])},
               "search": {m["method"]: {"runtime_us": m["runtime_us"], "oom": m["oom"], "seconds": m["seconds"],
                                        "placements": m.get("placements")} for m in srch["methods"]},
               "search_budget": n}
        doc["run"][name] = row
        save(doc)
        print("%s: gdp best %.3f x the bound after %d placements, %.1f s per update, peak %s kB" % (
            name, summ["best_runtime_us"] / ref["lower_bound_us"], n, summ["seconds"] / u, peak_kb(err)), flush=True)


def do_finetune(opt):
    d = opt.get("dir", "/tmp/gdp_scale")
    pol = opt.get("policy", "graphs/policies/gdp_family_nmt.json")
    nd, u, k, e = (int(opt.get(x, v)) for x, v in (("devices", 2), ("updates", 40), ("samples", 16), ("epochs", 1)))
    grouping = opt.get("grouping", "op")
    if grouping not in ("op", "default"):
        die("--grouping: op (one group per op) or default (the graph's default grouping)")
    with open(os.path.join(ROOT, pol)) as f:
        arch = json.load(f)["architecture"]
    shape = ["--hidden", arch["hidden"], "--heads", arch["heads"], "--gnn-layers", arch["gnn_layers"],
             "--blocks", arch["blocks"], "--segment", arch["segment"]] + ([] if arch["superposition"] else
                                                                         ["--no-superposition"])
    doc = results()
    doc.setdefault("finetune", {})
    for name in opt.get("graphs", "gnmt8").split(","):
        path = os.path.join(d, name + ".json")
        ops, _ = info(path, nd)
        groups = ops if grouping == "op" else 0  # 0: the default grouping (no --groups)
        gopt = ["--groups", groups] if groups else []
        ref = json.loads(sh(["./placeto", "compare", path, "--methods", HEURISTICS, "--no-policy", "--devices", nd,
                             "--json"] + gopt)[0])
        hs = [m for m in ref["methods"] if not m["oom"]] or ref["methods"]
        best = min(hs, key=lambda m: m["runtime_us"])
        zs = json.loads(sh(["./placeto", "place", path, "--policy", pol, "--samples", 8, "--devices", nd,
                            "--json"] + gopt)[0])
        row = {"policy": pol, "devices": nd, "ops": ops, "groups": ref["groups"], "grouping": grouping,
               "lower_bound_us": ref["lower_bound_us"], "best_heuristic": best["method"],
               "best_heuristic_us": best["runtime_us"], "zero_shot_us": zs["runtime_us"], "zero_shot_oom": zs["oom"]}
        with open(os.path.join(ROOT, pol)) as f:
            before = json.load(f)["training"]["simulations"]  # the family's training placements
        for kind, extra in (("scratch", shape), ("finetuned", ["--resume", pol])):
            offset = before if kind == "finetuned" else 0
            out_pol = os.path.join(d, "ft_%s_%s_%d_%s.json" % (kind, name, nd, grouping))
            cmd = train_cmd(path, nd, groups, u, k, e, out_pol, extra)
            if not groups:
                i = cmd.index("--groups")
                del cmd[i:i + 2]
            out, err, secs = sh(cmd, timed=True)
            summ = json.loads(out.strip().splitlines()[-1])
            n = summ["placements_simulated"] - offset  # this run's (the summary counts the family's too)
            best = [x for x in summ["graphs"] if x["graph"] == name][0]["best_runtime_us"]
            row[kind] = {"command": " ".join(str(x) for x in cmd), "seconds": summ["seconds"], "placements": n,
                         "best_us": best, "peak_rss_kb": peak_kb(err),
                         "curve": curve_best(out_pol[:-5] + ".csv", [k * 2 ** i for i in range(12)], offset)}
            print("%s %s: best %.3f x the bound after %d placements, %.0f s" % (
                name, kind, best / ref["lower_bound_us"], n, summ["seconds"]), flush=True)
        doc["finetune"]["%s_%d_%s" % (name, nd, grouping)] = row
        save(doc)


def markdown(doc):
    md = ["# GDP at 50 000 nodes", "", "`/usr/bin/python3 bench/gdp_scale.py` (runtime / lower bound; OOM: a device "
          "over its memory).", ""]
    for name, r in doc.get("import", {}).items():
        md.append("- `%s`: %d ops, %d layers, imported in %.0f s: `%s`" % (name, r["ops"], len(r["layers"]),
                                                                           r["seconds"], r["command"]))
    if doc.get("run"):
        md += ["", "| graph | ops | groups | devices | K, E, h | s per update | peak memory | placements | GDP best | "
               "GDP greedy | best heuristic | expert | ils | anneal |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for name, r in doc["run"].items():
            lb, g = r["lower_bound_us"], r["gdp"]
            hs = {m: v for m, v in r["heuristics"].items() if not v["oom"]} or r["heuristics"]
            hb = min(hs, key=lambda m: hs[m]["runtime_us"])
            x = lambda v: "%.3f%s" % (v["runtime_us"] / lb, " OOM" if v["oom"] else "")
            md.append("| %s | %d | %d | %d | %d, %d, %d | %.2f | %.2f GB | %d | %.3f | %.3f%s | %s %s | %s | %s | %s |" % (
                name, r["ops"], r["groups"], r["devices"], g["samples"], g["epochs"], g["hidden"],
                g["seconds_per_update"], g["peak_rss_kb"] / 1048576.0, g["placements"], g["best_us"] / lb,
                g["greedy_us"] / lb, " OOM" if g["greedy_oom"] else "", hb, x(r["heuristics"][hb]),
                x(r["heuristics"]["expert"]), x(r["search"]["ils"]), x(r["search"]["anneal"])))
        md += ["", "GDP's best runtime by placements simulated:", ""]
        for name, r in doc["run"].items():
            md.append("- %s: %s" % (name, ", ".join("%d: %.3f" % (p, b / r["lower_bound_us"])
                                                    for p, b in r["gdp"]["curve"])))
    if doc.get("finetune"):
        md += ["", "Fine-tuning a family policy against the same budget from scratch (best runtime / lower bound "
               "by placements simulated):", ""]
        for name, r in doc["finetune"].items():
            md.append("- %s (%s, %d devices, %d groups; best heuristic %s %.3f; the policy zero-shot, best of 9, %.3f%s):" % (
                name, r["policy"], r["devices"], r["groups"], r["best_heuristic"], r["best_heuristic_us"] / r["lower_bound_us"],
                r["zero_shot_us"] / r["lower_bound_us"], " OOM" if r["zero_shot_oom"] else ""))
            for kind in ("scratch", "finetuned"):
                md.append("  - %s: %s" % (kind, ", ".join("%d: %.3f" % (p, b / r["lower_bound_us"])
                                                         for p, b in r[kind]["curve"])))
    return "\n".join(md) + "\n"


def main():
    argv = sys.argv[1:]
    if not argv or argv[0] not in ("import", "run", "finetune"):
        die("usage: gdp_scale.py import|run|finetune [options] (see the file's docstring)")
    what = argv.pop(0)
    if what == "import":
        do_import(options(argv, ["dir", "graphs"]))
    elif what == "run":
        do_run(options(argv, ["dir", "graphs", "devices", "updates", "samples", "epochs", "hidden"]))
    else:
        do_finetune(options(argv, ["dir", "graphs", "policy", "devices", "updates", "samples", "epochs", "grouping"]))


if __name__ == "__main__":
    main()
