"""Roofline cost model shared by placeto's graph importers.

An op's cost on a device is

    cost_us = launch_us + max(flops / flops_per_s, bytes_moved / bytes_per_s) * 1e6

where flops counts multiply-adds as two operations (convolutions, matrix
products, attention) and bytes_moved is every input and output tensor read or
written once (memory-bound ops: elementwise, normalisation, pooling, copies).
The effective rates are below the datasheet peaks, as measured kernels are.

DEVICES names the device models; the default, "k80", is one GK210 die of an
NVIDIA Tesla K80, the GPU of the Placeto paper and of placeto's default
cluster (--devices N).
"""

DEVICES = {
    # name: (description, effective FLOP/s, effective bytes/s, launch us)
    "k80": ("one NVIDIA Tesla K80 die (GK210): peak 4.37 TFLOP/s fp32 and 240 GB/s; "
            "effective 2.8 TFLOP/s and 160 GB/s, 10 us launch overhead", 2.8e12, 160e9, 10.0),
    "p100": ("NVIDIA Tesla P100 (PCIe): peak 9.3 TFLOP/s fp32 and 732 GB/s; "
             "effective 6.5 TFLOP/s and 500 GB/s, 7 us launch overhead", 6.5e12, 500e9, 7.0),
    "v100": ("NVIDIA Tesla V100 (SXM2): peak 15.7 TFLOP/s fp32 and 900 GB/s; "
             "effective 11 TFLOP/s and 700 GB/s, 5 us launch overhead", 11e12, 700e9, 5.0),
}
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


def conv_flops(out_shape, in_channels_per_group, kernel_numel):
    """2 x output elements x (input channels per group x kernel size)."""
    return 2.0 * numel(out_shape) * in_channels_per_group * kernel_numel


def matmul_flops(m, k, n, batch=1):
    return 2.0 * batch * m * k * n
