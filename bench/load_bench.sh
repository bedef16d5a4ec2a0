#!/usr/bin/env bash
# bench/load_bench.sh [COMMIT] [ROUNDS]: loading a 100 000-op graph, this
# checkout against COMMIT (default 8286a0c, the last commit before the
# one-pass reader), both measured in one run. Builds COMMIT in a temporary
# git worktree (or takes LOAD_BASE_BIN, an already built placeto of it),
# writes gen_random_dag(100000, 2.0, 3) with `build/placeto-bench
# --write-graph`, then runs, alternately with the two binaries, ROUNDS times
# each (default 5): `placeto info G` and the explorer's first frame
# (`placeto explore G --headless --keys ''`), under /usr/bin/time -f "%e %M".
# Prints the medians of the wall time and the peak memory (max RSS) and the
# ratios. Alternating keeps the ratios fair on a shared machine.
#
# example: bash bench/load_bench.sh 8286a0c 5       (make bench PARTS=load)
set -eu
commit=${1:-8286a0c} rounds=${2:-5}
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "load_bench.sh: needs /usr/bin/time (GNU time)" >&2; exit 1; }
git rev-parse --verify -q "$commit^{commit}" > /dev/null || { echo "load_bench.sh: $commit: no such commit" >&2; exit 1; }
tmp=$(mktemp -d)
cleanup() {
    [ -d "$tmp/base" ] && git worktree remove --force "$tmp/base" > /dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT
old=${LOAD_BASE_BIN:-}
if [ -z "$old" ]; then
    git worktree add --detach "$tmp/base" "$commit" > /dev/null 2>&1
    echo "building $commit ..." >&2
    make -C "$tmp/base" -s placeto > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log" >&2; exit 1; }
    old=$tmp/base/placeto
fi
make -s placeto build/placeto-bench > /dev/null
new=./placeto g=$tmp/g100k.json
build/placeto-bench --write-graph 100000 3 "$g"
"$old" info "$g" > "$tmp/info.old"
"$new" info "$g" > "$tmp/info.new"
cmp -s "$tmp/info.old" "$tmp/info.new" || { echo "load_bench.sh: info differs between $commit and this checkout" >&2; diff "$tmp/info.old" "$tmp/info.new" >&2 || true; exit 1; }

# measure NAME BINARY ARGS...: appends "seconds kilobytes" to $tmp/NAME
measure() {
    local name=$1
    shift
    (cd "$tmp" && /usr/bin/time -f "%e %M" -o "$tmp/t" "$@" > /dev/null 2>&1) || { echo "load_bench.sh: $* failed" >&2; exit 1; }
    cat "$tmp/t" >> "$tmp/$name"
}
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
: > "$tmp/info_o"; : > "$tmp/info_n"; : > "$tmp/expl_o"; : > "$tmp/expl_n"
for _ in $(seq "$rounds"); do
    measure info_o "$old" info "$g"
    measure info_n "$(pwd)/$new" info "$g"
    measure expl_o "$old" explore "$g" --headless --keys ''
    measure expl_n "$(pwd)/$new" explore "$g" --headless --keys ''
done
row() { # LABEL OLDFILE NEWFILE
    local to tn mo mn
    to=$(cut -d' ' -f1 < "$2" | median) tn=$(cut -d' ' -f1 < "$3" | median)
    mo=$(cut -d' ' -f2 < "$2" | median) mn=$(cut -d' ' -f2 < "$3" | median)
    printf '%-40s %9.2f s %9.2f s %6.2fx faster   %6.0f MB %6.0f MB %5.2f of it\n' "$1" "$to" "$tn" \
        "$(awk -v o="$to" -v n="$tn" 'BEGIN {print o / n}')" "$(awk -v k="$mo" 'BEGIN {print k / 1024}')" \
        "$(awk -v k="$mn" 'BEGIN {print k / 1024}')" "$(awk -v o="$mo" -v n="$mn" 'BEGIN {print n / o}')"
}
echo "== loading a 100 000-op graph ($(wc -c < "$g") bytes): $commit against this checkout, medians of $rounds alternating rounds"
printf '%-40s %11s %11s %14s   %9s %9s\n' "" "$commit" "this" "" "$commit" "this"
row "placeto info G" "$tmp/info_o" "$tmp/info_n"
row "explore G --headless --keys '' (frame 1)" "$tmp/expl_o" "$tmp/expl_n"
