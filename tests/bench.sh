#!/usr/bin/env bash
# make bench: the benchmark binary's figures, and the command-line simulator's
# own rate on the default graph for comparison (process start included).
set -eu
prog=${1:-./placeto}
bench=${2:-build/bench}
cd "$(dirname "$0")/.."
echo "== placeto benchmarks ($(date -u +%Y-%m-%d), $(nproc) cores, OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1})"
"$bench"
