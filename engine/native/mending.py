"""Names a model misspells, put right before a repair is asked for: the engine refuses
`treatments_types` where the database has `treatment_types`, or `p.nam` where the node has `name`,
and a 1.5B model asked to correct it often writes the same query again. When the engine's message
names the unknown table, label, column or property and the source has exactly one name close to it,
the query is run with that name instead."""

from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING

from engine.native.described import tables_read
from engine.native.literals import CYPHER_TEXT, PLAIN_NAME, SQL_TEXT, outside

if TYPE_CHECKING:
    from engine.native.sources import Source

CLOSE = 0.75  # difflib's ratio a name must reach to stand for the misspelt one
MARGIN = 0.08  # and by how much it must beat the next closest
MOST_MENDS = 3  # names mended in one query at most

_UNKNOWN_PART = (  # a table, node label or relationship type the engine does not know
    re.compile(r"no such table: (?:\w+\.)?(\w+)"),  # SQLite
    re.compile(r"Table with name (\w+) does not exist"),  # DuckDB
    re.compile(r"Binder exception: Table (\w+) does not exist"),  # Kùzu
)
_UNKNOWN_FIELD = (  # a column or property
    re.compile(r"no such column: (?:\w+\.)?(\w+)"),  # SQLite
    re.compile(r"Referenced column \"(\w+)\" not found"),  # DuckDB
    re.compile(r"does not have a column named \"(\w+)\""),  # DuckDB, with a table alias
    re.compile(r"Cannot find property (\w+) for"),  # Kùzu
)


def unknown_name(error: str) -> tuple[str, str] | None:
    """("part" or "field", the name) the engine's message says it does not know, or None."""
    for kind, patterns in (("part", _UNKNOWN_PART), ("field", _UNKNOWN_FIELD)):
        for pattern in patterns:
            if m := pattern.search(error):
                return kind, m.group(1)
    return None


def names_of(source: Source, kind: str) -> list[str]:
    """The source's table names (`part`) or column names (`field`); for a graph, its node labels and
    relationship types, or their properties; for RDF, its classes or its predicates' names."""
    descriptor = source.descriptor
    if source.language == "sparql":
        if kind == "part":
            return [str(c.get("label") or c["iri"]) for c in descriptor.get("classes", [])]
        predicates = [*(p for c in descriptor.get("classes", []) for p in c.get("predicates", [])),
                      *descriptor.get("predicates", [])]
        return list(dict.fromkeys(str(p.get("label") or p["iri"]) for p in predicates))
    if source.language == "cypher":
        parts = {**descriptor.get("nodes", {}), **descriptor.get("relationships", {})}
        if kind == "part":
            return list(parts)
        return list(dict.fromkeys(p["name"] for part in parts.values() for p in part.get("properties", [])))
    if kind == "part":
        return [t["table"] for t in source.tables]
    return list(dict.fromkeys(c["name"] for c in source.columns))


def closest(name: str, names: list[str]) -> str | None:
    """The one name close to `name` (case aside), clearly closer than any other; None when none is
    or two are about as close."""
    scored = sorted(((difflib.SequenceMatcher(None, name.lower(), n.lower()).ratio(), n) for n in names),
                    reverse=True)
    if not scored or scored[0][0] < CLOSE or (len(scored) > 1 and scored[0][0] - scored[1][0] < MARGIN):
        return None
    return scored[0][1]


def renamed(query: str, old: str, new: str, language: str) -> str:
    """`query` with the identifier `old` (bare or quoted as an identifier) written `new`, never inside
    a text value."""
    texts = SQL_TEXT if language == "sql" else CYPHER_TEXT
    return outside(query, texts, lambda code: re.sub(rf"(?<![\w$]){re.escape(old)}(?![\w$])", lambda _: new, code))


def mended(query: str, error: str, source: Source) -> str | None:
    """`query` with the name the engine's `error` says it does not know written as the one close name
    the source has (a table unknown to a source of one table is that table: "governor" for the
    lieutenant governors' `csv_203_csv_194`); None when the message names none, or the source has no
    one name close to it."""
    if source.language not in ("sql", "cypher") or (unknown := unknown_name(error)) is None:
        return None
    kind, name = unknown
    known = names_of(source, kind)
    if any(n.lower() == name.lower() for n in known):  # the source's, on another table or node: not a spelling
        if source.language == "sql":
            return table_prefixed(query, error, source) or requalified(query, error, source)
        return on_relationship(query, error, source)
    near: str | None = known[0] if kind == "part" and source.language == "sql" and len(known) == 1 else None
    if near is None and (near := closest(name, known)) is None and source.language == "sql":
        return table_prefixed(query, error, source)
    if near is None or not PLAIN_NAME.fullmatch(near):
        return None  # none close, or one that would need quoting: the repair hears the engine instead
    changed = renamed(query, name, near, source.language)
    return changed if changed != query else None


_QUALIFIED = (re.compile(r"no such column: (\w+)\.(\w+)"),  # SQLite
              re.compile(r"Table \"(\w+)\" does not have a column named \"(\w+)\""))  # DuckDB


def requalified(query: str, error: str, source: Source) -> str | None:
    """The SQL `query` with a column read under the alias of a table that lacks it (`T2.age`, where
    `visitor AS T1` has age and `visit AS T2` has not) read under the one alias whose table has it;
    None when the message names no alias, or no single alias fits."""
    if (qualified := _qualified(error)) is None:
        return None
    alias, column = qualified
    holding = {table.lower() for table in _tables_with(source, column)}
    fitting = {a for a, table in tables_read(query).items() if table.lower() in holding and a != table.lower()}
    if len(fitting) != 1:
        return None
    (other,) = fitting
    written = next(m.group(0) for m in re.finditer(rf"\b{re.escape(other)}\b", query, re.IGNORECASE))
    return _read_as(query, alias, column, f"{written}.{column}")


def table_prefixed(query: str, error: str, source: Source) -> str | None:
    """The SQL `query` with a column read under an alias whose table lacks it (`T2.name`, where
    `state AS T2` has `state_name`) read as that table's column named by the table and it
    (`T2.state_name`); None when the message names no alias or the table has no such column."""
    if (qualified := _qualified(error)) is None:
        return None
    alias, column = qualified
    table = tables_read(query).get(alias.lower()) or ""
    columns = {str(c["name"]).lower(): str(c["name"]) for t in source.tables if str(t["table"]).lower() == table.lower()
               for c in t.get("columns", [])}
    named = next((columns[f"{stem}_{column.lower()}"] for stem in _stems(table) if f"{stem}_{column.lower()}"
                  in columns), None)
    if named is None or not PLAIN_NAME.fullmatch(named):
        return None
    return _read_as(query, alias, column, f"{alias}.{named}")


def _qualified(error: str) -> tuple[str, str] | None:
    """(alias, column) of the engine's message about a column its alias's table lacks, or None."""
    found = next((m for pattern in _QUALIFIED if (m := pattern.search(error))), None)
    return None if found is None else (found.group(1), found.group(2))


def _read_as(query: str, alias: str, column: str, reference: str) -> str | None:
    """`query` with `alias.column` (as code, never inside a text value) written `reference`; None when
    that changes nothing."""
    changed = outside(query, SQL_TEXT, lambda code: re.sub(
        rf"(?<![\w$.]){re.escape(alias)}\.{re.escape(column)}(?![\w$])", reference, code, flags=re.IGNORECASE))
    return changed if changed != query else None


def _stems(table: str) -> list[str]:
    """A table's name as a column may begin with it: `states` as `states_` and `state_`."""
    lowered = table.lower()
    return [lowered, lowered[:-1]] if lowered.endswith("s") else [lowered]


def _tables_with(source: Source, column: str) -> list[str]:
    return [str(t["table"]) for t in source.tables
            if any(str(c["name"]).lower() == column.lower() for c in t.get("columns", []))]


_NODE_LACKS = re.compile(r"Cannot find property (\w+) for (\w+)")  # Kùzu
_RELATIONSHIP = re.compile(r"\[\s*(\w*)\s*:\s*`?(\w+)`?")


def on_relationship(query: str, error: str, source: Source) -> str | None:
    """The Cypher `query` with a property read on a node that lacks it (`m.rating`) read on the one
    relationship of the pattern whose type has it (`[r:REVIEWED]`, named `r` if it had no name);
    None when the message names no such read, or no single relationship of the query has it."""
    found = _NODE_LACKS.search(error)
    if found is None:
        return None
    prop, var = found.group(1), found.group(2)
    holding = {rel for rel, info in source.descriptor.get("relationships", {}).items()
               if prop in {p["name"] for p in info.get("properties", [])}}
    patterns = [m for m in _RELATIONSHIP.finditer(query) if m.group(2) in holding]
    if not patterns and len(holding) == 1 and (only := _retyped(query, holding.pop(), source)) is not None:
        patterns, query = [only[0]], only[1]
    if len(patterns) != 1:
        return None
    pattern = patterns[0]
    name = pattern.group(1) or _unused("r", query)
    named = query if pattern.group(1) else f"{query[:pattern.start(1)]}{name}{query[pattern.end(1):]}"
    changed = outside(named, CYPHER_TEXT, lambda code: re.sub(
        rf"(?<![\w$.]){re.escape(var)}\.`?{re.escape(prop)}`?(?![\w$])", f"{name}.{prop}", code))
    return changed if changed != named else None


def _retyped(query: str, holder: str, source: Source) -> tuple[re.Match, str] | None:
    """The query's one relationship pattern given the type `holder` (the one type that has the
    property read), with the query so changed: "the average review rating" matched over ACTED_IN
    reads REVIEWED's rating. Only when the query links nothing else and `holder` links labels the
    query matches; None otherwise."""
    written = list(_RELATIONSHIP.finditer(query))
    pairs = source.descriptor.get("relationships", {}).get(holder, {}).get("pairs", [])
    labels = set(re.findall(r"\(\s*\w*\s*:\s*`?(\w+)", query))
    if len(written) != 1 or not any(set(pair) <= labels for pair in pairs):
        return None
    old = written[0]
    changed = f"{query[:old.start(2)]}{holder}{query[old.end(2):]}"
    return next(_RELATIONSHIP.finditer(changed)), changed


def _unused(base: str, query: str) -> str:
    """A variable name the query does not use yet (`r`, else `r1`, `r2` …)."""
    taken = set(re.findall(r"\w+", query))
    return next(n for n in (base, *(f"{base}{i}" for i in range(1, 100))) if n not in taken)
