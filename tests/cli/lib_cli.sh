# Shared by the command-line test scripts, sourced from the repository root.
# Sets the program and its wrapper (from PLACETO_PROG and PLACETO_WRAP, see
# tests/run.sh), Debian's python3, a temporary directory removed on exit and
# the pass/fail counters.
prog=${PLACETO_PROG:-./placeto}
wrap=${PLACETO_WRAP:-}
# seconds a run may take: 20, and 300 under valgrind (some 20 s runs there
# train on inception_v3, or walk the whole tour, which loads four policies
# and places graphs with each)
run_limit=20
case "$wrap" in *valgrind*) run_limit=300 ;; esac
py=/usr/bin/python3
[ -x "$py" ] || py=python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

# one line: newlines shown as \n, cut to 400 characters
flat() { head -c 400 "$1" 2> /dev/null | tr -d '\r' | sed -e ':a' -e 'N' -e '$!ba' -e 's/\n/\\n/g'; }

# The crash checks every run must pass: no crash, no sanitizer or valgrind
# report. Prints the reason and returns 1 when something is wrong.
crash_reason() {
    if [ "$rc" -eq 99 ]; then echo "valgrind reported an error (exit 99)"; return 1; fi
    if [ "$rc" -eq 124 ]; then echo "timed out after $run_limit s"; return 1; fi
    if [ "$rc" -ge 128 ]; then echo "killed by signal $((rc - 128))"; return 1; fi
    if grep -qE 'Segmentation|ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|placeto: fatal:' "$tmp/err"; then
        echo "crash or sanitizer report on stderr"; return 1
    fi
    return 0
}

# run ARGS...: runs the program; sets rc, cmd; stdout in $tmp/out, stderr in $tmp/err
run() {
    cmd="$prog $*"
    # shellcheck disable=SC2086  # PLACETO_WRAP is a command line to split
    timeout "$run_limit" $wrap "$prog" "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
}

# wait_catching PID SIG: until process PID catches signal number SIG (bit SIG
# - 1 of its SigCgt mask; a background job of a script starts with SIGINT
# ignored), 60 s at most
wait_catching() {
    local cgt
    for _ in $(seq 600); do
        cgt=$(awk '/^SigCgt/ {print $2}' "/proc/$1/status" 2> /dev/null)
        [ -n "$cgt" ] && (( (16#$cgt >> ($2 - 1)) & 1 )) && return 0
        sleep 0.1
    done
    return 1
}

# killer J ARGS...: runs ARGS (the program, or mpirun and placeto-mpi) and
# kills it with SIGKILL right after the J-th change to the files beside its
# --resume file, else its -o file (a temporary created, a file renamed: the
# steps of a save), polled without pause; under mpirun the victim is rank
# 0, the one that writes (mpirun then ends the others). Prints the names
# that changed last.
killer() {
    "$py" - "$@" << 'PY'
import os, signal, subprocess, sys, time
j, argv = int(sys.argv[1]), sys.argv[2:]
d = os.path.dirname(argv[argv.index("--resume" if "--resume" in argv else "-o") + 1])
def snap():
    out = {}
    for e in os.scandir(d):
        try:
            out[e.name] = e.inode()
        except OSError:
            pass
    return out
def rank0():  # the process of rank 0 among mpirun's descendants
    parent = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            parent[int(pid)] = int(open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            pass
    for pid in parent:
        up = pid
        while up in parent and up != p.pid and up > 1:
            up = parent[up]
        try:
            if up == p.pid and pid != p.pid and \
                    b"OMPI_COMM_WORLD_RANK=0" in open("/proc/%d/environ" % pid, "rb").read().split(b"\0"):
                return pid
        except OSError:
            pass
    return None
p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
mpi = os.path.basename(argv[0]) == "mpirun"
victim = None if mpi else p.pid
last, seen, end, what = snap(), 0, time.time() + 60, ""
while p.poll() is None and time.time() < end:
    if victim is None:
        victim = rank0()  # found once, before its first save
    now = snap()
    if now != last:
        seen += 1
        what = " ".join(sorted(n for n in set(now) | set(last) if now.get(n) != last.get(n)))
        last = now
        if seen >= j:
            break
if victim and p.poll() is None:
    os.kill(victim, signal.SIGKILL)
try:
    p.wait(timeout=30)
except subprocess.TimeoutExpired:
    p.kill()
    p.wait()
print("after change %d: %s" % (seen, what))
PY
}

# golden_file NAME GOLDEN OUT WHAT: OUT equals the golden file GOLDEN
# (PLACETO_UPDATE_GOLDEN=1 writes it); WHAT names OUT in the failure
golden_file() {
    if [ "${PLACETO_UPDATE_GOLDEN:-}" = 1 ]; then
        cp "$3" "$2" && echo "wrote $2" && pass
    elif [ ! -f "$2" ]; then
        fail "golden $1" "no $2 (PLACETO_UPDATE_GOLDEN=1 writes it)"
    elif cmp -s "$2" "$3"; then
        pass
    else
        fail "golden $1" "$4 differs from $2: $(diff "$2" "$3" | head -c 600)"
    fi
}

pass() { passed=$((passed + 1)); }
fail() { # name reason
    echo "FAIL $1: $2; command: $cmd; rc=$rc; stdout: $(flat "$tmp/out"); stderr: $(flat "$tmp/err")"
    failed=$((failed + 1))
}

# py_checks LABEL RC: counts the "ok NAME" and "FAIL ..." lines a Python
# checker wrote to $tmp/checks; RC, its exit status, not 0 fails LABEL
# with its stderr ($tmp/pyerr)
py_checks() {
    local label=$1 pyrc=$2 line
    while IFS= read -r line; do
        case $line in
            ok\ *) pass ;;
            FAIL\ *) echo "$line"; failed=$((failed + 1)) ;;
        esac
    done < "$tmp/checks"
    if [ "$pyrc" -ne 0 ]; then
        cat "$tmp/pyerr" > "$tmp/err"
        fail "$label" "the checker exited $pyrc"
    fi
}

# expect_rc NAME WANT: checks the last run's exit status (and sanity)
expect_rc() {
    local why
    if ! why=$(crash_reason); then fail "$1" "$why"; return 1; fi
    if [ "$rc" -ne "$2" ]; then fail "$1" "exit status $rc, expected $2"; return 1; fi
    return 0
}

# pycheck NAME SCRIPT ARGS...: runs a Python check; its stderr is the reason
pycheck() {
    local name=$1 script=$2
    shift 2
    if "$py" -c "$script" "$@" > "$tmp/py" 2>&1; then
        pass
    else
        fail "$name" "$(flat "$tmp/py")"
    fi
}

# usage_error NAME ARGS...: exit status 2, a message on stderr starting "placeto: "
usage_error() {
    local name=$1
    shift
    run "$@"
    expect_rc "$name" 2 || return
    if [ "$(head -c 9 "$tmp/err")" != "placeto: " ]; then fail "$name" "stderr does not start with 'placeto: '"; return; fi
    if [ -s "$tmp/out" ]; then fail "$name" "a usage error printed to stdout"; return; fi
    pass
}
