"""Hybrid search over the text corpora.

Scores are fused, not ranks: `bm25_weight * BM25 / max(BM25) + (1 - bm25_weight) * dense`, where
dense is the cosine with the question. For documents, dense blends the document's own vector
(its opening) with its best paragraph (a long document is found by the one paragraph that
matches), and a second pass expands the question vector with the first pass's top documents
(pseudo-relevance feedback, Rocchio). bench/retrieval.py measures each step against BM25 and
plain reciprocal-rank fusion on Cranfield and CISI.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from engine.corpora import DOCUMENT, PARAGRAPH
from local_stores.corpus_store import CorpusStore, Item

if TYPE_CHECKING:
    from engine.runtimes.embedders import TextEmbedderLike


@dataclass
class Hit:
    item: Item
    score: float  # fused score (higher is better; comparable within one result list)
    signals: dict[str, float] = field(default_factory=dict)  # bm25, dense, paragraph_dense, named
    # relevant by what it is, not by a similarity: an engine's result for the question, the photo
    # asked with, what the turn before cited
    given: bool = False

    @property
    def relevance(self) -> float:
        """The best dense cosine seen for this hit (a score comparable across questions), or its
        file's for a passage found by a name the question gives (engine.retrieval.named); 1 for a
        hit given, not found."""
        return 1.0 if self.given else max(self.signals.get(s, 0.0) for s in ("dense", "paragraph_dense", "named"))


@dataclass(frozen=True)
class SearchConfig:
    bm25_weight: float = 0.3
    whole_weight: float = 0.5  # documents: own vector vs best paragraph
    pool: int = 200  # candidates taken from each index before fusion
    paragraph_pool: int = 400
    feedback_docs: int = 3  # pseudo-relevance feedback (documents only); 0 turns it off
    feedback_weight: float = 0.5


class HybridRetriever:
    """Searches every file's items, or only those of `files` (a scope: filtered inside the FTS5 and
    vector queries, so `k` results still come back), and of those the items `admits` lets through
    (a time span's messages: judged on the whole ranked pool, before it is cut to `k`)."""

    def __init__(self, store: CorpusStore, embedder: TextEmbedderLike, config: SearchConfig | None = None,
                 files: Collection[int] | None = None, admits: Callable[[Item], bool] | None = None) -> None:
        self.store, self.embedder = store, embedder
        self.config = config or SearchConfig()
        self.files, self.admits = files, admits

    def search(self, query: str, corpus: str = PARAGRAPH, k: int = 10, vector: np.ndarray | None = None,
               mode: str = "hybrid") -> list[Hit]:
        """Top `k` items of `corpus`; `mode` is hybrid, bm25 or dense (the last two for benchmarks)."""
        if mode not in ("hybrid", "bm25", "dense"):
            raise ValueError(f"unknown search mode {mode!r}")
        if vector is None and mode != "bm25":
            vector = self.embedder.embed_one(query)
        if corpus == DOCUMENT:
            return self._documents(query, vector, k, mode)
        return self._items(corpus, query, vector, k, mode)

    # -- paragraphs (and any single-vector corpus) ----------------------------------------------
    def _items(self, corpus: str, query: str, vector: np.ndarray | None, k: int, mode: str) -> list[Hit]:
        sparse = dict(self.store.bm25(corpus, query, self.config.pool, self.files)) if mode != "dense" else {}
        # search embeds the question for every mode but bm25
        dense = self._cosines(corpus, vector, self.config.pool, sparse) if vector is not None and mode != "bm25" else {}
        scores = self._fuse(sparse, dense, mode)
        return self._hits(scores, k, bm25=sparse, dense=dense)

    # -- documents -------------------------------------------------------------------------------
    def _documents(self, query: str, vector: np.ndarray | None, k: int, mode: str) -> list[Hit]:
        sparse = dict(self.store.bm25(DOCUMENT, query, self.config.pool, self.files)) if mode != "dense" else {}
        if mode == "bm25":
            return self._hits(self._fuse(sparse, {}, mode), k, bm25=sparse)
        assert vector is not None  # search embeds the question for every mode but bm25
        whole, best_par = self._document_cosines(vector, sparse)
        dense = self._blend(whole, best_par)
        scores = self._fuse(sparse, dense, mode)
        if self.config.feedback_docs and scores:
            top = sorted(scores, key=lambda i: -scores[i])[: self.config.feedback_docs]
            vecs = self.store.vectors(DOCUMENT, top)
            expanded = vector + self.config.feedback_weight * np.mean([vecs[i] for i in top if i in vecs], axis=0)
            expanded = (expanded / np.linalg.norm(expanded)).astype(np.float32)
            whole2, best_par2 = self._document_cosines(expanded, sparse)
            scores = self._fuse(sparse, self._blend(whole2, best_par2), mode)
        return self._hits(scores, k, bm25=sparse, dense=whole, paragraph_dense=best_par)

    def _document_cosines(self, vector: np.ndarray, sparse: dict[int, float]
                          ) -> tuple[dict[int, float], dict[int, float]]:
        """(document id -> cosine of its own vector, document id -> cosine of its best paragraph)."""
        par = dict(self.store.dense(PARAGRAPH, vector, self.config.paragraph_pool, self.files))
        doc_of_par = self._segments_for(self.store.positions(list(par)))
        best_par: dict[int, float] = {}
        for pid, cos in par.items():
            d = doc_of_par.get(pid)
            if d is not None and cos > best_par.get(d, -1.0):
                best_par[d] = cos
        whole = self._cosines(DOCUMENT, vector, self.config.pool, {**sparse, **best_par})
        return whole, best_par

    def _blend(self, whole: dict[int, float], best_par: dict[int, float]) -> dict[int, float]:
        w = self.config.whole_weight
        return {d: w * cos + (1 - w) * best_par.get(d, cos) for d, cos in whole.items()}

    # -- shared ------------------------------------------------------------------------------------
    def _cosines(self, corpus: str, vector: np.ndarray, pool: int, also: dict[int, float]) -> dict[int, float]:
        """Cosines of the `pool` nearest items, plus exact cosines for the other candidates in `also`."""
        found = dict(self.store.dense(corpus, vector, pool, self.files))
        missing = [i for i in also if i not in found]
        for item_id, vec in self.store.vectors(corpus, missing).items():
            found[item_id] = float(vec @ vector)
        return found

    def _fuse(self, sparse: dict[int, float], dense: dict[int, float], mode: str) -> dict[int, float]:
        a = {"bm25": 1.0, "dense": 0.0}.get(mode, self.config.bm25_weight)
        top_bm25 = max(sparse.values(), default=0.0) or 1.0
        keys = set(dense) | set(sparse) if mode != "dense" else set(dense)
        return {i: a * sparse.get(i, 0.0) / top_bm25 + (1 - a) * dense.get(i, 0.0) for i in keys}

    def _hits(self, scores: dict[int, float], k: int, **signals: dict[int, float]) -> list[Hit]:
        ranked = sorted(scores, key=lambda i: -scores[i])
        items = self.store.items(ranked if self.admits is not None else ranked[:k])
        top = [i for i in ranked if i in items and (self.admits is None or self.admits(items[i]))][:k]
        return [Hit(items[i], scores[i], {name: float(s[i]) for name, s in signals.items() if i in s}) for i in top]

    def _segments_for(self, positions: dict[int, tuple[int, int, int]]) -> dict[int, int]:
        """paragraph item id -> id of the document item (segment) that contains it."""
        spans = self.store.spans(DOCUMENT, sorted({file_id for file_id, _, _ in positions.values()}))
        out = {}
        for pid, (file_id, p_start, p_end) in positions.items():
            for seg_id, start, end in spans.get(file_id, []):
                if start <= p_start and p_end <= end:
                    out[pid] = seg_id
                    break
        return out
