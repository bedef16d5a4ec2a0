#!/usr/bin/env bash
# `make install` into a temporary DESTDIR (the default PREFIX, then another),
# the installed program run from another directory: it finds its bundled
# graphs, clusters and policies in PREFIX/share/placeto from its own
# location (explore --headless on the default graph, compare, place
# --policy auto); the installed placeto-import-torch imports a module of
# one's own from another directory (when PyTorch is installed) and the
# installed program reads it; the installed importers run the interpreter
# named by PLACETO_PYTHON, else a python3 on PATH that has torch / onnx (fake
# interpreters record their runs), else /usr/bin/python3; a copy without the data finds it through
# PLACETO_DATA; then `make uninstall` leaves nothing behind. Prints
# "install: N passed, M failed".
cd "$(dirname "$0")/../.." || exit 1
. tests/cli/lib_cli.sh
# the build tree of the program under test (./placeto: build/)
build=$(dirname "$prog")
[ "$build" = . ] && build=build
# a make of its own, not a job of the make that runs the suite
unset MAKEFLAGS MAKELEVEL MFLAGS

# mk NAME ARGS...: make ARGS for the program under test; output in $tmp/make
mk() {
    local name=$1
    shift
    cmd="make $*"
    make --no-print-directory PROG="$prog" BUILD="$build" "$@" > "$tmp/make" 2>&1
    rc=$?
    if [ "$rc" -ne 0 ]; then cp "$tmp/make" "$tmp/err"; : > "$tmp/out"; fail "$name" "make failed"; return 1; fi
    return 0
}
# irun DIR BIN ARGS...: runs BIN in DIR; like run (stdout $tmp/out, stderr $tmp/err)
irun() {
    local dir=$1 bin=$2
    shift 2
    cmd="(cd $dir && $bin $*)"
    # shellcheck disable=SC2086  # PLACETO_WRAP is a command line to split
    (cd "$dir" && timeout 60 $wrap "$bin" "$@") > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
}
has() { # NAME FILE TEXT: the file contains TEXT
    if grep -qF -- "$3" "$2"; then pass; else fail "$1" "no '$3' in the output"; fi
}

dest=$tmp/dest
elsewhere=$tmp/elsewhere
mkdir -p "$elsewhere"
if mk "make install" install DESTDIR="$dest"; then
    p=$dest/usr/local
    data=$p/share/placeto
    for f in bin/placeto share/man/man1/placeto.1 share/bash-completion/completions/placeto \
             share/placeto/resnet18.json share/placeto/toy/diamond.json share/placeto/clusters/k80x2.json \
             share/placeto/placements/diamond_split.json share/placeto/policies/general_2.json \
             share/placeto/policies/resnet18_2.json; do
        if [ -f "$p/$f" ]; then pass; else fail "installed $f" "missing in $p"; fi
    done
    if [ -x "$p/bin/placeto" ]; then pass; else fail "installed program" "not executable"; fi
    # the importers beside the data, each with a command
    for w in torch onnx; do
        if [ -x "$p/bin/placeto-import-$w" ] && [ -f "$data/import/${w}_graph.py" ]; then pass
        else fail "installed importer $w" "no $p/bin/placeto-import-$w running $data/import/${w}_graph.py"; fi
    done
    irun "$elsewhere" "$p/bin/placeto-import-onnx" --help
    if [ "$rc" -eq 0 ] && grep -q "ONNX" "$tmp/out" "$tmp/err" 2> /dev/null; then pass; else fail "installed placeto-import-onnx --help" "rc=$rc"; fi
    # a module of ones own, imported by the installed command and read by the installed program
    if "$py" -c 'import torch, functorch.compile' > /dev/null 2>&1; then
        printf 'import torch.nn as nn\n\ndef make():\n    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))\n' \
            > "$elsewhere/tiny.py"
        irun "$elsewhere" "$p/bin/placeto-import-torch" --module tiny.py:make --input x=4 --loss ce -q -o tiny.json
        if [ "$rc" -eq 0 ] && grep -q '"source":".*command: placeto-import-torch --module tiny.py:make --input x=4' "$elsewhere/tiny.json"
        then pass; else fail "installed placeto-import-torch --module" "rc=$rc, or no 'command: placeto-import-torch' in the source"; fi
        irun "$elsewhere" "$p/bin/placeto" info tiny.json
        expect_rc "installed placeto info on an imported module" 0 && has "installed info on the import" "$tmp/out" "graph          tiny (tiny.json)"
    fi
    # the importers' interpreter: $PLACETO_PYTHON, else the python3 on PATH when
    # it has the module, else /usr/bin/python3. Fake interpreters record
    # their runs, then run Debian's.
    mkdir -p "$tmp/venv/bin" "$tmp/bare/bin" "$tmp/chosen"
    printf '#!/bin/sh\necho "venv python3 $*" >> %s/venv.log\nexec %s "$@"\n' "$tmp" "$py" > "$tmp/venv/bin/python3"
    # a python3 without the package: says so to the wrapper's question
    # shellcheck disable=SC2016  # $* and $1 are the fake's own
    printf '#!/bin/sh\necho "bare python3 $*" >> %s/bare.log\n[ "$1" = -c ] && exit 1\nexec %s "$@"\n' "$tmp" "$py" > "$tmp/bare/bin/python3"
    printf '#!/bin/sh\necho "chosen $*" >> %s/chosen.log\nexec %s "$@"\n' "$tmp" "$py" > "$tmp/chosen/py"
    chmod 755 "$tmp/venv/bin/python3" "$tmp/bare/bin/python3" "$tmp/chosen/py"
    if "$py" -c 'import onnx' > /dev/null 2>&1; then
        (cd "$elsewhere" && "$py" -c 'import onnx, onnx.helper as h
x = h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 3])
y = h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 3])
g = h.make_graph([h.make_node("Relu", ["x"], ["y"], name="relu")], "g", [x], [y])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), "relu.onnx")')
        rm -f "$tmp"/*.log
        PATH=$tmp/venv/bin:$PATH irun "$elsewhere" "$p/bin/placeto-import-onnx" relu.onnx -q -o relu.json
        if [ "$rc" -eq 0 ] && [ -f "$elsewhere/relu.json" ] && grep -q "^venv python3 .*/share/placeto/import/onnx_graph.py relu.onnx" "$tmp/venv.log"
        then pass; else fail "installed placeto-import-onnx: the python3 on PATH" "rc=$rc; log: $(flat "$tmp/venv.log")"; fi
        rm -f "$tmp"/*.log "$elsewhere/relu.json"
        PATH=$tmp/bare/bin:$PATH irun "$elsewhere" "$p/bin/placeto-import-onnx" relu.onnx -q -o relu.json
        if [ "$rc" -eq 0 ] && [ -f "$elsewhere/relu.json" ] && grep -q 'find_spec("onnx")' "$tmp/bare.log" &&
           ! grep -q "onnx_graph.py" "$tmp/bare.log"
        then pass; else fail "installed placeto-import-onnx: a python3 on PATH without onnx gives /usr/bin/python3" "rc=$rc; log: $(flat "$tmp/bare.log")"; fi
        rm -f "$tmp"/*.log "$elsewhere/relu.json"
        PATH=$tmp/venv/bin:$PATH PLACETO_PYTHON=$tmp/chosen/py irun "$elsewhere" "$p/bin/placeto-import-onnx" relu.onnx -q -o relu.json
        if [ "$rc" -eq 0 ] && [ -f "$elsewhere/relu.json" ] && grep -q "^chosen .*/share/placeto/import/onnx_graph.py relu.onnx" "$tmp/chosen.log" &&
           [ ! -e "$tmp/venv.log" ]
        then pass; else fail "installed placeto-import-onnx: PLACETO_PYTHON first" "rc=$rc; logs: $(cat "$tmp"/*.log 2> /dev/null | head -c 300)"; fi
        PLACETO_PYTHON=$tmp/nowhere/python irun "$elsewhere" "$p/bin/placeto-import-onnx" relu.onnx -q -o relu2.json
        if [ "$rc" -eq 1 ] && grep -q "^placeto-import-onnx: PLACETO_PYTHON=$tmp/nowhere/python: no such program" "$tmp/err"
        then pass; else fail "installed placeto-import-onnx: PLACETO_PYTHON names no program" "rc=$rc"; fi
        # installed, the messages start with the command's name
        printf 'not onnx' > "$elsewhere/junk.onnx"
        irun "$elsewhere" "$p/bin/placeto-import-onnx" junk.onnx -q -o junk.json
        if [ "$rc" -eq 1 ] && grep -q "^placeto-import-onnx: junk.onnx: not a readable ONNX model" "$tmp/err"
        then pass; else fail "installed placeto-import-onnx: its messages" "rc=$rc"; fi
    fi
    if "$py" -c 'import torch, functorch.compile' > /dev/null 2>&1; then
        rm -f "$tmp"/*.log
        PATH=$tmp/venv/bin:$PATH irun "$elsewhere" "$p/bin/placeto-import-torch" --help
        if [ "$rc" -eq 0 ] && grep -q "PLACETO_PYTHON" "$tmp/out" && grep -q 'find_spec("torch")' "$tmp/venv.log" &&
           grep -q "^venv python3 .*/share/placeto/import/torch_graph.py --help" "$tmp/venv.log"
        then pass; else fail "installed placeto-import-torch: the python3 on PATH with torch" "rc=$rc; log: $(flat "$tmp/venv.log")"; fi
    fi

    n_graphs=$(cd graphs && find . -path ./import -prune -o -type f -name '*.json' -print | wc -l)
    n_data=$(find "$data" -type f -not -path '*/import/*' | wc -l)
    if [ "$n_graphs" -eq "$n_data" ]; then pass; else fail "installed data" "$n_data files, graphs/ has $n_graphs"; fi

    bin=$p/bin/placeto
    irun "$elsewhere" "$bin" --version
    expect_rc "installed --version" 0 && has "installed --version" "$tmp/out" "placeto "
    irun "$elsewhere" "$bin" explore --headless --keys 'space space' --size 100x30
    if expect_rc "installed explore --headless" 0; then
        has "installed explore: the default graph" "$tmp/out" "resnet18"
        has "installed explore: its trained policy" "$tmp/out" "policy resnet18_2.json"
    fi
    irun "$elsewhere" "$bin" compare "$data/toy/diamond.json" --cluster "$data/clusters/k80x2.json"
    if expect_rc "installed compare" 0; then
        has "installed compare: heft" "$tmp/out" "heft"
        has "installed compare: the bundled learned search" "$tmp/out" "lsearch"
    fi
    irun "$elsewhere" "$bin" place "$data/resnet18.json" --policy auto
    if expect_rc "installed place --policy auto" 0; then
        has "installed place --policy auto: the installed policy" "$tmp/out" "$data/policies/resnet18_2.json"
    fi
    irun "$elsewhere" "$bin"
    expect_rc "installed, no command (overview)" 0 && has "installed overview" "$tmp/out" "simulated"

    # a copy with no data near it: nothing found, until PLACETO_DATA names it
    mkdir -p "$tmp/lonely"
    cp "$bin" "$tmp/lonely/placeto"
    irun "$elsewhere" "$tmp/lonely/placeto" explore --headless --keys 'space'
    expect_rc "a copy without its data" 1 && has "a copy without its data: the message" "$tmp/err" "graphs/resnet18.json"
    PLACETO_DATA=$data irun "$elsewhere" "$tmp/lonely/placeto" place "$data/toy/crown.json" --policy auto
    if expect_rc "PLACETO_DATA" 0; then
        has "PLACETO_DATA: its learned search" "$tmp/out" "$data/policies/lsearch.json"
    fi
    PLACETO_DATA=$data irun "$elsewhere" "$tmp/lonely/placeto" explore --headless --keys 'space'
    expect_rc "PLACETO_DATA explore" 0 && has "PLACETO_DATA explore" "$tmp/out" "resnet18"
    # PLACETO_DATA wins over the installed data
    PLACETO_DATA=$tmp/nowhere irun "$elsewhere" "$bin" explore --headless --keys 'space'
    expect_rc "PLACETO_DATA first" 1

    if mk "make uninstall" uninstall DESTDIR="$dest"; then
        left=$(find "$dest" -type f | head -3)
        if [ -z "$left" ]; then pass; else fail "make uninstall" "left $left"; fi
    fi
fi

# another PREFIX: the same layout under it
if mk "make install PREFIX" install DESTDIR="$dest" PREFIX=/opt/placeto; then
    irun "$elsewhere" "$dest/opt/placeto/bin/placeto" place "$dest/opt/placeto/share/placeto/resnet18.json" --policy auto
    if expect_rc "PREFIX=/opt/placeto place --policy auto" 0; then
        has "PREFIX: the installed policy" "$tmp/out" "$dest/opt/placeto/share/placeto/policies/resnet18_2.json"
    fi
    if [ -f "$dest/opt/placeto/share/man/man1/placeto.1" ]; then pass; else fail "PREFIX man page" "missing"; fi
    mk "make uninstall PREFIX" uninstall DESTDIR="$dest" PREFIX=/opt/placeto
fi

echo "install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
