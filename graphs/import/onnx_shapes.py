"""Helpers of onnx_graph.py: tensor shapes of an ONNX model and the values of
its shape metadata (the Shape/Gather/Concat/... chains that compute e.g. a
Reshape's target shape), which onnx_graph.py's shape inference feeds back as
initializers. Split out of onnx_graph.py, which documents the behaviour."""


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def type_shape(tp):
    """(elem_type, shape or None) of a TypeProto; shape None unless every dim is known."""
    if not tp.HasField("tensor_type"):
        return None, None
    tt = tp.tensor_type
    if not tt.HasField("shape"):
        return tt.elem_type, None
    dims = []
    for d in tt.shape.dim:
        if d.HasField("dim_value") and d.dim_value >= 0:
            dims.append(int(d.dim_value))
        else:
            return tt.elem_type, None
    return tt.elem_type, dims


def attr(node, name, default=None):
    import onnx
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


# Evaluation of shape metadata (the values of Shape/Gather/Concat/... chains),
# so that shape inference knows e.g. the target shape of a Reshape even where
# onnx's own data propagation stops.

MAX_META_ELEMS = 4096


def np_dtype(elem):
    import onnx
    if hasattr(onnx.helper, "tensor_dtype_to_np_dtype"):
        return onnx.helper.tensor_dtype_to_np_dtype(elem)
    return onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[elem]


def eval_meta_node(node, vals, info):
    """Output values (a list of numpy arrays) of a metadata node, or None if unknown."""
    import numpy as np
    import onnx
    from onnx import numpy_helper
    t = node.op_type
    a = {x.name: onnx.helper.get_attribute_value(x) for x in node.attribute}
    if t in ("Shape", "Size"):
        shape = info.get(node.input[0], (None, None))[1]
        if shape is None:
            return None
        if t == "Size":
            return [np.array(numel(shape), dtype=np.int64)]
        r = len(shape)
        start, end = a.get("start", 0), a.get("end", r)
        start = max(0, min(r, start + r if start < 0 else start))
        end = max(0, min(r, end + r if end < 0 else end))
        return [np.array(shape[start:end], dtype=np.int64)]
    if t == "Constant":
        if "value" in a:
            return [numpy_helper.to_array(a["value"])]
        if "value_int" in a:
            return [np.array(a["value_int"], dtype=np.int64)]
        if "value_ints" in a:
            return [np.array(list(a["value_ints"]), dtype=np.int64)]
        if "value_float" in a:
            return [np.array(a["value_float"], dtype=np.float32)]
        if "value_floats" in a:
            return [np.array(list(a["value_floats"]), dtype=np.float32)]
        return None
    x = []
    for i in node.input:
        if not i:
            x.append(None)
        elif i in vals:
            x.append(vals[i])
        else:
            return None
    if t == "Identity":
        return [x[0]]
    if t == "Reshape":
        shape = [int(s) for s in x[1]]
        if not a.get("allowzero", 0):
            shape = [x[0].shape[k] if s == 0 and k < x[0].ndim else s for k, s in enumerate(shape)]
        return [x[0].reshape(shape)]
    if t == "Flatten":
        ax = a.get("axis", 1)
        ax = ax + x[0].ndim if ax < 0 else ax
        return [x[0].reshape((numel(x[0].shape[:ax]), -1))]
    if t in ("Squeeze", "Unsqueeze"):
        axes = a.get("axes")
        if axes is None and len(x) > 1 and x[1] is not None:
            axes = [int(v) for v in x[1]]
        if t == "Squeeze":
            if axes is None:
                return [np.squeeze(x[0])]
            return [np.squeeze(x[0], axis=tuple(v + x[0].ndim if v < 0 else v for v in axes))]
        r = x[0].ndim + len(axes)
        y = x[0]
        for v in sorted(v + r if v < 0 else v for v in axes):
            y = np.expand_dims(y, v)
        return [y]
    if t == "Gather":
        return [np.take(x[0], x[1].astype(np.int64), axis=a.get("axis", 0))]
    if t == "Concat":
        return [np.concatenate([v for v in x if v is not None], axis=a["axis"])]
    if t == "Cast":
        return [x[0].astype(np_dtype(a["to"]))]
    if t == "Slice":
        if "starts" in a:                       # opset < 10
            starts, ends, axes, steps = a["starts"], a["ends"], a.get("axes"), None
        else:
            starts, ends = list(x[1]), list(x[2])
            axes = list(x[3]) if len(x) > 3 and x[3] is not None else None
            steps = list(x[4]) if len(x) > 4 and x[4] is not None else None
        axes = list(range(len(starts))) if axes is None else axes
        steps = [1] * len(starts) if steps is None else steps
        sl = [slice(None)] * x[0].ndim
        for s, e, ax, st in zip(starts, ends, axes, steps):
            sl[int(ax)] = slice(int(max(min(s, 2 ** 62), -2 ** 62)), int(max(min(e, 2 ** 62), -2 ** 62)), int(st))
        return [x[0][tuple(sl)]]
    if t in ("Add", "Sub", "Mul", "Min", "Max", "Equal", "Less", "Greater"):
        f = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Min": np.minimum, "Max": np.maximum,
             "Equal": np.equal, "Less": np.less, "Greater": np.greater}[t]
        y = x[0]
        for v in x[1:]:
            y = f(y, v)
        return [np.asarray(y) if t in ("Equal", "Less", "Greater") else np.asarray(y).astype(x[0].dtype)]
    if t == "Div":
        if np.issubdtype(x[0].dtype, np.integer):
            return [np.trunc(x[0] / x[1]).astype(x[0].dtype)]
        return [np.asarray(x[0] / x[1]).astype(x[0].dtype)]
    if t == "Mod":
        return [np.fmod(x[0], x[1]) if a.get("fmod", 0) else np.mod(x[0], x[1])]
    if t in ("Neg", "Abs", "Floor", "Ceil", "Not"):
        f = {"Neg": np.negative, "Abs": np.abs, "Floor": np.floor, "Ceil": np.ceil, "Not": np.logical_not}[t]
        return [np.asarray(f(x[0]))]
    if t == "Where":
        return [np.where(x[0], x[1], x[2])]
    if t == "ReduceProd":
        axes = a.get("axes")
        if axes is None and len(x) > 1 and x[1] is not None:
            axes = [int(v) for v in x[1]]
        keep = bool(a.get("keepdims", 1))
        return [np.asarray(np.prod(x[0], axis=None if not axes else tuple(axes), keepdims=keep)).astype(x[0].dtype)]
    return None


def evaluate_meta(g, meta, info, vals):
    """Add the values of metadata tensors computable now to vals; returns how many were added."""
    added = 0
    for node in g.node:
        outs = [o for o in node.output if o]
        if not outs or all(o in vals for o in outs) or not all(o in meta for o in outs):
            continue
        try:
            res = eval_meta_node(node, vals, info)
        except Exception:
            res = None
        if res is None:
            continue
        for o, v in zip(node.output, res):
            if o and v is not None and v.size <= MAX_META_ELEMS:
                vals[o] = v
                added += 1
    return added


def infer(model):
    import onnx.shape_inference
    try:
        return onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False, data_prop=True)
    except Exception:
        return onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False)


def collect_info(model):
    g = model.graph
    info = {}
    for vi in list(g.value_info) + list(g.input) + list(g.output):
        et, shape = type_shape(vi.type)
        if vi.name not in info or info[vi.name][1] is None:
            info[vi.name] = (et, shape)
    for t in g.initializer:
        info[t.name] = (t.data_type, [int(d) for d in t.dims])
    for st in g.sparse_initializer:
        info[st.values.name] = (st.values.data_type, [int(d) for d in st.dims])
    return info


def infer_with_metadata(model, kinds, meta):
    """Shape inference, repeated with the computed metadata tensors as initializers
    until no new value is found. Returns the tensor information (name -> (elem, shape))."""
    import onnx
    from onnx import numpy_helper
    g = model.graph
    info = collect_info(infer(model))
    vals = {}
    for t in g.initializer:
        if t.name in meta:
            try:
                vals[t.name] = numpy_helper.to_array(t)
            except Exception:
                pass
    init_names = {t.name for t in g.initializer}
    while True:     # ends: every round adds at least one value of a finite set
        if evaluate_meta(g, meta, info, vals) == 0:
            break
        work = onnx.ModelProto()
        work.CopyFrom(model)
        wg = work.graph
        del wg.node[:]
        needed = set()
        for node, kind in zip(g.node, kinds):
            outs = [o for o in node.output if o]
            if kind == "meta" or (kind == "view" and outs and all(o in meta for o in outs)):
                if outs and all(o in vals for o in outs):
                    continue
            wg.node.add().CopyFrom(node)
            needed.update(i for i in node.input if i)
        outputs = {o.name for o in wg.output}
        for name in sorted(set(vals) - init_names):
            if name in needed or name in outputs:
                wg.initializer.append(numpy_helper.from_array(vals[name], name))
                if work.ir_version < 4:
                    wg.input.append(onnx.helper.make_tensor_value_info(
                        name, wg.initializer[-1].data_type, list(vals[name].shape)))
        info = collect_info(infer(work))
    for name, v in vals.items():
        if name not in info or info[name][1] is None:
            info[name] = (numpy_helper.from_array(v).data_type, list(v.shape))
    return info
