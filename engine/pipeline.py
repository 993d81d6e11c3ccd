"""The engine's public API: `Trove(settings).index(...)`, `.search(...)`, `.ask(...)`, `.status()`.

The CLI and the desktop app use only this. Models load lazily, on first use.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from pathlib import Path

from engine.errors import TroveError
from engine.generation import answer as answering
from engine.generation.evidence import pack
from engine.ingest.documents import DOCUMENT, PARAGRAPH
from engine.ingest.indexer import Indexer, IndexReport, Progress
from engine.models import ModelManager
from engine.result import AskResult, Citation, QueryRun
from engine.retrieval.hybrid import Hit, HybridRetriever
from engine.routing import Route, make_router
from engine.routing.labels import LABELS, NATIVE
from engine.settings import Settings, load_settings
from local_stores.catalog import Catalog
from local_stores.graph_store import GraphStore
from local_stores.rdf_store import RdfStore
from local_stores.sqlite_db import Database
from local_stores.table_store import QueryResult, TableStore
from local_stores.vector_store import VectorStore

NOTHING_RELEVANT = "Nothing in your files matches this question."


class Trove:
    def __init__(self, settings: Settings | None = None, router: str | None = None) -> None:
        self.settings = settings or load_settings()
        self.db = Database(self.settings.index_path)
        self.catalog = Catalog(self.db)
        self.store = VectorStore(self.db)
        self.tables = TableStore(self.settings.tables_path)
        self.graphs = GraphStore(self.settings.graphs_path)
        self.rdf = RdfStore(self.settings.rdf_path)
        self.models = ModelManager(self.settings.models_dir)
        self.router = make_router(router or self.settings.router, embedder=lambda: self.embedder,
                                  llm=lambda: self.llm, threshold=self.settings.router_threshold,
                                  confident=self.settings.router_confident)
        self._embedder = None
        self._llm = None
        self._source_index = None
        self._examples = None

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

    # -- indexing ------------------------------------------------------------------------------
    def index(self, paths: Iterable[Path | str] = (), progress: Callable[[Progress], None] | None = None
              ) -> IndexReport:
        return self._indexer().run([Path(p) for p in paths], progress)

    def _indexer(self) -> Indexer:
        return Indexer(self.settings, self.db, self.catalog, self.store, lambda: self.embedder, self.tables,
                       self.graphs, self.rdf)

    def remove(self, path: Path | str) -> int:
        """Stop following a folder (or file) added before: its files leave every corpus. Returns how many."""
        target = str(Path(path).expanduser().resolve())
        roots = [(rid, p) for rid, p in self.catalog.roots() if p == target]
        if not roots:
            raise TroveError(f"{path}: not a folder Trove follows (see trove status)")
        root_id = roots[0][0]
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
            "problems": [{"path": f.path, "state": f.state, "reason": f.reason}
                         for f in files if f.state != "indexed"],
            "models": {m.role: m.name for m in self.models.catalog.models
                       if "default" in m.tags and self.models.is_installed(m.name)},
        }

    # -- retrieval -----------------------------------------------------------------------------
    def retriever(self) -> HybridRetriever:
        return HybridRetriever(self.store, self.embedder)

    def search(self, query: str, k: int | None = None, corpus: str = PARAGRAPH, mode: str = "hybrid") -> list[Hit]:
        """Ranked items with scores and locators, no LLM."""
        return self.retriever().search(query, corpus, k or self.settings.search_k, mode=mode)

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

        found = [s for s in sources.from_catalog(self.catalog.sources()) if s.name == source]
        if not found:
            raise TroveError(f"no table, database, graph or RDF source named {source!r} (see trove status)")
        statement = sources.validate(found[0], query, self.stores)
        return sources.run(found[0], statement, self.stores, self.settings.query_timeout_s, self.settings.query_rows)

    @property
    def stores(self):  # noqa: ANN201 (engine.native.sources.Stores)
        from engine.native.sources import Stores

        return Stores(self.tables, self.graphs, self.rdf)

    def route(self, question: str) -> list[Route]:
        corpora = self.store.corpora()
        kinds = {src["kind"] for src in self.catalog.sources()}
        available = {label for label, corpus in LABELS.items() if corpus and corpus in corpora}
        available |= {label for label, source_kinds in NATIVE.items() if kinds & set(source_kinds)}
        return self.router.route(question, available)

    def _native(self, question: str, vector, kinds: set[str]  # noqa: ANN001
                ) -> tuple[list[tuple[str, Hit]], list[QueryRun]]:
        """Native queries over the structured sources of `kinds`: select sources, write, validate,
        repair, run; results as hits."""
        from engine.native import evidence as native_evidence
        from engine.native import selection, sources
        from engine.native.examples import ExamplePicker
        from engine.native.querying import write_and_run
        from engine.native.writers import writer_for

        if self._source_index is None:
            self._source_index = selection.SourceIndex(self.embedder)
            self._examples = ExamplePicker(self.embedder)
        self._source_index.refresh(sources.from_catalog(self.catalog.sources()))
        candidates = [(s, sim) for s, sim in self._source_index.nearest(vector, self.settings.source_candidates, kinds)
                      if sim >= self.settings.source_min_similarity]
        chosen = selection.choose(self.llm, question, candidates, self.settings.sources_per_question)
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
                hits.append((native_evidence.KIND[source.language], native_evidence.as_hit(outcome, question, i)))
        return hits, runs

    # -- asking --------------------------------------------------------------------------------
    def ask(self, question: str, image: Path | str | None = None,
            on_token: Callable[[str], None] | None = None) -> AskResult:
        """Route, retrieve, pack evidence, generate a cited answer; timings per stage."""
        question = " ".join(question.split())
        if not question:
            raise ValueError("the question is empty")
        if image is not None:
            raise TroveError(f"{image}: asking about a photo needs photo indexing, which this version of Trove "
                             "does not have yet")
        timings: dict[str, float] = {}
        t_start = time.perf_counter()
        with _timed(timings, "route"):
            routes = self.route(question)
        hits: list[tuple[str, Hit]] = []
        runs: list[QueryRun] = []
        vector = self.embedder.embed_one(question)
        kinds = {kind for route in routes for kind in NATIVE.get(route.label, ())}
        if kinds:
            with _timed(timings, "query"):
                hits, runs = self._native(question, vector, kinds)
        with _timed(timings, "retrieve"):
            retriever = self.retriever()
            for route in routes:
                corpus = LABELS.get(route.label)
                if corpus:
                    kind = route.label
                    hits += [(kind, h) for h in retriever.search(question, corpus, self.settings.evidence_items,
                                                                 vector=vector)]
        result = AskResult(question=question, answer="", routes=[r.as_dict() for r in routes], queries=runs)
        relevant = [(kind, h) for kind, h in hits if h.relevance >= self.settings.min_relevance]
        if not relevant:
            result.answer, result.answered = (NOTHING_RELEVANT if hits else answering.NOT_FOUND), False
            return _finish(result, timings, t_start)
        with _timed(timings, "select"):
            excerpts = self._excerpts(relevant, vector)
            evidence = pack(relevant, self.settings.evidence_items, self.settings.evidence_tokens, excerpts)
        with _timed(timings, "generate"):
            computed = _computed_answer(evidence)
            if computed is not None:  # an aggregate, a single row or a short list: the engine's result
                ev, values = computed
                if "listing" in ev.locator:
                    draft = answering.state_rows(self.llm, question, ev.locator["listing"], Path(ev.source).name, ev.n)
                else:
                    draft = answering.state_result(self.llm, question, ev.locator["result"], values, ev.n)
                if on_token:
                    on_token(draft.text)
            else:
                draft = answering.generate(self.llm, question, evidence, self.settings.answer_max_tokens, on_token)
        result.model = self.llm.name
        mapping = {old: new for new, old in enumerate(draft.cited, start=1)}
        result.answer = answering.renumber(draft.text, mapping)
        result.answered = draft.answered
        result.unsupported = draft.unsupported
        by_n = {e.n: e for e in evidence}
        result.citations = [Citation(n=mapping[old], kind=by_n[old].kind, source=by_n[old].source,
                                     locator=by_n[old].locator, text=by_n[old].text, title=by_n[old].title,
                                     score=round(by_n[old].score, 4)) for old in draft.cited]
        return _finish(result, timings, t_start)

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


def _computed_answer(evidence: list) -> tuple | None:  # list[Evidence] -> (Evidence, [values]) | None
    """The first evidence when it is a query result the answer can state whole: one row (a total, a
    count, a best row) or a short list of rows."""
    if not evidence or evidence[0].kind not in ("table", "graph", "rdf"):
        return None
    values = evidence[0].locator.get("values")
    if values is None and "listing" not in evidence[0].locator:
        return None
    return evidence[0], [str(v) for v in values or []]


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
