"""The results scripts' command line: an optional program path first, then
`--name value` pairs. options(script, known) returns (program, {name:
value}) for the names in known (without their dashes); anything else, or
a name without a value, exits with a message naming the script.
family_sets(fresh) gives the families' evaluation sets.

A script that takes --fresh DIR also takes --repeats refuse|flag (default
refuse): a graph of DIR that equals a bundled family member (by
graphs/import/families.py's fingerprint, names aside) stops the script
with a message naming it, or with flag is only named on stderr. Known
names "seed" and "only" mean --seed S (default 1), the seed of every
placement the script runs (SEED), and --only WHAT,... (set kinds and
families: held-out, fresh, nmt, ...; a set runs when its kind and its
family are named, or no kind, or no family), the sets family_sets gives."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "graphs", "import"))
import families  # noqa: E402

SEED = "1"
_SCRIPT, _REPEATS, _ONLY = "bench", "refuse", None


def options(script, known, argv=None):
    """(program, {name: value}); see the module's comment for the names every
    script with --fresh also takes."""
    global SEED, _SCRIPT, _REPEATS, _ONLY
    _SCRIPT = script
    if "fresh" in known:
        known = list(known) + ["repeats"]
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
    if got.get("repeats", "refuse") not in ("refuse", "flag"):
        sys.exit("%s: --repeats takes refuse or flag, got %s" % (script, got["repeats"]))
    _REPEATS, SEED = got.get("repeats", "refuse"), got.get("seed", SEED)
    _ONLY = got["only"].split(",") if "only" in got else None
    return prog, got


FAMILIES = [("enas-cifar10", "enas_cifar10"), ("enas-ptb", "enas_ptb"), ("nmt", "nmt_variant")]


def family_sets(fresh=None, held=(24, 31)):
    """The evaluation sets of the three families: [(kind, family, paths)],
    each family's held-out members (graphs 24-31) and, with fresh (a
    directory of freshly generated members, new importer seeds), those;
    with --only, the sets named."""
    sets = []
    for fam, m in FAMILIES:
        sets.append(("held-out", fam, ["graphs/families/%s/%s_%02d.json" % (fam, m, i)
                                       for i in range(held[0], held[1] + 1)]))
        fs = fresh_members(fresh, m)
        if fs:
            sets.append(("fresh", fam, fs))
    if _ONLY:
        kinds = [w for w in _ONLY if w in ("held-out", "fresh")]
        fams = [w for w in _ONLY if w not in kinds]
        sets = [s for s in sets if (not kinds or s[0] in kinds) and (not fams or s[1] in fams)]
    return sets


def fresh_members(fresh, model):
    """The graphs MODEL_*.json of directory fresh (none without one), each
    checked against the bundled family members: one that equals a member
    (names aside) ends the script, naming both, unless --repeats flag."""
    if not fresh:
        return []
    fs = sorted(os.path.join(fresh, f) for f in os.listdir(fresh) if f.startswith(model + "_") and f.endswith(".json"))
    families.refuse(_SCRIPT, [families.graph_message(p) for p in fs], _REPEATS == "flag")
    return fs


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
