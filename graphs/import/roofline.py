"""Roofline cost model shared by placeto's graph importers.

An op's cost on a device is

    cost_us = launch_us + max(flops / flops_per_s, bytes_moved / bytes_per_s) * 1e6

where flops counts multiply-adds as two operations (convolutions, matrix
products, attention) and bytes_moved is every input and output tensor read or
written once (memory-bound ops: elementwise, normalisation, pooling, copies).
The effective rates are below the datasheet peaks, as measured kernels are.

DEVICES names the device models; the default, "k80", is one GK210 die of an
NVIDIA Tesla K80, the GPU of the Placeto paper and of placeto's default
cluster (--devices N). It is the reference device: a graph's cost_us is the
cost on it.

The CPU model, "xeon", is one socket of an Intel Xeon Gold 6148 (Skylake-SP),
the class of server CPU a K80 sits in:
  * peak fp32: 20 cores x 2 AVX-512 FMA units x 16 fp32 lanes x 2 FLOPs per
    FMA x 1.6 GHz (the all-core clock under AVX-512 load: Intel's AVX-512
    base frequency of the 6148; its nominal base is 2.4 GHz) = 2.048 TFLOP/s;
  * peak memory bandwidth: 6 channels of DDR4-2666, 8 bytes each:
    6 x 2666e6 x 8 = 128 GB/s;
  * effective fractions: 50% of peak FLOP/s (1.024 TFLOP/s; oneDNN's
    convolutions and GEMMs on a whole socket reach 50-70% at small batches,
    fork/join and layout reorders included) and 55% of peak bandwidth
    (70.4 GB/s; STREAM triad reaches about 75% on one socket, framework
    elementwise kernels less);
  * 4 us per op: the framework's dispatch and the OpenMP fork/join of one
    op on a whole socket (no kernel launch or PCIe doorbell as on a GPU).
  Sources: Intel ARK and the Xeon Scalable specification update (cores,
  frequencies, memory channels), Intel's AVX-512 documentation (2 FMA units
  per core on the Gold 6100 series), the JEDEC DDR4-2666 transfer rate.
Importers write it per node as cost_us_by_kind {"cpu": ...} with
--kind-costs cpu=xeon, so that the CPU/GPU ratio differs by op: compute-bound
ops (convolutions, matrix products) run 2.8/1.024 = 2.73x slower on the CPU,
memory-bound ones (elementwise, normalisation, pooling) 160/70.4 = 2.27x
slower, and ops too small for either bound faster (4 us against 10 us).
"""

DEVICES = {
    # name: (description, effective FLOP/s, effective bytes/s, launch us)
    "k80": ("one NVIDIA Tesla K80 die (GK210): peak 4.37 TFLOP/s fp32 and 240 GB/s; "
            "effective 2.8 TFLOP/s and 160 GB/s, 10 us launch overhead", 2.8e12, 160e9, 10.0),
    "p100": ("NVIDIA Tesla P100 (PCIe): peak 9.3 TFLOP/s fp32 and 732 GB/s; "
             "effective 6.5 TFLOP/s and 500 GB/s, 7 us launch overhead", 6.5e12, 500e9, 7.0),
    "v100": ("NVIDIA Tesla V100 (SXM2): peak 15.7 TFLOP/s fp32 and 900 GB/s; "
             "effective 11 TFLOP/s and 700 GB/s, 5 us launch overhead", 11e12, 700e9, 5.0),
    "xeon": ("one socket of an Intel Xeon Gold 6148 (20 cores, AVX-512 at 1.6 GHz, 6 x DDR4-2666): peak "
             "2.048 TFLOP/s fp32 and 128 GB/s; effective 1.024 TFLOP/s and 70.4 GB/s, 4 us dispatch overhead",
             1.024e12, 70.4e9, 4.0),
}
# the device kind (a placeto cluster's devices[].kind) each model is
KINDS = {"k80": "gpu", "p100": "gpu", "v100": "gpu", "xeon": "cpu"}
DEFAULT_DEVICE = "k80"

DTYPE_BYTES = {
    "float32": 4, "float": 4, "float64": 8, "double": 8, "float16": 2, "half": 2, "bfloat16": 2,
    "int64": 8, "long": 8, "int32": 4, "int": 4, "int16": 2, "int8": 1, "uint8": 1, "bool": 1,
}


def numel(shape):
    n = 1
    for s in shape:
        n *= int(s)
    return n


def tensor_bytes(shape, dtype="float32"):
    """Bytes of a dense tensor of this shape and dtype name."""
    return numel(shape) * DTYPE_BYTES.get(str(dtype).replace("torch.", ""), 4)


def cost_us(device, flops, bytes_moved):
    """The roofline cost in microseconds, rounded to a nanosecond."""
    _, fps, bps, launch = DEVICES[device]
    return round(launch + max(flops / fps, bytes_moved / bps) * 1e6, 3)


def parse_kind_costs(text):
    """--kind-costs KIND=DEVICE[,KIND=DEVICE...] -> [(kind, device)], in the
    order given; raises ValueError with a message naming the bad item."""
    out = []
    for item in text.split(","):
        kind, sep, dev = item.partition("=")
        if not sep or not kind or not dev:
            raise ValueError("--kind-costs %s: expected KIND=DEVICE[,KIND=DEVICE...] (e.g. cpu=xeon), got %r"
                             % (text, item))
        if dev not in DEVICES:
            raise ValueError("--kind-costs %s: unknown device model %r (one of %s)"
                             % (text, dev, ", ".join(sorted(DEVICES))))
        if any(k == kind for k, _ in out):
            raise ValueError("--kind-costs %s: kind %r given twice" % (text, kind))
        out.append((kind, dev))
    return out


def costs(device, kind_devices, flops, bytes_moved):
    """(cost_us on device, {kind: cost_us on that kind's device model} or None)."""
    by_kind = {k: cost_us(d, flops, bytes_moved) for k, d in kind_devices} if kind_devices else None
    return cost_us(device, flops, bytes_moved), by_kind


def describe_kind_costs(kind_devices):
    """The source-string phrase for --kind-costs (empty without it)."""
    if not kind_devices:
        return ""
    return "; cost_us_by_kind: %s" % "; ".join('"%s" from the roofline model of %s' % (k, DEVICES[d][0])
                                               for k, d in kind_devices)


def conv_flops(out_shape, in_channels_per_group, kernel_numel):
    """2 x output elements x (input channels per group x kernel size)."""
    return 2.0 * numel(out_shape) * in_channels_per_group * kernel_numel


def matmul_flops(m, k, n, batch=1):
    return 2.0 * batch * m * k * n
