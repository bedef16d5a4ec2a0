#!/usr/bin/env bash
# The untrained control beside every bundled paper-case policy: for each
# agent's policy (placeto, rnn, gdp) on inception_v3, nasnet and nmt with 2
# and 4 devices, HSDAG's on its CPU + GPU inference graphs, and on the
# bundled models without a policy of their own what --policy auto takes
# there (the learned search, lsearch.json, 1 000 placements) and what it
# took before (the general Placeto policies from the best heuristic), `compare --policy P --untrained --samples 8` (one greedy and
# 8 sampled episodes or decodes, from the agent's own start) gives the
# policy's zero-shot row and the same network untrained, placing by the same
# procedure and budget. Writes bench/results/untrained.{json,md}. The
# network kernels are the plain loops (PLACETO_KERNELS=plain), so that every
# figure is the same on another CPU.
#   bash bench/untrained_control.sh [./placeto]
set -eu
export PLACETO_KERNELS=plain
cd "$(dirname "$0")/.."
prog=${1:-./placeto}
out=bench/results/untrained
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rows=()
for g in inception_v3 nasnet nmt; do
    for d in 2 4; do
        for a in placeto rnn gdp; do
            pol=graphs/policies/${g}_$d.json
            [ "$a" = placeto ] || pol=graphs/policies/${a}_${g}_$d.json
            [ -f "$pol" ] || continue
            "$prog" compare "graphs/$g.json" --policy "$pol" --methods single --samples 8 --untrained --seed 1 --json \
                > "$tmp/$a-$g-$d.json"
            rows+=("$a $g $d $tmp/$a-$g-$d.json")
        done
    done
done
# HSDAG's bundled policies: CPU + GPU inference graphs (its paper's setting)
for g in bert_base inception_v3 resnet50; do
    pol=graphs/policies/hsdag_$g.json
    "$prog" compare "graphs/inference/$g.json" --cluster graphs/clusters/cpu_gpu1.json --policy "$pol" --methods single \
        --samples 8 --untrained --seed 1 --json > "$tmp/hsdag-$g-cg.json"
    rows+=("hsdag $g cpu+gpu $tmp/hsdag-$g-cg.json")
done
# what --policy auto does on a graph without its own policy: the learned
# search (row lsearch); what it did before: the general policy from the
# best heuristic's placement (row placeto-refine)
for g in googlenet mobilenet_v2 resnet50 vgg16; do
    for d in 2 4; do
        "$prog" compare "graphs/$g.json" --devices $d --policy graphs/policies/lsearch.json --budget 1000 \
            --methods single --untrained --seed 1 --json > "$tmp/lsearch-$g-$d.json"
        rows+=("lsearch $g $d $tmp/lsearch-$g-$d.json")
        "$prog" compare "graphs/$g.json" --devices $d --policy graphs/policies/general_$d.json --start heuristic \
            --methods single --samples 8 --untrained --seed 1 --json > "$tmp/auto-$g-$d.json"
        rows+=("placeto-refine $g $d $tmp/auto-$g-$d.json")
    done
done
PLACETO_BENCH_CMD="bash bench/untrained_control.sh $*" /usr/bin/python3 - "$out" "$prog" "${rows[@]}" <<'PY'
import json, sys
sys.path.insert(0, "bench")
import lib  # bench/lib.py: write_result
out, prog, rows = sys.argv[1], sys.argv[2], sys.argv[3:]
res = []
for r in rows:
    a, g, d, path = r.split(" ", 3)
    doc = json.load(open(path))
    m = {x["method"]: x for x in doc["methods"]}
    lb = doc["lower_bound_us"]
    t, u = m[a], m[a + "-untrained"]
    res.append({"agent": a, "graph": g, "devices": d if not d.isdigit() else int(d), "trained_us": t["runtime_us"], "untrained_us": u["runtime_us"],
                "placements": t["placements"], "lower_bound_us": lb, "trained_oom": t["oom"], "untrained_oom": u["oom"]})
lib.write_result(out + ".json", {"command": "bash bench/untrained_control.sh", "rows": res})
with lib.open_result(out + ".md") as f:
    f.write("# The untrained control of the bundled policies\n\n")
    f.write("`bash bench/untrained_control.sh` (`PLACETO_KERNELS=plain placeto compare GRAPH --policy P --methods single --samples 8 --untrained --seed 1`):\n"
            "each bundled paper-case policy placing zero-shot (one greedy and 8 sampled episodes or decodes) against the\n"
            "same network untrained (the weights training starts from, seed 1), by the same procedure and budget.\n"
            "*lsearch*: what `--policy auto` does on a bundled model without its own policy, the learned local search\n"
            "(1 000 placements from the best heuristic's; trained on the families' graphs 00-23, 2 devices);\n"
            "*placeto-refine*: what it did before, the general Placeto policy\n"
            "(trained on every bundled model and the families' graphs 00-23) from the best heuristic's placement.\n"
            "Runtime / lower bound; ratio < 1: training helped.\n\n")
    f.write("| agent | graph | devices | placements | trained | untrained | trained / untrained |\n|---|---|---|---|---|---|---|\n")
    for r in res:
        tr, un = r["trained_us"] / r["lower_bound_us"], r["untrained_us"] / r["lower_bound_us"]
        f.write("| %s | %s | %s | %d | %.3f%s | %.3f%s | %.3f |\n" % (r["agent"], r["graph"], r["devices"], r["placements"], tr,
                " (OOM)" if r["trained_oom"] else "", un, " (OOM)" if r["untrained_oom"] else "", r["trained_us"] / r["untrained_us"]))
    for a in ("placeto", "rnn", "gdp", "hsdag", "lsearch", "placeto-refine"):
        rs = [r for r in res if r["agent"] == a]
        if rs:
            import math
            gm = math.exp(sum(math.log(r["trained_us"] / r["untrained_us"]) for r in rs) / len(rs))
            f.write("\n%s: geometric mean trained / untrained over %d cases: %.3f" % (a, len(rs), gm))
    f.write("\n")
print(lib.read_result(out + ".md"))
PY
