#!/usr/bin/python3
"""Turns a tmux capture with colours (`tmux capture-pane -p -e`) into an SVG
image of the terminal: SGR colours (8, 16 and 256), bold, dim, reverse and
underline, one monospace cell per character. Standard library only; the
PNGs are made from the SVGs with rsvg-convert (librsvg2-bin).

    /usr/bin/python3 screenshots/ansi2svg.py capture.ans out.svg [--cols 120] [--rows 36]
"""
import html
import re
import sys

FG, BG = "#d8d8d8", "#1c1c1c"
BASE16 = ["#1c1c1c", "#d75f5f", "#87af5f", "#d7af5f", "#5f87af", "#af87af", "#5fafaf", "#d8d8d8",
          "#767676", "#ff8787", "#afd787", "#ffd787", "#87afd7", "#d7afd7", "#87d7d7", "#ffffff"]
CELL_W, CELL_H, FONT = 8.4, 17, 14


def xterm256(n):
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + 10 * (n - 232)
    return "#%02x%02x%02x" % (v, v, v)


class Pen:
    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = self.bg = None
        self.bold = self.dim = self.rev = self.under = False

    def key(self):
        return (self.fg, self.bg, self.bold, self.dim, self.rev, self.under)

    def apply(self, params):
        ps = [int(p) if p else 0 for p in params.split(";")] if params else [0]
        i = 0
        while i < len(ps):
            p = ps[i]
            if p == 0:
                self.reset()
            elif p == 1:
                self.bold = True
            elif p == 2:
                self.dim = True
            elif p == 4:
                self.under = True
            elif p == 7:
                self.rev = True
            elif p == 22:
                self.bold = self.dim = False
            elif p == 24:
                self.under = False
            elif p == 27:
                self.rev = False
            elif 30 <= p <= 37:
                self.fg = BASE16[p - 30]
            elif 90 <= p <= 97:
                self.fg = BASE16[p - 90 + 8]
            elif 40 <= p <= 47:
                self.bg = BASE16[p - 40]
            elif 100 <= p <= 107:
                self.bg = BASE16[p - 100 + 8]
            elif p == 39:
                self.fg = None
            elif p == 49:
                self.bg = None
            elif p in (38, 48) and i + 2 < len(ps) and ps[i + 1] == 5:
                c = xterm256(ps[i + 2])
                if p == 38:
                    self.fg = c
                else:
                    self.bg = c
                i += 2
            elif p in (38, 48) and i + 4 < len(ps) and ps[i + 1] == 2:
                c = "#%02x%02x%02x" % tuple(ps[i + 2:i + 5])
                if p == 38:
                    self.fg = c
                else:
                    self.bg = c
                i += 4
            i += 1


def parse(text, cols, rows):
    """A rows x cols grid of (char, pen key)."""
    grid = [[(" ", (None, None, False, False, False, False)) for _ in range(cols)] for _ in range(rows)]
    pen = Pen()
    for y, line in enumerate(text.split("\n")[:rows]):
        x = 0
        for m in re.finditer(r"\x1b\[([0-9;]*)m|\x1b\[[0-9;?]*[A-Za-z]|(.)", line):
            if m.group(2) is not None:
                if x < cols:
                    grid[y][x] = (m.group(2), pen.key())
                x += 1
            elif m.group(0).endswith("m") and m.group(1) is not None:
                pen.apply(m.group(1))
    return grid


def colours(key):
    fg, bg, bold, dim, rev, under = key
    f, b = fg or FG, bg or BG
    if rev:
        f, b = b, f
    return f, b, bold, dim, under


def svg(grid, cols, rows):
    w, h = cols * CELL_W, rows * CELL_H
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %.1f %d">' % (
        round(w) + 16, h + 16, w + 16, h + 16),
        '<rect width="100%%" height="100%%" fill="%s"/>' % BG,
        '<g transform="translate(8,8)" font-family="DejaVu Sans Mono, monospace" font-size="%d">' % FONT]
    for y, row in enumerate(grid):
        x = 0
        while x < cols:  # background runs
            f, b, *_ = colours(row[x][1])
            x0 = x
            while x < cols and colours(row[x][1])[1] == b:
                x += 1
            if b != BG:
                out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>' % (
                    x0 * CELL_W, y * CELL_H, (x - x0) * CELL_W + 0.3, CELL_H, b))
    # text after every background, so that no row covers the descenders above it
    for y, row in enumerate(grid):
        x = 0
        while x < cols:  # text runs of one pen
            key = row[x][1]
            x0 = x
            chars = []
            while x < cols and row[x][1] == key:
                chars.append(row[x][0])
                x += 1
            s = "".join(chars)
            if not s.strip():
                continue
            f, b, bold, dim, under = colours(key)
            attrs = ' fill="%s"' % f
            if bold:
                attrs += ' font-weight="bold"'
            if dim:
                attrs += ' fill-opacity="0.6"'
            if under:
                attrs += ' text-decoration="underline"'
            out.append('<text x="%.1f" y="%.1f" textLength="%.1f" lengthAdjust="spacingAndGlyphs"%s xml:space="preserve">%s</text>' % (
                x0 * CELL_W, y * CELL_H + CELL_H * 0.78, len(s) * CELL_W, attrs, html.escape(s)))
    out.append("</g></svg>")
    return "\n".join(out) + "\n"


def main(argv):
    args = argv[1:]
    cols, rows = 120, 36
    if "--cols" in args:
        i = args.index("--cols")
        cols = int(args[i + 1])
        del args[i:i + 2]
    if "--rows" in args:
        i = args.index("--rows")
        rows = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__.strip())
    with open(args[0], encoding="utf-8", errors="replace") as f:
        text = f.read()
    with open(args[1], "w") as f:
        f.write(svg(parse(text, cols, rows), cols, rows))


if __name__ == "__main__":
    main(sys.argv)
