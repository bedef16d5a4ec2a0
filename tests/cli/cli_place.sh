#!/usr/bin/env bash
# The placement methods through `placeto place` and `placeto compare`: every
# method gives a complete, valid placement file that `simulate` accepts with
# the same runtime; compare --json lists every method with the lower bound
# below all runtimes; usage errors. The inference graphs on CPU + GPU: the
# bundled graphs/inference/ graphs load and give every node a CPU cost, the
# heterogeneous cluster presets load, and compare on cpu_gpu1.json has the
# cpu-only and gpu-only rows, equal to simulate with everything on that
# device and to the sum of the costs plus the gap after each op (none on a
# cluster of one kind); KIND-only is a method of place and compare too, and
# a kind the cluster lacks is an error naming its kinds. Prints "place: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

graph=graphs/toy/crown.json
run compare "$graph" --devices 3 --no-policy --json
expect_rc "compare --json" 0 && pycheck "compare --json" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["devices"] == 3, d
ms = d["methods"]
assert len(ms) >= 3, ms
rt = [m["runtime_us"] for m in ms]
assert rt == sorted(rt), "rows not sorted by runtime"
assert all(r >= d["lower_bound_us"] for r in rt), "a method beats the lower bound"
assert all(len(m["peak_memory_bytes"]) == 3 for m in ms)
print(" ".join(m["method"] for m in ms))
' "$tmp/out"
methods=$("$py" -c 'import json,sys; print(" ".join(m["method"] for m in json.load(open(sys.argv[1]))["methods"]))' "$tmp/out" 2>/dev/null)
for m in $methods; do
    run place "$graph" --method "$m" --devices 3 -o "$tmp/$m.json" --json
    expect_rc "place --method $m" 0 || continue
    cp "$tmp/out" "$tmp/$m.out"
    run simulate "$graph" --placement "$tmp/$m.json" --json
    expect_rc "simulate the $m placement" 0 && pycheck "place --method $m agrees with simulate" '
import json, sys
p = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))
assert p["runtime_us"] == s["makespan_us"], (p["runtime_us"], s["makespan_us"])
assert all(0 <= d < 3 for d in p["placement"]["ops"].values())
' "$tmp/$m.out" "$tmp/out"
done
run place "$graph" --method single --devices 2
expect_rc "place (text)" 0 && { grep -q "runtime" "$tmp/out" && pass || fail "place (text)" "no runtime line"; }
usage_error "place without --method" place "$graph"
usage_error "place unknown method" place "$graph" --method nonsense
usage_error "compare unknown method" compare "$graph" --methods single,nonsense
run compare "$graph" --devices 2 --methods single,round-robin
expect_rc "compare (text)" 0 && { grep -q "lower bound" "$tmp/out" && pass || fail "compare (text)" "no lower bound row"; }


# the local searches: --budget, deterministic for a seed, at least as good as
# the best heuristic, and the budget reported in --json
for m in anneal ils; do
    run place "$graph" --method "$m" --devices 2 --budget 300 --seed 4 --json
    expect_rc "place --method $m --budget" 0 || continue
    cp "$tmp/out" "$tmp/$m.a"
    run place "$graph" --method "$m" --devices 2 --budget 300 --seed 4 --json
    expect_rc "place --method $m again" 0 || continue
    if cmp -s <(grep -v seconds "$tmp/$m.a") <(grep -v seconds "$tmp/out"); then pass; else fail "place --method $m deterministic" "two runs with --seed 4 differ"; fi
done
run compare "$graph" --devices 2 --budget 300 --json
expect_rc "compare --budget" 0 && pycheck "compare: the searches at least as good as every heuristic, budgets reported" '
import json, sys
d = json.load(open(sys.argv[1]))
rows = {m["method"]: m for m in d["methods"]}
best = min(m["runtime_us"] for k, m in rows.items() if k not in ("anneal", "ils", "lsearch") and not m["oom"])
for s in ("anneal", "ils", "lsearch"):  # lsearch: the auto row, the learned search, at the same budget
    assert rows[s]["runtime_us"] <= best, (s, rows[s]["runtime_us"], best)
    assert rows[s]["placements"] == 300, (s, rows[s]["placements"])
assert rows["heft"]["placements"] == 0
' "$tmp/out"
usage_error "compare --budget 0" compare "$graph" --budget 0
usage_error "place --budget x" place "$graph" --method anneal --budget x

# ------------------------------------------------ inference graphs on CPU + GPU
for f in graphs/clusters/cpu_gpu.json graphs/clusters/cpu_gpu1.json; do
    run place "$graph" --method single --cluster "$f" --json
    expect_rc "cluster $f loads" 0 && pycheck "cluster $f: a cpu and gpu devices" '
import json, sys
c = json.load(open(sys.argv[1]))
kinds = [d["kind"] for d in c["devices"]]
assert kinds[0] == "cpu" and set(kinds[1:]) == {"gpu"}, kinds
assert "cost_us_by_kind" in c["description"], "the description does not say where the CPU cost comes from"
' "$f"
done
for m in inception_v3 resnet50 bert_base; do
    g=graphs/inference/$m.json
    run info "$g" --json
    expect_rc "info $g" 0 && pycheck "info $g: every node with a CPU cost, no backward op" '
import json, sys
info = json.load(open(sys.argv[1])); g = json.load(open(sys.argv[2]))
assert info["ops"] == len(g["nodes"]) and info["ops"] > 300, (info["ops"], len(g["nodes"]))
assert all("cpu" in n.get("cost_us_by_kind", {}) for n in g["nodes"]), "a node without cost_us_by_kind.cpu"
bad = [n["name"] for n in g["nodes"] if n["name"].startswith("grad/") or "/update" in n["name"]
       or "/momentum" in n["name"] or n["op"] in ("apply_momentum", "ones_like")]
assert not bad, "backward or update ops: %s" % bad[:5]
assert "--inference --kind-costs cpu=xeon -o graphs/inference/" in g["source"], g["source"][-200:]
' "$tmp/out" "$g"
    run compare "$g" --cluster graphs/clusters/cpu_gpu1.json --methods single,heft,metis --json
    expect_rc "compare $g on cpu_gpu1" 0 || continue
    cp "$tmp/out" "$tmp/cmp.json"
    for d in 0 1; do
        "$py" -c 'import json, sys
g = json.load(open(sys.argv[1]))
json.dump({"format": "placeto-placement", "version": 1, "devices": 2, "ops": {n["name"]: int(sys.argv[2]) for n in g["nodes"]}},
          open(sys.argv[3], "w"))' "$g" "$d" "$tmp/all$d.json"
        run simulate "$g" --cluster graphs/clusters/cpu_gpu1.json --placement "$tmp/all$d.json" --json
        expect_rc "simulate $g all on device $d" 0 && cp "$tmp/out" "$tmp/sim$d.json"
    done
    pycheck "compare $g on cpu_gpu1: cpu-only and gpu-only rows" '
import json, sys
d = json.load(open(sys.argv[1])); s0 = json.load(open(sys.argv[2])); s1 = json.load(open(sys.argv[3]))
g = json.load(open(sys.argv[4]))
rows = {m["method"]: m for m in d["methods"]}
assert set(rows) == {"single", "heft", "metis", "cpu-only", "gpu-only"}, sorted(rows)
assert rows["gpu-only"]["runtime_us"] == s1["makespan_us"], (rows["gpu-only"]["runtime_us"], s1["makespan_us"])
assert rows["cpu-only"]["runtime_us"] == s0["makespan_us"], (rows["cpu-only"]["runtime_us"], s0["makespan_us"])
assert rows["gpu-only"]["runtime_us"] == rows["single"]["runtime_us"] == d["single_us"]
assert rows["cpu-only"]["peak_memory_bytes"][1] == 0 and rows["gpu-only"]["peak_memory_bytes"][0] == 0
# one device: the ops back to back, each followed by the 5.7 us gap when it costs anything
for name, key in (("gpu-only", None), ("cpu-only", "cpu")):
    costs = [n["cost_us_by_kind"][key] if key else n["cost_us"] for n in g["nodes"]]
    want = sum(costs) + 5.7 * sum(1 for c in costs if c > 0)
    assert abs(rows[name]["runtime_us"] - want) < 1e-6 * want, (name, rows[name]["runtime_us"], want)
assert rows["cpu-only"]["runtime_us"] > 2 * rows["gpu-only"]["runtime_us"], "the CPU is not slower"
' "$tmp/cmp.json" "$tmp/sim0.json" "$tmp/sim1.json" "$g"
done
run compare graphs/inference/resnet50.json --cluster graphs/clusters/cpu_gpu1.json --methods single
expect_rc "compare (text) on cpu_gpu1" 0 && pycheck "compare (text): cpu-only and gpu-only rows with their runtimes" '
import re, sys
t = open(sys.argv[1]).read()
rows = dict(re.findall(r"^(\S+) +([0-9.]+ ms) ", t, re.M))
assert rows.get("gpu-only") == "38.050 ms" and rows.get("cpu-only") == "92.724 ms", (rows, t)
' "$tmp/out"
# KIND-only as a method of place and compare: the same row, on any cluster
c1=graphs/clusters/cpu_gpu1.json
run place graphs/inference/resnet50.json --cluster "$c1" --method cpu-only -o "$tmp/cpu.json" --json
expect_rc "place --method cpu-only" 0 && pycheck "place --method cpu-only: every op on the CPU, the compare row's runtime" '
import json, sys
d = json.load(open(sys.argv[1])); p = json.load(open(sys.argv[2]))
assert d["method"] == "cpu-only" and abs(d["runtime_us"] - 92724) < 1, d["runtime_us"]
assert set(p["ops"].values()) == {0} and d["placement"]["ops"] == p["ops"]
' "$tmp/out" "$tmp/cpu.json"
run compare graphs/inference/resnet50.json --cluster "$c1" --methods single,cpu-only,heft --json
expect_rc "compare --methods single,cpu-only" 0 && pycheck "compare --methods single,cpu-only: each row once" '
import json, sys
rows = [m["method"] for m in json.load(open(sys.argv[1]))["methods"]]
assert sorted(rows) == ["cpu-only", "gpu-only", "heft", "single"], rows
' "$tmp/out"
run compare graphs/inference/resnet50.json --cluster "$c1" --methods gpu-only --json
expect_rc "compare --methods gpu-only" 0 && pycheck "compare --methods gpu-only: that row alone" '
import json, sys
rows = [(m["method"], m["runtime_us"]) for m in json.load(open(sys.argv[1]))["methods"]]
assert len(rows) == 1 and rows[0][0] == "gpu-only" and abs(rows[0][1] - 38050) < 1, rows
' "$tmp/out"
run place graphs/inference/resnet50.json --cluster "$c1" --method tpu-only
expect_rc "place --method tpu-only" 1 && {
    grep -q "tpu-only: cluster '1x CPU + 1x K80' has no device of kind 'tpu' (its kinds: 'cpu', 'gpu')" "$tmp/err" &&
        pass || fail "place --method tpu-only" "the error does not name the cluster and its kinds"; }
usage_error "place --method -only" place "$graph" --method -only
run compare "$graph" --devices 2 --methods single --json
expect_rc "compare, one device kind" 0 && pycheck "compare, one device kind: no KIND-only rows" '
import json, sys
assert [m["method"] for m in json.load(open(sys.argv[1]))["methods"]] == ["single"]
' "$tmp/out"

# a lower bound of 0 (no op costs time, the transfers do): no ratio to print
python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))
for n in g["nodes"]:
    n["cost_us"] = 0
json.dump(g, open(sys.argv[2], "w"))
' graphs/toy/crown.json "$tmp/zero.json"
run compare "$tmp/zero.json" --devices 2 --methods single,random
if expect_rc "compare, lower bound 0" 0; then
    if awk '$1 != "lower" && $1 != "method" && $(NF - 4) == "0.000x"' "$tmp/out" | grep -q .; then
        fail "compare, lower bound 0" "a ratio to the bound of 0.000x printed"
    elif grep -qE "^lower bound +0\.0 µs +- +-$" "$tmp/out"; then pass
    else fail "compare, lower bound 0" "no '-' in the ratio columns"; fi
fi
run place "$tmp/zero.json" --devices 2 --method random -o "$tmp/zp.json"
expect_rc "place, lower bound 0" 0 && { grep -q "(the lower bound is 0: no ratio)" "$tmp/out" && pass ||
    fail "place, lower bound 0" "no plain statement"; }
run simulate "$tmp/zero.json" --placement "$tmp/zp.json"
expect_rc "simulate, lower bound 0" 0 && { grep -q "^runtime .*(the lower bound is 0: no ratio)" "$tmp/out" && pass ||
    fail "simulate, lower bound 0" "no plain statement"; }

echo "place: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
