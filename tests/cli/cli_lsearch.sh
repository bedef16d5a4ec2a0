#!/usr/bin/env bash
# `placeto train --agent lsearch` and its policy (the learned local search,
# docs/agent.md): the policy file names its agent; 3 + 2 episodes resumed
# give the bytes of 5 (determinism per seed: cli_agents.sh, on every agent);
# place and compare with the policy spend exactly --budget placements
# (rows lsearch, lsearch-trained and, with --untrained, lsearch-untrained),
# are never worse than the best heuristic, place on another device count
# and another graph than trained on, and repeat themselves; the other
# agents' options are usage errors, and the explorer refuses the policy
# with a message. With --scorer placeto (Placeto's network scoring the
# moves): the file records the scorer and Placeto's tensors, training is
# deterministic and resumes bit-exactly, place and compare spend exactly
# the budget and repeat themselves, and another device count, a bad
# scorer and the MLP's options are refused with the reason.
# Prints "lsearch: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

g=graphs/families/enas-ptb/enas_ptb_00.json
small=(--agent lsearch --hidden 6 --search-budget 100 --seed 3)

run train "$g" graphs/toy/crown.json "${small[@]}" --episodes 5 -o "$tmp/a.json"
if expect_rc "train --agent lsearch" 0; then
    pycheck "lsearch policy file" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "placeto-policy" and d["agent"] == "lsearch", d.get("agent")
assert d["architecture"] == {"features": 12, "hidden": 6, "n_devices": 2}, d["architecture"]
assert [p["name"] for p in d["parameters"]] == ["w1", "b1", "w2"]
assert [p["shape"] for p in d["parameters"]] == [[12, 6], [1, 6], [6, 1]]
t = d["training"]
assert t["episodes"] == 5 and len(t["best"]) == 2 and t["simulations"] > 0, t
k = json.load(open(sys.argv[2]))  # the checkpoint: the rewards statistics
b = k["training"]["baseline"]
assert len(b) == 1 and len(b[0]) == 2 and b[0][1] > 0, b
' "$tmp/a.json" "$tmp/a.ckpt.json"
fi
run train "$g" graphs/toy/crown.json "${small[@]}" --episodes 3 -o "$tmp/c.json"
expect_rc "train 3" 0
run train "$g" graphs/toy/crown.json --agent lsearch --search-budget 100 --seed 3 --episodes 2 --resume "$tmp/c.json" -o "$tmp/c.json"
expect_rc "train 2 more" 0 && { cmp -s "$tmp/a.json" "$tmp/c.json" && pass ||
    fail "lsearch resume" "3 + 2 episodes differ from 5"; }

# another device count: a resume defaults to the file's, and --devices N
# retrains on N with a file that records N (and loads)
run train "$g" "${small[@]}" --devices 4 --episodes 2 -o "$tmp/d4.json"
expect_rc "train on 4 devices" 0
run train "$g" --agent lsearch --search-budget 100 --seed 3 --episodes 1 --resume "$tmp/d4.json" -o "$tmp/d4b.json"
expect_rc "resume: the file's device count" 0 && {
    grep -q '"n_devices": 4' "$tmp/d4b.json" && pass || fail "resume keeps 4 devices" "$(grep -o '"n_devices": [0-9]*' "$tmp/d4b.json")"; }
run train "$g" --agent lsearch --search-budget 100 --seed 3 --episodes 1 --resume "$tmp/d4.json" --devices 8 -o "$tmp/d8.json"
expect_rc "resume on 8 devices" 0
run place "$g" --policy "$tmp/d8.json" --budget 20 --devices 8
expect_rc "the 8-device file loads" 0

# placing: exactly the budget, never worse than the best heuristic
heur=single,random,round-robin,expert,m-topo,m-etf,heft,metis,scotch
for budget in 5 40 300; do
    run compare "$g" --policy "$tmp/a.json" --untrained --methods "$heur" --budget $budget --seed 2 --json
    if expect_rc "compare --budget $budget" 0; then
        pycheck "lsearch budget $budget" '
import json, sys
d = json.load(open(sys.argv[1])); b = int(sys.argv[2])
m = {r["method"]: r for r in d["methods"]}
assert m["lsearch"]["placements"] == b and m["lsearch-untrained"]["placements"] == b, (m["lsearch"], b)
assert "lsearch-trained" in m, sorted(m)
heur = min(r["runtime_us"] for k, r in m.items() if not k.startswith("lsearch"))
if b >= 9:
    assert m["lsearch"]["runtime_us"] <= heur and m["lsearch-untrained"]["runtime_us"] <= heur, (m["lsearch"], heur)
' "$tmp/out" $budget
    fi
done
run place "$g" --policy "$tmp/a.json" --budget 120 --seed 4 --json
cp "$tmp/out" "$tmp/p1.json"
run place "$g" --policy "$tmp/a.json" --budget 120 --seed 4 --json
expect_rc "place --policy lsearch" 0 && {
    diff <(grep -v seconds "$tmp/p1.json") <(grep -v seconds "$tmp/out") > /dev/null && pass ||
        fail "lsearch place repeats" "two runs differ"; }
# any device count and any graph
run place graphs/families/nmt/nmt_variant_30.json --policy "$tmp/a.json" --devices 4 --budget 50 --json
if expect_rc "place on 4 devices, an unseen graph" 0; then
    pycheck "lsearch on 4 devices" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["method"] == "lsearch" and d["placements"] == 50, d
assert d["placement"]["devices"] == 4 or len(d["placement"]["devices"]) == 4, d["placement"]["devices"]
' "$tmp/out"
fi
run compare graphs/families/nmt/nmt_variant_30.json --policy "$tmp/a.json" --devices 3 --methods single --budget 20 --json
expect_rc "compare on 3 devices" 0 && { grep -q '"devices": 3' "$tmp/out" && pass ||
    fail "lsearch --devices 3 honoured" "$(head -c 200 "$tmp/out")"; }

# a bad policy file is refused with the field named, and nothing placed
bad_file() { # NAME SED-EXPRESSION WANT
    sed -e "$2" "$tmp/a.json" > "$tmp/bad.json"
    run place "$g" --policy "$tmp/bad.json" --budget 20 -o "$tmp/bad_out.json"
    if expect_rc "bad lsearch file: $1" 1; then
        grep -q -- "$3" "$tmp/err" && [ ! -e "$tmp/bad_out.json" ] && pass || fail "bad lsearch file: $1" "$(flat "$tmp/err")"
    fi
}
bad_file features 's/"features": 12/"features": 11/' "architecture.features"
bad_file hidden 's/"hidden": 6/"hidden": 0/' "architecture.hidden"
bad_file devices 's/"n_devices": 2/"n_devices": 0/' "architecture.n_devices"
# a device count no cluster can have (clusters hold at most 1024 devices)
bad_file devices_huge 's/"n_devices": 2/"n_devices": 65536/' "architecture.n_devices: expected an integer from 1 to 1024"
bad_file shape 's/"shape": \[12, 6\]/"shape": [12, 7]/' "parameters"
# and a checkpoint whose baseline is not [[mean, variance]]
cp "$tmp/a.json" "$tmp/r.json"
python3 -c '
import json, sys
k = json.load(open(sys.argv[1])); k["training"]["baseline"] = [[0.5]]; json.dump(k, open(sys.argv[2], "w"))
' "$tmp/a.ckpt.json" "$tmp/r.ckpt.json"
run train "$g" --agent lsearch --search-budget 100 --episodes 1 --resume "$tmp/r.json" -o "$tmp/r2.json"
expect_rc "bad lsearch checkpoint" 1 && { grep -q "training.baseline" "$tmp/err" && pass ||
    fail "bad lsearch checkpoint" "$(flat "$tmp/err")"; }

# usage errors: the other agents' options, bad values
run train "$g" --agent lsearch --epochs 2 -o "$tmp/x.json"
expect_rc "lsearch --epochs" 2
run train "$g" --agent lsearch --search-budget 1 -o "$tmp/x.json"
expect_rc "lsearch --search-budget 1" 2
[ ! -e "$tmp/x.json" ] && pass || fail "no file on usage errors" "x.json written"
run train "$g" --agent lsearch --help
expect_rc "train --agent lsearch --help" 0 && {
    grep -q -- "--search-budget" "$tmp/out" && ! grep -q -- "--epochs" "$tmp/out" && pass ||
        fail "lsearch help" "its options alone expected"; }
# the explorer has no actor for it: a clear refusal
run explore "$g" --policy "$tmp/a.json" --headless --keys 'q' --dump "$tmp/s.txt"
expect_rc "explore --policy lsearch" 1 && {
    grep -q "lsearch policy has none" "$tmp/err" && pass || fail "explore lsearch message" "$(flat "$tmp/err")"; }

# --scorer placeto: Placeto's network orders the moves
gs=(--agent lsearch --scorer placeto --search-budget 100 --seed 3)
run train "$g" graphs/toy/crown.json "${gs[@]}" --episodes 4 -o "$tmp/p.json"
if expect_rc "train --scorer placeto" 0; then
    pycheck "placeto-scored policy file" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["agent"] == "lsearch", d.get("agent")
assert d["architecture"] == {"scorer": "placeto", "n_devices": 2, "n_features": 12, "d": 12, "rounds": 8,
                             "extended": 1}, d["architecture"]
names = [p["name"] for p in d["parameters"]]
assert len(names) == 52 and names[0] == "T0.W" and names[-1] == "head2.b", names
assert d["training"]["episodes"] == 4 and len(d["training"]["best"]) == 2, d["training"]
' "$tmp/p.json"
fi
run train "$g" graphs/toy/crown.json "${gs[@]}" --episodes 4 -o "$tmp/p2.json"
expect_rc "train --scorer placeto again" 0 && { cmp -s "$tmp/p.json" "$tmp/p2.json" && pass ||
    fail "placeto-scored training deterministic" "two runs differ"; }
run train "$g" graphs/toy/crown.json "${gs[@]}" --episodes 2 -o "$tmp/p3.json"
expect_rc "train --scorer placeto 2" 0
run train "$g" graphs/toy/crown.json --agent lsearch --search-budget 100 --seed 3 --episodes 2 --resume "$tmp/p3.json" -o "$tmp/p3.json"
expect_rc "train --scorer placeto 2 more" 0 && { cmp -s "$tmp/p.json" "$tmp/p3.json" && pass ||
    fail "placeto-scored resume" "2 + 2 episodes differ from 4"; }
for budget in 5 150; do
    run compare "$g" --policy "$tmp/p.json" --untrained --methods "$heur" --budget $budget --seed 2 --json
    if expect_rc "compare placeto-scored --budget $budget" 0; then
        pycheck "placeto-scored budget $budget" '
import json, sys
d = json.load(open(sys.argv[1])); b = int(sys.argv[2])
m = {r["method"]: r for r in d["methods"]}
assert m["lsearch"]["placements"] == b and m["lsearch-untrained"]["placements"] == b, (m["lsearch"], b)
heur = min(r["runtime_us"] for k, r in m.items() if not k.startswith("lsearch"))
if b >= 9:
    assert m["lsearch"]["runtime_us"] <= heur and m["lsearch-untrained"]["runtime_us"] <= heur, (m["lsearch"], heur)
' "$tmp/out" $budget
    fi
done
run place "$g" --policy "$tmp/p.json" --budget 120 --seed 4 --json
cp "$tmp/out" "$tmp/pp1.json"
run place "$g" --policy "$tmp/p.json" --budget 120 --seed 4 --json
expect_rc "place --policy placeto-scored" 0 && {
    diff <(grep -v seconds "$tmp/pp1.json") <(grep -v seconds "$tmp/out") > /dev/null && pass ||
        fail "placeto-scored place repeats" "two runs differ"; }
run place "$g" --policy "$tmp/p.json" --budget 20 --devices 4
expect_rc "placeto-scored on 4 devices" 1 && { grep -q "2 devices" "$tmp/err" && pass ||
    fail "placeto-scored device count message" "$(flat "$tmp/err")"; }
run train "$g" --agent lsearch --scorer gnn -o "$tmp/x.json"
expect_rc "lsearch --scorer gnn" 2 && { grep -q "mlp or placeto" "$tmp/err" && pass || fail "--scorer message" "$(flat "$tmp/err")"; }
run train "$g" --agent lsearch --scorer placeto --hidden 8 -o "$tmp/x.json"
expect_rc "lsearch --scorer placeto --hidden" 2
run train "$g" --agent lsearch --features paper -o "$tmp/x.json"
expect_rc "lsearch --features without --scorer placeto" 2
sed -e 's/"scorer": "placeto"/"scorer": "gcn"/' "$tmp/p.json" > "$tmp/bad.json"
run place "$g" --policy "$tmp/bad.json" --budget 20
expect_rc "bad scorer in the file" 1 && { grep -q "architecture.scorer" "$tmp/err" && pass ||
    fail "bad scorer message" "$(flat "$tmp/err")"; }
sed -e 's/"n_features": 12/"n_features": 11/' "$tmp/p.json" > "$tmp/bad.json"
run place "$g" --policy "$tmp/bad.json" --budget 20
expect_rc "bad n_features in the file" 1 && { grep -q "architecture.n_features" "$tmp/err" && pass ||
    fail "bad n_features message" "$(flat "$tmp/err")"; }

echo "lsearch: $passed passed, $failed failed"
[ "$failed" = 0 ]
