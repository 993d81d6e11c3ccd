"""Native queries for a question (OmniRetrieval): the structured sources nearest it, chosen by the
LLM, each queried in its own language on its own engine; results as cited hits.

The source index (descriptor embeddings) and the value index (the values each source holds) are
kept here, brought up to date with the catalog when they are read."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import numpy as np

from engine import connections
from engine.errors import TroveError
from engine.ingest import replica
from engine.native import selection, sources, values
from engine.native.examples import ExamplePicker
from engine.native.hits import as_hit, found_something
from engine.native.kinds import open_store
from engine.native.querying import write_and_run
from engine.native.sources import Source, Stores
from engine.native.writers import writer_for
from engine.result import QueryRun
from engine.retrieval.hybrid import Hit
from engine.routing.nearness import by_label
from local_stores.index_database import is_server
from local_stores.results import QueryResult
from local_stores.value_index import ValueIndex

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from engine.conversations.follow_up import PriorQuery
    from engine.models.loaded import Models
    from engine.settings import Settings
    from local_stores.catalog import Catalog
    from local_stores.index_database import IndexDatabase


class NativeQuerier:
    def __init__(self, catalog: Catalog, db: IndexDatabase, stores: Stores, models: Models, settings: Settings) -> None:
        self.catalog, self.db, self.stores, self.models, self.settings = catalog, db, stores, models, settings
        self._source_index: selection.SourceIndex | None = None
        self._value_index: ValueIndex | None = None
        self._values_state: tuple | None = None  # the catalog's sources_state the value index was refreshed at
        self._examples: ExamplePicker | None = None
        self._followed_state: tuple | None = None  # the catalog's sources_state this home's engines followed
        self._server_checks: dict[str, float] = {}  # when each connected server was last asked if it changed
        self._unbuilt: dict[str, str] = {}  # shared-index sources this home could not build its copy of, and why
        self._rows: list[dict] = []  # the catalog's sources as last read, at its sources_state _rows_state
        self._rows_state: tuple | None = None

    def sources(self) -> list[Source]:
        """The structured sources: connected servers whose shape changed are described again first
        (`server_check_s`), and on a shared index this home's engines are brought up to date."""
        rows = self._catalog_rows()
        if not self.db.read_only and connections.recheck(self.catalog, self._server_checks,
                                                         self.settings.server_check_s, rows):
            rows = self._catalog_rows()
        if is_server(self.settings.index_backend) and self._rows_state != self._followed_state:
            followed = replica.follow(self.catalog, self.stores, self.settings)
            self._unbuilt = dict(followed.failed)
            for name, why in followed.failed:
                log.warning("source %s cannot be asked from this home: %s", name, why)
            self._followed_state = self._rows_state
        return [s for s in sources.from_catalog(rows) if s.name not in self._unbuilt]

    def _catalog_rows(self) -> list[dict]:
        """The catalog's sources, read again only when they changed (else one small query: on a shared
        index each read is a round trip, and descriptors can be large)."""
        state = self.catalog.sources_state()
        if state != self._rows_state:
            self._rows, self._rows_state = self.catalog.sources(), state
        return self._rows

    def source_index(self) -> selection.SourceIndex:
        """The descriptor embeddings of the structured sources, brought up to date with the catalog."""
        if self._source_index is None:
            self._source_index = selection.SourceIndex(self.models.embedder)
        self._source_index.refresh(self.sources())
        return self._source_index

    def value_index(self) -> ValueIndex:
        """The text values each structured source holds, brought up to date with the catalog."""
        if self._value_index is None:
            self._value_index = ValueIndex(self.db)
        state = self.catalog.sources_state()
        if state != self._values_state and not self.db.read_only:  # a reading login uses the values kept
            values.refresh(self._value_index, self.sources(), self.stores)
            self._values_state = state
        return self._value_index

    def nearness(self, vector: np.ndarray) -> dict[str, float]:
        """Per structured route label, how near its nearest source is to the question (routing evidence)."""
        return by_label(self.source_index().nearest_per_kind(vector))

    def reachable(self, question: str, vector: np.ndarray) -> dict[str, float]:
        """Per structured route label, the score its best source is chosen by (`answer`'s: nearness
        raised by the values and fields the question names); below `source_min_similarity` the route
        has no source to query."""
        index = self.source_index()
        return by_label(index.nearest_per_kind(vector, selection.bonus(index, question, self.value_index(),
                                                                         self.settings)))

    def query(self, name: str, query: str) -> QueryResult:
        """One read-only query in source `name`'s own language, time- and row-limited."""
        found = [s for s in self.sources() if s.name == name]
        if not found:
            raise TroveError(f"no table, database, graph or RDF source named {name!r} (see trove status)")
        store = open_store(found[0], self.stores)
        return store.execute(store.explain(query), self.settings.query_timeout_s, self.settings.query_rows)

    def answer(self, question: str, vector: np.ndarray, kinds: set[str], prior: PriorQuery | None = None,
               among: frozenset[str] | None = None) -> tuple[list[tuple[str, Hit]], list[QueryRun]]:
        """Select the sources of `kinds` near the question (of the sources named `among`, a scope's, near
        or not: the user chose them), write, validate, repair and run a query on each; the results that
        found something as (citation kind, hit), and every attempt. A follow-up leans to the source of
        the `prior` query it refines, and is shown that query to edit."""
        held = self.value_index()
        index = self.source_index()
        bonus = selection.bonus(index, question, held, self.settings)
        if prior is not None:
            bonus[prior.source] = bonus.get(prior.source, 0.0) + self.settings.follow_up_source_bonus
        nearest = index.nearest(vector, self.settings.source_candidates, kinds, bonus, among)
        level = self.settings.source_min_similarity if among is None else -1.0  # a scope's sources were chosen
        candidates = [(s, sim) for s, sim in nearest if sim >= level]
        if rows := values.row_numbers(question, [s for s, _ in candidates], self.stores):  # "with 63 gold and 141"
            weight = self.settings.source_value_weight
            candidates = sorted(((s, sim + weight * rows.get(s.name, 0)) for s, sim in candidates), key=lambda c: -c[1])
        if not candidates:  # no source near the question: nothing to write a query for, no LLM needed
            return [], []
        chooser = self.models.llm if self.settings.source_llm_choice else None  # None: the prefilter's order
        chosen = selection.choose(chooser, question, candidates, self.settings.sources_per_question,
                                  values.value_notes(question, held), self.settings.source_clear_lead)
        hits: list[tuple[str, Hit]] = []
        runs: list[QueryRun] = []
        for i, source in enumerate(chosen, start=1):
            outcome = write_and_run(self.models.llm, question, source, self.stores, self.settings.query_tries,
                                    self.settings.query_timeout_s, self.settings.query_rows,
                                    self._examples_for(question, source), held,
                                    prior if prior is not None and prior.source == source.name else None)
            runs += [QueryRun(source.language, source.name, attempt.query, attempt.ok, attempt.error,
                              len(outcome.result.rows) if attempt.ok and outcome.result else 0)
                     for attempt in outcome.attempts]
            if outcome.ok and found_something(outcome):
                hit = as_hit(outcome, question, i)
                hits.append((hit.item.corpus, hit))
        return hits, runs

    def _examples_for(self, question: str, source: Source) -> list:
        if self._examples is None:
            self._examples = ExamplePicker(self.models.embedder)
        return self._examples.pick(writer_for(source.language).EXAMPLES, question, self.settings.query_examples,
                                   source.engine)
