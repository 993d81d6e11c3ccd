"""Statement text for SPARQL: IRIs and string literals written into queries Trove composes."""

from __future__ import annotations

import re

from local_stores.quoting import Quoted, Unquotable
from local_stores.quoting._sql import number

__all__ = ["PARAMETER", "iri", "iris", "literal", "number", "parameters"]

# what SPARQL's IRIREF production excludes: <>"{}|^`\ , spaces and control characters
_NOT_IN_IRI = re.compile(r'[<>"{}|^`\\\x00-\x20]')
PARAMETER = re.compile(r"param(\d+)")  # the variables bound values take: ?param0, ?param1, ...
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def iri(value: str) -> Quoted:
    """`<value>`, refused when the text could close the IRI or is no IRI at all."""
    if not value or _NOT_IN_IRI.search(value):
        raise Unquotable(f"not an IRI that can be written into SPARQL: {value!r}")
    return Quoted(f"<{value}>")


def iris(values: list[str]) -> Quoted:
    """Space-separated IRIs (a `VALUES` block)."""
    return Quoted(" ".join(iri(v) for v in values))


def literal(text: str) -> Quoted:
    """A double-quoted string with every character that could end or escape it escaped; other
    control characters are dropped (no string in a question or the data needs them)."""
    out = "".join(_ESCAPES.get(c, c) for c in text if c in _ESCAPES or ord(c) >= 32)
    return Quoted(f'"{out}"')


def parameters(count: int) -> list[Quoted]:
    """`?param0` … `?param{count-1}`: the variables a SPARQL store binds the i-th bound value to.
    SPARQL has no positional parameters; Oxigraph substitutes values for variables (SEP-0007) that
    the SELECT projects, so a statement projects each one it uses, and the store leaves their
    columns out of the result."""
    return [Quoted(f"?param{i}") for i in range(count)]
