#!/usr/bin/env bash
# Options behave as their help says: `placeto help CMD`, short options with
# attached values (-n4) and --opt=value for every command, --devices
# defaulting to a policy's device count (explore, place, compare, demo,
# train --resume) with a clear error when an explicit --devices disagrees,
# and the demo's command line (GRAPH, --policy, --devices, --auto
# [SECONDS]). Prints "options: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

commands="explore info simulate place compare train export demo"
crown=graphs/toy/crown.json
nmt=graphs/nmt.json
nmt4=graphs/policies/nmt_4.json

# ---- placeto help [CMD] ----
run --help
cp "$tmp/out" "$tmp/general"
run help
if expect_rc "help alone" 0; then
    if cmp -s "$tmp/out" "$tmp/general"; then pass; else fail "help alone" "differs from placeto --help"; fi
fi
for c in $commands; do
    run "$c" --help
    cp "$tmp/out" "$tmp/want"
    run help "$c"
    expect_rc "help $c" 0 || continue
    if [ -s "$tmp/out" ] && cmp -s "$tmp/out" "$tmp/want"; then pass; else fail "help $c" "differs from 'placeto $c --help'"; fi
done
run help nosuch
if expect_rc "help unknown" 2; then
    if grep -q "^placeto: help: unknown command 'nosuch'" "$tmp/err" && grep -q "commands:" "$tmp/err"; then
        pass
    else
        fail "help unknown" "no clear error and command list"
    fi
fi
usage_error "help two" help place compare
run --help
if grep -qF "placeto help COMMAND" "$tmp/out"; then pass; else fail "general help" "does not mention 'placeto help COMMAND'"; fi

# ---- attached values: -n4 as -n 4, --devices=4 as --devices 4 ----
same_as() { # NAME ARGS_A -- ARGS_B: both runs succeed with the same stdout
    local name=$1 a=() b=()
    shift
    while [ "$1" != "--" ]; do a+=("$1"); shift; done
    shift
    b=("$@")
    run "${a[@]}"
    expect_rc "$name" 0 || return
    cp "$tmp/out" "$tmp/want"
    run "${b[@]}"
    expect_rc "$name" 0 || return
    if cmp -s "$tmp/out" "$tmp/want"; then pass; else fail "$name" "output differs from '${a[*]}'"; fi
}
same_as "place -n4 -mheft" place "$crown" --method heft --devices 4 -- place "$crown" -mheft -n4
same_as "place --devices=4" place "$crown" --method heft --devices 4 -- place "$crown" --method=heft --devices=4
same_as "place -s7 -b300" place "$crown" --method anneal --seed 7 --budget 300 -- place "$crown" -manneal -s7 -b300
run compare "$crown" --methods heft,single --devices 3
awk '{print $1, $2}' "$tmp/out" > "$tmp/want"
run compare "$crown" -mheft,single -n3
if expect_rc "compare -mheft,single -n3" 0; then
    if awk '{print $1, $2}' "$tmp/out" | cmp -s - "$tmp/want" && grep -qF "3x K80" "$tmp/out"; then
        pass
    else
        fail "compare -mheft,single -n3" "rows differ from --methods heft,single --devices 3"
    fi
fi
same_as "info -n3 -g5" info "$crown" --devices 3 --groups 5 -- info "$crown" -n3 -g5
same_as "simulate -p" simulate "$crown" --placement graphs/placements/crown_3way.json -- simulate "$crown" -pgraphs/placements/crown_3way.json
same_as "explore -n3 -k" explore "$crown" --devices 3 --headless --keys 'space space' --size 80x24 -- \
    explore "$crown" -n3 --headless "-kspace space" --size=80x24
same_as "demo -kspace" demo --headless --keys space --size 100x30 -- demo --headless -kspace --size 100x30
run train "$crown" --episodes 2 -o "$tmp/a.json"
cp "$tmp/a.json" "$tmp/a_want.json" 2> /dev/null
run train "$crown" -e2 "-o$tmp/a.json"
if expect_rc "train -e2 -oFILE" 0; then
    if cmp -s "$tmp/a.json" "$tmp/a_want.json"; then pass; else fail "train -e2 -oFILE" "a different policy"; fi
fi
run export "$crown" -pgraphs/placements/crown_3way.json "-d$tmp/c.dot"
if expect_rc "export -dFILE" 0; then
    if [ -s "$tmp/c.dot" ]; then pass; else fail "export -dFILE" "no DOT written"; fi
fi
usage_error "flag with a value" explore "$crown" --headless --greedy=1
usage_error "-n with a bad attached value" place "$crown" -mheft -nx
if grep -qF -- "--devices: expected an integer" "$tmp/err"; then pass; else fail "-nx message" "does not name --devices"; fi

# ---- --devices follows the policy ----
run explore "$nmt" --policy "$nmt4" --headless --size 100x30
if expect_rc "explore with a 4-device policy" 0; then
    if grep -qF "nmt on 4x K80" "$tmp/out"; then pass; else fail "explore with a 4-device policy" "not on 4 devices"; fi
fi
run explore "$nmt" -p"$nmt4" -n4 --headless --size 100x30
if expect_rc "explore -p -n4" 0; then
    if grep -qF "nmt on 4x K80" "$tmp/out"; then pass; else fail "explore -p -n4" "not on 4 devices"; fi
fi
for c in explore place compare demo; do
    extra=()
    [ "$c" = place ] || [ "$c" = compare ] || extra=(--headless --size 100x30)
    run "$c" "$nmt" --policy "$nmt4" --devices 2 "${extra[@]}"
    if expect_rc "$c: --devices 2 against a 4-device policy" 1; then
        if grep -qF -- "(--devices 2; leave it out to use 4)" "$tmp/err" && grep -qF "$nmt4" "$tmp/err" && grep -qF "for 4 devices" "$tmp/err"; then
            pass
        else
            fail "$c: --devices 2 against a 4-device policy" "the error does not name the policy, its 4 devices and --devices"
        fi
    fi
done
run place "$nmt" --policy "$nmt4" --json
if expect_rc "place with a 4-device policy" 0; then
    pycheck "place: 4 devices" 'import json,sys; d=json.load(open(sys.argv[1])); p=d["placement"]; assert set(p["devices"])=={"/GPU:0","/GPU:1","/GPU:2","/GPU:3"}, p["devices"]' "$tmp/out"
fi
run compare "$nmt" --policy "$nmt4" --methods single
if expect_rc "compare with a 4-device policy" 0; then
    if grep -qF "nmt on 4x K80" "$tmp/out" && grep -q "^placeto " "$tmp/out"; then pass; else fail "compare with a 4-device policy" "not on 4 devices"; fi
fi
run train "$crown" --resume "$nmt4" --episodes 1 -o "$tmp/r.json"
if expect_rc "train --resume a 4-device policy" 0; then
    pycheck "train --resume: 4 devices" 'import json,sys; d=json.load(open(sys.argv[1])); assert d["architecture"]["n_devices"]==4' "$tmp/r.json"
fi
run train "$crown" --resume "$nmt4" --episodes 1 -o "$tmp/r2.json" --devices 3
if expect_rc "train --resume with --devices 3" 1; then
    if grep -qF -- "(--devices 3; leave it out to use 4)" "$tmp/err"; then pass; else fail "train --resume --devices 3" "unclear error"; fi
fi

# ---- the demo's command line ----
run demo --auto 3 --headless --size 100x30
if expect_rc "demo --auto 3" 0; then
    if grep -qF "Tour 1/" "$tmp/out"; then pass; else fail "demo --auto 3" "no tour"; fi
fi
run demo --auto --headless --size 100x30
expect_rc "demo --auto" 0 && pass
run demo --auto=2.5 --headless --size 100x30
expect_rc "demo --auto=2.5" 0 && pass
usage_error "demo --auto x" demo --auto=x --headless
usage_error "demo --auto 0" demo --auto 0 --headless
usage_error "demo two graphs" demo "$crown" "$crown" --headless
run demo "$crown" --devices 3 --headless --size 100x30
if expect_rc "demo GRAPH --devices 3" 0; then
    if grep -qF "toy_crown on 3x K80" "$tmp/out" && grep -qF "Tour 1/" "$tmp/out"; then pass; else fail "demo GRAPH --devices 3" "not the tour on crown, 3 devices"; fi
fi
run demo "$nmt" --policy "$nmt4" --auto 2 --headless --size 100x30
if expect_rc "demo GRAPH --policy" 0; then
    if grep -qF "nmt on 4x K80" "$tmp/out"; then pass; else fail "demo GRAPH --policy" "not on the policy's 4 devices"; fi
fi
run demo --help
if grep -qF "[GRAPH] [--policy P] [--devices N] [--auto [SECONDS]]" "$tmp/out"; then pass; else fail "demo --help" "no synopsis with GRAPH and --auto [SECONDS]"; fi

echo "options: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
