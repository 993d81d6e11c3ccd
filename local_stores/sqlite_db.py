"""SQLite with extensions (sqlite-vec) and FTS5, through sqlean: Python's own sqlite3 here
cannot load extensions. One database file holds the catalog and the text corpora, so a file's
items and its catalog row change in one transaction (kill-safe indexing)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import sqlean
import sqlite_vec

from local_stores.index_database import Transactions


def writable(path: Path | str) -> bool:
    """Whether this process may write the database at `path`: the file (when there is one) and its
    folder (SQLite writes its -wal and -shm files beside it), or the folder it would be made in."""
    path = Path(path)
    folder = next((p for p in (path.parent, *path.parent.parents) if p.exists()), path.parent)
    if not os.access(folder, os.W_OK | os.X_OK):
        return False
    return not path.exists() or os.access(path, os.W_OK)


def _uri(path: Path, read_only: bool) -> str:
    """The SQLite URI for `path` (quoted: a name may hold ? or #). Read-only: `mode=ro`; and when
    nothing can write the folder either (a read-only mount), `immutable=1` too, since SQLite cannot
    make the -shm file a WAL database needs even for reading; only when no -wal has unmerged pages."""
    uri = f"file:{quote(os.fsencode(path))}"
    if not read_only:
        return uri
    wal = path.with_name(path.name + "-wal")
    if not os.access(path.parent, os.W_OK) and not (wal.exists() and wal.stat().st_size):
        return uri + "?mode=ro&immutable=1"
    return uri + "?mode=ro"


class Database(Transactions):
    """A connection in autocommit mode; `transaction()` groups writes atomically. `read_only` opens
    an index this process may not write (a read-only home): reads work, writes raise."""

    dialect = "sqlite"

    def __init__(self, path: Path | str, read_only: bool = False) -> None:
        self.path = Path(path)
        self.read_only = read_only
        if not read_only:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        uri = _uri(self.path, read_only)
        self.conn = sqlean.connect(uri, uri=True, isolation_level=None, check_same_thread=False, timeout=30)
        self.conn.enable_load_extension(True)
        sqlite_vec.load(self.conn)
        self.conn.enable_load_extension(False)
        if not read_only:
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("PRAGMA foreign_keys=ON")
        self.where = str(self.path)

    def execute(self, sql: str, params: Any = ()) -> sqlean.Cursor:
        return self.conn.execute(sql, params)

    def executemany(self, sql: str, rows: Any) -> sqlean.Cursor:
        return self.conn.executemany(sql, rows)

    def query(self, sql: str, params: Any = ()) -> list[tuple]:
        return self.conn.execute(sql, params).fetchall()

    def script(self, sql: str) -> None:
        """Run statements separated by `;` (a schema); SQLite commits before it runs them."""
        self.conn.executescript(sql)

    @contextmanager
    def _outermost(self) -> Iterator[None]:
        """BEGIN IMMEDIATE … COMMIT: the write lock from the start, so a transaction never fails half-way."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        else:
            self.conn.execute("COMMIT")

    def close(self) -> None:
        self.conn.close()
