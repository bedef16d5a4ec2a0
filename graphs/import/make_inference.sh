#!/usr/bin/env bash
# The bundled inference graphs (graphs/inference/, the commands recorded in
# graphs/README.md): the forward pass alone, from the PyTorch path, with the
# GPU cost (one K80 die) as cost_us and the CPU cost (one Xeon Gold 6148
# socket) as cost_us_by_kind.cpu. About 30 s on 2 cores.
#   bash graphs/import/make_inference.sh          # writes graphs/inference/*.json
#   bash graphs/import/make_inference.sh check    # the ONNX path beside the PyTorch path (nothing written)
# `check` exports each network with torch.onnx.export (torch_graph.py
# --export-onnx) to a temporary directory, imports it with onnx_graph.py at the
# same batch and prints both graphs' ops, edges and total costs side by side.
set -eu
cd "$(dirname "$0")/../.."
py=/usr/bin/python3
models="inception_v3 resnet50 bert_base"
if [ "${1:-}" != check ]; then
  mkdir -p graphs/inference
  for m in $models; do
    $py graphs/import/torch_graph.py --model $m --inference --kind-costs cpu=xeon -o graphs/inference/$m.json
  done
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for m in $models; do
  batch=8; [ $m = bert_base ] && batch=1
  $py graphs/import/torch_graph.py --model $m --inference --kind-costs cpu=xeon -q \
      --export-onnx "$tmp/$m.onnx" -o "$tmp/$m.torch.json" 2> /dev/null
  $py graphs/import/onnx_graph.py "$tmp/$m.onnx" --batch $batch --kind-costs cpu=xeon -q -o "$tmp/$m.onnx.json" 2> /dev/null
done
$py - "$tmp" $models <<'PY'
import json, sys
tmp, models = sys.argv[1], sys.argv[2:]
print("| model | path | ops | edges | variables | GPU total (ms) | CPU total (ms) | CPU / GPU |")
print("|---|---|---|---|---|---|---|---|")
for m in models:
    for path in ("torch", "onnx"):
        g = json.load(open("%s/%s.%s.json" % (tmp, m, path)))
        gpu = sum(n["cost_us"] for n in g["nodes"])
        cpu = sum(n["cost_us_by_kind"]["cpu"] for n in g["nodes"])
        nvar = sum(1 for n in g["nodes"] if n["op"] == "variable")
        print("| %s | %s | %d | %d | %d | %.1f | %.1f | %.2f |" % (m, path, len(g["nodes"]), len(g["edges"]), nvar,
                                                               gpu / 1e3, cpu / 1e3, cpu / gpu))
PY
