"""Rank fusion: turning several ranked lists into one."""

from __future__ import annotations

from collections.abc import Sequence


def rrf(rankings: Sequence[Sequence[int]], k: int = 60, weights: Sequence[float] | None = None) -> dict[int, float]:
    """Reciprocal rank fusion: sum over lists of weight / (k + rank), rank starting at 1."""
    weights = weights or [1.0] * len(rankings)
    scores: dict[int, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
    return scores


def ranked(scores: dict[int, float]) -> list[int]:
    return sorted(scores, key=lambda key: -scores[key])
