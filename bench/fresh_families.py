#!/usr/bin/python3
"""Zero-shot on family members nobody has seen: generates new members of each
family with importer seeds past the bundled 32 (so nothing can have been tuned
to them; needs Debian's python3-torch), and places each with the family's
bundled policy and with the general policy (greedy and 8 sampled episodes,
no training, from the start each was trained from), the family policy's
untrained control (the same network with the weights training starts from,
by the same procedure: compare --untrained), and with the general
policy from the best heuristic's placement (what --policy auto does), next
to one device and the best heuristic. Writes bench/results/fresh.{json,md}.

    /usr/bin/python3 bench/fresh_families.py [./placeto] [--seeds FIRST COUNT] [--dir DIR]
        [--families F,...] [--seed S] [--tag T] [--repeats refuse|flag]

--dir DIR keeps the generated graphs in DIR and reuses those already there
(generating takes about a minute per graph). --seeds: importer seeds FIRST
to FIRST + COUNT - 1 (default 332 8) of each family (--families, default
all three). A seed whose configuration is a bundled member's (an nmt_variant
seed S is configuration S mod 75, and the bundled members are seeds 0-31:
graphs/import/families.py) is refused before anything is generated, and a
generated graph equal to a bundled member, names aside, after: the script
exits 1 naming the seed, its configuration and the member. --repeats flag
names them on stderr and goes on. --seed S: the seed of every placement
(default 1); --tag T writes bench/results/fresh_T.{json,md}.
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "graphs", "import"))
import families  # noqa: E402

import lib  # bench/lib.py: write_result, read_result

PROG = "./placeto"
FIRST, COUNT = 332, 8
FAMILIES = [("enas-cifar10", "enas_cifar10"), ("enas-ptb", "enas_ptb"), ("nmt", "nmt_variant")]
FLAG, SEED, TAG = False, "1", ""
HEURISTICS = "single,random,round-robin,expert,m-topo,m-etf,heft,metis,scotch"
args = sys.argv[1:]
if args and not args[0].startswith("--"):
    PROG = args.pop(0)
DIR = None
while args:
    if args[:1] == ["--seeds"] and len(args) >= 3:
        FIRST, COUNT = int(args[1]), int(args[2])
        args = args[3:]
    elif args[:1] == ["--dir"] and len(args) >= 2:
        DIR = args[1]
        args = args[2:]
    elif args[:1] == ["--families"] and len(args) >= 2:
        want = args[1].split(",")
        unknown = [f for f in want if f not in [d for d, _ in FAMILIES]]
        if unknown:
            sys.exit("fresh_families.py: unknown family %s (known: %s)" % (unknown[0], ", ".join(d for d, _ in FAMILIES)))
        FAMILIES = [(d, m) for d, m in FAMILIES if d in want]
        args = args[2:]
    elif args[:1] == ["--repeats"] and len(args) >= 2 and args[1] in ("refuse", "flag"):
        FLAG = args[1] == "flag"
        args = args[2:]
    elif args[:1] == ["--seed"] and len(args) >= 2:
        SEED = args[1]
        args = args[2:]
    elif args[:1] == ["--tag"] and len(args) >= 2:
        TAG = "_" + args[1]
        args = args[2:]
    else:
        sys.exit("fresh_families.py: unknown option %s" % args[0])


def generate(job):
    model, seed, path = job
    if os.path.exists(path):
        return path
    subprocess.run(["/usr/bin/python3", "graphs/import/torch_graph.py", "--model", model, "--seed", str(seed),
                    "-o", path], check=True, capture_output=True)
    return path


def main():
    # before anything is generated: no seed may repeat a bundled configuration
    repeats = families.refuse("fresh_families.py", [families.seed_message(m, s) for _, m in FAMILIES
                                                     for s in range(FIRST, FIRST + COUNT)], FLAG)
    tmp = DIR or tempfile.mkdtemp()
    os.makedirs(tmp, exist_ok=True)
    jobs = [(model, s, os.path.join(tmp, "%s_%d.json" % (model, s)))
            for _, model in FAMILIES for s in range(FIRST, FIRST + COUNT)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        list(pool.map(generate, jobs))
    # and none of the graphs may be a bundled member under another name
    repeats += families.refuse("fresh_families.py", [families.graph_message(p) for _, _, p in jobs], FLAG)
    rows = []
    for fam, model in FAMILIES:
        for s in range(FIRST, FIRST + COUNT):
            path = os.path.join(tmp, "%s_%d.json" % (model, s))
            r = subprocess.run([PROG, "compare", path, "--devices", "2", "--json", "--methods", HEURISTICS,
                                "--policy", "graphs/policies/family_%s.json" % fam, "--samples", "8", "--untrained",
                                "--seed", SEED],
                               check=True, capture_output=True, text=True)
            d = json.loads(r.stdout)
            by = {m["method"]: m for m in d["methods"]}
            general = "graphs/policies/general_2.json"
            g_own, g_ref = (json.loads(subprocess.run(
                [PROG, "place", path, "--devices", "2", "--json", "--policy", general, "--samples", "8", "--seed", SEED] + extra,
                check=True, capture_output=True, text=True).stdout)["runtime_us"]
                for extra in ([], ["--start", "heuristic"]))
            heur = [m for m in d["methods"] if not m["method"].startswith("placeto")]  # (and not the control)
            best = min(heur, key=lambda m: (m["oom"], m["runtime_us"]))
            rows.append({"family": fam, "seed": s, "graph": d["graph"], "lower_bound_us": d["lower_bound_us"],
                         "single_us": d["single_us"], "best_heuristic": best["method"],
                         "best_heuristic_us": best["runtime_us"], "zero_shot_us": by["placeto"]["runtime_us"],
                         "untrained_us": by["placeto-untrained"]["runtime_us"],
                         "general_us": g_own, "general_refine_us": g_ref})
    os.makedirs("bench/results", exist_ok=True)
    with lib.open_result("bench/results/fresh%s.json" % TAG) as f:
        json.dump(rows, f, indent=1)
        f.write("\n")
    md = ["Family members generated with importer seeds %d–%d (never bundled, never trained on), 2 default "
          "devices, placement seed %s; means over the %d members of runtime / lower bound%s." % (
              FIRST, FIRST + COUNT - 1, SEED, COUNT, "; NOT FRESH, %d repeat bundled members: %s" % (
                  len(repeats), "; ".join(repeats)) if repeats else ""), "",
          "| family | single | best heuristic | family policy zero-shot | its untrained control | general policy "
          "zero-shot | general policy refining the best heuristic | family zero-shot worse than one device |",
          "|---|---|---|---|---|---|---|---|"]
    for fam, _ in FAMILIES:
        rs = [r for r in rows if r["family"] == fam]
        mean = lambda k: sum(r[k] / r["lower_bound_us"] for r in rs) / len(rs)
        worse = sum(r["zero_shot_us"] > r["single_us"] for r in rs)
        md.append("| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %d of %d |" % (
            fam, mean("single_us"), mean("best_heuristic_us"), mean("zero_shot_us"), mean("untrained_us"),
            mean("general_us"), mean("general_refine_us"), worse, len(rs)))
    with lib.open_result("bench/results/fresh%s.md" % TAG) as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))


main()
