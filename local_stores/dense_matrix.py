"""A corpus's vectors held in memory as one matrix: exact cosine search by one matrix-vector product.

sqlite-vec's own KNN reads every vector from the database on each query: 19.5 ms over 12,600
paragraphs against 5.4 ms for numpy over the same vectors (bench/RESULTS.md §23), and a search asks
for several. The matrix is read once and read again only when the database has changed (each store
says how it tells: its `Version`). Both corpus stores hold their corpora's matrices this way."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

Version = tuple[int, int]  # changes whenever the store's database has: SQLite's data_version and total_changes
MATRIX_MB = 1024  # a corpus whose vectors take more is searched by the database's own index, not held in memory


@dataclass(frozen=True)
class DenseMatrix:
    """Unit vectors by item id (ids ascending), as of `version` of the database."""

    ids: np.ndarray  # int64, ascending
    matrix: np.ndarray  # (len(ids), dim) float32
    version: Version

    def nearest(self, vector: np.ndarray, k: int, among: np.ndarray | None = None) -> list[tuple[int, float]]:
        """(item id, cosine similarity) of the `k` nearest items (of those whose ids are `among`, when
        given), best first."""
        if not len(self.ids) or k <= 0:
            return []
        rows = np.flatnonzero(np.isin(self.ids, among)) if among is not None else np.arange(len(self.ids))
        if not len(rows):
            return []
        matrix = self.matrix[rows] if among is not None else self.matrix
        scores = matrix @ np.asarray(vector, dtype=np.float32)
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(self.ids[rows[i]]), float(scores[i])) for i in top]

    def rows(self, ids: Sequence[int]) -> dict[int, np.ndarray]:
        """The vectors of those of `ids` that are in the matrix."""
        if not len(self.ids):
            return {}
        wanted = np.asarray(list(ids), dtype=np.int64)
        at = np.minimum(np.searchsorted(self.ids, wanted), len(self.ids) - 1)
        return {int(i): self.matrix[row] for i, row in zip(wanted, at, strict=True) if self.ids[row] == i}


class HeldMatrices:
    """Each corpus's matrix, as of a version of its store's database."""

    def __init__(self) -> None:
        self._held: dict[str, DenseMatrix] = {}
        self._lock = threading.Lock()

    def __contains__(self, corpus: str) -> bool:
        return corpus in self._held

    def clear(self) -> None:
        self._held.clear()

    def get(self, corpus: str, version: Version, nbytes: Callable[[], int], limit_mb: float,
            load: Callable[[], tuple[np.ndarray, np.ndarray]]) -> DenseMatrix | None:
        """The matrix of `corpus` at `version`, read again (`load`) when it is not held at that
        version; None when its vectors (`nbytes`) would take over `limit_mb`."""
        with self._lock:
            held = self._held.get(corpus)
            if held is not None and held.version == version:
                return held
            self._held.pop(corpus, None)
            if nbytes() > limit_mb * 2**20:
                return None
            ids, matrix = load()
            held = self._held[corpus] = DenseMatrix(ids, matrix, version)
            return held
