"""The short text values each structured source holds (a city, a person, a product), by their
lower-cased text, so that the sources a question names by value are found in one indexed lookup
instead of a scan of every source. Kept in the catalog's database, one stamp per source: a source
whose stamp changed is read again, one that left the catalog is dropped."""

from __future__ import annotations

import re
from collections.abc import Iterable

from local_stores.index_database import IndexDatabase
from local_stores.quoting import sqlite_sql as sq

SCHEMA = """
CREATE TABLE IF NOT EXISTS value_sources(source TEXT PRIMARY KEY, stamp TEXT NOT NULL, values_held INTEGER);
CREATE TABLE IF NOT EXISTS source_values(
    key TEXT NOT NULL, source TEXT NOT NULL, place TEXT NOT NULL, value TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS source_values_key ON source_values(key);
CREATE INDEX IF NOT EXISTS source_values_source ON source_values(source);
"""


_QUALIFIER = re.compile(r"\s*\([^()]*\)\s*$")  # "(USA)" of "Kelly McCormick (USA)"


_QUOTES = "\"'“”‘’«»"  # around a title a table writes in quotes ("\"Part of Your World\"")


def field_of(place: str) -> str:
    """The field a place names, lower-cased: `songs.title`, `Movie.title`, `movie:title` and
    `http://…/movie#title` -> `title`."""
    return re.split(r"[.:#/]", place)[-1].lower()


def keys(value: str) -> list[str]:
    """What a held value is found by: its lower-cased text, and that text without a qualifier in
    brackets at its end ("kelly mccormick" of "Kelly McCormick (USA)", as a question names her) and
    without the quotes around it ("part of your world" of "\"Part of Your World\""), or both. A change
    here raises engine.native.values.KEYS_VERSION, so that every index keys its values again."""
    key = value.strip().lower()
    bare = unqualified(key)
    return list(dict.fromkeys(k for k in (key, bare, key.strip(_QUOTES).strip(), bare.strip(_QUOTES).strip()) if k))


def unqualified(value: str) -> str:
    """The value without a qualifier in brackets at its end: "Kelly McCormick" of "Kelly McCormick (USA)"."""
    return _QUALIFIER.sub("", value)


class ValueIndex:
    def __init__(self, db: IndexDatabase) -> None:
        self.db = db
        self.db.script(SCHEMA)  # the same on SQLite and PostgreSQL

    def stamps(self) -> dict[str, str]:
        """Per indexed source, the stamp (its catalog state) its values were read at."""
        return dict(self.db.query("SELECT source, stamp FROM value_sources"))

    def replace(self, source: str, stamp: str, rows: Iterable[tuple[str, str]]) -> int:
        """The source's values are now `rows` of (value as stored, where it is held); returns how many."""
        whole = {(value.strip().lower(), place): value for value, place in rows if value and value.strip()}
        keyed = {(key, place): value for (_, place), value in whole.items() for key in keys(value)[1:]}
        keyed |= whole  # a value written without the qualifier is found as itself
        with self.db.transaction():
            self.db.execute("DELETE FROM source_values WHERE source = ?", (source,))
            self.db.executemany("INSERT INTO source_values(key, source, place, value) VALUES (?,?,?,?)",
                                [(key, source, place, value) for (key, place), value in keyed.items()])
            self.db.execute("INSERT INTO value_sources(source, stamp, values_held) VALUES (?,?,?) ON CONFLICT(source) "
                            "DO UPDATE SET stamp = excluded.stamp, values_held = excluded.values_held",
                            (source, stamp, len(whole)))
        return len(whole)

    def drop(self, source: str) -> None:
        with self.db.transaction():
            self.db.execute("DELETE FROM source_values WHERE source = ?", (source,))
            self.db.execute("DELETE FROM value_sources WHERE source = ?", (source,))

    def lookup(self, keys: list[str]) -> list[tuple[str, str, str, str]]:
        """(key, source, place, value) for every held value whose lower-cased text is one of `keys`."""
        if not keys:
            return []
        listed = sq.marks(len(keys))
        return self.db.query(f"SELECT key, source, place, value FROM source_values WHERE key IN ({listed}) "
                             "ORDER BY source, place", tuple(keys))

    def containing(self, source: str, word: str, limit: int) -> list[tuple[str, str]]:
        """(place, value) of `source`'s held values that hold `word` (lower case) as a whole word
        among others ("cuba" in "cuba gooding jr."), at most `limit`."""
        escaped = word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        like = "key LIKE ? ESCAPE '\\'"
        return [tuple(row) for row in self.db.query(
            f"SELECT DISTINCT place, value FROM source_values WHERE source = ? AND ({like} OR {like} OR {like}) "
            "ORDER BY place, value LIMIT ?", (source, f"{escaped} %", f"% {escaped}", f"% {escaped} %", limit))]

    def starting(self, source: str, text: str, limit: int) -> list[tuple[str, str]]:
        """(place, value) of `source`'s held values whose lower-cased text begins with `text` (lower
        case): "franklin county" finds "Franklin County." too."""
        escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return [tuple(row) for row in self.db.query(
            "SELECT DISTINCT place, value FROM source_values WHERE source = ? AND key LIKE ? ESCAPE '\\' "
            "ORDER BY place, value LIMIT ?", (source, f"{escaped}%", limit))]

    def in_field(self, source: str, field: str, limit: int) -> list[tuple[str, str]]:
        """(place, value) of `source`'s held values in a column or property named `field` (any table
        or class: `songs.title`, `Movie.title`, `movie:title`), at most `limit`."""
        rows = self.db.query("SELECT DISTINCT place, value FROM source_values WHERE source = ? AND lower(place) LIKE ? "
                             "ORDER BY place, value LIMIT ?", (source, f"%{field.lower()}", limit))
        return [(place, value) for place, value in rows if field_of(place) == field.lower()]

    def sources(self) -> int:
        return self.db.query("SELECT count(*) FROM value_sources")[0][0]
