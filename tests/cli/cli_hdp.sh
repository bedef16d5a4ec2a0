#!/usr/bin/env bash
# `placeto train --agent rnn --grouper hdp`: the hierarchical planner's
# grouper ahead of the RNN placer, through the commands: the policy file
# names the grouper, its size and its frozen placer; --grouper none gives
# the same bytes as no --grouper; deterministic per seed, the same bytes
# on 1 and 2 threads, 6 updates = 3, then 3 more from the file (the freeze
# in either part); place reports the placement it simulated and the greedy
# grouping's statistics, on any grouping; compare has the rows rnn and
# rnn-trained; the explorer refuses an hdp policy in one line naming the
# file; bad hdp files name the field; the usage errors. Prints "hdp: N
# passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

g=graphs/toy/crown.json
small=(--agent rnn --hidden 16 --seed 3)

run train "$g" "${small[@]}" --grouper hdp --episodes 6 --freeze-placer 4 -o "$tmp/a.json"
if expect_rc "train --grouper hdp" 0; then
    pycheck "hdp policy file" '
import json, sys
d = json.load(open(sys.argv[1]))
a = d["architecture"]
assert d["agent"] == "rnn" and a["grouper"] == "hdp" and a["grouper_hidden"] == 64, a
assert a["n_groups"] == 40 and a["units"] == 18 and a["n_devices"] == 2, a   # min(256, 20 x 2) learned groups
p = [t["name"] for t in d["parameters"]]
assert p[-2:] == ["grouper_ff", "grouper_g"] and len(p) == 14, p
assert d["parameters"][-1]["shape"] == [64, 40], d["parameters"][-1]["shape"]
assert d["parameters"][-2]["shape"] == [a["n_types"] + 23, 64]
f = d["placer_frozen"]
assert len(f) == 40 and all(x in (0, 1) for x in f), f
assert d["training"]["episodes"] == 6 and d["training"]["best"][0]["n_groups"] == 18
' "$tmp/a.json"
fi

# --grouper none is today's rnn, byte for byte; the same run twice is the same bytes
run train "$g" "${small[@]}" --episodes 3 -o "$tmp/n1.json"
expect_rc "rnn" 0 && pass
run train "$g" "${small[@]}" --grouper none --episodes 3 -o "$tmp/n2.json"
if expect_rc "rnn --grouper none" 0; then
    if cmp -s "$tmp/n1.json" "$tmp/n2.json"; then pass; else fail "--grouper none" "differs from no --grouper"; fi
fi
run train "$g" "${small[@]}" --grouper hdp --episodes 6 --freeze-placer 4 -o "$tmp/b.json"
if expect_rc "hdp again" 0; then
    if cmp -s "$tmp/a.json" "$tmp/b.json"; then pass; else fail "hdp deterministic" "policy files differ"; fi
fi

# resume: 6 = 3 + 3 (the placer freezes after update 4, in the resumed part)
# and 5 + 1 (the frozen placement comes from the file)
for split in "3 3" "5 1"; do
    n1=${split% *} n2=${split#* }
    run train "$g" "${small[@]}" --grouper hdp --episodes "$n1" --freeze-placer 4 -o "$tmp/r.json"
    expect_rc "hdp $n1" 0 && pass
    run train "$g" --agent rnn --episodes "$n2" --freeze-placer 4 --resume "$tmp/r.json"
    if expect_rc "hdp --resume ($split)" 0; then
        if cmp -s "$tmp/a.json" "$tmp/r.json"; then pass; else fail "hdp resume bit-exact" "$n1 + $n2 resumed differs from 6"; fi
    fi
done

# --threads: the same bytes
run train "$g" "${small[@]}" --grouper hdp --episodes 3 --samples-per-update 3 --freeze-placer 2 -o "$tmp/t1.json"
expect_rc "hdp K=3" 0 && pass
run train "$g" "${small[@]}" --grouper hdp --episodes 3 --samples-per-update 3 --freeze-placer 2 --threads 2 -o "$tmp/t2.json"
if expect_rc "hdp --threads 2" 0; then
    if cmp -s "$tmp/t1.json" "$tmp/t2.json"; then pass; else fail "hdp threads" "2 threads differ from 1"; fi
fi

# --learned-groups; the default freeze (500) leaves a short run unfrozen
run train "$g" "${small[@]}" --grouper hdp --learned-groups 6 --episodes 2 -o "$tmp/l6.json"
if expect_rc "hdp --learned-groups 6" 0; then
    pycheck "hdp learned groups" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["architecture"]["n_groups"] == 6 and "placer_frozen" not in d, d["architecture"]
' "$tmp/l6.json"
fi

# place: a greedy decode (+ K samples); the placement written is the one
# simulated; the greedy grouping's statistics
run place "$g" --policy "$tmp/a.json" --samples 3 --json -o "$tmp/p.json"
if expect_rc "place hdp policy" 0; then
    cp "$tmp/out" "$tmp/place.json"
    pycheck "place hdp json" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["method"] == "rnn" and d["placements"] == 4 and d["runtime_us"] > 0, d
s = d["grouping"]
assert s["learned_groups"] == 40 and s["groups"] == 18 and 1 <= s["non_empty"] <= 18, s
assert s["cut_bytes"] >= 0 and s["balance"] >= 1, s
assert len(d["placement"]["ops"]) == 18
' "$tmp/place.json"
    run simulate "$g" --placement "$tmp/p.json" --json
    if expect_rc "simulate the hdp placement" 0; then
        pycheck "place reports the placement it simulated" '
import json, sys
p = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))
assert p["runtime_us"] == s["makespan_us"], (p["runtime_us"], s["makespan_us"])
' "$tmp/place.json" "$tmp/out"
    fi
fi
run place "$g" --policy "$tmp/a.json"
if expect_rc "place hdp text" 0; then
    if grep -q "with rnn: runtime" "$tmp/out" && grep -q "greedy grouping: .* of 40 learned groups used by the 18 groups" "$tmp/out"
    then pass; else fail "place hdp text" "no rnn row or grouping line"; fi
fi
run place "$g" --policy "$tmp/a.json" --groups 6 --json
if expect_rc "hdp on another grouping" 0; then
    pycheck "hdp any grouping" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["grouping"]["groups"] <= 6 and d["placements"] == 1, d["grouping"]
' "$tmp/out"
fi
run compare "$g" --policy "$tmp/a.json" --methods single,heft --json
if expect_rc "compare hdp policy" 0; then
    pycheck "compare hdp rows" '
import json, sys
names = [r["method"] for r in json.load(open(sys.argv[1]))["methods"]]
assert "rnn" in names and "rnn-trained" in names, names
' "$tmp/out"
fi

# the explorer refuses it: one line naming the file
run explore "$g" --policy "$tmp/a.json" --headless --keys space
if expect_rc "explore an hdp policy" 1; then
    if [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "a.json: an hdp policy .*cannot be stepped in the explorer" "$tmp/err"
    then pass; else fail "explore hdp" "not one clear line"; fi
fi

# bad files name the field
sed 's/"grouper": "hdp"/"grouper": "hdq"/' "$tmp/a.json" > "$tmp/bad1.json"
run place "$g" --policy "$tmp/bad1.json"
if expect_rc "bad grouper" 1; then
    if grep -q 'architecture.grouper: expected "none" or "hdp"' "$tmp/err"; then pass; else fail "bad grouper" "field not named"; fi
fi
sed 's/"placer_frozen": \[[0-9]*, /"placer_frozen": [7, /' "$tmp/a.json" > "$tmp/bad2.json"
run place "$g" --policy "$tmp/bad2.json"
if expect_rc "bad frozen device" 1; then
    if grep -q 'placer_frozen\[0\]: expected an integer' "$tmp/err"; then pass; else fail "bad frozen" "field not named"; fi
fi

# usage errors
usage_error "bad grouper" train "$g" --agent rnn --grouper bad -o "$tmp/x.json"
usage_error "learned-groups without hdp" train "$g" --agent rnn --learned-groups 8 -o "$tmp/x.json"
usage_error "learned-groups 1" train "$g" --agent rnn --grouper hdp --learned-groups 1 -o "$tmp/x.json"
usage_error "freeze-placer without hdp" train "$g" --agent rnn --freeze-placer 10 -o "$tmp/x.json"
usage_error "group-capacity with hdp" train "$g" --agent rnn --grouper hdp --group-capacity 30 -o "$tmp/x.json"
usage_error "grouper on placeto" train "$g" --grouper hdp -o "$tmp/x.json"
usage_error "grouper hdp resume of a plain rnn" train "$g" --agent rnn --grouper hdp --resume "$tmp/n1.json"
if grep -q "grouper sets a new policy's architecture; --resume keeps the file's" "$tmp/err"; then pass; else
    fail "grouper resume message" "unclear"; fi
usage_error "learned-groups on resume" train "$g" --agent rnn --learned-groups 8 --resume "$tmp/a.json"
run train "$g" --agent rnn --freeze-placer 3 --episodes 1 --resume "$tmp/n1.json" -o "$tmp/x.json"
if expect_rc "freeze-placer on a plain rnn policy" 1; then
    if grep -q "n1.json: --freeze-placer: the policy has no grouper" "$tmp/err"; then pass; else
        fail "freeze-placer plain" "unclear"; fi
fi
[ ! -e "$tmp/x.json" ] && pass || fail "no file on errors" "x.json was written"

echo "hdp: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
