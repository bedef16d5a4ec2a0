#!/usr/bin/env bash
# The importers' refusals and interruptions (graphs/import/guard.py, used by
# torch_graph.py and onnx_graph.py), on tiny models made here:
#   1. ONNX models built with onnx.helper: a node name that is not UTF-8
#      (one line naming the node and the bytes), a node name holding a NUL
#      character (one line naming the node and the position; placeto's
#      reader refuses \u0000 in any string), a node name holding another
#      control character (imported: placeto reads it); an input of 2^62 elements,
#      a Reshape to 2^40 x 2^40, outputs adding up to more than 2^62 bytes, an
#      Einsum whose cost passes 1e15 us (one line naming the op and the field,
#      no file written); an input of exactly 2^53 bytes is imported and
#      `placeto info` reads it (the limit is the format's, not less);
#      --timeout 0.001 gives up; a bad --timeout is a usage error;
#   2. a --module file with a 2-layer MLP and factories that call sys.exit(0),
#      raise ValueError, exit while the file loads, loop forever swallowing
#      the first interruption (--timeout 5: "gave up after 5 s ... while
#      building", the alarm repeats), sleep (SIGINT: "interrupted",
#      exit status 130, no traceback), a parameter whose name UTF-8 cannot
#      hold, a parameter whose name holds a NUL character; an --input of 2^62 elements refused before it is allocated;
#      the MLP itself imports and `placeto info` reads it; a torchvision
#      input (--image-size) past 2^53 bytes and a zoo model whose --batch
#      cannot be allocated: one line each.
# The installed commands' choice of interpreter (PLACETO_PYTHON, python3 on
# PATH) is tested in cli_install.sh. Each part is skipped, with the reason,
# when python3-onnx or python3-torch is not installed. Prints one line per
# failure and finally "importers: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh
repo=$PWD
onnx_imp=$repo/graphs/import/onnx_graph.py
torch_imp=$repo/graphs/import/torch_graph.py
cmd="" rc=0
: > "$tmp/out"; : > "$tmp/err"

# imp SCRIPT ARGS...: runs an importer in $tmp; rc, cmd; stdout $tmp/out, stderr $tmp/err
imp() {
    local script=$1
    shift
    cmd="(cd $tmp && $py $script $*)"
    (cd "$tmp" && timeout 120 "$py" "$script" "$@") > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
}

has() { # NAME FILE TEXT: the file contains TEXT
    if grep -qF -- "$3" "$2"; then pass; else fail "$1" "no '$3' in $2"; fi
}

# refused NAME STATUS PREFIX TEXT OUT: the last run exited STATUS with exactly
# one line on stderr, starting "PREFIX: " and containing TEXT (grep -F), no
# traceback, and wrote no OUT
refused() {
    local name=$1 status=$2 prefix=$3 text=$4 out=$5 left
    if [ "$rc" -ne "$status" ]; then fail "$name" "exit status $rc, expected $status"; return; fi
    if grep -q Traceback "$tmp/err"; then fail "$name" "a traceback instead of one line"; return; fi
    if [ "$(grep -c . "$tmp/err")" -ne 1 ]; then fail "$name" "not one line on stderr"; return; fi
    if ! grep -q "^$prefix: " "$tmp/err"; then fail "$name" "the line does not start with '$prefix: '"; return; fi
    if ! grep -qF -- "$text" "$tmp/err"; then fail "$name" "no '$text' in the message"; return; fi
    if [ -e "$tmp/$out" ]; then fail "$name" "$out was written"; return; fi
    left=$(find "$tmp" -maxdepth 1 -name '*.tmp*')
    if [ -n "$left" ]; then fail "$name" "a temporary file was left: $left"; return; fi
    pass
}

# ------------------------------------------------------------------ ONNX
if ! "$py" -c 'import onnx' > /dev/null 2>&1; then
    echo "importers: python3-onnx is not installed: the ONNX part skipped"
else
    cat > "$tmp/mk.py" <<'EOF'
import sys
import onnx
import onnx.helper as h
from onnx import TensorProto as T


def save(path, nodes, inputs, outputs, inits=()):
    g = h.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)


def vi(name, shape):
    return h.make_tensor_value_info(name, T.FLOAT, shape)


# a node name that is not UTF-8: protobuf keeps the bytes as they are
g = h.make_graph([h.make_node("Relu", ["x"], ["y"], name="relu")], "g", [vi("x", [2, 3])], [vi("y", [2, 3])])
b = h.make_model(g, opset_imports=[h.make_opsetid("", 17)]).SerializeToString()
assert b.count(b"relu") == 1
open("latin1.onnx", "wb").write(b.replace(b"relu", b"rel\xe9"))
# a node name holding a NUL character, and one holding another control character
save("nul.onnx", [h.make_node("Relu", ["x"], ["y"], name="rel\0u")], [vi("x", [2, 3])], [vi("y", [2, 3])])
save("ctl.onnx", [h.make_node("Relu", ["x"], ["y"], name="rel\x01u")], [vi("x", [2, 3])], [vi("y", [2, 3])])
# a file name that is not UTF-8 (its bytes escaped in the graph's name and source)
save(b"caf\xe9.onnx", [h.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [2, 3])], [vi("y", [2, 3])])
# an input of 2^62 elements
save("input62.onnx", [h.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [2 ** 62])], [vi("y", [2 ** 62])])
# an input of exactly 2^53 bytes (2^51 floats): what the format holds
save("input53.onnx", [h.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [2 ** 51])], [vi("y", [2 ** 51])])
# one float more
save("input53p.onnx", [h.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [2 ** 51 + 1])],
     [vi("y", [2 ** 51 + 1])])
# a Reshape to 2^40 x 2^40, read by a Relu
shape = h.make_tensor("shape", T.INT64, [2], [2 ** 40, 2 ** 40])
save("reshape40.onnx", [h.make_node("Reshape", ["x", "shape"], ["r"], name="reshape"),
                        h.make_node("Relu", ["r"], ["y"], name="relu")],
     [vi("x", [4])], [vi("y", None)], [shape])
# 600 Relus of 2^53 bytes each: every output fits, together they pass 2^62
save("total62.onnx", [h.make_node("Relu", ["x"], ["y%d" % i], name="relu%d" % i) for i in range(600)],
     [vi("x", [2 ** 51])], [vi("y%d" % i, [2 ** 51]) for i in range(600)])
# an Einsum over 2^100 index combinations: its cost passes 1e15 us
save("einsum.onnx", [h.make_node("Einsum", ["a", "b"], ["y"], name="outer", equation="ij,kl->")],
     [vi("a", [2 ** 25, 2 ** 25]), vi("b", [2 ** 25, 2 ** 25])], [vi("y", [])])
EOF
    if ! (cd "$tmp" && "$py" mk.py) > "$tmp/py" 2>&1; then
        cmd="mk.py"; fail "making the ONNX models" "$(flat "$tmp/py")"
    fi

    imp "$onnx_imp" latin1.onnx -q -o latin1.json
    refused "onnx: a node name that is not UTF-8" 1 onnx_graph.py \
        "latin1.onnx: node 0 of the main graph (Relu): its name is bytes that are not UTF-8 text (byte 0xe9 at 3 of b'rel\\xe9')" latin1.json

    imp "$onnx_imp" nul.onnx -q -o nul.json
    refused "onnx: a node name holding a NUL character" 1 onnx_graph.py \
        "nul.onnx: the graph cannot be written: node 'rel\\x00u' (op relu): name is 'rel\\x00u', which holds a NUL character at position 3" nul.json
    imp "$onnx_imp" ctl.onnx -q -o ctl.json
    if expect_rc "onnx: a node name holding a control character other than NUL" 0; then
        run info "$tmp/ctl.json"
        expect_rc "onnx: placeto reads a name holding a control character" 0 && pass
    fi

    imp "$onnx_imp" $'caf\xe9.onnx' -q -o cafe.json
    if [ "$rc" -eq 0 ] && grep -qF '"name": "caf\\xe9",' "$tmp/cafe.json" && grep -qF 'onnx_graph.py from caf\\xe9.onnx' "$tmp/cafe.json"; then
        pass
        run info "$tmp/cafe.json"
        expect_rc "onnx: placeto reads the graph of a file name that is not UTF-8" 0 &&
            has "onnx: the escaped name" "$tmp/out" 'caf\xe9 ('
    else
        fail "onnx: a file name that is not UTF-8" "expected exit 0 and the name caf\\xe9 escaped in the graph"
    fi

    imp "$onnx_imp" input62.onnx -q -o input62.json
    refused "onnx: an input of 2^62 elements" 1 onnx_graph.py \
        "input62.onnx: the graph cannot be written: node 'x' (op input): output_bytes[0] = 18446744073709551616 (2^64) bytes: a graph holds each output's size from 0 to 2^53" input62.json

    imp "$onnx_imp" input53p.onnx -q -o input53p.json
    refused "onnx: an input of 2^53 + 4 bytes" 1 onnx_graph.py \
        "node 'x' (op input): output_bytes[0] = 9007199254740996 bytes" input53p.json

    imp "$onnx_imp" input53.onnx -q -o input53.json
    if [ "$rc" -eq 0 ] && [ -f "$tmp/input53.json" ]; then
        pass
        run info "$tmp/input53.json"
        expect_rc "onnx: placeto reads the 2^53-byte input" 0 && has "onnx: info on the 2^53-byte input" "$tmp/out" "graph"
    else
        fail "onnx: an input of exactly 2^53 bytes is imported" "the limit refused a graph the format holds"
    fi

    imp "$onnx_imp" reshape40.onnx -q -o reshape40.json
    refused "onnx: a Reshape to 2^40 x 2^40" 1 onnx_graph.py \
        "node 'relu' (op relu): output_bytes[0] = 4835703278458516698824704 (2^82) bytes" reshape40.json

    imp "$onnx_imp" total62.onnx -q -o total62.json
    refused "onnx: outputs adding up past 2^62" 1 onnx_graph.py \
        "with it the graph's outputs add up to 4620693217682128896 bytes, more than the 2^62 = 4611686018427387904 a graph holds" total62.json

    imp "$onnx_imp" einsum.onnx -q -o einsum.json
    refused "onnx: a cost past 1e15 us" 1 onnx_graph.py \
        "node 'outer' (op einsum): cost_us = " einsum.json
    has "onnx: the cost message names the limit" "$tmp/err" "a graph's costs are finite, from 0 to 1e+15 us"

    imp "$onnx_imp" input53.onnx -q --timeout 0.001 -o t.json
    refused "onnx: --timeout 0.001" 1 onnx_graph.py "gave up after 0.001 s (--timeout 0.001; --timeout 0 for no limit)" t.json

    for t in -1 1e300 nan; do
        imp "$onnx_imp" input53.onnx -q --timeout "$t" -o t.json
        if [ "$rc" -eq 2 ] && grep -qF "argument --timeout: expected a number of seconds from 0 (no limit) to 100000000, got '$t'" "$tmp/err"
        then pass; else fail "onnx: --timeout $t" "expected exit status 2 and the usage error"; fi
    done

    imp "$onnx_imp" --help
    if [ "$rc" -eq 0 ] && grep -q -- "--timeout SECONDS" "$tmp/out" && grep -q "PLACETO_PYTHON" "$tmp/out" &&
       grep -q "else the python3 on PATH when it can" "$tmp/out"; then pass
    else fail "onnx: --help" "no --timeout or no PLACETO_PYTHON paragraph"; fi
fi

# ------------------------------------------------------------------ PyTorch
if ! "$py" -c 'import torch, functorch.compile' > /dev/null 2>&1; then
    echo "importers: python3-torch is not installed: the PyTorch part skipped"
else
    cat > "$tmp/my.py" <<'EOF'
import os
import sys
import time

import torch
import torch.nn as nn


def mark():
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "started"), "w") as f:
        f.write("the factory ran\n")


def mlp():
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))


def quits():
    sys.exit(0)


def raises():
    raise ValueError("no layer of size 0\nsecond line")


def loops():
    mark()
    swallowed = False
    while True:
        try:
            while True:
                pass
        except BaseException:   # the first interruption is swallowed, as careless code does
            if swallowed:
                raise
            swallowed = True
            open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "swallowed"), "w").close()


def sleeps():
    mark()
    time.sleep(100)


class Odd(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_parameter("w\udce9", nn.Parameter(torch.randn(4, 2)))

    def forward(self, x):
        return x @ getattr(self, "w\udce9")


def odd():
    return Odd()


class Nul(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_parameter("w\0x", nn.Parameter(torch.randn(4, 2)))

    def forward(self, x):
        return x @ getattr(self, "w\0x")


def nul():
    return Nul()
EOF
    printf 'import sys\nsys.exit(3)\n' > "$tmp/exits.py"

    imp "$torch_imp" --module my.py:quits --input x=4 --loss ce -q -o q.json
    refused "torch: a factory that calls sys.exit(0)" 1 torch_graph.py \
        "my.py:quits: the factory exited with status 0 before returning a model" q.json

    imp "$torch_imp" --module my.py:raises --input x=4 --loss ce -q -o r.json
    refused "torch: a factory that raises" 1 torch_graph.py "my.py:raises: the factory raised ValueError: no layer of size 0" r.json

    imp "$torch_imp" --module exits.py:make --input x=4 --loss ce -q -o e.json
    refused "torch: a module file that exits while it loads" 1 torch_graph.py \
        "--module exits.py:make: loading exits.py failed: it exited with status 3" e.json

    imp "$torch_imp" --module my.py:odd --input x=4 --loss ce -q -o o.json
    refused "torch: a name UTF-8 cannot hold" 1 torch_graph.py \
        "my.py:odd: the graph cannot be written: node 0 (op variable): name is text that UTF-8 cannot hold (character U+DCE9" o.json

    imp "$torch_imp" --module my.py:nul --input x=4 --loss ce -q -o nul.json
    refused "torch: a name holding a NUL character" 1 torch_graph.py \
        "my.py:nul: the graph cannot be written: node 'net.w\\x00x' (op variable): name is 'net.w\\x00x', which holds a NUL character at position 5" nul.json

    imp "$torch_imp" --module my.py:mlp --input x=4611686018427387904 --batch 1 --loss ce -q -o big.json
    refused "torch: an input of 2^62 elements" 1 torch_graph.py \
        "input op 'x' of shape [1, 4611686018427387904] (--input x=4611686018427387904, --batch 1): output_bytes = 18446744073709551616 bytes, more than the 2^53" big.json

    if "$py" -c 'import torchvision' > /dev/null 2>&1; then
        imp "$torch_imp" --model torchvision:resnet18 --image-size 3000000000 -q -o tv.json
        refused "torch: a torchvision input past 2^53 bytes" 1 torch_graph.py \
            "torchvision:resnet18: input op 'data' of shape [32, 3, 3000000000, 3000000000] (--batch 32, --image-size 3000000000): output_bytes = 3456000000000000000000 bytes" tv.json
        imp "$torch_imp" --model resnet50 --batch 100000000000 -q -o zoo.json
        refused "torch: a zoo model whose input cannot be allocated" 1 torch_graph.py \
            "resnet50: building the model and its inputs (batch 100000000000) failed: RuntimeError: " zoo.json
    else
        echo "importers: python3-torchvision is not installed: the torchvision and zoo input sizes skipped"
    fi

    rm -f "$tmp/started"
    imp "$torch_imp" --module my.py:loops --input x=4 --loss ce -q --timeout 5 -o l.json
    refused "torch: a factory that loops, --timeout 5" 1 torch_graph.py \
        "gave up after 5 s (--timeout 5; --timeout 0 for no limit) while building --module my.py:loops" l.json
    if [ -f "$tmp/started" ]; then pass; else fail "torch: the looping factory ran" "it never started"; fi
    if [ -f "$tmp/swallowed" ]; then pass; else fail "torch: the looping factory swallowed the first timeout" "it did not"; fi

    # Ctrl-C: SIGINT to the importer while the factory sleeps (a background
    # job starts with SIGINT ignored: its default is put back before the exec)
    rm -f "$tmp/started"
    cmd="$py $torch_imp --module my.py:sleeps (SIGINT)"
    (cd "$tmp" && exec "$py" -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
        "$py" "$torch_imp" --module my.py:sleeps --input x=4 --loss ce -q -o s.json) > "$tmp/out" 2> "$tmp/err" < /dev/null &
    pid=$!
    for _ in $(seq 600); do [ -f "$tmp/started" ] && break; sleep 0.1; done
    if [ -f "$tmp/started" ] && wait_catching "$pid" 2; then
        kill -INT "$pid"
        wait "$pid"
        rc=$?
        refused "torch: Ctrl-C" 130 torch_graph.py "torch_graph.py: interrupted" s.json
    else
        kill "$pid" 2> /dev/null
        wait "$pid"
        fail "torch: Ctrl-C" "the sleeping factory never started"
    fi

    imp "$torch_imp" --module my.py:mlp --input x=4 --loss ce -q -o mlp.json
    if [ "$rc" -eq 0 ] && [ -f "$tmp/mlp.json" ]; then
        pass
        run info "$tmp/mlp.json"
        expect_rc "torch: placeto reads the MLP" 0 && has "torch: info on the MLP" "$tmp/out" "ops            28"
    else
        fail "torch: the 2-layer MLP imports" "exit status $rc"
    fi

    imp "$torch_imp" --help
    if [ "$rc" -eq 0 ] && grep -q -- "--timeout SECONDS" "$tmp/out" && grep -q "PLACETO_PYTHON" "$tmp/out" &&
       grep -q "else the python3 on PATH when it can" "$tmp/out"; then pass
    else fail "torch: --help" "no --timeout or no PLACETO_PYTHON paragraph"; fi
fi

# the zoo's regeneration script: each import under --timeout, a failed one
# named (with a stand-in interpreter that fails; nothing is written)
cmd="PLACETO_PYTHON=/bin/false TIMEOUT=5 bash graphs/import/make_zoo.sh 2 models"
before=$(cat graphs/nmt.json | cksum)
PLACETO_PYTHON=/bin/false TIMEOUT=5 bash graphs/import/make_zoo.sh 2 models > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ "$rc" -eq 1 ] && [ "$(grep -c '^make_zoo.sh: failed (status 1): /bin/false graphs/import/torch_graph.py --model [a-z0-9_]* --timeout 5 -o graphs/' "$tmp/err")" = 7 ] &&
   grep -q "^make_zoo.sh: some generations failed" "$tmp/err" && [ "$(cat graphs/nmt.json | cksum)" = "$before" ]
then pass; else fail "make_zoo.sh: a failed generation named, exit 1" "rc=$rc; $(flat "$tmp/err")"; fi

echo "importers: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
