"""The catalog's sources: their state changes with every addition, update and deletion."""

from __future__ import annotations

from pathlib import Path

from local_stores.catalog import Catalog
from local_stores.sqlite_db import Database


def test_the_sources_state_follows_every_change(tmp_path: Path):
    catalog = Catalog(Database(tmp_path / "catalog.sqlite"))
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
