"""Questions kept to part of the disk: folders or files (`--in`), structured sources (`--source`),
kinds of item (`--kind`) and a time span (`--since/--until`: a file's modified time, a photo's
taken-at, an e-mail's date; a mailbox is in the span when one of its messages is). A `Scope` is
what the user asked for; `Within` is it resolved against the index once per question: the files,
sources and route labels in scope, which routing, retrieval (inside the FTS5 and vector queries)
and source selection are limited to."""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from engine.corpora import PARAGRAPH
from engine.errors import TroveError
from engine.routing.labels import LABELS, NATIVE

if TYPE_CHECKING:
    from local_stores.catalog import Catalog, FileRecord
    from local_stores.corpus_store import CorpusStore, Item

KINDS = tuple(label for label in LABELS if label != "none")


@dataclass(frozen=True)
class Scope:
    """Empty fields do not limit; `since`/`until` are ISO dates or times (`2024-01-01`), inclusive."""

    KINDS: ClassVar[tuple[str, ...]] = KINDS  # what `kinds` may hold
    paths: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    since: str | None = None
    until: str | None = None

    def __post_init__(self) -> None:
        unknown = [k for k in self.kinds if k not in KINDS]
        if unknown:
            raise TroveError(f"unknown kind {unknown[0]!r} in the scope (known: {', '.join(KINDS)})")
        object.__setattr__(self, "paths", tuple(str(Path(p).expanduser().resolve()) for p in self.paths))
        for bound in (self.since, self.until):
            if bound is not None:
                _moment(bound)

    @property
    def empty(self) -> bool:
        return not (self.paths or self.sources or self.kinds or self.since or self.until)

    def as_dict(self) -> dict:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items() if v}

    @classmethod
    def from_dict(cls, data: dict | None) -> Scope:
        data = data or {}
        return cls(tuple(data.get("paths", ())), tuple(data.get("sources", ())), tuple(data.get("kinds", ())),
                   data.get("since"), data.get("until"))

    def describe(self) -> str:
        """The scope in words, for messages."""
        parts = [*(f"in {p}" for p in self.paths), *(f"source {s}" for s in self.sources)]
        parts += [f"kind {', '.join(self.kinds)}"] if self.kinds else []
        parts += [f"since {self.since}"] if self.since else []
        parts += [f"until {self.until}"] if self.until else []
        return "; ".join(parts) or "everything"


Span = tuple[float | None, float | None]  # since, until, in seconds since the epoch (None: open)


@dataclass(frozen=True)
class Within:
    """A scope resolved against the index: None means "not limited"."""

    files: frozenset[int] | None
    sources: frozenset[str] | None
    labels: frozenset[str] | None
    span: Span | None = None  # e-mail is kept by its date

    def admits(self, item: Item) -> bool:
        """Whether an item of a file in scope is in the time span too: a message by its own date (its
        mailbox is in scope when one of its messages is); anything without a date of its own, yes."""
        if self.span is None:
            return True
        sent = _iso_moment(item.locator.get("date"))
        return sent is None or _in_span(sent, self.span)


EVERYTHING = Within(None, None, None)


def _moment(text: str, end: bool = False) -> float:
    """An ISO date or time as seconds since the epoch; a date alone is its first (or, as `end`, its
    last) second."""
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        raise TroveError(f"{text!r}: not a date (write it as 2024-03-01 or 2024-03-01T14:30)") from None
    if end and len(text) <= 10:
        moment += dt.timedelta(days=1) - dt.timedelta(microseconds=1)
    return moment.timestamp()


def resolve(scope: Scope | None, catalog: Catalog, store: CorpusStore) -> Within:
    """The files, sources and route labels in `scope`; a TroveError saying so when a path is not
    indexed, a source is unknown, or the scope holds nothing."""
    if scope is None or scope.empty:
        return EVERYTHING
    sources = catalog.sources()
    for name in scope.sources:
        if name not in {s["name"] for s in sources}:
            raise TroveError(f"{name}: no source of that name (see trove status)")
    records = [r for r in catalog.files() if r.state == "indexed"]
    _known_paths(scope, catalog, records)
    span = _span(scope)
    limited = scope.paths or span or scope.sources
    files = _files(scope, span, records, catalog, store) if limited else None
    in_sources = frozenset(s["name"] for s in sources if _source_in(scope, s, files, catalog))
    labels = set(scope.kinds or KINDS)
    if files is not None:
        corpora = store.corpora_of(files)
        labels &= {label for label, corpus in LABELS.items() if corpus in corpora} | {
            label for label, kinds in NATIVE.items() if any(s["kind"] in kinds and s["name"] in in_sources
                                                            for s in sources)}
    if not labels or (files is not None and not files and not in_sources):
        raise TroveError(f"nothing indexed is in the scope ({scope.describe()})")
    return Within(files, in_sources if limited else None, frozenset(labels), span)


def _span(scope: Scope) -> Span | None:
    if not (scope.since or scope.until):
        return None
    return _moment(scope.since) if scope.since else None, _moment(scope.until, end=True) if scope.until else None


def _in_span(moment: float, span: Span) -> bool:
    since, until = span
    return (since is None or moment >= since) and (until is None or moment <= until)


def _known_paths(scope: Scope, catalog: Catalog, records: list[FileRecord]) -> None:
    roots = [Path(p) for _, p in catalog.roots()]
    for path in scope.paths:
        target = Path(path)
        if not any(target.is_relative_to(r) or r.is_relative_to(target) for r in roots):
            raise TroveError(f"{path}: not in a folder Trove follows (see trove status)")


def _files(scope: Scope, span: Span | None, records: list[FileRecord], catalog: Catalog,
           store: CorpusStore) -> frozenset[int]:
    dated = _dated(catalog, store, records) if span is not None else {}  # by path
    named = {s["location"] for s in catalog.sources() if s["name"] in scope.sources}
    out = set()
    for record in records:
        if scope.paths and not any(Path(record.path).is_relative_to(p) for p in scope.paths):
            continue
        if scope.sources and not any(Path(record.path).is_relative_to(loc) for loc in named):
            continue
        moments = dated.get(record.path) or [record.mtime_ns / 1e9]
        if span is not None and not any(_in_span(m, span) for m in moments):
            continue
        out.add(record.id)
    return frozenset(out)


def _dated(catalog: Catalog, store: CorpusStore, records: list[FileRecord]) -> dict[str, list[float]]:
    """When each photo was taken (as its camera wrote it) and each e-mail sent (a mailbox: each of
    its messages: the `date` its items' locators carry), by path; files with no such date are left out."""
    out: dict[str, list[float]] = {}
    for row in catalog.media("photo"):
        if moment := _iso_moment(row.get("taken_at")):
            out[row["file"]] = [moment]
    paths = {record.id: record.path for record in records}
    for file_id, dates in store.locator_values(PARAGRAPH, "date").items():
        sent = [moment for moment in map(_iso_moment, dates) if moment is not None]
        if file_id in paths and sent:
            out[paths[file_id]] = sent
    return out


def _iso_moment(text: str | None) -> float | None:
    """An ISO time as seconds since the epoch (a time without a zone is local), None when absent or unreadable."""
    try:
        return dt.datetime.fromisoformat(text).timestamp() if text else None
    except ValueError:
        return None


def _source_in(scope: Scope, source: dict, files: frozenset[int] | None, catalog: Catalog) -> bool:
    """A structured source is in scope when named (or none is), under a scope path, and (for a time
    span) its file is."""
    if scope.sources and source["name"] not in scope.sources:
        return False
    if scope.paths and not any(Path(source["location"]).is_relative_to(p) for p in scope.paths):
        return False
    if files is None or not (scope.since or scope.until):
        return True
    record = catalog.file(source["location"])
    return record is None or record.id in files
