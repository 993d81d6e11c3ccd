"""The catalog: folders the user added (roots), every file seen with its state, and sources."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from local_stores.index_database import IndexDatabase, postgres_schema

SCHEMA = """
CREATE TABLE IF NOT EXISTS roots(
    id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, added_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS files(
    id INTEGER PRIMARY KEY, root_id INTEGER REFERENCES roots(id) ON DELETE CASCADE,
    path TEXT UNIQUE NOT NULL, kind TEXT NOT NULL, size INTEGER, mtime_ns INTEGER, sha256 TEXT,
    state TEXT NOT NULL, reason TEXT, items INTEGER DEFAULT 0, indexed_at REAL);
CREATE INDEX IF NOT EXISTS files_root ON files(root_id);
CREATE TABLE IF NOT EXISTS sources(
    id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, kind TEXT NOT NULL, engine TEXT NOT NULL,
    location TEXT, descriptor TEXT, updated_at REAL);
CREATE TABLE IF NOT EXISTS memos(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS media(
    file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE, kind TEXT NOT NULL, meta TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS image_refs(
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE, image TEXT NOT NULL, alt TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS image_refs_image ON image_refs(image);
"""

POSTGRES_SCHEMA = postgres_schema(SCHEMA)

STATES = ("indexed", "skipped", "failed")


@dataclass(frozen=True)
class FileRecord:
    id: int
    root_id: int
    path: str
    kind: str
    size: int
    mtime_ns: int
    sha256: str | None
    state: str
    reason: str | None
    items: int
    indexed_at: float | None


class Catalog:
    def __init__(self, db: IndexDatabase) -> None:
        self.db = db
        self.db.script(POSTGRES_SCHEMA if db.dialect == "postgres" else SCHEMA)

    # roots
    def add_root(self, path: Path) -> int:
        path_s = str(Path(path).resolve())
        self.db.execute("INSERT INTO roots(path, added_at) VALUES (?, ?) ON CONFLICT(path) DO NOTHING",
                        (path_s, time.time()))
        return self.db.query("SELECT id FROM roots WHERE path = ?", (path_s,))[0][0]

    def roots(self) -> list[tuple[int, str]]:
        return self.db.query("SELECT id, path FROM roots ORDER BY path")

    def remove_root(self, root_id: int) -> None:
        self.db.execute("DELETE FROM roots WHERE id = ?", (root_id,))

    # files
    def files(self, root_id: int | None = None) -> list[FileRecord]:
        sql = "SELECT id, root_id, path, kind, size, mtime_ns, sha256, state, reason, items, indexed_at FROM files"
        rows = self.db.query(sql + (" WHERE root_id = ?" if root_id is not None else "") + " ORDER BY path",
                             (root_id,) if root_id is not None else ())
        return [FileRecord(*r) for r in rows]

    def file(self, path: str) -> FileRecord | None:
        rows = self.db.query("SELECT id, root_id, path, kind, size, mtime_ns, sha256, state, reason, items, "
                             "indexed_at FROM files WHERE path = ?", (path,))
        return FileRecord(*rows[0]) if rows else None

    def record_file(self, root_id: int, path: str, kind: str, size: int, mtime_ns: int, sha256: str | None,
                    state: str, reason: str | None, items: int = 0) -> int:
        """Insert or update a file's row; returns its id (stable across updates)."""
        assert state in STATES, state
        self.db.execute(
            "INSERT INTO files(root_id, path, kind, size, mtime_ns, sha256, state, reason, items, indexed_at) "
            "VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT(path) DO UPDATE SET root_id=excluded.root_id, "
            "kind=excluded.kind, size=excluded.size, mtime_ns=excluded.mtime_ns, sha256=excluded.sha256, "
            "state=excluded.state, reason=excluded.reason, items=excluded.items, indexed_at=excluded.indexed_at",
            (root_id, path, kind, size, mtime_ns, sha256, state, reason, items, time.time()))
        return self.db.query("SELECT id FROM files WHERE path = ?", (path,))[0][0]

    def touch_file(self, file_id: int, size: int, mtime_ns: int) -> None:
        self.db.execute("UPDATE files SET size = ?, mtime_ns = ? WHERE id = ?", (size, mtime_ns, file_id))

    def forget_file(self, file_id: int) -> None:
        self.db.execute("DELETE FROM media WHERE file_id = ?", (file_id,))
        self.db.execute("DELETE FROM image_refs WHERE file_id = ?", (file_id,))
        self.db.execute("DELETE FROM files WHERE id = ?", (file_id,))

    # photo and video metadata (the rows of the `photos` and `videos` tables)
    def set_media(self, file_id: int, kind: str, meta: dict | None) -> None:
        self.db.execute("DELETE FROM media WHERE file_id = ?", (file_id,))
        if meta is not None:
            self.db.execute("INSERT INTO media(file_id, kind, meta) VALUES (?,?,?)", (file_id, kind, json.dumps(meta)))

    def media(self, kind: str) -> list[dict]:
        rows = self.db.query("SELECT meta FROM media WHERE kind = ? ORDER BY file_id", (kind,))
        return [json.loads(r[0]) for r in rows]

    # photos embedded in markdown notes, with their alt text
    def set_image_refs(self, file_id: int, refs: list[tuple[str, str]]) -> set[str]:
        """Replace a note's embedded photos; returns the photos whose alt texts changed."""
        old = set(self.db.query("SELECT image, alt FROM image_refs WHERE file_id = ?", (file_id,)))
        self.db.execute("DELETE FROM image_refs WHERE file_id = ?", (file_id,))
        for image, alt in refs:
            self.db.execute("INSERT INTO image_refs(file_id, image, alt) VALUES (?,?,?)", (file_id, image, alt))
        return {image for image, _ in old ^ {tuple(r) for r in refs}}

    def alt_texts(self, image: str) -> list[str]:
        return [r[0] for r in self.db.query("SELECT DISTINCT alt FROM image_refs WHERE image = ? ORDER BY alt",
                                            (image,))]

    def counts(self) -> dict[str, dict[str, int]]:
        """{kind: {state: n}} over all files."""
        out: dict[str, dict[str, int]] = {}
        for kind, state, n in self.db.query("SELECT kind, state, count(*) FROM files GROUP BY kind, state"):
            out.setdefault(kind, {})[state] = n
        return out

    # sources
    def upsert_source(self, name: str, kind: str, engine: str, location: str, descriptor: dict) -> None:
        self.db.execute(
            "INSERT INTO sources(name, kind, engine, location, descriptor, updated_at) VALUES (?,?,?,?,?,?) "
            "ON CONFLICT(name) DO UPDATE SET kind=excluded.kind, engine=excluded.engine, "
            "location=excluded.location, descriptor=excluded.descriptor, updated_at=excluded.updated_at",
            (name, kind, engine, location, json.dumps(descriptor), time.time()))

    def sources_at(self, location: str) -> list[str]:
        """Names of the sources that come from `location` (a file)."""
        return [r[0] for r in self.db.query("SELECT name FROM sources WHERE location = ? ORDER BY name", (location,))]

    def delete_source(self, name: str) -> None:
        self.db.execute("DELETE FROM sources WHERE name = ?", (name,))

    def memo(self, key: str) -> str | None:
        """A small remembered decision (e.g. the fingerprint of notes found not to be a graph)."""
        rows = self.db.query("SELECT value FROM memos WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def remember(self, key: str, value: str) -> None:
        self.db.execute("INSERT INTO memos(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET "
                             "value = excluded.value", (key, value))

    def sources_state(self) -> tuple:
        """Changes whenever a source is added, updated or deleted: a cheap test of whether what was
        derived from the sources (their value index) is still current."""
        return tuple(self.db.query("SELECT count(*), max(id), max(updated_at) FROM sources")[0])

    def sources(self) -> list[dict]:
        rows = self.db.query("SELECT name, kind, engine, location, descriptor, updated_at FROM sources ORDER BY name")
        return [{"name": n, "kind": k, "engine": e, "location": loc, "descriptor": json.loads(d or "{}"),
                 "updated_at": u} for n, k, e, loc, d, u in rows]
