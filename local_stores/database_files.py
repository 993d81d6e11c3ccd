"""Databases the user already keeps (.sqlite/.db, .duckdb): described and queried in place,
read-only. Trove never copies or writes them; generated SQL gets the same limits as for tables:
one SELECT, no file or network access, a time limit, a row limit."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from pathlib import Path

import duckdb
import sqlean

from local_stores import sql_worker
from local_stores.quoting import Quoted
from local_stores.quoting import duckdb_sql as duck
from local_stores.quoting import sqlite_sql as sq
from local_stores.results import MEMORY_MB, QueryFailed, QueryResult, plain
from local_stores.sql_sandbox import SAFE_CONFIG, sqlite_authorizer, sqlite_connect
from local_stores.table_store import check_query, sample_values_sql

SQLITE_MAGIC = b"SQLite format 3\x00"
DIALECTS = {"sqlite": "SQLite", "duckdb": "DuckDB"}  # engine -> the name a query writer uses


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
_DESCRIBE_PRAGMAS = {"table_info", "foreign_key_list"}
DESCRIBE_TIMEOUT_S = 5.0  # per statement while describing: a view may never end (an endless recursive CTE)


def _describe_authorizer(action: int, arg1: object, arg2: object, db: object, source: object) -> int:
    """What generated queries may do, and the two schema pragmas describing needs."""
    if action == sqlean.SQLITE_PRAGMA and str(arg1).lower() in _DESCRIBE_PRAGMAS:
        return sqlean.SQLITE_OK
    return sqlite_authorizer(action, arg1, arg2, db, source)


class _Timed:
    """Runs Trove's own statements on a user's database, each stopped after `timeout_s`; a view's
    SQL comes from the file, so a statement that reads one is as untrusted as a generated query."""

    def __init__(self, run: Callable[[str, list], list], timeout_s: float) -> None:
        self.run, self.timeout_s, self.stopped = run, timeout_s, False

    def rows(self, statement: str, params: list | None = None) -> list | None:
        """The rows, or None when the statement ran out of time or failed (the describe goes on)."""
        try:
            return self.run(statement, params or [])
        except QueryFailed:
            return None


def _sqlite_runner(con: sqlean.Connection, timeout_s: float) -> Callable[[str, list], list]:
    deadline = [0.0]
    con.set_progress_handler(lambda: int(time.monotonic() > deadline[0]), 10_000)
    con.set_authorizer(_describe_authorizer)

    def run(statement: str, params: list) -> list:
        deadline[0] = time.monotonic() + timeout_s
        try:
            return con.execute(statement, params).fetchall()
        except sqlean.DatabaseError as exc:
            raise QueryFailed(str(exc)) from exc
    return run


def _sqlite_describe(path: Path, samples: int, timeout_s: float = DESCRIBE_TIMEOUT_S) -> list[dict]:
    with closing(sqlite_connect(path)) as con:
        timed = _Timed(_sqlite_runner(con, timeout_s), timeout_s)
        names = [r[0] for r in timed.rows("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
                                          "AND name NOT LIKE 'sqlite_%' ORDER BY name") or []]
        return [_sqlite_table(timed, name, samples) for name in names]


def _sqlite_table(timed: _Timed, name: str, samples: int) -> dict:
    """One table or view: columns with samples, keys, row count; a note where reading it stopped."""
    ref = sq.ident(name)
    columns = []
    for _, col, typ, _, _, pk in timed.rows("SELECT * FROM pragma_table_info(?)", [name]) or []:
        values = timed.rows(sample_values_sql(col, ref, samples)) or []
        column = {"name": col, "type": typ or "ANY", "samples": [plain(v[0]) for v in values]}
        if pk:
            column["primary_key"] = True
        if any(isinstance(v[0], str) for v in values) and _numbers_as_text(timed, ref, sq.ident(col)):
            column["numbers_as_text"] = True
        columns.append(column)
    fks = timed.rows("SELECT * FROM pragma_foreign_key_list(?)", [name]) or []
    count = timed.rows(f"SELECT count(*) FROM {ref}")
    table = {"table": name, "rows": count[0][0] if count else None, "columns": columns,
             "foreign_keys": [{"column": fk[3], "references": f"{fk[2]}.{fk[4]}"} for fk in fks]}
    if count is None:
        table["warnings"] = [f"its rows could not be counted within {timed.timeout_s:g} s"]
    return table


def _numbers_as_text(timed: _Timed, table: Quoted, column: Quoted) -> bool:
    """Whether a SQLite column holds its numbers as text ('979', '6194'), each of its values: SQLite
    sorts and compares them as text then ('979' > '6194'), so queries read them as numbers."""
    counted = timed.rows(
        f"SELECT count(*), sum(CASE WHEN trim({column}) GLOB '*[^0-9.+-]*' OR trim({column}) NOT GLOB '*[0-9]*' "
        f"THEN 1 ELSE 0 END) FROM {table} WHERE typeof({column}) = 'text' AND trim({column}) <> ''")
    return counted is not None and bool(counted) and counted[0][0] >= 2 and not counted[0][1]


# -- DuckDB -----------------------------------------------------------------------------------------
def _duckdb_runner(con: duckdb.DuckDBPyConnection, timeout_s: float) -> Callable[[str, list], list]:
    def run(statement: str, params: list) -> list:
        timer = threading.Timer(timeout_s, con.interrupt)
        timer.start()
        try:
            return con.execute(statement, params).fetchall()
        except duckdb.Error as exc:
            raise QueryFailed(str(exc)) from exc
        finally:
            timer.cancel()
    return run


def _duckdb_describe(path: Path, samples: int, timeout_s: float = DESCRIBE_TIMEOUT_S) -> list[dict]:
    with duckdb.connect(str(path), read_only=True, config={**SAFE_CONFIG, "memory_limit": f"{MEMORY_MB}MB"}) as con:
        timed = _Timed(_duckdb_runner(con, timeout_s), timeout_s)
        names = timed.rows("SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema "
                           "NOT IN ('information_schema', 'pg_catalog') ORDER BY 1, 2") or []
        return [_duckdb_table(timed, schema, name, samples) for schema, name in names]


def _duckdb_table(timed: _Timed, schema: str, name: str, samples: int) -> dict:
    ref = duck.qualified(schema, name)
    columns = []
    for col, typ in timed.rows("SELECT column_name, data_type FROM information_schema.columns WHERE "
                               "table_schema = ? AND table_name = ? ORDER BY ordinal_position", [schema, name]) or []:
        values = timed.rows(sample_values_sql(col, ref, samples)) or []
        columns.append({"name": col, "type": typ, "samples": [plain(v[0]) for v in values]})
    count = timed.rows(f"SELECT count(*) FROM {ref}")
    table = {"table": name if schema == "main" else f"{schema}.{name}", "rows": count[0][0] if count else None,
             "columns": columns}
    if count is None:
        table["warnings"] = [f"its rows could not be counted within {timed.timeout_s:g} s"]
    return table


# -- public -------------------------------------------------------------------------------------------
def describe(path: Path, engine: str, samples: int = 3, timeout_s: float = DESCRIBE_TIMEOUT_S) -> list[dict]:
    """Every table of the database: columns, types, sample values, keys, row counts; each statement
    stopped after `timeout_s` (a table or view that cannot be read in time is kept with a warning)."""
    if engine == "sqlite":
        return _sqlite_describe(path, samples, timeout_s)
    return _duckdb_describe(path, samples, timeout_s)


def explain(path: Path, engine: str, sql: str) -> str:
    """The checked statement, once the engine has planned it (EXPLAIN) without running it;
    QueryFailed/QueryRefused on a bad query."""
    statement = check_query(sql, dialect=engine)
    plan = "EXPLAIN QUERY PLAN " if engine == "sqlite" else "EXPLAIN "
    sql_worker.run(engine, path, plan + statement, timeout_s=5.0, max_rows=1)  # DuckDB may fold constants
    return statement


def execute(path: Path, engine: str, sql: str, timeout_s: float = 10.0, max_rows: int = 200,
            params: Sequence[object] = ()) -> QueryResult:
    """One checked SELECT in the SQL worker; `params` are its bound values (Trove's own lookups)."""
    statement = check_query(sql, dialect=engine)
    return sql_worker.run(engine, path, statement, timeout_s, max_rows, params)


def descriptor(path: Path, engine: str, tables: list[dict]) -> dict:
    """A database source as the catalog records it: its engine, its file and its described tables."""
    return {"engine": engine, "dialect": engine, "language": "sql", "file": str(path), "tables": tables}


class DatabaseFile:
    """A database file the user keeps (SQLite or DuckDB), as a native store: read in place, never
    written; `describe` reads it in this process (ingest reads an unknown file in a worker)."""

    language = "sql"

    def __init__(self, path: Path, engine: str) -> None:
        if engine not in DIALECTS:
            raise ValueError(f"not a database engine Trove reads: {engine!r} (known: {', '.join(DIALECTS)})")
        self.path, self.engine, self.dialect = Path(path), engine, DIALECTS[engine]

    def describe(self) -> dict:
        return descriptor(self.path, self.engine, describe(self.path, self.engine))

    def explain(self, query: str) -> str:
        return explain(self.path, self.engine, query)

    def execute(self, query: str, timeout_s: float = 10.0, max_rows: int = 200,
                params: Sequence[object] = ()) -> QueryResult:
        return execute(self.path, self.engine, query, timeout_s, max_rows, params)
