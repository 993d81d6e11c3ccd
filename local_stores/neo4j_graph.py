"""A property graph on a Neo4j server, over Bolt, as a native store (`CypherServer`: described and
checked as every Cypher server is). Every statement runs in a READ access-mode transaction
(`execute_read`: Neo4j refuses to let it write) with the time limit as the transaction's own
server-side timeout. A login whose roles may write (admin, architect, publisher, editor; every
login of the Community edition) is refused at connect unless allowed.

URLs: `bolt://USER@HOST:7687/DATABASE` (also `neo4j://`, `bolt+s://`, `neo4j+s://`); the database
defaults to the server's own. No password in the URL: it comes from NEO4J_PASSWORD.

No Neo4j server installs from the package registries here: the transport is tested for what can be
without one (URLs, refusals before sending, a server that is not there), and the contract suite runs
against a server named by TROVE_TEST_NEO4J_URL where there is one."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from local_stores.cypher_server import CypherServer, Run
from local_stores.results import QueryError, QueryFailed, QueryRefused, Unreachable, first_line, plain

PASSWORD_ENV = "NEO4J_PASSWORD"
SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
WRITING_ROLES = ("admin", "architect", "publisher", "editor")
CONNECT_TIMEOUT_S = 5.0


def safe_url(url: str) -> str:
    """`url` as Trove keeps and shows it: bolt://user@host:port/database, without a password."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES or not parts.hostname:
        raise ValueError(f"not a Neo4j URL (bolt://user@host:7687/database): {url!r}")
    if parts.password:
        raise ValueError(f"the URL holds a password: put it in {PASSWORD_ENV} instead, so that it is never kept "
                         "in the index or shown")
    return url


class Neo4jGraph(CypherServer):
    """One database on a Neo4j server."""

    dialect = "Neo4j"
    engine = "neo4j"

    def __init__(self, url: str) -> None:
        self.url = safe_url(url)
        parts = urlsplit(self.url)
        self.database = parts.path.strip("/") or None
        self.user = parts.username or "neo4j"
        self.address = urlunsplit((parts.scheme, f"{parts.hostname}:{parts.port or 7687}", "", "", ""))
        self.where = f"{parts.hostname}:{parts.port or 7687}"

    def can_write(self) -> list[str]:
        """The login's roles that may write (Neo4j's Community edition gives every login all rights)."""
        with self._session() as run:
            try:
                roles = [str(r) for r in run("SHOW CURRENT USER YIELD roles", 5.0, 1)[1][0][0] or []]
            except Unreachable:
                raise
            except QueryFailed as exc:  # the Community edition has no roles: every login may write
                return [f"this server cannot say what the login may do ({exc}); a Community edition login may write"]
        return [f"it has the role {role}" for role in roles if role.lower() in WRITING_ROLES]

    @contextmanager
    def _session(self) -> Iterator[Run]:
        from neo4j import READ_ACCESS, GraphDatabase, Query

        try:
            driver = GraphDatabase.driver(self.address, auth=(self.user, os.environ.get(PASSWORD_ENV, "")),
                                          connection_timeout=CONNECT_TIMEOUT_S, max_connection_lifetime=60,
                                          max_transaction_retry_time=0)  # a failure is said at once, not retried
        except Exception as exc:  # a malformed address
            raise _failure(exc, self.where) from None

        def run(statement: str, timeout_s: float, most: int | None) -> tuple[list[str], list[list]]:
            def read(tx: Any) -> tuple[list[str], list[list]]:
                result = tx.run(Query(statement, timeout=timeout_s))
                rows = result.fetch(most) if most is not None else list(result)
                return list(result.keys()), [[_plain(v) for v in row.values()] for row in rows]

            try:
                with driver.session(database=self.database, default_access_mode=READ_ACCESS) as session:
                    return session.execute_read(read)
            except QueryError:
                raise
            except Exception as exc:
                raise _failure(exc, self.where) from None

        try:
            yield run
        finally:
            driver.close()

    def _plan(self, run: Run, statement: str) -> None:
        run(f"EXPLAIN {statement}", 5.0, 0)  # sandboxed: the checked statement, planned and not run


def _plain(value: object) -> object:
    """A result value as plain data: nodes and relationships as their properties, a path as its nodes."""
    from neo4j.graph import Node, Path, Relationship

    if isinstance(value, (Node, Relationship)):
        return {k: plain(v) for k, v in dict(value).items()}
    if isinstance(value, Path):
        return [_plain(n) for n in value.nodes]
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return plain(value)


def _failure(exc: Exception, where: str) -> QueryError:
    """The server's message as the query writer should read it; a connection problem is Unreachable."""
    from neo4j.exceptions import AuthError, DriverError, ServiceUnavailable

    text = first_line(exc)
    code = getattr(exc, "code", "") or ""
    if isinstance(exc, (ServiceUnavailable, AuthError, DriverError, OSError)):
        return Unreachable(f"Neo4j at {where}: {text}")
    if "TransactionTimedOut" in code or "timed out" in text.lower():
        return QueryFailed("the query ran past its time limit and was stopped")
    if "AccessMode" in code or "Forbidden" in code:
        return QueryRefused(f"only reading queries may run: {text}")
    return QueryFailed(text)
