"""Databases the user already keeps (.sqlite/.db, .duckdb): described and queried in place,
read-only. Trove never copies or writes them; generated SQL gets the same limits as for tables:
one SELECT, no file or network access, a time limit, a row limit."""

from __future__ import annotations

import time
from pathlib import Path

import duckdb
import sqlean

from local_stores.table_store import (
    SAFE_CONFIG,
    QueryFailed,
    QueryRefused,
    QueryResult,
    check_query,
    duckdb_select,
    plain,
    query_result,
    sample_values_sql,
)

SQLITE_MAGIC = b"SQLite format 3\x00"


def engine_of(path: Path) -> str | None:
    """'sqlite' or 'duckdb' by the file's own header, None when it is neither."""
    try:
        with path.open("rb") as fh:
            head = fh.read(16)
            fh.seek(8)
            duck = fh.read(4)
    except OSError:
        return None
    if head == SQLITE_MAGIC:
        return "sqlite"
    if duck == b"DUCK":
        return "duckdb"
    return None


# -- SQLite ---------------------------------------------------------------------------------------
_SQLITE_ALLOWED = {sqlean.SQLITE_SELECT, sqlean.SQLITE_READ, sqlean.SQLITE_FUNCTION, sqlean.SQLITE_RECURSIVE}


_SQLITE_DENIED_FUNCTIONS = {"load_extension", "readfile", "writefile", "edit", "fsdir", "lsdir", "lsmode",
                            "fileio_read", "fileio_write", "fileio_ls", "fileio_mkdir", "fileio_symlink",
                            "define", "eval", "sqlean_version"}


def _sqlite_authorizer(action: int, arg1: object, arg2: object, db: object, source: object) -> int:
    """Allow reading and plain functions; deny ATTACH, PRAGMA, writes, schema changes, file I/O."""
    if action == sqlean.SQLITE_FUNCTION and str(arg2).lower() in _SQLITE_DENIED_FUNCTIONS:
        return sqlean.SQLITE_DENY
    if action in _SQLITE_ALLOWED:
        return sqlean.SQLITE_OK
    return sqlean.SQLITE_DENY


def _sqlite_connect(path: Path) -> sqlean.Connection:
    con = sqlean.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    con.execute("PRAGMA query_only = ON")
    return con


def _sqlite_describe(path: Path, samples: int) -> list[dict]:
    with _sqlite_connect(path) as con:
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
                                           "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        tables = []
        for name in names:
            cols = con.execute(f'PRAGMA table_info("{name}")').fetchall()
            fks = con.execute(f'PRAGMA foreign_key_list("{name}")').fetchall()
            columns = []
            for _, col, typ, _, _, pk in cols:
                values = [r[0] for r in con.execute(sample_values_sql(col, f'"{name}"', samples))]
                column = {"name": col, "type": typ or "ANY", "samples": [plain(v) for v in values]}
                if pk:
                    column["primary_key"] = True
                columns.append(column)
            rows = con.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0]
            tables.append({"table": name, "rows": rows, "columns": columns,
                           "foreign_keys": [{"column": fk[3], "references": f"{fk[2]}.{fk[4]}"} for fk in fks]})
    return tables


def _sqlite_execute(path: Path, statement: str, timeout_s: float, max_rows: int) -> QueryResult:
    try:
        con = _sqlite_connect(path)
    except sqlean.Error as exc:  # moved, deleted or locked since it was indexed
        raise QueryFailed(f"cannot open the database {path}: {exc}") from exc
    deadline = time.monotonic() + timeout_s
    con.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
    con.set_authorizer(_sqlite_authorizer)
    try:
        cursor = con.execute(statement)
        columns = [d[0] for d in cursor.description or []]
        rows = cursor.fetchmany(max_rows + 1)
    except sqlean.DatabaseError as exc:
        if time.monotonic() > deadline:
            raise QueryFailed(f"query stopped after the {timeout_s:g} s time limit") from exc
        if "not authorized" in str(exc):
            raise QueryRefused(f"query refused: {exc}") from exc
        raise QueryFailed(str(exc)) from exc
    finally:
        con.close()
    return query_result(columns, rows, max_rows)


# -- DuckDB -----------------------------------------------------------------------------------------
def _duckdb_describe(path: Path, samples: int) -> list[dict]:
    with duckdb.connect(str(path), read_only=True, config=SAFE_CONFIG) as con:
        names = [r[0] for r in con.execute("SELECT table_schema || '.' || table_name FROM information_schema.tables "
                                           "WHERE table_schema NOT IN ('information_schema', 'pg_catalog') "
                                           "ORDER BY 1").fetchall()]
        tables = []
        for qualified in names:
            schema, name = qualified.split(".", 1)
            ref = f'"{name}"' if schema == "main" else f'"{schema}"."{name}"'
            columns = []
            for col, typ in con.execute("SELECT column_name, data_type FROM information_schema.columns WHERE "
                                        "table_schema = ? AND table_name = ? ORDER BY ordinal_position",
                                        [schema, name]).fetchall():
                values = [r[0] for r in con.execute(sample_values_sql(col, ref, samples)).fetchall()]
                columns.append({"name": col, "type": typ, "samples": [plain(v) for v in values]})
            rows = con.execute(f"SELECT count(*) FROM {ref}").fetchone()[0]
            tables.append({"table": name if schema == "main" else qualified, "rows": rows, "columns": columns})
    return tables


# -- public -------------------------------------------------------------------------------------------
def describe(path: Path, engine: str, samples: int = 3) -> list[dict]:
    """Every table of the database: columns, types, sample values, keys, row counts."""
    return _sqlite_describe(path, samples) if engine == "sqlite" else _duckdb_describe(path, samples)


def explain(path: Path, engine: str, sql: str) -> str:
    """The checked statement, once the engine has planned it (EXPLAIN) without running it;
    QueryFailed/QueryRefused on a bad query."""
    statement = check_query(sql, dialect=engine)
    if engine == "sqlite":
        _sqlite_execute(path, f"EXPLAIN QUERY PLAN {statement}", timeout_s=5.0, max_rows=1)
    else:
        duckdb_select(path, f"EXPLAIN {statement}", timeout_s=5.0, max_rows=1)
    return statement


def execute(path: Path, engine: str, sql: str, timeout_s: float = 10.0, max_rows: int = 200) -> QueryResult:
    statement = check_query(sql, dialect=engine)
    if engine == "sqlite":
        return _sqlite_execute(path, statement, timeout_s, max_rows)
    return duckdb_select(path, statement, timeout_s, max_rows)
