"""`index_db`: a fresh index database of each kind a Trove index lives in (SQLite in the home, a
database on a real PostgreSQL server), for the tests the catalog and the value index run on both."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from local_stores.index_database import IndexDatabase
from local_stores.postgres_db import PostgresDb
from local_stores.sqlite_db import Database


@pytest.fixture(params=["sqlite", "postgres"])
def index_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[IndexDatabase]:
    if request.param == "postgres":
        db: IndexDatabase = PostgresDb(request.getfixturevalue("postgres").empty_database())
    else:
        db = Database(tmp_path / "index.db")
    yield db
    db.close()
