"""A property graph on a FalkorDB server (OpenCypher on Redis), as a native store (`CypherServer`:
described and checked as every Cypher server is). Every statement goes through FalkorDB's read-only
entry point (`GRAPH.RO_QUERY`, which the server refuses to let write) with the time limit as the
server's own query timeout.

URLs: `falkordb://HOST:PORT/GRAPH`, or `falkordb:///GRAPH?socket=/path/to/redis.sock` for a local
socket. No password in the URL: the login's password comes from FALKORDB_PASSWORD."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

from local_stores.cypher_server import CypherServer, Run
from local_stores.results import QueryError, QueryFailed, QueryRefused, Unreachable, first_line, plain

if TYPE_CHECKING:
    from falkordb import Graph

PASSWORD_ENV = "FALKORDB_PASSWORD"


def safe_url(url: str) -> str:
    """`url` as Trove keeps and shows it: falkordb://…/GRAPH, without a password (refused if it has one)."""
    parts = urlsplit(url)
    if parts.scheme != "falkordb" or not parts.path.strip("/"):
        raise ValueError(f"not a FalkorDB URL (falkordb://host:port/graph): {url!r}")
    if parts.password is not None:
        raise ValueError(f"the URL holds a password: put it in {PASSWORD_ENV} instead, so that it is never kept "
                         "in the index or shown")
    return url


class FalkorGraph(CypherServer):
    """One graph on a FalkorDB server."""

    dialect = "FalkorDB"
    engine = "falkordb"

    def __init__(self, url: str) -> None:
        self.url = safe_url(url)
        parts = urlsplit(self.url)
        self.graph_name = parts.path.strip("/")
        self.socket = (parse_qs(parts.query).get("socket") or [""])[0] or None
        self.host, self.port, self.user = parts.hostname or "127.0.0.1", parts.port or 6379, parts.username
        self.where = self.socket or f"{self.host}:{self.port}"

    def can_write(self) -> list[str]:
        """Nothing Trove sends can write: every statement goes through GRAPH.RO_QUERY."""
        return []

    @contextmanager
    def _session(self) -> Iterator[Run]:
        graph = self._graph()

        def run(statement: str, timeout_s: float, most: int | None) -> tuple[list[str], list[list]]:
            try:
                result = graph.ro_query(statement, timeout=max(1, int(timeout_s * 1000)))
            except Exception as exc:  # the client raises redis' errors with the server's words
                raise _failure(exc, self.where) from None
            rows = result.result_set if most is None else result.result_set[:most]
            return [str(h[1]) for h in result.header], [[_plain(v) for v in row] for row in rows]

        yield run

    def _plan(self, run: Run, statement: str) -> None:  # noqa: ARG002 (FalkorDB has its own EXPLAIN call)
        try:
            self._graph().explain(statement)
        except Exception as exc:
            raise _failure(exc, self.where) from None

    def _graph(self) -> Graph:
        from falkordb import FalkorDB

        password = os.environ.get(PASSWORD_ENV) or None
        try:
            if self.socket:
                db = FalkorDB(unix_socket_path=self.socket, password=password, socket_timeout=60)
            else:
                db = FalkorDB(host=self.host, port=self.port, username=self.user, password=password,
                              socket_timeout=60)
            return db.select_graph(self.graph_name)
        except (QueryError, ValueError):
            raise
        except Exception as exc:
            raise _failure(exc, self.where) from None


def _plain(value: object) -> object:
    """A result value as plain data: nodes and edges as their properties."""
    properties = getattr(value, "properties", None)
    if isinstance(properties, dict):
        return {k: plain(v) for k, v in properties.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return plain(value)


def _failure(exc: Exception, where: str) -> QueryError:
    """The server's message as the query writer should read it; a connection problem is Unreachable."""
    text = first_line(exc)
    if type(exc).__name__ in ("ConnectionError", "TimeoutError", "AuthenticationError") or isinstance(exc, OSError):
        return Unreachable(f"FalkorDB at {where}: {text}")
    if "timed out" in text.lower():
        return QueryFailed("the query ran past its time limit and was stopped")
    if "read-only" in text.lower():
        return QueryRefused(f"only reading queries may run: {text}")
    return QueryFailed(text)
