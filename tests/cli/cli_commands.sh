#!/usr/bin/env bash
# Command tests: help and usage errors, the --json outputs, the public
# simulator cases, the Chrome trace and DOT exports (read back), the graph
# JSON round trip, determinism and atomic writes.
#
# Runs the program as `$PLACETO_WRAP $PLACETO_PROG ...` (see tests/run.sh;
# defaults ./placeto and no wrapper), each run under a 20 s timeout; exit
# status 99 is a valgrind error. Output goes to a `mktemp -d` directory that is
# removed at the end. Prints one line per failure and finally
# "commands: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh
chain=graphs/toy/chain.json
diamond=graphs/toy/diamond.json
dplace=tests/data/cli_diamond_p.json
resnet=graphs/resnet18.json


# ---------------------------------------------------------------- help, usage
for c in info simulate export place compare; do
    run "$c" --help
    if expect_rc "$c --help" 0; then
        if grep -q "^usage: placeto $c " "$tmp/out"; then pass; else fail "$c --help" "no 'usage: placeto $c' on stdout"; fi
    fi
    run "$c" -h
    if expect_rc "$c -h" 0; then
        if grep -q "^usage: placeto $c " "$tmp/out"; then pass; else fail "$c -h" "no 'usage: placeto $c' on stdout"; fi
    fi
done
run --help
if expect_rc "placeto --help" 0; then
    if grep -q '^usage: placeto' "$tmp/out" && grep -q 'simulate' "$tmp/out"; then pass; else fail "placeto --help" "no usage with the command list on stdout"; fi
fi

usage_error "unknown command" frobnicate "$chain"
if grep -q "unknown command 'frobnicate'" "$tmp/err"; then pass; else fail "unknown command message" "no \"unknown command 'frobnicate'\""; fi
usage_error "info unknown option" info "$chain" --bogus
if grep -qF -- "unknown option '--bogus'" "$tmp/err"; then pass; else fail "unknown option message" "no \"unknown option '--bogus'\""; fi
usage_error "simulate unknown option" simulate "$diamond" --placement "$dplace" --frob
usage_error "export unknown short option" export "$diamond" -Z
usage_error "info missing GRAPH" info
if grep -q 'missing GRAPH' "$tmp/err"; then pass; else fail "info missing GRAPH message" "no 'missing GRAPH'"; fi
usage_error "simulate missing GRAPH" simulate --placement "$dplace"
usage_error "export missing GRAPH" export --graph-json "$tmp/x.json"
usage_error "info two GRAPHs" info "$chain" "$diamond"
usage_error "simulate missing --placement" simulate "$diamond"
usage_error "export nothing to export" export "$diamond"
usage_error "export --dot without --placement" export "$diamond" --dot "$tmp/x.dot"
usage_error "option missing its value" simulate "$diamond" --placement
usage_error "flag given a value" info "$chain" --json=yes
usage_error "--groups 0" info "$chain" --groups 0
usage_error "--groups not a number" info "$chain" --groups many
usage_error "--repeat 0" simulate "$diamond" --placement "$dplace" --repeat 0
usage_error "--devices 0" info "$chain" --devices 0
usage_error "--devices not a number" simulate "$diamond" --placement "$dplace" --devices two
usage_error "--cluster and --devices together" simulate "$diamond" --placement "$dplace" --devices 2 --cluster graphs/clusters/k80x2.json
if [ -e "$tmp/x.json" ] || [ -e "$tmp/x.dot" ]; then
    cmd="(usage errors above)" rc=-
    fail "usage errors write nothing" "an output file was written after a usage error"
else
    pass
fi

# missing input files: exit 1, message names the file
run info "$tmp/no-such-graph.json"
if expect_rc "missing graph file" 1; then
    if grep -qF "placeto: $tmp/no-such-graph.json: cannot open" "$tmp/err"; then pass; else fail "missing graph file" "no 'placeto: FILE: cannot open'"; fi
fi
run simulate "$diamond" --placement "$tmp/no-such-placement.json"
if expect_rc "missing placement file" 1; then
    if grep -qF "$tmp/no-such-placement.json" "$tmp/err"; then pass; else fail "missing placement file" "the message does not name the file"; fi
fi

run info tests/data
if expect_rc "a directory as GRAPH" 1; then
    if grep -qF "placeto: tests/data: " "$tmp/err"; then pass; else fail "a directory as GRAPH" "no 'placeto: tests/data: ...'"; fi
fi

# ---------------------------------------------------------------- no arguments
run
if expect_rc "no arguments" 0; then
    if grep -q '^graph .*resnet18' "$tmp/out" && grep -q '^ops ' "$tmp/out" && grep -q '^lower bound' "$tmp/out"; then
        pass
    else
        fail "no arguments" "stdout is not the default graph's info (graph resnet18..., ops, lower bound)"
    fi
fi
# also from another working directory: the bundled graph is found beside the executable
absprog=$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog")
cmd="(cd $tmp && $absprog)"
# shellcheck disable=SC2086  # PLACETO_WRAP is a command line to split
(cd "$tmp" && timeout 20 $wrap "$absprog" > "$tmp/out" 2> "$tmp/err" < /dev/null)
rc=$?
if expect_rc "no arguments, other directory" 0; then
    if grep -q '^graph .*resnet18' "$tmp/out"; then pass; else fail "no arguments, other directory" "no default graph info"; fi
fi

# ---------------------------------------------------------------- info --json
run info "$chain" --json
if expect_rc "info --json" 0; then
    pycheck "info --json keys" '
import json, sys
d = json.load(sys.stdin)
for k in ("name", "ops", "edges", "groups", "total_cost_us", "critical_path_us", "lower_bound_us"):
    assert k in d, "missing key %r" % k
assert d["name"] == "toy_chain", d["name"]
for k in ("1", "2", "4", "8"):
    v = d["lower_bound_us"][k]
    assert isinstance(v, (int, float)) and v > 0, "lower_bound_us[%r] = %r" % (k, v)
assert d["ops"] >= 1 and d["edges"] >= 0 and d["groups"] >= 1
assert d["critical_path_us"] <= d["total_cost_us"] + 1e-9
b = d["lower_bound_us"]
assert b["1"] >= b["2"] >= b["4"] >= b["8"] >= d["critical_path_us"] - 1e-9, b
' < "$tmp/out"
fi
run info "$chain" --json --groups 3 --devices 3
if expect_rc "info --json --groups 3 --devices 3" 0; then
    pycheck "info --json --groups 3" '
import json, sys
d = json.load(sys.stdin)
assert d["groups"] <= 3, "groups %r > 3" % d["groups"]
assert "cluster_lower_bound_us" in d, "no cluster_lower_bound_us with --devices"
' < "$tmp/out"
fi

# ---------------------------------------------------------------- public simulator cases
for g in tests/data/sim_public/*.graph.json; do
    case_file=${g##*/}
    case_file=${case_file%.graph.json}
    p=tests/data/sim_public/$case_file.placement.json
    n=$("$py" -c 'import json,sys; d=json.load(open(sys.argv[1]))["devices"]; print(d if isinstance(d, int) else len(d))' "$p")
    run simulate "$g" --placement "$p" --devices "$n" --json
    expect_rc "sim_public $case_file" 0 || continue
    pycheck "sim_public $case_file makespan" '
import json, sys
case = sys.argv[1].replace("__", "/")
want = [c for c in json.load(open("tests/data/sim_public.json"))["cases"] if c["name"] == case]
assert want, "no case %r in tests/data/sim_public.json" % case
got = json.load(open(sys.argv[2]))
w = want[0]["expected"]["makespan_us"]
assert got["makespan_us"] == w, "makespan_us %r, expected %r" % (got["makespan_us"], w)
' "$case_file" "$tmp/out"
done

# ---------------------------------------------------------------- --repeat
run simulate "$diamond" --placement "$dplace" --repeat 100 --json
if expect_rc "simulate --repeat 100 --json" 0; then
    pycheck "simulations_per_second" '
import json, sys
d = json.load(sys.stdin)
v = d.get("simulations_per_second")
assert isinstance(v, (int, float)) and v > 0, "simulations_per_second = %r" % (v,)
' < "$tmp/out"
fi
run simulate "$diamond" --placement "$dplace" --json
if expect_rc "simulate --json without --repeat" 0; then
    pycheck "simulate --json keys" '
import json, sys
d = json.load(sys.stdin)
for k in ("makespan_us", "devices", "ops", "transfers"):
    assert k in d, "missing key %r" % k
assert len(d["devices"]) == 2 and len(d["ops"]) == 4, (len(d["devices"]), len(d["ops"]))
assert abs(d["makespan_us"] - 1497.1) < 1e-6, d["makespan_us"]
' < "$tmp/out"
fi

# a "groups" placement (with its grouping options) gives the same run as the "ops" one
run simulate "$diamond" --placement tests/data/cli_diamond_groups_p.json --cluster graphs/clusters/k80x2.json --json
if expect_rc "simulate a groups placement" 0; then
    pycheck "groups placement makespan" '
import json, sys
d = json.load(sys.stdin)
assert abs(d["makespan_us"] - 1497.1) < 1e-6, d["makespan_us"]
assert [o["device"] for o in d["ops"]] == [0, 0, 1, 0], [o["device"] for o in d["ops"]]
' < "$tmp/out"
fi
run simulate "$diamond" --placement "$dplace"
if expect_rc "simulate (text)" 0; then
    if grep -q '^runtime ' "$tmp/out"; then pass; else fail "simulate (text)" "no 'runtime' line"; fi
fi

# ---------------------------------------------------------------- a 4-device placement of resnet18
# op i of n goes to device floor(4 i / n): contiguous quarters in graph order
"$py" -c '
import json, sys
g = json.load(open(sys.argv[1]))
n = len(g["nodes"])
ops = {nd["name"]: 4 * i // n for i, nd in enumerate(g["nodes"])}
json.dump({"format": "placeto-placement", "version": 1, "devices": 4, "ops": ops}, open(sys.argv[2], "w"))
' "$resnet" "$tmp/r4.placement.json"
rplace=$tmp/r4.placement.json

# ---------------------------------------------------------------- Chrome trace
trace_check='
import json, sys
path, ndev = sys.argv[1], int(sys.argv[2])
d = json.load(open(path))
ev = d["traceEvents"]
assert isinstance(ev, list) and ev, "no traceEvents"
procs = {e["pid"] for e in ev if e.get("ph") == "M" and e.get("name") == "process_name"}
assert len(procs) == ndev, "%d processes named, expected one per device (%d)" % (len(procs), ndev)
threads = {}
for e in ev:
    if e.get("ph") == "M" and e.get("name") == "thread_name":
        assert e["tid"] not in threads, "thread id %r used twice" % e["tid"]
        threads[e["tid"]] = e["pid"]
        assert e["tid"] // 100 == e["pid"], "tid %r is not pid*100+lane (pid %r)" % (e["tid"], e["pid"])
xs = [e for e in ev if e.get("ph") == "X"]
assert xs, "no X events"
lanes = {}
for e in xs:
    for k in ("ts", "dur"):
        assert isinstance(e.get(k), (int, float)) and not isinstance(e.get(k), bool), "X event %r: %s not a number" % (e.get("name"), k)
    assert e["dur"] >= 0, "X event %r: negative dur" % e.get("name")
    assert e["pid"] in procs, "X event %r on an unnamed process %r" % (e.get("name"), e["pid"])
    assert e["tid"] // 100 == e["pid"], "X event %r: tid %r not in pid %r" % (e.get("name"), e["tid"], e["pid"])
    assert threads.get(e["tid"]) == e["pid"], "X event %r: tid %r has no thread_name" % (e.get("name"), e["tid"])
    lanes.setdefault((e["pid"], e["tid"]), []).append(e)
for lane, es in lanes.items():
    es.sort(key=lambda e: (e["ts"], e["ts"] + e["dur"]))
    for a, b in zip(es, es[1:]):
        assert b["ts"] >= a["ts"] + a["dur"] - 1e-9, "overlap on pid %d tid %d: %r [%r, %r] and %r [%r, %r]" % (
            lane[0], lane[1], a["name"], a["ts"], a["ts"] + a["dur"], b["name"], b["ts"], b["ts"] + b["dur"])
'
run simulate "$diamond" --placement "$dplace" --trace "$tmp/diamond.trace.json"
expect_rc "simulate --trace (diamond)" 0 && pycheck "trace (diamond)" "$trace_check" "$tmp/diamond.trace.json" 2
run simulate "$resnet" --placement "$rplace" --trace "$tmp/r4.trace.json" --json
expect_rc "simulate --trace (resnet18, 4 devices)" 0 && pycheck "trace (resnet18, 4 devices)" "$trace_check" "$tmp/r4.trace.json" 4
for g in tests/data/sim_public/*.graph.json; do
    case_file=${g##*/}
    case_file=${case_file%.graph.json}
    p=tests/data/sim_public/$case_file.placement.json
    n=$("$py" -c 'import json,sys; d=json.load(open(sys.argv[1]))["devices"]; print(d if isinstance(d, int) else len(d))' "$p")
    run simulate "$g" --placement "$p" --trace "$tmp/sp.trace.json"
    expect_rc "trace of sim_public $case_file" 0 && pycheck "trace of sim_public $case_file" "$trace_check" "$tmp/sp.trace.json" "$n"
done
# export --trace writes the same bytes as simulate --trace
run export "$resnet" --placement "$rplace" --trace "$tmp/r4.export.trace.json"
if expect_rc "export --trace" 0; then
    if cmp -s "$tmp/r4.trace.json" "$tmp/r4.export.trace.json"; then pass; else fail "export --trace" "differs from simulate --trace"; fi
fi

# ---------------------------------------------------------------- DOT
# Structure of a --dot file: a strict digraph without clusters whose title
# names the makespan and, in its legend, every device of the cluster; every
# node names its device, and the devices with nodes are the placement's.
dot_structure='
import json, re, sys
text = open(sys.argv[1]).read()
used = set(json.load(open(sys.argv[2]))["ops"].values())
assert text.startswith("strict digraph"), "not a strict digraph: %r" % text[:40]
assert not re.search(r"cluster_\d", text), "a device cluster is left"
title = re.search(r"label=<(.*)>,\n", text)
assert title and "makespan" in title.group(1), "no title with the makespan"
for d in used:
    assert "/GPU:%d" % d in title.group(1), "the legend lacks /GPU:%d" % d
devs = re.findall(r"\bdevice=\"?([^\",\]\n]+)", text)
assert devs, "no node names its device"
with_nodes = {int(x.split(":")[1]) for x in devs}
assert with_nodes == used, "devices with nodes %s, used devices %s" % (sorted(with_nodes), sorted(used))
'
dot_check() { # name file placement [norender]
    local name=$1 f=$2 p=$3 norender=${4:-}
    if ! "$py" -c "$dot_structure" "$f" "$p" > "$tmp/py" 2>&1; then
        cmd="(structure check of $f)" rc=-
        fail "$name" "$(flat "$tmp/py")"
        return
    fi
    if [ -n "$norender" ]; then
        pass
    elif command -v dot > /dev/null 2>&1; then
        if timeout 60 dot -Tsvg "$f" -o "$tmp/x.svg" 2> "$tmp/dot.err" && grep -q '<svg' "$tmp/x.svg"; then
            pass
        else
            cmd="dot -Tsvg $f" rc=-
            fail "$name" "dot -Tsvg failed: $(flat "$tmp/dot.err")"
        fi
    else
        echo "note: dot is not installed; skipped 'dot -Tsvg' for $name"
        pass
    fi
}
run simulate "$diamond" --placement "$dplace" --dot "$tmp/diamond.dot"
expect_rc "simulate --dot (diamond)" 0 && dot_check "DOT (diamond, groups)" "$tmp/diamond.dot" "$dplace"
p0=tests/data/sim_public/chain_N4_d2__all_on_0
run simulate "$p0.graph.json" --placement "$p0.placement.json" --dot "$tmp/p0.dot"
expect_rc "simulate --dot (one of two devices used)" 0 && dot_check "DOT (one of two devices used)" "$tmp/p0.dot" "$p0.placement.json"
run simulate "$resnet" --placement "$rplace" --dot "$tmp/r4.dot" --groups 50 --json
expect_rc "simulate --dot --groups 50 (resnet18)" 0 && dot_check "DOT (resnet18, 50 groups)" "$tmp/r4.dot" "$rplace"
run export "$resnet" --placement "$rplace" --dot "$tmp/r4.ops.dot" --dot-ops
# (not rendered here: 387 ops take dot several seconds; the small --dot-ops
# render below is checked)
expect_rc "export --dot --dot-ops (resnet18)" 0 && dot_check "DOT (resnet18, ops)" "$tmp/r4.ops.dot" "$rplace" norender
# --dot-ops output reads back as a graph with the same ops, edges and costs
info_agree='
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
skip = set(sys.argv[3:])
for k in sorted(set(a) | set(b)):
    if k in skip:
        continue
    assert a.get(k) == b.get(k), "%s: %r != %r" % (k, a.get(k), b.get(k))
'
run info "$resnet" --json
cp "$tmp/out" "$tmp/resnet.info.json"
run info "$tmp/r4.ops.dot" --json
if expect_rc "info on the --dot-ops output" 0; then
    cp "$tmp/out" "$tmp/r4.ops.info.json"
    pycheck "--dot-ops output reads back (info --json agrees but for name)" "$info_agree" "$tmp/resnet.info.json" "$tmp/r4.ops.info.json" name
fi
run simulate "$diamond" --placement "$dplace" --dot "$tmp/d.ops.dot" --dot-ops
expect_rc "simulate --dot-ops (diamond)" 0 && dot_check "DOT (diamond, ops)" "$tmp/d.ops.dot" "$dplace"
run info "$tmp/d.ops.dot" --json
if expect_rc "info on the diamond --dot-ops output" 0; then
    cp "$tmp/out" "$tmp/d.ops.info.json"
    run info "$diamond" --json
    cp "$tmp/out" "$tmp/d.info.json"
    pycheck "diamond --dot-ops reads back" "$info_agree" "$tmp/d.info.json" "$tmp/d.ops.info.json" name
fi

# ---------------------------------------------------------------- graph JSON round trip
run export "$resnet" --graph-json "$tmp/rt1.json"
if expect_rc "export --graph-json" 0; then
    run export "$tmp/rt1.json" --graph-json "$tmp/rt2.json"
    if expect_rc "export --graph-json of the export" 0; then
        if cmp -s "$tmp/rt1.json" "$tmp/rt2.json"; then pass; else
            cmd="cmp $tmp/rt1.json $tmp/rt2.json" rc=-
            fail "graph JSON round trip" "the second export differs: $(cmp "$tmp/rt1.json" "$tmp/rt2.json" 2>&1)"
        fi
        run info "$tmp/rt1.json" --json
        cp "$tmp/out" "$tmp/rt1.info.json"
        run info "$tmp/rt2.json" --json
        cp "$tmp/out" "$tmp/rt2.info.json"
        pycheck "info --json of both exports agree" "$info_agree" "$tmp/rt1.info.json" "$tmp/rt2.info.json"
        pycheck "info --json of the original and the export agree" "$info_agree" "$tmp/resnet.info.json" "$tmp/rt1.info.json"
    fi
fi
# a DOT graph converted to JSON and back through the loader
run export "$tmp/r4.ops.dot" --graph-json "$tmp/fromdot.json"
if expect_rc "export --graph-json of a .dot" 0; then
    run info "$tmp/fromdot.json" --json
    if expect_rc "info of the JSON converted from DOT" 0; then
        cp "$tmp/out" "$tmp/fromdot.info.json"
        pycheck "DOT -> JSON keeps the graph" "$info_agree" "$tmp/r4.ops.info.json" "$tmp/fromdot.info.json"
    fi
fi

# ---------------------------------------------------------------- determinism
run simulate "$resnet" --placement "$rplace" --json
cp "$tmp/out" "$tmp/det1.json"
run simulate "$resnet" --placement "$rplace" --json
if expect_rc "simulate --json twice" 0; then
    if cmp -s "$tmp/det1.json" "$tmp/out"; then pass; else fail "determinism" "simulate --json gave different bytes on the second run"; fi
fi
run simulate "$resnet" --placement "$rplace" --dot "$tmp/r4.again.dot" --groups 50 --trace "$tmp/r4.again.trace.json"
if expect_rc "exports twice" 0; then
    if cmp -s "$tmp/r4.dot" "$tmp/r4.again.dot" && cmp -s "$tmp/r4.trace.json" "$tmp/r4.again.trace.json"; then pass; else
        fail "determinism of exports" "a second --dot/--trace run wrote different bytes"
    fi
fi

# ---------------------------------------------------------------- atomic writes
left=$(find "$tmp" -name '*.tmp.*' | head -n 5)
if [ -z "$left" ]; then pass; else
    cmd="find $tmp -name '*.tmp.*'" rc=-
    fail "no temporary files left" "found: $left"
fi
# overwriting an existing output replaces it completely
printf '%0100000d' 0 > "$tmp/over.json"
run export "$diamond" --graph-json "$tmp/over.json"
if expect_rc "export over a bigger file" 0; then
    pycheck "overwritten output is complete" 'import json,sys; d=json.load(open(sys.argv[1])); assert d["format"] == "placeto-graph"' "$tmp/over.json"
fi

# writing into a directory that does not exist: exit 1, a clear message, nothing written
nodir=$tmp/no/such/dir
for what in "simulate $diamond --placement $dplace --trace $nodir/t.json" \
            "simulate $diamond --placement $dplace --dot $nodir/d.dot" \
            "export $diamond --placement $dplace --trace $nodir/t.json" \
            "export $diamond --graph-json $nodir/g.json"; do
    # shellcheck disable=SC2086  # split the command line on purpose
    run $what
    name="write into a missing directory: ${what%% *} ${what##* --}"
    expect_rc "$name" 1 || continue
    if [ "$(head -c 9 "$tmp/err")" = "placeto: " ] && grep -qF "$nodir/" "$tmp/err" && grep -q 'No such file or directory' "$tmp/err"; then
        pass
    else
        fail "$name" "expected 'placeto: PATH: cannot write: No such file or directory'"
    fi
done
if [ -e "$tmp/no" ]; then
    cmd="ls $tmp/no" rc=-
    fail "missing directory" "something created $tmp/no"
else
    pass
fi

echo "commands: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
