#!/usr/bin/env bash
# compare in seconds, and saying how far it is: the local searches' default
# budget scaled to the graph (20 000 placements up to 2 500 ops, then
# 5e7 / ops in whole hundreds, at least 1 000) and said in the table and in
# --json; the two searches run side by side and give the rows place gives
# one at a time; on a terminal (script(1)) compare and place keep a progress
# line on standard error (method, placements of the budget, time), wiped at
# the end, and nothing when standard error is not a terminal; compare on a
# 20 000-op star at its defaults ends (2 500 placements per search; the
# time is printed, not asserted). Prints "progress: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

# the default budget, in the table and in --json
run compare graphs/nmt.json --no-policy --json
expect_rc "compare nmt --json" 0 && pycheck "nmt (6 954 ops): the default budget is 7 100, each search spends it" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["budget"] == 7100 and d["budget_given"] is False, (d["budget"], d["budget_given"])
rows = {m["method"]: m for m in d["methods"]}
assert rows["anneal"]["placements"] == 7100 and rows["ils"]["placements"] == 7100, rows
' "$tmp/out"
run compare graphs/nmt.json --no-policy --methods heft,ils --budget 300
expect_rc "compare nmt --budget 300" 0 && pycheck "the table says the budget given" '
import sys
last = open(sys.argv[1]).read().splitlines()[-1]
assert last == "budget: 300 placements per search (--budget)", last
' "$tmp/out"
run compare graphs/toy/crown.json --devices 3 --no-policy
expect_rc "compare crown" 0 && pycheck "a small graph: the default 20 000, said so" '
import sys
last = open(sys.argv[1]).read().splitlines()[-1]
assert last == "budget: 20000 placements per search (the default; --budget K)", last
' "$tmp/out"
run compare graphs/nmt.json --no-policy --methods single,anneal
expect_rc "compare nmt anneal" 0 && pycheck "a scaled default: the table says so and how" '
import sys
last = open(sys.argv[1]).read().splitlines()[-1]
assert last == "budget: 7100 placements per search, the default scaled to 6954 ops (5e7 / ops; --budget K for more)", last
' "$tmp/out"
run place graphs/nmt.json --method ils --budget 0
expect_rc "place --budget 0" 2 && pass

# side by side = one at a time: each search's row is place's
run compare graphs/nasnet.json --devices 4 --no-policy --methods anneal,ils,heft --budget 600 --seed 3 --json
expect_rc "compare nasnet anneal,ils" 0 && cp "$tmp/out" "$tmp/cmp.json"
for m in anneal ils; do
    run place graphs/nasnet.json --devices 4 --method "$m" --budget 600 --seed 3 --json
    expect_rc "place nasnet $m" 0 && pycheck "$m: compare's row (two searches at once) is place's (alone)" '
import json, sys
c = {m["method"]: m for m in json.load(open(sys.argv[1]))["methods"]}[sys.argv[3]]
p = json.load(open(sys.argv[2]))
assert c["runtime_us"] == p["runtime_us"], (c["runtime_us"], p["runtime_us"])
' "$tmp/cmp.json" "$tmp/out" "$m"
done

# the progress line: on a terminal, and only there
if command -v script > /dev/null; then
    for c in "compare graphs/nmt.json --no-policy --budget 10000" "place graphs/nmt.json --method ils --budget 10000"; do
        # shellcheck disable=SC2086  # PLACETO_WRAP is a command line to split
        timeout 300 script -qfec "$wrap $prog $c > $tmp/out" "$tmp/ts" > /dev/null 2>&1
        rc=$?
        name=${c%% *}
        expect_rc "$name on a terminal" 0 && pycheck "$name on a terminal: a progress line with the method, placements of the budget and the time, wiped at the end" '
import re, sys
t = open(sys.argv[1], encoding="utf-8", errors="replace", newline="").read()
name = sys.argv[2]
t = t.replace("^[", "\x1b")  # script(1) may show the escape as ^[
lines = re.findall(r"\r\x1b\[K(%s nmt:[^\r]*)" % name, t)
assert lines, "no progress line in %r" % t[-400:]
want = r"^%s nmt: (anneal|ils) \d+/10000(, (anneal|ils) \d+/10000)? placements, \d+\.\d s$" % name
assert all(re.match(want, l) for l in lines), lines[:3]
after = t[t.rindex(lines[-1]) + len(lines[-1]):]
assert after.startswith("\r\x1b[K") and name + " nmt:" not in after, "not wiped: %r" % after[:80]
counts = [int(x) for l in lines for x in re.findall(r" (\d+)/10000", l)]
assert max(counts) > 0, lines[:3]
' "$tmp/ts" "$name"
    done
else
    fail "progress line" "script(1) (util-linux) is not installed"
fi
run compare graphs/nmt.json --no-policy --budget 2000 --methods ils
expect_rc "compare, standard error a file" 0 && { [ ! -s "$tmp/err" ] && pass ||
    fail "compare, standard error a file" "expected nothing on standard error, got: $(flat "$tmp/err")"; }

# a 20 000-op star at compare's defaults (reliability round 4, class 10)
"$py" - "$tmp/star.json" << 'PY'
import json, sys
n = 20000
nodes = [{"name": "hub", "op": "input", "cost_us": 100.0, "output_bytes": [4096]}]
nodes += [{"name": "r%05d" % i, "op": "relu", "cost_us": 10.0, "output_bytes": [1024]} for i in range(1, n)]
edges = [{"src": "hub", "dst": "r%05d" % i, "output": 0} for i in range(1, n)]
json.dump({"format": "placeto-graph", "version": 1, "name": "star20k", "nodes": nodes, "edges": edges},
          open(sys.argv[1], "w"))
PY
saved=$run_limit
[ "$run_limit" -lt 120 ] && run_limit=120
t0=$(date +%s.%N)
run compare "$tmp/star.json" --json
t1=$(date +%s.%N)
run_limit=$saved
echo "  (compare on a 20 000-op star at its defaults: $("$py" -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$t0" "$t1") s)"
expect_rc "compare on a 20 000-op star" 0 && pycheck "20 000 ops: 2 500 placements per search" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["budget"] == 2500, d["budget"]
rows = {m["method"]: m for m in d["methods"]}
assert rows["anneal"]["placements"] == 2500 and rows["ils"]["placements"] == 2500
' "$tmp/out"

echo "progress: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
