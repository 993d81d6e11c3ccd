"""Before and after in a table: the order of its rows, not the alphabet. "Which song plays before
'Part of Your World'?" was written `WHERE title < 'Part of Your World'` (every title earlier in the
alphabet) and "What is the next station after Woodman?" `WHERE stations > 'Woodman' ORDER BY
stations`. A table read from a file keeps each row's place in `_row`; such a comparison of a text
column with a quoted text is read as a comparison of places, nearest rows first."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from engine.native.ranking import nested_select

if TYPE_CHECKING:
    from engine.native.sources import Source

ROW = "_row"  # the row's place in its file (local_stores.table_store)
_BEFORE = re.compile(r"\b(?:before|previous|preceding|prior\s+to|precedes?|preceded|earlier\s+than)\b", re.IGNORECASE)
_AFTER = re.compile(r"\b(?:after|next|following|follows?|followed|later\s+than)\b", re.IGNORECASE)
_COMPARED = re.compile(r"(?<![\w.\"])(?:\w+\.)?\"?([A-Za-z_]\w*)\"?\s*(<=|>=|<|>)\s*('(?:[^']|'')*')")
_ONE_TABLE = re.compile(r"\bFROM\s+(\"?[A-Za-z_]\w*\"?)(?:\s+(?:AS\s+)?(?!WHERE\b|ORDER\b|GROUP\b|LIMIT\b)\w+)?\s*"
                        r"(?=WHERE\b|ORDER\b|GROUP\b|LIMIT\b|$)", re.IGNORECASE)
_JOIN = re.compile(r"\bJOIN\b|\bFROM\b[^()]*?,", re.IGNORECASE)
_WRITTEN_NUMBER = re.compile(r"'\s*[-+]?\d")  # '1990', '2024-03-01': a year or date kept as text orders itself
_AGGREGATE = re.compile(r"\b(?:COUNT|SUM|AVG|MIN|MAX)\s*\(", re.IGNORECASE)
_ORDER = re.compile(r"\s*\bORDER\s+BY\b.*?(?=\bLIMIT\b|$)", re.IGNORECASE | re.DOTALL)
_LIMIT = re.compile(r"\bLIMIT\s+\d+", re.IGNORECASE)
_MANY = re.compile(r"\b(?:all|every|list|how\s+many|(?:which|what)\s+(?!(?:is|was|has|does)\b)\w{2,}(?<!s)s)\b",
                   re.IGNORECASE)  # more than one asked for: "which songs", not "which song" nor "what is"


def in_row_order(question: str, statement: str, source: Source) -> str | None:
    """`statement` with its comparison of a text column with a quoted text read as the rows' order
    (`_row < (SELECT min(_row) FROM t WHERE title = 'X')`), nearest rows first, one row when one is
    asked for; None when the question says neither before nor after (or both), the statement reads
    more than one table, or compares no text column of a table that numbers its rows with a text
    (a year or a date written as text, `year > '1990'`, is compared as written)."""
    before, after = bool(_BEFORE.search(question)), bool(_AFTER.search(question))
    table = _ONE_TABLE.search(statement)
    if before == after or table is None or nested_select(statement) or _JOIN.search(statement):
        return None
    texts = {c["name"].lower() for c in source.columns if str(c.get("type", "")).upper() in ("VARCHAR", "TEXT")}
    if ROW not in {c["name"] for c in source.columns}:
        return None
    compared = next((m for m in _COMPARED.finditer(statement)
                     if m.group(1).lower() in texts and not _WRITTEN_NUMBER.match(m.group(3))), None)
    if compared is None:
        return None
    column, value = compared.group(1), compared.group(3)
    same = f"lower(trim({column}, '\" ')) = lower(trim({value}, '\" '))"  # a title written "\"Part of Your World\""
    edge = "min" if before else "max"  # the first (last) row holding the text: the nearest before (after) it
    # sandboxed: a rewrite of the model's own query, from its own names and text, explained and run like it
    place = f"{ROW} {'<' if before else '>'} (SELECT {edge}({ROW}) FROM {table.group(1)} WHERE {same})"
    out = statement[:compared.start()] + place + statement[compared.end():]
    if _AGGREGATE.search(out.split(place)[0]):
        return out  # "how many songs play before …": counted, in any order
    out = _ORDER.sub("", out).rstrip().rstrip(";")
    nearest = f" ORDER BY {ROW} {'DESC' if before else 'ASC'}"
    limit = _LIMIT.search(out)
    if limit is not None:
        return out[:limit.start()].rstrip() + nearest + " " + out[limit.start():]
    return out + nearest + ("" if _MANY.search(question) else " LIMIT 1")
