"""Numbers a database file keeps as text, read as numbers: SQLite stores whatever it is given, and a
column of elevations written '979', '6194' sorts '979' first and compares '979' > 5000 as true (text
sorts after every number). Where a query ranks by such a column, aggregates it or compares it with a
number, it reads `CAST(column AS REAL)` instead; the file is never changed."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from engine.native.literals import SQL_TEXT, outside

if TYPE_CHECKING:
    from engine.native.sources import Source

_ORDER_BY = re.compile(r"\bORDER\s+BY\b(.*?)(?=\bLIMIT\b|\bOFFSET\b|\)|;|$)", re.IGNORECASE | re.DOTALL)
_OPERATOR = r"(<=|>=|<>|!=|<|>|=)"
_NUMBER = r"(-?\d+(?:\.\d+)?)(?![\w.])"


def text_number_columns(source: Source) -> set[str]:
    """The source's columns whose every value is a number written as text (lower-cased names)."""
    return {str(c["name"]).lower() for c in source.columns if c.get("numbers_as_text")}


def as_numbers(statement: str, source: Source) -> str:
    """The SQL statement with its rankings, aggregates and comparisons with numbers of the source's
    number-as-text columns read as numbers; unchanged when it has none."""
    columns = text_number_columns(source) if source.language == "sql" else set()
    if not columns:
        return statement
    names = "|".join(map(re.escape, sorted(columns)))
    ref = rf"(?<![\w.\"])(?<!CAST\()(?<!cast\()((?:[A-Za-z_]\w*\.)?\"?(?:{names})\"?)(?![\w\"(])"
    cast = r"CAST(\1 AS REAL)"

    def change(code: str) -> str:
        code = re.sub(rf"\b(MAX|MIN|SUM|AVG)\s*\(\s*{ref}\s*\)", r"\1(CAST(\2 AS REAL))", code, flags=re.I)
        code = re.sub(rf"{ref}\s*{_OPERATOR}\s*{_NUMBER}", rf"{cast} \2 \3", code, flags=re.I)
        code = re.sub(rf"{_NUMBER}\s*{_OPERATOR}\s*{ref}", r"\1 \2 CAST(\3 AS REAL)", code, flags=re.I)
        return _ORDER_BY.sub(lambda m: "ORDER BY" + re.sub(ref, cast, m.group(1), flags=re.I), code)
    return outside(statement, SQL_TEXT, change)
