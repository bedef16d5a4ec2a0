#!/usr/bin/env bash
# make bench: the benchmark binary's figures, and the command-line simulator's
# own rate on the default graph for comparison (process start included).
set -eu
prog=${1:-./placeto}
bench=${2:-build/placeto-bench}
cd "$(dirname "$0")/.."
echo "== placeto benchmarks ($(date -u +%Y-%m-%d), $(nproc) cores, OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1})"
"$bench"

# The same simulation in the repository's Python reference (tests/sim_ref.py),
# in the same run: a ratio.
ref=tests/sim_ref.py
py=/usr/bin/python3; [ -x "$py" ] || py=python3
if [ -f "$ref" ]; then
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  "$py" - graphs/resnet18.json "$tmp/p.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
ops = {n["name"]: i % 2 for i, n in enumerate(g["nodes"])}
json.dump({"format": "placeto-placement", "version": 1, "devices": 2, "ops": ops}, open(sys.argv[2], "w"))
PY
  c_rate=$("$prog" simulate graphs/resnet18.json --placement "$tmp/p.json" --repeat 2000 --json |
           "$py" -c 'import json,sys; print(json.load(sys.stdin)["simulations_per_second"])')
  # Loaded without writing bytecode beside it (-B); the files are read once,
  # only simulate() is timed.
  py_rate=$("$py" -B - "$ref" graphs/resnet18.json "$tmp/p.json" <<'PY'
import importlib.util, sys, time
spec = importlib.util.spec_from_file_location("sim_ref", sys.argv[1])
ref = importlib.util.module_from_spec(spec); spec.loader.exec_module(ref)
graph = ref.load_graph(sys.argv[2])
device_of, n_devices = ref.load_placement(sys.argv[3], graph)
reps, t0 = 0, time.perf_counter()
while time.perf_counter() - t0 < 2.0:
    ref.simulate(graph, device_of, n_devices); reps += 1
print(reps / (time.perf_counter() - t0))
PY
)
  "$py" -c "c=$c_rate; p=$py_rate; print(f'simulate  resnet18 2 dev, C (placeto simulate --repeat) {c:.0f} sims/s vs the Python reference (tests/sim_ref.py) {p:.1f} sims/s: {c/p:.0f}x')"
else
  echo "simulate  ($ref not found: no ratio)"
fi

# Every placement method on every bundled graph (tests/results/compare.*).
echo
echo "== placeto compare on every bundled graph, 2/4/8 devices"
"$py" bench/bench_compare.py "$prog"
