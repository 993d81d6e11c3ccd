"""Incremental, kill-safe indexing of the user's folders.

Each file is parsed and embedded first, then its old items are replaced and its catalog row
updated in ONE SQLite transaction: a kill at any moment leaves every file either fully at its
old state or fully at its new one. Files that vanished are removed from every corpus.
"""

from __future__ import annotations

import fcntl
import glob
import hashlib
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from engine.corpora import DOCUMENT, LOOKS, PARAGRAPH, PHOTO
from engine.errors import ParseError, SkipFile, TroveError
from engine.grounding.pack import KnowledgePack, is_pack_file, load_pack
from engine.ingest import documents, isolation, media, media_tables, rdf, tables
from engine.ingest.graphs import load as graphs
from engine.ingest.graphs import vault
from engine.ingest.isolation import Limits
from engine.ingest.parsed import AttachedTable
from engine.ingest.parsers import kind_of as document_kind
from engine.ingest.parsers import version_of as parser_version
from engine.ingest.photos import sidecars, thumbnails
from engine.ingest.photos.pictures import add_pictures
from engine.ingest.scanner import Found, scan
from engine.ingest.scanner import readable as readable_name
from engine.settings import Settings
from local_stores.catalog import Catalog, FileRecord
from local_stores.corpus_store import CorpusStore, ItemKey
from local_stores.graph_store import GraphStore
from local_stores.index_database import IndexDatabase
from local_stores.rdf_store import RdfStore
from local_stores.table_store import TableInfo, TableStore, table_name

if TYPE_CHECKING:
    import numpy as np

    from engine.ingest.photos.analyse import VisionModels
    from engine.runtimes.text_embedder import TextEmbedder

Reader = Callable[["Found", "Outcome", "IndexReport"], None]  # reads a file into its outcome, timed in the report
# the setting that limits a file's size, by kind (any other kind: max_file_mb)
SIZE_LIMITS = {"video": "max_video_mb", "mailbox": "max_mailbox_mb"}


def kind_of(path: Path) -> str | None:
    """The kind of a file Trove indexes (a document, a graph, RDF, a table, a photo, a video, or the
    sidecar caption of a photo), or None."""
    if sidecars.media_of(path):
        return "sidecar"
    if is_pack_file(path):
        return "pack"
    return (document_kind(path) or graphs.kind_of(path) or rdf.kind_of(path) or tables.kind_of(path)
            or media.kind_of(path))


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
    reused: int = 0  # items of changed files whose text was unchanged: their vectors were kept, not remade
    ocr_pages: int = 0  # scanned PDF pages read with OCR
    # a Counter, so a stage's first seconds add to 0; typeshed types a Counter's counts as int, not float
    timings_s: dict[str, float] = field(default_factory=Counter)  # type: ignore[arg-type]
    problems: list[tuple[str, str, str]] = field(default_factory=list)  # (path, state, reason)

    def as_dict(self) -> dict:
        return {k: (dict(v) if isinstance(v, Counter) else v) for k, v in self.__dict__.items()}


def sha256_file(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


UNEXPECTED = "unexpected error"
BATCH_TEXTS = 64  # items embedded together across files (fewer, evenly padded batches)
BATCH_FILES = 16
ENGINES = {"sqlite": "sqlite-vec+fts5", "postgres": "pgvector+tsvector"}  # the documents source's, by index database
LOCK_FILE = "index.lock"  # in the Trove home: held (flock) by the one index run allowed at a time


@contextmanager
def index_lock(home: Path) -> Iterator[None]:
    """Hold the home's index lock for a whole run: a second run on the same home (another process, or
    another Trove in this one) stops at once with TroveError, naming the pid that holds it. The lock
    goes with the process, however it ends."""
    home.mkdir(parents=True, exist_ok=True)
    fd = os.open(home / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            raise TroveError(f"another trove index is running on {home} (pid {pid})") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)


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


def _pack_descriptor(pack: KnowledgePack) -> dict:
    """A knowledge pack as a source: read again at ask time; its names are kept for `trove status`."""
    return {"engine": "pack", "name": pack.name, "file": str(pack.path),
            "entities": [{"name": e.name, "kind": e.kind, "elements": [el.name for el in e.elements],
                          "reference_photos": [str(p) for p in e.reference_photos]} for e in pack.entities]}


def _read_with_its_photo(found: Found, outcome: Outcome, report: IndexReport) -> None:  # noqa: ARG001
    """A photo's sidecar (.xmp, .json) is read with its photo, which is read again when it changes."""


def _read_pack(found: Found, outcome: Outcome, report: IndexReport) -> None:  # noqa: ARG001
    outcome.source = _pack_descriptor(load_pack(found.path))


def _retry(record: FileRecord) -> bool:
    """A file that failed on a bug (not on its content) is tried again on every run."""
    return record.state == "failed" and (record.reason or "").startswith(UNEXPECTED)


class Indexer:
    def __init__(self, settings: Settings, db: IndexDatabase, catalog: Catalog, store: CorpusStore,
                 embedder_factory: Callable[[], TextEmbedder], table_store: TableStore | None = None,
                 graph_store: GraphStore | None = None, rdf_store: RdfStore | None = None,
                 vision_factory: Callable[[], VisionModels] | None = None,
                 looks_model: Callable[[], str | None] | None = None) -> None:
        self.settings, self.db, self.catalog, self.store = settings, db, catalog, store
        self._looks_model = looks_model  # the installed text-image model's name, if any (photos' looks vectors)
        self.tables = table_store or TableStore(settings.tables_path)
        self.graphs = graph_store or GraphStore(settings.graphs_path)
        self.rdf = rdf_store or RdfStore(settings.rdf_path)
        self._claimed: dict[str, str] = {}  # table names given in this run, before the catalog has them
        self._embedder_factory = embedder_factory
        self._embedder: TextEmbedder | None = None
        self._vision_factory = vision_factory
        self._vision: VisionModels | None = None
        self._force: set[str] = set()  # photos to re-read although unchanged (their sidecar changed)
        self._references: dict[str, str] = {}
        self._recaption: set[str] = set()  # photos whose alt text in a note changed during this run
        self._media_changed = False
        self._readers: dict[str, Reader] = {  # by file kind; any other kind is read as a document
            **dict.fromkeys(media.KINDS, self._read_media), **dict.fromkeys(tables.KINDS, self._read_tables),
            "database": self._read_database,  # a SQLite or DuckDB file is queried in place, not loaded
            "graph": self._read_graph, "rdf": self._read_rdf, "sidecar": _read_with_its_photo, "pack": _read_pack}

    @property
    def embedder(self) -> TextEmbedder:
        """The text embedder, loaded on first use."""
        if self._embedder is None:
            self._embedder = self._embedder_factory()
            name = "all-minilm-l6-v2-int8"
            for corpus, gran in ((PARAGRAPH, "paragraph"), (DOCUMENT, "document")):
                self.store.ensure_corpus(corpus, "text", gran, self._embedder.dim, name)
        return self._embedder

    @property
    def vision(self) -> VisionModels:
        """The vision models, loaded on the first photo."""
        if self._vision is None:
            if self._vision_factory is None:
                from engine.ingest.photos.analyse import VisionModels

                self._vision = VisionModels()
            else:
                self._vision = self._vision_factory()
        return self._vision

    def run(self, paths: Iterable[Path] = (), progress: Callable[[Progress], None] | None = None) -> IndexReport:
        """Add `paths` as roots (when given) and bring every root's index up to date."""
        try:
            return self._run(paths, progress)
        finally:
            isolation.close_workers()  # the reader processes kept during the run

    def _run(self, paths: Iterable[Path], progress: Callable[[Progress], None] | None) -> IndexReport:
        report = IndexReport()
        self._add_roots(paths)
        t0 = time.perf_counter()
        plan = self._scan()
        report.timings_s["scan"] += time.perf_counter() - t0
        report.seen = len(plan)
        seen_paths = {str(f.path) for _, f in plan}
        records = self.catalog.files()
        stale = [r for r in records if r.path not in seen_paths]
        readable = [(root_id, f) for root_id, f in plan if f.state is None]  # the files that may be read
        self._force = (self._captions_changed(readable, stale) | self._photos_without_looks(readable)
                       | self._parsers_changed(readable, records))
        self._references = self._pack_references(readable)
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

        # Notes first, written before any photo is read: the alt text they give a photo is then in the
        # catalog when the photo's text is made (otherwise the photo would be analysed twice).
        ordered = sorted(plan, key=lambda pair: pair[1].kind != "markdown")
        prepared_photos: set[str] = set()
        for position, (root_id, found) in enumerate(ordered):
            if found.kind != "markdown" and position and ordered[position - 1][1].kind == "markdown":
                flush()
            outcome = self._prepare(root_id, found, report)
            if outcome is None:
                done += 1
                if progress:
                    progress(Progress(done, len(plan), str(found.path), "unchanged"))
                continue
            if found.kind == "photo":
                prepared_photos.add(str(found.path))
            pending.append(outcome)
            if sum(len(o.prepared.texts) for o in pending if o.prepared) >= BATCH_TEXTS or len(pending) >= BATCH_FILES:
                flush()
        flush()
        recaption = [(root_id, found) for root_id, found in plan
                     if str(found.path) in self._recaption - prepared_photos and found.kind == "photo"]
        self._force |= self._recaption
        for root_id, found in recaption:  # a note that embeds the photo changed its alt text
            outcome = self._prepare(root_id, found, report)
            if outcome is not None:
                pending.append(outcome)
        self._write(pending, report)
        pending.clear()
        t1 = time.perf_counter()
        self._index_vaults(readable, report)
        report.timings_s["vaults"] += time.perf_counter() - t1
        self._describe_text_corpora()
        if self._media_changed:
            t2 = time.perf_counter()
            for kind in media_tables.TABLE:
                media_tables.refresh(kind, self.catalog, self.tables)
            report.timings_s["media tables"] += time.perf_counter() - t2
        self._remember_parsers(readable)
        self.drop_orphans()
        thumbnails.drop_unused(self.settings.thumbs_path, {r.sha256 for r in self.catalog.files() if r.sha256})
        if progress:
            progress(Progress(len(plan), len(plan), "", "done"))
        return report

    def _add_roots(self, paths: Iterable[Path]) -> None:
        """Follow `paths` from now on; a name SQLite cannot store (not UTF-8) is refused, saying why."""
        for p in paths:
            p = Path(p).expanduser()
            if not p.exists():
                raise TroveError(f"{readable_name(p)}: no such file or folder")
            if readable_name(p.resolve()) != str(p.resolve()):
                raise TroveError(f"{readable_name(p)}: the name is not valid UTF-8: rename it to index it")
            self.catalog.add_root(p)

    def _scan(self) -> list[tuple[int, Found]]:
        """(root id, file) for every file under every root; links out of a root are not followed
        unless the setting follow_links is true (they come back as skipped)."""
        return [(root_id, found) for root_id, root in self.catalog.roots()
                for found in scan(Path(root), kind_of, exclude=(self.settings.home,),
                                  follow_links=self.settings.follow_links)]

    @staticmethod
    def _pack_references(plan: list[tuple[int, Found]]) -> dict[str, str]:
        """Reference photos of the knowledge packs (photo -> pack): they teach grounding what an
        element looks like and are not photos to answer from."""
        refs: dict[str, str] = {}
        for _, found in plan:
            if found.kind == "pack":
                try:
                    pack = load_pack(found.path)
                except TroveError:
                    continue  # the pack's own record says why
                for entity in pack.entities:
                    refs.update({str(p): found.path.name for p in entity.reference_photos})
        return refs

    def _captions_changed(self, plan: list[tuple[int, Found]], stale: list[FileRecord]) -> set[str]:
        """Photos and videos whose sidecar (caption, subtitles) was added, changed or deleted since the
        last run."""
        owners = set()
        for _, found in plan:
            if found.kind == "sidecar":
                record = self.catalog.file(str(found.path))
                if not record or record.size != found.size or record.mtime_ns != found.mtime_ns:
                    owners.add(str(sidecars.media_of(found.path)))
        for record in stale:
            if record.kind == "sidecar":
                stem = Path(record.path).with_suffix("")
                for base in (stem, stem.with_suffix("")):
                    owners |= {str(p) for p in base.parent.glob(glob.escape(base.name) + ".*") if media.kind_of(p)}
        return owners

    def forget(self, record: FileRecord) -> list[str]:
        """Take a file out of every corpus and the catalog, in one transaction; returns the names of
        the sources it had (their DuckDB tables are dropped as orphans, or by the caller)."""
        names = self.catalog.sources_at(record.path)
        with self.db.transaction():
            self.store.delete_file(record.id)
            for name in names:
                self.catalog.delete_source(name)
            self.catalog.forget_file(record.id)
        if record.kind in media.KINDS:
            self._media_changed = True
        return names

    def _describe_text_corpora(self) -> None:
        """Register the document corpora as a source, with the summary source selection reads."""
        corpora = {name: n for name, n in self.store.corpora().items() if name.startswith("text/")}
        kinds = self.catalog.counts()
        self.catalog.upsert_source(
            "documents", kind="text", engine=ENGINES[self.db.dialect], location=self.db.where,
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

    def _limits(self) -> Limits:
        """The time and memory a reader run in a worker process may use (engine.ingest.isolation)."""
        return {"timeout_s": self.settings.parse_timeout_s, "memory_mb": self.settings.ingest_memory_mb}

    def _table_name(self, path: str, sheet: str | None = None, attached: AttachedTable | None = None) -> str:
        """A table's name: the one it had, else a new one no other table has or was just given. A table
        attached to a mail is named by its attachment, and told apart by its message's number."""
        where = (attached.name, attached.page) if attached else None
        key = f"{path}\x00{sheet or ''}\x00{where}"
        known = self.catalog.sources()
        for src in known:
            if (src["location"] == path and src["descriptor"].get("sheet") == sheet
                    and tables.same_attachment(src["descriptor"], attached)):
                return src["name"]
        if key not in self._claimed:
            taken = {src["name"] for src in known} | set(self._claimed.values())
            stem = tables.stem(path, attached) + (f" {sheet}" if sheet else "")
            self._claimed[key] = table_name(stem, taken)
        return self._claimed[key]

    def _photos_without_looks(self, plan: list[tuple[int, Found]]) -> set[str]:
        """Photos indexed before a text-image model was imported: read again, so that they too are
        found by their looks."""
        model = self._looks_model() if self._looks_model else None
        if model is None:
            return set()
        if self.store.embedder_of(LOOKS) not in (None, model):  # another model's vectors: start again
            self.store.drop_corpus(LOOKS)
        indexed = self.store.sources(PHOTO) - self.store.sources(LOOKS)
        return {str(found.path) for _, found in plan if found.kind == "photo" and str(found.path) in indexed}

    def _parsers_changed(self, plan: list[tuple[int, Found]], records: list[FileRecord]) -> set[str]:
        """Documents of a kind whose parser changed since they were read (its `VERSION` is not the
        one `_remember_parsers` kept; 1 when none was kept): read again. A kind none of whose files
        was read before gets its version now, so a first run cut short reads nothing twice."""
        read_before = {r.kind for r in records if r.state == "indexed"}
        changed = set()
        for kind in {found.kind for _, found in plan}:
            kept = self.catalog.memo(f"parser:{kind}")
            if kept is None and kind not in read_before:
                self.catalog.remember(f"parser:{kind}", str(_version_of(kind)))
            elif (kept or "1") != str(_version_of(kind)):
                changed.add(kind)
        return {str(found.path) for _, found in plan if found.kind in changed}

    def _remember_parsers(self, plan: list[tuple[int, Found]]) -> None:
        """The version of each kind's parser the run read with (once every file was written)."""
        for kind in {found.kind for _, found in plan}:
            self.catalog.remember(f"parser:{kind}", str(_version_of(kind)))

    def _prepare(self, root_id: int, found: Found, report: IndexReport) -> Outcome | None:
        """The file hashed and read by the reader of its kind (`_readers`); None when it has not changed."""
        path_s = str(found.path)
        record = self.catalog.file(path_s)
        forced = path_s in self._force
        if (record and record.size == found.size and record.mtime_ns == found.mtime_ns and not _retry(record)
                and not forced):
            report.unchanged += 1
            return None
        t0 = time.perf_counter()
        outcome = Outcome(root_id, found)
        if found.state:  # the scanner's verdict (a link out of the folder, a name that is not UTF-8)
            outcome.state, outcome.reason = found.state, found.reason
            return outcome
        try:
            if found.size < 0:
                raise ParseError("cannot read: the file vanished or is a broken link")
            if found.size == 0:
                raise SkipFile("empty file")
            setting = SIZE_LIMITS.get(found.kind, "max_file_mb")
            limit_mb = getattr(self.settings, setting)
            if found.size > limit_mb * 2**20:
                raise SkipFile(f"too large: {found.size / 2**20:.1f} MB is over the {limit_mb:g} MB "
                               f"limit (setting {setting})")
            outcome.sha = sha256_file(found.path)
            report.timings_s["hash"] += time.perf_counter() - t0
            if record and record.sha256 == outcome.sha and record.state == "indexed" and not forced:
                self.catalog.touch_file(record.id, found.size, found.mtime_ns)
                report.unchanged += 1
                return None
            self._readers.get(found.kind, self._read_document)(found, outcome, report)
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

    # -- reading a file, by its kind: one reader each (self._readers) ---------------------------------------
    def _read_database(self, found: Found, outcome: Outcome, report: IndexReport) -> None:
        t0 = time.perf_counter()
        outcome.source = tables.describe_database(found.path, **self._limits())
        report.timings_s["tables"] += time.perf_counter() - t0

    def _read_graph(self, found: Found, outcome: Outcome, report: IndexReport) -> None:
        t0 = time.perf_counter()
        outcome.source = graphs.load(self.graphs, self._table_name(str(found.path)), found.path)
        report.timings_s["graphs"] += time.perf_counter() - t0

    def _read_rdf(self, found: Found, outcome: Outcome, report: IndexReport) -> None:
        t0 = time.perf_counter()
        outcome.source = rdf.load(self.rdf, self._table_name(str(found.path)), found.path)
        report.timings_s["rdf"] += time.perf_counter() - t0

    def _read_media(self, found: Found, outcome: Outcome, report: IndexReport) -> None:
        path_s = str(found.path)
        if path_s in self._references:
            raise SkipFile(f"a reference photo of the knowledge pack {self._references[path_s]}")
        assert outcome.sha is not None  # hashed before any reader runs
        outcome.prepared = media.prepare(found, outcome.sha, self.vision, self.settings,
                                         self.catalog.alt_texts(path_s))
        for stage, seconds in outcome.prepared.timings.items():
            report.timings_s[stage] += seconds

    def _read_tables(self, found: Found, outcome: Outcome, report: IndexReport) -> None:
        """Into DuckDB, before the catalog: a kill in between is repaired next run (same table name,
        CREATE OR REPLACE; orphans dropped at the end of a run)."""
        t0 = time.perf_counter()
        outcome.tables = tables.load(self.tables, lambda sheet: self._table_name(str(found.path), sheet), found.path,
                                     max_unpacked_mb=self.settings.max_unpacked_mb, **self._limits())
        report.timings_s["tables"] += time.perf_counter() - t0

    def _read_document(self, found: Found, outcome: Outcome, report: IndexReport) -> None:
        prepared = documents.cut_document(found.path, self.settings.paragraph_words, self.settings.document_tokens,
                                          max_unpacked_mb=self.settings.max_unpacked_mb, **self._limits(),
                                          **self._page_ocr())
        outcome.prepared = prepared
        report.ocr_pages += prepared.ocr_pages
        report.timings_s["ocr"] += prepared.timings.get("ocr", 0.0)
        if prepared.pictures and self.settings.document_pictures:
            assert outcome.sha is not None  # hashed before any reader runs
            self._add_pictures(found.path, outcome.sha, prepared, report)
        for attached in prepared.attached_tables:
            self._load_attached(found, outcome, attached, report)
        prepared.attached_tables = []  # their bytes are not needed any more
        if found.kind == "markdown":
            markdown = found.path.read_text("utf-8", "replace")  # the parsed text has no image links
            prepared.image_refs = [(str(p), alt) for p, alt in sidecars.image_refs(markdown, found.path)]
        report.timings_s["parse"] += prepared.timings["parse"]

    def _load_attached(self, found: Found, outcome: Outcome, attached: AttachedTable, report: IndexReport) -> None:
        """A table attached to a message of the mail file (or printed in the PDF) into DuckDB; one that
        cannot be read is a warning of the file, which is indexed all the same."""
        t0 = time.perf_counter()
        path = str(found.path)
        try:
            outcome.tables += tables.load_attached(
                self.tables, lambda sheet: self._table_name(path, sheet, attached), attached, found.path,
                max_unpacked_mb=self.settings.max_unpacked_mb, **self._limits())
        except (ParseError, SkipFile) as exc:
            assert outcome.prepared is not None  # the mail was read before its attachments are loaded
            what = Path(attached.name).stem if attached.printed else f"attachment {attached.name}"
            outcome.prepared.warnings.append(f"{what} not loaded: {exc}")
        report.timings_s["tables"] += time.perf_counter() - t0

    def _add_pictures(self, path: Path, sha256: str, prepared: documents.Prepared, report: IndexReport) -> None:
        """The document's pictures analysed as photos, their items added to the document's."""
        settings = self.settings
        add_pictures(prepared, path, sha256, prepared.pictures, prepared.page_kind, self.vision,
                     settings.thumbs_path, settings.region_overlap, settings.region_min)
        prepared.pictures = []  # their bytes are not needed any more
        for stage in [s for s in prepared.timings if s.startswith("vision") or s == "pictures"]:
            report.timings_s[stage] += prepared.timings.pop(stage)

    def _page_ocr(self) -> dict:
        """How scanned PDF pages are read: the photos' OCR, loaded on the first such page."""
        if not self.settings.pdf_ocr:
            return {"ocr": None, "ocr_off": "OCR of scanned pages is off (setting pdf_ocr = false)"}
        return {"ocr": lambda: self.vision.ocr,
                "ocr_off": "no OCR reads them (the OCR model is not installed, or setting photo_ocr = false)"}

    def _ensure_corpora(self, prepared: documents.Prepared) -> None:
        """The photo and video corpora are made on the first item that needs them."""
        for corpus in {item.corpus for item in prepared.items} - {PARAGRAPH, DOCUMENT}:
            modality, granularity = corpus.split("/")
            self.store.ensure_corpus(corpus, modality, granularity, self.embedder.dim, "all-minilm-l6-v2-int8")
        made: set[str] = set()
        for item, vector in prepared.fixed:  # one vector space per corpus: the image embedder's, a CLIP's
            if item.corpus not in made:
                made.add(item.corpus)
                modality, granularity = item.corpus.split("/")
                self.store.ensure_corpus(item.corpus, modality, granularity, len(vector),
                                         item.extra.get("embedder", "image-embedder"))

    def _known_vectors(self, path: str) -> dict[ItemKey, np.ndarray]:
        """The vectors of a file's items as last indexed (none for a new file)."""
        record = self.catalog.file(path)
        return self.store.file_vectors(record.id) if record and record.items else {}

    def _write(self, batch: list[Outcome], report: IndexReport) -> None:
        """Embed the batch's items together, then write each file in a transaction of its own."""
        ready = [o.prepared for o in batch if o.prepared]
        if ready:
            known = [self._known_vectors(str(o.found.path)) for o in batch if o.prepared]
            seconds, reused = documents.embed_all(ready, self.embedder, known)  # ModelError stops the run
            report.timings_s["embed"] += seconds
            report.reused += reused
        t0 = time.perf_counter()
        for o in batch:  # before any transaction: making a corpus commits (executescript)
            if o.prepared:
                self._ensure_corpora(o.prepared)
        for o in batch:
            items = o.prepared.items if o.prepared else []
            with self.db.transaction():
                reason = o.reason or ("; ".join(o.prepared.warnings) if o.prepared and o.prepared.warnings else None)
                file_id = self.catalog.record_file(o.root_id, str(o.found.path), o.found.kind, o.found.size,
                                                   o.found.mtime_ns, o.sha, o.state, reason,
                                                   len(items) or sum(t.rows for t in o.tables))
                self.store.delete_file(file_id)
                if o.prepared:
                    for item in items:
                        item.file_id = file_id
                    assert o.prepared.vectors is not None  # embed_all gave every prepared file its vectors
                    self.store.add(items, o.prepared.vectors)
                    for item, vector in o.prepared.fixed:
                        item.file_id = file_id
                        self.store.add([item], vector[None, :])
                    self.store.set_file_text(file_id, o.prepared.file_text)
                if o.found.kind in media.KINDS:
                    row = o.prepared.media[1] if o.prepared and o.prepared.media else None  # set for every media file
                    self.catalog.set_media(file_id, o.found.kind, row)
                    self._media_changed = True
                if o.found.kind == "markdown":
                    refs = o.prepared.image_refs if o.prepared else []
                    changed = self.catalog.set_image_refs(file_id, refs)
                    self._recaption |= changed
                source_name = self._table_name(str(o.found.path)) if o.source else None
                kept = {t.name for t in o.tables} | {source_name}
                for name in self.catalog.sources_at(str(o.found.path)):
                    if name not in kept:
                        self.catalog.delete_source(name)  # its DuckDB table goes with the orphans
                for table in o.tables:
                    self.catalog.upsert_source(table.name, "table", "duckdb", str(o.found.path),
                                               table.descriptor())
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


def _version_of(kind: str) -> int:
    """The version of the reader of a kind of file: a document parser's, the table reader's, a medium's."""
    if kind in media.KINDS:
        return media.VERSIONS.get(kind, 1)
    return tables.VERSION if kind in tables.KINDS else parser_version(kind)
