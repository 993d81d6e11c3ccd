"""The ensemble: the trained router decides when it is confident (its top probability clears
`confident`), the LLM router otherwise, choosing among the trained router's `shortlist` likeliest
labels (a small LLM alone misreads benchmark-style questions; between a few plausible kinds it
judges well). Milliseconds for most questions, the LLM for the doubtful. Without a usable LLM
(missing, or failing to load) the trained router's own decision stands: routing never stops an answer."""

from __future__ import annotations

from collections.abc import Callable

from engine.errors import ModelError
from engine.routing.base import Route
from engine.routing.decision import decide
from engine.routing.llm_router import LLMRouter
from engine.routing.trained import TrainedRouter


class EnsembleRouter:
    name = "ensemble"

    def __init__(self, embedder: Callable[[], object] | None = None, llm: Callable[[], object] | None = None,
                 confident: float = 0.5, threshold: float = 0.8, shortlist: int = 3, **_: object) -> None:
        self.trained = TrainedRouter(embedder=embedder, threshold=threshold)
        self.llm = LLMRouter(llm=llm)
        self.confident = confident
        self.shortlist = shortlist

    def route(self, question: str, available: set[str]) -> list[Route]:
        probabilities = self.trained.probabilities(question)
        usable = {label: p for label, p in probabilities.items() if label in available or label == "none"}
        if not usable or max(usable.values()) < self.confident:
            likeliest = sorted(usable, key=lambda label: -usable[label])[: self.shortlist] if self.shortlist \
                else available
            try:
                return self.llm.route(question, set(likeliest))
            except ModelError:
                pass  # no usable LLM: the trained router's decision stands
        return decide(probabilities, available, self.trained.threshold, self.trained.name)
