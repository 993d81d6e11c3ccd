"""A query's literals (strings, and IRIs in SPARQL) per language, and changes made only outside them:
a fix that renames a column or turns `LIKE` into `ILIKE` must never touch a value the user asked for."""

from __future__ import annotations

import re
from collections.abc import Callable

from local_stores.quoting import Unquotable, kuzu_cypher
from local_stores.quoting import sparql as quote_sparql
from local_stores.quoting import sqlite_sql as sql_text

SQL_TEXT = re.compile(r"'(?:[^']|'')*'")  # a string; "…" is a quoted name in SQL, and a rename reaches it
SQL_QUOTED = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"")  # a string or a quoted name
CYPHER_TEXT = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
QUOTED_VALUE = re.compile(r"'((?:[^'\\]|\\.|'')*)'|\"((?:[^\"\\]|\\.)*)\"")  # its text: group 1 or 2, any language
SQL_SELECT = re.compile(r"^(\s*SELECT\s+)(.*?)(\s+FROM\b)", re.IGNORECASE | re.DOTALL)  # head, list, FROM
PLAIN_NAME = re.compile(r"[A-Za-z_]\w*")  # a name a query may hold bare, without quoting it as an identifier
SPARQL_TEXT = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|<[^<>\s]*>")  # a string or an IRI


def outside(query: str, literal: re.Pattern[str], change: Callable[[str], str]) -> str:
    """`query` with `change` applied to each stretch of it between the literals `literal` finds, which
    are kept as written."""
    pieces, last = [], 0
    for m in literal.finditer(query):
        pieces += [change(query[last:m.start()]), m.group(0)]
        last = m.end()
    return "".join([*pieces, change(query[last:])])


_WITH_APOSTROPHE = re.compile(r"\w+['’]\w+")


def apostrophes_quoted(query: str, question: str, language: str) -> str:
    """`WHERE m.title = 'The Devil's Advocate'`: a value of the question with an apostrophe in it,
    written between single quotes that the apostrophe closes (every engine refuses the query), quoted
    as the language quotes such a text (local_stores.quoting: SQL doubles it, Cypher escapes it, SPARQL
    uses double quotes)."""
    asked = " ".join(question.replace("’", "'").split()).lower()
    for word in dict.fromkeys(w.replace("’", "'") for w in _WITH_APOSTROPHE.findall(question)):
        at = query.find(word)
        opened = query.rfind("'", 0, at) if at > 0 else -1
        closed = query.find("'", at + len(word)) if at >= 0 else -1
        text = query[opened + 1:closed] if opened >= 0 and closed > at else ""
        if not text or "\n" in text or " ".join(text.split()).lower() not in asked:
            continue
        try:
            quoted = _LITERAL[language](text)
        except (KeyError, Unquotable):  # a language or a text this cannot quote: the engine's error stands
            continue
        query = query[:opened] + quoted + query[closed + 1:]
    return query


_LITERAL = {"sql": sql_text.literal, "cypher": kuzu_cypher.literal, "sparql": quote_sparql.literal}
