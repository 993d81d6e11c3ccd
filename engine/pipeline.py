"""The engine's public API: `Trove(settings).index(...)`, `.search(...)`, `.ask(...)`, `.status()`.

The CLI and the desktop app use only this. `Trove` composes the parts (models, stores, native
querier, router, gatherer, answerer); models load lazily, on first use.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from engine import browsing, connections
from engine.browsing import ClipThumb, IndexedFile, PageText, RootSummary
from engine.conversations.follow_up import follow_up
from engine.conversations.store import ConversationStore
from engine.conversations.threads import Threads
from engine.conversations.turns import Conversation, Turn
from engine.corpora import DOCUMENT, PARAGRAPH, PHOTO
from engine.generation.answerer import Answerer
from engine.generation.untrusted import cut_question
from engine.home_index import open_index
from engine.ingest.indexer import IndexReport, Progress
from engine.ingest.writing import IndexWriting
from engine.locators import MomentLocator, PassageLocator
from engine.models import ModelManager
from engine.models.loaded import Models
from engine.native.querier import NativeQuerier
from engine.native.sources import Stores
from engine.result import AskResult
from engine.retrieval.gathering import Gathered, Gatherer
from engine.retrieval.hybrid import Hit
from engine.retrieval.visual import VisualContext
from engine.routing import Route, make_router
from engine.routing.checking import CheckedRouter
from engine.scope import Scope, Within, resolve
from engine.settings import Settings, load_settings
from engine.status import status
from local_stores import query_worker
from local_stores.graph_store import GraphStore
from local_stores.rdf_store import RdfStore
from local_stores.results import QueryResult
from local_stores.table_store import TableStore


class Trove:
    """The public API (`index`, `search`, `query`, `route`, `gather`, `ask`, `status`): a façade over
    parts built once here, or given (`models`: tests pass their own embedder or a scripted LLM)."""

    def __init__(self, settings: Settings | None = None, router: str | None = None,
                 read_only: bool | None = None, models: Models | None = None) -> None:
        """Open the home of `settings`; `read_only` None opens it read-only when it cannot be
        written (status, search and ask work; index and remove refuse)."""
        self.settings = settings = settings or load_settings()
        index = open_index(settings, read_only)
        self.db, self.catalog, self.store = index.db, index.catalog, index.corpora
        self.read_only = self.db.read_only
        query_worker.limit_memory(settings.query_memory_mb)
        self.stores = Stores(TableStore(settings.tables_path, settings.ingest_memory_mb),
                             GraphStore(settings.graphs_path), RdfStore(settings.rdf_path))
        self.models = models or Models(ModelManager(settings.models_folder), settings)
        self.native = NativeQuerier(self.catalog, self.db, self.stores, self.models, settings)
        self.router = make_router(router or settings.router, self.models, settings)
        self.routing = CheckedRouter(self.router, self.store, self.catalog, self.native, self.models, settings)
        self.gatherer = Gatherer(self.store, self.catalog, self.routing, self.native, self.models, settings)
        self.answerer = Answerer(self.store, self.models, settings)
        self.conversations = ConversationStore(settings.conversations_path, read_only=True if self.read_only else None)
        self.threads = Threads(self.conversations, self.catalog, self.models)
        self.writing = IndexWriting(self.db, self.catalog, self.store, self.stores, self.models, self.native)

    # -- indexing ------------------------------------------------------------------------------
    def index(self, paths: Iterable[Path | str] = (), progress: Callable[[Progress], None] | None = None
              ) -> IndexReport:
        """Bring the index up to date (adding `paths` as roots); one run per home at a time."""
        return self.writing.index(self.settings, paths, progress)

    def remove(self, path: Path | str) -> int:
        """Stop following a folder (or file) added before: its files leave every corpus. Returns how many."""
        return self.writing.remove(self.settings, path)

    def connect(self, name: str, url: str, kind: str = "postgres", options: dict | None = None,
                allow_writable: bool = False) -> dict:
        """Add a source on a server (`trove connect`): described now, then asked like the local ones."""
        return self.writing.connect(self.settings, name, url, kind, options, allow_writable)

    def connections(self) -> list[dict]:
        """The sources on servers (`trove connect`), each with what it holds."""
        return connections.listed(self.catalog)

    def source_names(self) -> list[str]:
        """The structured sources (tables, databases, graphs, RDF, servers) by name, as a scope takes them."""
        return sorted(source["name"] for source in self.catalog.sources())

    def disconnect(self, name: str) -> None:
        self.writing.disconnect(self.settings, name)

    def status(self) -> dict:
        return status(self.settings, self.catalog, self.store, self.models.manager)

    # -- retrieval -----------------------------------------------------------------------------
    def search(self, query: str, k: int | None = None, corpus: str = PARAGRAPH, mode: str = "hybrid",
               scope: Scope | None = None) -> list[Hit]:
        """Ranked items with scores and locators, no LLM; only the files in `scope` when given. Photos
        are also found by their looks when a text-image model is installed."""
        k = k or self.settings.search_k
        retriever = self.gatherer.retriever(self.within(scope))
        hits = retriever.search(query, corpus, k, mode=mode)
        image_text = self.models.vision.image_text if corpus == PHOTO and mode == "hybrid" else None
        if image_text is not None:
            from engine.retrieval.visual import fuse_looks, looks_hits

            context = VisualContext(self.store, retriever, self.models.embedder, image_text=image_text, k=k)
            hits = fuse_looks(hits, looks_hits(context, query, self.models.embedder.embed_one(query)))[:k]
        return hits

    def sql(self, query: str, source: str | None = None) -> QueryResult:
        """Run one read-only SELECT (time- and row-limited) over the indexed tables, or over a
        database file the user keeps (`source` = its name in `trove status`)."""
        if source is None:
            return self.stores.tables.execute(query, timeout_s=self.settings.query_timeout_s)
        return self.query(source, query)

    def query(self, source: str, query: str) -> QueryResult:
        """Run one read-only query in a source's own language (SQL, Cypher or SPARQL), time- and
        row-limited; `source` is its name in `trove status`."""
        return self.native.query(source, query)

    def within(self, scope: Scope | None) -> Within:
        """`scope` resolved against the index: the files, sources and routes in it; a TroveError
        naming what is wrong when a path is not followed, a source unknown, or nothing is in it."""
        return resolve(scope, self.catalog, self.store)

    def route(self, question: str) -> list[Route]:
        return self.routing.route(question)

    # -- reading around an answer (what the app shows) ----------------------------------------
    def roots(self) -> list[RootSummary]:
        """Every added folder or file with its counts by kind and state, last indexing time and problems."""
        return browsing.roots(self.catalog)

    def page_text(self, source: str, locator: PassageLocator, cited: str) -> PageText:
        """The page(s) of `source` that hold a cited passage (the whole file when it has no pages)."""
        return browsing.page_text(self.catalog, self.store, source, locator, cited)

    def clips(self, source: str, locator: MomentLocator) -> list[ClipThumb]:
        """Every clip of the cited video `source`, with its keyframe thumbnail."""
        return browsing.clips(self.catalog, self.store, source, locator)

    def file(self, path: str) -> IndexedFile:
        """The indexed file at exactly `path` (a citation's `source`); a TroveError for any other."""
        return browsing.indexed_file(self.catalog, self.store, path)

    # -- asking --------------------------------------------------------------------------------
    def gather(self, question: str, image: Path | str | None = None, labels: Sequence[str] | None = None,
               on_routes: Callable[[list[Route]], None] | None = None) -> Gathered:
        """Everything `ask` would give the model, before it is packed. `labels` skips the router and
        follows those routes (benchmarks: oracle, unified, random routing)."""
        return self.gatherer.gather(question, image, labels, on_routes)

    def ask(self, question: str, image: Path | str | None = None,
            on_token: Callable[[str], None] | None = None, labels: Sequence[str] | None = None,
            on_routes: Callable[[list[Route]], None] | None = None,
            conversation: Conversation | None = None, scope: Scope | None = None) -> AskResult:
        """Route (or follow the given route `labels`), retrieve, pack evidence, generate a cited answer;
        timings per stage. `on_routes` hears the chosen routes, `on_token` the answer as it is written.
        In a `conversation`, a follow-up is answered as the standalone question it stands for (the
        result's `asked_as`), and the turn is added to it (and kept, when it is stored). `scope` (or
        the conversation's) keeps routing, retrieval and source selection inside part of the disk; one
        that holds nothing indexed is a TroveError before anything is asked."""
        question = " ".join(question.split())
        if not question:
            raise ValueError("the question is empty")
        question, notice = cut_question(question, self.settings.max_question_chars)
        scope = scope if scope is not None else conversation.scope if conversation is not None else None
        within = self.within(scope)
        t_start = time.perf_counter()
        first: list[float] = []

        def heard(piece: str) -> None:
            if not first:
                first.append((time.perf_counter() - t_start) * 1000)
            if on_token is not None:
                on_token(piece)

        turns = conversation.last(self.settings.follow_up_turns) if conversation is not None else []
        timings: dict[str, float] = {}
        asked_as = self.threads.standalone(question, turns, timings)
        gathered = self.gatherer.gather(asked_as, image, labels, on_routes, follow_up(question, turns), within)
        gathered.timings = {**timings, **gathered.timings}
        from_files = bool(turns) and turns[-1].result.answered and bool(turns[-1].result.citations)
        scoped = scope is not None and not scope.empty  # asked of chosen files: the model's knowledge is no answer
        result = self.answerer.answer(asked_as, gathered, [notice] if notice else [], heard,
                                      general=not (from_files or scoped))
        result.question, result.asked_as = question, asked_as if asked_as != question else ""
        result.scope = scope.as_dict() if scope is not None else {}
        result.timings_ms["total"] = (time.perf_counter() - t_start) * 1000
        if first:
            result.timings_ms["first_token"] = first[0]  # from the question to the answer's first words
        if conversation is not None:
            self.threads.add(conversation, result)
        return result

    # -- conversations -------------------------------------------------------------------------
    def conversation(self, conversation_id: int | None = None, title: str = "",
                     scope: Scope | None = None, follow_up: bool = False) -> Conversation:
        """A stored conversation (`conversation_id`), the latest one (`follow_up`), or a new one titled
        `title` whose questions stay inside `scope`: stored when the settings keep conversations and
        the home can be written, else held in memory only. NoSuch when the one asked for is not there;
        a scope that holds nothing indexed is a TroveError."""
        if conversation_id is None and not follow_up:
            self.within(scope)
        return self.threads.open(conversation_id, title, scope, follow_up, self.settings.keep_conversations)

    def changed_since(self, turn: Turn) -> dict[str, str]:
        """The turn's cited files removed or changed since it was answered (path -> "removed"/"changed")."""
        return self.threads.changed_since(turn)

    def close(self) -> None:
        self.conversations.close()
        self.db.close()


__all__ = ["DOCUMENT", "PARAGRAPH", "Trove"]
