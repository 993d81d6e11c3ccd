"""The ensemble: the trained router decides when it is confident (its top probability clears
`confident`), the LLM router otherwise, naming one kind among the trained router's `shortlist`
likeliest labels (a small LLM alone misreads benchmark-style questions, and asked for "one, a second
only when needed" it adds a second kind to most of them; the trained router's passing labels and the
sources give the second routes). Milliseconds for most questions, the LLM for the doubtful. Without a usable LLM
(missing, or failing to load) the trained router's own decision stands: routing never stops an answer.

With `nearness` (the similarity of each structured label's nearest source, `engine.routing.sources`)
the user's own sources are evidence too: they settle a doubt between structured kinds before the LLM
is asked, and a source near enough the question adds or corrects its label."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from engine.errors import ModelError
from engine.routing.base import QuestionEmbedder, Route
from engine.routing.decision import decide
from engine.routing.llm_router import LLMRouter
from engine.routing.sources import settle_structured, with_sources
from engine.routing.trained import TrainedRouter

if TYPE_CHECKING:
    from engine.runtimes.llm import JsonChatModel


class EnsembleRouter:
    name = "ensemble"

    def __init__(self, embedder: Callable[[], QuestionEmbedder] | None = None,
                 llm: Callable[[], JsonChatModel] | None = None,
                 confident: float = 0.5, threshold: float = 0.8, shortlist: int = 3,
                 nearness: Callable[[np.ndarray], dict[str, float]] | None = None, source_level: float = 0.5,
                 source_margin: float = 0.1, **_: object) -> None:
        self.trained = TrainedRouter(embedder=embedder, threshold=threshold)
        self.llm = LLMRouter(llm=llm)
        self.confident = confident
        self.shortlist = shortlist
        self.nearness = nearness
        self.source_level = source_level
        self.source_margin = source_margin

    def route(self, question: str, available: set[str]) -> list[Route]:
        vector = self.trained.embed(question)
        usable = {label: p for label, p in self.trained.probabilities(question, vector).items()
                  if label in available or label == "none"}
        near = {label: s for label, s in self.nearness(vector).items() if label in available} if self.nearness else {}
        routes = None
        if usable and max(usable.values()) < self.confident:
            usable = settle_structured(usable, near, self.shortlist)
        if not usable or max(usable.values()) < self.confident:
            likeliest = sorted(usable, key=lambda label: -usable[label])[: self.shortlist] if self.shortlist \
                else available
            with contextlib.suppress(ModelError):  # no usable LLM: the trained router's decision stands
                routes = self.llm.route(question, set(likeliest), most=1)
        if routes is None:
            routes = decide({label: min(p, 1.0) for label, p in usable.items()}, available, self.trained.threshold,
                            self.trained.name)
        return with_sources(routes, near, self.source_level, self.source_margin)
