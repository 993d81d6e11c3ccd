"""Yolo-Fastest-1.1-XL (Darknet cfg + weights, converted to ONNX on load): COCO-80 objects.

More accurate than FastestDet at about twice the cost. Preprocessing is Darknet's: RGB, plain
resize to 320x320, /255. Each head row decodes YOLOv3-style: cx = (gx + sigmoid(tx)) / gw,
w = exp(tw) * anchor_w / 320; score = sigmoid(obj) * sigmoid(cls).
"""

from __future__ import annotations

from pathlib import Path
from typing import Unpack

import cv2
import numpy as np

from engine.models import ModelManager
from engine.runtimes.vision import darknet
from engine.runtimes.vision.coco import nms_regions, read_names
from engine.runtimes.vision.common import DetectorThresholds, as_bgr, ort_session, resize
from engine.runtimes.vision.regions import Region


class YoloFastest:
    """Objects in a BGR photo as `Region`s (kind "object", COCO label), best first.

    score_threshold 0.4: on COCO128 (bench.detection) precision .70 at recall .33; F1 is flat
    (.45) from 0.3 to 0.45, and precision matters more for cited elements."""

    name = "yolo-fastest-1.1-xl"

    def __init__(self, cfg_path: Path, weights_path: Path, names_path: Path, threads: int = 1,
                 score_threshold: float = 0.4, nms_iou: float = 0.45) -> None:
        model = darknet.load(cfg_path, weights_path)
        self.session = ort_session(model.onnx, threads)
        self.net_size, self.heads = (model.width, model.height), model.heads
        self.outputs = [h.output for h in self.heads]
        self.labels = read_names(names_path)
        self.score_threshold = score_threshold
        self.nms_iou = nms_iou

    @classmethod
    def from_manager(cls, manager: ModelManager, model: str = "yolo-fastest-1.1-xl", threads: int = 1,
                     **thresholds: Unpack[DetectorThresholds]) -> YoloFastest:
        paths = manager.paths(model)
        cfg = next(p for name, p in paths.items() if name.endswith(".cfg"))
        weights = next(p for name, p in paths.items() if name.endswith(".weights"))
        names = next(p for name, p in paths.items() if name.endswith(".names"))
        return cls(cfg, weights, names, threads=threads, **thresholds)

    def detect(self, image: np.ndarray) -> list[Region]:
        image = as_bgr(image)
        height, width = image.shape[:2]
        rgb = cv2.cvtColor(resize(image, self.net_size), cv2.COLOR_BGR2RGB)
        blob = (rgb.astype(np.float32) / 255.0).transpose(2, 0, 1)[None]
        outs = self.session.run(self.outputs, {"input": blob})
        parts = [decode(o[0], head.anchors, self.net_size, self.score_threshold)
                 for o, head in zip(outs, self.heads, strict=True)]
        boxes = np.concatenate([p[0] for p in parts]) * np.array([width, height, width, height], dtype=np.float32)
        scores = np.concatenate([p[1] for p in parts])
        class_ids = np.concatenate([p[2] for p in parts])
        return nms_regions(boxes, scores, class_ids, self.labels, self.nms_iou, (width, height), self.name)

    run = detect  # the name every vision runtime answers to


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x, -50.0, 50.0)))


def decode(out: np.ndarray, anchors: tuple[tuple[float, float], ...], net_size: tuple[int, int],
           score_threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Normalised x1,y1,x2,y2 boxes, scores and class ids from one head's (A*(5+C), gh, gw) map."""
    n_anchors = len(anchors)
    _, gh, gw = out.shape
    out = out.reshape(n_anchors, -1, gh, gw)
    obj = _sigmoid(out[:, 4])
    cls = out[:, 5:]
    class_ids = cls.argmax(axis=1)
    scores = obj * _sigmoid(np.take_along_axis(cls, class_ids[:, None], axis=1)[:, 0])
    a, gy, gx = np.nonzero(scores > score_threshold)
    anchor = np.asarray(anchors, dtype=np.float32)
    cx = (gx + _sigmoid(out[a, 0, gy, gx])) / gw
    cy = (gy + _sigmoid(out[a, 1, gy, gx])) / gh
    w = np.exp(out[a, 2, gy, gx].clip(-10, 10)) * anchor[a, 0] / net_size[0]
    h = np.exp(out[a, 3, gy, gx].clip(-10, 10)) * anchor[a, 1] / net_size[1]
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1).astype(np.float32)
    return boxes, scores[a, gy, gx].astype(np.float32), class_ids[a, gy, gx]
