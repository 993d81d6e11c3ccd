"""YOLO / YOLO-World weights (`.pt`) a user imports as a detector, run through `ultralytics`.

ultralytics is AGPL-3.0 and needs torch and a matching torchvision (a CUDA-sized install; see
../shared/STACK.md), so it is never part of the base install: without it this runtime says how to
get it. YOLO-World is open-vocabulary: `vocabulary` (e.g. the labels of the user's knowledge packs)
replaces COCO's 80 classes when given."""

from __future__ import annotations

from pathlib import Path
from typing import Unpack

import numpy as np

from engine.errors import ModelError
from engine.models import ModelManager
from engine.runtimes.vision.coco import normalise_label
from engine.runtimes.vision.common import DetectorThresholds, as_bgr
from engine.runtimes.vision.regions import OBJECT, Region, as_box

INSTALL = "pip install ultralytics (AGPL-3.0; it needs torch with a matching torchvision)"


class UltralyticsDetector:
    name = "ultralytics"

    def __init__(self, weights: Path, threads: int = 1, score_threshold: float = 0.35, nms_iou: float = 0.5,
                 vocabulary: list[str] | None = None) -> None:
        try:
            from ultralytics import YOLO
        except ImportError as exc:
            raise ModelError("detector", weights.name, "this detector runs on ultralytics, which is not installed",
                             INSTALL) from exc
        import torch

        torch.set_num_threads(max(1, threads))
        self.model = YOLO(str(weights))
        if vocabulary and hasattr(self.model, "set_classes"):
            self.model.set_classes(list(vocabulary))
        self.score_threshold, self.nms_iou = score_threshold, nms_iou
        self.name = weights.stem

    @classmethod
    def from_manager(cls, manager: ModelManager, model: str, threads: int = 1,
                     **thresholds: Unpack[DetectorThresholds]) -> UltralyticsDetector:
        weights = [p for name, p in manager.paths(model).items() if name.endswith(".pt")]
        if len(weights) != 1:
            raise ModelError("detector", model, "expected one .pt weights file", "trove models import FILE.pt "
                             "--role detector")
        return cls(weights[0], threads=threads, **thresholds)

    def detect(self, image: np.ndarray) -> list[Region]:
        result = self.model.predict(as_bgr(image), conf=self.score_threshold, iou=self.nms_iou, verbose=False)[0]
        names = result.names
        boxes = result.boxes
        return [Region(OBJECT, normalise_label(str(names[int(c)])), as_box(xyxy), float(s))
                for xyxy, s, c in zip(boxes.xyxy.tolist(), boxes.conf.tolist(), boxes.cls.tolist(), strict=True)]

    run = detect
