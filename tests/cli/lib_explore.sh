# Shared by the explorer's command-line test scripts (cli_explore*.sh),
# sourced from the repository root after lib_cli.sh with g set (the graph)
# and, in the scripts of the learned single-pass placers (rnn, gdp, hsdag),
# agent (its name) and policy (its policy file in $tmp). The explorer runs
# headless: a key script in, the last screen in $tmp/out.
absprog=$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog")
absg=$(pwd)/$g

# explore KEYS [OPTIONS...]: a headless 100x30 run on $g with $policy, in $tmp
explore() {
    local keys=$1
    shift
    cmd="placeto explore $g --policy $policy --headless --keys '$keys' $*"
    # shellcheck disable=SC2086  # PLACETO_WRAP is a command line to split
    (cd "$tmp" && timeout "$run_limit" $wrap "$absprog" explore "$absg" --policy "$policy" --headless \
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
    # the status line (the first two rows) and the message (the last three)
    # wrap: they are also searched joined
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

# golden NAME: the whole last screen equals tests/data/golden/explore_NAME.txt
# (PLACETO_UPDATE_GOLDEN=1 writes it)
golden() {
    expect_rc "golden $1" 0 || return
    golden_file "$1" "tests/data/golden/explore_$1.txt" "$tmp/out" "the screen"
}

# the Policy pane's probability rows (the device bars)
probs() { grep -E '^\|.*\|\|[ *][01] ' "$tmp/out" | sed 's/.*||//'; }

# ---- what every learned single-pass placer's script checks alike ----

# undo and redo give the same screens ($tmp/three.txt: the screen after three steps)
check_undo_redo() {
    explore "space space space space u"
    has "undo" "undo: a kept step: b1.proj stays on /GPU:0" "History 3 steps, redo available" "step 4/18: b1.proj"
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
}

# A_NAME ("an rnn"): greedy to the end, a new episode; background training,
# a baseline start and the tour's feature rows say they do not apply
check_not_placeto() {
    local a_name=$1
    explore "m f"
    has "greedy to the end" "finished the episode in 18 steps" "step 18/18" "episode complete"
    explore "f e y"
    has "a new episode from device 0" "episode 2 step 0/18" "everything on device 0"
    explore "T"
    has "training refused" "background training (placeto train --agent $agent trains one)" \
        "does not apply to $a_name policy"
    explore "B"
    has "baseline start refused" "starting from a baseline's placement does not apply to $a_name policy"
    cmd="placeto demo $g --policy $policy --headless --keys 'space space space'"
    (cd "$tmp" && timeout "$run_limit" $wrap "$absprog" demo "$absg" --policy "$policy" --headless \
        --keys "space space space" --size 110x34) > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
    has "the tour's feature rows" "Tour 4/18" "these feature rows are Placeto's and do not apply to the $agent policy"
}

# KEYS REPLAYED: two policy steps, then KEYS (a user's entry), a step and a
# save to $tmp/ep.json; resuming it gives the same screen, and its replay
# back over the user's entry names REPLAYED ("you moved src")
check_save_resume() {
    local keys=$1 replayed=$2
    explore "space space $keys space s space space c" --save ep.json
    cp "$tmp/out" "$tmp/straight.txt"
    explore "space space $keys space s q" --save ep.json
    expect_rc "save" 0 && pass
    pycheck "$agent episode file" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["policy"]["path"].endswith(sys.argv[2]), d["policy"]
assert d["config"]["init"] == "device0", d["config"]
assert [h["actor"] for h in d["history"]] == ["policy", "policy", "user", "policy"], d["history"]
assert all(len(h["probs"]) == 2 for h in d["history"] if h["actor"] == "policy"), d["history"]
' "$tmp/ep.json" "$policy"
    in_tmp explore --resume ep.json --headless --keys "space space" --size 100x30
    if expect_rc "resume" 0; then
        if diff <(head -n 29 "$tmp/straight.txt" | sed 's/ | unsaved//') \
            <(head -n 29 "$tmp/out" | sed 's/ | unsaved//') > "$tmp/diff"; then
            pass
        else
            fail "resume reproduces the screen" "$(head -c 400 "$tmp/diff")"
        fi
    fi
    in_tmp explore --replay ep.json --headless --keys "space space space left" --size 100x30
    has "replay" "placeto replay" "replay 2/4, back over: $replayed" "$agent policy"
}

# explore_err NAME POLICY PATTERN [OPTIONS...]: exit status 1 before the
# screen is drawn, PATTERN on stderr
explore_err() {
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

# FIELD BYTES: a missing policy, one cut after BYTES bytes, one without the
# architecture's FIELD (named) and one without weights are errors naming the file
check_bad_policies() {
    local field=$1 bytes=$2
    explore_err "missing $agent policy" nope.json "nope.json"
    head -c "$bytes" "$tmp/$policy" > "$tmp/trunc.json"
    explore_err "truncated $agent policy" trunc.json "trunc.json"
    "$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
del d["architecture"][sys.argv[3]]
json.dump(d, open(sys.argv[2], "w"))' "$tmp/$policy" "$tmp/nofield.json" "$field"
    explore_err "$agent policy without $field" nofield.json "nofield.json"
    grep -q "$field" "$tmp/err" && pass || fail "$agent policy without $field" "the field is not named"
    "$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["parameters"] = {}
json.dump(d, open(sys.argv[2], "w"))' "$tmp/$policy" "$tmp/noparams.json"
    explore_err "$agent policy without weights" noparams.json "noparams.json"
}

# A_NAME POLICY3: POLICY3 (in $tmp) is for 3 devices: refused on 2 devices
# and for the 2-device $tmp/ep.json; a Placeto episode (a random start)
# resumed with $policy is refused
check_refused_episodes() {
    local a_name=$1 pol3=$2
    explore_err "$agent policy for other devices" "$pol3" "$pol3: the policy is for 3 devices" --devices 2
    in_tmp explore --resume ep.json --policy "$pol3" --headless --keys space
    if expect_rc "a 2-device episode with a 3-device $agent policy" 1; then
        grep -q "$pol3: the $agent policy is for 3 devices but the cluster has 2" "$tmp/err" && pass ||
            fail "a 2-device episode with a 3-device $agent policy" "unclear: $(flat "$tmp/err")"
    fi
    run explore "$g" --policy graphs/policies/resnet18_2.json --devices 2 --headless --keys "space s" \
        --save "$tmp/placeto_ep.json"
    expect_rc "save a Placeto episode" 0 && pass
    in_tmp explore --resume placeto_ep.json --policy "$policy" --headless --keys space
    if expect_rc "a Placeto episode with the $agent policy" 1; then
        if grep -q "placeto_ep.json: cannot be stepped by the $agent policy $policy: $a_name episode" "$tmp/err"; then
            pass
        else
            fail "a Placeto episode with the $agent policy" "unclear: $(flat "$tmp/err")"
        fi
    fi
}

# the guided tour's runs take long under valgrind (a tour places its graph
# with several policies and races them)
tour_limit=120
case "$wrap" in *valgrind*) tour_limit=1800 ;; esac

# tour NAME SIZE ARGS...: a headless tour in $tmp, the last screen in $tmp/NAME
tour() {
    local name=$1 size=$2
    shift 2
    cmd="placeto demo --headless --size $size $*"
    # shellcheck disable=SC2086
    (cd "$tmp" && timeout "$tour_limit" $wrap "$absprog" demo --headless --size "$size" "$@") \
        > "$tmp/$name" 2> "$tmp/err" < /dev/null
    rc=$?
    cp "$tmp/$name" "$tmp/out"
}
