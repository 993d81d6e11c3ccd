"""Route requests for router tests: a question with the labels that exist, its embedding, its sources' nearness."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from engine.routing.base import RouteRequest


def request(question: str, available: Iterable[str], embedder: object = None,
            nearness: dict[str, float] | None = None) -> RouteRequest:
    """With `embedder`, the question's real text embedding (the trained router's input); else none."""
    vector = embedder.embed_one(question) if embedder is not None else np.zeros(0, np.float32)  # type: ignore[attr-defined]
    return RouteRequest(question, frozenset(available), vector, nearness or {})
