#!/usr/bin/python3
"""torch_graph.py: the whole training step of a PyTorch model (or, with
--inference, its forward pass alone) as a placeto graph.

usage: /usr/bin/python3 graphs/import/torch_graph.py MODEL [options] -o OUT.json
       (installed: placeto-import-torch MODEL [options] -o OUT.json)

MODEL is one of
  --model NAME               a model of the zoo the bundled graphs come from
                             (models.py; see --list-models), at its own batch
                             size and input;
  --model torchvision:NAME   any model of torchvision's registry
                             (classification, segmentation, video), with
                             random weights (nothing is downloaded): input
                             3x224x224 images (299x299 for inception_v3,
                             --image-size S for another size; video models
                             3x16x112x112 clips), batch 32, cross-entropy
                             loss on the main output (Inception's and
                             GoogLeNet's auxiliary heads are left out; of a
                             tuple the first element, of a dict its "out");
  --module FILE.py:FACTORY   a module of your own: FILE is loaded by its path
                             (nothing is installed or edited) and FACTORY()
                             -- a function or a class -- must return a
                             torch.nn.Module. Its forward is called with the
                             --input tensors, in the order given, and the
                             --loss of its output is the step's loss.
--list-models prints the zoo names and the torchvision names.

Inputs, batch and named dimensions (--module)
  --input NAME=D1,D2,...[:DTYPE[:HIGH]] (repeatable) gives one forward
  argument: the shape of ONE example. --batch N (default 32) is the batch
  dimension, put in front of every input's shape: --input x=3,64,64 --batch 8
  makes x of shape [8, 3, 64, 64]. A D that is a name is a named dimension,
  set with --dim NAME=VALUE (--input tokens=seq:int64:30000 --dim seq=128
  makes tokens [32, 128]); --dim never sets the batch dimension. DTYPE is
  float32 (the default; values from a normal distribution), float64,
  float16, bfloat16, int64, int32 or bool (all false); integer inputs hold
  values in [0, HIGH), HIGH 1 unless given (all zeros: valid token ids and
  class indices for any model). The values do not change the graph; its
  shapes do.

Loss (--module; --loss, default auto)
  auto           the output if it is a scalar (a forward that returns its own
                 loss), else an error asking for one of the below
  none           the output, which must be a scalar loss
  sum            the sum of the output
  mse            mean squared error against an input "target" of the
                 output's shape
  ce[:CLASSES]   cross-entropy against an input "labels" (int64): classes
                 along dimension 1 of the output, as F.cross_entropy takes
                 them; labels have the output's shape without that dimension
                 (CLASSES, when given, is checked against it)
  Of an output that is a tuple, list or named tuple the first element counts,
  of a dict its "out" entry. Parameters are named "net." + the module's own
  names.

The model's training step (forward pass, loss, backward pass and the
optimizer update) is captured with functorch's ahead-of-time autograd
(aot_module): the forward and the backward are traced into two aten-level FX
graphs, joined where the backward reads tensors the forward saved, and an
SGD-with-momentum update is added for every parameter. Then:
  * zero-cost view and bookkeeping ops (view, reshape, t, transpose, permute,
    expand, squeeze, unsqueeze, slice, select, detach, alias, getitem) are
    folded: their consumers read the producer of the underlying tensor;
  * every tensor's size comes from its shape and dtype (FX shape propagation
    on the real example inputs);
  * every op's cost comes from the roofline model in roofline.py:
        cost_us = launch + max(FLOPs / FLOP_rate, bytes_moved / byte_rate)
    FLOPs for convolutions (2 x output elements x input channels per group x
    kernel size; the backward counts grad-input and grad-weight separately),
    matrix products (addmm, mm, bmm, baddbmm: 2 x m x k x n x batch) and
    attention built from them; bytes moved (every tensor input and output
    once) for the rest; a fixed launch overhead per op. The default device
    model "k80" matches placeto's default cluster (one K80 die, as in the
    Placeto paper); --device p100|v100 picks another;
  * with --measure-cpu, each traced op is instead timed on this machine's CPU
    (median of --repeats runs of the op alone on real tensors); the ops this
    script adds (the momentum updates and the loss gradient seed) keep their
    roofline costs;
  * parameters are "variable" ops (cost 0, output = the parameter), each with
    a "<param>/momentum" buffer variable and a "<param>/update"
    apply_momentum op (reads parameter, momentum and gradient; writes them in
    place, 0-byte output). The variable, its momentum, its update and the op
    that produces its gradient share the parameter's name as colocate key;
    parameters whose gradients come out of one op share one key. Buffers
    (BatchNorm statistics) are variables too; inputs are "input" ops.

Inference (--inference)
  The forward pass alone, as an inference server runs it: the network in
  eval mode (BatchNorm reads its running statistics, dropout is off), traced
  with make_fx under no_grad into one aten-level FX graph (the same ops as
  the training step's forward, with the same folding and costs). No loss,
  no backward op, no gradient, no momentum buffer and no update; the zoo's
  classifiers and torchvision:NAME lose their loss and labels input, and
  --module runs the module itself (no --loss). Parameters and buffers are
  still "variable" ops, the graph's weights; each shares a colocation key
  with the op that reads it first (that op's name), as onnx_graph.py does, so
  a weight lands in its consumer's group. The default batch is 8 (bert_base:
  1, one request of 128 tokens): HSDAG (Duan et al., NeurIPS 2024), whose
  CPU + GPU setting this follows, measures single-request latency, but at
  batch 1 a CNN's convolutions are launch-bound on both devices;
  batch 8 keeps them compute-bound, so that the CPU/GPU cost ratio differs
  by op kind. The zoo models that compute their loss inside their forward
  (nmt, nmt_variant, enas_ptb) have no inference form.

Per-kind costs (--kind-costs KIND=DEVICE[,KIND=DEVICE...])
  Every node also gets cost_us_by_kind {KIND: cost}: its roofline cost
  (same FLOPs and bytes) on device model DEVICE, which placeto uses on
  cluster devices of that kind instead of cost_us / speed. --kind-costs
  cpu=xeon adds the CPU costs of the Xeon model in roofline.py (one socket
  of a Xeon Gold 6148); inputs and variables get 0. Not with --measure-cpu.
  --export-onnx OUT.onnx (with --inference) also writes the same network and
  inputs as an ONNX model (torch.onnx.export, opset 17, batch dimension
  symbolic), for onnx_graph.py: graphs/import/make_inference.sh check
  compares the two paths.

Op names: forward ops keep the FX names ("convolution_3"), backward ops get
"grad/" in front, variables the parameter's name ("layer1.0.conv1.weight").

Progress and summary (stderr)
  One line per phase, with the seconds since the start: building the model,
  tracing forward and backward, costing N ops (or timing them), writing OUT;
  -q/--quiet drops these; -v/--verbose ends with one line giving each
  phase's own seconds, starting Python and PyTorch included. Then a summary
  line that --quiet keeps: ops,
  edges, total cost and the critical path share -- the longest chain of op
  costs through the edges over the total cost (transfers ignored), which
  bounds the speed-up any placement can reach (placeto info prints the same
  figure).

The graph's "source" records the model, batch size, device model, the tool
versions and the exact command (placeto-import-torch when installed, else
the interpreter and the script path as given; paths in it are as given).
Output is deterministic: the same command gives a byte-identical file
(written through a temporary file and rename).

Limits and refusals
  --timeout SECONDS (default 600; 0: no limit) bounds the whole import: a
  factory or forward pass that never returns ends with "gave up after N s
  (--timeout N) while PHASE". Ctrl-C prints "interrupted" and exits with
  status 130. A factory (or the module file, or its forward pass) that calls
  sys.exit, or raises, is one line naming FILE:FACTORY ("the factory exited
  with status 0 before returning a model", "raised ValueError: ..."). The
  graph must fit placeto's graph format (docs/formats.md): each output's
  size from 0 to 2^53 bytes, all outputs together at most 2^62 bytes, costs
  finite and at most 1e15 us, every name UTF-8 text; a model whose tensors
  are larger (an input of 2^62 elements) is refused at import with a line
  naming the op and the field, and no file is written.

Interpreter (installed command)
  The installed placeto-import-torch runs this script with the Python
  interpreter named by PLACETO_PYTHON when that is set (for example
  PLACETO_PYTHON=~/venv/bin/python), else the python3 on PATH when it can
  import torch (an activated virtual environment), else /usr/bin/python3
  (Debian's python3-torch). From the source tree, run it with the
  interpreter of your choice.

Exit status 0 on success, 1 on an error (a missing file or factory, a
forward pass that fails, an unknown torchvision name, a graph too large for
the format, the --timeout: "torch_graph.py: ..." on stderr, or
"placeto-import-torch: ..." when installed), 2 on a malformed option, 130
on Ctrl-C.
"""
import argparse
import json
import operator
import os
import platform
import statistics
import sys
import time

START = time.monotonic()         # progress lines count from here (before PyTorch loads)
sys.dont_write_bytecode = True   # no __pycache__ in the source tree or beside a user's module
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import families  # noqa: E402
import guard  # noqa: E402
guard.keep_freed_memory()  # noqa: E305 (before PyTorch or ONNX allocates)
import layers  # noqa: E402
import roofline  # noqa: E402
import summary  # noqa: E402

PROG = guard.prog_name(sys.argv[0], "torch_graph.py", "placeto-import-torch")

VIEW_OPS = {
    "view", "_unsafe_view", "_reshape_alias", "reshape", "t", "transpose", "permute", "expand",
    "squeeze", "unsqueeze", "slice", "select", "detach", "alias", "as_strided", "numpy_T",
    "lift_fresh_copy", "view_as", "expand_as", "split", "split_with_sizes", "unbind", "chunk",
}
MATMUL_OPS = {"mm", "addmm", "bmm", "baddbmm", "matmul"}


def die(msg, status=1):
    if guard.expired():   # the --timeout alarm, turned into another error on its way
        raise guard.TimeUp()
    sys.stderr.write("%s: %s\n" % (PROG, msg))
    sys.exit(status)


def aten_name(target):
    s = str(target)
    if s.startswith("aten."):
        s = s[5:]
    return s.split(".")[0]


def metas(node):
    """TensorMetadata of each output of an FX node (a list; None for non-tensors)."""
    m = node.meta.get("tensor_meta")
    if m is None:
        return []
    if hasattr(m, "shape"):
        return [m]
    return list(m)


def meta_bytes(m):
    if m is None or not hasattr(m, "shape"):
        return 0
    return roofline.tensor_bytes(list(m.shape), str(m.dtype))


def shape_of(arg):
    m = arg.meta.get("tensor_meta") if hasattr(arg, "meta") else None
    return list(m.shape) if m is not None and hasattr(m, "shape") else None


def flops_of(op, node):
    """FLOPs of the compute-bound ops; 0 for the rest (they are memory-bound)."""
    a = node.args
    outs = metas(node)
    if op == "convolution" and outs and outs[0] is not None:
        w = shape_of(a[1])
        return roofline.conv_flops(list(outs[0].shape), w[1], roofline.numel(w[2:]))
    if op == "convolution_backward":
        gout, w = shape_of(a[0]), shape_of(a[2])
        mask = a[10] if len(a) > 10 else [True, True, True]
        one = roofline.conv_flops(gout, w[1], roofline.numel(w[2:]))
        return one * (int(bool(mask[0])) + int(bool(mask[1])))
    if op in MATMUL_OPS:
        if op == "addmm":
            x, y = shape_of(a[1]), shape_of(a[2])
        elif op == "baddbmm":
            x, y = shape_of(a[1]), shape_of(a[2])
        else:
            x, y = shape_of(a[0]), shape_of(a[1])
        if x is None or y is None:
            return 0.0
        batch = roofline.numel(x[:-2]) if len(x) > 2 else 1
        return roofline.matmul_flops(x[-2] if len(x) > 1 else 1, x[-1], y[-1], batch)
    return 0.0


class Builder:
    """Collects placeto nodes and edges; values are (op name, output index)."""

    def __init__(self):
        self.nodes = []
        self.index = {}
        self.edges = []

    def node(self, name, op, cost, out_bytes, colocate=None, by_kind=None):
        base, k = name, 2
        while name in self.index:
            name = "%s~%d" % (base, k)
            k += 1
        nd = {"name": name, "op": op, "cost_us": cost}
        if by_kind is not None:
            nd["cost_us_by_kind"] = by_kind
        nd["output_bytes"] = out_bytes
        if colocate:
            nd["colocate"] = colocate
        self.index[name] = nd
        self.nodes.append(nd)
        return name

    def edge(self, value, dst):
        if value is not None:
            self.edges.append({"src": value[0], "dst": dst, "output": value[1]})


def tensor_args(node):
    """The FX nodes among an FX node's arguments (nested lists included)."""
    out = []

    def walk(x):
        if hasattr(x, "op") and hasattr(x, "meta"):
            out.append(x)
        elif isinstance(x, (list, tuple)):
            for y in x:
                walk(y)
    walk(node.args)
    walk(list(node.kwargs.values()))
    return out


def convert(b, gm, prefix, values, device, kinds, timings):
    """Adds the call_function nodes of one FX graph; values maps FX node -> value;
    kinds: [(device kind, device model)] of --kind-costs (roofline costs, also
    with timings)."""
    folded = set()
    for n in gm.graph.nodes:
        if n.op != "call_function":
            continue
        op = aten_name(n.target)
        args = tensor_args(n)
        if n.target is operator.getitem:
            src = values.get(n.args[0])
            if n.args[0] in folded or src is None:  # a piece of a view (split, chunk, unbind)
                values[n] = src
            else:  # output k of a multi-output op
                values[n] = (src[0], src[1] + n.args[1])
            folded.add(n)
            continue
        if op in VIEW_OPS:
            values[n] = values.get(args[0]) if args else None
            folded.add(n)
            continue
        outs = metas(n)
        out_bytes = [meta_bytes(m) for m in outs] or [0]
        moved = sum(out_bytes) + sum(meta_bytes(m) for a in args for m in metas(a)[:1])
        cost, by_kind = roofline.costs(device, kinds, flops_of(op, n), moved)
        if timings is not None:
            cost = round(timings.get(n, 0.0), 3)
        name = b.node(prefix + n.name, op, cost, out_bytes, by_kind=by_kind)
        seen = set()
        for a in args:
            v = values.get(a)
            if v is not None and v not in seen:
                seen.add(v)
                b.edge(v, name)
        values[n] = (name, 0)


def time_ops(gm, example, repeats):
    """Median CPU time in microseconds of every call_function node, run alone."""
    import torch.fx
    timings = {}

    class Timer(torch.fx.Interpreter):
        def run_node(self, n):
            if n.op != "call_function" or aten_name(n.target) in VIEW_OPS or aten_name(n.target) == "getitem":
                return super().run_node(n)
            samples = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                r = super().run_node(n)
                samples.append((time.perf_counter() - t0) * 1e6)
            timings[n] = statistics.median(samples)
            return r
    Timer(gm).run(*example)
    return timings


def shapes_of(gm, example):
    """Propagates the shapes of gm's example inputs through it with fake
    tensors (no op computes) and returns, as gm's compiled function, one
    that gives uninitialised tensors of its outputs' shapes: the training
    step goes on to the backward graph without running either graph, whose
    values nothing reads (the capture has already computed the step once;
    running both graphs and propagating real shapes through them took it
    three times)."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.passes.shape_prop import ShapeProp
    from torch.fx.passes.shape_prop import _extract_tensor_metadata
    nodes = [n for n in gm.graph.nodes if n.op in ("placeholder", "call_function")]
    if nodes and all("val" in n.meta for n in nodes):   # traced with fake tensors: each node has its value
        for n in nodes:
            v = n.meta["val"]
            n.meta["tensor_meta"] = (_extract_tensor_metadata(v) if isinstance(v, torch.Tensor) else
                                     type(v)(_extract_tensor_metadata(x) if isinstance(x, torch.Tensor) else x
                                             for x in v) if isinstance(v, (list, tuple)) else None)
    else:
        mode = FakeTensorMode()
        with mode:
            ShapeProp(gm).propagate(*[mode.from_tensor(e) if isinstance(e, torch.Tensor) else e for e in example])
    outs = [n for n in gm.graph.nodes if n.op == "output"][0].args[0]
    specs = [n.meta.get("tensor_meta") if hasattr(n, "meta") else None for n in outs]

    def run(args):
        args.clear()
        return [torch.empty_strided(tuple(m.shape), tuple(m.stride), dtype=m.dtype)
                if m is not None and hasattr(m, "shape") else None for m in specs]
    run._boxed_call = True
    return run


_META_LIBS = []


def conv_backward_meta():
    """Gives aten::convolution_backward a Meta kernel where PyTorch has none
    (1.13): without it, fake tensors run each convolution's backward for
    real on zeros, a third of a small model's capture. The gradients have
    the shapes and dtypes of the input, the weight and the bias; which of
    them are computed follows output_mask, as in the real kernel. Once per
    process; a PyTorch that has the kernel already keeps its own."""
    import torch
    if _META_LIBS:
        return
    try:
        if torch._C._dispatch_has_kernel_for_dispatch_key("aten::convolution_backward", "Meta"):
            _META_LIBS.append(None)
            return
        lib = torch.library.Library("aten", "IMPL", "Meta")
    except (AttributeError, RuntimeError):
        return

    def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
                             output_padding, groups, output_mask):
        return (grad_output.new_empty(input.shape) if output_mask[0] else None,
                grad_output.new_empty(weight.shape) if output_mask[1] else None,
                grad_output.new_empty(bias_sizes) if output_mask[2] else None)
    lib.impl("convolution_backward", convolution_backward)
    _META_LIBS.append(lib)   # the kernel lives as long as the library object


def capture(model, inputs, keep_examples):
    """Forward and backward FX graphs of one training step of model(*inputs) ->
    loss, with copies of their example inputs when keep_examples is set (to
    time the ops; they double the memory the capture needs)."""
    import torch
    from functorch.compile import aot_module, make_boxed_func
    from torch.fx.passes.shape_prop import ShapeProp
    got = {}

    def keep(key):
        def compiler(gm, example):
            if not keep_examples:   # shapes only: nothing of the step computed twice
                got[key] = (gm, None)
                return shapes_of(gm, example)
            ShapeProp(gm).propagate(*example)
            got[key] = (gm, [e.detach().clone() if isinstance(e, torch.Tensor) else e for e in example])
            return make_boxed_func(gm)
        return compiler
    from functorch._src import config
    was = config.use_fake_tensor
    # Shapes only: trace on fake tensors (no op computes, each node keeps its
    # value's shape); a model that fake tensors cannot run (an op without a
    # fake kernel, a branch on a tensor's contents) is traced on real ones.
    for fake in ([True, False] if not keep_examples else [False]):
        if fake:
            conv_backward_meta()
        config.use_fake_tensor = fake
        got.clear()
        try:
            stepped = aot_module(model, fw_compiler=keep("fw"), bw_compiler=keep("bw"))
            loss = stepped(*inputs)
            loss.backward()
            break
        except Exception:
            if not fake:
                raise
        finally:
            config.use_fake_tensor = was
    return got["fw"], got["bw"]


def capture_inference(net, inputs, keep_examples):
    """The forward FX graph of net(*inputs) in eval mode with no autograd:
    parameters, buffers and inputs are its placeholders, in that order. With
    keep_examples, a copy of the example inputs too (for --measure-cpu)."""
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.fx.passes.shape_prop import ShapeProp
    try:
        from torch.func import functional_call
    except ImportError:   # torch < 2.0
        from torch.nn.utils.stateless import functional_call
    pnames = [n for n, _ in net.named_parameters()]
    bnames = [n for n, _ in net.named_buffers()]
    n_state = len(pnames) + len(bnames)

    def forward(*args):
        state = dict(zip(pnames + bnames, args[:n_state]))
        with torch.no_grad():
            return functional_call(net, state, tuple(args[n_state:]))
    example = ([p.detach() for _, p in net.named_parameters()] + [b for _, b in net.named_buffers()]
               + list(inputs))
    gm = make_fx(forward)(*example)
    ShapeProp(gm).propagate(*example)
    return gm, ([e.detach().clone() for e in example] if keep_examples else None)


def zero_kinds(kinds):
    """cost_us_by_kind of an op that costs nothing (a variable or an input)."""
    return {k: 0.0 for k, _ in kinds} if kinds else None


def colocate_weights(b):
    """Inference: each variable shares a colocation key, the name of the op that
    reads it first (in graph order), with that op, as onnx_graph.py does; so a
    weight that costs nothing goes to its consumer's group."""
    order = {nd["name"]: i for i, nd in enumerate(b.nodes)}
    first = {}
    for e in b.edges:
        src = b.index[e["src"]]
        if src["op"] == "variable" and (e["src"] not in first or order[e["dst"]] < order[first[e["src"]]]):
            first[e["src"]] = e["dst"]
    for var, reader in first.items():
        b.index[var]["colocate"] = reader
        b.index[reader]["colocate"] = reader


def build_inference(net, inputs, input_names, device, kinds, measure_cpu, repeats, progress):
    """The forward pass alone: no loss, no backward, no update. Parameters and
    buffers are "variable" ops, the inputs "input" ops."""
    import torch
    torch.manual_seed(0)
    net.eval()
    progress.phase("tracing the forward pass (inference, eval mode, on this CPU)")
    gm, example = capture_inference(net, inputs, measure_cpu)
    progress.phase("timing %d traced ops on this CPU (median of %d runs each)" % (count_ops(gm), repeats)
                   if measure_cpu else "costing %d traced ops (roofline model of %s%s)"
                   % (count_ops(gm), device, "".join(", %s for %s" % (d, k) for k, d in kinds)))
    state = [n for n, _ in net.named_parameters()] + [n for n, _ in net.named_buffers()]
    ph = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(ph) != len(state) + len(inputs):
        die("unexpected forward inputs: %d placeholders for %d parameters and buffers, %d inputs"
            % (len(ph), len(state), len(inputs)))
    b = Builder()
    values = {}
    for k, p in enumerate(ph):
        name, kind = (state[k], "variable") if k < len(state) else (input_names[k - len(state)], "input")
        values[p] = (b.node(name, kind, 0.0, [meta_bytes(m) for m in metas(p)] or [0], by_kind=zero_kinds(kinds)), 0)
    convert(b, gm, "", values, device, kinds, time_ops(gm, example, repeats) if measure_cpu else None)
    return b


def export_onnx(net, inputs, input_names, path):
    """The --inference network and inputs as an ONNX file (eval mode; the first
    dimension of every input symbolic, "batch"), through a temporary file."""
    import torch
    import warnings
    net.eval()
    tmp = "%s.tmp.%d" % (path, os.getpid())
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(net, tuple(inputs), tmp, input_names=list(input_names), output_names=["output"],
                              opset_version=17, do_constant_folding=True,
                              dynamic_axes={n: {0: "batch"} for n in input_names})
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def count_ops(gm):
    return sum(1 for n in gm.graph.nodes if n.op == "call_function" and n.target is not operator.getitem
               and aten_name(n.target) not in VIEW_OPS)


def build(model, inputs, input_names, device, kinds, measure_cpu, repeats, progress):
    import torch
    torch.manual_seed(0)
    progress.phase("tracing forward and backward (one training step%s)" % (" on this CPU" if measure_cpu else ""))
    (fg, fex), (bg, bex) = capture(model, inputs, measure_cpu)
    n = count_ops(fg) + count_ops(bg)
    progress.phase("timing %d traced ops on this CPU (median of %d runs each)" % (n, repeats) if measure_cpu
                   else "costing %d traced ops (roofline model of %s)" % (n, device))
    params = list(model.named_parameters())
    buffers = list(model.named_buffers())
    fph = [n for n in fg.graph.nodes if n.op == "placeholder"]
    if len(fph) != len(params) + len(buffers) + len(inputs):
        die("unexpected forward inputs: %d placeholders for %d parameters, %d buffers, %d inputs"
            % (len(fph), len(params), len(buffers), len(inputs)))
    b = Builder()
    values = {}
    primal_value = []
    for k, ph in enumerate(fph):
        if k < len(params):
            name, kind = params[k][0], "variable"
        elif k < len(params) + len(buffers):
            name, kind = buffers[k - len(params)][0], "variable"
        else:
            name, kind = input_names[k - len(params) - len(buffers)], "input"
        v = (b.node(name, kind, 0.0, [meta_bytes(m) for m in metas(ph)] or [0], by_kind=zero_kinds(kinds)), 0)
        values[ph] = v
        primal_value.append(v)
    convert(b, fg, "", values, device, kinds, time_ops(fg, fex, repeats) if measure_cpu else None)
    fout = [n for n in fg.graph.nodes if n.op == "output"][0].args[0]
    bph = [n for n in bg.graph.nodes if n.op == "placeholder"]
    tangents = [n for n in bph if n.name.startswith("tangents")]
    saved = [n for n in bph if not n.name.startswith("tangents")]
    n_user = len(fout) - len(saved)
    bvalues = {}
    for ph, src in zip(saved, fout[n_user:]):
        bvalues[ph] = values.get(src) if hasattr(src, "op") else None
    for k, t in enumerate(tangents):  # d loss / d loss = 1
        loss_v = values.get(fout[k])
        cost, by_kind = roofline.costs(device, kinds, 0, meta_bytes(metas(t)[0]))
        name = b.node("grad/ones_like_%d" % k, "ones_like", cost, [meta_bytes(m) for m in metas(t)] or [0],
                      by_kind=by_kind)
        b.edge(loss_v, name)
        bvalues[t] = (name, 0)
    convert(b, bg, "grad/", bvalues, device, kinds, time_ops(bg, bex, repeats) if measure_cpu else None)
    bout = [n for n in bg.graph.nodes if n.op == "output"][0].args[0]
    # colocation: a parameter, its momentum, its update and its gradient's producer
    key_of_op = {}
    keys = {}
    for k, (pname, p) in enumerate(params):
        g = bout[k] if k < len(bout) else None
        gv = bvalues.get(g) if g is not None else None
        if gv is None:
            continue
        key = key_of_op.setdefault(gv[0], pname)
        keys[pname] = key
    by_name = b.index
    for op_name, key in key_of_op.items():
        by_name[op_name]["colocate"] = key
    for k, (pname, p) in enumerate(params):
        if pname not in keys:
            continue
        key = keys[pname]
        g = bout[k]
        nbytes = roofline.tensor_bytes(list(p.shape), str(p.dtype))
        by_name[pname]["colocate"] = key
        mom = b.node(pname + "/momentum", "variable", 0.0, [nbytes], colocate=key, by_kind=zero_kinds(kinds))
        # momentum update reads and writes parameter, momentum and gradient
        cost, by_kind = roofline.costs(device, kinds, 3.0 * roofline.numel(p.shape), 5 * nbytes)
        up = b.node(pname + "/update", "apply_momentum", cost, [0], colocate=key, by_kind=by_kind)
        b.edge(primal_value[k], up)
        b.edge((mom, 0), up)
        b.edge(bvalues[g], up)
    return b


def describe_versions():
    import torch
    try:
        import torchvision
        tv = torchvision.__version__
    except ImportError:
        tv = "absent"
    return "torch %s, torchvision %s, python %s" % (torch.__version__, tv, platform.python_version())


def drop_unused(b):
    """Removes ops with no edge at all (buffers the step never reads, such as
    BatchNorm's num_batches_tracked)."""
    touched = {e["src"] for e in b.edges} | {e["dst"] for e in b.edges}
    b.nodes = [n for n in b.nodes if n["name"] in touched]


def write(b, name, source, path, tag_layers=False):
    if tag_layers:  # sequence models: one "layer" per node for the expert placement
        layers.tag_layers(b.nodes, b.edges)
    doc = {"format": "placeto-graph", "version": 1, "name": name, "source": source,
           "nodes": b.nodes, "edges": b.edges}
    text = json.dumps(doc, indent=None, separators=(",", ":"), sort_keys=False)
    text = text.replace('{"name"', '\n{"name"').replace('{"src"', '\n{"src"') + "\n"
    if path == "-":
        sys.stdout.write(text)
        return
    tmp = "%s.tmp.%d" % (path, os.getpid())
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:   # also Ctrl-C and --timeout: no temporary file left behind
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def list_models(models):
    import torch_models
    print("zoo models (--model NAME, models.py):")
    print("  " + " ".join(sorted(models.MODELS)))
    try:
        names = torch_models.tv_names()
    except ImportError as e:
        print("torchvision models: none (cannot import torchvision: %s)" % e)
        return
    import torchvision
    print("torchvision %s models (--model torchvision:NAME):" % torchvision.__version__)
    line = " "
    for n in names:
        if len(line) + len(n) > 78:
            print(line)
            line = " "
        line += " " + n
    print(line)


def check_options(args, ap):
    """Refuses options that do not fit the model kind, and parses --input, --dim and
    --loss (before anything slow runs). Returns the parsed (inputs, dims, loss) or None."""
    import models
    import torch_models as tm
    zoo = args.model is not None and not args.model.startswith("torchvision:")
    if zoo and args.model not in models.MODELS:
        die("unknown model %r; the zoo has %s; --model torchvision:NAME takes any torchvision model "
            "(--list-models)" % (args.model, ", ".join(sorted(models.MODELS))))
    if args.model is not None:
        for opt, val in (("--input", args.input), ("--dim", args.dim), ("--loss", args.loss)):
            if val:
                ap.error("%s: only with --module (--model takes its own inputs and loss)" % opt)
    if args.inference and zoo and models.MODELS[args.model].internal_loss:
        ap.error("--inference: the zoo model %s computes its training loss inside its forward, so it has no "
                 "forward-only graph (--inference takes the other zoo models, torchvision:NAME and --module)"
                 % args.model)
    if args.export_onnx and not args.inference:
        ap.error("--export-onnx: only with --inference (ONNX holds the forward pass)")
    if args.inference and args.loss:
        ap.error("--loss: not with --inference (an inference graph has no loss)")
    if args.kind_costs is not None:
        if args.measure_cpu:
            ap.error("--kind-costs: not with --measure-cpu (the per-kind costs are roofline costs)")
        try:
            args.kinds = roofline.parse_kind_costs(args.kind_costs)
        except ValueError as e:
            ap.error(str(e))
    else:
        args.kinds = []
    if args.image_size is not None and (zoo or args.module):
        ap.error("--image-size: only with --model torchvision:NAME (--module takes --input shapes)")
    if args.image_size is not None and args.image_size < 1:
        ap.error("--image-size must be >= 1")
    if args.module is None:
        return None
    try:
        specs = [tm.parse_input(t) for t in args.input]
        dims = tm.parse_dims(args.dim)
        tm.check_dims(specs, dims)
        return specs, dims, tm.parse_loss(args.loss or "auto")
    except tm.UsageError as e:
        die(e, 2)


def make_model(args, parsed):
    """(module, inputs, input names, description, graph name, batch) of the model asked for:
    with --inference the network alone (no loss) and its own inputs."""
    import models
    import torch_models as tm
    if args.model is not None and not args.model.startswith("torchvision:"):
        spec = models.MODELS[args.model]
        if args.inference:
            batch = args.batch or spec.infer_batch
            net, inputs, names, about = spec.make_inference(batch, args.seed)
            return net, inputs, names, about, spec.name(batch, args.seed), batch
        batch = args.batch or spec.batch
        model, inputs, names, about = spec.make(batch, args.seed)
        return model, inputs, names, about, spec.name(batch, args.seed), batch
    batch = args.batch or (models.INFERENCE_BATCH if args.inference else 32)
    if args.model is not None:
        model, inputs, names, about, name = tm.torchvision_model(args.model[len("torchvision:"):], batch,
                                                                 args.image_size)
        if args.inference:   # the network without its loss, fed its own input alone
            return model.net, inputs[:model.n_inputs], names[:model.n_inputs], \
                about.rsplit(", cross-entropy", 1)[0], name, batch
        return model, inputs, names, about, name, batch
    return tm.user_model(args.module, batch, *parsed, inference=args.inference) + (batch,)


def main():
    try:
        import models
    except ImportError as e:
        die("cannot import PyTorch with %s (%s); install python3-torch and python3-torchvision, or name an "
            "interpreter that has them with PLACETO_PYTHON" % (sys.executable or "python3", e))
    ap = argparse.ArgumentParser(
        prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
        usage="%(prog)s (--model NAME | --model torchvision:NAME | --module FILE.py:FACTORY) [options] -o OUT.json")
    what = ap.add_mutually_exclusive_group()
    what.add_argument("--model", metavar="NAME", help="a zoo model (%s) or torchvision:NAME (any model of "
                      "torchvision's registry)" % ", ".join(sorted(models.MODELS)))
    what.add_argument("--module", metavar="FILE.py:FACTORY", help="your own nn.Module: FACTORY() from FILE.py")
    what.add_argument("--list-models", action="store_true", help="print the zoo and torchvision names and exit")
    ap.add_argument("--batch", type=int, default=None, metavar="N",
                    help="the batch size: the FIRST dimension of every input (default: the zoo model's own, "
                    "32 for torchvision:NAME and --module); named dimensions are --dim's")
    ap.add_argument("--input", action="append", default=[], metavar="NAME=D1,D2,...[:DTYPE[:HIGH]]",
                    help="--module: a forward input, the shape of ONE example (no batch dimension); "
                    "repeatable, in the forward's argument order")
    ap.add_argument("--dim", action="append", default=[], metavar="NAME=VALUE",
                    help="--module: the size of a named dimension of the --input shapes (not the batch: --batch)")
    ap.add_argument("--loss", default=None, metavar="auto|none|sum|mse|ce[:CLASSES]",
                    help="--module: the loss of the output (default auto: the output if it is a scalar)")
    ap.add_argument("--image-size", type=int, default=None, metavar="S",
                    help="torchvision:NAME: the input's height and width (default 224; 299 for inception_v3; "
                    "112 for video models)")
    ap.add_argument("--seed", type=int, default=0,
                    help="seed of the weights, inputs and generated architectures (ENAS cells, NMT variants; "
                    "nmt_variant takes configuration SEED mod 75, so SEED and SEED + 75 make the same graph: "
                    "graphs/import/families.py says which seeds repeat a bundled member)")
    ap.add_argument("--fresh", action="store_true",
                    help="a family model (enas_cifar10, enas_ptb, nmt_variant): refuse a seed whose configuration "
                    "is a bundled member's (graphs/families/*, seeds 0-31), naming it (exit 1); without --fresh "
                    "such a seed other than the member's own is named in a note on stderr")
    ap.add_argument("--device", default=roofline.DEFAULT_DEVICE, choices=sorted(roofline.DEVICES),
                    help="device model of the roofline costs (default: k80)")
    ap.add_argument("--inference", action="store_true",
                    help="the forward pass alone in eval mode (no loss, backward or update): parameters are "
                    "variables colocated with the op that reads them first; default batch %d (bert_base: 1)"
                    % models.INFERENCE_BATCH)
    ap.add_argument("--kind-costs", metavar="KIND=DEVICE[,...]",
                    help="also write cost_us_by_kind: each node's roofline cost on device model DEVICE for "
                    "cluster devices of kind KIND (e.g. cpu=xeon; devices: %s)" % ", ".join(sorted(roofline.DEVICES)))
    ap.add_argument("--export-onnx", metavar="OUT.onnx",
                    help="with --inference: also export the same network and inputs with torch.onnx.export "
                    "(opset 17, eval mode, symbolic batch) for onnx_graph.py")
    ap.add_argument("--measure-cpu", action="store_true", help="time every op on this machine's CPU instead")
    ap.add_argument("--repeats", type=int, default=3, help="runs per op with --measure-cpu (median)")
    ap.add_argument("--name", help="graph name (default: the model's, or the module file's; + \"_inference\" with --inference)")
    ap.add_argument("--timeout", type=guard.timeout_arg, default=guard.DEFAULT_TIMEOUT, metavar="SECONDS",
                    help="give up after SECONDS of the whole import: a factory or forward pass that never returns "
                    "(default %d; 0: no limit)" % guard.DEFAULT_TIMEOUT)
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress lines (the summary stays)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="end with each phase's own time (starting Python and PyTorch, building, tracing, ...)")
    ap.add_argument("-o", "--output", metavar="OUT.json", help="output file, or - for stdout")
    args = ap.parse_args()
    guard.arm(args.timeout)
    if args.list_models:
        list_models(models)
        return
    if args.model is None and args.module is None:
        ap.error("give --model NAME, --model torchvision:NAME or --module FILE.py:FACTORY (--list-models)")
    if not args.output:
        ap.error("the following arguments are required: -o/--output")
    if args.batch is not None and args.batch < 1:
        ap.error("--batch must be >= 1")
    if args.fresh and args.model not in families.CONFIG:
        ap.error("--fresh needs a family model (%s)" % ", ".join(sorted(families.CONFIG)))
    repeat = families.seed_message(args.model, args.seed) if args.model in families.CONFIG else None
    if repeat and args.fresh:
        die(repeat + " (--fresh)")
    if repeat and args.seed >= families.BUNDLED:
        sys.stderr.write("%s: note: %s\n" % (PROG, repeat))
    progress = summary.Progress(PROG, args.quiet, START, args.verbose)
    try:
        import importlib
        import torch
        importlib.import_module("functorch.compile")
    except ImportError as e:
        die("cannot import PyTorch with %s (%s); install python3-torch and python3-torchvision, or name an "
            "interpreter that has them with PLACETO_PYTHON" % (sys.executable or "python3", e))
    import torch_models
    parsed = check_options(args, ap)
    torch.manual_seed(args.seed)
    # one thread keeps --measure-cpu timings clean; shapes do not depend on it
    torch.set_num_threads(1 if args.measure_cpu else (os.cpu_count() or 1))
    what = args.module if args.module else args.model
    progress.phase("building %s%s" % ("--module " if args.module else "", what))
    try:
        model, inputs, input_names, about, name, batch = make_model(args, parsed)
    except torch_models.UsageError as e:
        die(e, 2)
    except torch_models.Error as e:
        die(e)
    except (Exception, SystemExit) as e:   # a zoo model too large to allocate (--batch), ...
        die("%s: building the model and its inputs (batch %s) failed: %s"
            % (what, args.batch or "default", torch_models.failed_how(e)))
    try:
        if args.inference:
            b = build_inference(model, inputs, input_names, args.device, args.kinds, args.measure_cpu, args.repeats,
                                progress)
        else:
            b = build(model, inputs, input_names, args.device, args.kinds, args.measure_cpu, args.repeats, progress)
    except torch_models.Error as e:
        die(e)
    except (Exception, SystemExit) as e:
        die("%s: tracing the %s failed: %s" % (what, "forward pass" if args.inference else "training step",
                                                torch_models.failed_how(e)))
    drop_unused(b)
    if args.inference:
        colocate_weights(b)
    if args.export_onnx:
        progress.phase("exporting the network to %s (torch.onnx.export, opset 17)" % args.export_onnx)
        try:
            export_onnx(model, inputs, input_names, args.export_onnx)
        except Exception as e:
            die("%s: exporting to ONNX failed: %s" % (args.export_onnx, torch_models.first_line(e)))
    cost = ("measured on this CPU (%s, median of %d runs per op)" % (platform.processor() or platform.machine(),
                                                                     args.repeats)
            if args.measure_cpu else "roofline model of %s" % roofline.DEVICES[args.device][0])
    if args.inference:
        what_step = ("torch_graph.py: inference, the forward pass alone (eval mode; no loss, backward or update) of "
                     "%s, batch %d, traced with make_fx" % (about, batch))
    else:
        what_step = ("torch_graph.py: one training step (forward, loss, backward, SGD-momentum update) of %s, "
                     "batch %d, captured with functorch aot_module" % (about, batch))
    source = ("%s; costs: %s%s; %s; command: %s"
              % (what_step, cost, roofline.describe_kind_costs(args.kinds), describe_versions(),
                 summary.command_line(sys.argv, "placeto-import-torch")))
    gname = guard.printable(args.name or (name + "_inference" if args.inference else name))
    source = guard.printable(source)
    try:
        guard.check_graph(gname, source, b.nodes)
    except guard.GraphError as e:
        die("%s: the graph cannot be written: %s" % (what, e))
    progress.phase("writing %s" % ("to stdout" if args.output == "-" else args.output))
    try:
        write(b, gname, source, args.output, tag_layers=args.model in ("nmt", "nmt_variant"))
    except OSError as e:
        die("%s: cannot write: %s" % (args.output, e.strerror or e))
    progress.say(summary.summary(args.output, b.nodes, b.edges, "this CPU" if args.measure_cpu else args.device,
                                 seconds=progress.elapsed()))
    if args.verbose:
        progress.say(progress.times())


if __name__ == "__main__":
    guard.run(main, lambda: PROG, phase_of=lambda: summary.Progress.last)
