#!/usr/bin/env python3
"""Rewrites a placeto-policy file with hidden size d (default 2) so that it
makes a small fuzzing seed: every tensor keeps its name, its shape follows
core/policy.c's policy_new (F = n_features, nd = n_devices), its data and the
Adam moments are deterministic small numbers. Usage: shrink_policy.py IN OUT [d]."""
import json
import sys


def shape(name, F, d, nd):
    """[rows, cols] of tensor `name` for hidden size d (core/policy.c)."""
    layer, kind = name.rsplit(".", 1)
    if layer == "T0":
        rows, cols = F, d
    elif layer in ("T1", "T2") or layer.split(".")[0] in ("down", "up"):
        rows, cols = d, d
    elif layer.split(".")[0] in ("anc", "desc", "par"):
        rows, cols = 2 * d, 2 * d
    elif layer == "head0":
        rows, cols = 8 * d, 16 * d
    elif layer == "head1":
        rows, cols = 16 * d, 8 * d
    elif layer == "head2":
        rows, cols = 8 * d, nd
    else:
        raise SystemExit("unknown tensor " + name)
    return [1, cols] if kind == "b" else [rows, cols]


def main():
    src, dst = sys.argv[1], sys.argv[2]
    d = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    p = json.load(open(src))
    a = p["architecture"]
    F, nd = a["n_features"], a["n_devices"]
    a["d"] = d
    k = 0
    shapes = []
    for t in p["parameters"]:
        t["shape"] = shape(t["name"], F, d, nd)
        n = t["shape"][0] * t["shape"][1]
        t["data"] = [round(((k + i) % 17 - 8) / 32.0, 6) for i in range(n)]
        shapes.append(n)
        k += 1
    tr = p.get("training")
    if tr:
        tr["adam"]["m"] = [[0.001] * n for n in shapes]
        tr["adam"]["v"] = [[1e-06] * n for n in shapes]
    with open(dst, "w") as f:
        json.dump(p, f, indent=0)
        f.write("\n")


main()
