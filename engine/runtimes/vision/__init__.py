"""Vision runtimes (objects, faces, ImageNet labels, photo vectors, OCR), chosen through the catalog.

Every runtime takes a cv2-style BGR uint8 image (upright: EXIF orientation applied by the caller)
and answers to `run(image)`, also named for what it does: `detect` (objects, faces) and `read`
(OCR) return `Region`s in that image's pixels, `classify` (label, score) pairs, `embed` a unit
vector. A factory takes a catalog tag of its role ("default", "fast", "better") or a model name.
A new detector is one module plus one line in `DETECTORS`; a catalog entry may also name the
runtime it needs with `runtime = "..."` (e.g. a user's own FastestDet export). A missing or
corrupt model raises `ModelError` naming the role.
"""

from __future__ import annotations

from typing import Protocol, TypeVar, Unpack

import numpy as np

from engine.errors import ModelError
from engine.models import ModelManager, ModelSpec
from engine.runtimes.vision.clip import IMAGE_TEXT_EMBEDDERS, ImageTextEmbedder, image_text_runtime
from engine.runtimes.vision.common import DetectorThresholds
from engine.runtimes.vision.coral import Classifier, ImageEmbedder
from engine.runtimes.vision.fastestdet import FastestDet
from engine.runtimes.vision.ppocr import Ocr, OcrThresholds
from engine.runtimes.vision.regions import FACE, OBJECT, TEXT, Region, keep_smaller
from engine.runtimes.vision.yolo_fastest import YoloFastest
from engine.runtimes.vision.yolo_world import UltralyticsDetector
from engine.runtimes.vision.yunet import FaceThresholds, YuNet


class ObjectDetector(Protocol):
    """What every object detector runtime offers."""

    name: str
    score_threshold: float
    nms_iou: float

    def detect(self, image: np.ndarray) -> list[Region]: ...

    def run(self, image: np.ndarray) -> list[Region]: ...  # = detect; every runtime has `run`


class DetectorRuntime(Protocol):
    """An object detector's class, as `DETECTORS` holds it: its factory."""

    def from_manager(self, manager: ModelManager, model: str, threads: int = 1,
                     **thresholds: Unpack[DetectorThresholds]) -> ObjectDetector: ...


DETECTORS: dict[str, DetectorRuntime] = {"fastestdet": FastestDet, "yolo-fastest-1.1-xl": YoloFastest,
                                         "ultralytics": UltralyticsDetector}  # YOLO / YOLO-World .pt a user imports
FACE_DETECTORS: dict[str, type[YuNet]] = {"yunet-s-640": YuNet}
CLASSIFIERS: dict[str, type[Classifier]] = {"coral-mobilenet-v2-imagenet": Classifier}
IMAGE_EMBEDDERS: dict[str, type[ImageEmbedder]] = {"coral-mobilenet-v1-embedding": ImageEmbedder}
OCR_ENGINES: dict[str, type[Ocr]] = {"rapidocr-ppocrv4": Ocr}
_Runtime = TypeVar("_Runtime")


def _runtime(registry: dict[str, _Runtime], spec: ModelSpec) -> _Runtime:
    key = str(spec.extra.get("runtime", spec.name))
    if key not in registry and any(f.name.endswith(".pt") for f in spec.files) and "ultralytics" in registry:
        key = "ultralytics"  # an imported PyTorch detector: YOLO or YOLO-World weights
    if key not in registry:
        raise ModelError(spec.role, spec.name, "no runtime in Trove knows this model",
                         f"runtimes exist for: {', '.join(registry)} (a catalog entry may say runtime = \"...\")")
    return registry[key]


def object_detector(manager: ModelManager, choice: str = "default", threads: int = 1,
                    **thresholds: Unpack[DetectorThresholds]) -> ObjectDetector:
    """A COCO-80 detector: `choice` "default"/"fast" (FastestDet), "better" (Yolo-Fastest-XL) or a name.

    thresholds: score_threshold, nms_iou."""
    spec = manager.model_for("detector", choice)
    return _runtime(DETECTORS, spec).from_manager(manager, spec.name, threads=threads, **thresholds)


def face_detector(manager: ModelManager, choice: str = "default", threads: int = 1,
                  **thresholds: Unpack[FaceThresholds]) -> YuNet:
    """YuNet faces; thresholds: score_threshold, nms_iou."""
    spec = manager.model_for("face-detector", choice)
    return _runtime(FACE_DETECTORS, spec).from_manager(manager, spec.name, threads=threads, **thresholds)


def classifier(manager: ModelManager, choice: str = "default", threads: int = 1) -> Classifier:
    """ImageNet-1000 labels of whole photos."""
    spec = manager.model_for("classifier", choice)
    return _runtime(CLASSIFIERS, spec).from_manager(manager, spec.name, threads=threads)


def image_embedder(manager: ModelManager, choice: str = "default", threads: int = 1) -> ImageEmbedder:
    """1024-d photo vectors for photo-to-photo similarity (not a text-image model)."""
    spec = manager.model_for("image-embedder", choice)
    return _runtime(IMAGE_EMBEDDERS, spec).from_manager(manager, spec.name, threads=threads)


def ocr(manager: ModelManager, choice: str = "default", threads: int = 1,
        **thresholds: Unpack[OcrThresholds]) -> Ocr:
    """Text lines with their boxes; thresholds: min_score, det_min_side, max_side."""
    spec = manager.model_for("ocr", choice)
    return _runtime(OCR_ENGINES, spec).from_manager(manager, spec.name, threads=threads, **thresholds)


def image_text_embedder(manager: ModelManager, choice: str = "default", threads: int = 1) -> ImageTextEmbedder:
    """Photos and texts in one vector space: CLIP/SigLIP ONNX towers the user imports (docs/image-text-models.md)."""
    spec = manager.model_for("image-text-embedder", choice)
    return image_text_runtime(IMAGE_TEXT_EMBEDDERS, spec).from_manager(manager, spec.name, threads=threads)


__all__ = [
    "DETECTORS", "FACE", "OBJECT", "TEXT", "Classifier", "FastestDet", "ImageEmbedder", "ObjectDetector", "Ocr",
    "Region", "YoloFastest", "YuNet", "classifier", "face_detector", "image_embedder", "keep_smaller",
    "object_detector", "ocr", "image_text_embedder", "ImageTextEmbedder",
]
