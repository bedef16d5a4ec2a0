#!/usr/bin/env bash
# Faults and extremes: a save killed with SIGKILL at random moments leaves
# the old file or the new one, never a torn one; an unwritable place or a
# full disk gives a clear error and keeps the episode; mismatched or
# corrupted policy and episode files are refused; every extreme-but-valid
# graph opens in the explorer (64 devices, one node, zero costs, huge sizes,
# long names, 3 000 ops) and a 100 000-op graph loads, groups, simulates,
# trains a step and opens. Prints "hardening: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

absprog=$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog")
slow=0
case "$wrap" in *valgrind*) slow=1 ;; esac

# ------------------------------------------------ SIGKILL during a save, in a loop
# The policy file (about 700 kB) is rewritten at every checkpoint; a run is
# killed at random moments. Each time the file must be the old one or a whole
# new one that loads.
run train graphs/toy/crown.json --episodes 2 --checkpoint-every 1 -o "$tmp/kill.json"
expect_rc "policy to kill over" 0 && pass
torn=0 iterations=0
if [ "$slow" -eq 0 ]; then
    for i in $(seq 1 25); do
        cp "$tmp/kill.json" "$tmp/kill.before"
        "$prog" train graphs/toy/crown.json --episodes 1000 --checkpoint-every 1 --resume "$tmp/kill.json" \
            > /dev/null 2>&1 &
        pid=$!
        sleep "0.$(( (i * 37) % 10 ))$(( (i * 53) % 10 ))"
        kill -9 "$pid" 2> /dev/null
        wait "$pid" 2> /dev/null
        iterations=$((iterations + 1))
        if ! cmp -s "$tmp/kill.json" "$tmp/kill.before" &&
            ! "$prog" place graphs/toy/crown.json --policy "$tmp/kill.json" > /dev/null 2> "$tmp/err"; then
            torn=$((torn + 1))
            cp "$tmp/kill.json" "$tmp/torn.$i.json"
        fi
    done
    cmd="kill -9 during policy saves ($iterations times)"; rc=0
    if [ "$torn" -eq 0 ]; then pass; else : > "$tmp/out"; fail "kill -9 during saves" "$torn of $iterations files torn"; fi
fi

# the episode file too: the explorer saving, killed
cmd="kill -9 during episode saves"
torn=0
if [ "$slow" -eq 0 ]; then
    (cd "$tmp" && "$absprog" explore "$(cd - > /dev/null && pwd)/graphs/inception_v3.json" --headless \
        --keys "space s" --save ep.json > /dev/null 2>&1)
    for i in $(seq 1 15); do
        cp "$tmp/ep.json" "$tmp/ep.before"
        keys=""
        for ((k = 0; k < 40; k++)); do keys="$keys space s"; done
        (cd "$tmp" && exec "$absprog" explore --resume ep.json --headless --keys "$keys" > /dev/null 2>&1) &
        pid=$!
        sleep "0.$(( (i * 29) % 10 ))"
        kill -9 "$pid" 2> /dev/null
        wait "$pid" 2> /dev/null
        if ! cmp -s "$tmp/ep.json" "$tmp/ep.before" &&
            ! (cd "$tmp" && "$absprog" explore --resume ep.json --headless > /dev/null 2>&1); then
            torn=$((torn + 1))
        fi
    done
    rc=0
    if [ "$torn" -eq 0 ]; then pass; else : > "$tmp/out"; : > "$tmp/err"; fail "kill -9 during episode saves" "$torn torn"; fi
fi

# ------------------------------------------------ unwritable places and a full disk
: > "$tmp/afile"
run explore graphs/toy/crown.json --headless --keys "space space s" --save "$tmp/afile/ep.json"
if expect_rc "save into a file as directory" 0; then
    if grep -q "not saved: " "$tmp/out" && grep -q "step 2/18" "$tmp/out"; then pass; else fail "save error" "no clear error, or the episode was lost"; fi
fi
run explore graphs/toy/crown.json --headless --keys "s" --save "$tmp/no/such/dir/ep.json"
if expect_rc "save into a missing directory" 0; then
    if grep -q "not saved: .*no/such/dir" "$tmp/out"; then pass; else fail "save error names the file" "$(flat "$tmp/out" | tail -c 200)"; fi
fi
# a full disk: a file-size limit of 8 kB (SIGXFSZ ignored, so writes fail with EFBIG)
cmd="train with a full disk"
( trap '' XFSZ; ulimit -f 8; exec "$prog" train graphs/toy/crown.json --episodes 1 -o "$tmp/full.json" ) \
    > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ "$rc" -eq 1 ] && grep -qE "placeto: .*full(\.ckpt)?\.json" "$tmp/err" && [ ! -e "$tmp/full.json" ] &&
    [ ! -e "$tmp/full.ckpt.json" ]; then
    pass
else
    fail "full disk" "expected exit 1, a message naming the file and no file left"
fi
if ls "$tmp"/full.json.tmp.* "$tmp"/full.ckpt.json.tmp.* > /dev/null 2>&1; then fail "full disk" "a temporary file was left behind"; else pass; fi
cmd="explorer save with a full disk"
( trap '' XFSZ; ulimit -f 8; cd "$tmp" && exec "$absprog" explore "$OLDPWD/graphs/inception_v3.json" --headless \
    --keys "space space s" --save big.json ) > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ "$rc" -eq 0 ] && grep -q "not saved: " "$tmp/out" && grep -q "step 2/169" "$tmp/out"; then
    pass
else
    fail "explorer full disk" "no clear error or the episode was lost"
fi

# ------------------------------------------------ mismatched and corrupted files
(cd "$tmp" && "$absprog" train "$OLDPWD/graphs/toy/crown.json" --episodes 1 -o pol.json > /dev/null 2>&1)
(cd "$tmp" && "$absprog" explore "$OLDPWD/graphs/toy/crown.json" --policy pol.json --headless --keys "space s" \
    --save pe.json > /dev/null 2>&1)
cp "$tmp/pol.json" "$tmp/pol.orig"
(cd "$tmp" && "$absprog" train "$OLDPWD/graphs/toy/crown.json" --episodes 1 --resume pol.json > /dev/null 2>&1)
cmd="resume an episode whose policy changed"
(cd "$tmp" && "$absprog" explore --resume pe.json --headless) > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q "pol.json changed since the episode was saved" "$tmp/err"; then pass; else fail "policy changed" "not refused clearly"; fi
cp "$tmp/pol.orig" "$tmp/pol.json"
head -c 5000 "$tmp/pol.orig" > "$tmp/pol.json"
cmd="resume with a truncated policy"
(cd "$tmp" && "$absprog" explore --resume pe.json --headless) > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q "pol.json" "$tmp/err"; then pass; else fail "truncated policy" "not refused clearly"; fi
# the policy an episode names, unreadable: the message names the episode and its field first
rm -f "$tmp/pol.json"
for how in resume replay; do
    cmd="explore --$how an episode whose policy is gone"
    (cd "$tmp" && "$absprog" explore --$how pe.json --headless) > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ "$rc" -eq 1 ] && grep -q "^placeto: pe.json: policy.path: pol.json: cannot open" "$tmp/err"; then pass
    else fail "episode's policy gone ($how)" "the episode not named: $(flat "$tmp/err")"; fi
done
sed 's/"cursor": 1/"cursor": 99/' "$tmp/pe.json" > "$tmp/pe_bad.json"
cmd="an episode with a cursor past the order"
(cd "$tmp" && "$absprog" explore --resume pe_bad.json --headless) > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q "pe_bad.json:[0-9]*:[0-9]*: cursor" "$tmp/err"; then pass; else fail "bad cursor" "$(flat "$tmp/err")"; fi
run place graphs/toy/crown.json --policy "$tmp/pol.orig" --devices 64
if expect_rc "policy on 64 devices" 1; then
    if grep -q "for 2 devices but the cluster has 64" "$tmp/err"; then pass; else fail "device count" "unclear"; fi
fi

# ------------------------------------------------ extreme graphs in the explorer
for f in tests/data/extreme/*; do
    keys="space space f u"
    [ "$slow" -eq 1 ] && keys="space space u" # finishing 200 steps of 3 000 ops takes minutes under valgrind
    run explore "$f" --headless --keys "$keys" --size 100x30
    if expect_rc "explore $f" 0; then
        if grep -q "undo: " "$tmp/out"; then pass; else fail "explore $f" "the episode did not run"; fi
    fi
done
run explore graphs/toy/crown.json --devices 64 --headless --keys "space 9 f" --size 120x40
if expect_rc "64 devices" 0; then
    if grep -q "step 18/18" "$tmp/out"; then pass; else fail "64 devices" "the episode did not finish"; fi
fi

# ------------------------------------------------ 100 000 ops
if [ "$slow" -eq 0 ]; then
    "$py" - "$tmp/big.json" <<'PY'
import json, random, sys
rng = random.Random(1)
n = 100000
nodes = [{"name": "op%d" % i, "op": "x", "cost_us": round(rng.uniform(1, 100), 3),
          "output_bytes": rng.randint(1000, 1000000)} for i in range(n)]
edges = []
for i in range(1, n):
    for _ in range(rng.randint(1, 2)):
        j = max(0, i - rng.randint(1, 50))
        edges.append({"src": "op%d" % j, "dst": "op%d" % i})
json.dump({"format": "placeto-graph", "version": 1, "name": "big100k", "nodes": nodes, "edges": edges},
          open(sys.argv[1], "w"))
PY
    run info "$tmp/big.json" --json
    expect_rc "100k ops: info" 0 && pycheck "100k ops: info" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ops"] == 100000 and 100 <= d["groups"] <= 200, d
' "$tmp/out"
    # the 18 MB file is read and parsed once per command (one-pass reader)
    for c in info explore; do
        extra=(); [ "$c" = explore ] && extra=(--headless --keys '')
        PLACETO_TRACE_READS=1 "$prog" "$c" "$tmp/big.json" "${extra[@]}" > /dev/null 2> "$tmp/err" < /dev/null
        r=$(grep -cxF "placeto: trace: read $tmp/big.json" "$tmp/err") p=$(grep -cxF "placeto: trace: parse $tmp/big.json" "$tmp/err")
        if [ "$r" = 1 ] && [ "$p" = 1 ]; then pass; else fail "100k ops: $c reads the graph once" "read $r and parsed $p times"; fi
    done
    run compare "$tmp/big.json" --devices 4 --methods single,heft,m-etf
    expect_rc "100k ops: compare" 0 && pass
    run explore "$tmp/big.json" --devices 4 --headless --keys "space space 1 u" --size 120x40
    if expect_rc "100k ops: explorer" 0; then
        if grep -q "undo: " "$tmp/out"; then pass; else fail "100k ops: explorer" "no undo on screen"; fi
    fi
    run train "$tmp/big.json" --devices 4 --groups 20 --episodes 1 --preset tuned --keep last -o "$tmp/big_policy.json"
    expect_rc "100k ops: a training episode" 0 && pass
    # a second Ctrl-C stops training within a second, mid-episode; the
    # policy file keeps the last checkpoint
    cmd="placeto train big.json --groups 200 --episodes 100 (SIGINT twice)"
    cp "$tmp/big_policy.json" "$tmp/big_before.json"
    "$prog" train "$tmp/big.json" --devices 4 --groups 200 --episodes 100 --resume "$tmp/big_policy.json" \
        -o "$tmp/big_policy.json" > /dev/null 2> "$tmp/err" < /dev/null &
    pid=$!
    # until the program catches SIGINT, and training has begun
    wait_catching "$pid" 2
    # the second Ctrl-C comes soon after the first: an episode of this graph
    # takes about a second, and the first Ctrl-C lets it finish
    sleep 1
    kill -INT "$pid"
    sleep 0.05
    kill -INT "$pid"
    t0=$(date +%s%N)
    wait "$pid"
    rc=$?
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    if [ "$rc" -eq 130 ] && [ "$ms" -lt 1000 ] && grep -q "interrupted again" "$tmp/err" &&
       cmp -s "$tmp/big_policy.json" "$tmp/big_before.json"; then pass
    else fail "a second Ctrl-C" "rc=$rc after $ms ms: $(tail -c 300 "$tmp/err")"; fi
fi

# Output that cannot be written is an error (exit 1 with the reason), never
# a silent exit 0: a full disk, a file-size limit
cmd="placeto place graphs/inception_v3.json --method heft --json > /dev/full"
timeout 60 $wrap "$prog" place graphs/inception_v3.json --method heft --json > /dev/full 2> "$tmp/err" < /dev/null
rc=$?
if expect_rc "stdout on a full disk" 1; then
    if grep -q "cannot write the output: No space left on device" "$tmp/err"; then pass; else fail "stdout on a full disk" "$(cat "$tmp/err")"; fi
fi
cmd="ulimit -f 4; placeto place graphs/inception_v3.json --method heft --json > big"
(ulimit -f 4; timeout 60 $wrap "$prog" place graphs/inception_v3.json --method heft --json > "$tmp/big.out" 2> "$tmp/err" < /dev/null)
rc=$?
if expect_rc "stdout past a file-size limit" 1; then
    if grep -q "cannot write the output: File too large" "$tmp/err"; then pass; else fail "stdout past a file-size limit" "$(cat "$tmp/err")"; fi
fi
# with standard error closed, the learning curve (the next file opened)
# must not receive the progress lines
# (not under valgrind, which needs descriptor 2 for itself)
if [ "$slow" -eq 0 ]; then
    cmd="placeto train graphs/toy/crown.json --episodes 3 --curve c.csv 2>&-"
    timeout 60 $wrap "$prog" train graphs/toy/crown.json --episodes 3 -o "$tmp/fd.json" --curve "$tmp/c.csv" 2>&- > /dev/null < /dev/null
    rc=$?
    if expect_rc "train with stderr closed" 0; then
        if [ "$(grep -cv '^[0-9e]' "$tmp/c.csv")" = 0 ] && [ "$(wc -l < "$tmp/c.csv")" = 4 ]; then pass
        else fail "train with stderr closed" "the curve holds other lines: $(head -c 300 "$tmp/c.csv")"; fi
    fi
fi
# the same with standard output closed: the summary must not land in the
# curve either
cmd="placeto train graphs/toy/crown.json --episodes 3 --curve c1.csv >&-"
timeout 60 $wrap "$prog" train graphs/toy/crown.json --episodes 3 -o "$tmp/fd1.json" --curve "$tmp/c1.csv" >&- 2> /dev/null < /dev/null
rc=$?
if expect_rc "train with stdout closed" 0; then
    if [ "$(grep -cv '^[0-9e]' "$tmp/c1.csv")" = 0 ] && [ "$(wc -l < "$tmp/c1.csv")" = 4 ]; then pass
    else fail "train with stdout closed" "the curve holds other lines: $(head -c 300 "$tmp/c1.csv")"; fi
fi
# and with standard input closed: the headless explorer reads its keys from
# the command line and saves where it is told, not into descriptor 0
cmd="placeto explore graphs/toy/crown.json --headless --keys 'space s' --save ep0.json <&-"
timeout 60 $wrap "$prog" explore graphs/toy/crown.json --headless --keys "space s" --save "$tmp/ep0.json" \
    > "$tmp/out" 2> "$tmp/err" <&-
rc=$?
if expect_rc "explore with stdin closed" 0; then
    if grep -q '"format": *"placeto-episode"' "$tmp/ep0.json" 2> /dev/null; then pass
    else fail "explore with stdin closed" "no episode saved: $(flat "$tmp/out" | tail -c 200)"; fi
fi

# Names are escaped in every output: terminal controls in human-readable
# text are shown (^[, ^G, <U+009B>), never sent; JSON and CSV give the name
# back exactly
"$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["name"] = "evil\x1b]0;pwned\x07\u009b,\"q\"\\"
d["nodes"][1]["name"] = d["nodes"][1]["name"] + "\x1b[31m"
for e in d["edges"]:
    for k in ("src", "dst"):
        if e[k] == json.load(open(sys.argv[1]))["nodes"][1]["name"]:
            e[k] = d["nodes"][1]["name"]
json.dump(d, open(sys.argv[2], "w"))
' graphs/toy/crown.json "$tmp/evil.json"
run info "$tmp/evil.json"
if expect_rc "info on control characters" 0; then
    if grep -q $'\x1b' "$tmp/out" || grep -q $'\xc2\x9b' "$tmp/out"; then fail "info on control characters" "a control reached the output"
    elif grep -qF 'evil^[]0;pwned^G<U+009B>' "$tmp/out"; then pass
    else fail "info on control characters" "$(head -2 "$tmp/out")"; fi
fi
run compare "$tmp/evil.json" --methods heft --json
expect_rc "compare --json on control characters" 0 && pycheck "JSON gives the name back" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["graph"] == "evil\x1b]0;pwned\x07\u009b,\"q\"\\", d["graph"]
' "$tmp/out"
run train "$tmp/evil.json" --episodes 2 -o "$tmp/evil_p.json" --json --curve "$tmp/evil.csv"
expect_rc "train --json on control characters" 0 && pycheck "train --json and the curve give the name back" '
import csv, json, sys
name = "evil\x1b]0;pwned\x07\u009b,\"q\"\\"
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert lines[-1]["graphs"][0]["graph"] == name, lines[-1]
rows = list(csv.reader(open(sys.argv[2], newline="")))
assert len(rows) == 3 and all(len(r) == 9 and r[1] == name for r in rows[1:]), rows
' "$tmp/out" "$tmp/evil.csv"

# Usage errors for what a command would ignore, bounded key scripts, and a
# very long path that does not cut the reason off
for c in "explore --resume $tmp/none.json --devices 3 --headless" "place graphs/toy/crown.json --samples 3 --method heft" \
         "compare graphs/toy/crown.json --methods ,,," "compare graphs/toy/crown.json --methods heft," \
         "explore graphs/toy/crown.json --headless --keys resize:99999x99999"; do
    # shellcheck disable=SC2086
    run $c
    if expect_rc "usage error: $c" 2; then
        if [ -s "$tmp/err" ] && grep -q "usage:" "$tmp/err"; then pass; else fail "usage error: $c" "$(cat "$tmp/err")"; fi
    fi
done
long=$tmp/$(printf 'd%.0s' $(seq 3000))/x.json
run info "$long"
if expect_rc "a very long path" 1; then
    if grep -q "cannot open: File name too long$" "$tmp/err"; then pass; else fail "a very long path" "$(tail -c 200 "$tmp/err")"; fi
fi

# A name ending in a backslash (and one with a quote) survives the DOT
# export: dot renders it and placeto reads the same names back
"$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
ren = {d["nodes"][1]["name"]: d["nodes"][1]["name"] + "\\", d["nodes"][2]["name"]: "q\"uote\\\\n"}
for n in d["nodes"]:
    n["name"] = ren.get(n["name"], n["name"])
for e in d["edges"]:
    e["src"], e["dst"] = ren.get(e["src"], e["src"]), ren.get(e["dst"], e["dst"])
d["name"] = "bs\\"
json.dump(d, open(sys.argv[2], "w"))
' graphs/toy/crown.json "$tmp/bs.json"
run place "$tmp/bs.json" --method heft -o "$tmp/bs_p.json"
for level in group op; do
    run export "$tmp/bs.json" --placement "$tmp/bs_p.json" --dot "$tmp/bs_$level.dot" --level $level
    expect_rc "DOT of backslash names ($level)" 0 || continue
    if command -v dot > /dev/null && ! dot -Tsvg "$tmp/bs_$level.dot" -o /dev/null 2> "$tmp/err"; then
        fail "dot reads backslash names ($level)" "$(cat "$tmp/err")"; continue
    fi
    pass
done
run place "$tmp/bs_op.dot" --method single -o "$tmp/bs_back.json"
expect_rc "placeto reads backslash names back" 0 && pycheck "the names read back exactly" '
import json, sys
a = set(json.load(open(sys.argv[1]))["ops"]); b = {n["name"] for n in json.load(open(sys.argv[2]))["nodes"]}
assert a == b, (a ^ b)
' "$tmp/bs_back.json" "$tmp/bs.json"

# Two training graphs of the same name would share one best placement in
# the policy file: refused, naming both files
cp graphs/toy/crown.json "$tmp/crown_copy.json"
run train graphs/toy/crown.json "$tmp/crown_copy.json" --episodes 1 -o "$tmp/dup.json"
if expect_rc "training graphs of the same name" 1; then
    if grep -q 'crown_copy.json: graph "toy_crown" has the name of graphs/toy/crown.json' "$tmp/err" && [ ! -e "$tmp/dup.json" ]; then pass
    else fail "training graphs of the same name" "$(cat "$tmp/err")"; fi
fi

# No command overwrites one of its inputs (the graph, the placement, the
# policy), whatever the spelling of the path; the input stays as it was
cp graphs/toy/crown.json "$tmp/g.json"
run place "$tmp/g.json" --method heft -o "$tmp/ow_p.json"
for c in "place $tmp/g.json --method heft -o $tmp/g.json" "train $tmp/g.json --episodes 1 -o $tmp/../$(basename "$tmp")/g.json" \
         "explore $tmp/g.json --save $tmp/./g.json --headless --keys s" \
         "simulate $tmp/g.json --placement $tmp/ow_p.json --trace $tmp/ow_p.json" \
         "export $tmp/g.json --placement $tmp/ow_p.json --dot $tmp/g.json"; do
    # shellcheck disable=SC2086  # c is a command line to split
    run $c
    if expect_rc "overwrite refused: $c" 2; then
        if grep -q "would overwrite the input" "$tmp/err" && cmp -s "$tmp/g.json" graphs/toy/crown.json &&
           [ -s "$tmp/ow_p.json" ] && grep -q placeto-placement "$tmp/ow_p.json"; then pass
        else fail "overwrite refused: $c" "$(cat "$tmp/err")"; fi
    fi
done

# Under an address-space limit every command finishes with its output or a
# clear out-of-memory error (a linked OpenBLAS once started worker threads at
# load and one hung allocating its buffer; OpenBLAS also spins when it cannot
# map its buffer). AddressSanitizer needs terabytes of address space: not
# under ASan.
if ! ldd "$prog" 2> /dev/null | grep -q libasan && ! grep -qa AddressSanitizer "$prog" && [ -z "$wrap" ]; then
    run place graphs/toy/crown.json --method heft -o "$tmp/ul_p.json"
    for limit in 60000 120000 400000; do
        for c in "info graphs/inception_v3.json" "place graphs/inception_v3.json --method heft" \
                 "simulate graphs/toy/crown.json --placement $tmp/ul_p.json" \
                 "compare graphs/inception_v3.json --budget 200" \
                 "train graphs/toy/crown.json --episodes 2 -o $tmp/ul_t.json" \
                 "explore graphs/inception_v3.json --headless --keys space" "demo --headless --keys space"; do
            cmd="ulimit -v $limit; placeto $c"
            # shellcheck disable=SC2086  # c is a command line to split
            (ulimit -v "$limit"; timeout 60 "$prog" $c) > "$tmp/out" 2> "$tmp/err" < /dev/null
            rc=$?
            if [ "$rc" -eq 0 ] && { [ -s "$tmp/out" ] || [ -s "$tmp/ul_t.json" ]; }; then pass
            elif [ "$rc" -eq 1 ] && grep -q "out of memory" "$tmp/err"; then pass
            else fail "ulimit -v $limit: $c" "rc=$rc: $(head -c 300 "$tmp/err")"; fi
        done
    done
fi

echo "hardening: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
