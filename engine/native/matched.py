"""Whether an aggregate's zero is a value or the sum of nothing: "How much has Roman Bragin earned
playing poker?" over a graph where he is no poker player gives `SUM(…) = 0`, which is no earning of
0; the files do not say. A count of the rows the query matches tells the two apart."""

from __future__ import annotations

import re

from local_stores.native_store import NativeStore
from local_stores.results import QueryError, QueryResult

_VALUED = re.compile(r"\b(?:SUM|AVG|MIN|MAX)\s*\(", re.IGNORECASE)
_GROUPED = re.compile(r"\bGROUP\s+BY\b|\bUNION\b|\bINTERSECT\b|\bEXCEPT\b|\bWITH\b", re.IGNORECASE)
_SQL_SELECT = re.compile(r"^(\s*SELECT\s+)(.*?)(\s+FROM\b)", re.IGNORECASE | re.DOTALL)
_SPARQL_SELECT = re.compile(r"^(.*?\bSELECT\s+)(.*?)(\s*WHERE\s*\{)", re.IGNORECASE | re.DOTALL)
_CYPHER_RETURN = re.compile(r"(\bRETURN\s+)(.*?)(\s*(?:ORDER\s+BY\b.*|LIMIT\b.*)?)$", re.IGNORECASE | re.DOTALL)


def counting(statement: str, language: str) -> str | None:
    """The statement made to count the rows (solutions, matches) its aggregate reads, or None when it
    groups, combines several queries or has no value aggregate (a COUNT of 0 is an answer)."""
    if not _VALUED.search(statement) or _GROUPED.search(statement):
        return None
    if language == "sql":
        found = _SQL_SELECT.match(statement)
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
    if len(result.rows) != 1 or any(value not in (None, 0) for value in result.rows[0]):
        return False
    probe = counting(statement, language)
    if probe is None:
        return False
    try:
        counted = store.execute(store.explain(probe), timeout_s, 1)
    except QueryError:
        return False
    return bool(counted.rows) and counted.rows[0][0] in (0, None)
