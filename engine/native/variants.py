"""One value written several ways in a table ("Franklin County" and "Franklin County.", "Paris " and
"paris"): a query that compares a column with one spelling counts the rows of every spelling.

A spreadsheet typed by hand holds such variants; `county = 'Franklin County'` then counts five of the
six ghost towns of Franklin County, and the answer is wrong with a citation. The value index knows
each column's spellings; those that differ from the compared text only in case, spacing or the
punctuation around it are one value, and the comparison becomes `IN (…)` over all of them. Where the
column holds no such spelling, values that add a qualifier in brackets ("Kelly McCormick (USA)") are
the value the question names."""

from __future__ import annotations

import re

from engine.native.sources import Source
from engine.native.values import compared_field
from engine.native.writers import writer_for
from local_stores.quoting import Unquotable
from local_stores.quoting import sqlite_sql as sql_text
from local_stores.value_index import ValueIndex, unqualified

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
              if re.split(r"[.:#/]", place)[-1].lower() == compared[1]]
    found = [value for value in column if folded(value) == key] or \
        [value for value in column if folded(unqualified(value)) == key]
    return list(dict.fromkeys([literal, *sorted(found)]))

