"""Tables -> DuckDB (OmniRetrieval: tables stay tables). CSV/TSV in any encoding, Parquet, JSON
arrays of records and JSON lines. Each file becomes one table and one catalog source whose
descriptor (columns, types, samples, row count) is what source selection and SQL writing read."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from engine.errors import ParseError, SkipFile
from engine.ingest import spreadsheet
from engine.ingest.textio import decode
from local_stores.table_store import TableInfo, TableStore

EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".parquet": "parquet", ".jsonl": "json",
              ".ndjson": "json", ".json": "json", ".xlsx": "xlsx", ".xlsm": "xlsx",
              ".sqlite": "database", ".sqlite3": "database", ".db": "database", ".duckdb": "database"}


KINDS = frozenset(EXTENSIONS.values())


def kind_of(path: Path) -> str | None:
    return EXTENSIONS.get(path.suffix.lower())


def load(store: TableStore, names: Callable[[str | None], str], path: Path) -> list[TableInfo]:
    """Load `path` as tables (one, or one per sheet), replacing them; `names(sheet)` gives each
    table's name. ParseError/SkipFile with the reason."""
    import duckdb

    kind = kind_of(path)
    try:
        if kind in ("csv", "tsv"):
            text = decode(path.read_bytes(), path)
            if len(text.strip().splitlines()) < 2:
                raise SkipFile("no data rows (a header at most)")
            return [store.load_csv(names(None), path, text, delimiter="\t" if kind == "tsv" else None)]
        if kind == "xlsx":
            loaded = []
            for sheet in spreadsheet.read_sheets(path):
                info = store.load_csv(names(sheet.name), path, sheet.csv_text, ",", sheet=sheet.name)
                info.warnings += sheet.warnings
                loaded.append(info)
            return loaded
        if kind == "parquet":
            return [store.load_parquet(names(None), path)]
        if kind == "json":
            if path.suffix.lower() == ".json" and _first_char(path) != "[":
                raise SkipFile("JSON that is not an array of records (settings or data of an app?)")
            return [store.load_json(names(None), path)]
    except duckdb.Error as exc:
        what = {"parquet": "Parquet file", "json": "JSON records"}.get(kind or "", "table")
        raise ParseError(f"not a readable {what}: {str(exc).splitlines()[0][:200]}") from exc
    raise ParseError(f"no table reader for {path.suffix} files")


def describe_database(path: Path) -> dict:
    """A database the user keeps, described in place (never copied): engine, dialect, every table."""
    from local_stores import database_files

    engine = database_files.engine_of(path)
    if engine is None:
        raise SkipFile("not a SQLite or DuckDB database")
    try:
        described = database_files.describe(path, engine)
    except Exception as exc:  # a locked, encrypted or damaged database file
        raise ParseError(f"cannot read this {engine} database: {str(exc).splitlines()[0][:200]}") from exc
    if not described:
        raise SkipFile(f"the {engine} database has no tables")
    return {"engine": engine, "dialect": engine, "language": "sql", "file": str(path), "tables": described}


def _first_char(path: Path) -> str:
    with path.open("rb") as fh:
        head = fh.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head[:1].decode("ascii", "replace")


def descriptor(info: TableInfo) -> dict:
    out = {"table": info.name, "rows": info.rows, "columns": info.columns, "file": info.file,
           "warnings": info.warnings, "language": "sql", "dialect": "duckdb"}
    if info.sheet:
        out["sheet"] = info.sheet
    return out
