"""Structured sources as the model sees them: a schema text to write queries against, and a short
summary whose embedding picks candidate sources for a question."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from local_stores import database_files
from local_stores.table_store import QueryResult, TableStore

STRUCTURED_KINDS = ("table", "database")


@dataclass(frozen=True)
class Source:
    name: str
    kind: str  # table | database
    engine: str  # duckdb | sqlite
    location: str  # the user's file
    descriptor: dict

    @property
    def tables(self) -> list[dict]:
        return self.descriptor.get("tables") or [self.descriptor]

    @property
    def dialect(self) -> str:
        return "SQLite" if self.engine == "sqlite" else "DuckDB"


def from_catalog(rows: list[dict]) -> list[Source]:
    return [Source(r["name"], r["kind"], r["engine"], r["location"], r["descriptor"])
            for r in rows if r["kind"] in STRUCTURED_KINDS]


def _value(v: object) -> str:
    return repr(v) if isinstance(v, str) else str(v)


def schema_text(source: Source) -> str:
    """CREATE TABLE statements with sample values and original headers as comments."""
    out = []
    for table in source.tables:
        cols = []
        for c in table.get("columns", []):
            notes = []
            if c.get("label"):
                notes.append(f"header {c['label']!r}")
            if c.get("values"):
                notes.append("values: " + ", ".join(_value(v) for v in c["values"]))
            elif c.get("samples"):
                notes.append("e.g. " + ", ".join(_value(v) for v in c["samples"][:3]))
            if c["name"] == "_row":
                notes = ["original row number in the file"]
            cols.append(f"  {c['name']} {c['type']}" + (f"  -- {'; '.join(notes)}" if notes else ""))
        for fk in table.get("foreign_keys", []):
            cols.append(f"  FOREIGN KEY ({fk['column']}) REFERENCES {fk['references']}")
        where = Path(source.location).name + (f", sheet {table['sheet']!r}" if table.get("sheet") else "")
        out.append(f"-- from {where}, {table.get('rows', '?')} rows\nCREATE TABLE {table['table']} (\n"
                   + ",\n".join(cols) + "\n);")
    return "\n".join(out)


def summary_text(source: Source) -> str:
    """What the source is about, for matching questions to sources (file, tables, columns, values)."""
    parts = [Path(source.location).stem.replace("_", " ").replace("-", " ")]
    for table in source.tables:
        parts.append(table["table"].replace("_", " "))
        if table.get("sheet"):
            parts.append(str(table["sheet"]))
        for c in table.get("columns", []):
            if c["name"] == "_row":
                continue
            parts.append(c.get("label") or c["name"].replace("_", " "))
            parts += [str(v) for v in (c.get("values") or c.get("samples", [])[:2]) if isinstance(v, str)]
    return ", ".join(parts)


def _target(source: Source, store: TableStore) -> tuple[Path, str]:
    """Where a source's queries run: Trove's table store for tables, the user's file for databases."""
    return (store.path, "duckdb") if source.kind == "table" else (Path(source.location), source.engine)


def validate(source: Source, sql: str, store: TableStore) -> str:
    """The checked statement, after the engine has planned it (EXPLAIN) without running it."""
    return database_files.explain(*_target(source, store), sql)


def run(source: Source, statement: str, store: TableStore, timeout_s: float, max_rows: int) -> QueryResult:
    return database_files.execute(*_target(source, store), statement, timeout_s, max_rows)
