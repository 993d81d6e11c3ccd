"""The router contract."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Route:
    label: str
    confidence: float

    def as_dict(self) -> dict:
        return {"label": self.label, "confidence": round(self.confidence, 3)}


class Router(Protocol):
    name: str

    def route(self, question: str, available: set[str]) -> list[Route]:
        """Labels (best first) with confidences, limited to the labels in `available`."""
        ...
