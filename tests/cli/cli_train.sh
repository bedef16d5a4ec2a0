#!/usr/bin/env bash
# `placeto train`, `place --policy` and `compare --policy`: the policy file
# and the learning curve are written; training is deterministic for a seed and
# a thread count; a checkpoint resumes bit-exactly (10 episodes = 6, then 4
# more from the file); families from a directory; zero-shot placement and
# the Placeto rows of compare; clear errors for mismatched or broken policy
# files; the extended feature set, relative rewards and --init heuristic,
# and resuming such a policy. Prints "train: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

g=graphs/toy/crown.json

# train writes a policy and a curve; plain progress lines off a terminal
run train "$g" --preset tuned --episodes 6 --seed 3 -o "$tmp/a.json" --curve "$tmp/a.csv"
if expect_rc "train" 0; then
    if grep -q "episode 6/6" "$tmp/err" && [ ! -s "$tmp/out" ]; then pass; else fail "train progress" "no plain progress line"; fi
    pycheck "train policy file" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "placeto-policy" and d["version"] == 1, d.get("format")
a = d["architecture"]
# the tuned preset: extended features (8 + 2 x 2), trained from device 0
assert a["n_devices"] == 2 and a["n_features"] == 12 and a["rounds"] == 8, a
assert a.get("extended") == 1 and a.get("start") == "device0" and a.get("accept") == "improving", a
assert len(d["parameters"]) == 52, len(d["parameters"])
t = d["training"]
k = json.load(open(sys.argv[1][:-5] + ".ckpt.json"))["training"]  # the checkpoint beside it
assert t["episodes"] == 6 and k["adam"]["step"] == 6, (t["episodes"], k["adam"]["step"])
assert d["log"]["episodes"] == 6
' "$tmp/a.json"
    pycheck "train curve" '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [int(r["episode"]) for r in rows] == list(range(1, 7)), [r["episode"] for r in rows]
assert all(float(r["best_runtime_us"]) <= float(r["runtime_us"]) + 1e-9 for r in rows)
best = [float(r["best_runtime_us"]) for r in rows]
assert best == sorted(best, reverse=True), "best runtime went up"
' "$tmp/a.csv"
fi

# deterministic: the same seed gives the same bytes
run train "$g" --preset tuned --episodes 6 --seed 3 -o "$tmp/b.json"
if expect_rc "train again" 0; then
    if cmp -s "$tmp/a.json" "$tmp/b.json"; then pass; else fail "train deterministic" "policy files differ"; fi
fi
run train "$g" --preset tuned --episodes 6 --seed 4 -o "$tmp/c.json"
if expect_rc "train other seed" 0; then
    if cmp -s "$tmp/a.json" "$tmp/c.json"; then fail "train seed" "seed 4 gave the same file as seed 3"; else pass; fi
fi

# resume: 10 straight = 6 + 4 resumed, byte for byte
run train "$g" --preset tuned --episodes 10 --seed 3 -o "$tmp/ten.json"
expect_rc "train 10" 0 && pass
cp "$tmp/a.json" "$tmp/six.json"
cp "$tmp/a.ckpt.json" "$tmp/six.ckpt.json" # the checkpoint travels with its policy
run train "$g" --preset tuned --episodes 4 --resume "$tmp/six.json"
if expect_rc "train --resume" 0; then
    if cmp -s "$tmp/ten.json" "$tmp/six.json" && cmp -s "$tmp/ten.ckpt.json" "$tmp/six.ckpt.json"; then pass
    else fail "resume bit-exact" "6 + 4 resumed differs from 10"; fi
fi
# without its checkpoint: the weights go on with a fresh optimizer, and a note says so
cp "$tmp/a.json" "$tmp/bare.json"
run train "$g" --episodes 2 --resume "$tmp/bare.json"
if expect_rc "train --resume without a checkpoint" 0; then
    if grep -q "bare.json has no checkpoint (.*bare.ckpt.json): training goes on from its weights with a fresh optimizer state" "$tmp/err" &&
        [ -f "$tmp/bare.ckpt.json" ] && ! cmp -s "$tmp/bare.json" "$tmp/ten.json"; then pass
    else fail "resume without a checkpoint" "expected the note and a new checkpoint"; fi
fi
# a checkpoint of other weights is refused, naming it
cp "$tmp/c.json" "$tmp/mixed.json"
cp "$tmp/a.ckpt.json" "$tmp/mixed.ckpt.json"
run train "$g" --episodes 2 --resume "$tmp/mixed.json"
if expect_rc "train --resume with another run's checkpoint" 1; then
    if grep -q "mixed.ckpt.json:.*weights: the checkpoint is for other weights than" "$tmp/err"; then pass
    else fail "stale checkpoint" "expected the checkpoint's weights field named"; fi
fi
# place and compare never open the checkpoint
PLACETO_TRACE_READS=1 run compare "$g" --policy "$tmp/ten.json"
if expect_rc "compare a trained policy" 0; then
    if ! grep -q "ckpt" "$tmp/err"; then pass; else fail "compare reads no checkpoint" "$(grep ckpt "$tmp/err")"; fi
fi

# threads: deterministic for a given count
run train "$g" --preset tuned --episodes 6 --threads 2 --seed 3 -o "$tmp/t1.json"
expect_rc "train --threads 2" 0 && pass
run train "$g" --preset tuned --episodes 6 --threads 2 --seed 3 -o "$tmp/t2.json"
if expect_rc "train --threads 2 again" 0; then
    if cmp -s "$tmp/t1.json" "$tmp/t2.json"; then pass; else fail "threads deterministic" "two runs differ"; fi
fi

# a family from a directory, with JSON progress lines and a summary
mkdir -p "$tmp/fam"
cp graphs/toy/crown.json graphs/toy/diamond.json graphs/toy/chain.json "$tmp/fam/"
run train "$tmp/fam" --episodes 8 --json -o "$tmp/fam.json"
expect_rc "train family" 0 && pycheck "train family json" '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
s = lines[-1]
for k in ("episodes", "best_runtime_us", "placements_simulated", "seconds"):
    assert k in s, k
assert s["episodes"] == 8, s
names = {x["graph"] for x in s["graphs"]}
assert names <= {"toy_crown", "toy_diamond", "toy_chain"} and len(names) >= 2, names
assert all("mean_return" in l for l in lines[:-1])
' "$tmp/out"

# zero-shot placement and the Placeto rows of compare
run place "$g" --policy "$tmp/a.json" -o "$tmp/p.json" --json
if expect_rc "place --policy" 0; then
    cp "$tmp/out" "$tmp/place.out"
    run simulate "$g" --placement "$tmp/p.json" --json
    expect_rc "simulate policy placement" 0 && pycheck "place --policy runtime" '
import json, sys
p = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))
assert p["method"] == "placeto", p["method"]
assert p["runtime_us"] == s["makespan_us"], (p["runtime_us"], s["makespan_us"])
' "$tmp/place.out" "$tmp/out"
fi
run compare "$g" --policy "$tmp/a.json" --json
expect_rc "compare --policy" 0 && pycheck "compare --policy rows" '
import json, sys
d = json.load(open(sys.argv[1]))
m = {r["method"]: r for r in d["methods"]}
assert "placeto" in m and "placeto-trained" in m, list(m)
assert m["placeto-trained"]["seconds"] is None
assert all(r["runtime_us"] >= d["lower_bound_us"] for r in d["methods"])
' "$tmp/out"

# errors
run place "$g" --policy "$tmp/a.json" --devices 3
if expect_rc "policy device mismatch" 1; then
    if grep -q "the policy is for 2 devices but the cluster has 3" "$tmp/err"; then pass; else fail "policy device mismatch" "no clear message"; fi
fi
printf '{"format": "placeto-policy", "version": 1,\n "architecture": {"n_devices": 0}}\n' > "$tmp/bad.json"
run place "$g" --policy "$tmp/bad.json"
if expect_rc "bad policy file" 1; then
    if grep -q "bad.json:2:" "$tmp/err"; then pass; else fail "bad policy file" "no position in the message"; fi
fi
# a checkpoint whose Adam epsilon is 0 would turn weights NaN: refused before
# training, naming the checkpoint and the field, and nothing written
run train "$g" --episodes 2 -o "$tmp/e0.json"
"$py" -c '
import json, sys
k = json.load(open(sys.argv[1])); k["training"]["adam"]["eps"] = 0; json.dump(k, open(sys.argv[1], "w"))
' "$tmp/e0.ckpt.json"
run train "$g" --episodes 2 --resume "$tmp/e0.json" -o "$tmp/e0b.json"
if expect_rc "checkpoint with adam eps 0" 1; then
    grep -q "e0.ckpt.json:.*training.adam.eps: expected a number > 0" "$tmp/err" && [ ! -e "$tmp/e0b.json" ] && pass ||
        fail "checkpoint with adam eps 0: the message" "$(flat "$tmp/err")"
fi
run train "$tmp/none.json" --episodes 1 -o "$tmp/x.json"
expect_rc "train missing graph" 1 && pass
if [ -e "$tmp/x.json" ]; then fail "train missing graph" "wrote a policy anyway"; else pass; fi
usage_error "train --init" train "$g" --init sideways
usage_error "train --episodes" train "$g" --episodes 0
usage_error "train no graph" train
usage_error "place both" place "$g" --method single --policy "$tmp/a.json"

# the extended feature set, relative rewards and --init heuristic (the best
# heuristic's placement is the best so far); a resume keeps the policy's
# feature set, and asking for another one is refused
run compare "$g" --no-policy --json
expect_rc "compare --no-policy" 0 && pass
cp "$tmp/out" "$tmp/heur.json"
run train "$g" --features extended --relative-reward --init heuristic --episodes 2 -o "$tmp/ext.json"
if expect_rc "train --features extended" 0; then
    pycheck "train --features extended policy file" '
import json, sys
d = json.load(open(sys.argv[1]))
a = d["architecture"]
assert a.get("extended") == 1 and a["n_features"] == 12 and a["d"] == 12 and a["mem_feature"] == 0, a
heur = [m["runtime_us"] for m in json.load(open(sys.argv[2]))["methods"] if m["method"] not in ("anneal", "ils")]
best = d["training"]["best"][0]["runtime_us"]
assert best <= min(heur), (best, min(heur))
' "$tmp/ext.json" "$tmp/heur.json"
    run train "$g" --episodes 2 --resume "$tmp/ext.json"
    expect_rc "train --resume an extended policy" 0 && pycheck "resumed extended policy" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["architecture"].get("extended") == 1 and d["training"]["episodes"] == 4, (d["architecture"], d["training"]["episodes"])
' "$tmp/ext.json"
    run train "$g" --episodes 2 --resume "$tmp/ext.json" --mem-feature
    if expect_rc "resume an extended policy with --mem-feature" 1; then
        if grep -q "ext.json: the policy was built without the memory feature" "$tmp/err"; then pass; else
            fail "resume an extended policy with --mem-feature" "no clear message"; fi
    fi
    run train "$g" --episodes 2 --resume "$tmp/ext.json" --features paper
    if expect_rc "resume an extended policy with --features paper" 1; then
        if grep -q "the policy was built with the extended features" "$tmp/err"; then pass; else
            fail "resume an extended policy with --features paper" "no clear message"; fi
    fi
fi
usage_error "train --features" train "$g" --features bogus --episodes 2 -o "$tmp/bogus.json"
usage_error "train --preset" train "$g" --preset bogus --episodes 2 -o "$tmp/bogus.json"
usage_error "train --temperature 0" train "$g" --temperature 0 --episodes 2 -o "$tmp/bogus.json"

# --temperature: deterministic, and another policy than T = 1
run train "$g" --keep last --temperature 0.5 --episodes 4 -o "$tmp/t1.json"
run train "$g" --keep last --temperature 0.5 --episodes 4 -o "$tmp/t2.json"
run train "$g" --keep last --episodes 4 -o "$tmp/t3.json"
if cmp -s "$tmp/t1.json" "$tmp/t2.json" && ! cmp -s "$tmp/t1.json" "$tmp/t3.json"; then pass
else fail "train --temperature" "not deterministic, or the same as temperature 1"; fi
usage_error "train --reward" train "$g" --reward bogus --episodes 2 -o "$tmp/bogus.json"
usage_error "train --reward vs --log-runtime" train "$g" --reward seconds --log-runtime -o "$tmp/bogus.json"
usage_error "train --accept" train "$g" --accept sometimes -o "$tmp/bogus.json"
usage_error "train --accept all vs --accept-improving" train "$g" --accept all --accept-improving -o "$tmp/bogus.json"
usage_error "place --start without --policy" place "$g" --method heft --start heuristic

# --preset paper: the paper's columns and the fixed random start, as before the tuned preset
run train "$g" --preset paper --episodes 2 -o "$tmp/paper.json"
expect_rc "train --preset paper" 0 && pycheck "paper preset policy" '
import json, sys
a = json.load(open(sys.argv[1]))["architecture"]
assert a["n_features"] == 7 and a["d"] == 7 and "extended" not in a and "start" not in a and "accept" not in a, a
' "$tmp/paper.json"

# --accept-improving: recorded in the policy; its zero-shot episodes from
# device 0 only keep moves that do not hurt, so they are never slower than
# everything on device 0
run train "$g" --preset tuned --accept-improving --episodes 3 -o "$tmp/acc.json"
expect_rc "train --accept-improving" 0 && pycheck "accept recorded" '
import json, sys
a = json.load(open(sys.argv[1]))["architecture"]
assert a.get("accept") == "improving" and a.get("start") == "device0", a
' "$tmp/acc.json"
run place "$g" --policy "$tmp/acc.json" --samples 2 --json
cp "$tmp/out" "$tmp/acc_place.json"
run place "$g" --method single --devices 2 --json
pycheck "accept-improving zero-shot never slower than its start" '
import json, sys
p, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert p["method"] == "placeto" and p["runtime_us"] <= s["runtime_us"] + 1e-9, (p, s)
' "$tmp/acc_place.json" "$tmp/out"
if [ -e "$tmp/bogus.json" ]; then fail "train --features bogus" "wrote a policy anyway"; else pass; fi

# --preset search: Placeto as a learned improvement search. The file records
# the start (the best heuristic's placement) and the zero reward of an
# undone move; a resume is bit-exact (4 = 2 + 2); zero-shot it searches from
# the best heuristic's placement with exactly --budget placements (500
# without one); contradictory options are usage errors
run train "$g" --preset search --episodes 4 --seed 2 -o "$tmp/s4.json"
expect_rc "train --preset search" 0 && pycheck "search preset policy" '
import json, sys
a = json.load(open(sys.argv[1]))["architecture"]
assert a.get("start") == "heuristic" and a.get("accept") == "improving" and a.get("rejected") == "zero", a
' "$tmp/s4.json"
run train "$g" --preset search --episodes 2 --seed 2 -o "$tmp/s2.json"
run train "$g" --episodes 2 --resume "$tmp/s2.json"
if expect_rc "train --resume a search policy" 0; then
    if cmp -s "$tmp/s4.json" "$tmp/s2.json" && cmp -s "$tmp/s4.ckpt.json" "$tmp/s2.ckpt.json"; then pass
    else fail "search resume bit-exact" "2 + 2 resumed differs from 4"; fi
fi
run compare "$g" --policy "$tmp/s4.json" --untrained --methods single --json
cp "$tmp/out" "$tmp/s_cmp.json"
run place "$g" --policy "$tmp/s4.json" --budget 40 --json
pycheck "search policy zero-shot budget" '
import json, sys
m = {r["method"]: r for r in json.load(open(sys.argv[1]))["methods"]}
assert m["placeto-refine"]["placements"] == 500 and m["placeto-refine-untrained"]["placements"] == 500, m
p = json.load(open(sys.argv[2]))
assert p["method"] == "placeto-refine" and p["placements"] == 40, p
' "$tmp/s_cmp.json" "$tmp/out"
usage_error "train --preset bogus" train "$g" --preset bogus -o "$tmp/bogus.json"
grep -q "search, tuned or paper" "$tmp/err" && pass || fail "train --preset bogus" "the message does not list search"
usage_error "train --rejected" train "$g" --rejected maybe -o "$tmp/bogus.json"
usage_error "train --rejected zero --accept all" train "$g" --rejected zero --accept all -o "$tmp/bogus.json"
usage_error "train --preset search --accept all" train "$g" --preset search --accept all -o "$tmp/bogus.json"

# every --json output is valid JSON, even for names with quotes and
# backslashes (one escaping writer prints them all)
"$py" - "$g" "$tmp/q.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["name"] = 'a "quoted" \\ graph'
json.dump(d, open(sys.argv[2], "w"))
PY
jsonok() { # NAME ARGS...: exit 0 and every stdout line (or the whole) parses with the name intact
    local name=$1
    shift
    run "$@"
    expect_rc "$name" 0 || return
    pycheck "$name" '
import json, sys
text = open(sys.argv[1]).read()
try:
    docs = [json.loads(text)]
except ValueError:
    docs = [json.loads(l) for l in text.splitlines() if l.strip()]
assert docs, "no output"
name = "a " + chr(34) + "quoted" + chr(34) + " " + chr(92) + " graph"
def strings(v):
    if isinstance(v, dict):
        return [s for x in v.values() for s in strings(x)]
    if isinstance(v, list):
        return [s for x in v for s in strings(x)]
    return [v] if isinstance(v, str) else []
assert all(name in strings(d) for d in docs), text[:200]
' "$tmp/out"
}
jsonok "train --json with a quoted graph name" train "$tmp/q.json" --episodes 2 --json -o "$tmp/q.policy.json"
jsonok "compare --json with a quoted graph name" compare "$tmp/q.json" --json
jsonok "info --json with a quoted graph name" info "$tmp/q.json" --json

# PLACETO_KERNELS=plain: the network's own loops instead of BLAS, so that a
# training gives the same bytes whichever kernels OpenBLAS picks for the CPU
# (OPENBLAS_CORETYPE stands in for another machine here)
for ct in Prescott Haswell; do
    PLACETO_KERNELS=plain OPENBLAS_CORETYPE=$ct run train graphs/inception_v3.json --keep last --episodes 2 --seed 2 -o "$tmp/plain_$ct.json"
    expect_rc "train with PLACETO_KERNELS=plain ($ct)" 0 && pass
done
run train graphs/inception_v3.json --keep last --episodes 2 --seed 2 -o "$tmp/blas.json"
expect_rc "train with BLAS" 0 && pass
if cmp -s "$tmp/plain_Prescott.json" "$tmp/plain_Haswell.json"; then pass; else
    fail "plain kernels" "the policy differs with the OpenBLAS kernels chosen"; fi
if ! cmp -s "$tmp/plain_Prescott.json" "$tmp/blas.json"; then pass; else
    fail "plain kernels" "PLACETO_KERNELS=plain gave BLAS's bytes: the switch did nothing"; fi

# The default train never hands back a policy slower than the best
# heuristic or than its untrained control: what `place --policy` gives is the
# kept snapshot, evaluated by that very procedure (before --keep best and
# the search preset, 50 episodes on crown placed at 4.688 ms, against heft's
# 4.188 and the control's 4.352). train ends by saying so, per graph.
run train "$g" --episodes 50 --seed 1 -o "$tmp/d.json" --json
if expect_rc "default train" 0; then
    cp "$tmp/out" "$tmp/d_train.json"
    run compare "$g" --policy "$tmp/d.json" --untrained --json
    cp "$tmp/out" "$tmp/d_cmp.json"
    run place "$g" --policy "$tmp/d.json" --json
    expect_rc "place the default policy" 0 && pycheck "default train: no slower than the best heuristic and its control" '
import json, sys
t = json.loads(open(sys.argv[1]).read().splitlines()[-1])
c = {r["method"]: r for r in json.load(open(sys.argv[2]))["methods"]}
p = json.load(open(sys.argv[3]))
heur = min(r["runtime_us"] for m, r in c.items() if not m.startswith("placeto") and m not in ("ils", "anneal"))
ctl = c["placeto-refine-untrained"]["runtime_us"]
assert p["runtime_us"] <= heur + 1e-9 and p["runtime_us"] <= ctl + 1e-9, (p["runtime_us"], heur, ctl)
cl = t["closing"][0]
assert cl["graph"] == "toy_crown" and cl["policy_row"] == p["method"] == "placeto-refine", cl
assert cl["policy_us"] == p["runtime_us"] and cl["untrained_us"] == ctl and cl["heuristic_us"] == heur, (cl, p["runtime_us"], ctl, heur)
assert cl["best_seen_us"] == c["placeto-trained"]["runtime_us"], cl
assert 0 <= t["kept_episode"] <= 50 and t["kept_episode"] % 50 == 0, t["kept_episode"]
' "$tmp/d_train.json" "$tmp/d_cmp.json" "$tmp/out"
fi
run train "$g" --episodes 4 --seed 1 -o "$tmp/d4.json"
if expect_rc "default train, text" 0; then
    if grep -q "^toy_crown: the policy's own placement .* its untrained control .* best heuristic .* best seen in training" "$tmp/err" &&
       grep -q "place --policy $tmp/d4.json. gives the policy's own placement" "$tmp/err"; then pass
    else fail "train's closing lines" "$(tail -n 3 "$tmp/err")"; fi
fi
# --keep best: the file holds the kept weights, the checkpoint the weights
# training goes on from, and a resume continues them bit-exactly (8 = 4 + 4
# with an evaluation every 2 episodes); --keep last holds the last ones
run train "$g" --episodes 8 --eval-every 2 --seed 5 -o "$tmp/k8.json"
run train "$g" --episodes 4 --eval-every 2 --seed 5 -o "$tmp/k4.json"
run train "$g" --episodes 4 --eval-every 2 --resume "$tmp/k4.json"
if expect_rc "--keep best resumed" 0; then
    if cmp -s "$tmp/k8.json" "$tmp/k4.json" && cmp -s "$tmp/k8.ckpt.json" "$tmp/k4.ckpt.json"; then pass
    else fail "--keep best resume bit-exact" "4 + 4 resumed differs from 8"; fi
fi
usage_error "train --keep bogus" train "$g" --keep bogus -o "$tmp/bogus.json"
usage_error "train --eval-every with --keep last" train "$g" --keep last --eval-every 5 -o "$tmp/bogus.json"

# the progress line and the curve: the episode's total reward, the policy's
# mean entropy and beta in a column of their own (the entropy column used
# to hold beta, and the return the first step's reward)
run train "$g" --preset tuned --episodes 6 --entropy 0.05 -o "$tmp/e.json" --curve "$tmp/e.csv" --json
if expect_rc "train, entropy and beta" 0; then
    pycheck "curve: entropy and beta columns" '
import csv, json, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert "beta" in rows[0] and "entropy" in rows[0], list(rows[0])
assert all(float(r["beta"]) == 0.05 for r in rows), [r["beta"] for r in rows]
ent = [float(r["entropy"]) for r in rows]
assert all(0.05 < x <= math.log(2) + 1e-6 for x in ent), ent
lines = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
assert all(l["beta"] == 0.05 and 0.05 < l["mean_entropy"] <= math.log(2) + 1e-6 for l in lines[:-1]), lines[0]
' "$tmp/e.csv" "$tmp/out"
fi
run train "$g" --preset tuned --episodes 2 -o "$tmp/e2.json"
if grep -q "reward [-+][0-9.e+-]*  entropy 0\.[0-9]*  beta 0.01 " "$tmp/err"; then pass
else fail "progress line: reward, entropy, beta" "$(head -n 1 "$tmp/err")"; fi

# --preset paper as the authors' code runs: 4 workers a round (one Adam step
# each round), the min-runtime return; the options of its settings
run train "$g" --preset paper --episodes 8 -o "$tmp/pp.json" --curve "$tmp/pp.csv"
if expect_rc "train --preset paper, 8 episodes" 0; then
    pycheck "paper preset: 4 workers, one update a round, beta 1" '
import csv, json, sys
k = json.load(open(sys.argv[1][:-5] + ".ckpt.json"))["training"]
assert k["adam"]["step"] == 2, k["adam"]["step"]
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == 8 and all(float(r["beta"]) == 1 for r in rows), rows
' "$tmp/pp.json" "$tmp/pp.csv"
fi
usage_error "train --return bogus" train "$g" --return bogus -o "$tmp/bogus.json"
usage_error "train --oom-mode bogus" train "$g" --oom-mode bogus -o "$tmp/bogus.json"
usage_error "train --entropy-schedule bogus" train "$g" --entropy-schedule bogus -o "$tmp/bogus.json"
usage_error "train --lr-final without steps" train "$g" --lr-final 1e-4 -o "$tmp/bogus.json"
usage_error "train --workers with --threads" train "$g" --workers 4 --threads 2 -o "$tmp/bogus.json"

echo "train: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
