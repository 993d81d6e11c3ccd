"""Incremental, kill-safe indexing of the user's folders.

Each file is parsed and embedded first, then its old items are replaced and its catalog row
updated in ONE SQLite transaction: a kill at any moment leaves every file either fully at its
old state or fully at its new one. Files that vanished are removed from every corpus.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import ParseError, SkipFile, TroveError
from engine.ingest import documents, rdf, tables
from engine.ingest.graphs import load as graphs
from engine.ingest.graphs import vault
from engine.ingest.parsers import kind_of as document_kind
from engine.ingest.scanner import Found, scan
from engine.settings import Settings
from local_stores.catalog import Catalog
from local_stores.graph_store import GraphStore
from local_stores.rdf_store import RdfStore
from local_stores.sqlite_db import Database
from local_stores.table_store import TableInfo, TableStore, table_name
from local_stores.vector_store import VectorStore


def kind_of(path: Path) -> str | None:
    """The kind of a file Trove indexes (a document, a graph, RDF or a table), or None."""
    return document_kind(path) or graphs.kind_of(path) or rdf.kind_of(path) or tables.kind_of(path)




@dataclass
class Progress:
    done: int
    total: int
    path: str
    stage: str  # scan | index | skip | remove | done


@dataclass
class IndexReport:
    seen: int = 0
    indexed: int = 0
    unchanged: int = 0
    skipped: int = 0
    failed: int = 0
    removed: int = 0
    items: int = 0
    timings_s: dict[str, float] = field(default_factory=Counter)
    problems: list[tuple[str, str, str]] = field(default_factory=list)  # (path, state, reason)

    def as_dict(self) -> dict:
        return {k: (dict(v) if isinstance(v, Counter) else v) for k, v in self.__dict__.items()}


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


UNEXPECTED = "unexpected error"
BATCH_TEXTS = 64  # items embedded together across files (fewer, evenly padded batches)
BATCH_FILES = 16


@dataclass
class Outcome:
    """What indexing one file came to, before it is written."""

    root_id: int
    found: Found
    sha: str | None = None
    state: str = "indexed"
    reason: str | None = None
    prepared: documents.Prepared | None = None
    tables: list[TableInfo] = field(default_factory=list)
    source: dict | None = None  # descriptor of a database, graph or RDF file (one source per file)


def _retry(record) -> bool:  # noqa: ANN001 (FileRecord)
    """A file that failed on a bug (not on its content) is tried again on every run."""
    return record.state == "failed" and (record.reason or "").startswith(UNEXPECTED)


class Indexer:
    def __init__(self, settings: Settings, db: Database, catalog: Catalog, store: VectorStore,
                 embedder_factory: Callable[[], object], table_store: TableStore | None = None,
                 graph_store: GraphStore | None = None, rdf_store: RdfStore | None = None) -> None:
        self.settings, self.db, self.catalog, self.store = settings, db, catalog, store
        self.tables = table_store or TableStore(settings.tables_path)
        self.graphs = graph_store or GraphStore(settings.graphs_path)
        self.rdf = rdf_store or RdfStore(settings.rdf_path)
        self._claimed: dict[str, str] = {}  # table names given in this run, before the catalog has them
        self._embedder_factory = embedder_factory
        self._embedder = None

    @property
    def embedder(self):  # noqa: ANN201 (a TextEmbedder; loaded on first use)
        if self._embedder is None:
            self._embedder = self._embedder_factory()
            name = "all-minilm-l6-v2-int8"
            for corpus, gran in ((documents.PARAGRAPH, "paragraph"), (documents.DOCUMENT, "document")):
                self.store.ensure_corpus(corpus, "text", gran, self._embedder.dim, name)
        return self._embedder

    def run(self, paths: Iterable[Path] = (), progress: Callable[[Progress], None] | None = None) -> IndexReport:
        """Add `paths` as roots (when given) and bring every root's index up to date."""
        report = IndexReport()
        for p in paths:
            p = Path(p).expanduser()
            if not p.exists():
                raise TroveError(f"{p}: no such file or folder")
            self.catalog.add_root(p)
        t0 = time.perf_counter()
        plan: list[tuple[int, Found]] = []
        for root_id, root in self.catalog.roots():
            for found in scan(Path(root), kind_of, exclude=(self.settings.home,)):
                plan.append((root_id, found))
        report.timings_s["scan"] += time.perf_counter() - t0
        report.seen = len(plan)
        seen_paths = {str(f.path) for _, f in plan}
        stale = [r for r in self.catalog.files() if r.path not in seen_paths]
        for record in stale:
            self.forget(record)
            report.removed += 1
            if progress:
                progress(Progress(0, len(plan), record.path, "remove"))
        pending: list[Outcome] = []
        done = 0

        def flush() -> None:
            nonlocal done
            self._write(pending, report)
            for outcome in pending:
                done += 1
                if progress:
                    progress(Progress(done, len(plan), str(outcome.found.path), "index"))
            pending.clear()

        for root_id, found in plan:
            outcome = self._prepare(root_id, found, report)
            if outcome is None:
                done += 1
                if progress:
                    progress(Progress(done, len(plan), str(found.path), "unchanged"))
                continue
            pending.append(outcome)
            if sum(len(o.prepared.texts) for o in pending if o.prepared) >= BATCH_TEXTS or len(pending) >= BATCH_FILES:
                flush()
        flush()
        t1 = time.perf_counter()
        self._index_vaults(plan, report)
        report.timings_s["vaults"] += time.perf_counter() - t1
        self._describe_text_corpora()
        self.drop_orphans()
        if progress:
            progress(Progress(len(plan), len(plan), "", "done"))
        return report

    def forget(self, record) -> list[str]:  # noqa: ANN001 (FileRecord)
        """Take a file out of every corpus and the catalog, in one transaction; returns the names of
        the sources it had (their DuckDB tables are dropped as orphans, or by the caller)."""
        names = self.catalog.sources_at(record.path)
        with self.db.transaction():
            self.store.delete_file(record.id)
            for name in names:
                self.catalog.delete_source(name)
            self.catalog.forget_file(record.id)
        return names

    def _describe_text_corpora(self) -> None:
        """Register the document corpora as a source, with the summary source selection reads."""
        corpora = self.store.corpora()
        kinds = self.catalog.counts()
        self.catalog.upsert_source(
            "documents", kind="text", engine="sqlite-vec+fts5", location=str(self.settings.index_path),
            descriptor={"corpora": corpora,
                        "files": {kind: states.get("indexed", 0) for kind, states in sorted(kinds.items())},
                        "languages": ["free text"], "granularities": ["paragraph", "document"]})

    def drop_orphans(self) -> None:
        """Tables and graphs no source refers to (a removed file, a run killed before its catalog write)."""
        sources = self.catalog.sources()
        for kind, store, names in (("table", self.tables, self.tables.tables()), ("graph", self.graphs,
                                   self.graphs.names()), ("rdf", self.rdf, self.rdf.names())):
            known = {src["name"] for src in sources if src["kind"] == kind}
            for name in names:
                if name not in known:
                    store.drop(name)

    def _index_vaults(self, plan: list[tuple[int, Found]], report: IndexReport) -> None:
        """Each folder of linked markdown notes (an Obsidian vault, or a root whose notes link to each
        other) becomes a graph source; rebuilt only when one of its notes changed."""
        notes: dict[int, list[Path]] = {}
        for root_id, found in plan:
            if found.path.suffix.lower() in vault.NOTE_SUFFIXES:
                notes.setdefault(root_id, []).append(found.path)
        found_vaults: dict[str, list[Path]] = {}
        for root_id, root in self.catalog.roots():
            root_path, members = Path(root), notes.get(root_id, [])
            marked = {p for n in members for p in n.parents if vault.is_vault(p) and p.is_relative_to(root_path)}
            for folder in sorted(marked, key=lambda p: -len(p.parts)):
                found_vaults[str(folder)] = [n for n in members if n.is_relative_to(folder)]
                members = [n for n in members if not n.is_relative_to(folder)]
            if root_path.is_dir() and len(members) >= 2:
                found_vaults.setdefault(str(root_path), members)
        known = {src["location"]: src for src in self.catalog.sources()
                 if src["kind"] == "graph" and src["descriptor"].get("format") == "vault"}
        for location, members in found_vaults.items():
            fp = vault.fingerprint(members)
            if location in known and known[location]["descriptor"].get("fingerprint") == fp:
                continue
            if location not in known and self.catalog.memo(f"not-a-vault:{location}") == fp:
                continue  # read before, unchanged, and not a graph
            graph = vault.read(Path(location), members)
            linked = sum(1 for e in graph.edges if e.type == "LINKS_TO")
            if not vault.is_vault(Path(location)) and linked < 2:
                self.catalog.remember(f"not-a-vault:{location}", fp)
                if location in known:
                    self.catalog.delete_source(known[location]["name"])
                continue  # notes that do not link to each other are documents, not a graph
            name = known[location]["name"] if location in known else self._table_name(location, "notes graph")
            try:
                descriptor = graphs.build(self.graphs, name, graph, location, "vault")
            except ParseError as exc:
                report.problems.append((location, "failed", str(exc)))
                continue
            descriptor["fingerprint"] = fp
            self.catalog.upsert_source(name, "graph", "kuzu", location, descriptor)
            report.items += 1
        for location, src in known.items():
            if location not in found_vaults:
                self.catalog.delete_source(src["name"])

    def _table_name(self, path: str, sheet: str | None = None) -> str:
        """A table's name: the one it had, else a new one no other table has or was just given."""
        key = f"{path}\x00{sheet or ''}"
        known = self.catalog.sources()
        for src in known:
            if src["location"] == path and src["descriptor"].get("sheet") == sheet:
                return src["name"]
        if key not in self._claimed:
            taken = {src["name"] for src in known} | set(self._claimed.values())
            stem = Path(path).stem + (f" {sheet}" if sheet else "")
            self._claimed[key] = table_name(stem, taken)
        return self._claimed[key]

    def _prepare(self, root_id: int, found: Found, report: IndexReport) -> Outcome | None:
        """Read and cut a document, or load a table into DuckDB; None when the file has not changed."""
        path_s = str(found.path)
        record = self.catalog.file(path_s)
        if record and record.size == found.size and record.mtime_ns == found.mtime_ns and not _retry(record):
            report.unchanged += 1
            return None
        t0 = time.perf_counter()
        outcome = Outcome(root_id, found)
        try:
            if found.size < 0:
                raise ParseError("cannot read: the file vanished or is a broken link")
            if found.size == 0:
                raise SkipFile("empty file")
            if found.size > self.settings.max_file_bytes:
                raise SkipFile(f"too large: {found.size / 2**20:.1f} MB is over the {self.settings.max_file_mb:g} MB "
                               "limit (setting max_file_mb)")
            outcome.sha = sha256_file(found.path)
            report.timings_s["hash"] += time.perf_counter() - t0
            if record and record.sha256 == outcome.sha and record.state == "indexed":
                self.catalog.touch_file(record.id, found.size, found.mtime_ns)
                report.unchanged += 1
                return None
            t1 = time.perf_counter()
            if found.kind == "database":
                outcome.source = tables.describe_database(found.path)
                report.timings_s["tables"] += time.perf_counter() - t1
            elif found.kind == "graph":
                outcome.source = graphs.load(self.graphs, self._table_name(path_s), found.path)
                report.timings_s["graphs"] += time.perf_counter() - t1
            elif found.kind == "rdf":
                outcome.source = rdf.load(self.rdf, self._table_name(path_s), found.path)
                report.timings_s["rdf"] += time.perf_counter() - t1
            elif found.kind in tables.KINDS:
                # DuckDB is written here, before the catalog: a kill in between is repaired next run
                # (same table name, CREATE OR REPLACE; orphans dropped at the end of a run).
                outcome.tables = tables.load(self.tables, lambda sheet: self._table_name(path_s, sheet), found.path)
                report.timings_s["tables"] += time.perf_counter() - t1
            else:
                outcome.prepared = documents.cut_document(found.path, self.settings.paragraph_words,
                                                          self.settings.document_tokens)
                report.timings_s["parse"] += outcome.prepared.timings["parse"]
        except SkipFile as exc:
            outcome.state, outcome.reason = "skipped", str(exc)
        except ParseError as exc:
            outcome.state, outcome.reason = "failed", str(exc)
        except PermissionError:
            outcome.state, outcome.reason = "failed", "cannot read: permission denied"
        except OSError as exc:
            outcome.state, outcome.reason = "failed", f"cannot read: {exc.strerror or exc}"
        except Exception as exc:  # a parser bug must not stop the run; the reason is kept
            outcome.state, outcome.reason = "failed", f"{UNEXPECTED} while reading: {type(exc).__name__}: {exc}"
        return outcome

    def _write(self, batch: list[Outcome], report: IndexReport) -> None:
        """Embed the batch's items together, then write each file in a transaction of its own."""
        ready = [o.prepared for o in batch if o.prepared]
        if ready:
            report.timings_s["embed"] += documents.embed_all(ready, self.embedder)  # ModelError stops the run
        t0 = time.perf_counter()
        for o in batch:
            items = o.prepared.items if o.prepared else []
            with self.db.transaction():
                file_id = self.catalog.record_file(o.root_id, str(o.found.path), o.found.kind, o.found.size,
                                                   o.found.mtime_ns, o.sha, o.state, o.reason,
                                                   len(items) or sum(t.rows for t in o.tables))
                self.store.delete_file(file_id)
                if o.prepared:
                    for item in items:
                        item.file_id = file_id
                    self.store.add(items, o.prepared.vectors)
                    self.store.set_file_text(file_id, o.prepared.file_text)
                source_name = self._table_name(str(o.found.path)) if o.source else None
                kept = {t.name for t in o.tables} | {source_name}
                for name in self.catalog.sources_at(str(o.found.path)):
                    if name not in kept:
                        self.catalog.delete_source(name)  # its DuckDB table goes with the orphans
                for table in o.tables:
                    self.catalog.upsert_source(table.name, "table", "duckdb", str(o.found.path),
                                               tables.descriptor(table))
                if o.source and source_name:
                    self.catalog.upsert_source(source_name, o.found.kind, o.source["engine"], str(o.found.path),
                                               o.source)
            if o.state == "indexed":
                report.indexed += 1
                report.items += len(items) + len(o.tables) + (1 if o.source else 0)
            else:
                setattr(report, o.state, getattr(report, o.state) + 1)
                report.problems.append((str(o.found.path), o.state, o.reason or ""))
        report.timings_s["write"] += time.perf_counter() - t0
