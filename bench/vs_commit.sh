#!/usr/bin/env bash
# bench/vs_commit.sh COMMIT [EPISODES] [ROUNDS]: training speed of this
# checkout against an earlier commit, both measured in one run. Builds COMMIT
# with bench/build_rev.sh (kept in build/revs/), then runs `placeto train` on inception_v3 with
# one thread alternately with the two binaries (default and paper presets, 2
# and 4 devices), ROUNDS times each (default 3), EPISODES episodes per run
# (default 20), and prints episodes per second (the median of the rounds,
# process start and graph loading included) and the ratio. Alternating keeps
# the ratio fair on a shared machine.
#
# example: bench/run vs-commit e13882e
set -eu
[ $# -ge 1 ] || { echo "usage: bench/run vs-commit COMMIT [EPISODES] [ROUNDS]" >&2; exit 2; }
commit=$1 episodes=${2:-20} rounds=${3:-3}
cd "$(dirname "$0")/.."
git rev-parse --verify -q "$commit^{commit}" > /dev/null || { echo "vs_commit.sh: $commit: no such commit" >&2; exit 1; }
old=$(bash bench/build_rev.sh "$commit")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s placeto > /dev/null
new=./placeto
g=graphs/inception_v3.json

# rate BINARY ARGS...: episodes per second of one training run
rate() {
    local b=$1 s e
    shift
    s=$(date +%s.%N)
    "$b" train "$g" --episodes "$episodes" --threads 1 --seed 1 -o "$tmp/p.json" "$@" > /dev/null 2>&1
    e=$(date +%s.%N)
    awk -v k="$episodes" -v s="$s" -v e="$e" 'BEGIN {print k / (e - s)}'
}
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

printf '%-32s %12s %12s %7s\n' "inception_v3, 1 thread" "$commit" "this" "ratio"
for cfg in "--devices 2" "--devices 4" "--preset paper --devices 2" "--preset paper --devices 4"; do
    : > "$tmp/o"; : > "$tmp/n"
    for _ in $(seq "$rounds"); do
        # shellcheck disable=SC2086
        rate "$old" $cfg >> "$tmp/o"
        # shellcheck disable=SC2086
        rate "$new" $cfg >> "$tmp/n"
    done
    o=$(median < "$tmp/o") n=$(median < "$tmp/n")
    printf '%-32s %9.2f e/s %9.2f e/s %6.2fx\n' "$cfg" "$o" "$n" "$(awk -v n="$n" -v o="$o" 'BEGIN {print n / o}')"
done
