"""Hybrid search over the text corpora.

Paragraphs: BM25 and dense rankings fused by reciprocal rank fusion.
Documents: the document's own BM25 and dense rankings fused with its best paragraphs' rankings
(a long document is found by the one paragraph that matches, not only by its average).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.ingest.documents import DOCUMENT, PARAGRAPH
from engine.retrieval.fusion import ranked, rrf
from local_stores.vector_store import Item, VectorStore


@dataclass
class Hit:
    item: Item
    score: float  # fused score (higher is better; comparable within one result list)
    signals: dict[str, float] = field(default_factory=dict)  # bm25, dense, best paragraph cosine, ...

    @property
    def relevance(self) -> float:
        """The best dense cosine seen for this hit: a score comparable across questions."""
        return max(self.signals.get("dense", 0.0), self.signals.get("paragraph_dense", 0.0))


class HybridRetriever:
    def __init__(self, store: VectorStore, embedder, pool: int = 100, rrf_k: int = 60) -> None:  # noqa: ANN001
        self.store, self.embedder, self.pool, self.rrf_k = store, embedder, pool, rrf_k

    def search(self, query: str, corpus: str = PARAGRAPH, k: int = 10, vector: np.ndarray | None = None,
               mode: str = "hybrid") -> list[Hit]:
        """Top `k` items of `corpus`; `mode` is hybrid, bm25 or dense (the last two for benchmarks)."""
        vector = self.embedder.embed_one(query) if vector is None and mode != "bm25" else vector
        if corpus == DOCUMENT:
            return self._documents(query, vector, k, mode)
        return self._fuse(corpus, query, vector, k, mode)

    def _lists(self, corpus: str, query: str, vector: np.ndarray | None, mode: str):  # noqa: ANN202
        sparse = self.store.bm25(corpus, query, self.pool) if mode != "dense" else []
        dense = self.store.dense(corpus, vector, self.pool) if mode != "bm25" else []
        return sparse, dense

    def _fuse(self, corpus: str, query: str, vector: np.ndarray | None, k: int, mode: str) -> list[Hit]:
        sparse, dense = self._lists(corpus, query, vector, mode)
        scores = rrf([[i for i, _ in sparse], [i for i, _ in dense]], self.rrf_k)
        top = ranked(scores)[:k]
        items = self.store.items(top)
        bm25_of, dense_of = dict(sparse), dict(dense)
        return [Hit(items[i], scores[i], _signals(bm25=bm25_of.get(i), dense=dense_of.get(i))) for i in top]

    def _documents(self, query: str, vector: np.ndarray | None, k: int, mode: str) -> list[Hit]:
        doc_sparse, doc_dense = self._lists(DOCUMENT, query, vector, mode)
        par_sparse, par_dense = self._lists(PARAGRAPH, query, vector, mode)
        par_ids = list(dict.fromkeys([i for i, _ in par_sparse] + [i for i, _ in par_dense]))
        par_items = self.store.items(par_ids)
        # a paragraph stands for the document segment (same file, inside its character span)
        doc_of_par = self._segments_for(par_items)
        best_par_rank_sparse = _doc_ranking([(doc_of_par.get(i), s) for i, s in par_sparse])
        best_par_rank_dense = _doc_ranking([(doc_of_par.get(i), s) for i, s in par_dense])
        lists = [[i for i, _ in doc_sparse], [i for i, _ in doc_dense], best_par_rank_sparse, best_par_rank_dense]
        scores = rrf(lists, self.rrf_k)
        top = ranked(scores)[:k]
        items = self.store.items(top)
        bm25_of, dense_of = dict(doc_sparse), dict(doc_dense)
        par_dense_best: dict[int, float] = {}
        for i, s in par_dense:
            d = doc_of_par.get(i)
            if d is not None:
                par_dense_best[d] = max(par_dense_best.get(d, -1.0), s)
        return [Hit(items[i], scores[i], _signals(bm25=bm25_of.get(i), dense=dense_of.get(i),
                                                  paragraph_dense=par_dense_best.get(i)))
                for i in top if i in items]

    def _segments_for(self, par_items: dict[int, Item]) -> dict[int, int]:
        """paragraph item id -> id of the document item that contains it."""
        file_ids = {it.file_id for it in par_items.values()}
        segments: dict[int, list[Item]] = {}
        for fid in file_ids:
            segments[fid] = self.store.file_items(fid, DOCUMENT)
        out = {}
        for pid, it in par_items.items():
            for seg in segments.get(it.file_id, []):
                if seg.locator["start"] <= it.locator["start"] and it.locator["end"] <= seg.locator["end"]:
                    out[pid] = seg.id
                    break
        return out


def _doc_ranking(pairs: list[tuple[int | None, float]]) -> list[int]:
    """Documents in the order of their best paragraph (pairs are already best-first)."""
    return list(dict.fromkeys(d for d, _ in pairs if d is not None))


def _signals(**values: float | None) -> dict[str, float]:
    return {k: float(v) for k, v in values.items() if v is not None}
