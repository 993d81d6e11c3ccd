"""A real PostgreSQL server for tests: `pgserver` (PyPI) runs PostgreSQL 16 from its wheel on a
private Unix socket in a temporary folder (no TCP port at all), stopped at the end of the session.
Tests connect as `reader`, a role that may only read; `admin` (the superuser) loads the data."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest


@dataclass
class PostgresServer:
    socket_dir: Path
    _made: Iterator[int] = field(default_factory=itertools.count)

    def url(self, user: str = "reader", database: str = "postgres") -> str:
        return f"postgresql://{user}@/{database}?host={self.socket_dir}"

    def admin(self, *statements: str, params: list | None = None, database: str = "postgres") -> None:
        """Run `statements` as the superuser in `database`, committed."""
        import psycopg

        with psycopg.connect(self.url("postgres", database), autocommit=True) as con:
            for statement in statements:
                con.execute(statement, params)

    def empty_database(self, prefix: str = "index") -> str:
        """A new, empty database; its URL for the superuser (an indexing home may add pgvector)."""
        name = f"{prefix}_{next(self._made)}"
        self.admin(f"CREATE DATABASE {name}")
        return self.url("postgres", name)

    def database(self, name: str, *statements: str, rows: tuple[str, list] | None = None) -> PostgresServer:
        """A new database `name` holding what `statements` create, and `rows` (an INSERT with %s
        placeholders, and its rows) added; the server, for chaining in fixtures."""
        import psycopg

        self.admin(f"CREATE DATABASE {name}")
        self.admin(*statements, database=name)
        if rows is not None:
            with psycopg.connect(self.url("postgres", name), autocommit=True) as con:
                con.cursor().executemany(rows[0], rows[1])
        return self


def start(folder: Path) -> Iterator[PostgresServer]:
    """A server on `folder` with a read-only role `reader`; skipped, saying why, where none can start."""
    try:
        import pgserver
    except ImportError:
        pytest.skip("pgserver is not installed: the PostgreSQL tests need it (make test installs it)")
    try:
        server = pgserver.get_server(str(folder), cleanup_mode="stop")
    except Exception as exc:  # initdb or postgres could not run on this machine
        pytest.skip(f"a PostgreSQL server could not start here: {exc}")
    running = PostgresServer(folder)
    running.admin("CREATE ROLE reader LOGIN", "GRANT pg_read_all_data TO reader",
                  "REVOKE CREATE ON SCHEMA public FROM PUBLIC")
    yield running
    server.cleanup()


@pytest.fixture(scope="session")
def postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PostgresServer]:
    yield from start(tmp_path_factory.mktemp("postgres"))
