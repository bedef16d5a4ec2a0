"""Checks a Chrome trace written by `placeto simulate --trace` (or export
--trace, or the explorer's t) against the Trace Event Format's rules, and
its dependency flows against the simulated graph.

usage: tracecheck.py TRACE [GRAPH PLACEMENT_JSON_OUT]
  GRAPH and the output of `placeto simulate GRAPH ... --json` (when given)
  let it check that the flows are the graph's: each transfer's producer to
  the transfer, the transfer to every op it releases.

The rules of the Trace Event Format (the "Trace Event Format" document of
the Chrome tracing project, the JSON format Perfetto and chrome://tracing
read) that apply to what placeto writes:

 1. The file is a JSON object whose "traceEvents" is an array of events;
    "displayTimeUnit" is "ms" or "ns"; "otherData" is an object.
 2. Every event has "ph" (its phase), "pid" and "tid". Every event other
    than a metadata event ("M") has "name" and "ts", the time in
    microseconds, a number.
 3. Metadata events: "M" with name process_name, process_sort_index,
    thread_name (and a few others) carry their value in "args"
    ("name" or "sort_index").
 4. Complete events ("X") have "dur", a number >= 0 (microseconds). Slices
    on one thread (pid, tid) must nest: two either do not overlap or one
    contains the other (placeto's lanes never nest: no overlap at all).
    The format requires ts in increasing order on a thread only for
    duration events ("B"/"E" pairs, which must also match up); placeto
    writes none, and complete events may appear in any order, so there is
    no ordering to check beyond this.
 5. Flow events: "s" starts a flow, "t" is a step, "f" finishes it. A flow
    is the events with the same "id" and "cat" (placeto gives them the same
    "name" too): exactly one "s", any number of "t", exactly one "f", with
    ts not decreasing from the start to the finish. "id" is a number or a
    string.
 6. Binding: a flow start binds to the slice that encloses its ts on its
    own thread (same pid and tid); a step or finish binds by default to the
    next slice that begins on its thread, and to the enclosing slice with
    "bp": "e". placeto binds every finish to its enclosing slice, so each
    "f" must carry "bp": "e" and every flow event's ts must fall within
    exactly one slice on its thread (ts <= t <= ts + dur).
Exit status 0 or 1 with the reason on stderr. Needs only the standard
library.
"""
import json
import sys


def fail(msg):
    sys.stderr.write("tracecheck: %s\n" % msg)
    sys.exit(1)


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def main():
    if len(sys.argv) not in (2, 4):
        fail("usage: tracecheck.py TRACE [GRAPH SIMULATE_JSON]")
    d = json.load(open(sys.argv[1]))
    # rule 1
    if not isinstance(d, dict) or not isinstance(d.get("traceEvents"), list) or not d["traceEvents"]:
        fail("no traceEvents array")
    if d.get("displayTimeUnit") not in (None, "ms", "ns"):
        fail("displayTimeUnit %r" % d.get("displayTimeUnit"))
    if "otherData" in d and not isinstance(d["otherData"], dict):
        fail("otherData is not an object")
    slices = {}  # (pid, tid) -> [(ts, end, event)]
    flows = {}  # (cat, id) -> [event]
    for i, e in enumerate(d["traceEvents"]):
        where = "event %d (%r)" % (i, e.get("name") if isinstance(e, dict) else e)
        if not isinstance(e, dict):
            fail("%s is not an object" % where)
        # rule 2
        for k in ("ph", "pid", "tid"):
            if k not in e:
                fail("%s has no %r" % (where, k))
        ph = e["ph"]
        if ph == "M":  # rule 3
            if e.get("name") not in ("process_name", "process_sort_index", "thread_name", "thread_sort_index"):
                fail("%s: unknown metadata %r" % (where, e.get("name")))
            if not isinstance(e.get("args"), dict) or not ({"name", "sort_index"} & set(e["args"])):
                fail("%s: metadata without its value in args" % where)
            continue
        if not isinstance(e.get("name"), str) or not number(e.get("ts")):
            fail("%s: name and a numeric ts are required" % where)
        if ph == "X":  # rule 4
            if not number(e.get("dur")) or e["dur"] < 0:
                fail("%s: dur missing or negative" % where)
            slices.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"], e))
        elif ph in ("s", "t", "f"):  # rule 5
            if not isinstance(e.get("id"), (int, str)) or isinstance(e.get("id"), bool):
                fail("%s: a flow event needs an id" % where)
            if not isinstance(e.get("cat"), str):
                fail("%s: a flow event needs a cat" % where)
            flows.setdefault((e["cat"], e["id"]), []).append(e)
        else:
            fail("%s: phase %r is not one placeto writes" % (where, ph))
    for lane, es in slices.items():
        es.sort(key=lambda s: (s[0], s[1]))
        for a, b in zip(es, es[1:]):
            if b[0] < a[1] - 1e-9 and b[1] > a[1] + 1e-9:
                fail("slices %r and %r overlap on pid %r tid %r without nesting" % (a[2]["name"], b[2]["name"], lane[0], lane[1]))
            if b[0] < a[1] - 1e-9:
                fail("slices %r and %r overlap on pid %r tid %r" % (a[2]["name"], b[2]["name"], lane[0], lane[1]))

    def enclosing(e):  # rule 6
        lane = slices.get((e["pid"], e["tid"]), [])
        hits = [s for s in lane if s[0] - 1e-9 <= e["ts"] <= s[1] + 1e-9]
        if len(hits) != 1:
            fail("flow %r id %r (%s) at ts %r on pid %r tid %r falls within %d slices, expected exactly one" % (
                e["name"], e["id"], e["ph"], e["ts"], e["pid"], e["tid"], len(hits)))
        return hits[0][2]

    bound = []  # (id, start slice, finish slice)
    for (cat, fid), es in sorted(flows.items(), key=lambda kv: str(kv[0])):
        phs = [e["ph"] for e in es]
        if phs.count("s") != 1 or phs.count("f") != 1:
            fail("flow cat %r id %r has %d starts and %d finishes, expected one of each" % (
                cat, fid, phs.count("s"), phs.count("f")))
        if len({e["name"] for e in es}) != 1:
            fail("flow cat %r id %r: names differ" % (cat, fid))
        start = next(e for e in es if e["ph"] == "s")
        finish = next(e for e in es if e["ph"] == "f")
        if finish.get("bp") != "e":
            fail("flow cat %r id %r: the finish has no \"bp\": \"e\"" % (cat, fid))
        if any(e["ts"] < start["ts"] or e["ts"] > finish["ts"] for e in es):
            fail("flow cat %r id %r goes back in time" % (cat, fid))
        bound.append((fid, enclosing(start), enclosing(finish)))
    if len(sys.argv) == 4:
        check_graph(bound, sys.argv[2], sys.argv[3])
    print("%d slices, %d flows" % (sum(len(v) for v in slices.values()), len(bound)))


def check_graph(bound, graph_path, sim_path):
    """The flows are the graph's: one from each transfer's producer (the op
    before ":" in its name, on the transfer's device) to the transfer; the
    others from a transfer to ops that consume that output (an edge of the
    graph from the producer's output) on one of the transfer's destination
    devices, each such consumer reached at most once per transfer. Slices
    of zero length have no flows (their binding would be ambiguous)."""
    g = json.load(open(graph_path))
    sim = json.load(open(sim_path))
    dev = {o["name"]: o["device"] for o in sim["ops"]}
    consumers = {}
    for e in g["edges"]:
        consumers.setdefault((e["src"], e.get("output", 0)), set()).add(e["dst"])
    into = {}  # id(transfer event) -> producer flows
    out = {}  # id(transfer event) -> consumer names
    for fid, a, b in bound:
        if a["dur"] <= 0 or b["dur"] <= 0:
            fail("flow %r binds to a slice of zero length" % fid)
        if (a["cat"], b["cat"]) == ("op", "transfer"):
            src, output = b["name"].rsplit(":", 1)
            if a["name"] != src or dev[src] != b["pid"] - 1:
                fail("flow %r: from %r to the transfer %r of another op" % (fid, a["name"], b["name"]))
            into[id(b)] = into.get(id(b), 0) + 1
        elif (a["cat"], b["cat"]) == ("transfer", "op"):
            src, output = a["name"].rsplit(":", 1)
            if b["name"] not in consumers.get((src, int(output)), ()):
                fail("flow %r: %r does not consume %r" % (fid, b["name"], a["name"]))
            names = [d["name"] for d in sim["devices"]]
            if names[dev[b["name"]]] not in a["args"]["to"]:
                fail("flow %r: %r is not on a destination of %r" % (fid, b["name"], a["name"]))
            seen = out.setdefault(id(a), set())
            if b["name"] in seen:
                fail("flow %r: %r reached twice from %r" % (fid, b["name"], a["name"]))
            seen.add(b["name"])
        else:
            fail("flow %r from a %r slice to a %r slice" % (fid, a["cat"], b["cat"]))
    # every transfer of non-zero length whose producer has a length has one
    # flow from it (a transfer's slices are told apart by their ts)
    cost = {o["name"]: o["end_us"] - o["start_us"] for o in sim["ops"]}
    want = sum(1 for t in sim["transfers"] if t["end_us"] > t["start_us"] and cost[t["src"]] > 0)
    if any(v != 1 for v in into.values()) or len(into) != want:
        fail("%d transfers with a producer of non-zero length, %d with one flow from it" % (want, len(into)))


if __name__ == "__main__":
    main()
