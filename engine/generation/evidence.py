"""Evidence: what the model sees, numbered, packed into the context budget."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, cast

from engine.generation.untrusted import inline
from engine.locators import (
    Locator,
    MomentLocator,
    PassageLocator,
    PhotoLocator,
    QueryLocator,
    RegionLocator,
    as_locator,
    image_file,
    mail_words,
    page_words,
    picture_words,
    source_name,
)
from engine.native.hits import RESTATED
from engine.retrieval.hybrid import Hit

TOKENS_PER_WORD = 1.35
CHARS_PER_TOKEN = 5.0  # English runs about 4.4 characters a token: words count first there


@dataclass
class Evidence:
    """One numbered item the model reads: its kind (a route label), its file and place, the text shown."""

    n: int
    kind: str  # paragraph | document | table | graph | rdf | image | region | clip | video
    source: str
    title: str
    locator: Locator
    text: str  # the text shown to the model (may be an excerpt of a long document)
    score: float

    def header(self) -> str:
        """`[n] title (file, page …)`: the item's number, then its file-given names neutralised onto
        one line, so a title or a file name cannot fake another item or close the evidence."""
        return f"[{self.n}] " + inline(self._where(), 1000)

    def _where(self) -> str:
        return f"{self.title} ({source_name(self.source, self.locator)})"

    def stated(self) -> str:
        """What the file itself says here, with the item's header: what a name the question asks
        about must be found in."""
        return f"{self.text} {self.header()}"

    def named(self) -> str:
        """The item's text with what names it (title, file, section, query) but not where it sits
        in its file: "page 5" of the header is not the "A5" a question asks about."""
        return f"{self.text} {self._where()}"


@dataclass
class PassageEvidence(Evidence):
    """A paragraph or a segment of a document, with the heading path it sits under."""

    locator: PassageLocator
    section: str = ""  # the heading path the text sits under ("Part 2 > Terms"), shown with it

    def _where(self) -> str:
        name = source_name(self.source, self.locator)
        where = name + "".join(f", {words}" for words in (page_words(self.locator), mail_words(self.locator)) if words)
        if self.title in ("", PurePath(name).stem):  # "161 (161.txt)" reads as an answer to "how many"
            return f"{where}{self._section()}"
        return f"{self.title} ({where}){self._section()}"

    def named(self) -> str:
        return f"{self.text} {self.title} ({source_name(self.source, self.locator)}){self._section()}"

    def _section(self) -> str:
        return f", section: {self.section}" if self.section and self.section != self.title else ""

    @property
    def span(self) -> tuple[int, int] | None:
        """(start, end) of the text in its file; None for a locator from before they were kept."""
        return _span(self.locator)


@dataclass
class QueryEvidence(Evidence):
    """What a native query returned."""

    locator: QueryLocator

    def _where(self) -> str:  # a SQL result shows its query (the columns it names say what the values are)
        sql = self.locator.get("sql")
        return f"{self.title}, query: {sql}" if sql else super()._where()

    def stated(self) -> str:
        """The result and the query, not the question its text repeats ("For the question 'How much
        did Top Gun earn?', computed from …" names Top Gun whatever the query found)."""
        return f"{RESTATED.sub('', self.text)} {self.header()} {self.locator.get('query', '')}"

    @property
    def listing(self) -> list[str] | None:
        """Each row in words when the result is a short list, else None."""
        return self.locator.get("listing")

    @property
    def values(self) -> list[Any] | None:
        """The single row's values when the result is one row (an aggregate), else None."""
        return self.locator.get("values")


@dataclass
class _OfPicture(Evidence):
    """What a photo and a region of it share: the picture they are in, and how it is named."""

    locator: PhotoLocator | RegionLocator

    @property
    def image(self) -> str:
        """The file the picture's pixels are in."""
        return image_file(self.source, self.locator)

    def _picture(self) -> str:
        """"photo beach.jpg", or "picture 2 on page 4 of report.pdf" for a picture inside a document."""
        where = source_name(self.source, self.locator)
        if picture := picture_words(self.locator):
            page = page_words(self.locator)
            return f"{picture}{f' on {page}' if page else ''} of {where}"
        return f"photo {where}"


@dataclass
class PhotoEvidence(_OfPicture):
    """A whole photo, or a picture inside a document."""

    locator: PhotoLocator

    def _where(self) -> str:
        return self._picture()


@dataclass
class RegionEvidence(_OfPicture):
    """A box inside a photo and what was seen there."""

    locator: RegionLocator

    def _where(self) -> str:
        return f"seen in {self._picture()}"

    @property
    def box(self) -> tuple[float, float, float, float] | None:
        """x0, y0, x1, y1 in the photo's pixels (None for an element of an inventory without one)."""
        box = self.locator.get("box")
        return (box[0], box[1], box[2], box[3]) if box and len(box) == 4 else None

    @property
    def called(self) -> str:
        """What the region is called where it is drawn: the element's name, or the detector's label."""
        return self.locator.get("name") or self.locator.get("label", "")


@dataclass
class MomentEvidence(Evidence):
    """A clip of a video (or the whole video) between two seconds."""

    locator: MomentLocator

    def _where(self) -> str:
        return (f"video {source_name(self.source, self.locator)}, "
                f"{self.start_s:.1f}-{self.end_s:.1f} s")

    @property
    def start_s(self) -> float:
        return float(self.locator.get("start_s", 0.0))

    @property
    def end_s(self) -> float:
        return float(self.locator.get("end_s", self.start_s))


_BY_KIND: dict[str, type[Evidence]] = {
    "paragraph": PassageEvidence, "document": PassageEvidence,
    "table": QueryEvidence, "graph": QueryEvidence, "rdf": QueryEvidence,
    "image": PhotoEvidence, "region": RegionEvidence, "clip": MomentEvidence, "video": MomentEvidence,
}


def evidence_of(n: int, kind: str, source: str, title: str, locator: Mapping[str, Any], text: str, score: float,
                section: str = "") -> Evidence:
    """The evidence of `kind` (a route label) for an item; its locator, read back from the index as
    JSON, is taken as the kind's shape. `section` is a passage's heading path."""
    made = _BY_KIND.get(kind, Evidence)
    shaped = as_locator(locator)
    if made is PassageEvidence:
        return PassageEvidence(n, kind, source, title, cast(PassageLocator, shaped), text, score, section)
    return made(n, kind, source, title, shaped, text, score)


def _tokens(text: str) -> int:
    """Estimated tokens: by words, or by characters where words are long (codes, base64, tables of
    digits), which the word count misses."""
    return int(max(len(text.split()) * TOKENS_PER_WORD, len(text) / CHARS_PER_TOKEN)) + 1


def _excerpt(text: str, budget_tokens: int) -> str:
    words = text.split()
    keep = int(budget_tokens / TOKENS_PER_WORD)
    out = text if len(words) <= keep else " ".join(words[:keep]) + " …"
    limit = int(budget_tokens * CHARS_PER_TOKEN)
    return out if len(out) <= limit else out[:limit] + " …"


def pack(hits: list[tuple[str, Hit]], max_items: int, budget_tokens: int,
         excerpts: dict[int, str] | None = None) -> list[Evidence]:
    """Number the best hits until the token budget is spent; drop paragraphs already inside a chosen
    document segment, and a hit that repeats one chosen (the same place in the same file, found by two
    routes). `hits` are (kind, hit) pairs, best first; `excerpts` replaces long texts."""
    chosen: list[Evidence] = []
    spans: list[tuple[str, int, int]] = []
    places: set[tuple[str, str]] = set()
    used = 0
    for kind, hit in hits:
        if len(chosen) >= max_items or used >= budget_tokens:
            break
        item = hit.item
        span = _span(item.locator)
        if span is not None and any(src == item.source and s <= span[0] and span[1] <= e for src, s, e in spans):
            continue
        place = (item.source, json.dumps(item.locator, sort_keys=True, default=str))
        if place in places:
            continue
        places.add(place)
        text = (excerpts or {}).get(item.id, item.text)
        remaining = budget_tokens - used
        if _tokens(text) > remaining:
            if remaining < 60:
                break
            text = _excerpt(text, remaining)
        chosen.append(evidence_of(len(chosen) + 1, kind, item.source, item.title, item.locator, text, hit.score,
                                  item.heading))
        if span is not None:
            spans.append((item.source, *span))
        used += _tokens(text)
    return chosen


def _span(locator: Mapping[str, Any]) -> tuple[int, int] | None:
    """(start, end) of a paragraph or a document segment in its file (their locators have both); else None."""
    start, end = locator.get("start"), locator.get("end")
    return None if start is None or end is None else (start, end)
