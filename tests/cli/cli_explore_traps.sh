#!/usr/bin/env bash
# The explorer's traps and wrong hints, headless (a key script in, the last
# screen out), and what leaves it: a policy file names the cluster it was
# trained on (every agent) and explore, place and compare open on it, an
# explicit --devices or --cluster being honoured with a note; the status line
# names the policy file; the general policy on one's own graph starts from
# the best heuristic's placement as place --policy auto does; a finished
# episode says e (not n) starts another; a search without a match says so;
# undo of a kept step says it was kept; replay's help lists each key once;
# Ctrl-C (sigint) autosaves, says where on stderr and exits 130; saving never
# silently replaces an episode file; exports, trained policies and autosaves
# never replace the graph, the policy in use or the episode, --resume E
# --save N saves to N, nothing is derived from --save /dev/null, a FIFO or
# -; the current placement written as a placement file, and export and
# simulate reading an episode file; the
# Devices pane's busy %, the sparkline's range, OOM baselines ranked last,
# the timeline's hidden lanes, the hidden Inspector, the minimap moving off
# the current node, middle-ellipsis labels and the glyph legend.
# Prints "exploretraps: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh
export PLACETO_KERNELS=plain

g=graphs/toy/crown.json
policy=$(pwd)/graphs/policies/general_2.json
# shellcheck source=tests/cli/lib_explore.sh
. tests/cli/lib_explore.sh

# auto KEYS [OPTIONS...]: as explore, with the policy the explorer chooses itself
auto() {
    local keys=$1
    shift
    cmd="placeto explore $g --headless --keys '$keys' $*"
    # shellcheck disable=SC2086  # PLACETO_WRAP is a command line to split
    (cd "$tmp" && timeout "$run_limit" $wrap "$absprog" explore "$absg" --headless --keys "$keys" --size 100x30 "$@") \
        > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
}
# err_has NAME PATTERN: stderr shows the pattern
err_has() {
    if grep -qF -- "$2" "$tmp/err"; then pass; else fail "$1" "stderr lacks '$2'"; fi
}

# ---- the cluster a policy was trained on ----
clu=$(pwd)/graphs/clusters/cpu_gpu1.json
# small networks: quick under valgrind too
small() { case $1 in rnn) echo "--hidden 8" ;; gdp) echo "--hidden 8 --heads 1" ;; hsdag) echo "--hidden 8 --steps 4" ;; esac; }
for a in placeto rnn gdp hsdag; do
    # shellcheck disable=SC2046  # the options are words
    run train "$g" --agent "$a" $(small "$a") --cluster "$clu" --episodes 1 --seed 1 -o "$tmp/$a.json"
    if expect_rc "train --agent $a --cluster" 0; then
        pycheck "a $a policy names its training cluster" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["cluster"]["name"] == "1x CPU + 1x K80", d.get("cluster")
assert [x["name"] for x in d["cluster"]["devices"]] == ["/CPU:0", "/GPU:0"]
' "$tmp/$a.json"
    fi
done
policy=$tmp/hsdag.json
explore ""
has "explore opens on the policy's training cluster" "toy_crown on 1x CPU + 1x K80" "hsdag policy hsdag.json"
explore "" --devices 2
has "an explicit --devices is honoured, with a note" "toy_crown on 2x K80" \
    "note: $tmp/hsdag.json was trained on \"1x CPU + 1x K80\"; running on \"2x K80 (Placeto simulator)\" as --devices 2 asks"
err_has "the note on stderr" "was trained on \"1x CPU + 1x K80\""
explore "" --cluster "$clu"
has "the same --cluster: no note" "toy_crown on 1x CPU + 1x K80"
if grep -q "was trained on" "$tmp/err"; then fail "no note for the training cluster" "a note on stderr"; else pass; fi
in_tmp demo "$absg" --policy hsdag.json --headless --size 100x30
has "the tour on one's graph opens on the policy's cluster too" "toy_crown on 1x CPU + 1x K80"
policy=$tmp/placeto.json
explore "space"
has "a placeto policy too" "toy_crown on 1x CPU + 1x K80" "policy placeto.json"
run place "$g" --policy "$tmp/gdp.json"
expect_rc "place --policy on the training cluster" 0 && { grep -qF "toy_crown on 1x CPU + 1x K80" "$tmp/out" && pass ||
    fail "place --policy on the training cluster" "expected 1x CPU + 1x K80"; }
run compare "$g" --policy "$tmp/rnn.json" --methods single --devices 2
expect_rc "compare --devices 2 with an rnn policy of 1x CPU + 1x K80" 0 && err_has "compare's note" "as --devices 2 asks"
run explore graphs/inference/inception_v3.json --policy graphs/policies/hsdag_inception_v3.json --headless --size 100x30
has "the bundled hsdag policy opens on its cluster" "inception_v3_inference on 1x CPU + 1x K80"
policy=$(pwd)/graphs/policies/general_2.json
explore ""
has "a policy file without a cluster (older files) still loads" "toy_crown on 2x K80" "policy general_2.json"
sed 's/"cluster": {"format"/"cluster": 3, "x": {"format"/' "$tmp/hsdag.json" > "$tmp/badclu.json"
run place "$g" --policy "$tmp/badclu.json"
expect_rc "a bad cluster field" 1 && err_has "a bad cluster field is named" "badclu.json:5:13: cluster: expected an object"
sed 's/"speed": 0.4/"speed": 0/' "$tmp/hsdag.json" > "$tmp/badspeed.json"
run place "$g" --policy "$tmp/badspeed.json"
expect_rc "a bad inline cluster" 1 && err_has "a bad inline cluster is named" "cluster.devices[0].speed: expected a number >= 1e-06"
run train "$g" --agent hsdag --resume "$tmp/hsdag.json" --episodes 1
expect_rc "train --resume keeps the training cluster" 0 && { grep -qF '"name": "1x CPU + 1x K80"' "$tmp/hsdag.json" && pass ||
    fail "train --resume keeps the training cluster" "the cluster changed"; }

# ---- the status line, the start, the hints ----
auto ""
has "status names the policy file" "| policy general_2.json |"
has "one's own graph starts where place --policy auto does" "from heft's placement (the best heuristic's, where place --policy auto starts)"
explore ""
has "an explicit policy starts as it says" "step 0/18" "toy_crown: 18 groups on 2 devices; space steps"
explore "f"
has "a finished episode: e starts a new one" "episode complete: e starts a new one"
explore "f space"
has "a step after the end: e starts a new one" "e starts a new one, u undoes"
explore "/ zzz enter"
has "a search without a match says so" "no match for \"zzz\""
explore "/ zzz enter n"
has "n after a search without a match" "no match for \"zzz\""
explore "space u"
has "undo of a kept step says it was kept" "undo: a kept step: src stays on /GPU:0"
explore "space u U"
has "redo of a kept step too" "redo: a kept step: src stays on /GPU:0"
explore "space space s q" --save ep.json
in_tmp explore --replay ep.json --headless --keys '?' --size 100x60
if expect_rc "replay help" 0; then
    n=$(head -n -1 "$tmp/out" | grep -cE '(^|[ |])(Left|h) ')
    if [ "$n" -eq 1 ] && grep -q "Left h u Bksp" "$tmp/out"; then pass; else fail "replay help lists Left/h once" "$n rows with Left or h"; fi
fi

# ---- Ctrl-C ----
# rc_is NAME N: the exit status is N (a status above 128 that is not a crash: no sanitizer report)
rc_is() {
    if grep -qE 'ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|placeto: fatal:' "$tmp/err"; then
        fail "$1" "sanitizer report"
    elif [ "$rc" -eq "$2" ]; then pass; else fail "$1" "exit status $rc, expected $2"; fi
}
explore "space sigint"
rc_is "Ctrl-C exits 130" 130
err_has "Ctrl-C says where it autosaved" "interrupted by SIGINT (Ctrl-C); the episode was autosaved to crown.episode.json.autosave"
if [ -s "$tmp/crown.episode.json.autosave" ]; then pass; else fail "Ctrl-C autosaves" "no autosave file"; fi
explore "sigint"
rc_is "Ctrl-C with nothing unsaved" 130
err_has "nothing unsaved" "nothing unsaved, no autosave"

# ---- saving never silently replaces an episode file ----
rm -f "$tmp"/crown.episode*.json
explore "space space s" --size 100x30
has "s saves a new file" "saved crown.episode.json (step 2"
cp "$tmp/crown.episode.json" "$tmp/prepared.json"
explore "space s" --size 100x30
has "s asks before replacing a file it did not write" "Replace an episode file?" \
    "crown.episode.json exists, and this session did not write it" "y: replace it" "crown.episode-2.json offered"
explore "space s n" --size 100x30
has "n keeps the file" "not saved: crown.episode.json is kept as it was"
cmp -s "$tmp/crown.episode.json" "$tmp/prepared.json" && pass || fail "n keeps the file" "the file changed"
explore "space s a enter" --size 100x30
has "a saves as the free name" "saved crown.episode-2.json (step 1"
cmp -s "$tmp/crown.episode.json" "$tmp/prepared.json" && pass || fail "save as keeps the file" "the file changed"
explore "space s a bs bs bs bs bs bs bs bs bs bs bs bs bs bs bs bs bs bs bs bs mine.json enter space s" --size 100x30
has "a typed name, then s saves there again without asking" "saved mine.json (step 2"
explore "space s a bs bs bs bs bs bs bs bs bs bs bs bs bs bs bs bs bs bs bs bs prepared.json enter" --size 100x30
has "save as an existing name is refused" "not saved: prepared.json exists too"
explore "space q y" --size 100x30
if expect_rc "the quit dialog's y" 0; then
    [ -s "$tmp/crown.episode-3.json" ] && pass || fail "the quit dialog's y picks a new name" "no crown.episode-3.json"
fi
cmp -s "$tmp/crown.episode.json" "$tmp/prepared.json" && pass || fail "quit keeps the file" "the file changed"
explore "space q" --size 100x30
has "the quit dialog names the new name" "y: save to crown.episode-4.json" "exists: it is"
explore "space e" --size 100x30
has "the new-episode dialog too" "s: save this one to crown.episode-4.json" "exists:"
explore "space s y" --size 100x30
has "y replaces" "saved crown.episode.json (step 1"
in_tmp explore --resume crown.episode.json --headless --keys 'space s' --size 100x30
has "a resumed file saves back without asking" "saved crown.episode.json (step 2"

# ---- the explorer never writes over its own files ----
# exports, trained policies and autosaves never replace the graph, the policy
# in use or the episode (a free name beside, said on the message line);
# --resume E --save N saves to N; nothing is derived from a --save that is
# not a regular file (-, /dev/null, a FIFO)
own=$tmp/own
# own KEYS [OPTIONS...]: a headless run in $own (on g.json, a copy of $g, unless --resume)
own() {
    local keys=$1
    shift
    cmd="(in own) placeto explore --headless --keys '$keys' $*"
    # shellcheck disable=SC2086  # PLACETO_WRAP is a command line to split
    (cd "$own" && timeout "$run_limit" $wrap "$absprog" explore --headless --keys "$keys" --size 100x30 "$@") \
        > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
}
# fresh_own: $own holds g.json and a Placeto policy pol.json (their copies in $tmp/keep)
fresh_own() {
    rm -rf "$own" "$tmp/keep"
    mkdir -p "$own" "$tmp/keep"
    cp "$absg" "$own/g.json"
    cp "$(pwd)/graphs/policies/general_2.json" "$own/pol.json"
    cp "$own/g.json" "$own/pol.json" "$tmp/keep/"
}
# kept NAME FILE...: each FILE in $own is byte for byte its copy in $tmp/keep
kept() {
    local name=$1 f
    shift
    for f in "$@"; do
        cmp -s "$own/$f" "$tmp/keep/$f" || { fail "$name" "$f changed"; return; }
    done
    pass
}
is_episode() { # NAME FILE: FILE in $own is still an episode
    pycheck "$1" 'import json, sys; assert json.load(open(sys.argv[1]))["format"] == "placeto-episode"' "$own/$2"
}
for k in W t d; do
    case $k in W) out=g.placement.json free=g.placement-2.json ;; t) out=g.trace.json free=g.trace-2.json ;;
        d) out=g.placement.dot free=g.placement-2.dot ;; esac
    fresh_own
    own "space s $k" g.json --policy pol.json --save "$out"
    has "$k after s --save $out" "wrote $free: $out is the episode's file and was not replaced"
    is_episode "$k keeps the episode saved to $out" "$out"
    fresh_own
    cp "$own/pol.json" "$own/$out"
    cp "$own/$out" "$tmp/keep/"
    own "space $k" g.json --policy "$out"
    has "$k with --policy $out" "wrote $free: $out is the policy in use and was not replaced"
    kept "$k keeps the policy in use $out and the graph" "$out" g.json
done
fresh_own
own "space T bs bs 1 enter wait" g.json --policy pol.json --save g.trained-policy.json
has "the trained policy is not written to the episode's name" \
    "saved as g.trained-policy-2.json (g.trained-policy.json is the episode's file and was not replaced)"
fresh_own
own "space T bs bs 1 enter wait s" g.json --policy pol.json --save g.trained-policy.json
has "then s saves the episode there" "policy g.trained-policy-2.json" "saved g.trained-policy.json (step 1"
is_episode "then s saves the episode there" g.trained-policy.json
kept "training keeps the graph and the policy it started from" g.json pol.json
fresh_own
own "space s" g.json --policy pol.json --save e.json
cp "$own/e.json" "$tmp/keep/"
own "" --resume e.json --save new.json
has "--resume E --save N says where s saves" "resumed e.json: step 1 of 18; s saves to new.json (--save), e.json is kept"
own "space s" --resume e.json --save new.json
has "--resume E --save N: s saves to N" "saved new.json (step 2"
kept "--resume E --save N keeps E, the graph and the policy" e.json g.json pol.json
is_episode "--resume E --save N writes N" new.json
own "space s" --resume e.json --save pol.json # e.json's policy: refused before the explorer starts
expect_rc "--save naming the policy the resumed episode names" 2 &&
    { grep -q "^placeto: explore: --save pol.json would overwrite the policy pol.json that episode e.json names" "$tmp/err" &&
        pass || fail "--save naming the episode's policy" "the message names neither"; }
kept "--resume E --save P keeps P, E's policy" pol.json e.json
# --save /dev/null, a FIFO, -: the autosave, the exports and the trained policy after the graph, here
fresh_own
mv "$own/g.json" "$own/xf44-own.json" # a name nothing else in /dev has
mv "$tmp/keep/g.json" "$tmp/keep/xf44-own.json"
in_dev() { ls -d /dev/null.autosave* /dev/null-2 /dev/xf44-own.* 2> /dev/null; }
had=$(in_dev)
own "space W t d T bs bs 1 enter wait q n" xf44-own.json --policy pol.json --save /dev/null
if expect_rc "--save /dev/null" 0; then
    left=$(in_dev)
    [ "$left" = "$had" ] && pass || fail "--save /dev/null derives no file in /dev" "$left"
    missing=
    for f in xf44-own.episode.json.autosave xf44-own.placement.json xf44-own.trace.json xf44-own.placement.dot \
        xf44-own.trained-policy.json; do
        [ -s "$own/$f" ] || missing="$missing $f"
    done
    [ -z "$missing" ] && pass || fail "--save /dev/null: derived files named after the graph, here" "no$missing"
    kept "--save /dev/null keeps the graph and the policy" xf44-own.json pol.json
fi
own "space q y" xf44-own.json --policy pol.json --save /dev/null
if expect_rc "--save /dev/null, the quit dialog's y" 0; then
    left=$(in_dev)
    [ "$left" = "$had" ] && pass || fail "the quit dialog's y writes through /dev/null (no /dev/null-2)" "$left"
fi
for f in /dev/null.autosave* /dev/null-2 /dev/xf44-own.*; do # what an older placeto run as root leaves in /dev
    [ -e "$f" ] && ! grep -qxF "$f" <<< "$had" && rm -f "$f"
done
fresh_own
mkdir "$own/sub"
mkfifo "$own/sub/fifo.json"
own "space W q n" g.json --policy pol.json --save sub/fifo.json
if expect_rc "--save a FIFO" 0; then
    [ "$(ls "$own/sub")" = fifo.json ] && pass || fail "--save a FIFO derives no file beside it" "$(ls "$own/sub")"
    [ -s "$own/g.episode.json.autosave" ] && [ -s "$own/g.placement.json" ] && pass ||
        fail "--save a FIFO: the autosave and W's file after the graph, here" "$(ls "$own")"
fi
fresh_own
own "space t q n" g.json --policy pol.json --save -
if expect_rc "--save -" 0; then
    [ -s "$own/g.episode.json.autosave" ] && [ -s "$own/g.trace.json" ] && ! ls "$own"/-* > /dev/null 2>&1 && pass ||
        fail "--save -: no ./-.autosave, the files after the graph" "$(ls "$own")"
fi

# ---- the placement leaves the explorer: W, and export and simulate read episodes ----
explore "space 1 W" --size 100x30
has "W writes the placement file" "wrote crown.placement.json: the current placement"
in_tmp simulate "$absg" --placement crown.placement.json
expect_rc "simulate the written placement" 0 && pass
in_tmp simulate crown.episode.json
if expect_rc "simulate an episode file" 0; then
    grep -qF "toy_crown on 2x K80" "$tmp/out" && grep -qF "crown.episode.json: the episode's current placement (step 2 of 18)" "$tmp/err" &&
        pass || fail "simulate an episode file" "expected the graph, cluster and step"
fi
in_tmp simulate "$absg" --placement crown.episode.json --json
expect_rc "simulate GRAPH --placement EPISODE" 0 && pycheck "its JSON" 'import json,sys; d=json.load(open(sys.argv[1])); assert d["makespan_us"] > 0' "$tmp/out"
in_tmp export crown.episode.json --dot ep.dot --trace ep.trace.json
expect_rc "export an episode file" 0 && { [ -s "$tmp/ep.dot" ] && [ -s "$tmp/ep.trace.json" ] && pass ||
    fail "export an episode file" "no DOT or trace"; }
in_tmp simulate "$(pwd)/graphs/toy/diamond.json" --placement crown.episode.json
expect_rc "an episode of another graph" 1 && err_has "another graph is named" "an episode of graph \"toy_crown\""
in_tmp simulate crown.episode.json --devices 3
expect_rc "--devices with an episode" 2 && err_has "--devices with an episode is refused" "--devices cannot be used with an episode file"

# ---- legibility ----
explore "space"
has "Devices: busy %" "Devices busy%, memory"
explore "space" --size 130x40
has "Devices: busy % on each row when wide" "grp  99% busy"
has "the sparkline's range" "range 0."
cat > "$tmp/small.json" << 'EOF'
{"format": "placeto-cluster", "version": 1, "name": "2x small",
 "devices": [
  {"name": "/GPU:0", "kind": "gpu", "speed": 1.0, "memory_bytes": 12000000},
  {"name": "/GPU:1", "kind": "gpu", "speed": 1.0, "memory_bytes": 12000000}],
 "op_gap_us": 5.7, "transfer_overhead_us": 25.0, "bandwidth_bytes_per_us": 7600.0}
EOF
explore "b" --cluster "$tmp/small.json"
if has "baselines with OOM rows" "yes !: out of memory, ranked last"; then
    # no row without OOM after the first OOM row
    if awk '/ yes ! /{oom=1} oom && / no  /{bad=1} END{exit bad}' "$tmp/out"; then pass
    else fail "OOM rows last" "a row in memory after an OOM row"; fi
fi

explore "" --devices 4 --policy "$(pwd)/graphs/policies/general_4.json" --size 80x24
has "4 devices at 80x24: the cut lanes are said" "+2 lanes below: Tab here, z maximises"
explore "tab" --devices 4 --policy "$(pwd)/graphs/policies/general_4.json" --size 80x24
has "the timeline focused: z maximises" "+2 lanes below: z maximises"
explore "" --size 100x30
if grep -qF "lanes below" "$tmp/out"; then fail "no hint when every lane shows" "a lanes hint at 100x30"; else pass; fi
explore "" --size 80x24
has "the Inspector hidden at 80x24 is said" "Tab: Inspector"
explore "tab tab tab tab tab" --size 80x24
has "Tab to the Inspector shows it" "Inspector src" "Tab: History"

# the minimap moves off the current node: a wide fan whose last source is at the canvas' right edge
"$py" - "$tmp/fan.json" << 'PY'
import json, sys
n = 24
nodes = [{"name": "s%02d" % i, "op": "conv", "cost_us": 100.0 + i, "output_bytes": [1000]} for i in range(n)]
nodes.append({"name": "z", "op": "concat", "cost_us": 10.0, "output_bytes": [100]})
edges = [{"src": "s%02d" % i, "dst": "z", "output": 0} for i in range(n)]
json.dump({"format": "placeto-graph", "version": 1, "name": "fan", "nodes": nodes, "edges": edges}, open(sys.argv[1], "w"))
PY
in_tmp explore fan.json --policy "$(pwd)/graphs/policies/general_2.json" --headless --size 100x30 \
    --keys "$(printf 'space %.0s' $(seq 23))"
if has "fan: step 24 on s22, at the right edge" "step 24/25: s22" "|s22        d0|"; then
    # the map is not in the top rows, where s22's box is
    if head -n 8 "$tmp/out" | grep -qF "+map"; then fail "the map leaves the current node" "the map is still at the top"
    else pass; fi
    grep -qF "+map" "$tmp/out" && pass || fail "the map is still shown" "no map"
fi

# full labels: the distinctive part of a long name
run explore graphs/inception_v3.json --headless --size 100x30 --keys "$(printf 'space %.0s' $(seq 37))"
has "inception's labels show the branch" "step 38/169: net.Mixed_6b.branch7x7_2" "|6b.7x7_1.bn    d0|" "|6b.7x7_2.bn    d0|"

# the glyph legend, in ASCII and in Unicode
explore "? $(printf 'j %.0s' $(seq 60))" --size 100x60
has "the legend (ASCII)" "Glyphs (Unicode; ASCII with --ascii" "[##] #" "under an op: on the critical path" "-d1>" "==>" \
    "sparkline: the runtime after each step" "text cut to fit"
explore "? $(printf 'j %.0s' $(seq 60))" --size 100x60 --unicode
has "the legend (Unicode)" "▐██▌ █" "▀▀▀" "─d1▶" "══▶" "▁▃▅█" "● ◉ 01"

echo "exploretraps: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
