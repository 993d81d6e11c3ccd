"""The router contract."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class Route:
    label: str
    confidence: float
    router: str = ""  # which router decided

    def as_dict(self) -> dict:
        out = {"label": self.label, "confidence": round(self.confidence, 3)}
        if self.router:
            out["router"] = self.router
        return out


class Router(Protocol):
    name: str

    def route(self, question: str, available: set[str]) -> list[Route]:
        """Labels (best first) with confidences, limited to the labels in `available`."""
        ...


class QuestionEmbedder(Protocol):
    """What routing needs of the text embedder (engine.runtimes.text_embedder.TextEmbedder)."""

    def embed_one(self, text: str) -> np.ndarray: ...
