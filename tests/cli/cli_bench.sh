#!/usr/bin/env bash
# bench/ as one suite (bench/run, bench/README.md), without running an
# experiment:
#   - every script of bench/ (.py, .sh) is an experiment's script in
#     bench/run's table or one of its libraries; every .c/.h is a source of
#     build/placeto-bench or build/mpi-ping (named in the Makefile); nothing
#     else is there (no .pyc), and git tracks no .pyc anywhere;
#   - `bench/run --list` exits 0 and names every experiment with its result
#     files; an unknown name is a usage error (exit 2, "bench/run: ...");
#     `bench/run --help NAME` prints the script's description; `bench/run -n
#     learning` prints its steps' commands (the kernels pinned) and runs none;
#   - every experiment that writes result files writes them through
#     bench/lib.py; only bench/build_rev.sh checks another commit out;
#   - write_result stamps a tiny fake result (JSON rows, a markdown table,
#     and the bash path `lib.py write`) with the commit (`git describe
#     --always --dirty`), the command, the bench/run command, the machine and
#     the date, and read_result gives the result back;
#   - bench/build_rev.sh refuses a commit that does not exist (exit 1) and a
#     wrong command line (exit 2).
# Prints "bench: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

# fail() reports the last run; the checks below run bench/ itself
cmd="(bench/ check)" rc=0
: > "$tmp/out"; : > "$tmp/err"

# brun ARGS...: runs bench/run; sets rc, cmd; stdout in $tmp/out, stderr in $tmp/err
brun() {
    cmd="bench/run $*"
    timeout 60 "$py" bench/run "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
    rc=$?
}

# ------------------------------------------------------------ the driver
if [ ! -f bench/run ]; then
    fail "driver" "no bench/run"
else
    brun --list
    if [ "$rc" -eq 0 ] && grep -q "^speed " "$tmp/out"; then pass; else fail "--list" "no listing with speed"; fi
    cp "$tmp/out" "$tmp/list"
    brun nosuch-experiment
    if [ "$rc" -eq 2 ] && grep -q "^bench/run: no experiment nosuch-experiment" "$tmp/err" && [ ! -s "$tmp/out" ]; then
        pass; else fail "unknown experiment" "expected exit 2 and 'bench/run: no experiment ...'"; fi
    brun -n learning ./placeto /tmp/fresh-45
    if [ "$rc" -eq 0 ] && grep -q "^PLACETO_KERNELS=plain [^ ]*python3 bench/oneshot.py ./placeto --fresh /tmp/fresh-45$" "$tmp/out" &&
        grep -q "^PLACETO_KERNELS=plain [^ ]*python3 bench/headline.py$" "$tmp/out" && [ ! -e /tmp/fresh-45 ]; then
        pass; else fail "-n learning" "expected its steps' commands, kernels pinned, and nothing run"; fi
    brun --help table1
    if [ "$rc" -eq 0 ] && grep -q "Table 1" "$tmp/out"; then pass; else fail "--help NAME" "no description"; fi
fi

# -------------------------------------- the files of bench/ and the table
# the files of the work tree, tracked or not (a script not yet committed
# counts too); the bytecode Python leaves when a script runs aside
files=$(find bench -path bench/results -prune -o -name __pycache__ -prune -o -type f -print)
git_pyc=$(git ls-files '*.pyc' 2> /dev/null)
printf '%s\n' "$files" > "$tmp/files"
LIST=$tmp/list GIT_PYC=$git_pyc "$py" - "$tmp/files" > "$tmp/checks" 2> "$tmp/pyerr" <<'PY'
import importlib.machinery, importlib.util, os, re, sys

def check(name, ok, why):
    print("ok " + name if ok else "FAIL %s: %s" % (name, why))

check("no .pyc tracked", not os.environ["GIT_PYC"], "git tracks %s" % os.environ["GIT_PYC"].replace("\n", " "))
check("__pycache__ ignored", "__pycache__/" in open(".gitignore").read().split("\n"), ".gitignore lacks __pycache__/")
if not os.path.exists("bench/run"):
    check("experiment table", False, "no bench/run")
    sys.exit(0)
loader = importlib.machinery.SourceFileLoader("bench_run", "bench/run")
spec = importlib.util.spec_from_loader("bench_run", loader)
run = importlib.util.module_from_spec(spec)
sys.dont_write_bytecode = True
loader.exec_module(run)
scripts = {v[0] for v in run.EXPERIMENTS.values() if isinstance(v[0], str)}
makefile = open("Makefile").read()
for f in sorted(l for l in open(sys.argv[1]).read().split("\n") if l):
    if f.startswith("bench/results/") or f in ("bench/README.md", "bench/run"):
        continue
    if f.endswith((".py", ".sh")):
        check("listed " + f, f in scripts or f in run.LIBRARIES,
              "%s is neither an experiment's script in bench/run nor in its LIBRARIES" % f)
    elif f.endswith(".c"):
        check("built " + f, re.search(r"\b%s\b" % re.escape(f[:-2]), makefile) is not None,
              "%s is not a source the Makefile builds" % f)
    elif f.endswith(".h"):
        check("built " + f, f[:-2] + ".c" in open(sys.argv[1]).read(), "%s has no .c beside it" % f)
    else:
        check("known " + f, False, "%s is no script, library or C source of the suite" % f)
listing = open(os.environ["LIST"]).read()
for name, (what, desc, res, env) in run.EXPERIMENTS.items():
    check("listed experiment " + name, re.search(r"^%s +\S" % re.escape(name), listing, re.M) is not None
          and res in listing, "--list lacks %s or its results %s" % (name, res))
    for step in ([] if isinstance(what, str) else [s for s, _ in what]):
        check("step " + step, step in run.EXPERIMENTS or step in ("fresh-graphs", "lsearch-check"),
              "%s's step %s is no experiment" % (name, step))
    if isinstance(what, str) and what.startswith("bench/") and not res.startswith("stdout"):
        text = open(what).read()
        check("through lib " + what, "import lib" in text, "%s writes %s but not through bench/lib.py" % (what, res))
for f in sorted(scripts | set(run.LIBRARIES)):
    if f.startswith("bench/") and os.path.isfile(f) and f != "bench/build_rev.sh":
        text = open(f).read()
        check("builds no commit " + f, "worktree add" not in text and "git archive" not in text,
              "%s checks a commit out itself, not through bench/build_rev.sh" % f)
PY
py_checks "bench/ checks" $?

# -------------------------------------------------- a result's meta line
want=$(git describe --always --dirty 2> /dev/null || echo unknown)
cmd="bench/lib.py write_result on a fake result"
PLACETO_BENCH_RUN="bench/run fake --x 1" WANT=$want OUT=$tmp "$py" - > "$tmp/checks" 2> "$tmp/pyerr" <<'PY'
import json, os, subprocess, sys
sys.path.insert(0, "bench")
sys.dont_write_bytecode = True

def check(name, ok, why):
    print("ok " + name if ok else "FAIL %s: %s" % (name, why))

try:
    import lib
except ImportError as e:
    check("bench/lib.py", False, "no write_result: %s" % e)
    sys.exit(0)
out = os.environ["OUT"]

def meta_ok(name, m, command):
    check(name + " commit", m.get("commit") == os.environ["WANT"], "commit %r, git describe says %r" % (m.get("commit"), os.environ["WANT"]))
    check(name + " command", m.get("command") == command, "command %r, expected %r" % (m.get("command"), command))
    check(name + " run", m.get("run") == "bench/run fake --x 1", "run %r" % m.get("run"))
    mach = m.get("machine", {})
    check(name + " machine", mach.get("arch") == os.uname().machine and mach.get("cpu") and
          mach.get("cores") == os.cpu_count() and isinstance(mach.get("env"), dict), "machine %r" % mach)
    check(name + " date", len(m.get("date", "")) == 20 and m["date"].endswith("Z"), "date %r" % m.get("date"))

rows = [{"graph": "toy", "runtime_us": 1.5}]
lib.write_result(os.path.join(out, "fake.json"), rows, ["python3", "bench/fake.py", "--x", "1"])
doc = json.load(open(os.path.join(out, "fake.json")))
meta_ok("json", doc.get("meta", {}), "python3 bench/fake.py --x 1")
check("json rows", doc.get("rows") == rows and lib.read_result(os.path.join(out, "fake.json")) == rows, "rows %r" % doc)
lib.write_result(os.path.join(out, "fake.md"), "| a |\n|---|\n| 1 |\n", ["python3", "bench/fake.py"])
text = open(os.path.join(out, "fake.md")).read()
first, _, rest = text.partition("\n")
check("md first line", first.startswith("<!-- meta: ") and first.endswith(" -->"), "first line %r" % first)
if first.startswith("<!-- meta: ") and first.endswith(" -->"):
    meta_ok("md", json.loads(first[len("<!-- meta: "):-len(" -->")]), "python3 bench/fake.py")
check("md text", rest == "| a |\n|---|\n| 1 |\n" == lib.read_result(os.path.join(out, "fake.md")), "text %r" % text)
env = dict(os.environ, PLACETO_BENCH_CMD="bash bench/fake.sh 7")
r = subprocess.run([sys.executable, "bench/lib.py", "write", os.path.join(out, "sh.json")], input='{"a": 1}',
                   text=True, env=env, capture_output=True)
doc = json.load(open(os.path.join(out, "sh.json"))) if r.returncode == 0 else {}
check("bash write", r.returncode == 0 and doc.get("a") == 1, "lib.py write exited %d: %s" % (r.returncode, r.stderr))
if doc:
    meta_ok("bash", doc["meta"], "bash bench/fake.sh 7")
PY
py_checks "result meta checks" $?

# ----------------------------------------------- building another commit
if [ -f bench/build_rev.sh ]; then
    cmd="bash bench/build_rev.sh no-such-rev-45"
    bash bench/build_rev.sh no-such-rev-45 > "$tmp/out" 2> "$tmp/err"; rc=$?
    if [ "$rc" -eq 1 ] && grep -q "^build_rev.sh: no-such-rev-45: no such commit" "$tmp/err" && [ ! -s "$tmp/out" ]; then
        pass; else fail "build_rev bad commit" "expected exit 1 naming the commit"; fi
    cmd="bash bench/build_rev.sh"
    bash bench/build_rev.sh > "$tmp/out" 2> "$tmp/err"; rc=$?
    if [ "$rc" -eq 2 ] && grep -q "^usage: " "$tmp/err"; then pass; else fail "build_rev usage" "expected exit 2 and a usage line"; fi
else
    fail "build_rev" "no bench/build_rev.sh"
fi

echo "bench: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
