#!/usr/bin/env bash
# The rendered exports: `export --dot` text against goldens
# (tests/data/golden/export_*.dot; `PLACETO_UPDATE_GOLDEN=1 bash
# tests/cli/cli_export.sh` or `make update-golden` rewrites them), --svg and
# --png drawn through Graphviz's library, --level op, the title, legend,
# critical path and cross-device edges, determinism, a ResNet-18 render in
# seconds, and clear errors for files that cannot be written.
cd "$(dirname "$0")/../.." || exit 1
. tests/cli/lib_cli.sh

diamond=graphs/toy/diamond.json
dsplit=graphs/placements/diamond_split.json
crown=graphs/toy/crown.json
c3=graphs/placements/crown_3way.json
resnet=graphs/resnet18.json

# golden NAME FILE: FILE equals tests/data/golden/export_NAME.dot
golden() { golden_file "$1" "tests/data/golden/export_$1.dot" "$2" "the DOT"; }

# ---------------------------------------------------------------- goldens
run export "$diamond" --placement "$dsplit" --dot "$tmp/diamond.dot"
expect_rc "export --dot (diamond)" 0 && golden diamond "$tmp/diamond.dot"
run export "$crown" --placement "$c3" --dot "$tmp/crown.dot"
expect_rc "export --dot (crown)" 0 && golden crown "$tmp/crown.dot"
run export "$crown" --placement "$c3" --dot "$tmp/crown_ops.dot" --level op
expect_rc "export --dot --level op (crown)" 0 && golden crown_ops "$tmp/crown_ops.dot"
# --dot-ops is --level op
run export "$crown" --placement "$c3" --dot "$tmp/crown_ops2.dot" --dot-ops
if expect_rc "export --dot-ops (crown)" 0; then
    if cmp -s "$tmp/crown_ops.dot" "$tmp/crown_ops2.dot"; then pass; else fail "--dot-ops" "differs from --level op"; fi
fi

# ---------------------------------------------------------------- content
# The title names the graph, cluster and makespan; the legend names every
# device with its colour; the critical path is marked; cross-device edges
# are dashed with their bytes as a label; same-device ones are not labelled;
# group labels lead with the op kind, not the group's name.
content='
import re, sys
text = open(sys.argv[1]).read()
level = sys.argv[2]
assert text.startswith("strict digraph placement {"), text[:40]
title = re.search(r"label=<(.*)>,\n", text)
assert title, "no HTML title"
t = title.group(1)
for want in ("toy_crown", "3x K80", "makespan <B>", "/GPU:0", "/GPU:1", "/GPU:2", "#a6cee3", "#b2df8a", "#fb9a99",
             "critical path"):
    assert want in t, "the title lacks %r: %s" % (want, t[:300])
assert not re.search(r"cluster_\d", text), "a device cluster is left"
ID = r"(\w+|\"[^\"]+\")"
nodes = re.findall(r"\n\t+" + ID + r"\t\[([^\]]*)\]", text)
edges = re.findall(r"\n\t" + ID + " -> " + ID + r"\t\[([^\]]*)\]", text)
if len(sys.argv) > 3:
    assert len(nodes) == int(sys.argv[3]), "%d nodes, expected %s" % (len(nodes), sys.argv[3])
assert nodes and edges
crit = [n for n, a in nodes if "critical=1" in a]
assert crit, "no node on the critical path"
assert any("critical=1" in a for _, _, a in edges), "no critical edge"
dev = {n: re.search(r"device=\"([^\"]+)\"", a).group(1) for n, a in nodes}
cross = 0
for s, d, a in edges:
    if dev[s] != dev[d]:
        cross += 1
        assert "style=dashed" in a and re.search(r"xlabel=\"[0-9.]+ [kMG]?B\"", a), "cross edge %s->%s: %s" % (s, d, a)
    else:
        assert "label" not in a and "dashed" not in a, "same-device edge %s->%s: %s" % (s, d, a)
assert cross, "no cross-device edge"
if level == "group":
    for n, a in nodes:
        lab = re.search(r"label=\"([^\"]*)\"", a).group(1)
        kind = re.search(r"\bop=(\w+)", a).group(1)
        assert lab.startswith(kind + " ("), "group %s labelled %r, not by its op kind %s" % (n, lab, kind)
        assert re.search(r"\(\d+ ops?\)", lab) and re.search(r"[0-9.]+ (µs|ms|s)$", lab), lab
'
pycheck "DOT content (crown, groups)" "$content" "$tmp/crown.dot" group
# --level op: one node per op
ops=$("$py" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["nodes"]))' "$crown")
pycheck "DOT content (crown, ops)" "$content" "$tmp/crown_ops.dot" op "$ops"

# determinism: the same bytes twice
run export "$crown" --placement "$c3" --dot "$tmp/crown2.dot"
if expect_rc "export --dot again" 0; then
    if cmp -s "$tmp/crown.dot" "$tmp/crown2.dot"; then pass; else fail "determinism" "a second run wrote other bytes"; fi
fi

# ---------------------------------------------------------------- SVG, PNG
is_svg() { head -c 200 "$1" | grep -qE '^(<\?xml|<svg)' && grep -q '</svg>' "$1"; }
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
run export "$crown" --placement "$c3" --svg "$tmp/crown.svg" --png "$tmp/crown.png" --dot "$tmp/crown3.dot"
if expect_rc "export --svg --png --dot" 0; then
    if ! is_svg "$tmp/crown.svg"; then fail "--svg" "not an SVG file"
    elif ! is_png "$tmp/crown.png"; then fail "--png" "no PNG signature"
    elif ! cmp -s "$tmp/crown.dot" "$tmp/crown3.dot"; then fail "--dot with --svg" "the DOT changed"
    elif ! grep -q "wrote SVG $tmp/crown.svg" "$tmp/err" || ! grep -q "wrote PNG $tmp/crown.png" "$tmp/err"; then
        fail "--svg/--png notes" "no 'wrote' notes"
    elif ! grep -q 'toy_crown' "$tmp/crown.svg" || ! grep -q 'makespan' "$tmp/crown.svg"; then
        fail "--svg" "the title is not drawn"
    else pass; fi
fi
run export "$crown" --placement "$c3" --svg "$tmp/crown_ops.svg" --level op
if expect_rc "export --svg --level op" 0; then
    if is_svg "$tmp/crown_ops.svg" && grep -q '>a_0<\|>b0<\|class="node"' "$tmp/crown_ops.svg"; then pass; else
        fail "--svg --level op" "not an SVG with nodes"; fi
fi
run simulate "$diamond" --placement "$dsplit" --png "$tmp/d.png"
if expect_rc "simulate --png" 0; then
    if is_png "$tmp/d.png"; then pass; else fail "simulate --png" "no PNG signature"; fi
fi
# ResNet-18's 100 groups on 2 devices: drawn in seconds (run's limit is
# 20 s; not under valgrind, which is many times slower)
run place "$resnet" --method heft --devices 2 -o "$tmp/r.json"
if expect_rc "place resnet18 heft" 0 && [[ "${PLACETO_WRAP:-}" != valgrind* ]]; then
    t0=$(date +%s)
    run export "$resnet" --placement "$tmp/r.json" --png "$tmp/r.png" --dot "$tmp/r.dot"
    t1=$(date +%s)
    if expect_rc "export --png (resnet18)" 0; then
        if ! is_png "$tmp/r.png"; then fail "resnet18 --png" "no PNG signature"
        elif [ -z "${PLACETO_WRAP:-}" ] && [ $((t1 - t0)) -gt 10 ]; then fail "resnet18 --png" "took $((t1 - t0)) s"
        else pass; fi
        # the long chain is folded into columns: a picture about as wide as tall
        pycheck "resnet18 render: columns and aspect ratio" '
import struct, sys
w, h = struct.unpack(">II", open(sys.argv[1], "rb").read(24)[16:24])
assert 0.4 < w / h < 2.5, "%dx%d px" % (w, h)
assert w * h < 12e6, "%dx%d px" % (w, h)
text = open(sys.argv[2]).read()
assert "cluster_column1" in text and "newrank=true" in text, "not folded into columns"
' "$tmp/r.png" "$tmp/r.dot"
    fi
fi

# ---------------------------------------------------------------- errors
usage_error "export --level bad" export "$crown" --placement "$c3" --dot "$tmp/x.dot" --level layer
usage_error "export --svg without --placement" export "$crown" --svg "$tmp/x.svg"
for opt in dot svg png; do
    run export "$crown" --placement "$c3" --$opt "$tmp/nodir/x.$opt"
    if expect_rc "export --$opt into a missing directory" 1; then
        if grep -q "^placeto: $tmp/nodir/x.$opt: cannot write" "$tmp/err"; then pass; else
            fail "export --$opt error" "the message does not name the file"; fi
    fi
done
# a render that cannot be written leaves no file and no temporary file behind
mkdir -p "$tmp/ro"
echo old > "$tmp/ro/keep.png"
chmod 555 "$tmp/ro"
run export "$crown" --placement "$c3" --png "$tmp/ro/keep.png"
if [ "$(id -u)" -ne 0 ]; then
    if expect_rc "export --png into a read-only directory" 1; then
        if [ "$(cat "$tmp/ro/keep.png")" = old ] && [ "$(ls "$tmp/ro")" = keep.png ] && grep -q "$tmp/ro/keep.png" "$tmp/err"; then
            pass
        else
            fail "atomic --png" "the old file changed or a temporary file is left: $(ls "$tmp/ro")"
        fi
    fi
fi
chmod 755 "$tmp/ro"

echo "export: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
