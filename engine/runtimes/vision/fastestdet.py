"""FastestDet (ONNX, onnxruntime): COCO-80 objects in ~10 ms a photo on one core.

The model is anchor-free on one 22x22 grid: each cell gives [obj, tx, ty, tw, th, 80 class
probabilities]; decoding follows the upstream example (dog-qiuqiu/FastestDet, example/onnx-runtime).
"""

from __future__ import annotations

from pathlib import Path
from typing import Unpack

import numpy as np

from engine.models import ModelManager
from engine.runtimes.vision.coco import COCO80, nms_regions
from engine.runtimes.vision.common import DetectorThresholds, as_bgr, ort_session, resize
from engine.runtimes.vision.regions import Region


class FastestDet:
    """Objects in a BGR photo as `Region`s (kind "object", COCO label), best first.

    score_threshold 0.6: on COCO128 (bench.detection) precision .59 at recall .28, the best F1;
    at 0.5 precision falls to .45 for recall .32. Cited elements must be there, so precision wins."""

    name = "fastestdet"
    size = 352  # the network's input side, pixels

    def __init__(self, model_path: Path, threads: int = 1, score_threshold: float = 0.6,
                 nms_iou: float = 0.45) -> None:
        self.session = ort_session(model_path, threads)
        self.input_name = self.session.get_inputs()[0].name
        self.score_threshold = score_threshold
        self.nms_iou = nms_iou

    @classmethod
    def from_manager(cls, manager: ModelManager, model: str = "fastestdet", threads: int = 1,
                     **thresholds: Unpack[DetectorThresholds]) -> FastestDet:
        paths = manager.paths(model)
        return cls(next(p for name, p in paths.items() if name.endswith(".onnx")), threads=threads, **thresholds)

    def detect(self, image: np.ndarray) -> list[Region]:
        image = as_bgr(image)
        height, width = image.shape[:2]
        blob = resize(image, (self.size, self.size))
        blob = (blob.astype(np.float32) / 255.0).transpose(2, 0, 1)[None]
        out = self.session.run(None, {self.input_name: blob})[0][0]  # 85 x gh x gw
        boxes, scores, class_ids = decode(out, self.score_threshold)
        boxes *= np.array([width, height, width, height], dtype=np.float32)
        return nms_regions(boxes, scores, class_ids, COCO80, self.nms_iou, (width, height), self.name)

    run = detect  # the name every vision runtime answers to


def decode(out: np.ndarray, score_threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Normalised x1,y1,x2,y2 boxes, scores and class ids of the cells scoring above the threshold.

    score = obj^0.6 * cls^0.4; cx = (gx + tanh(tx)) / gw; w = sigmoid(tw); likewise y and h."""
    _, gh, gw = out.shape
    obj, cls = out[0], out[5:]
    class_ids = cls.argmax(axis=0)
    cls_score = np.take_along_axis(cls, class_ids[None], axis=0)[0]
    scores = np.power(np.clip(obj, 0, 1), 0.6) * np.power(np.clip(cls_score, 0, 1), 0.4)
    gy, gx = np.nonzero(scores > score_threshold)
    cx = (gx + np.tanh(out[1, gy, gx])) / gw
    cy = (gy + np.tanh(out[2, gy, gx])) / gh
    w = 1.0 / (1.0 + np.exp(-out[3, gy, gx].clip(-50, 50)))
    h = 1.0 / (1.0 + np.exp(-out[4, gy, gx].clip(-50, 50)))
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1).astype(np.float32)
    return boxes, scores[gy, gx].astype(np.float32), class_ids[gy, gx]
