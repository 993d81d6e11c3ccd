"""The sandboxed connections generated SQL runs on, one SELECT at a time: DuckDB read-only with
file and network access off and configuration locked, SQLite read-only under an authorizer that
allows reading and plain functions only. Both are called in the SQL worker (local_stores.sql_worker);
Trove's own statements on a user's database use the same connections."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path

import duckdb
import sqlean

from local_stores.results import MEMORY_MB, QueryFailed, QueryRefused, QueryResult, query_result

SAFE_CONFIG: dict[str, str | bool | int | float | list[str]] = {
    "enable_external_access": False,  # no files, no network, no ATTACH/COPY/INSTALL/LOAD
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "lock_configuration": True,  # SET cannot undo the above
}
SQLITE_ALLOWED = {sqlean.SQLITE_SELECT, sqlean.SQLITE_READ, sqlean.SQLITE_FUNCTION, sqlean.SQLITE_RECURSIVE}
SQLITE_DENIED_FUNCTIONS = {"load_extension", "readfile", "writefile", "edit", "fsdir", "lsdir", "lsmode",
                            "fileio_read", "fileio_write", "fileio_ls", "fileio_mkdir", "fileio_symlink",
                            "define", "eval", "sqlean_version"}


def sqlite_authorizer(action: int, arg1: object, arg2: object, db: object, source: object) -> int:
    """Allow reading and plain functions; deny ATTACH, PRAGMA, writes, schema changes, file I/O."""
    if action == sqlean.SQLITE_FUNCTION and str(arg2).lower() in SQLITE_DENIED_FUNCTIONS:
        return sqlean.SQLITE_DENY
    if action in SQLITE_ALLOWED:
        return sqlean.SQLITE_OK
    return sqlean.SQLITE_DENY


def sqlite_connect(path: Path) -> sqlean.Connection:
    con = sqlean.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    con.execute("PRAGMA query_only = ON")
    return con


def duckdb_select(path: Path, statement: str, timeout_s: float, max_rows: int,
                  memory_mb: int = MEMORY_MB, params: Sequence[object] = ()) -> QueryResult:
    """One checked SELECT on a DuckDB file: a fresh read-only, sandboxed connection with a memory
    cap, interrupted at the time limit, at most `max_rows` rows fetched. In this process: generated
    queries come through local_stores.sql_worker, which calls this in its worker."""
    try:
        con = duckdb.connect(str(path), read_only=True, config={**SAFE_CONFIG, "memory_limit": f"{memory_mb}MB"})
    except duckdb.Error as exc:  # moved, deleted or locked since it was indexed
        raise QueryFailed(f"cannot open the database {path}: {str(exc).splitlines()[0]}") from exc
    timer = threading.Timer(timeout_s, con.interrupt)
    timer.start()
    try:
        cursor = con.execute(statement, list(params))
        columns = [d[0] for d in cursor.description or []]
        rows = cursor.fetchmany(max_rows + 1)
    except duckdb.InterruptException as exc:
        raise QueryFailed(f"query stopped after the {timeout_s:g} s time limit") from exc
    except duckdb.PermissionException as exc:
        raise QueryRefused(f"query refused: {str(exc).splitlines()[0]}") from exc
    except duckdb.OutOfMemoryException as exc:
        raise QueryFailed(f"query stopped: it needed more than the {memory_mb} MB memory limit") from exc
    except duckdb.Error as exc:
        raise QueryFailed(" ".join(str(exc).split())[:500]) from exc  # keeps DuckDB's "candidate bindings" hint
    finally:
        timer.cancel()
        con.close()
    return query_result(columns, rows, max_rows)


def sqlite_select(path: Path, statement: str, timeout_s: float, max_rows: int,
                  params: Sequence[object] = ()) -> QueryResult:
    """One checked statement on a SQLite file, read-only, under the authorizer, stopped at the time
    limit. In this process: generated queries come through local_stores.sql_worker."""
    try:
        con = sqlite_connect(path)
    except sqlean.Error as exc:  # moved, deleted or locked since it was indexed
        raise QueryFailed(f"cannot open the database {path}: {exc}") from exc
    deadline = time.monotonic() + timeout_s
    con.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
    con.set_authorizer(sqlite_authorizer)
    try:
        cursor = con.execute(statement, tuple(params))
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
