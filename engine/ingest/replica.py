"""A home on a shared index keeps its own copy of the structured sources' engines.

The shared index (PostgreSQL) holds the catalog and the corpora; the tables, graphs and RDF stores
that queries run on are engines in each home (DuckDB, Kùzu, Oxigraph), built from the files on the
share. A home that asks the index but did not index the files builds the copies it lacks, or holds
an older copy of, from the same files; a source's catalog time (`updated_at`) says which copy is
current. Nothing is written to the shared catalog here, so homes never undo each other's work.

A home that indexes builds its engines as it goes; after its run it takes the catalog's times of
the sources it wrote as its own (`adopt`), so that it does not build them a second time."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import ParseError, SkipFile
from engine.ingest import media_tables, rdf, tables
from engine.ingest.graphs import load as graphs
from engine.ingest.graphs import vault
from engine.ingest.parsed import AttachedTable
from engine.ingest.parsers import parser_for

if TYPE_CHECKING:
    from engine.native.sources import Stores
    from engine.settings import Settings
    from local_stores.catalog import Catalog

STAMPS = "engines.json"  # in the home: per source, the catalog time of the copy its engine holds
MEDIA = {media_tables.location(kind): kind for kind in media_tables.TABLE}


@dataclass
class Followed:
    """What bringing the engines up to date did: sources copied, and those that could not be (why)."""

    copied: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)


def follow(catalog: Catalog, stores: Stores, settings: Settings) -> Followed:
    """Build, in this home's engines, the structured sources the catalog lists that they lack or
    hold an older copy of."""
    stamps = _read(settings.home / STAMPS)
    done = Followed()
    sources = catalog.sources()
    held = _held(stores)
    loaded: set[str] = set()  # files whose tables were all loaded by this call (a workbook's sheets)
    for source in sources:
        name, stamp = source["name"], str(source["updated_at"])
        if stamps.get(name) == stamp or source["kind"] not in held:
            continue
        if name in held[source["kind"]] and name not in stamps:  # built here before the first follow
            stamps[name] = stamp
            continue
        try:
            if source["location"] not in loaded:
                _copy(source, sources, catalog, stores, settings)
        except (ParseError, SkipFile, OSError) as exc:
            done.failed.append((name, str(exc)))
            continue
        loaded.add(source["location"])
        stamps[name] = stamp
        done.copied.append(name)
    _write(settings.home / STAMPS, stamps)
    return done


def times(catalog: Catalog) -> dict[str, str]:
    """Each source's catalog time (taken before an index run, to tell what the run wrote)."""
    return {s["name"]: str(s["updated_at"]) for s in catalog.sources()}


def adopt(catalog: Catalog, settings: Settings, before: dict[str, str]) -> None:
    """This home's engines hold the sources whose catalog time changed since `before` (it has just
    built them)."""
    stamps = _read(settings.home / STAMPS)
    stamps.update({name: stamp for name, stamp in times(catalog).items() if before.get(name) != stamp})
    _write(settings.home / STAMPS, stamps)


def _held(stores: Stores) -> dict[str, set[str]]:
    """The sources this home's engines hold, by kind."""
    return {"table": set(stores.tables.tables()), "graph": set(stores.graphs.names()), "rdf": set(stores.rdf.names())}


def _copy(source: dict, sources: list[dict], catalog: Catalog, stores: Stores, settings: Settings) -> None:
    name, kind, location = source["name"], source["kind"], source["location"] or ""
    if location in MEDIA:
        media = MEDIA[location]
        stores.tables.replace_rows(name, media_tables.COLUMNS[media], catalog.media(media))
        return
    where = Path(location)
    if not where.exists():
        raise ParseError(f"{location} cannot be read here (is the share mounted at the same path?)")
    if kind == "graph" and source["descriptor"].get("format") == "vault":
        notes = [Path(f.path) for f in catalog.files() if f.state == "indexed" and Path(f.path).is_relative_to(where)
                 and Path(f.path).suffix.lower() in vault.NOTE_SUFFIXES]
        graphs.build(stores.graphs, name, vault.read(where, notes), location, "vault")
    elif kind == "graph":
        graphs.load(stores.graphs, name, where)
    elif kind == "rdf":
        rdf.load(stores.rdf, name, where)
    elif source["descriptor"].get("attachment"):
        _copy_attached(where, sources, stores, settings)
    elif tables.kind_of(where):
        tables.load(stores.tables, _names_at(location, sources), where, max_unpacked_mb=settings.max_unpacked_mb,
                    timeout_s=settings.parse_timeout_s, memory_mb=settings.ingest_memory_mb)


def _copy_attached(where: Path, sources: list[dict], stores: Stores, settings: Settings) -> None:
    """The tables attached to the messages of the mail file `where` (printed in the document), read
    out of it again."""
    parse = parser_for(where)
    if parse is None:
        raise ParseError(f"{where.name} is no longer read here")
    for attached in parse(where).attached_tables:
        tables.load_attached(stores.tables, _names_at(str(where), sources, attached), attached, where,
                             max_unpacked_mb=settings.max_unpacked_mb, timeout_s=settings.parse_timeout_s,
                             memory_mb=settings.ingest_memory_mb)


def _names_at(location: str, sources: list[dict], attached: AttachedTable | None = None) -> Callable[[str | None], str]:
    """The catalog's name of each table of the file at `location` (or of one of its attachments), by
    its sheet."""
    named = {s["descriptor"].get("sheet"): s["name"] for s in sources
             if s["location"] == location and tables.same_attachment(s["descriptor"], attached)}
    stem = tables.stem(location, attached)
    return lambda sheet: named.get(sheet) or f"{stem} {sheet or ''}".strip()


def _write(path: Path, stamps: dict[str, str]) -> None:
    if stamps != _read(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(stamps, indent=1), encoding="utf-8")


def _read(path: Path) -> dict[str, str]:
    try:
        return dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return {}
