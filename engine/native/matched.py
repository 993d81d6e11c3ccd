"""Whether a zero is a value or a count of nothing: "How much has Roman Bragin earned playing poker?"
over a graph where he is no poker player gives `SUM(…) = 0`, which is no earning of 0 (a count of
the rows the query matches tells the two apart); "How many notices were received in April 2016?"
over a report that ends in March gives 0, which is no count (the table's first and last dates tell).
Either way the files do not say."""

from __future__ import annotations

import re

from engine.native.described import tables_read
from engine.native.literals import SQL_SELECT
from local_stores.native_store import NativeStore
from local_stores.quoting import sqlite_sql as sq
from local_stores.results import QueryError, QueryResult

_VALUED = re.compile(r"\b(?:SUM|AVG|MIN|MAX)\s*\(", re.IGNORECASE)
_GROUPED = re.compile(r"\bGROUP\s+BY\b|\bUNION\b|\bINTERSECT\b|\bEXCEPT\b|\bWITH\b", re.IGNORECASE)
_SPARQL_SELECT = re.compile(r"^(.*?\bSELECT\s+)(.*?)(\s*WHERE\s*\{)", re.IGNORECASE | re.DOTALL)
_CYPHER_RETURN = re.compile(r"(\bRETURN\s+)(.*?)(\s*(?:ORDER\s+BY\b.*|LIMIT\b.*)?)$", re.IGNORECASE | re.DOTALL)


def empty(result: QueryResult) -> bool:
    """No rows, or one row of nothing but NULLs and zeros (a count or sum over no rows)."""
    return not result.rows or (len(result.rows) == 1 and all(v in (None, 0) for v in result.rows[0]))


def counting(statement: str, language: str) -> str | None:
    """The statement made to count the rows (solutions, matches) its aggregate reads, or None when it
    groups, combines several queries or has no value aggregate (a COUNT of 0 is an answer)."""
    if not _VALUED.search(statement) or _GROUPED.search(statement):
        return None
    if language == "sql":
        found = SQL_SELECT.match(statement)
        if found is None or re.search(r"\bSELECT\b", found.group(2), re.IGNORECASE):
            return None
        return f"{found.group(1)}COUNT(*){statement[found.start(3):]}"
    if language == "sparql":
        found = _SPARQL_SELECT.match(statement)
        return None if found is None else f"{found.group(1)}(COUNT(*) AS ?matched){statement[found.start(3):]}"
    found = _CYPHER_RETURN.search(statement)
    return None if found is None else f"{statement[:found.start(2)]}count(*){found.group(3)}"


def over_nothing(statement: str, result: QueryResult, language: str, store: NativeStore, timeout_s: float) -> bool:
    """A one-row result of zeros and NULLs from value aggregates that read no row at all."""
    if not result.rows or not empty(result):
        return False
    probe = counting(statement, language)
    if probe is None:
        return False
    try:
        counted = store.execute(store.explain(probe), timeout_s, 1)
    except QueryError:
        return False
    return bool(counted.rows) and counted.rows[0][0] in (0, None)


_DATE = r"(?:DATE\s*|TIMESTAMP\s*)?'(\d{4}-\d{2}-\d{2})(?:[ T][\d:.]+)?'"
_SINCE = re.compile(rf"(?:\b(\w+)\.)?\b(\w+)\s*(>=|>)\s*{_DATE}", re.IGNORECASE)
_UNTIL = re.compile(rf"(?:\b(\w+)\.)?\b(\w+)\s*(<=|<)\s*{_DATE}", re.IGNORECASE)
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}")
_BETWEEN = re.compile(rf"(?:\b(\w+)\.)?\b(\w+)\s+BETWEEN\s+{_DATE}\s+AND\s+{_DATE}", re.IGNORECASE)


def outside_span(statement: str, result: QueryResult, store: NativeStore, timeout_s: float) -> bool:
    """A SQL count of 0 (or no row) for a period the table's dates never reach: "How many WARN
    notices were received in April 2016?" over a report whose notices were received from July 2015
    to March 2016 is not answered by 0; the files do not cover April 2016."""
    if not empty(result):
        return False
    tables = set(tables_read(statement).values())
    if len(tables) != 1:
        return False
    (table,) = tables
    for column, (start, end) in _periods(statement).items():
        try:
            read = sq.ident(column)
            span = store.execute(f"SELECT MIN({read}), MAX({read}) FROM {sq.ident(table)}", timeout_s, 1).rows
        except QueryError:
            continue
        if not span or span[0][0] is None:
            continue
        first, last = str(span[0][0])[:10], str(span[0][1])[:10]
        if not (_ISO.fullmatch(first) and _ISO.fullmatch(last)):
            continue  # dates written as text some other way ("07/01/2015") do not sort as dates
        if (end is not None and end < first) or (start is not None and start > last):
            return True
    return False


def _periods(statement: str) -> dict[str, tuple[str | None, str | None]]:
    """Per column, the dates the statement compares it with: (from, until), either None when open."""
    periods: dict[str, tuple[str | None, str | None]] = {}
    for m in _BETWEEN.finditer(statement):
        periods[m.group(2)] = (m.group(3), m.group(4))
    for m in _SINCE.finditer(statement):
        periods[m.group(2)] = (m.group(4), periods.get(m.group(2), (None, None))[1])
    for m in _UNTIL.finditer(statement):
        periods[m.group(2)] = (periods.get(m.group(2), (None, None))[0], m.group(4))
    return periods
