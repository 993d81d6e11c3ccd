"""What the vision models see in one picture: regions (objects, faces, text), ImageNet labels and an
image vector. Each role is optional: a role with no model installed is skipped and its absence is
said once (`VisionModels.missing`), so photos are still indexed by what the other roles find."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import numpy as np

from engine.errors import ModelError
from engine.runtimes.vision.colours import UNCOLOURED, colour_name
from engine.runtimes.vision.regions import OBJECT, Region, as_box, keep_smaller

if TYPE_CHECKING:
    from engine.models import ModelManager
    from engine.runtimes.vision import ObjectDetector
    from engine.runtimes.vision.clip import ImageTextEmbedder
    from engine.runtimes.vision.coral import Classifier, ImageEmbedder
    from engine.runtimes.vision.ppocr import Ocr
    from engine.runtimes.vision.yunet import YuNet

ANALYSIS_SIDE = 1600  # pictures are analysed at most this big (longer side); boxes map back to full size
ROLE_EFFECT = {
    "detector": "objects in photos are not detected",
    "face-detector": "faces in photos are not found",
    "ocr": "text in photos is not read",
    "classifier": "photos get no ImageNet labels",
    "image-embedder": "asking with a photo (similar photos) is not possible",
    "image-text-embedder": "photos are searched by their labels, text, dates and captions, not by looks",
}


class _FindsRegions(Protocol):
    """A detector, the face detector or OCR: regions in an image."""

    def run(self, image: np.ndarray) -> list[Region]: ...


@dataclass
class VisionModels:
    """The loaded vision runtimes; None where a role has no model."""

    detector: ObjectDetector | None = None
    faces: YuNet | None = None
    ocr: Ocr | None = None
    classifier: Classifier | None = None
    embedder: ImageEmbedder | None = None
    image_text: ImageTextEmbedder | None = None  # a CLIP/SigLIP the user imported: photos found by how they look
    missing: dict[str, str] = field(default_factory=dict)  # role -> what is lost, and why

    @classmethod
    def from_manager(cls, manager: ModelManager, detector: str = "default", threads: int = 1,
                     use_ocr: bool = True) -> VisionModels:
        from engine.runtimes import vision

        models = cls()
        loaders: dict[str, tuple[str, Callable[[], object]]] = {
            "detector": ("detector", lambda: vision.object_detector(manager, detector, threads=threads)),
            "face-detector": ("faces", lambda: vision.face_detector(manager, threads=threads)),
            "classifier": ("classifier", lambda: vision.classifier(manager, threads=threads)),
            "image-embedder": ("embedder", lambda: vision.image_embedder(manager, threads=threads)),
            "image-text-embedder": ("image_text", lambda: vision.image_text_embedder(manager, threads=threads)),
        }
        if use_ocr:
            loaders["ocr"] = ("ocr", lambda: vision.ocr(manager, threads=threads))
        else:
            models.missing["ocr"] = f"{ROLE_EFFECT['ocr']} (setting photo_ocr = false)"
        for role, (attr, load) in loaders.items():
            try:
                setattr(models, attr, load())
            except ModelError as exc:
                models.missing[role] = f"{ROLE_EFFECT[role]}: {exc}"
        return models

    @property
    def name(self) -> str:
        """Which models made an analysis: kept with each photo so a model change can re-index."""
        parts = [getattr(getattr(self, attr), "name", type(getattr(self, attr)).__name__)
                 for attr in ("detector", "faces", "ocr", "classifier", "embedder", "image_text")
                 if getattr(self, attr)]
        return "+".join(parts) or "none"


@dataclass
class Analysis:
    regions: list[Region]
    labels: list[tuple[str, float]]  # ImageNet labels, best first
    vector: np.ndarray | None  # image embedding (photo-to-photo similarity)
    timings: dict[str, float] = field(default_factory=dict)


def analyse(image: np.ndarray, models: VisionModels, overlap: float = 0.8, label_min: float = 0.15,
            region_min: dict[str, float] | None = None) -> Analysis:
    """Regions of every kind, classifier labels above `label_min`, and the image vector, for one upright
    BGR picture. GranuRAG's overlap rule is applied between boxes of the same label (a loose and a
    tight box of one cup); across labels it would drop the table a cup stands on."""
    import cv2

    timings: dict[str, float] = {}
    scale = min(1.0, ANALYSIS_SIDE / max(image.shape[:2]))
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image
    regions: list[Region] = []
    finders: tuple[tuple[str, _FindsRegions | None], ...] = (
        ("objects", models.detector), ("faces", models.faces), ("ocr", models.ocr))
    for stage, model in finders:
        if model is None:
            continue
        t0 = time.perf_counter()
        found = model.run(small)
        timings[stage] = time.perf_counter() - t0
        regions += [_scaled(r, 1 / scale) for r in found]
    minimum = region_min or {}
    regions = [r for r in regions if r.score >= minimum.get(r.kind, 0.0)]
    regions = keep_smaller(regions, overlap, same_label=True)
    for region in regions:
        if region.kind == OBJECT and region.label not in UNCOLOURED and (colour := colour_name(image, region.box)):
            region.extra["colour"] = colour
    labels: list[tuple[str, float]] = []
    if models.classifier is not None:
        t0 = time.perf_counter()
        labels = [(label, score) for label, score in models.classifier.run(small) if score >= label_min]
        timings["classify"] = time.perf_counter() - t0
    vector = None
    if models.embedder is not None:
        t0 = time.perf_counter()
        vector = np.asarray(models.embedder.run(small), dtype=np.float32)
        timings["embed_image"] = time.perf_counter() - t0
    return Analysis(regions, labels, vector, timings)


def _scaled(region: Region, factor: float) -> Region:
    if factor == 1:
        return region
    region.box = as_box(v * factor for v in region.box)
    return region
