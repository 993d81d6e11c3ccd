"""PowerPoint decks (.pptx) with python-pptx: each slide a section under its title (its locator:
slide N), its text boxes in reading order, tables as rows, pictures by their alt text, then the
speaker notes. A table with a header is loaded as a table of its own too (`grids`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.ingest.archives import MAX_UNPACKED_MB, open_office
from engine.ingest.parsed import DocBuilder, ParsedDoc
from engine.ingest.parsers import grids
from engine.ingest.pictures import Pictures

if TYPE_CHECKING:
    from pptx.presentation import Presentation
    from pptx.shapes.base import BaseShape
    from pptx.slide import Slide

KIND = "pptx"
EXTENSIONS = (".pptx", ".pptm", ".ppsx")
UNPACKS = True  # a zip: parse() takes the max_unpacked_mb limit
VERSION = 2  # 2: its tables loaded as tables


def parse(path: Path, max_unpacked_mb: float = MAX_UNPACKED_MB) -> ParsedDoc:
    """Every slide's text; SkipFile when the parts unpack to more than `max_unpacked_mb`."""
    deck = _open(path, max_unpacked_mb)
    builder, pictures, tables = DocBuilder(), Pictures(), list[grids.PrintedTable]()
    first_title = ""
    for number, slide in enumerate(deck.slides, start=1):
        title = _title(slide)
        first_title = first_title or title
        builder.heading(1, title or f"Slide {number}", number)
        for text in _texts(slide, Found(pictures, tables), number):
            builder.paragraph(text, number)
        if slide.has_notes_slide and (notes := slide.notes_slide.notes_text_frame):
            _add_lines(builder, "Speaker notes: ", notes.text, number)
    doc = builder.build(path.stem, page_kind="slide")
    doc.pictures, doc.attached_tables = pictures.kept, grids.attached(tables)
    doc.title = (deck.core_properties.title or "").strip() or first_title or path.stem
    return doc


def _open(path: Path, max_unpacked_mb: float) -> Presentation:
    import pptx
    from pptx.exc import PackageNotFoundError

    return open_office(path, max_unpacked_mb, pptx.Presentation, PackageNotFoundError, "PowerPoint deck")


def _title(slide: Slide) -> str:
    shape = slide.shapes.title
    return " ".join(shape.text_frame.text.split()) if shape is not None and shape.has_text_frame else ""


@dataclass(frozen=True)
class Found:
    """Where a slide's pictures and its tables that read as tables go."""

    pictures: Pictures
    tables: list[grids.PrintedTable]


def _texts(slide: Slide, found: Found, number: int) -> Iterator[str]:
    """The slide's text after its title, shape by shape from top to bottom, left to right; its
    pictures and tables go to `found`."""
    title = slide.shapes.title
    for shape in _in_reading_order(slide.shapes):
        if title is not None and shape.shape_id == title.shape_id:
            continue
        yield from _shape_texts(shape, found, number)


def _in_reading_order(shapes: object) -> list[BaseShape]:
    listed = list(shapes)  # type: ignore[call-overload]  # a slide's or a group's shapes
    return sorted(listed, key=lambda s: (s.top or 0, s.left or 0))


def _shape_texts(shape: BaseShape, found: Found, number: int) -> Iterator[str]:
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
        for inner in _in_reading_order(shape.shapes):  # type: ignore[attr-defined]
            yield from _shape_texts(inner, found, number)
    elif getattr(shape, "has_table", False):
        grid: grids.Grid = [[cell.text for cell in row.cells] for row in shape.table.rows]  # type: ignore[attr-defined]
        if printed := grids.table_of(grid, number, "slide"):
            found.tables.append(printed)
        yield from filter(None, (grids.row_text(row) for row in grid))
    elif shape.has_text_frame:
        for para in shape.text_frame.paragraphs:  # type: ignore[attr-defined]
            if text := " ".join(para.text.split()):
                yield text
    else:
        alt = _alt_text(shape)
        if blob := _picture(shape):
            found.pictures.add(blob, number, alt)
        if alt:
            yield f"Picture: {alt}"


def _picture(shape: BaseShape) -> bytes | None:
    """A picture shape's image file (a chart is drawn, not a picture); None for other shapes and
    for a picture linked to a file outside the deck."""
    try:
        return shape.image.blob  # type: ignore[attr-defined]
    except (AttributeError, KeyError, ValueError):
        return None


def _alt_text(shape: BaseShape) -> str:
    """A picture's description as its author wrote it (the alt text), else nothing."""
    properties = shape._element.xpath("./*[1]/p:cNvPr")  # the non-visual properties of any shape kind
    return " ".join((properties[0].get("descr") or "").split()) if properties else ""


def _add_lines(builder: DocBuilder, lead: str, text: str, page: int) -> None:
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    if lines:
        builder.paragraph(lead + " ".join(lines), page)
