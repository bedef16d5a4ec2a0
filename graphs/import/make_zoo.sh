#!/usr/bin/env bash
# Regenerates every bundled graph made by torch_graph.py (the commands are the
# ones recorded in graphs/README.md). Runs JOBS generations at a time, each
# under the importer's --timeout (TIMEOUT seconds, default 600), with the
# interpreter PLACETO_PYTHON (default /usr/bin/python3); a generation that
# fails is named with its message and the script exits 1 after the others.
#   bash graphs/import/make_zoo.sh [JOBS] [models|families|all]
set -eu
cd "$(dirname "$0")/../.."
jobs=${1:-2}
what=${2:-all}
py=${PLACETO_PYTHON:-/usr/bin/python3}
timeout=${TIMEOUT:-600}
cmds=()
if [ "$what" != families ]; then
  for m in inception_v3 resnet50 googlenet vgg16 mobilenet_v2 nmt nasnet; do
    cmds+=("$py graphs/import/torch_graph.py --model $m --timeout $timeout -o graphs/$m.json")
  done
fi
if [ "$what" != models ]; then
  mkdir -p graphs/families/enas-cifar10 graphs/families/enas-ptb graphs/families/nmt
  for s in $(seq -w 0 31); do
    cmds+=("$py graphs/import/torch_graph.py --model enas_cifar10 --seed $((10#$s)) --timeout $timeout -o graphs/families/enas-cifar10/enas_cifar10_$s.json")
    cmds+=("$py graphs/import/torch_graph.py --model enas_ptb --seed $((10#$s)) --timeout $timeout -o graphs/families/enas-ptb/enas_ptb_$s.json")
    cmds+=("$py graphs/import/torch_graph.py --model nmt_variant --seed $((10#$s)) --timeout $timeout -o graphs/families/nmt/nmt_variant_$s.json")
  done
fi
# each command's own warnings dropped, its errors kept; xargs exits 123 when
# any command failed
run_one='out=$({} 2>&1); rc=$?; printf "%s\n" "$out" | grep -v -e "Warning" -e "warnings.warn" -e "^\$" >&2
[ $rc -eq 0 ] || echo "make_zoo.sh: failed (status $rc): {}" >&2; exit $rc'
if ! printf '%s\n' "${cmds[@]}" | xargs -P "$jobs" -I{} sh -c "$run_one"; then
  echo "make_zoo.sh: some generations failed (above)" >&2
  exit 1
fi
