#!/usr/bin/env bash
# PyTorch importer tests (graphs/import/torch_graph.py), on models the
# repository does not define and without touching the repository:
#   1. a torchvision model that is not in the zoo (models.py), through the
#      registry: --model torchvision:mobilenet_v3_small, small (batch 2,
#      64x64 images); the progress lines and the summary on stderr (its
#      critical path share against `placeto info --json`, which loads the
#      file), the graph's contents, determinism;
#   2. a user's own modules written to a temporary file (--module
#      FILE.py:FACTORY with --input, --dim and --loss), run from that
#      directory: the inputs' shapes, the loss inputs, the parameters and
#      their colocation, the source naming the file as given, --quiet; `git
#      status` unchanged and no __pycache__ written;
#   3. errors: a missing module file, a missing factory, a factory that
#      returns no nn.Module, bad --input syntax, an unset named dimension, a
#      failing forward pass, an output that is not a loss, an unknown
#      torchvision name (exit 1 or 2, a message naming the problem);
#   4. --help tells --batch (the first dimension) from --dim (the named
#      ones); --list-models;
#   5. --inference --kind-costs cpu=xeon on a module of one convolution and
#      a relu: no loss, backward or update op, the weights colocated with
#      their reader, cost_us and cost_us_by_kind.cpu of the convolution
#      (compute-bound) and the relu (memory-bound) against the two rooflines
#      computed here by hand, determinism, the usage errors (--inference on
#      a zoo model whose loss is inside its forward, --loss with --inference,
#      an unknown device model, --export-onnx without --inference).
# Skipped (0 passed, 0 failed) when python3-torch or python3-torchvision is
# not installed. Prints one line per failure and finally
# "torch: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh
repo=$PWD
importer=$repo/graphs/import/torch_graph.py

if ! "$py" -c 'import torch, torchvision, functorch.compile' > /dev/null 2>&1; then
    echo "torch: python3-torch or python3-torchvision is not installed: PyTorch importer test skipped"
    echo "torch: 0 passed, 0 failed"
    exit 0
fi

cmd="" rc=0
: > "$tmp/out"; : > "$tmp/err"

# imp ARGS...: runs the importer (from the repository root, or from $in when
# set); sets rc, cmd; stdout in $tmp/out, stderr in $tmp/err
in=$repo
imp() {
    cmd="(cd $in && $py $importer $*)"
    (cd "$in" && timeout 120 env -u PYTHONDONTWRITEBYTECODE "$py" "$importer" "$@") > "$tmp/out" 2> "$tmp/err" < /dev/null
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

# error NAME STATUS TEXT ARGS...: the importer exits STATUS with a
# "torch_graph.py: " message containing TEXT (a grep -E pattern), no traceback
error() {
    local name=$1 status=$2 text=$3
    shift 3
    imp "$@"
    if [ "$rc" -ne "$status" ]; then fail "$name" "exit status $rc, expected $status"; return; fi
    if grep -q Traceback "$tmp/err"; then fail "$name" "a traceback instead of a message"; return; fi
    if ! grep -qE "^torch_graph.py: .*$text" "$tmp/err"; then fail "$name" "no message matching '$text'"; return; fi
    pass
}

git_before=$(git -C "$repo" status --porcelain 2> /dev/null)

# ------------------------------------------------ 1. a torchvision model
out=$tmp/mnv3.json
imp --model torchvision:mobilenet_v3_small --batch 2 --image-size 64 -o "$out"
if [ "$rc" -eq 0 ] && [ -s "$out" ]; then pass; else fail "torchvision:mobilenet_v3_small" "exit status $rc or no output file"; fi
cp "$tmp/err" "$tmp/mnv3.err"
for phase in "building torchvision:mobilenet_v3_small" "tracing forward and backward \\(one training step\\)" \
             "costing [0-9]+ traced ops \\(roofline model of k80\\)" "writing $out"; do
    if grep -qE "^torch_graph.py: [0-9]+\\.[0-9] s: $phase \\.\\.\\.\$" "$tmp/err"; then pass
    else fail "progress line" "no '$phase' progress line on stderr"; fi
done

run info "$out" --json
if [ "$rc" -eq 0 ]; then
    pass
    cp "$tmp/out" "$tmp/mnv3.info"
    check "summary against placeto info" '
import json, re, sys
err = open(sys.argv[1]).read()
info = json.load(open(sys.argv[2]))
m = re.search(r"^torch_graph.py: wrote \S+ in [0-9.]+ s: ([0-9]+) ops, ([0-9]+) edges, total cost ([0-9.]+) us on k80; "
              r"critical path ([0-9.]+) us = ([0-9.]+)% of the total cost \(op costs only, transfers ignored\)$", err, re.M)
if not m:
    sys.exit("no summary line with ops, edges, total cost and the critical path share: %r" % err[-600:])
ops, edges = int(m.group(1)), int(m.group(2))
total, cp, share = map(float, m.groups()[2:])
if ops != info["ops"] or ops < 100:
    sys.exit("summary %d ops, placeto info %d" % (ops, info["ops"]))
if edges < info["edges"]:
    sys.exit("summary %d edges, placeto info %d (it merges parallel edges, never adds)" % (edges, info["edges"]))
if abs(total - info["total_cost_us"]) > 0.01 or abs(cp - info["critical_path_us"]) > 0.01:
    sys.exit("summary %s / %s us, placeto info %s / %s us" % (total, cp, info["total_cost_us"], info["critical_path_us"]))
if abs(share - 100 * cp / total) > 0.051:
    sys.exit("share %s%%, expected %.1f%%" % (share, 100 * cp / total))
' "$tmp/mnv3.err" "$tmp/mnv3.info"
else
    why=$(crash_reason) || true
    fail "info --json" "exit status $rc, expected 0 ${why:-}"
fi

check "torchvision graph contents" '
import json, sys
sys.path.insert(0, "graphs/import")
g = json.load(open(sys.argv[1]))
err = []
def want(cond, msg):
    if not cond: err.append(msg)
src = g.get("source", "")
want(g.get("name") == "mobilenet_v3_small", "name %r" % g.get("name"))
for s in ("torchvision mobilenet_v3_small (random weights)", "3x64x64 images", "cross-entropy over 1000 classes",
          "batch 2", "roofline model of one NVIDIA Tesla K80", "torch ",
          "command: /usr/bin/python3 " + sys.argv[2] + " --model torchvision:mobilenet_v3_small --batch 2 --image-size 64 -o"):
    want(s in src, "source lacks %r" % s)
n = {x["name"]: x for x in g["nodes"]}
want(n.get("data", {}).get("op") == "input" and n["data"]["output_bytes"] == [2 * 3 * 64 * 64 * 4], "input data")
want(n.get("labels", {}).get("op") == "input" and n["labels"]["output_bytes"] == [2 * 8], "input labels")
w = "net.features.0.0.weight"
want(n.get(w, {}).get("op") == "variable" and n[w]["output_bytes"] == [16 * 3 * 3 * 3 * 4], "first conv weight")
key = n.get(w, {}).get("colocate")
want(key and n.get(w + "/update", {}).get("colocate") == key and n.get(w + "/momentum", {}).get("colocate") == key,
     "the weight, its momentum and update share a colocate key")
want(sum(1 for x in g["nodes"] if x["name"].startswith("grad/")) > 100, "no backward ops")
import models
want("mobilenet_v3_small" not in models.MODELS, "mobilenet_v3_small is in the zoo: the test needs a model that is not")
if err:
    sys.exit("; ".join(err))
' "$out" "$importer"

cp "$out" "$tmp/first.json"
imp --model torchvision:mobilenet_v3_small --batch 2 --image-size 64 -o "$out"
if [ "$rc" -eq 0 ] && cmp -s "$out" "$tmp/first.json"; then pass; else fail "determinism" "a second import differs (or failed)"; fi

# ------------------------------------------------ 2. a user module from a temporary file
mod=$tmp/user
mkdir -p "$mod"
cat > "$mod/my_model.py" <<'EOF'
import torch.nn as nn
import torch.nn.functional as F


class TinyNet(nn.Module):
    """A conv layer, global pooling and a classifier of 10 classes."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        return self.fc(F.relu(self.conv(x)).mean((2, 3)))


def make_model():
    return TinyNet()


class TinyLM(nn.Module):
    """Embeddings and a projection that computes its own loss."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 16)
        self.out = nn.Linear(16, 100)

    def forward(self, tokens, labels):
        return F.cross_entropy(self.out(self.emb(tokens)).flatten(0, 1), labels.flatten())


def not_a_module():
    return [1, 2]
EOF
in=$mod
imp --module my_model.py:make_model --input x=3,16,16 --loss ce:10 --batch 4 -o net.json
if [ "$rc" -eq 0 ] && [ -s "$mod/net.json" ]; then pass; else fail "--module make_model" "exit status $rc or no output file"; fi
if grep -qE '^torch_graph.py: [0-9.]+ s: building --module my_model.py:make_model \.\.\.$' "$tmp/err" &&
   grep -q '^torch_graph.py: wrote net.json in .* critical path' "$tmp/err"; then pass
else fail "--module progress and summary" "no building line or summary on stderr"; fi
check "--module graph contents" '
import json, sys
g = json.load(open(sys.argv[1]))
n = {x["name"]: x for x in g["nodes"]}
assert g["name"] == "my_model", g["name"]
assert n["x"]["op"] == "input" and n["x"]["output_bytes"] == [4 * 3 * 16 * 16 * 4], n["x"]
assert n["labels"]["op"] == "input" and n["labels"]["output_bytes"] == [4 * 8], n["labels"]
assert n["net.conv.weight"]["output_bytes"] == [8 * 3 * 3 * 3 * 4], n["net.conv.weight"]
assert n["net.fc.weight/update"]["colocate"] == n["net.fc.weight"]["colocate"], "fc weight and update not colocated"
src = g["source"]
for s in ("module my_model.py:make_model (TinyNet)", "x [4, 3, 16, 16] float32",
          "cross-entropy over 10 classes", "--module my_model.py:make_model --input x=3,16,16 --loss ce:10"):
    assert s in src, "source lacks %r: %s" % (s, src)
assert sys.argv[2] not in src, "the source holds the temporary directory: %s" % src
' "$mod/net.json" "$mod"

# traced on fake tensors (nothing computed) against real ones (--measure-cpu
# traces on real tensors to time the ops): the same ops, shapes and edges;
# --verbose: each phase's own time
imp --module my_model.py:make_model --input x=3,16,16 --loss ce:10 --batch 4 --measure-cpu --repeats 1 -q -o real.json
if [ "$rc" -eq 0 ]; then
    check "fake-tensor tracing = real tracing (ops, output bytes, edges)" '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
strip = lambda g: ([(n["name"], n["op"], n["output_bytes"], n.get("colocate")) for n in g["nodes"]], g["edges"])
assert strip(a) == strip(b), "the graphs differ"
' "$mod/net.json" "$mod/real.json"
else
    fail "--module --measure-cpu" "exit status $rc"
fi
cat > "$mod/branchy.py" <<'EOF'
import torch.nn as nn


class Branchy(nn.Module):
    """A forward that reads a tensor's value: no tracing can follow it."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 4)
        self.b = nn.Linear(8, 4)

    def forward(self, x):
        return self.a(x) if float(x.sum()) >= 0 else self.b(x)
EOF
imp --module branchy.py:Branchy --input x=8 --loss sum -o branchy.json
if [ "$rc" -eq 1 ] && [ ! -e "$mod/branchy.json" ] &&
   grep -q "^torch_graph.py: branchy.py:Branchy: tracing the training step failed: RuntimeError: " "$tmp/err"; then pass
else fail "--module whose forward reads a value" "expected exit 1 and one line: tracing the training step failed"; fi
imp --module my_model.py:make_model --input x=3,16,16 --loss ce:10 --batch 4 -v -o net_v.json
if grep -qE '^torch_graph.py: phases: starting Python and the libraries [0-9.]+ s, building [0-9.]+ s, tracing [0-9.]+ s, costing [0-9.]+ s, writing [0-9.]+ s$' "$tmp/err"; then pass
else fail "--verbose" "no line with each phase's time"; fi

imp --module my_model.py:TinyLM --input tokens=seq:int64:100 --input labels=seq:int64:100 --dim seq=6 --batch 3 \
    --quiet -o lm.json
if [ "$rc" -eq 0 ]; then
    check "--module with --dim, int64 and its own loss" '
import json, sys
g = json.load(open(sys.argv[1]))
n = {x["name"]: x for x in g["nodes"]}
assert n["tokens"]["output_bytes"] == [3 * 6 * 8] and n["labels"]["output_bytes"] == [3 * 6 * 8], (n["tokens"], n["labels"])
assert "embedding" in {x["op"] for x in g["nodes"]}, "no embedding op"
assert "the module" + chr(39) + "s own scalar output as the loss" in g["source"], g["source"]
' "$mod/lm.json"
    if grep -qE '^torch_graph.py: [0-9.]+ s: ' "$tmp/err" || ! grep -q '^torch_graph.py: wrote lm.json' "$tmp/err"; then
        fail "--quiet" "progress lines left, or no summary"
    else pass; fi
else
    fail "--module with --dim, int64 and its own loss" "exit status $rc"
fi

imp --module my_model.py:make_model --input x=3,8,8 --loss mse --batch 2 -q -o mse.json
if [ "$rc" -eq 0 ] && grep -q '"name":"target","op":"input","cost_us":0.0,"output_bytes":\[80\]' "$mod/mse.json"; then pass
else fail "--loss mse" "expected exit 0 and a target input of 2 x 10 floats"; fi

if [ -z "$(find "$mod" "$repo/graphs/import" -name __pycache__)" ]; then pass
else fail "no bytecode" "a __pycache__ beside the module or in graphs/import"; fi
if [ "$(git -C "$repo" status --porcelain 2> /dev/null)" = "$git_before" ]; then pass
else cmd="git status --porcelain"; fail "repository untouched" "git status changed during the imports"; fi

# ------------------------------------------------ 3. errors
error "missing module file" 1 "nope.py: no such file" --module nope.py:make_model --input x=3 -o e.json
error "missing factory" 1 "my_model.py has no attribute 'make_it' \\(it defines: .*make_model" \
    --module my_model.py:make_it --input x=3 -o e.json
error "factory returning no module" 1 "not_a_module\\(\\) returned a list, not a torch.nn.Module" \
    --module my_model.py:not_a_module --input x=3 -o e.json
error "bad --input syntax" 2 "--input x3,16,16: expected NAME=D1,D2" --module my_model.py:make_model --input x3,16,16 -o e.json
error "bad --input dimension" 2 "--input x=3,0,16: dimension 0 must be >= 1" --module my_model.py:make_model --input x=3,0,16 -o e.json
error "unset named dimension" 2 "dimension 'seq' has no value; give it with --dim seq=VALUE" \
    --module my_model.py:TinyLM --input tokens=seq:int64 --input labels=seq:int64 -o e.json
error "failing forward" 1 "my_model.py:make_model: the forward pass on x \\[2, 5, 8, 8\\] float32 failed: RuntimeError" \
    --module my_model.py:make_model --input x=5,8,8 --batch 2 --loss ce -o e.json
error "output without a loss" 1 "returns a tensor of shape \\[2, 10\\], not a scalar loss: give --loss" \
    --module my_model.py:make_model --input x=3,8,8 --batch 2 -o e.json
error "unknown torchvision name" 1 "torchvision:mobilenet_v3_smal: .*no model.*mobilenet_v3_small.*--list-models" \
    --model torchvision:mobilenet_v3_smal -o e.json
if [ ! -e "$mod/e.json" ]; then pass; else fail "errors write nothing" "e.json was written"; fi
in=$repo

# ------------------------------------------------ 4. help, --list-models
imp --help
tr -s ' \n' '  ' < "$tmp/out" > "$tmp/help"
if [ "$rc" -eq 0 ] && grep -q -- '--batch N the batch size: the FIRST dimension of every input' "$tmp/help" &&
   grep -q -- '--dim NAME=VALUE --module: the size of a named dimension of the --input shapes (not the batch: --batch)' "$tmp/help"
then pass; else fail "--help: --batch and --dim" "the options' help does not tell the batch dimension from the named ones"; fi
imp --list-models
if [ "$rc" -eq 0 ] && grep -q 'mobilenet_v3_small' "$tmp/out" && grep -q 'inception_v3' "$tmp/out"; then pass
else fail "--list-models" "exit status $rc or no torchvision and zoo names"; fi

# ------------------------------------------------ 5. --inference and --kind-costs cpu=xeon
cat > "$mod/conv_model.py" <<'EOF'
import torch.nn as nn
import torch.nn.functional as F


class ConvRelu(nn.Module):
    """One 3x3 convolution, 16 -> 32 channels with bias, and a relu."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(16, 32, 3, padding=1)

    def forward(self, x):
        return F.relu(self.conv(x))


def make():
    return ConvRelu()
EOF
in=$mod
imp --module conv_model.py:make --input x=16,32,32 --batch 4 --inference --kind-costs cpu=xeon -q -o inf.json
if [ "$rc" -eq 0 ] && [ -s "$mod/inf.json" ]; then pass; else fail "--inference --kind-costs" "exit status $rc or no output file"; fi
check "--inference graph: forward only, CPU and GPU rooflines by hand" '
import json, sys
g = json.load(open(sys.argv[1]))
n = {x["name"]: x for x in g["nodes"]}
ops = sorted(x["op"] for x in g["nodes"])
assert ops == ["convolution", "input", "relu", "variable", "variable"], ops
assert not [x for x in g["nodes"] if x["name"].startswith("grad/") or "/update" in x["name"] or "/momentum" in x["name"]]
assert g["name"] == "conv_model_inference", g["name"]
for s in ("inference, the forward pass alone", "batch 4", "cost_us_by_kind: \"cpu\" from the roofline model of one socket "
          "of an Intel Xeon Gold 6148", "--inference --kind-costs cpu=xeon"):
    assert s in g["source"], "source lacks %r" % s
assert n["conv.weight"]["colocate"] == n["conv.bias"]["colocate"] == n["convolution"]["colocate"] == "convolution"
assert all(x["cost_us_by_kind"] == {"cpu": 0.0} for x in g["nodes"] if x["op"] in ("input", "variable"))
# the convolution: [4, 32, 32, 32] out; 2 x out elements x 16 input channels x 9 taps; bytes: x, weight, bias, out
out = 4 * 32 * 32 * 32
flops = 2.0 * out * 16 * 9
moved = 4 * (4 * 16 * 32 * 32 + 32 * 16 * 9 + 32 + out)
gpu = round(10.0 + max(flops / 2.8e12, moved / 160e9) * 1e6, 3)      # one K80 die
cpu = round(4.0 + max(flops / 1.024e12, moved / 70.4e9) * 1e6, 3)    # one Xeon Gold 6148 socket
assert flops / 1.024e12 > moved / 70.4e9 and flops / 2.8e12 > moved / 160e9, "the test conv is not compute-bound"
c = n["convolution"]
assert (c["cost_us"], c["cost_us_by_kind"]["cpu"]) == (gpu, cpu), (c, gpu, cpu)
assert (gpu, cpu) == (23.482, 40.864), (gpu, cpu)
# the relu reads and writes the conv output: memory-bound
r = n["relu"]
assert (r["cost_us"], r["cost_us_by_kind"]["cpu"]) == (round(10 + 8 * out / 160e9 * 1e6, 3), round(4 + 8 * out / 70.4e9 * 1e6, 3)), r
assert (r["cost_us"], r["cost_us_by_kind"]["cpu"]) == (16.554, 18.895), r
' "$mod/inf.json"
cp "$mod/inf.json" "$tmp/inf.first"
imp --module conv_model.py:make --input x=16,32,32 --batch 4 --inference --kind-costs cpu=xeon -q -o inf.json
if [ "$rc" -eq 0 ] && cmp -s "$mod/inf.json" "$tmp/inf.first"; then pass; else fail "--inference determinism" "a second import differs (or failed)"; fi
error "--inference on nmt" 2 "--inference: the zoo model nmt computes its training loss inside its forward" \
    --model nmt --inference -o e.json
error "--loss with --inference" 2 "--loss: not with --inference" \
    --module conv_model.py:make --input x=16,8,8 --inference --loss sum -o e.json
error "unknown --kind-costs device" 2 "--kind-costs cpu=i486: unknown device model 'i486'" \
    --module conv_model.py:make --input x=16,8,8 --inference --kind-costs cpu=i486 -o e.json
error "--export-onnx without --inference" 2 "--export-onnx: only with --inference" \
    --module conv_model.py:make --input x=16,8,8 --loss sum --export-onnx e.onnx -o e.json
if [ ! -e "$mod/e.json" ]; then pass; else fail "errors write nothing" "e.json was written"; fi
in=$repo

echo "torch: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
