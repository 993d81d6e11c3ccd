"""What a property graph on a server offers as a native store, whichever server it is (FalkorDB
over Redis, Neo4j over Bolt): described once with Trove's own openCypher queries, then asked
read-only, each statement after the same one-reading-statement check as Kùzu's graphs. A server
module gives only its transport: `_session` (a connection that runs a reading statement with a
time limit, on the server's own read-only entry point) and `_plan` (EXPLAIN)."""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager

from local_stores.graph_store import check_query
from local_stores.quoting import Quoted
from local_stores.quoting import kuzu_cypher as cy  # openCypher's backtick quoting, as Kùzu's
from local_stores.results import QueryResult

DESCRIBE_TIMEOUT_S = 10.0
MAX_PROPERTIES = 60  # per label or type, read from the elements themselves (these servers keep no schema)
TYPES = {bool: "BOOL", int: "INT64", float: "DOUBLE", str: "STRING", list: "LIST"}

# a session's runner: (statement, time limit in seconds, most rows or None) -> (columns, rows)
Run = Callable[[str, float, int | None], tuple[list[str], list[list]]]


class CypherServer(ABC):
    """One graph on a Cypher server; subclasses set `dialect`, `engine`, `url`, `where` and give
    `_session`, `_plan` and `can_write`."""

    language = "cypher"
    dialect: str
    engine: str
    url: str
    where: str

    # -- the NativeStore protocol --------------------------------------------------------------
    def describe(self) -> dict:
        """Labels and relationship types with counts, properties (typed by their values) and samples."""
        with self._session() as run:
            def rows(statement: str) -> list[list]:
                return run(statement, DESCRIBE_TIMEOUT_S, None)[1]

            out: dict = {"engine": self.engine, "file": self.url, "nodes": {}, "relationships": {}}
            for (label,) in rows("CALL db.labels()"):
                match = Quoted(f"MATCH (n:{cy.ident(label)})")
                out["nodes"][label] = {"count": rows(f"{match} RETURN count(n)")[0][0], "key": None,
                                       "properties": _properties(rows, match, Quoted("n"))}
            for (rel,) in rows("CALL db.relationshipTypes()"):
                match = Quoted(f"MATCH (a)-[n:{cy.ident(rel)}]->(b)")
                pairs = rows(f"{match} RETURN DISTINCT labels(a)[0], labels(b)[0] LIMIT 20")
                out["relationships"][rel] = {"count": rows(f"{match} RETURN count(n)")[0][0],
                                             "pairs": [list(p) for p in pairs],
                                             "properties": _properties(rows, match, Quoted("n"))}
        return out

    def explain(self, query: str) -> str:
        statement = check_query(query)
        with self._session() as run:
            self._plan(run, statement)
        return statement

    def execute(self, query: str, timeout_s: float = 10.0, max_rows: int = 200,
                params: Sequence[object] = ()) -> QueryResult:
        if params:
            raise ValueError("bound values are not taken by this cypher store")
        statement = check_query(query)
        with self._session() as run:
            columns, rows = run(statement, timeout_s, max_rows + 1)
        kept = [tuple(row) for row in rows[:max_rows + 1]]
        return QueryResult(columns, kept[:max_rows], len(kept) > max_rows)

    # -- the server's side ---------------------------------------------------------------------
    def version(self) -> str | None:
        """A digest of the graph's labels, relationship types and property keys."""
        with self._session() as run:
            names = [f"{kind}:{row[0]}" for kind, call in (("label", "CALL db.labels()"), ("type", "CALL "
                     "db.relationshipTypes()"), ("key", "CALL db.propertyKeys()"))
                     for row in run(call, DESCRIBE_TIMEOUT_S, None)[1]]
        return hashlib.md5("\n".join(sorted(names)).encode("utf-8"), usedforsecurity=False).hexdigest()

    @abstractmethod
    def can_write(self) -> list[str]:
        """Why this login could change the graph; empty when it can only read."""

    @abstractmethod
    def _session(self) -> AbstractContextManager[Run]:
        """A connection to the graph, as a runner of reading statements on the server's read-only entry point."""

    @abstractmethod
    def _plan(self, run: Run, statement: str) -> None:
        """Check `statement` against the graph without running it (QueryFailed with the server's words)."""


def _properties(rows: Callable[[str], list[list]], match: Quoted, var: Quoted) -> list[dict]:
    """Each property the label's (or type's) elements have: its type, read from its most common values."""
    most = cy.number(MAX_PROPERTIES)
    names = [k for (k,) in rows(f"{match} UNWIND keys({var}) AS k RETURN DISTINCT k LIMIT {most}")]
    out = []
    for name in sorted(names):
        prop = Quoted(f"{var}.{cy.ident(name)}")
        samples = [row[0] for row in rows(f"{match} WHERE {prop} IS NOT NULL RETURN {prop}, count(*) AS c "
                                          "ORDER BY c DESC LIMIT 3")]
        out.append({"name": name, "type": TYPES.get(type(samples[0]), "ANY") if samples else "ANY",
                    "samples": samples})
    return out
