#!/usr/bin/env bash
# Limits that hold whatever the input: a file's counters stay within what a
# file can hold (a run continues only from 2^52, so what it writes reads
# back), Graphviz exports under a file-size limit or a full device fail with
# the file and the reason and leave no temporary file. Prints
# "limits: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

g=graphs/toy/crown.json

# ------------------------------------------------ counters at 2^53
run train "$g" --episodes 2 -o "$tmp/pol.json"
expect_rc "a policy to edit" 0 && pass
"$py" - "$tmp" << 'EOF'
import re, shutil, sys
d = sys.argv[1]
s = open(d + "/pol.json").read()
open(d + "/pol53.json", "w").write(re.sub(r'"episodes": *\d+', '"episodes": 9007199254740992', s, count=1))
open(d + "/pol52.json", "w").write(re.sub(r'"episodes": *\d+', '"episodes": 4503599627370496', s, count=1))
# the checkpoint names the episode count of its policy file
c = open(d + "/pol.ckpt.json").read()
open(d + "/pol53.ckpt.json", "w").write(re.sub(r'"episodes": *\d+', '"episodes": 9007199254740992', c, count=1))
open(d + "/pol52.ckpt.json", "w").write(re.sub(r'"episodes": *\d+', '"episodes": 4503599627370496', c, count=1))
EOF
cp "$tmp/pol53.json" "$tmp/pol53.before"
run train "$g" --episodes 1 --resume "$tmp/pol53.json"
if expect_rc "resume a policy at 2^53" 1; then
    if grep -q "training.episodes is 9007199254740992, past 2^52" "$tmp/err"; then pass
    else fail "resume at 2^53: the field named" "$(flat "$tmp/err")"; fi
    if cmp -s "$tmp/pol53.json" "$tmp/pol53.before"; then pass; else fail "resume at 2^53: the file untouched" "changed"; fi
fi
run place "$g" --policy "$tmp/pol53.json"
expect_rc "a policy at 2^53 still places" 0 && pass
# at 2^52 a run continues, and what it writes reads back
run train "$g" --episodes 1 --resume "$tmp/pol52.json" -o "$tmp/pol52b.json"
if expect_rc "resume a policy at 2^52" 0; then
    run train "$g" --episodes 1 --resume "$tmp/pol52b.json" -o "$tmp/pol52c.json"
    if [ "$rc" -eq 1 ] && grep -q "training.episodes is 4503599627370497" "$tmp/err"; then pass
    else fail "past 2^52: refused with the count" "rc $rc: $(flat "$tmp/err")"; fi
    run place "$g" --policy "$tmp/pol52b.json"
    expect_rc "what a run at 2^52 wrote reads back" 0 && pass
fi
run explore "$g" --headless --keys "space space s" --save "$tmp/ep.json"
expect_rc "an episode to edit" 0 && pass
sed -E 's/"simulations": *[0-9]+/"simulations": 9007199254740992/' "$tmp/ep.json" > "$tmp/ep53.json"
run explore --resume "$tmp/ep53.json" --headless --keys space
if expect_rc "resume an episode at 2^53" 1; then
    if grep -q "simulations is 9007199254740992, past 2^52" "$tmp/err"; then pass
    else fail "episode at 2^53: the field named" "$(flat "$tmp/err")"; fi
fi

# ------------------------------------------------ Graphviz exports that cannot be written
run place graphs/resnet18.json --method heft -o "$tmp/h.json"
absprog=$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog")
for fmt in svg png dot; do
    cmd="(ulimit -f 8; placeto export graphs/resnet18.json --placement h.json --$fmt big.$fmt)"
    (ulimit -f 8; cd "$tmp" && $wrap "$absprog" export "$OLDPWD/graphs/resnet18.json" --placement h.json --$fmt big.$fmt) \
        > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if expect_rc "export --$fmt past a file-size limit" 1; then
        if grep -q "big.$fmt: .*File too large" "$tmp/err"; then pass
        else fail "export --$fmt past a file-size limit: the file and the reason" "$(flat "$tmp/err")"; fi
        if ! ls "$tmp" | grep -q "big.$fmt"; then pass
        else fail "export --$fmt past a file-size limit: nothing left" "$(ls "$tmp" | grep big)"; fi
    fi
done
# a private full device (as /dev/full, 1:7), so that a build that replaced
# its output path would replace only this node, never the machine's
if [ "$(id -u)" = 0 ] && mknod -m 666 "$tmp/full" c 1 7 2> /dev/null; then
    run export graphs/resnet18.json --placement "$tmp/h.json" --svg "$tmp/full"
    if expect_rc "export --svg to a full device" 1; then
        if grep -q "full: .*No space left" "$tmp/err"; then pass
        else fail "export --svg to a full device: the reason" "$(flat "$tmp/err")"; fi
        if [ -c "$tmp/full" ]; then pass; else fail "the full device stays a device" "$(ls -la "$tmp/full")"; fi
    fi
fi

# ------------------------------------------------ grouping in near-linear time
# A star (one op feeding all the others) of 300 000 ops, and a forest of 3 000
# such fans, group within the run limit (20 s; about 2 s on a busy 2-core
# machine). Grouping once took a round per merge on such shapes: about 55 s
# for the star. Not under valgrind (too slow there for any 300 000-op graph).
case "$wrap" in *valgrind*) ;; *)
"$py" - "$tmp" << 'EOF'
import sys
d = sys.argv[1]
def star(path, n, hubs):
    with open(path, "w") as f:
        f.write('{"format": "placeto-graph", "version": 1, "name": "star", "nodes": [')
        f.write(",".join('{"name": "h%d", "op": "input", "cost_us": 5.0, "output_bytes": 1024}' % k for k in range(hubs)))
        for i in range(n - hubs):
            f.write(',{"name": "l%d", "op": "relu", "cost_us": %d.0, "output_bytes": 1024}' % (i, 1 + i % 7))
        f.write('], "edges": [')
        f.write(",".join('{"src": "h%d", "dst": "l%d"}' % (i % hubs, i) for i in range(n - hubs)))
        f.write("]}")
star(d + "/star.json", 300000, 1)
star(d + "/forest.json", 300000, 3000)
EOF
for s in star forest; do
    run info "$tmp/$s.json"
    if expect_rc "a 300 000-op $s groups within $run_limit s" 0; then
        if grep -qE "^groups +200 \(target 200\)" "$tmp/out"; then pass
        else fail "a 300 000-op $s: 200 groups" "$(flat "$tmp/out")"; fi
    fi
done
;; esac

echo "limits: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
