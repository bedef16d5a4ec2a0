#!/usr/bin/env bash
# ONNX importer tests (graphs/import/onnx_graph.py): builds a small CNN with
# onnx.helper (symbolic batch "N"; Conv 3x3 with bias, Relu, a residual Add,
# MaxPool, a Shape/Gather/Unsqueeze/Concat/Reshape flatten, Gemm, Softmax),
# imports it with --batch 8 and checks the op and edge counts (folded ops
# gone), the Conv cost against the roofline formula, output bytes, edges,
# the weights colocated with their consumers (fewer groups than ops in
# `placeto info --json`, which loads the result), the progress lines, the
# summary's critical path share against placeto's, the inference notice,
# --quiet, determinism, --batch (the first dimension only) against --dim
# (a model with a symbolic "seq": an error without --dim, fine with it),
# --help and errors; --kind-costs cpu=xeon: cost_us_by_kind.cpu of the Conv
# and the Relu against the Xeon roofline computed here by hand, 0 for inputs
# and weights, none without the option, a bad value refused. Skipped (0
# passed, 0 failed) when python3-onnx is not installed.
#
# Runs the program as `$PLACETO_WRAP $PLACETO_PROG ...` (see tests/run.sh;
# defaults ./placeto and no wrapper), each run under a 20 s timeout. Prints
# one line per failure and finally "onnx: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh
importer=graphs/import/onnx_graph.py

if ! "$py" -c 'import onnx' > /dev/null 2>&1; then
    echo "onnx: python3-onnx is not installed: ONNX importer test skipped"
    echo "onnx: 0 passed, 0 failed"
    exit 0
fi

cmd="" rc=0
: > "$tmp/out"; : > "$tmp/err"

# imp ARGS...: runs the importer; sets rc, cmd; stdout in $tmp/out, stderr in $tmp/err
imp() {
    cmd="$py $importer $*"
    timeout 60 "$py" "$importer" "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
}

# check NAME SCRIPT ARGS...: runs a Python check; its output is the reason
check() {
    local name=$1 script=$2
    shift 2
    if "$py" -c "$script" "$@" > "$tmp/py" 2>&1; then
        pass
    else
        cmd="python check"
        fail "$name" "$(flat "$tmp/py")"
    fi
}

# ----------------------------------------------------------- build the models
cmd="build test models"
if ! "$py" - "$tmp" > "$tmp/out" 2> "$tmp/err" <<'EOF'
import sys
import numpy as np
import onnx
from onnx import helper, TensorProto, numpy_helper
d = sys.argv[1]
rng = np.random.RandomState(0)
def init(name, arr):
    return numpy_helper.from_array(arr, name)
inits = [
    init("conv.W", rng.randn(16, 3, 3, 3).astype(np.float32)),
    init("conv.B", rng.randn(16).astype(np.float32)),
    init("fc.W", rng.randn(10, 16 * 16 * 16).astype(np.float32)),
    init("fc.B", rng.randn(10).astype(np.float32)),
    init("zero", np.array(0, dtype=np.int64)),           # scalar index
    init("axes0", np.array([0], dtype=np.int64)),
    init("minus1", np.array([-1], dtype=np.int64)),
]
nodes = [
    helper.make_node("Conv", ["x", "conv.W", "conv.B"], ["c"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c"], ["r"], name=""),                 # unnamed: Relu_1
    helper.make_node("Add", ["r", "c"], ["a"], name="residual"),
    helper.make_node("MaxPool", ["a"], ["p"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
    helper.make_node("Shape", ["p"], ["s"], name="shape"),
    helper.make_node("Gather", ["s", "zero"], ["n"], name="gather", axis=0),
    helper.make_node("Unsqueeze", ["n", "axes0"], ["nu"], name="unsqueeze"),
    helper.make_node("Concat", ["nu", "minus1"], ["shp"], name="concat", axis=0),
    helper.make_node("Reshape", ["p", "shp"], ["f"], name="flatten"),
    helper.make_node("Gemm", ["f", "fc.W", "fc.B"], ["g"], name="fc", transB=1),
    helper.make_node("Softmax", ["g"], ["y"], name="softmax", axis=1),
]
graph = helper.make_graph(nodes, "tiny_cnn",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 32, 32])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])], inits)
model = helper.make_model(graph, producer_name="cli_onnx.sh", producer_version="1",
                          opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, d + "/tiny.onnx")
# no shapes at all: the input has no shape, so nothing can be inferred
g2 = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "noshape",
                       [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
onnx.save(helper.make_model(g2, opset_imports=[helper.make_opsetid("", 13)]), d + "/noshape.onnx")
# a sequence model: batch "N" first, a symbolic "seq" second, MatMul by a 16x8 weight
g3 = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="proj")], "seqmodel",
                       [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "seq", 16])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", "seq", 8])],
                       [init("w", rng.randn(16, 8).astype(np.float32))])
onnx.save(helper.make_model(g3, opset_imports=[helper.make_opsetid("", 13)]), d + "/seq.onnx")
# a fixed batch dimension of 2
g4 = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "fixed",
                       [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5])])
onnx.save(helper.make_model(g4, opset_imports=[helper.make_opsetid("", 13)]), d + "/fixed.onnx")
EOF
then
    rc=1
    fail "build models" "the test models could not be built"
    echo "onnx: $passed passed, $failed failed"
    exit 1
fi

# ------------------------------------------------------------------ import
model=$tmp/tiny.onnx
out=$tmp/tiny.json
imp "$model" -o "$out" --batch 8
if [ "$rc" -eq 0 ] && [ -s "$out" ]; then pass; else fail "import" "exit status $rc or no output file"; fi
if grep -q 'warning' "$tmp/err"; then fail "import warnings" "unexpected warning on stderr"; else pass; fi

check "graph contents" '
import json, sys
g = json.load(open(sys.argv[1]))
err = []
def want(cond, msg):
    if not cond: err.append(msg)
want(g.get("format") == "placeto-graph" and g.get("version") == 1, "format/version")
want(g.get("name") == "tiny", "name %r" % g.get("name"))
src = g.get("source", "")
for s in ("onnx_graph.py from", "producer cli_onnx.sh 1", "opset 13", "roofline model of k80", "batch 8", "onnx ", "python ", "--batch 8"):
    want(s in src, "source lacks %r" % s)
nodes = {n["name"]: n for n in g["nodes"]}
names = [n["name"] for n in g["nodes"]]
want(len(names) == len(set(names)), "duplicate names")
# 1 input + 4 weights + conv relu add maxpool gemm softmax; Shape Gather Unsqueeze Concat Reshape folded,
# the int64 initializers (zero, axes0, minus1) unused
want(len(names) == 11, "%d ops, expected 11: %s" % (len(names), names))
for gone in ("shape", "gather", "unsqueeze", "concat", "flatten", "zero", "axes0", "minus1"):
    want(gone not in nodes, "folded/unused %r still present" % gone)
want(names[:5] == ["x", "conv.W", "conv.B", "fc.W", "fc.B"], "sources first in first-use order: %s" % names[:5])
want(names[5:] == ["conv", "Relu_1", "residual", "pool", "fc", "softmax"], "op order %s" % names[5:])
ops = {k: v["op"] for k, v in nodes.items()}
want(ops.get("x") == "input" and all(ops.get(w) == "variable" for w in ("conv.W", "conv.B", "fc.W", "fc.B")), "input/variable ops")
want(ops.get("conv") == "conv" and ops.get("Relu_1") == "relu" and ops.get("fc") == "gemm", "op types %s" % ops)
# each weight shares the name of its consumer as colocation key, and so does the consumer
coloc = {k: v.get("colocate") for k, v in nodes.items()}
want(coloc == {"x": None, "conv.W": "conv", "conv.B": "conv", "fc.W": "fc", "fc.B": "fc", "conv": "conv",
               "Relu_1": None, "residual": None, "pool": None, "fc": "fc", "softmax": None},
     "colocate keys %s" % coloc)
want("4 weights colocated" in src, "source lacks the colocation count")
want(all(n["cost_us"] == 0 for n in g["nodes"][:5]), "sources cost 0")
ob = lambda k: nodes[k]["output_bytes"] if k in nodes else None
want(ob("x") == [8 * 3 * 32 * 32 * 4], "x bytes %s" % ob("x"))
want(ob("conv.W") == [16 * 3 * 3 * 3 * 4] and ob("fc.W") == [10 * 4096 * 4], "weight bytes")
want(ob("conv") == [8 * 16 * 32 * 32 * 4], "conv output_bytes %s" % ob("conv"))
want(ob("pool") == [8 * 16 * 16 * 16 * 4], "pool output_bytes %s" % ob("pool"))
want(ob("fc") == [8 * 10 * 4], "fc output_bytes %s" % ob("fc"))
# roofline (k80): 10 us + max(FLOPs / 2.8e12, bytes / 160e9) s
flops = 2 * (8 * 16 * 32 * 32) * 3 * 9 + 8 * 16 * 32 * 32
moved = (8 * 3 * 32 * 32 + 16 * 27 + 16 + 8 * 16 * 32 * 32) * 4
want(abs(nodes["conv"]["cost_us"] - round(10 + max(flops / 2.8e12, moved / 160e9) * 1e6, 3)) < 1e-9,
     "conv cost %s" % nodes["conv"]["cost_us"])
flops = 2 * 8 * 4096 * 10 + 8 * 10
moved = (8 * 4096 + 10 * 4096 + 10 + 8 * 10) * 4
want(abs(nodes["fc"]["cost_us"] - round(10 + max(flops / 2.8e12, moved / 160e9) * 1e6, 3)) < 1e-9,
     "gemm cost %s" % nodes["fc"]["cost_us"])
moved = 3 * 8 * 16 * 32 * 32 * 4
want(abs(nodes["residual"]["cost_us"] - round(10 + moved / 160e9 * 1e6, 3)) < 1e-9, "add cost %s" % nodes["residual"]["cost_us"])
E = [(e["src"], e["dst"], e.get("output", 0)) for e in g["edges"]]
want(all(s in nodes and d in nodes for s, d, _ in E), "edge to a missing op")
want(all(0 <= o < len(nodes[s]["output_bytes"]) for s, d, o in E if s in nodes), "edge output index out of range")
want(len(E) == len(set(E)), "duplicate edges")
expect = {("x", "conv", 0), ("conv.W", "conv", 0), ("conv.B", "conv", 0), ("conv", "Relu_1", 0),
          ("Relu_1", "residual", 0), ("conv", "residual", 0), ("residual", "pool", 0),
          ("pool", "fc", 0), ("fc.W", "fc", 0), ("fc.B", "fc", 0), ("fc", "softmax", 0)}
want(set(E) == expect, "edges: extra %s, missing %s" % (sorted(set(E) - expect), sorted(expect - set(E))))
pos = {k: i for i, k in enumerate(names)}
want(all(pos[s] < pos[d] for s, d, _ in E if s in pos and d in pos), "node order not topological")
if err:
    sys.exit("; ".join(err))
' "$out"

run info "$out" --json
if [ "$rc" -eq 0 ]; then
    pass
    cp "$tmp/out" "$tmp/info.json"
    check "info --json" '
import json, sys
j = json.load(open(sys.argv[1]))
if j.get("ops") != 11 or j.get("edges") != 11:
    sys.exit("info: ops %r edges %r, expected 11 and 11" % (j.get("ops"), j.get("edges")))
' "$tmp/out"
    # every op would be a group of its own (11 ops, under 200); the weights go with their consumers
    run info "$out" --json --groups 11
    check "weights colocated: fewer groups than ops" '
import json, sys
j = json.load(open(sys.argv[1]))
if not j.get("groups", 99) < j.get("ops", 0):
    sys.exit("groups %r, ops %r: expected fewer groups than ops" % (j.get("groups"), j.get("ops")))
' "$tmp/out"
else
    why=$(crash_reason) || true
    fail "info --json" "exit status $rc, expected 0 ${why:-}"
fi

# ------------------------------------------ progress, summary and the notice
cmd="$py $importer $model -o $out --batch 8"
imp "$model" -o "$out" --batch 8
for phase in "loading $model" "inferring the shapes of 11 nodes" "converting and costing" "writing $out"; do
    if grep -qE "^onnx_graph.py: [0-9]+\.[0-9] s: $phase" "$tmp/err"; then pass
    else fail "progress line" "no '$phase' progress line on stderr"; fi
done
cp "$tmp/err" "$tmp/import.err"
check "summary and inference notice" '
import json, re, sys
err = open(sys.argv[1]).read()
info = json.load(open(sys.argv[2]))
m = re.search(r"wrote \S+ in [0-9.]+ s: 11 ops \(11 ONNX nodes, 5 folded; 4 weights colocated\), 11 edges, "
              r"total cost ([0-9.]+) us on k80; critical path ([0-9.]+) us = ([0-9.]+)% of the total cost "
              r"\(op costs only, transfers ignored\)", err)
if not m:
    sys.exit("no summary line with ops, edges, total cost and critical path share: %r" % err)
total, cp, share = map(float, m.groups())
if abs(total - info["total_cost_us"]) > 0.01 or abs(cp - info["critical_path_us"]) > 0.01:
    sys.exit("summary %s / %s us, placeto info %s / %s us" % (total, cp, info["total_cost_us"], info["critical_path_us"]))
if abs(share - round(100 * cp / total, 1)) > 0.051:
    sys.exit("share %s%%, expected %.1f%%" % (share, 100 * cp / total))
n = re.search(r"notice: this is an inference graph .*critical path is ([0-9.]+)% of the total cost, so no "
              r"placement runs it more than ([0-9.]+)x faster than one device.*training graphs.*torch_graph.py", err)
if not n:
    sys.exit("no inference notice naming the critical path share and torch_graph.py: %r" % err)
if n.group(1) != m.group(3):
    sys.exit("notice share %s%%, summary %s%%" % (n.group(1), m.group(3)))
' "$tmp/import.err" "$tmp/info.json"
imp "$model" -o "$tmp/quiet.json" --batch 8 --quiet
if [ "$rc" -eq 0 ] && ! grep -qE '^onnx_graph.py: [0-9.]+ s: ' "$tmp/err" && grep -q 'critical path' "$tmp/err" && grep -q 'notice: this is an inference graph' "$tmp/err"
then pass; else fail "--quiet" "expected no progress lines, but the summary and the notice"; fi

# ---------------------------------------------------- determinism, options
cp "$out" "$tmp/first.json"
imp "$model" -o "$out" --batch 8
if [ "$rc" -eq 0 ] && cmp -s "$out" "$tmp/first.json"; then pass; else fail "determinism" "a second import differs (or failed)"; fi
left=$(find "$tmp" -name '*.tmp' | head -n 1)
if [ -n "$left" ]; then fail "atomic write" "temporary file $left left behind"; else pass; fi

imp "$model" -o "$tmp/v100.json" --batch 2 --device v100 --name mini
if [ "$rc" -eq 0 ]; then
    check "--device/--name/--batch" '
import json, sys
g = json.load(open(sys.argv[1]))
n = {x["name"]: x for x in g["nodes"]}
assert g["name"] == "mini", g["name"]
assert "roofline model of v100" in g["source"] and "batch 2" in g["source"], g["source"]
assert n["conv"]["output_bytes"] == [2 * 16 * 32 * 32 * 4], n["conv"]["output_bytes"]
assert n["softmax"]["cost_us"] >= 5 and n["softmax"]["cost_us"] < 6, n["softmax"]["cost_us"]
' "$tmp/v100.json"
else
    fail "--device/--name/--batch" "exit status $rc"
fi

# ------------------------------------------------------------ help, errors
imp --help
if [ "$rc" -eq 0 ] && grep -q 'cost_us = launch_us' "$tmp/out" && grep -q -- '--batch' "$tmp/out"; then pass
else fail "--help" "exit status $rc or no cost model/options in the help"; fi
# --batch is the first dimension, --dim the named ones: both say so
if tr -s ' \n' '  ' < "$tmp/out" | grep -q -- '--batch N the batch size: the FIRST dimension of every graph input' &&
   tr -s ' \n' '  ' < "$tmp/out" | grep -q -- '--dim NAME=VALUE the size of the symbolic dimension NAME'; then pass
else fail "--help: --batch and --dim" "the options' help does not tell the batch dimension from the named ones"; fi

# ------------------------------------------------- --batch against --dim
imp "$tmp/seq.onnx" -o "$tmp/seq.json" --batch 4
if [ "$rc" -eq 1 ] && grep -q "^onnx_graph.py: .*graph input 'x': dimension 1 is the symbolic 'seq'.*--dim seq=VALUE" "$tmp/err" &&
   [ ! -e "$tmp/seq.json" ]; then pass
else fail "symbolic seq without --dim" "expected exit 1 naming input x, dimension seq and --dim seq=VALUE"; fi
imp "$tmp/seq.onnx" -o "$tmp/seq.json" --batch 4 --dim seq=10
if [ "$rc" -eq 0 ]; then
    check "--batch 4 --dim seq=10" '
import json, sys
g = json.load(open(sys.argv[1]))
n = {x["name"]: x for x in g["nodes"]}
assert n["x"]["output_bytes"] == [4 * 10 * 16 * 4], n["x"]["output_bytes"]
assert n["proj"]["output_bytes"] == [4 * 10 * 8 * 4], n["proj"]["output_bytes"]
assert n["w"].get("colocate") == "proj" and n["proj"].get("colocate") == "proj", (n["w"], n["proj"])
assert "x[0](N)=4" in g["source"] and "x[1](seq)=10" in g["source"], g["source"]
' "$tmp/seq.json"
else
    fail "--batch 4 --dim seq=10" "exit status $rc"
fi
imp "$tmp/seq.onnx" -o "$tmp/seq.json" --dim seq=10 --dim N=3
if [ "$rc" -eq 0 ] && grep -q '"output_bytes": \[1920\]' "$tmp/seq.json"; then pass
else fail "--dim on the batch dimension" "expected exit 0 and x of 3 x 10 x 16 floats"; fi
imp "$tmp/seq.onnx" -o "$tmp/seq2.json" --dim seq=10 --dim len=5
if [ "$rc" -eq 1 ] && grep -q "^onnx_graph.py: .*--dim len: no graph input has a dimension named 'len'" "$tmp/err"; then pass
else fail "--dim of no input" "expected exit 1 and a message naming --dim len"; fi
imp "$tmp/fixed.onnx" -o "$tmp/fixed.json" --batch 8
if [ "$rc" -eq 0 ] && grep -q "warning: graph input 'x' has a fixed first dimension 2: --batch 8 does not change it" "$tmp/err" &&
   grep -q '"output_bytes": \[40\]' "$tmp/fixed.json"; then pass
else fail "fixed batch dimension" "expected exit 0, a warning and the fixed shape 2 x 5 kept"; fi

imp "$tmp/missing.onnx" -o "$tmp/m.json"
if [ "$rc" -eq 1 ] && grep -q '^onnx_graph.py: .*missing.onnx' "$tmp/err" && [ ! -e "$tmp/m.json" ]; then pass
else fail "missing file" "expected exit 1 and an 'onnx_graph.py: ... missing.onnx' message"; fi

printf 'this is not an onnx model\n' > "$tmp/bad.onnx"
imp "$tmp/bad.onnx" -o "$tmp/b.json"
if [ "$rc" -eq 1 ] && grep -q '^onnx_graph.py: ' "$tmp/err" && ! grep -q Traceback "$tmp/err" && [ ! -e "$tmp/b.json" ]; then pass
else fail "not a model" "expected exit 1 and an 'onnx_graph.py: ' message"; fi

imp "$tmp/noshape.onnx" -o "$tmp/n.json"
if [ "$rc" -eq 1 ] && grep -q '^onnx_graph.py: .*no tensor shapes' "$tmp/err" && [ ! -e "$tmp/n.json" ]; then pass
else fail "no shapes" "expected exit 1 and a 'no tensor shapes' message"; fi

imp "$tmp/noshape.onnx" -o "$tmp/n.json" --shape x=4,5
if [ "$rc" -eq 0 ] && grep -q '"output_bytes": \[80\]' "$tmp/n.json"; then pass
else fail "--shape" "expected exit 0 and relu output 80 bytes"; fi

imp "$model" -o "$tmp/x.json" --batch 0
if [ "$rc" -eq 2 ]; then pass; else fail "--batch 0" "exit status $rc, expected 2"; fi

# --kind-costs cpu=xeon: the CPU roofline by hand (one Xeon Gold 6148 socket: 1.024 TFLOP/s, 70.4 GB/s, 4 us)
imp "$model" -o "$tmp/kind.json" --batch 8 --kind-costs cpu=xeon -q
if [ "$rc" -eq 0 ]; then
    check "--kind-costs cpu=xeon" '
import json, sys
g = json.load(open(sys.argv[1])); plain = json.load(open(sys.argv[2]))
n = {x["name"]: x for x in g["nodes"]}
assert [{k: v for k, v in x.items() if k != "cost_us_by_kind"} for x in g["nodes"]] == plain["nodes"], "other fields changed"
assert not any("cost_us_by_kind" in x for x in plain["nodes"]), "cost_us_by_kind without --kind-costs"
assert all(x["cost_us_by_kind"] == {"cpu": 0.0} for x in g["nodes"] if x["op"] in ("input", "variable"))
out = 8 * 16 * 32 * 32
flops = 2.0 * out * 3 * 9 + out                      # the Conv, + its bias
moved = 4 * (8 * 3 * 32 * 32 + 16 * 3 * 3 * 3 + 16 + out)
want = round(4.0 + max(flops / 1.024e12, moved / 70.4e9) * 1e6, 3)
assert n["conv"]["cost_us_by_kind"]["cpu"] == want == 12.869, (n["conv"], want)
relu = round(4.0 + 8 * out / 70.4e9 * 1e6, 3)           # reads and writes the conv output
assert n["Relu_1"]["cost_us_by_kind"]["cpu"] == relu == 18.895, (n["Relu_1"], relu)
assert "cost_us_by_kind: \"cpu\" from the roofline model of one socket of an Intel Xeon Gold 6148" in g["source"]
' "$tmp/kind.json" "$out"
else
    fail "--kind-costs cpu=xeon" "exit status $rc"
fi
imp "$model" -o "$tmp/x.json" --kind-costs cpu
if [ "$rc" -eq 2 ] && grep -q "^onnx_graph.py: error: --kind-costs cpu: expected KIND=DEVICE" "$tmp/err"; then pass
else fail "--kind-costs cpu" "exit status $rc, expected 2 and a message naming --kind-costs"; fi

echo "onnx: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
