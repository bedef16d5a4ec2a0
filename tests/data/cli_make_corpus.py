"""Writes the bad-input corpus tests/data/bad/ (each file with NAME.expect and,
where needed, NAME.args) and the valid-but-extreme inputs tests/data/extreme/.
Deterministic: the binary files come from random.Random(20240601), so a rerun
rewrites the same bytes. The committed files are the corpus; this script only
documents how they were made. Run from anywhere: python3 tests/data/cli_make_corpus.py
How tests/cli/cli_bad.sh runs each file is described at the top of that script."""
import os, random
ROOT = os.path.dirname(os.path.abspath(__file__))
B = os.path.join(ROOT, 'bad')
X = os.path.join(ROOT, 'extreme')
os.makedirs(B, exist_ok=True)
os.makedirs(X, exist_ok=True)
def w(name, text, expect, args=None, d=B):
    mode = 'wb' if isinstance(text, bytes) else 'w'
    with open(os.path.join(d, name), mode) as f:
        f.write(text)
    if expect is not None:
        with open(os.path.join(d, name + '.expect'), 'w') as f:
            f.write(expect + '\n')
    if args:
        with open(os.path.join(d, name + '.args'), 'w') as f:
            f.write(args + '\n')

HDR = '{"format": "placeto-graph", "version": 1, "name": "bad",\n'
def graph(nodes, edges=None, hdr=HDR, tail='}\n'):
    s = hdr + ' "nodes": [\n' + ',\n'.join('  ' + n for n in nodes) + '\n ]'
    if edges is not None:
        s += ',\n "edges": [\n' + ',\n'.join('  ' + e for e in edges) + '\n ]'
    return s + '\n' + tail
N = lambda name, cost=1.0, ob='[8]', extra='': '{"name": "%s", "op": "x", "cost_us": %s, "output_bytes": %s%s}' % (name, cost, ob, extra)
E = lambda s, d, o=0: '{"src": "%s", "dst": "%s", "output": %s}' % (s, d, o)
good = graph([N('a'), N('b'), N('c')], [E('a', 'b'), E('b', 'c')])

# --- syntax level
w('graph_empty.json', '', ':1:1: empty file')
w('graph_whitespace.json', '  \n\t \r\n   \n', 'empty file')
rnd = random.Random(20240601)
garbage = bytes(rnd.randrange(256) for _ in range(512))
garbage = garbage[:100] + b'\x00' + garbage[100:]
w('graph_binary.json', garbage, 'binary data (NUL byte at offset')
garbage2 = bytes(rnd.randrange(0x80, 0x100) for _ in range(256))
w('graph_binary_nonul.json', garbage2, ':1:1: JSON syntax error near byte 0x')
w('graph_binary.dot', garbage, 'binary data (NUL byte at offset')
cut = good.index('"vers') + 5
w('graph_trunc_key.json', good[:cut], 'unexpected end of file')
cut = good.index('"name": "b"') + 5
w('graph_trunc_node.json', good[:cut], 'unexpected end of file')
cut = good.index('"cost_us": 1.0', good.index('"name": "c"')) + 12
w('graph_trunc_number.json', good[:cut], 'unexpected end of file')
cut = good.index('"edges"') + 3
w('graph_trunc_string.json', good[:cut], 'unexpected end of file')
w('graph_trunc_last_brace.json', good.rstrip()[:-1], 'unexpected end of file')
w('graph_trunc_header.json', '{', 'unexpected end of file')
w('graph_array.json', '[' + good + ']\n', ':1:1: expected a JSON object with "format": "placeto-graph"')
w('graph_string.json', '"placeto-graph"\n', 'expected a JSON object')
w('graph_nan.json', graph([N('a'), N('b', cost='NaN')]), ':4:39: JSON syntax error near \'N\'')
w('graph_bad_escape.json', graph([N('a\\q')]), ':3:14: JSON syntax error')
w('graph_trailing.json', good + '\n  x\n', ':13:3: unexpected data after the JSON value')
w('graph_trailing_object.json', good + good, ':12:1: unexpected data after the JSON value')
w('graph_trailing_comma.json', graph([N('a'), N('b') + ',']), 'JSON syntax error')
w('graph_deep_nesting.json', HDR + ' "extra": ' + '[' * 5000 + ']' * 5000 + ',\n "nodes": [{"name": "a"}]}\n', 'too deep')
w('graph_deep_objects.json', HDR + ' "extra": ' + '{"k": ' * 5000 + '0' + '}' * 5000 + ',\n "nodes": [{"name": "a"}]}\n', 'too deep')

# --- header
w('graph_format_wrong.json', good.replace('placeto-graph', 'placeto-cluster'), ':1:12: format: expected "placeto-graph", got "placeto-cluster"')
w('graph_format_number.json', good.replace('"placeto-graph"', '7'), 'format: expected "placeto-graph"')
w('graph_format_missing.json', good.replace('"format": "placeto-graph", ', ''), 'missing "format"')
w('graph_version_2.json', good.replace('"version": 1', '"version": 2'), ':1:40: version: expected 1')
w('graph_version_string.json', good.replace('"version": 1', '"version": "1"'), 'version: expected 1')
w('graph_version_missing.json', good.replace('"version": 1, ', ''), 'missing "version"')
w('graph_name_top_number.json', good.replace('"name": "bad"', '"name": 42'), ':1:51: name: expected a string')

# --- nodes
w('graph_nodes_missing.json', HDR + ' "edges": []}\n', 'missing "nodes"')
w('graph_nodes_empty.json', HDR + ' "nodes": []}\n', ':2:11: nodes: empty graph')
w('graph_nodes_object.json', HDR + ' "nodes": {"a": {"name": "a"}}}\n', ':2:11: nodes: expected an array of nodes')
w('graph_node_not_object.json', graph([N('a'), '"b"', N('c')]), ':4:3: nodes[1]: expected a node object')
w('graph_node_name_missing.json', graph([N('a'), '{"op": "x", "cost_us": 1}']), ':4:3: nodes[1]: missing "name"')
w('graph_node_name_empty.json', graph([N('a'), N('')]), ':4:12: nodes[1].name: expected a non-empty name')
w('graph_node_name_number.json', graph(['{"name": 12, "cost_us": 1}']), ':3:12: nodes[0].name: expected a string')
w('graph_cost_negative.json', graph([N('a'), N('b'), N('c', cost='-5')]), ':5:39: nodes[2].cost_us: expected a number >= 0, got -5')
w('graph_cost_string.json', graph([N('a', cost='"12"')]), ':3:39: nodes[0].cost_us: expected a number >= 0')
w('graph_cost_infinity.json', graph([N('a'), N('b', cost='1e999')]), ':4:39: nodes[1].cost_us: expected a finite number, got infinity')
w('graph_cost_too_big.json', graph([N('a', cost='1e300')]), 'nodes[0].cost_us: expected a number <= 1e+15')
w('graph_cost_null.json', graph([N('a', cost='null')]), 'nodes[0].cost_us: expected a number >= 0')
w('graph_bytes_negative.json', graph([N('a', ob='-1')]), ':3:60: nodes[0].output_bytes: expected an integer from 0 to 9007199254740992, got -1')
w('graph_bytes_fraction.json', graph([N('a', ob='[8, 1.5]')]), ':3:64: nodes[0].output_bytes[1]: expected an integer >= 0, got 1.5')
w('graph_bytes_huge.json', graph([N('a', ob='[9007199254740994]')]), 'nodes[0].output_bytes[0]: expected an integer from 0 to 9007199254740992')
w('graph_bytes_string_in_array.json', graph([N('a'), N('b', ob='[1, "2"]')]), ':4:64: nodes[1].output_bytes[1]: expected an integer >= 0')
w('graph_bytes_object.json', graph([N('a', ob='{"0": 1}')]), 'nodes[0].output_bytes: expected a number of bytes or an array of them')
big = '[' + ', '.join(['9007199254740992'] * 200) + ']'
w('graph_bytes_sum.json', graph([N('a', ob=big), N('b', ob=big), N('c', ob=big)]), 'nodes[2].output_bytes: the graph\'s outputs add up to more than 2^62 bytes')
w('graph_kind_costs_array.json', graph([N('a', extra=', "cost_us_by_kind": [1, 2]')]), 'nodes[0].cost_us_by_kind: expected an object')
w('graph_kind_costs_string.json', graph([N('a', extra=', "cost_us_by_kind": {"cpu": "fast"}')]), 'nodes[0].cost_us_by_kind.cpu: expected a number >= 0')
w('graph_kind_costs_negative.json', graph([N('a', extra=', "cost_us_by_kind": {"cpu": -1}')]), 'nodes[0].cost_us_by_kind.cpu: expected a number >= 0, got -1')
w('graph_colocate_number.json', graph([N('a', extra=', "colocate": 3')]), 'nodes[0].colocate: expected a string')
w('graph_group_empty.json', graph([N('a', extra=', "group": ""')]), 'nodes[0].group: expected a non-empty group name')
w('graph_dup_names.json', graph([N('a'), N('b'), N('a')]), ':5:12: nodes[2].name: duplicate node name "a" (first at nodes[0].name, line 3, column 12)')
w('graph_dup_key.json', graph([N('a'), N('b', extra=', "cost_us": 2')]), ':4:65: nodes[1]: duplicate key "cost_us" (first at line 4, column 28)')
w('graph_dup_key_top.json', good.replace('"name": "bad"', '"name": "bad", "version": 1'), ':1:58: duplicate key "version" (first at line 1, column 29)')
w('graph_pinned_cycle.json', graph([N('a', extra=', "group": "g"'), N('b', extra=', "group": "h"'), N('c', extra=', "group": "g"')], [E('a', 'b'), E('b', 'c')]), 'pinned groups')
w('graph_colocate_conflict.json', graph([N('a', extra=', "colocate": "k", "group": "g"'), N('b', extra=', "colocate": "k", "group": "h"')]), 'share colocation key "k"')

# --- edges
w('graph_edges_object.json', graph([N('a')], None, tail=' , "edges": {"src": "a"}}\n'), 'edges: expected an array of edges')
w('graph_edge_not_object.json', graph([N('a'), N('b')], ['["a", "b"]']), ':7:3: edges[0]: expected an edge object')
w('graph_edge_dangling_src.json', graph([N('a'), N('b')], [E('a', 'b'), E('x', 'b')]), ':8:11: edges[1].src: unknown node "x" (dangling edge)')
w('graph_edge_dangling_dst.json', graph([N('a'), N('b')], [E('a', 'zz')]), ':7:23: edges[0].dst: unknown node "zz" (dangling edge)')
w('graph_edge_missing_dst.json', graph([N('a'), N('b')], ['{"src": "a"}']), ':7:3: edges[0]: missing "dst"')
w('graph_edge_src_number.json', graph([N('a'), N('b')], ['{"src": 0, "dst": "b"}']), 'edges[0].src: expected a string')
w('graph_self_loop.json', graph([N('a'), N('b')], [E('a', 'b'), E('b', 'b')]), ':8:3: edges[1]: cycle through node "b": the edge goes from the node to itself')
w('graph_cycle2.json', graph([N('a'), N('b'), N('c')], [E('a', 'b'), E('b', 'c'), E('c', 'b')]), 'cycle through node')
w('graph_cycle5.json', graph([N('n%d' % i) for i in range(7)], [E('n0', 'n1'), E('n1', 'n2'), E('n2', 'n3'), E('n3', 'n4'), E('n4', 'n5'), E('n5', 'n1'), E('n5', 'n6')]), 'cycle through node')
w('graph_edge_output_negative.json', graph([N('a'), N('b')], [E('a', 'b', '-1')]), ':7:38: edges[0].output: expected an integer from 0 to 1073741824, got -1')
w('graph_edge_output_fraction.json', graph([N('a'), N('b')], [E('a', 'b', '0.5')]), ':7:38: edges[0].output: expected an integer >= 0, got 0.5')
w('graph_edge_output_string.json', graph([N('a'), N('b')], [E('a', 'b', '"0"')]), 'edges[0].output: expected an integer >= 0')

# --- DOT
w('dot_empty_file.dot', '', ':1:1: empty file')
w('dot_syntax.dot', 'digraph g {\n  a -> b;\n  b -> ;\n}\n', ':3:1: DOT syntax error')
w('dot_garbage.dot', 'this is not a graph\n', 'DOT syntax error')
w('dot_undirected.dot', 'graph g {\n  a -- b;\n}\n', 'expected a digraph')
w('dot_cost_bad.dot', 'digraph g {\n  a [cost_us="fast"];\n  b [cost_us=2];\n  a -> b;\n}\n', 'node "a": cost_us: expected a number >= 0, got "fast"')
w('dot_cost_negative.dot', 'digraph g {\n  a [cost_us=1];\n  b [cost_us=-2];\n  a -> b;\n}\n', 'node "b": cost_us: expected a number >= 0, got "-2"')
w('dot_cost_inf.dot', 'digraph g {\n  a [cost_us="inf"];\n}\n', 'node "a": cost_us: expected a number >= 0, got "inf"')
w('dot_bytes_bad.dot', 'digraph g {\n  a [output_bytes="12x"];\n  b;\n  a -> b;\n}\n', 'node "a": output_bytes: expected a byte count or a list of them, got "12x"')
w('dot_bytes_fraction.dot', 'digraph g {\n  a [output_bytes="[1, 2.5]"];\n}\n', 'node "a": output_bytes: expected a byte count')
w('dot_bytes_negative.dot', 'digraph g {\n  a [output_bytes="-4"];\n}\n', 'node "a": output_bytes: expected a byte count')
w('dot_empty_graph.dot', 'digraph g {\n}\n', 'empty graph: expected at least one node')
w('dot_cycle.dot', 'digraph g {\n  a -> b -> c -> a;\n}\n', 'cycle through node')
w('dot_self_loop.dot', 'digraph g {\n  a -> b;\n  b -> b;\n}\n', 'cycle through node "b"')
w('dot_edge_output_bad.dot', 'digraph g {\n  a -> b [output="-1"];\n}\n', 'edge "a" -> "b": output: expected an integer >= 0, got "-1"')
w('dot_kind_costs_bad.dot', 'digraph g {\n  a [cost_us_by_kind="cpu"];\n}\n', 'node "a": cost_us_by_kind: expected "kind:cost,...", got "cpu"')

# --- cluster (simulate diamond --placement tests/data/cli_diamond_p.json --cluster FILE)
CH = '{"format": "placeto-cluster", "version": 1, "name": "bad",\n'
D = lambda name, extra='': '{"name": "%s", "kind": "gpu", "speed": 1.0, "memory_bytes": 1000000000%s}' % (name, extra)
def cluster(devs, tail=', "op_gap_us": 5.7, "transfer_overhead_us": 25.0, "bandwidth_bytes_per_us": 7600.0'):
    return CH + ' "devices": [\n' + ',\n'.join('  ' + d for d in devs) + '\n ]' + tail + '}\n'
w('cluster_no_devices.json', CH + ' "devices": []}\n', ':2:13: devices: expected a non-empty array of devices')
w('cluster_devices_missing.json', CH + ' "op_gap_us": 5.7}\n', 'missing "devices"')
w('cluster_devices_object.json', CH + ' "devices": {"/GPU:0": {}}}\n', 'devices: expected a non-empty array of devices')
w('cluster_dup_names.json', cluster([D('/GPU:0'), D('/GPU:0')]), ':4:12: devices[1].name: duplicate device name "/GPU:0" (first at devices[0])')
w('cluster_device_name_missing.json', cluster([D('/GPU:0'), '{"kind": "gpu"}']), ':4:3: devices[1]: missing "name"')
w('cluster_speed_negative.json', cluster([D('/GPU:0'), D('/GPU:1').replace('"speed": 1.0', '"speed": -1')]), ':4:46: devices[1].speed: expected a number >= 1e-06, got -1')
w('cluster_speed_zero.json', cluster([D('/GPU:0').replace('"speed": 1.0', '"speed": 0'), D('/GPU:1')]), 'devices[0].speed: expected a number >= 1e-06, got 0')
w('cluster_memory_fraction.json', cluster([D('/GPU:0'), D('/GPU:1').replace('1000000000', '1.5')]), 'devices[1].memory_bytes: expected an integer >= 0, got 1.5')
w('cluster_bandwidth_zero.json', cluster([D('/GPU:0'), D('/GPU:1')], tail=', "bandwidth_bytes_per_us": 0'), ':5:31: bandwidth_bytes_per_us: expected a number >= 1e-09, got 0')
w('cluster_gap_negative.json', cluster([D('/GPU:0'), D('/GPU:1')], tail=', "op_gap_us": -1'), 'op_gap_us: expected a number >= 0, got -1')
w('cluster_format_graph.json', good, 'format: expected "placeto-cluster", got "placeto-graph"')
w('cluster_trunc.json', cluster([D('/GPU:0'), D('/GPU:1')])[:90], 'unexpected end of file')
w('cluster_empty.json', '', 'empty file')

# --- placement (simulate diamond --placement FILE [ARGS])
PH = '{"format": "placeto-placement", "version": 1, "devices": 2,\n'
def place(ops, hdr=PH, extra=''):
    return hdr + ' "ops": {' + ', '.join('"%s": %s' % kv for kv in ops) + '}' + extra + '}\n'
ok = [('src', 0), ('a', 0), ('b', 1), ('sink', 0)]
w('place_unknown_op.json', place(ok + [('nope', 1)]), ':2:55: ops.nope: unknown op "nope"')
w('place_missing_op.json', place(ok[:3]), ':2:9: ops: missing op "sink": every op needs a device')
w('place_device_out_of_range.json', place([('src', 0), ('a', 2), ('b', 1), ('sink', 0)]), ':2:25: ops.a: expected an integer from 0 to 1, got 2')
w('place_device_negative.json', place([('src', -1), ('a', 0), ('b', 1), ('sink', 0)]), 'ops.src: expected an integer from 0 to 1, got -1')
w('place_device_string.json', place([('src', '"0"'), ('a', 0), ('b', 1), ('sink', 0)]), 'ops.src: expected an integer >= 0')
w('place_devices_mismatch.json', place(ok), 'devices: the placement is for 2 devices but the cluster', args='--devices 3')
w('place_device_names_mismatch.json', place(ok, hdr=PH.replace('"devices": 2', '"devices": ["/GPU:0", "/CPU:0"]')), 'devices[1]: the placement names "/CPU:0" but the cluster\'s device 1 is "/GPU:1"', args='--cluster graphs/clusters/k80x2.json')
w('place_devices_missing.json', place(ok, hdr=PH.replace(' "devices": 2,', '')), 'missing "devices"')
w('place_devices_zero.json', place(ok, hdr=PH.replace('"devices": 2', '"devices": 0')), 'devices: expected an integer from 1 to')
w('place_devices_name_number.json', place(ok, hdr=PH.replace('"devices": 2', '"devices": ["/GPU:0", 1]')), 'devices[1]: expected a device name')
w('place_both.json', place(ok, extra=',\n "grouping": {"groups": 4}, "groups": {"src": 0, "a": 0, "b": 1, "sink": 0}'), 'expected either "ops" or "groups", not both')
w('place_neither.json', PH + ' "placement": {}}\n', 'missing "ops" (op -> device) or "groups" (group -> device)')
w('place_groups_no_grouping.json', PH + ' "groups": {"src": 0, "a": 0, "b": 1, "sink": 0}}\n', 'a "groups" placement needs "grouping"')
w('place_groups_unknown.json', PH + ' "grouping": {"groups": 4}, "groups": {"src": 0, "a": 0, "b": 1, "sink": 0, "x": 1}}\n', 'groups.x: unknown group "x"')
w('place_groups_missing.json', PH + ' "grouping": {"groups": 4}, "groups": {"src": 0, "a": 0, "b": 1}}\n', 'groups: missing group "sink": every group needs a device')
w('place_grouping_bad.json', PH + ' "grouping": {"groups": 0}, "groups": {"src": 0}}\n', 'grouping.groups: expected an integer from 1 to')
w('place_ops_array.json', PH + ' "ops": [0, 0, 1, 0]}\n', ':2:9: ops: expected an object of name -> device index')
w('place_dup_op.json', place(ok + [('a', 1)]), 'ops: duplicate key "a"')
w('place_format_graph.json', good, 'format: expected "placeto-placement", got "placeto-graph"')
w('place_trunc.json', place(ok)[:70], 'unexpected end of file')
w('place_binary.json', garbage, 'binary data (NUL byte at offset')

# ===== extreme but valid: info must succeed
long = 'n' * 100000
w('long_name.json', graph([N(long), N('b')], [E(long, 'b')]), None, d=X)
w('long_name.dot', 'digraph g {\n  "%s" [cost_us=3];\n  "%s" -> b;\n}\n' % (long, long), None, d=X)
w('long_source.json', graph([N('a')], hdr='{"format": "placeto-graph", "version": 1, "name": "x", "source": "%s",\n' % ('s' * 200000)), None, d=X)
w('unicode_names.json', graph([N('Ünïcødé ✓'), N('tab\\tquote\\"back\\\\slash'), N('\\u00e9\\ud83d\\ude00')], [E('Ünïcødé ✓', 'tab\\tquote\\"back\\\\slash'), E('tab\\tquote\\"back\\\\slash', '\\u00e9\\ud83d\\ude00')]), None, d=X)
w('bytes_max.json', graph([N('a', ob='[9007199254740992, 0]'), N('b', ob='9007199254740992')], [E('a', 'b', 7)]), None, d=X)
w('zero_costs.json', graph([N('a', cost='0'), N('b', cost='0', ob='[]')], [E('a', 'b'), E('a', 'b', 1)]), None, d=X)
w('deep_nesting_500.json', HDR + ' "extra": ' + '[' * 500 + ']' * 500 + ',\n "nodes": [{"name": "a"}]}\n', None, d=X)
w('crlf.json', good.replace('\n', '\r\n'), None, d=X)
chain = [N('c%d' % i, cost='%d.5' % (i % 7)) for i in range(3000)]
w('chain_3000.json', graph(chain, [E('c%d' % i, 'c%d' % (i + 1)) for i in range(2999)]), None, d=X)
w('wide_3000.json', graph([N('root')] + [N('w%d' % i) for i in range(3000)], [E('root', 'w%d' % i) for i in range(3000)]), None, d=X)
w('unknown_keys.json', graph([N('a', extra=', "future_field": {"x": [1, 2, {"y": null}]}')], tail=' , "comment": "ignored"}\n'), None, d=X)
w('single_node_no_edges.dot', 'strict digraph "one" {\n  only [cost_us="1e3", output_bytes="1,2,3"];\n}\n', None, d=X)
w('place_devices_too_many.json', place(ok, hdr=PH.replace('"devices": 2', '"devices": 5000')), ':1:58: devices: expected an integer from 1 to 1024, got 5000')
w('place_null_ops.json', PH + ' "ops": null}\n', ':2:9: ops: expected an object of name -> device index')
w('graph_nodes_null_entry.json', graph([N('a'), 'null']), ':4:3: nodes[1]: expected a node object')
w('graph_edges_null.json', graph([N('a')], None, tail=' , "edges": null}\n'), 'edges: expected an array of edges')
