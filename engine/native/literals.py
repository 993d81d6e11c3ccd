"""A query's literals (strings, and IRIs in SPARQL) per language, and changes made only outside them:
a fix that renames a column or turns `LIKE` into `ILIKE` must never touch a value the user asked for."""

from __future__ import annotations

import re
from collections.abc import Callable

SQL_TEXT = re.compile(r"'(?:[^']|'')*'")  # a string; "…" is a quoted name in SQL, and a rename reaches it
SQL_QUOTED = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"")  # a string or a quoted name
CYPHER_TEXT = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
QUOTED_VALUE = re.compile(r"'((?:[^'\\]|\\.|'')*)'|\"((?:[^\"\\]|\\.)*)\"")  # its text: group 1 or 2, any language
SPARQL_TEXT = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|<[^<>\s]*>")  # a string or an IRI


def outside(query: str, literal: re.Pattern[str], change: Callable[[str], str]) -> str:
    """`query` with `change` applied to each stretch of it between the literals `literal` finds, which
    are kept as written."""
    pieces, last = [], 0
    for m in literal.finditer(query):
        pieces += [change(query[last:m.start()]), m.group(0)]
        last = m.end()
    return "".join([*pieces, change(query[last:])])
