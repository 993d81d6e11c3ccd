"""The SQLite index file: read-only opening (a home that cannot be written) and awkward paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import sqlean

from local_stores.catalog import Catalog
from local_stores.sqlite_db import Database, writable


def _index(path: Path) -> None:
    """An index as a finished `trove index` leaves it: WAL mode, closed (no -wal or -shm left)."""
    db = Database(path)
    Catalog(db).add_root(path.parent)
    db.close()


def test_read_only_opening_reads_and_refuses_every_write(tmp_path: Path):
    path = tmp_path / "index" / "trove.db"
    _index(path)
    db = Database(path, read_only=True)
    assert db.read_only and Catalog(db).roots() == [(1, str(tmp_path / "index"))]  # the schema script is harmless
    with pytest.raises(sqlean.OperationalError, match="readonly"):
        db.execute("INSERT INTO memos(key, value) VALUES ('a', 'b')")
    with pytest.raises(sqlean.OperationalError, match="readonly"), db.transaction():
        db.execute("DELETE FROM roots")
    db.close()
    assert Catalog(Database(path)).roots() != []


def test_read_only_opening_does_not_make_a_missing_index(tmp_path: Path):
    with pytest.raises(sqlean.OperationalError):
        Database(tmp_path / "nothing" / "trove.db", read_only=True)
    assert not (tmp_path / "nothing").exists()


@pytest.mark.parametrize("name", ["with space", "what?", "a#b", "100%", "ünï"])
def test_paths_with_uri_characters_open_where_they_say(tmp_path: Path, name: str):
    path = tmp_path / name / "trove.db"
    _index(path)
    assert path.is_file() and sorted(os.listdir(tmp_path)) == [name]
    assert Catalog(Database(path, read_only=True)).roots() == [(1, str(tmp_path / name))]


def test_writable_sees_a_folder_without_write_permission(tmp_path: Path):
    path = tmp_path / "index" / "trove.db"
    _index(path)
    assert writable(path) and writable(tmp_path / "new" / "deeper" / "trove.db")
    (tmp_path / "index").chmod(0o555)
    try:
        assert writable(path) == (os.geteuid() == 0)  # root may write anyway (the CLI tests drop that power)
    finally:
        (tmp_path / "index").chmod(0o755)
