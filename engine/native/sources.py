"""Structured sources as the model sees them: a schema text to write queries against (in the
source's own language), and a short summary whose embedding picks candidate sources for a
question. Which store runs a source's queries is `engine.native.kinds`'s to say."""

from __future__ import annotations

from dataclasses import dataclass

from engine.locators import source_name
from engine.native.kinds import KINDS, kind
from engine.native.writers import writer_for
from engine.native.writers.summary import stem
from local_stores import database_files
from local_stores.falkordb_graph import FalkorGraph
from local_stores.graph_store import GraphStore, KuzuGraph
from local_stores.postgres_database import PostgresDatabase
from local_stores.rdf_store import OxigraphDataset, RdfStore
from local_stores.sparql_endpoint import SparqlEndpoint
from local_stores.table_store import TableStore

# engine -> the name a query writer gives it
DIALECTS = {**database_files.DIALECTS, "kuzu": KuzuGraph.dialect, "oxigraph": OxigraphDataset.dialect,
            "postgres": PostgresDatabase.dialect, "sparql": SparqlEndpoint.dialect, "cypher": FalkorGraph.dialect}


@dataclass(frozen=True)
class Source:
    name: str
    kind: str  # a key of engine.native.kinds.KINDS: table | database | graph | rdf
    engine: str  # duckdb | sqlite | kuzu | oxigraph
    location: str  # the user's file (or folder, for a vault of notes)
    descriptor: dict

    @property
    def language(self) -> str:
        return kind(self.kind).language

    @property
    def tables(self) -> list[dict]:
        return self.descriptor.get("tables") or [self.descriptor]

    @property
    def columns(self) -> list[dict]:
        """Every column of its tables (a SQL source's), in order."""
        return [c for t in self.tables for c in t.get("columns", [])]

    @property
    def dialect(self) -> str:
        return DIALECTS.get(self.engine, self.engine)

    @property
    def shown(self) -> str:
        """The source as people and the model read it: its file's name, or the name a server's source
        was connected under (its URL says little: `…/query`, `…?host=/srv/pg`); a table attached to
        an e-mail, by its attachment's name and its mail file's; one printed in a document, by its
        place there ("table 1 on page 3 of report.pdf")."""
        shown = source_name(self.location, {"source": self.name})
        attachment = self.descriptor.get("attachment")
        if attachment and self.descriptor.get("printed"):
            return f"{attachment} of {shown}"
        return f"{attachment} (attached to a message in {shown})" if attachment else shown


@dataclass
class Stores:
    """The engines that hold Trove's own copies of structured sources."""

    tables: TableStore
    graphs: GraphStore
    rdf: RdfStore


def from_catalog(rows: list[dict]) -> list[Source]:
    return [Source(r["name"], r["kind"], r["engine"], r["location"], r["descriptor"])
            for r in rows if r["kind"] in KINDS]


def schema_text(source: Source) -> str:
    return writer_for(source.language).schema_text(source)


def summary_text(source: Source) -> str:
    """What the source is about, for matching questions to sources (file, names, values)."""
    about = source.descriptor.get("about")  # Trove's own tables (photos, videos) say what they hold
    parts = [about or stem(source), *writer_for(source.language).summary_words(source)]
    return ", ".join(str(p) for p in parts if p)


def part_texts(source: Source) -> list[str]:
    """One short text per table, node label, relationship type or class: its name and its fields."""
    return writer_for(source.language).part_texts(source)
