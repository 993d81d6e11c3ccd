"""The trained router: the question's text embedding through a small int8 ONNX classifier
(`models/router/`, trained by `engine.routing.training.train`), then UniversalRAG's decision rules.
Milliseconds per question: the embedding is the one retrieval computes anyway."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from engine.errors import ModelError
from engine.routing.base import Route, RouteRequest
from engine.routing.decision import decide

if TYPE_CHECKING:
    from onnxruntime import InferenceSession

    from engine.models.loaded import Models
    from engine.settings import Settings

ROUTER_DIR = Path(__file__).resolve().parents[2] / "models" / "router"


class TrainedRouter:
    name = "trained"

    def __init__(self, model_dir: Path = ROUTER_DIR, threshold: float = 0.8) -> None:
        self.model_dir = Path(model_dir)
        self.threshold = threshold
        self._session: InferenceSession | None = None
        self.labels: list[str] = []

    def _load(self) -> InferenceSession:
        import onnxruntime as ort

        model, meta = self.model_dir / "router.int8.onnx", self.model_dir / "router.json"
        if not model.exists() or not meta.exists():
            raise ModelError("router", str(model), "not found",
                             "train it: .venv/bin/python -m engine.routing.training.train")
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        self._session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        self.labels = json.loads(meta.read_text())["labels"]
        return self._session

    @classmethod
    def build(cls, models: Models, settings: Settings) -> TrainedRouter:  # noqa: ARG003 (reads the vector)
        return cls(threshold=settings.router_threshold)

    def probabilities(self, vector: np.ndarray) -> dict[str, float]:
        """Per label, the classifier's probability for the question with this text embedding."""
        session = self._session if self._session is not None else self._load()
        out = session.run(None, {"embedding": np.asarray(vector, dtype=np.float32).reshape(1, -1)})[0][0]
        return {label: float(p) for label, p in zip(self.labels, out, strict=True)}

    def route(self, request: RouteRequest) -> list[Route]:
        return decide(self.probabilities(request.vector), request.available, self.threshold, self.name)
