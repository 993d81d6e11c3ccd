"""Query results as evidence: rows written out with their provenance, and the citation locator."""

from __future__ import annotations

from pathlib import Path

from engine.native.sql_writer import SqlOutcome
from engine.retrieval.hybrid import Hit
from local_stores.table_store import QueryResult
from local_stores.vector_store import Item

MAX_ROWS_SHOWN = 20


def verbalise(outcome: SqlOutcome, question: str) -> str:
    """The rows in words. The question is restated: the query was written for it, and its filters
    (a month, a shop) are in the SQL, not in the numbers."""
    result = outcome.result
    assert result is not None
    cols = result.columns
    name = Path(outcome.source.location).name
    if _empty(result):
        return f"For the question {question!r}, a query on {name} found no matching rows: the answer is none."
    if len(result.rows) == 1 and "_row" not in cols:
        return f"For the question {question!r}, computed from {name}: {_facts(result)}"
    lines = [f"For the question {question!r}, rows found in {name}:"]
    for row in result.rows[:MAX_ROWS_SHOWN]:
        pairs = [f"{c.replace('_', ' ')}: {v}" for c, v in zip(cols, row, strict=True) if c != "_row"]
        prefix = f"row {row[cols.index('_row')]}: " if "_row" in cols else ""
        lines.append(prefix + "; ".join(pairs))
    more = len(result.rows) - MAX_ROWS_SHOWN
    if more > 0 or result.truncated:
        lines.append(f"(and more rows: {len(result.rows)}{'+' if result.truncated else ''} in all)")
    return "\n".join(lines)


def _facts(result: QueryResult) -> str:
    """A one-row result in words: `total spent is 298.62.`"""
    return "; ".join(f"{c.replace('_', ' ')} is {v}" for c, v in zip(result.columns, result.rows[0], strict=True)) + "."


def _empty(result: QueryResult) -> bool:
    """No rows, or one row of NULLs (an aggregate over no rows)."""
    return not result.rows or (len(result.rows) == 1 and all(v is None for v in result.rows[0]))


def found_something(outcome: SqlOutcome) -> bool:
    """Rows, or an aggregate that is not NULL. An empty result is kept in `queries`, not as evidence:
    the text corpora may still answer, and "no rows" from a guessed filter proves little."""
    return outcome.result is not None and not _empty(outcome.result)


def locator(outcome: SqlOutcome) -> dict:
    result = outcome.result
    loc: dict = {"source": outcome.source.name, "sql": outcome.sql, "language": "sql",
                 "tables": [t["table"] for t in outcome.source.tables]}
    sheets = [t["sheet"] for t in outcome.source.tables if t.get("sheet")]
    if sheets:
        loc["sheet"] = sheets[0]
    if result is not None and "_row" in result.columns:
        i = result.columns.index("_row")
        loc["rows"] = [row[i] for row in result.rows]
    elif result is not None and len(result.rows) == 1 and not _empty(result):
        loc["values"] = [v for v in result.rows[0] if v is not None]  # an aggregate: the answer itself
        loc["result"] = _facts(result)
    return loc


def as_hit(outcome: SqlOutcome, question: str, ordinal: int) -> Hit:
    """The result as a retrieval hit: results come from the engine, so they count as relevant."""
    source = outcome.source
    item = Item(corpus="table", source=source.location, text=verbalise(outcome, question), locator=locator(outcome),
                title=f"{Path(source.location).name}: SQL result", id=-ordinal)
    return Hit(item, score=1.0, signals={"dense": 1.0})
