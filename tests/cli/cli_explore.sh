#!/usr/bin/env bash
# The explorer, headless (a key script in, screen dumps out): the start
# screen and every pane; step, run, override, undo, redo; save and resume to
# the same screen and state; resize, including a too-small terminal; help,
# search, baselines, starting from a baseline, background training, DOT and
# trace exports; the quit confirmation; and a resume with a policy of the
# other feature set, refused; a training graph folded, and every group; the
# tour to its end, the RNN placer's stage among its stages (RNN episodes
# themselves: cli_explore_rnn.sh).
# Four whole screens are compared
# byte for byte with tests/data/golden/explore_*.txt (the screens hold no
# times or dates: nothing is masked);
# `PLACETO_UPDATE_GOLDEN=1 bash tests/cli/cli_explore.sh` rewrites them.
# Prints "explore: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

g=graphs/toy/crown.json
# shellcheck source=tests/cli/lib_explore.sh
. tests/cli/lib_explore.sh

# explore KEYS [OPTIONS...]: a headless run on the toy crown with the default policy, in $tmp
explore() {
    local keys=$1
    shift
    cmd="placeto explore $g --headless --keys '$keys' $*"
    # shellcheck disable=SC2086  # PLACETO_WRAP is a command line to split
    (cd "$tmp" && timeout 20 $wrap "$absprog" explore "$absg" --headless --keys "$keys" "$@") \
        > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
}

# whole screens, 100x30: the start screen; three steps, an override and the
# baselines dialog; the timeline maximised after four steps
explore "" --size 100x30
golden start
explore "space space space down 1 b" --size 100x30
golden baselines
explore "space space space space tab z" --size 100x30
golden timeline

# a training graph opens folded (the forward pass, each group's backward and
# update groups beside it, a minimap); v shows every group in layers
g=graphs/resnet18.json
absg=$(pwd)/$g
explore "" --size 160x48
golden resnet18
has "folded" "Graph 100 groups, folded (<: backward)" "+map" "|layer1.0.conv1 d0|<d0 d0|"
explore "v" --size 160x48
has "every group" "graph: every group in layers" "Graph 100 groups --"
explore "v v Z" --size 160x48
has "folded, compact" "Graph 100 groups, folded (<: backward), compact"
g=graphs/toy/crown.json
absg=$(pwd)/$g

explore "" --size 100x30
has "start screen" "placeto  toy_crown on 2x K80" "step 0/18" "Graph 18 groups" "Timeline" "Policy" "Devices" \
    "History" "Inspector" "space steps"

# a policy trained as a search (train --preset search) starts its episode
# from the best heuristic's placement, and says so
"$prog" train "$g" --preset search --episodes 2 -o "$tmp/search.json" > /dev/null 2>&1
explore "" --size 140x30 --policy "$tmp/search.json"
has "search policy start" "placement (a policy trained as a search)"

lines=$(wc -l < "$tmp/out")
if [ "$lines" -le 30 ]; then pass; else fail "screen size" "$lines lines for a 30-row screen"; fi

explore "space space space" --size 100x30
has "step" "step 3/18" "History 3 steps" "step 3: policy "

explore "space space down 1" --size 100x30
has "override of another group" "(aside)" "the episode stays at step 3" "episode 1 step 2/18"

# overriding the current group is that step's decision: the cursor moves on
# and the policy continues with the next group
explore "space space 1" --size 100x30
has "override of the current group" "(this step)" "the policy goes on with" "episode 1 step 3/18"
explore "space space 1 space" --size 100x30
has "the policy goes on after an override" "step 4: policy" "episode 1 step 4/18" "you moved"
explore "space space 0" --size 100x30
has "kept reads as kept" "you kept" "on /GPU:0 (this step)"

explore "space space down 1 u" --size 100x30
has "undo" "undo: " "History 2 steps, redo available"

explore "space space u u U" --size 100x30
has "redo" "redo: " "History 1 steps, redo available"

explore "f" --size 100x30
has "finish" "finished the episode in 18 steps" "step 18/18"

explore "r tick tick tick r" --size 100x30
has "run and pause" "step 3/18" "paused"

explore "m space" --size 100x30
has "greedy" "greedy" "step 1: policy (greedy) "

explore "?" --size 100x40
has "help" "Keys" "Episode" "move the selected group to that device" "undo the last step"

explore "/ b3.pool enter" --size 100x30
has "search" "selected b3.pool" "Inspector b3.pool"

explore "b" --size 100x30
has "baselines" "Baselines" "heft" "metis" "single" "vs bound"

explore "b down enter" --size 100x30
has "start from a baseline" "new episode from" "the policy refines it"

explore "T bs bs 4 enter wait" --size 100x30
has "train in the background" "trained 4 episodes"
if [ -s "$tmp/crown.trained-policy.json" ]; then pass; else fail "train in the background" "no policy file"; fi

for pane in 1 2 3 4 5 6; do
    tabs=""
    for ((k = 1; k < pane; k++)); do tabs="$tabs tab"; done
    explore "$tabs z" --size 100x30
    expect_rc "maximise pane $pane" 0 && pass
done
explore "tab tab tab tab tab z" --size 100x30
has "maximised inspector" "Inspector src" "group 0 on /GPU:0"

explore "Z" --size 100x30
has "compact graph" "compact"

explore "space resize:80x24" --size 100x30
has "resize to 80x24" "step 1/18" "Graph"
if [ "$(wc -l < "$tmp/out")" -le 24 ] && awk 'length($0) > 80 { exit 1 }' "$tmp/out"; then pass; else fail "resize to 80x24" "dump larger than 80x24"; fi
explore "resize:20x6" --size 100x30
has "too small" "too small" "20x6" "needs 60x16"
explore "resize:20x6 resize:100x30" --size 100x30
has "resize back" "Graph 18 groups"

explore "d t" --size 100x30
has "exports" "wrote crown.trace.json"
if [ -s "$tmp/crown.placement.dot" ] && dot -Tsvg "$tmp/crown.placement.dot" -o /dev/null 2> /dev/null; then
    pass
else
    fail "DOT export" "no file, or dot cannot render it"
fi
pycheck "trace export" 'import json, sys; d = json.load(open(sys.argv[1])); assert d["traceEvents"], "no events"' \
    "$tmp/crown.trace.json"

# quit: no changes quits at once; changes ask first
explore "q space" --size 100x30
has "quit at once" "step 0/18"
explore "space q" --size 100x30
has "quit asks" "Unsaved changes" "y: save to"
explore "space q n" --size 100x30
expect_rc "quit without saving" 0 && pass
if [ -s "$tmp/crown.episode.json.autosave" ]; then pass; else fail "autosave on quit" "no autosave file"; fi

# save, then resume: the same screen and, stepping on, the same episode
explore "space space 1 s space space" --size 100x30 --save ep.json
cp "$tmp/out" "$tmp/straight.txt"
explore "space space 1 s q" --size 100x30 --save ep.json
expect_rc "save" 0 && pass
pycheck "episode file" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "placeto-episode", d["format"]
assert d["cursor"] == 3 and len(d["history"]) == 3, (d["cursor"], len(d["history"]))
assert [h["actor"] for h in d["history"]] == ["policy", "policy", "user"]
assert d["history"][2].get("takes_step") is True and "takes_step" not in d["history"][0]
' "$tmp/ep.json"
cmd="placeto explore --resume ep.json --headless --keys 'space space'"
# shellcheck disable=SC2086
(cd "$tmp" && timeout 20 $wrap "$absprog" explore --resume ep.json --headless --keys "space space" --size 100x30) \
    > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
if expect_rc "resume" 0; then
    # the screens agree except for the message line and the unsaved mark
    if diff <(head -n 29 "$tmp/straight.txt" | sed 's/ | unsaved//') <(head -n 29 "$tmp/out" | sed 's/ | unsaved//') \
        > "$tmp/diff"; then
        pass
    else
        fail "resume reproduces the screen" "$(head -c 300 "$tmp/diff")"
    fi
fi

# replay: the saved steps walked forwards and backwards, read-only
cmd="placeto explore --replay ep.json --headless --keys 'space space left'"
(cd "$tmp" && timeout 20 $wrap "$absprog" explore --replay ep.json --headless --keys "space space left" --size 100x30) \
    > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
has "replay" "placeto replay" "replay 1/3, back over: policy"
cmd="placeto explore --replay ep.json --headless --keys 'space 1'"
(cd "$tmp" && timeout 20 $wrap "$absprog" explore --replay ep.json --headless --keys "space 1" --size 100x30) \
    > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
has "replay is read-only" "replay is read-only"
# replay's help lists replay's keys
cmd="placeto explore --replay ep.json --headless --keys '?'"
(cd "$tmp" && timeout 20 $wrap "$absprog" explore --replay ep.json --headless --keys "?" --size 100x40) \
    > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
has "replay's help" "Replay (read-only)" "one recorded step backwards" "the start of the recording"
if grep -q "new episode" "$tmp/out"; then fail "replay's help" "it lists the episode's keys"; fi

# nothing is lost by one key: a new episode asks when this one is unsaved,
# and the previous one comes back by undo
explore "space space e" --size 100x30
has "new episode asks" "New episode" "This episode has unsaved changes" "any other key: stay"
explore "space space e x" --size 100x30
has "new episode cancelled" "no new episode" "episode 1 step 2/18"
explore "space space e y" --size 100x30
has "new episode" "episode 2 step 0/18" "u at its start goes back"
explore "space space e y space u u" --size 100x30
has "undo reaches the previous episode" "back to the previous episode" "episode 1 step 2/18"
explore "space space e y u U" --size 100x30
has "redo comes forward again" "forward to the next episode" "episode 2 step 0/18"
explore "e" --size 100x30
has "no question without unsaved work" "episode 2 step 0/18"
# n and N after a search, as in less and vim
explore "/ b 1 enter n" --size 100x30
has "search next" "/b1: b1." "match 2 of"
explore "/ b 1 enter n N" --size 100x30
has "search previous" "match 1 of"
explore "n" --size 100x30
has "n without a search" "no search yet"
# Home/End and g/G outside replay
explore "space space space g" --size 100x30
has "g undoes the history" "undid 3 entries" "episode 1 step 0/18"
explore "space space space home end" --size 100x30
has "End redoes it" "redid 3 entries" "episode 1 step 3/18"
explore "space space space g G" --size 100x30
has "G redoes it" "redid 3 entries"

# nothing is cut: the help scrolls at 80x24 and wraps long lines; a long
# message wraps
explore "?" --size 80x24
has "help at 80x24" "1-20 of" "j/k PgUp/PgDn scroll" "(asks when this one is unsaved; u at its"
explore "? $(printf 'j %.0s' $(seq 120))" --size 80x24
# its last row shown: "F-L of L"
if has "help scrolled to its end" "Mouse: click a group"; then
    grep -qE -- ' [0-9]+-([0-9]+) of \1 ' "$tmp/out" && pass || fail "help scrolled to its last row" "no 'F-L of L'"
fi
explore "space space 1" --size 80x24
has "a long message wraps" "the policy goes on with"

# the guided tour, start to finish, headless (a tour run places the tour's
# graph with four policies and loads the RNN placer's: minutes under
# valgrind)
tour_limit=60
case "$wrap" in *valgrind*) tour_limit=1200 ;; esac
cmd="placeto demo --headless --keys 'space x18' --frames frames.txt"
keys=""
for ((k = 0; k < 18; k++)); do keys="$keys space"; done
(cd "$tmp" && timeout "$tour_limit" $wrap "$absprog" demo --headless --keys "$keys" --size 110x34 --frames frames.txt) \
    > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
has "demo to the end" "the tour is over"
n=$(grep -o "Tour [0-9]*/18" "$tmp/frames.txt" | sort -u | wc -l)
if [ "$n" -eq 17 ]; then pass; else fail "demo stages" "$n of the stages 2-18 shown"; fi
for t in "The simulator and the timeline" "Message passing" "Ancestors, descendants" "The reward" \
         "The paper's rules" "The chain, with this tour's numbers" "An override by hand" "Compared with the baselines" "Generalization to an unseen graph" "zero-shot Placeto" \
         "Every learned agent beside the baselines" "placeto family_nmt zero-shot" "placeto general_2 refine" \
         "Another learned agent: the RNN placer" "why: attention" "| rnn policy" "Placeto instead" \
         "Another learned agent: GDP" "| gdp policy" "gdp family_nmt zero-shot" "rnn family_nmt zero-shot" \
         "hsdag inception_v3 zero-shot" "The race of the placers" "Race on nmt_variant_24" "HSDAG, its own grouping" "| hsdag policy" "learned clusters"; do
    if grep -qF "$t" "$tmp/frames.txt"; then pass; else fail "demo stage" "no '$t' in any frame"; fi
done

# the tour: the feature stage shows several groups as a table; stepping back
# a stage (Left, Backspace, p) shows it as it was, also back from the
# held-out graph; the override stage places the current group
demo() {
    cmd="placeto demo --headless --keys '$1'"
    (cd "$tmp" && timeout "$tour_limit" $wrap "$absprog" demo --headless --keys "$1" --size 100x34) > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
}
demo "space space space"
has "feature table" "Tour 4/18" "is        cost bytes" "current" "child"
demo "space space space space left"
has "back a stage" "Tour 4/18" "is        cost bytes"
demo "space space space space space space space space"
cp "$tmp/out" "$tmp/override.txt"
has "the override stage" "Tour 9/18" "you kept"
demo "space space space space space space space space p space"
if cmp -s "$tmp/out" "$tmp/override.txt"; then pass; else fail "back and forth again" "the override stage differs"; fi
demo "space space space space space space space space space space space bs"
has "back from the held-out graph" "Tour 11/18: The paper's rules" "nmt on"
# the RNN placer's stage opens the tour's graph with the rnn policy; back
# from it is the GDP stage's App again, and forth again the same screen
to_rnn="space space space space space space space space space space space space space space space"
demo "$to_rnn"
cp "$tmp/out" "$tmp/rnn_stage.txt"
has "the RNN placer's stage" "Tour 16/18: Another learned agent" "resnet18_b32" "rnn policy" "why: attention" \
    "Graph 100 groups, folded (<: backward), attention" "step 6: policy (greedy)"
demo "$to_rnn left"
has "back from the RNN placer" "Tour 15/18: Another learned agent: GDP" "nmt_variant_24"
demo "$to_rnn space p"
if cmp -s "$tmp/out" "$tmp/rnn_stage.txt"; then pass; else fail "the RNN stage again" "the screen differs"; fi
demo "left"
has "no stage before the first" "Tour 1/18" "the tour's first stage"

# an episode saved with relative paths resumes from any directory: its
# paths are kept relative to the episode file
mkdir -p "$tmp/eps"
run explore "$g" --policy graphs/policies/resnet18_2.json --devices 2 --headless --keys "space space s" --save "$tmp/eps/rel.json"
expect_rc "save with relative paths" 0 && pycheck "paths relative to the episode file" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["graph"]["path"].startswith("../") and not d["graph"]["path"].startswith("/"), d["graph"]["path"]
' "$tmp/eps/rel.json"
cmd="(cd / && placeto explore --resume $tmp/eps/rel.json --headless --keys space)"
(cd / && timeout 20 $wrap "$absprog" explore --resume "$tmp/eps/rel.json" --headless --keys "space" --size 100x30) \
    > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
has "resume from another directory" "step 3/18"

# a click on the minimap moves the view there (the bottom of the map: the
# last residual stage)
cmd="placeto explore graphs/resnet18.json --headless --keys 'click:96,33' --size 160x48"
r18=$(pwd)/graphs/resnet18.json
(cd "$tmp" && timeout 20 $wrap "$absprog" explore "$r18" --headless --keys "click:96,33" --size 160x48) \
    > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
has "a click on the map" "layer4.1.bn1"
if grep -q "layer1.0.conv1 " "$tmp/out"; then fail "a click on the map" "the view stayed at the top"; fi

# a group selected with the mouse and overridden changes aside: the episode
# stays where it was, the history says who chose it
run explore graphs/toy/crown.json --headless --keys "click:26,9 1" --size 100x30
has "override of a clicked group" "you moved b3.bn d0->d1 (aside)" "step 0/18" "the episode stays at step 1"

# the tour's trace goes beside the user's files, and says so
mkdir -p "$tmp/tourdir"
cmd="(cd tourdir && placeto demo --headless --keys 'Right Right Right')"
(cd "$tmp/tourdir" && timeout 20 $wrap "$absprog" demo --headless --keys "Right Right Right" --size 100x34) \
    > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
has "the tour announces its trace" "wrote nmt.trace.json"
if [ -s "$tmp/tourdir/nmt.trace.json" ]; then pass; else fail "the tour's trace" "no nmt.trace.json where it said"; fi

# a graph's name never chooses where files go: a graph named "../escaped"
# in the file "my model.json" saves and exports as my_model.* beside it
mkdir -p "$tmp/names/sub"
"$py" -c 'import json, sys; d = json.load(open(sys.argv[1])); d["name"] = "../escaped"; json.dump(d, open(sys.argv[2], "w"))' \
    "$g" "$tmp/names/sub/my model.json"
cmd="placeto explore 'my model.json' --headless --keys 'space s d t'"
(cd "$tmp/names/sub" && timeout 20 $wrap "$absprog" explore "my model.json" --headless --keys "space s d t" --size 100x30) \
    > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
if expect_rc "files named after the graph file" 0; then
    if [ -s "$tmp/names/sub/my_model.episode.json" ] && [ -s "$tmp/names/sub/my_model.placement.dot" ] &&
       [ -s "$tmp/names/sub/my_model.trace.json" ] && [ -z "$(ls "$tmp/names" | grep -v '^sub$')" ]; then pass
    else fail "files named after the graph file" "$(ls -R "$tmp/names")"; fi
fi

# errors
explore "" --size 0x0
expect_rc "bad --size" 2 && pass
cmd="placeto explore --resume missing.json --headless"
(cd "$tmp" && timeout 20 $wrap "$absprog" explore --resume missing.json --headless) > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
if expect_rc "resume a missing file" 1; then
    if grep -q "missing.json" "$tmp/err"; then pass; else fail "resume a missing file" "no file name in the error"; fi
fi
# resuming with a policy of the other feature set is refused (the policy
# would read the episode's features at the wrong width)
other=$("$py" -c 'import json, sys; print("paper" if json.load(open(sys.argv[1]))["config"].get("extended_features") else "extended")' "$tmp/ep.json")
run train "$g" --features "$other" --episodes 1 -o "$tmp/other.json"
expect_rc "train a policy with the $other features" 0 && pass
cmd="placeto explore --resume ep.json --policy other.json --headless --keys 'space'"
# shellcheck disable=SC2086
(cd "$tmp" && timeout 20 $wrap "$absprog" explore --resume ep.json --policy other.json --headless --keys "space" --size 100x30) \
    > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
if expect_rc "resume with the $other features" 1; then
    if grep -q "extended features" "$tmp/err"; then pass; else fail "resume with the $other features" "no clear message"; fi
fi
# ... and so is a policy built with the memory feature (every architecture
# field must match the episode's)
run train "$g" --mem-feature --episodes 1 -o "$tmp/mem.json"
expect_rc "train a policy with the memory feature" 0 && pass
cmd="placeto explore --resume ep.json --policy mem.json --headless --keys 'space'"
(cd "$tmp" && timeout 20 $wrap "$absprog" explore --resume ep.json --policy mem.json --headless --keys "space" --size 100x30) \
    > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
if expect_rc "resume with the memory feature" 1; then
    if grep -q "mem.json: the policy was built with the memory feature" "$tmp/err"; then pass; else
        fail "resume with the memory feature" "no clear message: $(cat "$tmp/err")"; fi
fi
run explore "$g" --policy graphs/policies/inception_v3_4.json --devices 2 --headless
if expect_rc "policy for other devices" 1; then
    if grep -q "the policy is for 4 devices but the cluster has 2" "$tmp/err"; then pass; else fail "policy for other devices" "unclear"; fi
fi
run explore "$g" --devices 2 < /dev/null
if expect_rc "no terminal" 1; then
    if grep -q "terminal" "$tmp/err"; then pass; else fail "no terminal" "no mention of a terminal"; fi
fi

echo "explore: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
