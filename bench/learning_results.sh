#!/usr/bin/env bash
# Every "learning that pays" result of docs/results.md in one run, with the
# network kernels pinned to the plain loops (PLACETO_KERNELS=plain) so that
# every row is the same on another CPU:
#   - the untrained control of every bundled policy (untrained_control.sh)
#     and of Table 1's policies (table1.py --controls);
#   - why Placeto's training adds little (placeto_why.py);
#   - the learned local search against ILS, annealing and its control on
#     held-out and fresh graphs, 2 and 4 devices (learned_search.py), and
#     on the paper's cases at a budget (search_budget.py);
#   - every family policy against its control (control_families.py);
#   - Placeto trained as a search against its control and ILS, and which
#     setting makes it learn (placeto_search.py, placeto_search_study.py);
#   - what --policy auto gives on unseen graphs (auto_policy.py);
#   - the one-shot policy at 20 placements (oneshot.py).
# FRESH is a directory of freshly generated family members (importer seeds
# never bundled: 300-303 for the ENAS families, 332-335 for nmt_variant,
# whose seed S is configuration S mod 75, so 300-303 were the training
# graphs nmt_variant_00-03; generated here when missing, about a minute
# each, by torch_graph.py --fresh, which refuses a seed that repeats a
# bundled member, as every script given FRESH refuses such a graph):
#   bash bench/learning_results.sh [./placeto] [FRESH]     # about 25 min on 2 cores, once generated
set -eu
export PLACETO_KERNELS=plain
cd "$(dirname "$0")/.."
prog=${1:-./placeto}
fresh=${2:-${TMPDIR:-/tmp}/placeto-fresh}
py=/usr/bin/python3
mkdir -p "$fresh"
for m in enas_cifar10 enas_ptb nmt_variant; do
    first=300
    [ "$m" = nmt_variant ] && first=332
    for s in $(seq "$first" $((first + 3))); do
        [ -f "$fresh/${m}_$s.json" ] ||
            $py graphs/import/torch_graph.py --model "$m" --seed "$s" --fresh -o "$fresh/${m}_$s.json"
    done
done
bash bench/untrained_control.sh "$prog"
$py bench/table1.py "$prog" --controls
$py bench/placeto_why.py "$prog" --episodes 100
$py bench/learned_search.py "$prog" --episodes 600 --fresh "$fresh"
cmp bench/results/learned_search_2.policy.json graphs/policies/lsearch.json ||
    echo "learning_results.sh: the trained lsearch policy differs from graphs/policies/lsearch.json" >&2
rm -f bench/results/learned_search_2.policy.ckpt.json
$py bench/learned_search.py "$prog" --devices 4 --policy graphs/policies/lsearch.json --fresh "$fresh"
$py bench/search_budget.py "$prog"
$py bench/control_families.py "$prog" --fresh "$fresh" --lsearch graphs/policies/lsearch.json --lsearch-budget 200 \
    --lsched graphs/policies/lsched_2.json --placeto-budget 500
$py bench/placeto_search.py "$prog" --fresh "$fresh"
$py bench/placeto_search_study.py "$prog"
$py bench/auto_policy.py "$prog" --fresh "$fresh"
$py bench/oneshot.py "$prog" --fresh "$fresh"
$py bench/headline.py
