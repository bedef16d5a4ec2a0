#!/usr/bin/env python3
"""Build the whole training-step computation graph of a published CNN architecture
as a placeto-graph JSON file (standard library only, deterministic output).

Model
  resnet18   ResNet-18 (He et al., "Deep Residual Learning for Image Recognition",
             CVPR 2016) exactly as torchvision.models.resnet18 defines it:
             conv1 7x7/2 (64) + bn1 + relu + maxpool 3x3/2, four stages
             (layer1..layer4) of two BasicBlocks with 64/128/256/512 channels
             (3x3 convs, stride 2 and a 1x1/2 conv + BN "downsample" shortcut in
             the first block of layer2..layer4), adaptive avgpool to 1x1, fc
             512 -> 1000. Convolutions have no bias; 62 parameter tensors,
             11,689,512 parameters.

Graph (one synchronous SGD-with-momentum training step, NCHW, fp32)
  * "input" ops: data [N,3,H,W] and labels [N] (int32).
  * one "variable" op per parameter tensor (cost 0, output = parameter bytes) and
    one "variable" op for its momentum buffer ("<param>/momentum").
  * forward: convolution, batchnorm (training mode; output 0 = y, output 1 =
    saved mean and inverse std, 2*C floats), relu, maxpool, add (residual),
    avgpool, matmul (fc with fused bias), softmax_cross_entropy (output 0 = the
    scalar loss, output 1 = the softmax probabilities kept for backward).
  * backward, each op wired to the gradient flowing from the layer above and to
    the forward tensors it needs:
      softmax_cross_entropy_grad(probs, labels)
      matmul_grad_input(dy, W), matmul_grad_weight(dy, x), bias_grad(dy)
      avgpool_grad(dy)
      relu_grad(dy, y)
      batchnorm_grad_weight(dy, x, stats) = dgamma, batchnorm_grad_bias(dy) =
      dbeta, batchnorm_grad_input(dy, x, stats, gamma, dgamma, dbeta)
      conv_grad_input(dy, W) (not for the first conv: the image needs no
      gradient), conv_grad_weight(dy, x)
      maxpool_grad(dy, x, y)
      add_n: the gradient of a residual block's input is the sum of the main
      branch's and the shortcut's gradients ("<block>/grad_input").
    The residual add needs no backward op (its gradient is the identity).
  * optimizer: one "apply_momentum" op per parameter tensor, consuming the
    variable, its momentum buffer and its gradient; it updates them in place
    and outputs 0 bytes. There is no edge from an update back to its variable
    (the graph is one step and acyclic). Where a backward op reads the weight
    (conv/matmul grad_input, batchnorm grad_input reads gamma) the update also
    gets a control edge from it, so that the weight is not overwritten while it
    is still being read; control edges use an output index past the op's
    outputs, which the placeto-graph format defines as 0 bytes.
  * colocate: the momentum buffer, the weight-gradient op and the update op
    of a parameter share the parameter's name as key, e.g.
    "layer1.0.conv1.weight". The variable itself is left out of the key: it
    feeds the forward op and the gradient is computed at the end of the
    backward pass, so one group holding both would have to swallow every op
    in between to keep the group graph acyclic. Placed apart, the update
    reads the variable through a transfer (as from a parameter server).
  * node order: inputs, then forward in execution order, then backward in
    reverse order, each layer's updates right after its gradient ops (so the
    order is topological); variables just before their first consumer.

Names follow torchvision's module names: "conv1", "layer1.0.conv1",
"layer2.0.downsample.0" (shortcut conv), "layer2.0.downsample.1" (shortcut
BN); the two relus of a block are "<block>.relu1" and "<block>.relu2" (torchvision
reuses one module), the residual add is "<block>.add". Gradient ops are
"<op>/grad_input", "<op>/grad_weight", "<op>/grad_bias"; updates are
"<param>/update", e.g. "layer1.0.conv1.weight/update".

Cost model (roofline of ONE die of an NVIDIA Tesla K80, GK210, the device of
the Placeto paper's simulator):
  peak fp32 4.37 TFLOP/s (2496 cores x 875 MHz boost x 2), peak memory
  bandwidth 240 GB/s per die. Effective rates used:
    compute      2.8e12 FLOP/s (64 % of peak; cuDNN convolutions, GEMM)
    memory       160 GB/s      (67 % of peak; element-wise, BN, pooling)
    launch       10 us per kernel (0 for variables and inputs)
  cost_us = launch + max(flops / compute, bytes_moved / memory)
  FLOPs: conv 2*N*Cout*Hout*Wout*Cin*k*k (same for grad_input and
  grad_weight); matmul 2*N*in*out (+N*out bias); element-wise ops a few FLOPs
  per element (always memory-bound here). bytes_moved = every tensor read plus
  every tensor written (BN forward reads x twice: statistics, then normalise;
  apply_momentum reads var, momentum, grad and writes var, momentum).
  Tensor bytes = product of the shape x 4 (fp32; labels int32).
"""
import argparse
import json
import os
import sys

F32 = 4
PEAK_FLOPS = 4.37e12          # documentation only
PEAK_BW = 240e9               # documentation only
COMPUTE = 2.8e12              # FLOP/s, effective
MEMBW = 160e9                 # bytes/s, effective
LAUNCH_US = 10.0


def cost(flops, nbytes):
    t = max(flops / COMPUTE, nbytes / MEMBW) * 1e6
    return round(LAUNCH_US + t, 3)


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


class Builder:
    def __init__(self):
        self.nodes = []
        self.edges = []
        self.index = {}

    def node(self, name, op, cost_us, outs, colocate=None):
        assert name not in self.index, name
        nd = {"name": name, "op": op, "cost_us": cost_us, "output_bytes": list(outs)}
        if colocate is not None:
            nd["colocate"] = colocate
        self.index[name] = nd
        self.nodes.append(nd)
        return name

    def edge(self, src, dst, output=0):
        assert src in self.index and dst in self.index, (src, dst)
        self.edges.append({"src": src, "dst": dst, "output": output})

    def control(self, src, dst):
        # an output index past src's outputs carries 0 bytes
        self.edge(src, dst, len(self.index[src]["output_bytes"]))


class T:
    """A tensor: producing op, output index, shape."""
    def __init__(self, op, out, shape):
        self.op, self.out, self.shape = op, out, tuple(shape)

    @property
    def bytes(self):
        return numel(self.shape) * F32


class ResNet:
    def __init__(self, batch, image):
        self.g = Builder()
        self.N = batch
        self.image = image
        self.params = []          # parameter names in torchvision order
        self.pending_vars = {}    # param -> (shape)

    # -- helpers ---------------------------------------------------------
    def var(self, pname, shape):
        g = self.g
        g.node(pname, "variable", 0.0, [numel(shape) * F32])
        self.params.append(pname)
        return T(pname, 0, shape)

    def update(self, pname, grad):
        """momentum buffer + apply_momentum for parameter pname, right after its gradient."""
        g = self.g
        nb = g.index[pname]["output_bytes"][0]
        mom = g.node(pname + "/momentum", "variable", 0.0, [nb], colocate=pname)
        up = g.node(pname + "/update", "apply_momentum", cost(2 * nb / F32 + nb / F32, 5 * nb), [0], colocate=pname)
        g.edge(pname, up)
        g.edge(mom, up)
        g.edge(grad, up)
        return up

    # -- forward layers (each returns output tensor and a record for backward)
    def conv(self, name, x, cout, k, stride, pad):
        N, cin, H, W = x.shape
        Ho = (H + 2 * pad - k) // stride + 1
        Wo = (W + 2 * pad - k) // stride + 1
        w = self.var(name + ".weight", (cout, cin, k, k))
        y = (N, cout, Ho, Wo)
        flops = 2 * N * cout * Ho * Wo * cin * k * k
        op = self.g.node(name, "convolution", cost(flops, x.bytes + w.bytes + numel(y) * F32), [numel(y) * F32])
        self.g.edge(x.op, op, x.out)
        self.g.edge(w.op, op, 0)
        return T(op, 0, y), ("conv", name, x, w, T(op, 0, y), flops)

    def bn(self, name, x):
        N, C, H, W = x.shape
        gamma = self.var(name + ".weight", (C,))
        beta = self.var(name + ".bias", (C,))
        op = self.g.node(name, "batchnorm", cost(8 * numel(x.shape), 3 * x.bytes + 4 * C * F32),
                         [x.bytes, 2 * C * F32])
        self.g.edge(x.op, op, x.out)
        self.g.edge(gamma.op, op)
        self.g.edge(beta.op, op)
        return T(op, 0, x.shape), ("bn", name, x, gamma, beta, T(op, 1, (2, C)))

    def relu(self, name, x):
        op = self.g.node(name, "relu", cost(numel(x.shape), 2 * x.bytes), [x.bytes])
        self.g.edge(x.op, op, x.out)
        return T(op, 0, x.shape), ("relu", name, T(op, 0, x.shape))

    def add(self, name, a, b):
        op = self.g.node(name, "add", cost(numel(a.shape), 3 * a.bytes), [a.bytes])
        self.g.edge(a.op, op, a.out)
        self.g.edge(b.op, op, b.out)
        return T(op, 0, a.shape), ("add", name)

    def maxpool(self, name, x, k, stride, pad):
        N, C, H, W = x.shape
        Ho = (H + 2 * pad - k) // stride + 1
        Wo = (W + 2 * pad - k) // stride + 1
        y = (N, C, Ho, Wo)
        op = self.g.node(name, "maxpool", cost(k * k * numel(y), x.bytes + numel(y) * F32), [numel(y) * F32])
        self.g.edge(x.op, op, x.out)
        return T(op, 0, y), ("maxpool", name, x, T(op, 0, y), k)

    def avgpool(self, name, x):
        N, C, H, W = x.shape
        y = (N, C)
        op = self.g.node(name, "avgpool", cost(numel(x.shape), x.bytes + numel(y) * F32), [numel(y) * F32])
        self.g.edge(x.op, op, x.out)
        return T(op, 0, y), ("avgpool", name, x)

    def fc(self, name, x, nout):
        N, nin = x.shape
        w = self.var(name + ".weight", (nout, nin))
        b = self.var(name + ".bias", (nout,))
        y = (N, nout)
        flops = 2 * N * nin * nout + N * nout
        op = self.g.node(name, "matmul", cost(flops, x.bytes + w.bytes + b.bytes + numel(y) * F32), [numel(y) * F32])
        self.g.edge(x.op, op, x.out)
        self.g.edge(w.op, op)
        self.g.edge(b.op, op)
        return T(op, 0, y), ("fc", name, x, w, b, flops)

    # -- backward ---------------------------------------------------------
    def back(self, rec, dy, need_input=True):
        """Emit the gradient ops of one forward layer; dy is the gradient of its output.
        Returns the gradient of its input (a T) or None."""
        g = self.g
        kind, name = rec[0], rec[1]
        if kind == "conv":
            _, _, x, w, y, flops = rec
            gw = g.node(name + "/grad_weight", "conv_grad_weight", cost(flops, dy.bytes + x.bytes + w.bytes),
                        [w.bytes], colocate=w.op)
            g.edge(dy.op, gw, dy.out)
            g.edge(x.op, gw, x.out)
            gx = None
            if need_input:
                gx = g.node(name + "/grad_input", "conv_grad_input", cost(flops, dy.bytes + w.bytes + x.bytes),
                            [x.bytes])
                g.edge(dy.op, gx, dy.out)
                g.edge(w.op, gx)
            up = self.update(w.op, gw)
            if gx is not None:
                g.control(gx, up)
            return T(gx, 0, x.shape) if gx else None
        if kind == "bn":
            _, _, x, gamma, beta, stats = rec
            C = x.shape[1]
            n = numel(x.shape)
            gg = g.node(name + "/grad_weight", "batchnorm_grad_weight", cost(4 * n, dy.bytes + x.bytes + 3 * C * F32),
                        [C * F32], colocate=gamma.op)
            g.edge(dy.op, gg, dy.out)
            g.edge(x.op, gg, x.out)
            g.edge(stats.op, gg, stats.out)
            gb = g.node(name + "/grad_bias", "batchnorm_grad_bias", cost(n, dy.bytes + C * F32),
                        [C * F32], colocate=beta.op)
            g.edge(dy.op, gb, dy.out)
            gx = g.node(name + "/grad_input", "batchnorm_grad_input", cost(8 * n, dy.bytes + x.bytes + x.bytes + 5 * C * F32),
                        [x.bytes])
            g.edge(dy.op, gx, dy.out)
            g.edge(x.op, gx, x.out)
            g.edge(stats.op, gx, stats.out)
            g.edge(gamma.op, gx)
            g.edge(gg, gx)
            g.edge(gb, gx)
            up = self.update(gamma.op, gg)
            g.control(gx, up)
            self.update(beta.op, gb)
            return T(gx, 0, x.shape)
        if kind == "relu":
            _, _, y = rec
            gx = g.node(name + "/grad_input", "relu_grad", cost(numel(y.shape), 3 * y.bytes), [y.bytes])
            g.edge(dy.op, gx, dy.out)
            g.edge(y.op, gx, y.out)
            return T(gx, 0, y.shape)
        if kind == "maxpool":
            _, _, x, y, k = rec
            gx = g.node(name + "/grad_input", "maxpool_grad", cost(k * k * numel(y.shape), dy.bytes + x.bytes + y.bytes + x.bytes),
                        [x.bytes])
            g.edge(dy.op, gx, dy.out)
            g.edge(x.op, gx, x.out)
            g.edge(y.op, gx, y.out)
            return T(gx, 0, x.shape)
        if kind == "avgpool":
            _, _, x = rec
            gx = g.node(name + "/grad_input", "avgpool_grad", cost(numel(x.shape), dy.bytes + x.bytes), [x.bytes])
            g.edge(dy.op, gx, dy.out)
            return T(gx, 0, x.shape)
        if kind == "fc":
            _, _, x, w, b, flops = rec
            N, nout = dy.shape
            gw = g.node(name + "/grad_weight", "matmul_grad_weight", cost(2 * N * x.shape[1] * nout, dy.bytes + x.bytes + w.bytes),
                        [w.bytes], colocate=w.op)
            g.edge(dy.op, gw, dy.out)
            g.edge(x.op, gw, x.out)
            gb = g.node(name + "/grad_bias", "bias_grad", cost(N * nout, dy.bytes + b.bytes), [b.bytes], colocate=b.op)
            g.edge(dy.op, gb, dy.out)
            gx = g.node(name + "/grad_input", "matmul_grad_input", cost(2 * N * x.shape[1] * nout, dy.bytes + w.bytes + x.bytes),
                        [x.bytes])
            g.edge(dy.op, gx, dy.out)
            g.edge(w.op, gx)
            up = self.update(w.op, gw)
            g.control(gx, up)
            self.update(b.op, gb)
            return T(gx, 0, x.shape)
        raise AssertionError(kind)

    # -- the model ----------------------------------------------------------
    def basic_block(self, name, x, planes, stride):
        recs = {}
        out, recs["conv1"] = self.conv(name + ".conv1", x, planes, 3, stride, 1)
        out, recs["bn1"] = self.bn(name + ".bn1", out)
        out, recs["relu1"] = self.relu(name + ".relu1", out)
        out, recs["conv2"] = self.conv(name + ".conv2", out, planes, 3, 1, 1)
        out, recs["bn2"] = self.bn(name + ".bn2", out)
        if stride != 1 or x.shape[1] != planes:
            sc, recs["ds.conv"] = self.conv(name + ".downsample.0", x, planes, 1, stride, 0)
            sc, recs["ds.bn"] = self.bn(name + ".downsample.1", sc)
        else:
            sc = x
        out, _ = self.add(name + ".add", out, sc)
        out, recs["relu2"] = self.relu(name + ".relu2", out)
        return out, (name, x, recs)

    def basic_block_back(self, blk, dy):
        name, x, recs = blk
        g = self.back(recs["relu2"], dy)                 # gradient of the sum, flows to both branches
        m = self.back(recs["bn2"], g)
        m = self.back(recs["conv2"], m)
        m = self.back(recs["relu1"], m)
        m = self.back(recs["bn1"], m)
        m = self.back(recs["conv1"], m)
        if "ds.conv" in recs:
            s = self.back(recs["ds.bn"], g)
            s = self.back(recs["ds.conv"], s)
        else:
            s = g
        op = self.g.node(name + "/grad_input", "add_n", cost(numel(x.shape), 3 * x.bytes), [x.bytes])
        self.g.edge(m.op, op, m.out)
        self.g.edge(s.op, op, s.out)
        return T(op, 0, x.shape)

    def build(self):
        g, N, S = self.g, self.N, self.image
        data = T(g.node("data", "input", 0.0, [N * 3 * S * S * F32]), 0, (N, 3, S, S))
        labels = g.node("labels", "input", 0.0, [N * 4])
        x, r_conv1 = self.conv("conv1", data, 64, 7, 2, 3)
        x, r_bn1 = self.bn("bn1", x)
        x, r_relu = self.relu("relu", x)
        x, r_pool = self.maxpool("maxpool", x, 3, 2, 1)
        blocks = []
        for li, (planes, stride) in enumerate([(64, 1), (128, 2), (256, 2), (512, 2)], start=1):
            for bi in range(2):
                x, blk = self.basic_block("layer%d.%d" % (li, bi), x, planes, stride if bi == 0 else 1)
                blocks.append(blk)
        x, r_avg = self.avgpool("avgpool", x)
        logits, r_fc = self.fc("fc", x, 1000)
        nl = numel(logits.shape)
        loss = g.node("loss", "softmax_cross_entropy", cost(6 * nl, logits.bytes + N * 4 + logits.bytes + F32),
                      [F32, nl * F32])
        g.edge(logits.op, loss, 0)
        g.edge(labels, loss, 0)
        # backward
        dl = g.node("loss/grad_input", "softmax_cross_entropy_grad", cost(3 * nl, 2 * nl * F32 + N * 4), [nl * F32])
        g.edge(loss, dl, 1)
        g.edge(labels, dl, 0)
        dy = T(dl, 0, logits.shape)
        dy = self.back(r_fc, dy)
        dy = self.back(r_avg, dy)
        for blk in reversed(blocks):
            dy = self.basic_block_back(blk, dy)
        dy = self.back(r_pool, dy)
        dy = self.back(r_relu, dy)
        dy = self.back(r_bn1, dy)
        self.back(r_conv1, dy, need_input=False)
        return g


def order_variables(g):
    """Move each variable node to just before its first consumer (stable, deterministic)."""
    consumers = {}
    for e in g.edges:
        consumers.setdefault(e["src"], []).append(e["dst"])
    is_var = lambda n: n["op"] == "variable"
    others = [n for n in g.nodes if not is_var(n)]
    first = {}
    for i, n in enumerate(others):
        first.setdefault(n["name"], i)
    before = {}
    for n in g.nodes:
        if is_var(n):
            pos = min(first[c] for c in consumers[n["name"]])
            before.setdefault(pos, []).append(n)
    out = []
    for i, n in enumerate(others):
        out.extend(before.get(i, []))
        out.append(n)
    return out


def write_graph(path, obj):
    lines = ['{"format": "placeto-graph", "version": 1, "name": %s,' % json.dumps(obj["name"]),
             ' "source": %s,' % json.dumps(obj["source"]),
             ' "nodes": [']
    lines.append(",\n".join("  " + json.dumps(n) for n in obj["nodes"]))
    lines.append(' ],')
    lines.append(' "edges": [')
    lines.append(",\n".join("  " + json.dumps(e) for e in obj["edges"]))
    lines.append(' ]}')
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == obj
    if path == "-":
        sys.stdout.write(text)
        return
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="resnet18", choices=["resnet18"], help="architecture (default resnet18)")
    ap.add_argument("--batch", type=int, default=32, help="batch size N (default 32)")
    ap.add_argument("--image", type=int, default=224, help="input height and width (default 224)")
    ap.add_argument("-o", "--output", default="-", help="output file (default stdout)")
    a = ap.parse_args()
    if a.batch < 1 or a.image < 32:
        ap.error("--batch must be >= 1 and --image >= 32")
    g = ResNet(a.batch, a.image).build()
    nodes = order_variables(g)
    nparams = sum(n["output_bytes"][0] // F32 for n in g.nodes if n["op"] == "variable" and "/" not in n["name"])
    cmd = "python3 graphs/import/arch_graph.py --model %s --batch %d%s -o %s" % (
        a.model, a.batch, "" if a.image == 224 else " --image %d" % a.image, a.output)
    source = (
        "Generated by graphs/import/arch_graph.py: one SGD-with-momentum training step (forward, backward, "
        "one apply_momentum per parameter tensor) of ResNet-18 (He et al. 2016, layer definition of "
        "torchvision.models.resnet18: 62 parameter tensors, %d parameters), batch size %d, %dx%d RGB, fp32, NCHW. "
        "Tensor bytes = shape x 4. Costs from a roofline model of one NVIDIA Tesla K80 die (GK210; peak 4.37 TFLOP/s "
        "fp32, 240 GB/s): cost_us = 10 us launch + max(FLOPs / 2.8e12 FLOP/s, bytes read+written / 160e9 B/s); "
        "variables and inputs cost 0. Edges whose output index is past the source's outputs are 0-byte control "
        "dependencies (an update waits for the backward op that reads its weight). Command: %s"
        % (nparams, a.batch, a.image, a.image, cmd))
    name = "%s_b%d" % (a.model, a.batch) + ("" if a.image == 224 else "_%dpx" % a.image)
    write_graph(a.output, {"format": "placeto-graph", "version": 1, "name": name, "source": source,
                           "nodes": nodes, "edges": g.edges})


if __name__ == "__main__":
    main()
