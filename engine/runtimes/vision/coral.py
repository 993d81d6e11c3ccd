"""Coral's uint8 MobileNets (TFLite, run by ai-edge-litert): ImageNet labels and photo vectors.

cv2.dnn cannot read these quantised files. Both take RGB 224x224 uint8 (NHWC); outputs are
dequantised with the tensor's own scale and zero point.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from engine.models import ModelManager
from engine.runtimes.vision.common import as_bgr, clamp_threads, resize


class _Tflite:
    """One TFLite interpreter with a uint8 image input and one output."""

    def __init__(self, model_path: Path, threads: int = 1, central_fraction: float = 0.875) -> None:
        from ai_edge_litert.interpreter import Interpreter

        self.interpreter = Interpreter(model_path=str(model_path), num_threads=clamp_threads(threads))
        self.interpreter.allocate_tensors()
        self.input = self.interpreter.get_input_details()[0]
        self.output = self.interpreter.get_output_details()[0]
        _, self.height, self.width, _ = (int(v) for v in self.input["shape"])
        self.central_fraction = central_fraction

    def prepare(self, image: np.ndarray) -> np.ndarray:
        """The RGB uint8 network input for a BGR photo: centre crop, then resize."""
        image = as_bgr(image)
        h, w = image.shape[:2]
        ch, cw = max(1, round(h * self.central_fraction)), max(1, round(w * self.central_fraction))
        top, left = (h - ch) // 2, (w - cw) // 2
        crop = resize(image[top:top + ch, left:left + cw], (self.width, self.height))
        return cv2.cvtColor(crop, cv2.COLOR_BGR2RGB)[None]

    def run(self, image: np.ndarray) -> np.ndarray:
        """The dequantised float32 output vector for one photo."""
        self.interpreter.set_tensor(self.input["index"], self.prepare(image))
        self.interpreter.invoke()
        raw = self.interpreter.get_tensor(self.output["index"]).reshape(-1)
        scale, zero = self.output["quantization"]
        if not scale:
            return raw.astype(np.float32)
        return ((raw.astype(np.float32) - zero) * scale).astype(np.float32)


class Classifier:
    """ImageNet-1000 labels of a whole photo, with softmax scores (MobileNet v2)."""

    role = "classifier"

    def __init__(self, model_path: Path, labels_path: Path, threads: int = 1) -> None:
        self.net = _Tflite(model_path, threads)
        self.labels = [line.strip() for line in labels_path.read_text().splitlines() if line.strip()]

    @classmethod
    def from_manager(cls, manager: ModelManager, model: str = "classifier", threads: int = 1) -> Classifier:
        paths = manager.paths(model)
        tflite = next(p for name, p in paths.items() if name.endswith(".tflite"))
        labels = next(p for name, p in paths.items() if name.endswith(".txt"))
        return cls(tflite, labels, threads=threads)

    def classify(self, image: np.ndarray, top_k: int = 5, min_score: float = 0.05) -> list[tuple[str, float]]:
        """The `top_k` best (label, score) pairs scoring at least `min_score`, best first.

        A label is ImageNet's synonym line, e.g. "tabby, tabby cat": index every name, show the first."""
        scores = self.net.run(image)
        offset = len(scores) - len(self.labels)  # 1001 outputs and 1001 labels: index 0 is background
        out = []
        for i in np.argsort(-scores)[: top_k + 1]:
            label = self.labels[i - offset] if i >= offset else ""
            if label and label != "background" and scores[i] >= min_score:
                out.append((label, float(scores[i])))
        return out[:top_k]

    run = classify  # the name every vision runtime answers to


class ImageEmbedder:
    """1024-d L2-normalised photo vectors (MobileNet v1 features): photo-to-photo similarity only."""

    role = "image-embedder"

    def __init__(self, model_path: Path, threads: int = 1) -> None:
        # the whole photo, not its centre: a flipped+cropped copy then scores .92-.96 against the
        # original (unrelated photos .31-.60), a little higher than with the classifier's 87.5 % crop
        self.net = _Tflite(model_path, threads, central_fraction=1.0)
        self.dim = int(np.prod(self.net.output["shape"][1:]))

    @classmethod
    def from_manager(cls, manager: ModelManager, model: str = "image-embedder", threads: int = 1) -> ImageEmbedder:
        paths = manager.paths(model)
        return cls(next(p for name, p in paths.items() if name.endswith(".tflite")), threads=threads)

    def embed(self, image: np.ndarray) -> np.ndarray:
        """A (dim,) float32 unit vector; cosine similarity is a dot product."""
        vector = self.net.run(image)
        norm = float(np.linalg.norm(vector))
        return (vector / norm if norm > 0 else vector).astype(np.float32)

    run = embed  # the name every vision runtime answers to

    def embed_many(self, images: Sequence[np.ndarray]) -> np.ndarray:
        """An (n, dim) float32 array of unit vectors, in the order of `images`."""
        out = np.zeros((len(images), self.dim), dtype=np.float32)
        for row, image in enumerate(images):
            out[row] = self.embed(image)
        return out
