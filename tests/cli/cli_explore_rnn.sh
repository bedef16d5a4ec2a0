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
agent=rnn
policy=rnn.json
# shellcheck source=tests/cli/lib_explore.sh
. tests/cli/lib_explore.sh

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
check_undo_redo

# an override of an earlier group conditions the decoder: its distribution
# for the next group changes, and undoing the override brings it back
explore "space space space"
probs > "$tmp/probs_before"
explore "space space space / src enter 0"
has "override aside" "you moved src" "(aside)" "the episode stays at step 4" "+ src"
probs > "$tmp/probs_after"
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

# greedy, a new episode; what does not apply says so (the tour's feature
# rows too); the baselines still run
check_not_placeto "an rnn"
explore "b"
has "baselines still run" "Baselines" "heft"

# save, then resume: the same screen, and stepping on the same episode; replay
check_save_resume "/ src enter 0" "you moved src"

# errors: a missing, a corrupt and a truncated rnn policy name the file; a
# policy for other devices and a Placeto episode are refused
check_bad_policies hidden 2000
run train "$g" --agent rnn --devices 3 --hidden 8 --episodes 1 --seed 1 -o "$tmp/rnn3.json"
expect_rc "train a 3-device rnn policy" 0 && pass
check_refused_episodes "an rnn" rnn3.json

echo "rnnexplore: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
