#!/usr/bin/env bash
# What is at an output's path decides how it is written, and one path has one
# role per command: a symlink is followed (its target replaced, the link kept),
# a regular file keeps its mode, a FIFO or a device is written through, "-" is
# standard output (and standard input for the files a command reads), an empty
# name is an error; two outputs, or an output and an input, naming one file are
# refused before anything is written; no file is derived from a name that is
# not a regular file (train -o -, -o /dev/null, a FIFO: the policy once, no
# checkpoint, --checkpoint-every refused). Prints "io: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

g=graphs/toy/crown.json
absprog=$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog")
absg=$(pwd)/$g

# ------------------------------------------------ a symlink is followed
run place "$g" --method heft -o "$tmp/target.json"
expect_rc "place to a file" 0 && pass
ln -s target.json "$tmp/link.json"
run place "$g" --method m-topo -o "$tmp/link.json"
if expect_rc "place through a symlink" 0; then
    if [ -L "$tmp/link.json" ] && [ "$(readlink "$tmp/link.json")" = target.json ]; then pass
    else fail "the symlink stays a symlink" "$(ls -l "$tmp/link.json")"; fi
    if grep -q '"format": "placeto-placement"' "$tmp/target.json" && cmp -s "$tmp/link.json" "$tmp/target.json" &&
        ! ls "$tmp" | grep -q '\.tmp\.'; then pass
    else fail "the symlink's target replaced" "$(ls -la "$tmp")"; fi
fi
# a dangling link: its target is created
ln -s made.json "$tmp/dangling.json"
run place "$g" --method heft -o "$tmp/dangling.json"
if expect_rc "place through a dangling symlink" 0; then
    if [ -L "$tmp/dangling.json" ] && [ -f "$tmp/made.json" ]; then pass
    else fail "a dangling symlink's target is created" "$(ls -la "$tmp")"; fi
fi
# a link to a link, relative in another directory
mkdir -p "$tmp/d1"
ln -s ../target.json "$tmp/d1/l1.json"
ln -s d1/l1.json "$tmp/l2.json"
run place "$g" --method single -o "$tmp/l2.json"
if expect_rc "a chain of symlinks" 0; then
    if [ -L "$tmp/l2.json" ] && [ -L "$tmp/d1/l1.json" ] && grep -q '"format"' "$tmp/target.json" &&
        cmp -s "$tmp/l2.json" "$tmp/target.json"; then pass
    else fail "a chain of symlinks: the last target replaced" "$(ls -laR "$tmp")"; fi
fi

# ------------------------------------------------ a regular file keeps its mode
run place "$g" --method heft -o "$tmp/mode.json"
chmod 0600 "$tmp/mode.json"
run place "$g" --method m-topo -o "$tmp/mode.json"
if expect_rc "replace a 0600 file" 0; then
    m=$(stat -c %a "$tmp/mode.json")
    if [ "$m" = 600 ]; then pass; else fail "a 0600 output stays 0600" "mode $m"; fi
fi
chmod 0640 "$tmp/mode.json"
run simulate "$g" --placement "$tmp/target.json" --trace "$tmp/mode.json"
if expect_rc "a trace over a 0640 file" 0; then
    m=$(stat -c %a "$tmp/mode.json")
    if [ "$m" = 640 ]; then pass; else fail "a 0640 trace stays 0640" "mode $m"; fi
fi

# ------------------------------------------------ a FIFO is written through
mkfifo "$tmp/fifo"
timeout "$run_limit" cat "$tmp/fifo" > "$tmp/from_fifo" & # a replaced FIFO would leave it waiting
reader=$!
run place "$g" --method heft -o "$tmp/fifo"
wait "$reader"
if expect_rc "place into a FIFO" 0; then
    if [ -p "$tmp/fifo" ] && grep -q '"format": "placeto-placement"' "$tmp/from_fifo"; then pass
    else fail "the FIFO stays a FIFO and its reader gets the placement" "$(ls -la "$tmp/fifo" "$tmp/from_fifo")"; fi
fi

# ------------------------------------------------ a character device is written through
if [ "$(id -u)" = 0 ] && mknod "$tmp/null" c 1 3 2> /dev/null; then
    run simulate "$g" --placement "$tmp/target.json" --trace "$tmp/null" --dot "$tmp/null"
    if expect_rc "two outputs into one character device" 0; then
        if [ -c "$tmp/null" ]; then pass; else fail "the device stays a device" "$(ls -la "$tmp/null")"; fi
    fi
else
    run simulate "$g" --placement "$tmp/target.json" --trace /dev/null --dot /dev/null
    if expect_rc "two outputs into /dev/null" 0; then
        if [ -c /dev/null ]; then pass; else fail "/dev/null stays a device" "$(ls -la /dev/null)"; fi
    fi
fi

# ------------------------------------------------ - is standard output and standard input
had_dash=0
[ -e ./- ] && had_dash=1
run place "$g" --method heft -o -
if expect_rc "place -o -" 0; then
    pycheck "-o -: standard output holds the placement alone" \
        'import json,sys; d=json.load(open(sys.argv[1])); assert d["format"]=="placeto-placement"' "$tmp/out"
    if { [ "$had_dash" = 1 ] || [ ! -e ./- ]; } && [ ! -e "$tmp/-" ]; then pass
    else fail "-o - writes no file named -" "a file '-' exists"; fi
    if grep -q "runtime" "$tmp/err"; then pass; else fail "-o -: the report goes to standard error" "none"; fi
fi
cmd="placeto info - < $g"
timeout "$run_limit" $wrap "$prog" info - < "$g" > "$tmp/out" 2> "$tmp/err"
rc=$?
if expect_rc "info - reads standard input" 0; then
    if grep -q "crown" "$tmp/out"; then pass; else fail "info -: the graph read" "no graph name"; fi
fi
cmd="placeto simulate G --placement - < placement"
timeout "$run_limit" $wrap "$prog" simulate "$g" --placement - < "$tmp/target.json" > "$tmp/out" 2> "$tmp/err"
rc=$?
expect_rc "simulate --placement - reads standard input" 0 && pass
cmd="placeto simulate - --placement - < graph"
timeout "$run_limit" $wrap "$prog" simulate - --placement - < "$g" > "$tmp/out" 2> "$tmp/err"
rc=$?
if expect_rc "standard input read twice" 2; then
    if grep -q "standard input" "$tmp/err"; then pass; else fail "standard input read twice: says so" "none"; fi
fi

# ------------------------------------------------ bad names
usage_error "place -o ''" place "$g" --method heft -o ""
if grep -q "empty" "$tmp/err" && ! grep -q "placeto: : " "$tmp/err"; then pass
else fail "-o '': names the problem" "$(flat "$tmp/err")"; fi
mkdir -p "$tmp/adir"
run place "$g" --method heft -o "$tmp/adir"
if [ "$rc" -ne 0 ] && grep -q "directory" "$tmp/err" && [ -d "$tmp/adir" ]; then pass
else fail "-o DIR: refused, the directory kept" "rc $rc"; fi

# ------------------------------------------------ one path, one role
cp "$tmp/target.json" "$tmp/keep.json"
usage_error "simulate --trace y --dot y" simulate "$g" --placement "$tmp/target.json" --trace "$tmp/y" --dot "$tmp/y"
if [ ! -e "$tmp/y" ]; then pass; else fail "--trace y --dot y: nothing written" "$tmp/y exists"; fi
usage_error "train -o p --curve p" train "$g" --episodes 1 -o "$tmp/p.json" --curve "$tmp/p.json"
usage_error "train --resume p --curve p" train "$g" --episodes 1 --resume "$tmp/keep.json" --curve "$tmp/keep.json"
if cmp -s "$tmp/keep.json" "$tmp/target.json"; then pass; else fail "--resume p --curve p: p untouched" "changed"; fi
usage_error "explore --resume e --record e" explore "$g" --headless --resume "$tmp/keep.json" --record "$tmp/keep.json"
usage_error "explore --save x --record x" explore "$g" --headless --save "$tmp/x.json" --record "$tmp/x.json"
usage_error "explore --save x --frames x" explore "$g" --headless --save "$tmp/x.json" --frames "$tmp/x.json"
usage_error "place -o GRAPH" place "$g" --method heft -o "$g"
# the same file under two names: a symlink and its target, a path with ..
usage_error "two outputs, one through a symlink" simulate "$g" --placement "$tmp/keep.json" \
    --trace "$tmp/target.json" --dot "$tmp/link.json"
usage_error "two new outputs, one through .." simulate "$g" --placement "$tmp/keep.json" \
    --trace "$tmp/new.out" --dot "$tmp/d1/../new.out"
usage_error "two outputs on standard output" simulate "$g" --placement "$tmp/keep.json" --trace - --dot -
# what stays allowed: an episode or a policy saved back to where it came from
run train "$g" --episodes 1 -o "$tmp/pol.json"
run train "$g" --episodes 1 --resume "$tmp/pol.json" -o "$tmp/pol.json"
expect_rc "train --resume p -o p (saved back)" 0 && pass

# ------------------------------------------------ the files named inside an input, and derived ones
# an episode names its graph and policy, train derives checkpoints from
# --output and --resume (and -o's default), a directory GRAPH is its .json
# files, --json prints on standard output: all are the command's files
nm=$tmp/nm
mkdir -p "$nm/fam"
cp "$g" "$nm/g.json"
cp "$g" "$nm/model.ckpt.json"
cp "$g" "$nm/fam/a.json"
cp "$g" "$nm/policy.json"
cp graphs/clusters/cpu_gpu1.json "$nm/c.ckpt.json"
run train "$nm/g.json" --episodes 1 -o "$nm/pol.json"
expect_rc "a policy to name" 0 && pass
run explore "$nm/g.json" --headless --keys 'space s' --save "$nm/e.json"
expect_rc "an episode to name its graph" 0 && pass
run explore "$nm/g.json" --policy "$nm/pol.json" --headless --keys 'space s' --save "$nm/ep.json"
expect_rc "an episode to name its policy" 0 && pass
for f in "$nm"/*.json "$nm/fam/a.json"; do cp "$f" "$f.orig"; done
# refused NAME PATTERN ARGS...: a usage error whose message matches PATTERN, every input unchanged (then
# restored, so that each check stands alone)
refused() {
    local name=$1 pat=$2 f bad=
    shift 2
    usage_error "$name" "$@"
    grep -q -- "$pat" "$tmp/err" && pass || fail "$name: the message names both files" "$(flat "$tmp/err")"
    for f in "$nm"/*.orig "$nm"/fam/*.orig; do
        cmp -s "$f" "${f%.orig}" || { bad="$bad ${f%.orig}"; cp "$f" "${f%.orig}"; }
    done
    [ -z "$bad" ] && pass || fail "$name: the inputs unchanged" "changed:$bad"
}
epg="the graph $nm/g.json that episode $nm/e.json names"
epp="the policy $nm/pol.json that episode $nm/ep.json names"
refused "simulate EPISODE --trace its graph" "^placeto: simulate: --trace $nm/g.json would overwrite $epg" \
    simulate "$nm/e.json" --trace "$nm/g.json"
refused "simulate EPISODE --dot its policy" "--dot $nm/pol.json would overwrite $epp" \
    simulate "$nm/ep.json" --dot "$nm/pol.json"
refused "export EPISODE --dot its graph" "--dot $nm/g.json would overwrite $epg" export "$nm/e.json" --dot "$nm/g.json"
refused "export --placement EPISODE --svg its policy" "--svg $nm/pol.json would overwrite $epp" \
    export "$nm/g.json" --placement "$nm/ep.json" --svg "$nm/pol.json"
refused "explore --resume EPISODE --slide its graph" "--slide $nm/g.json would overwrite $epg" \
    explore --resume "$nm/e.json" --headless --slide "$nm/g.json"
refused "explore --resume EPISODE --record its policy" "--record $nm/pol.json would overwrite $epp" \
    explore --resume "$nm/ep.json" --headless --record "$nm/pol.json"
refused "explore --resume EPISODE --dump its graph" "--dump $nm/g.json would overwrite $epg" \
    explore --resume "$nm/e.json" --headless --dump "$nm/g.json"
refused "explore --resume EPISODE --frames its graph" "--frames $nm/g.json would overwrite $epg" \
    explore --resume "$nm/e.json" --headless --frames "$nm/g.json"
refused "explore --resume EPISODE --save its graph" "--save $nm/g.json would overwrite $epg" \
    explore --resume "$nm/e.json" --headless --keys 's' --save "$nm/g.json"
refused "explore --replay EPISODE --dump its policy" "--dump $nm/pol.json would overwrite $epp" \
    explore --replay "$nm/ep.json" --headless --dump "$nm/pol.json"
refused "train X.ckpt.json -o X.json" "the checkpoint $nm/model.ckpt.json of --output $nm/model.json would overwrite the input GRAPH $nm/model.ckpt.json" \
    train "$nm/model.ckpt.json" --episodes 1 -o "$nm/model.json"
[ ! -e "$nm/model.json" ] && pass || fail "train X.ckpt.json -o X.json: no policy written" "$nm/model.json exists"
refused "train -o p --curve p's checkpoint" "--curve $nm/p.ckpt.json and the checkpoint $nm/p.ckpt.json of --output $nm/p.json name one file" \
    train "$nm/g.json" --episodes 1 -o "$nm/p.json" --curve "$nm/p.ckpt.json"
[ ! -e "$nm/p.json" ] && [ ! -e "$nm/p.ckpt.json" ] && pass || fail "train --curve p.ckpt.json: nothing written" "$(ls "$nm" | tr "\n" " ")"
refused "train --resume p --curve p's checkpoint" "--curve $nm/pol.ckpt.json would overwrite the checkpoint $nm/pol.ckpt.json of --resume $nm/pol.json" \
    train "$nm/g.json" --episodes 1 --resume "$nm/pol.json" -o "$nm/p2.json" --curve "$nm/pol.ckpt.json"
refused "train --resume p -o p's checkpoint" "--output $nm/pol.ckpt.json would overwrite the checkpoint $nm/pol.ckpt.json of --resume $nm/pol.json" \
    train "$nm/g.json" --episodes 1 --resume "$nm/pol.json" -o "$nm/pol.ckpt.json"
refused "train --cluster X.ckpt.json -o X.json" "the checkpoint $nm/c.ckpt.json of --output $nm/c.json would overwrite the input --cluster $nm/c.ckpt.json" \
    train "$nm/g.json" --episodes 1 --cluster "$nm/c.ckpt.json" -o "$nm/c.json"
refused "train DIR -o DIR/graph.json" "--output $nm/fam/a.json would overwrite a graph of the directory GRAPH $nm/fam" \
    train "$nm/fam" --episodes 1 -o "$nm/fam/a.json"
cmd="(cd $nm && placeto train policy.json --episodes 1)" # -o's default, policy.json, is the graph
(cd "$nm" && timeout "$run_limit" $wrap "$absprog" train policy.json --episodes 1) > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
if expect_rc "train policy.json (the default -o)" 2; then
    grep -q "the default --output policy.json would overwrite the input GRAPH policy.json" "$tmp/err" && cmp -s "$nm/policy.json" "$g" &&
        pass || fail "train policy.json: refused, the graph kept" "$(flat "$tmp/err")"
fi
cp "$g" "$nm/policy.json"
# train --json prints its progress lines on standard output while it runs: not with the policy or the curve there
refused "train --json -o -" "^placeto: train: --json and --output - both use standard output" train "$nm/g.json" --episodes 1 --json -o -
refused "train --json --curve -" "--json and --curve - both use standard output" train "$nm/g.json" --episodes 1 --json --curve - -o "$nm/p3.json"
# the files a command picks itself: place --policy auto's bundled policy, the
# graph explore opens without GRAPH, the policy explore and demo pick
mkdir -p "$nm/data/policies"
cp graphs/resnet18.json "$nm/data/"
cp graphs/policies/lsearch.json graphs/policies/general_2.json "$nm/data/policies/"
for f in "$nm/data/resnet18.json" "$nm/data/policies/"*.json; do cp "$f" "$f.orig"; done
picked() { # NAME PATTERN ARGS...: refused with PLACETO_DATA=$nm/data, the bundled files unchanged
    local name=$1 pat=$2 f bad=
    shift 2
    PLACETO_DATA=$nm/data usage_error "$name" "$@"
    grep -q -- "$pat" "$tmp/err" && pass || fail "$name: the message names both files" "$(flat "$tmp/err")"
    for f in "$nm/data/"*.orig "$nm/data/policies/"*.orig; do
        cmp -s "$f" "${f%.orig}" || { bad="$bad ${f%.orig}"; cp "$f" "${f%.orig}"; }
    done
    [ -z "$bad" ] && pass || fail "$name: the bundled files unchanged" "changed:$bad"
}
picked "place --policy auto -o its policy" "--output $nm/data/policies/lsearch.json would overwrite the policy $nm/data/policies/lsearch.json that --policy auto picks" \
    place "$g" --policy auto -o "$nm/data/policies/lsearch.json"
picked "explore --dump its default graph" "--dump $nm/data/resnet18.json would overwrite the graph $nm/data/resnet18.json that explore opens without GRAPH" \
    explore --headless --dump "$nm/data/resnet18.json"
picked "explore --record its default policy" "--record $nm/data/policies/general_2.json would overwrite the policy $nm/data/policies/general_2.json that explore picks" \
    explore "$g" --headless --record "$nm/data/policies/general_2.json"
picked "demo --frames its default policy" "--frames $nm/data/policies/general_2.json would overwrite the policy $nm/data/policies/general_2.json that demo picks" \
    demo "$g" --headless --frames "$nm/data/policies/general_2.json"
# what stays allowed: an episode's own files read, outputs elsewhere; a policy saved back with its checkpoint
run simulate "$nm/ep.json" --trace "$nm/t.json" --dot /dev/null --svg /dev/null
expect_rc "simulate EPISODE --trace elsewhere" 0 && pass
run explore --resume "$nm/ep.json" --headless --keys 'space s' --save "$nm/ep.json" --dump "$nm/screen.txt"
expect_rc "explore --resume e --save e --dump elsewhere" 0 && pass
run train "$nm/g.json" --episodes 1 --resume "$nm/pol.json" --curve "$nm/curve.csv"
expect_rc "train --resume p (saved back, its checkpoint too)" 0 && pass
run train "$nm/g.json" --episodes 1 --json -o "$nm/p4.json"
expect_rc "train --json -o FILE" 0 && pycheck "train --json -o FILE: JSON lines" \
    'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' "$tmp/out"

# ------------------------------------------------ train into what is not a regular file
# the policy goes there once, at the end, and no checkpoint is derived from
# the name: none beside a device or a link to one, none named after "-"
one_policy() { # NAME FILE: FILE holds exactly one policy document
    if "$py" -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["format"] == "placeto-policy"' "$2" \
        2> /dev/null; then pass; else fail "$1" "not one policy document: $(head -c 200 "$2")"; fi
}
mkdir -p "$tmp/dash"
(cd "$tmp/dash" && timeout "$run_limit" $wrap "$absprog" train "$absg" --episodes 4 --checkpoint-every 1 \
    -o pol.json > /dev/null 2> /dev/null) # a regular file: the checkpoint beside it
[ -f "$tmp/dash/pol.ckpt.json" ] && pass || fail "a checkpoint beside a regular policy file" "$(ls "$tmp/dash")"
rm -f "$tmp/dash/"*
cmd="(cd $tmp/dash && placeto train $g --episodes 60 -o -)"
(cd "$tmp/dash" && timeout "$run_limit" $wrap "$absprog" train "$absg" --episodes 60 -o -) > "$tmp/out" 2> "$tmp/err"
rc=$?
if expect_rc "train -o -" 0; then
    one_policy "train -o -: one policy on standard output" "$tmp/out"
    [ -z "$(ls -A "$tmp/dash")" ] && pass || fail "train -o - writes no file (no ./-.ckpt.json)" "$(ls -A "$tmp/dash")"
    [ "$(grep -c "no checkpoint" "$tmp/err")" = 1 ] && pass || fail "train -o -: said once" "$(flat "$tmp/err")"
fi
ln -s /dev/null "$tmp/dash/null.json"
run train "$g" --episodes 2 -o "$tmp/dash/null.json"
if expect_rc "train -o a link to /dev/null" 0; then
    [ "$(ls -A "$tmp/dash")" = null.json ] && pass || fail "no checkpoint beside a link to /dev/null" "$(ls -A "$tmp/dash")"
    grep -q "goes to $tmp/dash/null.json once, when training ends, with no checkpoint" "$tmp/err" && pass ||
        fail "train -o a link to /dev/null: said" "$(flat "$tmp/err")"
fi
had=0
[ -e /dev/null.ckpt.json ] && had=1
run train "$g" --episodes 2 --agent lsched -o /dev/null
if expect_rc "train --agent lsched -o /dev/null" 0; then
    [ "$had" = 1 ] || [ ! -e /dev/null.ckpt.json ] && pass || { fail "no /dev/null.ckpt.json" "$(ls -la /dev/null.ckpt.json)"; rm -f /dev/null.ckpt.json; }
fi
rm -f "$tmp/dash/"*
mkfifo "$tmp/dash/fifo.json"
timeout "$run_limit" cat "$tmp/dash/fifo.json" > "$tmp/from_fifo" &
reader=$!
run train "$g" --episodes 60 -o "$tmp/dash/fifo.json"
wait "$reader"
if expect_rc "train into a FIFO" 0; then
    one_policy "train into a FIFO: its reader gets one policy" "$tmp/from_fifo"
    [ "$(ls -A "$tmp/dash")" = fifo.json ] && pass || fail "no checkpoint beside a FIFO" "$(ls -A "$tmp/dash")"
fi
run train "$g" --episodes 2 --checkpoint-every 1 -o -
expect_rc "train --checkpoint-every with -o -" 2 && {
    grep -q "^placeto: train: --checkpoint-every: the policy goes to standard output (-o -), not a regular file" "$tmp/err" &&
        [ ! -s "$tmp/out" ] && pass || fail "train --checkpoint-every -o -: the message" "$(flat "$tmp/err")"; }
run train "$g" --episodes 2 --checkpoint-every 1 -o /dev/null
expect_rc "train --checkpoint-every with -o /dev/null" 2 && {
    grep -q -- "--checkpoint-every: the policy goes to /dev/null, not a regular file" "$tmp/err" && pass ||
        fail "train --checkpoint-every -o /dev/null: the message" "$(flat "$tmp/err")"; }
[ "$had" = 1 ] || rm -f /dev/null.ckpt.json # what an older placeto run as root leaves in /dev
# nor is one read from such a name: --resume - ignores a ./-.ckpt.json
rm -f "$tmp/dash/"*
run train "$g" --episodes 1 -o "$tmp/dash/src.json"
echo "not a checkpoint" > "$tmp/dash/-.ckpt.json"
cmd="(cd $tmp/dash && placeto train $g --episodes 1 --resume - -o r.json < src.json)"
(cd "$tmp/dash" && timeout "$run_limit" $wrap "$absprog" train "$absg" --episodes 1 --resume - -o r.json < src.json) \
    > "$tmp/out" 2> "$tmp/err"
rc=$?
expect_rc "train --resume - reads no ./-.ckpt.json" 0 && {
    grep -q "^placeto: - has no checkpoint (not a regular file" "$tmp/err" && pass ||
        fail "train --resume -: says it has no checkpoint" "$(flat "$tmp/err")"; }

# ------------------------------------------------ the explorer's files do not clobber earlier runs
ex() { # DIR KEYS [OPTIONS...]: a headless explorer run in DIR
    local d=$1 k=$2
    shift 2
    cmd="(in $d) placeto explore --headless --keys '$k' $*"
    (cd "$d" && timeout "$run_limit" $wrap "$absprog" explore --headless --keys "$k" --size 100x30 "$@") \
        > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
}
mkdir -p "$tmp/ex"
ex "$tmp/ex" "T bs bs 3 enter wait space s" "$absg" --save first.json
expect_rc "train in the explorer, save the episode" 0 && pass
ex "$tmp/ex" "T bs bs 2 enter wait" "$absg"
if expect_rc "train again in a later run" 0; then
    if [ -s "$tmp/ex/crown.trained-policy.json" ] && [ -s "$tmp/ex/crown.trained-policy-2.json" ]; then pass
    else fail "the second training gets its own file" "$(ls "$tmp/ex")"; fi
fi
ex "$tmp/ex" "space" --resume first.json
if expect_rc "the first episode still resumes" 0; then
    if grep -q "policy crown.trained-policy.json" "$tmp/out"; then pass
    else fail "resumed with its own trained policy" "$(flat "$tmp/out")"; fi
fi
# an earlier session's autosave is kept
echo "earlier" > "$tmp/ex/crown.episode.json.autosave"
ex "$tmp/ex" "space sigint" "$absg"
if [ "$rc" -eq 130 ] && [ "$(cat "$tmp/ex/crown.episode.json.autosave")" = earlier ] &&
    [ -s "$tmp/ex/crown.episode.json.autosave-2" ]; then pass
else fail "an earlier autosave is kept, this one goes beside it" "rc $rc; $(ls "$tmp/ex")"; fi
if grep -q "crown.episode.json.autosave-2" "$tmp/err"; then pass; else fail "the autosave's name said" "$(flat "$tmp/err")"; fi

echo "io: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
