#!/usr/bin/env python3
"""The repository's Python reference for the simulator.

This file is the executable statement of the simulator's semantics that
docs/simulator.md describes in prose.  It is deliberately plain and slow: one
step of the prose is one step of the code, and every floating-point operation
is written in the order the C simulator (core/sim/sim.c) must perform it, so
that the two agree to the last bit, as they must on every case of
tests/data/sim_public.json.  The unit tests (tests/unit/test_sim_props.c) run
both on random graphs and placements and compare every time and every peak
exactly; bench/bench.sh times both.

Usage:

    python3 tests/sim_ref.py GRAPH.json PLACEMENT.json [--devices N]

GRAPH is a placeto-graph file, PLACEMENT a placeto-placement file in the "ops"
form (a device index for every op).  The cluster is the default one: N
identical devices named /GPU:0 ... /GPU:N-1 of kind "gpu" and speed 1, with the
Placeto simulator's parameters below; N is --devices, else the placement's
device count.  One line of JSON is printed:

    {"makespan_us": T,
     "ops": [{"name", "device", "start_us", "end_us"}, ...],      graph order
     "devices": [{"name", "peak_memory_bytes", "oom"}, ...],       device order
     "transfers": [{"src", "output", "bytes", "from", "to",
                    "start_us", "end_us"}, ...]}                   creation order

It can also be loaded as a module: load_graph(), load_placement() and
simulate() are the same steps without the command line.

Only the standard library is used, so that any python3 runs it.
"""

import argparse
import heapq
import json
import math
import sys

# ---------------------------------------------------------------------------
# The default cluster (the Placeto simulator's K80-class GPUs and PCIe link)

OP_GAP_US = 5.7  # idle time of a device after an op of nonzero cost
TRANSFER_OVERHEAD_US = 25.0  # idle time of a bus after each transfer
BANDWIDTH_BYTES_PER_US = 7600.0
DEVICE_MEMORY_BYTES = 11811160064
DEVICE_KIND = "gpu"
RELEASE_TIME_US = 0.0  # when the ops without parents become ready


def device_name(d):
    return "/GPU:%d" % d


# Kinds of events.  Events are taken in order of time, then kind (these
# numbers), then payload.
DEPENDENCY = 0  # an input of an op has arrived
BUS = 1  # a device's outgoing bus may start its next transfer
DEVICE = 2  # a device may start its next op


# ---------------------------------------------------------------------------
# Reading the inputs


class Op:
    """One node of the graph, as the simulator sees it."""

    def __init__(self, name, cost_us, kind_costs, output_bytes):
        self.name = name
        # Names compare as byte strings (UTF-8), not as Python strings.
        self.key = name.encode("utf-8")
        self.cost_us = cost_us
        self.kind_costs = kind_costs  # device kind -> cost in µs
        self.output_bytes = output_bytes  # bytes of each output, by index
        # child op index -> the output index it reads.  A dict keeps the
        # order in which each (op, child) pair first appears among the edges;
        # a repeated pair keeps its first place and takes the last output.
        self.children = {}
        self.parents = set()  # op indices

    def cost_on_default_device(self):
        """c(n): the op's cost on a device of the default cluster (kind
        "gpu", speed 1): its cost for that kind when the graph gives one,
        else its cost_us unchanged."""
        return self.kind_costs.get(DEVICE_KIND, self.cost_us)

    def bytes_of_output(self, k):
        """Bytes of output k; an output the op does not list has 0 bytes."""
        return self.output_bytes[k] if 0 <= k < len(self.output_bytes) else 0

    def total_output_bytes(self):
        return sum(self.output_bytes)


class Graph:
    def __init__(self, ops):
        self.ops = ops  # in the file's order ("graph order")
        self.index = {op.name: i for i, op in enumerate(ops)}


def load_graph(path):
    """Reads a placeto-graph file."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    ops = []
    for node in doc["nodes"]:
        outputs = node.get("output_bytes", 0)
        if not isinstance(outputs, list):
            outputs = [outputs]  # a single number is one output
        kind_costs = {k: float(v) for k, v in node.get("cost_us_by_kind", {}).items()}
        ops.append(Op(node["name"], float(node.get("cost_us", 0.0)), kind_costs,
                      [int(b) for b in outputs]))
    graph = Graph(ops)
    if len(graph.index) != len(ops):
        raise ValueError("%s: two nodes have the same name" % path)
    for edge in doc.get("edges", []):
        src, dst = graph.index[edge["src"]], graph.index[edge["dst"]]
        if src == dst:
            raise ValueError("%s: edge from %r to itself" % (path, edge["src"]))
        ops[src].children[dst] = int(edge.get("output", 0))
        ops[dst].parents.add(src)
    return graph


def load_placement(path, graph):
    """Reads a placeto-placement file in the "ops" form.  Returns the device
    index of every op (graph order) and the file's device count."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if "ops" not in doc:
        raise ValueError("%s: only placements of ops (an \"ops\" object) are supported" % path)
    devices = doc["devices"]
    n_devices = len(devices) if isinstance(devices, list) else int(devices)
    device_of = []
    for op in graph.ops:
        if op.name not in doc["ops"]:
            raise ValueError("%s: op %r is not placed" % (path, op.name))
        device_of.append(int(doc["ops"][op.name]))
    return device_of, n_devices


# ---------------------------------------------------------------------------
# The simulation


class Resource:
    """A device's compute, or its outgoing bus: a busy flag and a queue of
    items ordered by (ready time, enqueue number)."""

    def __init__(self, name):
        self.name = name
        self.key = name.encode("utf-8")
        self.busy = False
        self.queue = []  # a heap of (ready_us, seq, item)


class Transfer:
    """One output of one op sent over its device's bus to every consumer of
    that output on other devices (one transfer, however many consumers)."""

    def __init__(self, src, output, nbytes, from_device):
        self.src = src
        self.output = output
        self.bytes = nbytes
        self.from_device = from_device
        self.children = []  # consumers, in the order of the op's children
        self.start_us = None
        self.end_us = None


class Result:
    def __init__(self, makespan_us, start_us, end_us, transfers, peak_memory_bytes):
        self.makespan_us = makespan_us
        self.start_us = start_us  # per op
        self.end_us = end_us  # per op
        self.transfers = transfers  # in the order they were created
        self.peak_memory_bytes = peak_memory_bytes  # per device

    def oom(self, d):
        return self.peak_memory_bytes[d] > DEVICE_MEMORY_BYTES


def simulate(graph, device_of, n_devices):
    """Runs the graph with op i on device device_of[i] of the default cluster
    of n_devices devices.  Returns a Result."""
    ops = graph.ops
    for i, d in enumerate(device_of):
        if not 0 <= d < n_devices:
            raise ValueError("op %r is on device %d of %d" % (ops[i].name, d, n_devices))
    cost = [op.cost_on_default_device() for op in ops]

    # Resources 0 .. n-1 are the devices' compute, n .. 2n-1 their buses.
    resources = [Resource(device_name(d)) for d in range(n_devices)]
    resources += [Resource("/bus" + device_name(d)) for d in range(n_devices)]

    def compute(d):
        return d

    def bus(d):
        return n_devices + d

    # Events are tuples (time, kind, payload key, what).  The key is the
    # resource's name, or the pair (parent name, child name) as byte strings;
    # at most one event per resource and one per (parent, child) pair is ever
    # pending, so no two events tie on the first three fields and `what` (the
    # resource index, or the pair of op indices) is never compared.
    events = []
    seq = 0  # one counter for every enqueue on every resource

    def push_event(t, kind, what):
        if kind == DEPENDENCY:
            parent, child = what
            key = (ops[parent].key, ops[child].key)
        else:
            key = resources[what].key
        heapq.heappush(events, (t, kind, key, what))

    def enqueue(t, kind, r, item):
        """Adds item, ready at t, to resource r's queue, and wakes r up at t
        unless it is already busy (a busy resource looks at its queue again
        by itself when it is done)."""
        nonlocal seq
        seq += 1
        heapq.heappush(resources[r].queue, (t, seq, item))
        if not resources[r].busy:
            push_event(t, kind, r)
            resources[r].busy = True

    waiting = [set(op.parents) for op in ops]  # parents not yet delivered
    start_us = [None] * len(ops)
    end_us = [None] * len(ops)
    transfers = []

    def run_op(t, d):
        """Device d is free at t: it runs the first op of its queue."""
        _ready, _seq, n = heapq.heappop(resources[compute(d)].queue)
        start_us[n] = t
        end_us[n] = t + cost[n]
        # The device looks at its queue again after the op, and after a gap
        # when the op took any time.
        push_event(end_us[n] + (OP_GAP_US if cost[n] > 0 else 0.0), DEVICE, compute(d))
        # Children on this device get the result at once; the others get it
        # by one transfer per output index, in the order in which the index
        # first appears among the children.
        outgoing = {}  # output index -> Transfer
        for child, k in ops[n].children.items():
            if device_of[child] == d:
                push_event(end_us[n], DEPENDENCY, (n, child))
                continue
            if k not in outgoing:
                outgoing[k] = Transfer(n, k, ops[n].bytes_of_output(k), d)
            outgoing[k].children.append(child)
        for tr in outgoing.values():
            transfers.append(tr)
            enqueue(end_us[n], BUS, bus(d), tr)

    def run_transfer(t, d):
        """Device d's bus is free at t: it sends the first transfer of its
        queue if that one is ready, else it waits until it is."""
        queue = resources[bus(d)].queue
        ready, _seq, tr = queue[0]
        if ready > t:
            push_event(ready, BUS, bus(d))
            return
        heapq.heappop(queue)
        delay = float(tr.bytes) / BANDWIDTH_BYTES_PER_US
        arrive = t + delay
        tr.start_us, tr.end_us = t, arrive
        for child in tr.children:
            push_event(arrive, DEPENDENCY, (tr.src, child))
        push_event(arrive + TRANSFER_OVERHEAD_US, BUS, bus(d))

    for n, op in enumerate(ops):
        if not op.parents:
            enqueue(RELEASE_TIME_US, DEVICE, compute(device_of[n]), n)

    makespan_us = 0.0
    while events:
        t, kind, _key, what = heapq.heappop(events)
        makespan_us = max(makespan_us, t)
        if kind == DEPENDENCY:
            parent, child = what
            waiting[child].discard(parent)
            if not waiting[child]:
                enqueue(t, DEVICE, compute(device_of[child]), child)
            continue
        r = what
        if not resources[r].queue:
            resources[r].busy = False  # nothing to do: the next enqueue wakes it
            continue
        if kind == DEVICE:
            run_op(t, r)
        else:
            run_transfer(t, r - n_devices)

    never_ran = [ops[n].name for n in range(len(ops)) if start_us[n] is None]
    if never_ran:
        raise ValueError("ops that never ran (a cycle?): %s" % ", ".join(never_ran[:8]))
    peaks = peak_memory(graph, device_of, n_devices, cost, start_us)
    return Result(makespan_us, start_us, end_us, transfers, peaks)


def peak_memory(graph, device_of, n_devices, cost, start_us):
    """The largest total of live output tensors on each device.  An op's
    outputs (all of them, consumed or not) are allocated on its device when
    it starts and freed at the later of its start and trunc(start) +
    trunc(cost) - 1 of each child; trunc drops the fraction, and the sum is
    taken in floating point, left to right.  At equal times allocations come
    before frees."""
    ALLOCATE, FREE = 0, 1
    changes = []  # (time, ALLOCATE or FREE, device, bytes)
    for n, op in enumerate(graph.ops):
        m = op.total_output_bytes()
        if m == 0:
            continue
        free_at = start_us[n]
        for child in op.children:
            t = float(math.trunc(start_us[child])) + float(math.trunc(cost[child])) - 1.0
            free_at = max(free_at, t)
        changes.append((start_us[n], ALLOCATE, device_of[n], m))
        changes.append((free_at, FREE, device_of[n], -m))
    # The order among changes of equal time and kind cannot change a peak.
    changes.sort(key=lambda c: (c[0], c[1]))
    live = [0] * n_devices
    peak = [0] * n_devices
    for _t, _kind, d, delta in changes:
        live[d] += delta
        peak[d] = max(peak[d], live[d])
    return peak


# ---------------------------------------------------------------------------
# The command line


def result_json(graph, device_of, n_devices, res):
    ops = graph.ops
    return {
        "makespan_us": res.makespan_us,
        "ops": [{"name": op.name, "device": device_of[n], "start_us": res.start_us[n],
                 "end_us": res.end_us[n]} for n, op in enumerate(ops)],
        "devices": [{"name": device_name(d), "peak_memory_bytes": res.peak_memory_bytes[d],
                     "oom": res.oom(d)} for d in range(n_devices)],
        "transfers": [{"src": ops[tr.src].name, "output": tr.output, "bytes": tr.bytes,
                       "from": tr.from_device,
                       "to": list(dict.fromkeys(device_of[c] for c in tr.children)),
                       "start_us": tr.start_us, "end_us": tr.end_us} for tr in res.transfers],
    }


def main():
    # sys.argv is read at each call: a driver may set it and call main()
    # several times in one process.
    parser = argparse.ArgumentParser(
        prog="sim_ref.py",
        description="Simulates GRAPH under PLACEMENT on the default cluster (the "
                    "repository's Python reference for the simulator).")
    parser.add_argument("graph", metavar="GRAPH")
    parser.add_argument("placement", metavar="PLACEMENT")
    parser.add_argument("--devices", type=int, metavar="N",
                        help="number of devices (default: the placement's)")
    args = parser.parse_args(sys.argv[1:])
    graph = load_graph(args.graph)
    device_of, n_devices = load_placement(args.placement, graph)
    if args.devices is not None:
        n_devices = args.devices
    res = simulate(graph, device_of, n_devices)
    print(json.dumps(result_json(graph, device_of, n_devices, res)))


if __name__ == "__main__":
    main()
