"""The catalog keeps the same records in either index database (SQLite in the home, PostgreSQL a
team shares): roots, files with stable ids, what goes with a forgotten file, sources and memos."""

from __future__ import annotations

from pathlib import Path

from local_stores.catalog import Catalog
from local_stores.index_database import IndexDatabase
from tests.local_stores.index_databases import index_db  # noqa: F401 (the fixture)
from tests.postgres_server import postgres  # noqa: F401 (the server the postgres index_db needs)


def test_the_sources_state_follows_every_change(index_db: IndexDatabase):  # noqa: F811
    catalog = Catalog(index_db)
    empty = catalog.sources_state()
    catalog.upsert_source("trips", "table", "duckdb", "/data/trips.csv", {"rows": 3})
    added = catalog.sources_state()
    catalog.upsert_source("trips", "table", "duckdb", "/data/trips.csv", {"rows": 4})
    updated = catalog.sources_state()
    catalog.delete_source("trips")
    catalog.upsert_source("people", "table", "duckdb", "/data/people.csv", {"rows": 1})
    replaced = catalog.sources_state()
    catalog.delete_source("people")
    assert len({empty, added, updated, replaced}) == 4
    assert catalog.sources_state() == empty


def test_files_keep_their_id_and_take_their_media_and_references_when_forgotten(index_db: IndexDatabase):  # noqa: F811
    catalog = Catalog(index_db)
    root = catalog.add_root(Path("/share/home"))
    assert catalog.add_root(Path("/share/home")) == root and catalog.roots() == [(root, "/share/home")]
    first = catalog.record_file(root, "/share/home/cat.jpg", "photo", 10, 1_700_000_000_123_456_789, "ab", "indexed",
                                None, 3)
    again = catalog.record_file(root, "/share/home/cat.jpg", "photo", 12, 1_700_000_000_999_999_999, "cd", "failed",
                                "unreadable", 0)
    record = catalog.file("/share/home/cat.jpg")
    assert first == again and record is not None
    assert (record.size, record.mtime_ns, record.sha256, record.state, record.reason) == (
        12, 1_700_000_000_999_999_999, "cd", "failed", "unreadable")
    catalog.set_media(first, "photo", {"path": "/share/home/cat.jpg", "taken": "2025-05-01"})
    note = catalog.record_file(root, "/share/home/pets.md", "markdown", 5, 1, "ef", "indexed", None, 1)
    assert catalog.set_image_refs(note, [("/share/home/cat.jpg", "our cat")]) == {"/share/home/cat.jpg"}
    assert catalog.alt_texts("/share/home/cat.jpg") == ["our cat"]
    assert catalog.media("photo") == [{"path": "/share/home/cat.jpg", "taken": "2025-05-01"}]
    assert catalog.counts() == {"photo": {"failed": 1}, "markdown": {"indexed": 1}}
    catalog.forget_file(first)
    catalog.forget_file(note)
    assert catalog.media("photo") == [] and catalog.alt_texts("/share/home/cat.jpg") == []
    assert catalog.files() == [] and catalog.file("/share/home/cat.jpg") is None


def test_memos_are_remembered_and_replaced(index_db: IndexDatabase):  # noqa: F811
    catalog = Catalog(index_db)
    assert catalog.memo("notes:graph") is None
    catalog.remember("notes:graph", "no")
    catalog.remember("notes:graph", "yes")
    assert catalog.memo("notes:graph") == "yes" and Catalog(index_db).memo("notes:graph") == "yes"
