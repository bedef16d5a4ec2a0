"""Checks an asciinema v2 recording written by `placeto ... --record FILE`.

usage: castcheck.py FILE [--size WxH] [--step S] [--contains TEXT]... [--print]

The header must be one JSON object with version 2, the width and height (and
--size when given), an integer timestamp and an env object with TERM; every
further line one [time, "o", data] array, times never decreasing (multiples
of --step when given). The output is then played on a small terminal model
that knows the sequences the recorder writes (cursor position, erase, SGR,
cursor visibility; anything else fails), and the final screen must contain
every --contains TEXT. --print prints that screen. Exit status 0 or 1 with
the reason on stderr. Needs nothing but Python's standard library.
"""
import json
import re
import sys

CSI = re.compile(r"\x1b\[([0-9;?]*)([A-Za-z])")


def fail(msg):
    sys.stderr.write("castcheck: %s\n" % msg)
    sys.exit(1)


def play(width, height, chunks):
    screen = [[" "] * width for _ in range(height)]
    x = y = 0
    data = "".join(chunks)
    i = 0
    while i < len(data):
        c = data[i]
        if c == "\x1b":
            m = CSI.match(data, i)
            if not m:
                fail("unexpected escape sequence %r" % data[i:i + 12])
            params, final = m.group(1), m.group(2)
            if final == "H":
                parts = [p for p in params.split(";")] if params else []
                row = int(parts[0]) if parts and parts[0] else 1
                col = int(parts[1]) if len(parts) > 1 and parts[1] else 1
                y, x = row - 1, col - 1
            elif final == "J":
                if params != "2":
                    fail("erase %r not expected" % params)
                screen = [[" "] * width for _ in range(height)]
            elif final == "m":
                pass
            elif final in "hl":
                if params != "?25":
                    fail("mode %r not expected" % params)
            else:
                fail("sequence %r not expected" % m.group(0))
            i = m.end()
            continue
        if ord(c) < 0x20 or ord(c) == 0x7F:
            fail("control character %r in the output" % c)
        if x >= width:  # a deferred wrap
            x, y = 0, y + 1
        if 0 <= y < height and 0 <= x < width:
            screen[y][x] = c
        x += 1
        i += 1
    return ["".join(r).rstrip() for r in screen]


def main():
    args = sys.argv[1:]
    if not args:
        fail("usage: castcheck.py FILE [--size WxH] [--step S] [--contains TEXT]... [--print]")
    path, size, step, contains, show = args[0], None, None, [], False
    k = 1
    while k < len(args):
        if args[k] == "--size":
            size = args[k + 1]
            k += 2
        elif args[k] == "--step":
            step = float(args[k + 1])
            k += 2
        elif args[k] == "--contains":
            contains.append(args[k + 1])
            k += 2
        elif args[k] == "--print":
            show = True
            k += 1
        else:
            fail("unknown argument %r" % args[k])
    try:
        with open(path, "rb") as f:
            raw = f.read()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        fail("%s: %s" % (path, e))
    if not text.endswith("\n"):
        fail("the file does not end with a newline")
    lines = text[:-1].split("\n")
    try:
        header = json.loads(lines[0])
    except ValueError as e:
        fail("header: %s" % e)
    if not isinstance(header, dict) or header.get("version") != 2:
        fail("header: version is not 2: %r" % lines[0][:200])
    w, h = header.get("width"), header.get("height")
    if not isinstance(w, int) or not isinstance(h, int) or w <= 0 or h <= 0:
        fail("header: bad width/height %r x %r" % (w, h))
    if size and "%dx%d" % (w, h) != size:
        fail("header: size %dx%d, expected %s" % (w, h, size))
    if not isinstance(header.get("timestamp"), int):
        fail("header: timestamp is not an integer")
    env = header.get("env")
    if not isinstance(env, dict) or not isinstance(env.get("TERM"), str):
        fail("header: env.TERM missing")
    if len(lines) < 2:
        fail("no events")
    last, chunks = 0.0, []
    for n, line in enumerate(lines[1:], 2):
        try:
            ev = json.loads(line)
        except ValueError as e:
            fail("line %d: %s" % (n, e))
        if not (isinstance(ev, list) and len(ev) == 3 and isinstance(ev[0], (int, float))
                and ev[1] == "o" and isinstance(ev[2], str)):
            fail("line %d: not a [time, \"o\", data] event: %r" % (n, line[:100]))
        if ev[0] < last:
            fail("line %d: time %r before %r" % (n, ev[0], last))
        if step and abs(ev[0] / step - round(ev[0] / step)) > 1e-6:
            fail("line %d: time %r is not a multiple of %r" % (n, ev[0], step))
        last = ev[0]
        chunks.append(ev[2])
    screen = play(w, h, chunks)
    whole = "\n".join(screen)
    for t in contains:
        if t not in whole:
            fail("the final screen does not show %r:\n%s" % (t, whole))
    if show:
        print(whole)


main()
