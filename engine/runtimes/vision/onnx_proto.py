"""Just enough of the ONNX protobuf format to write an inference graph that onnxruntime loads.

The `onnx` package is only a training extra of this project, and OpenCV 5 dropped its Darknet
importer, so Darknet models are turned into ONNX bytes here, in memory, with no extra dependency.
Field numbers are those of onnx/onnx.proto (stable since IR version 3).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence

import numpy as np

FLOAT, INT64 = 1, 7  # TensorProto.DataType
_ATTR_FLOAT, _ATTR_INT, _ATTR_STRING, _ATTR_INTS = 1, 2, 3, 7  # AttributeProto.AttributeType


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int64 as two's complement, ten bytes
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _int(field: int, value: int) -> bytes:
    return _varint(field << 3) + _varint(value)


def _bytes(field: int, value: bytes | str) -> bytes:
    data = value.encode() if isinstance(value, str) else value
    return _varint(field << 3 | 2) + _varint(len(data)) + data


def _float(field: int, value: float) -> bytes:
    return _varint(field << 3 | 5) + struct.pack("<f", value)


AttributeValue = float | int | str | Sequence[int]


def attribute(name: str, value: AttributeValue) -> bytes:
    """An AttributeProto: float, int, string or list of ints."""
    if isinstance(value, float):
        body = _float(2, value) + _int(20, _ATTR_FLOAT)
    elif isinstance(value, int):
        body = _int(3, value) + _int(20, _ATTR_INT)
    elif isinstance(value, str):
        body = _bytes(4, value) + _int(20, _ATTR_STRING)
    else:
        body = b"".join(_int(8, int(v)) for v in value) + _int(20, _ATTR_INTS)
    return _bytes(1, name) + body


def node(op_type: str, inputs: Iterable[str], outputs: Iterable[str], name: str = "", **attrs: AttributeValue) -> bytes:
    """A NodeProto of the default ONNX domain."""
    body = b"".join(_bytes(1, i) for i in inputs) + b"".join(_bytes(2, o) for o in outputs)
    body += _bytes(3, name or next(iter(outputs))) + _bytes(4, op_type)
    body += b"".join(_bytes(5, attribute(k, v)) for k, v in attrs.items())
    return body


def tensor(name: str, array: np.ndarray) -> bytes:
    """A TensorProto holding float32 or int64 data as raw little-endian bytes."""
    array = np.ascontiguousarray(array)
    if array.dtype == np.float32:
        dtype = FLOAT
    elif array.dtype == np.int64:
        dtype = INT64
    else:
        raise TypeError(f"{name}: unsupported dtype {array.dtype}")
    dims = b"".join(_int(1, d) for d in array.shape)
    return dims + _int(2, dtype) + _bytes(8, name) + _bytes(9, array.astype(array.dtype.newbyteorder("<")).tobytes())


def _dim(d: int | str | None) -> bytes:
    return b"" if d is None else _bytes(2, d) if isinstance(d, str) else _int(1, d)


def value_info(name: str, shape: Sequence[int | str | None], elem_type: int = FLOAT) -> bytes:
    """A ValueInfoProto of a tensor; in `shape` a str is a symbolic dimension, None an unknown one."""
    tensor_type = _int(1, elem_type) + _bytes(2, b"".join(_bytes(1, _dim(d)) for d in shape))
    return _bytes(1, name) + _bytes(2, _bytes(1, tensor_type))


def model(nodes: Sequence[bytes], initializers: Sequence[bytes], inputs: Sequence[bytes],
          outputs: Sequence[bytes], name: str, opset: int = 13, ir_version: int = 8) -> bytes:
    """A serialised ModelProto: one graph of the default domain at `opset`."""
    graph = b"".join(_bytes(1, n) for n in nodes) + _bytes(2, name)
    graph += b"".join(_bytes(5, t) for t in initializers)
    graph += b"".join(_bytes(11, i) for i in inputs) + b"".join(_bytes(12, o) for o in outputs)
    return (_int(1, ir_version) + _bytes(2, "trove") + _bytes(7, graph)
            + _bytes(8, _bytes(1, "") + _int(2, opset)))
