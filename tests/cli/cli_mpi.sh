#!/usr/bin/env bash
# `mpirun -np R placeto-mpi train ...`: data-parallel training on localhost.
# For every learned agent (placeto, rnn, gdp, hsdag) the policy file of R
# ranks x T threads is byte-identical to the plain program's with R T
# threads (one graph and a family), and lsearch's and lsched's on 2 ranks
# to the plain program's; inception_v3 trains on 2 ranks; a
# checkpoint resumes on another rank count with the bytes of an
# uninterrupted run; a rank killed mid-run ends the job within seconds
# with the last checkpoint intact (and resumable), also when rank 0 is
# killed in the middle of a save; a graph one rank cannot
# read ends every rank with that file's error, printed once; rank 0 alone
# prints; the plain program links no MPI and refuses to run as several
# ranks; ranks that disagree (an option, a file's contents, the command, a
# usage error on one rank) end with one message from rank 0 and exit 2. MPI missing is a failure (mk/deps.sh installs it). The MPI runs
# are not wrapped in valgrind (Open MPI's own start-up is not valgrind-clean),
# and under `make asan` LeakSanitizer is off in this script (Open MPI's
# plug-ins leave blocks that LeakSanitizer cannot even name, as they are
# unloaded at MPI_Finalize); AddressSanitizer and UBSan still check every
# run, and the other scripts check the trainers' leaks in the plain program.
# Prints "mpi: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

mprog=${prog}-mpi
mpi_limit=60
mpirun_flags=(--oversubscribe)
[ "$(id -u)" -eq 0 ] && mpirun_flags+=(--allow-run-as-root)
export OMPI_MCA_btl_base_warn_component_unused=0
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# mrun R ARGS...: placeto-mpi ARGS on R ranks; rc, cmd, $tmp/out, $tmp/err like run
mrun() {
    local r=$1
    shift
    cmd="mpirun -np $r $mprog $*"
    timeout "$mpi_limit" mpirun "${mpirun_flags[@]}" -np "$r" "$mprog" "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
}

# plain T ARGS...: the plain program with T threads (no wrapper: the
# reference bytes, not a test of the plain program)
plain() {
    local t=$1
    shift
    cmd="$prog $* --threads $t"
    timeout "$mpi_limit" "$prog" "$@" --threads "$t" > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
}

if ! command -v mpirun > /dev/null || [ ! -x "$mprog" ]; then
    cmd="mpirun / $mprog"; rc=1
    : > "$tmp/out"; : > "$tmp/err"
    fail "mpi available" "mpirun or $mprog missing (make deps; make mpi)"
    echo "mpi: $passed passed, $failed failed"
    exit 1
fi

# the plain program: no libmpi, trains without mpirun
cmd="ldd $prog"; rc=0; ldd "$prog" > "$tmp/out" 2>&1; : > "$tmp/err"
if grep -q libmpi "$tmp/out"; then fail "plain has no MPI" "libmpi linked"; else pass; fi
run train graphs/toy/crown.json --episodes 2 -o "$tmp/plain.json"
expect_rc "plain train" 0 && pass
# SIGUSR1 is a graceful stop for the plain program too: saved, exit 0
cmd="placeto train crown --episodes 100000000 (SIGUSR1)"
"$prog" train graphs/toy/crown.json --episodes 100000000 --checkpoint-every 100000000 -o "$tmp/usr1.json" \
    > /dev/null 2> "$tmp/err" < /dev/null &
pid=$!
( sleep "$mpi_limit"; kill -KILL "$pid" ) 2> /dev/null & # a stop that fails must not hang the suite
watchdog=$!
if wait_catching "$pid" "$(kill -l USR1)"; then
    sleep 0.3
    kill -USR1 "$pid"
fi
wait "$pid"; rc=$?
kill "$watchdog" 2> /dev/null; wait "$watchdog" 2> /dev/null
: > "$tmp/out"
if expect_rc "plain train, SIGUSR1" 0; then
    if grep -qE "^placeto: stopped \(SIGUSR1\) after episode [0-9]+; saved $tmp/usr1.json" "$tmp/err" &&
       "$prog" place graphs/toy/crown.json --policy "$tmp/usr1.json" > /dev/null 2>&1; then pass
    else fail "plain train, SIGUSR1" "no 'stopped (SIGUSR1)' line, or the saved policy does not load"; fi
fi

g=graphs/toy/crown.json
fam=(graphs/toy/crown.json graphs/toy/chain.json graphs/toy/diamond.json)
declare -A agent_opts=(
    [placeto]="--episodes 8"
    [rnn]="--agent rnn --hidden 8 --samples-per-update 4 --episodes 4 --greedy-every 2"
    [gdp]="--agent gdp --hidden 8 --heads 2 --samples-per-update 3 --batch-graphs 2 --episodes 3 --greedy-every 2"
    [hsdag]="--agent hsdag --hidden 8 --steps 3 --episodes-per-update 3 --episodes 3 --greedy-every 2 --baseline ema"
)

# same NAME R T GRAPHS... -- OPTS...: R ranks x T threads == the plain program with R T threads
same() {
    local name=$1 r=$2 t=$3
    shift 3
    plain $((r * t)) train "$@" -o "$tmp/ref.json"
    expect_rc "$name (plain, $((r * t)) threads)" 0 || return
    mrun "$r" train "$@" --threads "$t" -o "$tmp/mpi.json"
    expect_rc "$name ($r ranks x $t threads)" 0 || return
    if cmp -s "$tmp/ref.json" "$tmp/mpi.json"; then pass; else fail "$name" "$r x $t ranks differ from $((r * t)) threads"; fi
}

for a in placeto rnn gdp hsdag; do
    # shellcheck disable=SC2086  # the options are words
    same "$a 2x1 = 1x2" 2 1 "$g" ${agent_opts[$a]} --seed 3
    # shellcheck disable=SC2086
    same "$a 2x2 = 1x4" 2 2 "$g" ${agent_opts[$a]} --seed 4
    # shellcheck disable=SC2086
    same "$a family 2x1 = 1x2" 2 1 "${fam[@]}" ${agent_opts[$a]} --seed 5
done
# the learned search and the one-shot policy take no --threads: R ranks
# give the plain program's bytes (every rank runs the same episodes; rank 0
# writes)
for spec in "lsearch:--agent lsearch --hidden 4 --search-budget 100 --episodes 3" \
            "lsched:--agent lsched --hidden 4 --decodes 3 --episodes 6"; do
    a=${spec%%:*} opts=${spec#*:}
    # shellcheck disable=SC2086  # the options are words
    { cmd="$prog train ${fam[*]} $opts --seed 3"; timeout "$mpi_limit" "$prog" train "${fam[@]}" $opts --seed 3 \
        -o "$tmp/ref.json" > "$tmp/out" 2> "$tmp/err" < /dev/null; rc=$?; }
    expect_rc "$a family (plain)" 0 || continue
    # shellcheck disable=SC2086
    mrun 2 train "${fam[@]}" $opts --seed 3 -o "$tmp/mpi.json"
    expect_rc "$a family (2 ranks)" 0 && { cmp -s "$tmp/ref.json" "$tmp/mpi.json" && pass ||
        fail "$a family 2 ranks" "the policy differs from the plain program's"; }
done
# three ranks: blocks of unequal sizes (4 samples over 3 ranks)
same "rnn 3x1 = 1x3" 3 1 "$g" --agent rnn --hidden 8 --samples-per-update 4 --episodes 3 --seed 6

# rank 0 alone prints: one progress line per episode, one summary
mrun 2 train "$g" --episodes 4 -o "$tmp/quiet.json"
if expect_rc "progress" 0; then
    n=$(grep -c "^episode 4/4" "$tmp/err"); s=$(grep -c "^placeto: 4 episodes" "$tmp/err")
    if [ "$n" = 1 ] && [ "$s" = 1 ]; then pass; else fail "rank 0 prints" "$n final progress lines, $s summaries"; fi
fi

# inception_v3 on 2 ranks: a couple of updates, Placeto and a comparator
inc=graphs/inception_v3.json
same "inception_v3 placeto 2x1" 2 1 "$inc" --episodes 2 --seed 7
same "inception_v3 gdp 2x1" 2 1 "$inc" --agent gdp --hidden 16 --samples-per-update 4 --epochs 1 --episodes 1 --seed 7

# resume on another rank count: 6 episodes on 2 ranks, 4 more on 1 rank x 2
# threads == 10 uninterrupted (the round has 2 episodes either way)
mrun 2 train "$g" --episodes 6 --seed 8 -o "$tmp/r6.json"
if expect_rc "resume: first part" 0; then
    mrun 1 train "$g" --episodes 4 --threads 2 --resume "$tmp/r6.json" -o "$tmp/r10.json"
    if expect_rc "resume: second part" 0; then
        plain 2 train "$g" --episodes 10 --seed 8 -o "$tmp/u10.json"
        if cmp -s "$tmp/r10.json" "$tmp/u10.json"; then pass; else fail "resume 2 ranks -> 1" "differs from 10 uninterrupted"; fi
    fi
fi
mrun 1 train "$g" ${agent_opts[rnn]} --seed 9 -o "$tmp/n4.json"
if expect_rc "resume rnn: first part" 0; then
    mrun 2 train "$g" --agent rnn --samples-per-update 4 --greedy-every 2 --episodes 3 --threads 2 \
        --resume "$tmp/n4.json" -o "$tmp/n7.json"
    if expect_rc "resume rnn: second part" 0; then
        plain 1 train "$g" --agent rnn --hidden 8 --samples-per-update 4 --episodes 7 --greedy-every 2 --seed 9 \
            -o "$tmp/u7.json"
        if cmp -s "$tmp/n7.json" "$tmp/u7.json"; then pass; else fail "resume rnn 1 rank -> 2" "differs from 7 uninterrupted"; fi
    fi
fi

# a rank killed mid-run (kill -9 rank 1 of a long run that checkpoints
# every 2 episodes): the job ends within seconds with mpirun's or our
# message, the policy file is the last whole checkpoint, and resuming it on
# 1 rank x 2 threads gives the bytes of an uninterrupted 1 x 2 run
rm -f "$tmp/k.json"
cmd="mpirun -np 2 $mprog train $inc --episodes 2000 --checkpoint-every 2 -o $tmp/k.json; kill -9 rank 1"
timeout "$mpi_limit" mpirun "${mpirun_flags[@]}" -np 2 "$mprog" train "$inc" --episodes 2000 --checkpoint-every 2 \
    --seed 10 -o "$tmp/k.json" > "$tmp/out" 2> "$tmp/err" < /dev/null &
job=$!
for _ in $(seq 1 300); do [ -s "$tmp/k.json" ] && break; sleep 0.1; done
sleep 0.5
victim=""
for p in $(pgrep -f "placeto-mpi train $inc .*$tmp/k.json"); do
    tr '\0' '\n' < "/proc/$p/environ" 2> /dev/null | grep -qx OMPI_COMM_WORLD_RANK=1 && victim=$p
done
if [ -z "$victim" ]; then
    kill "$job" 2> /dev/null; wait "$job"; rc=$?
    fail "killed rank" "no rank 1 process found (checkpoint written: $([ -s "$tmp/k.json" ] && echo yes || echo no))"
else
    t0=$(date +%s)
    kill -9 "$victim"
    wait "$job"; rc=$?
    took=$(($(date +%s) - t0))
    if [ "$rc" -eq 124 ]; then fail "killed rank" "the job hung ($mpi_limit s)"
    elif [ "$took" -gt 10 ]; then fail "killed rank" "the job took $took s to end"
    elif [ "$rc" -eq 0 ]; then fail "killed rank" "exit status 0"
    elif ! grep -qE "rank 1 .*(signal 9|Killed)|placeto: rank [0-9]+: " "$tmp/err"; then fail "killed rank" "no message naming the dead rank"
    else pass; fi
    pycheck "killed rank: checkpoint intact" '
import json, sys
d = json.load(open(sys.argv[1]))
t = d["training"]
assert t["episodes"] >= 2 and t["episodes"] % 2 == 0, t["episodes"]
open(sys.argv[2], "w").write(str(t["episodes"]))
' "$tmp/k.json" "$tmp/k.episodes"
    if [ -s "$tmp/k.episodes" ]; then
        done_eps=$(cat "$tmp/k.episodes")
        mrun 1 train "$inc" --threads 2 --episodes 4 --resume "$tmp/k.json" -o "$tmp/k2.json"
        if expect_rc "killed rank: resume on 1 rank" 0; then
            plain 2 train "$inc" --episodes $((done_eps + 4)) --seed 10 -o "$tmp/ku.json"
            if cmp -s "$tmp/k2.json" "$tmp/ku.json"; then pass; else
                fail "killed rank: resume" "differs from $((done_eps + 4)) uninterrupted episodes"; fi
        fi
    fi
fi

# rank 0, the writer, killed with SIGKILL in the middle of a save: right
# after its checkpoint is written (before the policy file's rename), then
# right after the policy file's rename (before the checkpoint's); each time
# the file resumes (plain program, 2 threads), and the run finished so has
# the bytes of an uninterrupted 2-worker run (tests/cli/cli_kill.sh kills
# the plain program 30 times)
kg=graphs/toy/chain.json
mkdir -p "$tmp/mk"
plain 2 train "$kg" --episodes 2 --checkpoint-every 1 --seed 5 -o "$tmp/mk/k.json"
if expect_rc "rank 0 killed in a save: first run" 0; then
    for j in 3 4; do
        where=$(killer "$j" mpirun "${mpirun_flags[@]}" -np 2 "$mprog" train "$kg" --episodes 100000 --checkpoint-every 1 \
            --resume "$tmp/mk/k.json")
        plain 2 train "$kg" --episodes 1 --checkpoint-every 1 --resume "$tmp/mk/k.json"
        expect_rc "rank 0 killed in a save ($where): resume" 0 || break
    done
    n=$("$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))["training"]["episodes"])' "$tmp/mk/k.json")
    plain 2 train "$kg" --episodes "$n" --seed 5 -o "$tmp/mku.json"
    if cmp -s "$tmp/mk/k.json" "$tmp/mku.json"; then pass
    else fail "rank 0 killed in a save: resumed" "differs from $n uninterrupted episodes"; fi
fi

# the graceful stop under mpirun: SIGUSR1 to mpirun (which forwards it to
# every rank; on SIGINT/SIGTERM it kills them) stops every rank after the
# same update; rank 0 saves, says so, and the job exits 0; resuming the file
# on 1 rank x 2 threads gives the bytes of an uninterrupted 1 x 2 run. A
# SIGUSR1 to rank 1 alone stops the others with it.
# stop_run NAME TARGET: a long 2-rank run, SIGUSR1 to TARGET (mpirun, or rank1) after 1 s
stop_run() {
    rm -f "$tmp/s.json"
    cmd="mpirun -np 2 $mprog train $g --episodes 100000000 --checkpoint-every 100000000 -o $tmp/s.json; SIGUSR1 to $2"
    timeout "$mpi_limit" mpirun "${mpirun_flags[@]}" -np 2 "$mprog" train "$g" --episodes 100000000 \
        --checkpoint-every 100000000 --seed 11 -o "$tmp/s.json" > "$tmp/out" 2> "$tmp/err" < /dev/null &
    local job=$! target="" p ranks=()
    # the two ranks (the processes with a rank in their environment, not
    # timeout or mpirun, whose command lines match too), until both catch
    # SIGUSR1, and a moment of training
    for _ in $(seq 1 300); do
        ranks=()
        for p in $(pgrep -f "placeto-mpi train $g .*$tmp/s.json"); do
            tr '\0' '\n' < "/proc/$p/environ" 2> /dev/null | grep -q '^OMPI_COMM_WORLD_RANK=' && ranks+=("$p")
        done
        [ "${#ranks[@]}" -ge 2 ] && break
        sleep 0.1
    done
    for p in "${ranks[@]}"; do wait_catching "$p" "$(kill -l USR1)"; done
    sleep 0.5
    if [ "$2" = mpirun ]; then
        target=$(pgrep -P "$job" mpirun)
    else
        for p in "${ranks[@]}"; do
            tr '\0' '\n' < "/proc/$p/environ" 2> /dev/null | grep -qx OMPI_COMM_WORLD_RANK=1 && target=$p
        done
    fi
    if [ -z "$target" ]; then
        kill "$job" 2> /dev/null; wait "$job"; rc=$?
        fail "$1" "no $2 process found"
        return 1
    fi
    kill -USR1 "$target"
    wait "$job"; rc=$?
    expect_rc "$1" 0
}
if stop_run "SIGUSR1 to mpirun" mpirun; then
    if grep -qE "^placeto: stopped \(SIGUSR1\) after episode [0-9]+; saved $tmp/s.json" "$tmp/err"; then pass; else
        fail "SIGUSR1 to mpirun" "no 'stopped (SIGUSR1) after episode N; saved' line"; fi
    pycheck "SIGUSR1 to mpirun: the file holds the episodes of the stop" '
import json, re, sys
n = int(re.search(r"stopped \(SIGUSR1\) after episode (\d+)", open(sys.argv[2]).read()).group(1))
t = json.load(open(sys.argv[1]))["training"]
assert t["episodes"] == n and n % 2 == 0 and 0 <= n < 100000000, (t["episodes"], n)
open(sys.argv[3], "w").write(str(n))
' "$tmp/s.json" "$tmp/err" "$tmp/s.episodes"
    if [ -s "$tmp/s.episodes" ]; then
        done_eps=$(cat "$tmp/s.episodes")
        mrun 1 train "$g" --threads 2 --episodes 4 --resume "$tmp/s.json" -o "$tmp/s2.json"
        if expect_rc "SIGUSR1: resume on 1 rank" 0; then
            plain 2 train "$g" --episodes $((done_eps + 4)) --checkpoint-every 100000000 --seed 11 -o "$tmp/su.json"
            if cmp -s "$tmp/s2.json" "$tmp/su.json"; then pass; else
                fail "SIGUSR1: resume" "differs from $((done_eps + 4)) uninterrupted episodes"; fi
        fi
    fi
fi
if stop_run "SIGUSR1 to rank 1" rank1; then
    if grep -qE "^placeto: stopped with the other ranks after episode [0-9]+; saved $tmp/s.json" "$tmp/err"; then pass
    else fail "SIGUSR1 to rank 1" "rank 0 does not say it stopped with the other ranks"; fi
fi

# a graph a rank cannot read: every rank exits with that file's error,
# printed once (by rank 0), on every rank, or on rank 1 alone (mpirun's
# MPMD form gives rank 1 other arguments)
missing=$tmp/no_such_graph.json
# once NAME: exit status 1, the file's error exactly once
once() {
    expect_rc "$1" 1 || return
    local n
    n=$(grep -c "placeto: $missing: cannot open" "$tmp/err")
    if [ "$n" = 1 ]; then pass; else fail "$1" "the error printed $n times"; fi
}
mrun 2 train "$missing" --episodes 2 -o "$tmp/x.json"
once "missing graph on every rank"
cmd="mpirun -np 1 $mprog train $g : -np 1 $mprog train $missing"
timeout "$mpi_limit" mpirun "${mpirun_flags[@]}" -np 1 "$mprog" train "$g" --episodes 2 -o "$tmp/x.json" : \
    -np 1 "$mprog" train "$missing" --episodes 2 -o "$tmp/x.json" > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
once "missing graph on rank 1"
cmd="mpirun -np 1 $mprog train --agent gdp $missing : -np 1 $mprog train --agent gdp $g"
timeout "$mpi_limit" mpirun "${mpirun_flags[@]}" -np 1 "$mprog" train "$missing" --agent gdp --episodes 2 \
    -o "$tmp/x.json" : -np 1 "$mprog" train "$g" --agent gdp --episodes 2 -o "$tmp/x.json" > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
once "gdp: missing graph on rank 0"
# other files at the same path on another host: refused, not trained
cmd="mpirun -np 1 $mprog train $g : -np 1 $mprog train graphs/toy/chain.json"
timeout "$mpi_limit" mpirun "${mpirun_flags[@]}" -np 1 "$mprog" train "$g" --episodes 2 -o "$tmp/x.json" : \
    -np 1 "$mprog" train graphs/toy/chain.json --episodes 2 -o "$tmp/x.json" > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
if expect_rc "ranks on other files" 2; then
    if [ "$(grep -c "^placeto-mpi: train: ranks disagree on the graph files: graph 1 of 1: rank 0 has $g (digest [0-9a-f]*), rank 1 has graphs/toy/chain.json (digest [0-9a-f]*) (every host needs" "$tmp/err")" = 1 ]
    then pass; else fail "ranks on other files" "no single message naming both files"; fi
fi

# ranks that disagree stop before training: each rank's options as parsed
# and a digest of every input file are compared on rank 0, which names the
# first option that differs and the ranks; a usage error met by one rank
# alone is printed by rank 0. Exit status 2 within seconds (the timeout
# catches a deadlock), one message, no abort, no policy written.
# disagree NAME PATTERN RANK0-ARGS -- RANK1-ARGS
disagree() {
    local name=$1 pat=$2 a0=() a1=() t0 took n
    shift 2
    while [ "$1" != -- ]; do a0+=("$1"); shift; done
    shift
    a1=("$@")
    rm -f "$tmp/d.json"
    cmd="mpirun -np 1 $mprog train ${a0[*]} : -np 1 $mprog train ${a1[*]}"
    t0=$(date +%s)
    timeout 20 mpirun "${mpirun_flags[@]}" -np 1 "$mprog" train "${a0[@]}" -o "$tmp/d.json" : \
        -np 1 "$mprog" train "${a1[@]}" -o "$tmp/d.json" > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
    took=$(($(date +%s) - t0))
    [ "$rc" -eq 124 ] && { fail "$name" "deadlock: no exit within 20 s"; return; }
    expect_rc "$name" 2 || return
    n=$(grep -c -- "$pat" "$tmp/err")
    if [ "$n" != 1 ]; then fail "$name" "the message ($pat) printed $n times"
    elif [ "$(grep -c '^placeto' "$tmp/err")" != "$(grep -c '^placeto' <<< "$(grep -A2 -- "$pat" "$tmp/err")")" ]
    then fail "$name" "other messages from the ranks"
    elif grep -qE "Process received signal|Signal: |backtrace|core dumped|MPI_ABORT" "$tmp/err"; then fail "$name" "an abort"
    elif [ -e "$tmp/d.json" ]; then fail "$name" "a policy was written"
    elif [ "$took" -gt 15 ]; then fail "$name" "took $took s"
    else pass; fi
}
disagree "ranks disagree: --episodes" "^placeto-mpi: train: ranks disagree on --episodes: rank 0 has 10, rank 1 has 20\$" \
    "$g" --episodes 10 -- "$g" --episodes 20
disagree "usage error on rank 1" "^placeto: train: rank 1 of 2: unknown option '--bogus'\$" \
    "$g" --episodes 2 -- "$g" --episodes 2 --bogus
disagree "usage error on rank 0" "^placeto: train: unknown option '--bogus'\$" \
    "$g" --episodes 2 --bogus -- "$g" --episodes 2
disagree "ranks disagree: --agent" "^placeto-mpi: train: ranks disagree on --agent: rank 0 has no --agent, rank 1 has rnn\$" \
    "$g" --episodes 2 -- "$g" --episodes 2 --agent rnn
disagree "ranks disagree: --threads" "^placeto-mpi: train: ranks disagree on --threads: rank 0 has 2, rank 1 has 1\$" \
    "$g" --episodes 2 --threads 2 -- "$g" --episodes 2 --threads 1
disagree "ranks disagree: --devices" "^placeto-mpi: train: ranks disagree on --devices: rank 0 has 2, rank 1 has 3\$" \
    "$g" --episodes 2 --devices 2 -- "$g" --episodes 2 --devices 3
disagree "ranks disagree: --lr" "^placeto-mpi: train: ranks disagree on --lr: rank 0 has 0.1, rank 1 has 0.2\$" \
    "$g" --episodes 2 --lr 0.1 -- "$g" --episodes 2 --lr 0.2
disagree "ranks disagree: --seed" "^placeto-mpi: train: ranks disagree on --seed: rank 0 has 2, rank 1 has 1\$" \
    "$g" --episodes 2 --seed 2 -- "$g" --episodes 2
disagree "ranks disagree: --lr under --preset" "^placeto-mpi: train: ranks disagree on --lr: rank 0 has 0.001, rank 1 has no --lr\$" \
    "$g" --episodes 2 --preset paper --lr 0.001 -- "$g" --episodes 2 --preset paper
disagree "ranks disagree: --preset on one rank" "^placeto-mpi: train: ranks disagree on --preset: rank 0 has paper, rank 1 has no --preset\$" \
    "$g" --episodes 2 --preset paper -- "$g" --episodes 2
# standard input reaches rank 0 alone: a usage error naming it, not rank 1's "-: empty file"
cmd="mpirun -np 2 $mprog train - --episodes 2 < $g"
timeout 20 mpirun "${mpirun_flags[@]}" -np 2 "$mprog" train - --episodes 2 -o "$tmp/d.json" > "$tmp/out" 2> "$tmp/err" < "$g"
rc=$?
if expect_rc "graph on standard input under 2 ranks" 2; then
    if [ "$(grep -c "^placeto: train: GRAPH -: standard input reaches rank 0 only" "$tmp/err")" != 1 ]; then
        fail "graph on standard input under 2 ranks" "no single message naming standard input"
    elif grep -q "empty file" "$tmp/err"; then fail "graph on standard input under 2 ranks" "a rank read an empty standard input"
    elif [ -e "$tmp/d.json" ]; then fail "graph on standard input under 2 ranks" "a policy was written"
    else pass; fi
fi
# options compared by value: the default spelled out, another spelling of a
# number; the job trains and writes what both ranks spelled alike write
timeout 60 mpirun "${mpirun_flags[@]}" -np 1 "$mprog" train "$g" --episodes 4 --seed 1 --lr 1e-3 -o "$tmp/v1.json" : \
    -np 1 "$mprog" train "$g" --episodes 4 --lr 0.001 -o "$tmp/v1.json" > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
if expect_rc "ranks agree by value: --seed 1 and the default, 1e-3 and 0.001" 0; then
    timeout 60 mpirun "${mpirun_flags[@]}" -np 2 "$mprog" train "$g" --episodes 4 -o "$tmp/v2.json" > "$tmp/out" 2> "$tmp/err" < /dev/null
    if cmp -s "$tmp/v1.json" "$tmp/v2.json"; then pass
    else fail "ranks agree by value: --seed 1 and the default, 1e-3 and 0.001" "the policy differs from the one both ranks spelled alike wrote"; fi
fi
disagree "ranks disagree: graph count" "^placeto-mpi: train: ranks disagree on the number of graphs: rank 0 has 1, rank 1 has 2\$" \
    "$g" --episodes 2 -- "$g" graphs/toy/chain.json --episodes 2
# the same path, other contents (each rank in its own directory, as on two hosts)
mkdir -p "$tmp/h0" "$tmp/h1"
cp graphs/clusters/k80x2.json "$tmp/h0/c.json"
cp graphs/clusters/nvlink4.json "$tmp/h1/c.json"
cmd="mpirun -np 1 -wdir $tmp/h0 $mprog train --cluster c.json : -np 1 -wdir $tmp/h1 $mprog train --cluster c.json"
timeout 20 mpirun "${mpirun_flags[@]}" -np 1 -wdir "$tmp/h0" "$(realpath "$mprog")" train "$PWD/$g" --episodes 2 --cluster c.json \
    -o "$tmp/d.json" : -np 1 -wdir "$tmp/h1" "$(realpath "$mprog")" train "$PWD/$g" --episodes 2 --cluster c.json -o "$tmp/d.json" \
    > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
if expect_rc "ranks disagree: --cluster contents" 2; then
    if [ "$(grep -c "^placeto-mpi: train: ranks disagree on the contents of --cluster: rank 0 has c.json (digest [0-9a-f]*), rank 1 has c.json (digest [0-9a-f]*) (every host needs the same files" "$tmp/err")" = 1 ] &&
       [ ! -e "$tmp/d.json" ]; then pass
    else fail "ranks disagree: --cluster contents" "no single message, or a policy written"; fi
fi
# the same for a resumed policy: other training at the same path
"$prog" train "$g" --episodes 2 --seed 1 -o "$tmp/h0/p.json" > /dev/null 2>&1 < /dev/null
"$prog" train "$g" --episodes 2 --seed 2 -o "$tmp/h1/p.json" > /dev/null 2>&1 < /dev/null
cmd="mpirun -np 1 -wdir $tmp/h0 $mprog train --resume p.json : -np 1 -wdir $tmp/h1 $mprog train --resume p.json"
timeout 20 mpirun "${mpirun_flags[@]}" -np 1 -wdir "$tmp/h0" "$(realpath "$mprog")" train "$PWD/$g" --episodes 2 \
    --resume p.json -o "$tmp/d.json" : -np 1 -wdir "$tmp/h1" "$(realpath "$mprog")" train "$PWD/$g" --episodes 2 \
    --resume p.json -o "$tmp/d.json" > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
if expect_rc "ranks disagree: --resume contents" 2; then
    if [ "$(grep -c "^placeto-mpi: train: ranks disagree on the contents of --resume: rank 0 has p.json (digest [0-9a-f]*), rank 1 has p.json (digest [0-9a-f]*) (every host needs the same files" "$tmp/err")" = 1 ] &&
       [ ! -e "$tmp/d.json" ]; then pass
    else fail "ranks disagree: --resume contents" "no single message, or a policy written"; fi
fi
# one rank runs another command: it would wait in MPI_Finalize, the others in train
cmd="mpirun -np 1 $mprog train $g : -np 1 $mprog info $g"
timeout 20 mpirun "${mpirun_flags[@]}" -np 1 "$mprog" train "$g" --episodes 2 -o "$tmp/d.json" : \
    -np 1 "$mprog" info "$g" > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
if [ "$rc" -eq 124 ]; then fail "ranks disagree: the command" "deadlock: no exit within 20 s"
elif expect_rc "ranks disagree: the command" 2; then
    # shellcheck disable=SC2016  # the backquotes are the message's
    if [ "$(grep -c '^placeto-mpi: ranks disagree on the command: rank 0 runs `train`, another rank does not' "$tmp/err")" = 1 ]
    then pass; else fail "ranks disagree: the command" "no single message"; fi
fi
# 3 ranks, every differing rank named
cmd="mpirun -np 2 $mprog train $g --episodes 3 : -np 1 $mprog train $g --episodes 4"
timeout 20 mpirun "${mpirun_flags[@]}" -np 2 "$mprog" train "$g" --episodes 3 -o "$tmp/d.json" : \
    -np 1 "$mprog" train "$g" --episodes 4 -o "$tmp/d.json" > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
if expect_rc "3 ranks disagree" 2; then
    if [ "$(grep -c "^placeto-mpi: train: ranks disagree on --episodes: rank 0 has 3, rank 2 has 4\$" "$tmp/err")" = 1 ]; then pass
    else fail "3 ranks disagree" "no single message naming rank 2"; fi
fi

# placeto-mpi runs train only; the plain program refuses to be several ranks
mrun 2 info "$g"
if expect_rc "placeto-mpi info" 2; then
    if [ "$(grep -c "runs \`train\` only" "$tmp/err")" = 1 ]; then pass; else fail "placeto-mpi info" "no single message"; fi
fi
cmd="mpirun -np 2 $prog train $g"
timeout "$mpi_limit" mpirun "${mpirun_flags[@]}" -np 2 "$prog" train "$g" -o "$tmp/x.json" > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
if expect_rc "plain under mpirun" 2; then
    if grep -q "run placeto-mpi" "$tmp/err"; then pass; else fail "plain under mpirun" "no message"; fi
fi

echo "mpi: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
