#!/usr/bin/env bash
# bench/gdp_speed.sh [BASE_COMMIT]: the speed of GDP's PPO update (make bench
# PARTS=gdpspeed). inception_v3 on 2 default devices, the default
# architecture, K = 16 samples, E = 4 epochs, one thread: updates per second
# of this checkout's `placeto train --agent gdp`, of the PyTorch twin of the
# same network and update (bench/gdp_torch.py, on the input that
# `placeto-bench --gdp-input` writes; skipped when python3 has no torch),
# and, given BASE_COMMIT (or GDP_SPEED_BASE), of that commit's placeto built
# by bench/build_rev.sh; each the median of ROUNDS (3) alternating
# rounds, then the ratios. The C rate is the last --json progress line's
# episodes_per_second over EPISODES (40) updates: the updates with their 16
# simulations each, not the start-up or the final save. PyTorch's rewards
# are random (no simulator), its rate the mean over 20 updates after one
# warm-up.
#
# example: bench/run gdp-speed 20f77e5
set -eu
cd "$(dirname "$0")/.."
prog=${PROG:-./placeto}
bench=${BENCH:-build/placeto-bench}
base=${1:-${GDP_SPEED_BASE:-}}
episodes=${EPISODES:-40}
rounds=${ROUNDS:-3}
g=graphs/inception_v3.json
py=${PYTHON:-/usr/bin/python3}; [ -x "$py" ] || py=$(command -v python3 || true)
export OPENBLAS_NUM_THREADS=1
old=
[ -z "$base" ] || old=$(bash bench/build_rev.sh "$base")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# crate BINARY: updates per second of one training run
crate() {
    "$1" train "$g" --agent gdp --devices 2 --episodes "$episodes" --seed 1 --threads 1 --greedy-every 0 \
        --checkpoint-every 100000 -o "$tmp/p.json" --json 2> /dev/null |
        grep '"episode": ' | tail -n 1 | sed -E 's/.*"episodes_per_second": ([0-9.eE+-]+).*/\1/'
}
torch=
if [ -n "$py" ] && "$py" -c 'import torch' 2> /dev/null; then
    "$bench" --gdp-input "$g" 2 "$tmp/in.json"
    torch=$("$py" -c 'import torch; print(torch.__version__)')
fi
trate() {
    "$py" -B bench/gdp_torch.py "$tmp/in.json" --samples 16 --epochs 4 --updates 20 --threads 1 |
        sed -E 's/.*"updates_per_second": ([0-9.eE+-]+).*/\1/'
}
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

: > "$tmp/n"; : > "$tmp/o"; : > "$tmp/t"
for _ in $(seq "$rounds"); do
    crate "$prog" >> "$tmp/n"
    [ -n "$old" ] && crate "$old" >> "$tmp/o"
    [ -n "$torch" ] && trate >> "$tmp/t"
done
n=$(median < "$tmp/n")
echo "== GDP's PPO update: inception_v3 (169 groups), 2 devices, h = 128, K = 16, E = 4, 1 thread; median of $rounds"
line() { printf 'gdp update  %-22s %8.2f updates/s  %7.1f ms/update  %s\n' "$1" "$2" "$(awk -v r="$2" 'BEGIN {print 1000 / r}')" "$3"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2fx", a / b}'; }
line "C, this checkout" "$n" "(16 simulations per update included)"
if [ -n "$old" ]; then
    o=$(median < "$tmp/o")
    line "C, $base" "$o" ""
fi
if [ -n "$torch" ]; then
    t=$(median < "$tmp/t")
    line "PyTorch $torch" "$t" "(bench/gdp_torch.py; no simulator)"
fi
[ -n "$old" ] && echo "gdp update  this / $base: $(ratio "$n" "$o")"
if [ -n "$torch" ]; then
    echo "gdp update  this / PyTorch: $(ratio "$n" "$t")"
else
    echo "gdp update  (no python3 with torch: no PyTorch ratio)"
fi
