"""Numbers a database file keeps as text, read as numbers: SQLite stores whatever it is given, and a
column of elevations written '979', '6194' sorts '979' first and compares '979' > 5000 as true (text
sorts after every number). Where a query ranks by such a column, aggregates it or compares it with a
number, it reads `CAST(column AS REAL)` instead; the file is never changed. Likewise a ranking by a
text column that writes a number in words ("10 years, 228 days") ranks by the number column the table
keeps for the same thing ("Duration (Days)")."""

from __future__ import annotations

import re
from functools import partial
from typing import TYPE_CHECKING

from engine.native.literals import PLAIN_NAME, SQL_TEXT, outside
from local_stores.table_store import AS_DATE

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
    ref, cast = _reference(columns), r"CAST(\1 AS REAL)"

    def change(code: str) -> str:
        code = re.sub(rf"\b(MAX|MIN|SUM|AVG)\s*\(\s*{ref}\s*\)", r"\1(CAST(\2 AS REAL))", code, flags=re.I)
        code = re.sub(rf"{ref}\s*{_OPERATOR}\s*{_NUMBER}", rf"{cast} \2 \3", code, flags=re.I)
        code = re.sub(rf"{_NUMBER}\s*{_OPERATOR}\s*{ref}", r"\1 \2 CAST(\3 AS REAL)", code, flags=re.I)
        return _ORDER_BY.sub(lambda m: "ORDER BY" + re.sub(ref, cast, m.group(1), flags=re.I), code)
    return outside(statement, SQL_TEXT, change)


def _reference(columns: set[str]) -> str:
    """A pattern for a reference to one of `columns` (qualified or quoted, not already cast), as group 1."""
    names = "|".join(map(re.escape, sorted(columns)))
    return rf"(?<![\w.\"])(?<!CAST\()(?<!cast\()((?:[A-Za-z_]\w*\.)?\"?(?:{names})\"?)(?![\w\"(])"


def by_number_column(statement: str, source: Source) -> str:
    """The SQL statement ranking by a number column where it ranks (MAX, MIN, ORDER BY) by a text
    column that writes the same thing in words and numbers: "10 years, 228 days" sorts as text
    ("9 years" above "10 years"), and the table's "Duration (Days)" holds it as one number. The
    number column's name is made of words of the text column's (duration_days of
    duration_years_days). Likewise a text column of written dates ranked or subtracted
    (`date_until - date_from`) reads the DATE column the table store keeps beside it
    (`date_until_as_date`). Unchanged when no such pair is read."""
    if source.language != "sql":
        return statement
    for table in source.tables:
        columns = table.get("columns", [])
        dated = dated_pairs(columns)
        for worded, counted in (_worded_pairs(columns) | dated).items():
            ref = _reference({worded})

            def change(code: str, counted: str = counted, ref: str = ref) -> str:
                code = re.sub(rf"\b(MAX|MIN)\s*\(\s*{ref}\s*\)",
                              lambda m: f"{m.group(1)}({_renamed(m.group(2), counted)})", code, flags=re.I)
                code = re.sub(rf"{ref}(?=\s*(?:=|\bIN\b)\s*\(\s*SELECT\s+(?:MAX|MIN)\s*\()",  # the row that has it
                              lambda m: _renamed(m.group(1), counted), code, flags=re.I)
                if aliases := [a for _, a in re.findall(rf"(?:\bSELECT\b|,)\s*(?:DISTINCT\s+)?{ref}\s+AS\s+\"?(\w+)\"?",
                                                           code, flags=re.I)]:  # `date_until AS years … ORDER BY years`
                    alias = rf"(?<![\w.\"])\"?(?:{'|'.join(map(re.escape, aliases))})\"?(?![\w\"(])"
                    code = _ORDER_BY.sub(lambda m: "ORDER BY" + re.sub(alias, counted, m.group(1), flags=re.I), code)
                return _ORDER_BY.sub(lambda m: "ORDER BY" + re.sub(ref, lambda r: _renamed(r.group(1), counted),
                                                                   m.group(1), flags=re.I), code)
            statement = outside(statement, SQL_TEXT, change)
        statement = outside(statement, SQL_TEXT, partial(_dates_subtracted, pairs=dated))
    return statement


def dated_pairs(columns: list[dict]) -> dict[str, str]:
    """{text column of written dates: the DATE column the table store keeps beside it}."""
    types = {str(c["name"]).lower(): str(c.get("type", "")).upper() for c in columns}
    return {name: name + AS_DATE for name in types
            if types.get(name + AS_DATE) == "DATE" and PLAIN_NAME.fullmatch(name + AS_DATE)}


def _dates_subtracted(code: str, pairs: dict[str, str]) -> str:
    """`date_until - date_from` of two written-date columns as their DATE columns' difference: days, or
    years (to a tenth) where the query names the difference so (`AS years`)."""
    if not pairs:
        return code
    ref = _reference(set(pairs))

    def dated(m: re.Match) -> str:
        days = f"{_renamed(m.group(1), pairs[_bare(m.group(1))])} - {_renamed(m.group(3), pairs[_bare(m.group(3))])}"
        alias = m.group(4) or ""
        return (f"ROUND(({days}) / 365.25, 1)" if "year" in alias.lower() else days) + alias
    return re.sub(rf"{ref}(\s*-\s*){ref}(\s+AS\s+\"?\w+\"?)?", dated, code, flags=re.I)


def _bare(reference: str) -> str:
    """The column of a reference: `T1."date_from"` -> `date_from`."""
    return reference.rsplit(".", 1)[-1].strip('"').lower()


def _renamed(reference: str, column: str) -> str:
    """`T1."duration_years_days"` as `T1.duration_days`: the qualifier kept, the column replaced."""
    qualifier = reference.rsplit(".", 1)[0] + "." if "." in reference else ""
    return qualifier + column


def _worded_pairs(columns: list[dict]) -> dict[str, str]:
    """{text column whose values start with a number: the one number column named by its words}."""
    numbers = [str(c["name"]) for c in columns if NUMBER_TYPE.match(str(c.get("type", "")))
               and PLAIN_NAME.fullmatch(str(c["name"]))]  # written into the query as it is: a plain name only
    pairs = {}
    for column in columns:
        samples = [str(v) for v in column.get("samples", []) if v is not None]
        if str(column.get("type", "")).upper() not in ("VARCHAR", "TEXT") or not samples or \
                not all(_WORDED_NUMBER.match(v) for v in samples):
            continue
        words = set(str(column["name"]).lower().split("_"))
        named = [n for n in numbers if set(n.lower().split("_")) < words]
        if len(named) == 1:
            pairs[str(column["name"]).lower()] = named[0]
    return pairs


_WORDED_NUMBER = re.compile(r"\s*\d[\d,.]*\s+[A-Za-z]")  # "10 years, 228 days", "5 ft 11 in"
NUMBER_TYPE = re.compile(r"(?:BIG|SMALL|TINY|HUGE|U)?INT|DOUBLE|FLOAT|REAL|DECIMAL|NUMERIC|NUMBER", re.IGNORECASE)
