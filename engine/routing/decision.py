"""UniversalRAG's decision rules, turning per-label probabilities into routes."""

from __future__ import annotations

from collections.abc import Set

from engine.routing.base import Route

EXCLUSIVE = (("paragraph", "document"), ("clip", "video"))  # granularities of one corpus: keep the likelier


def decide(probabilities: dict[str, float], available: Set[str], threshold: float = 0.8,
           router: str = "") -> list[Route]:
    """Labels whose probability clears `threshold` (best first), among the corpora that exist:
    `none` dropped when another label passes; of paragraph/document and of clip/video only the
    likelier kept; the single most likely label when none passes. `none` is always available."""
    usable = {label: p for label, p in probabilities.items() if label in available or label == "none"}
    if not usable:
        return [Route("none", 1.0, router)]
    passing = {label: p for label, p in usable.items() if p >= threshold}
    if len(passing) > 1:
        passing.pop("none", None)
    for a, b in EXCLUSIVE:
        if a in passing and b in passing:
            passing.pop(b if passing[a] >= passing[b] else a)
    if not passing:
        top = max(usable, key=usable.__getitem__)
        passing = {top: usable[top]}
    return [Route(label, p, router) for label, p in sorted(passing.items(), key=lambda kv: -kv[1])]
