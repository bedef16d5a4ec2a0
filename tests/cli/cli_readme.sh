#!/usr/bin/env bash
# The front page and the documentation, against their own contents and the
# built program (never against source file paths):
#   - README.md is at most 400 lines;
#   - every relative link of README.md and docs/*.md names an existing file,
#     and every #anchor (same file or FILE#anchor) a heading of its target
#     file, by GitHub's slugs (lowercase; punctuation but hyphens, spaces and
#     underscores dropped; spaces to hyphens; -1, -2 for repeats);
#   - every docs/*.md lists its ## sections near its top (a link to each);
#   - neither names the original design's files (the pattern is spelled in parts below);
#   - every `placeto COMMAND ...` line of the README's fenced code blocks
#     names a command of `placeto --help` and only options that
#     `placeto COMMAND --help` lists;
#   - the README walk's quick commands (info, simulate, place, compare,
#     export, and demo or explore with --headless; not train, not the
#     interactive explorer, not those reading a file an importer writes)
#     run in a scratch directory, in order, and exit 0.
# Prints "readme: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/cli/lib_cli.sh
. tests/cli/lib_cli.sh

# fail() reports the last run; these checks run no single command
cmd="(documentation check)" rc=0
: > "$tmp/out"; : > "$tmp/err"

# ---------------------------------------------------------------- length
lines=$(wc -l < README.md)
if [ "$lines" -le 400 ]; then pass; else
    fail "README length" "README.md has $lines lines, more than 400"; fi

# ------------------------------------------- links, commands, the walk
mkdir -p "$tmp/walk"
ln -s "$PWD/graphs" "$tmp/walk/graphs"
PLACETO_PROG=$prog PLACETO_WRAP=$wrap RUN_LIMIT=$run_limit WALK_DIR=$tmp/walk \
    "$py" - README.md docs/*.md > "$tmp/checks" 2> "$tmp/pyerr" <<'PY'
import os, re, shlex, subprocess, sys

prog = os.path.abspath(os.environ["PLACETO_PROG"]) if "/" in os.environ["PLACETO_PROG"] \
    else os.environ["PLACETO_PROG"]
wrap = shlex.split(os.environ.get("PLACETO_WRAP", ""))
limit = int(os.environ.get("RUN_LIMIT", "20"))
walk_dir = os.environ["WALK_DIR"]
files = sys.argv[1:]

def ok(name):
    print("ok " + name)

def bad(name, why):
    print("FAIL %s: %s" % (name, why.replace("\n", "\\n")[:600]))

FENCE = re.compile(r"^\s*(```|~~~)")

def strip_code(text, inline=True):
    """The text's lines with fenced blocks blanked and, with inline, the
    inline code spans removed (headings keep their text: GitHub slugs it)."""
    out, fenced = [], False
    for line in text.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
            out.append("")
        elif fenced:
            out.append("")
        else:
            out.append(re.sub(r"(`+)(?:(?!\1).)+?\1", "", line) if inline else line)
    return out

def fenced_lines(text):
    """(line number, line) of every line inside a fenced code block."""
    res, fenced = [], False
    for i, line in enumerate(text.split("\n"), 1):
        if FENCE.match(line):
            fenced = not fenced
        elif fenced:
            res.append((i, line))
    return res

def slug(heading):
    h = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    h = re.sub(r"[^\w\- ]", "", h.strip().lower())
    return h.replace(" ", "-")

_slugs = {}
def slugs(path):
    if path not in _slugs:
        seen, res = {}, set()
        for line in strip_code(open(path, encoding="utf-8").read(), inline=False):
            m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            s = slug(m.group(2))
            n = seen.get(s, 0)
            seen[s] = n + 1
            res.add(s if n == 0 else "%s-%d" % (s, n))
        _slugs[path] = res
    return _slugs[path]

def headings2(path):
    return [m.group(1) for line in strip_code(open(path, encoding="utf-8").read(), inline=False)
            for m in [re.match(r"^##\s+(.*?)\s*$", line)] if m]

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")

# ---- links and anchors
for f in files:
    text = open(f, encoding="utf-8").read()
    for i, line in enumerate(strip_code(text), 1):
        for m in LINK.finditer(line):
            target = m.group(1)
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                continue  # http:, https:, mailto:
            name = "%s:%d: link %s" % (f, i, target)
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            if not os.path.exists(dest):
                bad(name, "%s does not exist" % dest)
            elif anchor and not dest.endswith(".md"):
                bad(name, "an anchor into %s, which is no Markdown file" % dest)
            elif anchor and anchor not in slugs(dest):
                bad(name, "no heading of %s has the anchor #%s" % (dest, anchor))
            else:
                ok(name)

# ---- every docs file lists its sections
for f in files:
    if not f.startswith("docs/"):
        continue
    text = open(f, encoding="utf-8").read()
    missing = [h for h in headings2(f) if "](#%s)" % slug(h) not in text]
    if missing:
        bad("%s: contents" % f, "no link to the sections %s" % ", ".join(missing))
    else:
        ok("%s: contents" % f)

# ---- names the repository must not use
hits = ["%s:%d" % (f, i) for f in files
        for i, line in enumerate(open(f, encoding="utf-8").read().split("\n"), 1)
        if re.search("sha" + r"red/|" + "DES" + r"IGN\.md|" + "sp" + r"ec/", line)]
if hits:
    bad("forbidden names", "a name of the original design's files at " + ", ".join(hits))
else:
    ok("forbidden names")

# ---- the README's command lines against the program's help
def help_text(*args):
    p = subprocess.run([prog] + list(args), capture_output=True, text=True, timeout=limit)
    return p.returncode, p.stdout

rc, top = help_text("--help")
commands = set()
section = None
for line in top.split("\n"):
    if re.match(r"^\S.*:$", line):
        section = line
        continue
    m = re.match(r"^\s{2}([a-z]+)\s{2,}\S", line)
    if section == "commands:" and m:
        commands.add(m.group(1))
if rc != 0 or len(commands) < 5:
    bad("placeto --help", "no command list (exit %d)" % rc)
else:
    ok("placeto --help lists %d commands" % len(commands))

_opts = {}
def options(cmd):
    if cmd not in _opts:
        rc, text = help_text(cmd, "--help")
        found = set()
        for line in text.split("\n"):
            m = re.match(r"^\s+((?:-[A-Za-z0-9], )?--[a-z0-9][a-z0-9-]*)", line)
            if m:
                for o in m.group(1).split(", "):
                    found.add(o)
        _opts[cmd] = found if rc == 0 else None
    return _opts[cmd]

def command_of(tokens):
    """(index of the program word, subcommand or None) of a placeto line."""
    for i, t in enumerate(tokens):
        if t == "placeto" or t.endswith("/placeto"):
            return i, (tokens[i + 1] if i + 1 < len(tokens) else None)
    return None, None

def tokens_of(line):
    line = line.strip()
    if line.startswith("$ "):
        line = line[2:]
    try:
        return shlex.split(line, comments=True)
    except ValueError:
        return None

readme = open("README.md", encoding="utf-8").read()
n_lines = 0
for i, line in fenced_lines(readme):
    toks = tokens_of(line)
    if not toks:
        continue
    at, sub = command_of(toks)
    if at is None or sub is None:
        continue
    n_lines += 1
    name = "README.md:%d: %s" % (i, line.strip()[:80])
    if sub.startswith("-"):
        if re.search(r"(^|\s|\()%s\b" % re.escape(sub), top):
            ok(name)
        else:
            bad(name, "placeto --help does not list %s" % sub)
        continue
    if sub not in commands:
        bad(name, "no command %s (placeto --help lists %s)" % (sub, ", ".join(sorted(commands))))
        continue
    known = options(sub)
    if known is None:
        bad(name, "placeto %s --help failed" % sub)
        continue
    wrong = []
    for t in toks[at + 2:]:
        if t == "--":
            break
        if t.startswith("--"):
            o = t.split("=", 1)[0]
        elif t.startswith("-") and len(t) > 1 and not re.match(r"^-[0-9.]", t):
            o = t[:2]
        else:
            continue
        if o not in known and o not in ("-h", "--help"):
            wrong.append(o)
    if wrong:
        bad(name, "placeto %s --help lists no %s" % (sub, ", ".join(wrong)))
    else:
        ok(name)
if n_lines < 5:
    bad("README commands", "only %d placeto command lines in fenced blocks" % n_lines)
else:
    ok("README has %d placeto command lines" % n_lines)

# ---- the walk: its quick commands run and exit 0
m = re.search(r"^## A five-minute walk\n(.*?)(?=^## )", readme, re.M | re.S)
if not m:
    bad("README walk", "no section '## A five-minute walk'")
    sys.exit(0)
start = readme[:m.start(1)].count("\n")
external, ran = set(), 0
for i, line in fenced_lines(m.group(1)):
    toks = tokens_of(line)
    if not toks:
        continue
    at, sub = command_of(toks)
    if at is None:
        # another program (an importer): what it writes is not there to use
        for j, t in enumerate(toks):
            if t in ("-o", "--output") and j + 1 < len(toks):
                external.add(toks[j + 1])
        continue
    quick = sub in ("info", "simulate", "place", "compare", "export") or \
        (sub in ("demo", "explore") and "--headless" in toks)
    if not quick or any(t in external and not os.path.exists(os.path.join(walk_dir, t))
                        for t in toks):
        continue
    name = "walk, README.md:%d: %s" % (start + i, line.strip()[:80])
    argv = wrap + [prog] + toks[at + 1:]
    try:
        p = subprocess.run(argv, cwd=walk_dir, capture_output=True, text=True, timeout=limit,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        bad(name, "timed out after %d s" % limit)
        continue
    ran += 1
    crash = re.search(r"Segmentation|ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:"
                      r"|placeto: fatal:", p.stderr)
    if p.returncode != 0 or crash:
        bad(name, "exit status %d; stderr: %s" % (p.returncode, p.stderr[:400]))
    else:
        ok(name)
if ran < 5:
    bad("README walk", "only %d quick commands ran" % ran)
else:
    ok("README walk ran %d commands" % ran)
PY
py_checks "documentation checks" $?

echo "readme: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
