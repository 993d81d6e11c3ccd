"""The ensemble: the trained router decides when it is confident (its top probability clears
`confident`), the LLM router otherwise, naming one kind among the trained router's `shortlist`
likeliest labels (a small LLM alone misreads benchmark-style questions, and asked for "one, a second
only when needed" it adds a second kind to most of them; the trained router's passing labels and the
sources give the second routes). Milliseconds for most questions, the LLM for the doubtful. Without a usable LLM
(missing, or failing to load) the trained router's own decision stands: routing never stops an answer.

With `nearness` (the similarity of each structured label's nearest source, `engine.routing.nearness`)
the user's own sources are evidence too: they settle a doubt between structured kinds before the LLM
is asked, and a source near enough the question adds or corrects its label."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import TYPE_CHECKING

from engine.errors import ModelError
from engine.routing.base import Route, RouteRequest
from engine.routing.decision import decide
from engine.routing.llm_router import LLMRouter
from engine.routing.nearness import settle_structured, with_sources
from engine.routing.trained import TrainedRouter

if TYPE_CHECKING:
    from engine.models.loaded import Models
    from engine.settings import Settings


class EnsembleRouter:
    name = "ensemble"

    def __init__(self, trained: TrainedRouter, llm: LLMRouter, confident: float = 0.5, shortlist: int = 3,
                 source_level: float = 0.5, source_margin: float = 0.1, source_switch: float = 0.4) -> None:
        self.trained, self.llm = trained, llm
        self.confident = confident
        self.shortlist = shortlist
        self.source_level = source_level
        self.source_margin = source_margin
        self.source_switch = source_switch

    @classmethod
    def build(cls, models: Models, settings: Settings) -> EnsembleRouter:
        return cls(TrainedRouter.build(models, settings), LLMRouter.build(models, settings), settings.router_confident,
                   source_level=settings.router_source_level, source_margin=settings.router_source_margin,
                   source_switch=settings.router_source_switch)

    def route(self, request: RouteRequest) -> list[Route]:
        available = request.available
        usable = {label: p for label, p in self.trained.probabilities(request.vector).items()
                  if label in available or label == "none"}
        near = {label: s for label, s in request.nearness.items() if label in available}
        routes = None
        if usable and max(usable.values()) < self.confident:
            usable = settle_structured(usable, near, self.shortlist)
        if not usable or max(usable.values()) < self.confident:
            likeliest = sorted(usable, key=lambda label: -usable[label])[: self.shortlist] if self.shortlist \
                else available
            with contextlib.suppress(ModelError):  # no usable LLM: the trained router's decision stands
                routes = self.llm.route(replace(request, available=frozenset(likeliest)), most=1)
        if routes is None:
            routes = decide({label: min(p, 1.0) for label, p in usable.items()}, available, self.trained.threshold,
                            self.trained.name)
        return with_sources(routes, near, self.source_level, self.source_margin, self.source_switch)
