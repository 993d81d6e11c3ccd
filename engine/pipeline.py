"""The engine's public API: `Trove(settings).index(...)`, `.search(...)`, `.ask(...)`, `.status()`.

The CLI and the desktop app use only this. Models load lazily, on first use.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import sqlean

from engine.errors import ModelError, TroveError
from engine.generation import answer as answering
from engine.generation import finding
from engine.generation.evidence import pack
from engine.generation.untrusted import cut_question
from engine.grounding import counting
from engine.ingest.documents import DOCUMENT, PARAGRAPH
from engine.ingest.indexer import Indexer, IndexReport, Progress, index_lock
from engine.models import ModelManager
from engine.result import AskResult, Citation, QueryRun, clock
from engine.retrieval.hybrid import Hit, HybridRetriever
from engine.retrieval.visual import VisualContext, grounded, visual_hits
from engine.routing import Route, make_router
from engine.routing.labels import LABELS, NATIVE
from engine.settings import Settings, default_models_dir, load_settings
from local_stores import query_worker
from local_stores.catalog import Catalog
from local_stores.graph_store import GraphStore
from local_stores.rdf_store import RdfStore
from local_stores.results import QueryResult
from local_stores.sqlite_db import Database, writable
from local_stores.table_store import TableStore
from local_stores.vector_store import Item, VectorStore

if TYPE_CHECKING:
    from engine.grounding.inventory import Inventory
    from engine.native.examples import ExamplePicker

NOTHING_RELEVANT = "Nothing in your files matches this question."
NOTHING_INDEXED = "Nothing is indexed yet: add a folder first (trove index PATH)."
VISUAL_LABELS = {"image", "region", "clip", "video"}  # answered by engine.retrieval.visual
FALLBACK_LABELS = ("paragraph",)  # searched when the routes found nothing relevant
OWN_LABELS = ("paragraph", "image", "clip", "video")  # searched for a first-person question routed to `none`
_FIRST_PERSON = re.compile(r"\b(?:my|mine|me|i|i'm|i've|i'd|our|ours|we)\b", re.IGNORECASE)


def _open_index(settings: Settings, read_only: bool | None) -> tuple[Database, Catalog, VectorStore]:
    """The home's index; read-only (`read_only` None: when this process may not write it, e.g. a
    read-only home). A home that is not a folder, or an index that cannot be opened, is a TroveError."""
    home, path = settings.home, settings.index_path
    if home.exists() and not home.is_dir():
        raise TroveError(f"{home}: not a folder (the Trove home must be a folder)")
    read_only = not writable(path) if read_only is None else read_only
    if read_only and not path.is_file():
        raise TroveError(f"{home}: nothing is indexed here, and this home cannot be written (read-only)")
    try:
        db = Database(path, read_only=read_only)
        return db, Catalog(db), VectorStore(db)
    except OSError as exc:
        raise TroveError(f"{home}: cannot open this Trove home: {exc.strerror or exc}") from exc
    except sqlean.DatabaseError as exc:
        raise TroveError(f"{path}: cannot open the index: {exc}") from exc


class Trove:
    def __init__(self, settings: Settings | None = None, router: str | None = None,
                 read_only: bool | None = None) -> None:
        """Open the home of `settings`; `read_only` None opens it read-only when it cannot be
        written (status, search and ask work; index and remove refuse)."""
        self.settings = settings or load_settings()
        self.db, self.catalog, self.store = _open_index(self.settings, read_only)
        self.read_only = self.db.read_only
        self.tables = TableStore(self.settings.tables_path, self.settings.ingest_memory_mb)
        query_worker.limit_memory(self.settings.query_memory_mb)
        self.graphs = GraphStore(self.settings.graphs_path)
        self.rdf = RdfStore(self.settings.rdf_path)
        self.models = ModelManager(self.settings.models_dir or default_models_dir(self.settings.home))
        self.router = make_router(router or self.settings.router, embedder=lambda: self.embedder,
                                  llm=lambda: self.llm, threshold=self.settings.router_threshold,
                                  confident=self.settings.router_confident, nearness=self.source_nearness,
                                  source_level=self.settings.router_source_level,
                                  source_margin=self.settings.router_source_margin)
        self._embedder = None
        self._llm = None
        self._vision = None
        self._vlm: object | bool | None = None  # False: looked, none installed
        self._source_index = None
        self._value_index = None
        self._values_state: tuple | None = None  # the catalog's sources_state the value index was refreshed at
        self._examples: ExamplePicker | None = None
        self._inventory: tuple[tuple, Inventory, dict | None] | None = None  # (pack versions, elements, vectors)

    # -- models --------------------------------------------------------------------------------
    @property
    def embedder(self):  # noqa: ANN201 (TextEmbedder)
        if self._embedder is None:
            from engine.runtimes.text_embedder import TextEmbedder

            self._embedder = TextEmbedder.from_manager(self.models, threads=self.settings.threads,
                                                       batch_size=self.settings.embed_batch)
        return self._embedder

    @property
    def llm(self):  # noqa: ANN201 (LLM)
        if self._llm is None:
            from engine.runtimes.llm import LLM

            self._llm = LLM.from_manager(self.models, self.settings.llm, n_ctx=self.settings.llm_context,
                                         threads=self.settings.threads)
        return self._llm

    @property
    def vision(self):  # noqa: ANN201 (VisionModels: detector, faces, OCR, classifier, image embedder)
        if self._vision is None:
            from engine.ingest.photos.analyse import VisionModels

            self._vision = VisionModels.from_manager(self.models, self.settings.detector, self.settings.threads,
                                                     self.settings.photo_ocr)
        return self._vision

    @property
    def vlm(self):  # noqa: ANN201 (VisionLanguageModel | None: a role only users fill)
        if self._vlm is None:
            from engine.runtimes.vlm import VisionLanguageModel

            try:
                self._vlm = VisionLanguageModel.from_manager(self.models, n_ctx=self.settings.llm_context,
                                                             threads=self.settings.threads)
            except ModelError:
                self._vlm = False
        return self._vlm or None

    # -- indexing ------------------------------------------------------------------------------
    def index(self, paths: Iterable[Path | str] = (), progress: Callable[[Progress], None] | None = None
              ) -> IndexReport:
        """Bring the index up to date (adding `paths` as roots); one run per home at a time."""
        with self._writing("index"):
            report = self._indexer().run([Path(p) for p in paths], progress)
            t0 = time.perf_counter()
            self.value_index()  # the values of new and changed structured sources, read now rather than at a question
            report.timings_s["values"] += time.perf_counter() - t0
        return report

    @contextmanager
    def _writing(self, what: str) -> Iterator[None]:
        """Hold the home's index lock while the index is written; a read-only home refuses at once."""
        if self.read_only:
            raise TroveError(f"{self.settings.home} cannot be written (read-only): cannot {what}; "
                             "status, search and ask still work")
        with index_lock(self.settings.home):
            yield

    def _indexer(self) -> Indexer:
        return Indexer(self.settings, self.db, self.catalog, self.store, lambda: self.embedder, self.tables,
                       self.graphs, self.rdf, lambda: self.vision,
                       looks_model=self._looks_model)

    def _looks_model(self) -> str | None:
        """The installed text-image model's name (checked without loading it), else None."""
        from engine.runtimes.vision import resolve

        if not self.models.is_installed("image-text-embedder"):
            return None
        return resolve(self.models, "image-text-embedder", "default").name

    def remove(self, path: Path | str) -> int:
        """Stop following a folder (or file) added before: its files leave every corpus. Returns how many."""
        target = str(Path(path).expanduser().resolve())
        roots = [(rid, p) for rid, p in self.catalog.roots() if p == target]
        if not roots:
            raise TroveError(f"{path}: not a folder Trove follows (see trove status)")
        with self._writing("remove"):
            return self._remove_root(roots[0][0], target)

    def _remove_root(self, root_id: int, target: str) -> int:
        records = self.catalog.files(root_id)
        indexer = self._indexer()
        for record in records:
            indexer.forget(record)
        for src in self.catalog.sources():  # sources of a folder, not a file (a vault of notes)
            if Path(src["location"]).is_relative_to(target):
                self.catalog.delete_source(src["name"])
        self.catalog.remove_root(root_id)
        indexer.drop_orphans()
        return len(records)

    def status(self) -> dict:
        files = self.catalog.files()
        sources = self.catalog.sources()
        return {
            "home": str(self.settings.home),
            "roots": [path for _, path in self.catalog.roots()],
            "files": {state: sum(1 for f in files if f.state == state) for state in ("indexed", "skipped", "failed")},
            "by_kind": self.catalog.counts(),
            "corpora": self.store.corpora(),
            "tables": [{"name": src["name"], "file": src["location"], "rows": src["descriptor"].get("rows"),
                        "columns": [c["name"] for c in src["descriptor"].get("columns", []) if c["name"] != "_row"],
                        "warnings": src["descriptor"].get("warnings", [])}
                       for src in sources if src["kind"] == "table"],
            "databases": [{"name": src["name"], "file": src["location"], "engine": src["engine"],
                           "tables": {t["table"]: t["rows"] for t in src["descriptor"].get("tables", [])}}
                          for src in sources if src["kind"] == "database"],
            "graphs": [{"name": src["name"], "file": src["location"], "format": src["descriptor"].get("format"),
                        "nodes": {k: v["count"] for k, v in src["descriptor"].get("nodes", {}).items()},
                        "relationships": {k: v["count"] for k, v in src["descriptor"].get("relationships", {}).items()},
                        "warnings": src["descriptor"].get("warnings", [])}
                       for src in sources if src["kind"] == "graph"],
            "rdf": [{"name": src["name"], "file": src["location"], "triples": src["descriptor"].get("triples"),
                     "classes": len(src["descriptor"].get("classes", []))}
                    for src in sources if src["kind"] == "rdf"],
            "packs": [{"name": src["descriptor"].get("name"), "file": src["location"],
                       "entities": [e["name"] for e in src["descriptor"].get("entities", [])]}
                      for src in sources if src["kind"] == "pack"],
            "vision_missing": self._vision_missing(),
            "problems": [{"path": f.path, "state": f.state, "reason": f.reason}
                         for f in files if f.state != "indexed" or f.reason],  # indexed with a warning
            "models": {m.role: m.name for m in self.models.catalog.models
                       if "default" in m.tags and self.models.is_installed(m.name)},
        }

    def _vision_missing(self) -> dict[str, str]:
        """Vision roles with no model, and what that costs (checked without loading any model)."""
        from engine.ingest.photos.analyse import ROLE_EFFECT

        out = {role: effect for role, effect in ROLE_EFFECT.items() if not self.models.is_installed(role)}
        if not self.settings.photo_ocr:
            out["ocr"] = f"{ROLE_EFFECT['ocr']} (setting photo_ocr = false)"
        if not self.models.is_installed("vlm"):
            out["vlm"] = ("photo regions are matched by words and image similarity, and answers are written from "
                          "text; import a vision-language model (a .gguf and its mmproj) to have them looked at")
        return out

    # -- retrieval -----------------------------------------------------------------------------
    def retriever(self) -> HybridRetriever:
        return HybridRetriever(self.store, self.embedder)

    def search(self, query: str, k: int | None = None, corpus: str = PARAGRAPH, mode: str = "hybrid") -> list[Hit]:
        """Ranked items with scores and locators, no LLM. Photos are also found by their looks when a
        text-image model is installed."""
        k = k or self.settings.search_k
        hits = self.retriever().search(query, corpus, k, mode=mode)
        if corpus == "image/photo" and mode == "hybrid" and self.vision.image_text is not None:
            from engine.retrieval.visual import fuse_looks, looks_hits

            context = VisualContext(self.store, self.retriever(), self.embedder, image_text=self.vision.image_text, k=k)
            hits = fuse_looks(hits, looks_hits(context, query, self.embedder.embed_one(query)))[:k]
        return hits

    def sql(self, query: str, source: str | None = None) -> QueryResult:
        """Run one read-only SELECT (time- and row-limited) over the indexed tables, or over a
        database file the user keeps (`source` = its name in `trove status`)."""
        if source is None:
            return self.tables.execute(query, timeout_s=self.settings.query_timeout_s)
        return self.query(source, query)

    def query(self, source: str, query: str) -> QueryResult:
        """Run one read-only query in a source's own language (SQL, Cypher or SPARQL), time- and
        row-limited; `source` is its name in `trove status`."""
        from engine.native import sources
        from engine.native.kinds import open_store

        found = [s for s in sources.from_catalog(self.catalog.sources()) if s.name == source]
        if not found:
            raise TroveError(f"no table, database, graph or RDF source named {source!r} (see trove status)")
        store = open_store(found[0], self.stores)
        return store.execute(store.explain(query), self.settings.query_timeout_s, self.settings.query_rows)

    @property
    def stores(self):  # noqa: ANN201 (engine.native.sources.Stores)
        from engine.native.sources import Stores

        return Stores(self.tables, self.graphs, self.rdf)

    def route(self, question: str) -> list[Route]:
        corpora = self.store.corpora()
        kinds = {src["kind"] for src in self.catalog.sources()}
        available = {label for label, corpus in LABELS.items() if corpus and corpus in corpora}
        available |= {label for label, source_kinds in NATIVE.items() if kinds & set(source_kinds)}
        if not available:  # nothing indexed: no router (nor its LLM) has anything to choose from
            return [Route("none", 1.0, "empty index")]
        routes = self.router.route(question, available)
        if {route.label for route in routes} == {"none"} and _FIRST_PERSON.search(question):
            return self._own_things(question, available) or routes
        return self._settled(question, routes, available)

    def _settled(self, question: str, routes: list[Route], available: set[str]) -> list[Route]:
        """The router's routes checked against the files: text vs structured by which fits the
        question better (`engine.routing.sources.by_evidence`), then the kind of file it names."""
        from engine.routing import sources as routing_sources

        if "paragraph" in available and {route.label for route in routes} & ({*NATIVE, "paragraph", "document"}):
            vector = self.embedder.embed_one(question)
            nearness = {label: s for label, s in self.source_nearness(vector).items() if label in available}
            passages = self.retriever().search(question, PARAGRAPH, 1, vector=vector)
            routes = routing_sources.by_evidence(routes, nearness, passages[0].relevance if passages else 0.0,
                                                 self.settings.route_evidence_margin)
        return routing_sources.named_kind(routes, question, available)

    def _own_things(self, question: str, available: set[str]) -> list[Route] | None:
        """A question about the user's own things ("my", "I") is not general knowledge when some
        corpus or source holds an item near it: the route of the nearest one."""
        vector = self.embedder.embed_one(question)
        retriever = self.retriever()
        near = [(hits[0].relevance, label) for label in OWN_LABELS if label in available and (corpus := LABELS[label])
                and (hits := retriever.search(question, corpus, 1, vector=vector))]
        near += [(similarity, label) for label, similarity in self.source_nearness(vector).items()
                 if label in available]
        near = [(similarity, label) for similarity, label in near if similarity >= self.settings.min_relevance]
        if not near:
            return None
        similarity, label = max(near)
        return [Route(label, round(similarity, 3), "first person")]

    def source_index(self):  # noqa: ANN201 (engine.native.selection.SourceIndex)
        """The descriptor embeddings of the structured sources, brought up to date with the catalog."""
        from engine.native import selection, sources

        if self._source_index is None:
            self._source_index = selection.SourceIndex(self.embedder)
        self._source_index.refresh(sources.from_catalog(self.catalog.sources()))
        return self._source_index

    def value_index(self):  # noqa: ANN201 (local_stores.value_index.ValueIndex)
        """The text values each structured source holds, brought up to date with the catalog."""
        from engine.native import sources, values
        from local_stores.value_index import ValueIndex

        if self._value_index is None:
            self._value_index = ValueIndex(self.db)
        state = self.catalog.sources_state()
        if state != self._values_state:
            values.refresh(self._value_index, sources.from_catalog(self.catalog.sources()), self.stores)
            self._values_state = state
        return self._value_index

    def value_evidence(self, question: str, index=None) -> dict[str, float]:  # noqa: ANN001
        """Per structured source, the similarity it gains for holding values the question names."""
        from engine.native import values

        weight = self.settings.source_value_weight
        held = index or self.value_index()
        return {name: weight * v for name, v in values.source_evidence(question, held).items()}

    def source_nearness(self, vector) -> dict[str, float]:  # noqa: ANN001
        """Per structured route label, how near its nearest source is to the question (routing evidence)."""
        from engine.routing.sources import by_label

        return by_label(self.source_index().nearest_per_kind(vector))

    def _native(self, question: str, vector, kinds: set[str]  # noqa: ANN001
                ) -> tuple[list[tuple[str, Hit]], list[QueryRun]]:
        """Native queries over the structured sources of `kinds`: select sources, write, validate,
        repair, run; results as hits."""
        from engine.native import evidence as native_evidence
        from engine.native import selection, values
        from engine.native.examples import ExamplePicker
        from engine.native.querying import write_and_run
        from engine.native.writers import writer_for

        if self._examples is None:
            self._examples = ExamplePicker(self.embedder)
        held = self.value_index()
        nearest = self.source_index().nearest(vector, self.settings.source_candidates, kinds,
                                              self.value_evidence(question, held))
        candidates = [(s, sim) for s, sim in nearest if sim >= self.settings.source_min_similarity]
        if not candidates:  # no source near the question: nothing to write a query for, no LLM needed
            return [], []
        chosen = selection.choose(self.llm, question, candidates, self.settings.sources_per_question,
                                  values.value_notes(question, held))
        hits, runs = [], []
        for i, source in enumerate(chosen, start=1):
            examples = self._examples.pick(writer_for(source.language).EXAMPLES, question,
                                           self.settings.query_examples, source.engine)
            outcome = write_and_run(self.llm, question, source, self.stores, self.settings.query_tries,
                                    self.settings.query_timeout_s, self.settings.query_rows, examples)
            for attempt in outcome.attempts:
                runs.append(QueryRun(source.language, source.name, attempt.query, attempt.ok, attempt.error,
                                     len(outcome.result.rows) if attempt.ok and outcome.result else 0))
            if outcome.ok and native_evidence.found_something(outcome):
                hit = native_evidence.as_hit(outcome, question, i)
                hits.append((hit.item.corpus, hit))
        return hits, runs

    # -- asking --------------------------------------------------------------------------------
    def gather(self, question: str, image: Path | str | None = None, timings: dict[str, float] | None = None,
               labels: Sequence[str] | None = None, on_routes: Callable[[list[Route]], None] | None = None
               ) -> tuple[list[Route], list[tuple[str, Hit]], list[QueryRun], object]:
        """Everything `ask` would give the model, before it is packed: the routes, the hits of every
        route ((kind, hit), native query results first; with `image`, that photo's own grounded regions
        and the indexed photos like it first of all), the native queries run and the question vector.
        `labels` skips the router and follows those routes (benchmarks: oracle, unified, random routing);
        `on_routes` hears the routes as soon as they are chosen (the app shows them while it searches)."""
        timings = {} if timings is None else timings
        with _timed(timings, "route"):
            routes = self.route(question) if labels is None else [Route(label, 1.0, "given") for label in labels]
        if on_routes is not None:
            on_routes(routes)
        hits: list[tuple[str, Hit]] = []
        runs: list[QueryRun] = []
        with _timed(timings, "embed"):
            vector = self.embedder.embed_one(question)
        kinds = {kind for route in routes for kind in NATIVE.get(route.label, ())}
        if kinds:
            with _timed(timings, "query"):
                hits, runs = self._native(question, vector, kinds)
        with _timed(timings, "retrieve"):
            retriever = self.retriever()
            for route in routes:
                corpus = LABELS.get(route.label)
                if corpus and route.label not in VISUAL_LABELS:
                    hits += [(route.label, h) for h in retriever.search(question, corpus, self.settings.evidence_items,
                                                                        vector=vector)]
        visual = {route.label for route in routes} & VISUAL_LABELS
        if visual or image is not None:
            with _timed(timings, "ground"):
                context = self._visual_context(retriever)
                if image is not None:
                    hits = self._about_photo(context, Path(image), question) + hits
                hits += visual_hits(context, question, vector, visual)
        if image is None and not any(h.relevance >= self.settings.min_relevance for _, h in hits):
            with _timed(timings, "fallback"):
                routes, hits = self._fallback(question, vector, routes, hits, retriever)
        return routes, hits, runs, vector

    def _fallback(self, question: str, vector, routes: list[Route], hits: list[tuple[str, Hit]],  # noqa: ANN001
                  retriever: HybridRetriever) -> tuple[list[Route], list[tuple[str, Hit]]]:
        """A route that found nothing relevant (or `none`) may be a misroute: the passages of the files
        are searched before the answer says the files hold nothing (or answers from the model alone)."""
        searched = {route.label for route in routes}
        corpora = self.store.corpora()
        for label in FALLBACK_LABELS:
            corpus = LABELS[label]
            if label in searched or corpus is None or corpus not in corpora:
                continue
            found = [(label, h) for h in retriever.search(question, corpus, self.settings.evidence_items,
                                                          vector=vector)]
            if any(h.relevance >= self.settings.min_relevance for _, h in found):
                return [*routes, Route(label, 0.0, "fallback")], hits + found
        return routes, hits

    def ask(self, question: str, image: Path | str | None = None,
            on_token: Callable[[str], None] | None = None, labels: Sequence[str] | None = None,
            on_routes: Callable[[list[Route]], None] | None = None) -> AskResult:
        """Route (or follow the given route `labels`), retrieve, pack evidence, generate a cited answer;
        timings per stage. `on_routes` hears the chosen routes, `on_token` the answer as it is written."""
        question = " ".join(question.split())
        if not question:
            raise ValueError("the question is empty")
        question, notice = cut_question(question, self.settings.max_question_chars)
        timings: dict[str, float] = {}
        t_start = time.perf_counter()
        routes, hits, runs, vector = self.gather(question, image, timings, labels, on_routes)
        result = AskResult(question=question, answer="", routes=[r.as_dict() for r in routes], queries=runs,
                           notices=[notice] if notice else [])
        relevant = [(kind, h) for kind, h in hits if h.relevance >= self.settings.min_relevance]
        if routes and routes[0].router == "empty index":
            result.answer, result.answered = NOTHING_INDEXED, False
            return _finish(result, timings, t_start)
        if not relevant and ({route.label for route in routes} == {"none"} or _general(question)):
            with _timed(timings, "generate"):
                draft = answering.general(self.llm, question, on_token=on_token)
            result.answer, result.answered, result.general, result.model = draft.text, False, True, self.llm.name
            return _finish(result, timings, t_start)
        if not relevant:
            result.answer, result.answered = (NOTHING_RELEVANT if hits else answering.NOT_FOUND), False
            return _finish(result, timings, t_start)
        with _timed(timings, "select"):
            excerpts = self._excerpts(relevant, vector)
            evidence = pack(relevant, self.settings.evidence_items, self.settings.evidence_tokens, excerpts)
        with _timed(timings, "generate"):
            computed = _computed_answer(evidence) or _moment_answer(question, evidence)
            listing = None if computed else (counting.answer(question, evidence) or (
                finding.answer(evidence) if finding.is_find(question) else None))
            if listing is not None:  # the detector's count, or a find/show request's ranked items
                draft = listing
                if on_token:
                    on_token(draft.text)
            elif computed is not None:  # an aggregate, a single row or a short list: the engine's result
                ev, values = computed
                if ev.kind == "clip":
                    draft = answering.state_result(self.llm, question, _moment(ev), values, ev.n)
                elif "listing" in ev.locator:
                    draft = answering.state_rows(self.llm, question, ev.locator["listing"], Path(ev.source).name, ev.n)
                else:
                    draft = answering.state_result(self.llm, question, ev.locator["result"], values, ev.n)
                if on_token:
                    on_token(draft.text)
                draft = self._and_the_rest(question, routes, evidence, ev, draft, on_token)
            elif self.vlm is not None and evidence[0].kind in ("region", "image"):
                draft = self._look(question, evidence)
            else:
                draft = answering.generate(self.llm, question, evidence, self.settings.answer_max_tokens, on_token)
        looked = (self.vlm is not None and computed is None and listing is None
                  and evidence[0].kind in ("region", "image"))
        result.model = self.vlm.name if looked else self.llm.name
        mapping = {old: new for new, old in enumerate(draft.cited, start=1)}
        result.answer = answering.renumber(draft.text, mapping)
        result.answered = draft.answered
        result.unsupported = draft.unsupported
        result.dropped = draft.dropped
        by_n = {e.n: e for e in evidence}
        result.citations = [Citation(n=mapping[old], kind=by_n[old].kind, source=by_n[old].source,
                                     locator=by_n[old].locator, text=by_n[old].text, title=by_n[old].title,
                                     score=round(by_n[old].score, 4)) for old in draft.cited]
        return _finish(result, timings, t_start)

    def _and_the_rest(self, question: str, routes: list[Route], evidence: list, stated,  # noqa: ANN001
                      draft: answering.Draft, on_token: Callable[[str], None] | None) -> answering.Draft:
        """A cross-modal question (a query result and the passages or photos that explain it): the
        result is stated as computed, and what the other kinds of evidence say is written after it."""
        labels = {route.label for route in routes if route.router != "fallback"}
        if not (labels & set(NATIVE) and labels - set(NATIVE)):
            return draft
        others = [e for e in evidence if e.kind not in NATIVE and e.n != stated.n]
        if not others:
            return draft
        if on_token:
            on_token(" ")
        rest = answering.generate(self.llm, question, others, self.settings.answer_max_tokens, on_token)
        return answering.combine(draft, rest) if rest.answered and rest.cited else draft

    def _visual_context(self, retriever: HybridRetriever) -> VisualContext:
        inventory, references = self.inventory()
        vlm = self.vlm
        return VisualContext(self.store, retriever, self.embedder, self.vision.embedder, inventory, references,
                             k=self.settings.evidence_items, vlm_check=vlm.shows if vlm else None,
                             image_text=self.vision.image_text)

    def inventory(self) -> tuple[Inventory, dict | None]:
        """The elements of every indexed knowledge pack (GranuRAG's inventory) and their reference
        vectors; re-read only when a pack changed."""
        from engine.grounding.inventory import Inventory
        from engine.grounding.matching import reference_vectors
        from engine.grounding.pack import load_pack

        packs = sorted((src["location"], src["updated_at"]) for src in self.catalog.sources() if src["kind"] == "pack")
        if self._inventory is None or self._inventory[0] != tuple(packs):
            loaded = []
            for location, _ in packs:
                try:
                    loaded.append(load_pack(Path(location)))
                except TroveError:
                    continue  # changed into something invalid since indexing; the next run records why
            inventory = Inventory.from_packs(loaded)
            embedder = self.vision.embedder
            references = reference_vectors(inventory, embedder) if embedder is not None and len(inventory) else None
            self._inventory = (tuple(packs), inventory, references)
        return self._inventory[1], self._inventory[2]

    def _look(self, question: str, evidence: list):  # noqa: ANN202 (answering.Draft)
        """With a vision-language model: it sees the first photo of the evidence with the cited regions
        drawn and numbered as in the evidence, and the evidence text (GranuRAG's annotated image)."""
        from engine.grounding.annotate import annotate
        from engine.ingest.photos.image_io import load_photo

        photo = evidence[0].source
        boxed = [(tuple(e.locator["box"]), e.locator.get("name") or e.locator.get("label", ""), e.n)
                 for e in evidence if e.kind == "region" and e.source == photo]
        image = annotate(load_photo(Path(photo)).image, [(b, label) for b, label, _ in boxed],
                         numbers=[n for _, _, n in boxed])
        messages = answering.build_messages(question, evidence)
        raw = self.vlm.look(image, messages[1]["content"], self.settings.answer_max_tokens,
                            system=messages[0]["content"])
        return answering.finalise(raw, evidence, question)

    def _about_photo(self, context: VisualContext, path: Path, question: str) -> list[tuple[str, Hit]]:
        """Asking with a photo: its own grounded regions, then the indexed photos most like it."""
        from engine.ingest.photos.analyse import analyse
        from engine.ingest.photos.image_io import load_photo

        if not path.is_file():
            raise TroveError(f"{path}: no such photo")
        photo = load_photo(path)
        found = analyse(photo.image, self.vision, self.settings.region_overlap)
        regions = [dict(r.as_dict(), n=i) for i, r in enumerate(found.regions)]
        own = Item("image/photo", str(path.resolve()), f"The photo you asked with: {path.name}.",
                   {"width": photo.width, "height": photo.height, "regions": regions, "query_photo": True},
                   title=path.name, file_id=0, id=context.synthetic_id())
        hits = grounded(context, Hit(own, 1.0, {"dense": 1.0}))
        if found.vector is not None:
            for item_id, similarity in self.store.dense("image/visual", found.vector, self.settings.evidence_items):
                twin = self.store.items([item_id]).get(item_id)
                photos = self.store.file_items(twin.file_id, "image/photo") if twin else []
                if photos and similarity >= self.settings.similar_photo_min:
                    hits.append(("image", Hit(photos[0], similarity, {"dense": similarity, "visual": similarity})))
        return hits

    def _excerpts(self, hits: list[tuple[str, Hit]], vector) -> dict[int, str]:  # noqa: ANN001
        """For document hits, the paragraphs that match the question best, in reading order."""
        out: dict[int, str] = {}
        for kind, hit in hits:
            if kind != "document" or len(hit.item.text.split()) < 300:
                continue
            paras = [p for p in self.store.file_items(hit.item.file_id, PARAGRAPH)
                     if hit.item.locator["start"] <= p.locator["start"] < hit.item.locator["end"]]
            vecs = self.store.vectors(PARAGRAPH, [p.id for p in paras])
            scored = sorted(paras, key=lambda p: -float(vecs[p.id] @ vector) if p.id in vecs else 0.0)[:5]
            keep = sorted(scored, key=lambda p: p.ord)
            out[hit.item.id] = " … ".join(p.text for p in keep)
        return out

    def close(self) -> None:
        self.db.close()


_QUESTION = re.compile(r"^\s*(?:who|what|when|where|which|why|how|is|are|was|were|do|does|did|can|name|list)\b|\?\s*$",
                       re.IGNORECASE)


def _general(question: str) -> bool:
    """A question nothing in the files fits that is not about the user's own things ("What is the
    boiling point of water?", routed to some kind of file by its words): the model answers it as
    general knowledge, and says so."""
    return bool(_QUESTION.search(question)) and not _FIRST_PERSON.search(question)


def _computed_answer(evidence: list) -> tuple | None:  # list[Evidence] -> (Evidence, [values]) | None
    """The first evidence when it is a query result the answer can state whole: one row (a total, a
    count, a best row) or a short list of rows."""
    if not evidence or evidence[0].kind not in ("table", "graph", "rdf"):
        return None
    values = evidence[0].locator.get("values")
    if values is None and "listing" not in evidence[0].locator:
        return None
    from engine.native.evidence import cell

    return evidence[0], [cell(v) for v in values or []]


_WHEN = re.compile(r"^\s*(when|at what (point|time|moment|second|minute)|what (time|minute|second)|how (far|long) "
                   r"into|which (moment|part|scene|clip))\b", re.IGNORECASE)


def _moment_answer(question: str, evidence: list) -> tuple | None:
    """A "when in the video…" question whose best evidence is a clip: the answer is that clip's time
    span, stated from its locator (a small model misreads times it is shown)."""
    if not evidence or evidence[0].kind != "clip" or not _WHEN.search(question):
        return None
    ev = evidence[0]
    return ev, [clock(ev.locator["start_s"]), clock(ev.locator["end_s"])]


def _moment(ev) -> str:  # noqa: ANN001 (Evidence of a clip)
    said = re.search(r"^Said: (.*)$", ev.text, re.MULTILINE)
    words = f' (said there: "{said.group(1)}")' if said else ""
    return f"from {clock(ev.locator['start_s'])} to {clock(ev.locator['end_s'])} in {Path(ev.source).name}{words}"


@contextmanager
def _timed(timings: dict[str, float], stage: str):  # noqa: ANN202
    t0 = time.perf_counter()
    try:
        yield
    finally:
        timings[stage] = timings.get(stage, 0.0) + (time.perf_counter() - t0) * 1000


def _finish(result: AskResult, timings: dict[str, float], t_start: float) -> AskResult:
    timings["total"] = (time.perf_counter() - t_start) * 1000
    result.timings_ms = timings
    return result


__all__ = ["DOCUMENT", "PARAGRAPH", "Trove"]
