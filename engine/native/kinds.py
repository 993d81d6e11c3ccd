"""The kinds of structured source, in one registry: for each, the native store that runs its
queries, the language its writer writes, its name for people and the kind of its citations.

A new kind of structured source (a remote server, say) is one store module in `local_stores`
implementing `NativeStore`, a writer module when its language is new (`engine.native.writers`),
and one entry here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from local_stores import database_files
from local_stores.falkordb_graph import FalkorGraph
from local_stores.graph_store import KuzuGraph
from local_stores.native_store import NativeStore, ServerStore
from local_stores.postgres_database import PostgresDatabase
from local_stores.rdf_store import OxigraphDataset
from local_stores.sparql_endpoint import SparqlEndpoint

if TYPE_CHECKING:
    from engine.native.sources import Source, Stores


@dataclass(frozen=True)
class SourceKind:
    name: str  # as the catalog records it: table | database | postgres | graph | cypher | rdf | sparql
    language: str  # of its queries, the key of its writer: sql | cypher | sparql
    label: str  # in words, for people
    citation: str  # the citation kind of a query answer from it: table | graph | rdf
    open: Callable[[Source, Stores], NativeStore]
    # a server's kind: its store from a URL and the connection's options (schemas, passfile...)
    connect: Callable[[str, dict], ServerStore] | None = None


def _table(source: Source, stores: Stores) -> NativeStore:
    return stores.tables.table(source.name)


def _database(source: Source, stores: Stores) -> NativeStore:  # noqa: ARG001 (the user's file, not a store of Trove's)
    return database_files.DatabaseFile(Path(source.location), source.engine)


def _postgres(source: Source, stores: Stores) -> NativeStore:  # noqa: ARG001 (a server's, not a store of Trove's)
    return _postgres_at(source.location, source.descriptor)


def _postgres_at(url: str, options: dict) -> ServerStore:
    return PostgresDatabase(url, options.get("schemas") or ("public",), options.get("passfile"))


def _sparql(source: Source, stores: Stores) -> NativeStore:  # noqa: ARG001 (a server's, not a store of Trove's)
    return SparqlEndpoint(source.location, source.descriptor)


def _sparql_at(url: str, options: dict) -> ServerStore:  # noqa: ARG001 (an endpoint takes no options)
    return SparqlEndpoint(url)


def _falkordb(source: Source, stores: Stores) -> NativeStore:  # noqa: ARG001 (a server's, not a store of Trove's)
    return FalkorGraph(source.location)


def _falkordb_at(url: str, options: dict) -> ServerStore:  # noqa: ARG001 (a graph server takes no options)
    return FalkorGraph(url)


def _graph(source: Source, stores: Stores) -> NativeStore:
    return stores.graphs.graph(source.name)


def _rdf(source: Source, stores: Stores) -> NativeStore:
    return stores.rdf.dataset(source.name)


KINDS: dict[str, SourceKind] = {kind.name: kind for kind in (
    SourceKind("table", "sql", "table", "table", _table),
    SourceKind("database", "sql", "database", "table", _database),
    SourceKind("postgres", "sql", "PostgreSQL database", "table", _postgres, _postgres_at),
    SourceKind("graph", "cypher", "graph", "graph", _graph),
    SourceKind("cypher", "cypher", "graph server", "graph", _falkordb, _falkordb_at),
    SourceKind("rdf", "sparql", "RDF dataset", "rdf", _rdf),
    SourceKind("sparql", "sparql", "SPARQL endpoint", "rdf", _sparql, _sparql_at),
)}
# engine -> the name a query writer gives it
DIALECTS = {**database_files.DIALECTS, "kuzu": KuzuGraph.dialect, "oxigraph": OxigraphDataset.dialect,
            "postgres": PostgresDatabase.dialect, "sparql": SparqlEndpoint.dialect, "cypher": FalkorGraph.dialect}


def kind(name: str) -> SourceKind:
    try:
        return KINDS[name]
    except KeyError:
        raise ValueError(f"not a kind of structured source: {name!r} (known: {', '.join(KINDS)})") from None


def open_store(source: Source, stores: Stores) -> NativeStore:
    """The native store that runs `source`'s queries."""
    return kind(source.kind).open(source, stores)
