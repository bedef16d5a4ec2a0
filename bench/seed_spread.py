#!/usr/bin/python3
"""One results table over several placement seeds: reads the JSON files a
results script wrote once per seed (--seed S --tag ..._sS), matches their
rows by the key fields and prints, per row and column, the mean over the
seeds and the half-width of its 95 % interval (Student's t, n - 1 degrees
of freedom), with the range over the seeds.

    /usr/bin/python3 bench/seed_spread.py --keys set,family,agent --cols trained,untrained,gain FILE...

A gain (a column named gain or vs_ils, a fraction) is shown in percent.
With --ratio-to FIELD (files of one row per graph, as bench/fresh_families.py
writes), each column is first divided by the row's FIELD and the rows with
the same keys averaged, per file.
"""
import json
import math
import sys

T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}


def spread(xs):
    """(mean, half-width of the 95 % interval, min, max)"""
    n = len(xs)
    m = sum(xs) / n
    if n < 2:
        return m, float("nan"), m, m
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    return m, T95.get(n - 1, 1.96) * sd / math.sqrt(n), min(xs), max(xs)


def main(argv):
    keys, cols, files, ratio = [], [], [], None
    while argv:
        a = argv.pop(0)
        if a == "--keys" and argv:
            keys = argv.pop(0).split(",")
        elif a == "--cols" and argv:
            cols = argv.pop(0).split(",")
        elif a == "--ratio-to" and argv:
            ratio = argv.pop(0)
        else:
            files.append(a)
    if not keys or not cols or len(files) < 2:
        sys.exit("seed_spread.py: usage: seed_spread.py --keys K,... --cols C,... FILE FILE...")
    docs = []
    for f in files:
        with open(f) as fh:
            d = json.load(fh)
        rows = d["rows"] if isinstance(d, dict) else d
        if ratio:
            groups = {}
            for r in rows:
                groups.setdefault(tuple(r.get(k) for k in keys), []).append(r)
            rows = [dict(zip(keys, k), **{c: sum(r[c] / r[ratio] for r in g) / len(g) for c in cols})
                    for k, g in groups.items()]
        docs.append(rows)
    order = [tuple(r.get(k) for k in keys) for r in docs[0]]
    by = [{tuple(r.get(k) for k in keys): r for r in rows} for rows in docs]
    print("%d seeds (%s); mean ± half-width of the 95 %% interval [min – max over the seeds]" % (
        len(files), ", ".join(files)))
    print("")
    print("| " + " | ".join(keys + cols) + " |")
    print("|" + "---|" * (len(keys) + len(cols)))
    for k in order:
        if not all(k in b for b in by):
            sys.exit("seed_spread.py: row %s is not in every file" % (k,))
        cells = [str(x) for x in k]
        for c in cols:
            if any(c not in b[k] for b in by):
                cells.append("—")
                continue
            pct = c in ("gain", "vs_ils")
            m, h, lo, hi = spread([b[k][c] * (100 if pct else 1) for b in by])
            fmt = "%+.1f" if pct else "%.3f"
            cells.append((fmt + " ± %.1f [" + fmt + " – " + fmt + "]" if pct else
                          fmt + " ± %.3f [" + fmt + " – " + fmt + "]") % (m, h, lo, hi) + (" %" if pct else ""))
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
