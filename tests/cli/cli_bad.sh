#!/usr/bin/env bash
# Bad-input corpus: every file in tests/data/bad/ must be rejected with a clear
# message, and every file in tests/data/extreme/ (valid but extreme) must load.
#
# How each file in tests/data/bad/ is run (FILE is its path, tests/data/bad/NAME):
#   place_*.json    simulate graphs/toy/diamond.json --placement FILE
#   cluster_*.json  simulate graphs/toy/diamond.json --placement tests/data/cli_diamond_p.json --cluster FILE
#   anything else   info FILE            (graph files: *.json and *.dot)
# A sibling FILE.args (one line) appends extra arguments to that command,
# e.g. "--devices 3". FILE.expect (one line) holds a substring the error
# message must contain. A run passes when the exit status is exactly 1,
# stderr starts with "placeto: ", names FILE, contains the expected
# substring, and shows no crash or sanitizer report. Exit status 99 means
# valgrind (PLACETO_WRAP, see tests/run.sh) found an error.
#
# Every file in tests/data/extreme/ is run as `info FILE` and `info FILE --json`:
# both must exit 0 and the JSON must parse.
#
# The binary files (graph_binary.json, graph_binary.dot, place_binary.json,
# graph_binary_nonul.json) are fixed bytes from Python's random.Random(20240601);
# they are committed as they are, nothing is generated at test time
# (tests/data/cli_make_corpus.py wrote the corpus and documents each file).
#
# Output: one line per failure, then "cli: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh
graph=graphs/toy/diamond.json
placement=tests/data/cli_diamond_p.json


fail() { # file reason command...
    local f=$1 why=$2
    shift 2
    echo "FAIL $f: $why; command: $*; rc=$rc; stderr: $(flat "$tmp/err")"
    failed=$((failed + 1))
}

for f in tests/data/bad/*; do
    case $f in *.expect | *.args) continue ;; esac
    [ -f "$f" ] || continue
    base=${f##*/}
    if [ ! -f "$f.expect" ]; then
        rc=-
        : > "$tmp/err"
        fail "$f" "no $f.expect file"
        continue
    fi
    expect=$(head -n 1 "$f.expect")
    extra=()
    if [ -f "$f.args" ]; then
        read -r -a extra < "$f.args"
    fi
    case $base in
        place_*.json) cmd=(simulate "$graph" --placement "$f") ;;
        cluster_*.json) cmd=(simulate "$graph" --placement "$placement" --cluster "$f") ;;
        *) cmd=(info "$f") ;;
    esac
    cmd+=(${extra[@]+"${extra[@]}"})
    # shellcheck disable=SC2086  # PLACETO_WRAP is a command line to split
    timeout 20 $wrap "$prog" "${cmd[@]}" > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
    if ! why=$(crash_reason); then
        fail "$f" "$why" "$prog" "${cmd[*]}"
    elif [ "$rc" -ne 1 ]; then
        fail "$f" "exit status $rc, expected 1" "$prog" "${cmd[*]}"
    elif [ "$(head -c 9 "$tmp/err")" != "placeto: " ]; then
        fail "$f" "stderr does not start with 'placeto: '" "$prog" "${cmd[*]}"
    elif ! grep -qF -- "$f" "$tmp/err"; then
        fail "$f" "the message does not name the file" "$prog" "${cmd[*]}"
    elif ! grep -qF -- "$expect" "$tmp/err"; then
        fail "$f" "the message lacks the expected '$expect'" "$prog" "${cmd[*]}"
    else
        passed=$((passed + 1))
    fi
done

for f in tests/data/extreme/*; do
    [ -f "$f" ] || continue
    # shellcheck disable=SC2086  # PLACETO_WRAP is a command line to split
    timeout 20 $wrap "$prog" info "$f" > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
    if ! why=$(crash_reason); then
        fail "$f" "$why" "$prog" info "$f"
        continue
    elif [ "$rc" -ne 0 ]; then
        fail "$f" "valid (extreme) input rejected: exit status $rc, expected 0" "$prog" info "$f"
        continue
    fi
    # shellcheck disable=SC2086  # PLACETO_WRAP is a command line to split
    timeout 20 $wrap "$prog" info "$f" --json > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
    if ! why=$(crash_reason); then
        fail "$f" "$why" "$prog" info "$f" --json
    elif [ "$rc" -ne 0 ]; then
        fail "$f" "valid (extreme) input rejected: exit status $rc, expected 0" "$prog" info "$f" --json
    elif ! "$py" -c 'import json,sys; d=json.load(sys.stdin); assert d["ops"] >= 1' < "$tmp/out" 2> "$tmp/py"; then
        cp "$tmp/py" "$tmp/err"
        fail "$f" "info --json output is not valid JSON with ops >= 1" "$prog" info "$f" --json
    else
        passed=$((passed + 1))
    fi
done

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
