"""Word .docx with python-docx: heading styles give the heading path; tables become rows of text,
and those that read as a grid under a header are loaded as tables of their own too (`grids`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from engine.ingest.archives import MAX_UNPACKED_MB, open_office
from engine.ingest.parsed import DocBuilder, ParsedDoc, Picture
from engine.ingest.parsers import grids
from engine.ingest.pictures import Pictures

if TYPE_CHECKING:
    from docx.document import Document

KIND = "docx"
EXTENSIONS = (".docx",)
UNPACKS = True  # a zip: parse() takes the max_unpacked_mb limit
VERSION = 2  # 2: its tables loaded as tables

_HEADING = re.compile(r"^(?:heading|überschrift|titre|título)\s*(\d)", re.IGNORECASE)


def parse(path: Path, max_unpacked_mb: float = MAX_UNPACKED_MB) -> ParsedDoc:
    """The document's text; SkipFile when its parts unpack to more than `max_unpacked_mb`.
    python-docx's XML parser resolves no entities and keeps libxml2's limits (depth 256, entity
    amplification): a billion-laughs part is a ParseError."""
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    document = _open(path, max_unpacked_mb)
    styles, default_style = _style_names(document)
    builder, tables = DocBuilder(), []
    title = (document.core_properties.title or "").strip()
    for child in document.element.body.iterchildren():
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "p":
            style = styles.get(child.style, default_style) if child.style else default_style
            text = Paragraph(child, document).text
            if style == "Title":
                title = title or text.strip()
                builder.heading(1, text)
            elif m := _HEADING.match(style):
                builder.heading(int(m.group(1)) + 1, text)
            else:
                builder.paragraph(text)
        elif tag == "tbl":
            grid: grids.Grid = [[cell.text for cell in row.cells] for row in Table(child, document).rows]
            for row in grid:
                builder.paragraph(grids.row_text(row))
            if printed := grids.table_of(grid, None):
                tables.append(printed)
    doc = builder.build(path.stem)
    doc.pictures, doc.attached_tables = _pictures(document), grids.attached(tables)
    if title:
        doc.title = title
    return doc


def _pictures(document: Document) -> list[Picture]:
    """The pictures in the text (inline), in order, with their alt text."""
    found = Pictures()
    parts = document.part.related_parts
    for shape in document.inline_shapes:
        inline = shape._inline
        blips = inline.xpath(".//a:blip/@r:embed")
        if blips and blips[0] in parts:
            found.add(parts[blips[0]].blob, None, inline.docPr.get("descr") or inline.docPr.get("title") or "")
    return found.kept


def _open(path: Path, max_unpacked_mb: float) -> Document:
    """The python-docx document, once its unpacked size is checked; ParseError when unreadable."""
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    return open_office(path, max_unpacked_mb, docx.Document, PackageNotFoundError, "Word document")


def _style_names(document: Document) -> tuple[dict[str, str], str]:
    """Paragraph style id -> name, and the default paragraph style's name, read once: python-docx's
    `Paragraph.style` scans every style of the file for each paragraph (28,000 paragraphs: 75 s)."""
    from docx.enum.style import WD_STYLE_TYPE

    names = {s.style_id: s.name or "" for s in document.styles if s.type == WD_STYLE_TYPE.PARAGRAPH}
    default = document.styles.default(WD_STYLE_TYPE.PARAGRAPH)
    return names, (default.name or "") if default is not None else ""
