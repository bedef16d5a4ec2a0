"""Models torch_graph.py finds without editing the repository:

  torchvision:NAME      any model of torchvision's registry (classification,
                        segmentation and video), random weights (nothing is
                        ever downloaded), a cross-entropy loss on its main
                        output;
  --module FILE:FACTORY a user's own nn.Module: FACTORY() from the Python file
                        FILE (loaded by path), fed with the --input tensors,
                        with the --loss of its output.

Each is made into (module returning the loss, example inputs, input names,
description), as models.py does for the zoo. Errors raise Error with a
message that names the file, factory, option or field at fault.
"""
import difflib
import importlib.util
import inspect
import math
import os
import re
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class Error(Exception):
    """A problem with the model or its inputs (exit status 1)."""


class UsageError(Error):
    """A malformed option value (exit status 2)."""


DTYPES = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
          "bfloat16": torch.bfloat16, "int64": torch.int64, "int32": torch.int32, "bool": torch.bool}
INT_DTYPES = {"int64", "int32"}
LOSSES = ("auto", "none", "sum", "mse", "ce")


# ------------------------------------------------------------------ inputs

class InputSpec:
    def __init__(self, text, name, dims, dtype, high):
        self.text, self.name, self.dims, self.dtype, self.high = text, name, dims, dtype, high

    def shape(self, batch, dims):
        return [batch] + [d if isinstance(d, int) else dims[d] for d in self.dims]

    def make(self, batch, dims):
        shape = self.shape(batch, dims)
        if self.dtype in INT_DTYPES:
            return torch.randint(0, self.high, shape, dtype=DTYPES[self.dtype])
        if self.dtype == "bool":
            return torch.zeros(shape, dtype=torch.bool)
        return torch.randn(shape).to(DTYPES[self.dtype])


def parse_input(text):
    """--input NAME=D1,D2,...[:DTYPE[:HIGH]]: the shape of one example (the
    batch dimension is put in front); a Dk that is not a number is a named
    dimension that --dim NAME=VALUE sets."""
    form = "--input %s: expected NAME=D1,D2,...[:DTYPE[:HIGH]] (e.g. x=3,64,64 or tokens=seq:int64:1000)" % text
    if "=" not in text:
        raise UsageError(form)
    name, rest = text.split("=", 1)
    if not re.match(r"^[A-Za-z_][A-Za-z0-9_.]*$", name):
        raise UsageError("%s; the name %r is not a Python identifier" % (form, name))
    parts = rest.split(":")
    if len(parts) > 3:
        raise UsageError(form)
    dims = []
    for d in parts[0].split(",") if parts[0] else []:
        d = d.strip()
        if re.match(r"^-?[0-9]+$", d):
            if int(d) < 1:
                raise UsageError("--input %s: dimension %s must be >= 1" % (text, d))
            dims.append(int(d))
        elif d == "batch":
            raise UsageError("--input %s: leave the batch dimension out: --batch N puts it in front of "
                             "every input's shape" % text)
        elif re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", d):
            dims.append(d)
        else:
            raise UsageError("--input %s: dimension %r is neither a number nor a name for --dim" % (text, d))
    dtype = parts[1] if len(parts) > 1 and parts[1] else "float32"
    if dtype not in DTYPES:
        raise UsageError("--input %s: unknown dtype %r (one of %s)" % (text, dtype, ", ".join(DTYPES)))
    high = 1
    if len(parts) > 2:
        if dtype not in INT_DTYPES:
            raise UsageError("--input %s: HIGH (values in [0, HIGH)) is for int64 and int32 inputs" % text)
        if not re.match(r"^[0-9]+$", parts[2]) or int(parts[2]) < 1:
            raise UsageError("--input %s: HIGH must be an integer >= 1" % text)
        high = int(parts[2])
    return InputSpec(text, name, dims, dtype, high)


def parse_dims(items):
    """--dim NAME=VALUE ... -> {NAME: VALUE}."""
    out = {}
    for it in items:
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)=([0-9]+)$", it)
        if not m or int(m.group(2)) < 1:
            raise UsageError("--dim %s: expected NAME=VALUE with VALUE an integer >= 1 (e.g. seq=128)" % it)
        out[m.group(1)] = int(m.group(2))
    return out


def check_dims(specs, dims):
    used = set()
    for s in specs:
        for d in s.dims:
            if isinstance(d, str):
                if d not in dims:
                    raise UsageError("--input %s: dimension %r has no value; give it with --dim %s=VALUE"
                                     % (s.text, d, d))
                used.add(d)
    for d in dims:
        if d not in used:
            raise UsageError("--dim %s: no --input shape names a dimension %r" % (d, d))


def parse_loss(text):
    """--loss auto|none|sum|mse|ce[:CLASSES] -> (kind, classes or None)."""
    kind, _, arg = text.partition(":")
    if kind not in LOSSES or (arg and kind != "ce"):
        raise UsageError("--loss %s: expected one of auto, none, sum, mse, ce or ce:CLASSES" % text)
    if kind == "ce" and arg:
        if not re.match(r"^[0-9]+$", arg) or int(arg) < 1:
            raise UsageError("--loss %s: CLASSES must be an integer >= 1" % text)
        return kind, int(arg)
    return kind, None


# ------------------------------------------------------------------ the loss

def main_output(out):
    """The tensor a loss is taken of: the output itself, the first element of a
    tuple, list or named tuple (e.g. Inception's logits before its auxiliary
    logits), the "out" entry of a dict (else its first value)."""
    while not isinstance(out, torch.Tensor):
        if isinstance(out, (tuple, list)) and len(out) > 0:
            out = out[0]
        elif isinstance(out, dict) and out:
            out = out["out"] if "out" in out else next(iter(out.values()))
        else:
            return None
    return out


class WithLoss(nn.Module):
    """net(*inputs) followed by the loss: the module placeto's training step
    differentiates. The extra input (labels or target), if any, comes last."""

    def __init__(self, net, kind, n_inputs):
        super().__init__()
        self.net, self.kind, self.n_inputs = net, kind, n_inputs

    def forward(self, *xs):
        out = main_output(self.net(*xs[:self.n_inputs]))
        if self.kind == "ce":
            return F.cross_entropy(out, xs[self.n_inputs])
        if self.kind == "mse":
            return F.mse_loss(out, xs[self.n_inputs])
        if self.kind == "sum":
            return out.sum()
        return out


def loss_inputs(kind, classes, out, where):
    """(resolved kind, extra inputs, extra names, description) for an output
    tensor out; where names the model in messages."""
    shape = list(out.shape)
    if kind == "auto":
        if out.dim() != 0:
            raise Error("%s: the forward returns a tensor of shape %s, not a scalar loss: give --loss "
                        "ce[:CLASSES], --loss mse or --loss sum" % (where, shape))
        kind = "none"
    if kind == "none":
        if out.dim() != 0:
            raise Error("%s: --loss none, but the forward returns a tensor of shape %s, not a scalar loss" % (where, shape))
        return kind, [], [], "the module's own scalar output as the loss"
    if not out.is_floating_point():
        raise Error("%s: the output has dtype %s; a loss needs a floating-point output"
                    % (where, str(out.dtype).replace("torch.", "")))
    if kind == "sum":
        return kind, [], [], "loss: the sum of the output %s" % shape
    if kind == "mse":
        return kind, [torch.randn(shape)], ["target"], "mean squared error against a target %s" % shape
    if out.dim() < 2:
        raise Error("%s: --loss ce needs an output of shape (batch, classes, ...); the output has shape %s"
                    % (where, shape))
    if classes is not None and shape[1] != classes:
        raise Error("%s: --loss ce:%d, but the output has %d classes along dimension 1 (shape %s)"
                    % (where, classes, shape[1], shape))
    lab = shape[:1] + shape[2:]
    return kind, [torch.randint(0, shape[1], lab)], ["labels"], \
        "cross-entropy over %d classes against labels %s" % (shape[1], lab)


def first_line(e):
    text = str(e).strip()
    return "%s: %s" % (type(e).__name__, text.splitlines()[0]) if text else type(e).__name__


def raised(e):
    """What user code did instead of returning: "exited with status N" for
    sys.exit (SystemExit), else "raised TYPE: first line"."""
    if isinstance(e, SystemExit):
        code = e.code
        if code is None or isinstance(code, int):
            return "exited with status %d" % (code or 0)
        return "exited with status 1 (sys.exit(%s))" % first_line_text(code)
    return "raised " + first_line(e)


def failed_how(e):
    """After "failed: ": the exception's first line, or "it exited with status N"."""
    return "it " + raised(e) if isinstance(e, SystemExit) else first_line(e)


def first_line_text(x):
    text = str(x).strip()
    return repr(text.splitlines()[0] if text else text)


def describe_inputs(names, inputs):
    return ", ".join("%s %s %s" % (n, list(x.shape), str(x.dtype).replace("torch.", ""))
                     for n, x in zip(names, inputs))


# ------------------------------------------------------------------ torchvision

# kinds of torchvision models torch_graph.py can make a training step of:
# (submodule, default input of one example, what the input is)
TV_KINDS = [("", (3, 224, 224), "images"), ("segmentation", (3, 224, 224), "images"),
            ("video", (3, 16, 112, 112), "clips (channels, frames, height, width)")]
TV_UNSUPPORTED = {"detection": "detection models need target boxes to train",
                  "optical_flow": "optical flow models need image pairs and flow targets",
                  "quantization": "quantized models cannot be trained"}
# builders with auxiliary heads: left out (as in the zoo), so that every op feeds the loss
TV_CONFIG = {"inception_v3": {"aux_logits": False, "init_weights": False},
             "googlenet": {"aux_logits": False, "init_weights": False}}
TV_SIZE = {"inception_v3": 299}


def tv_registry():
    """{name: (kind, builder or None)} of this torchvision's models."""
    import torchvision.models as tvm
    reg = {}
    if hasattr(tvm, "list_models"):
        for kind in [k for k, _, _ in TV_KINDS] + sorted(TV_UNSUPPORTED):
            mod = getattr(tvm, kind, None) if kind else tvm
            for n in tvm.list_models(module=mod) if mod else []:
                reg.setdefault(n, (kind, None))
        return reg
    # older torchvision: the lower-case callables of each models module
    for kind in [k for k, _, _ in TV_KINDS] + sorted(TV_UNSUPPORTED):
        mod = getattr(tvm, kind, None) if kind else tvm
        for n, f in sorted(vars(mod).items() if mod else []):
            if n[:1].islower() and inspect.isfunction(f) and not n.startswith(("get_", "list_")):
                reg.setdefault(n, (kind, f))
    return reg


def tv_names():
    """The names torchvision:NAME accepts, sorted."""
    return sorted(n for n, (k, _) in tv_registry().items() if k not in TV_UNSUPPORTED)


def no_downloads():
    """Random weights only: any attempt to fetch weights is an error, never a download."""
    import torch.hub

    def refuse(url, *args, **kwargs):
        raise Error("the model asked to download weights from %s; placeto's importer never downloads" % url)
    torch.hub.load_state_dict_from_url = refuse
    torch.hub.download_url_to_file = refuse
    try:   # torchvision's weights enums hold their own reference
        import torchvision.models._api as api
        api.load_state_dict_from_url = refuse
    except (ImportError, AttributeError):
        pass


def torchvision_model(name, batch, size):
    """(module, inputs, names, description, graph name) of torchvision:NAME."""
    try:
        import torchvision
        import torchvision.models as tvm
    except ImportError as e:
        raise Error("torchvision:%s: cannot import torchvision (%s); install python3-torchvision" % (name, e))
    reg = tv_registry()
    if name not in reg:
        close = difflib.get_close_matches(name, tv_names(), n=3)
        raise Error("torchvision:%s: torchvision %s has no model %r%s; `torch_graph.py --list-models` lists them all"
                    % (name, torchvision.__version__, name,
                       " (did you mean %s?)" % ", ".join(close) if close else ""))
    kind, builder = reg[name]
    if kind in TV_UNSUPPORTED:
        raise Error("torchvision:%s: a %s model: %s; wrap it in a module of your own that returns a loss "
                    "and use --module FILE:FACTORY" % (name, kind.replace("_", " "), TV_UNSUPPORTED[kind]))
    shape, what = [(s, w) for k, s, w in TV_KINDS if k == kind][0]
    shape = list(shape)
    if size is None:
        size = TV_SIZE.get(name, shape[-1])
    shape[-2:] = [size, size]
    config = dict(TV_CONFIG.get(name, {}))
    try:
        build = builder or tvm.get_model_builder(name)
        params = inspect.signature(build).parameters
        if "weights" in params:                 # random weights, and a random backbone too
            config["weights"] = None
        elif "pretrained" in params:            # older torchvision
            config["pretrained"] = False
        if "weights_backbone" in params:
            config["weights_backbone"] = None
        elif "pretrained_backbone" in params:
            config["pretrained_backbone"] = False
        no_downloads()
        net = build(**config)
    except Error:
        raise
    except Exception as e:
        raise Error("torchvision:%s: building the model failed: %s" % (name, first_line(e)))
    nbytes = math.prod([batch] + shape) * 4
    if nbytes > 2 ** 53:   # refused before PyTorch tries to allocate it
        raise Error("torchvision:%s: input op 'data' of shape %s (--batch %d, --image-size %d): output_bytes = %d "
                    "bytes, more than the 2^53 = %d a placeto graph holds per output"
                    % (name, [batch] + shape, batch, size, nbytes, 2 ** 53))
    try:
        x = torch.randn([batch] + shape)
    except (RuntimeError, MemoryError) as e:
        raise Error("torchvision:%s: input op 'data' of shape %s (%d bytes): making the tensor failed: %s"
                    % (name, [batch] + shape, nbytes, first_line(e)))
    model = WithLoss(net, "ce", 1)
    inputs, names = [x], ["data"]
    with torch.no_grad():
        try:
            out = main_output(net(x))
        except Exception as e:
            raise Error("torchvision:%s: the forward pass on %s failed: %s (try another --image-size)"
                        % (name, describe_inputs(names, inputs), first_line(e)))
    _, extra, extra_names, _ = loss_inputs("ce", None, out, "torchvision:%s" % name)
    classes = list(out.shape)[1]
    about = ("torchvision %s (random weights), %s %s, cross-entropy over %d classes"
             % (name, "x".join(map(str, shape)), what, classes))
    return model, inputs + extra, names + extra_names, about, name


# ------------------------------------------------------------------ --module

def load_factory(spec):
    """--module FILE.py:FACTORY -> (factory, file as given, factory name)."""
    path, sep, factory = spec.rpartition(":")
    if not sep or not path or not factory:
        raise UsageError("--module %s: expected FILE.py:FACTORY (e.g. my_model.py:make_model)" % spec)
    if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", factory):
        raise UsageError("--module %s: the factory %r is not a Python name" % (spec, factory))
    where = "--module %s" % spec
    if not os.path.exists(path):
        raise Error("%s: %s: no such file" % (where, path))
    if not os.path.isfile(path):
        raise Error("%s: %s: not a regular file" % (where, path))
    stem = os.path.splitext(os.path.basename(path))[0]
    modname = "placeto_user_" + re.sub(r"\W", "_", stem)
    sys.dont_write_bytecode = True   # no __pycache__ beside the user's file
    try:
        loader_spec = importlib.util.spec_from_file_location(modname, os.path.abspath(path))
        if loader_spec is None or loader_spec.loader is None:
            raise Error("%s: %s: not a Python file Python can load (name it .py)" % (where, path))
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[modname] = module
        sys.path.insert(0, os.path.dirname(os.path.abspath(path)))   # its own imports
        loader_spec.loader.exec_module(module)
    except Error:
        raise
    except SyntaxError as e:
        raise Error("%s: %s line %s: SyntaxError: %s" % (where, path, e.lineno, e.msg))
    except (Exception, SystemExit) as e:   # not Ctrl-C or --timeout: those end the import
        raise Error("%s: loading %s failed: %s" % (where, path, failed_how(e)))
    if not hasattr(module, factory):
        names = sorted(n for n, v in vars(module).items() if callable(v) and not n.startswith("_")
                       and getattr(v, "__module__", None) == modname)
        raise Error("%s: %s has no attribute %r%s" % (where, path, factory,
                                                      " (it defines: %s)" % ", ".join(names) if names else ""))
    return getattr(module, factory), path, factory


def user_model(spec, batch, input_specs, dims, loss, inference=False):
    """(module, inputs, names, description, graph name) of --module FILE:FACTORY;
    with inference, the module itself (no loss) in eval mode."""
    make, path, factory = load_factory(spec)
    where = "%s:%s" % (os.path.basename(path), factory)
    if not callable(make):
        raise Error("--module %s: %s is a %s, not a function or class" % (spec, factory, type(make).__name__))
    try:
        net = make()
    except SystemExit as e:
        raise Error("%s: the factory %s before returning a model" % (spec, raised(e)))
    except Exception as e:
        raise Error("%s: the factory %s" % (spec, raised(e)))
    if not isinstance(net, nn.Module):
        raise Error("--module %s: %s() returned a %s, not a torch.nn.Module" % (spec, factory, type(net).__name__))
    if not input_specs:
        raise UsageError("--module %s: give the forward's inputs with --input NAME=D1,D2,... "
                         "(one example's shape; --batch N is put in front)" % spec)
    inputs = []
    for s in input_specs:   # refused before PyTorch tries to allocate it
        shape = s.shape(batch, dims)
        nbytes = math.prod(shape) * torch.empty((), dtype=DTYPES[s.dtype]).element_size()
        if nbytes > 2 ** 53:
            raise Error("--module %s: input op %r of shape %s (--input %s, --batch %d): output_bytes = %d bytes, "
                        "more than the 2^53 = %d a placeto graph holds per output"
                        % (spec, s.name, shape, s.text, batch, nbytes, 2 ** 53))
        try:
            inputs.append(s.make(batch, dims))
        except (RuntimeError, MemoryError) as e:
            raise Error("--module %s: input op %r of shape %s (%d bytes): making the tensor failed: %s"
                        % (spec, s.name, shape, nbytes, first_line(e)))
    names = [s.name for s in input_specs]
    net.train(not inference)
    with torch.no_grad():
        try:
            out = net(*inputs)
        except (Exception, SystemExit) as e:
            raise Error("--module %s: the forward pass on %s failed: %s"
                        % (spec, describe_inputs(names, inputs), failed_how(e)))
    tensor = main_output(out)
    if tensor is None:
        raise Error("--module %s: the forward pass returned a %s with no tensor in it"
                    % (spec, type(out).__name__))
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    if inference:
        return net, inputs, names, "module %s (%s), inputs %s" % (where, type(net).__name__,
                                                                 describe_inputs(names, inputs)), stem
    kind, classes = loss
    kind, extra, extra_names, loss_about = loss_inputs(kind, classes, tensor, "--module %s" % spec)
    about = "module %s (%s), inputs %s, %s" % (where, type(net).__name__, describe_inputs(names, inputs), loss_about)
    return WithLoss(net, kind, len(inputs)), inputs + extra, names + extra_names, about, stem
