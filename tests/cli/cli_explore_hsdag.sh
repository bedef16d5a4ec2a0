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
agent=hsdag
policy=hsdag.json
# shellcheck source=tests/cli/lib_explore.sh
. tests/cli/lib_explore.sh

# the groups the why lists
members() { grep -E '^\|.*\|\| *[0-9.]+% [>+.] [a-z]' "$tmp/out" | sed -E 's/.*% [>+.] ([^ ]+).*/\1/'; }

run train "$g" --agent hsdag --devices 2 --hidden 8 --steps 4 --episodes 5 --seed 1 -o "$tmp/hsdag.json"
expect_rc "train a small hsdag policy" 0 && pass

explore ""
golden hsdag_start
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
golden hsdag_clusters
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
in_tmp explore "$absg" --headless --keys C --size 100x30 # a Placeto policy
has "C with a Placeto policy" "graph colours by learned cluster apply to an hsdag policy only (this is a placeto policy)"

# undo and redo: the same screens
check_undo_redo

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

# greedy, a new episode; what does not apply says so
check_not_placeto "an hsdag"

# save, then resume: the same screen, and stepping on the same episode; replay
check_save_resume 1 "you moved b1.relu"
in_tmp explore --resume ep.json --headless --keys "C" --size 100x30
has "C after resume" "learned: " "(fixed groups: 28.2 MB)"

# errors: a missing, a corrupt and a truncated hsdag policy name the file; a
# policy for other devices and a Placeto episode are refused
check_bad_policies min_clusters 1500
run train "$g" --agent hsdag --devices 3 --hidden 8 --steps 2 --episodes 1 --seed 1 -o "$tmp/hsdag3.json"
expect_rc "train a 3-device hsdag policy" 0 && pass
check_refused_episodes "an hsdag" hsdag3.json

echo "hsdagexplore: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
