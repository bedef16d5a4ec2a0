#!/usr/bin/env bash
# Slides and the presentation layout (docs/explorer.md, "Slides and the
# presentation layout"): --slide FILE.svg headless and the slide key (f2,
# ctrl-p; in dialogs and the tour too) write the screen as SVG: well-formed
# XML (python3's parser), one <text> per screen row holding that row's text,
# the colours of known cells, <, > and & escaped, a golden SVG of a small
# screen; numbered slides never replace a file; the PNG through rsvg-convert
# on PATH (a stand-in script, the real one when installed, or none: the
# message says how to get one), at least 1920 pixels wide; a
# directory that cannot be written gives a clear message and no crash; P
# and --present show the presentation layout; and F2 in a real terminal
# (tmux, when installed). Prints "slides: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

crown=$(pwd)/graphs/toy/crown.json
absprog=$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog")
mkdir -p "$tmp/bin" "$tmp/d"
# the runs below change PATH (to show or hide rsvg-convert): timeout and the
# wrapper are found before
tmo=$(command -v timeout)
wrap_abs=""
if [ -n "$wrap" ]; then
    # shellcheck disable=SC2086
    set -- $wrap
    wrap_abs="$(command -v "$1") ${wrap#"$1"}"
fi

# in_dir DIR PATHVAL ARGS...: placeto ARGS in DIR with PATH=PATHVAL
in_dir() {
    local dir=$1 path=$2
    shift 2
    cmd="(in $dir, PATH=$path) placeto $*"
    # shellcheck disable=SC2086  # PLACETO_WRAP is a command line to split
    (cd "$dir" && PATH="$path" "$tmo" "$run_limit" $wrap_abs "$absprog" "$@") > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
}
# shows NAME TEXT...: the last run succeeded and its screen shows every TEXT
shows() {
    local name=$1 p
    shift
    expect_rc "$name" 0 || return
    tail -n 3 "$tmp/out" | tr '\n' ' ' > "$tmp/msg"
    for p in "$@"; do
        if ! grep -qF -- "$p" "$tmp/out" && ! grep -qF -- "$p" "$tmp/msg"; then
            fail "$name" "the screen lacks '$p'"
            return
        fi
    done
    pass
}
# pycheck NAME SCRIPT ARGS...: python3 -c SCRIPT ARGS succeeds
pycheck() {
    local name=$1 script=$2
    shift 2
    if "$py" -c "$script" "$@" > "$tmp/py" 2>&1; then pass; else fail "$name" "$(flat "$tmp/py")"; fi
}
# the SVG is well-formed, has one <text> per row, and row k's text is line
# k of the dump (trailing blanks aside; a full block in a coloured cell is
# drawn as the cell's fill, a blank in the text); argv: svg dump rows
svgcheck='
import sys, xml.etree.ElementTree as ET
svg, dump, rows = sys.argv[1], sys.argv[2], int(sys.argv[3])
root = ET.parse(svg).getroot()
ns = "{http://www.w3.org/2000/svg}"
texts = root.findall(".//" + ns + "text")
assert len(texts) == rows, "%d <text> for %d rows" % (len(texts), rows)
lines = open(dump, encoding="utf-8").read().split("\n")[:rows]
for k, (t, line) in enumerate(zip(texts, lines)):
    got = "".join(t.itertext()).rstrip()
    want = line.rstrip()
    if got != want:
        assert got == want.replace("\u2588", " ").rstrip(), "row %d: %r != %r" % (k, got, want)
        assert "\u2588" in want
'
path_std=/usr/bin:/bin
path_none=/nonexistent

# ---- --slide FILE.svg headless ----
in_dir "$tmp" "$path_std" explore "$crown" --headless --keys 'space space' --size 80x24 --unicode --slide "$tmp/a.svg"
if expect_rc "--slide writes" 0 && [ -s "$tmp/a.svg" ]; then
    pass
    cp "$tmp/out" "$tmp/a.txt"
    pycheck "--slide: well-formed, one <text> per row with the screen's text" "$svgcheck" "$tmp/a.svg" "$tmp/a.txt" 24
    # the status line (GS_STATUS, 256 colours: 231 on 238) and a device-0 node (152)
    pycheck "--slide: the colours of known cells" '
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
rects = [(r.get("x"), r.get("y"), r.get("fill")) for r in root.iter(ns + "rect")]
assert ("0.0", "0", "#444444") in rects, rects[:5]
assert any(f == "#afd7d7" for _, _, f in rects), "no device-0 fill"
first = root.findall(".//" + ns + "text")[0].find(ns + "tspan")
assert first.get("fill") == "#ffffff", first.attrib
' "$tmp/a.svg"
else
    fail "--slide writes" "no $tmp/a.svg"
fi
# ASCII and no colours
in_dir "$tmp" "$path_std" explore "$crown" --headless --keys 'space' --size 80x24 --ascii --no-color --slide "$tmp/m.svg"
if expect_rc "--slide --ascii --no-color" 0; then
    pycheck "--slide --no-color: only reverse-video fills, ASCII glyphs" '
import sys
s = open(sys.argv[1], encoding="utf-8").read()
assert "#afd7d7" not in s and "#444444" not in s, "a colour in monochrome"
assert "\u2500" not in s and "+--" in s, "not ASCII"
' "$tmp/m.svg"
fi
# <, > and & on the screen: typed into the search prompt
in_dir "$tmp" "$path_std" explore "$crown" --headless --keys '/ a<b&c>' --size 80x24 --unicode --slide "$tmp/e.svg"
if shows "search shows a<b&c>" "a<b&c>"; then
    cp "$tmp/out" "$tmp/e.txt"
    pycheck "--slide escapes <, > and &" "$svgcheck" "$tmp/e.svg" "$tmp/e.txt" 24
    if grep -qF 'a&lt;b&amp;c&gt;' "$tmp/e.svg"; then pass; else fail "--slide escapes <, > and &" "no a&lt;b&amp;c&gt;"; fi
fi
# the golden SVG of a small screen
in_dir "$tmp" "$path_std" explore "$crown" --headless --keys 'space down' --size 60x16 --slide "$tmp/g.svg"
if expect_rc "golden slide" 0; then
    golden_file "slide" tests/data/golden/slide_crown_60x16.svg "$tmp/g.svg" "the SVG"
fi
# the same key script gives the same bytes
in_dir "$tmp" "$path_std" explore "$crown" --headless --keys 'space down' --size 60x16 --slide "$tmp/g2.svg"
if cmp -s "$tmp/g.svg" "$tmp/g2.svg"; then pass; else fail "--slide is deterministic" "two runs differ"; fi
# errors: a file that cannot be written, --slide without --headless, an empty name
in_dir "$tmp" "$path_std" explore "$crown" --headless --keys 'space' --slide /nonexistent/dir/x.svg
if expect_rc "--slide into a missing directory" 1 && grep -qF "/nonexistent/dir/x.svg" "$tmp/err"; then pass; else
    fail "--slide into a missing directory" "no error naming the file"; fi
in_dir "$tmp" "$path_std" explore "$crown" --slide "$tmp/x.svg"
if expect_rc "--slide needs --headless" 2 && grep -qF -- "--slide goes with --headless" "$tmp/err"; then pass; else
    fail "--slide needs --headless" "no usage error"; fi
in_dir "$tmp" "$path_std" explore "$crown" --headless --slide ""
expect_rc "--slide ''" 2 && pass

# ---- the slide key ----
# no converter on PATH: the SVG, and the message says how to get a PNG
in_dir "$tmp/d" "$path_none" explore "$crown" --headless --keys 'space f2' --size 100x30
shows "f2 without rsvg-convert" "slide placeto-slide-001.svg written" "no rsvg-convert on PATH" "rsvg-convert -w 1920 -a -o"
if [ -s "$tmp/d/placeto-slide-001.svg" ] && [ ! -e "$tmp/d/placeto-slide-001.png" ]; then pass; else
    fail "f2 writes placeto-slide-001.svg" "$(ls "$tmp/d")"; fi
cp "$tmp/d/placeto-slide-001.svg" "$tmp/first.svg"
# a second slide, in another run: 002, the first untouched
in_dir "$tmp/d" "$path_none" explore "$crown" --headless --keys 'space space space ctrl-p' --size 100x30
shows "ctrl-p: a second slide" "slide placeto-slide-002.svg written"
if cmp -s "$tmp/first.svg" "$tmp/d/placeto-slide-001.svg" && [ -s "$tmp/d/placeto-slide-002.svg" ] &&
    grep -qF "step 3/18" "$tmp/d/placeto-slide-002.svg"; then pass; else
    fail "a second slide does not replace the first" "$(ls -l "$tmp/d")"; fi
# a stand-in rsvg-convert that works and one that fails. The working one
# reads rsvg-convert's options as it does (-w and -h; the SVG's own size
# for what is not given, the aspect ratio kept for one alone; an unknown
# option fails) and writes the PNG's header: the width and height it would
# have
cat > "$tmp/bin/rsvg-convert" <<PYEND
#!$py
import re, struct, sys, zlib
args, w, h, out, files = sys.argv[1:], None, None, None, []
while args:
    a = args.pop(0)
    if a in ("-w", "--width"): w = int(args.pop(0))
    elif a in ("-h", "--height"): h = int(args.pop(0))
    elif a in ("-o", "--output"): out = args.pop(0)
    elif a.startswith("-"): sys.exit(9)
    else: files.append(a)
if out is None or len(files) != 1: sys.exit(9)
m = re.search(r'<svg [^>]*width="([0-9]+)" height="([0-9]+)"', open(files[0], encoding="utf-8").read())
sw, sh = int(m.group(1)), int(m.group(2))
if w is None and h is None: w, h = sw, sh
elif h is None: h = round(sh * w / sw)
elif w is None: w = round(sw * h / sh)
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
open(out, "wb").write(b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                      + chunk(b"IEND", b""))
PYEND
chmod 755 "$tmp/bin/rsvg-convert"
# the PNG is at least 1920 pixels wide, for a projector, with the SVG's
# aspect ratio (to the pixel); argv: png svg
pngcheck='
import re, struct, sys
head = open(sys.argv[1], "rb").read(24)
assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", "not a PNG"
w, h = struct.unpack(">II", head[16:24])
m = re.search(r"<svg [^>]*width=\"([0-9]+)\" height=\"([0-9]+)\"", open(sys.argv[2], encoding="utf-8").read())
sw, sh = int(m.group(1)), int(m.group(2))
assert w >= 1920, "the PNG is %dx%d, less than 1920 pixels wide (the SVG: %dx%d)" % (w, h, sw, sh)
assert abs(h - sh * w / sw) <= 1, "the PNG is %dx%d, the SVG %dx%d: another aspect ratio" % (w, h, sw, sh)
'
in_dir "$tmp/d" "$tmp/bin:$path_std" explore "$crown" --headless --keys 'f2' --size 100x30
shows "f2 with rsvg-convert" "slide placeto-slide-003.svg and .png written"
if [ -s "$tmp/d/placeto-slide-003.png" ]; then
    pycheck "the PNG at projector width" "$pngcheck" "$tmp/d/placeto-slide-003.png" "$tmp/d/placeto-slide-003.svg"
else
    fail "the PNG comes from rsvg-convert" "$(ls "$tmp/d")"
fi
# the real rsvg-convert, when installed: a real PNG of that size
if command -v rsvg-convert > /dev/null; then
    mkdir -p "$tmp/real"
    in_dir "$tmp/real" "$(dirname "$(command -v rsvg-convert)"):$path_std" explore "$crown" --headless \
        --keys 'space f2' --size 120x36
    shows "f2 with the real rsvg-convert" "slide placeto-slide-001.svg and .png written"
    if [ -s "$tmp/real/placeto-slide-001.png" ]; then
        pycheck "the real PNG at projector width" "$pngcheck" "$tmp/real/placeto-slide-001.png" \
            "$tmp/real/placeto-slide-001.svg"
    fi
else
    echo "slides: rsvg-convert not installed, the real PNG skipped"
fi
printf '#!/bin/sh\nexit 3\n' > "$tmp/bin/rsvg-convert"
in_dir "$tmp/d" "$tmp/bin:$path_std" explore "$crown" --headless --keys 'f2' --size 100x30
shows "a failing rsvg-convert" "slide placeto-slide-004.svg written; no PNG" "exited with status 3"
if [ ! -e "$tmp/d/placeto-slide-004.png" ] && [ -z "$(find "$tmp/d" -name '*.tmp.*')" ]; then pass; else
    fail "a failing converter leaves no PNG and no temporary file" "$(ls "$tmp/d")"; fi
# a PNG of the next number already there: that number is skipped, the file kept
echo mine > "$tmp/d/placeto-slide-005.png"
in_dir "$tmp/d" "$path_none" explore "$crown" --headless --keys 'f2' --size 100x30
shows "an existing PNG is skipped" "placeto-slide-006.svg written"
if [ "$(cat "$tmp/d/placeto-slide-005.png")" = mine ] && [ ! -e "$tmp/d/placeto-slide-005.svg" ]; then pass; else
    fail "an existing PNG is never replaced" "$(ls "$tmp/d")"; fi
# --slide-dir and PLACETO_SLIDE_DIR
mkdir -p "$tmp/s1" "$tmp/s2"
in_dir "$tmp" "$path_none" explore "$crown" --headless --keys 'f2' --size 100x30 --slide-dir "$tmp/s1"
shows "--slide-dir" "slide $tmp/s1/placeto-slide-001.svg written"
# shellcheck disable=SC2086
(cd "$tmp" && PATH="$path_none" PLACETO_SLIDE_DIR="$tmp/s2" "$tmo" "$run_limit" $wrap_abs "$absprog" explore "$crown" \
    --headless --keys 'f2' --size 100x30) > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
cmd="PLACETO_SLIDE_DIR=$tmp/s2 placeto explore --keys f2"
shows "PLACETO_SLIDE_DIR" "slide $tmp/s2/placeto-slide-001.svg written"
# directories that cannot be used: a clear message, no crash, the explorer goes on
in_dir "$tmp" "$path_none" explore "$crown" --headless --keys 'space f2' --size 100x30 --slide-dir "$tmp/none"
shows "a missing slide directory" "slide not written: $tmp/none is not a directory" "step 1/18"
mkdir -p "$tmp/ro"
chmod 555 "$tmp/ro"
rodir="$tmp/ro"
if touch "$tmp/ro/probe" 2> /dev/null; then # root writes anyway: /sys refuses new files even to root
    rm -f "$tmp/ro/probe"
    rodir=/sys
fi
in_dir "$tmp" "$path_none" explore "$crown" --headless --keys 'f2' --size 100x30 --slide-dir "$rodir"
shows "a read-only slide directory" "slide not written: $rodir/placeto-slide-001.svg: cannot write"
chmod 755 "$tmp/ro"
# the key in a dialog (the help) and in the tour
in_dir "$tmp/s1" "$path_none" explore "$crown" --headless --keys '? f2' --size 120x100
shows "f2 in the help: the help stays open" "+- Keys" "placeto-slide-002.svg written"
if grep -qF "repaint the whole screen" "$tmp/s1/placeto-slide-002.svg"; then pass; else
    fail "the slide of the help shows the help" "no help text in it"; fi
if grep -qF "write the screen as a slide" "$tmp/s1/placeto-slide-002.svg"; then pass; else
    fail "the help lists the slide key" "no 'write the screen as a slide'"; fi
in_dir "$tmp/s1" "$path_none" demo --headless --keys 'space f2' --size 100x30
shows "f2 in the tour" "placeto-slide-003.svg written"
if grep -qF "Tour 2/" "$tmp/s1/placeto-slide-003.svg"; then pass; else fail "the tour's slide" "no 'Tour 2/' in it"; fi

# ---- the presentation layout ----
in_dir "$tmp" "$path_std" explore "$crown" --headless --keys 'space space P' --size 100x30 --unicode
shows "P: the presentation layout" "Legend" "devices:" "0 /GPU:0" "1 /GPU:1" "idle" "critical path" \
    "the group the policy places now" "Policy" "Timeline"
if ! grep -qF "Devices busy%, memory" "$tmp/out" && ! grep -qF "History" "$tmp/out"; then pass; else
    fail "P: fewer panes" "Devices or History still shown"; fi
# the lanes are taller: each device's blocks or idle shading on a second
# row without its name
lane_rows=$(grep -cE '^│ {7}[▐█▌░]' "$tmp/out")
if [ "$lane_rows" -ge 2 ]; then pass; else fail "P: a tall timeline" "$lane_rows stretched lane rows"; fi
in_dir "$tmp" "$path_std" explore "$crown" --headless --keys 'space space P P' --size 100x30
shows "P again: every pane" "Devices busy%, memory" "History"
if ! grep -qF "Legend" "$tmp/out"; then pass; else fail "P again: no legend" "Legend still shown"; fi
in_dir "$tmp" "$path_std" explore "$crown" --headless --keys 'space' --size 80x24 --present
shows "--present at 80x24" "Legend" "Timeline" "Graph"
in_dir "$tmp" "$path_std" demo --headless --keys 'space space space' --size 120x36 --present
shows "demo --present" "Legend" "Tour 4/"
in_dir "$tmp" "$path_std" explore "$crown" --headless --keys 'P a' --size 120x36
shows "P with a: the sets in the legend" "ancestors" "descendants"
# every size from the smallest up draws without a crash
for s in 60x16 61x17 70x20 90x25 200x60; do
    in_dir "$tmp" "$path_std" explore "$crown" --headless --keys 'space P' --size "$s"
    expect_rc "P at $s" 0 && pass
done

# ---- a real terminal (tmux) ----
if command -v tmux > /dev/null; then
    sock="placeto-slides-$$"
    tm() { tmux -L "$sock" "$@"; }
    trap 'tm kill-server 2> /dev/null; chmod -R u+w "$tmp" 2> /dev/null; rm -rf "$tmp"' EXIT
    screen() { tm capture-pane -p -t sl; }
    check() {
        local i
        cmd="tmux screen of: $1"
        rc=0
        for ((i = 0; i < 100; i++)); do
            if screen | grep -qF -- "$2"; then pass; return; fi
            sleep 0.1
        done
        screen > "$tmp/out"
        : > "$tmp/err"
        fail "$1" "the screen never showed '$2'"
    }
    mkdir -p "$tmp/live"
    tm new-session -d -s keep "sleep 600"
    # shellcheck disable=SC2086  # PLACETO_WRAP is a command line to split
    tm new-session -d -s sl -x 100 -y 30 -c "$tmp/live" \
        "env TERM=xterm-256color LANG=C.UTF-8 PATH=$path_none $wrap_abs $absprog explore $crown; echo EXITED \$?; sleep 30"
    check "tmux: opens" "toy_crown on 2x K80"
    tm send-keys -t sl Space F2
    check "tmux: F2 writes a slide" "slide placeto-slide-001.svg written"
    tm send-keys -t sl / x C-p
    check "tmux: Ctrl-P in the search prompt" "slide placeto-slide-002.svg written"
    tm send-keys -t sl Escape q n # quit, autosaving
    check "tmux: quits" "EXITED 0"
    if grep -qF "step 1/18" "$tmp/live/placeto-slide-001.svg" && grep -qF "search group: x" "$tmp/live/placeto-slide-002.svg"; then
        pass
    else
        fail "tmux: the slides show the screens" "$(ls "$tmp/live")"
    fi
else
    echo "slides: tmux not installed, the terminal session skipped"
fi

echo "slides: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
