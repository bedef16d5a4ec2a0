#!/usr/bin/env bash
# The Chrome trace's dependency flows against the Trace Event Format's rules
# (the rules are stated in tests/cli/tracecheck.py): every flow start has
# one finish with the same id and cat, the finish binds with "bp": "e", the
# binding timestamps fall within exactly one slice on the flow event's own
# thread, slices on a thread never overlap, the required fields are there;
# and the flows are the simulated graph's: producer -> transfer -> each op
# the transfer releases. Then the checker itself is shown to catch broken
# traces. Prints "trace: N passed, M failed".
cd "$(dirname "$0")/../.."
. tests/cli/lib_cli.sh
check=tests/cli/tracecheck.py

# trace NAME GRAPH ARGS...: simulate with --trace and --json, then check both
trace() {
    local name=$1 g=$2
    shift 2
    run simulate "$g" "$@" --trace "$tmp/t.json" --json
    if expect_rc "$name" 0; then
        cp "$tmp/out" "$tmp/sim.json"
        if "$py" "$check" "$tmp/t.json" "$g" "$tmp/sim.json" > "$tmp/py" 2>&1; then
            if grep -qE '[1-9][0-9]* flows' "$tmp/py" || [ "${want_flows:-1}" = 0 ]; then pass; else
                fail "$name" "no flows: $(flat "$tmp/py")"; fi
        else
            fail "$name" "$(flat "$tmp/py")"
        fi
    fi
}

trace "diamond split" graphs/toy/diamond.json --placement graphs/placements/diamond_split.json
trace "crown 3-way" graphs/toy/crown.json --placement graphs/placements/crown_3way.json
# a placement of resnet18 on 4 devices by a baseline, and another with many transfers
run place graphs/resnet18.json --method m-etf --devices 4 -o "$tmp/r4.json"
expect_rc "place resnet18" 0 && trace "resnet18 m-etf on 4" graphs/resnet18.json --placement "$tmp/r4.json"
run place graphs/inception_v3.json --method round-robin --devices 3 -o "$tmp/i3.json"
expect_rc "place inception_v3" 0 && trace "inception_v3 round-robin on 3" graphs/inception_v3.json --placement "$tmp/i3.json"
# everything on one device: no transfer, no flow, still a valid trace
"$py" -c '
import json, sys
g = json.load(open(sys.argv[1]))
json.dump({"format": "placeto-placement", "version": 1, "devices": 2, "ops": {n["name"]: 0 for n in g["nodes"]}}, open(sys.argv[2], "w"))
' graphs/toy/diamond.json "$tmp/one.json"
want_flows=0 trace "diamond on one device" graphs/toy/diamond.json --placement "$tmp/one.json"
for g in tests/data/sim_public/*.graph.json; do
    p=${g%.graph.json}.placement.json
    case $g in *all_on_0*) want_flows=0 ;; *) want_flows=1 ;; esac
    trace "sim_public $(basename "${g%.graph.json}")" "$g" --placement "$p"
done

# the checker catches what it should: broken copies of the diamond's trace
run simulate graphs/toy/diamond.json --placement graphs/placements/diamond_split.json --trace "$tmp/good.json"
if expect_rc "diamond trace" 0; then
    for broken in no_finish no_bp wrong_cat outside wrong_thread no_ts overlap; do
        "$py" - "$tmp/good.json" "$tmp/bad.json" "$broken" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
fl = [e for e in ev if e["ph"] in "sf"]
how = sys.argv[3]
if how == "no_finish":
    ev.remove(next(e for e in fl if e["ph"] == "f"))
elif how == "no_bp":
    del next(e for e in fl if e["ph"] == "f")["bp"]
elif how == "wrong_cat":
    next(e for e in fl if e["ph"] == "f")["cat"] = "other"
elif how == "outside":
    next(e for e in fl if e["ph"] == "s")["ts"] = 1e9
elif how == "wrong_thread":
    next(e for e in fl if e["ph"] == "f" and e["tid"] % 100 == 0)["tid"] += 1
elif how == "no_ts":
    del next(e for e in ev if e["ph"] == "X")["ts"]
elif how == "overlap":
    xs = [e for e in ev if e["ph"] == "X" and e["tid"] == 100]
    xs[1]["ts"] = xs[0]["ts"] + xs[0]["dur"] / 2
json.dump(d, open(sys.argv[2], "w"))
PY
        cmd="tracecheck.py on a trace with $broken"
        if "$py" "$check" "$tmp/bad.json" > "$tmp/py" 2>&1; then
            rc=0; fail "checker: $broken" "accepted a broken trace"
        else pass; fi
    done
fi

echo "trace: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
