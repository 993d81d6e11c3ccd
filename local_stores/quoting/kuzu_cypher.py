"""Statement text for Kùzu's Cypher: identifiers in backticks, string literals, type names.

Kùzu keeps a doubled backtick inside a quoted name as two characters instead of unescaping it, so
a backtick cannot be quoted at all: names Trove makes never hold one (`engine.ingest.graphs.model
.identifier`) and anything else holding one is refused."""

from __future__ import annotations

import re

from local_stores.quoting import Quoted, Unquotable
from local_stores.quoting._sql import number

__all__ = ["ident", "literal", "number", "type_name"]

_TYPE = re.compile(r"[A-Z][A-Z0-9_]*(\[\])?")


def ident(name: str) -> Quoted:
    """A label, relationship type or property name in backticks."""
    if not name or "`" in name or any(ord(c) < 32 for c in name):
        raise Unquotable(f"not a name Kùzu can quote: {name!r}")
    return Quoted(f"`{name}`")


def literal(text: str) -> Quoted:
    """A single-quoted string with backslash escapes, for arguments that take no parameter (`CALL`).
    Kùzu reads `\\n` as `n`, so control characters cannot be written and are refused."""
    if any(ord(c) < 32 for c in text):
        raise Unquotable(f"text with control characters: {text!r}")
    return Quoted("'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'")


def type_name(name: str) -> Quoted:
    """A Kùzu type Trove inferred (`STRING`, `INT64`, `STRING[]`), checked to be one."""
    if not _TYPE.fullmatch(name):
        raise Unquotable(f"not a Kùzu type name: {name!r}")
    return Quoted(name)
