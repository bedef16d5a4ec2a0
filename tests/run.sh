#!/usr/bin/env bash
# Runs the whole suite: the unit tests, then the command-line tests (bad-input
# corpus, commands, exports), PLACETO_TEST_JOBS at a time (default: the
# number of cores), each one's output printed whole and in order. With
# VALGRIND=1 every program runs under valgrind and any error or definite leak
# fails. PLACETO_TESTS="cli_bad cli_io ..." runs only those scripts (make
# check). The last line is the total: "N passed, N failed".
set -u
prog=${1:-./placeto}
unit=${2:-build/unit}
cd "$(dirname "$0")/.."
export PLACETO_PROG=$prog
# Graphviz's renderers keep caches they never free (tests/*.supp)
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$PWD/tests/lsan.supp:print_suppressions=0"
if [ "${VALGRIND:-}" = 1 ]; then
  export PLACETO_WRAP="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite --suppressions=$PWD/tests/valgrind.supp"
else
  export PLACETO_WRAP=""
fi
jobs=${PLACETO_TEST_JOBS:-$(nproc 2> /dev/null || echo 1)}
[ "$jobs" -ge 1 ] 2> /dev/null || jobs=1
passed=0 failed=0
tally() { # reads "WORD: N passed, M failed" from the captured output
  local line
  line=$(grep -E '^[a-z]+: [0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
  if [ -z "$line" ]; then
    echo "run.sh: $2 printed no summary (crashed?)"; failed=$((failed + 1)); return
  fi
  local p f
  p=$(echo "$line" | sed -E 's/^[a-z]+: ([0-9]+) passed.*/\1/')
  f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
  passed=$((passed + p)); failed=$((failed + f))
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# the parts: the unit runner first, then every script (or the chosen ones)
names=(unit) cmds=("$PLACETO_WRAP $unit")
for t in tests/cli/cli_*.sh; do
  [ -f "$t" ] || continue
  base=$(basename "$t" .sh)
  if [ -n "${PLACETO_TESTS:-}" ] && ! printf ' %s ' $PLACETO_TESTS | grep -qF " $base "; then continue; fi
  names+=("$t") cmds+=("bash $t")
done
n=${#names[@]}
# start each part as a slot frees up; print the parts in order as they end
next=0 shown=0
declare -A pid_of
start() {
  local k=$1
  # shellcheck disable=SC2086  # the command line is split on purpose
  ( ${cmds[$k]} > "$work/$k.out" 2>&1; echo $? > "$work/$k.rc" ) &
  pid_of[$k]=$!
}
while [ "$shown" -lt "$n" ]; do
  running=0
  for ((k = shown; k < next; k++)); do [ -e "$work/$k.rc" ] || running=$((running + 1)); done
  while [ "$next" -lt "$n" ] && [ "$running" -lt "$jobs" ]; do start "$next"; next=$((next + 1)); running=$((running + 1)); done
  if [ -e "$work/$shown.rc" ]; then
    wait "${pid_of[$shown]}" 2> /dev/null
    rc=$(cat "$work/$shown.rc")
    if [ "$shown" -eq 0 ]; then echo "== unit tests"; else echo "== ${names[$shown]}"; fi
    cat "$work/$shown.out"
    if [ "$shown" -eq 0 ]; then
      tally "$work/$shown.out" unit
      [ "$rc" -ne 0 ] && ! grep -qE '^unit: [0-9]+ passed, [1-9]' "$work/$shown.out" && { echo "run.sh: unit runner exited $rc"; failed=$((failed + 1)); }
    else
      tally "$work/$shown.out" "${names[$shown]}"
      [ "$rc" -ne 0 ] && ! grep -qE '^[a-z]+: [0-9]+ passed, [1-9]' "$work/$shown.out" && { echo "run.sh: ${names[$shown]} exited $rc"; failed=$((failed + 1)); }
    fi
    shown=$((shown + 1))
    continue
  fi
  sleep 0.2
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
