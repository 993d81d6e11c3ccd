"""Statement text for DuckDB: quoted identifiers and the few literals that take no parameter."""

from __future__ import annotations

import re

from local_stores.quoting import Quoted, Unquotable
from local_stores.quoting._sql import ident, idents, literal, marks, number

__all__ = ["ident", "idents", "literal", "marks", "number", "qualified", "shown", "shown_type", "type_name"]

_TYPE = re.compile(r"[A-Z][A-Z0-9_]*(\(\d+(, ?\d+)?\))?(\[\])?")
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def shown(name: str) -> Quoted:
    """A name as a prompt's schema shows it to the model: plain names as they are, any other quoted
    (so a table or column name from a user's file cannot pass for more schema or an instruction)."""
    return Quoted(name) if _PLAIN.fullmatch(name) else ident(name)


_DECLARED_TYPE = re.compile(r"[A-Za-z][A-Za-z0-9_ ]{0,30}(\(\s*\d+(\s*,\s*\d+)?\s*\))?(\[\])?")


def shown_type(declared: str) -> Quoted:
    """A column's declared type as a prompt shows it; SQLite lets a file declare any text as a type,
    so anything that does not look like one is shown as `ANY`."""
    text = " ".join(str(declared).split())
    return Quoted(text) if _DECLARED_TYPE.fullmatch(text) else Quoted("ANY")


def qualified(schema: str, name: str) -> Quoted:
    """`schema.name` with both parts quoted; the schema is left out when it is `main`."""
    return ident(name) if schema == "main" else Quoted(f"{ident(schema)}.{ident(name)}")


def type_name(name: str) -> Quoted:
    """A DuckDB type Trove chose (`VARCHAR`, `DECIMAL(18,3)`, `DOUBLE[]`), checked to be one."""
    if not _TYPE.fullmatch(name):
        raise Unquotable(f"not a DuckDB type name: {name!r}")
    return Quoted(name)
