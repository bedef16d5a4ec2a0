#!/usr/bin/python3
"""What a user's first `placeto train` gives (docs/results.md, "What the
default train gives"): `train GRAPH -o p.json` with every default (200
episodes, the search preset, --keep best) on graphs the defaults were not
tuned on, seed by seed, and from its closing comparison: the policy's own
placement (what `place --policy p.json` gives), its untrained control (the
same network with the weights training started from, placed the same way),
the best heuristic and the best placement seen in training. The training's
own share is the policy against its control; the heuristic is the floor
the search starts from.

    /usr/bin/python3 bench/default_train.py [--prog ./placeto] [--seeds 1,2,3] [--devices D] GRAPH...

Writes bench/results/default_train.{json,md} (PLACETO_KERNELS=plain).
"""
import json
import math
import os
import subprocess
import sys
import tempfile

import lib  # bench/lib.py: write_result, read_result

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = dict(os.environ, PLACETO_KERNELS="plain")


def mean_ci(xs):
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return m, 0.0
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    t = {2: 12.71, 3: 4.30, 4: 3.18, 5: 2.78}.get(len(xs), 2.0)
    return m, t * sd / math.sqrt(len(xs))


def main():
    a = sys.argv[1:]
    prog, seeds, devices, graphs = "./placeto", [1, 2, 3], "2", []
    while a:
        k = a.pop(0)
        if k == "--prog": prog = a.pop(0)
        elif k == "--seeds": seeds = [int(x) for x in a.pop(0).split(",")]
        elif k == "--devices": devices = a.pop(0)
        elif k.startswith("-"): sys.exit(__doc__)
        else: graphs.append(k)
    if not graphs:
        sys.exit(__doc__)
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for g in graphs:
            for s in seeds:
                pol = os.path.join(tmp, "p.json")
                r = subprocess.run([prog, "train", g, "--devices", devices, "--seed", str(s), "-o", pol, "--json"],
                                   cwd=ROOT, env=ENV, capture_output=True, text=True)
                if r.returncode != 0:
                    sys.exit("default_train: train %s failed: %s" % (g, r.stderr[-300:]))
                summ = json.loads(r.stdout.splitlines()[-1])
                c = summ["closing"][0]
                runs.append({"graph": g, "name": c["graph"], "seed": s, "policy_us": c["policy_us"],
                             "untrained_us": c["untrained_us"], "heuristic": c["heuristic"],
                             "heuristic_us": c["heuristic_us"], "best_seen_us": c["best_seen_us"],
                             "kept_episode": summ.get("kept_episode"), "seconds": summ["seconds"]})
                print("%s seed %d: policy %.4f ms, control %.4f ms, %s %.4f ms, kept episode %s, %.1f s" % (
                    c["graph"], s, c["policy_us"] / 1e3, c["untrained_us"] / 1e3, c["heuristic"],
                    c["heuristic_us"] / 1e3, summ.get("kept_episode"), summ["seconds"]), flush=True)
    lines = ["| graph | policy's own placement | its untrained control | policy vs control | best heuristic | policy vs heuristic | best seen in training | kept episode | train time |",
             "|---|---|---|---|---|---|---|---|---|"]
    allc = []
    for g in graphs:
        rs = [r for r in runs if r["graph"] == g]
        vc = [100 * (r["untrained_us"] - r["policy_us"]) / r["untrained_us"] for r in rs]
        vh = [100 * (r["heuristic_us"] - r["policy_us"]) / r["heuristic_us"] for r in rs]
        allc += vc
        mc, cc = mean_ci(vc)
        mh, ch = mean_ci(vh)
        f = lambda k: "%.4g ms" % (sum(r[k] for r in rs) / len(rs) / 1e3)
        lines.append("| %s | %s | %s | %+.2f %% ± %.2f | %s (%s) | %+.2f %% ± %.2f | %s | %s | %.1f s |" % (
            rs[0]["name"] if sum(r["name"] == rs[0]["name"] for r in runs) == len(rs) else os.path.basename(g),
            f("policy_us"), f("untrained_us"), mc, cc, f("heuristic_us"), rs[0]["heuristic"], mh, ch,
            f("best_seen_us"), ",".join(str(r["kept_episode"]) for r in rs), sum(r["seconds"] for r in rs) / len(rs)))
    m, c = mean_ci(allc)
    lines.append("")
    lines.append("Seeds %s, %s devices; ± the 95 %% interval over the seeds. Over every graph and seed the policy "
                 "is %+.2f %% ± %.2f against its untrained control; it is never slower than it, nor than the best "
                 "heuristic: %s." % (",".join(map(str, seeds)), devices, m, c,
                                     all(r["policy_us"] <= r["untrained_us"] + 1e-6 and r["policy_us"] <= r["heuristic_us"] + 1e-6 for r in runs)))
    md = "\n".join(lines)
    stem = os.path.join(ROOT, "bench", "results", "default_train")
    with lib.open_result(stem + ".json") as f:
        json.dump({"seeds": seeds, "devices": devices, "runs": runs}, f, indent=1)
    with lib.open_result(stem + ".md") as f:
        f.write(md + "\n")
    print(md)


if __name__ == "__main__":
    main()
