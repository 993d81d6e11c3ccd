"""Text regions and their strings (PP-OCRv4 through rapidocr-onnxruntime).

RapidOCR is pointed at the model files the model manager installed and checked, never at the
copies inside its own wheel, so `trove models verify` covers OCR like every other role.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.models import ModelManager
from engine.runtimes.vision.common import as_bgr, clamp_threads
from engine.runtimes.vision.regions import TEXT, Region


class Ocr:
    """Lines of text in a BGR photo as `Region`s (kind and label "text"), top to bottom."""

    role = "ocr"

    def __init__(self, det_path: Path, rec_path: Path, cls_path: Path, threads: int = 1,
                 min_score: float = 0.5, det_min_side: int = 480, max_side: int = 1600) -> None:
        """Text detection runs on the photo scaled so its shorter side is at least `det_min_side` and
        its longer side at most `max_side`. RapidOCR's own 736 upscales small images ~3x: a 900x260
        banner took 2 s instead of 0.6 s on 2 cores, and read no better."""
        from rapidocr_onnxruntime import RapidOCR

        n = clamp_threads(threads)
        self.engine = RapidOCR(det_model_path=str(det_path), rec_model_path=str(rec_path),
                               cls_model_path=str(cls_path), intra_op_num_threads=n, inter_op_num_threads=1,
                               text_score=min_score, print_verbose=False, max_side_len=max_side,
                               det_limit_type="min", det_limit_side_len=det_min_side)
        self.min_score = min_score

    @classmethod
    def from_manager(cls, manager: ModelManager, model: str = "ocr", threads: int = 1, **thresholds: float) -> Ocr:
        paths = manager.paths(model)

        def pick(part: str) -> Path:
            return next(p for name, p in paths.items() if f"_{part}_" in name and name.endswith(".onnx"))

        return cls(pick("det"), pick("rec"), pick("cls"), threads=threads, **thresholds)

    def read(self, image: np.ndarray) -> list[Region]:
        """Each recognised line: box = bounds of its quadrilateral, `extra["quad"]` = its 4 corners."""
        result, _ = self.engine(as_bgr(image))
        regions = []
        for quad, text, score in result or []:
            points = np.asarray(quad, dtype=np.float32).reshape(-1, 2)
            x1, y1 = points.min(axis=0)
            x2, y2 = points.max(axis=0)
            regions.append(Region(TEXT, "text", (float(x1), float(y1), float(x2), float(y2)), float(score),
                                  text=str(text).strip(),
                                  extra={"quad": [[round(float(x), 1), round(float(y), 1)] for x, y in points]}))
        return [r for r in regions if r.text]

    run = read  # the name every vision runtime answers to
