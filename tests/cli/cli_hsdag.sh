#!/usr/bin/env bash
# `placeto train --agent hsdag`: the HSDAG grouper-placer trains with
# REINFORCE through the train command: progress lines, --json lines, the
# learning curve, a policy file with "agent": "hsdag"; 5 updates = 3, then
# 2 more from the file (its steps kept), byte for byte; --threads
# gives the same bytes; a family; the feature families, the baseline, OOM
# and one-device options; place and compare with an hsdag policy (rows hsdag
# and hsdag-trained), on a training graph and zero-shot on another; bad
# values and the other agents' options are usage errors, and no file is
# written on errors (determinism per seed and the other agents' policies
# refused: cli_agents.sh, on every agent). Prints "hsdag: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

g=graphs/toy/crown.json
small=(--agent hsdag --hidden 8 --steps 4 --seed 3)

run train "$g" "${small[@]}" --episodes 5 -o "$tmp/a.json" --curve "$tmp/a.csv"
if expect_rc "train --agent hsdag" 0; then
    if grep -q "episode 5/5  toy_crown  best" "$tmp/err" && [ ! -s "$tmp/out" ]; then pass; else
        fail "hsdag progress" "no plain progress line"; fi
    pycheck "hsdag policy file" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "placeto-policy" and d["version"] == 1 and d["agent"] == "hsdag", d.get("agent")
a = d["architecture"]
assert a["n_devices"] == 2 and a["hidden"] == 8 and a["features"] == "type,shape,id,struct", a
assert a["min_clusters"] == 4 and a["steps"] == 4, a
assert a["n_types"] == len(d["vocabulary"]) and d["vocabulary"] == sorted(d["vocabulary"])
t = d["training"]
k = json.load(open(sys.argv[1][:-5] + ".ckpt.json"))["training"]  # the checkpoint beside it
# 5 updates of one 4-step episode, and a greedy placement after update 5
assert t["episodes"] == 5 and k["adam"]["step"] == 5 and t["simulations"] == 21, (t["episodes"], t["simulations"])
assert k["baseline"] == [] and "baseline" not in t
assert d["log"]["episodes"] == 5 and d["log"]["best_runtime_us"] > 0
' "$tmp/a.json"
    pycheck "hsdag curve" '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [int(r["episode"]) for r in rows] == list(range(1, 6)), [r["episode"] for r in rows]
best = [float(r["best_runtime_us"]) for r in rows]
assert best == sorted(best, reverse=True), "best runtime went up"
assert all(float(r["return"]) > 0 for r in rows)
' "$tmp/a.csv"
fi

# resume: 5 straight = 3 + 2 resumed
run train "$g" "${small[@]}" --episodes 3 -o "$tmp/r.json"
expect_rc "hsdag 3" 0 && pass
run train "$g" --agent hsdag --episodes 2 --resume "$tmp/r.json" # its 4 steps from the file
if expect_rc "hsdag --resume" 0; then
    if cmp -s "$tmp/a.json" "$tmp/r.json"; then pass; else fail "hsdag resume bit-exact" "3 + 2 resumed differs from 5"; fi
fi

# --threads: the backward passes in parallel, the same bytes as on one thread
run train "$g" "${small[@]}" --episodes 5 --threads 2 -o "$tmp/t2.json"
if expect_rc "hsdag --threads 2" 0; then
    if cmp -s "$tmp/a.json" "$tmp/t2.json"; then pass; else fail "hsdag threads" "2 threads differ from 1"; fi
fi
# several episodes per update, with the moving-average baseline, on 1 and 2 threads
run train "$g" "${small[@]}" --episodes 3 --episodes-per-update 3 --baseline ema -o "$tmp/e1.json"
expect_rc "hsdag episodes-per-update" 0 && pass
run train "$g" "${small[@]}" --episodes 3 --episodes-per-update 3 --baseline ema --threads 2 -o "$tmp/e2.json"
if expect_rc "hsdag episodes-per-update threads" 0; then
    if cmp -s "$tmp/e1.json" "$tmp/e2.json"; then pass; else fail "hsdag E threads" "2 threads differ from 1"; fi
    pycheck "hsdag baseline in the file" '
import json, sys
t = json.load(open(sys.argv[1]))["training"]
k = json.load(open(sys.argv[1][:-5] + ".ckpt.json"))["training"]
assert len(k["baseline"]) == 1 and len(k["baseline"][0]) == 1 and k["baseline"][0][0] > 0, k["baseline"]
assert t["simulations"] == 3 * 3 * 4, t["simulations"]
' "$tmp/e1.json"
fi

# --json: one line per update and a summary
run train "$g" "${small[@]}" --episodes 5 --greedy-every 0 --json -o "$tmp/j.json"
if expect_rc "hsdag --json" 0; then
    pycheck "hsdag json lines" '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert [l["episode"] for l in lines[:-1]] == [1, 2, 3, 4, 5], lines
s = lines[-1]
assert s["episodes"] == 5 and s["placements_simulated"] == 20 and s["graphs"][0]["graph"] == "toy_crown", s
' "$tmp/out"
fi

# the feature families: a list, parity, and what the file records
run train "$g" "${small[@]}" --episodes 1 --features parity -o "$tmp/par.json"
if expect_rc "hsdag --features parity" 0; then
    pycheck "hsdag parity features" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["architecture"]["features"] == "type,shape,id,struct,cost", d["architecture"]
' "$tmp/par.json"
fi
run train "$g" "${small[@]}" --episodes 1 --features id,struct --min-clusters 3 -o "$tmp/abl.json"
if expect_rc "hsdag --features id,struct" 0; then
    pycheck "hsdag ablated features" '
import json, sys
a = json.load(open(sys.argv[1]))["architecture"]
assert a["features"] == "id,struct" and a["min_clusters"] == 3, a
' "$tmp/abl.json"
fi
run train "$g" "${small[@]}" --episodes 2 --oom graded --allow-single --gamma 0.5 --clip 1 -o "$tmp/o.json"
expect_rc "hsdag --oom graded --allow-single" 0 && pass

# HSDAG's own coarsening: --groups chains (every command that groups takes it)
run info "$g" --groups chains
if expect_rc "info --groups chains" 0; then
    if grep -q "^groups *8 (HSDAG's chain coarsening)" "$tmp/out"; then pass; else fail "chains groups" "$(flat "$tmp/out")"; fi
fi
run train "$g" "${small[@]}" --episodes 2 --groups chains -o "$tmp/ch.json" --json
if expect_rc "hsdag --groups chains" 0; then
    pycheck "hsdag on the coarsened graph" '
import json, sys
d = json.load(open(sys.argv[1]))
b = d["training"]["best"]
assert len(b) == 1 and b[0]["n_groups"] == 8 and len(b[0]["group_device"]) == 8, b
' "$tmp/ch.json"
fi
run compare "$g" --groups chains --policy "$tmp/ch.json" --methods single --json
if expect_rc "compare --groups chains with the policy" 0; then
    pycheck "compare chains rows" '
import json, sys
d = json.load(open(sys.argv[1]))
names = [r["method"] for r in d["methods"]]
assert d["groups"] == 8 and "hsdag" in names and "hsdag-trained" in names, (d["groups"], names)
' "$tmp/out"
fi
usage_error "groups chainz" info "$g" --groups chainz

# place and compare with an hsdag policy
run place "$g" --policy "$tmp/a.json" --samples 3 --json
if expect_rc "place hsdag policy" 0; then
    pycheck "place hsdag json" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["method"] == "hsdag" and d["placements"] == 4 and d["runtime_us"] > 0, d
assert len(d["placement"]["ops"]) == 18
' "$tmp/out"
fi
# (its rows hsdag and hsdag-trained in place and compare: cli_agents.sh, on every agent)
run place "$g" --policy "$tmp/a.json" --start heuristic
if expect_rc "hsdag --start heuristic" 1; then
    if grep -q "does not apply" "$tmp/err"; then pass; else fail "hsdag --start" "no clear message"; fi
fi
run place "$g" --policy "$tmp/a.json" --devices 3
if expect_rc "hsdag policy on another device count" 1; then
    if grep -q "the policy is for 2 devices" "$tmp/err"; then pass; else fail "hsdag devices" "$(flat "$tmp/err")"; fi
fi

# a family: each episode draws a graph; each keeps its own best
run train "$g" graphs/toy/chain.json "${small[@]}" --episodes 4 --episodes-per-update 2 --json -o "$tmp/fam.json"
if expect_rc "hsdag family" 0; then
    pycheck "hsdag family policy" '
import json, sys
d = json.load(open(sys.argv[1]))
names = sorted(b["graph"] for b in d["training"]["best"])
assert names == ["toy_chain", "toy_crown"], names
assert d["training"]["simulations"] == 4 * 2 * 4, d["training"]["simulations"]
' "$tmp/fam.json"
fi
run compare graphs/toy/diamond.json --policy "$tmp/fam.json" --methods single --json
if expect_rc "hsdag family policy zero-shot" 0; then
    pycheck "hsdag zero-shot rows" '
import json, sys
d = json.load(open(sys.argv[1]))
names = [r["method"] for r in d["methods"]]
assert "hsdag" in names and "hsdag-trained" not in names, names
' "$tmp/out"
fi

usage_error "hsdag features unknown" train "$g" --agent hsdag --features type,colour -o "$tmp/x.json"
usage_error "hsdag features with resume" train "$g" --agent hsdag --features parity --resume "$tmp/a.json" -o "$tmp/x.json"
usage_error "hsdag baseline" train "$g" --agent hsdag --baseline mean -o "$tmp/x.json"
usage_error "hsdag oom" train "$g" --agent hsdag --oom soft -o "$tmp/x.json"
usage_error "hsdag steps 0" train "$g" --agent hsdag --steps 0 -o "$tmp/x.json"
usage_error "hsdag episodes-per-update 65" train "$g" --agent hsdag --episodes-per-update 65 -o "$tmp/x.json"
usage_error "hsdag gamma 2" train "$g" --agent hsdag --gamma 2 -o "$tmp/x.json"
usage_error "hsdag samples-per-update" train "$g" --agent hsdag --samples-per-update 2 -o "$tmp/x.json"
usage_error "hsdag entropy" train "$g" --agent hsdag --entropy 0.1 -o "$tmp/x.json"
usage_error "hsdag gdp option" train "$g" --agent hsdag --epochs 2 -o "$tmp/x.json"
usage_error "hsdag rnn option" train "$g" --agent hsdag --squash 2 -o "$tmp/x.json"
usage_error "hsdag placeto option" train "$g" --agent hsdag --init best -o "$tmp/x.json"
usage_error "gdp hsdag option" train "$g" --agent gdp --steps 3 -o "$tmp/x.json"
usage_error "rnn hsdag option" train "$g" --agent rnn --min-clusters 4 -o "$tmp/x.json"
usage_error "rnn gamma" train "$g" --agent rnn --gamma 0.5 -o "$tmp/x.json"
usage_error "steps without hsdag" train "$g" --steps 3 -o "$tmp/x.json"
usage_error "unknown agent" train "$g" --agent hsdog -o "$tmp/x.json"
[ ! -e "$tmp/x.json" ] && pass || fail "no file on errors" "x.json was written"

echo "hsdag: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
