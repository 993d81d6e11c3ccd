"""The one interface of every native store: a structured source queried read-only in its own language.

A native store is one source on one engine: a table Trove copied into DuckDB, a database file the
user keeps (SQLite or DuckDB), a property graph in Kùzu, an RDF dataset in Oxigraph; a remote
server is one more. Generated queries reach the engines only through this interface, and every
implementation passes the same contract tests (`tests/local_stores/native_store_contract.py`):
`execute` runs one read-only statement, time- and row-limited, and raises `QueryRefused` for
anything else; `explain` checks and plans a query without running it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from local_stores.results import QueryResult


@runtime_checkable
class NativeStore(Protocol):
    language: str  # the query language its writer writes: sql | cypher | sparql
    dialect: str  # the engine as a query writer should name it: DuckDB, SQLite, Kùzu, Oxigraph

    def describe(self) -> dict:
        """The descriptor: what a writer needs to write queries (tables and columns, node labels and
        relationship types, classes and predicates), with types, sample values and counts."""
        ...

    def explain(self, query: str) -> str:
        """The statement that would run, once checked and planned by the engine without running it;
        `QueryRefused` or `QueryFailed` (with the engine's message) on a bad query."""
        ...

    def execute(self, query: str, timeout_s: float = 10.0, max_rows: int = 200,
                params: Sequence[object] = ()) -> QueryResult:
        """Run one checked, read-only statement within `timeout_s` and at most `max_rows` rows.
        `params` are bound values: positional for SQL (`?`), the variables ?param0, ?param1 … for
        SPARQL (`quoting.sparql.parameters`); a store whose language takes none (Kùzu's Cypher in
        the places Trove would need them) refuses them with ValueError (a programming error)."""
        ...


@runtime_checkable
class ServerStore(NativeStore, Protocol):
    """A native store on a server (a team's database, endpoint or graph server), reached by a URL
    that holds no secret, and queried read-only on the server's side too."""

    url: str

    def can_write(self) -> list[str]:
        """Why this login could change the server's data; empty when it can only read."""
        ...

    def version(self) -> str | None:
        """A short text that changes when the shape `describe` reads changes (tables and columns,
        labels and relationship types); cheap, as it is asked again between questions. None: this
        kind of server cannot tell cheaply (it is described again by `trove index` only)."""
        ...


class _HoldsByName(Protocol):
    def explain(self, name: str, query: str) -> str: ...

    def execute(self, name: str, query: str, timeout_s: float = 10.0, max_rows: int = 200) -> QueryResult: ...


class NamedSource:
    """One source of a store that holds several by name (graphs, RDF datasets): subclasses give
    `language`, `dialect` and `describe`, and `execute` when their language takes bound values."""

    language: str
    dialect: str

    def __init__(self, store: _HoldsByName, name: str) -> None:
        self.store, self.name = store, name

    def explain(self, query: str) -> str:
        return self.store.explain(self.name, query)

    def execute(self, query: str, timeout_s: float = 10.0, max_rows: int = 200,
                params: Sequence[object] = ()) -> QueryResult:
        if params:
            raise ValueError(f"bound values are not taken by this {self.language} store")
        return self.store.execute(self.name, query, timeout_s, max_rows)
