"""What the app shows around an answer, read from the index: the folders added and how their files
fared, the page around a cited passage, the clips of a cited video, a photo's pixels, an indexed
file's text. Read-only."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from engine.corpora import CLIP, PARAGRAPH
from engine.errors import NoSuch
from engine.locators import MomentLocator, PassageLocator

if TYPE_CHECKING:
    from local_stores.catalog import Catalog
    from local_stores.corpus_store import CorpusStore


@dataclass
class RootSummary:
    """One folder (or file) the user added: what is in it and how indexing went."""

    path: str
    kinds: Counter = field(default_factory=Counter)  # kind -> files indexed
    states: Counter = field(default_factory=Counter)  # indexed / skipped / failed -> files
    last_indexed: float | None = None
    problems: list[tuple[str, str, str]] = field(default_factory=list)  # (path, state, reason)

    @property
    def files(self) -> int:
        return sum(self.states.values())


def roots(catalog: Catalog) -> list[RootSummary]:
    """Every added folder or file with its counts by kind and state, last indexing time and problems."""
    out = []
    for root_id, path in catalog.roots():
        summary = RootSummary(path)
        for record in catalog.files(root_id):
            summary.states[record.state] += 1
            if record.state == "indexed":
                summary.kinds[record.kind] += 1
            if record.state != "indexed" or record.reason:
                summary.problems.append((record.path, record.state, record.reason or ""))
            if record.indexed_at and (summary.last_indexed is None or record.indexed_at > summary.last_indexed):
                summary.last_indexed = record.indexed_at
        out.append(summary)
    return out


@dataclass
class PageText:
    """The text around a cited passage: its page(s) when the file has pages, else the whole file."""

    text: str
    start: int  # the cited passage, as offsets into `text`
    end: int
    pages: tuple[int, int] | None = None  # first and last page shown


def page_text(catalog: Catalog, store: CorpusStore, source: str, locator: PassageLocator, cited: str) -> PageText:
    """The page(s) of `source` that hold the cited characters `locator[start:end]`."""
    record = catalog.file(source)
    full = store.file_text(record.id) if record else None
    start, end = int(locator.get("start", 0)), int(locator.get("end", 0))
    if record is None or not full or end > len(full) or end <= start:  # changed or gone since: show what was cited
        return PageText(cited, 0, len(cited))
    if "page" not in locator:
        return PageText(full, start, end)
    first, last = int(locator["page"]), int(locator.get("last_page", locator["page"]))
    spans = [(p.locator["start"], p.locator["end"]) for p in store.file_items(record.id, PARAGRAPH)
             if first <= p.locator.get("page", -1) <= last]
    lo = min([s for s, _ in spans] + [start])
    hi = max([e for _, e in spans] + [end])
    lo = full.rfind("\n", 0, lo) + 1
    return PageText(full[lo:hi], start - lo, end - lo, (first, last))


@dataclass
class ClipThumb:
    """One clip of a video as the keyframe strip shows it."""

    index: int
    start_s: float
    end_s: float
    thumbnail: str | None


def clips(catalog: Catalog, store: CorpusStore, source: str, locator: MomentLocator) -> list[ClipThumb]:
    """Every clip of the video `source` with its keyframe thumbnail (made by the engine at indexing,
    engine.ingest.videos.items); the cited clip alone when the video is no longer indexed."""
    record = catalog.file(source)
    items = store.file_items(record.id, CLIP) if record else []
    found = [ClipThumb(int(it.locator.get("clip", i)), float(it.locator["start_s"]), float(it.locator["end_s"]),
                       it.locator.get("thumbnail")) for i, it in enumerate(items)]
    if not found and "start_s" in locator:
        found = [ClipThumb(int(locator.get("clip", 0)), float(locator["start_s"]), float(locator["end_s"]),
                           locator.get("thumbnail"))]
    return found


@dataclass
class IndexedFile:
    """A file the index holds, as other programs may read it: its kind, its text as indexed (None
    for photos and videos, whose words are their items'), and where it lies."""

    path: str
    kind: str
    size: int
    text: str | None


def indexed_file(catalog: Catalog, store: CorpusStore, path: str) -> IndexedFile:
    """The indexed file at exactly `path` (as citations name it); any other path, a file skipped or
    failed, or one gone from the disk since, is a TroveError: nothing outside the index is read."""
    record = catalog.file(path)
    if record is None or record.state != "indexed":
        raise NoSuch(f"{path}: not an indexed file (only files Trove indexed can be read)")
    if not Path(record.path).is_file():
        raise NoSuch(f"{path}: indexed, but no longer on the disk")
    return IndexedFile(record.path, record.kind, record.size, store.file_text(record.id))


def page_picture(path: Path, page: int, dpi: int = 110) -> np.ndarray:
    """A PDF page as RGB pixels, rendered in the reader worker (a PDF is untrusted input to a C
    library): what the app shows a scanned page's cited lines on (their locator's `lines`)."""
    from engine.ingest import scans
    from engine.ingest.isolation import run_isolated

    [bgr] = run_isolated(scans.render, path, [page], dpi, what="the PDF page renderer")
    return np.ascontiguousarray(bgr[:, :, ::-1])


def photo_pixels(path: Path) -> np.ndarray:
    """The photo as RGB pixels, EXIF orientation applied (as the engine's boxes assume), in any
    format the engine reads (HEIC, TIFF...)."""
    from engine.ingest.photos.image_io import load_photo

    return np.ascontiguousarray(load_photo(path).image[:, :, ::-1])
