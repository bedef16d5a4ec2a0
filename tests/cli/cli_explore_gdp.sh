#!/usr/bin/env bash
# The explorer with a GDP placer's policy, headless (a key script in, screen
# dumps out), on a small gdp policy trained here on the toy crown: its one
# forward pass is applied group by group in order from device 0, the Policy
# pane shows each group's probabilities and its attention row (the heads'
# mean: the why), 'a' highlights the attended groups; an override of an
# earlier group leaves the next group's distribution as it was (GDP is not
# autoregressive); undo and redo give the same screens; save then resume
# and replay give the same state; Placeto's features, background training
# and a baseline start say they do not apply; a missing or corrupt gdp
# policy file is an error naming the file; a policy for other devices and a
# resumed episode GDP cannot step are refused before the terminal opens.
# Prints "gdpexplore: N passed, M failed" (tests/run.sh reads a word of letters).
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

g=graphs/toy/crown.json
absprog=$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog")
absg=$(pwd)/$g

# explore KEYS [OPTIONS...]: a headless run on the toy crown with the gdp policy, in $tmp
explore() {
    local keys=$1
    shift
    cmd="placeto explore $g --policy gdp.json --headless --keys '$keys' $*"
    # shellcheck disable=SC2086  # PLACETO_WRAP is a command line to split
    (cd "$tmp" && timeout "$run_limit" $wrap "$absprog" explore "$absg" --policy gdp.json --headless --keys "$keys" \
        --size 100x30 "$@") > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
}

# in_tmp ARGS...: the program in $tmp
in_tmp() {
    cmd="(in tmp) placeto $*"
    # shellcheck disable=SC2086
    (cd "$tmp" && timeout "$run_limit" $wrap "$absprog" "$@") > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
}

# has NAME PATTERN...: the last screen shows every pattern (fixed strings)
has() {
    local name=$1 p
    shift
    expect_rc "$name" 0 || return
    { cat "$tmp/out"; echo; head -n 2 "$tmp/out" | tr '\n' ' '; echo; tail -n 3 "$tmp/out" | tr '\n' ' '; } \
        > "$tmp/out.joined"
    for p in "$@"; do
        if ! grep -qF -- "$p" "$tmp/out.joined"; then fail "$name" "the screen lacks '$p'"; return; fi
    done
    pass
}

# same NAME FILE: the last screen equals FILE, but for the message line (the last row)
same() {
    expect_rc "$1" 0 || return
    if diff <(head -n 29 "$2") <(head -n 29 "$tmp/out") > "$tmp/diff"; then pass; else fail "$1" "$(head -c 400 "$tmp/diff")"; fi
}

# the Policy pane's probability rows (the device bars)
probs() { grep -E '^\|.*\|\|[ *][01] ' "$tmp/out" | sed 's/.*||//'; }

run train "$g" --agent gdp --devices 2 --hidden 8 --episodes 3 --seed 1 -o "$tmp/gdp.json"
expect_rc "train a small gdp policy" 0 && pass

explore ""
has "start" "step 0/18" "gdp policy" "the gdp policy gives them all their distributions in one forward" \
    "step 1/18: src" "why: attention, 4-head mean (+ placed)"
[ "$(grep -cE '^\|.*\|\| *[0-9.]+% [>+.] [a-z]' "$tmp/out")" -eq 5 ] && pass ||
    fail "the attention's top five" "$(grep -E '%' "$tmp/out" | sed 's/.*||//')"
if grep -q "d1" "$tmp/out"; then fail "start from device 0" "a group on d1 before any step"; else pass; fi
[ "$(probs | wc -l)" -eq 2 ] && pass || fail "the probability pane" "$(probs)"

explore "space space space"
cp "$tmp/out" "$tmp/three.txt"
has "three steps" "episode 1 step 3/18" "History 3 steps" "step 4/18: b1.proj" "why: attention" "step 3: policy"
explore "space space space a"
has "a shows the attention" "Graph 18 groups, attention" "the gdp network's attention weighs most"

# undo and redo: the same screens
explore "space space space space u"
has "undo" "undo: b1.proj back" "History 3 steps, redo available" "step 4/18: b1.proj"
diff <(sed -n 4,10p "$tmp/three.txt" | sed 's/.*||//') <(sed -n 4,10p "$tmp/out" | sed 's/.*||//') > "$tmp/diff" &&
    pass || fail "undo restores the Policy pane" "$(head -c 300 "$tmp/diff")"
explore "space space space u u U U c"
same "redo gives the screen again" "$tmp/three.txt"
explore "space space space g G c"
same "undo all, redo all" "$tmp/three.txt"
explore "space space space space u space"
cp "$tmp/out" "$tmp/again.txt"
explore "space space space space"
same "a step after undo is the same step" "$tmp/again.txt"

# an override of an earlier group: GDP is not autoregressive, the next
# group's distribution stays; the episode goes on from there
explore "space space space"
probs > "$tmp/probs_before"
explore "space space space / src enter 1"
has "override aside" "you moved src" "(aside)" "the episode stays at step 4"
probs > "$tmp/probs_after"
if [ -s "$tmp/probs_before" ] && cmp -s "$tmp/probs_before" "$tmp/probs_after"; then pass; else
    fail "an override leaves the next distribution" "$(cat "$tmp/probs_before") / $(cat "$tmp/probs_after")"; fi
explore "space space space / src enter 1 space"
has "the network goes on after an override" "step 4: policy" "episode 1 step 4/18"
explore "space 1"
has "override of the current group" "(this step)" "the policy goes on with" "episode 1 step 2/18"

# greedy, finish, a new episode
explore "m f"
has "greedy to the end" "finished the episode in 18 steps" "step 18/18" "episode complete"
explore "f e y"
has "a new episode from device 0" "episode 2 step 0/18" "everything on device 0"

# what does not apply says so
explore "T"
has "training refused" "background training (placeto train --agent gdp trains one)" "does not apply to a gdp policy"
explore "B"
has "baseline start refused" "starting from a baseline's placement does not apply to a gdp policy"

# the tour with a gdp policy: Placeto's feature rows say they do not apply
cmd="placeto demo $g --policy gdp.json --headless --keys 'space space'"
(cd "$tmp" && timeout "$run_limit" $wrap "$absprog" demo "$absg" --policy gdp.json --headless --keys "space space" \
    --size 110x34) > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
has "the tour's feature rows" "Tour 3/13" "these feature rows are Placeto's and do not apply to the gdp policy"

# save, then resume: the same screen, and stepping on the same episode
explore "space space / src enter 1 space s space space c" --save ep.json
cp "$tmp/out" "$tmp/straight.txt"
explore "space space / src enter 1 space s q" --save ep.json
expect_rc "save" 0 && pass
pycheck "gdp episode file" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["policy"]["path"].endswith("gdp.json"), d["policy"]
assert d["config"]["init"] == "device0", d["config"]
assert [h["actor"] for h in d["history"]] == ["policy", "policy", "user", "policy"], d["history"]
assert all(len(h["probs"]) == 2 for h in d["history"] if h["actor"] == "policy"), d["history"]
' "$tmp/ep.json"
in_tmp explore --resume ep.json --headless --keys "space space" --size 100x30
if expect_rc "resume" 0; then
    if diff <(head -n 29 "$tmp/straight.txt" | sed 's/ | unsaved//') <(head -n 29 "$tmp/out" | sed 's/ | unsaved//') \
        > "$tmp/diff"; then pass; else fail "resume reproduces the screen" "$(head -c 400 "$tmp/diff")"; fi
fi
in_tmp explore --replay ep.json --headless --keys "space space space left" --size 100x30
has "replay" "placeto replay" "replay 2/4, back over: you moved src" "gdp policy"

# errors: a missing, a corrupt and a truncated gdp policy name the file
explore_err() { # NAME POLICY PATTERN [OPTIONS...]
    local name=$1 pol=$2 pat=$3
    shift 3
    cmd="placeto explore $g --policy $pol --headless $*"
    (cd "$tmp" && timeout "$run_limit" $wrap "$absprog" explore "$absg" --policy "$pol" --headless "$@") \
        > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
    if expect_rc "$name" 1; then
        if grep -qF -- "$pat" "$tmp/err"; then pass; else fail "$name" "stderr lacks '$pat'"; fi
    fi
    [ -s "$tmp/out" ] && fail "$name" "the screen was drawn" || pass
}
explore_err "missing gdp policy" nope.json "nope.json"
head -c 1500 "$tmp/gdp.json" > "$tmp/trunc.json"
explore_err "truncated gdp policy" trunc.json "trunc.json"
"$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
del d["architecture"]["heads"]
json.dump(d, open(sys.argv[2], "w"))' "$tmp/gdp.json" "$tmp/noheads.json"
explore_err "gdp policy without heads" noheads.json "noheads.json"
grep -q "heads" "$tmp/err" && pass || fail "gdp policy without heads" "the field is not named"
"$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["parameters"] = {}
json.dump(d, open(sys.argv[2], "w"))' "$tmp/gdp.json" "$tmp/noparams.json"
explore_err "gdp policy without weights" noparams.json "noparams.json"
# a policy for other devices
run train "$g" --agent gdp --devices 3 --hidden 8 --episodes 1 --seed 1 -o "$tmp/gdp3.json"
expect_rc "train a 3-device gdp policy" 0 && pass
explore_err "gdp policy for other devices" gdp3.json "gdp3.json: the policy is for 3 devices" --devices 2
in_tmp explore --resume ep.json --policy gdp3.json --headless --keys space
if expect_rc "a 2-device episode with a 3-device gdp policy" 1; then
    grep -q "gdp3.json: the gdp policy is for 3 devices but the cluster has 2" "$tmp/err" && pass ||
        fail "a 2-device episode with a 3-device gdp policy" "unclear: $(flat "$tmp/err")"
fi
# a Placeto episode (a random start) resumed with the gdp policy is refused
run explore "$g" --policy graphs/policies/resnet18_2.json --devices 2 --headless --keys "space s" --save "$tmp/placeto_ep.json"
expect_rc "save a Placeto episode" 0 && pass
in_tmp explore --resume placeto_ep.json --policy gdp.json --headless --keys space
if expect_rc "a Placeto episode with the gdp policy" 1; then
    if grep -q "placeto_ep.json: cannot be stepped by the gdp policy gdp.json: a gdp episode" "$tmp/err"; then pass; else
        fail "a Placeto episode with the gdp policy" "unclear: $(flat "$tmp/err")"; fi
fi

echo "gdpexplore: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
