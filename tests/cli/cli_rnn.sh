#!/usr/bin/env bash
# `placeto train --agent rnn`: the RNN-based placer trains through the train
# command: progress lines, --json lines, the learning curve, a policy file
# with "agent": "rnn"; 5 updates = 3, then 2 more from the file, byte for
# byte; --threads gives the same bytes; place and compare with an rnn policy (rows
# rnn and rnn-trained); bad values and the Placeto-only options are usage
# errors (determinism per seed and the other agents' policies refused:
# cli_agents.sh, on every agent). Prints "rnn: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

g=graphs/toy/crown.json
small=(--agent rnn --hidden 16 --seed 3)

run train "$g" "${small[@]}" --episodes 5 -o "$tmp/a.json" --curve "$tmp/a.csv"
if expect_rc "train --agent rnn" 0; then
    if grep -q "episode 5/5  toy_crown  best" "$tmp/err" && [ ! -s "$tmp/out" ]; then pass; else
        fail "rnn progress" "no plain progress line"; fi
    pycheck "rnn policy file" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "placeto-policy" and d["version"] == 1 and d["agent"] == "rnn", d.get("agent")
a = d["architecture"]
assert a["n_devices"] == 2 and a["n_groups"] == 18 and a["hidden"] == 16, a
assert a["n_types"] == len(d["vocabulary"]) and d["vocabulary"] == sorted(d["vocabulary"])
t = d["training"]
k = json.load(open(sys.argv[1][:-5] + ".ckpt.json"))["training"]  # the checkpoint beside it
assert t["episodes"] == 5 and k["adam"]["step"] == 5 and t["simulations"] == 5 * 16, t  # 16 samples an update
assert a["squash_c"] == 5 and a["squash_tau"] == 1, a
assert len(k["baseline"]) == 1 and len(k["baseline"][0]) == 1
assert d["log"]["episodes"] == 5 and d["log"]["best_runtime_us"] > 0
' "$tmp/a.json"
    pycheck "rnn curve" '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [int(r["episode"]) for r in rows] == list(range(1, 6)), [r["episode"] for r in rows]
best = [float(r["best_runtime_us"]) for r in rows]
assert best == sorted(best, reverse=True), "best runtime went up"
assert all(float(r["return"]) < 0 for r in rows)
' "$tmp/a.csv"
fi

# resume: 5 straight = 3 + 2 resumed
run train "$g" "${small[@]}" --episodes 3 -o "$tmp/r.json"
expect_rc "rnn 3" 0 && pass
run train "$g" --agent rnn --episodes 2 --resume "$tmp/r.json"
if expect_rc "rnn --resume" 0; then
    if cmp -s "$tmp/a.json" "$tmp/r.json"; then pass; else fail "rnn resume bit-exact" "3 + 2 resumed differs from 5"; fi
fi

# --threads: the K samples in parallel, the same bytes as on one thread
run train "$g" "${small[@]}" --episodes 3 --samples-per-update 3 -o "$tmp/t1.json"
expect_rc "rnn K=3" 0 && pass
run train "$g" "${small[@]}" --episodes 3 --samples-per-update 3 --threads 2 -o "$tmp/t2.json"
if expect_rc "rnn --threads 2" 0; then
    if cmp -s "$tmp/t1.json" "$tmp/t2.json"; then pass; else fail "rnn threads" "2 threads differ from 1"; fi
fi

# --greedy-every K: a greedy decode simulated after every K-th update
run train "$g" "${small[@]}" --episodes 3 --greedy-every 1 --json -o "$tmp/gr.json"
if expect_rc "rnn --greedy-every" 0; then
    pycheck "rnn greedy simulations" '
import json, sys
s = [json.loads(l) for l in open(sys.argv[1])][-1]
assert s["episodes"] == 3 and s["placements_simulated"] == 3 * 16 + 3, s
' "$tmp/out"
fi

# --preset paper: the public code's values (one sample an update, C = 1, the moving average, lr 0.1)
run train "$g" "${small[@]}" --episodes 3 --preset paper --json -o "$tmp/pp.json"
if expect_rc "rnn --preset paper" 0; then
    pycheck "rnn --preset paper" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["architecture"]["squash_c"] == 1 and d["training"]["simulations"] == 3, d["training"]
assert d["training"]["adam"]["lr"] == 0.1 if "adam" in d["training"] else True
' "$tmp/pp.json"
fi
# its options still override it; --baseline and --oom take their words only
run train "$g" "${small[@]}" --episodes 2 --preset paper --samples-per-update 4 --baseline batch --oom faithful --json -o "$tmp/pb.json"
if expect_rc "rnn --preset paper with overrides" 0; then
    pycheck "rnn preset overridden" '
import json, sys
s = [json.loads(l) for l in open(sys.argv[1])][-1]
assert s["placements_simulated"] == 8, s
' "$tmp/out"
fi
# usage_says NAME TEXT ARGS...: a usage error whose message has TEXT
usage_says() {
    local name=$1 text=$2
    shift 2
    run "$@"
    expect_rc "$name" 2 || return
    if grep -qF -- "$text" "$tmp/err"; then pass; else fail "$name" "stderr lacks '$text'"; fi
}
usage_says "rnn --preset fast" "--preset: expected tuned or paper" train "$g" "${small[@]}" --episodes 1 --preset fast -o "$tmp/x.json"
usage_says "rnn --baseline none" "--baseline: expected batch or ema" train "$g" "${small[@]}" --episodes 1 --baseline none -o "$tmp/x.json"
usage_says "rnn --oom soft" "--oom: expected graded or faithful" train "$g" "${small[@]}" --episodes 1 --oom soft -o "$tmp/x.json"

# --json: one line per update (5 < 20) and a summary
run train "$g" "${small[@]}" --episodes 5 --samples-per-update 2 --json -o "$tmp/j.json"
if expect_rc "rnn --json" 0; then
    pycheck "rnn json lines" '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert [l["episode"] for l in lines[:-1]] == [1, 2, 3, 4, 5], lines
assert lines[-2]["placements_simulated"] == 10
s = lines[-1]
assert s["episodes"] == 5 and s["placements_simulated"] == 10 and s["graphs"][0]["graph"] == "toy_crown", s
' "$tmp/out"
fi

# place and compare with an rnn policy: a greedy decode (+ K samples); the
# best placement training found is the row rnn-trained
run place "$g" --policy "$tmp/a.json" --samples 3 --json
if expect_rc "place rnn policy" 0; then
    pycheck "place rnn json" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["method"] == "rnn" and d["placements"] == 4 and d["runtime_us"] > 0, d
assert len(d["placement"]["ops"]) == 18
' "$tmp/out"
fi
# (its rows rnn and rnn-trained in place and compare: cli_agents.sh, on every agent)
run place "$g" --policy "$tmp/a.json" --start heuristic
if expect_rc "rnn --start heuristic" 1; then
    if grep -q "does not apply" "$tmp/err"; then pass; else fail "rnn --start" "no clear message"; fi
fi
run place "$g" --policy "$tmp/a.json" --groups 5
expect_rc "rnn fewer groups than its capacity" 0
run place graphs/resnet18.json --policy "$tmp/a.json" --groups 60
if expect_rc "rnn more groups than its capacity" 1; then
    if grep -q "places at most 18 groups" "$tmp/err"; then pass; else fail "rnn grouping" "no clear message"; fi
fi

# a family: each update draws a graph; each keeps its own baseline and best
run train "$g" graphs/toy/chain.json "${small[@]}" --episodes 12 --json -o "$tmp/fam.json"
if expect_rc "rnn family" 0; then
    pycheck "rnn family policy" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["agent"] == "rnn"
names = sorted(b["graph"] for b in d["training"]["best"])
assert names == ["toy_chain", "toy_crown"], names
k = json.load(open(sys.argv[1][:-5] + ".ckpt.json"))["training"]
assert len(k["baseline"]) == 1 and len(k["baseline"][0]) == 2, k["baseline"]
' "$tmp/fam.json"
fi
run train graphs/toy --agent rnn --hidden 8 --episodes 4 --group-capacity 40 -o "$tmp/dir.json"
if expect_rc "rnn directory" 0; then
    if grep -q '"n_groups": 40' "$tmp/dir.json"; then pass; else fail "rnn capacity" "n_groups is not 40"; fi
fi
run train graphs/toy --agent rnn --hidden 8 --episodes 2 --group-capacity 3 -o "$tmp/x.json"
if expect_rc "rnn capacity too small" 1; then
    if grep -q "places at most 3 groups" "$tmp/err"; then pass; else fail "rnn capacity message" "$(flat "$tmp/err")"; fi
fi
run place graphs/toy/chain.json --policy "$tmp/fam.json"
expect_rc "rnn family policy places a member" 0
# a family's policy groups a graph by default (not to its capacity)
run compare graphs/toy/diamond.json --policy "$tmp/dir.json" --methods single --json
if expect_rc "rnn family policy zero-shot" 0; then
    want=$(./placeto info graphs/toy/diamond.json | awk '/^groups/{print $2}')
    pycheck "rnn zero-shot default grouping" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["groups"] == int(sys.argv[2]), (d["groups"], sys.argv[2])
' "$tmp/out" "$want"
fi

usage_error "bad agent" train "$g" --agent gnn -o "$tmp/x.json"
usage_error "rnn threads" train "$g" --agent rnn --threads 65 -o "$tmp/x.json"
usage_error "rnn samples 65" train "$g" --agent rnn --samples-per-update 65 -o "$tmp/x.json"
usage_error "rnn squash resume" train "$g" --agent rnn --squash 2 --resume "$tmp/a.json"
usage_error "rnn noise negative" train "$g" --agent rnn --noise -1 -o "$tmp/x.json"
usage_error "rnn squash on placeto" train "$g" --squash 2 -o "$tmp/x.json"
usage_error "rnn placeto option" train "$g" --agent rnn --gamma 1 -o "$tmp/x.json"
usage_error "rnn samples 0" train "$g" --agent rnn --samples-per-update 0 -o "$tmp/x.json"
usage_error "rnn odd hidden" train "$g" --agent rnn --hidden 15 -o "$tmp/x.json"
usage_error "rnn hidden resume" train "$g" --agent rnn --hidden 16 --resume "$tmp/a.json"
usage_error "samples without rnn" train "$g" --samples-per-update 2 -o "$tmp/x.json"
usage_error "hidden without rnn" train "$g" --hidden 16 -o "$tmp/x.json"
usage_error "greedy-every without rnn" train "$g" --greedy-every 5 -o "$tmp/x.json"
usage_error "rnn greedy-every -1" train "$g" --agent rnn --greedy-every -1 -o "$tmp/x.json"
[ ! -e "$tmp/x.json" ] && pass || fail "no file on errors" "x.json was written"

echo "rnn: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
