"""Few-shot examples chosen per question: the pool's examples whose questions are nearest in
meaning to the user's (by the text embedder), so a count question is shown counts and a
"which … most" question is shown a GROUP BY … ORDER BY … LIMIT."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Example:
    schema: str
    question: str
    query: str
    engines: tuple[str, ...] = ()  # engines whose dialect the query is written in; empty = all


class ExamplePicker:
    """Embeds each pool once; picks the k nearest examples for a question vector."""

    def __init__(self, embedder) -> None:  # noqa: ANN001
        self.embedder = embedder
        self._vectors: dict[int, np.ndarray] = {}

    def pick(self, pool: list[Example], vector: np.ndarray, k: int, engine: str = "") -> list[Example]:
        usable = [e for e in pool if not e.engines or engine in e.engines]
        if len(usable) <= k:
            return usable
        key = id(pool) ^ hash(engine)
        if key not in self._vectors:
            self._vectors[key] = self.embedder.embed([e.question for e in usable])
        sims = self._vectors[key] @ vector
        order = np.argsort(-sims)[:k][::-1]  # the nearest last: small models follow the latest example most
        return [usable[i] for i in order]
