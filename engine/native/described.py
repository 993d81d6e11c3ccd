"""Conditions a SQL query puts on what the question only names its table by: "In the medal table
topped by China with 63 gold, how many nations won more than a dozen silver medals?" is no question
about China; China and 63 say which table is meant. Such a condition is left out when each of its
values picks out one row of its table (a row named to identify the table), and kept when many rows
share it (a scope: "In my table of 2019 sales," over a table of several years)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from local_stores.native_store import NativeStore
from local_stores.quoting import Quoted
from local_stores.quoting import sqlite_sql as sq
from local_stores.results import QueryError
from local_stores.value_index import unqualified

FILE_NAMED = re.compile(r"^\s*(?:in|from)\s+(?:my|the|our)\s+([^,?]{3,160}?),", re.IGNORECASE)
_LITERAL = r"'(?:[^']|'')*'|-?\d+(?:\.\d+)?\b"
_CONDITION = re.compile(
    rf"(?P<lower>\b(?:lower|upper)\s*\(\s*)?(?P<field>(?:[A-Za-z_]\w*\.)?(?:\"[^\"]+\"|[A-Za-z_]\w*))\s*"
    rf"(?(lower)\)\s*)(?:=\s*(?P<one>{_LITERAL})|IN\s*\(\s*(?P<many>(?:{_LITERAL})(?:\s*,\s*(?:{_LITERAL}))*)\s*\))",
    re.IGNORECASE)
_TABLE = re.compile(r"\b(?:FROM|JOIN)\s+(\"[^\"]+\"|[A-Za-z_]\w*)(?:\s+(?:AS\s+)?(?!(?:WHERE|JOIN|ON|INNER|LEFT|RIGHT|"
                    r"CROSS|FULL|NATURAL|OUTER|GROUP|ORDER|LIMIT|UNION|INTERSECT|EXCEPT|USING|HAVING)\b)"
                    r"([A-Za-z_]\w*))?", re.IGNORECASE)
_AFTER = re.compile(r"\s*(?:$|;|\)|ORDER\b|GROUP\b|LIMIT\b|UNION\b|INTERSECT\b|EXCEPT\b|HAVING\b)", re.IGNORECASE)


def file_clause(question: str) -> str:
    """The question's opening clause that names a file ("In my table of churches in Levanger,"), or ""."""
    named = FILE_NAMED.match(question)
    return named.group(0) if named else ""


_STRUCTURED = re.compile(r"\b(?:database|db|tables?|spreadsheet|(?:work)?sheet|workbook|graph|csv)\b", re.IGNORECASE)


def names_structured(question: str) -> bool:
    """Whether the question's opening clause names a database, table or graph ("In my US geography
    database,"): the person says where the answer is, so passages of other files are no answer."""
    return bool(_STRUCTURED.search(file_clause(question)))


@dataclass(frozen=True)
class Described:
    """`field = value` (or `field IN (values)`) of a statement, every value of which the question
    only names its table by; `span`: where the condition is written."""

    table: str | None
    column: str
    values: tuple[object, ...]
    lowered: bool
    span: tuple[int, int]


def described(question: str, statement: str) -> list[Described]:
    """The statement's conditions on values only the question's opening clause names (a number or a
    text in "In the medal table topped by China with 63 gold," and nowhere in what it asks)."""
    named = FILE_NAMED.match(question)
    if not named:
        return []
    clause, asked = named.group(1).lower(), question[named.end():].lower()
    tables = tables_read(statement)
    found = []
    for m in _CONDITION.finditer(statement):
        written = m.group("one") or m.group("many")
        literals = re.findall(_LITERAL, written)
        held = [_value(literal) for literal in literals]
        if held and all(_only_in(str(value).lower(), clause, asked) for value in held):
            qualifier, _, column = m.group("field").rpartition(".")
            table = _table_of(qualifier, tables)
            found.append(Described(table, column.strip('"'), tuple(held), bool(m.group("lower")), m.span()))
    return found


def _only_in(value: str, clause: str, asked: str) -> bool:
    """Whether the clause names the value and what is asked does not; a value the table writes with
    a qualifier in brackets ("Saracens (RU)", beside "saracens" once widened) counts without it."""
    value = unqualified(value) or value
    pattern = rf"(?<![\w.]){re.escape(value)}(?![\w]|\.\d)"
    return len(value) > 1 and bool(re.search(pattern, clause)) and not re.search(pattern, asked)


def _value(literal: str) -> object:
    if literal.startswith("'"):
        return literal[1:-1].replace("''", "'")
    return float(literal) if "." in literal else int(literal)


def _table_of(qualifier: str, tables: dict[str, str]) -> str | None:
    """The table a field belongs to: its qualifier's, or the statement's one table when unqualified."""
    if qualifier:
        return tables.get(qualifier.strip('"').lower())
    read = set(tables.values())
    return read.pop() if len(read) == 1 else None


def tables_read(statement: str) -> dict[str, str]:
    """Each table the statement reads, by its alias and by its own name (lower-cased keys)."""
    tables: dict[str, str] = {}
    for m in _TABLE.finditer(statement):
        table = m.group(1).strip('"')
        tables[table.lower()] = table
        if m.group(2):
            tables[m.group(2).lower()] = table
    return tables


def identifying(conditions: list[Described], store: NativeStore, timeout_s: float) -> bool:
    """Whether every value of every condition is held by at most one row of its table (one that the
    query engine can count); a condition whose table is unknown is taken as a scope."""
    for condition in conditions:
        if condition.table is None:
            return False
        table = sq.ident(condition.table)
        for value in condition.values:
            try:
                counted = store.execute(f"SELECT COUNT(*) FROM {table} WHERE {_compared(condition)} = ?",
                                        timeout_s, 1, (value,))
            except (QueryError, ValueError):
                return False
            if not counted.rows or int(counted.rows[0][0] or 0) > 1:
                return False
    return True


def _compared(condition: Described) -> Quoted:
    """The condition's column as the query compares it (inside lower() when the query lowered it)."""
    field = sq.ident(condition.column)
    return Quoted(f"lower({field})") if condition.lowered else field


def without(statement: str, conditions: list[Described]) -> str | None:
    """The statement with these conditions of its AND-chains left out; None when one of them is not
    in an AND-chain (an OR branch) and so cannot be dropped alone."""
    for condition in sorted(conditions, key=lambda c: c.span, reverse=True):
        loosened = dropped(statement, *condition.span)
        if loosened is None:
            return None
        statement = loosened
    return statement


def dropped(statement: str, start: int, end: int) -> str | None:
    """The statement without the condition written at [start, end) of a WHERE's AND-chain (the
    WHERE too when it was the only one); None when it is not in one (an OR branch)."""
    before, after = statement[:start], statement[end:]
    if (joined := re.search(r"\s+AND\s+$", before, re.IGNORECASE)) is not None:
        return before[:joined.start()] + after
    if (where := re.search(r"\bWHERE\s+$", before, re.IGNORECASE)) is None:
        return None
    if (following := re.match(r"\s+AND\s+", after, re.IGNORECASE)) is not None:
        return before + after[following.end():]
    if _AFTER.match(after):
        return before[:where.start()].rstrip() + after
    return None
