#!/usr/bin/env bash
# The bundled families (graphs/families/*): 32 members each, pairwise
# different graphs (names and sources aside), so that the held-out members
# 24-31 are not copies of training members 00-23; every member loads.
# Prints "families: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

for fam in graphs/families/*/; do
    f=$(basename "$fam")
    pycheck "family $f: 32 pairwise different members" '
import glob, hashlib, json, sys
files = sorted(glob.glob(sys.argv[1] + "*.json"))
assert len(files) == 32, "%d members" % len(files)
seen = {}
for p in files:
    d = json.load(open(p))
    d.pop("name", None)
    d.pop("source", None)
    h = hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()
    assert h not in seen, "%s is the same graph as %s" % (p, seen[h])
    seen[h] = p
' "$fam"
    first=$(ls "$fam"*.json | head -1)
    run info "$first" --json
    expect_rc "family $f: a member loads" 0 && pass
done

echo "families: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
