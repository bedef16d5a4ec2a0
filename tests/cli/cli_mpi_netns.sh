#!/usr/bin/env bash
# Two hosts on one machine: two network namespaces joined by a veth pair
# (10.77.R.1 and 10.77.R.2), mpirun started in the first, the rank of the
# second started through mpirun's launch agent (a script that runs `ip
# netns exec NS` where a cluster would run ssh), Open MPI's messages and
# its out-of-band channel over TCP on the veth alone. `placeto-mpi train`
# on the 2 "hosts" writes the bytes of the same run on one host; ranks whose
# files differ between the hosts stop before training. Skipped, with the
# reason, where the kernel or the user may not make network namespaces (not
# root, no `ip`, `ip netns add` refused). Prints "netns: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

mprog=$(realpath "${prog}-mpi" 2> /dev/null)
limit=90
skip() {
    echo "netns: skipped: $1"
    echo "netns: $passed passed, $failed failed"
    exit 0
}
[ "$(id -u)" -eq 0 ] || skip "not root: network namespaces need CAP_SYS_ADMIN and CAP_NET_ADMIN"
command -v ip > /dev/null || skip "no ip command (iproute2)"
if ! command -v mpirun > /dev/null || [ -z "$mprog" ] || [ ! -x "$mprog" ]; then
    cmd="mpirun / ${prog}-mpi"; rc=1; : > "$tmp/out"; : > "$tmp/err"
    fail "mpi available" "mpirun or ${prog}-mpi missing (make deps; make mpi)"
    echo "netns: $passed passed, $failed failed"
    exit 1
fi

id=$$
ns0=placeto_a$id ns1=placeto_b$id
if0=plv0_$id if1=plv1_$id
sub=$((id % 250 + 1))
ip0=10.77.$sub.1 ip1=10.77.$sub.2
cleanup() {
    ip netns del "$ns0" 2> /dev/null
    ip netns del "$ns1" 2> /dev/null
}
trap 'cleanup; rm -rf "$tmp"' EXIT
if ! ip netns add "$ns0" 2> "$tmp/err"; then
    skip "ip netns add refused: $(flat "$tmp/err")"
fi
ip netns add "$ns1" 2> "$tmp/err" || skip "ip netns add refused: $(flat "$tmp/err")"
if ! { ip link add "$if0" type veth peer name "$if1" &&
       ip link set "$if0" netns "$ns0" && ip link set "$if1" netns "$ns1" &&
       ip -n "$ns0" addr add "$ip0/24" dev "$if0" && ip -n "$ns1" addr add "$ip1/24" dev "$if1" &&
       ip -n "$ns0" link set "$if0" up && ip -n "$ns1" link set "$if1" up &&
       ip -n "$ns0" link set lo up && ip -n "$ns1" link set lo up; } 2> "$tmp/err"; then
    ip link del "$if0" 2> /dev/null
    skip "a veth pair between network namespaces refused: $(flat "$tmp/err")"
fi

# the launch agent: called as ssh would be (AGENT [OPTIONS] HOST COMMAND...),
# it runs the command with a shell in that host's namespace
agent=$tmp/netns-agent
cat > "$agent" << EOF
#!/bin/sh
while [ \$# -gt 0 ]; do
    case "\$1" in
    $ip0) ns=$ns0; shift; break ;;
    $ip1) ns=$ns1; shift; break ;;
    *) shift ;;
    esac
done
[ -n "\${ns:-}" ] || { echo "netns-agent: no known host in the arguments" >&2; exit 255; }
exec ip netns exec "\$ns" /bin/sh -c "\$*"
EOF
chmod +x "$agent"
printf '%s slots=1\n%s slots=1\n' "$ip0" "$ip1" > "$tmp/hosts"

export OMPI_MCA_btl_base_warn_component_unused=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # as in cli_mpi.sh: Open MPI's plug-ins
# shellcheck disable=SC2054  # tcp,self is one value
net=(--hostfile "$tmp/hosts" --map-by node --mca plm_rsh_agent "$agent" --mca pml ob1 --mca btl tcp,self
     --mca btl_tcp_if_include "10.77.$sub.0/24" --mca oob_tcp_if_include "10.77.$sub.0/24")

g=$PWD/graphs/toy/crown.json
# the rank count, seed and options of both runs
opts=(--episodes 6 --seed 12 --checkpoint-every 4)

# one host
cmd="mpirun -np 2 placeto-mpi train $g ${opts[*]}"
timeout "$limit" mpirun --allow-run-as-root --oversubscribe -np 2 "$mprog" train "$g" "${opts[@]}" \
    -o "$tmp/one.json" > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
expect_rc "one host, 2 ranks" 0 && pass

# two hosts: mpirun in the first namespace
cmd="ip netns exec $ns0 mpirun ${net[*]} -np 2 placeto-mpi train $g ${opts[*]}"
timeout "$limit" ip netns exec "$ns0" mpirun "${net[@]}" -np 2 "$mprog" train "$g" "${opts[@]}" \
    -o "$tmp/two.json" > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
if [ "$rc" -eq 124 ]; then fail "two hosts" "no end within $limit s"
elif expect_rc "two hosts, 2 ranks" 0; then
    if [ "$(grep -c '^episode 6/6' "$tmp/err")" = 1 ]; then pass; else fail "two hosts" "no single final progress line"; fi
    if cmp -s "$tmp/one.json" "$tmp/two.json"; then pass; else fail "two hosts = one host" "the policy files differ"; fi
fi

# the rank on the second host really ran there: its network namespace is
# the one the agent chose (its /proc/self/ns/net differs from mpirun's)
cmd="ip netns exec $ns0 mpirun ${net[*]} -np 2 sh -c 'readlink /proc/self/ns/net'"
# shellcheck disable=SC2016  # expanded by the ranks' shell
timeout "$limit" ip netns exec "$ns0" mpirun "${net[@]}" -np 2 sh -c 'echo "$OMPI_COMM_WORLD_RANK $(readlink /proc/self/ns/net)"' \
    > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
if expect_rc "two namespaces" 0; then
    want0=$(ip netns exec "$ns0" readlink /proc/self/ns/net) want1=$(ip netns exec "$ns1" readlink /proc/self/ns/net)
    if grep -qxF "0 $want0" "$tmp/out" && grep -qxF "1 $want1" "$tmp/out" && [ "$want0" != "$want1" ]; then pass
    else fail "two namespaces" "rank 0 not in $ns0 ($want0) or rank 1 not in $ns1 ($want1)"; fi
fi

# the ranks disagree across the hosts: each host's own copy of a cluster
# file at the same path (each rank in its own directory) differs
mkdir -p "$tmp/h0" "$tmp/h1"
cp graphs/clusters/k80x2.json "$tmp/h0/c.json"
cp graphs/clusters/nvlink4.json "$tmp/h1/c.json"
cmd="ip netns exec $ns0 mpirun ... -np 1 -host $ip0 -wdir h0 ... : -np 1 -host $ip1 -wdir h1 ... --cluster c.json"
timeout "$limit" ip netns exec "$ns0" mpirun "${net[@]}" -np 1 -host "$ip0" -wdir "$tmp/h0" "$mprog" train "$g" \
    --episodes 2 --cluster c.json -o "$tmp/d.json" : -np 1 -host "$ip1" -wdir "$tmp/h1" "$mprog" train "$g" \
    --episodes 2 --cluster c.json -o "$tmp/d.json" > "$tmp/out" 2> "$tmp/err" < /dev/null
rc=$?
if [ "$rc" -eq 124 ]; then fail "hosts disagree" "no end within $limit s"
elif expect_rc "hosts disagree" 2; then
    if [ "$(grep -c '^placeto-mpi: train: ranks disagree on the contents of --cluster: rank 0 has c.json' "$tmp/err")" = 1 ] &&
       [ ! -e "$tmp/d.json" ]; then pass
    else fail "hosts disagree" "no single message, or a policy written"; fi
fi

echo "netns: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
