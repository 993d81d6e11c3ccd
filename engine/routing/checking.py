"""The router's routes checked against what the files hold: a router reads only the words of a
question; the index knows which corpora and sources exist and which of them is nearest."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from engine.corpora import PARAGRAPH
from engine.native import values
from engine.retrieval.hybrid import HybridRetriever
from engine.routing.base import Decision, Route, Router, RouteRequest
from engine.routing.labels import LABELS, NATIVE
from engine.routing.llm_router import LLMRouter
from engine.routing.nearness import by_evidence, named_kind, named_label

if TYPE_CHECKING:
    from engine.models.loaded import Models
    from engine.native.querier import NativeQuerier
    from engine.settings import Settings
    from local_stores.catalog import Catalog
    from local_stores.corpus_store import CorpusStore

OWN_LABELS = ("paragraph", "image", "clip", "video")  # searched for a first-person question routed to `none`
MAX_HOLDERS = 2  # a name held by more sources than this is common (a country, a city), not a sign
FIRST_PERSON = re.compile(r"\b(?:my|mine|me|i|i'm|i've|i'd|our|ours|we)\b", re.IGNORECASE)


def _unsure(routes: list[Route]) -> bool:
    """Routes the trained router left to the LLM router (it was not sure of any)."""
    return all(route.router == LLMRouter.name for route in routes)


class CheckedRouter:
    def __init__(self, router: Router, store: CorpusStore, catalog: Catalog, native: NativeQuerier,
                 models: Models, settings: Settings) -> None:
        self.router, self.store, self.catalog, self.native = router, store, catalog, native
        self.models, self.settings = models, settings

    def available(self) -> frozenset[str]:
        """The route labels something is indexed for."""
        corpora = self.store.corpora()
        kinds = {src["kind"] for src in self.catalog.sources()}
        labels = {label for label, corpus in LABELS.items() if corpus and corpus in corpora}
        return frozenset(labels | {label for label, source_kinds in NATIVE.items() if kinds & set(source_kinds)})

    def route(self, question: str, vector: np.ndarray | None = None,
              allowed: frozenset[str] | None = None) -> list[Route]:
        """The routes of `question` (whose text embedding is `vector`, computed here when not given),
        among the labels `allowed` (a scope's; None: all)."""
        available = self.available() if allowed is None else self.available() & allowed
        if not available:  # nothing indexed: no router (nor its LLM) has anything to choose from
            return [Route("none", 1.0, Decision.EMPTY_INDEX)]
        vector = self.models.embedder.embed_one(question) if vector is None else vector
        nearness = {label: s for label, s in self.native.nearness(vector).items() if label in available}
        request = RouteRequest(question, available, vector, nearness)
        routes = self.router.route(request)
        if {route.label for route in routes} == {"none"}:
            own = self._own_things(request) if FIRST_PERSON.search(question) else None
            if allowed is not None:  # asked of chosen files: about what they hold, however far it reads
                own = own or self._own_things(request, level=-1.0)
            return own or self._holding(request) or routes
        if _unsure(routes) and not {route.label for route in routes} & set(NATIVE) and (held := self._holding(request)):
            routes = held + routes  # the LLM router's guess ("a clip") beside the sources that hold the name asked
        elif structured := {route.label for route in routes} & set(NATIVE):
            routes = self._reachable(request, self._held_elsewhere(request, routes, structured))
        return self._settled(request, routes)

    def _reachable(self, request: RouteRequest, routes: list[Route]) -> list[Route]:
        """Structured routes none of whose kind's sources is near enough to be queried, replaced by the
        structured kind that has one: the router chose structured data, and only the sources can tell
        which kind of file holds it ("How many hospitals have at least 10 operating rooms?" read as
        RDF, where no graph is about hospitals and a table has their operating rooms)."""
        if any(route.router == Decision.HELD for route in routes):
            return routes  # the sources that hold a name the question writes: stronger evidence than nearness
        level = self.settings.source_min_similarity
        scores = {label: score for label, score in self.native.reachable(request.question, request.vector).items()
                  if label in request.available}
        if any(scores.get(route.label, -1.0) >= level for route in routes if route.label in NATIVE):
            return routes
        best = max(scores, key=scores.__getitem__, default=None)
        if best is None or scores[best] < level:
            return routes
        return [route for route in routes if route.label not in NATIVE] + [
            Route(best, round(scores[best], 3), Decision.SOURCES)]

    def _held_elsewhere(self, request: RouteRequest, routes: list[Route], structured: set[str]) -> list[Route]:
        """Structured routes whose kind holds none of the names the question writes that one or two
        sources hold, replaced by the routes of those sources ("Who wrote the cartoons Michael Chang
        directed?" read as the movies graph; Michael Chang is in the TV show database and graph)."""
        held = self._holding(request) or self._holding_what_is_asked(request)
        if held is None or {route.label for route in held} & structured:
            return routes
        return [route for route in routes if route.label not in structured] + held

    def _holding_what_is_asked(self, request: RouteRequest) -> list[Route] | None:
        """The routes of the sources that hold a name the question writes (one word will do) and have
        a field it names: "Who is the mayor of Ashdod?" read as RDF, where a world graph holds the city
        and a table of Israeli cities holds it with its mayor."""
        holders = values.held_by(values.inner_names(request.question), self.native.value_index())
        fielded = self.native.source_index().field_evidence(request.question)
        asked = {source for sources in holders.values() for source in sources if fielded.get(source, 0.0) > 0}
        return self._routes_of(asked, request)

    def _holding(self, request: RouteRequest) -> list[Route] | None:
        """A question routed to general knowledge, or left to the LLM router's guess, that writes a
        name only one or two sources hold ("Who wrote A Few Good Men?", a title in the movies graph):
        the routes of those sources. A name many sources hold ("United States") is no sign the
        question is about one of them."""
        holders = values.held_by(values.names(request.question), self.native.value_index())
        distinctive = {source for sources in holders.values() if len(sources) <= MAX_HOLDERS for source in sources}
        return self._routes_of(distinctive, request)

    def _routes_of(self, sources: set[str], request: RouteRequest) -> list[Route] | None:
        """The structured routes (among those available) of the named sources; None when there are none."""
        kinds = {src["name"]: src["kind"] for src in self.catalog.sources()}
        labels = [label for label, source_kinds in NATIVE.items() if label in request.available
                  and any(kinds.get(source) in source_kinds for source in sources)]
        return [Route(label, 1.0, Decision.HELD) for label in labels] or None

    def _retriever(self) -> HybridRetriever:
        return HybridRetriever(self.store, self.models.embedder)

    def _settled(self, request: RouteRequest, routes: list[Route]) -> list[Route]:
        """Text vs structured by which fits the question better (`routing.nearness.by_evidence`),
        then the kind of file the question names."""
        question, available = request.question, request.available
        if "paragraph" in available and {route.label for route in routes} & ({*NATIVE, "paragraph", "document"}):
            passages = self._retriever().search(question, PARAGRAPH, 1, vector=request.vector)
            routes = by_evidence(routes, request.nearness, passages[0].relevance if passages else 0.0,
                                                 self.settings.route_evidence_margin)
        return named_kind(routes, question, available)

    def _own_things(self, request: RouteRequest, level: float | None = None) -> list[Route] | None:
        """A question about the user's own things ("my", "I") is not general knowledge when some
        corpus or source holds an item near it (at least `level` similar; `min_relevance` when not
        given): the route of the nearest one, or of the near one of the kind of file the question
        names ("in my periodic table of elements": a table)."""
        question, available, retriever = request.question, request.available, self._retriever()
        near = [(hits[0].relevance, label) for label in OWN_LABELS if label in available and (corpus := LABELS[label])
                and (hits := retriever.search(question, corpus, 1, vector=request.vector))]
        near += [(similarity, label) for label, similarity in request.nearness.items()]
        level = self.settings.min_relevance if level is None else level
        near = [(similarity, label) for similarity, label in near if similarity >= level]
        if not near:
            return None
        similarity, label = max(near)
        if (named := named_label(question, {label for _, label in near})) is not None:  # "my periodic table"
            similarity, label = max((s, x) for s, x in near if x == named)
        return [Route(label, round(similarity, 3), Decision.FIRST_PERSON)]
