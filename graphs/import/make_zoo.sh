#!/usr/bin/env bash
# Regenerates every bundled graph made by torch_graph.py (the commands are the
# ones recorded in graphs/README.md). Runs JOBS generations at a time.
#   bash graphs/import/make_zoo.sh [JOBS] [models|families|all]
set -eu
cd "$(dirname "$0")/../.."
jobs=${1:-2}
what=${2:-all}
py=/usr/bin/python3
cmds=()
if [ "$what" != families ]; then
  for m in inception_v3 resnet50 googlenet vgg16 mobilenet_v2 nmt nasnet; do
    cmds+=("$py graphs/import/torch_graph.py --model $m -o graphs/$m.json")
  done
fi
if [ "$what" != models ]; then
  mkdir -p graphs/families/enas-cifar10 graphs/families/enas-ptb graphs/families/nmt
  for s in $(seq -w 0 31); do
    cmds+=("$py graphs/import/torch_graph.py --model enas_cifar10 --seed $((10#$s)) -o graphs/families/enas-cifar10/enas_cifar10_$s.json")
    cmds+=("$py graphs/import/torch_graph.py --model enas_ptb --seed $((10#$s)) -o graphs/families/enas-ptb/enas_ptb_$s.json")
    cmds+=("$py graphs/import/torch_graph.py --model nmt_variant --seed $((10#$s)) -o graphs/families/nmt/nmt_variant_$s.json")
  done
fi
printf '%s\n' "${cmds[@]}" | xargs -P "$jobs" -I{} sh -c '{} 2>&1 | grep -v -e "Warning" -e "warnings.warn" || true'
