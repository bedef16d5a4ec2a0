#!/usr/bin/env bash
# Runs the fuzz targets built by `make fuzz` one after the other (not in
# parallel), each for SECONDS, from the repository root (the placement and
# episode targets read graphs/toy/*.json relative to it).
#
# usage: tests/fuzz/run.sh SECONDS TARGET...
#
# Each target fuzzes build-fuzz/corpus/TARGET: the seeds of
# tests/fuzz/corpus/TARGET are copied there first (the committed corpus is
# never written; inputs found by earlier runs are kept). A crash, leak,
# timeout or out-of-memory input is written to build-fuzz/crashes/TARGET/ and
# stops that target (libFuzzer stops at the first one); its log is
# build-fuzz/logs/TARGET.log. Prints one line per target: the executions run
# (libFuzzer's stat::number_of_executed_units) and the crash inputs written
# by this run; exits 1 if any. Before fuzzing, the inputs in
# tests/fuzz/regress/TARGET/ are run once each and must pass: crashes found
# and fixed that cannot live in tests/data/bad/ (which tests/cli/cli_bad.sh runs as
# graphs, placements and clusters), such as a DAG or a policy file.
set -u
cd "$(dirname "$0")/../.." || exit 1
secs=${1:?usage: tests/fuzz/run.sh SECONDS TARGET...}
shift
B=build-fuzz
# max_len per target: big enough for every seed (and a little more)
max_len() {
    case $1 in
        policy) echo 65536 ;;
        checkpoint) echo 131072 ;;
        dag) echo 4096 ;;
        *) echo 16384 ;;
    esac
}
total_crashes=0
total_execs=0
for t in "$@"; do
    bin=$B/fuzz_$t
    corpus=$B/corpus/$t
    crashes=$B/crashes/$t
    log=$B/logs/$t.log
    mkdir -p "$corpus" "$crashes" "$B/logs"
    cp tests/fuzz/corpus/"$t"/* "$corpus"/ 2> /dev/null
    stamp=$B/logs/$t.stamp
    : > "$stamp"
    # fixed crashes that are not tests/data/bad/ files: each must now run cleanly
    regress=(tests/fuzz/regress/"$t"/*)
    if [ -f "${regress[0]}" ] && ! "$bin" "${regress[@]}" > "$B/logs/$t.regress.log" 2>&1; then
        printf 'fuzz_%-11s regression input crashes again (see %s)\n' "$t" "$B/logs/$t.regress.log"
        total_crashes=$((total_crashes + 1))
        continue
    fi
    "$bin" -max_total_time="$secs" -print_final_stats=1 -max_len="$(max_len "$t")" \
        -timeout=20 -rss_limit_mb=2048 -artifact_prefix="$crashes/" "$corpus" > "$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    new=$(find "$crashes" -type f -newer "$stamp" | sort)
    n=$(printf '%s' "$new" | grep -c . || true)
    if [ "$n" -eq 0 ] && [ "$rc" -ne 0 ]; then
        n=1 # died without writing an input (e.g. a sanitizer report in initialisation)
        new="(no input written; see $log)"
    fi
    printf 'fuzz_%-11s %10s executions in %ss, %d crash(es)\n' "$t" "${execs:-?}" "$secs" "$n"
    if [ "$n" -ne 0 ]; then
        printf '%s\n' "$new" | sed 's/^/  /'
        grep -m 1 -E '^==[0-9]+==ERROR|runtime error|^fuzz: property|out-of-memory|timeout' "$log" | sed 's/^/  /'
    fi
    total_crashes=$((total_crashes + n))
    total_execs=$((total_execs + ${execs:-0}))
done
echo "fuzz: $total_execs executions, $total_crashes crash(es)"
[ "$total_crashes" -eq 0 ]
