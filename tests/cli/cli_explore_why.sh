#!/usr/bin/env bash
# The explorer's "why this device" panel (w) and the race of the placers
# (R, explore --race), headless: the panel's runtime per device equals
# `placeto simulate` of the placement with the group moved there; the
# uniform label shows for the RNN placer's and GDP's attention and not for a
# peaked distribution; message passing counts the groups reached per round
# as counted by hand on the toy crown; the panel works in a replay; the
# tour's feature table names each row by its relation; the race's final numbers equal
# compare's at the same budget and seed, its legend names every method, and
# the same seed gives the same frames.
# Prints "whyexplore: N passed, M failed" (tests/run.sh reads a word of letters).
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

g=graphs/toy/crown.json
policy=$(pwd)/graphs/policies/general_2.json
# shellcheck source=tests/cli/lib_explore.sh
. tests/cli/lib_explore.sh

# wide: the panel's rows whole
explore_wide() { explore "$1" --size 130x40; }

# ---- why: runtimes per device against full simulations ----------------
# ops_placement FILE OP=DEV...: every crown op on device 0 but those given
ops_placement() {
    local f=$1
    shift
    "$py" - "$absg" "$@" > "$f" << 'PY'
import json, sys
g = json.load(open(sys.argv[1]))
ops = {n["name"]: 0 for n in g["nodes"]}
for a in sys.argv[2:]:
    k, v = a.split("=")
    ops[k] = int(v)
print(json.dumps({"format": "placeto-placement", "version": 1, "devices": 2, "ops": ops}))
PY
}
# panel_runtime DEV: the panel's "if here" runtime of device DEV on the last screen
panel_runtime() { sed -n "s/.*| d$1 .*if here: *\([0-9.]* [mu]*s\).*/\1/p" "$tmp/out" | head -n 1; }
# sim_runtime FILE: simulate's runtime of a placement
sim_runtime() {
    "$prog" simulate "$absg" --placement "$1" --devices 2 | sed -n 's/^runtime *\([0-9.]* [mu]*s\) .*/\1/p'
}
check_runtimes() { # NAME KEYS GROUP OP=DEV... (the placement besides the group)
    local name=$1 keys=$2 grp=$3 d want got
    shift 3
    explore_wide "$keys"
    expect_rc "$name" 0 || return
    for d in 0 1; do
        ops_placement "$tmp/p$d.json" "$@" "$grp=$d"
        want=$(sim_runtime "$tmp/p$d.json")
        got=$(panel_runtime "$d")
        if [ -z "$want" ] || [ "$got" != "$want" ]; then
            fail "$name: d$d" "the panel says '$got', simulate says '$want'"
            return
        fi
    done
    pass
}
explore_wide "w"
has "why opens on the current group" "Why this device: src" "step 1/18: src (group 0)" "if here:" "[now]" "[best]" \
    "features: group" "pools over:" "descendants 17" "parallel 0"
check_runtimes "why: src, nothing moved" "w" src
check_runtimes "why: b1.conv after src moved to d1" "1 w" b1.conv src=1
# (an override selects the group it moved: c selects the current one again)
check_runtimes "why: b1.proj after overrides" "1 c 0 c 1 w" b1.proj src=1 b1.conv=0 b1.relu=1
explore_wide "1 c 0 c 1 w"
has "why: relations named" "> b1.proj" "parent" "ancestor" "child" "parallel" "step 4/18: b1.proj"

# ---- message passing, counted by hand on the crown -----------------------
# from b1.conv: src and b1.relu after round 1, b1.proj after 2, concat 3, sink 4; 12 groups parallel
explore_wide "1 w"
has "message passing: the rounds" "space steps round 1 .. 4" "per round: 1:2 2:1 3:1 4:1; never: 12 parallel"
explore_wide "1 w space"
has "message passing: round 1" "round 1: 2 new, 2 reached (1 ancestors top-down via parents, 1 descendants bottom-up via children)"
explore_wide "1 w space space space"
has "message passing: round 3" "round 3: 1 new, 4 reached (1 ancestors" "3 descendants"
explore_wide "1 w space space space space space"
has "message passing: back to the sets after the last round" "pools over:" "space steps round 1 .. 4"
# from concat (step 17): 7 after round 1, 6 after 2, 4 after 3
explore_wide "f u u w"
has "message passing from concat" "Why this device: concat" "per round: 1:7 2:6 3:4; never: 0 parallel"

# ---- uniform: the RNN placer's and GDP's attention, not a peaked distribution
run explore graphs/resnet18.json --policy graphs/policies/rnn_resnet18_2.json --headless --size 160x40 --keys 'space space w'
has "rnn: attention nearly uniform" "attention: nearly uniform over 100 groups" "the list below is not a reason"
run explore graphs/resnet18.json --headless --size 130x40 --keys 'space space w'
has "placeto on resnet18: a peaked distribution" "99.0%" "[policy's pick]"
if grep -q "uniform" "$tmp/out"; then fail "placeto's 99 % is not uniform" "'uniform' on screen"; else pass; fi
run explore graphs/nmt.json --policy graphs/policies/gdp_nmt_2.json --headless --size 130x40 --keys 'space space w'
has "gdp: attention uniform" "attention: uniform over 200 groups (each 0.50%, within 5% of 1/200): no reasoning to show"
run explore graphs/nmt.json --policy graphs/policies/gdp_nmt_2.json --headless --size 130x40 --keys 'space space'
has "gdp: the Policy pane says uniform" "Policy sampling, uniform attention" "why: attention, 4-head mean"
run explore graphs/resnet18.json --policy graphs/policies/rnn_resnet18_2.json --headless --size 130x40 --keys 'space space'
has "rnn: the Policy pane says nearly uniform" "Policy sampling, near-uniform attention"

# ---- the tour's feature table names each row's relation (source_tokens has no parent: its rows are children)
run demo --headless --size 110x34 --keys 'space space space'
expect_rc "tour: features" 0 && {
    if grep -qE 'embedding_6 +child ' "$tmp/out" && ! grep -qE '(embedding|source_tokens)[^ ]* +parent ' "$tmp/out"; then pass; else
        fail "tour: features named by relation" "embedding_6 is not named a child of source_tokens"; fi
}

# ---- why in a replay, with the recorded choice --------------------------
in_tmp explore "$absg" --policy "$policy" --headless --keys 'space 1 space s'
expect_rc "save an episode to replay" 0 && pass
in_tmp explore --replay crown.episode.json --headless --size 130x40 --keys 'right w right'
has "why in a replay: the step after, its recorded choice" "(replay)" "step 3/18: b1.relu" "[chosen]"

# ---- the race --------------------------------------------------------------
# race_final NAME: the final runtime of the legend's row NAME
race_final() { grep -F "$1 " "$tmp/race.txt" | sed -n 's/.*final \([0-9.]* [mu]*s\),.*/\1/p' | head -n 1; }
# compare_row METHOD: compare's runtime of METHOD in $tmp/compare.txt
compare_row() { awk -v m="$1" '$1 == m {print $2 " " $3}' "$tmp/compare.txt"; }
race_matches_compare() { # GRAPH BUDGET POLICY...
    local graph=$1 budget=$2 pol stem m want got
    shift 2
    run explore "$graph" --race --budget "$budget" --seed 1 --headless --size 130x44
    expect_rc "race on $graph" 0 || return
    cp "$tmp/out" "$tmp/race.txt"
    has "race on $graph: legend and axes" "Race on" "(finished)" "best runtime against simulations" \
        "placements (log)" "* " "anneal" "ils" "ms |" "budget $budget placements"
    run compare "$graph" --devices 2 --methods anneal,ils --no-policy --budget "$budget" --seed 1
    cp "$tmp/out" "$tmp/compare.txt"
    for m in anneal ils; do
        want=$(compare_row "$m") got=$(race_final "$m")
        if [ -z "$want" ] || [ "$got" != "$want" ]; then fail "race $graph: $m" "race '$got', compare '$want'"; return; fi
    done
    for pol in "$@"; do
        stem=$(basename "$pol" .json)
        run compare "$graph" --devices 2 --policy "$pol" --untrained --methods anneal --budget "$budget" --seed 1
        cp "$tmp/out" "$tmp/compare.txt"
        for m in $(awk 'NR > 2 && $1 != "anneal" && $1 != "lower" && $1 != "budget:" && $1 !~ /-trained$/ {print $1}' "$tmp/compare.txt"); do
            want=$(compare_row "$m") got=$(race_final "$m ($stem)")
            if [ -z "$want" ] || [ "$got" != "$want" ]; then
                fail "race $graph: $m ($stem)" "race '$got', compare '$want'"
                return
            fi
        done
    done
    pass
}
race_matches_compare graphs/toy/crown.json 120 graphs/policies/general_2.json graphs/policies/lsched_2.json \
    graphs/policies/lsearch.json
race_matches_compare graphs/resnet18.json 200 graphs/policies/resnet18_2.json graphs/policies/rnn_resnet18_2.json \
    graphs/policies/general_2.json
cp "$tmp/race.txt" "$tmp/out"
has "race: the controls beside the policies" "placeto-untrained (general_2)" "rnn-untrained (rnn_resnet18_2)" \
    "lsearch-untrained (lsearch)"

# the same seed gives the same frames; the frames advance together
run explore "$g" --race --budget 90 --seed 1 --headless --frames "$tmp/f1.txt"
run explore "$g" --race --budget 90 --seed 1 --headless --frames "$tmp/f2.txt"
expect_rc "race frames" 0 && { cmp -s "$tmp/f1.txt" "$tmp/f2.txt" && pass || fail "race: same seed, same frames" "the frames differ"; }
n=$(grep -c "^--- frame .*: race ---" "$tmp/f1.txt")
if [ "$n" -ge 10 ]; then pass; else fail "race: drawn as it runs" "$n frames"; fi
if grep -q "best .* after [0-9]* simulations" "$tmp/f1.txt"; then pass; else fail "race: mid-race legend" "no 'best ... after N simulations'"; fi

# the key R, and wait until it ends
explore "R wait"
has "R opens the race" "Race on toy_crown" "(finished)" "anneal" "race finished: the final numbers are compare's"
explore "R esc w"
has "Esc closes the race, w opens the panel" "Why this device: src"
usage_error "--budget without --race" explore "$g" --budget 10 --headless
usage_error "--budget 0" explore "$g" --race --budget 0 --headless

echo "whyexplore: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
