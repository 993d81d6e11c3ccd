"""Picking the few structured sources that may answer a question: a cheap prefilter on descriptor
embeddings, then (when several remain) the LLM choosing from the short list, grammar-constrained."""

from __future__ import annotations

import numpy as np

from engine.native.sources import Source, summary_text

SELECT_PROMPT = """You choose which data sources can answer a question. Each source is a table, a \
database, a graph or an RDF file from the user's files. Reply with the names of the sources needed \
(usually one), best first."""


class SourceIndex:
    """Descriptor vectors, computed once per catalog state."""

    def __init__(self, embedder) -> None:  # noqa: ANN001
        self.embedder = embedder
        self._key: tuple = ()
        self._sources: list[Source] = []
        self._matrix = np.zeros((0, 0), dtype=np.float32)

    def refresh(self, sources: list[Source]) -> None:
        key = tuple((s.name, s.location, str(s.descriptor)) for s in sources)
        if key != self._key:
            self._sources = sources
            self._matrix = self.embedder.embed([summary_text(s) for s in sources]) if sources else self._matrix
            self._key = key

    def nearest(self, vector: np.ndarray, k: int, kinds: set[str] | None = None) -> list[tuple[Source, float]]:
        """The k sources (of `kinds`, when given) whose descriptors are nearest to the question."""
        if not self._sources:
            return []
        sims = self._matrix @ vector
        order = [i for i in np.argsort(-sims) if kinds is None or self._sources[i].kind in kinds][:k]
        return [(self._sources[i], float(sims[i])) for i in order]


def choose(llm, question: str, candidates: list[tuple[Source, float]], k: int) -> list[Source]:  # noqa: ANN001
    """The LLM's pick among the prefiltered candidates (kept in prefilter order when it picks none)."""
    if len(candidates) <= 1 or llm is None:
        return [s for s, _ in candidates[:k]]
    names = [s.name for s, _ in candidates]
    listing = "\n".join(f"- {s.name}: {summary_text(s)[:300]}" for s, _ in candidates)
    schema = {"type": "object", "properties": {"sources": {"type": "array", "items": {"type": "string", "enum": names},
                                                           "minItems": 1, "maxItems": k}},
              "required": ["sources"]}
    out = llm.chat_json([{"role": "system", "content": SELECT_PROMPT},
                         {"role": "user", "content": f"Sources:\n{listing}\n\nQuestion: {question}"}],
                        schema, max_tokens=60)
    picked = [n for n in dict.fromkeys(out.get("sources", [])) if n in names]
    by_name = {s.name: s for s, _ in candidates}
    return [by_name[n] for n in picked] or [s for s, _ in candidates[:1]]
