#!/usr/bin/python3
"""Layer tags for sequence models: every node gets a "layer" field naming the
model layer it belongs to, so that `placeto place --method expert` can put one
layer per device as in the expert placement of NMT by Mirhoseini et al.
(2017): each LSTM layer on its own device, attention and softmax together.

How a node gets its layer:
  1. a parameter whose name starts with a rule's prefix gets the rule's layer,
     and so does every node sharing its colocation key (its gradient's
     producer, its momentum and its update);
  2. an untagged op that reads parameters directly takes the layer of the
     first of them (in node order);
  3. the rest, level by level outward from the tagged nodes (edges in both
     directions), take the layer most of their already tagged neighbours
     have; ties go to the layer that appears first in the file.
The file's node order is unchanged; layers are ordered by first appearance.

Used by torch_graph.py when it writes a sequence model, and on its own to tag
an existing file in place:
    /usr/bin/python3 graphs/import/layers.py graphs/nmt.json
"""
import json
import os
import re
import sys

# Seq2Seq (models.py): embeddings; the bidirectional first encoder layer; the
# stacked encoder layers enc.0, enc.1, ... (layers 1, 2, ... of the encoder);
# the decoder layers; attention, the combination layer and the output
# projection with the loss ("softmax").
SEQ2SEQ_RULES = [
    (re.compile(r"^(src_emb|tgt_emb)\."), lambda m: "embedding"),
    (re.compile(r"^(enc_fw|enc_bw)\."), lambda m: "enc.0"),
    (re.compile(r"^enc\.(\d+)\."), lambda m: "enc.%d" % (int(m.group(1)) + 1)),
    (re.compile(r"^dec\.(\d+)\."), lambda m: "dec.%d" % int(m.group(1))),
    (re.compile(r"^(attn|combine|out)\."), lambda m: "softmax"),
]


def rule_layer(name, rules):
    for rx, fn in rules:
        m = rx.match(name)
        if m:
            return fn(m)
    return None


def tag_layers(nodes, edges, rules=SEQ2SEQ_RULES):
    """Adds "layer" to every node of nodes (a list of dicts) in place."""
    index = {n["name"]: i for i, n in enumerate(nodes)}
    n = len(nodes)
    parents = [[] for _ in range(n)]
    children = [[] for _ in range(n)]
    for e in edges:
        s, d = index[e["src"]], index[e["dst"]]
        children[s].append(d)
        parents[d].append(s)
    layer = [None] * n
    key_layer = {}
    is_param = [False] * n
    for i, nd in enumerate(nodes):
        if parents[i]:
            continue
        lay = rule_layer(nd["name"], rules)
        if lay is None:
            continue
        layer[i] = lay
        is_param[i] = True
        if nd.get("colocate"):
            key_layer.setdefault(nd["colocate"], lay)
    for i, nd in enumerate(nodes):
        if layer[i] is None and nd.get("colocate") in key_layer:
            layer[i] = key_layer[nd["colocate"]]
    for i in range(n):
        if layer[i] is None:
            direct = [p for p in sorted(parents[i]) if is_param[p]]
            if direct:
                layer[i] = layer[direct[0]]
    order = {}
    for lay in layer:
        if lay is not None and lay not in order:
            order[lay] = len(order)
    while any(lay is None for lay in layer):
        found = []
        for i in range(n):
            if layer[i] is not None:
                continue
            votes = {}
            for j in parents[i] + children[i]:
                if layer[j] is not None:
                    votes[layer[j]] = votes.get(layer[j], 0) + 1
            if votes:
                found.append((i, min(votes, key=lambda k: (-votes[k], order[k]))))
        if not found:
            raise SystemExit("layers.py: %d nodes are not connected to any tagged parameter"
                             % sum(lay is None for lay in layer))
        for i, lay in found:
            layer[i] = lay
    for nd, lay in zip(nodes, layer):
        nd["layer"] = lay


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    for path in argv[1:]:
        with open(path) as f:
            doc = json.load(f)
        tag_layers(doc["nodes"], doc.get("edges", []))
        text = json.dumps(doc, indent=None, separators=(",", ":"), sort_keys=False)
        text = text.replace('{"name"', '\n{"name"').replace('{"src"', '\n{"src"') + "\n"
        tmp = "%s.tmp.%d" % (path, os.getpid())
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
        counts = {}
        for nd in doc["nodes"]:
            counts[nd["layer"]] = counts.get(nd["layer"], 0) + 1
        print("%s: %s" % (path, ", ".join("%s %d" % kv for kv in counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
