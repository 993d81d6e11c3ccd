"""Query results as evidence: rows, graph paths and triples written out with their provenance,
and the citation locator (the query, its language, the source, the rows)."""

from __future__ import annotations

import calendar
import re

from engine.locators import QueryLocator
from engine.native.kinds import kind
from engine.native.querying import QueryOutcome
from engine.native.rows_read import pages_of
from engine.result import LANGUAGES
from engine.retrieval.hybrid import Hit
from local_stores.corpus_store import Item
from local_stores.results import QueryResult

MAX_ROWS_SHOWN = 20
MAX_LISTED = 12  # a result of at most this many rows is stated whole in the answer


def cell(value: object) -> str:
    """A result value in words: graph nodes as Label(properties), relationships as [:TYPE],
    paths as chains, lists joined."""
    if isinstance(value, dict):
        if "_nodes" in value:  # a path
            nodes, rels = value.get("_nodes", []), value.get("_rels", [])
            parts = [cell(nodes[0])] if nodes else []
            for rel, node in zip(rels, nodes[1:], strict=False):
                parts += [cell(rel), cell(node)]
            return " ".join(parts)
        props = ", ".join(f"{k}: {cell(v)}" for k, v in value.items() if not k.startswith("_") and v is not None)
        if "_src" in value:
            return f"-[:{value.get('_label', '')}{' {' + props + '}' if props else ''}]->"
        return f"{value.get('_label', '')}({props})"
    if isinstance(value, list):
        return "[" + ", ".join(cell(v) for v in value) + "]"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.12g}"  # a sum of cents is 463.6, not 463.59999999999997
    return str(value)


_MONTH = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")


def worded(value: object) -> str:
    """A result value as an answer says it: `cell`, and a month a query grouped by ('2024-04', from
    strftime) as people write it ('April 2024')."""
    text = cell(value)
    month = _MONTH.match(text) if isinstance(value, str) else None
    return f"{calendar.month_name[int(month[2])]} {month[1]}" if month else text


def _name(column: str, columns: list[str] | None = None) -> str:
    """A column as words: `total_spent` -> `total spent`, Cypher's `c.name` -> `name`; where two columns
    would read alike (`wife.born`, `husband.born`), with what they are of: `wife born`."""
    short = _short(column)
    if columns and sum(_short(c) == short for c in columns) > 1:
        return column.replace(".", " ").replace("_", " ")
    return short


def _short(column: str) -> str:
    """`c.total_spent` -> `total spent`; an aggregate as people say it: `SUM(final_points)` -> `total
    final points`, `COUNT(*)` -> `count` (the bare answer reads "total final points is 527.46")."""
    if m := _AGGREGATE.match(column.strip()):
        inner = m.group(3)
        return "count" if inner in ("*", "1") else f"{_AGGREGATE_WORDS[m.group(1).lower()]} {_short(inner)}"
    return re.sub(r"^[A-Za-z_]\w*\.(?=\w)", "", column).replace("_", " ")


_AGGREGATE = re.compile(r"^(sum|avg|min|max|count)\s*\(\s*(distinct\s+)?([\w.*\"]+)\s*\)$", re.IGNORECASE)
_AGGREGATE_WORDS = {"sum": "total", "avg": "average", "min": "lowest", "max": "highest", "count": "number of"}


RESTATED = re.compile(r"^For the question (?:'.*?'|\".*?\"), (?=computed from|results found in|a query on)", re.DOTALL)


def restated(question: str) -> str:
    """How a result's text opens: the question it was found for (`RESTATED` finds it again)."""
    return f"For the question {question!r}, "


def verbalise(outcome: QueryOutcome, question: str) -> str:
    """The result in words. The question is restated: the query was written for it, and its
    filters (a month, a shop) are in the query, not in the values."""
    result = outcome.result
    assert result is not None
    cols = result.columns
    name = outcome.source.shown
    if _empty(result):
        return f"{restated(question)}a query on {name} found no matching rows: the answer is none."
    if len(result.rows) == 1 and "_row" not in cols:
        return f"{restated(question)}computed from {name}: {_facts(result)}"
    lines = [f"{restated(question)}results found in {name}:"]
    for row in result.rows[:MAX_ROWS_SHOWN]:
        pairs = [f"{_name(c, cols)}: {worded(v)}" for c, v in zip(cols, row, strict=True) if c != "_row"]
        prefix = f"row {row[cols.index('_row')]}: " if "_row" in cols else ""
        lines.append(prefix + "; ".join(pairs))
    more = len(result.rows) - MAX_ROWS_SHOWN
    if more > 0 or result.truncated:
        lines.append(f"(and more rows: {len(result.rows)}{'+' if result.truncated else ''} in all)")
    return "\n".join(lines)


def _facts(result: QueryResult) -> str:
    """A one-row result in words: `total spent is 298.62.`"""
    cols = result.columns
    said = "; ".join(f"{_name(c, cols)} is {worded(v)}" for c, v in zip(cols, result.rows[0], strict=True))
    return said if said.endswith((".", "!", "?")) else f"{said}."  # "Amenity, eg Pool." ends it already


def _empty(result: QueryResult) -> bool:
    """No rows, or rows of nothing but NULLs (an aggregate over no rows, an unbound variable)."""
    return all(v is None for row in result.rows for v in row)


def found_something(outcome: QueryOutcome) -> bool:
    """Rows, or an aggregate that is not NULL. An empty result is kept in `queries`, not as evidence:
    the text corpora may still answer, and "no rows" from a guessed filter proves little."""
    return outcome.result is not None and not _empty(outcome.result)


def _plain(value: object) -> object:
    """A value the JSON contract can carry."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k not in ("_id", "_src", "_dst")}
    return str(value)


def locator(outcome: QueryOutcome) -> QueryLocator:
    result, source = outcome.result, outcome.source
    loc = QueryLocator(source=source.name, query=outcome.query, language=source.language)
    if source.language == "sql":
        loc["sql"] = outcome.query
        loc["tables"] = [t["table"] for t in source.tables]
        sheets = [t["sheet"] for t in source.tables if t.get("sheet")]
        if sheets:
            loc["sheet"] = sheets[0]
        attached = source.tables[0]
        if attached.get("attachment"):
            loc["attachment"], loc["message"] = str(attached["attachment"]), str(attached.get("message") or "")
            if attached.get("message_number"):
                loc["message_number"] = int(attached["message_number"])
    if rows := _cited_rows(outcome):
        loc["rows"] = rows
    if source.language == "sql" and source.tables[0].get("printed"):
        _printed_place(loc, source.tables[0])
    if result is None:
        return loc
    loc["columns"] = list(result.columns)
    loc["result_rows"] = [[_plain(v) for v in row] for row in result.rows[:MAX_ROWS_SHOWN]]
    if "_row" not in result.columns and len(result.rows) == 1 and not _empty(result):
        loc["values"] = [_plain(v) for v in result.rows[0] if v is not None]  # an aggregate: the answer itself
        loc["result"] = _facts(result)
    if 1 < len(result.rows) <= MAX_LISTED and not result.truncated:
        shown = [i for i, c in enumerate(result.columns) if c != "_row"]
        listing = [", ".join(worded(row[i]) for i in shown if row[i] is not None) for row in result.rows]
        if all(listing):
            loc["listing"] = listing
    return loc


def _cited_rows(outcome: QueryOutcome) -> list:
    """The table rows (`_row`) the result returns, or else those it was read from; none without a result."""
    result = outcome.result
    if result is None:
        return []
    if "_row" in result.columns:
        i = result.columns.index("_row")
        return [row[i] for row in result.rows]
    return list(outcome.rows_read)


def _printed_place(loc: QueryLocator, table: dict) -> None:
    """A table printed in a document: the page its cited rows are on (the first and last when on
    several), else the pages it is printed on."""
    loc["printed"] = True
    if not table.get("message_number"):
        return
    starts = table.get("page_starts") or []
    pages = pages_of([int(r) for r in loc.get("rows", []) if isinstance(r, int)], starts) or (
        [int(table["message_number"]), int(starts[-1][0])] if starts else [int(table["message_number"])])
    loc["page"] = min(pages)
    if max(pages) != min(pages):
        loc["last_page"] = max(pages)


def as_hit(outcome: QueryOutcome, question: str, ordinal: int) -> Hit:
    """The result as a retrieval hit: results come from the engine, so the hit is given (relevant)."""
    source = outcome.source
    item = Item(corpus=kind(source.kind).citation, source=source.location, text=verbalise(outcome, question),
                locator=locator(outcome), title=f"{source.shown}: {LANGUAGES[source.language]} result",
                id=-ordinal)
    return Hit(item, score=1.0, given=True)
