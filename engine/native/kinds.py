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

from local_stores.native_store import NativeStore, ServerStore

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


# Each opener imports its store when first called, so that reading the registry (route labels,
# `trove --help`, the app starting) loads no database engine.
def _table(source: Source, stores: Stores) -> NativeStore:
    return stores.tables.table(source.name)


def _database(source: Source, stores: Stores) -> NativeStore:  # noqa: ARG001 (the user's file, not a store of Trove's)
    from local_stores import database_files

    return database_files.DatabaseFile(Path(source.location), source.engine)


def _graph(source: Source, stores: Stores) -> NativeStore:
    return stores.graphs.graph(source.name)


def _rdf(source: Source, stores: Stores) -> NativeStore:
    return stores.rdf.dataset(source.name)


def _postgres_at(url: str, options: dict) -> ServerStore:
    from local_stores.postgres_database import PostgresDatabase

    return PostgresDatabase(url, options.get("schemas") or ("public",), options.get("passfile"))


def _sparql_at(url: str, options: dict) -> ServerStore:
    """`options` may be the endpoint's descriptor: its prefixes and graphs check the queries."""
    from local_stores.sparql_endpoint import SparqlEndpoint

    return SparqlEndpoint(url, options)


def _cypher_at(url: str, options: dict) -> ServerStore:  # noqa: ARG001 (a graph server takes no options)
    """A graph server by its URL's scheme: Neo4j over Bolt (bolt://, neo4j://), else FalkorDB."""
    if url.startswith(("bolt", "neo4j")):
        from local_stores.neo4j_graph import Neo4jGraph

        return Neo4jGraph(url)
    from local_stores.falkordb_graph import FalkorGraph

    return FalkorGraph(url)


def _server_kind(name: str, language: str, label: str, citation: str,
                 connect: Callable[[str, dict], ServerStore]) -> SourceKind:
    """A kind of source on a server: once connected, opened from its URL with its descriptor as options."""
    return SourceKind(name, language, label, citation, lambda source, _: connect(source.location, source.descriptor),
                      connect)


KINDS: dict[str, SourceKind] = {kind.name: kind for kind in (
    SourceKind("table", "sql", "table", "table", _table),
    SourceKind("database", "sql", "database", "table", _database),
    _server_kind("postgres", "sql", "PostgreSQL database", "table", _postgres_at),
    SourceKind("graph", "cypher", "graph", "graph", _graph),
    _server_kind("cypher", "cypher", "graph server", "graph", _cypher_at),
    SourceKind("rdf", "sparql", "RDF dataset", "rdf", _rdf),
    _server_kind("sparql", "sparql", "SPARQL endpoint", "rdf", _sparql_at),
)}


def kind(name: str) -> SourceKind:
    try:
        return KINDS[name]
    except KeyError:
        raise ValueError(f"not a kind of structured source: {name!r} (known: {', '.join(KINDS)})") from None


def open_store(source: Source, stores: Stores) -> NativeStore:
    """The native store that runs `source`'s queries."""
    return kind(source.kind).open(source, stores)
