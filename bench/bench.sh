#!/usr/bin/env bash
# make bench: the benchmark binary's figures, and the command-line simulator's
# own rate on the default graph for comparison (process start included).
set -eu
prog=${1:-./placeto}
bench=${2:-build/placeto-bench}
cd "$(dirname "$0")/.."
echo "== placeto benchmarks ($(date -u +%Y-%m-%d), $(nproc) cores, OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1})"
"$bench"

# The same simulation in the reference's Python statement of the semantics
# (../shared/tools/sim_oracle.py, when present), in the same run: a ratio.
oracle=""
for o in ../shared/tools/sim_oracle.py /work/shared/tools/sim_oracle.py; do
  [ -f "$o" ] && { oracle=$o; break; }
done
py=/usr/bin/python3; [ -x "$py" ] || py=python3
if [ -n "$oracle" ]; then
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  "$py" - graphs/resnet18.json "$tmp/p.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
ops = {n["name"]: i % 2 for i, n in enumerate(g["nodes"])}
json.dump({"format": "placeto-placement", "version": 1, "devices": 2, "ops": ops}, open(sys.argv[2], "w"))
PY
  c_rate=$("$prog" simulate graphs/resnet18.json --placement "$tmp/p.json" --repeat 2000 --json |
           "$py" -c 'import json,sys; print(json.load(sys.stdin)["simulations_per_second"])')
  py_rate=$("$py" - "$oracle" graphs/resnet18.json "$tmp/p.json" <<'PY'
import importlib.util, json, sys, time
spec = importlib.util.spec_from_file_location("oracle", sys.argv[1])
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
g = json.load(open(sys.argv[2])); p = json.load(open(sys.argv[3]))
names = [n["name"] for n in g["nodes"]]
cost = {n["name"]: n.get("cost_us", 0) for n in g["nodes"]}
edges = [(e["src"], e["dst"], e.get("output", 0)) for e in g["edges"]]
def ob():
    out = {}
    for n in g["nodes"]:
        o = n.get("output_bytes", 0)
        out[n["name"]] = list(o) if isinstance(o, list) else [o]
    return out
reps, t0 = 0, time.perf_counter()
while time.perf_counter() - t0 < 2.0:
    m.simulate(names, cost, ob(), edges, p["ops"]); reps += 1
print(reps / (time.perf_counter() - t0))
PY
)
  "$py" -c "c=$c_rate; p=$py_rate; print(f'simulate  resnet18 2 dev, C (placeto simulate --repeat) {c:.0f} sims/s vs Python oracle {p:.1f} sims/s: {c/p:.0f}x')"
else
  echo "simulate  (Python oracle not found beside the checkout: no ratio)"
fi

# Every placement method on every bundled graph (tests/results/compare.*).
echo
echo "== placeto compare on every bundled graph, 2/4/8 devices"
"$py" bench/bench_compare.py "$prog"
