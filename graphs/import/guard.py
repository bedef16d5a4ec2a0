"""Shared by placeto's importers (torch_graph.py, onnx_graph.py): what keeps
an import honest.

  * check_graph: the graph about to be written must be one placeto reads
    (docs/formats.md): every name UTF-8 text with no NUL character (the
    JSON reader refuses \u0000 in any string), each output_bytes an integer
    from 0 to 2^53, all outputs of the graph together at most 2^62 bytes,
    every cost finite and from 0 to 1e15 us. A model whose tensors are too
    large for that (an input of 2^62 elements, a Reshape to 2^40 x 2^40) is
    refused at import, naming the op and the field, instead of being written
    as a file placeto then refuses.
  * run: the importer's main under a time limit (--timeout SECONDS, default
    600, 0 for none) and Ctrl-C: one line ("PROG: interrupted", exit status
    130; "PROG: gave up after N s (--timeout N) while PHASE", exit status 1)
    instead of a traceback.
  * prog_name: the name messages start with: the installed command
    (placeto-import-torch, placeto-import-onnx) when the script runs from
    PREFIX/share/placeto/import, else the script's own name.
"""
import math
import os
import signal
import sys

MAX_OUTPUT_BYTES = 2 ** 53      # each output_bytes entry (a double holds integers exactly up to here)
MAX_TOTAL_BYTES = 2 ** 62       # all outputs of the graph together
MAX_COST_US = 1e15              # cost_us and each cost_us_by_kind entry
DEFAULT_TIMEOUT = 600
MAX_TIMEOUT = 10 ** 8           # about three years; the interval timer holds no more


class GraphError(Exception):
    pass


class TimeUp(BaseException):
    """Raised by the --timeout alarm; a BaseException so that the model's own
    `except Exception` does not swallow it."""


def keep_freed_memory():
    """Has glibc's malloc serve large blocks from the heap and keep what is
    freed, before PyTorch or ONNX allocates anything. By default a block of
    128 KiB or more is mapped for itself and unmapped when freed, so every
    tensor of a traced training step costs page faults on each of its pages
    again: a relu of 64 MB took 110 ms instead of 7, and tracing a small
    two-tower CNN 23 s instead of 6 (half of it in the kernel). The memory
    stays the process's until it ends, which an importer does soon. Nothing
    on another C library."""
    try:
        import ctypes
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return
    mallopt(-3, 1 << 30)   # M_MMAP_THRESHOLD: blocks up to 1 GiB from the heap
    mallopt(-1, 1 << 31)   # M_TRIM_THRESHOLD: give memory back beyond 2 GiB free only


def installed(argv0):
    here = os.path.dirname(os.path.abspath(argv0))
    return here.endswith(os.path.join("share", "placeto", "import"))


def prog_name(argv0, script, command):
    return command if installed(argv0) else script


def utf8_problem(s):
    """None if s is text that UTF-8 can hold, else a description of what it is."""
    if isinstance(s, bytes):
        try:
            s.decode("utf-8")
        except UnicodeDecodeError as e:
            return "bytes that are not UTF-8 text (byte 0x%02x at %d of %r)" % (s[e.start], e.start, s)
        return None
    if isinstance(s, str):
        try:
            s.encode("utf-8")
        except UnicodeEncodeError as e:
            return "text that UTF-8 cannot hold (character U+%04X at %d of %s)" % (ord(s[e.start]), e.start,
                                                                                  ascii(s))
        return None
    return "a %s, not text" % type(s).__name__


def nul_at(s):
    """Where the first NUL character of s (text or bytes) is, -1 if none:
    no string of a placeto file can hold one."""
    if isinstance(s, str):
        return s.find("\0")
    if isinstance(s, bytes):
        return s.find(b"\0")
    return -1


def nul_problem(s):
    """None unless s holds a NUL character, else a description of where."""
    k = nul_at(s)
    return None if k < 0 else "%s, which holds a NUL character at position %d" % (ascii(s), k)


def name_problem(s):
    """None if s can be a name in a placeto graph: UTF-8 text with no NUL."""
    return utf8_problem(s) or nul_problem(s)


def printable(s):
    """The graph's name and source are free text: bytes of a file name or an
    argument that are not UTF-8 (Python holds them as lone surrogates) are
    written as \\xNN escapes there, instead of refusing the file."""
    try:
        return s.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return s.encode("utf-8", "backslashreplace").decode("utf-8")


def describe(node, index):
    name = node.get("name")
    op = node.get("op")
    who = ("node %s" % ascii(name)) if utf8_problem(name) is None else "node %d" % index
    if op and utf8_problem(op) is None:
        who += " (op %s)" % op
    return who


def check_graph(name, source, nodes):
    """Raises GraphError naming the op and the field when the graph (nodes:
    dicts with name, op, cost_us, cost_us_by_kind, output_bytes, colocate)
    holds something placeto's graph format cannot."""
    for what, s in (("the graph's name", name), ("the graph's source", source)):
        p = name_problem(s)
        if p is not None:
            raise GraphError("%s is %s; a placeto graph holds UTF-8 text with no NUL character only" % (what, p))
    total = 0
    for i, n in enumerate(nodes):
        for field in ("name", "op", "colocate", "layer", "group"):
            if field in n and n[field] is not None:
                p = utf8_problem(n[field])
                if p is not None:
                    raise GraphError("%s: %s is %s; a placeto graph holds UTF-8 text only, so rename it in the "
                                     "model" % (describe(n, i), field, p))
                p = nul_problem(n[field])
                if p is not None:
                    raise GraphError("%s: %s is %s; a placeto graph's names cannot hold NUL, so rename it "
                                     "in the model" % (describe(n, i), field, p))
        who = describe(n, i)
        outs = n.get("output_bytes", [0])
        if not isinstance(outs, list):
            outs = [outs]
        for k, b in enumerate(outs):
            if not whole(b) or b < 0 or b > MAX_OUTPUT_BYTES:
                raise GraphError("%s: output_bytes[%d] = %s bytes: a graph holds each output's size from 0 to "
                                 "2^53 = %d bytes" % (who, k, fmt_bytes(b), MAX_OUTPUT_BYTES))
            total += int(b)
            if total > MAX_TOTAL_BYTES:
                raise GraphError("%s: output_bytes[%d]: with it the graph's outputs add up to %s bytes, more than "
                                 "the 2^62 = %d a graph holds" % (who, k, fmt_bytes(total), MAX_TOTAL_BYTES))
        costs = [("cost_us", n.get("cost_us", 0.0))]
        for kind, c in sorted((n.get("cost_us_by_kind") or {}).items()):
            costs.append(("cost_us_by_kind.%s" % kind, c))
        for field, c in costs:
            c = float(c)
            if not math.isfinite(c) or c < 0 or c > MAX_COST_US:
                raise GraphError("%s: %s = %r us: a graph's costs are finite, from 0 to %g us (the op's tensors "
                                 "are too large to cost)" % (who, field, c, MAX_COST_US))


def whole(b):
    """True for an integer count of bytes (an int, or a float with no fraction)."""
    if isinstance(b, bool) or not isinstance(b, (int, float)):
        return False
    return isinstance(b, int) or (math.isfinite(b) and b == int(b))


def fmt_bytes(b):
    """An exact byte count, with its power of two when it is one (2^62)."""
    if whole(b):
        b = int(b)
        if b > 0 and b & (b - 1) == 0 and b >= 2 ** 20:
            return "%d (2^%d)" % (b, b.bit_length() - 1)
        return "%d" % b
    return repr(b)


def run(main, prog, phase_of=None):
    """Runs main() and exits with its status: Ctrl-C gives "PROG: interrupted"
    and exit status 130; once main has called arm(SECONDS), running out of
    time gives "PROG: gave up after N s ... while PHASE" (phase_of() names
    the phase) and exit status 1. prog() is the name to start the line with."""
    try:
        status = main()
    except KeyboardInterrupt:
        disarm()
        _leave("%s: interrupted" % prog(), 130)
    except TimeUp:
        disarm()
        seconds = _armed.get("seconds", 0)
        phase = phase_of() if phase_of else None
        _leave("%s: gave up after %g s (--timeout %g; --timeout 0 for no limit)%s"
               % (prog(), seconds, seconds, " while %s" % phase if phase else ""), 1)
    disarm()
    sys.exit(status or 0)


def _leave(line, status):
    """The one line, then exit at once (os._exit: no atexit handler or thread
    PyTorch started adds a traceback after it)."""
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except Exception:
            pass
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except Exception:
        pass
    os._exit(status)


_armed = {}


def arm(seconds):
    """Starts the --timeout clock (seconds <= 0: no limit)."""
    if seconds is None or seconds <= 0 or not hasattr(signal, "setitimer"):
        return

    def expired(signum, frame):
        if _armed.get("leaving"):
            return
        _armed["expired"] = True
        raise TimeUp()
    _armed["seconds"] = seconds
    signal.signal(signal.SIGALRM, expired)
    # again every second after the first: model code that swallows the first
    # TimeUp (a bare except) meets the next one
    signal.setitimer(signal.ITIMER_REAL, float(seconds), 1.0)


def expired():
    """True once the --timeout clock has run out. The alarm may land inside an
    import, which turns it into an ImportError ("initialization failed"): an
    importer's error exit asks this first and reports the timeout instead."""
    return bool(_armed.get("expired"))


def disarm():
    _armed["leaving"] = True
    if "seconds" in _armed and hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_REAL, 0)


def timeout_arg(text):
    """argparse type of --timeout: seconds, a number >= 0."""
    import argparse
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("expected a number of seconds >= 0 (0: no limit), got %r" % text)
    if not math.isfinite(v) or v < 0 or v > MAX_TIMEOUT:
        raise argparse.ArgumentTypeError("expected a number of seconds from 0 (no limit) to %d, got %r"
                                         % (MAX_TIMEOUT, text))
    return v

