"""One value written several ways in a table ("Franklin County" and "Franklin County.", "Paris " and
"paris"): a query that compares a column with one spelling counts the rows of every spelling.

A spreadsheet typed by hand holds such variants; `county = 'Franklin County'` then counts five of the
six ghost towns of Franklin County, and the answer is wrong with a citation. The value index knows
each column's spellings; those that differ from the compared text only in case, spacing or the
punctuation around it are one value, and the comparison becomes `IN (…)` over all of them. Where the
column holds no such spelling, values that add a qualifier in brackets ("Kelly McCormick (USA)") are
the value the question names. A text its column holds in no spelling at all, where one held value is
spelt nearly the same, is that value misspelt ("kelly mcormick")."""

from __future__ import annotations

import difflib
import re

from engine.native.sources import Source
from engine.native.values import compared_field
from engine.native.writers import writer_for
from local_stores.quoting import Unquotable
from local_stores.quoting import sqlite_sql as sql_text
from local_stores.value_index import ValueIndex, field_of, unqualified

MOST_SPELLINGS = 8  # held values read per compared text
_AROUND = " \t.,;:!?'\"()[]"


def folded(text: str) -> str:
    """A value as the comparison should see it: lower case, single spaces, no punctuation around it."""
    return " ".join(text.lower().split()).strip(_AROUND)


def widened(statement: str, source: Source, held: ValueIndex | None) -> str:
    """The SQL statement with each `column = 'text'` (or LIKE or ILIKE a text without wildcards) whose
    column holds other spellings of the text compared with all of them; the statement itself where
    there are none (or it is not SQL)."""
    if held is None or source.language != "sql":
        return statement
    for literal in dict.fromkeys(writer_for(source.language).compared_literals(statement)):
        spellings = _spellings(statement, literal, source, held)
        if len(spellings) < 2:
            continue
        try:
            listed = ", ".join(sql_text.literal(s) for s in spellings)
            written = re.escape(sql_text.literal(literal))
        except Unquotable:  # a NUL in a held value: compared as the model wrote it
            continue
        equal = r"(?<![<>!=])=" if "%" in literal or "_" in literal else r"(?:(?<![<>!=])=|\bI?LIKE\b)"
        if m := re.search(rf"{equal}\s*{written}", statement):  # spliced, not re.sub: a backslash held stays one
            statement = f"{statement[:m.start()]}IN ({listed}){statement[m.end():]}"
    return statement


def _spellings(statement: str, literal: str, source: Source, held: ValueIndex) -> list[str]:
    """The literal and the values of the column it is compared with that fold to the same text."""
    compared = compared_field(statement, literal)
    key = folded(literal)
    if compared is None or len(key) < 2:
        return []
    column = [value for place, value in held.starting(source.name, key, MOST_SPELLINGS)
              if field_of(place) == compared[1]]
    found = [value for value in column if folded(value) == key] or \
        [value for value in column if folded(unqualified(value)) == key]
    return list(dict.fromkeys([literal, *sorted(found)]))


CLOSE_SPELLING = 0.88  # difflib ratio from which a held value is the compared text misspelt ("mcormick")
CLEAR_LEAD = 0.05  # ... and by which it must be nearer than any other held value of its column
MOST_HELD = 5000  # held values of a column read to find the nearest


def respelt(statement: str, source: Source, held: ValueIndex | None) -> str:
    """The SQL statement with each compared text that its column holds in no spelling written as the
    one held value of that column spelt nearly the same: "kelly mcormick" is "Kelly McCormick (USA)"
    (LIKE '%…%' keeps its wildcards and the name without its qualifier). A text held in another column
    is left alone (the query compares the wrong column: another repair's), as is a short one."""
    if held is None or source.language != "sql":
        return statement
    for literal in dict.fromkeys(writer_for(source.language).compared_literals(statement)):
        bare = literal.strip("%")
        compared = compared_field(statement, literal)
        if compared is None or len(folded(bare)) < 5 or "%" in bare or _held_as_written(bare, source, held):
            continue
        nearest = _nearest_spelling(folded(bare), [value for place, value in held.in_field(source.name, compared[1],
                                                                                           MOST_HELD)])
        if nearest is None:
            continue
        text = literal.replace(bare, unqualified(nearest) if "%" in literal else nearest)
        try:
            statement = statement.replace(sql_text.literal(literal), sql_text.literal(text))
        except Unquotable:
            continue
    return statement


def _held_as_written(text: str, source: Source, held: ValueIndex) -> bool:
    return any(found == source.name for _, found, _, _ in held.lookup(list(dict.fromkeys([text.strip().lower(),
                                                                                            folded(text)]))))


def _nearest_spelling(key: str, values: list[str]) -> str | None:
    """The value whose folded text (or that text without its bracketed qualifier) is spelt nearest
    `key`, when CLOSE_SPELLING or nearer and CLEAR_LEAD nearer than the next value; else None."""
    scored = sorted(((max(_likeness(key, folded(v)), _likeness(key, folded(unqualified(v)))), v)
                     for v in dict.fromkeys(values)), reverse=True)
    if not scored or scored[0][0] < CLOSE_SPELLING:
        return None
    return scored[0][1] if len(scored) == 1 or scored[0][0] - scored[1][0] >= CLEAR_LEAD else None


def _likeness(a: str, b: str) -> float:
    matcher = difflib.SequenceMatcher(None, a, b)
    return matcher.ratio() if matcher.quick_ratio() >= CLOSE_SPELLING else 0.0
