"""What changes a home's index, one run at a time under the home's lock: indexing folders,
removing one, connecting and disconnecting servers. A read-only home refuses each at once."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from engine import connections
from engine.errors import TroveError
from engine.ingest import replica
from engine.ingest.indexer import Indexer, IndexReport, Progress, index_lock
from engine.models.loaded import Models
from engine.native.querier import NativeQuerier
from engine.native.sources import Stores
from engine.settings import Settings
from local_stores.catalog import Catalog
from local_stores.corpus_store import CorpusStore
from local_stores.index_database import IndexDatabase, is_server


class IndexWriting:
    """Each call takes the settings in force then (a Trove's settings may be replaced between runs)."""

    def __init__(self, db: IndexDatabase, catalog: Catalog, store: CorpusStore, stores: Stores, models: Models,
                 native: NativeQuerier) -> None:
        self.db, self.catalog, self.store = db, catalog, store
        self.stores, self.models, self.native = stores, models, native

    def index(self, settings: Settings, paths: Iterable[Path | str] = (),
              progress: Callable[[Progress], None] | None = None) -> IndexReport:
        """Bring the index up to date (adding `paths` as roots), the connections' descriptions and
        the value index with it."""
        with self._writing(settings, "index"):
            before = replica.times(self.catalog)
            report = self.indexer(settings).run([Path(p) for p in paths], progress)
            if is_server(settings.index_backend):
                replica.adopt(self.catalog, settings, before)
            t0 = time.perf_counter()
            report.problems += connections.refresh(self.catalog)
            report.timings_s["connections"] += time.perf_counter() - t0
            t0 = time.perf_counter()
            self.native.value_index()  # the values of new and changed sources, read now rather than at a question
            report.timings_s["values"] += time.perf_counter() - t0
        return report

    def indexer(self, settings: Settings) -> Indexer:
        stores, models = self.stores, self.models
        return Indexer(settings, self.db, self.catalog, self.store, lambda: models.embedder, stores.tables,
                       stores.graphs, stores.rdf, lambda: models.vision, looks_model=models.looks_model)

    def remove(self, settings: Settings, path: Path | str) -> int:
        """Stop following a folder (or file) added before: its files leave every corpus. Returns how many."""
        target = str(Path(path).expanduser().resolve())
        roots = [(rid, p) for rid, p in self.catalog.roots() if p == target]
        if not roots:
            raise TroveError(f"{path}: not a folder Trove follows (see trove status)")
        with self._writing(settings, "remove"):
            records = self.catalog.files(roots[0][0])
            indexer = self.indexer(settings)
            for record in records:
                indexer.forget(record)
            for src in self.catalog.sources():  # sources of a folder, not a file (a vault of notes)
                if Path(src["location"]).is_relative_to(target):
                    self.catalog.delete_source(src["name"])
            self.catalog.remove_root(roots[0][0])
            indexer.drop_orphans()
        return len(records)

    def connect(self, settings: Settings, name: str, url: str, kind: str, options: dict | None,
                allow_writable: bool) -> dict:
        """Add a source on a server: described now, its values read, then asked like the local ones."""
        with self._writing(settings, "connect"):
            row = connections.connect(self.catalog, name, url, kind, options, allow_writable)
            self.native.value_index()
        return row

    def disconnect(self, settings: Settings, name: str) -> None:
        with self._writing(settings, "disconnect"):
            connections.disconnect(self.catalog, name)

    @contextmanager
    def _writing(self, settings: Settings, what: str) -> Iterator[None]:
        """Hold the home's index lock while the index is written; a read-only home refuses at once."""
        if self.db.read_only:
            raise TroveError(f"{settings.home} cannot be written (read-only): cannot {what}; "
                             "status, search and ask still work")
        with index_lock(settings.home):
            yield
