"""Shared by placeto's importers (torch_graph.py, onnx_graph.py): the progress
lines on stderr, the command line recorded in a graph's "source", and the
closing summary with the critical path share.

The critical path here is the longest chain of ops through the graph's edges
by op cost alone (transfers ignored, as if every op ran on one device): the
same figure as `placeto info` prints. Its share of the total cost bounds what
any placement can gain: the step can never take less than the critical path,
so N devices speed it up by at most total / critical path, before transfers.
"""
import os
import shlex
import sys
import time


class Progress:
    """One line per phase on stderr ("PROG: 1.2 s: tracing ..."), with the
    seconds elapsed since the start; quiet drops the phase lines only.
    verbose: times() then gives each phase's own seconds, for one closing
    line (--verbose)."""

    def __init__(self, prog, quiet=False, t0=None, verbose=False):
        self.prog, self.quiet, self.verbose = prog, quiet, verbose
        self.t0 = time.monotonic() if t0 is None else t0
        self.marks = []   # (phase, seconds since the start when it began)

    def elapsed(self):
        return time.monotonic() - self.t0

    last = None   # the phase running now, for guard.run's --timeout message

    def phase(self, text):
        Progress.last = text
        self.marks.append((text, self.elapsed()))
        if not self.quiet:
            sys.stderr.write("%s: %.1f s: %s ...\n" % (self.prog, self.elapsed(), text))
            sys.stderr.flush()

    def times(self):
        """'phases: starting Python and the libraries 1.7 s, building ... 0.6 s,
        ...' with each phase's own seconds (its first word or two), up to now."""
        now, parts, prev = self.elapsed(), [], ("starting Python and the libraries", 0.0)
        for text, t in self.marks + [(None, now)]:
            name = prev[0] if prev[0].startswith("starting") else prev[0].split()[0]
            parts.append("%s %.1f s" % (name, t - prev[1]))
            prev = (text, t)
        return "phases: " + ", ".join(parts)

    def say(self, text):
        """A line that --quiet keeps (the summary, notices)."""
        sys.stderr.write("%s: %s\n" % (self.prog, text))
        sys.stderr.flush()


def critical_path(nodes, edges):
    """Length in us of the longest chain of op costs along the edges (nodes:
    dicts with "name" and "cost_us"; edges: dicts with "src" and "dst").
    None if the edges have a cycle."""
    index = {n["name"]: i for i, n in enumerate(nodes)}
    succ = [[] for _ in nodes]
    indeg = [0] * len(nodes)
    for e in edges:
        s, d = index[e["src"]], index[e["dst"]]
        succ[s].append(d)
        indeg[d] += 1
    finish = [0.0] * len(nodes)   # longest chain ending at each op, its own cost included
    start = [0.0] * len(nodes)
    ready = [i for i in range(len(nodes)) if indeg[i] == 0]
    done = 0
    while ready:
        i = ready.pop()
        done += 1
        finish[i] = start[i] + float(nodes[i]["cost_us"])
        for d in succ[i]:
            start[d] = max(start[d], finish[i])
            indeg[d] -= 1
            if indeg[d] == 0:
                ready.append(d)
    if done != len(nodes):
        return None
    return max(finish, default=0.0)


def totals(nodes, edges):
    """(total cost, critical path, share) of a graph; share in [0, 1]."""
    total = sum(float(n["cost_us"]) for n in nodes)
    cp = critical_path(nodes, edges)
    share = cp / total if cp is not None and total > 0 else 0.0
    return total, cp, share


def summary(out, nodes, edges, device, detail="", seconds=None):
    """The closing line: "wrote OUT in S s: N ops, E edges, total cost ..., critical path ..."."""
    total, cp, share = totals(nodes, edges)
    text = "wrote %s%s: %d ops%s, %d edges, total cost %.3f us on %s; " % (
        "to stdout" if out == "-" else out, "" if seconds is None else " in %.1f s" % seconds,
        len(nodes), detail, len(edges), total, device)
    if cp is None:
        return text + "no critical path (the edges have a cycle)"
    return text + ("critical path %.3f us = %.1f%% of the total cost (op costs only, transfers ignored)"
                   % (cp, 100.0 * share))


def command_line(argv, installed_name):
    """The command that made a graph, for its "source": the installed command
    (e.g. placeto-import-torch) when the script runs from PREFIX/share/placeto/
    import, else the interpreter and the script path as given."""
    here = os.path.dirname(os.path.abspath(argv[0]))
    args = " ".join(shlex.quote(a) for a in argv[1:])
    if here.endswith(os.path.join("share", "placeto", "import")):
        head = installed_name
    else:
        head = "%s %s" % (sys.executable or "/usr/bin/python3", shlex.quote(argv[0]))
    return (head + " " + args).rstrip()
