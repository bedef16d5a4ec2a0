"""What every experiment of bench/run shares: writing a result file that
says where it came from.

write_result(path, doc) (or `with open_result(path) as f`) writes bench/results/NAME.json or .md atomically
(a temporary file, then a rename), stamped with meta(): the commit (`git
describe --always --dirty`), the exact command line (and the bench/run
command that started it, from PLACETO_BENCH_RUN), the machine (uname -m,
the CPU model of /proc/cpuinfo, the core count, the OpenBLAS core type and
pinning variables and PLACETO_KERNELS when set, the CPUs the process is
pinned to when not all) and the date. A JSON
result gets a top-level "meta" object (a list of rows is kept under
"rows"); a markdown result a first line `<!-- meta: {...} -->`.
read_result(path) gives the document back without its meta (a list of rows
as the list), for files written before the stamp too.

Bash experiments use the same code from the command line:
    python3 bench/lib.py write PATH < TEXT     # stamps and writes PATH
    python3 bench/lib.py meta                  # the meta object as JSON
"""
import datetime
import io
import json
import os
import platform
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "bench", "results")
MD_META = "<!-- meta: "
ENV_KEYS = ("OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OPENBLAS_MAIN_FREE", "GOTO_NUM_THREADS",
            "OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "PLACETO_KERNELS")


def _commit():
    try:
        return subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k.strip() in ("model name", "Model", "cpu model"):
                    return v.strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def meta(argv=None):
    """Where a result comes from: commit, command (argv; by default the
    bash command in PLACETO_BENCH_CMD, else this process's), machine, date."""
    if argv is None:
        argv = _bash_cmd() or [sys.executable] + sys.argv
    m = {"commit": _commit(),
         "command": shlex.join(argv),
         "machine": {"arch": platform.machine(), "cpu": _cpu_model(), "cores": os.cpu_count(),
                     "env": {k: os.environ[k] for k in ENV_KEYS if k in os.environ}},
         "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
    if hasattr(os, "sched_getaffinity") and len(os.sched_getaffinity(0)) < (os.cpu_count() or 0):
        m["machine"]["affinity"] = sorted(os.sched_getaffinity(0))  # pinned (taskset) to these CPUs
    if os.environ.get("PLACETO_BENCH_RUN"):
        m["run"] = os.environ["PLACETO_BENCH_RUN"]
    return m


def stamp(path, doc, argv=None):
    """The text of result path (.json: doc a dict or list, .md: doc a str) with its meta."""
    m = meta(argv)
    if path.endswith(".md"):
        return MD_META + json.dumps(m) + " -->\n" + doc
    if not isinstance(doc, dict):
        doc = {"rows": doc}
    doc = dict(doc)
    doc.pop("meta", None)
    return json.dumps(dict({"meta": m}, **doc), indent=1) + "\n"


def write_result(path, doc, argv=None):
    """Writes result path (relative paths from the checkout's root) stamped
    with meta(), atomically; returns the path."""
    path = os.path.join(ROOT, path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write(stamp(path, doc, argv))
    os.replace(tmp, path)
    return path


class open_result(io.StringIO):
    """`with open_result(path) as f:` as `with open(path, "w") as f:`, the
    text written becoming write_result(path, ...) when the block ends
    (a .json file's text parsed first)."""

    def __init__(self, path):
        super().__init__()
        self.path = path

    def __exit__(self, *exc):
        if exc[0] is None:
            text = self.getvalue()
            write_result(self.path, text if self.path.endswith(".md") else json.loads(text))
        return super().__exit__(*exc)


def read_result(path):
    """A result written by write_result (or before it) without its meta."""
    with open(os.path.join(ROOT, path)) as f:
        if path.endswith(".md"):
            text = f.read()
            return text.split("\n", 1)[1] if text.startswith(MD_META) else text
        doc = json.load(f)
    if isinstance(doc, dict) and "meta" in doc:
        doc = dict(doc)
        del doc["meta"]
        if list(doc) == ["rows"]:
            return doc["rows"]
    return doc


def _bash_cmd():
    """The command a bash experiment names in PLACETO_BENCH_CMD (for the
    python it runs), or None."""
    return shlex.split(os.environ["PLACETO_BENCH_CMD"]) if os.environ.get("PLACETO_BENCH_CMD") else None


def main(args):
    if args[:1] == ["meta"] and len(args) == 1:
        print(json.dumps(meta()))
    elif args[:1] == ["write"] and len(args) == 2 and args[1].endswith((".json", ".md")):
        text = sys.stdin.read()
        doc = text if args[1].endswith(".md") else json.loads(text)
        write_result(args[1], doc)
    else:
        sys.exit("bench/lib.py: usage: lib.py meta | lib.py write PATH.json|PATH.md < TEXT "
                 "(PLACETO_BENCH_CMD: the bash command to record)")


if __name__ == "__main__":
    main(sys.argv[1:])
