#!/usr/bin/python3
"""The generated families' seeds and configurations, without PyTorch: how an
importer seed maps to a configuration, which bundled graph (if any) a seed or
a graph file repeats, and which seeds are fresh.

    /usr/bin/python3 graphs/import/families.py seed MODEL SEED... [--repeats flag]
    /usr/bin/python3 graphs/import/families.py graph FILE... [--repeats flag]
    /usr/bin/python3 graphs/import/families.py fresh MODEL COUNT [FROM]
    /usr/bin/python3 graphs/import/families.py table MODEL [FIRST COUNT]

MODEL is a family's importer model (torch_graph.py --model): enas_cifar10,
enas_ptb or nmt_variant. Each family's bundled members are
graphs/families/DIR/MODEL_SS.json, made with --seed SS for SS = 00..31;
00-23 are the training graphs (every family policy is trained on them),
24-31 the held-out ones.

How a seed maps to a configuration (torch_graph.py --model MODEL --seed S;
the seed also seeds the weights and the example inputs, which change
neither the graph's ops, costs, sizes nor edges):

  nmt_variant    entry S mod 75 of NMT_VARIANTS: every (layers, hidden,
                 steps) with layers 1-3, hidden 256/320/384/448/512 and
                 steps 4-8, in one fixed shuffle (random.Random(2019)).
                 75 configurations in all, so seeds S and S + 75 make the
                 same graph; the bundled seeds 0-31 take entries 0-31, and
                 only seeds with S mod 75 in 32..74 are fresh (43 of them).
  enas_cifar10   random.Random(S) draws the normal cell, then the
                 reduction cell: 5 blocks each, block k taking two inputs
                 of 2 + k and two ops of 5 (sep3 sep5 avg3 max3 id):
                 (720^2 x 5^10)^2, about 2.6e25 configurations.
  enas_ptb       random.Random(S) draws 8 nodes, node k reading one of the
                 k + 1 earlier states through one of 4 activations:
                 8! x 4^8, about 2.6e9 configurations.

So two seeds repeat each other by the generator for nmt_variant (always
when they are equal mod 75) and, by the chance of random.Random, almost
never for the ENAS families; `seed` compares configurations, `graph`
compares the graph itself (its fingerprint: every node's op, costs, sizes
and colocation, the layers' partition and the edges, with every name and
the source string left out) against every bundled member, so that an
equal graph under another name is caught too.

`seed` and `graph` exit 1 when one repeats a bundled member, naming it and
whether it is a training (00-23) or held-out (24-31) graph; with
`--repeats flag` they print the same lines and exit 0. `fresh` prints
COUNT seeds from FROM (default 32) up that repeat no bundled configuration;
`table` the configuration of each seed (default: the bundled 0-31).
"""
import glob
import hashlib
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# the source tree's graphs/families, or an installed share/placeto/families
FAMILIES_DIR = os.path.join(os.path.dirname(HERE), "families")
BUNDLED = 32       # members 00..31 of each family, made with seeds 0..31
TRAINING = 24      # 00..23 train the family policies; 24..31 are held out

# (family directory, importer model)
FAMILIES = [("enas-cifar10", "enas_cifar10"), ("enas-ptb", "enas_ptb"), ("nmt", "nmt_variant")]
DIR_OF = {m: d for d, m in FAMILIES}

# Every (layers, hidden, steps) of the NMT family, in one fixed shuffled
# order: seed s takes entry s mod 75, so that seeds 0-74 give distinct
# graphs (drawing each choice from the seed gave repeats among 32 members).
NMT_VARIANTS = [(l, h, t) for l in (1, 2, 3) for h in (256, 320, 384, 448, 512) for t in (4, 5, 6, 7, 8)]
random.Random(2019).shuffle(NMT_VARIANTS)

ENAS_CONV_OPS = ["sep3", "sep5", "avg3", "max3", "id"]
ENAS_RNN_ACTS = ["tanh", "relu", "sigmoid", "identity"]


def enas_cell(rng, blocks):
    """An ENAS convolutional cell: per block (input, op, input, op)."""
    cell = []
    for k in range(blocks):
        i1, i2 = rng.randrange(2 + k), rng.randrange(2 + k)
        cell.append((i1, rng.choice(ENAS_CONV_OPS), i2, rng.choice(ENAS_CONV_OPS)))
    return cell


def enas_rnn_arch(rng, nodes):
    """An ENAS recurrent cell: per node (the earlier state it reads, its activation)."""
    return [(rng.randrange(k + 1), rng.choice(ENAS_RNN_ACTS)) for k in range(nodes)]


def nmt_variant(seed):
    """(layers, hidden, steps) of nmt_variant seed `seed`."""
    return NMT_VARIANTS[seed % len(NMT_VARIANTS)]


def enas_cifar10(seed):
    """(normal cell, reduction cell) of enas_cifar10 seed `seed`."""
    rng = random.Random(seed)
    normal = enas_cell(rng, 5)
    return normal, enas_cell(rng, 5)


def enas_ptb(seed):
    """The 8-node recurrent cell of enas_ptb seed `seed`."""
    return enas_rnn_arch(random.Random(seed), 8)


CONFIG = {"nmt_variant": nmt_variant, "enas_cifar10": enas_cifar10, "enas_ptb": enas_ptb}


def describe(model, seed):
    """One line: the configuration of `seed`."""
    c = CONFIG[model](seed)
    if model == "nmt_variant":
        return "configuration %d of %d: %d layer%s, hidden %d, %d steps" % (
            seed % len(NMT_VARIANTS), len(NMT_VARIANTS), c[0], "s" if c[0] > 1 else "", c[1], c[2])
    if model == "enas_cifar10":
        return "normal %s, reduction %s" % (list(c[0]), list(c[1]))
    return "cell %s" % list(c)


def member(model, s):
    """(path, name, which set) of bundled member s of `model`'s family."""
    name = "%s_%02d" % (model, s)
    return (os.path.join(FAMILIES_DIR, DIR_OF[model], name + ".json"), name,
            "a training graph (00-%02d)" % (TRAINING - 1) if s < TRAINING
            else "a held-out graph (%02d-%02d)" % (TRAINING, BUNDLED - 1))


def repeat_of_seed(model, seed):
    """The bundled member whose configuration seed `seed` repeats, as
    (member seed, path, name, which set), or None when it is fresh."""
    c = CONFIG[model](seed)
    for s in range(BUNDLED):
        if CONFIG[model](s) == c:
            return (s,) + member(model, s)
    return None


def seed_message(model, seed):
    """None when `seed` is fresh, else the line saying what it repeats."""
    r = repeat_of_seed(model, seed)
    if r is None:
        return None
    s, path, name, which = r
    rel = os.path.relpath(path) if not os.path.relpath(path).startswith("..") else path
    return ("%s seed %d is %s, the configuration of bundled seed %d: %s (%s), %s; not a fresh graph"
            % (model, seed, describe(model, seed), s, name, rel, which))


def fingerprint(graph):
    """A digest of a placeto-graph (a path or its parsed JSON) that leaves out
    every name: the graph's name and source, node names (colocation and
    edges refer to nodes by their index in the file's order) and layer names
    (only which nodes share a layer counts)."""
    if isinstance(graph, str):
        with open(graph) as f:
            graph = json.load(f)
    nodes = graph.get("nodes", [])
    index = {n.get("name"): i for i, n in enumerate(nodes)}
    layers = {}
    canon = []
    for n in nodes:
        c = {k: v for k, v in n.items() if k not in ("name", "colocate", "layer")}
        if "colocate" in n:
            c["colocate"] = index.get(n["colocate"], n["colocate"])
        if "layer" in n:
            c["layer"] = layers.setdefault(n["layer"], len(layers))
        canon.append(c)
    edges = sorted((index.get(e.get("src")), index.get(e.get("dst")), e.get("output", 0))
                   for e in graph.get("edges", []))
    rest = {k: v for k, v in graph.items() if k not in ("name", "source", "nodes", "edges")}
    text = json.dumps([rest, canon, edges], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


_BUNDLED_PRINTS = None


def bundled_prints():
    """{fingerprint: (path, name, which set)} of every bundled family member."""
    global _BUNDLED_PRINTS
    if _BUNDLED_PRINTS is None:
        _BUNDLED_PRINTS = {}
        for d, model in FAMILIES:
            for p in sorted(glob.glob(os.path.join(FAMILIES_DIR, d, model + "_*.json"))):
                s = int(os.path.basename(p)[len(model) + 1:-5])
                _BUNDLED_PRINTS.setdefault(fingerprint(p), member(model, s))
    return _BUNDLED_PRINTS


def graph_message(path):
    """None when the graph in `path` equals no bundled family member, else the
    line naming the member it equals."""
    hit = bundled_prints().get(fingerprint(path))
    if hit is None or os.path.abspath(hit[0]) == os.path.abspath(path):
        return None if hit is None else "%s is bundled member %s, %s; not a fresh graph" % (path, hit[1], hit[2])
    mp, name, which = hit
    rel = os.path.relpath(mp) if not os.path.relpath(mp).startswith("..") else mp
    return "%s is the same graph as bundled member %s (%s), %s, names aside; not a fresh graph" % (
        path, name, rel, which)


def fresh_seeds(model, count, first=BUNDLED):
    """The first `count` seeds from `first` up that repeat no bundled
    configuration (nor each other's)."""
    out, seen, s = [], [CONFIG[model](b) for b in range(BUNDLED)], first
    while len(out) < count:
        c = CONFIG[model](s)
        if c not in seen:
            out.append(s)
            seen.append(c)
        s += 1
        if s - first > 100000:
            sys.exit("families.py: fewer than %d fresh %s seeds from %d" % (count, model, first))
    return out


def refuse(prog, lines, flag, hint="--repeats flag"):
    """Prints each line of `lines` (not None) as "PROG: ..." on stderr and exits
    1 unless `flag` (then "PROG: warning: ..." and returns). Returns the
    lines printed."""
    lines = [x for x in lines if x]
    for x in lines:
        sys.stderr.write("%s: %s%s\n" % (prog, "warning: " if flag else "", x))
    if lines and not flag:
        sys.stderr.write("%s: %d graph%s repeat%s a bundled family member (%s only flags them)\n" % (
            prog, len(lines), "s" if len(lines) > 1 else "", "" if len(lines) > 1 else "s", hint))
        sys.exit(1)
    return lines


def main(argv):
    flag = False
    if "--repeats" in argv:
        i = argv.index("--repeats")
        if i + 1 >= len(argv) or argv[i + 1] not in ("flag", "refuse"):
            sys.exit("families.py: --repeats takes flag or refuse")
        flag = argv[i + 1] == "flag"
        del argv[i:i + 2]
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    what, args = argv[0], argv[1:]
    if what in ("seed", "fresh", "table") and (not args or args[0] not in CONFIG):
        sys.exit("families.py: %s needs a model: %s" % (what, ", ".join(sorted(CONFIG))))
    try:
        nums = [int(a) for a in args[1:]] if what != "graph" else []
    except ValueError:
        sys.exit("families.py: expected integer seeds, got %s" % " ".join(args[1:]))
    if what == "seed" and nums:
        model = args[0]
        for s in nums:
            if seed_message(model, s) is None:
                print("%s seed %d: %s; fresh (no bundled member has it)" % (model, s, describe(model, s)))
        refuse("families.py", [seed_message(args[0], s) for s in nums], flag)
        return 0
    if what == "graph" and args:
        for p in args:
            if graph_message(p) is None:
                print("%s: fresh (equals no bundled family member)" % p)
        refuse("families.py", [graph_message(p) for p in args], flag)
        return 0
    if what == "fresh" and len(nums) in (1, 2):
        print(" ".join(str(s) for s in fresh_seeds(args[0], nums[0], *nums[1:])))
        return 0
    if what == "table" and len(nums) in (0, 2):
        first, count = nums if nums else (0, BUNDLED)
        for s in range(first, first + count):
            r = repeat_of_seed(args[0], s)
            print("%d\t%s\t%s" % (s, describe(args[0], s), "fresh" if r is None else r[2]))
        return 0
    sys.exit("families.py: usage: families.py seed MODEL SEED... | graph FILE... | fresh MODEL COUNT [FROM] | "
             "table MODEL [FIRST COUNT] (see --help)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
