"""The database a Trove index lives in: SQLite in the Trove home (`sqlite_db.Database`, the
default) or a PostgreSQL server a team shares (`postgres_db.PostgresDb`). The catalog and the value
index write the same statements to both (`?` placeholders, standard SQL plus `ON CONFLICT`); only
their schemas differ, chosen by `dialect`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol


class IndexDatabase(Protocol):
    dialect: str  # sqlite | postgres: which schema the catalog and the stores make
    read_only: bool
    where: str  # the file or the URL, for messages

    def execute(self, sql: str, params: Any = ()) -> Any: ...

    def executemany(self, sql: str, rows: Any) -> Any: ...

    def query(self, sql: str, params: Any = ()) -> list[tuple]: ...

    def script(self, sql: str) -> None: ...

    def transaction(self) -> AbstractContextManager[None]: ...

    def close(self) -> None: ...


class IndexUnreachable(OSError):
    """The index's server cannot be reached, refused the login, lost the connection in the middle of a
    transaction, or lacks what the index needs. The message names the server and what to do."""


class Transactions:
    """`transaction()`: the outermost call opens one (`_outermost`: committed at the end, rolled back
    on an error), nested calls join it."""

    _depth = 0

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self._depth = 1
        try:
            with self._outermost():
                yield
        finally:
            self._depth = 0

    def _outermost(self) -> AbstractContextManager[None]:
        raise NotImplementedError


def postgres_schema(sqlite_schema: str) -> str:
    """A SQLite schema of Trove's as PostgreSQL's: row ids as BIGSERIAL, integers as BIGINT, reals as
    DOUBLE PRECISION (PostgreSQL's REAL is 4 bytes: a time would lose its seconds)."""
    schema = re.sub(r"\bid INTEGER PRIMARY KEY\b", "id BIGSERIAL PRIMARY KEY", sqlite_schema)
    return re.sub(r"\bREAL\b", "DOUBLE PRECISION", re.sub(r"\bINTEGER\b", "BIGINT", schema))


def is_server(backend: str) -> bool:
    """Whether an `index_backend` setting names a PostgreSQL server (else the home's SQLite file)."""
    return backend.startswith(("postgresql://", "postgres://"))
