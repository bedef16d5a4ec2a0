#!/usr/bin/env bash
# make bench PARTS=mpi: data-parallel training on this machine. For each
# learned agent, updates per second on inception_v3 with 1 and 2 ranks of
# placeto-mpi (1 thread each) and their ratio, in one run; the parameter
# count P of each (from the policy written) and the gradient bytes an
# update gathers; Placeto's episodes/s and CPU per episode on 1 rank, 2
# ranks and 1 rank x 2 threads; then the communication costs (build/mpi-ping): the
# latency of a one-int allreduce and the allgather bandwidth. README,
# "Scaling", models the time per update from these figures.
set -eu
prog=${1:-./placeto}
mprog=${prog}-mpi
ping=${MPI_PING:-build/mpi-ping}
cd "$(dirname "$0")/.."
py=/usr/bin/python3; [ -x "$py" ] || py=python3
if ! command -v mpirun > /dev/null || [ ! -x "$mprog" ]; then
  echo "mpi       mpirun or $mprog missing (make deps; make mpi)"; exit 1
fi
flags=(--oversubscribe)
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
inc=graphs/inception_v3.json
# agent, items gathered per update (gradients of P floats), options
runs=(
  "placeto|2|--episodes 32"
  "rnn|4|--agent rnn --samples-per-update 4 --episodes 6"
  "gdp|4|--agent gdp --episodes 30"
  "hsdag|20|--agent hsdag --episodes 6"
)
echo "== data-parallel training on inception_v3 (2 devices): updates/s with 1 and 2 ranks x 1 thread"
echo "   (placeto: an update is one episode, a round of W = ranks episodes; rnn K 4; gdp K 16, 4 epochs;"
echo "   hsdag 20 steps, 1 episode: only its 20 step gradients split)"
printf "%-8s %9s %10s %10s %7s %16s\n" agent params "1 rank/s" "2 ranks/s" ratio "gathered/update"
for r in "${runs[@]}"; do
  IFS='|' read -r name items opts <<< "$r"
  rate=()
  for np in 1 2; do
    # shellcheck disable=SC2086  # the options are words
    mpirun "${flags[@]}" -np "$np" "$mprog" train "$inc" $opts --checkpoint-every 100000 --json \
      -o "$tmp/$name.json" > "$tmp/out" 2> "$tmp/err" || { echo "$name: mpirun -np $np failed: $(tail -1 "$tmp/err")"; exit 1; }
    rate+=("$("$py" -c 'import json,sys; d=json.loads(open(sys.argv[1]).read().splitlines()[-1]); print(d["episodes"]/d["seconds"])' "$tmp/out")")
  done
  "$py" - "$tmp/$name.json" "$name" "$items" "${rate[0]}" "${rate[1]}" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
P = sum(math.prod(x["shape"]) for x in d["parameters"])
name, items, r1, r2 = sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
print("%-8s %9d %10.2f %10.2f %7.2f %13.1f MB" % (name, P, r1, r2, r2 / r1, items * P * 4 / 1e6))
PY
done
# Placeto's ranks against its threads, the speed and the CPU (user + sys of
# mpirun and its ranks, /usr/bin/time): 2 ranks should do nearly twice the
# episodes per second of 1 rank and cost little more CPU than 2 threads of
# one process (a rank waiting for the others sleeps; it does not poll);
# MPI_EPISODES episodes (default 384), so that the start-up of mpirun and
# of the ranks (about 0.1-0.2 s of CPU) weighs little
if [ -x /usr/bin/time ]; then
  # rate_cpu NAME THREADS CMD...: "episodes/s CPU-seconds/episode"
  rate_cpu() {
    local name=$1 threads=$2
    shift 2
    /usr/bin/time -f '%U %S' -o "$tmp/time" "$@" train "$inc" --threads "$threads" --episodes "${MPI_EPISODES:-384}" --checkpoint-every 100000 --json \
      -o "$tmp/pc.json" > "$tmp/out" 2> "$tmp/err" || { echo "$name failed: $(tail -1 "$tmp/err")" >&2; exit 1; }
    "$py" -c 'import json,sys
d = json.loads(open(sys.argv[1]).read().splitlines()[-1])
u, s = open(sys.argv[2]).read().split()[-2:]
print(d["episodes"] / d["seconds"], (float(u) + float(s)) / d["episodes"])' "$tmp/out" "$tmp/time"
  }
  r1=$(rate_cpu "1 rank" 1 mpirun "${flags[@]}" -np 1 "$mprog")
  r2=$(rate_cpu "2 ranks" 1 mpirun "${flags[@]}" -np 2 "$mprog")
  t2=$(rate_cpu "2 threads" 2 "$prog")
  "$py" - "$r1" "$r2" "$t2" "${MPI_EPISODES:-384}" <<'PY'
import sys
(a, ca), (b, cb), (c, cc) = (map(float, x.split()) for x in sys.argv[1:4])
print("placeto   whole runs of %s episodes, process and MPI start-up included" % sys.argv[4])
print("placeto   episodes/s: 1 rank %.2f, 2 ranks %.2f, 1 rank x 2 threads %.2f; 2 ranks / 1 rank %.2f" % (a, b, c, b / a))
print("placeto   CPU s/episode (user+sys): 1 rank %.4f, 2 ranks %.4f, 2 threads %.4f; 2 ranks / 2 threads %.2f" % (ca, cb, cc, cb / cc))
PY
fi
# what 2 ranks could gain at best here: 2 independent 1-rank runs at once
# against one alone (the 2 cores are shared with whatever else runs)
one() { "$py" -c 'import json,sys; d=json.loads(open(sys.argv[1]).read().splitlines()[-1]); print(d["seconds"])' "$1"; }
"$prog" train "$inc" --episodes 32 --json -o "$tmp/h0.json" > "$tmp/h0" 2> /dev/null
"$prog" train "$inc" --episodes 32 --json -o "$tmp/h1.json" > "$tmp/h1" 2> /dev/null &
"$prog" train "$inc" --episodes 32 --json -o "$tmp/h2.json" > "$tmp/h2" 2> /dev/null
wait
"$py" -c 'import sys; a, b, c = map(float, sys.argv[1:]); print("headroom  2 independent runs at once do %.2f times the work of one (2.00 on 2 idle cores)" % (a / b + a / c))' \
  "$(one "$tmp/h0")" "$(one "$tmp/h1")" "$(one "$tmp/h2")"
if [ -x "$ping" ]; then
  echo "== communication on this machine (shared memory; $ping)"
  mpirun "${flags[@]}" -np 2 "$ping"
else
  echo "mpi       $ping missing (make $ping): no communication figures"
fi
