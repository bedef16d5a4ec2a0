#!/usr/bin/env bash
# `placeto train --agent lsched` and its policy (the learned list
# scheduler, a one-shot placer, docs/agent.md): the policy file names its
# agent; 3 + 2 episodes resumed give the bytes of 5 (determinism per seed:
# cli_agents.sh, on every agent); place and compare with the policy spend exactly --budget
# placements (default 20; rows lsched, lsched-trained and, with
# --untrained, lsched-untrained), are never worse than the best heuristic,
# place on another device count and another graph than trained on, and
# repeat themselves; bad policy files and checkpoints are refused with the
# field named; the other agents' options are usage errors, and the explorer
# refuses the policy with a message. Prints "lsched: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

g=graphs/families/enas-ptb/enas_ptb_00.json
small=(--agent lsched --hidden 6 --decodes 4 --seed 3)

run train "$g" graphs/toy/crown.json "${small[@]}" --episodes 5 -o "$tmp/a.json"
if expect_rc "train --agent lsched" 0; then
    pycheck "lsched policy file" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "placeto-policy" and d["agent"] == "lsched", d.get("agent")
assert d["architecture"] == {"features": 12, "hidden": 6, "n_devices": 2}, d["architecture"]
assert [p["name"] for p in d["parameters"]] == ["w1", "b1", "w2"]
assert [p["shape"] for p in d["parameters"]] == [[12, 6], [1, 6], [6, 1]]
t = d["training"]
assert t["episodes"] == 5 and len(t["best"]) == 2 and t["simulations"] >= 20, t
' "$tmp/a.json"
fi
run train "$g" graphs/toy/crown.json "${small[@]}" --episodes 3 -o "$tmp/c.json"
expect_rc "train 3" 0
run train "$g" graphs/toy/crown.json --agent lsched --decodes 4 --seed 3 --episodes 2 --resume "$tmp/c.json" -o "$tmp/c.json"
expect_rc "train 2 more" 0 && { cmp -s "$tmp/a.json" "$tmp/c.json" && pass ||
    fail "lsched resume" "3 + 2 episodes differ from 5"; }
run train "$g" "${small[@]}" --lr 0.05 --episodes 5 -o "$tmp/lr.json"
expect_rc "train --lr 0.05" 0 && { cmp -s "$tmp/a.json" "$tmp/lr.json" && fail "lsched --lr" "no effect" || pass; }

# placing: exactly the budget (default 20), never worse than the best heuristic
heur=single,random,round-robin,expert,m-topo,m-etf,heft,metis,scotch
for budget in default 5 40; do
    b=(--budget "$budget"); [ "$budget" = default ] && b=()
    run compare "$g" --policy "$tmp/a.json" --untrained --methods "$heur" "${b[@]}" --seed 2 --json
    if expect_rc "compare --budget $budget" 0; then
        pycheck "lsched budget $budget" '
import json, sys
d = json.load(open(sys.argv[1])); b = 20 if sys.argv[2] == "default" else int(sys.argv[2])
m = {r["method"]: r for r in d["methods"]}
assert m["lsched"]["placements"] == b and m["lsched-untrained"]["placements"] == b, (m["lsched"], b)
assert "lsched-trained" in m, sorted(m)
heur = min(r["runtime_us"] for k, r in m.items() if not k.startswith("lsched"))
if b >= 9:
    assert m["lsched"]["runtime_us"] <= heur and m["lsched-untrained"]["runtime_us"] <= heur, (m["lsched"], heur)
' "$tmp/out" "$budget"
    fi
done
run place "$g" --policy "$tmp/a.json" --seed 4 --json
cp "$tmp/out" "$tmp/p1.json"
run place "$g" --policy "$tmp/a.json" --seed 4 --json
expect_rc "place --policy lsched" 0 && {
    diff <(grep -v seconds "$tmp/p1.json") <(grep -v seconds "$tmp/out") > /dev/null && pass ||
        fail "lsched place repeats" "two runs differ"; }
# any device count and any graph
run place graphs/families/nmt/nmt_variant_30.json --policy "$tmp/a.json" --devices 4 --json
if expect_rc "place on 4 devices, an unseen graph" 0; then
    pycheck "lsched on 4 devices" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["method"] == "lsched" and d["placements"] == 20, d
assert len(d["placement"]["devices"]) == 4, d["placement"]["devices"]
assert d["start"] in ("single", "random", "round-robin", "expert", "m-topo", "m-etf", "heft", "metis", "scotch"), d
' "$tmp/out"
fi

# a bad policy file is refused with the field named, and nothing placed
bad_file() { # NAME SED-EXPRESSION WANT
    sed -e "$2" "$tmp/a.json" > "$tmp/bad.json"
    run place "$g" --policy "$tmp/bad.json" -o "$tmp/bad_out.json"
    if expect_rc "bad lsched file: $1" 1; then
        grep -q -- "$3" "$tmp/err" && [ ! -e "$tmp/bad_out.json" ] && pass || fail "bad lsched file: $1" "$(flat "$tmp/err")"
    fi
}
bad_file features 's/"features": 12/"features": 11/' "architecture.features"
bad_file hidden 's/"hidden": 6/"hidden": 0/' "architecture.hidden"
bad_file devices 's/"n_devices": 2/"n_devices": 0/' "architecture.n_devices"
# a device count no cluster can have (clusters hold at most 1024 devices)
bad_file devices_huge 's/"n_devices": 2/"n_devices": 65536/' "architecture.n_devices: expected an integer from 1 to 1024"
bad_file shape 's/"shape": \[12, 6\]/"shape": \[12, 7\]/' "parameters"
# and a checkpoint with a baseline (the scheduler keeps none)
cp "$tmp/a.json" "$tmp/r.json"
python3 -c '
import json, sys
k = json.load(open(sys.argv[1])); k["training"]["baseline"] = [[0.5, 1]]; json.dump(k, open(sys.argv[2], "w"))
' "$tmp/a.ckpt.json" "$tmp/r.ckpt.json"
run train "$g" --agent lsched --episodes 1 --resume "$tmp/r.json" -o "$tmp/r2.json"
expect_rc "bad lsched checkpoint" 1 && { grep -q "training.baseline" "$tmp/err" && pass ||
    fail "bad lsched checkpoint" "$(flat "$tmp/err")"; }

# op costs near the smallest doubles: the features' time scale stays finite,
# training ends with finite weights (it said "training diverged?")
python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))
for n in g["nodes"]:
    n["cost_us"] *= 1e-309
    n["output_bytes"] = [0] * len(n["output_bytes"])
json.dump(g, open(sys.argv[2], "w"))
' graphs/toy/crown.json "$tmp/tiny.json"
run train "$tmp/tiny.json" --agent lsched --episodes 20 -o "$tmp/tiny_p.json"
expect_rc "lsched on costs of 1e-309 us" 0 && {
    grep -q "diverged" "$tmp/err" && fail "lsched tiny costs" "diverged" || pass; }

# usage errors: the other agents' options, bad values
run train "$g" --agent lsched --search-budget 200 -o "$tmp/x.json"
expect_rc "lsched --search-budget" 2
run train "$g" --agent lsched --decodes 1 -o "$tmp/x.json"
expect_rc "lsched --decodes 1" 2
[ ! -e "$tmp/x.json" ] && pass || fail "no file on usage errors" "x.json written"
run train "$g" --agent lsched --help
expect_rc "train --agent lsched --help" 0 && {
    grep -q -- "--decodes" "$tmp/out" && ! grep -q -- "--search-budget" "$tmp/out" && pass ||
        fail "lsched help" "its options alone expected"; }
# the explorer has no actor for it: a clear refusal
run explore "$g" --policy "$tmp/a.json" --headless --keys 'q' --dump "$tmp/s.txt"
expect_rc "explore --policy lsched" 1 && {
    grep -q "lsched policy has none" "$tmp/err" && pass || fail "explore lsched message" "$(flat "$tmp/err")"; }

echo "lsched: $passed passed, $failed failed"
[ "$failed" = 0 ]
