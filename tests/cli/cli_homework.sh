#!/usr/bin/env bash
# The homework page (docs/homework.md), run as a student would: its model
# (the ```python block, saved under the name the page gives) and then every
# command of its ```sh blocks, in order, in a scratch directory. placeto is
# the built program, placeto-import-torch the source tree's importer (what
# the installed command runs); an explore without --headless gets
# --headless --size 120x36. Each command exits 0, and its output has the
# shape the page describes:
#   - the import writes the graph and says so (ops, critical path);
#   - compare: the title line, the column header, the methods the page
#     names, rows fastest first, the lower bound last and below every row;
#   - train: its closing lines (best, the policy's own placement against
#     its untrained control, the best heuristic and the best seen; the
#     episodes and the file written), the policy's own placement never
#     slower than the best heuristic;
#   - compare --policy: the placeto-refine row (the closing line's number,
#     never slower than a heuristic's row) and placeto-trained; --untrained
#     adds placeto-refine-untrained;
#   - explore: the status line with the policy, the panes, the why panel
#     after w;
#   - the race: finished, anneal, ils and each learned placer beside its
#     untrained control, with their final runtimes.
# Skipped (0 passed, 0 failed) without python3-torch. Prints "homework: N
# passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

cmd="(homework page)" rc=0
: > "$tmp/out"; : > "$tmp/err"
if ! "$py" -c 'import torch, functorch.compile' > /dev/null 2>&1; then
    echo "homework: python3-torch is not installed: the homework page's commands skipped"
    echo "homework: 0 passed, 0 failed"
    exit 0
fi
absprog=$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog")
mkdir -p "$tmp/hw"
# the import runs PyTorch (seconds idle, half a minute on a busy machine)
import_limit=300
case "$wrap" in *valgrind*) run_limit=600 ;; esac

PLACETO_PROG=$absprog PLACETO_WRAP=$wrap RUN_LIMIT=$run_limit IMPORT_LIMIT=$import_limit \
    HW_DIR=$tmp/hw PY=$py REPO=$PWD "$py" - docs/homework.md > "$tmp/checks" 2> "$tmp/pyerr" <<'PY'
import os, re, shlex, subprocess, sys

prog, py, repo = os.environ["PLACETO_PROG"], os.environ["PY"], os.environ["REPO"]
wrap = shlex.split(os.environ.get("PLACETO_WRAP", ""))
limit, import_limit = int(os.environ["RUN_LIMIT"]), int(os.environ["IMPORT_LIMIT"])
hw = os.environ["HW_DIR"]
page = open(sys.argv[1], encoding="utf-8").read()

def ok(name):
    print("ok " + name)

def bad(name, why):
    print("FAIL %s: %s" % (name, str(why).replace("\n", "\\n")[:700]))

def check(name, cond, why):
    ok(name) if cond else bad(name, why)

# ---- the page: its model and its commands
blocks = re.findall(r"^```(\w*)\n(.*?)^```", page, re.M | re.S)
models = [b for lang, b in blocks if lang == "python"]
m = re.search(r"Save this as `([\w.-]+\.py)`", page)
if len(models) != 1 or not m:
    bad("the page's model", "%d python blocks, file name %s" % (len(models), m and m.group(1)))
    sys.exit(0)
open(os.path.join(hw, m.group(1)), "w", encoding="utf-8").write(models[0])
ok("the page's model saved as " + m.group(1))
lines = [l.strip() for lang, b in blocks if lang == "sh" for l in b.split("\n")]
lines = [l for l in lines if l and not l.startswith("#")]
check("the page has its commands", len(lines) >= 8, "only %d command lines" % len(lines))

MS = r"([0-9]+\.[0-9]+) ms"
runs = []  # (tokens, stdout, stderr)
for line in lines:
    name = "homework: " + line[:90]
    toks = shlex.split(line, comments=True)
    if toks[0] == "placeto":
        argv = wrap + [prog] + toks[1:]
        if toks[1:2] == ["explore"] and "--headless" not in toks:
            argv += ["--headless", "--size", "120x36"]
        tmo = limit if toks[1:2] != ["train"] else max(limit, 120)
    elif toks[0] == "placeto-import-torch":
        argv = [py, os.path.join(repo, "graphs/import/torch_graph.py")] + toks[1:]
        tmo = import_limit
    else:
        bad(name, "a command of neither placeto nor placeto-import-torch")
        continue
    try:
        p = subprocess.run(argv, cwd=hw, capture_output=True, text=True, timeout=tmo,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        bad(name, "timed out after %d s" % tmo)
        continue
    crash = re.search(r"Segmentation|ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:"
                      r"|placeto: fatal:", p.stderr)
    if p.returncode != 0 or crash:
        bad(name, "exit status %d; stderr: %s" % (p.returncode, p.stderr[-500:]))
        continue
    ok(name)
    runs.append((toks, p.stdout, p.stderr))

def find(pred):
    return [(t, o, e) for t, o, e in runs if pred(t)]

def table(out):
    """compare's rows: {method: runtime in ms}, in order, and the header."""
    rows, header = [], None
    for l in out.split("\n"):
        if l.startswith("method "):
            header = l
            continue
        r = re.match(r"^(\S+(?: bound)?)\s+" + MS + r"\s", l)
        if r:
            rows.append((r.group(1), float(r.group(2))))
    return rows, header

HEURISTICS = ("heft", "m-etf", "m-topo", "single", "expert", "metis", "scotch", "random", "round-robin")

# ---- the import
for t, o, e in find(lambda t: t[0] == "placeto-import-torch"):
    out = t[t.index("-o") + 1]
    check("import: writes " + out, os.path.getsize(os.path.join(hw, out)) > 0, "no " + out)
    check("import: says what it wrote",
          re.search(r"wrote %s in [0-9.]+ s: [0-9]+ ops, [0-9]+ edges, .*critical path .*%% of the total cost"
                    % re.escape(out), e), e[-400:])
for t, o, e in find(lambda t: t[:2] == ["placeto", "info"]):
    check("info: ops, groups, critical path, lower bound",
          all(re.search(p, o, re.M) for p in (r"^ops\s+[0-9]+", r"^groups\s+[0-9]+", r"^critical path\s+" + MS,
                                               r"^lower bound\s+1: ")), o[:400])

# ---- compare, without and with the policy
best_heuristic = None
closing = find(lambda t: t[:2] == ["placeto", "train"])
own = None
if not closing:
    bad("train", "the page trains no policy")
for t, o, e in closing:
    text = o + e
    g = t[2].rsplit("/", 1)[-1][:-5]
    pol = t[t.index("-o") + 1]
    eps = t[t.index("--episodes") + 1]
    b = re.search(r"^%s: best %s after [0-9]+ placements$" % (g, MS), text, re.M)
    c = re.search(r"^%s: the policy's own placement %s \(placeto-refine, the weights of episode [0-9]+\), "
                  r"its untrained control %s, best heuristic %s \(([a-z-]+)\), best seen in training %s$"
                  % ((g,) + (MS,) * 4), text, re.M)
    w = re.search(r"^placeto: %s episodes in [0-9.]+ s; wrote %s$" % (eps, re.escape(pol)), text, re.M)
    check("train: the closing lines", b and c and w, text[-600:])
    check("train: writes " + pol, os.path.exists(os.path.join(hw, pol)), "no " + pol)
    if c:
        own, control, heur, heur_name, seen = (float(c.group(1)), float(c.group(2)), float(c.group(3)),
                                               c.group(4), float(c.group(5)))
        best_heuristic = (heur_name, heur)
        check("train: the policy's own placement is never slower than the best heuristic", own <= heur,
              "%.3f ms against %s's %.3f ms" % (own, heur_name, heur))
        check("train: the best heuristic is a heuristic", heur_name in HEURISTICS, heur_name)

for t, o, e in find(lambda t: t[:2] == ["placeto", "compare"]):
    name = "compare" + ("" if "--policy" not in t else " --policy") + (" --untrained" if "--untrained" in t else "")
    rows, header = table(o)
    rt = dict(rows)
    check(name + ": the title", re.match(r"^two_branch on 2x K80 \(Placeto simulator\), [0-9]+ groups$", o.split("\n")[0]),
          o.split("\n")[0])
    check(name + ": the columns", header and re.match(
        r"^method\s+runtime\s+speed-up\s+vs bound\s+peak memory\s+OOM\s+time$", header), header)
    missing = [mth for mth in ("anneal", "ils", "heft", "m-etf", "single", "metis", "scotch", "random",
                               "round-robin", "lower bound") if mth not in rt]
    check(name + ": the methods the page names", not missing, "no rows " + ", ".join(missing))
    if not rows or missing:
        continue
    check(name + ": the lower bound last, below every row", rows[-1][0] == "lower bound" and
          all(r >= rows[-1][1] for _, r in rows), rows)
    runtimes = [r for _, r in rows[:-1]]
    check(name + ": fastest first", runtimes == sorted(runtimes), rows)
    if best_heuristic and best_heuristic[0] in rt:
        check(name + ": the best heuristic as train named it", abs(rt[best_heuristic[0]] - best_heuristic[1]) < 5e-4
              and best_heuristic[1] == min(rt[h] for h in HEURISTICS if h in rt), (best_heuristic, rows))
    if "--policy" in t:
        check(name + ": placeto-refine and placeto-trained", "placeto-refine" in rt and "placeto-trained" in rt, rows)
        if "placeto-refine" in rt:
            check(name + ": placeto-refine never slower than a heuristic",
                  all(rt["placeto-refine"] <= rt[h] for h in HEURISTICS if h in rt), rows)
            if own is not None:
                check(name + ": placeto-refine is train's own placement", abs(rt["placeto-refine"] - own) < 5e-4,
                      "%s against %.3f" % (rt["placeto-refine"], own))
        if "--untrained" in t:
            check(name + ": the untrained control's row", "placeto-refine-untrained" in rt, rows)
        check(name + ": placeto-trained's time says training",
              re.search(r"^placeto-trained\s.*\straining$", o, re.M), o[:800])

# ---- explore and the race
for t, o, e in find(lambda t: t[:2] == ["placeto", "explore"]):
    if "--race" in t:
        legend = dict(re.findall(r"^\|\s+\S (\S+)(?: \([\w]+\))?\s+final " + MS, o, re.M))
        check("race: finished", re.search(r"Race on two_branch, 2 devices: .*\(finished\)", o) and
              "race finished" in o[-400:], o[:300] + o[-300:])  # the message line
        check("race: anneal and ils", "anneal" in legend and "ils" in legend, legend)
        learned = [k for k in legend if k not in ("anneal", "ils") and not k.endswith("-untrained")]
        check("race: each learned placer beside its untrained control",
              learned and all(k + "-untrained" in legend for k in learned), legend)
        continue
    pol = t[t.index("--policy") + 1] if "--policy" in t else None
    first = o.split("\n")[0]
    check("explore: the status line", "two_branch on 2x K80 (Placeto simulator)" in first and
          (pol is None or "policy " + pol in first) and re.search(r"episode 1 step [0-9]+/[0-9]+", first), first)
    why = "--keys" in t and "w" in t[t.index("--keys") + 1].split()
    # the why panel covers the bottom of the screen: the timeline
    check("explore: the panes", all(p in o for p in ("Graph", "Policy", "Devices", "History")) and
          (why or "Timeline" in o), o[:600])
    if why:
        check("explore: w opens why this device", "Why this device" in o and "if here:" in o, o[-800:])
PY
py_checks "homework checks" $?

echo "homework: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
