"""Structured sources as the model sees them: a schema text to write queries against (in the
source's own language), a short summary whose embedding picks candidate sources for a question,
and the one place that knows which store runs a source's queries."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from local_stores import database_files
from local_stores.graph_store import GraphStore
from local_stores.rdf_store import RdfStore
from local_stores.table_store import QueryResult, TableStore

LANGUAGES = {"table": "sql", "database": "sql", "graph": "cypher", "rdf": "sparql"}  # source kind -> language
STRUCTURED_KINDS = tuple(LANGUAGES)


@dataclass(frozen=True)
class Source:
    name: str
    kind: str  # table | database | graph | rdf
    engine: str  # duckdb | sqlite | kuzu | oxigraph
    location: str  # the user's file (or folder, for a vault of notes)
    descriptor: dict

    @property
    def language(self) -> str:
        return LANGUAGES[self.kind]

    @property
    def tables(self) -> list[dict]:
        return self.descriptor.get("tables") or [self.descriptor]

    @property
    def dialect(self) -> str:
        return {"sqlite": "SQLite", "duckdb": "DuckDB", "kuzu": "Kùzu"}.get(self.engine, self.engine)


@dataclass
class Stores:
    """The engines that hold Trove's own copies of structured sources."""

    tables: TableStore
    graphs: GraphStore
    rdf: RdfStore


def from_catalog(rows: list[dict]) -> list[Source]:
    return [Source(r["name"], r["kind"], r["engine"], r["location"], r["descriptor"])
            for r in rows if r["kind"] in STRUCTURED_KINDS]


def schema_text(source: Source) -> str:
    from engine.native.writers import writer_for

    return writer_for(source.language).schema_text(source)


def summary_text(source: Source) -> str:
    """What the source is about, for matching questions to sources (file, names, values)."""
    parts = [Path(source.location).stem.replace("_", " ").replace("-", " ")]
    if source.descriptor.get("about"):  # Trove's own tables (photos, videos) say what they hold
        parts = [source.descriptor["about"]]
    if source.language == "sql":
        for table in source.tables:
            parts.append(table["table"].replace("_", " "))
            if table.get("sheet"):
                parts.append(str(table["sheet"]))
            parts += _property_words([c for c in table.get("columns", []) if c["name"] != "_row"])
    elif source.language == "cypher":
        for label, node in source.descriptor.get("nodes", {}).items():
            parts.append(label)
            parts += _property_words(node.get("properties", []))
        for rel in source.descriptor.get("relationships", {}):
            parts.append(rel.replace("_", " ").lower())
    elif source.language == "sparql":
        for cls in source.descriptor.get("classes", []):
            parts.append(str(cls.get("label") or cls.get("iri")))
            parts += _property_words([{"name": p.get("label") or p.get("iri"), "samples": p.get("samples", [])}
                                      for p in cls.get("predicates", [])])
        parts += [str(p.get("label") or p.get("iri")) for p in source.descriptor.get("predicates", [])]
    return ", ".join(str(p) for p in parts if p)


def part_texts(source: Source) -> list[str]:
    """One short text per table, node label, relationship type or class: its name and its fields."""
    stem = Path(source.location).stem.replace("_", " ").replace("-", " ")
    out = []
    if source.language == "sql":
        for table in source.tables:
            cols = [c.get("label") or c["name"] for c in table.get("columns", []) if c["name"] != "_row"]
            names = ", ".join(str(c).replace("_", " ") for c in cols)
            out.append(f"{stem}: {table['table'].replace('_', ' ')}: {names}")
    elif source.language == "cypher":
        d = source.descriptor
        for label, node in d.get("nodes", {}).items():
            out.append(f"{stem}: {label}: " + ", ".join(p["name"] for p in node.get("properties", [])))
        for rel, info in d.get("relationships", {}).items():
            for a, b in info.get("pairs", []):
                out.append(f"{stem}: {a} {rel.replace('_', ' ').lower()} {b}")
    elif source.language == "sparql":
        for cls in source.descriptor.get("classes", []):
            preds = [str(p.get("label") or p.get("iri")) for p in cls.get("predicates", [])]
            out.append(f"{stem}: {cls.get('label') or cls.get('iri')}: " + ", ".join(preds))
    return out


def _property_words(props: list[dict]) -> list[str]:
    words = []
    for p in props:
        words.append(str(p.get("label") or p["name"]).replace("_", " "))
        words += [str(v) for v in (p.get("values") or p.get("samples", [])[:2]) if isinstance(v, str)]
    return words


def validate(source: Source, query: str, stores: Stores) -> str:
    """The checked statement, after the engine has planned it without running it."""
    if source.language == "cypher":
        return stores.graphs.explain(source.name, query)
    if source.language == "sparql":
        return stores.rdf.explain(source.name, query)
    return database_files.explain(*_sql_target(source, stores.tables), query)


def run(source: Source, statement: str, stores: Stores, timeout_s: float, max_rows: int,
        params: tuple | list = ()) -> QueryResult:
    """Run a validated statement read-only, time- and row-limited, on the source's own engine;
    `params` are the bound values of Trove's own SQL lookups (the other engines take none here)."""
    if params and source.language != "sql":
        raise ValueError(f"bound values are for SQL sources, not {source.language}")
    if source.language == "cypher":
        return stores.graphs.execute(source.name, statement, timeout_s, max_rows)
    if source.language == "sparql":
        return stores.rdf.execute(source.name, statement, timeout_s, max_rows)
    return database_files.execute(*_sql_target(source, stores.tables), statement, timeout_s, max_rows, params)


def _sql_target(source: Source, store: TableStore) -> tuple[Path, str]:
    """Where SQL runs: Trove's table store for tables, the user's file for databases."""
    return (store.path, "duckdb") if source.kind == "table" else (Path(source.location), source.engine)
