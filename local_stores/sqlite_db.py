"""SQLite with extensions (sqlite-vec) and FTS5, through sqlean: Python's own sqlite3 here
cannot load extensions. One database file holds the catalog and the text corpora, so a file's
items and its catalog row change in one transaction (kill-safe indexing)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlean
import sqlite_vec


class Database:
    """A connection in autocommit mode; `transaction()` groups writes atomically."""

    def __init__(self, path: Path | str, read_only: bool = False) -> None:
        self.path = Path(path)
        if not read_only:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        uri = f"file:{self.path}?mode=ro" if read_only else f"file:{self.path}"
        self.conn = sqlean.connect(uri, uri=True, isolation_level=None, check_same_thread=False, timeout=30)
        self.conn.enable_load_extension(True)
        sqlite_vec.load(self.conn)
        self.conn.enable_load_extension(False)
        if not read_only:
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("PRAGMA foreign_keys=ON")
        self._depth = 0

    def execute(self, sql: str, params: Any = ()) -> sqlean.Cursor:
        return self.conn.execute(sql, params)

    def executemany(self, sql: str, rows: Any) -> sqlean.Cursor:
        return self.conn.executemany(sql, rows)

    def query(self, sql: str, params: Any = ()) -> list[tuple]:
        return self.conn.execute(sql, params).fetchall()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE … COMMIT (nested calls join the outer transaction)."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self.conn.execute("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        else:
            self.conn.execute("COMMIT")
        finally:
            self._depth = 0

    def close(self) -> None:
        self.conn.close()
