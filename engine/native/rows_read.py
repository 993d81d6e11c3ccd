"""The rows of a table a SQL answer was read from, when the query does not return them itself:
"how many employees did the Molycorp notice affect?" returns 474, and its citation names the row
that holds it (and, for a table printed on several pages of a PDF, that row's page, not the page
the table starts on). Only a query over one table that numbers its rows (`_row`), without groups,
is read again: `SELECT _row` with its own FROM and WHERE (and, for a listing, its ORDER BY and
LIMIT: the top row of a ranking is cited), run like the query itself. A query that reads every row
of its table cites none of them."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from engine.native.ranking import flat, nested_select
from engine.native.row_order import ROW
from local_stores.results import QueryFailed, QueryResult

if TYPE_CHECKING:
    from engine.native.sources import Source
    from local_stores.native_store import NativeStore

MAX_ROWS_READ = 50  # more rows than this read by one answer are not cited one by one
_FROM = re.compile(r"\bFROM\b", re.IGNORECASE)
_WHERE = re.compile(r"\bWHERE\b", re.IGNORECASE)
_GROUPED = re.compile(r"\b(?:GROUP\s+BY|HAVING|UNION|INTERSECT|EXCEPT|JOIN|WINDOW|OVER|QUALIFY)\b",
                      re.IGNORECASE)  # at the top level after FROM: groups, set operations, several tables
_AGGREGATE = re.compile(r"\b(?:COUNT|SUM|AVG|MIN|MAX|MEDIAN|STRING_AGG|LIST|ARRAY_AGG|ANY_VALUE)\s*\(",
                        re.IGNORECASE)
_DISTINCT = re.compile(r"^\s*SELECT\s+DISTINCT\b", re.IGNORECASE)
_LIMIT = re.compile(r"\bLIMIT\b", re.IGNORECASE)
_ORDER_OR_LIMIT = re.compile(r"\b(?:ORDER\s+BY|LIMIT|OFFSET)\b", re.IGNORECASE)


def rows_statement(statement: str, result: QueryResult, source: Source) -> str | None:
    """`SELECT _row FROM …` reading the rows `statement` read, or None when its result names its rows
    already, its source does not number rows, or it reads several tables, groups or nests."""
    if source.language != "sql" or ROW in result.columns or ROW not in {c["name"] for c in source.columns}:
        return None
    top = flat(statement)
    start = _FROM.search(top)
    if start is None or nested_select(statement) or not statement.lstrip().upper().startswith("SELECT"):
        return None
    rest, rest_top = statement[start.start():].rstrip().rstrip(";"), top[start.start():]
    aggregate, distinct = _AGGREGATE.search(statement[:start.start()]), _DISTINCT.match(top)
    cut, where = _ORDER_OR_LIMIT.search(rest_top), _WHERE.search(rest_top)
    tables = rest_top[:where.start() if where else cut.start() if cut else len(rest_top)]
    if _GROUPED.search(rest_top) or "," in tables:
        return None
    if where is None and (aggregate or distinct or not _LIMIT.search(rest_top)):
        return None  # every row of the table: none to point at
    if (aggregate or distinct) and cut is not None:  # an aggregate's (distinct values') rows: all WHERE keeps
        if not aggregate:
            return None  # which rows a LIMIT of distinct values kept cannot be told
        rest = rest[:cut.start()].rstrip()
    # sandboxed: the model's own FROM and WHERE, checked and run by the store like the query itself
    return f"SELECT {ROW} {rest}"


def rows_read(statement: str, result: QueryResult, source: Source, store: NativeStore,
              timeout_s: float) -> list[int]:
    """The `_row` numbers of the rows `statement` read (in its order), at most MAX_ROWS_READ of them;
    none when they cannot be told or are more."""
    reading = rows_statement(statement, result, source)
    if reading is None:
        return []
    try:
        found = store.execute(store.explain(reading), timeout_s, MAX_ROWS_READ + 1)
    except QueryFailed:
        return []
    rows = [row[0] for row in found.rows if isinstance(row[0], int)]
    return rows if 0 < len(rows) <= MAX_ROWS_READ and not found.truncated else []


def pages_of(rows: list[int], page_starts: list[list[int]]) -> list[int]:
    """The pages the given rows are printed on, from each page's first row ((page, row) pairs in order)."""
    pages = []
    for row in rows:
        held = [page for page, first in page_starts if first <= row]
        if held:
            pages.append(held[-1])
    return pages
