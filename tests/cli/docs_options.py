#!/usr/bin/env python3
"""docs/cli.md's option tables against the program's option rows.

Every option is one row in the program (agent.h's AgentOpt: type, bounds,
default, choices, help). `placeto --complete table COMMAND [AGENT]` prints,
per row, the text of docs/cli.md's "value" column made from it ("1–256,
default 1", "`best` (default) or `last`"). This script finds each option
table row of docs/cli.md (by the section it is in: `## COMMAND`, and in
`## train` the paragraph `**`--agent A`**` that leads A's table) and checks
that its value cell is the generated one, and that every option with a type
(a number, an integer, a word) is in a table of its command.

    docs_options.py PLACETO DOCS/cli.md          check; one line per problem, status 1
    docs_options.py PLACETO DOCS/cli.md --fix    rewrite the value cells (atomically)

The meaning column stays prose; only the value column comes from the rows.
Rows of options without a type (files, flags) are left as they are.
"""
import os
import re
import subprocess
import sys
import tempfile

OPT = re.compile(r"`(?:-[A-Za-z], )?--([a-z0-9-]+)")


def table(prog, *args):
    out = subprocess.run([prog, "--complete", "table", *args], check=True, capture_output=True,
                         text=True).stdout
    rows = {}
    for line in out.splitlines():
        name, _short, _arg, md = (line.split("\t") + ["", "", ""])[:4]
        rows[name[2:]] = md
    return rows


def cells_of(line):
    """The cells of a table row, a '|' inside `code` not a separator."""
    cells, cur, code = [], "", False
    for ch in line.strip()[1:-1] if line.strip().endswith("|") else line.strip()[1:]:
        if ch == "`":
            code = not code
        if ch == "|" and not code:
            cells.append(cur.strip())
            cur = ""
        else:
            cur += ch
    cells.append(cur.strip())
    return cells


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: docs_options.py PLACETO DOCS/cli.md [--fix]")
    prog, path, fix = sys.argv[1], sys.argv[2], "--fix" in sys.argv[3:]
    commands = subprocess.run([prog, "--complete", "commands"], check=True, capture_output=True,
                              text=True).stdout.split()
    commands = [c for c in commands if not c.startswith("-") and c != "help"]
    agents = sorted({m.group(1) for m in re.finditer(r"^\*\*`--agent ([a-z]+)`\*\*", open(path).read(), re.M)})
    tables = {c: table(prog, c) for c in commands}
    tables.update({("train", a): table(prog, "train", a) for a in agents})
    lines = open(path).read().split("\n")
    problems, seen = [], set()
    cmd = agent = None
    for i, line in enumerate(lines):
        m = re.match(r"^## (\w+)", line)
        if m:
            cmd, agent = (m.group(1) if m.group(1) in commands else None), None
            continue
        if line.startswith("### "):
            agent = None
        m = re.match(r"^\*\*`--agent ([a-z]+)`\*\*", line)
        if m and cmd == "train":
            agent = m.group(1)
        if not cmd or not line.startswith("| `-"):
            continue
        cells = cells_of(line)
        if len(cells) < 3:
            continue
        names = OPT.findall(cells[0])
        rows = [tables[("train", agent)]] if agent else []
        rows.append(tables[cmd])
        want, typed = [], False
        for n in names:
            src = next((r for r in rows if n in r), None)
            if src is None:
                problems.append("%s:%d: --%s is not an option of %s%s" %
                                (path, i + 1, n, cmd, " --agent " + agent if agent else ""))
                continue
            seen.add((cmd, agent, n))
            if src[n]:
                typed = True
                want.append(src[n])
        if not typed:
            continue
        cell = "; ".join(want)
        if cells[1] != cell:
            if fix:
                cells[1] = cell
                lines[i] = "| " + " | ".join(cells) + " |"
            else:
                problems.append("%s:%d: the value of %s is '%s'; its rows say '%s' (tests/cli/docs_options.py "
                                "PLACETO docs/cli.md --fix)" % (path, i + 1, ", ".join("--" + n for n in names),
                                                                cells[1], cell))
    agent_only = {n for a in agents for n in tables[("train", a)]}
    for c in commands:
        for n, md in tables[c].items():
            if c == "train" and n in agent_only:  # checked per agent below
                continue
            if md and not any(s[0] == c and s[2] == n for s in seen):
                problems.append("%s: %s --%s (%s) is in no table of ## %s" % (path, c, n, md, c))
    for a in agents:
        for n, md in tables[("train", a)].items():
            if md and ("train", a, n) not in seen and ("train", None, n) not in seen:
                problems.append("%s: train --agent %s --%s (%s) is in no table of ## train" % (path, a, n, md))
    if fix:
        d = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".cli.md.")
        with os.fdopen(fd, "w") as f:
            f.write("\n".join(lines))
        os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        os.replace(tmp, path)
    for p in problems:
        print(p)
    sys.exit(1 if problems and not fix else 0)


if __name__ == "__main__":
    main()
