#!/usr/bin/env bash
# Runs the whole suite: the unit tests, then the command-line tests (bad-input
# corpus, commands, exports). With VALGRIND=1 every program runs under
# valgrind and any error or definite leak fails. The last line is the total:
# "N passed, N failed".
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
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "== unit tests"
$PLACETO_WRAP "$unit" > "$out" 2>&1; rc=$?
cat "$out"
tally "$out" unit
[ $rc -ne 0 ] && ! grep -qE '^unit: [0-9]+ passed, [1-9]' "$out" && { echo "run.sh: unit runner exited $rc"; failed=$((failed + 1)); }
for t in tests/cli/cli_*.sh; do
  [ -f "$t" ] || continue
  echo "== $t"
  bash "$t" > "$out" 2>&1; rc=$?
  cat "$out"
  tally "$out" "$t"
  [ $rc -ne 0 ] && ! grep -qE '^[a-z]+: [0-9]+ passed, [1-9]' "$out" && { echo "run.sh: $t exited $rc"; failed=$((failed + 1)); }
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
