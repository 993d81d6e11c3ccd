"""Few-shot examples chosen per question: the pool's examples whose questions are nearest to the
user's in form (by the text embedder, on question skeletons with names, numbers and quoted values
masked, as DAIL-SQL does), so a count question is shown counts and a "which … most" question is
shown a GROUP BY … ORDER BY … LIMIT, whatever the topic."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from engine.runtimes.embedders import TextEmbedderLike


@dataclass(frozen=True)
class Example:
    schema: str
    question: str
    query: str
    engines: tuple[str, ...] = ()  # engines whose dialect the query is written in; empty = all


_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|‘[^’]*’|“[^”]*”")
_NUMBER = re.compile(r"\b\d[\d.,:/-]*\b")
_NAME = re.compile(r"(?<=[\w,;:] )(?:[A-Z][\w'’.-]+)(?: (?:[A-Z][\w'’.-]*|van|de|der|von|da|di|le|la))*")


def skeleton(question: str) -> str:
    """The question's form: quoted values, numbers and names (capitalised words inside the
    sentence) replaced by placeholders."""
    text = _QUOTED.sub("value", question)
    text = _NUMBER.sub("number", text)
    return _NAME.sub("name", text)


class ExamplePicker:
    """Embeds each pool's skeletons once; picks the k examples nearest to a question's skeleton."""

    def __init__(self, embedder: TextEmbedderLike) -> None:
        self.embedder = embedder
        self._vectors: dict[int, np.ndarray] = {}

    def pick(self, pool: list[Example], question: str, k: int, engine: str = "") -> list[Example]:
        usable = [e for e in pool if not e.engines or engine in e.engines]
        if len(usable) <= k:
            return usable
        key = id(pool) ^ hash(engine)
        if key not in self._vectors:
            self._vectors[key] = self.embedder.embed([skeleton(e.question) for e in usable])
        sims = self._vectors[key] @ self.embedder.embed_one(skeleton(question))
        order = np.argsort(-sims)[:k][::-1]  # the nearest last: small models follow the latest example most
        return [usable[i] for i in order]
