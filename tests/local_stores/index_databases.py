"""`index_db`: a fresh index database of each kind a Trove index lives in (SQLite in the home, a
database on a real PostgreSQL server), for the tests the catalog and the value index run on both."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from local_stores.index_database import IndexDatabase, open_index


@pytest.fixture(params=["sqlite", "postgres"])
def index_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[IndexDatabase]:
    backend = request.getfixturevalue("postgres").empty_database() if request.param == "postgres" else ""
    db = open_index(backend, tmp_path / "index.db", read_only=False)
    yield db
    db.close()
