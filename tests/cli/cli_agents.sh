#!/usr/bin/env bash
# The agent contract (core/agent/agent.h): every command reads and parses a
# policy file once; `train --agent A --help` lists A's options alone; the
# registry alone drives place, compare, train and the explorer (the test
# build placeto-coin has one more agent, tests/agent/coin_agent.c, that no
# file of tui/ names); on every agent `train --help` lists, training is
# deterministic per seed, 2 + 2 episodes resumed give the bytes of 4, and
# another agent's file is refused naming both; make check-layers refuses
# an agent that includes a sibling's header, and a descriptor initialised
# by position.
cd "$(dirname "$0")/../.." || exit 1
. tests/cli/lib_cli.sh
coin=${PLACETO_COIN:-build/placeto-coin}

# help_agents PROG: the agents `PROG train --help` lists, in its order (the default first)
help_agents() { "$1" train --help | sed -n 's/.*the learned placer to train: \([^;]*\);.*/\1/p' | sed -e 's/ (default)//' -e 's/,//g'; }

# count WHAT PATH: lines "placeto: trace: WHAT PATH" of the last run's stderr
count() { grep -cxF "placeto: trace: $1 $2" "$tmp/err"; }
# once NAME PATH: the last run read and parsed PATH exactly once
once() {
    local r p
    r=$(count read "$2") p=$(count parse "$2")
    if [ "$r" = 1 ] && [ "$p" = 1 ]; then pass; else fail "$1" "$2 read $r and parsed $p times, expected once each"; fi
}

export PLACETO_TRACE_READS=1
pol=graphs/policies/inception_v3_2.json
run compare graphs/inception_v3.json --policy "$pol" --methods single
expect_rc "compare --policy (placeto)" 0 && once "compare --policy (placeto)" "$pol"
run place graphs/inception_v3.json --policy "$pol" -o "$tmp/p.json"
expect_rc "place --policy (placeto)" 0 && once "place --policy (placeto)" "$pol"
for a in rnn gdp; do
    pol=graphs/policies/${a}_nasnet_2.json
    run compare graphs/nasnet.json --policy "$pol" --methods single
    expect_rc "compare --policy ($a)" 0 && once "compare --policy ($a)" "$pol"
done
pol=graphs/policies/hsdag_resnet50.json
run compare graphs/inference/resnet50.json --cluster graphs/clusters/cpu_gpu1.json --policy "$pol" --methods single
expect_rc "compare --policy (hsdag)" 0 && once "compare --policy (hsdag)" "$pol"
pol=graphs/policies/rnn_nasnet_2.json
run explore graphs/nasnet.json --policy "$pol" --headless --keys 'space space' --dump "$tmp/screen.txt"
expect_rc "explore --policy (rnn)" 0 && once "explore --policy (rnn)" "$pol"
# the graph is read once too
run place graphs/resnet18.json --method metis -o "$tmp/m.json"
expect_rc "place --method" 0 && once "place --method: the graph" graphs/resnet18.json
unset PLACETO_TRACE_READS

# train --agent A --help: the shared options and A's own, no other agent's
run train --agent gdp --help
if expect_rc "train --agent gdp --help" 0; then
    if grep -q -- '--epochs' "$tmp/out" && grep -q -- '--episodes' "$tmp/out" && ! grep -q -- '--squash' "$tmp/out" &&
        ! grep -q -- '--preset' "$tmp/out" && ! grep -q -- '--steps' "$tmp/out"; then pass
    else fail "train --agent gdp --help" "expected --episodes and --epochs, not --squash, --preset or --steps"; fi
fi
run train --agent placeto --help
if expect_rc "train --agent placeto --help" 0; then
    if grep -q -- '--preset' "$tmp/out" && ! grep -q -- '--epochs' "$tmp/out"; then pass
    else fail "train --agent placeto --help" "expected --preset, not --epochs"; fi
fi
run train graphs/toy/crown.json --agent rnn --epochs 2
expect_rc "train --agent rnn --epochs" 2 && { grep -q -- "--epochs does not apply to --agent rnn" "$tmp/err" && pass ||
    fail "train --agent rnn --epochs" "expected the refusal to name the option and the agent"; }
run train graphs/toy/crown.json --epochs 2
expect_rc "train --epochs (placeto)" 2 && { grep -q -- "--epochs applies to --agent gdp" "$tmp/err" && pass ||
    fail "train --epochs (placeto)" "expected 'applies to --agent gdp'"; }

# the test-only agent: registered in placeto-coin alone, driven by the registry
if [ -x "$coin" ]; then
    prog_main=$prog
    prog=$coin
    g=graphs/resnet18.json
    run train "$g" --agent coin --episodes 40 -o "$tmp/coin.json"
    expect_rc "coin: train" 0 && { grep -q '"agent": "coin"' "$tmp/coin.json" && pass || fail "coin: train" "no coin policy written"; }
    run train --agent coin --help
    expect_rc "coin: train --help" 0 && { grep -q -- '--lr' "$tmp/out" && ! grep -q -- '--epochs' "$tmp/out" && pass ||
        fail "coin: train --help" "expected its own --lr, no --epochs"; }
    run train --help
    expect_rc "coin: train --help lists it" 0 && { grep -q -- 'coin' "$tmp/out" && pass ||
        fail "coin: train --help lists it" "the --agent help does not list coin"; }
    run place "$g" --policy "$tmp/coin.json" -o "$tmp/coin_place.json" --json
    expect_rc "coin: place" 0 && { grep -q '"runtime_us"' "$tmp/out" && pass || fail "coin: place" "no placement reported"; }
    run compare "$g" --policy "$tmp/coin.json" --methods single
    expect_rc "coin: compare" 0 && { grep -qE '^coin ' "$tmp/out" && grep -qE '^coin-trained ' "$tmp/out" && pass ||
        fail "coin: compare" "expected the rows coin and coin-trained"; }
    run explore "$g" --policy "$tmp/coin.json" --headless --keys 'space space space' --dump "$tmp/coin_screen.txt"
    expect_rc "coin: explore" 0 && { grep -q 'coin policy' "$tmp/coin_screen.txt" && pass ||
        fail "coin: explore" "the screen does not name the coin policy"; }
    run train "$g" --agent coin --episodes 10 --resume "$tmp/coin.json" -o "$tmp/coin2.json"
    expect_rc "coin: train --resume" 0 && pass
    prog=$prog_main
    # the plain program has no such agent: a clear error naming the field
    # the agents `train --help` lists, quoted as the message lists them: "placeto", "rnn", ... or "lsched"
    names=$(help_agents "$prog")
    quoted=$(printf '%s\n' "$names" | sed -e 's/[a-z0-9_-][a-z0-9_-]*/"&"/g' -e 's/ /, /g' -e 's/, \([^,]*\)$/ or \1/')
    run place "$g" --policy "$tmp/coin.json"
    expect_rc "placeto: a coin policy" 1 && { [ -n "$names" ] && grep -qF "agent: expected $quoted, got \"coin\"" "$tmp/err" && pass ||
        fail "placeto: a coin policy" "expected the agent field's error"; }
else
    fail "coin" "no $coin (make test builds it)"
fi

# The contract through the train command, on every agent `train --help`
# lists (placeto-coin's: coin too), with its default options: a run is
# deterministic per seed; 2 episodes, then 2 more from the file
# (--resume), give the bytes of 4; place and compare with its policy give
# its zero-shot row (NAME, or NAME-refine with its start) and compare the
# row NAME-trained; and resuming another agent's file is
# refused naming both agents and what trains it (each agent is handed the
# file of the one listed before it). The agents' own options across a
# resume: cli_gdp.sh, cli_rnn.sh, cli_hsdag.sh, cli_lsched.sh, cli_lsearch.sh.
prog_main=$prog
[ -x "$coin" ] && prog=$coin
agents=$(help_agents "$prog")
[ -n "$agents" ] && pass || fail "train --help" "lists no agent"
first=${agents%% *} prev=${agents##* }
for a in $agents; do
    t=(train graphs/toy/crown.json --agent "$a" --seed 3)
    run "${t[@]}" --episodes 4 -o "$tmp/$a.json"
    expect_rc "$a: train" 0 || continue
    run "${t[@]}" --episodes 4 -o "$tmp/$a.again.json"
    expect_rc "$a: train again" 0 && { cmp -s "$tmp/$a.json" "$tmp/$a.again.json" && pass ||
        fail "$a: deterministic" "two runs with --seed 3 differ"; }
    run "${t[@]}" --episodes 2 -o "$tmp/$a.r.json"
    expect_rc "$a: train 2" 0
    run "${t[@]}" --episodes 2 --resume "$tmp/$a.r.json"
    expect_rc "$a: train 2 more" 0 && { cmp -s "$tmp/$a.json" "$tmp/$a.r.json" && pass ||
        fail "$a: resume" "2 + 2 episodes resumed differ from 4"; }
    # its rows: place names its zero-shot row, compare adds the best placement training found
    run place graphs/toy/crown.json --policy "$tmp/$a.json"
    expect_rc "$a: place" 0 && { grep -qE "with $a(-[a-z]+)?: runtime" "$tmp/out" && pass ||
        fail "$a: place" "no '$a' row: $(flat "$tmp/out")"; }
    run compare graphs/toy/crown.json --policy "$tmp/$a.json" --methods single --json
    expect_rc "$a: compare" 0 && pycheck "$a: compare rows" '
import json, sys
names = [r["method"] for r in json.load(open(sys.argv[1]))["methods"]]
a = sys.argv[2]
assert a + "-trained" in names and any(n == a or n.startswith(a + "-") and n != a + "-trained" for n in names), names
' "$tmp/out" "$a"
done
for a in $agents; do
    [ -f "$tmp/$prev.json" ] || { prev=$a; continue; }
    how="train --agent $prev"
    agent=(--agent "$a"); [ "$a" = "$first" ] && agent=()
    run train graphs/toy/crown.json "${agent[@]}" --episodes 1 --resume "$tmp/$prev.json" -o "$tmp/x.json"
    expect_rc "$a: resume $prev's policy" 1 && {
        grep -qi "$prev policy, not an\? $a policy" "$tmp/err" && grep -qF "$how" "$tmp/err" && [ ! -e "$tmp/x.json" ] &&
            pass || fail "$a: resume $prev's policy" "expected '$prev policy, not ... $a policy' and '$how': $(flat "$tmp/err")"; }
    prev=$a
done
prog=$prog_main

# the untrained control: the same architecture with the weights training
# starts from (--seed), placing by the same procedure; it is the network
# `train --episodes 1 --lr 0` leaves, row for row
g=graphs/toy/crown.json
run train "$g" --preset tuned --episodes 1 --lr 0 --seed 1 -o "$tmp/u.json"
expect_rc "control: train --lr 0" 0 && pass
run train "$g" --preset tuned --episodes 20 --seed 1 -o "$tmp/t.json"
expect_rc "control: train" 0 && pass
run compare "$g" --policy "$tmp/u.json" --methods single --seed 1 --json
cp "$tmp/out" "$tmp/u_cmp.json"
run compare "$g" --policy "$tmp/t.json" --methods single --seed 1 --untrained --json
if expect_rc "compare --untrained" 0; then
    cp "$tmp/out" "$tmp/t_cmp.json"
    pycheck "control is train --lr 0's network" '
import json, sys
u = {r["method"]: r for r in json.load(open(sys.argv[1]))["methods"]}
t = {r["method"]: r for r in json.load(open(sys.argv[2]))["methods"]}
assert "placeto-untrained" in t and "placeto" in t, sorted(t)
assert t["placeto-untrained"]["runtime_us"] == u["placeto"]["runtime_us"], (t["placeto-untrained"], u["placeto"])
# the same procedure (one greedy episode from the same start): the placements
# are the moves each network proposed (a no-op simulates nothing), and the
# control has those of the lr-0 network exactly
assert t["placeto-untrained"]["placements"] == u["placeto"]["placements"], "not the same procedure"
assert 1 <= t["placeto"]["placements"] <= 1 + json.load(open(sys.argv[2]))["groups"], t["placeto"]
' "$tmp/u_cmp.json" "$tmp/t_cmp.json"
    run compare "$g" --policy "$tmp/t.json" --methods single --seed 1 --untrained --json
    if cmp -s "$tmp/out" "$tmp/t_cmp.json" || diff <(grep -v seconds "$tmp/out") <(grep -v seconds "$tmp/t_cmp.json") > /dev/null; then pass
    else fail "control deterministic" "two runs differ"; fi
fi
for pol in graphs/policies/rnn_nasnet_2.json graphs/policies/gdp_nasnet_2.json; do
    a=$(basename "$pol" | cut -d_ -f1)
    run compare graphs/nasnet.json --policy "$pol" --methods single --untrained
    expect_rc "compare --untrained ($a)" 0 && { grep -qE "^$a-untrained " "$tmp/out" && pass ||
        fail "compare --untrained ($a)" "no $a-untrained row"; }
done
run compare "$g" --methods single --untrained
expect_rc "compare --untrained without a policy" 2 && { grep -q -- "--untrained needs a policy" "$tmp/err" && pass ||
    fail "--untrained without a policy" "expected the usage error"; }

# check-layers: an agent including a sibling's header is refused
mkdir -p "$tmp/tree"
cp -r core layouts tui mk "$tmp/tree/"
# refused WHAT PATTERN [SCRIPT]: mk/SCRIPT (check_layers.sh) of the copy in
# $tmp/tree exits 1 with a line matching PATTERN
refused() {
    cmd="bash mk/${3:-check_layers.sh} ($1)"
    out=$(bash "$tmp/tree/mk/${3:-check_layers.sh}" 2>&1); rc=$?
    if [ $rc -eq 1 ] && echo "$out" | grep -q -- "$2"; then pass
    else fail "check-layers: $1" "expected a refusal matching '$2', got rc=$rc: $out"; fi
}
sed -i '0,/#include "gdp.h"/s//#include "gdp.h"\n#include "rnn.h"/' "$tmp/tree/core/agents/gdp/gdp.c"
refused "gdp.c includes rnn.h" 'gdp.c:.*includes core/agents/rnn/rnn.h: an agent includes no sibling'
cp core/agents/gdp/gdp.c "$tmp/tree/core/agents/gdp/gdp.c"
sed -i 's/#include "app.h"/#include "app.h"\n#include "rnn_io.h"/' "$tmp/tree/tui/explorer/app_actor.c"
refused "app_actor.c includes rnn_io.h" 'app_actor.c:.*through the registry'
cp tui/explorer/app_actor.c "$tmp/tree/tui/explorer/app_actor.c"

# check-layers: a descriptor given by position is refused (docs/architecture.md):
# an agent's sub-table, its actor table, a command, a key table's row, a
# tour stage's .pub, and an AgentKind the check cannot see
f=core/agents/gdp/gdp_agent.c
sed -i 's/\.train = {\.unit = "update", \.max_groups = /.train = {"update", /' "$tmp/tree/$f"
refused "gdp's .train by position" 'gdp_agent.c:[0-9]*: AgentKind agent_gdp: 2 field(s) given by position (the first on this line, in .train)'
cp "$f" "$tmp/tree/$f"
sed -i 's/^    \.does = "gives every group/    "gives every group/' "$tmp/tree/$f"
refused "gdp's actor by position" 'gdp_agent.c:[0-9]*: AgentActorOps actor: 1 field' check_designated.sh
cp "$f" "$tmp/tree/$f"
sed -i 's/^const AgentKind agent_gdp = {/const AgentKind agent_gdp =\n{/' "$tmp/tree/$f"
refused "agent_gdp out of the check's sight" 'agents.c: agent_gdp is defined in no' check_designated.sh
cp "$f" "$tmp/tree/$f"
f=tui/cli/cmd_info.c
sed -i 's/^    \.opts = info_opts,/    info_opts,/' "$tmp/tree/$f"
refused "cmd_info by position" 'cmd_info.c:[0-9]*: CliCmd cmd_info: 1 field' check_designated.sh
cp "$f" "$tmp/tree/$f"
f=tui/explorer/ctl.c
sed -i 's/{\.doc = {"f", "finish the episode", 0}, \.fn = act_finish, \.on = {{.f., 0}}},/{{"f", "finish the episode", 0}, act_finish, {{0x66, 0}}, 0, 0},/' "$tmp/tree/$f"
refused "a key row by position" 'ctl.c:[0-9]*: Binding bindings\[\]: 5 field(s) given by position (the first on this line, in a row)' check_designated.sh
cp "$f" "$tmp/tree/$f"
f=tui/explorer/demo.c
sed -i 's/{\.pub = {\.title = "The race of the placers, live", \.top = 1,/{.pub = {"The race of the placers, live", 1,/' "$tmp/tree/$f"
refused "a tour stage's .pub by position" 'demo.c:[0-9]*: TourStage stages\[\]: 2 field(s) given by position (the first on this line, in a row .pub)' check_designated.sh
cp "$f" "$tmp/tree/$f"
cmd="bash mk/check_designated.sh (the tree as it is)"
out=$(bash "$tmp/tree/mk/check_designated.sh" 2>&1) && pass || fail "check-layers: designators" "refused the tree: $out"

echo "agents: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
