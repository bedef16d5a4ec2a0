#!/usr/bin/env bash
# Recording a session: `--record FILE.cast` on explore and demo writes an
# asciinema v2 recording. Headless runs (synthetic time, one --record-step
# per key) must give the same bytes every time; every cast is checked by
# tests/cli/castcheck.py (the header, [time, "o", data] events with times
# that never decrease, the final screen played back); JSON escaping of
# quotes, backslashes and UTF-8 in names; the temporary file and the rename;
# unwritable paths; and a real terminal session in tmux (when tmux is
# installed). asciinema itself is not needed. Prints
# "record: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

crown=graphs/toy/crown.json
absprog=$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog")

# castcheck NAME FILE ARGS...: the recording is valid (castcheck.py ARGS)
castcheck() {
    local name=$1 file=$2
    shift 2
    cmd="castcheck.py $file $*"
    rc=0
    if "$py" tests/cli/castcheck.py "$file" "$@" > "$tmp/py" 2>&1; then
        pass
    else
        cp "$tmp/py" "$tmp/out"
        : > "$tmp/err"
        fail "$name" "$(flat "$tmp/py")"
    fi
}

# ---- headless: structure, final screen, determinism ----
keys='space space 1 u'
run explore "$crown" --headless --keys "$keys" --size 80x24 --record "$tmp/a.cast"
if expect_rc "explore --record" 0; then
    if [ -s "$tmp/a.cast" ]; then pass; else fail "explore --record" "no file"; fi
    castcheck "explore cast" "$tmp/a.cast" --size 80x24 --step 1 --contains "toy_crown on 2x K80" \
        --contains "step 2/18" --contains "undo: b1.relu"
    n=$(($(wc -l < "$tmp/a.cast") - 1))
    # the first screen, one frame per key, and the end
    if [ "$n" -ge 5 ] && [ "$n" -le 6 ]; then pass; else fail "explore cast events" "$n events for 4 keys"; fi
    pycheck "explore cast header" '
import json, sys
h = json.loads(open(sys.argv[1], encoding="utf-8").readline())
assert h["version"] == 2 and h["width"] == 80 and h["height"] == 24, h
assert h["timestamp"] == 0 and h["title"] == "placeto explore", h
assert h["env"] == {"TERM": "xterm-256color", "SHELL": "/bin/sh"}, h
times = [json.loads(l)[0] for l in open(sys.argv[1], encoding="utf-8").readlines()[1:]]
assert times[:5] == [0, 1, 2, 3, 4], times
' "$tmp/a.cast"
    if ls "$tmp"/a.cast.tmp.* > /dev/null 2>&1; then fail "explore cast temporary" "a temporary file is left"; else pass; fi
fi
run explore "$crown" --headless --keys "$keys" --size 80x24 --record "$tmp/b.cast"
if cmp -s "$tmp/a.cast" "$tmp/b.cast"; then pass; else fail "recording deterministic" "two headless runs differ"; fi
# the printed screen is the same with and without a recording
run explore "$crown" --headless --keys "$keys" --size 80x24
cp "$tmp/out" "$tmp/plain"
run explore "$crown" --headless --keys "$keys" --size 80x24 --record "$tmp/c.cast"
if cmp -s "$tmp/out" "$tmp/plain"; then pass; else fail "recording leaves the dump" "the dump differs"; fi
# SOURCE_DATE_EPOCH dates a headless recording
SOURCE_DATE_EPOCH=1700000000 run explore "$crown" --headless --keys space --size 80x24 --record "$tmp/d.cast"
if head -n 1 "$tmp/d.cast" | grep -qF '"timestamp": 1700000000'; then pass; else fail "SOURCE_DATE_EPOCH" "not the header's timestamp"; fi
# --record-step, ASCII, no colours
run explore "$crown" --headless --keys 'space space' --size 100x30 --record "$tmp/e.cast" --record-step 0.25 --ascii --no-color
if expect_rc "--record-step --ascii --no-color" 0; then
    castcheck "ascii cast" "$tmp/e.cast" --size 100x30 --step 0.25 --contains "step 2/18" --contains "+- Graph"
    pycheck "ascii cast content" '
import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()[1:]
data = "".join(json.loads(l)[2] for l in lines)
assert all(ord(c) < 128 for c in data), "non-ASCII in an --ascii recording"
assert "38;5;" not in data and "48;5;" not in data, "colours in a --no-color recording"
assert [json.loads(l)[0] for l in lines][:3] == [0, 0.25, 0.5]
' "$tmp/e.cast"
fi
# colours and Unicode by default
pycheck "colour cast content" '
import json, sys
data = "".join(json.loads(l)[2] for l in open(sys.argv[1], encoding="utf-8").read().splitlines()[1:])
assert "\x1b[0;38;5;" in data, "no 256-colour SGR"
assert "\u250c" in data, "no box drawing"
' "$tmp/a.cast"
# the demo records too, through the tour's changes of graph (the held-out
# graph and its race, GDP on it, the tour's graph with the RNN placer, HSDAG on
# Inception-V3 inference), the busy signs of its slow stages included
keys17="space space space space space space space space space space space space space space space space space"
# (seventeen stages, among them a race and policies placing four graphs:
# seconds, more under a sanitizer on a loaded machine)
saved_limit=$run_limit
[ "$run_limit" -lt 120 ] && run_limit=120
run demo --headless --keys "$keys17" --size 110x34 --record "$tmp/tour.cast" --record-step 3
run_limit=$saved_limit
if expect_rc "demo --record" 0; then
    castcheck "tour cast" "$tmp/tour.cast" --size 110x34 --step 3 --contains "The chain, with this tour" \
        --contains "policy nmt_2.json" --contains "the paper's rules"
fi
# a resize in the key script repaints the whole screen at the new size
run explore "$crown" --headless --keys 'space resize:90x28 space' --size 80x24 --record "$tmp/f.cast"
castcheck "resize cast" "$tmp/f.cast" --contains "step 2/18"

# ---- JSON escaping: quotes, backslashes and UTF-8 in what is drawn ----
"$py" - "$tmp/q.json" << 'EOF'
import json, sys
nodes = [
    {"name": 'in"put\\x', "op": "Placeholder", "cost_us": 10, "output_bytes": 100},
    {"name": "caf\u00e9/\u03bb\u2192", "op": "MatMul", "cost_us": 20, "output_bytes": 100},
    {"name": "out", "op": "Sink", "cost_us": 5, "output_bytes": 0},
]
edges = [{"src": nodes[0]["name"], "dst": nodes[1]["name"]}, {"src": nodes[1]["name"], "dst": "out"}]
json.dump({"format": "placeto-graph", "version": 1, "name": 'q"uo\\te', "nodes": nodes, "edges": edges},
          open(sys.argv[1], "w"), ensure_ascii=False)
EOF
run explore "$tmp/q.json" --headless --keys space --size 100x30 --record "$tmp/q.cast"
if expect_rc "escaping: explore" 0; then
    castcheck "escaping cast" "$tmp/q.cast" --contains 'q"uo\te on 2x' --contains "café/λ→"
    pycheck "escaping raw" '
import sys
raw = open(sys.argv[1], "rb").read()
raw.decode("utf-8")
assert b"\x1b" not in raw, "a raw escape character in the JSON"
assert b"\\u001b[" in raw, "escape sequences not written as \\u001b"
assert b"q\\\"uo\\\\te" in raw, "quote and backslash not escaped"
' "$tmp/q.cast"
fi

# ---- errors ----
run explore "$crown" --headless --keys space --record "$tmp/nodir/x.cast"
if expect_rc "unwritable --record" 1; then
    if grep -qF -- "--record: $tmp/nodir/x.cast: cannot write" "$tmp/err"; then pass; else fail "unwritable --record" "the error does not name --record and the file"; fi
fi
mkdir -p "$tmp/ro" && chmod 500 "$tmp/ro"
if [ "$(id -u)" != 0 ]; then
    run demo --headless --keys space --record "$tmp/ro/x.cast"
    expect_rc "read-only directory" 1 && pass
fi
chmod 700 "$tmp/ro"
usage_error "--record-step without --record" explore "$crown" --headless --keys space --record-step 2
usage_error "--record-step on a terminal" explore "$crown" --record "$tmp/g.cast" --record-step 2
usage_error "--record-step 0" explore "$crown" --headless --record "$tmp/g.cast" --record-step 0
usage_error "--record empty" demo --headless --record ''
# a full disk (a file-size limit, SIGXFSZ ignored so that writes fail): a
# clear error naming the file, and neither the file nor a temporary one left
( trap '' XFSZ; ulimit -f 8; exec "$prog" explore "$crown" --headless --keys 'space space space space' --size 300x100 \
    --record "$tmp/big.cast" ) > /dev/null 2> "$tmp/err"
rc=$?
cmd="explore --record with a full disk"
: > "$tmp/out"
if [ "$rc" -eq 1 ] && grep -qF "big.cast" "$tmp/err" && [ ! -e "$tmp/big.cast" ] && ! ls "$tmp"/big.cast.tmp.* > /dev/null 2>&1; then
    pass
else
    fail "recording on a full disk" "expected status 1, an error naming the file and no file left"
fi

# ---- a real terminal (tmux) ----
# shellcheck source=tests/cli/lib_tmux.sh
. tests/cli/lib_tmux.sh
if [ "$tmux_ok" -eq 1 ]; then
    start "$(pwd)/$crown" --record live.cast
    check "tmux: opens" "toy_crown on 2x K80"
    tm send-keys -t e2e Space Space
    check "tmux: steps" "step 2/18"
    tm send-keys -t e2e s
    check "tmux: saves" "saved crown.episode.json"
    tm send-keys -t e2e q
    check "tmux: quits" "EXITED 0"
    if [ -s "$tmp/live.cast" ]; then
        pass
        castcheck "tmux cast" "$tmp/live.cast" --size 100x30 --contains "step 2/18" --contains "saved crown.episode.json"
        pycheck "tmux cast header" '
import json, sys
h = json.loads(open(sys.argv[1], encoding="utf-8").readline())
assert h["env"]["TERM"] == "xterm-256color" and h["timestamp"] > 1600000000, h
' "$tmp/live.cast"
    else
        fail "tmux: recording" "no live.cast after quitting"
    fi
    # a SIGTERM ends the session and still writes the recording
    start_prog demo --record sig.cast --auto 1
    check "tmux: demo" "Tour 1/"
    check "tmux: demo --auto 1 advances" "Tour 2/" 5
    pid=$(pgrep -P "$(tm display -p -t e2e '#{pane_pid}')" | head -n 1)
    if [ -n "$pid" ]; then kill -TERM "$pid"; fi
    check "tmux: SIGTERM (exit 128 + 15)" "EXITED 143"
    castcheck "tmux SIGTERM cast" "$tmp/sig.cast" --size 100x30 --contains "Tour 2/"
else
    echo "record: tmux not installed, the terminal session skipped"
fi

echo "record: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
