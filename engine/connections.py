"""Sources on servers (a team's records): connected by name, described once, and from then on
chosen, queried and cited as the local ones are, in their own language on their own engine. Which
kinds can be connected, and the store each one opens, is `engine.native.kinds`'s to say.

Read-only on the server's side too: a login that could write is refused unless the user says so."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.errors import TroveError
from engine.native.kinds import KINDS
from local_stores.results import QueryError

if TYPE_CHECKING:
    from local_stores.catalog import Catalog
    from local_stores.native_store import ServerStore

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,62}")
OPTIONS = ("schemas", "passfile")  # what a connection keeps beside what its server describes


def server_kinds() -> list[str]:
    """The source kinds that live on a server (`trove connect --kind`)."""
    return [k.name for k in KINDS.values() if k.connect is not None]


def _opener(kind: str) -> Callable[[str, dict], ServerStore] | None:
    return KINDS[kind].connect if kind in KINDS else None


def _kept(options: dict) -> dict:
    """The connection's options that are set, as its descriptor keeps them."""
    return {k: options[k] for k in OPTIONS if options.get(k)}


def connect(catalog: Catalog, name: str, url: str, kind: str, options: dict | None = None,
            allow_writable: bool = False) -> dict:
    """Describe the server's source and record it in the catalog as `name`; returns its catalog row.
    A TroveError names the source and the reason when the URL, the name, the server or the login's
    rights are wrong; nothing is recorded then."""
    opener = _opener(kind)
    if opener is None:
        raise TroveError(f"{name}: not a kind of server Trove connects to: {kind!r} (known: "
                         f"{', '.join(server_kinds())})")
    if not _NAME.fullmatch(name):
        raise TroveError(f"{name!r}: a source name is a letter, then letters, digits, '_' or '-' (at most 63)")
    taken = {src["name"]: src["kind"] for src in catalog.sources()}
    if name in taken and taken[name] not in server_kinds():
        raise TroveError(f"{name}: a source of your files has this name already (trove status); choose another")
    options = _kept(options or {})
    try:
        store = opener(url, options)
        why = store.can_write()
        if why and not allow_writable:
            raise TroveError(f"{name}: refused: this login could change the data ({'; '.join(why)}). Connect "
                             "with a read-only role, or allow it with --allow-writable-role (queries still "
                             "run in read-only transactions)")
        descriptor = _described(store, options)
    except (ValueError, QueryError) as exc:
        raise TroveError(f"{name}: {exc}") from None
    catalog.upsert_source(name, kind, kind, store.url, descriptor)
    return next(src for src in catalog.sources() if src["name"] == name)


def listed(catalog: Catalog) -> list[dict]:
    """Every connected source: its name, kind, URL (no secret), and its tables' rows or its triples."""
    servers = server_kinds()
    return [{"name": src["name"], "kind": src["kind"], "url": src["location"],
             "tables": {t["table"]: t["rows"] for t in src["descriptor"].get("tables", [])},
             **({"triples": src["descriptor"]["triples"]} if "triples" in src["descriptor"] else {}),
             **({"nodes": {k: v["count"] for k, v in src["descriptor"]["nodes"].items()}}
                if "nodes" in src["descriptor"] else {})}
            for src in catalog.sources() if src["kind"] in servers]


def holdings(connection: dict) -> str:
    """What a `listed` connection holds, in words: its triples, its node labels or its tables, counted."""
    if "triples" in connection:
        return f"{connection['triples']} triples"
    parts = connection.get("nodes") or connection["tables"]
    return ", ".join(f"{name} ({n})" for name, n in parts.items())


def refresh(catalog: Catalog) -> list[tuple[str, str, str]]:
    """Describe every connected source again (`trove index`): its tables or classes may have changed
    on the server. One that cannot be reached keeps its last description; returns each such as an
    index report's problem ("connection NAME", "failed", why)."""
    failed = []
    for src in catalog.sources():
        opener = _opener(src["kind"])
        if opener is None:
            continue
        try:
            _describe_again(catalog, src, opener)
        except (ValueError, QueryError) as exc:
            failed.append((f"connection {src['name']}", "failed", str(exc)))
    return failed


def recheck(catalog: Catalog, checked: dict[str, float], every_s: float, rows: list[dict] | None = None) -> list[str]:
    """Describe again each connected source whose server says its shape changed (tables, columns,
    labels) since it was described, asking each at most every `every_s` seconds (`checked`: when
    each was last asked). A server that cannot be reached now is left as it was: its queries say
    so. `rows`: the catalog's sources, when the caller has just read them. Returns the names
    described again."""
    again = []
    for src in catalog.sources() if rows is None else rows:
        opener = _opener(src["kind"])
        if opener is None or time.monotonic() - checked.get(src["name"], -every_s) < every_s:
            continue
        checked[src["name"]] = time.monotonic()
        try:
            version = opener(src["location"], _kept(src["descriptor"])).version()
            if version is not None and version != src["descriptor"].get("version"):
                _describe_again(catalog, src, opener)
                again.append(src["name"])
        except (ValueError, QueryError):
            continue
    return again


def _described(store: ServerStore, options: dict) -> dict:
    """What the catalog keeps of a server's source: its description, its version, the options."""
    return {**store.describe(), "version": store.version(), **options}


def _describe_again(catalog: Catalog, src: dict, opener: Callable[[str, dict], ServerStore]) -> None:
    options = _kept(src["descriptor"])
    descriptor = _described(opener(src["location"], options), options)
    if descriptor != src["descriptor"]:
        catalog.upsert_source(src["name"], src["kind"], src["engine"], src["location"], descriptor)


def disconnect(catalog: Catalog, name: str) -> None:
    """Forget the connection `name` (nothing on the server changes)."""
    servers = server_kinds()
    if not any(src["name"] == name and src["kind"] in servers for src in catalog.sources()):
        raise TroveError(f"{name}: not a connected source (trove status lists them)")
    catalog.delete_source(name)
