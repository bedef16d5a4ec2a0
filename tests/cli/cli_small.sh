#!/usr/bin/env bash
# The small ones of reliability round 3: standard output closed, bidirectional
# controls in names, bundled graphs named without their path, model files
# given where a graph goes. Prints "small: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

g=graphs/toy/crown.json

# ------------------------------------------------ standard output closed
cmd="placeto info $g --json >&-"
timeout "$run_limit" $wrap "$prog" info "$g" --json >&- 2> "$tmp/err"
rc=$?
if expect_rc "info --json with standard output closed" 1; then
    if grep -q "standard output is closed" "$tmp/err"; then pass; else fail "stdout closed: said" "$(flat "$tmp/err")"; fi
fi
# a command that writes nothing there is not bothered
cmd="placeto simulate G --placement P --trace T >&- (quiet)"
run place "$g" --method heft -o "$tmp/p.json"
timeout "$run_limit" $wrap "$prog" export "$g" --placement "$tmp/p.json" --dot "$tmp/x.dot" >&- 2> "$tmp/err"
rc=$?
expect_rc "export with standard output closed (it prints nothing there)" 0 && pass

# ------------------------------------------------ bidirectional controls shown, not obeyed
"$py" - "$tmp/bidi.json" << 'EOF'
import json, sys
nodes = [{"name": "a\u202egnp.exe", "op": "input", "cost_us": 1.0, "output_bytes": [10]},
         {"name": "b\u2066x\u2069\u200f", "op": "relu", "cost_us": 1.0, "output_bytes": [10]},
         {"name": "c\u0085\u061cz", "op": "relu", "cost_us": 1.0, "output_bytes": [10]}]
json.dump({"format": "placeto-graph", "version": 1, "name": "bidi\u202ex", "nodes": nodes,
           "edges": [{"src": nodes[0]["name"], "dst": nodes[1]["name"]}, {"src": nodes[1]["name"], "dst": nodes[2]["name"]}]},
          open(sys.argv[1], "w"))
EOF
run info "$tmp/bidi.json"
if expect_rc "info on names with bidirectional controls" 0; then
    if grep -qF "bidi<U+202E>x" "$tmp/out"; then pass; else fail "the graph's name: <U+202E>" "$(flat "$tmp/out")"; fi
    if ! grep -qP '[\x{200e}\x{200f}\x{202a}-\x{202e}\x{2066}-\x{2069}\x{061c}]' "$tmp/out" "$tmp/err"; then pass
    else fail "no raw bidirectional control on stdout or stderr" "found one"; fi
fi
run place "$tmp/bidi.json" --method single -o "$tmp/bidi_p.json"
expect_rc "place on those names" 0 && pass
pycheck "the placement file keeps the names exact" \
    'import json,sys; d=json.load(open(sys.argv[1])); assert "a\u202egnp.exe" in d["ops"], d["ops"]' "$tmp/bidi_p.json"
run place "$tmp/bidi.json" --method single -o -
pycheck "-o - keeps the names exact" \
    'import json,sys; d=json.load(open(sys.argv[1])); assert "c\u0085\u061cz" in d["ops"], d["ops"]' "$tmp/out"
# plain UTF-8 passes
"$py" -c 'import json,sys; json.dump({"format": "placeto-graph", "version": 1, "name": "caf\u00e9 \u65e5\u672c \u0627\u0644", "nodes": [{"name": "x", "op": "input", "cost_us": 1.0}], "edges": []}, open(sys.argv[1], "w"))' "$tmp/utf8.json"
run info "$tmp/utf8.json"
if expect_rc "info on plain UTF-8" 0; then
    if grep -qF "café 日本 ال" "$tmp/out"; then pass; else fail "plain UTF-8 passes" "$(flat "$tmp/out")"; fi
fi

# ------------------------------------------------ bundled graphs by name
absprog=$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog")
dir=$(mktemp -d)
cmd="(in an empty directory) placeto info inception_v3"
(cd "$dir" && timeout "$run_limit" $wrap "$absprog" info inception_v3) > "$tmp/out" 2> "$tmp/err"
rc=$?
if expect_rc "a bundled graph by name" 0; then
    if grep -qE "^graph +inception_v3 \(.*graphs/inception_v3.json\)" "$tmp/out"; then pass
    else fail "the bundled file named" "$(flat "$tmp/out")"; fi
fi
cmd="(in an empty directory) placeto info families/nmt/nmt_variant_24.json"
(cd "$dir" && timeout "$run_limit" $wrap "$absprog" info families/nmt/nmt_variant_24.json) > "$tmp/out" 2> "$tmp/err"
rc=$?
expect_rc "a bundled family graph by its relative name" 0 && pass
# a file here wins over the bundled one
cp "$g" "$dir/inception_v3.json"
cmd="(with ./inception_v3.json) placeto info inception_v3.json"
(cd "$dir" && timeout "$run_limit" $wrap "$absprog" info inception_v3.json) > "$tmp/out" 2> "$tmp/err"
rc=$?
if expect_rc "a file here before the bundled one" 0; then
    if grep -q "toy_crown" "$tmp/out"; then pass; else fail "the file here is read" "$(flat "$tmp/out")"; fi
fi
rm -rf "$dir"
run info no_such_graph_anywhere
if [ "$rc" -eq 1 ] && grep -q "no_such_graph_anywhere: cannot open" "$tmp/err"; then pass
else fail "an unknown name: cannot open" "rc $rc $(flat "$tmp/err")"; fi

# ------------------------------------------------ a model where a graph goes
for f in model.onnx model.py model.pt; do
    run info "$tmp/$f"
    if [ "$rc" -eq 1 ] && grep -q "not a placeto graph" "$tmp/err" && grep -q "placeto-import-" "$tmp/err"; then pass
    else fail "info $f: the importer's command" "rc $rc $(flat "$tmp/err")"; fi
done
run info "$tmp/model.onnx"
if grep -qF "placeto-import-onnx $tmp/model.onnx -o GRAPH.json" "$tmp/err"; then pass
else fail "info model.onnx: the exact command" "$(flat "$tmp/err")"; fi

echo "small: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
