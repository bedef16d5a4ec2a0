#!/usr/bin/env bash
# `make install` into a temporary DESTDIR (the default PREFIX, then another),
# the installed program run from another directory: it finds its bundled
# graphs, clusters and policies in PREFIX/share/placeto from its own
# location (explore --headless on the default graph, compare, place
# --policy auto); the installed placeto-import-torch imports a module of
# one's own from another directory (when PyTorch is installed) and the
# installed program reads it; a copy without the data finds it through
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
