#!/usr/bin/env bash
# The counts and lists the documentation states, against the built program
# and the tree (each list taken from the program, none written here, so a
# seventh agent or a twelfth method is caught):
#   - the agents: the registry's names (`train --help`'s --agent row) are all
#     in README.md's train line, cli.md's --agent row, formats.md's "agent"
#     paragraph (with the loader's own message for a wrong name, and its
#     "all N"), a training.md heading `--agent NAME` each and architecture.md's
#     "What this release has" (`train --agent NAME` each);
#   - the bad-file corpus: the count docs/testing.md states is the number of
#     inputs cli_bad.sh runs (tests/data/bad/* but *.expect and *.args);
#   - the methods: every "N methods" (and cli.md's "default: all N") is the
#     count of `placeto --complete methods`; "N heuristics" and "N local
#     searches" those of compare --help's methods, a search being one that
#     spends --budget;
#   - the papers: every "NAME (AUTHOR et al. ... YEAR)" or "NAME of AUTHOR et
#     al." in README.md and docs/*.md, NAME a learned placer whose
#     `train --agent A --help` names its paper, gives that help's author and
#     year;
#   - the tour: its stage count (the explorer's "Tour 1/N") is demo --help's
#     and the README's, every "race ... stage K" of demo --help and the
#     documentation is the stage titled the race, and a stage titled after
#     a learned placer cites its paper as the placer's help does;
#   - the tree's lists: the commands of `placeto --help` are cli.md's table
#     and the README's list; testing.md names every tests/cli/cli_*.sh, the
#     count of tests/fuzz/fuzz_*.c, and the Makefile's CHECK_SCRIPTS (so
#     does the README's count of them);
#   - the options: docs/cli.md's value column of every option table row is
#     the one the program's option rows give (type, bounds, default,
#     choices: tests/cli/docs_options.py over `--complete table`), and every
#     option with a type is in a table of its command.
# Prints "docs: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

cmd="(documentation check)" rc=0
: > "$tmp/out"; : > "$tmp/err"

# a bad policy file: the loader names every agent it knows
printf '{"format": "placeto-policy", "agent": "nobody"}\n' > "$tmp/agent.json"

PLACETO_PROG=$prog PLACETO_WRAP=$wrap RUN_LIMIT=$run_limit BAD_AGENT=$tmp/agent.json \
    "$py" - README.md docs/*.md > "$tmp/checks" 2> "$tmp/pyerr" <<'PY'
import os, re, shlex, subprocess, sys

prog = os.environ["PLACETO_PROG"]
wrap = shlex.split(os.environ.get("PLACETO_WRAP", ""))
limit = int(os.environ.get("RUN_LIMIT", "20"))
docs = {f: open(f, encoding="utf-8").read() for f in sys.argv[1:]}

def ok(name):
    print("ok " + name)

def bad(name, why):
    print("FAIL %s: %s" % (name, why.replace("\n", "\\n")[:600]))

def check(name, good, why):
    ok(name) if good else bad(name, why)

def run(*args):
    p = subprocess.run(wrap + [prog] + list(args), capture_output=True, text=True,
                       timeout=limit, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr

def flat(text):
    """One line: Markdown's emphasis gone, runs of white space one space."""
    return re.sub(r"\s+", " ", text.replace("**", ""))

WORDS = "zero one two three four five six seven eight nine ten eleven twelve thirteen " \
        "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()
NUM = r"(\d[\d ]*\d|\d|%s)" % "|".join(WORDS)

def number(s):
    s = s.lower().replace(" ", "")
    return int(s) if s.isdigit() else WORDS.index(s)

def section(text, heading):
    """The text of the ## section HEADING, up to the next ## heading."""
    m = re.search(r"^## %s\n(.*?)(?=^## |\Z)" % re.escape(heading), text, re.M | re.S)
    return m.group(1) if m else None

# ------------------------------------------------------------ the agents
rc, out, _ = run("train", "--help")
m = re.search(r"^\s+--agent A\s+[^:\n]*:([^;\n]*)", out, re.M)
agents = [a.replace("(default)", "").strip() for a in m.group(1).split(",")] if m else []
if rc != 0 or len(agents) < 2:
    bad("train --help", "no --agent row listing the agents (exit %d)" % rc)
    agents = []
else:
    ok("train --help lists %d agents" % len(agents))

def agents_named(name, text, form, which=None):
    """Every agent (or those of WHICH) in TEXT in FORM ('%s' its name)."""
    if text is None:
        bad(name, "not found")
        return
    missing = [a for a in (which or agents)
               if not re.search(r"(?<![\w-])%s(?![\w-])" % (form % re.escape(a)), flat(text), re.I)]
    check(name, not missing, "does not name the agent%s %s (train --help lists %s)"
          % ("s" if len(missing) > 1 else "", ", ".join(missing), ", ".join(agents)))

if agents:
    line = next((l for l in docs["README.md"].split("\n") if "[`train`](docs/cli.md#train)" in l), None)
    agents_named("README.md: the train line", line, "%s")
    row = next((l for l in docs["docs/cli.md"].split("\n") if l.startswith("| `--agent A`")), None)
    agents_named("cli.md: the --agent row", row, "`%s`")
    para = next((p for p in docs["docs/formats.md"].split("\n\n")
                 if p.startswith('The optional top-level field `"agent"`')), None)
    agents_named('formats.md: the "agent" paragraph', para, '"%s"')
    rc, _, err = run("place", "graphs/toy/diamond.json", "--policy", os.environ["BAD_AGENT"])
    m = re.search(r"agent: (expected .*), got", err)
    if rc != 1 or not m:
        bad("the loader's message for a wrong agent", "exit %d, stderr %s" % (rc, err))
    elif para is not None:
        check('formats.md: the "agent" paragraph quotes the loader', m.group(1) in flat(para),
              "no '%s' in it" % m.group(1))
    if para is not None:
        stated = re.findall(r"take all %s\b" % NUM, flat(para))
        check('formats.md: the "agent" paragraph counts the agents',
              stated and all(number(n) == len(agents) for n in stated),
              "states %s, train --help lists %d" % (stated or "no 'take all N'", len(agents)))
    heads = "\n".join(re.findall(r"^#+ .*$", docs["docs/training.md"], re.M))
    agents_named("training.md: a heading per agent", heads, "`--agent %s`", agents[1:])
    agents_named("architecture.md: What this release has",
                 section(docs["docs/architecture.md"], "What this release has"),
                 "`train --agent %s", agents[1:])

# ------------------------------------------------------- the bad files
inputs = [f for f in os.listdir("tests/data/bad")
          if not f.endswith((".expect", ".args")) and os.path.isfile(os.path.join("tests/data/bad", f))]
stated = re.findall(r"%s bad files in `tests/data/bad/`" % NUM, flat(docs["docs/testing.md"]))
check("testing.md: the bad files", stated and all(number(n) == len(inputs) for n in stated),
      "states %s, tests/data/bad/ holds %d inputs"
      % (", ".join(stated) or "no 'N bad files in `tests/data/bad/`'", len(inputs)))

# ---------------------------------------------------------- the methods
rc, out, _ = run("--complete", "methods")
methods = out.split()
rc2, out, _ = run("compare", "--help")
listed = re.findall(r"^  ([a-z][\w-]*)\s{2,}(.*)$", out.split("\nmethods:\n", 1)[-1], re.M)
searches = [n for n, what in listed if n in methods and "--budget" in what]
if rc != 0 or rc2 != 0 or len(methods) < 3 or not searches:
    bad("the methods", "placeto --complete methods or compare --help gave no method list")
else:
    kinds = {"methods": len(methods), "heuristics": len(methods) - len(searches),
             "local searches": len(searches)}
    found = 0
    for f, text in docs.items():
        t = flat(text)
        hits = [(m.group(1), m.group(2)) for m in
                re.finditer(r"\b%s (?:placement |baseline )?(methods|heuristics|local searches)\b" % NUM, t, re.I)]
        hits += [(n, "methods") for n in re.findall(r"methods to run \(default: all %s\)" % NUM, t)]
        for n, kind in hits:
            found += 1
            want = kinds[kind.lower()]
            check("%s: %s %s" % (f, n, kind), number(n) == want,
                  "the program has %d %s (%s)" % (want, kind, ", ".join(methods)))
    check("the documentation counts the methods", found > 0, "no 'N methods' found")

# ----------------------------------------------------------- the papers
papers = {}
for a in agents:
    rc, out, _ = run("train", "--agent", a, "--help")
    m = re.search(r"^Train (.+?) \(([A-Z][\w-]+) et al\.,? (?:[A-Za-z]+ )?(\d{4})\)", out, re.M)
    if rc == 0 and m:
        key = re.split(r",| \(", re.sub(r"^the ", "", m.group(1)))[0]
        papers[key] = (m.group(2), m.group(3), a)
check("train --agent A --help names the papers", len(papers) >= 2,
      "found %d: %s" % (len(papers), papers))
YEAR = re.compile(r"(?<![\d.])(?:19|20)\d\d(?![\d.])")
for key, (author, year, a) in papers.items():
    seen = 0
    for f, text in docs.items():
        t = flat(text).replace("`", "")
        for m in re.finditer(r"\b%s (?:of |\()([A-Z][\w-]+) et al\.(.{0,100})" % re.escape(key), t):
            seen += 1
            cited = YEAR.findall(m.group(2).split(")")[0])
            check("%s: %s (%s et al. %s)" % (f, key, m.group(1), cited[0] if cited else ""),
                  m.group(1) == author and (not cited or cited[0] == year),
                  "train --agent %s --help says %s et al. %s" % (a, author, year))
    check("the documentation cites %s's paper" % key, seen > 0, "no '%s (%s et al.' found" % (key, author))

# ------------------------------------------------------ the tree's lists
rc, out, _ = run("--help")
commands = re.findall(r"^  ([a-z]+)\s{2,}\S", out.split("\ncommands:\n", 1)[-1].split("\n\n")[0], re.M)
if rc != 0 or len(commands) < 5:
    bad("placeto --help", "no command list (exit %d)" % rc)
else:
    table = re.findall(r"^\| \[`([a-z]+)`\]\(#", docs["docs/cli.md"], re.M)
    check("cli.md: the command table", sorted(table) == sorted(commands),
          "lists %s, placeto --help %s" % (", ".join(table), ", ".join(commands)))
    listed = re.findall(r"^- \[`([a-z]+)`\]\(docs/cli\.md#", section(docs["README.md"], "Commands") or "", re.M)
    check("README.md: the command list", sorted(listed) == sorted(commands),
          "lists %s, placeto --help %s" % (", ".join(listed), ", ".join(commands)))
scripts = sorted(f for f in os.listdir("tests/cli") if re.match(r"cli_\w+\.sh$", f) and f != "lib_cli.sh")
unnamed = [s for s in scripts if s not in docs["docs/testing.md"]]
check("testing.md names every tests/cli script", not unnamed, "%s not named" % ", ".join(unnamed))
targets = [f for f in os.listdir("tests/fuzz") if re.match(r"fuzz_\w+\.c$", f)]
stated = re.findall(r"There are %s targets" % NUM, flat(docs["docs/testing.md"]))
check("testing.md: the fuzz targets", stated and all(number(n) == len(targets) for n in stated),
      "states %s, tests/fuzz/ has %d" % (stated or "no 'There are N targets'", len(targets)))
m = re.search(r"^CHECK_SCRIPTS\s*:=(.*)$", open("Makefile", encoding="utf-8").read(), re.M)
quick = m.group(1).split() if m else []
stated = re.findall(r"the unit tests and %s scripts" % NUM, flat(docs["README.md"]))
check("README.md: make check's scripts", quick and stated and all(number(n) == len(quick) for n in stated),
      "states %s, the Makefile's CHECK_SCRIPTS %s" % (stated or "no count", " ".join(quick)))
m = re.search(r"`CHECK_SCRIPTS` in the Makefile: ([^)]*)\)", flat(docs["docs/testing.md"]))
named = re.findall(r"`(cli_\w+)`", m.group(1)) if m else []
check("testing.md: make check's scripts", quick and sorted(named) == sorted(quick),
      "lists %s, the Makefile's CHECK_SCRIPTS %s" % (", ".join(named) or "none", " ".join(quick)))

# ------------------------------------------------------------- the tour
rc, out, _ = run("demo", "--headless", "--keys", "")
m = re.search(r"Tour 1/(\d+):", out)
if rc != 0 or not m:
    bad("the tour", "demo --headless shows no 'Tour 1/N' (exit %d)" % rc)
    sys.exit(0)
n = int(m.group(1))
rc, helptext, _ = run("demo", "--help")
RACE = re.compile(r"\brace\b[^.]{0,40}?\bstage (\d+)\b")

_screens = {}
def stage(k):
    """(title, screen) of the tour's stage K, its caption whole (on a toy
    graph: its race is short)."""
    if k not in _screens:
        rc, out, _ = run("demo", "graphs/toy/diamond.json", "--headless", "--stage", str(k),
                         "--keys", "i", "--size", "160x50")
        m = re.search(r"Tour %d/%d: ([^|+]*?)\s*-{3}" % (k, n), out)
        _screens[k] = (m.group(1) if m else "", out)
    return _screens[k]

# the stage demo --help names first, then every stage
claimed = [int(k) for k in RACE.findall(flat(helptext)) if 1 <= int(k) <= n]
race = next((k for k in claimed[:1] + list(range(1, n + 1))
             if stage(k)[0].startswith("The race")), None)
check("the tour has a race stage", race is not None, "no stage titled 'The race'")
# a stage titled after a learned placer cites its paper as its help does
for key, (author, year, a) in papers.items():
    for k in range(1, n + 1):
        title, screen = stage(k)
        if not re.search(r"\b%s\b" % re.escape(a), title, re.I):
            continue
        cited = re.findall(r"([A-Z][\w-]+) et al\.,? (?:[A-Za-z]+ )?(\d{4})", flat(screen))
        check("the tour's stage %d: %s's paper" % (k, key), cited and all(c == (author, year) for c in cited),
              "cites %s, train --agent %s --help %s et al. %s" % (cited or "none", a, author, year))
places = {"demo --help": helptext}
places.update(docs)
for where, text in places.items():
    t = flat(text)
    for s in re.findall(r"\b%s stages\b" % NUM, t, re.I):
        check("%s: %s stages" % (where, s), number(s) == n, "the tour has %d stages" % n)
    for k in RACE.findall(t):
        check("%s: the race at stage %s" % (where, k), int(k) == race,
              "the race is the tour's stage %s" % race)
PY
py_checks "documentation counts" $?

# docs/cli.md's option tables against the option rows
cmd="tests/cli/docs_options.py $prog docs/cli.md"
if python3 tests/cli/docs_options.py "$prog" docs/cli.md > "$tmp/out" 2> "$tmp/err" && [ ! -s "$tmp/err" ]; then pass; else
    fail "docs/cli.md's option values" "$(head -5 "$tmp/out" "$tmp/err")"; fi
# and the check fails on a value that is not the row's
sed 's/^| `--samples K` | 0–10^6, default 0 |/| `--samples K` | 0–10^6, default 1 |/' docs/cli.md > "$tmp/cli.md"
if ! cmp -s docs/cli.md "$tmp/cli.md" && ! python3 tests/cli/docs_options.py "$prog" "$tmp/cli.md" > "$tmp/out" 2>&1 &&
    grep -q "the value of --samples" "$tmp/out"; then pass; else fail "docs_options.py: a wrong default" "not caught"; fi

echo "docs: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
