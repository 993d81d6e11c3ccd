"""A property graph on a FalkorDB server (OpenCypher on Redis), as a native store: described once
with Trove's own queries, then asked read-only. Every statement goes through FalkorDB's read-only
entry point (`GRAPH.RO_QUERY`, which the server refuses to let write) with the time limit as the
server's own query timeout, after the same one-reading-statement check as Kùzu's graphs.

URLs: `falkordb://HOST:PORT/GRAPH`, or `falkordb:///GRAPH?socket=/path/to/redis.sock` for a local
socket. No password in the URL: the login's password comes from FALKORDB_PASSWORD."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from local_stores.graph_store import check_query
from local_stores.quoting import Quoted
from local_stores.quoting import kuzu_cypher as cy  # openCypher's backtick quoting, as Kùzu's
from local_stores.results import QueryError, QueryFailed, QueryRefused, QueryResult, Unreachable, first_line, plain

if TYPE_CHECKING:
    from falkordb import Graph

PASSWORD_ENV = "FALKORDB_PASSWORD"
DESCRIBE_TIMEOUT_S = 10.0
MAX_PROPERTIES = 60  # per label or type, read from the nodes themselves (FalkorDB has no schema)
_TYPES = {bool: "BOOL", int: "INT64", float: "DOUBLE", str: "STRING", list: "LIST"}


def safe_url(url: str) -> str:
    """`url` as Trove keeps and shows it: falkordb://…/GRAPH, without a password (refused if it has one)."""
    parts = urlsplit(url)
    if parts.scheme != "falkordb" or not parts.path.strip("/"):
        raise ValueError(f"not a FalkorDB URL (falkordb://host:port/graph): {url!r}")
    if parts.password is not None:
        raise ValueError(f"the URL holds a password: put it in {PASSWORD_ENV} instead, so that it is never kept "
                         "in the index or shown")
    return url


class FalkorGraph:
    """One graph on a FalkorDB server."""

    language = "cypher"
    dialect = "FalkorDB"

    def __init__(self, url: str) -> None:
        self.url = safe_url(url)
        parts = urlsplit(self.url)
        self.graph_name = parts.path.strip("/")
        self.socket = (parse_qs(parts.query).get("socket") or [""])[0] or None
        self.host, self.port, self.user = parts.hostname or "127.0.0.1", parts.port or 6379, parts.username
        self.where = self.socket or f"{self.host}:{self.port}"

    # -- the NativeStore protocol --------------------------------------------------------------
    def describe(self) -> dict:
        """Labels and relationship types with counts, properties (typed by their values) and samples."""
        with self._graph() as graph:
            def rows(statement: str) -> list[list[Any]]:
                return self._run(graph, statement, DESCRIBE_TIMEOUT_S).result_set

            out: dict = {"engine": "falkordb", "file": self.url, "nodes": {}, "relationships": {}}
            for (label,) in rows("CALL db.labels()"):
                match = Quoted(f"MATCH (n:{cy.ident(label)})")
                out["nodes"][label] = {"count": rows(f"{match} RETURN count(n)")[0][0], "key": None,
                                       "properties": self._properties(rows, match, Quoted("n"))}
            for (rel,) in rows("CALL db.relationshipTypes()"):
                match = Quoted(f"MATCH (a)-[n:{cy.ident(rel)}]->(b)")
                pairs = rows(f"{match} RETURN DISTINCT labels(a)[0], labels(b)[0] LIMIT 20")
                out["relationships"][rel] = {"count": rows(f"{match} RETURN count(n)")[0][0],
                                             "pairs": [list(p) for p in pairs],
                                             "properties": self._properties(rows, match, Quoted("n"))}
        return out

    def explain(self, query: str) -> str:
        statement = check_query(query)
        with self._graph() as graph:
            try:
                graph.explain(statement)
            except Exception as exc:  # the client raises redis' ResponseError with the server's words
                raise _failure(exc, self.where) from None
        return statement

    def execute(self, query: str, timeout_s: float = 10.0, max_rows: int = 200,
                params: Sequence[object] = ()) -> QueryResult:
        if params:
            raise ValueError("bound values are not taken by this cypher store")
        statement = check_query(query)
        with self._graph() as graph:
            result = self._run(graph, statement, timeout_s)
        columns = [str(h[1]) for h in result.header]
        rows = [tuple(_plain(v) for v in row) for row in result.result_set[:max_rows + 1]]
        return QueryResult(columns, rows[:max_rows], len(rows) > max_rows)

    # -- the server's side ---------------------------------------------------------------------
    def can_write(self) -> list[str]:
        """Nothing Trove sends can write: every statement goes through GRAPH.RO_QUERY."""
        return []

    @contextmanager
    def _graph(self) -> Iterator[Graph]:
        from falkordb import FalkorDB

        password = os.environ.get(PASSWORD_ENV) or None
        try:
            if self.socket:
                db = FalkorDB(unix_socket_path=self.socket, password=password, socket_timeout=60)
            else:
                db = FalkorDB(host=self.host, port=self.port, username=self.user, password=password,
                              socket_timeout=60)
            yield db.select_graph(self.graph_name)
        except (QueryError, ValueError):
            raise
        except Exception as exc:
            raise _failure(exc, self.where) from None

    @staticmethod
    def _run(graph: Graph, statement: str, timeout_s: float) -> Any:
        return graph.ro_query(statement, timeout=max(1, int(timeout_s * 1000)))

    @staticmethod
    def _properties(rows: Any, match: Quoted, var: Quoted) -> list[dict]:
        """Each property the label's (or type's) elements have: its type, read from its most common values."""
        most = cy.number(MAX_PROPERTIES)
        names = [k for (k,) in rows(f"{match} UNWIND keys({var}) AS k RETURN DISTINCT k LIMIT {most}")]
        out = []
        for name in sorted(names):
            prop = Quoted(f"{var}.{cy.ident(name)}")
            samples = [row[0] for row in rows(f"{match} WHERE {prop} IS NOT NULL RETURN {prop}, count(*) AS c "
                                          "ORDER BY c DESC LIMIT 3")]
            out.append({"name": name, "type": _TYPES.get(type(samples[0]), "ANY") if samples else "ANY",
                        "samples": [_plain(s) for s in samples]})
        return out


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
