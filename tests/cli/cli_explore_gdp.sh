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
agent=gdp
policy=gdp.json
# shellcheck source=tests/cli/lib_explore.sh
. tests/cli/lib_explore.sh

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
check_undo_redo

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

# greedy, a new episode; what does not apply says so (the tour's feature rows too)
check_not_placeto "a gdp"

# save, then resume: the same screen, and stepping on the same episode; replay
check_save_resume "/ src enter 1" "you moved src"

# errors: a missing, a corrupt and a truncated gdp policy name the file; a
# policy for other devices and a Placeto episode are refused
check_bad_policies heads 1500
run train "$g" --agent gdp --devices 3 --hidden 8 --episodes 1 --seed 1 -o "$tmp/gdp3.json"
expect_rc "train a 3-device gdp policy" 0 && pass
check_refused_episodes "a gdp" gdp3.json

echo "gdpexplore: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
