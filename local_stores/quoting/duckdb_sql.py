"""Statement text for DuckDB: quoted identifiers and the few literals that take no parameter."""

from __future__ import annotations

import re

from local_stores.quoting import Quoted, Unquotable
from local_stores.quoting._sql import ident, idents, literal, marks, number

__all__ = ["ident", "idents", "literal", "marks", "number", "qualified", "type_name"]

_TYPE = re.compile(r"[A-Z][A-Z0-9_]*(\(\d+(, ?\d+)?\))?(\[\])?")


def qualified(schema: str, name: str) -> Quoted:
    """`schema.name` with both parts quoted; the schema is left out when it is `main`."""
    return ident(name) if schema == "main" else Quoted(f"{ident(schema)}.{ident(name)}")


def type_name(name: str) -> Quoted:
    """A DuckDB type Trove chose (`VARCHAR`, `DECIMAL(18,3)`, `DOUBLE[]`), checked to be one."""
    if not _TYPE.fullmatch(name):
        raise Unquotable(f"not a DuckDB type name: {name!r}")
    return Quoted(name)
