"""Generated SQL runs in a worker process (local_stores.query_worker), for DuckDB and SQLite alike.

DuckDB's `memory_limit` bounds its buffer manager, not an expression: `SELECT repeat('x', 1500000000)`
grew to 5.8 GB and ran 25 s past a 10 s limit in-process. In the worker its address space is capped
and the process is killed past the time limit; the sandbox of each engine (read-only, no file or
network access, one SELECT) applies inside it as before."""

from __future__ import annotations

import atexit
from collections.abc import Sequence
from pathlib import Path

from local_stores import query_worker
from local_stores.results import MEMORY_MB, QueryFailed, QueryRefused, QueryResult
from local_stores.sql_sandbox import duckdb_select, sqlite_select

GRACE_S = 2.0  # the engine's own interrupt answers first, with its message; the kill is the backstop
OVERHEAD_MB = 512  # the interpreter and the engines' code, beside the query's memory


def serve(fd: int, memory_mb: int = 0) -> None:
    """The worker process: one statement at a time, on a fresh sandboxed connection each."""
    query_worker.serve(fd, memory_mb, _answer)


def _answer(request: tuple) -> tuple:
    _, engine, path, statement, timeout_s, max_rows, memory_mb, params = request
    try:
        if engine == "sqlite":
            result = sqlite_select(Path(path), statement, timeout_s, max_rows, params)
        else:
            result = duckdb_select(Path(path), statement, timeout_s, max_rows, memory_mb, params)
    except QueryRefused as exc:
        return ("refused", str(exc))
    except QueryFailed as exc:
        return ("failed", str(exc))
    return ("ok", result.columns, result.rows, result.truncated)


def run(engine: str, path: Path, statement: str, timeout_s: float, max_rows: int,
        params: Sequence[object] = ()) -> QueryResult:
    """`statement` (already checked) on the database at `path`, in the worker, with `params` bound."""
    request = ("query", engine, str(path), statement, timeout_s, max_rows, _WORKER.query_mb, list(params))
    reply = _WORKER.run(request, timeout_s + GRACE_S)
    if reply[0] == "refused":
        raise QueryRefused(reply[1])
    if reply[0] != "ok":
        raise QueryFailed(reply[1])
    _, columns, rows, truncated = reply
    return QueryResult(columns, rows, truncated)


_WORKER = query_worker.Worker("local_stores.sql_worker", "SQL", MEMORY_MB, OVERHEAD_MB)
atexit.register(_WORKER.close)
