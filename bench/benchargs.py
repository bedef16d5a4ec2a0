"""The results scripts' command line: an optional program path first, then
`--name value` pairs. options(script, known) returns (program, {name:
value}) for the names in known (without their dashes); anything else, or
a name without a value, exits with a message naming the script.
family_sets(fresh) gives the families' evaluation sets."""
import os
import sys


def options(script, known, argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    prog = "./placeto"
    if args and not args[0].startswith("--"):
        prog = args.pop(0)
    got = {}
    while args:
        k = args.pop(0)
        if not k.startswith("--") or k[2:] not in known:
            sys.exit("%s: unknown option %s (known: %s)" % (script, k, ", ".join("--" + n for n in known)))
        if not args:
            sys.exit("%s: %s needs a value" % (script, k))
        got[k[2:]] = args.pop(0)
    return prog, got


FAMILIES = [("enas-cifar10", "enas_cifar10"), ("enas-ptb", "enas_ptb"), ("nmt", "nmt_variant")]


def family_sets(fresh=None, held=(24, 31)):
    """The evaluation sets of the three families: [(kind, family, paths)],
    each family's held-out members (graphs 24-31) and, with fresh (a
    directory of freshly generated members, new importer seeds), those."""
    sets = []
    for fam, m in FAMILIES:
        sets.append(("held-out", fam, ["graphs/families/%s/%s_%02d.json" % (fam, m, i)
                                       for i in range(held[0], held[1] + 1)]))
        if fresh:
            fs = sorted(os.path.join(fresh, f) for f in os.listdir(fresh) if f.startswith(m + "_") and f.endswith(".json"))
            if fs:
                sets.append(("fresh", fam, fs))
    return sets


def gain(rows, a="trained", b="untrained"):
    """1 - the geometric mean of row[a] / row[b] over rows: > 0 when a is
    faster (training helped, for the default keys)."""
    import math
    return 1 - math.exp(sum(math.log(r[a] / r[b]) for r in rows) / len(rows))


def per_set(run, sets, devices):
    """run((graph, devices)) -> ((graph, devices), result) on every graph of
    every set and device count, in parallel (one job a core): [(devices,
    kind, family, [result per graph])] in the order of devices and sets."""
    import concurrent.futures
    jobs = [(g, nd) for nd in devices for _, _, gs in sets for g in gs]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as ex:
        res = dict(ex.map(run, jobs))
    return [(nd, kind, fam, [res[(g, nd)] for g in gs]) for nd in devices for kind, fam, gs in sets]
