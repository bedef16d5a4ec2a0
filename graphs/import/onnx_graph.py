#!/usr/bin/python3
"""Convert an ONNX model into a placeto-graph JSON file (inference graph).

usage: /usr/bin/python3 graphs/import/onnx_graph.py MODEL.onnx -o OUT.json
           [--device k80|p100|v100|xeon] [--kind-costs KIND=DEVICE[,...]]
           [--batch N] [--dim NAME=VALUE ...] [--shape INPUT=D1,D2,... ...]
           [--name NAME] [-q]
       (installed: placeto-import-onnx MODEL.onnx -o OUT.json [options])

Needs the onnx Python package (Debian: python3-onnx; tested with 1.12). Weights
stored as external data are not read (only their shapes are needed).

Shapes: --batch is the batch dimension, --dim the named ones
  --batch N (default 1) sets the FIRST dimension of every graph input, when
  that dimension is symbolic (dim_param), 0 or missing; every other symbolic
  dimension needs --dim NAME=VALUE for its dim_param name (e.g. --dim
  seq_len=128), and one left unset is an error that names the input, the
  dimension and the option to give. --dim may also name the first dimension
  (it then wins over --batch). A dim_param name gets one value everywhere it
  appears, in the graph inputs, outputs and value_info. An input whose first
  dimension is a fixed number keeps it (with a warning when --batch asks for
  another; export the model with a symbolic batch, e.g. torch.onnx.export(...,
  dynamic_axes={"x": {0: "batch"}})). A non-first dimension that is 0 or
  missing and has no name cannot be set by name: --shape INPUT=D1,D2,...
  replaces the whole shape of a graph input (also for models whose inputs
  have no shape).
  Then onnx.shape_inference.infer_shapes (with data propagation) gives the
  shape and element type of every tensor. The values of shape-metadata tensors
  (see "Folded ops") are computed with numpy from the inferred shapes and
  given to a second inference as initializers, repeatedly until nothing new
  is found, so that e.g. a Reshape whose target shape is computed by
  Shape/Gather/Unsqueeze/Concat (as PyTorch exports a flatten) gets a known
  output shape. A tensor whose shape stays unknown counts 0 bytes and is
  named in a warning on stderr; a model in which no op output has a known
  shape is an error.

Ops (one placeto op per ONNX node of the main graph, in ONNX order, which is
topological)
  name         node.name, or OpType_INDEX (INDEX = position in graph.node) when
               empty; a name already taken gets "_2", "_3", ... appended (in
               the order the nodes are written).
  op           op_type in lower case ("conv", "matmul", "relu", ...).
  output_bytes one entry per node output (index = ONNX output index; an
               omitted optional output counts 0): elements x element size of
               the inferred shape and element type.
  cost_us      the roofline model below.
  Graph inputs become "input" ops and initializers "variable" ops, named
  after the tensor (cost 0, output = the tensor's bytes). A Constant node
  whose value is more than 1 KiB is a weight too and becomes a "variable" op
  named after the node. Inputs and variables come first, in the order of
  their first use by an op (unused graph inputs last); an initializer that
  no remaining op reads (e.g. the target shape of a Reshape) is left out.
  colocate: every variable op shares a colocation key -- the name of the op
  that reads it first (in ONNX order) -- with that op, which gets the key
  too; so a weight that costs nothing lands in its consumer's group instead
  of a group of its own (placeto puts ops with one key in one group). A
  weight read by several ops goes with the first; the others receive it as
  a transfer when they sit elsewhere. Graph inputs are not colocated.

Folded ops (no placeto op; documented so that op counts can be checked)
  * views: Reshape, Flatten, Squeeze, Unsqueeze, Identity. Consumers of the
    view's output are connected to the producer of the view's data input
    (input 0) instead, with that producer's output index (plus the producers
    of any other input that is not shape metadata).
  * shape metadata: Shape, Size, Constant (1 KiB or less), and Gather, Concat,
    Cast, Slice, Add, Sub, Mul, Div, Mod, Neg, Abs, Min, Max, Floor, Ceil,
    Equal, Less, Greater, Not, Where and ReduceProd when every input is shape
    metadata (an output of Shape/Size, a small Constant, an integer
    initializer of at most 64 elements, or an output of another folded
    metadata op). Their values are known when the graph is built (static
    shapes), so their consumers get no edge for them. Views of shape metadata
    are shape metadata.

Edges
  One edge per (producer output, consumer op) pair: src = the op that outputs
  the tensor (after folding), output = the index of that tensor among its
  outputs. If/Loop/Scan ops also get edges for outer-scope tensors their
  subgraphs read. Subgraph bodies themselves are not expanded. (placeto
  merges several edges between the same two ops into one dependency, whose
  bytes are those of the last listed output.)

Cost model (graphs/import/roofline.py, device --device, default k80)
  cost_us = launch_us + max(FLOPs / FLOP_per_s, bytes_moved / bytes_per_s) * 1e6
  rounded to 0.001 us; bytes_moved = bytes of every distinct input tensor +
  bytes of every output tensor. FLOPs (a multiply-add counts 2):
    Conv, ConvInteger, QLinearConv, FusedConv:
        2 x output elements x (Cin/group) x kernel elements (from the weight
        shape [Cout, Cin/group, k1, k2, ...]), + output elements with a bias
    ConvTranspose:
        2 x input elements x (Cout/group) x kernel elements (weight
        [Cin, Cout/group, k...]), + output elements with a bias
    Gemm: 2 x M x K x N, + M x N with C
    MatMul, MatMulInteger, QLinearMatMul (batched, broadcast):
        2 x output elements x K (K = last dimension of A)
    Einsum: 2 x the product of the sizes of all distinct indices (1 x for one
        operand)
    Attention (ONNX), MultiHeadAttention (com.microsoft):
        2 x kv_len x (elements of Q + elements of the output) (Q K^T and the
        weighted sum of V)
    Attention (com.microsoft, with the QKV projection):
        2 x B x S x hidden_in x (q+k+v hidden) + 2 x B x S x S x (q + v hidden)
    LSTM, GRU, RNN (gates G = 4, 3, 1; H hidden; D directions):
        2 x seq_len x batch x D x G x H x (input_size + H),
        + 2 x seq_len x batch x D x G x H with a bias
  Every other op is memory-bound: FLOPs = 0, cost from bytes_moved.
  Inputs and variables cost 0.
  --kind-costs KIND=DEVICE[,KIND=DEVICE...] (e.g. cpu=xeon) also writes each
  node's cost on device model DEVICE (the same FLOPs and bytes) as
  cost_us_by_kind {KIND: cost}, which placeto uses on cluster devices of that
  kind; inputs and variables get 0.

Devices (roofline.DEVICES)
%(devices)s

Output
  A placeto-graph JSON file ("format": "placeto-graph", "version": 1), one
  node or edge per line, written to a temporary file in the same directory and
  renamed over OUT (-o - writes to stdout). The same model and command line
  (which includes OUT) give a byte-identical file. "source" names the model
  file, its producer and opset, the device model, the batch size, the onnx
  and Python versions, the substituted input dimensions, the folded ops and
  the exact command line (placeto-import-onnx when installed).

Progress, summary and the inference notice (stderr)
  One line per phase with the seconds since the start (loading, shape
  inference, converting, writing; -q/--quiet drops them), then a summary
  line: ops, ONNX nodes, folded ops, edges, total cost and the critical path
  share -- the longest chain of op costs through the edges over the total
  cost (transfers ignored; placeto info prints the same figure). An ONNX
  file holds an inference graph (the forward pass; no backward pass, no
  optimizer update) unless it has training ops (Gradient, ops of the
  ai.onnx.preview.training domain, *Grad ops), so a notice follows, also
  with --quiet: the graph is inference-only, its critical path share, what
  that bounds (no placement runs it more than total / critical path times
  faster than one device, before transfers) and that placement studies use
  a training graph, which the PyTorch path (torch_graph.py,
  placeto-import-torch) makes: forward, backward and update of one step.
  The graph is the same kind as torch_graph.py --inference makes (the
  forward pass alone, weights as variables colocated with their first
  reader); ONNX exporters in eval mode fold BatchNorm into the preceding
  convolution, so such a graph has fewer ops.

Limits and refusals
  The graph must fit placeto's graph format (docs/formats.md): each output's
  size from 0 to 2^53 bytes, all outputs together at most 2^62 bytes, costs
  finite and at most 1e15 us. A model whose tensors are larger (an input of
  2^62 elements, a Reshape to 2^40 x 2^40) is refused with one line naming
  the op and the field, and no file is written. Names must be UTF-8 text: a
  node, tensor or graph name of other bytes is refused with one line naming
  the node (or tensor) and showing the bytes; rename it in the model.
  --timeout SECONDS (default 600; 0: no limit) bounds the whole import
  ("gave up after N s (--timeout N) while PHASE"); Ctrl-C prints
  "interrupted" and exits with status 130.

Interpreter (installed command)
  The installed placeto-import-onnx runs this script with the Python
  interpreter named by PLACETO_PYTHON when that is set (for example
  PLACETO_PYTHON=~/venv/bin/python), else the python3 on PATH when it can
  import onnx (an activated virtual environment), else /usr/bin/python3
  (Debian's python3-onnx).

Exit status 0 on success, 1 on an error (message "onnx_graph.py: ..." on
stderr, "placeto-import-onnx: ..." when installed), 2 on a usage error, 130
on Ctrl-C.
"""
import argparse
import json
import os
import sys
import tempfile
import time

START = time.monotonic()
sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guard  # noqa: E402
guard.keep_freed_memory()  # noqa: E305 (before PyTorch or ONNX allocates)
import roofline  # noqa: E402
from onnx_shapes import attr, infer_with_metadata, numel  # noqa: E402
import summary  # noqa: E402

PROG = guard.prog_name(sys.argv[0], "onnx_graph.py", "placeto-import-onnx")

# TensorProto element types -> bytes per element (None: no fixed size)
ELEM_BYTES = {
    1: 4,    # FLOAT
    2: 1,    # UINT8
    3: 1,    # INT8
    4: 2,    # UINT16
    5: 2,    # INT16
    6: 4,    # INT32
    7: 8,    # INT64
    8: None,  # STRING
    9: 1,    # BOOL
    10: 2,   # FLOAT16
    11: 8,   # DOUBLE
    12: 4,   # UINT32
    13: 8,   # UINT64
    14: 8,   # COMPLEX64
    15: 16,  # COMPLEX128
    16: 2,   # BFLOAT16
    17: 1, 18: 1, 19: 1, 20: 1,  # FLOAT8 variants
    21: 0.5, 22: 0.5,            # UINT4, INT4
}
INT_TYPES = {2, 3, 4, 5, 6, 7, 12, 13}
FLOAT_TYPES = {1, 10, 11, 16}

VIEW_OPS = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"}
SHAPE_SOURCE_OPS = {"Shape", "Size"}
SHAPE_ARITH_OPS = {"Gather", "Concat", "Cast", "Slice", "Add", "Sub", "Mul", "Div", "Mod", "Neg",
                   "Abs", "Min", "Max", "Floor", "Ceil", "Equal", "Less", "Greater", "Not", "Where",
                   "ReduceProd"}
SMALL_CONSTANT_BYTES = 1024
SMALL_INT_INIT_ELEMS = 64
MAX_WARNINGS = 20


class Error(Exception):
    pass


def die(msg):
    if guard.expired():   # the --timeout alarm, turned into another error on its way
        raise guard.TimeUp()
    sys.stderr.write("%s: %s\n" % (PROG, msg))
    sys.exit(1)


def nbytes(shape, elem):
    size = ELEM_BYTES.get(elem)
    if shape is None or size is None:
        return None
    n = numel(shape) * size
    return int(n + 0.5) if isinstance(n, float) else n


def parse_assignments(items, what):
    out = {}
    for it in items:
        if "=" not in it:
            raise Error("%s %r: expected NAME=VALUE" % (what, it))
        k, v = it.split("=", 1)
        out[k] = v
    return out


def substitute_dims(model, batch, dims, shapes):
    """Fix the graph inputs' unknown dims: the first from batch (None: 1, not
    asked for), the named ones from dims. Returns (notes 'input[axis]=value',
    warnings)."""
    g = model.graph
    inits = {t.name for t in g.initializer} | {t.values.name for t in g.sparse_initializer}
    notes, warnings = [], []
    known_inputs = {i.name for i in g.input}
    for name in shapes:
        if name not in known_inputs or name in inits:
            raise Error("--shape %s: the model has no graph input %r" % (name, name))
    params = dict(dims)     # dim_param name -> value
    unset = []              # (input, axis, name) of symbolic dims nobody set
    todo = []               # (value info, dims to fix)
    for vi in g.input:
        if vi.name in inits:
            continue
        if vi.name in shapes:
            try:
                new = [int(x) for x in shapes[vi.name].split(",")]
            except ValueError:
                raise Error("--shape %s=%s: expected comma-separated integers" % (vi.name, shapes[vi.name]))
            if any(x < 1 for x in new):
                raise Error("--shape %s=%s: dimensions must be >= 1" % (vi.name, shapes[vi.name]))
            if not vi.type.HasField("tensor_type"):
                raise Error("--shape %s: graph input %r is not a tensor" % (vi.name, vi.name))
            tt = vi.type.tensor_type
            tt.ClearField("shape")
            for x in new:
                tt.shape.dim.add().dim_value = x
            notes.append("%s=%s" % (vi.name, ",".join(map(str, new))))
            continue
        if not vi.type.HasField("tensor_type") or not vi.type.tensor_type.HasField("shape"):
            continue
        todo.append(vi)
        d0 = vi.type.tensor_type.shape.dim[0] if len(vi.type.tensor_type.shape.dim) else None
        if d0 is None:
            continue
        if d0.HasField("dim_value") and d0.dim_value > 0:
            if batch is not None and d0.dim_value != batch:
                warnings.append("graph input %r has a fixed first dimension %d: --batch %d does not change it "
                                "(export the model with a symbolic batch dimension)" % (vi.name, d0.dim_value, batch))
            continue
        label = d0.dim_param if d0.HasField("dim_param") and d0.dim_param else None
        if label is not None and label not in params:
            params[label] = batch or 1
    # the first dimensions are set: now every other dimension, in order
    used = set()
    for vi in todo:
        for axis, d in enumerate(vi.type.tensor_type.shape.dim):
            if d.HasField("dim_value") and d.dim_value > 0:
                continue
            label = d.dim_param if d.HasField("dim_param") and d.dim_param else None
            if label is not None and label in params:
                value = params[label]
                used.add(label)
            elif axis == 0:
                value = batch or 1
            elif label is not None:
                unset.append((vi.name, axis, label))
                continue
            else:
                raise Error("graph input %r: dimension %d has no size and no name, so neither --batch (the "
                            "first dimension) nor --dim can set it; give the whole shape with --shape %s=D1,D2,..."
                            % (vi.name, axis, vi.name))
            d.Clear()
            d.dim_value = value
            notes.append("%s[%d]%s=%d" % (vi.name, axis, "(%s)" % label if label else "", value))
    if unset:
        name, axis, label = unset[0]
        more = sorted({lb for _, _, lb in unset} - {label})
        raise Error("graph input %r: dimension %d is the symbolic %r, which --batch does not set (it sets only "
                    "the first, batch dimension): give its size with --dim %s=VALUE%s"
                    % (name, axis, label, label,
                       "" if not more else " (also unset: %s)" % ", ".join(more)))
    for label in dims:
        if label not in used:
            raise Error("--dim %s: no graph input has a dimension named %r" % (label, label))
    # the same names elsewhere (a stale dim_param there would conflict with the inferred value)
    for vi in list(g.output) + list(g.value_info):
        if vi.type.HasField("tensor_type") and vi.type.tensor_type.HasField("shape"):
            for d in vi.type.tensor_type.shape.dim:
                if d.HasField("dim_param") and d.dim_param in params:
                    v = params[d.dim_param]
                    d.Clear()
                    d.dim_value = v
    return notes, warnings


def strip_large_weights(model):
    """Drop the data of large float initializers (only their dims are used; keeps the
    model small for shape inference, which serialises it)."""
    for t in model.graph.initializer:
        if t.data_type in FLOAT_TYPES and numel(t.dims) * ELEM_BYTES[t.data_type] > 65536:
            for f in ("raw_data", "float_data", "double_data", "int32_data"):
                t.ClearField(f)


def einsum_flops(eq, shapes):
    eq = eq.replace(" ", "")
    lhs = eq.split("->")[0]
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        return None
    sizes = {}
    for term, shape in zip(terms, shapes):
        letters = []
        if "..." in term:
            a, b = term.split("...")
            nell = len(shape) - len(a) - len(b)
            # broadcast dims align to the right: name them from the right
            letters = list(a) + ["." + str(nell - 1 - i) for i in range(nell)] + list(b)
        else:
            letters = list(term)
        if len(letters) != len(shape):
            return None
        for c, s in zip(letters, shape):
            sizes[c] = max(sizes.get(c, 1), s)
    return (2.0 if len(terms) > 1 else 1.0) * numel(sizes.values())


def op_flops(node, in_shapes, out_shapes):
    """FLOPs of a compute-bound op, or 0. in_shapes/out_shapes: lists of shape or None."""
    t = node.op_type
    dom = node.domain if node.domain not in ("", "ai.onnx") else ""

    def ins(i):
        return in_shapes[i] if i < len(in_shapes) else None
    y = out_shapes[0] if out_shapes else None
    if t in ("Conv", "ConvInteger", "QLinearConv", "FusedConv"):
        wi, bi = {"Conv": (1, 2), "ConvInteger": (1, None), "QLinearConv": (3, 8), "FusedConv": (1, 2)}[t]
        w = ins(wi)
        if y is None or w is None or len(w) < 2:
            return 0
        f = roofline.conv_flops(y, w[1], numel(w[2:]))
        if bi is not None and ins(bi) is not None:
            f += numel(y)
        return f
    if t == "ConvTranspose":
        x, w = ins(0), ins(1)
        if x is None or w is None or len(w) < 2:
            return 0
        f = 2.0 * numel(x) * w[1] * numel(w[2:])
        if ins(2) is not None and y is not None:
            f += numel(y)
        return f
    if t == "Gemm":
        a = ins(0)
        if a is None or y is None or len(a) != 2:
            return 0
        k = a[0] if attr(node, "transA", 0) else a[1]
        f = 2.0 * numel(y) * k
        if ins(2) is not None:
            f += numel(y)
        return f
    if t in ("MatMul", "MatMulInteger", "QLinearMatMul"):
        a = ins(0)
        if a is None or y is None or not a:
            return 0
        return 2.0 * numel(y) * a[-1]
    if t == "Einsum":
        if any(s is None for s in in_shapes):
            return 0
        return einsum_flops(attr(node, "equation", b"").decode(), in_shapes) or 0
    if (t == "Attention" and dom == "") or (t == "MultiHeadAttention" and dom == "com.microsoft"):
        q, k = ins(0), ins(1)
        if q is None or k is None or y is None or len(k) not in (3, 4):
            return 0
        kv = k[2] if len(k) == 4 else k[1]
        return 2.0 * kv * (numel(q) + numel(y))
    if t == "Attention" and dom == "com.microsoft":
        x, w = ins(0), ins(1)
        if x is None or w is None or len(x) != 3 or len(w) != 2:
            return 0
        b, s, _ = x
        sizes = attr(node, "qkv_hidden_sizes", None)
        if sizes and len(sizes) == 3:
            q, _, v = sizes
        else:
            q = v = w[1] // 3
        return 2.0 * b * s * w[0] * w[1] + 2.0 * b * s * s * (q + v)
    if t in ("LSTM", "GRU", "RNN"):
        x, w, r = ins(0), ins(1), ins(2)
        if x is None or w is None or r is None or len(x) != 3 or len(w) != 3 or len(r) != 3:
            return 0
        seq, batch = (x[1], x[0]) if attr(node, "layout", 0) else (x[0], x[1])
        dgh = w[0] * w[1]                       # directions x gates x hidden
        f = 2.0 * seq * batch * dgh * (w[2] + r[2])
        if ins(3) is not None:
            f += 2.0 * seq * batch * dgh
        return f
    return 0


def subgraph_outer_refs(node):
    """Names of outer-scope tensors read by the subgraphs of node (in order of appearance)."""
    import onnx
    out = []

    def walk(g, outer_defined):
        defined = set(outer_defined)
        defined.update(i.name for i in g.input)
        defined.update(t.name for t in g.initializer)
        for n in g.node:
            for i in n.input:
                if i and i not in defined and i not in out:
                    out.append(i)
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    walk(a.g, defined)
                elif a.type == onnx.AttributeProto.GRAPHS:
                    for sg in a.graphs:
                        walk(sg, defined)
            defined.update(o for o in n.output if o)

    for a in node.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            walk(a.g, set())
        elif a.type == onnx.AttributeProto.GRAPHS:
            for sg in a.graphs:
                walk(sg, set())
    return out


def constant_size(node):
    """(elem_type, bytes) of a Constant node's value, from its attribute (no data copied)."""
    for a in node.attribute:
        if a.name == "value":
            return a.t.data_type, nbytes(list(a.t.dims), a.t.data_type) or 0
        if a.name == "sparse_value":
            return a.sparse_tensor.values.data_type, nbytes(list(a.sparse_tensor.dims), a.sparse_tensor.values.data_type) or 0
        if a.name == "value_float":
            return 1, 4
        if a.name == "value_floats":
            return 1, 4 * len(a.floats)
        if a.name == "value_int":
            return 7, 8
        if a.name == "value_ints":
            return 7, 8 * len(a.ints)
    return 8, 0


def plan_folding(g):
    """Decide, from the graph structure alone, what each node becomes.
    Returns (kinds, meta): kinds[i] is None (a placeto op), "view", "meta" or
    "weight" (a large Constant, a variable op); meta is the set of shape-metadata tensors."""
    meta = set()
    for t in g.initializer:
        if t.data_type in INT_TYPES and numel(t.dims) <= SMALL_INT_INIT_ELEMS:
            meta.add(t.name)
    kinds = []
    for node in g.node:
        t = node.op_type
        ins = [i for i in node.input if i]
        kind = None
        if node.domain in ("", "ai.onnx"):
            if t in VIEW_OPS and node.input and node.input[0]:
                kind = "view"
                if node.input[0] in meta:
                    meta.update(o for o in node.output if o)
            elif t in SHAPE_SOURCE_OPS:
                kind = "meta"
            elif t == "Constant":
                kind = "meta" if constant_size(node)[1] <= SMALL_CONSTANT_BYTES else "weight"
            elif t in SHAPE_ARITH_OPS and ins and all(i in meta for i in ins):
                kind = "meta"
        if kind == "meta":
            meta.update(o for o in node.output if o)
        kinds.append(kind)
    return kinds, meta


# --------------------------------------------------------------------------
class Converter:
    def __init__(self, graph, kinds, meta, info, device, kind_devices=()):
        self.kind_devices = list(kind_devices)   # --kind-costs: [(device kind, device model)]
        self.g = graph
        self.kinds = kinds
        self.meta = meta
        self.info = info      # tensor -> (elem_type, shape or None)
        self.device = device
        self.warnings = []
        self.warned = set()
        self.nodes = []       # dicts: name, op, cost_us, output_bytes
        self.edges = []       # (src index, dst index, output), in consumer order
        self.edge_set = set()
        self.producer = {}    # tensor -> (node index, output index), real ops only
        self.source_of = {}   # tensor -> node index of its input/variable op
        self.sources = []     # node indices of input/variable ops in creation order
        self.ops = []         # node indices of real ops in ONNX order
        self.folded = {}      # op_type -> count
        self.nfolded = 0

    def warn(self, tensor, why):
        if tensor in self.warned:
            return
        self.warned.add(tensor)
        self.warnings.append("tensor %r: %s; counted as 0 bytes" % (tensor, why))

    def warn_missing(self, tensor, consumer):
        key = ("missing", tensor)
        if key in self.warned:
            return
        self.warned.add(key)
        self.warnings.append("tensor %r read by %r has no producer in the main graph; no edge" % (tensor, consumer))

    def tensor_bytes(self, name):
        if name not in self.info:
            self.warn(name, "no type or shape information")
            return 0
        elem, shape = self.info[name]
        if shape is None:
            self.warn(name, "unknown shape")
            return 0
        b = nbytes(shape, elem)
        if b is None:
            self.warn(name, "element type %s has no fixed size" % elem)
            return 0
        return b

    def new_node(self, name, op, cost, outs, by_kind=None):
        self.nodes.append({"name": name, "op": op, "cost_us": cost, "output_bytes": outs, "by_kind": by_kind})
        return len(self.nodes) - 1

    def source(self, tensor):
        """The input/variable op of a graph input, initializer or large Constant (created on first use)."""
        if tensor not in self.source_of:
            kind, name, nb = self.source_spec[tensor]
            if nb is None:
                nb = self.tensor_bytes(tensor)
            self.source_of[tensor] = self.new_node(name, kind, 0.0, [nb],
                                                   {k: 0.0 for k, _ in self.kind_devices} or None)
            self.sources.append(self.source_of[tensor])
        return self.source_of[tensor]

    def run(self):
        g = self.g
        self.source_spec = {}   # tensor -> (op, name, bytes or None: from info)
        for t in g.initializer:
            b = nbytes(list(t.dims), t.data_type)
            self.source_spec[t.name] = ("variable", t.name, b if b is not None else 0)
        for st in g.sparse_initializer:
            b = (nbytes(list(st.values.dims), st.values.data_type) or 0) + \
                (nbytes(list(st.indices.dims), st.indices.data_type) or 0)
            self.source_spec[st.values.name] = ("variable", st.values.name, b)
        graph_inputs = []
        for vi in g.input:
            if vi.name not in self.source_spec:
                graph_inputs.append(vi.name)
                self.source_spec[vi.name] = ("input", vi.name, None)

        base = {}   # output of a folded op -> list of tensors with a real producer or a source

        def bases(t):
            return base[t] if t in base else [t]

        for index, (node, kind) in enumerate(zip(g.node, self.kinds)):
            t = node.op_type
            ins = [i for i in node.input if i]
            if kind == "weight":
                out = node.output[0]
                self.source_spec[out] = ("variable", node.name or out, constant_size(node)[1])
                continue
            if kind == "view":
                bl = list(bases(node.input[0]))
                for i in node.input[1:]:
                    if i and i not in self.meta:
                        bl += [b for b in bases(i) if b not in bl]
                for o in node.output:
                    if o:
                        base[o] = bl
            elif kind == "meta":
                for o in node.output:
                    if o:
                        base[o] = []
            if kind is not None:
                self.folded[t] = self.folded.get(t, 0) + 1
                self.nfolded += 1
                continue
            # a placeto op
            out_bytes = [self.tensor_bytes(o) if o else 0 for o in node.output]
            in_shapes = [self.info.get(i, (None, None))[1] if i else None for i in node.input]
            out_shapes = [self.info.get(o, (None, None))[1] if o else None for o in node.output]
            try:
                flops = op_flops(node, in_shapes, out_shapes)
            except Exception:   # a malformed attribute or shape: memory-bound
                flops = 0
            distinct = []
            for i in ins:
                if i not in distinct:
                    distinct.append(i)
            moved = sum(self.tensor_bytes(i) for i in distinct) + sum(out_bytes)
            cost, by_kind = roofline.costs(self.device, self.kind_devices, flops, moved)
            name = node.name if node.name else "%s_%d" % (t, index)
            idx = self.new_node(name, t.lower(), cost, out_bytes, by_kind)
            self.ops.append(idx)
            readers = list(ins)
            if t in ("If", "Loop", "Scan"):
                readers += [r for r in subgraph_outer_refs(node) if r not in readers]
            for i in readers:
                for b in bases(i):
                    if b in self.producer:
                        src, out = self.producer[b]
                    elif b in self.source_spec:
                        src, out = self.source(b), 0
                    else:
                        self.warn_missing(b, name)
                        continue
                    key = (src, idx, out)
                    if key not in self.edge_set:
                        self.edge_set.add(key)
                        self.edges.append(key)
            for k, o in enumerate(node.output):
                if o:
                    self.producer[o] = (idx, k)
        for gi in graph_inputs:       # unused graph inputs last among the sources
            self.source(gi)
        outs = [o for o in self.producer]
        if outs and not any(self.info.get(o, (None, None))[1] is not None for o in outs):
            raise Error("the model has no tensor shapes: shape inference found the shape of no op output "
                        "(give the graph inputs shapes with --shape INPUT=D1,D2,...)")
        return self.finish()

    def finish(self):
        order = self.sources + self.ops
        used = set()
        names = {}
        for old in order:
            base_name = self.nodes[old]["name"]
            name, k = base_name, 2
            while name in used:
                name = "%s_%d" % (base_name, k)
                k += 1
            used.add(name)
            names[old] = name
        # a variable goes with the op that reads it first: both get that op's name as key
        key = {}
        for s, d, _ in self.edges:
            if self.nodes[s]["op"] == "variable" and s not in key:
                key[s] = key[d] = names[d]
        nodes = []
        for old in order:
            n = self.nodes[old]
            nodes.append({"name": names[old], "op": n["op"], "cost_us": n["cost_us"]})
            if n["by_kind"] is not None:
                nodes[-1]["cost_us_by_kind"] = n["by_kind"]
            nodes[-1]["output_bytes"] = n["output_bytes"]
            if old in key:
                nodes[-1]["colocate"] = key[old]
        self.ncolocated = sum(1 for i in key if self.nodes[i]["op"] == "variable")
        edges = [{"src": names[s], "dst": names[d], "output": o} for s, d, o in self.edges]
        return nodes, edges


def graph_text(obj):
    lines = ['{"format": "placeto-graph", "version": 1, "name": %s,' % json.dumps(obj["name"]),
             ' "source": %s,' % json.dumps(obj["source"]),
             ' "nodes": [']
    lines.append(",\n".join("  " + json.dumps(n, sort_keys=False) for n in obj["nodes"]))
    lines.append(' ],')
    lines.append(' "edges": [')
    lines.append(",\n".join("  " + json.dumps(e) for e in obj["edges"]))
    lines.append(' ]}')
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == obj
    return text


def write_atomic(path, text):
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".%s." % os.path.basename(path), suffix=".tmp", dir=d)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def devices_help():
    import textwrap
    return "\n".join(textwrap.fill("%s%s" % (v[0], " (default)" if k == roofline.DEFAULT_DEVICE else ""),
                                   width=78, initial_indent="  %-6s" % k, subsequent_indent=" " * 8)
                     for k, v in roofline.DEVICES.items())


TRAINING_DOMAINS = {"ai.onnx.preview.training"}


def is_training(g):
    """True if the graph has training ops (a backward pass or an optimizer)."""
    return any(n.domain in TRAINING_DOMAINS or n.op_type == "Gradient" or n.op_type.endswith("Grad")
               for n in g.node)


def inference_notice(nodes, edges):
    _, cp, share = summary.totals(nodes, edges)
    bound = ("no placement runs it more than %.1fx faster than one device, before transfers" % (1 / share)
             if share > 0 else "its critical path is empty")
    return ("notice: this is an inference graph (an ONNX model holds the forward pass: no backward pass, no "
            "optimizer update); its critical path is %.1f%% of the total cost, so %s. Placement studies use "
            "training graphs: import the PyTorch model with torch_graph.py (placeto-import-torch) for the "
            "whole training step (forward, backward, update), or with --inference for this same kind of graph"
            % (100 * share, bound))


def non_utf8_name(model):
    """The first name in the model that is not UTF-8 text (protobuf hands
    such a string field over as bytes), described with the node or tensor
    it names; None when all are text."""
    g = model.graph

    def bad(x):
        return guard.utf8_problem(x) is not None

    for i, node in enumerate(g.node):
        op = node.op_type if not bad(node.op_type) else None
        who = "node %d of the main graph (%s%s)" % (i, op or "an op type that is not UTF-8",
                                                     ", named %s" % ascii(node.name) if not bad(node.name) else "")
        if bad(node.op_type):
            return "%s: op_type is %s" % (who, guard.utf8_problem(node.op_type))
        if bad(node.name):
            return "%s: its name is %s" % (who, guard.utf8_problem(node.name))
        for field in ("input", "output"):
            for k, t in enumerate(getattr(node, field)):
                if bad(t):
                    return "%s: %s[%d] is %s" % (who, field, k, guard.utf8_problem(t))
    for field in ("input", "output", "value_info", "initializer"):
        for k, t in enumerate(getattr(g, field)):
            if bad(t.name):
                return "graph %s %d: its name is %s" % (field, k, guard.utf8_problem(t.name))
    for k, t in enumerate(g.sparse_initializer):
        if bad(t.values.name):
            return "graph sparse_initializer %d: its name is %s" % (k, guard.utf8_problem(t.values.name))
    for field in ("producer_name", "producer_version"):
        if bad(getattr(model, field)):
            return "the model's %s is %s" % (field, guard.utf8_problem(getattr(model, field)))
    for k, oi in enumerate(model.opset_import):
        if bad(oi.domain):
            return "opset_import %d: its domain is %s" % (k, guard.utf8_problem(oi.domain))
    return None


def main(argv):
    ap = argparse.ArgumentParser(
        prog=PROG, description=__doc__ % {"devices": devices_help()},
        formatter_class=argparse.RawDescriptionHelpFormatter, usage=argparse.SUPPRESS)
    ap.add_argument("model", metavar="MODEL.onnx", help="the ONNX model file")
    ap.add_argument("-o", "--output", required=True, metavar="OUT.json",
                    help="the placeto-graph file to write (- for stdout)")
    ap.add_argument("--device", default=roofline.DEFAULT_DEVICE, choices=sorted(roofline.DEVICES),
                    help="device model of the roofline costs (default %s)" % roofline.DEFAULT_DEVICE)
    ap.add_argument("--kind-costs", metavar="KIND=DEVICE[,...]",
                    help="also write cost_us_by_kind: each node's roofline cost on device model DEVICE for "
                    "cluster devices of kind KIND (e.g. cpu=xeon)")
    ap.add_argument("--batch", type=int, default=None, metavar="N",
                    help="the batch size: the FIRST dimension of every graph input, when symbolic, 0 or "
                    "missing (default 1); other symbolic dimensions are --dim's")
    ap.add_argument("--dim", action="append", default=[], metavar="NAME=VALUE",
                    help="the size of the symbolic dimension NAME (dim_param) of the graph inputs; needed for "
                    "every symbolic dimension but the first (repeatable)")
    ap.add_argument("--shape", action="append", default=[], metavar="INPUT=D1,D2,...",
                    help="the whole shape of graph input INPUT (repeatable)")
    ap.add_argument("--name", metavar="NAME", help="graph name (default: the model file name without .onnx)")
    ap.add_argument("--timeout", type=guard.timeout_arg, default=guard.DEFAULT_TIMEOUT, metavar="SECONDS",
                    help="give up after SECONDS of the whole import (default %d; 0: no limit)" % guard.DEFAULT_TIMEOUT)
    ap.add_argument("-q", "--quiet", action="store_true",
                    help="no progress lines (the warnings, the summary and the notice stay)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="end with each phase's own time (starting Python and onnx, loading, ...)")
    a = ap.parse_args(argv[1:])
    guard.arm(a.timeout)
    if a.batch is not None and a.batch < 1:
        ap.error("--batch must be >= 1")
    try:
        kind_devices = roofline.parse_kind_costs(a.kind_costs) if a.kind_costs is not None else []
    except ValueError as e:
        ap.error(str(e))
    try:
        dims = {k: int(v) for k, v in parse_assignments(a.dim, "--dim").items()}
    except ValueError:
        ap.error("--dim NAME=VALUE: VALUE must be an integer")
    except Error as e:
        ap.error(str(e))
    if any(v < 1 for v in dims.values()):
        ap.error("--dim values must be >= 1")
    try:
        shapes = parse_assignments(a.shape, "--shape")
    except Error as e:
        ap.error(str(e))
    progress = summary.Progress(PROG, a.quiet, START, a.verbose)

    try:
        import onnx
        import onnx.shape_inference
    except ImportError as e:
        die("cannot import the onnx Python package with %s (%s); install python3-onnx, or name an interpreter "
            "that has it with PLACETO_PYTHON" % (sys.executable or "python3", e))
    if not os.path.isfile(a.model):
        die("%s: no such file" % a.model if not os.path.exists(a.model) else "%s: not a regular file" % a.model)
    if not os.access(a.model, os.R_OK):
        die("%s: cannot read the file (permission denied)" % a.model)
    progress.phase("loading %s" % a.model)
    try:
        model = onnx.load(a.model, load_external_data=False)
    except Exception as e:
        die("%s: not a readable ONNX model (%s: %s)" % (a.model, type(e).__name__, str(e).strip() or "parse error"))
    g = model.graph
    if not g.node:
        die("%s: not an ONNX model or its main graph has no nodes" % a.model)
    problem = non_utf8_name(model)
    if problem:
        die("%s: %s; placeto names are UTF-8 text: rename it in the model" % (a.model, problem))
    try:
        notes, dim_warnings = substitute_dims(model, a.batch, dims, shapes)
        for w in dim_warnings:
            sys.stderr.write("%s: warning: %s\n" % (PROG, w))
        strip_large_weights(model)
        kinds, meta = plan_folding(g)
        progress.phase("inferring the shapes of %d nodes" % len(g.node))
        try:
            info = infer_with_metadata(model, kinds, meta)
        except Exception as e:
            die("%s: shape inference failed: %s" % (a.model, str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__))
        progress.phase("converting and costing (roofline model of %s)" % a.device)
        conv = Converter(g, kinds, meta, info, a.device, kind_devices)
        nodes, edges = conv.run()
    except Error as e:
        die("%s: %s" % (a.model, e))

    for w in conv.warnings[:MAX_WARNINGS]:
        sys.stderr.write("%s: warning: %s\n" % (PROG, w))
    if len(conv.warnings) > MAX_WARNINGS:
        sys.stderr.write("%s: warning: ... and %d more warnings\n" % (PROG, len(conv.warnings) - MAX_WARNINGS))

    opsets = []
    for oi in model.opset_import:
        if oi.domain in ("", "ai.onnx"):
            opsets.insert(0, "opset %d" % oi.version)
        else:
            opsets.append("%s %d" % (oi.domain, oi.version))
    producer = ("%s %s" % (model.producer_name, model.producer_version)).strip() or "unknown"
    folded = ", ".join("%s %d" % (k, v) for k, v in sorted(conv.folded.items()))
    name = a.name if a.name else os.path.splitext(os.path.basename(a.model))[0]
    source = ("onnx_graph.py from %s (producer %s, %s); roofline model of %s: %s%s; batch %d; onnx %s; "
              "python %s; input dims set: %s; folded %d view/shape ops%s; %d weights colocated with the op "
              "that reads them first; command: %s" % (
                  a.model, producer, ", ".join(opsets) or "no opset", a.device, roofline.DEVICES[a.device][0],
                  roofline.describe_kind_costs(kind_devices),
                  a.batch or 1, onnx.__version__, sys.version.split()[0], ", ".join(notes) if notes else "none",
                  conv.nfolded, " (%s)" % folded if folded else "", conv.ncolocated,
                  summary.command_line(argv, "placeto-import-onnx")))
    name, source = guard.printable(name), guard.printable(source)
    obj = {"format": "placeto-graph", "version": 1, "name": name, "source": source,
           "nodes": nodes, "edges": edges}
    try:
        guard.check_graph(name, source, nodes)
    except guard.GraphError as e:
        die("%s: the graph cannot be written: %s" % (a.model, e))
    progress.phase("writing %s" % ("to stdout" if a.output == "-" else a.output))
    try:
        write_atomic(a.output, graph_text(obj))
    except OSError as e:
        die("%s: cannot write: %s" % (a.output, e.strerror or e))
    progress.say(summary.summary(a.output, nodes, edges, a.device, seconds=progress.elapsed(),
                                 detail=" (%d ONNX nodes, %d folded; %d weights colocated)"
                                 % (len(g.node), conv.nfolded, conv.ncolocated)))
    if not is_training(g):
        progress.say(inference_notice(nodes, edges))
    if a.verbose:
        progress.say(progress.times())
    return 0


if __name__ == "__main__":
    guard.run(lambda: main(sys.argv), lambda: PROG, phase_of=lambda: summary.Progress.last)
