"""Darknet `.cfg` + `.weights` -> an in-memory ONNX graph for onnxruntime.

OpenCV 5 removed `cv2.dnn.readNetFromDarknet`, so Yolo-Fastest is converted on load (a few ms).
The graph ends at the convolutions that feed each `[yolo]` layer; YOLO decoding happens in numpy
(see yolo_fastest.py). Layers covered: convolutional (grouped, batch-norm folded), maxpool, route
(concatenation), shortcut, upsample, dropout, yolo — what Yolo-Fastest and YOLOv3-tiny use.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

import numpy as np

from engine.runtimes.vision import onnx_proto as pb


@dataclass(frozen=True)
class YoloHead:
    """One `[yolo]` output: its ONNX tensor name and the anchors (pixels at the network size) it uses."""

    output: str
    anchors: tuple[tuple[float, float], ...]
    classes: int


@dataclass(frozen=True)
class DarknetModel:
    onnx: bytes
    width: int
    height: int
    heads: tuple[YoloHead, ...]


def parse_cfg(text: str) -> list[tuple[str, dict[str, str]]]:
    """Sections of a Darknet cfg in order, as (type, options); comments and blank lines dropped."""
    sections: list[tuple[str, dict[str, str]]] = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("["):
            sections.append((line.strip("[]").strip(), {}))
        elif "=" in line and sections:
            key, value = line.split("=", 1)
            sections[-1][1][key.strip()] = value.strip()
    return sections


def _ints(value: str) -> list[int]:
    return [int(v) for v in value.split(",") if v.strip()]


class _Weights:
    """Reads the float32 stream that follows the Darknet weights header."""

    def __init__(self, data: bytes) -> None:
        major, minor, _ = np.frombuffer(data[:12], dtype="<i4")
        seen_bytes = 8 if (major * 10 + minor) >= 2 and major < 1000 and minor < 1000 else 4
        self.values = np.frombuffer(data[12 + seen_bytes:], dtype="<f4")
        self.pos = 0

    def take(self, n: int) -> np.ndarray:
        if self.pos + n > self.values.size:
            raise ValueError("the weights file is shorter than its cfg needs")
        out = self.values[self.pos:self.pos + n]
        self.pos += n
        return out.astype(np.float32)


def load(cfg_path: Path, weights_path: Path) -> DarknetModel:
    """Build the ONNX graph of a Darknet detector; raises ValueError on anything not covered."""
    sections = parse_cfg(cfg_path.read_text())
    if not sections or sections[0][0] not in ("net", "network"):
        raise ValueError(f"{cfg_path.name}: no [net] section first")
    net = sections[0][1]
    width, height, channels = int(net.get("width", 416)), int(net.get("height", 416)), int(net.get("channels", 3))
    weights = _Weights(weights_path.read_bytes())
    nodes: list[bytes] = []
    inits: list[bytes] = []
    names: list[str] = []  # output tensor of each layer
    chans: list[int] = []
    heads: list[YoloHead] = []
    prev, c = "input", channels
    for i, (kind, opt) in enumerate(sections[1:]):
        out = f"l{i}"
        if kind == "convolutional":
            c = _conv(i, opt, prev, c, weights, nodes, inits)
        elif kind == "maxpool":
            size, stride = int(opt.get("size", 2)), int(opt.get("stride", 2))
            padding = int(opt.get("padding", size - 1))
            nodes.append(pb.node("MaxPool", [prev], [out], kernel_shape=[size, size], strides=[stride, stride],
                                 pads=[padding // 2, padding // 2, padding - padding // 2, padding - padding // 2]))
        elif kind == "route":
            if "groups" in opt:
                raise ValueError(f"layer {i}: route with groups is not supported")
            layers = [v if v >= 0 else i + v for v in _ints(opt["layers"])]
            c = sum(chans[j] for j in layers)
            if len(layers) == 1:
                nodes.append(pb.node("Identity", [names[layers[0]]], [out]))
            else:
                nodes.append(pb.node("Concat", [names[j] for j in layers], [out], axis=1))
        elif kind == "shortcut":
            source = int(opt["from"])
            source = source if source >= 0 else i + source
            if opt.get("activation", "linear") != "linear" or chans[source] != c:
                raise ValueError(f"layer {i}: only linear shortcuts of equal depth are supported")
            nodes.append(pb.node("Add", [prev, names[source]], [out]))
        elif kind == "upsample":
            factor = float(opt.get("stride", 2))
            scales = f"l{i}_scales"
            inits.append(pb.tensor(scales, np.array([1, 1, factor, factor], dtype=np.float32)))
            nodes.append(pb.node("Resize", [prev, "", scales], [out], mode="nearest",
                                 coordinate_transformation_mode="asymmetric", nearest_mode="floor"))
        elif kind == "dropout":
            nodes.append(pb.node("Identity", [prev], [out]))
        elif kind == "yolo":
            anchors = _ints(opt["anchors"])
            pairs = [(float(anchors[2 * k]), float(anchors[2 * k + 1])) for k in _ints(opt["mask"])]
            heads.append(YoloHead(prev, tuple(pairs), int(opt.get("classes", 80))))
            if float(opt.get("scale_x_y", 1.0)) != 1.0:
                raise ValueError(f"layer {i}: scale_x_y other than 1 is not supported")
            nodes.append(pb.node("Identity", [prev], [out]))
        else:
            raise ValueError(f"layer {i}: [{kind}] is not supported")
        names.append(out)
        chans.append(c)
        prev = out
    if weights.pos != weights.values.size:
        raise ValueError(f"{weights_path.name}: {weights.values.size - weights.pos} weights left over; "
                         "the cfg does not match the weights")
    graph = pb.model(nodes, inits, [pb.value_info("input", ["batch", channels, height, width])],
                     [pb.value_info(h.output, ["batch", None, None, None]) for h in heads], name=cfg_path.stem)
    return DarknetModel(graph, width, height, tuple(heads))


class _ActivationAttributes(TypedDict, total=False):
    alpha: float


_ACTIVATIONS: dict[str, tuple[str, _ActivationAttributes]] = {
    "leaky": ("LeakyRelu", {"alpha": 0.1}), "relu": ("Relu", {}), "logistic": ("Sigmoid", {})}


def _conv(i: int, opt: dict[str, str], prev: str, c_in: int, weights: _Weights, nodes: list[bytes],
          inits: list[bytes]) -> int:
    """Append one convolution (batch norm folded in) and its activation; returns its depth."""
    filters, size = int(opt["filters"]), int(opt.get("size", 1))
    stride, groups = int(opt.get("stride", 1)), int(opt.get("groups", 1))
    padding = size // 2 if int(opt.get("pad", 0)) else int(opt.get("padding", 0))
    bias = weights.take(filters)
    if int(opt.get("batch_normalize", 0)):
        scale, mean, var = weights.take(filters), weights.take(filters), weights.take(filters)
        factor = scale / (np.sqrt(var) + 1e-6)  # darknet divides by sqrt(var) + .000001
        bias = bias - mean * factor
    else:
        factor = np.ones(filters, dtype=np.float32)
    kernel = weights.take(filters * (c_in // groups) * size * size).reshape(filters, c_in // groups, size, size)
    kernel = (kernel * factor[:, None, None, None]).astype(np.float32)
    w_name, b_name = f"l{i}_w", f"l{i}_b"
    inits += [pb.tensor(w_name, kernel), pb.tensor(b_name, bias.astype(np.float32))]
    activation = opt.get("activation", "linear")
    conv_out = f"l{i}" if activation == "linear" else f"l{i}_conv"
    nodes.append(pb.node("Conv", [prev, w_name, b_name], [conv_out], kernel_shape=[size, size],
                         strides=[stride, stride], pads=[padding] * 4, group=groups))
    if activation != "linear":
        if activation not in _ACTIVATIONS:
            raise ValueError(f"layer {i}: activation {activation} is not supported")
        op, attrs = _ACTIVATIONS[activation]
        nodes.append(pb.node(op, [conv_out], [f"l{i}"], **attrs))
    return filters
