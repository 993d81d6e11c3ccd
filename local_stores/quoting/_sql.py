"""What DuckDB and SQLite share: standard SQL double-quoted identifiers and single-quoted strings."""

from __future__ import annotations

from collections.abc import Iterable

from local_stores.quoting import Quoted, Unquotable


def ident(name: str) -> Quoted:
    """`name` as a quoted identifier: `a"b` -> `"a""b"`. NUL cannot be quoted and is refused."""
    if "\x00" in name:
        raise Unquotable(f"identifier with a NUL character: {name!r}")
    return Quoted('"' + name.replace('"', '""') + '"')


def literal(text: str) -> Quoted:
    """`text` as a string literal, for the few places that take no parameter (`COMMENT ON`)."""
    if "\x00" in text:
        raise Unquotable(f"text with a NUL character: {text!r}")
    return Quoted("'" + text.replace("'", "''") + "'")


def idents(names: Iterable[str]) -> Quoted:
    """A comma-separated list of quoted identifiers."""
    return Quoted(", ".join(ident(n) for n in names))


def marks(n: int) -> Quoted:
    """`n` parameter placeholders: `?, ?, ?`."""
    return Quoted(", ".join("?" for _ in range(int(n))))


def number(value: int | float) -> Quoted:
    """A number Trove computed (a LIMIT, a size), checked to be one."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Unquotable(f"not a number: {value!r}")
    return Quoted(repr(value))
