#!/usr/bin/env bash
# The explorer with an RNN placer's policy, headless (a key script in,
# screen dumps out), on a small rnn policy trained here on the toy crown: the
# decoder steps the groups in order from device 0, the Policy pane shows its
# probabilities and its attention (the why), 'a' highlights the attended
# groups; an override of an earlier group conditions the next step; undo and
# redo give the same screens; save then resume and replay give the same
# state; Placeto's features, background training and a baseline start say
# they do not apply; a missing or corrupt rnn policy file is an error naming
# the file; a resumed episode an rnn policy cannot step is refused.
# Prints "rnnexplore: N passed, M failed" (tests/run.sh reads a word of letters).
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

g=graphs/toy/crown.json
absprog=$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog")
absg=$(pwd)/$g

# explore KEYS [OPTIONS...]: a headless run on the toy crown with the rnn policy, in $tmp
explore() {
    local keys=$1
    shift
    cmd="placeto explore $g --policy rnn.json --headless --keys '$keys' $*"
    # shellcheck disable=SC2086  # PLACETO_WRAP is a command line to split
    (cd "$tmp" && timeout "$run_limit" $wrap "$absprog" explore "$absg" --policy rnn.json --headless --keys "$keys" \
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

run train "$g" --agent rnn --devices 2 --hidden 8 --episodes 5 --seed 1 -o "$tmp/rnn.json"
expect_rc "train a small rnn policy" 0 && pass

explore ""
has "start" "step 0/18" "rnn policy" "the rnn policy decodes them in order from device 0" "step 1/18: src" \
    "why: attention (+ decoded, . not yet)" "> src"
if grep -q "d1" "$tmp/out"; then fail "start from device 0" "a group on d1 before any step"; else pass; fi

explore "space space space"
cp "$tmp/out" "$tmp/three.txt"
has "three decoder steps" "episode 1 step 3/18" "History 3 steps" "step 4/18: b1.proj" "why: attention" "+ src" \
    "step 3: policy"
explore "space space space a"
has "a shows the attention" "Graph 18 groups, attention" "the rnn decoder attends to most"

# undo and redo: the same screens (c follows the current group again: undo
# and redo select the group they change); undo restores the decoder's view
# of the step before
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

# an override of an earlier group conditions the decoder: its distribution
# for the next group changes, and undoing the override brings it back
explore "space space space"
grep -E '^\|.*\|\|[ *][01] ' "$tmp/out" | sed 's/.*||//' > "$tmp/probs_before"
explore "space space space / src enter 0"
has "override aside" "you moved src" "(aside)" "the episode stays at step 4" "+ src"
grep -E '^\|.*\|\|[ *][01] ' "$tmp/out" | sed 's/.*||//' > "$tmp/probs_after"
if [ -s "$tmp/probs_before" ] && ! cmp -s "$tmp/probs_before" "$tmp/probs_after"; then pass; else
    fail "the override conditions the decoder" "the probabilities stayed: $(cat "$tmp/probs_after")"; fi
explore "space space space / src enter 0 u c"
diff <(sed -n 4,10p "$tmp/three.txt" | sed 's/.*||//') <(sed -n 4,10p "$tmp/out" | sed 's/.*||//') > "$tmp/diff" &&
    pass || fail "undoing the override restores the decoder's view" "$(head -c 300 "$tmp/diff")"
explore "space space space / src enter 0 space"
has "the decoder goes on after an override" "step 4: policy" "episode 1 step 4/18"
# overriding the current group takes the step
explore "space 1"
has "override of the current group" "(this step)" "the policy goes on with" "episode 1 step 2/18"

# greedy, finish, a new episode
explore "m f"
has "greedy to the end" "finished the episode in 18 steps" "step 18/18" "episode complete"
explore "f e y"
has "a new episode from device 0" "episode 2 step 0/18" "everything on device 0"

# what does not apply says so
explore "T"
has "training refused" "background training" "does not apply to an rnn policy"
explore "B"
has "baseline start refused" "starting from a baseline's placement does not apply"
explore "b"
has "baselines still run" "Baselines" "heft"

# the tour with an rnn policy: Placeto's feature rows say they do not apply
cmd="placeto demo $g --policy rnn.json --headless --keys 'space space'"
(cd "$tmp" && timeout "$run_limit" $wrap "$absprog" demo "$absg" --policy rnn.json --headless --keys "space space" \
    --size 110x34) > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
has "the tour's feature rows" "Tour 3/13" "these feature rows are Placeto's and do not apply to the rnn policy"

# save, then resume: the same screen, and stepping on the same episode
explore "space space / src enter 0 space s space space c" --save ep.json
cp "$tmp/out" "$tmp/straight.txt"
explore "space space / src enter 0 space s q" --save ep.json
expect_rc "save" 0 && pass
pycheck "rnn episode file" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["policy"]["path"].endswith("rnn.json"), d["policy"]
assert d["config"]["init"] == "device0", d["config"]
assert [h["actor"] for h in d["history"]] == ["policy", "policy", "user", "policy"], d["history"]
' "$tmp/ep.json"
in_tmp explore --resume ep.json --headless --keys "space space" --size 100x30
if expect_rc "resume" 0; then
    if diff <(head -n 29 "$tmp/straight.txt" | sed 's/ | unsaved//') <(head -n 29 "$tmp/out" | sed 's/ | unsaved//') \
        > "$tmp/diff"; then pass; else fail "resume reproduces the screen" "$(head -c 400 "$tmp/diff")"; fi
fi
in_tmp explore --replay ep.json --headless --keys "space space space left" --size 100x30
has "replay" "placeto replay" "replay 2/4, back over: you moved src" "rnn policy"

# errors: a missing, a corrupt and a truncated rnn policy name the file
explore_err() { # NAME POLICY PATTERN
    cmd="placeto explore $g --policy $2 --headless"
    (cd "$tmp" && timeout "$run_limit" $wrap "$absprog" explore "$absg" --policy "$2" --headless) \
        > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
    if expect_rc "$1" 1; then
        if grep -qF -- "$3" "$tmp/err"; then pass; else fail "$1" "stderr lacks '$3'"; fi
    fi
}
explore_err "missing rnn policy" nope.json "nope.json"
head -c 2000 "$tmp/rnn.json" > "$tmp/trunc.json"
explore_err "truncated rnn policy" trunc.json "trunc.json"
"$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
del d["architecture"]["hidden"]
json.dump(d, open(sys.argv[2], "w"))' "$tmp/rnn.json" "$tmp/nohidden.json"
explore_err "rnn policy without hidden" nohidden.json "nohidden.json"
grep -q "hidden" "$tmp/err" && pass || fail "rnn policy without hidden" "the field is not named"
"$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["parameters"] = {}
json.dump(d, open(sys.argv[2], "w"))' "$tmp/rnn.json" "$tmp/noparams.json"
explore_err "rnn policy without weights" noparams.json "noparams.json"
# a policy for other devices
run train "$g" --agent rnn --devices 3 --hidden 8 --episodes 1 --seed 1 -o "$tmp/rnn3.json"
expect_rc "train a 3-device rnn policy" 0 && pass
cmd="placeto explore $g --policy rnn3.json --devices 2 --headless"
(cd "$tmp" && timeout "$run_limit" $wrap "$absprog" explore "$absg" --policy rnn3.json --devices 2 --headless) \
    > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
if expect_rc "rnn policy for other devices" 1; then
    if grep -q "rnn3.json: the policy is for 3 devices" "$tmp/err"; then pass; else fail "rnn policy for other devices" "unclear"; fi
fi
# a Placeto episode (a random start) resumed with the rnn policy is refused
run explore "$g" --policy graphs/policies/resnet18_2.json --devices 2 --headless --keys "space s" --save "$tmp/placeto_ep.json"
expect_rc "save a Placeto episode" 0 && pass
in_tmp explore --resume placeto_ep.json --policy rnn.json --headless --keys space
if expect_rc "a Placeto episode with the rnn policy" 1; then
    if grep -q "placeto_ep.json: cannot be stepped by the rnn policy rnn.json: an rnn episode" "$tmp/err"; then pass; else
        fail "a Placeto episode with the rnn policy" "unclear"; fi
fi

echo "rnnexplore: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
