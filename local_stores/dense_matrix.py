"""A corpus's vectors held in memory as one matrix: exact cosine search by one matrix-vector product.

sqlite-vec's own KNN reads every vector from the database on each query: 19.5 ms over 12,600
paragraphs against 5.4 ms for numpy over the same vectors (bench/RESULTS.md §23), and a search asks
for several. The matrix is read once and read again only when the database has changed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Version = tuple[int, int]  # (PRAGMA data_version, the connection's total_changes): any commit changes one


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
