#!/usr/bin/env bash
# The placement methods through `placeto place` and `placeto compare`: every
# method gives a complete, valid placement file that `simulate` accepts with
# the same runtime; compare --json lists every method with the lower bound
# below all runtimes; usage errors. Prints "place: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

graph=graphs/toy/crown.json
run compare "$graph" --devices 3 --json
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
best = min(m["runtime_us"] for k, m in rows.items() if k not in ("anneal", "ils") and not m["oom"])
for s in ("anneal", "ils"):
    assert rows[s]["runtime_us"] <= best, (s, rows[s]["runtime_us"], best)
    assert rows[s]["placements"] == 300, (s, rows[s]["placements"])
assert rows["heft"]["placements"] == 0
' "$tmp/out"
usage_error "compare --budget 0" compare "$graph" --budget 0
usage_error "place --budget x" place "$graph" --method anneal --budget x

echo "place: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
