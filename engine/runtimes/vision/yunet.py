"""YuNet faces (cv2.FaceDetectorYN): boxes and five landmarks in the photo's own pixels.

The photo is resized so its longer side is at most 640 (and at least 320, so small faces in
thumbnails are still found); boxes and landmarks are mapped back to the original size.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict, Unpack

import cv2
import numpy as np

from engine.models import ModelManager
from engine.runtimes.vision.common import as_bgr, resize
from engine.runtimes.vision.regions import FACE, Region


class FaceThresholds(TypedDict, total=False):
    """What YuNet's factory may be told besides its model and threads."""

    score_threshold: float
    nms_iou: float
    max_side: int
    min_side: int

LANDMARKS = ("right_eye", "left_eye", "nose", "mouth_right", "mouth_left")  # as YuNet orders them


class YuNet:
    """Faces in a BGR photo as `Region`s (kind and label "face"), best first."""

    name = "yunet-s-640"

    def __init__(self, model_path: Path, score_threshold: float = 0.7, nms_iou: float = 0.3,
                 max_side: int = 640, min_side: int = 320) -> None:
        level = cv2.utils.logging.getLogLevel()
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)  # OpenCV 5 warns about DNN targets
        try:
            self.detector = cv2.FaceDetectorYN.create(str(model_path), "", (max_side, max_side), score_threshold,
                                                      nms_iou, 5000)
        finally:
            cv2.utils.logging.setLogLevel(level)
        self.max_side, self.min_side = max_side, min_side

    @classmethod
    def from_manager(cls, manager: ModelManager, model: str = "face-detector", threads: int = 1,
                     **thresholds: Unpack[FaceThresholds]) -> YuNet:
        """`threads` is accepted for a uniform factory signature: OpenCV's thread pool is process-wide."""
        paths = manager.paths(model)
        return cls(next(p for name, p in paths.items() if name.endswith(".onnx")), **thresholds)

    def detect(self, image: np.ndarray) -> list[Region]:
        image = as_bgr(image)
        height, width = image.shape[:2]
        longer = max(height, width)
        scale = min(1.0, self.max_side / longer) if longer > self.min_side else self.min_side / longer
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        self.detector.setInputSize(size)
        _, faces = self.detector.detect(resize(image, size))
        if faces is None:
            return []
        sx, sy = width / size[0], height / size[1]
        regions = []
        for row in faces:
            x, y, w, h = (float(v) for v in row[:4])
            box = (max(0.0, x * sx), max(0.0, y * sy), min(float(width), (x + w) * sx),
                   min(float(height), (y + h) * sy))
            points = row[4:14].reshape(5, 2) * (sx, sy)
            landmarks = {k: (round(float(px), 1), round(float(py), 1)) for k, (px, py) in zip(LANDMARKS, points,
                                                                                             strict=True)}
            regions.append(Region(FACE, "face", box, float(row[14]), extra={"landmarks": landmarks,
                                                                             "model": self.name}))
        regions.sort(key=lambda r: -r.score)
        return regions

    run = detect  # the name every vision runtime answers to
