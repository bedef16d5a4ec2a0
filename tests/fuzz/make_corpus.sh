#!/usr/bin/env bash
# Rebuilds the seed corpora of the fuzz targets (tests/fuzz/corpus/TARGET/)
# from the bundled files and a few outputs of ./placeto. Run from anywhere;
# needs ./placeto built (make). The result is committed: `make fuzz` copies
# it to build-fuzz/corpus/ and never writes here.
set -eu
cd "$(dirname "$0")/../.."
c=tests/fuzz/corpus
prog=./placeto
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$c"
mkdir -p "$c"/{graph_json,graph_dot,placement,cluster,policy,checkpoint,episode,dag}

# graphs: the toy graphs, the small extreme graphs and bad graphs that reach
# different checks (the schema, numbers, names, edges, cycles, groups)
for f in graphs/toy/*.json tests/data/extreme/{bytes_max,crlf,unicode_names,unknown_keys,zero_costs}.json \
    tests/data/bad/graph_{colocate_conflict,pinned_cycle,cycle5,bytes_sum,edge_dangling_dst,kind_costs_negative,dup_key,trunc_node,bad_escape}.json; do
    cp "$f" "$c/graph_json/$(echo "${f%.json}" | tr / _).json"
done
# DOT: a hand-written graph with every attribute, the small extreme and bad
# DOT files, and the DOT render of a toy placement (attributes the loader
# does not know)
cat > "$c/graph_dot/all_attributes.dot" <<'DOT'
digraph "toy" {
  source="hand-written";
  in [op="Placeholder", cost_us=10, output_bytes="[400, 8]", colocate="in", layer="enc.0"];
  w [op="Variable", cost_us=0, output_bytes=64, colocate="in"];
  mm [op="MatMul", cost_us="120.5", output_bytes="1,2", cost_us_by_kind="cpu:900,gpu:80", group="g1"];
  out [cost_us=3];
  in -> mm [output=0];
  w -> mm;
  mm -> out [output=1];
  in -> out [output="1"];
}
DOT
for f in tests/data/extreme/single_node_no_edges.dot tests/data/bad/dot_{cycle,self_loop,bytes_fraction,kind_costs_bad,undirected,syntax,edge_output_bad}.dot; do
    cp "$f" "$c/graph_dot/$(echo "${f%.dot}" | tr / _).dot"
done
$prog export graphs/toy/crown.json --placement graphs/placements/crown_3way.json --dot "$c/graph_dot/crown_3way_render.dot" > /dev/null
# placements of graphs/toy/crown.json (the target's graph), and the other bundled ones
for f in graphs/placements/*.json tests/data/bad/place_{both,devices_too_many,dup_op,groups_unknown}.json; do
    cp "$f" "$c/placement/$(echo "${f%.json}" | tr / _).json"
done
$prog place graphs/toy/crown.json --method heft --devices 4 -o "$c/placement/crown_heft4.json" > /dev/null
$prog place graphs/toy/crown.json --method round-robin --cluster graphs/clusters/cpu_gpu.json \
    -o "$c/placement/crown_rr_cpu_gpu.json" > /dev/null
python3 - graphs/placements/crown_3way.json "$c/placement/crown_groups.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))  # crown's 18 ops are 18 groups by default
json.dump({"format": "placeto-placement", "version": 1, "devices": 3, "grouping": {"groups": 18},
           "groups": p["ops"]}, open(sys.argv[2], "w"))
PY
# clusters
for f in graphs/clusters/{cpu_gpu,k80x2,nvlink4}.json tests/data/bad/cluster_{dup_names,memory_fraction}.json; do
    cp "$f" "$c/cluster/$(echo "${f%.json}" | tr / _).json"
done
# policies: a 2-episode training run shrunk to hidden size 2 (with and
# without its training state, rounds 0) and a 3-device one with the memory feature
$prog train graphs/toy/diamond.json --episodes 2 -o "$tmp/p2.json" > /dev/null
$prog train graphs/toy/crown.json --episodes 2 --devices 3 --mem-feature -o "$tmp/p3.json" > /dev/null
python3 tests/fuzz/shrink_policy.py "$tmp/p2.json" "$c/policy/diamond_d2_train.json" 2
python3 tests/fuzz/shrink_policy.py "$tmp/p3.json" "$c/policy/crown_d1_mem.json" 1
python3 - "$c/policy/diamond_d2_train.json" "$c/policy/diamond_d2_bare.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p.pop("training", None)
p.pop("log", None)
p["architecture"]["rounds"] = 0
json.dump(p, open(sys.argv[2], "w"))
PY
# checkpoints, read against tests/fuzz/checkpoint_policy.json (fuzz_checkpoint):
# the shrunk diamond policy resumed for one episode is that policy, and its
# checkpoint (the kept snapshot's score, the weights training goes on from)
# a seed; so are the checkpoint without them, without "episodes" (written
# before it was recorded) and of another save
$prog train graphs/toy/diamond.json --resume "$c/policy/diamond_d2_train.json" --episodes 1 -o "$tmp/ck.json" \
    > /dev/null 2>&1
cp "$tmp/ck.json" tests/fuzz/checkpoint_policy.json
cp "$tmp/ck.ckpt.json" "$c/checkpoint/keep_best.json"
python3 - "$tmp/ck.ckpt.json" "$c/checkpoint" <<'PY'
import json, sys
k, d = json.load(open(sys.argv[1])), sys.argv[2]
plain = {x: v for x, v in k.items() if x not in ("kept", "train_weights")}
json.dump(plain, open(d + "/no_kept.json", "w"))
json.dump({x: v for x, v in k.items() if x != "episodes"}, open(d + "/no_episodes.json", "w"))
json.dump(dict(plain, episodes=k["episodes"] + 1), open(d + "/other_save.json", "w"))
PY
# episodes: saved by the explorer (policy steps, a user override, undo)
$prog explore graphs/toy/crown.json --headless --keys 'space space 1 s' --save "$c/episode/crown_steps.json" > /dev/null
$prog explore graphs/toy/diamond.json --headless --keys 'space 2 space u s' --save "$c/episode/diamond_undo.json" > /dev/null
$prog explore graphs/toy/chain.json --headless --devices 3 --keys 's' --save "$c/episode/chain_start.json" > /dev/null
# DAGs: byte strings (see fuzz_dag.c for their meaning)
printf '\000\010\000\120\040\000\000\000\000\041\001\002\003\004\005\006\007' > "$c/dag/small_dag"
printf '\001\006\000\100\030\370\010\002\001\060\001\020\002\040\003\060\004\100\005\120\000\001\000' > "$c/dag/cycle"
head -c 600 graphs/toy/crown.json > "$c/dag/text"
printf '\016\054\001\240\074\000\000\000\000\377' > "$c/dag/wide_no_edges"

du -sh "$c"
find "$c" -type f | wc -l
