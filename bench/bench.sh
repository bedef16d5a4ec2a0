#!/usr/bin/env bash
# make bench [PARTS="..."]: the benchmark binary's figures, part by part
# (sim explorer agent gaps group layout extreme gdp gdpspeed hsdag lsched cut search import compare mpi; all by default;
# and load, only when named: bench/load_bench.sh against LOAD_BASE, default 8286a0c,
# and the first frame against FRAME_BASE, default badf5ec).
# The simulator's table puts the C figures next to the Python statement of
# the simulator (tests/sim_ref.py) timed on the same placements in this run.
set -eu
prog=${1:-./placeto}
bench=${2:-build/placeto-bench}
shift $(($# < 2 ? $# : 2))
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(sim explorer agent gaps group layout extreme gdp gdpspeed hsdag lsched cut search import compare mpi)
want() { local p; for p in "${parts[@]}"; do [ "$p" = "$1" ] && return 0; done; return 1; }
cd "$(dirname "$0")/.."
echo "== placeto benchmarks ($(date -u +%Y-%m-%d), $(nproc) cores, OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1})"
py=/usr/bin/python3; [ -x "$py" ] || py=$(command -v python3 || true)

if want sim; then
  echo "== the simulator: ns per op on HEFT's placements; C, and the Python statement (tests/sim_ref.py) in this run"
  if [ -n "$py" ] && [ -f tests/sim_ref.py ]; then
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
    "$bench" --sim-dir "$tmp" sim
    "$py" -B bench/bench_sim.py "$tmp"
  else
    "$bench" sim
    echo "sim       (no python3 or tests/sim_ref.py: no ratio)"
  fi
  "$bench" inc
fi

rest=()
for p in explorer agent gaps group layout extreme gdp hsdag lsched cut; do want "$p" && rest+=("$p"); done
if [ ${#rest[@]} -gt 0 ]; then
  echo
  "$bench" "${rest[@]}"
fi

# GDP's PPO update against its PyTorch twin (bench/gdp_speed.sh; the PyTorch
# line only when python3 has torch; GDP_SPEED_BASE=COMMIT adds that commit's).
if want gdpspeed; then
  echo
  PROG="$prog" BENCH="$bench" bash bench/gdp_speed.sh
fi

# Where users wait: the searches' placements per second beside full
# simulations, and compare's wall time at its defaults (bench/results/search.json).
if want search && [ -n "$py" ]; then
  echo
  echo "== the searches and compare, each figure beside its anchor"
  "$py" bench/bench_search.py "$prog"
fi

# Importing one's own model against importing PyTorch alone (bench/results/import.json;
# only with Debian's python3-torch).
if want import && [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import torch, torchvision" 2> /dev/null; then
  echo
  echo "== the importer against importing PyTorch and torchvision"
  /usr/bin/python3 bench/bench_import.py
fi

# Every placement method on every bundled graph (bench/results/compare.*).
if want compare && [ -n "$py" ]; then
  echo
  echo "== placeto compare on every bundled graph, 2/4/8 devices"
  "$py" bench/bench_compare.py "$prog"
fi

# Training on 1 and 2 MPI ranks, and what communication costs (bench/bench_mpi.sh).
if want mpi; then
  echo
  bash bench/bench_mpi.sh "$prog"
fi

# Loading a 100 000-op graph against an earlier commit (bench/load_bench.sh):
# builds that commit, so only when named.
if want load; then
  echo
  bash bench/load_bench.sh "${LOAD_BASE:-8286a0c}" "${LOAD_ROUNDS:-5}" "${FRAME_BASE:-badf5ec}"
fi
