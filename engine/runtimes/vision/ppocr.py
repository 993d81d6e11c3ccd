"""Text regions and their strings (PP-OCRv4 through rapidocr-onnxruntime).

RapidOCR is pointed at the model files the model manager installed and checked, never at the
copies inside its own wheel, so `trove models verify` covers OCR like every other role.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, Unpack

import numpy as np

from engine.errors import ModelError
from engine.models import ModelManager
from engine.runtimes.vision.common import as_bgr, clamp_threads, ort_session
from engine.runtimes.vision.ocr_spacing import Vocabulary, spaced, vocabulary
from engine.runtimes.vision.regions import TEXT, Region

if TYPE_CHECKING:
    from onnxruntime import InferenceSession


PROBE_SIDE = 320  # the shorter side of the first, small look for text, at least ...
PROBE_SHARE = 0.5  # ... and at least this share of the photo's (small text on a large photo stays visible)
PROBE_LEVEL = 0.1  # a pixel of the detector's text map above this is text (DB's own binarising level is 0.3)


class OcrThresholds(TypedDict, total=False):
    """What the OCR factory may be told besides its model and threads."""

    min_score: float
    det_min_side: int
    max_side: int
    probe_side: int | None


class Ocr:
    """Lines of text in a BGR photo as `Region`s (kind and label "text"), top to bottom."""

    role = "ocr"

    def __init__(self, det_path: Path, rec_path: Path, cls_path: Path, threads: int = 1,
                 min_score: float = 0.5, det_min_side: int = 480, max_side: int = 1600,
                 vocab: Vocabulary | None = None, probe_side: int | None = PROBE_SIDE) -> None:
        """Text detection runs on the photo scaled so its shorter side is at least `det_min_side` and
        its longer side at most `max_side`. RapidOCR's own 736 upscales small images ~3x: a 900x260
        banner took 2 s instead of 0.6 s on 2 cores, and read no better. Before it, the detector looks
        at the photo with its shorter side at `probe_side` (None: never), and a photo where it sees no
        text at all is not read further."""
        from rapidocr_onnxruntime import RapidOCR

        n = clamp_threads(threads)
        self.engine = RapidOCR(det_model_path=str(det_path), rec_model_path=str(rec_path),
                               cls_model_path=str(cls_path), intra_op_num_threads=n, inter_op_num_threads=1,
                               text_score=min_score, print_verbose=False, max_side_len=max_side,
                               det_limit_type="min", det_limit_side_len=det_min_side)
        sessions = _own_sessions(self.engine, {"text_det": det_path, "text_cls": cls_path, "text_rec": rec_path}, n)
        self.detector = sessions["text_det"]
        self.probe_side = probe_side
        self.min_score = min_score
        self.vocab = vocab or Vocabulary()  # known words and pieces, for the spaces of a line (see `spaced`)

    @classmethod
    def from_manager(cls, manager: ModelManager, model: str = "ocr", threads: int = 1,
                     **thresholds: Unpack[OcrThresholds]) -> Ocr:
        paths = manager.paths(model)

        def pick(part: str) -> Path:
            return next(p for name, p in paths.items() if f"_{part}_" in name and name.endswith(".onnx"))

        vocab = None
        if manager.is_installed("text-embedder"):
            tokenizer = manager.paths("text-embedder").get("tokenizer.json")
            vocab = vocabulary(tokenizer) if tokenizer else None
        return cls(pick("det"), pick("rec"), pick("cls"), threads=threads, vocab=vocab, **thresholds)

    def read(self, image: np.ndarray) -> list[Region]:
        """Each recognised line: box = bounds of its quadrilateral, `extra["quad"]` = its 4 corners."""
        image = as_bgr(image)
        if self.probe_side and not self.may_hold_text(image):
            return []
        result, _ = self.engine(image, return_word_box=True)
        regions = []
        for quad, text, score, *words in result or []:
            if len(words) >= 2:  # (character boxes, characters, their scores)
                text = spaced(text, words[0], words[1], self.vocab)
            text = unicodedata.normalize("NFKC", str(text))  # the model writes "（" for "(" in English text
            points = np.asarray(quad, dtype=np.float32).reshape(-1, 2)
            x1, y1 = points.min(axis=0)
            x2, y2 = points.max(axis=0)
            regions.append(Region(TEXT, "text", (float(x1), float(y1), float(x2), float(y2)), float(score),
                                  text=text.strip(),
                                  extra={"quad": [[round(float(x), 1), round(float(y), 1)] for x, y in points]}))
        return [r for r in regions if r.text]

    run = read  # the name every vision runtime answers to

    def may_hold_text(self, image: np.ndarray) -> bool:
        """Whether the text detector, shown a smaller copy of the photo, sees any pixel of text.

        Most photos hold none, and a look at half the size costs a quarter of a full one. On 239
        photos of ../shared/eval it ruled out 168, of which 9 held text the full look read: 10 words
        in all, mostly fragments of tiny text (bench/RESULTS.md §23)."""
        import cv2

        assert self.probe_side is not None
        height, width = image.shape[:2]
        scale = max(self.probe_side, min(height, width) * PROBE_SHARE) / min(height, width)
        size = (max(32, round(width * scale / 32) * 32), max(32, round(height * scale / 32) * 32))
        small = cv2.resize(image, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
        batch = ((small.astype(np.float32) / 255 - 0.5) / 0.5).transpose(2, 0, 1)[None]
        text_map = self.detector.run(None, {self.detector.get_inputs()[0].name: batch})[0]
        return bool((text_map > PROBE_LEVEL).any())


_SESSION_HOLDERS = {"text_det": "infer", "text_cls": "infer", "text_rec": "session"}  # RapidOCR 1.4's names


def _own_sessions(engine: object, models: dict[str, Path], threads: int) -> dict[str, InferenceSession]:
    """Give RapidOCR's three stages sessions made the way every Trove runtime makes them.

    RapidOCR 1.4 turns onnxruntime's memory arena off, so each run allocates its buffers anew: the
    detector took 128 ms a 640x480 photo on 2 cores, 78 ms with the arena (bench/RESULTS.md §23)."""
    sessions = {}
    for stage, path in models.items():
        holder = getattr(getattr(engine, stage, None), _SESSION_HOLDERS[stage], None)
        if holder is None or not hasattr(holder, "session"):
            raise ModelError("ocr", path.name, f"rapidocr_onnxruntime has no session for its {stage} stage",
                             "reinstall with `make setup` (Trove pins rapidocr-onnxruntime==1.4.4)")
        holder.session = sessions[stage] = ort_session(path, threads)
    return sessions
