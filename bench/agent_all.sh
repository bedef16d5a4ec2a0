#!/usr/bin/env bash
# Every result of the README's "Results: the Placeto agent" and "What makes it
# learn", from scratch, in one command (several hours on 2 cores):
#   bash bench/agent_all.sh [JOBS] [FRESH_DIR]
# 1. trains every bundled policy (graphs/policies/train.sh, JOBS at a time);
# 2. the tables of the bundled policies (bench/agent_results.py: per graph,
#    generalization, general policies);
# 3. every method at an equal budget of 50 000 placements, the learning-curve
#    PNG, and the local searches at 200 000 (bench/agent_budget.py);
# 4. the study of the settings (bench/learn_study.py);
# 5. fresh family members (bench/fresh_families.py; needs Debian's
#    python3-torch; the generated graphs are kept in FRESH_DIR).
set -eu
cd "$(dirname "$0")/.."
jobs=${1:-2}
fresh=${2:-$(mktemp -d)}
py=/usr/bin/python3
bash graphs/policies/train.sh "$jobs" all
"$py" bench/agent_results.py ./placeto
"$py" bench/agent_budget.py ./placeto --jobs "$jobs"
"$py" bench/agent_budget.py ./placeto --long 200000 --jobs "$jobs"
"$py" bench/learn_study.py ./placeto --jobs "$jobs"
"$py" bench/fresh_families.py ./placeto --dir "$fresh"
