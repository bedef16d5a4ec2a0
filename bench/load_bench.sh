#!/usr/bin/env bash
# bench/load_bench.sh [COMMIT] [ROUNDS] [FRAME_COMMIT]: loading a 100 000-op
# graph, this checkout against COMMIT (default 8286a0c, the last commit
# before the one-pass reader), and the explorer's first frame against
# FRAME_COMMIT too (default badf5ec, the last commit before the layout's
# speed-up: lazy compact view, shorter crossing reduction on large graphs,
# the layout in a thread of its own), all measured in one run. Builds each
# commit with bench/build_rev.sh (or takes LOAD_BASE_BIN and
# FRAME_BASE_BIN, already built placeto binaries of them), writes
# gen_random_dag(100000, 2.0, 3) with `build/placeto-bench --write-graph`,
# then runs, alternately with the binaries, ROUNDS times each (default 5):
# `placeto info G` and the explorer's first frame (`placeto explore G
# --headless --keys ''`), under /usr/bin/time -f "%e %M %U %S". Prints the
# medians of the wall time, the CPU time (user + system) and the peak memory
# (max RSS) and the ratios. Alternating keeps the ratios fair on a shared
# machine.
#
# example: bench/run load 8286a0c 5 badf5ec       (make bench PARTS=load)
set -eu
commit=${1:-8286a0c} rounds=${2:-5} fcommit=${3:-badf5ec}
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "load_bench.sh: needs /usr/bin/time (GNU time)" >&2; exit 1; }
old=${LOAD_BASE_BIN:-}
[ -n "$old" ] || old=$(bash bench/build_rev.sh "$commit")
fold=${FRAME_BASE_BIN:-}
[ -n "$fold" ] || fold=$(bash bench/build_rev.sh "$fcommit")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s placeto build/placeto-bench > /dev/null
new=./placeto g=$tmp/g100k.json
build/placeto-bench --write-graph 100000 3 "$g"
"$old" info "$g" > "$tmp/info.old"
"$new" info "$g" > "$tmp/info.new"
cmp -s "$tmp/info.old" "$tmp/info.new" || { echo "load_bench.sh: info differs between $commit and this checkout" >&2; diff "$tmp/info.old" "$tmp/info.new" >&2 || true; exit 1; }

# the same graph in the frame's base, the same first frame but for the layout
# of the large group graph (fewer crossing-reduction sweeps: the same numbers,
# the same text outside the graph pane)
"$fold" info "$g" > "$tmp/info.fold"
cmp -s "$tmp/info.fold" "$tmp/info.new" || { echo "load_bench.sh: info differs between $fcommit and this checkout" >&2; exit 1; }

# measure NAME BINARY ARGS...: appends "seconds kilobytes user system" to $tmp/NAME
measure() {
    local name=$1
    shift
    (cd "$tmp" && /usr/bin/time -f "%e %M %U %S" -o "$tmp/t" "$@" > /dev/null 2>&1) || { echo "load_bench.sh: $* failed" >&2; exit 1; }
    cat "$tmp/t" >> "$tmp/$name"
}
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
: > "$tmp/info_o"; : > "$tmp/info_n"; : > "$tmp/expl_o"; : > "$tmp/expl_n"; : > "$tmp/expl_f"
for _ in $(seq "$rounds"); do
    measure info_o "$old" info "$g"
    measure info_n "$(pwd)/$new" info "$g"
    measure expl_o "$old" explore "$g" --headless --keys ''
    measure expl_f "$fold" explore "$g" --headless --keys ''
    measure expl_n "$(pwd)/$new" explore "$g" --headless --keys ''
done
row() { # LABEL OLDFILE NEWFILE
    local to tn mo mn co cn
    to=$(cut -d' ' -f1 < "$2" | median) tn=$(cut -d' ' -f1 < "$3" | median)
    mo=$(cut -d' ' -f2 < "$2" | median) mn=$(cut -d' ' -f2 < "$3" | median)
    co=$(awk '{print $3 + $4}' < "$2" | median) cn=$(awk '{print $3 + $4}' < "$3" | median)
    printf '%-40s %7.2f s %7.2f s %6.2fx faster  CPU %5.2f s %5.2f s %5.2fx  %5.0f MB %5.0f MB %5.2f of it\n' "$1" "$to" "$tn" \
        "$(awk -v o="$to" -v n="$tn" 'BEGIN {print o / n}')" "$co" "$cn" "$(awk -v o="$co" -v n="$cn" 'BEGIN {print o / n}')" \
        "$(awk -v k="$mo" 'BEGIN {print k / 1024}')" "$(awk -v k="$mn" 'BEGIN {print k / 1024}')" \
        "$(awk -v o="$mo" -v n="$mn" 'BEGIN {print n / o}')"
}
echo "== loading a 100 000-op graph ($(wc -c < "$g") bytes): $commit and $fcommit against this checkout, medians of $rounds alternating rounds"
printf '%-40s %9s %9s %13s  %-19s %14s\n' "" "before" "this" "" "CPU (user+sys)" "peak memory"
row "info G: $commit" "$tmp/info_o" "$tmp/info_n"
row "frame 1: $commit" "$tmp/expl_o" "$tmp/expl_n"
row "frame 1: $fcommit" "$tmp/expl_f" "$tmp/expl_n"
echo "(frame 1: placeto explore G --headless --keys '')"
