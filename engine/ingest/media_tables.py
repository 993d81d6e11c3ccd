"""The `photos` and `videos` tables in DuckDB: one row per indexed photo or video (when, where, what
camera, what it shows), so "how many photos did I take in March 2024?" is a SQL question.

Rows live in the catalog's `media` table, written in each file's own transaction; the DuckDB tables
are rebuilt from them after a run that changed any (a few thousand rows take milliseconds)."""

from __future__ import annotations

from local_stores.catalog import Catalog
from local_stores.table_store import TableStore, table_name

COLUMNS: dict[str, dict[str, str]] = {
    "photo": {"file": "VARCHAR", "folder": "VARCHAR", "name": "VARCHAR", "taken_at": "TIMESTAMP",
              "camera_make": "VARCHAR", "camera_model": "VARCHAR", "latitude": "DOUBLE", "longitude": "DOUBLE",
              "width": "INTEGER", "height": "INTEGER", "format": "VARCHAR", "objects": "VARCHAR",
              "people": "INTEGER", "faces": "INTEGER", "text": "VARCHAR", "labels": "VARCHAR", "caption": "VARCHAR"},
    "video": {"file": "VARCHAR", "folder": "VARCHAR", "name": "VARCHAR", "created_at": "TIMESTAMP",
              "duration_s": "DOUBLE", "fps": "DOUBLE", "width": "INTEGER", "height": "INTEGER", "codec": "VARCHAR",
              "clips": "INTEGER", "objects": "VARCHAR", "subtitles": "BOOLEAN", "problems": "VARCHAR"},
}
ABOUT = {
    "photo": "photos: one row per photo on this computer, when it was taken (taken_at), where (latitude, "
             "longitude), with which camera, its size, what it shows (objects, people, faces), text read in it",
    "video": "videos: one row per video on this computer, its length (duration_s), when it was made, size, "
             "number of clips, what it shows",
}
TABLE = {"photo": "photos", "video": "videos"}


def location(kind: str) -> str:
    return f"media:{TABLE[kind]}"


def refresh(kind: str, catalog: Catalog, store: TableStore) -> str | None:
    """Rebuild the table of `kind` (photo | video) from the catalog; returns its name, None when
    there is nothing of that kind (the table and its source are then dropped)."""
    rows = catalog.media(kind)
    known = [s for s in catalog.sources() if s["location"] == location(kind)]
    if not rows:
        for src in known:
            catalog.delete_source(src["name"])
            store.drop(src["name"])
        return None
    name = known[0]["name"] if known else table_name(TABLE[kind], {s["name"] for s in catalog.sources()})
    info = store.replace_rows(name, COLUMNS[kind], rows)
    info.file = location(kind)
    descriptor = info.descriptor()
    descriptor["about"] = ABOUT[kind]
    catalog.upsert_source(name, "table", "duckdb", location(kind), descriptor)
    return name
