#!/usr/bin/env bash
# The explorer with an HSDAG placer's policy, headless (a key script in,
# screen dumps out), on a small hsdag policy trained here on the toy crown
# (the plain kernels: the same weights on every machine): its one forward
# pass gives the learned clusters and their distributions, applied group by
# group in order from device 0; the Policy pane's why lists the current
# group's learned cluster and 'a' highlights it; C colours the graph by
# learned cluster (the palette of the timeline's groups, in the recording's
# colours) and compares the clusters with Placeto's fixed groups, C again
# returns to the devices, and a Placeto policy says it applies to an hsdag
# policy only; an override of a cluster's first group steers the cluster;
# undo and redo give the same screens; save then resume and replay give the
# same state; Placeto's features, background training and a baseline start
# say they do not apply; a missing or corrupt hsdag policy file is an error
# naming the file. Two whole screens are compared byte for byte with
# tests/data/golden/explore_hsdag_*.txt;
# `PLACETO_UPDATE_GOLDEN=1 bash tests/cli/cli_explore_hsdag.sh` rewrites them.
# Prints "hsdagexplore: N passed, M failed" (tests/run.sh reads a word of letters).
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh
export PLACETO_KERNELS=plain

g=graphs/toy/crown.json
absprog=$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog")
absg=$(pwd)/$g

# explore KEYS [OPTIONS...]: a headless run on the toy crown with the hsdag policy, in $tmp
explore() {
    local keys=$1
    shift
    cmd="placeto explore $g --policy hsdag.json --headless --keys '$keys' $*"
    # shellcheck disable=SC2086  # PLACETO_WRAP is a command line to split
    (cd "$tmp" && timeout "$run_limit" $wrap "$absprog" explore "$absg" --policy hsdag.json --headless \
        --keys "$keys" --size 100x30 "$@") > "$tmp/out" 2> "$tmp/err" < /dev/null
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

# golden NAME: the whole last screen equals tests/data/golden/explore_hsdag_NAME.txt
golden() {
    local name=$1 file=tests/data/golden/explore_hsdag_$1.txt
    expect_rc "golden $name" 0 || return
    if [ "${PLACETO_UPDATE_GOLDEN:-}" = 1 ]; then
        cp "$tmp/out" "$file" && echo "wrote $file" && pass
    elif [ ! -f "$file" ]; then
        fail "golden $name" "no $file (PLACETO_UPDATE_GOLDEN=1 writes it)"
    elif cmp -s "$file" "$tmp/out"; then
        pass
    else
        fail "golden $name" "the screen differs from $file: $(diff "$file" "$tmp/out" | head -c 600)"
    fi
}

# the Policy pane's probability rows (the device bars), and the why's groups
probs() { grep -E '^\|.*\|\|[ *][01] ' "$tmp/out" | sed 's/.*||//'; }
members() { grep -E '^\|.*\|\| *[0-9.]+% [>+.] [a-z]' "$tmp/out" | sed -E 's/.*% [>+.] ([^ ]+).*/\1/'; }

run train "$g" --agent hsdag --devices 2 --hidden 8 --steps 4 --episodes 5 --seed 1 -o "$tmp/hsdag.json"
expect_rc "train a small hsdag policy" 0 && pass

explore ""
golden start
has "start" "step 0/18" "hsdag policy" "the hsdag policy gives the learned clusters their distributions" \
    "a cluster's later groups follow its first" "step 1/18: src" "why: its learned cluster ("
members > "$tmp/src_cluster"
n_members=$(wc -l < "$tmp/src_cluster")
heading=$(grep -oE "why: its learned cluster \([0-9]+ groups?\)" "$tmp/out" | grep -oE "[0-9]+")
[ "$n_members" -ge 2 ] && [ "$n_members" -le 5 ] && [ "$heading" -ge "$n_members" ] && pass ||
    fail "the why lists the cluster" "$n_members listed of ${heading:-?}: $(flat "$tmp/src_cluster")"
[ "$(head -n 1 "$tmp/src_cluster")" = src ] && pass || fail "the cluster's first group leads" "$(flat "$tmp/src_cluster")"
if grep -q "d1" "$tmp/out"; then fail "start from device 0" "a group on d1 before any step"; else pass; fi
[ "$(probs | wc -l)" -eq 2 ] && pass || fail "the probability pane" "$(probs)"

explore "space space space"
cp "$tmp/out" "$tmp/three.txt"
has "three steps" "episode 1 step 3/18" "History 3 steps" "step 4/18: b1.proj" "why: its learned cluster" "step 3: policy"
explore "space space space a"
has "a shows the learned cluster" "Graph 18 groups, learned cluster" "the groups of the current group's learned cluster"
explore "space space space a a"
has "a again hides it" "the learned cluster hidden"

# C: the graph coloured by learned cluster, the comparison with the fixed groups; C again: by device
explore "C"
golden clusters
has "C colours by learned cluster" "Graph 18 groups," "learned clusters" "learned: " "clusters of 18 groups; cut " \
    "(fixed groups: 28.2 MB); cost balance " "(fixed: 4.1)"
explore "C C"
has "C again colours by device" "graph: groups coloured by device"
if grep -q "learned clusters" "$tmp/out"; then fail "C again" "the graph title still names the clusters"; else pass; fi
explore "space space space"
cp "$tmp/out" "$tmp/plain.txt"
explore "C space space space C"
same "C on and off leaves the episode" "$tmp/plain.txt"
# in the recording's colours: the group palette's own fills (those no device has) on the graph
colours() { grep -oE '48;5;(229|209|110|146|149|224|139|194|227)m' "$tmp/r.cast" | wc -l; }
explore "space" --record r.cast
expect_rc "record without C" 0 && pass
by_device=$(colours)
explore "space C" --record r.cast
expect_rc "record with C" 0 && pass
by_cluster=$(colours)
[ "$by_device" -eq 0 ] && [ "$by_cluster" -gt 0 ] && pass ||
    fail "the learned clusters in the group palette" "group fills: $by_device by device, $by_cluster by cluster"
cmd="placeto explore $g --headless --keys C"
(cd "$tmp" && timeout "$run_limit" $wrap "$absprog" explore "$absg" --headless --keys "C" --size 100x30) \
    > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
has "C with a Placeto policy" "graph colours by learned cluster apply to an hsdag policy only (this is a placeto policy)"

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

# an override of the cluster's first group (src, step 1) steers the whole
# cluster: its later groups follow, to either device
for dev in 0 1; do
    explore "$dev f s q" --save "steer$dev.json"
    expect_rc "override src to d$dev and finish" 0 && pass
    pycheck "the cluster follows src to d$dev" '
import json, sys
d = json.load(open(sys.argv[1]))
dev = int(sys.argv[2])
members = open(sys.argv[3]).read().split()
assert d["history"][0]["actor"] == "user" and d["history"][0]["group"] == "src", d["history"][0]
wrong = [m for m in members if d["placement"][m] != dev]
assert not wrong, (wrong, d["placement"])
follow = [h for h in d["history"][1:] if h["group"] in members]
assert follow and all(h["actor"] == "policy" for h in follow), follow
' "$tmp/steer$dev.json" "$dev" "$tmp/src_cluster"
done
explore "1"
has "the override of src takes its step" "(this step)" "the policy goes on with" "episode 1 step 1/18"

# greedy, finish, a new episode
explore "m f"
has "greedy to the end" "finished the episode in 18 steps" "step 18/18" "episode complete"
explore "f e y"
has "a new episode from device 0" "episode 2 step 0/18" "everything on device 0"

# what does not apply says so
explore "T"
has "training refused" "background training (placeto train --agent hsdag trains one)" \
    "does not apply to an hsdag policy"
explore "B"
has "baseline start refused" "starting from a baseline's placement does not apply to an hsdag policy"
cmd="placeto demo $g --policy hsdag.json --headless --keys 'space space'"
(cd "$tmp" && timeout "$run_limit" $wrap "$absprog" demo "$absg" --policy hsdag.json --headless --keys "space space" \
    --size 110x34) > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
has "the tour's feature rows" "Tour 3/13" "these feature rows are Placeto's and do not apply to the hsdag policy"

# save, then resume: the same screen, and stepping on the same episode; replay
explore "space space 1 space s space space c" --save ep.json
cp "$tmp/out" "$tmp/straight.txt"
explore "space space 1 space s q" --save ep.json
expect_rc "save" 0 && pass
pycheck "hsdag episode file" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["policy"]["path"].endswith("hsdag.json"), d["policy"]
assert d["config"]["init"] == "device0", d["config"]
assert [h["actor"] for h in d["history"]] == ["policy", "policy", "user", "policy"], d["history"]
assert all(len(h["probs"]) == 2 for h in d["history"] if h["actor"] == "policy"), d["history"]
' "$tmp/ep.json"
in_tmp explore --resume ep.json --headless --keys "space space" --size 100x30
if expect_rc "resume" 0; then
    if diff <(head -n 29 "$tmp/straight.txt" | sed 's/ | unsaved//') <(head -n 29 "$tmp/out" | sed 's/ | unsaved//') \
        > "$tmp/diff"; then pass; else fail "resume reproduces the screen" "$(head -c 400 "$tmp/diff")"; fi
fi
in_tmp explore --resume ep.json --headless --keys "C" --size 100x30
has "C after resume" "learned: " "(fixed groups: 28.2 MB)"
in_tmp explore --replay ep.json --headless --keys "space space space left" --size 100x30
has "replay" "placeto replay" "replay 2/4, back over: you moved b1.relu" "hsdag policy"

# errors: a missing, a corrupt and a truncated hsdag policy name the file
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
explore_err "missing hsdag policy" nope.json "nope.json"
head -c 1500 "$tmp/hsdag.json" > "$tmp/trunc.json"
explore_err "truncated hsdag policy" trunc.json "trunc.json"
"$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
del d["architecture"]["min_clusters"]
json.dump(d, open(sys.argv[2], "w"))' "$tmp/hsdag.json" "$tmp/nofloor.json"
explore_err "hsdag policy without min_clusters" nofloor.json "nofloor.json"
grep -q "min_clusters" "$tmp/err" && pass || fail "hsdag policy without min_clusters" "the field is not named"
"$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["parameters"] = {}
json.dump(d, open(sys.argv[2], "w"))' "$tmp/hsdag.json" "$tmp/noparams.json"
explore_err "hsdag policy without weights" noparams.json "noparams.json"
# a policy for other devices
run train "$g" --agent hsdag --devices 3 --hidden 8 --steps 2 --episodes 1 --seed 1 -o "$tmp/hsdag3.json"
expect_rc "train a 3-device hsdag policy" 0 && pass
explore_err "hsdag policy for other devices" hsdag3.json "hsdag3.json: the policy is for 3 devices" --devices 2
in_tmp explore --resume ep.json --policy hsdag3.json --headless --keys space
if expect_rc "a 2-device episode with a 3-device hsdag policy" 1; then
    grep -q "hsdag3.json: the hsdag policy is for 3 devices but the cluster has 2" "$tmp/err" && pass ||
        fail "a 2-device episode with a 3-device hsdag policy" "unclear: $(flat "$tmp/err")"
fi
# a Placeto episode (a random start) resumed with the hsdag policy is refused
run explore "$g" --policy graphs/policies/resnet18_2.json --devices 2 --headless --keys "space s" --save "$tmp/placeto_ep.json"
expect_rc "save a Placeto episode" 0 && pass
in_tmp explore --resume placeto_ep.json --policy hsdag.json --headless --keys space
if expect_rc "a Placeto episode with the hsdag policy" 1; then
    if grep -q "placeto_ep.json: cannot be stepped by the hsdag policy hsdag.json: an hsdag episode" "$tmp/err"; then
        pass
    else
        fail "a Placeto episode with the hsdag policy" "unclear: $(flat "$tmp/err")"
    fi
fi

echo "hsdagexplore: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
