"""The user's own SQLite/DuckDB files, queried in place and never changed."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import duckdb
import pytest

from local_stores import database_files
from local_stores.results import QueryFailed, QueryRefused
from tests.conftest import shared_path


@pytest.fixture
def geo(tmp_path: Path) -> Path:
    src = shared_path("eval", "sql", "geoquery", "geography-db.added-in-2020.sqlite")
    copy = tmp_path / "geography.sqlite"
    shutil.copyfile(src, copy)
    return copy


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_sqlite_file_is_described_and_queried_in_place(geo: Path):
    assert database_files.engine_of(geo) == "sqlite"
    tables = {t["table"]: t for t in database_files.describe(geo, "sqlite")}
    assert {"state", "city", "river"} <= set(tables)
    assert any(c["name"] == "population" for c in tables["state"]["columns"])
    result = database_files.execute(geo, "sqlite", "SELECT state_name FROM state ORDER BY population DESC LIMIT 1")
    assert result.rows == [("california",)]


@pytest.mark.parametrize("sql", [
    "DELETE FROM state", "DROP TABLE state", "UPDATE state SET population = 0",
    "ATTACH DATABASE '/tmp/evil.db' AS evil", "PRAGMA writable_schema = ON", "VACUUM INTO '/tmp/copy.db'",
    "SELECT 1; DELETE FROM state", "CREATE TABLE x(a)", "SELECT load_extension('/tmp/evil.so')",
    "SELECT writefile('/tmp/trove-leak.txt', 'x')",
])
def test_hostile_sqlite_queries_are_refused_and_the_file_is_unchanged(geo: Path, sql: str):
    before = _digest(geo)
    with pytest.raises((QueryRefused, QueryFailed)):
        database_files.execute(geo, "sqlite", sql)
    assert _digest(geo) == before and not Path("/tmp/trove-leak.txt").exists()


def test_sqlite_time_limit(geo: Path):
    endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
    with pytest.raises(QueryFailed, match="time limit"):
        database_files.execute(geo, "sqlite", endless, timeout_s=0.5)


def test_duckdb_file_is_queried_read_only(tmp_path: Path):
    path = tmp_path / "finance.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE SCHEMA bank; CREATE TABLE bank.tx AS SELECT 'rent' AS what, 920 AS eur; "
                    "CREATE TABLE budget AS SELECT 'food' AS what, 300 AS eur")
    assert database_files.engine_of(path) == "duckdb"
    assert {t["table"] for t in database_files.describe(path, "duckdb")} == {"bank.tx", "budget"}
    assert database_files.execute(path, "duckdb", "SELECT eur FROM bank.tx").rows == [(920,)]
    before = _digest(path)
    for sql in ("DELETE FROM budget", "SELECT * FROM read_csv('/etc/passwd')", "ATTACH '/tmp/x.duckdb'"):
        with pytest.raises((QueryRefused, QueryFailed)):
            database_files.execute(path, "duckdb", sql)
    assert _digest(path) == before


def test_a_db_file_that_is_not_a_database_is_recognised(tmp_path: Path):
    thumbs = tmp_path / "Thumbs.db"
    thumbs.write_bytes(b"\xd0\xcf\x11\xe0 not sqlite at all" * 10)
    assert database_files.engine_of(thumbs) is None


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_database_gone_since_indexing_fails_with_its_name(tmp_path: Path, engine: str):
    gone = tmp_path / f"gone.{engine}"
    with pytest.raises(QueryFailed, match=r"cannot open the database .*gone"):
        database_files.execute(gone, engine, "SELECT 1")
    assert not gone.exists()  # opening read-only never creates it


ENDLESS_VIEW = ("CREATE VIEW endless AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) "
                "SELECT x FROM r")
HOSTILE_NAME = 'x"; ATTACH \'/tmp/pwned.db\' AS p; --'


def _hostile_database(path: Path, engine: str) -> None:
    """A table whose name and column carry SQL, and a view that never ends."""
    if engine == "sqlite":
        import sqlite3

        with sqlite3.connect(path) as con:
            con.execute(f'CREATE TABLE "{HOSTILE_NAME.replace(chr(34), chr(34) * 2)}" ("a""b" TEXT)')
            con.execute(f'INSERT INTO "{HOSTILE_NAME.replace(chr(34), chr(34) * 2)}" VALUES (\'kept\')')
            con.execute(ENDLESS_VIEW)
        return
    with duckdb.connect(str(path)) as con:
        con.execute(f'CREATE TABLE "{HOSTILE_NAME.replace(chr(34), chr(34) * 2)}" ("a""b" VARCHAR)')
        con.execute(f'INSERT INTO "{HOSTILE_NAME.replace(chr(34), chr(34) * 2)}" VALUES (\'kept\')')
        con.execute(ENDLESS_VIEW)


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_hostile_names_and_an_endless_view_are_described_within_the_time_limit(tmp_path: Path, engine: str):
    path = tmp_path / f"hostile.{engine}"
    _hostile_database(path, engine)
    before = _digest(path)
    tables = {t["table"]: t for t in database_files.describe(path, engine, timeout_s=0.5)}
    assert tables[HOSTILE_NAME]["rows"] == 1
    assert tables[HOSTILE_NAME]["columns"][0] == {"name": 'a"b', "type": "TEXT" if engine == "sqlite" else "VARCHAR",
                                                  "samples": ["kept"]}
    assert tables["endless"]["rows"] is None
    assert "could not be counted within 0.5 s" in tables["endless"]["warnings"][0]
    assert _digest(path) == before
    assert not Path("/tmp/pwned.db").exists()
