"""The router contract."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np


class Decision(StrEnum):
    """What decided a route when it was not a router's own choice (`Route.router` is then the
    router's name). Its value is what `trove ask --json` shows as the route's `router`."""

    EMPTY_INDEX = "empty index"  # nothing is indexed: no router ran
    GIVEN = "given"  # the caller named the routes
    FALLBACK = "fallback"  # searched because the routes found nothing relevant
    FIRST_PERSON = "first person"  # a question about the user's own things, near an item of this route
    SOURCES = "sources"  # a structured source near the question
    EVIDENCE = "evidence"  # text or structured, by which fits the question better
    NAMED = "named"  # the question names the kind of file
    FOLLOW_UP = "follow-up"  # the route of the query a follow-up refines
    HELD = "held"  # the question writes a name only this route's sources hold


@dataclass(frozen=True)
class Route:
    label: str
    confidence: float
    router: str = ""  # the router's name, or a Decision

    def as_dict(self) -> dict:
        out = {"label": self.label, "confidence": round(self.confidence, 3)}
        if self.router:
            out["router"] = self.router
        return out


@dataclass(frozen=True)
class RouteRequest:
    """What a router reads of a question: its words, the labels something is indexed for, its text
    embedding (computed once per question, shared with retrieval) and, per structured label, how
    near its nearest source is (`engine.routing.nearness`; empty when not known)."""

    question: str
    available: frozenset[str]
    vector: np.ndarray
    nearness: dict[str, float] = field(default_factory=dict)


class Router(Protocol):
    name: str

    def route(self, request: RouteRequest) -> list[Route]:
        """Labels (best first) with confidences, limited to the labels in `request.available`."""
        ...
