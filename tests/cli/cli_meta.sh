#!/usr/bin/env bash
# What the program says about itself: --version and -V; the man page of
# `placeto --man` (build/placeto.1 comes from it) renders without warnings
# (`man -l`, and groff's own warnings, when they are installed; otherwise its
# roff structure is checked) and names every command and every option of
# `placeto --help` and `placeto COMMAND --help`, and every key of the
# explorer's help; the bash completion (completions/placeto.bash) sourced in
# bash gives the right COMPREPLY for commands, options, methods and files.
# Prints "meta: N passed, M failed".
cd "$(dirname "$0")/../.."
. tests/cli/lib_cli.sh

# ---------------------------------------------------------------- version
version=$(sed -n 's/^VERSION *:= *//p' Makefile)
for v in --version -V; do
    run "$v"
    if expect_rc "$v" 0; then
        # git describe: a commit, or the last tag, the commits since it and the commit (v0.4.0-63-g009ccbb)
        if grep -qE "^placeto $version( \(git ([A-Za-z0-9._]+-[0-9]+-g)?[0-9a-f]+(-dirty)?\))?\$" "$tmp/out" ||
            grep -qE "^placeto $version \(git v[0-9.]+(-dirty)?\)\$" "$tmp/out"; then pass; else
            fail "$v" "expected 'placeto $version' (and the git description)"; fi
    fi
done
run --version extra
expect_rc "--version with an argument" 2

# ---------------------------------------------------------------- man page
run --man
if expect_rc "--man" 0; then
    cp "$tmp/out" "$tmp/placeto.1"
    # the same page as the Makefile's, when that was built from this program
    man1=$(dirname "$prog")/build/placeto.1
    [ "$(dirname "$prog")" = . ] && man1=build/placeto.1
    case $prog in build*/*) man1=$(dirname "$prog")/placeto.1 ;; esac
    if [ -f "$man1" ]; then
        if cmp -s "$man1" "$tmp/placeto.1"; then pass; else fail "$man1" "differs from placeto --man"; fi
    fi
    # roff structure: a title, the usual sections, balanced no-fill blocks,
    # no line starting with a stray control character
    pycheck "man page structure" '
import re, sys
lines = open(sys.argv[1]).read().split("\n")
assert lines[-1] == "", "no final newline"
assert any(l.startswith(".TH PLACETO 1 ") for l in lines), "no .TH"
secs = [l[4:] for l in lines if l.startswith(".SH ")]
for s in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS", "METHODS", "KEYS", "ENVIRONMENT", "FILES", "EXIT STATUS", "SEE ALSO"):
    assert s in secs, "no section " + s
depth = 0
for n, l in enumerate(lines, 1):
    if l.startswith(".") or l.startswith("\x27"):
        req = re.match(r"[.\x27]([A-Za-z\\\"]+)", l)
        assert req and req.group(1) in ("TH", "SH", "SS", "PP", "TP", "nf", "fi", "br", "nh", "ad", "\\\""), "line %d: unknown request %r" % (n, l)
        if l == ".nf": depth += 1
        if l == ".fi": depth -= 1
        assert depth in (0, 1), "line %d: unbalanced .nf/.fi" % n
    assert "\t" not in l, "line %d: a tab" % n
    assert not re.search(r"\\[^-e&fB\x27\"]", l.replace("\\fB", "").replace("\\fR", "").replace("\\fI", "")), "line %d: an unknown escape: %r" % (n, l)
assert depth == 0, "an .nf without .fi"
' "$tmp/placeto.1"
    if command -v groff > /dev/null; then
        groff -man -ww -z -Tutf8 "$tmp/placeto.1" > /dev/null 2> "$tmp/err"
        if [ -s "$tmp/err" ]; then fail "groff -ww" "$(flat "$tmp/err")"; else pass; fi
    fi
    if command -v man > /dev/null && command -v groff > /dev/null; then
        MANWIDTH=100 man --warnings -l "$tmp/placeto.1" > "$tmp/man.txt" 2> "$tmp/err"
        rc=$?
        cmd="man --warnings -l placeto.1"
        if [ "$rc" -ne 0 ] || [ -s "$tmp/err" ]; then fail "man -l" "warnings or failure"; else pass; fi
        # the rendered text, without overstriking
        sed -e 's/.\x08//g' "$tmp/man.txt" > "$tmp/page.txt"
    else
        # no man: the roff text with its escapes undone
        sed -e 's/\\f[BIR]//g' -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/\\&//g' "$tmp/placeto.1" > "$tmp/page.txt"
    fi
    # every command and option of the help texts appears in the page (one
    # line each: a long option with its short name and its argument, an
    # argument being the word after it in capitals or brackets)
    run --help
    cmds=$(sed -n '/^commands:/,/^$/p' "$tmp/out" | awk 'NF > 1 {print $1}')
    [ -n "$cmds" ] || fail "--help" "no commands listed"
    for c in $cmds; do
        if grep -qE "^ *$c( |\$)" "$tmp/page.txt" && grep -qE "^ {2,4}$c\$" "$tmp/page.txt"; then pass; else
            fail "man page: command $c" "not listed with its own subsection"; fi
        run "$c" --help
        # "  -p, --policy POLICY   help" or "      --json   help"
        sed -n '/^options:/,/^$/p' "$tmp/out" | grep -E '^  (-.,|    )' | sed -E 's/^ +//; s/^((-., )?--[a-z0-9-]+( [[A-Z][^ ]*)?).*/\1/' > "$tmp/opts"
        missing=""
        while IFS= read -r o; do
            grep -qF -- "$o" "$tmp/page.txt" || missing="$missing '$o'"
        done < "$tmp/opts"
        if [ -s "$tmp/opts" ] && [ -z "$missing" ]; then pass; else fail "man page: options of $c" "missing:$missing"; fi
    done
    # train's section gives each agent's own rows, with that agent's defaults
    # (its --help's lines: gdp's --lr defaults to 3e-4 where Placeto's is 0.001)
    for ag in gdp hsdag; do
        run train --agent "$ag" --help
        want=$(grep -E '^ +--lr X' "$tmp/out" | sed -E 's/.*(\([^)]*\))$/\1/')
        if [ -n "$want" ] && sed -n "/With --agent $ag/,/With --agent/p" "$tmp/page.txt" | tr -s ' \n' ' ' |
            grep -qF -- "Adam learning rate $want"; then pass; else
            fail "man page: train --agent $ag's own defaults" "no 'Adam learning rate $want' in its part"; fi
    done
    # every key of the explorer's help (its ? screen, headless)
    run explore graphs/toy/crown.json --headless --size 140x60 --keys '?'
    if expect_rc "explore help" 0; then
        missing=""
        for k in "space" "Left h Right l" "PgUp PgDn" "Ctrl-L" "0-9" "< >" "[ ]"; do
            grep -qF -- "$k" "$tmp/out" || continue
            grep -qF -- "$k" "$tmp/page.txt" || missing="$missing '$k'"
        done
        if [ -z "$missing" ]; then pass; else fail "man page: keys" "missing:$missing"; fi
    fi
    # every method
    run --complete methods
    missing=""
    for m in $(cat "$tmp/out"); do grep -qE "^ +$m( |\$)" "$tmp/page.txt" || missing="$missing $m"; done
    if [ -z "$missing" ] && [ -s "$tmp/out" ]; then pass; else fail "man page: methods" "missing:$missing"; fi
fi

# ---------------------------------------------------------------- completion
# comp WORDS...: COMPREPLY for the command line WORDS (the last one being
# completed), one word a line in $tmp/comp, in $tmp/files as working directory
mkdir -p "$tmp/files/sub"
: > "$tmp/files/model.json"
: > "$tmp/files/mine.placement.json"
absprog=$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog")
comp() {
    cmd="complete: $*"
    (cd "$tmp/files" && bash --norc --noprofile -c '
        source "$1"; shift
        COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
        _placeto placeto "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$OLDPWD/completions/placeto.bash" "$absprog" "$@") > "$tmp/comp" 2> "$tmp/err"
    rc=$?
}
# expect NAME WORD...: COMPREPLY is exactly these words
expect() {
    local name=$1
    shift
    printf '%s\n' "$@" | sort > "$tmp/want"
    if [ "$rc" -eq 0 ] && cmp -s "$tmp/want" "$tmp/comp" && [ ! -s "$tmp/err" ]; then pass; else
        cp "$tmp/comp" "$tmp/out"; fail "$name" "got $(tr '\n' ' ' < "$tmp/comp"), expected $*"; fi
}
comp ""
expect "commands" explore info simulate place compare train export demo help --help --version
comp co
expect "a command's prefix" compare
comp help s
expect "help COMMAND" simulate
comp place model.json --me
expect "an option" --method
comp simulate m --pl
expect "another command's option" --placement
comp place model.json --method he
expect "--method values" heft
comp place model.json -m m-
expect "-m values" m-topo m-etf
comp compare model.json --methods heft,m
expect "--methods list" heft,m-topo heft,m-etf heft,metis
comp compare model.json -m si
expect "compare -m" single
comp place model.json --policy a
expect "--policy auto" auto
comp info mo
expect "a GRAPH file" model.json
comp simulate model.json --placement mi
expect "a file option" mine.placement.json
comp info s
expect "a directory" sub
comp explore --devices ""
expect "a number option: nothing"
comp export model.json --level ""
expect "a word option's values" group op
comp export model.json -l o
expect "a word option by its short name" op
comp train model.json --preset p
expect "train --preset" paper
comp train model.json --keep ""
expect "train --keep" best last

# the rows behind the completion and docs/cli.md's value column
run --complete values train preset
if expect_rc "complete values" 0 && [ "$(tr '\n' ' ' < "$tmp/out")" = "search tuned paper " ]; then pass; else
    fail "complete values train preset" "got $(tr '\n' ' ' < "$tmp/out")"; fi
run --complete values place --budget
if expect_rc "complete values of a number option" 0 && [ ! -s "$tmp/out" ]; then pass; else
    fail "complete values place --budget" "expected nothing"; fi
run --complete values place --nope
expect_rc "complete values: an unknown option" 2
run --complete table place
if expect_rc "complete table" 0 && grep -qP '^--samples\t-\tK\t0–10\^6, default 0$' "$tmp/out"; then pass; else
    fail "complete table place" "no --samples row: $(head -3 "$tmp/out")"; fi
run --complete table train gdp
if expect_rc "complete table train gdp" 0 && grep -qP '^--epochs\t-\tE\t1–64, default 4$' "$tmp/out" &&
    ! grep -q '^--episodes' "$tmp/out"; then pass; else fail "complete table train gdp" "not gdp's own rows"; fi
run --complete table place gdp
expect_rc "complete table: an agent is train's" 2

echo "meta: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
