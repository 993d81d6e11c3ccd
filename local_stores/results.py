"""What every native store gives back: a query's result, and the two ways a query does not run.

Both errors derive from `QueryError`, so a caller that only reports a query's failure catches one
type; `QueryRefused` (the query must not run: not a single read-only statement) and `QueryFailed`
(it ran into an error, a timeout or a limit) tell the query writer different things."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MEMORY_MB = 2048  # settings.query_memory_mb's default: an engine's own default is most of the machine


class QueryError(Exception):
    """A generated query that gave no result; the message says why, for the writer and the user."""


class QueryRefused(QueryError):
    """A query that must not run (not a single read-only statement); the message says why."""


class QueryFailed(QueryError):
    """A query that ran into an error, a timeout or a limit; the message is fed back to the writer."""


class Unreachable(QueryFailed):
    """The source's server cannot be reached or refused the login: no rewrite of the query can help."""


def first_line(exc: BaseException) -> str:
    """An engine's or a server's error as one line: its first (the rest is context and hints)."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


@dataclass
class QueryResult:
    columns: list[str]
    rows: list[tuple]
    truncated: bool = False  # more rows existed than the row limit


def plain(value: object) -> object:
    """JSON-friendly values for descriptors and citations."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def query_result(columns: list[str], rows: Sequence[Sequence[object]], max_rows: int) -> QueryResult:
    """The first `max_rows` of `rows` (fetched one more, to tell whether there were more)."""
    return QueryResult(columns, [tuple(plain(v) for v in r) for r in rows[:max_rows]], len(rows) > max_rows)
