"""Statement text for SQLite: quoted identifiers, placeholders and FTS5 match expressions."""

from __future__ import annotations

import re

from local_stores.quoting import Quoted
from local_stores.quoting._sql import ident, idents, literal, marks, number

__all__ = ["fts_phrases", "ident", "idents", "literal", "marks", "number", "vec_dim"]

_WORD = re.compile(r"\w+", re.UNICODE)


def fts_phrases(words: list[str]) -> str:
    """An FTS5 match expression (a bound parameter's value, not statement text) OR-ing `words`, each
    a quoted phrase of its word characters only, so no FTS5 syntax (`NEAR`, `*`, `:`, `"`) gets in."""
    kept = [" ".join(_WORD.findall(w)) for w in words]
    return " OR ".join(f'"{w}"' for w in kept if w)


def vec_dim(dim: int) -> Quoted:
    """The `float[dim]` of a sqlite-vec column."""
    return Quoted(f"float[{int(dim)}]")
