"""OpenDocument presentations (.odp): each slide (draw:page) a section under its title (its
locator: slide N), its frames from top to bottom, tables as rows, pictures by their description,
then the speaker notes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from engine.ingest.archives import MAX_UNPACKED_MB
from engine.ingest.parsed import DocBuilder, ParsedDoc
from engine.ingest.parsers import grids
from engine.ingest.parsers.odt import DRAW, SVG, content, described, pictures, text_elements

if TYPE_CHECKING:
    from lxml import etree

KIND = "odp"
EXTENSIONS = (".odp",)
UNPACKS = True  # a zip: parse() takes the max_unpacked_mb limit

PRESENTATION = "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"
TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"


def parse(path: Path, max_unpacked_mb: float = MAX_UNPACKED_MB) -> ParsedDoc:
    """Every slide's text; SkipFile when the parts unpack to more than `max_unpacked_mb`."""
    root = content(path, max_unpacked_mb)
    builder, shown = DocBuilder(), []
    first_title = ""
    for number, slide in enumerate(root.iter(f"{{{DRAW}}}page"), start=1):
        frames = [f for f in slide if f.tag != f"{{{PRESENTATION}}}notes"]
        shown += [(frame, number) for frame in frames]
        titles = [f for f in frames if f.get(f"{{{PRESENTATION}}}class") == "title"]
        title = " ".join(_words(t) for t in titles).strip()
        first_title = first_title or title
        builder.heading(1, title or f"Slide {number}", number)
        for frame in sorted((f for f in frames if f not in titles), key=_top):
            for text in _frame_texts(frame):
                builder.paragraph(text, number)
        notes = " ".join(_words(n) for n in slide.iter(f"{{{PRESENTATION}}}notes")).strip()
        if notes:
            builder.paragraph(f"Speaker notes: {notes}", number)
    doc = builder.build(path.stem, page_kind="slide")
    doc.title = first_title or path.stem
    doc.pictures = pictures(path, shown)
    return doc


def _words(el: etree._Element) -> str:
    return " ".join(" ".join("".join(p.itertext()).split()) for p in text_elements(el))


_LENGTH = re.compile(r"-?\d+(?:\.\d+)?")


def _top(frame: etree._Element) -> float:
    """The frame's distance from the slide's top (svg:y, e.g. "2.5cm"), for reading order."""
    found = _LENGTH.match(frame.get(f"{{{SVG}}}y", ""))
    return float(found.group(0)) if found else 0.0


def _frame_texts(frame: etree._Element) -> Iterator[str]:
    for table in frame.iter(f"{{{TABLE}}}table"):
        for row in table.iter(f"{{{TABLE}}}table-row"):
            if text := grids.row_text([_words(c) for c in row.iter(f"{{{TABLE}}}table-cell")]):
                yield text
    if next(frame.iter(f"{{{TABLE}}}table"), None) is not None:
        return
    for el in text_elements(frame):
        if text := " ".join("".join(el.itertext()).split()):
            yield text
    if next(frame.iter(f"{{{DRAW}}}image"), None) is not None and (alt := described(frame)):
        yield f"Picture: {alt}"
