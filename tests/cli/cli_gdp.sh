#!/usr/bin/env bash
# `placeto train --agent gdp`: the GDP placer trains with PPO through the
# train command: progress lines, --json lines, the learning curve, a policy
# file with "agent": "gdp"; 5 updates = 3, then 2 more from the file
# (its architecture options kept), byte for byte; --threads gives the same bytes; a
# family; place and compare with a gdp policy (rows gdp and gdp-trained,
# and with --start heuristic the fallback gdp-or-heuristic, the better of
# gdp's placements and the best heuristic's, also with the bundled family
# policies), on a training graph and zero-shot on another, and fine-tuning a family's
# policy on a new graph; bad values and the other agents' options are
# usage errors, and no file is written on errors (determinism per seed and
# the other agents' policies refused: cli_agents.sh, on every agent).
# Prints "gdp: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

g=graphs/toy/crown.json
small=(--agent gdp --hidden 8 --samples-per-update 4 --epochs 2 --seed 3)

run train "$g" "${small[@]}" --episodes 5 -o "$tmp/a.json" --curve "$tmp/a.csv"
if expect_rc "train --agent gdp" 0; then
    if grep -q "episode 5/5  toy_crown  best" "$tmp/err" && [ ! -s "$tmp/out" ]; then pass; else
        fail "gdp progress" "no plain progress line"; fi
    pycheck "gdp policy file" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "placeto-policy" and d["version"] == 1 and d["agent"] == "gdp", d.get("agent")
a = d["architecture"]
assert a["n_devices"] == 2 and a["hidden"] == 8 and a["heads"] == 4 and a["superposition"] is True, a
assert a["gnn_layers"] == 2 and a["blocks"] == 1 and a["segment"] == 256, a
assert a["n_types"] == len(d["vocabulary"]) and d["vocabulary"] == sorted(d["vocabulary"])
t = d["training"]
k = json.load(open(sys.argv[1][:-5] + ".ckpt.json"))["training"]  # the checkpoint beside it
assert t["episodes"] == 5 and k["adam"]["step"] == 10 and t["simulations"] == 20, (t["episodes"], t["simulations"])
assert k["baseline"] == [] and "baseline" not in t
assert d["log"]["episodes"] == 5 and d["log"]["best_runtime_us"] > 0
' "$tmp/a.json"
    pycheck "gdp curve" '
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
expect_rc "gdp 3" 0 && pass
run train "$g" --agent gdp --samples-per-update 4 --epochs 2 --episodes 2 --resume "$tmp/r.json"
if expect_rc "gdp --resume" 0; then
    if cmp -s "$tmp/a.json" "$tmp/r.json"; then pass; else fail "gdp resume bit-exact" "3 + 2 resumed differs from 5"; fi
fi

# --threads: the samples in parallel, the same bytes as on one thread
run train "$g" "${small[@]}" --episodes 5 --threads 2 -o "$tmp/t2.json"
if expect_rc "gdp --threads 2" 0; then
    if cmp -s "$tmp/a.json" "$tmp/t2.json"; then pass; else fail "gdp threads" "2 threads differ from 1"; fi
fi

# --greedy-every K: a greedy placement simulated after every K-th update
run train "$g" "${small[@]}" --episodes 3 --greedy-every 1 --json -o "$tmp/gr.json"
if expect_rc "gdp --greedy-every" 0; then
    pycheck "gdp greedy simulations" '
import json, sys
s = [json.loads(l) for l in open(sys.argv[1])][-1]
assert s["episodes"] == 3 and s["placements_simulated"] == 15, s
' "$tmp/out"
fi

# --json: one line per update (5 < 20) and a summary
run train "$g" "${small[@]}" --episodes 5 --json -o "$tmp/j.json"
if expect_rc "gdp --json" 0; then
    pycheck "gdp json lines" '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert [l["episode"] for l in lines[:-1]] == [1, 2, 3, 4, 5], lines
assert lines[-2]["placements_simulated"] == 20
s = lines[-1]
assert s["episodes"] == 5 and s["placements_simulated"] == 20 and s["graphs"][0]["graph"] == "toy_crown", s
' "$tmp/out"
fi

# place and compare with a gdp policy: a greedy placement (+ K samples); the
# best placement training found is the row gdp-trained
run place "$g" --policy "$tmp/a.json" --samples 3 --json
if expect_rc "place gdp policy" 0; then
    pycheck "place gdp json" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["method"] == "gdp" and d["placements"] == 4 and d["runtime_us"] > 0, d
assert len(d["placement"]["ops"]) == 18
' "$tmp/out"
fi
# (its rows gdp and gdp-trained in place and compare: cli_agents.sh, on every agent)
# --start heuristic: the explicit fallback row gdp-or-heuristic, the better of
# gdp's placements and the best heuristic's, never slower than either
run compare "$g" --methods single,random,round-robin,expert,m-topo,m-etf,heft,metis,scotch --no-policy --json
cp "$tmp/out" "$tmp/heur.json"
run place "$g" --policy "$tmp/a.json" --samples 3 --json
cp "$tmp/out" "$tmp/own.json"
for seed in 0 7; do
    run place "$g" --policy "$tmp/a.json" --samples 3 --start heuristic --seed "$seed" --json
    if expect_rc "gdp --start heuristic (seed $seed)" 0; then
        pycheck "gdp-or-heuristic: the better of gdp's and the best heuristic's (seed $seed)" '
import json, sys
p, own, h = (json.load(open(f)) for f in sys.argv[1:4])
heur = {m["method"]: m["runtime_us"] for m in h["methods"]}
assert p["method"] == "gdp-or-heuristic" and p["start"] in heur, (p["method"], p.get("start"))
# every placement simulated is counted: the 4 of gdp, one per heuristic, and the
# one that puts the best of gdp on the scale of the heuristics
assert own["placements"] == 4 and p["placements"] == own["placements"] + len(heur) + 1, (p["placements"], len(heur))
assert p["runtime_us"] <= min(heur.values()) + 1e-6 and p["runtime_us"] <= own["runtime_us"] + 1e-6, p["runtime_us"]
best = min(min(heur.values()), own["runtime_us"]) if sys.argv[4] == "0" else None
assert best is None or abs(p["runtime_us"] - best) < 1e-6, (p["runtime_us"], best)
' "$tmp/out" "$tmp/own.json" "$tmp/heur.json" "$seed"
    fi
done
run place "$g" --policy "$tmp/a.json" --start heuristic
if expect_rc "gdp --start heuristic text" 0; then
    if grep -q "with gdp-or-heuristic: runtime" "$tmp/out" && grep -q "'s placement when faster" "$tmp/out"; then pass; else
        fail "gdp --start heuristic text" "$(flat "$tmp/out")"; fi
fi
run compare "$g" --policy "$tmp/a.json" --start heuristic --untrained --methods single,heft --json
if expect_rc "compare gdp --start heuristic --untrained" 0; then
    pycheck "compare gdp fallback rows" '
import json, sys
names = sorted(r["method"] for r in json.load(open(sys.argv[1]))["methods"])
assert names == ["gdp-or-heuristic", "gdp-or-heuristic-untrained", "gdp-trained", "heft", "single"], names
' "$tmp/out"
fi
# the bundled family policies on a held-out member: the row is the better of
# the two whichever wins (gdp's own on nmt, the heuristic's on enas-cifar10
# when this was written)
for fp in nmt:nmt/nmt_variant_24 enas-cifar10:enas-cifar10/enas_cifar10_24; do
    fg=graphs/families/${fp#*:}.json
    run compare "$fg" --methods single,random,round-robin,expert,m-topo,m-etf,heft,metis,scotch --no-policy --json
    cp "$tmp/out" "$tmp/heur.json"
    run place "$fg" --policy "graphs/policies/gdp_family_${fp%%:*}.json" --samples 8 --json
    cp "$tmp/out" "$tmp/own.json"
    run place "$fg" --policy "graphs/policies/gdp_family_${fp%%:*}.json" --samples 8 --start heuristic --json
    expect_rc "gdp_family_${fp%%:*} --start heuristic" 0 && pycheck "gdp_family_${fp%%:*}: gdp-or-heuristic is the better" '
import json, sys
p, own, h = (json.load(open(f)) for f in sys.argv[1:4])
best = min([m["runtime_us"] for m in h["methods"]] + [own["runtime_us"]])
assert p["method"] == "gdp-or-heuristic" and abs(p["runtime_us"] - best) < 1e-6, (p["runtime_us"], best)
' "$tmp/out" "$tmp/own.json" "$tmp/heur.json"
done
run place "$g" --policy "$tmp/a.json" --start random --json
if expect_rc "gdp --start random" 0; then
    pycheck "gdp --start random is the gdp row" '
import json, sys
assert json.load(open(sys.argv[1]))["method"] == "gdp"
' "$tmp/out"
fi
# op-level graphs of GDP's scale: --groups past Placeto's 20 000, and a policy
# file whose best placement has that many groups loads
run train "$g" "${small[@]}" --groups 60000 --episodes 1 -o "$tmp/big.json"
expect_rc "gdp --groups 60000 (one group per op)" 0 && pass
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["training"]["best"].append({"graph": "big", "checksum": "0123456789abcdef", "n_groups": 50000, "runtime_us": 1.0,
                              "score": 1e-6, "found_after": 1, "group_device": [0] * 50000})
json.dump(d, open(sys.argv[2], "w"))
' "$tmp/a.json" "$tmp/bigbest.json"
run place "$g" --policy "$tmp/bigbest.json"
expect_rc "a gdp policy with a best placement of 50 000 groups" 0 && pass
run place "$g" --policy "$tmp/a.json" --devices 3
if expect_rc "gdp policy on another device count" 1; then
    if grep -q "the policy is for 2 devices" "$tmp/err"; then pass; else fail "gdp devices" "$(flat "$tmp/err")"; fi
fi

# a family: each update draws a graph; each keeps its own best
run train "$g" graphs/toy/chain.json "${small[@]}" --episodes 6 --batch-graphs 2 --json -o "$tmp/fam.json"
if expect_rc "gdp family" 0; then
    pycheck "gdp family policy" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["agent"] == "gdp"
names = sorted(b["graph"] for b in d["training"]["best"])
assert names == ["toy_chain", "toy_crown"], names
assert d["training"]["simulations"] == 6 * 2 * 4, d["training"]["simulations"]
' "$tmp/fam.json"
fi
run place graphs/toy/chain.json --policy "$tmp/fam.json"
expect_rc "gdp family policy places a member" 0 && pass
# zero-shot: a graph the policy never saw, in its default grouping
run compare graphs/toy/diamond.json --policy "$tmp/fam.json" --methods single --json
if expect_rc "gdp family policy zero-shot" 0; then
    want=$(./placeto info graphs/toy/diamond.json | awk '/^groups/{print $2}')
    pycheck "gdp zero-shot rows" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["groups"] == int(sys.argv[2]), (d["groups"], sys.argv[2])
names = [r["method"] for r in d["methods"]]
assert "gdp" in names and "gdp-trained" not in names, names
' "$tmp/out" "$want"
fi
# fine-tuning the family's policy on the new graph
run train graphs/toy/diamond.json --agent gdp --samples-per-update 4 --epochs 2 --episodes 2 --resume "$tmp/fam.json" -o "$tmp/ft.json"
if expect_rc "gdp fine-tune" 0; then
    pycheck "gdp fine-tuned policy" '
import json, sys
d = json.load(open(sys.argv[1]))
names = sorted(b["graph"] for b in d["training"]["best"])
assert names == ["toy_chain", "toy_crown", "toy_diamond"], names
assert d["training"]["episodes"] == 8, d["training"]["episodes"]
' "$tmp/ft.json"
fi

# the architecture options of a new policy, recorded in its file
run train "$g" --agent gdp --hidden 12 --heads 3 --gnn-layers 1 --blocks 2 --segment 4 --no-superposition \
    --samples-per-update 2 --epochs 1 --episodes 2 -o "$tmp/arch.json"
if expect_rc "gdp architecture options" 0; then
    pycheck "gdp architecture in the file" '
import json, sys
a = json.load(open(sys.argv[1]))["architecture"]
assert (a["hidden"], a["heads"], a["gnn_layers"], a["blocks"], a["segment"], a["superposition"]) == \
    (12, 3, 1, 2, 4, False), a
' "$tmp/arch.json"
fi
usage_error "gdp hidden not a multiple of heads" train "$g" --agent gdp --hidden 10 --heads 3 -o "$tmp/x.json"
usage_error "gdp blocks 9" train "$g" --agent gdp --blocks 9 -o "$tmp/x.json"
usage_error "gdp heads with resume" train "$g" --agent gdp --heads 2 --resume "$tmp/arch.json" -o "$tmp/x.json"
usage_error "heads on placeto" train "$g" --heads 2 -o "$tmp/x.json"
usage_error "gdp threads" train "$g" --agent gdp --threads 65 -o "$tmp/x.json"
usage_error "gdp samples 65" train "$g" --agent gdp --samples-per-update 65 -o "$tmp/x.json"
usage_error "gdp samples 0" train "$g" --agent gdp --samples-per-update 0 -o "$tmp/x.json"
usage_error "gdp epochs 0" train "$g" --agent gdp --epochs 0 -o "$tmp/x.json"
usage_error "gdp batch 17" train "$g" --agent gdp --batch-graphs 17 -o "$tmp/x.json"
usage_error "gdp clip ratio 0" train "$g" --agent gdp --clip-ratio 0 -o "$tmp/x.json"
usage_error "gdp hidden 10" train "$g" --agent gdp --hidden 10 -o "$tmp/x.json"
usage_error "gdp hidden resume" train "$g" --agent gdp --hidden 16 --resume "$tmp/a.json"
usage_error "gdp placeto option" train "$g" --agent gdp --gamma 1 -o "$tmp/x.json"
usage_error "gdp rnn option" train "$g" --agent gdp --squash 2 -o "$tmp/x.json"
usage_error "gdp temperature" train "$g" --agent gdp --temperature 2 -o "$tmp/x.json"
usage_error "gdp greedy-every -1" train "$g" --agent gdp --greedy-every -1 -o "$tmp/x.json"
usage_error "rnn gdp option" train "$g" --agent rnn --epochs 2 -o "$tmp/x.json"
usage_error "epochs without gdp" train "$g" --epochs 2 -o "$tmp/x.json"
usage_error "clip-ratio without gdp" train "$g" --clip-ratio 0.1 -o "$tmp/x.json"
usage_error "batch-graphs without gdp" train "$g" --batch-graphs 2 -o "$tmp/x.json"
[ ! -e "$tmp/x.json" ] && pass || fail "no file on errors" "x.json was written"

# imitation then PPO (--imitate): 5 updates = 3, then 2 more resumed, byte for byte
imit=(--agent gdp --hidden 8 --samples-per-update 4 --epochs 2 --seed 3 --imitate 3 --expert-budget 50)
run train "$g" "${imit[@]}" --episodes 5 -o "$tmp/i5.json"
expect_rc "train --imitate" 0
run train "$g" "${imit[@]}" --episodes 3 -o "$tmp/i3.json"
run train "$g" --agent gdp --samples-per-update 4 --epochs 2 --seed 3 --imitate 3 --expert-budget 50 --episodes 2 \
    --resume "$tmp/i3.json" -o "$tmp/i3.json"
if expect_rc "train --imitate, resumed" 0; then
    if cmp -s "$tmp/i5.json" "$tmp/i3.json"; then pass; else fail "gdp --imitate resume bit-exact" "3 + 2 differs from 5"; fi
fi

echo "gdp: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
