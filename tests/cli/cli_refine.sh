#!/usr/bin/env bash
# Refining the best heuristic's placement with a policy: `place --policy P
# --start heuristic` gives the row placeto-refine, never slower than any
# heuristic (every method but the searches anneal and ils); --policy auto
# takes the better of the graph's bundled policy (graphs/policies/NAME_D.json)
# and the learned search (lsearch.json) at the same budget, else the learned
# search, else the general one, or fails naming them; usage errors of
# --start, --policy and --no-policy. Prints "refine: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

g=graphs/toy/crown.json

# never_slower NAME PLACE_JSON COMPARE_JSON: the place --json row is
# placeto-refine and no heuristic of compare --json is faster
never_slower() {
    pycheck "$1" '
import json, sys
p = json.load(open(sys.argv[1]))
assert p["method"] in ("placeto-refine", "lsearch"), p["method"]
heur = {m["method"]: m["runtime_us"] for m in json.load(open(sys.argv[2]))["methods"]
        if m["method"] not in ("anneal", "ils")}
assert "heft" in heur and not any(m.startswith("placeto") for m in heur), sorted(heur)
faster = {m: r for m, r in heur.items() if r < p["runtime_us"]}
assert not faster, (p["runtime_us"], faster)
' "$2" "$3"
}

run train "$g" --preset tuned --features extended --episodes 2 --seed 5 -o "$tmp/pol.json"
expect_rc "train a policy" 0 && pass
run compare "$g" --no-policy --json
expect_rc "compare --no-policy" 0 && pass
cp "$tmp/out" "$tmp/heur.json"

# --start heuristic: the placeto-refine row, in text and in JSON
run place "$g" --policy "$tmp/pol.json" --start heuristic
if expect_rc "place --start heuristic" 0; then
    if grep -q "with placeto-refine: runtime" "$tmp/out"; then pass; else fail "place --start heuristic" "no placeto-refine line"; fi
fi
run place "$g" --policy "$tmp/pol.json" --start heuristic --json
expect_rc "place --start heuristic --json" 0 && never_slower "refine never slower than a heuristic" "$tmp/out" "$tmp/heur.json"
run place "$g" --policy "$tmp/pol.json" --start random --json
expect_rc "place --start random" 0 && pycheck "--start random is the zero-shot row" '
import json, sys
assert json.load(open(sys.argv[1]))["method"] == "placeto"
' "$tmp/out"

usage_error "place --start bogus" place "$g" --policy "$tmp/pol.json" --start bogus
usage_error "place --start without --policy" place "$g" --method heft --start heuristic
if grep -q -- "--start" "$tmp/err"; then pass; else fail "place --start without --policy" "the message does not name --start"; fi
usage_error "compare --policy --no-policy" compare "$g" --policy "$tmp/pol.json" --no-policy

# --policy auto: nothing bundled (an empty $PLACETO_DATA) is a failure naming the files
mkdir -p "$tmp/empty/policies"
PLACETO_DATA=$tmp/empty run place "$g" --policy auto --devices 3
expect_rc "place --policy auto, none bundled" 1 && pass
if grep -q "lsearch.json or general_3.json" "$tmp/err"; then pass; else fail "place --policy auto, none bundled" "lsearch.json and general_3.json not named"; fi

# which file auto takes, told by the error of a broken one in $PLACETO_DATA:
# the general policy, the learned search (lsearch.json) before it, and the
# graph's own (crown_2.json) before both; a good crown_2.json is weighed
# against lsearch.json (named when broken), and taken alone without one
mkdir -p "$tmp/data/policies"
echo '{"format": "placeto-policy"}' > "$tmp/data/policies/general_2.json"
PLACETO_DATA=$tmp/data run place "$g" --policy auto
expect_rc "--policy auto takes general_2.json" 1 && pass
if grep -q "$tmp/data/policies/general_2.json" "$tmp/err"; then pass; else fail "--policy auto takes general_2.json" "not named"; fi
cp "$tmp/data/policies/general_2.json" "$tmp/data/policies/lsearch.json"
PLACETO_DATA=$tmp/data run place "$g" --policy auto
expect_rc "--policy auto takes lsearch.json" 1 && pass
if grep -q "$tmp/data/policies/lsearch.json" "$tmp/err"; then pass; else fail "--policy auto takes lsearch.json" "not named"; fi
cp "$tmp/data/policies/general_2.json" "$tmp/data/policies/crown_2.json"
PLACETO_DATA=$tmp/data run place "$g" --policy auto
expect_rc "--policy auto takes crown_2.json" 1 && pass
if grep -q "$tmp/data/policies/crown_2.json" "$tmp/err"; then pass; else fail "--policy auto takes crown_2.json" "not named"; fi
cp "$tmp/pol.json" "$tmp/data/policies/crown_2.json"
PLACETO_DATA=$tmp/data run place "$g" --policy auto
expect_rc "--policy auto weighs lsearch.json" 1 && pass
if grep -q "$tmp/data/policies/lsearch.json" "$tmp/err"; then pass; else fail "--policy auto weighs lsearch.json" "not named"; fi
rm "$tmp/data/policies/lsearch.json"
PLACETO_DATA=$tmp/data run place "$g" --policy auto --json
expect_rc "--policy auto with a good crown_2.json" 0 && never_slower "--policy auto never slower than a heuristic" "$tmp/out" "$tmp/heur.json"
pycheck "--policy auto with crown_2.json alone: no rival" '
import json, sys
p = json.load(open(sys.argv[1]))
assert p["policy"].endswith("/crown_2.json") and "auto" not in p, p
' "$tmp/out"

# --budget B: a Placeto policy's zero-shot rows (and the control's) simulate
# exactly B placements: sampled episodes after the greedy one until it is
# spent; from the best heuristic, the heuristics' placements count (a
# budget they use up leaves the best of them)
for spec in random:37 random:3 heuristic:37 heuristic:5; do
    st=${spec%:*} b=${spec#*:}
    run compare "$g" --policy "$tmp/pol.json" --untrained --start "$st" --budget "$b" --methods heft --json
    expect_rc "compare --budget $b --start $st" 0 && pycheck "Placeto rows at --budget $b, --start $st: $b placements" '
import json, sys
rows = {m["method"]: m for m in json.load(open(sys.argv[1]))["methods"]}
name = "placeto-refine" if sys.argv[3] == "heuristic" else "placeto"
for r in (name, name + "-untrained"):
    assert rows[r]["placements"] == int(sys.argv[2]), (r, rows[r]["placements"])
if sys.argv[3] == "heuristic":
    assert rows[name]["runtime_us"] <= rows["heft"]["runtime_us"]
' "$tmp/out" "$b" "$st"
done

# compare with a --methods list runs just those methods: no Placeto row
run compare graphs/resnet18.json --devices 2 --methods heft,metis --json
expect_rc "compare --methods" 0 && pycheck "compare --methods: no implicit policy rows" '
import json, sys
assert [m["method"] for m in json.load(open(sys.argv[1]))["methods"]] == ["heft", "metis"]
' "$tmp/out"
run compare graphs/resnet18.json --devices 2 --methods heft --policy auto --json
expect_rc "compare --methods with --policy" 0 && pycheck "compare --methods --policy auto: the policy rows too" '
import json, sys
rows = {m["method"]: m for m in json.load(open(sys.argv[1]))["methods"]}
assert sorted(rows) == ["heft", "lsearch", "placeto-refine", "placeto-trained"], sorted(rows)
assert rows["lsearch"]["placements"] == rows["placeto-refine"]["placements"] == 1000, rows  # at one budget
' "$tmp/out"

# --policy auto on resnet18 with 2 devices: graphs/policies/resnet18_2.json
# at 1 000 placements from the best heuristic (placeto-refine, never slower
# than heft), which ties lsearch.json there: a tie keeps the graph's own
r=graphs/resnet18.json
run place "$r" --policy auto --devices 2 --json
cp "$tmp/out" "$tmp/auto.json"
expect_rc "place --policy auto" 0 && pass
run place "$r" --policy graphs/policies/resnet18_2.json --start heuristic --budget 1000 --devices 2 --json
if expect_rc "place with resnet18_2.json" 0; then
    pycheck "--policy auto is resnet18_2.json at 1000 placements" '
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert a["runtime_us"] == b["runtime_us"] and a["placements"] == b["placements"] == 1000, (a["runtime_us"], b["runtime_us"])
assert a["placement"] == b["placement"]
assert a["policy"].endswith("graphs/policies/resnet18_2.json"), a["policy"]
assert a["auto"]["other"].endswith("graphs/policies/lsearch.json"), a["auto"]
assert a["auto"]["other_runtime_us"] == a["runtime_us"], a["auto"]  # the tie
' "$tmp/auto.json" "$tmp/out"
fi
run place "$r" --policy auto --devices 2
expect_rc "place --policy auto (text)" 0 && {
    grep -q "^policy auto: .*resnet18_2.json (.*) chosen over .*lsearch.json (.*) at 1000 placements, a tie: the graph's own$" \
        "$tmp/out" && pass || fail "place --policy auto (text)" "no line naming the tie and its choice"; }
run compare "$r" --devices 2 --json --policy auto --methods heft
expect_rc "compare resnet18" 0 && pycheck "--policy auto refines, never slower than heft" '
import json, sys
p = json.load(open(sys.argv[1]))
m = {r["method"]: r["runtime_us"] for r in json.load(open(sys.argv[2]))["methods"]}
assert p["method"] == "placeto-refine", p["method"]
assert p["runtime_us"] <= m["heft"], (p["runtime_us"], m["heft"])
assert m.get("placeto-refine") == p["runtime_us"], m  # compare uses the bundled policy too
' "$tmp/auto.json" "$tmp/out"

# --policy auto on inception_v3 with 2 devices: the graph's own policy at
# 1 000 placements gives 881.8 ms, the learned search 878.0 ms: auto gives
# the better, never the worse (before, the own policy at its own 38
# placements: 941.9 ms), at --budget too, and says which one it chose
i=graphs/inception_v3.json
run place "$i" --devices 2 --policy graphs/policies/lsearch.json --json
expect_rc "inception_v3 lsearch.json" 0 && cp "$tmp/out" "$tmp/ls.json"
run place "$i" --devices 2 --policy graphs/policies/inception_v3_2.json --start heuristic --budget 1000 --json
expect_rc "inception_v3 inception_v3_2.json at 1000" 0 && cp "$tmp/out" "$tmp/own.json"
run place "$i" --devices 2 --policy auto --json
expect_rc "inception_v3 --policy auto" 0 && pycheck "inception_v3 auto: the better of its own policy and lsearch at 1000" '
import json, sys
a, ls, own = (json.load(open(f)) for f in sys.argv[1:4])
best = min(ls["runtime_us"], own["runtime_us"])
assert a["runtime_us"] <= ls["runtime_us"] and a["runtime_us"] <= own["runtime_us"], (a["runtime_us"], ls["runtime_us"], own["runtime_us"])
chosen, other = (ls, own) if ls["runtime_us"] < own["runtime_us"] else (own, ls)
assert a["runtime_us"] == best and a["method"] == chosen["method"] and a["placements"] == 1000, a["method"]
assert a["policy"].endswith(chosen["policy"]) and a["auto"]["chosen"] == a["policy"], a
assert a["auto"]["other"].endswith(other["policy"]) and a["auto"]["other_runtime_us"] == other["runtime_us"], a["auto"]
assert a["auto"]["budget"] == 1000, a["auto"]
' "$tmp/out" "$tmp/ls.json" "$tmp/own.json"
run place "$i" --devices 2 --policy auto
expect_rc "inception_v3 --policy auto (text)" 0 && {
    grep -qE "^policy auto: .*/lsearch\.json \(878\.033 ms\) chosen over .*/inception_v3_2\.json \(881\.824 ms\) at 1000 placements$" \
        "$tmp/out" && pass || fail "inception_v3 --policy auto (text)" "no line naming lsearch.json, chosen over inception_v3_2.json"; }
run place "$i" --devices 2 --policy graphs/policies/lsearch.json --budget 200 --json
cp "$tmp/out" "$tmp/ls.json"
run place "$i" --devices 2 --policy graphs/policies/inception_v3_2.json --start heuristic --budget 200 --json
cp "$tmp/out" "$tmp/own.json"
run place "$i" --devices 2 --policy auto --budget 200 --json
expect_rc "inception_v3 --policy auto --budget 200" 0 && pycheck "inception_v3 auto --budget 200: both at 200" '
import json, sys
a, ls, own = (json.load(open(f)) for f in sys.argv[1:4])
assert ls["placements"] == own["placements"] == a["placements"] == a["auto"]["budget"] == 200, a
assert a["runtime_us"] == min(ls["runtime_us"], own["runtime_us"]), (a["runtime_us"], ls["runtime_us"], own["runtime_us"])
' "$tmp/out" "$tmp/ls.json" "$tmp/own.json"

# the bundled learned search: on graphs without a policy of their own (toy
# graphs, held-out family members, googlenet on 4 devices, 3 devices, for
# which no Placeto policy is bundled), --policy auto takes lsearch.json at
# its default 1 000 placements from the best heuristic, says which one, and
# is never slower than any heuristic
for spec in graphs/toy/crown.json:2 graphs/toy/crown.json:4 graphs/toy/diamond.json:2 \
            graphs/families/nmt/nmt_variant_30.json:2 graphs/families/enas-ptb/enas_ptb_27.json:3 graphs/googlenet.json:4; do
    gg=${spec%:*} dd=${spec#*:}
    run compare "$gg" --devices "$dd" --no-policy --json --methods single,random,round-robin,expert,m-topo,m-etf,heft,metis,scotch
    cp "$tmp/out" "$tmp/heur.json"
    run place "$gg" --devices "$dd" --policy auto --json
    if expect_rc "auto on $gg, $dd devices" 0; then
        never_slower "auto on $gg, $dd devices: never slower than a heuristic" "$tmp/out" "$tmp/heur.json"
        pycheck "auto on $gg, $dd devices: lsearch.json, 1000 placements, with its start" '
import json, sys
p = json.load(open(sys.argv[1]))
assert p["policy"].endswith("graphs/policies/lsearch.json"), p["policy"]
assert p["method"] == "lsearch", p["method"]
assert p["placements"] == 1000, p["placements"]
assert p["start"] in ("single", "random", "round-robin", "expert", "m-topo", "m-etf", "heft", "metis", "scotch"), p
' "$tmp/out"
    fi
done
# --budget sets what it spends
run place graphs/toy/crown.json --policy auto --budget 40 --json
expect_rc "auto --budget 40" 0 && pycheck "auto --budget 40: 40 placements" '
import json, sys
assert json.load(open(sys.argv[1]))["placements"] == 40
' "$tmp/out"

echo "refine: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
