#!/usr/bin/env bash
# Fresh family members are fresh (graphs/import/families.py):
#   - every bundled member's source names the configuration families.py
#     gives its seed (the documented seed -> configuration mapping);
#   - `families.py seed nmt_variant 300` is refused (exit 1) naming
#     configuration 0 and the training graph nmt_variant_00 (seed S is
#     configuration S mod 75); 332 and the default seeds of
#     bench/fresh_families.py (332-339) are fresh in every family;
#     `--repeats flag` only flags;
#   - `families.py graph`: a bundled member renamed (graph, node and layer
#     names) is caught as that member; the same graph with one cost changed
#     is fresh;
#   - the scripts that make or read evaluation graphs refuse a repeat before
#     any placement: bench/fresh_families.py --families nmt --seeds 300 4
#     (before generating anything), and bench/control_families.py,
#     placeto_search.py, gdp_families.py, learned_search.py, auto_policy.py
#     and oneshot.py on a --fresh DIR holding the renamed copy;
#   - with PyTorch: torch_graph.py --model nmt_variant --seed 300 --fresh is
#     refused the same way (skipped, with the reason, without PyTorch).
# Needs nothing outside the repository but Python 3. Prints
# "fresh: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh
cmd="" rc=0
: > "$tmp/out"; : > "$tmp/err"

# pyrun SCRIPT ARGS...: runs a Python script of the repository; rc, cmd;
# stdout $tmp/out, stderr $tmp/err
pyrun() {
    cmd="$py $*"
    timeout 60 "$py" "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
}

# refused NAME TEXT...: the last run exited 1, no traceback, and its stderr
# contains every TEXT (grep -F)
refused() {
    local name=$1 t
    shift
    if [ "$rc" -ne 1 ]; then fail "$name" "exit status $rc, expected 1"; return; fi
    if grep -q Traceback "$tmp/err"; then fail "$name" "a traceback"; return; fi
    for t in "$@"; do
        if ! grep -qF -- "$t" "$tmp/err"; then fail "$name" "no '$t' on stderr"; return; fi
    done
    pass
}

# accepted NAME TEXT: the last run exited 0 and its stdout contains TEXT
accepted() {
    if [ "$rc" -ne 0 ]; then fail "$1" "exit status $rc, expected 0"; return; fi
    if ! grep -qF -- "$2" "$tmp/out"; then fail "$1" "no '$2' on stdout"; return; fi
    pass
}

fam=graphs/import/families.py

# ------------------------------------------------ the documented mapping
pycheck "every bundled member's source names its seed's configuration" '
import json, sys
sys.path.insert(0, "graphs/import")
import families as F
assert len(F.NMT_VARIANTS) == 75 and len(set(F.NMT_VARIANTS)) == 75
for d, m in F.FAMILIES:
    for s in range(32):
        src = json.load(open("graphs/families/%s/%s_%02d.json" % (d, m, s)))["source"]
        c = F.CONFIG[m](s)
        want = {"nmt_variant": lambda: "hidden %d, %d encoder and decoder layers, %d steps" % (c[1], c[0], c[2]),
                "enas_cifar10": lambda: "normal %s, reduction %s" % (c[0], c[1]),
                "enas_ptb": lambda: "8 nodes %s," % (c,)}[m]()
        assert want in src and "--seed %d -o" % s in src, "%s_%02d: %s not in its source" % (m, s, want)
        assert F.CONFIG[m](s + 75 if m == "nmt_variant" else s) == c
'

# ------------------------------------------------ seeds
pyrun $fam seed nmt_variant 300
refused "seed 300 repeats nmt_variant_00" "nmt_variant seed 300 is configuration 0 of 75" "nmt_variant_00" \
    "a training graph"
pyrun $fam seed nmt_variant 106
refused "seed 106 repeats a held-out graph" "nmt_variant_31" "a held-out graph"
pyrun $fam seed nmt_variant 332
accepted "seed 332 is fresh" "nmt_variant seed 332: configuration 32 of 75"
for m in enas_cifar10 enas_ptb nmt_variant; do
    pyrun $fam seed $m 332 333 334 335 336 337 338 339
    accepted "fresh_families.py's default seeds are fresh for $m" "seed 339"
done
pyrun $fam seed nmt_variant 300 --repeats flag
if [ "$rc" -eq 0 ] && grep -qF "warning: nmt_variant seed 300" "$tmp/err"; then pass; else
    fail "--repeats flag only flags" "expected exit 0 and a warning"; fi
pyrun $fam fresh nmt_variant 3 300
accepted "the first fresh nmt seeds from 300" "332 333 334"

# ------------------------------------------------ graphs
mkdir -p "$tmp/fresh"
"$py" - graphs/families/nmt/nmt_variant_00.json "$tmp/fresh" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ren = {n["name"]: "op%d" % i for i, n in enumerate(d["nodes"])}
d["name"], d["source"] = "nmt_variant_900", "renamed"
for n in d["nodes"]:
    n["name"] = ren[n["name"]]
    if "colocate" in n:
        n["colocate"] = ren[n["colocate"]]
    if "layer" in n:
        n["layer"] = "L" + n["layer"]
for e in d["edges"]:
    e["src"], e["dst"] = ren[e["src"]], ren[e["dst"]]
json.dump(d, open(sys.argv[2] + "/nmt_variant_900.json", "w"))
d["nodes"][-1]["cost_us"] += 1.0
json.dump(d, open(sys.argv[2] + "/changed.json", "w"))
EOF
pyrun $fam graph "$tmp/fresh/nmt_variant_900.json"
refused "a renamed copy is caught" "same graph as bundled member nmt_variant_00" "a training graph"
pyrun $fam graph "$tmp/fresh/changed.json"
accepted "one cost changed is fresh" "fresh"
mv "$tmp/fresh/changed.json" "$tmp/changed.json"

# ------------------------------------------------ the scripts
# their program: one that fails at once, so that a script that does not
# refuse fails fast, writing nothing in bench/results
never=$tmp/never
printf '#!/bin/sh\necho never run >&2\nexit 3\n' > "$never"
chmod +x "$never"
pyrun bench/fresh_families.py "$never" --families nmt --seeds 300 4 --dir "$tmp/gen"
refused "fresh_families.py refuses seed 300" "nmt_variant seed 300" "nmt_variant_00" "nmt_variant seed 303" \
    "nmt_variant_03"
if [ -e "$tmp/gen" ]; then fail "fresh_families.py refuses before generating" "$tmp/gen was made"; else pass; fi
for s in control_families placeto_search gdp_families auto_policy oneshot; do
    pyrun bench/$s.py "$never" --fresh "$tmp/fresh"
    refused "$s.py refuses a fresh DIR with a renamed bundled member" "$s.py: " "nmt_variant_900.json" \
        "nmt_variant_00" "--repeats flag"
done
pyrun bench/learned_search.py "$never" --policy graphs/policies/lsearch.json --fresh "$tmp/fresh"
refused "learned_search.py refuses it too" "nmt_variant_00"

# ------------------------------------------------ the importer
if "$py" -c 'import torch, functorch.compile' > /dev/null 2>&1; then
    pyrun graphs/import/torch_graph.py --model nmt_variant --seed 300 --fresh -o "$tmp/x.json"
    refused "torch_graph.py --fresh refuses seed 300" "nmt_variant_00" "(--fresh)"
    if [ -e "$tmp/x.json" ]; then fail "torch_graph.py --fresh writes nothing" "x.json written"; else pass; fi
else
    echo "fresh: python3-torch is not installed: the torch_graph.py --fresh check skipped"
fi

echo "fresh: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
