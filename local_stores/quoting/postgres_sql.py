"""Statement text for PostgreSQL (a server's database): quoted identifiers and Trove's `?`
placeholders as psycopg's `%s`."""

from __future__ import annotations

import re

from local_stores.quoting import Quoted
from local_stores.quoting._sql import ident, idents, literal, marks, number

__all__ = ["bind", "ident", "idents", "literal", "marks", "number", "qualified"]

# what psycopg reads in a statement that has parameters: Trove's placeholders and every '%'
_MARKS = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/|\?|%", re.S)


def qualified(schema: str, name: str) -> Quoted:
    """`schema.name`, each part quoted."""
    return Quoted(f"{ident(schema)}.{ident(name)}")


def bind(statement: str) -> str:
    """`statement`'s `?` placeholders (outside strings, quoted names and comments) as `%s`, and every
    `%` doubled, as psycopg wants a statement that comes with parameters."""

    def mark(found: re.Match) -> str:
        text = found.group(0)
        return "%s" if text == "?" else text.replace("%", "%%")

    return _MARKS.sub(mark, statement)
